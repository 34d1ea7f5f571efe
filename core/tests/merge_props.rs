//! Laws of merge: a superset of both inputs, idempotent, order-insensitive up to entry order.

use std::collections::BTreeSet;

use bookside_core::{merge, progress};
use proptest::prelude::*;

fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("#".to_string()),
        Just("---".to_string()),
        Just("```".to_string()),
        Just("`".to_string()),
        Just("[^".to_string()),
        Just("**".to_string()),
        Just(" — ".to_string()),
        Just("(".to_string()),
        Just("✅".to_string()),
        Just("\r".to_string()),
        Just("(ladder rung 2)".to_string()),
        Just("é😀".to_string()),
        "[a-z ]{0,6}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile(), 0..4).prop_map(|v| v.concat())
}

/// An entry: a heading from a small set of keys (so logs overlap) and a few lines.
fn entry() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("2026-07-20"), Just("2026-07-21"), Just("2026-07-22"), Just("2026-7-23"), Just("July")],
        prop_oneof![Just("S1.1"), Just("S1.2"), Just("S1.3")],
        prop_oneof![Just("DONE"), Just("PARTIAL"), Just("done")],
        prop::collection::vec(
            prop_oneof![
                text().prop_map(|t| format!("- **Built**: {t}")),
                text().prop_map(|t| format!("* **Done-when**: {t} ✔")),
                text().prop_map(|t| format!("- **Mood**: {t}")),
                text(),
                Just(String::new()),
            ],
            0..4,
        ),
    )
        .prop_map(|(date, session, status, lines)| {
            let mut out = format!("### {date} — {session} — {status}\n");
            for l in lines {
                out.push_str(&l);
                out.push('\n');
            }
            out
        })
}

/// Two logs drawn from one pool of entries, so they share some entries, differ on others.
fn two_logs() -> impl Strategy<Value = (String, String)> {
    (
        prop::collection::vec(entry(), 1..8),
        prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        prop_oneof![Just(""), Just("# Progress\n\n"), Just("# Progress\nmy notes\n")],
        prop_oneof![Just(""), Just("# Progress\n\n"), Just("other notes\n\n")],
        any::<(bool, bool, bool)>(),
    )
        .prop_map(|(pool, ia, ib, pa, pb, (crlf_a, crlf_b, open_end))| {
            let build = |pre: &str, ix: &[prop::sample::Index], crlf: bool| {
                let mut s = pre.to_string();
                for i in ix {
                    s.push_str(i.get(&pool[..]).as_str());
                }
                if open_end {
                    s.pop();
                }
                if crlf { s.replace('\n', "\r\n") } else { s }
            };
            (build(pa, &ia, crlf_a), build(pb, &ib, crlf_b))
        })
}

/// The lines of a text, without line endings or trailing spaces, blank lines left out.
fn line_set(text: &str) -> BTreeSet<String> {
    text.split('\n').map(|l| l.trim_end().to_string()).filter(|l| !l.is_empty()).collect()
}

/// Each entry's text, normalised as merge compares them.
fn entry_set(text: &str) -> BTreeSet<String> {
    progress::parse(text)
        .0
        .entries
        .iter()
        .map(|e| {
            let lines: Vec<_> = e.raw().split('\n').map(str::trim_end).collect();
            lines.join("\n").trim_end().to_string()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn merge_keeps_every_line_and_entry_of_both((a, b) in two_logs()) {
        let m = merge::merge(&a, &b);
        let lines = line_set(&m.text);
        prop_assert!(line_set(&a).is_subset(&lines), "a line of A is missing:\n{}", m.text);
        prop_assert!(line_set(&b).is_subset(&lines), "a line of B is missing:\n{}", m.text);
        let entries = entry_set(&m.text);
        prop_assert!(entry_set(&a).is_subset(&entries));
        prop_assert!(entry_set(&b).is_subset(&entries));
        // Identical entries appear once: no more entries than distinct ones.
        let distinct: BTreeSet<_> = entry_set(&a).union(&entry_set(&b)).cloned().collect();
        prop_assert_eq!(progress::parse(&m.text).0.entries.len(), distinct.len());
    }

    #[test]
    fn merge_is_idempotent((a, b) in two_logs()) {
        let m = merge::merge(&a, &b);
        prop_assert_eq!(&merge::merge(&m.text, &b).text, &m.text);
        prop_assert_eq!(&merge::merge(&m.text, &a).text, &m.text);
        prop_assert_eq!(&merge::merge(&m.text, &m.text).text, &m.text);
    }

    #[test]
    fn merge_is_order_insensitive_up_to_entry_order((a, b) in two_logs()) {
        let ab = merge::merge(&a, &b);
        let ba = merge::merge(&b, &a);
        prop_assert_eq!(entry_set(&ab.text), entry_set(&ba.text));
        prop_assert_eq!(line_set(&ab.text), line_set(&ba.text));
        prop_assert_eq!(ab.conflicts.len(), ba.conflicts.len());
    }

    #[test]
    fn merged_entries_are_in_date_order((a, b) in two_logs()) {
        let m = merge::merge(&a, &b);
        let dates: Vec<_> = progress::parse(&m.text).0.entries.iter().filter_map(|e| e.date).collect();
        prop_assert!(dates.windows(2).all(|w| w[0] <= w[1]), "{:?}", dates);
    }

    #[test]
    fn conflicts_point_at_their_versions((a, b) in two_logs()) {
        let m = merge::merge(&a, &b);
        let lines: Vec<&str> = m.text.split('\n').collect();
        for c in &m.conflicts {
            prop_assert!(c.versions.len() >= 2);
            prop_assert!(c.versions.iter().any(|v| v.side == merge::Side::A));
            prop_assert!(c.versions.iter().any(|v| v.side == merge::Side::B));
            for v in &c.versions {
                let first = v.text.split('\n').next().unwrap();
                prop_assert_eq!(lines[v.merged_line - 1], first);
            }
        }
    }
}
