//! `bookside fmt` and `bookside merge` as a reader runs them, on real files in a temp folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bookside(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bookside")).args(args).output().unwrap()
}

fn fixture(name: &str) -> String {
    fs::read_to_string(format!("{}/../core/tests/fixtures/log/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A fresh folder per test, removed when the test ends.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("bookside-cli-log-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        fs::write(&p, text).unwrap();
        p
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<_> = fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn fmt_rewrites_in_place_and_leaves_no_temp_file() {
    let dir = TempDir::new("fmt");
    let log = dir.file("PROGRESS.md", &fixture("hand_edits.md"));
    let out = bookside(&["fmt", s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&log).unwrap(), fixture("hand_edits.fmt.md"));
    assert_eq!(dir.names(), ["PROGRESS.md"]);
    assert!(stderr(&out).contains("PROGRESS.md: rewrote 4 entries"), "{}", stderr(&out));
    // Formatting again changes nothing, and --check agrees.
    let again = bookside(&["fmt", s(&log)]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(fs::read_to_string(&log).unwrap(), fixture("hand_edits.fmt.md"));
    let check = bookside(&["fmt", "--check", s(&log)]);
    assert_eq!(check.status.code(), Some(0));
    assert_eq!(stdout(&check), "");
}

#[test]
fn fmt_keeps_crlf_files_crlf() {
    let dir = TempDir::new("fmt-crlf");
    let log = dir.file("PROGRESS.md", &fixture("hand_edits.md").replace('\n', "\r\n"));
    let out = bookside(&["fmt", s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&log).unwrap(), fixture("hand_edits.fmt.md").replace('\n', "\r\n"));
}

#[test]
fn fmt_check_names_file_and_line_and_changes_nothing() {
    let dir = TempDir::new("fmt-check");
    let text = fixture("hand_edits.md");
    let log = dir.file("PROGRESS.md", &text);
    let out = bookside(&["fmt", "--check", s(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    let at: Vec<String> = [8, 15, 35, 41].iter().map(|n| format!("{}:{n}: entry ", s(&log))).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (line, prefix) in lines.iter().zip(&at) {
        assert!(line.starts_with(prefix), "{line} should start with {prefix}");
    }
    assert_eq!(fs::read_to_string(&log).unwrap(), text);
}

#[test]
fn fmt_of_a_missing_file_is_an_io_error() {
    let dir = TempDir::new("fmt-missing");
    let missing = dir.0.join("nope.md");
    let out = bookside(&["fmt", s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.md"), "{}", stderr(&out));
    assert!(stderr(&out).contains("check the path"));
}

#[test]
fn merge_prints_the_log_and_reports_conflicts_with_lines() {
    let dir = TempDir::new("merge");
    let a = dir.file("laptop.md", &fixture("merge_a.md"));
    let b = dir.file("desktop.md", &fixture("merge_b.md"));
    let out = bookside(&["merge", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(1));
    let expected = bookside_core::merge::merge(&fixture("merge_a.md"), &fixture("merge_b.md"));
    assert_eq!(stdout(&out), expected.text);
    let err = stderr(&out);
    assert!(err.starts_with(&format!("{}:11: conflict: entry 2026-07-22 S1.3 DONE has 2 versions", s(&a))), "{err}");
    assert!(err.contains(&format!("{}:17 (merged line 27)", s(&b))), "{err}");
    // Inputs are only read.
    assert_eq!(fs::read_to_string(&a).unwrap(), fixture("merge_a.md"));
}

#[test]
fn merge_without_conflicts_exits_zero() {
    let dir = TempDir::new("merge-clean");
    let a = dir.file("a.md", &fixture("canonical.md"));
    let b = dir.file("b.md", "# Progress\n\n### 2026-07-23 — S1.4 (Dense vs MoE) — DONE\n- **Built**: router\n");
    let out = bookside(&["merge", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(stdout(&out).ends_with("### 2026-07-23 — S1.4 (Dense vs MoE) — DONE\n- **Built**: router\n"));
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(bookside(&["merge", "only-one.md"]).status.code(), Some(2));
    assert_eq!(bookside(&["fmt"]).status.code(), Some(2));
    let dir = TempDir::new("not-utf8");
    let bad = dir.0.join("bad.md");
    fs::write(&bad, b"### 2026-07-22 \xff\n").unwrap();
    let out = bookside(&["fmt", s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
}
