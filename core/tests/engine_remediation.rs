//! Remediation over the sample book's Session Guide and hand-written logs.

use bookside_core::engine::remediation::{Source, remediation};
use bookside_core::guide::{self, Guide};
use bookside_core::progress;

fn sample_guide() -> Guide {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/src/session-guide.md");
    let text = std::fs::read_to_string(path).expect("the sample book's Session Guide");
    guide::parse("session-guide.md", &text).0
}

fn entry(date: &str, session: &str, status: &str, sticking: &str) -> String {
    format!(
        "### {date} — {session} (t) — {status}\n- **Built**: something\n- **Done-when**: test.py ✅\n- **Sticking point**: {sticking}\n- **Next**: S9.9 — on\n\n"
    )
}

#[test]
fn three_entries_sharing_a_theme_trigger_the_offer_naming_them() {
    let guide = sample_guide();
    let log = [
        entry("2026-07-20", "S1.2", "DONE", "tied embeddings counted twice (ladder rung 1)"),
        entry("2026-07-21", "S1.3", "PARTIAL", "per-head vs per-layer cache sizing (ladder rung 2)"),
        entry("2026-07-22", "S1.3", "DONE", "Per head versus per layer cache sizes, again (ladder rung 3)"),
        entry("2026-07-23", "S3.4", "PARTIAL", "per-layer vs per-head sizing of the KV cache (ladder rung 2)"),
    ]
    .concat();
    let (log, diags) = progress::parse(&log);
    assert!(diags.is_empty(), "{diags:?}");
    let offer = remediation(&guide, &log).expect("an offer");
    assert_eq!(offer.session, "S0.3", "S1.3's Remediation field");
    assert_eq!(offer.source, Source::Named);
    assert_eq!(offer.theme, "per-head vs per-layer cache sizing");
    let named: Vec<(usize, &str)> = offer.entries.iter().map(|e| (e.line, e.session.as_str())).collect();
    assert_eq!(named, [(7, "S1.3"), (13, "S1.3"), (19, "S3.4")]);
    assert_eq!(offer.entries[0].date, "2026-07-21");
}

#[test]
fn unrelated_sticking_points_do_not() {
    let guide = sample_guide();
    let log = [
        entry("2026-07-20", "S1.2", "DONE", "tied embeddings counted twice (ladder rung 1)"),
        entry("2026-07-21", "S1.3", "DONE", "per-head vs per-layer cache sizing (ladder rung 2)"),
        entry("2026-07-22", "S3.2", "DONE", "which axis the softmax runs over (ladder rung 2)"),
        entry("2026-07-23", "S3.3", "DONE", "mask before softmax, not after (ladder rung 1)"),
        entry("2026-07-24", "S3.4", "DONE", "none"),
    ]
    .concat();
    let (log, _) = progress::parse(&log);
    assert_eq!(remediation(&guide, &log), None);
}

#[test]
fn taking_the_remediation_session_withdraws_the_offer() {
    let guide = sample_guide();
    let mut log = [
        entry("2026-07-21", "S1.3", "PARTIAL", "per-head vs per-layer cache sizing (ladder rung 2)"),
        entry("2026-07-22", "S1.3", "PARTIAL", "per-head vs per-layer cache sizing (ladder rung 3)"),
    ]
    .concat();
    assert!(remediation(&guide, &progress::parse(&log).0).is_some());
    log += &entry("2026-07-23", "S0.3", "DONE", "none");
    assert_eq!(remediation(&guide, &progress::parse(&log).0), None);
}

#[test]
fn without_a_remediation_field_the_first_card_with_the_theme_is_revisited() {
    let guide = sample_guide();
    let log = [
        entry("2026-07-21", "S1.2", "PARTIAL", "head dimension from query heads (ladder rung 2)"),
        entry("2026-07-22", "S1.2", "DONE", "head dimension from the query heads, not kv heads (ladder rung 2)"),
    ]
    .concat();
    let offer = remediation(&guide, &progress::parse(&log).0).expect("an offer");
    assert_eq!((offer.session.as_str(), offer.source), ("S1.1", Source::FirstCardWithTheme));
    assert_eq!(offer.entries.len(), 2);
}

#[test]
fn only_recent_sticking_points_count() {
    let guide = sample_guide();
    let mut log = entry("2026-07-01", "S1.3", "DONE", "per-head vs per-layer cache sizing (ladder rung 2)");
    for (k, s) in ["S2.1", "S2.2", "S2.3", "S2.4", "S2.5"].iter().enumerate() {
        log += &entry(&format!("2026-07-{:02}", 2 + k), s, "DONE", &format!("something new number {k}"));
    }
    log += &entry("2026-07-09", "S3.4", "DONE", "per-head vs per-layer cache sizing (ladder rung 2)");
    assert_eq!(remediation(&guide, &progress::parse(&log).0), None, "the first one is out of the window");
}
