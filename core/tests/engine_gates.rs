//! Gates: one injection test per gate. Each mutates a valid log (over the sample book's Session
//! Guide) so that exactly that gate fires, and asserts that every other gate stays quiet.

use std::collections::BTreeSet;

use bookside_core::engine::gates::{Gate, GateReport, Input, check};
use bookside_core::engine::locate;
use bookside_core::reading::{self, CardStatus, Vouch};
use bookside_core::guide::{self, Guide};
use bookside_core::progress::{self, Date};
use bookside_core::wire::{Outcome, RunRecord, RunSource};
use expect_test::expect;

const VALID: &str = "\
# My progress

### 2026-07-01 — S0.1 (How this book works) — DONE
- **Built**: read the protocol
- **Done-when**: quiz 5/5 ✅
- **Sticking point**: none
- **Next**: S0.2 — tooling

### 2026-07-02 — S0.2 (Tooling and the clone) — DONE
- **Done-when**: quiz 4/5 ✅
- **Sticking point**: skip vs fail (ladder rung 1)
- **Next**: S0.3 — the math

### 2026-07-03 — S0.3 (The math you need) — DONE
- **Done-when**: quiz 9/10 ✅
- **Sticking point**: MB vs MiB (ladder rung 2)
- **Next**: S0.4 — the shape

### 2026-07-04 — S0.4 (The shape of a transformer) — DONE
- **Done-when**: quiz 5/5 ✅
- **Sticking point**: none
- **Next**: S1.1 — parameters

### 2026-07-05 — S1.1 (Where the parameters live) — DONE
- **Done-when**: quiz 8/10 ✅
- **Sticking point**: tied embeddings (ladder rung 1)
- **Next**: S1.2 — the config

### 2026-07-06 — S1.2 (Model config on paper) — PARTIAL
- **Built**: half the config
- **Done-when**: test_m01_model_config.py ❌
- **Sticking point**: head dimension from query heads (ladder rung 3)
- **Next**: S1.2 — resume at the Midpoint

### 2026-07-07 — S1.2 (Model config on paper) — DONE
- **Done-when**: test_m01_model_config.py ✅
- **Sticking point**: none
- **Next**: S1.3 — the cache

### 2026-07-08 — S1.3 (KV-cache budget) — DONE
- **Built**: chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512
- **Done-when**: test_m02_kv_budget.py ✅
- **Sticking point**: per-head vs per-layer cache sizing (ladder rung 2)
- **Next**: S1.4 — dense vs MoE, decided with numbers
";

fn guide() -> Guide {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/src/session-guide.md");
    guide::parse("session-guide.md", &std::fs::read_to_string(path).expect("the sample Session Guide")).0
}

fn runs() -> Vec<RunRecord> {
    vec![
        RunRecord { session: "S1.2".into(), outcome: Outcome::Fail, source: RunSource::Verified, at_unix: 1_783_300_000 },
        RunRecord { session: "S1.2".into(), outcome: Outcome::Pass, source: RunSource::Verified, at_unix: 1_783_400_000 },
    ]
}

fn run_gates(text: &str, runs: &[RunRecord]) -> GateReport {
    let g = guide();
    let (log, diags) = progress::parse(text);
    check(&Input {
        guide: &g,
        log: &log,
        log_diagnostics: &diags,
        runs,
        hint_cap: 3,
        phase0_skipped: false,
        today: Date::new(2026, 7, 30).unwrap(),
    })
}

/// Replaces exactly one occurrence, so a mutation cannot silently miss.
fn mutate(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "mutation anchor {from:?} must be unique");
    VALID.replacen(from, to, 1)
}

#[test]
fn the_valid_log_passes_every_gate() {
    let report = run_gates(VALID, &runs());
    assert!(report.is_clean(), "{}", report.render("PROGRESS.md"));
    // S1.3's ✅ has no verified run behind it: allowed, and labelled.
    let labelled: Vec<(&str, usize)> = report.self_reported.iter().map(|s| (s.session.as_str(), s.line)).collect();
    assert!(labelled.contains(&("S1.3", 42)), "{labelled:?}");
    assert!(!labelled.iter().any(|(s, _)| *s == "S1.2"), "S1.2 has a verified pass: {labelled:?}");
}

#[test]
fn each_gate_fires_alone_on_its_injection() {
    let partial_then_other = mutate(
        "### 2026-07-07 — S1.2 (Model config on paper) — DONE",
        "### 2026-07-06 — S0.1 (How this book works, again) — DONE\n- **Done-when**: quiz 5/5 ✅\n- **Next**: S1.2 — back to it\n\n### 2026-07-07 — S1.2 (Model config on paper) — DONE",
    );
    let cases: Vec<(Gate, String, Vec<usize>)> = vec![
        (Gate::EntryParses, mutate("### 2026-07-08 — S1.3 (KV-cache budget) — DONE", "### 2026-07-08 — S1.3 (KV-cache budget) — FINISHED"), vec![40]),
        (Gate::SessionExists, mutate("— S1.3 (KV-cache budget) — DONE", "— S1.9 (KV-cache budget) — DONE"), vec![40]),
        (Gate::NeedsDoneBefore, mutate("— S1.1 (Where the parameters live) — DONE", "— S2.1 (How text becomes tokens) — DONE"), vec![29, 35]),
        (Gate::DoneIsGreen, mutate("test_m02_kv_budget.py ✅", "test_m02_kv_budget.py ❌"), vec![42]),
        (Gate::RungWithinCap, mutate("head dimension from query heads (ladder rung 3)", "head dimension from query heads (ladder rung 4)"), vec![32]),
        (Gate::DateNotInFuture, mutate("### 2026-07-08", "### 2026-08-08"), vec![40]),
        (Gate::LogInOrder, mutate("### 2026-07-03", "### 2026-06-28"), vec![14]),
        (Gate::NextIsReal, mutate("- **Next**: S0.2 — tooling", "- **Next**: S9.2 — tooling"), vec![7]),
        (Gate::PartialResumed, partial_then_other, vec![35]),
    ];
    let covered: BTreeSet<Gate> = cases.iter().map(|c| c.0).collect();
    assert_eq!(covered, Gate::ALL.into_iter().collect(), "every gate has an injection test");
    for (gate, text, line) in cases {
        let report = run_gates(&text, &runs());
        assert_eq!(report.fired(), BTreeSet::from([gate]), "{}:\n{}", gate.name(), report.render("PROGRESS.md"));
        let lines: Vec<usize> = report.findings.iter().map(|f| f.line).collect();
        assert_eq!(lines, line, "{} points at its entry:\n{}", gate.name(), report.render("PROGRESS.md"));
    }
}

#[test]
fn verified_runs_outrank_the_logs_marks() {
    // The worker's status sweep found S1.3 failing, before the day of the entry's ✅ even: the
    // gates and the card status read the verified run, not the mark.
    let g = guide();
    let (log, diags) = progress::parse(VALID);
    let mut verified = runs();
    verified.push(RunRecord { session: "S1.3".into(), outcome: Outcome::Fail, source: RunSource::Verified, at_unix: 0 });
    let known = locate::known_runs(&log, &verified);
    assert!(!known.iter().any(|r| r.session == "S1.3" && r.source == RunSource::SelfReported), "{known:?}");
    assert!(known.iter().any(|r| r.session == "S1.1" && r.source == RunSource::SelfReported), "uncovered marks stay: {known:?}");
    let input = Input { guide: &g, log: &log, log_diagnostics: &diags, runs: &known, hint_cap: 3, phase0_skipped: false, today: Date::new(2026, 7, 30).unwrap() };
    let report = check(&input);
    assert_eq!(report.fired(), BTreeSet::from([Gate::DoneIsGreen]));
    assert!(report.findings[0].message.contains("S1.3 says ✅ but its latest verified run is a fail"), "{:?}", report.findings);
    assert!(!report.self_reported.iter().any(|s| s.session == "S1.3"), "{:?}", report.self_reported);
    let cx = locate::Context { guide: &g, log: &log, runs: &known, phase0_skipped: false };
    assert_eq!(reading::card_status(&cx, "S1.3"), CardStatus::Partial);
    // From the log's marks alone, the same entry would count as done.
    let marks = locate::self_reported_runs(&log);
    let cx = locate::Context { guide: &g, log: &log, runs: &marks, phase0_skipped: false };
    assert_eq!(reading::card_status(&cx, "S1.3"), CardStatus::Done(Vouch::SelfReported));
}

#[test]
fn done_is_green_variants() {
    // No mark and no run on record.
    let text = mutate("test_m02_kv_budget.py ✅", "test_m02_kv_budget.py");
    let report = run_gates(&text, &runs());
    assert_eq!(report.fired(), BTreeSet::from([Gate::DoneIsGreen]));
    assert!(report.findings[0].message.contains("no green run on record"), "{:?}", report.findings);

    // No mark, but the app recorded a self-reported pass: allowed and labelled.
    let mut claimed = runs();
    claimed.push(RunRecord { session: "S1.3".into(), outcome: Outcome::Pass, source: RunSource::SelfReported, at_unix: 1_783_500_000 });
    let report = run_gates(&text, &claimed);
    assert!(report.is_clean(), "{}", report.render("PROGRESS.md"));
    assert!(report.self_reported.iter().any(|s| s.session == "S1.3"));

    // ✅ in the log, but the latest verified run failed: never passed off as verified.
    let mut failed = runs();
    failed.push(RunRecord { session: "S1.3".into(), outcome: Outcome::Fail, source: RunSource::Verified, at_unix: 1_783_500_000 });
    let report = run_gates(VALID, &failed);
    assert_eq!(report.fired(), BTreeSet::from([Gate::DoneIsGreen]));
    assert!(report.findings[0].message.contains("latest verified run is a fail"), "{:?}", report.findings);

    // A verified pass removes the label.
    let mut verified = runs();
    verified.push(RunRecord { session: "S1.3".into(), outcome: Outcome::Pass, source: RunSource::Verified, at_unix: 1_783_500_000 });
    let report = run_gates(VALID, &verified);
    assert!(report.is_clean() && !report.self_reported.iter().any(|s| s.session == "S1.3"));
}

#[test]
fn hard_mode_and_rungs() {
    let g = guide();
    let text = mutate("head dimension from query heads (ladder rung 3)", "head dimension from query heads (ladder rung 4)");
    let (log, diags) = progress::parse(&text);
    let input = Input { guide: &g, log: &log, log_diagnostics: &diags, runs: &[], hint_cap: 4, phase0_skipped: false, today: Date::new(2026, 7, 30).unwrap() };
    assert!(!check(&input).fired().contains(&Gate::RungWithinCap), "rung 4 is fine under the default cap");
    let text = mutate("head dimension from query heads (ladder rung 3)", "head dimension from query heads (ladder rung 7)");
    let (log, diags) = progress::parse(&text);
    let report = check(&Input { log: &log, log_diagnostics: &diags, ..input });
    assert_eq!(report.fired(), BTreeSet::from([Gate::RungWithinCap]));
}

#[test]
fn a_skipped_phase0_satisfies_needs() {
    let start = VALID.find("### 2026-07-05").unwrap();
    let text = format!("### 2026-07-01 — S0 (Phase 0) — SKIPPED\n- **Done-when**: quiz 9/10 ✅\n- **Next**: S1.1 — start\n\n{}", &VALID[start..]);
    let report = run_gates(&text, &runs());
    assert!(report.is_clean(), "{}", report.render("PROGRESS.md"));
}

#[test]
fn report_rendering() {
    let text = mutate("- **Next**: S0.2 — tooling", "- **Next**: S9.2 — tooling").replace("### 2026-07-08", "### 2026-08-08");
    let report = run_gates(&text, &runs());
    expect![[r#"
        PROGRESS.md:7: next-is-real: Next names `S9.2`, which is not a card of the Session Guide
        PROGRESS.md:40: date-not-in-future: dated 2026-08-08, after today (2026-07-30): fix the date
        PROGRESS.md:5: note: S0.1's green Done-when is self-reported: no verified run on record
        PROGRESS.md:10: note: S0.2's green Done-when is self-reported: no verified run on record
        PROGRESS.md:15: note: S0.3's green Done-when is self-reported: no verified run on record
        PROGRESS.md:20: note: S0.4's green Done-when is self-reported: no verified run on record
        PROGRESS.md:25: note: S1.1's green Done-when is self-reported: no verified run on record
        PROGRESS.md:42: note: S1.3's green Done-when is self-reported: no verified run on record
    "#]]
    .assert_eq(&report.render("PROGRESS.md"));
}

mod robustness {
    use super::*;
    use bookside_core::engine::locate::{self, Context};
    use bookside_core::engine::remediation;
    use proptest::prelude::*;

    /// Lines a hand-edited log is made of, valid or not.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            (0u8..40, prop::sample::select(vec!["S0.1", "S0.2", "S1.2", "S1.3", "S9.9", "", "S0"]), prop::sample::select(vec!["DONE", "PARTIAL", "SKIPPED", "done", "WAT", ""]))
                .prop_map(|(d, s, st)| format!("### 2026-07-{:02} — {s} (t) — {st}", d)),
            prop::sample::select(vec!["✅", "❌", "", "✔"]).prop_map(|m| format!("- **Done-when**: test.py {m}")),
            (0u8..9).prop_map(|r| format!("- **Sticking point**: cache sizing (ladder rung {r})")),
            prop::sample::select(vec!["S1.3 — on", "later", "S9.9", ""]).prop_map(|n| format!("- **Next**: {n}")),
            "\\PC{0,20}",
        ]
    }

    proptest! {
        /// Whatever the reader wrote, the gates, locate and remediation answer without panicking,
        /// and every finding points at a line of the file.
        #[test]
        fn never_panic_and_point_inside_the_file(lines in prop::collection::vec(line(), 0..30)) {
            let text = lines.join("\n");
            let g = guide();
            let (log, diags) = progress::parse(&text);
            let runs = locate::self_reported_runs(&log);
            let report = check(&Input { guide: &g, log: &log, log_diagnostics: &diags, runs: &runs, hint_cap: 3, phase0_skipped: false, today: Date::new(2026, 7, 20).unwrap() });
            let n = text.lines().count().max(1);
            for f in &report.findings {
                prop_assert!(f.line >= 1 && f.line <= n, "line {} of {}", f.line, n);
            }
            let cx = Context { guide: &g, log: &log, runs: &runs, phase0_skipped: false };
            let _ = locate::locate(&cx, Some("S1.3"));
            let _ = locate::locate(&cx, None);
            let _ = remediation::remediation(&g, &log);
        }
    }
}
