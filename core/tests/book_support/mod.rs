//! Test support shared by the book, guide and render tests: reading a book folder into a bundle.
//!
//! Tests may touch the disk; core itself never does, so this lives beside the tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use bookside_core::wire::BookBundle;

/// The repository's sample book.
pub fn sample_book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../book")
}

/// A fixture book under `core/tests/fixtures/books/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/books").join(name)
}

/// Every `.md` and `.toml` file of the book at `root`, as the worker bundles it: `book.toml`,
/// `quiz.toml` and everything below `src/` and `quiz/`.
pub fn bundle(root: &Path) -> BookBundle {
    let mut bundle = BookBundle::default();
    for name in ["book.toml", "quiz.toml"] {
        if let Ok(text) = std::fs::read_to_string(root.join(name)) {
            bundle.files.insert(name.to_owned(), text);
        }
    }
    for top in ["src", "quiz"] {
        walk(root, &root.join(top), &mut bundle);
    }
    bundle
}

fn walk(root: &Path, dir: &Path, bundle: &mut BookBundle) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(root, &path, bundle);
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "toml")) {
            let key = path.strip_prefix(root).unwrap().components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            bundle.files.insert(key, std::fs::read_to_string(&path).unwrap());
        }
    }
}

use std::collections::BTreeSet;
use std::fmt::Write;

use bookside_core::book::{Book, TocKind};
use bookside_core::guide::{self, Guide, ReadItem};

/// The quiz topic ids of the book's quiz banks (`quiz.toml`, `quiz/*.toml`), as the CLI gathers
/// them; `None` when the book has none.
pub fn quiz_topics(bundle: &BookBundle) -> Option<BTreeSet<String>> {
    let banks: Vec<(&String, &String)> = bundle.files.iter().filter(|(p, _)| *p == "quiz.toml" || (p.starts_with("quiz/") && p.ends_with(".toml"))).collect();
    if banks.is_empty() {
        return None;
    }
    Some(banks.into_iter().flat_map(|(path, text)| bookside_core::quiz::parse_quiz(path, text).0.topics.into_iter().map(|t| t.id)).collect())
}

/// What the book loader sees, one line per entry: the golden snapshot's text.
pub fn dump_book(book: &Book) -> String {
    let mut out = String::new();
    writeln!(out, "title: {}", book.title).unwrap();
    writeln!(out, "guide: {}", book.guide.as_deref().unwrap_or("(none)")).unwrap();
    writeln!(out, "toc:").unwrap();
    for item in &book.toc {
        let indent = "  ".repeat(item.depth + 1);
        let what = match item.kind {
            TocKind::Prefix => "prefix",
            TocKind::Numbered if item.is_draft() => "draft",
            TocKind::Numbered => "numbered",
            TocKind::Suffix => "suffix",
            TocKind::Part => "part",
            TocKind::Separator => "separator",
        };
        let number = item.number.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
        let path = item.path.as_deref().map(|p| format!(" -> {p}")).unwrap_or_default();
        writeln!(out, "{indent}{:>3}: {what} {number}{}{path}", item.line, item.title).unwrap();
    }
    writeln!(out, "chapters:").unwrap();
    for chapter in &book.chapters {
        writeln!(out, "  {} ({})", chapter.path, chapter.title).unwrap();
        for h in chapter.headings() {
            writeln!(out, "    h{} #{}  {}", h.level, h.id, h.text).unwrap();
        }
    }
    writeln!(out, "diagnostics:").unwrap();
    for d in &book.diagnostics {
        writeln!(out, "  {d}").unwrap();
    }
    out
}

/// What the Session Guide parser sees: every card, field and rung with its line.
pub fn dump_guide(guide: &Guide) -> String {
    let mut out = String::new();
    writeln!(out, "file: {}", guide.file).unwrap();
    for phase in &guide.phases {
        writeln!(out, "phase {} ({}) at line {}", phase.number, phase.title, phase.line).unwrap();
    }
    for card in &guide.cards {
        writeln!(out, "\n{} — {} [phase {}: {}] line {} {:?}", card.id, card.title, card.phase, card.phase_title, card.line, card.kind()).unwrap();
        for field in &card.fields {
            let name = field.name.as_str();
            let line = field.line;
            let value: String = match name.to_ascii_lowercase().as_str() {
                "needs" => format!("{:?}", card.needs),
                "read" => card
                    .read
                    .iter()
                    .map(|r| match r {
                        ReadItem::Chapter { text, path, anchor } => format!("[{text}] {path}#{}", anchor.as_deref().unwrap_or("")),
                        ReadItem::Notebook { path, cells } => format!("notebook {path} cells {cells:?}"),
                        ReadItem::Other(text) => format!("other {text:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(" | "),
                "done-when" => card.done_when.as_ref().map(|d| format!("`{}` -> {:?}", d.command, d.test_file)).unwrap_or_default(),
                "quiz" => format!("{:?}", card.quiz),
                "themes" => format!("{:?}", card.themes),
                "remediation" => format!("{:?}", card.remediation),
                _ => field.value.clone(),
            };
            let unknown = if card.unknown.iter().any(|u| u.line == line) { " (unknown)" } else { "" };
            writeln!(out, "  {line:>3} {name}{unknown}: {value}").unwrap();
        }
        for ladder in &card.hints {
            writeln!(out, "  {:>3} hints: {}", ladder.line, ladder.obstacle).unwrap();
            for rung in &ladder.rungs {
                let label = rung.kind.map_or("?", |k| k.label());
                writeln!(out, "  {:>3}   {label}: {}", rung.line, rung.text).unwrap();
            }
        }
    }
    out
}

/// Loads a book folder and its guide (checked against the book and its quiz.toml).
pub fn load(root: &Path) -> (Book, Option<Guide>, Vec<bookside_core::Diagnostic>) {
    let bundle = bundle(root);
    let book = bookside_core::book::load(&bundle);
    let topics = quiz_topics(&bundle);
    let (guide, diags) = guide::load(&book, topics.as_ref());
    (book, guide, diags)
}

/// Asserts that `run` is linear: on an input ten times larger it takes at most twenty times as
/// long. The small input runs ten times per measurement and the large one once, so both sides do
/// the same amount of work; the two alternate and each keeps its best time, and the comparison is
/// retried, so a burst of load on a shared machine does not fail the test but a quadratic scan
/// (100x) still does.
pub fn assert_linear(name: &str, make: impl Fn(usize) -> String, run: impl Fn(&str)) {
    let small = make(1);
    let large = make(10);
    assert!(large.len() >= 9 * small.len(), "{name}: the large input must be about ten times the small one");
    let time = |input: &str, reps: usize| {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            run(input);
        }
        start.elapsed()
    };
    let mut ratios = Vec::new();
    for _ in 0..3 {
        let (mut t_small, mut t_large) = (std::time::Duration::MAX, std::time::Duration::MAX);
        for _ in 0..5 {
            t_small = t_small.min(time(&small, 10));
            t_large = t_large.min(time(&large, 1));
        }
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-9) * 10.0;
        if ratio <= 20.0 {
            return;
        }
        ratios.push(ratio);
    }
    panic!("{name}: 10x input took {ratios:?}x the time (limit 20x)");
}
