//! Locate, branch by branch, over a small guide written for the purpose; and Open's retrieval check.

use bookside_core::engine::locate::{Context, Detour, Location, Why, locate, retrieval_check, self_reported_runs};
use bookside_core::guide::{self, Guide};
use bookside_core::progress::{self, ProgressLog};
use bookside_core::quiz::{self, QuestionKind};
use bookside_core::wire::{Outcome, RunRecord, RunSource};

const GUIDE: &str = "\
## Phase 0 — Getting started

### S0.1 — How it works

- **Goal**: Learn the protocol. Know when to stop.
- **Needs**: none
- **Read**: [Intro](intro.md)
- **Midpoint**: the hour read
- **Quiz**: protocol

### S0.2 — The math

- **Goal**: Refresh the math. Count FLOPs.
- **Needs**: S0.1
- **Read**: [Math](math.md)
- **Midpoint**: softmax done
- **Quiz**: protocol

## Phase 1 — Design

### S1.1 — Model config

- **Goal**: Write the config. Defend it.
- **Needs**: S0.2
- **Read**: [Params](params.md)
- **Midpoint**: parameter count by hand
- **Done-when**: `uv run pytest tests/milestones/test_m01_model_config.py`

### S1.2 — KV-cache budget

- **Goal**: Size the cache. Pick KV heads.
- **Needs**: S1.1
- **Read**: [Cache](cache.md)
- **Midpoint**: bytes per token for MHA
- **Done-when**: `uv run pytest tests/milestones/test_m02_kv_budget.py`
- **Themes**: per-head vs per-layer cache sizing

### S1.3 — Reading on MoE

- **Goal**: Read about MoE. Compare.
- **Needs**: S1.1
- **Read**: [MoE](moe.md)
- **Midpoint**: router read
- **Quiz**: protocol
";

fn guide() -> Guide {
    let (g, diags) = guide::parse("session-guide.md", GUIDE);
    assert!(diags.is_empty(), "{diags:?}");
    g
}

fn entry(session: &str, status: &str, mark: &str) -> String {
    format!("### 2026-07-20 — {session} (t) — {status}\n- **Done-when**: test.py {mark}\n- **Sticking point**: none\n- **Next**: S1.2 — on\n\n")
}

fn pass(session: &str, at: i64) -> RunRecord {
    RunRecord { session: session.into(), outcome: Outcome::Pass, source: RunSource::Verified, at_unix: at }
}

fn fail(session: &str, at: i64) -> RunRecord {
    RunRecord { session: session.into(), outcome: Outcome::Fail, source: RunSource::Verified, at_unix: at }
}

/// The phase 0 read-only sessions done in the log.
fn phase0_done() -> String {
    entry("S0.1", "DONE", "✅") + &entry("S0.2", "DONE", "✅")
}

struct Case {
    name: &'static str,
    log: String,
    runs: Vec<RunRecord>,
    phase0_skipped: bool,
    named: Option<&'static str>,
    want: Location,
}

fn at(session: &str, why: Why) -> Location {
    Location { session: Some(session.into()), why, resume_at_midpoint: false, detour: None, unknown_name: None }
}

#[test]
fn table() {
    let g = guide();
    // Line numbers of entries: each `entry` is 5 lines, so the k-th (0-based) starts at 5k + 1.
    let cases = vec![
        Case { name: "a fresh clone starts at the first card", log: String::new(), runs: vec![], phase0_skipped: false, named: None, want: at("S0.1", Why::FirstNotDone) },
        Case { name: "read-only cards are done by a DONE entry", log: phase0_done(), runs: vec![], phase0_skipped: false, named: None, want: at("S1.1", Why::FirstNotDone) },
        Case {
            name: "a milestone needs a passing run, not just a DONE entry",
            log: phase0_done() + &entry("S1.1", "DONE", "✅"),
            runs: vec![],
            phase0_skipped: false,
            named: None,
            want: at("S1.1", Why::FirstNotDone),
        },
        Case { name: "a passing run makes the milestone done", log: phase0_done(), runs: vec![pass("S1.1", 10)], phase0_skipped: false, named: None, want: at("S1.2", Why::FirstNotDone) },
        Case { name: "the latest run counts: a later fail undoes a pass", log: phase0_done(), runs: vec![pass("S1.1", 10), fail("S1.1", 20)], phase0_skipped: false, named: None, want: at("S1.1", Why::FirstNotDone) },
        Case { name: "the latest run counts: a later pass after a fail", log: phase0_done(), runs: vec![pass("S1.1", 30), fail("S1.1", 20)], phase0_skipped: false, named: None, want: at("S1.2", Why::FirstNotDone) },
        Case { name: "Phase 0 skipped in the profile", log: String::new(), runs: vec![], phase0_skipped: true, named: None, want: at("S1.1", Why::FirstNotDone) },
        Case { name: "Phase 0 skipped in the log", log: entry("S0", "SKIPPED", "✅"), runs: vec![], phase0_skipped: false, named: None, want: at("S1.1", Why::FirstNotDone) },
        Case {
            name: "the last PARTIAL is resumed at its Midpoint",
            log: phase0_done() + &entry("S1.1", "PARTIAL", "❌"),
            runs: vec![],
            phase0_skipped: false,
            named: None,
            want: Location { resume_at_midpoint: true, ..at("S1.1", Why::ResumePartial { line: 11 }) },
        },
        Case {
            name: "a PARTIAL followed by its DONE is closed",
            log: phase0_done() + &entry("S1.3", "PARTIAL", "❌") + &entry("S1.3", "DONE", "✅"),
            runs: vec![pass("S1.1", 1)],
            phase0_skipped: false,
            named: None,
            want: at("S1.2", Why::FirstNotDone),
        },
        Case {
            name: "a PARTIAL whose Done-when now passes is closed",
            log: phase0_done() + &entry("S1.1", "PARTIAL", "❌"),
            runs: vec![pass("S1.1", 1)],
            phase0_skipped: false,
            named: None,
            want: at("S1.2", Why::FirstNotDone),
        },
        Case {
            name: "the most recent open PARTIAL wins",
            log: phase0_done() + &entry("S1.3", "PARTIAL", "❌") + &entry("S1.2", "PARTIAL", "❌"),
            runs: vec![pass("S1.1", 1)],
            phase0_skipped: false,
            named: None,
            want: Location { resume_at_midpoint: true, ..at("S1.2", Why::ResumePartial { line: 16 }) },
        },
        Case { name: "a named session comes first", log: phase0_done(), runs: vec![pass("S1.1", 1)], phase0_skipped: false, named: Some("S1.3"), want: at("S1.3", Why::Named) },
        Case { name: "names are read without case", log: phase0_done(), runs: vec![pass("S1.1", 1)], phase0_skipped: false, named: Some(" s1.3 "), want: at("S1.3", Why::Named) },
        Case {
            name: "a named session beats an open PARTIAL, and resumes if it is that PARTIAL",
            log: phase0_done() + &entry("S1.2", "PARTIAL", "❌"),
            runs: vec![pass("S1.1", 1)],
            phase0_skipped: false,
            named: Some("S1.2"),
            want: Location { resume_at_midpoint: true, ..at("S1.2", Why::Named) },
        },
        Case {
            name: "an unknown name is reported and the rule decides",
            log: phase0_done(),
            runs: vec![],
            phase0_skipped: false,
            named: Some("S9.9"),
            want: Location { unknown_name: Some("S9.9".into()), ..at("S1.1", Why::FirstNotDone) },
        },
        Case {
            name: "Needs not met: the missing prerequisite is offered instead",
            log: phase0_done(),
            runs: vec![],
            phase0_skipped: false,
            named: Some("S1.2"),
            want: Location { detour: Some(Detour { wanted: "S1.2".into(), missing: vec!["S1.1".into()] }), ..at("S1.1", Why::Named) },
        },
        Case {
            name: "the detour follows the prerequisite's own Needs",
            log: String::new(),
            runs: vec![],
            phase0_skipped: false,
            named: Some("S1.3"),
            want: Location { detour: Some(Detour { wanted: "S1.3".into(), missing: vec!["S1.1".into()] }), ..at("S0.1", Why::Named) },
        },
        Case {
            name: "a detour onto an open PARTIAL resumes it",
            log: entry("S0.1", "DONE", "✅") + &entry("S0.2", "PARTIAL", "❌"),
            runs: vec![],
            phase0_skipped: false,
            named: Some("S1.1"),
            want: Location {
                resume_at_midpoint: true,
                detour: Some(Detour { wanted: "S1.1".into(), missing: vec!["S0.2".into()] }),
                ..at("S0.2", Why::Named)
            },
        },
        Case {
            name: "a resumed PARTIAL whose Needs are no longer met is a detour",
            log: phase0_done() + &entry("S1.2", "PARTIAL", "❌"),
            runs: vec![fail("S1.1", 5)],
            phase0_skipped: false,
            named: None,
            want: Location { detour: Some(Detour { wanted: "S1.2".into(), missing: vec!["S1.1".into()] }), ..at("S1.1", Why::ResumePartial { line: 11 }) },
        },
        Case {
            name: "everything done",
            log: phase0_done() + &entry("S1.3", "DONE", "✅"),
            runs: vec![pass("S1.1", 1), pass("S1.2", 2)],
            phase0_skipped: false,
            named: None,
            want: Location { session: None, why: Why::AllDone, resume_at_midpoint: false, detour: None, unknown_name: None },
        },
    ];
    for case in cases {
        let (log, diags) = progress::parse(&case.log);
        assert!(diags.is_empty(), "{}: {diags:?}", case.name);
        let cx = Context { guide: &g, log: &log, runs: &case.runs, phase0_skipped: case.phase0_skipped };
        assert_eq!(locate(&cx, case.named), case.want, "{}", case.name);
    }
}

#[test]
fn self_reported_runs_come_from_the_marks() {
    let g = guide();
    let text = phase0_done() + &entry("S1.1", "DONE", "✅") + &entry("S1.2", "PARTIAL", "❌");
    let log: ProgressLog = progress::parse(&text).0;
    let runs = self_reported_runs(&log);
    let shown: Vec<String> = runs.iter().map(|r| format!("{} {:?} {:?} {}", r.session, r.outcome, r.source, r.at_unix)).collect();
    assert_eq!(
        shown,
        [
            "S0.1 Pass SelfReported 1784505600",
            "S0.2 Pass SelfReported 1784505600",
            "S1.1 Pass SelfReported 1784505600",
            "S1.2 Fail SelfReported 1784505600"
        ]
    );
    // Without a worker, the app passes these: S1.1 then counts as done and S1.2 is resumed.
    let cx = Context { guide: &g, log: &log, runs: &runs, phase0_skipped: false };
    assert_eq!(locate(&cx, None), Location { resume_at_midpoint: true, ..at("S1.2", Why::ResumePartial { line: 16 }) });
}

const BANK: &str = r#"
[[topic]]
id = "protocol"
title = "The protocol"
themes = ["what counts as done"]
[[topic.explain]]
prompt = "When is a session done?"
answer = "When its Done-when passes."

[[topic]]
id = "kv-cache-size"
title = "Sizing the KV cache"
themes = ["per-head vs per-layer cache sizing"]
[[topic.explain]]
prompt = "Which factors of the cache are per layer?"
answer = "All of them: every layer keeps its own keys and values."
"#;

#[test]
fn retrieval_check_targets_the_last_sticking_point() {
    let g = guide();
    let (bank, _) = quiz::parse_quiz("quiz.toml", BANK);
    let log_with = |sticking: &str| {
        let text = phase0_done()
            + &format!("### 2026-07-21 — S1.2 (t) — PARTIAL\n- **Sticking point**: {sticking}\n- **Next**: S1.2 — resume\n");
        progress::parse(&text).0
    };

    let check = retrieval_check(&g, &bank, &log_with("per head vs per layer cache sizing (ladder rung 2)"), 3).expect("a check");
    assert_eq!((check.session.as_str(), check.entry_line, check.topic.as_deref()), ("S1.2", 11, Some("kv-cache-size")));
    let q = check.question.expect("a question");
    assert_eq!(q.topic, "kv-cache-size");
    assert!(matches!(q.kind, QuestionKind::Explain { .. }));
    assert_eq!(check.concept, "per head vs per layer cache sizing");

    // A concept no topic carries: recall it from memory, without a generated question.
    let check = retrieval_check(&g, &bank, &log_with("numpy broadcasting (ladder rung 1)"), 3).expect("a check");
    assert_eq!((check.topic, check.question), (None, None));
    assert_eq!(check.concept, "numpy broadcasting");

    // No Sticking point on the last entry: no check (it is a warm-up, never a gate).
    assert_eq!(retrieval_check(&g, &bank, &log_with("none"), 3), None);
    assert_eq!(retrieval_check(&g, &bank, &ProgressLog::default(), 3), None);
}

#[test]
fn phase0_skip_needs_a_passed_quiz_over_phase0_topics() {
    use bookside_core::engine::locate::phase0_topics;
    use bookside_core::quiz::{Grade, SkipDecision, phase0_skip, score};
    let g = guide();
    let topics = phase0_topics(&g);
    assert_eq!(topics, ["protocol"], "both Phase 0 cards name it; listed once");
    let (bank, _) = quiz::parse_quiz("quiz.toml", BANK);
    let q = quiz::generate(&bank, &topics, 9, 1);
    let passed = score(&bank, &q, &[Grade::Right]);
    assert_eq!(phase0_skip(&q, &passed, &topics), SkipDecision::Allowed);
    let failed = score(&bank, &q, &[Grade::Wrong]);
    assert_eq!(phase0_skip(&q, &failed, &topics), SkipDecision::NotPassed { right: 0, total: 1 });
}
