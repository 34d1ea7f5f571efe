//! The parity shim: core behind a byte-in, byte-out ABI with no JS glue.
//!
//! One function, [`call`], turns a JSON [`Request`] into the text of core's answer. The parity
//! test links this crate natively and also loads its `wasm32-unknown-unknown` build under wasmer,
//! sends both the same request bytes and compares the answers byte for byte. Because both sides
//! run this very function, any difference comes from how core itself behaves on the two targets
//! (float formatting, hash-map order, `usize` width, ...), never from two serialisers.
//!
//! Answers are core's values printed with `{:#?}`: every domain type derives `Debug`, and Debug
//! output shows every field, so it is the strictest comparison available without making core
//! derive serde outside `wire`.
//!
//! The wasm ABI (see [`ffi`]): `bookside_alloc(len) -> ptr`, `bookside_free(ptr, len)` and
//! `bookside_call(ptr, len) -> u64`, whose result packs the answer's pointer in the high 32 bits
//! and its length in the low 32 bits. The host frees the answer with `bookside_free`.
//! `bookside_progress_roundtrip` has the same convention and takes raw PROGRESS.md bytes, so the
//! benchmark can time parse+print in wasm without JSON around it.

use bookside_core::wire::{BookBundle, RunRecord};
use serde::Deserialize;

/// One golden vector: which core function to run and on what.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// `book::load` over a whole bundle (config, table of contents, every chapter rendered to
    /// HTML with its headings), then every chapter's plain text for search.
    BookLoad { bundle: BookBundle },
    /// `book::parse_summary` over one SUMMARY.md text.
    ParseSummary { text: String },
    /// `render::chapter` of one Markdown text at a chapter path.
    Render { path: String, markdown: String },
    /// PROGRESS.md: the parsed model and diagnostics, the printed text, `fmt`, and the
    /// canonical-form check, in one answer.
    Progress { text: String },
    /// `progress::sample_log(n)`: the generated log the benchmark uses.
    ProgressSample { n: usize },
    /// `merge::merge(a, b)`, then `resolve` of the first conflict keeping each version.
    Merge { a: String, b: String },
    /// `guide::parse` of the Session Guide chapter.
    Guide { file: String, text: String },
    /// The session engine over a book and a log: `guide::check` against the book and its quiz
    /// bank, the gate report, `locate` for each name (and for none), the self-reported runs and
    /// Open's retrieval check.
    Engine {
        bundle: BookBundle,
        log: String,
        runs: Vec<RunRecord>,
        hint_cap: u8,
        phase0_skipped: bool,
        today: String,
        named: Vec<String>,
        seed: u64,
    },
    /// `quiz::parse_quiz`, then for each seed `generate`, each question's revealed answer, and
    /// grades of the given answers (numbers go through the float reader and formatter).
    Quiz { text: String, topics: Vec<String>, seeds: Vec<u64>, per_topic: usize, answers: Vec<String> },
}

/// Runs `request` (JSON bytes of a [`Request`]) through core and returns the answer's text.
///
/// Never panics on a bad request: it answers `request error: ...` so both sides agree on that too.
pub fn call(request: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<Request>(request) {
        Ok(request) => answer(&request).into_bytes(),
        Err(err) => format!("request error: {err}").into_bytes(),
    }
}

fn answer(request: &Request) -> String {
    match request {
        Request::BookLoad { bundle } => {
            let book = bookside_core::book::load(bundle);
            let mut out = format!("{book:#?}");
            for (path, rendered) in bookside_core::render::book(&book) {
                out.push_str(&format!("\n--- render::chapter({path})\n{rendered:#?}"));
            }
            for c in &book.chapters {
                out.push_str(&format!("\n--- plain_text({})\n{}", c.path, bookside_core::render::plain_text(&c.source)));
            }
            out
        }
        Request::ParseSummary { text } => format!("{:#?}", bookside_core::book::parse_summary("src/SUMMARY.md", text)),
        Request::Render { path, markdown } => {
            format!("{:#?}\n{:#?}", bookside_core::render::chapter(path, markdown), bookside_core::render::headings(markdown))
        }
        Request::Engine { bundle, log, runs, hint_cap, phase0_skipped, today, named, seed } => {
            engine(bundle, log, runs, *hint_cap, *phase0_skipped, today, named, *seed)
        }
        Request::Progress { text } => {
            use bookside_core::progress;
            let parsed = progress::parse(text);
            let printed = progress::print(&parsed.0);
            let formatted = progress::fmt(text);
            let check = progress::check_canonical(text);
            format!("{parsed:#?}\n--- print\n{printed}\n--- fmt\n{formatted}\n--- check_canonical\n{check:#?}")
        }
        Request::ProgressSample { n } => bookside_core::progress::sample_log(*n),
        Request::Merge { a, b } => {
            use bookside_core::merge;
            let merged = merge::merge(a, b);
            let mut out = format!("{merged:#?}");
            if let Some(conflict) = merged.conflicts.first() {
                for keep in 0..conflict.versions.len() {
                    out.push_str(&format!("\n--- resolve(first conflict, keep {keep})\n{}", merge::resolve(&merged.text, conflict, keep)));
                }
            }
            out
        }
        Request::Guide { file, text } => format!("{:#?}", bookside_core::guide::parse(file, text)),
        Request::Quiz { text, topics, seeds, per_topic, answers } => {
            use bookside_core::quiz::{self, Answer};
            let (bank, diags) = quiz::parse_quiz("quiz.toml", text);
            let mut out = format!("{bank:#?}\n{diags:#?}");
            for &seed in seeds {
                let generated = quiz::generate(&bank, topics, seed, *per_topic);
                out.push_str(&format!("\n--- seed {seed}\n{generated:#?}"));
                let mut grades = Vec::new();
                for q in &generated.questions {
                    out.push_str(&format!("\nexpected: {}", q.expected()));
                    let mut tries: Vec<Answer> = answers.iter().map(|a| Answer::Text(a.clone())).collect();
                    tries.push(Answer::Text(q.expected()));
                    tries.push(Answer::Pick(1));
                    for a in &tries {
                        out.push_str(&format!("\n  {a:?} -> {:?}", quiz::grade(q, a)));
                    }
                    grades.push(quiz::grade(q, &Answer::Text(q.expected())).grade);
                }
                let score = quiz::score(&bank, &generated, &grades);
                out.push_str(&format!("\n{score:#?}\n{:?}", quiz::phase0_skip(&generated, &score, topics)));
            }
            out
        }
    }
}

#[allow(clippy::too_many_arguments)] // One vector's inputs, named as the request names them.
fn engine(bundle: &BookBundle, log: &str, runs: &[RunRecord], hint_cap: u8, phase0_skipped: bool, today: &str, named: &[String], seed: u64) -> String {
    use bookside_core::engine::{gates, locate};
    use bookside_core::{book, guide, progress, quiz};
    let book = book::load(bundle);
    let guide_path = book.guide.clone().unwrap_or_default();
    let guide_text = bundle.get(&format!("{}/{guide_path}", book.src)).unwrap_or_default();
    let (guide, guide_diags) = guide::parse(&guide_path, guide_text);
    let (bank, bank_diags) = quiz::parse_quiz("quiz.toml", bundle.get("quiz.toml").unwrap_or_default());
    let topics: std::collections::BTreeSet<String> = bank.topics.iter().map(|t| t.id.clone()).collect();
    let checked = guide::check(&guide, &book, &guide_path, bundle.get("quiz.toml").map(|_| &topics));
    let (log, log_diags) = progress::parse(log);
    let today = progress::Date::parse(today).unwrap_or_else(|| progress::Date::new(2026, 1, 1).expect("a real date"));
    let mut all_runs = runs.to_vec();
    all_runs.extend(locate::self_reported_runs(&log));
    let report = gates::check(&gates::Input { guide: &guide, log: &log, log_diagnostics: &log_diags, runs: &all_runs, hint_cap, phase0_skipped, today });
    let mut out = format!(
        "{guide_diags:#?}\n{bank_diags:#?}\n--- guide::check\n{checked:#?}\n--- log diagnostics\n{log_diags:#?}\n--- runs\n{all_runs:#?}\n--- gates\n{report:#?}\n{}",
        report.render("PROGRESS.md")
    );
    let cx = locate::Context { guide: &guide, log: &log, runs: &all_runs, phase0_skipped };
    for name in std::iter::once(None).chain(named.iter().map(|n| Some(n.as_str()))) {
        out.push_str(&format!("\n--- locate({name:?})\n{:#?}", locate::locate(&cx, name)));
    }
    out.push_str(&format!("\n--- open_partial\n{:?}", locate::open_partial(&cx)));
    out.push_str(&format!("\n--- retrieval_check(seed {seed})\n{:#?}", locate::retrieval_check(&guide, &bank, &log, seed)));
    out
}

/// PROGRESS.md parse then print, bytes in and out with no JSON around them: what the benchmark
/// times natively and in wasm (`bookside_progress_roundtrip`). Invalid UTF-8 answers empty.
pub fn progress_roundtrip(text: &[u8]) -> Vec<u8> {
    std::str::from_utf8(text).map(|t| bookside_core::progress::roundtrip(t).into_bytes()).unwrap_or_default()
}

/// The exported functions of the `.wasm`. Only compiled for wasm32: natively the test calls
/// [`call`] directly.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)] // An ABI over raw linear memory cannot be written without it.
pub mod ffi {
    use std::alloc::{Layout, alloc, dealloc};

    // A zero-sized allocation is not allowed, so every buffer is at least one byte long.
    fn layout(len: usize) -> Layout {
        Layout::array::<u8>(len.max(1)).expect("a wasm32 buffer fits in isize")
    }

    /// Reserves `len` bytes for the host to write a request into.
    #[unsafe(no_mangle)]
    pub extern "C" fn bookside_alloc(len: usize) -> *mut u8 {
        // SAFETY: the layout has a non-zero size.
        unsafe { alloc(layout(len)) }
    }

    /// Frees a buffer from `bookside_alloc` or an answer from `bookside_call`.
    ///
    /// # Safety
    /// `ptr` must come from `bookside_alloc(len)` or be an answer of length `len`, freed once.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bookside_free(ptr: *mut u8, len: usize) {
        // SAFETY: guaranteed by the caller, and both producers use `layout(len)`.
        unsafe { dealloc(ptr, layout(len)) }
    }

    /// Runs one request; returns `(answer_ptr << 32) | answer_len`.
    ///
    /// # Safety
    /// `ptr..ptr + len` must be initialised memory the host wrote, e.g. from `bookside_alloc`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bookside_call(ptr: *const u8, len: usize) -> u64 {
        // SAFETY: guaranteed by the caller.
        unsafe { respond(ptr, len, super::call) }
    }

    /// [`super::progress_roundtrip`] with the same calling convention as `bookside_call`.
    ///
    /// # Safety
    /// As for `bookside_call`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bookside_progress_roundtrip(ptr: *const u8, len: usize) -> u64 {
        // SAFETY: guaranteed by the caller.
        unsafe { respond(ptr, len, super::progress_roundtrip) }
    }

    /// Runs `f` over the request bytes and hands back the answer in a fresh buffer.
    ///
    /// # Safety
    /// `ptr..ptr + len` must be initialised memory.
    unsafe fn respond(ptr: *const u8, len: usize, f: fn(&[u8]) -> Vec<u8>) -> u64 {
        // SAFETY: guaranteed by the caller.
        let request = unsafe { std::slice::from_raw_parts(ptr, len) };
        let answer = f(request);
        let out = bookside_alloc(answer.len());
        // SAFETY: `out` holds at least `answer.len()` bytes and cannot overlap `answer`.
        unsafe { std::ptr::copy_nonoverlapping(answer.as_ptr(), out, answer.len()) };
        ((out as u64) << 32) | answer.len() as u64
    }
}
