//! Fuzz target: the worker's reader of pytest's junit XML (`worker/src/junit.rs`), which turns a
//! file written by the reader's test run into the run's outcome.
//!
//! Besides "no panic": whatever the report says, every way a run can end is judged without
//! panicking, and a report with a failing test never judges as a pass.

#![no_main]

use bookside_core::wire::{Outcome, RunEnd};
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../worker/src/junit.rs"]
mod junit;

fuzz_target!(|input: (&str, Option<i32>)| {
    let (xml, exit_code) = input;
    let report = junit::parse(xml);
    if let Ok(tests) = &report {
        let summary = junit::summarise(tests);
        if tests.iter().any(|t| t.outcome == Outcome::Fail) {
            assert!(matches!(summary, Some((Outcome::Fail, _))), "a failing test did not fail the summary: {summary:?}");
        }
    }
    for end in [RunEnd::Exited, RunEnd::TimedOut, RunEnd::Cancelled, RunEnd::NotStarted] {
        let (outcome, _) = junit::judge(end, exit_code, Some(&report), 600);
        if report.as_ref().is_ok_and(|t| t.iter().any(|t| t.outcome == Outcome::Fail)) {
            assert_ne!(outcome, Outcome::Pass, "a report with a failing test was judged a pass");
        }
        let _ = junit::judge(end, exit_code, None, 600);
    }
});
