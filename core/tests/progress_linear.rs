//! Linear time on pathological inputs: 10x the input may take at most 20x the time, for every
//! construct the PROGRESS.md parser, fmt and merge scan. Ratios, not absolute times, so a busy
//! machine cannot fail them; each side is the best of several repeated runs.

use std::hint::black_box;
use std::sync::Mutex;
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

fn time(text: &str, reps: usize) -> Duration {
    let start = Instant::now();
    for _ in 0..reps {
        work(text);
    }
    start.elapsed()
}

/// The tests of this file take turns, so they do not slow each other down.
static TURN: Mutex<()> = Mutex::new(());

fn assert_linear(name: &str, make: impl Fn(usize) -> String, n: usize) {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let small = make(n);
    let big = make(10 * n);
    assert!(big.len() >= 9 * small.len(), "{name}: the big input must be about 10x the small one");
    // Enough repetitions that the small input takes a few milliseconds.
    let once = time(&small, 1).max(Duration::from_micros(1));
    let reps = (Duration::from_millis(3).as_nanos() / once.as_nanos()).clamp(1, 1000) as usize;
    // Small and big runs alternate and each side keeps its best time, so a burst of load on a
    // shared machine hits both; a genuinely quadratic scan is 10x over the line on every try,
    // while noise is not, so a few tries are allowed before failing.
    let mut ratio = f64::INFINITY;
    for _ in 0..3 {
        let (mut t_small, mut t_big) = (Duration::MAX, Duration::MAX);
        for _ in 0..5 {
            t_small = t_small.min(time(&small, reps * 10));
            t_big = t_big.min(time(&big, reps));
        }
        ratio = t_big.as_secs_f64() / t_small.as_secs_f64() * 10.0;
        if ratio <= 20.0 {
            return;
        }
    }
    panic!("{name}: 10x input took {ratio:.1}x the time");
}

#[test]
fn parentheses_in_a_heading() {
    assert_linear("parens", |n| format!("### 2026-07-22 — S1.3 {} — DONE\n", "(".repeat(n)), 4_000);
    assert_linear("closed parens", |n| format!("### 2026-07-22 — S1.3 {} — DONE\n", "(a — b) ".repeat(n)), 600);
}

#[test]
fn separators_in_a_heading() {
    assert_linear("separators", |n| format!("### 2026-07-22 {}DONE\n", "— - – ".repeat(n)), 800);
}

#[test]
fn bold_markers_in_fields() {
    assert_linear("bold", |n| format!("### 2026-07-22 — S1 — DONE\n- **Built{}\n", "**x".repeat(n)), 8_000);
    assert_linear("marks", |n| format!("### 2026-07-22 — S1 — DONE\n- **Done-when**: {}\n", "✅ ✔".repeat(n)), 5_000);
    assert_linear("rungs", |n| format!("### 2026-07-22 — S1 — DONE\n- **Sticking point**: {}\n", "(rung (".repeat(n)), 5_000);
}

#[test]
fn long_continuations_and_many_fields() {
    assert_linear("continuation", |n| format!("### 2026-07-22 — S1 — DONE\n- **Built**: x\n{}", "  more text\n".repeat(n)), 500);
    assert_linear("fields", |n| format!("### 2026-07-22 — S1 — DONE\n{}", "* **Next**: S1.4 - why\n".repeat(n)), 300);
}

#[test]
fn many_entries_with_one_key() {
    assert_linear(
        "same key",
        |n| (0..n).map(|i| format!("### 2026-07-22 — S1.3 — DONE\n- **Built**: version {i}\n\n")).collect(),
        50,
    );
    assert_linear("pasted twice", |n| "### 2026-07-22 — S1.3 — DONE\n- **Built**: same\n\n".repeat(n), 50);
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
        100,
    );
}

#[test]
fn generated_logs() {
    assert_linear("sample log", progress::sample_log, 20);
}
