//! The in-process benchmarks behind `cargo xtask bench`: core natively, core in wasm32 under
//! wasmer, and the bare pulldown-cmark baseline, each timed side by side in one process.
//!
//! Prints one `bench <key> <value>` line per number on stdout; `xtask/src/bench.rs` reads them
//! and writes docs/BENCHMARKS.md. Plain `Instant` and medians: no statistics crate, and nothing
//! here ever fails on a number (only on a wrong answer, which would make the number meaningless).

// The parity test's harness; the benchmark uses only part of it.
#[allow(dead_code)]
#[path = "../tests/wasm_shim/mod.rs"]
mod wasm_shim;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use bookside_core::wire::BookBundle;
use bookside_core::{book, guide, progress, render};

/// Runs `f` once to warm up, then `n` times; the median in milliseconds.
fn median_ms<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
    black_box(f());
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2].as_secs_f64() * 1000.0
}

fn report(key: &str, value: impl std::fmt::Display) {
    println!("bench {key} {value}");
}

/// The book as the worker bundles it: book.toml, quiz.toml and every `.md`/`.toml` under src/.
fn read_bundle(dir: &Path) -> BookBundle {
    fn walk(root: &Path, dir: &Path, bundle: &mut BookBundle) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut paths: Vec<_> = entries.map(|e| e.expect("readable book").path()).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                walk(root, &path, bundle);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "toml")) {
                let key = path.strip_prefix(root).expect("below root").components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                bundle.files.insert(key, std::fs::read_to_string(&path).expect("UTF-8 book"));
            }
        }
    }
    let mut bundle = BookBundle::default();
    for top in ["book.toml", "quiz.toml"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(top)) {
            bundle.files.insert(top.to_owned(), text);
        }
    }
    walk(dir, &dir.join("src"), &mut bundle);
    bundle
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf();
    let book_dir = std::env::var_os("BOOKSIDE_BENCH_BOOK").map_or_else(|| root.join("book"), Into::into);

    // PROGRESS.md: parse+print of a generated 10,000-entry log, natively and in wasm.
    let log = progress::sample_log(10_000);
    assert_eq!(progress::roundtrip(&log), log, "parse+print must give the log back");
    let n = 15;
    let native = median_ms(n, || progress::roundtrip(black_box(&log)));
    report("progress_bytes", log.len());
    report("progress_entries", 10_000);
    report("progress_n", n);
    report("progress_native_ms", format!("{native:.3}"));
    report("progress_native_mb_s", format!("{:.1}", log.len() as f64 / 1e6 / (native / 1000.0)));
    // Build (or find) the .wasm first, so the load time below is wasmer's alone.
    let _ = wasm_shim::wasm_path();
    let load_started = Instant::now();
    let mut wasm = wasm_shim::Wasm::load();
    report("wasm_load_ms", format!("{:.1}", load_started.elapsed().as_secs_f64() * 1000.0));
    report("wasm_bytes", std::fs::metadata(wasm_shim::wasm_path()).map_or(0, |m| m.len()));
    assert!(wasm.progress_roundtrip(log.as_bytes()) == log.as_bytes(), "wasm parse+print must give the log back");
    let in_wasm = median_ms(n, || wasm.progress_roundtrip(black_box(log.as_bytes())));
    report("progress_wasm_ms", format!("{in_wasm:.3}"));
    report("progress_wasm_ratio", format!("{:.2}", in_wasm / native));

    // Whole-book render: Bookside's renderer vs bare pulldown-cmark over the same chapters.
    let bundle = read_bundle(&book_dir);
    let loaded = book::load(&bundle);
    let chapters: Vec<(String, String)> = loaded.chapters.iter().map(|c| (c.path.clone(), c.source.clone())).collect();
    let markdown_bytes: usize = chapters.iter().map(|(_, s)| s.len()).sum();
    report("book_chapters", chapters.len());
    report("book_markdown_bytes", markdown_bytes);
    let n = 31;
    let ours = median_ms(n, || render::book(black_box(&loaded)));
    let bare = median_ms(n, || {
        let mut total = 0;
        for (_, source) in &chapters {
            let mut html = String::new();
            pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new_ext(source, render::options()));
            total += html.len();
        }
        total
    });
    report("render_n", n);
    report("render_bookside_ms", format!("{ours:.3}"));
    report("render_pulldown_ms", format!("{bare:.3}"));
    report("render_ratio", format!("{:.2}", ours / bare));

    // Bookside's equivalent of `mdbook build`: read the book from disk, load it, check the
    // Session Guide against it, render every chapter and write the pages and the bundle.
    let out = root.join("target/bench-build");
    let n = 11;
    let build = median_ms(n, || {
        let bundle = read_bundle(&book_dir);
        let loaded = book::load(&bundle);
        let mut diags = loaded.diagnostics.len();
        if let Some(path) = &loaded.guide {
            let text = bundle.get(&format!("{}/{path}", loaded.src)).unwrap_or_default();
            let (g, d) = guide::parse(path, text);
            diags += d.len() + guide::check(&g, &loaded, path, None).len();
        }
        std::fs::create_dir_all(&out).expect("target/ is writable");
        for (path, rendered) in render::book(&loaded) {
            let file = out.join(path.replace('/', "__")).with_extension("html");
            std::fs::write(file, rendered.html).expect("target/ is writable");
        }
        std::fs::write(out.join("book.json"), serde_json::to_string(&bundle).expect("bundle serialises")).expect("target/ is writable");
        diags
    });
    report("build_n", n);
    report("build_bookside_ms", format!("{build:.3}"));

    // The Done-when command of S1.3, as the guide prints it, for the worker-vs-direct row.
    if let Some(path) = &loaded.guide {
        let text = bundle.get(&format!("{}/{path}", loaded.src)).unwrap_or_default();
        let (g, _) = guide::parse(path, text);
        if let Some(dw) = g.cards.iter().find(|c| c.id == "S1.3").and_then(|c| c.done_when.as_ref()) {
            report("done_when_S1.3", &dw.command);
        }
    }
}
