//! Native/WASM parity: the same golden vectors through native core and through core's real
//! `wasm32-unknown-unknown` build running under wasmer, compared byte for byte.
//!
//! Both sides run `bookside_parity_shim::call` (natively linked, and inside the `.wasm`), so
//! the request and answer formats are shared and any difference is core's own behaviour on the
//! two targets. Where the `.wasm` comes from: see `wasm_shim::wasm_path`.

mod wasm_shim;

use bookside_core::wire::BookBundle;
use bookside_tests::book_dir;
use serde_json::json;
use wasm_shim::Wasm;

/// Runs every `(name, request)` natively and in wasm and fails on the first vector that
/// differs, showing the first differing line. Returns the native answers for further checks.
fn check_parity(vectors: &[(&str, serde_json::Value)]) -> Vec<String> {
    let mut wasm = Wasm::load();
    let mut answers = Vec::new();
    for (name, request) in vectors {
        let request = serde_json::to_vec(request).expect("vectors are plain JSON");
        let native = bookside_parity_shim::call(&request);
        let in_wasm = wasm.call(&request);
        let native = String::from_utf8(native).expect("answers are text");
        let in_wasm = String::from_utf8(in_wasm).expect("answers are text");
        assert!(!native.starts_with("request error"), "vector `{name}` is malformed: {native}");
        if native != in_wasm {
            let (n, (a, b)) = native
                .lines()
                .chain(std::iter::repeat("<end>"))
                .zip(in_wasm.lines().chain(std::iter::repeat("<end>")))
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .expect("different texts differ on some line");
            panic!(
                "vector `{name}`: native and wasm32 answers differ at line {}\n  native: {a}\n  wasm32: {b}\n\nnative answer:\n{native}\n\nwasm32 answer:\n{in_wasm}",
                n + 1
            );
        }
        answers.push(native);
    }
    answers
}

/// The real `book/` as the bundle the worker serves: book.toml, quiz.toml and every `.md` or
/// `.toml` file under `src/` and `quiz/`, keyed by `/`-separated relative path.
fn real_book() -> BookBundle {
    fn walk(root: &std::path::Path, dir: &std::path::Path, bundle: &mut BookBundle) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.expect("readable book folder").path();
            if path.is_dir() {
                walk(root, &path, bundle);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "toml")) {
                let rel = path.strip_prefix(root).expect("below root");
                let key = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                bundle.files.insert(key, std::fs::read_to_string(&path).expect("book files are UTF-8"));
            }
        }
    }
    let dir = book_dir();
    let mut bundle = BookBundle::default();
    for top in ["book.toml", "quiz.toml"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(top)) {
            bundle.files.insert(top.to_owned(), text);
        }
    }
    walk(&dir, &dir.join("src"), &mut bundle);
    walk(&dir, &dir.join("quiz"), &mut bundle);
    assert!(bundle.files.contains_key("book.toml") && bundle.files.contains_key("src/SUMMARY.md"), "book/ must hold book.toml and src/SUMMARY.md");
    bundle
}

#[test]
fn book_loads_the_same_in_wasm() {
    let bundle = real_book();
    let summary = bundle.get("src/SUMMARY.md").unwrap().to_owned();
    let hand_edited = "# Summary\r\n\r\n[Intro](intro.md)\r\n\r\n- [Ünïcode — title](a/b.md)\r\n    * [Deep](a/deep.md)\r\n-[broken](x.md\r\n";
    // Twenty chapters: an order that depends on a hash seed cannot match by luck.
    let long: String = (1..=20).map(|i| format!("{}- [Chapter {i}](ch{i:02}.md)\n", "  ".repeat(i % 3))).collect();
    let answers = check_parity(&[
        ("book::load(book/)", json!({ "op": "book_load", "bundle": bundle })),
        ("book::load(empty)", json!({ "op": "book_load", "bundle": { "files": {} } })),
        ("parse_summary(book/)", json!({ "op": "parse_summary", "text": summary })),
        ("parse_summary(hand-edited)", json!({ "op": "parse_summary", "text": hand_edited })),
        ("parse_summary(20 chapters)", json!({ "op": "parse_summary", "text": long })),
    ]);
    // Parity of two empty answers would prove nothing: the real book must show its chapters.
    let title = std::fs::read_to_string(book_dir().join("book.toml")).unwrap();
    let title = title.lines().find_map(|l| l.strip_prefix("title = ")).expect("book.toml has a title").trim_matches('"');
    assert!(answers[0].contains(title), "book::load lost the title:\n{}", answers[0]);
    assert!(answers[0].contains("<h2 id="), "book::load must render chapters:\n{}", &answers[0][..answers[0].len().min(3000)]);
    assert!(answers[2].contains("introduction.md"), "parse_summary lost a chapter:\n{}", answers[2]);
}

#[test]
fn malformed_requests_are_answered_alike() {
    // The shim's own error path must agree too, or a broken vector could hide as "both failed".
    let mut wasm = Wasm::load();
    let request = br#"{"op":"no_such_op"}"#;
    let native = bookside_parity_shim::call(request);
    assert!(native.starts_with(b"request error"));
    assert_eq!(native, wasm.call(request));
}

/// The progress helper's fixtures, read from disk so new fixtures join the vectors by themselves.
fn progress_fixtures() -> Vec<(String, String)> {
    let dir = bookside_tests::root().join("core/tests/fixtures/log");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.expect("readable fixture folder").path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect())
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("fixtures are UTF-8"))).collect()
}

#[test]
fn progress_parses_prints_and_formats_the_same_in_wasm() {
    let hand = "preamble\r\n\r\n### 2026-07-21 - s1.2 (Attention) - partial  \r\n* **Sticking point**: masking (rung 3)\r\n\
                * **Done when**: test_m01.py \u{2717}\r\n* **Mood**: \u{1F600}\r\n### 2026-13-40 \u{2014} S9 \u{2014} ???\r\nno final newline";
    let mut inputs = progress_fixtures();
    assert!(!inputs.is_empty(), "core/tests/fixtures/log/*.md should exist");
    inputs.push(("hand-edited CRLF".into(), hand.into()));
    inputs.push(("empty".into(), String::new()));
    inputs.push(("sample_log(50)".into(), bookside_core::progress::sample_log(50)));
    let vectors: Vec<(String, serde_json::Value)> =
        inputs.iter().map(|(name, text)| (format!("progress({name})"), json!({ "op": "progress", "text": text }))).collect();
    let vectors: Vec<(&str, serde_json::Value)> = vectors.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let answers = check_parity(&vectors);
    for ((name, text), answer) in inputs.iter().zip(&answers) {
        // The printed section must be the input itself: a parity of two lossy prints is no proof.
        let printed = answer.split("\n--- print\n").nth(1).and_then(|rest| rest.split("\n--- fmt\n").next());
        assert_eq!(printed, Some(text.as_str()), "{name}: print(parse(s)) != s");
    }

    // The generator itself, and the raw roundtrip export the benchmark times.
    check_parity(&[("sample_log(300)", json!({ "op": "progress_sample", "n": 300 }))]);
    let big = bookside_core::progress::sample_log(2_000);
    let mut wasm = Wasm::load();
    let in_wasm = wasm.progress_roundtrip(big.as_bytes());
    assert!(in_wasm == bookside_parity_shim::progress_roundtrip(big.as_bytes()), "raw roundtrip differs between native and wasm32");
    assert!(in_wasm == big.as_bytes(), "raw roundtrip lost bytes");
}

#[test]
fn merge_gives_the_same_log_and_conflicts_in_wasm() {
    let fixtures = progress_fixtures();
    let text = |suffix: &str| fixtures.iter().find(|(n, _)| n.ends_with(suffix)).map(|(_, t)| t.clone()).unwrap_or_default();
    let (canonical, hand) = (text("canonical.md"), text("hand_edits.md"));
    // Two machines that share a history, then each log different sessions, one of them in CRLF,
    // with one entry edited differently on each side: a conflict to resolve.
    let base = bookside_core::progress::sample_log(30);
    let a = format!("{base}{}", bookside_core::progress::sample_log(4).replace("Hand-edited", "Machine A"));
    let b = format!("{base}### 2030-01-01 — S9.9 (late) — DONE\n- **Built**: b only\n").replace('\n', "\r\n");
    let edited = canonical.replacen("5.2 MB", "5.3 MB", 1);
    let answers = check_parity(&[
        ("merge(canonical, hand_edits)", json!({ "op": "merge", "a": canonical, "b": hand })),
        ("merge(hand_edits, canonical)", json!({ "op": "merge", "a": hand, "b": canonical })),
        ("merge(a, b) diverged machines", json!({ "op": "merge", "a": a, "b": b })),
        ("merge(canonical, edited) conflict", json!({ "op": "merge", "a": canonical, "b": edited })),
        ("merge(empty, empty)", json!({ "op": "merge", "a": "", "b": "" })),
    ]);
    assert!(answers[3].contains("--- resolve(first conflict, keep 1)"), "the edited entry must conflict:\n{}", answers[3]);
}

#[test]
fn session_guide_parses_the_same_in_wasm() {
    let bundle = real_book();
    let book = bookside_core::book::load(&bundle);
    let path = book.guide.clone().expect("book/ has a Session Guide chapter");
    let file = format!("{}/{path}", book.src);
    let text = bundle.get(&file).expect("the guide chapter is in the bundle").to_owned();
    let broken = "## Phase 1 - Paper\n### S1.1 — A\n- **Goal**: x\n- **Needs**: S1.9, S1.1\n- **Read**: [x](nowhere.md#y)\n#### Hints: h\n1. **Point**: p\n3. **Ask**: a\n### S1.1 – dup\n- **Zzz**: unknown\n```\n### S1.2 — in a fence\n```\n";
    let answers = check_parity(&[
        ("guide::parse(book/)", json!({ "op": "guide", "file": file, "text": text })),
        ("guide::parse(broken)", json!({ "op": "guide", "file": "guide.md", "text": broken })),
    ]);
    assert!(answers[0].contains("S1.3"), "the real guide must have its cards:\n{}", &answers[0][..answers[0].len().min(2000)]);
}

#[test]
fn chapters_render_the_same_in_wasm() {
    let hostile = "# Title {#custom}\n\n## Title\n\n## Title\n\n## Ünïcode & `code` — dash\n\n<script>alert(1)</script>\n\n\
                   [js](javascript:alert(1)) [other](../part/other.md#x) [web](https://example.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
                   - [x] done\n- [ ] not\n\nfoot[^1]\n\n[^1]: note ~~gone~~\n\n```python\nprint(1)\n```\n";
    let answers = check_parity(&[
        ("render::chapter(hostile)", json!({ "op": "render", "path": "part/ch.md", "markdown": hostile })),
        ("render::chapter(empty)", json!({ "op": "render", "path": "a.md", "markdown": "" })),
    ]);
    assert!(answers[0].contains("custom") && !answers[0].contains("<script>"), "render must keep ids and escape raw HTML:\n{}", answers[0]);
}

/// Card ids of the real guide, in Guide order.
fn card_ids(bundle: &BookBundle) -> Vec<String> {
    let book = bookside_core::book::load(bundle);
    let path = book.guide.clone().expect("book/ has a Session Guide chapter");
    let text = bundle.get(&format!("{}/{path}", book.src)).expect("guide in bundle");
    bookside_core::guide::parse(&path, text).0.cards.into_iter().map(|c| c.id).collect()
}

#[test]
fn gates_and_locate_agree_in_wasm() {
    let bundle = real_book();
    let ids = card_ids(&bundle);
    assert!(ids.len() >= 6, "the real guide should have cards: {ids:?}");
    let entry = |date: &str, id: &str, status: &str, mark: &str, rung: u8, next: &str| {
        format!("### {date} — {id} (t) — {status}\n- **Built**: x\n- **Done-when**: test_x.py {mark}\n- **Sticking point**: per-head vs per-layer cache sizing (ladder rung {rung})\n- **Next**: {next} — why\n\n")
    };
    // A steady reader: the first cards done in order, the next one left PARTIAL.
    let mut steady = String::from("# Progress\n\n");
    for (i, id) in ids.iter().take(5).enumerate() {
        steady.push_str(&entry(&format!("2026-07-{:02}", 10 + i), id, "DONE", "✅", 2, &ids[i + 1]));
    }
    steady.push_str(&entry("2026-07-16", &ids[5], "PARTIAL", "❌", 3, &ids[5]));
    // A log that trips gates: a future date, out of order, a red DONE, a rung over the cap, an
    // unknown session and Next, a heading that does not parse.
    let mut broken = entry("2026-08-01", &ids[2], "DONE", "❌", 4, "S9.9");
    broken.push_str(&entry("2026-07-01", &ids[0], "DONE", "✅", 1, &ids[1]));
    broken.push_str(&entry("2027-01-01", "S9.9", "DONE", "✅", 2, &ids[1]));
    broken.push_str("### 2026-13-45 — S1.x — MAYBE\n- **Built**: ?\n");
    let runs = json!([
        { "session": ids[0], "outcome": "pass", "source": "verified", "at_unix": 1_780_000_000 },
        { "session": ids[1], "outcome": "fail", "source": "verified", "at_unix": 1_780_000_100 },
        { "session": ids[1], "outcome": "pass", "source": "verified", "at_unix": 1_780_000_100 },
    ]);
    let named = json!([ids[3], "S9.9", ids.last().unwrap()]);
    let vector = |log: &str, runs: &serde_json::Value, cap: u8, skipped: bool| {
        json!({ "op": "engine", "bundle": bundle, "log": log, "runs": runs, "hint_cap": cap, "phase0_skipped": skipped, "today": "2026-09-01", "named": named, "seed": 7 })
    };
    let answers = check_parity(&[
        ("engine(fresh reader)", vector("", &json!([]), 4, false)),
        ("engine(steady reader)", vector(&steady, &runs, 4, false)),
        ("engine(steady reader, hard mode, phase 0 skipped)", vector(&steady, &runs, 3, true)),
        ("engine(broken log)", vector(&broken, &json!([]), 3, false)),
    ]);
    assert!(answers[1].contains("ResumePartial"), "the steady reader resumes a PARTIAL:\n{}", answers[1]);
    assert!(answers[3].contains("date-not-in-future"), "the broken log must trip gates:\n{}", answers[3]);
}

/// A bank whose formulas go through every float function of the answer language, so a libm that
/// differs between targets shows up in answers, prompts and grades.
const QUIZ_BANK: &str = r#"
[[topic]]
id = "floats"
title = "Numbers that do not come out round"
reread = "math.md#logarithms"
themes = ["rounding"]

[[topic.numeric]]
prompt = "ln({x}) * exp({y} / 7) + sqrt({x}) / 3?"
params = { x = [2, 3, 5, 7, 11], y = [1, 2, 3, 4, 5] }
answer = "ln(x) * exp(y / 7) + sqrt(x) / 3"
tolerance = 0.001

[[topic.numeric]]
prompt = "{n} tokens at {b} bits: how many MB?"
params = { n = [1000, 3333, 77777], b = [3, 5, 7] }
answer = "n * b / 8 / 1024 / 1024 + log2(n) ^ 0.5 - round(n / 7) / 1e9 + ceil(b / 2) - floor(b / 3) + min(n, b) - max(0.1, 1 / n)"
unit = "bytes"
tolerance = 0

[[topic.choice]]
prompt = "Which is irrational?"
correct = ["sqrt(2)", "pi"]
wrong = ["1/3", "0.25", "7", "22/7", "2^10"]
options = 4
why = "Only those two have no finite or repeating expansion."

[[topic.explain]]
prompt = "Why does float addition not associate?"
answer = "Each sum rounds to the nearest representable value."
keywords = ["round"]

[[topic]]
id = "broken"
title = "A topic with problems"
[[topic.numeric]]
prompt = "{x}"
params = { x = [1, 2, 3] }
answer = "6 / (x - 2) + nosuch(x)"
"#;

#[test]
fn quizzes_for_fixed_seeds_are_the_same_in_wasm() {
    let mut vectors = vec![(
        "quiz(float bank)".to_owned(),
        json!({ "op": "quiz", "text": QUIZ_BANK, "topics": ["floats", "broken", "missing"], "seeds": [0, 1, 7, 42, 123456789, u64::MAX], "per_topic": 5, "answers": ["3.1416", "1e3 bytes", "B", "0", "nonsense"] }),
    )];
    // The book's own bank, when it has one: every topic, a few seeds.
    if let Some(text) = real_book().get("quiz.toml") {
        let (bank, _) = bookside_core::quiz::parse_quiz("quiz.toml", text);
        let topics: Vec<String> = bank.topics.iter().map(|t| t.id.clone()).collect();
        vectors.push(("quiz(book/quiz.toml)".to_owned(), json!({ "op": "quiz", "text": text, "topics": topics, "seeds": [0, 3, 2026], "per_topic": 3, "answers": ["42", "A"] })));
    }
    let vectors: Vec<(&str, serde_json::Value)> = vectors.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let answers = check_parity(&vectors);
    assert!(answers[0].contains("--- seed 42") && answers[0].contains("Numeric"), "the float bank must generate numeric questions:\n{}", &answers[0][..answers[0].len().min(3000)]);
}
