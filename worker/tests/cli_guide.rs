//! `bookside guide` and the book part of `bookside check`, driven through the real binary.

use std::path::PathBuf;
use std::process::{Command, Output};

use bookside_core::wire::GuideReport;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bookside(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bookside")).args(args).current_dir(repo()).output().expect("run bookside")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn guide_lists_the_sample_books_cards_and_exits_clean() {
    let out = bookside(&["guide", "--book", "book"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("Build Your Own LLM, One Hour at a Time — Session Guide src/session-guide.md, "), "{stdout}");
    // A read-only card shows its quiz topics, a milestone card its Done-when exactly.
    assert!(lines.iter().any(|l| l.starts_with("S0.1  phase 0  How this book works") && l.ends_with("read-only  quiz: session-protocol")), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("S1.3  phase 1  KV-cache budget") && l.ends_with("milestone  uv run pytest tests/milestones/test_m02_kv_budget.py")), "{stdout}");
}

#[test]
fn guide_json_is_the_wire_report() {
    let out = bookside(&["guide", "--book", "core/tests/fixtures/books/full", "--json"]);
    assert_eq!(out.status.code(), Some(1), "the fixture has one deliberate finding");
    let report: GuideReport = serde_json::from_slice(&out.stdout).expect("stdout is a GuideReport");
    assert_eq!(report.book, "Every \"Summary\" Construct");
    assert_eq!(report.guide.as_deref(), Some("src/session-guide.md"));
    let ids: Vec<&str> = report.cards.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["S0.1", "S1.1", "S1.2"]);
    let s12 = &report.cards[2];
    assert_eq!(s12.done_when.as_deref(), Some("uv run pytest tests/milestones/test_m01_head_dim.py -k \"not slow\""));
    assert_eq!(s12.test_file.as_deref(), Some("test_m01_head_dim.py"));
    assert_eq!(report.cards[1].hints, ["uv is not found", "the tests fail instead of skipping"]);
    let json = text(&out.stdout);
    assert!(json.contains("\"kind\": \"read-only\""), "{json}");
    assert_eq!(report.diagnostics.len(), 1);
    assert_eq!((report.diagnostics[0].file.as_str(), report.diagnostics[0].line), ("src/session-guide.md", 27));
}

#[test]
fn guide_reports_every_finding_as_file_line_message_and_exits_1() {
    let out = bookside(&["guide", "--book", "core/tests/fixtures/books/card-errors"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let expected = std::fs::read_to_string(repo().join("core/tests/fixtures/books/card-errors.diagnostics.txt")).unwrap();
    let want: Vec<String> = expected.lines().map(|l| format!("core/tests/fixtures/books/card-errors/{l}")).collect();
    assert_eq!(stderr.lines().collect::<Vec<_>>(), want);
    // The quiz topic check used the fixture's quiz.toml, read beside book.toml.
    assert!(stderr.contains("made-up-topic") && !stderr.contains("`real-topic`"), "{stderr}");
}

#[test]
fn usage_and_io_errors_exit_2() {
    let missing = bookside(&["guide", "--book", "no/such/book"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read no/such/book/book.toml"), "{}", text(&missing.stderr));
    let usage = bookside(&["guide"]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn check_prints_the_books_findings_before_the_gates() {
    let dir = std::env::temp_dir().join(format!("bookside-cli-guide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("PROGRESS.md");
    std::fs::write(&log, "# Progress\n").unwrap();
    let out = bookside(&["check", "--book", "core/tests/fixtures/books/card-errors", log.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let first = stdout.lines().next().unwrap_or("");
    assert_eq!(first, "core/tests/fixtures/books/card-errors/src/SUMMARY.md:6: list item is not a chapter link: write `- [Title](file.md)`, or `- [Title]()` for a draft");
    assert!(stdout.contains("card-errors/src/guide.md:13: duplicate card id S1.1"), "{stdout}");
}

#[test]
fn check_on_a_clean_book_and_empty_log_exits_0() {
    let dir = std::env::temp_dir().join(format!("bookside-cli-guide-clean-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("PROGRESS.md");
    std::fs::write(&log, "# Progress\n").unwrap();
    let out = bookside(&["check", "--book", "book", log.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&out.stdout), text(&out.stderr));
}
