//! Reads a book folder from disk into the `BookBundle` that core and the app understand.

use std::path::Path;

use anyhow::Context;
use bookside_core::wire::BookBundle;

/// Every `.md` and `.toml` file of the book (book.toml, src/**, quiz banks), keyed by its
/// `/`-separated path relative to `root`. The reader's workspace (`checkpoints/`, `tests/`,
/// virtual environments) is not part of the book and is never read.
pub fn load(root: &Path) -> anyhow::Result<BookBundle> {
    let mut bundle = BookBundle::default();
    let book_toml = root.join("book.toml");
    let text = std::fs::read_to_string(&book_toml)
        .with_context(|| format!("cannot read {}: is --book the folder that holds book.toml?", book_toml.display()))?;
    bundle.files.insert("book.toml".to_owned(), text);
    // The quiz bank sits beside book.toml (docs/FORMATS.md); a book without quizzes has none.
    let quiz = root.join("quiz.toml");
    if quiz.is_file() {
        let text = std::fs::read_to_string(&quiz).with_context(|| format!("cannot read {}", quiz.display()))?;
        bundle.files.insert("quiz.toml".to_owned(), text);
    }
    for top in ["src", "quiz"] {
        walk(root, &root.join(top), &mut bundle)?;
    }
    Ok(bundle)
}

fn walk(root: &Path, dir: &Path, bundle: &mut BookBundle) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut entries: Vec<_> = entries.collect::<Result<_, _>>().with_context(|| format!("cannot list {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(root, &path, bundle)?;
        } else if kind.is_file() && matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "toml")) {
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let rel = path.strip_prefix(root).expect("walked below root");
            let key = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            bundle.files.insert(key, text);
        }
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The book folder (the one holding book.toml).
    #[arg(long)]
    book: std::path::PathBuf,
    /// Where to write the bundle (e.g. dist/book.json).
    #[arg(long)]
    out: std::path::PathBuf,
    /// A built site (Trunk's dist folder): also write each chapter's page pre-rendered from its
    /// index.html, at `book/<chapter>.html`, the file static hosts serve for `/book/<chapter>`.
    #[arg(long)]
    site: Option<std::path::PathBuf>,
}

pub fn write(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let bundle = load(&args.book)?;
    let json = serde_json::to_string(&bundle)?;
    std::fs::write(&args.out, json).with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("wrote {} ({} files)", args.out.display(), bundle.files.len());
    if let Some(site) = &args.site {
        let index = site.join("index.html");
        let index_html = std::fs::read_to_string(&index).with_context(|| format!("cannot read {}: build the site first", index.display()))?;
        let book = bookside_core::book::load(&bundle);
        let (guide, _) = bookside_core::guide::load(&book, None);
        let chapter_html = crate::prerender::template(site, &index_html);
        let pages = crate::prerender::pages(&chapter_html, &book, guide.as_ref());
        // `/book` alone would need `book.html` beside the `book/` folder, which hosts resolve as
        // the folder: that address gets index.html, and the app opens the first chapter.
        let chapters = pages.iter().filter_map(|(route, html)| route.strip_prefix("/book/").map(|rest| (rest, html)));
        let mut written = 0;
        for (rest, html) in chapters {
            let path = site.join("book").join(format!("{rest}.html"));
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
            written += 1;
        }
        println!("wrote {written} pre-rendered chapter pages under {}", site.join("book").display());
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sample_book_bundle_holds_the_book_and_its_quiz_bank_but_not_the_clone() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
        let bundle = super::load(&root).unwrap();
        for key in ["book.toml", "quiz.toml", "src/SUMMARY.md", "src/session-guide.md"] {
            assert!(bundle.files.contains_key(key), "bundle lacks {key}: {:?}", bundle.files.keys().collect::<Vec<_>>());
        }
        assert!(bundle.files.keys().all(|k| k == "book.toml" || k == "quiz.toml" || k.starts_with("src/") || k.starts_with("quiz/")),
            "the reader's clone leaked into the bundle: {:?}", bundle.files.keys().collect::<Vec<_>>());
    }
}
