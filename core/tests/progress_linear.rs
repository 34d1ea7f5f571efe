//! Linear time on pathological inputs: 10x the input may take at most 20x the time, for every
//! construct the PROGRESS.md parser, fmt and merge scan. Ratios, not absolute times, so a busy
//! machine cannot fail them; each side is the best of several repeated runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bookside_core::{merge, progress};

/// Everything a log goes through: parse, print, fmt, the canonical check and a merge.
fn work(text: &str) {
    let (log, diags) = progress::parse(text);
    black_box((progress::print(&log), diags));
    black_box(progress::fmt(text));
    black_box(progress::check_canonical(text));
    black_box(merge::merge(text, text));
}

fn best_time(text: &str, reps: usize) -> Duration {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                work(text);
            }
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn assert_linear(name: &str, make: impl Fn(usize) -> String, n: usize) {
    let small = make(n);
    let big = make(10 * n);
    assert!(big.len() >= 9 * small.len(), "{name}: the big input must be about 10x the small one");
    // Enough repetitions that the small input takes a few milliseconds.
    let once = best_time(&small, 1).max(Duration::from_micros(1));
    let reps = (Duration::from_millis(3).as_nanos() / once.as_nanos()).clamp(1, 1000) as usize;
    let t_small = best_time(&small, reps * 10);
    let t_big = best_time(&big, reps);
    let ratio = t_big.as_secs_f64() / t_small.as_secs_f64() * 10.0;
    assert!(ratio <= 20.0, "{name}: 10x input took {ratio:.1}x the time");
}

#[test]
fn parentheses_in_a_heading() {
    assert_linear("parens", |n| format!("### 2026-07-22 — S1.3 {} — DONE\n", "(".repeat(n)), 20_000);
    assert_linear("closed parens", |n| format!("### 2026-07-22 — S1.3 {} — DONE\n", "(a — b) ".repeat(n)), 3_000);
}

#[test]
fn separators_in_a_heading() {
    assert_linear("separators", |n| format!("### 2026-07-22 {}DONE\n", "— - – ".repeat(n)), 4_000);
}

#[test]
fn bold_markers_in_fields() {
    assert_linear("bold", |n| format!("### 2026-07-22 — S1 — DONE\n- **Built{}\n", "**x".repeat(n)), 8_000);
    assert_linear("marks", |n| format!("### 2026-07-22 — S1 — DONE\n- **Done-when**: {}\n", "✅ ✔".repeat(n)), 5_000);
    assert_linear("rungs", |n| format!("### 2026-07-22 — S1 — DONE\n- **Sticking point**: {}\n", "(rung (".repeat(n)), 5_000);
}

#[test]
fn long_continuations_and_many_fields() {
    assert_linear("continuation", |n| format!("### 2026-07-22 — S1 — DONE\n- **Built**: x\n{}", "  more text\n".repeat(n)), 3_000);
    assert_linear("fields", |n| format!("### 2026-07-22 — S1 — DONE\n{}", "* **Next**: S1.4 - why\n".repeat(n)), 1_500);
}

#[test]
fn many_entries_with_one_key() {
    assert_linear(
        "same key",
        |n| (0..n).map(|i| format!("### 2026-07-22 — S1.3 — DONE\n- **Built**: version {i}\n\n")).collect(),
        300,
    );
    assert_linear("pasted twice", |n| "### 2026-07-22 — S1.3 — DONE\n- **Built**: same\n\n".repeat(n), 300);
}

#[test]
fn fences_that_never_close() {
    assert_linear(
        "fences",
        |n| {
            let mut s = String::from("### 2026-07-22 — S1.3 — DONE\n");
            for i in (0..n).rev() {
                s.push_str(&"`".repeat(3 + i % 50));
                s.push('\n');
            }
            s
        },
        400,
    );
}

#[test]
fn generated_logs() {
    assert_linear("sample log", progress::sample_log, 100);
}
