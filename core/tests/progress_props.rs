//! Laws of the PROGRESS.md parser: lossless round trip on any text and on generated logs salted
//! with hostile text, the canonical entry reads back as written, `fmt` is idempotent and keeps
//! every entry.

use bookside_core::progress::{self, Date, DoneWhen, Mark, NewEntry, Next, Status, StickingPoint};
use proptest::prelude::*;

/// Fragments people (and pasted Markdown) put into a log that could confuse a parser.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("#".to_string()),
        Just("### ".to_string()),
        Just("---".to_string()),
        Just("```".to_string()),
        Just("`".to_string()),
        Just("[^".to_string()),
        Just("**".to_string()),
        Just("— ".to_string()),
        Just(" – ".to_string()),
        Just(" - ".to_string()),
        Just(" -- ".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(":".to_string()),
        Just("✅".to_string()),
        Just("❌".to_string()),
        Just("✔️".to_string()),
        Just("☑".to_string()),
        Just("✗".to_string()),
        Just("\r".to_string()),
        Just("(ladder rung 2)".to_string()),
        Just("(rung 9)".to_string()),
        Just("2026-13-45".to_string()),
        Just("2026-02-29".to_string()),
        Just("S1.3".to_string()),
        Just("DONE".to_string()),
        Just("partial".to_string()),
        Just("\t".to_string()),
        Just("é😀负荷".to_string()),
        Just("\u{feff}".to_string()),
        "[a-zA-Z0-9 .,]{0,8}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile(), 0..6).prop_map(|v| v.concat())
}

fn date() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (2020u16..2030, 1u8..13, 1u8..29).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
        1 => Just("2026-7-2".to_string()),
        1 => Just("2026-02-30".to_string()),
        1 => Just("July 4".to_string()),
        1 => text(),
    ]
}

fn sep() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just(" — "), Just(" – "), Just(" - "), Just("—"), Just(" -- "), Just(" ")]
}

fn heading() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("### "), Just("###\t"), Just("  ### "), Just("#### "), Just("###")],
        date(),
        sep(),
        prop_oneof![Just("S1.3".to_string()), Just("S0".to_string()), text()],
        prop_oneof![Just(String::new()), text().prop_map(|t| format!(" ({t})")), text()],
        sep(),
        prop_oneof![Just("DONE"), Just("done"), Just("Partial"), Just("SKIPPED"), Just("WIP"), Just("")],
        prop_oneof![Just(""), Just("  "), Just(" \t")],
    )
        .prop_map(|(h, d, s1, sess, title, s2, status, trail)| format!("{h}{d}{s1}{sess}{title}{s2}{status}{trail}"))
}

fn field() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just(" "), Just("    ")],
        prop_oneof![Just("- "), Just("* "), Just("+ "), Just("-\t"), Just("-")],
        prop_oneof![
            Just("**Built**: "),
            Just("**Done-when**: "),
            Just("**done when:** "),
            Just("**Sticking point**: "),
            Just("**Next**: "),
            Just("Next: "),
            Just("**Mood**: "),
            Just("**"),
            Just(""),
        ],
        prop_oneof![
            text(),
            text().prop_map(|t| format!("{t} ✅")),
            text().prop_map(|t| format!("✗ {t}")),
            text().prop_map(|t| format!("{t} (ladder rung 3)")),
            text().prop_map(|t| format!("S1.4 — {t}")),
        ],
        prop_oneof![Just(""), Just("   ")],
    )
        .prop_map(|(indent, bullet, name, value, trail)| format!("{indent}{bullet}{name}{value}{trail}"))
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => heading(),
        6 => field(),
        2 => text().prop_map(|t| format!("  {t}")),
        2 => text(),
        3 => prop_oneof![Just(String::new()), Just("   ".to_string())],
        1 => prop_oneof![Just("```".to_string()), Just("~~~~".to_string())],
        1 => (text(), 1000usize..1400).prop_map(|(t, n)| format!("- **Built**: {}{t}", "x**(— ".repeat(n / 6 + 1))),
    ]
}

/// A whole log: lines joined with mixed line endings, with or without a final newline.
fn log() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((line(), prop_oneof![Just("\n"), Just("\r\n")]), 0..30),
        any::<bool>(),
    )
        .prop_map(|(lines, final_newline)| {
            let mut out = String::new();
            let n = lines.len();
            for (i, (l, eol)) in lines.into_iter().enumerate() {
                out.push_str(&l);
                if i + 1 < n || final_newline {
                    out.push_str(eol);
                }
            }
            out
        })
}

/// The parts of an entry that `fmt` must keep: its key and its fields' meaning.
fn meaning(text: &str) -> Vec<(String, Vec<(progress::FieldKind, String)>)> {
    let (log, _) = progress::parse(text);
    log.entries
        .iter()
        .map(|e| {
            // fmt may put fields in canonical order, so compare them as a sorted list.
            let mut fields: Vec<_> = e
                .fields()
                .map(|f| (f.kind, f.value.to_string()))
                .filter(|(k, _)| *k == progress::FieldKind::Unknown || *k == progress::FieldKind::Built)
                .collect();
            fields.sort();
            (format!("{} {:?} {:?} {:?} {:?}", e.key(), e.title(), e.done_when(), e.sticking_point(), e.next()), fields)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_text_round_trips(s in "(\\PC|\r|\n|\r\n|###|—|\\*\\*|- ){0,200}") {
        prop_assert_eq!(progress::roundtrip(&s), s);
    }

    #[test]
    fn generated_logs_round_trip(s in log()) {
        let (parsed, _) = progress::parse(&s);
        prop_assert_eq!(progress::print(&parsed), s.clone());
        // Every entry's lines are numbered from where they sit in the file.
        for e in &parsed.entries {
            let at = s.split('\n').nth(e.line - 1).unwrap();
            prop_assert!(at.trim_start().starts_with("###"), "line {} is {:?}", e.line, at);
        }
    }

    #[test]
    fn an_entry_reads_the_same_alone_as_in_its_log(s in log()) {
        // The entries of a log share one copy of its text (and of its joined values): each must
        // still read exactly its own part, as if it were the only entry of a file.
        let (parsed, _) = progress::parse(&s);
        for e in &parsed.entries {
            let (single, _) = progress::parse(e.raw());
            prop_assert_eq!(single.entries.len(), 1);
            let alone = &single.entries[0];
            let shift = e.line - 1;
            let fields = |x: &progress::Entry, shift: usize| {
                x.fields().map(|f| (f.kind, f.name.to_string(), f.value.to_string(), f.line + shift, f.last_line + shift)).collect::<Vec<_>>()
            };
            prop_assert_eq!(fields(e, 0), fields(alone, shift));
            prop_assert_eq!(e.last_line(), alone.last_line() + shift);
            prop_assert_eq!(
                format!("{} {:?} {:?} {:?} {:?} {:?}", e.key(), e.title(), e.built(), e.done_when(), e.sticking_point(), e.next()),
                format!("{} {:?} {:?} {:?} {:?} {:?}", alone.key(), alone.title(), alone.built(), alone.done_when(), alone.sticking_point(), alone.next())
            );
        }
    }

    #[test]
    fn fmt_is_idempotent(s in log()) {
        let once = progress::fmt(&s);
        let twice = progress::fmt(&once);
        prop_assert_eq!(&twice, &once);
        prop_assert!(progress::check_canonical(&once).is_empty());
    }

    #[test]
    fn fmt_keeps_every_entry_and_its_meaning(s in log()) {
        let formatted = progress::fmt(&s);
        let (before, _) = progress::parse(&s);
        let (after, _) = progress::parse(&formatted);
        prop_assert_eq!(&before.preamble, &after.preamble);
        prop_assert_eq!(before.entries.len(), after.entries.len());
        prop_assert_eq!(meaning(&s), meaning(&formatted));
    }

    #[test]
    fn canonical_entries_read_back_as_built(
        (y, m, d) in (2020u16..2100, 1u8..13, 1u8..29),
        session in "S[0-9]\\.[0-9]{1,2}",
        title in text(),
        status in prop_oneof![Just(Status::Done), Just(Status::Partial), Just(Status::Skipped)],
        built in text(),
        target in text(),
        pass in any::<bool>(),
        sticking in text(),
        rung in prop::option::of(1u8..5),
        next in prop::option::of("S[0-9]\\.[0-9]"),
        why in text(),
    ) {
        let new = NewEntry {
            date: Date::new(y, m, d).unwrap(),
            session: session.clone(),
            title,
            status: status.clone(),
            built,
            done_when: DoneWhen::test(&target, if pass { Mark::Pass } else { Mark::Fail }),
            sticking_point: StickingPoint { text: sticking, rung },
            next: Next { session: next.clone(), why },
        };
        let text = new.to_text();
        let (log, _) = progress::parse(&text);
        prop_assert_eq!(log.entries.len(), 1);
        let e = &log.entries[0];
        prop_assert_eq!(e.date, Some(new.date));
        prop_assert_eq!(&e.session(), &session);
        prop_assert_eq!(e.status.as_ref(), Some(&status));
        prop_assert_eq!(e.done_when().map(|d| d.mark), Some(Some(if pass { Mark::Pass } else { Mark::Fail })));
        // A rung given by the app is always read back; without one, a text that itself ends in
        // `(ladder rung N)` is (rightly) read as naming a rung.
        let read = e.sticking_point().unwrap();
        if rung.is_some() || !new.sticking_point.text.trim().ends_with(')') {
            prop_assert_eq!(read.rung, rung);
        }
        prop_assert_eq!(e.fields().len(), 4);
        // What the app writes is already canonical.
        prop_assert_eq!(progress::fmt(&text), text.clone());
    }
}

#[test]
fn ten_kilobyte_lines_round_trip_and_read() {
    let long = "a **b** `c` [^d] — e ".repeat(500);
    let text = format!("# Log\n\n### 2026-07-22 — S1.3 ({long}) — DONE\n- **Built**: {long}\n- **Sticking point**: {long} (ladder rung 2)\n");
    assert!(long.len() > 10_000);
    let (log, diags) = progress::parse(&text);
    assert_eq!(progress::print(&log), text);
    assert!(diags.is_empty(), "{diags:?}");
    let e = &log.entries[0];
    assert_eq!(e.built(), Some(long.trim()));
    assert_eq!(e.sticking_point().unwrap().rung, Some(2));
    assert_eq!(e.status, Some(Status::Done));
}
