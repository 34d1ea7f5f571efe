//! What the PROGRESS.md parser reads from hand-edited logs: expect-test snapshots of the model.

use std::fmt::Write as _;

use bookside_core::progress::{self, Entry, ProgressLog};
use expect_test::{Expect, expect, expect_file};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/log/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A plain-text picture of everything the model exposes.
fn describe(log: &ProgressLog, diags: &[bookside_core::Diagnostic]) -> String {
    let mut out = String::new();
    writeln!(out, "preamble: {} lines", log.preamble.lines().count()).unwrap();
    for e in &log.entries {
        describe_entry(&mut out, e);
    }
    for d in diags {
        writeln!(out, "diag {d}").unwrap();
    }
    out
}

fn describe_entry(out: &mut String, e: &Entry) {
    writeln!(
        out,
        "entry @{}-{}: date={:?} text={:?} session={:?} title={:?} status={:?}",
        e.line,
        e.last_line(),
        e.date.map(|d| d.to_string()),
        e.date_text(),
        e.session(),
        e.title(),
        e.status
    )
    .unwrap();
    for f in e.fields() {
        writeln!(out, "  field @{}-{} {:?} {:?} = {:?}", f.line, f.last_line, f.kind, f.name, f.value).unwrap();
    }
    writeln!(out, "  built: {:?}", e.built()).unwrap();
    writeln!(out, "  done_when: {:?}", e.done_when()).unwrap();
    writeln!(out, "  sticking_point: {:?}", e.sticking_point()).unwrap();
    writeln!(out, "  next: {:?}", e.next()).unwrap();
}

fn check(text: &str, expect: Expect) {
    let (log, diags) = progress::parse(text);
    assert_eq!(progress::print(&log), text, "print(parse(s)) must give back s");
    expect.assert_eq(&describe(&log, &diags));
}

#[test]
fn canonical_log() {
    let text = fixture("canonical.md");
    let (log, diags) = progress::parse(&text);
    assert_eq!(progress::print(&log), text);
    expect_file!["fixtures/log/canonical.model.txt"].assert_eq(&describe(&log, &diags));
}

#[test]
fn hand_edited_log() {
    let text = fixture("hand_edits.md");
    let (log, diags) = progress::parse(&text);
    assert_eq!(progress::print(&log), text);
    expect_file!["fixtures/log/hand_edits.model.txt"].assert_eq(&describe(&log, &diags));
}

#[test]
fn crlf_and_no_final_newline_read_the_same_as_lf() {
    let lf = fixture("hand_edits.md");
    let crlf = lf.replace('\n', "\r\n");
    let open = lf.trim_end_matches('\n').to_string();
    let (a, da) = progress::parse(&lf);
    for variant in [crlf, open] {
        let (b, db) = progress::parse(&variant);
        assert_eq!(progress::print(&b), variant);
        assert_eq!(describe(&a, &da), describe(&b, &db));
    }
}

#[test]
fn empty_and_preamble_only() {
    check("", expect![[r#"
        preamble: 0 lines
    "#]]);
    check("# Progress\r\n\r\nnothing yet", expect![[r#"
        preamble: 3 lines
    "#]]);
}

#[test]
fn heading_variants() {
    check(
        "### 2026-07-22—S1.3—done\n###  2026-07-23 -- S1.4 (a (nested) title) -- Partial\n### 2026-07-24: S1.5 KV-cache - budget - DONE\n### S1.6 (no date) — DONE\n### 2026-07-25 — S1.7 (unbalanced ( title — DONE\n#### 2026-07-26 — S1.8 — DONE\n### Reading list\n",
        expect![[r#"
            preamble: 0 lines
            entry @1-1: date=Some("2026-07-22") text="2026-07-22" session="S1.3" title=None status=Some(Done)
              built: None
              done_when: None
              sticking_point: None
              next: None
            entry @2-2: date=Some("2026-07-23") text="2026-07-23" session="S1.4" title=Some("a (nested) title") status=Some(Partial)
              built: None
              done_when: None
              sticking_point: None
              next: None
            entry @3-3: date=Some("2026-07-24") text="2026-07-24" session="S1.5" title=Some("KV-cache - budget") status=Some(Done)
              built: None
              done_when: None
              sticking_point: None
              next: None
            entry @4-4: date=None text="" session="S1.6" title=Some("no date") status=Some(Done)
              built: None
              done_when: None
              sticking_point: None
              next: None
            entry @5-7: date=Some("2026-07-25") text="2026-07-25" session="S1.7" title=Some("(unbalanced ( title") status=Some(Done)
              built: None
              done_when: None
              sticking_point: None
              next: None
            diag PROGRESS.md:4: entry heading has no date; start it with the session's date, like `### 2026-07-22 —`
        "#]],
    );
}

#[test]
fn values_with_marks_rungs_and_next() {
    check(
        "### 2026-07-22 — S1.3 — DONE\n- **Done-when**: ✔️ test_a.py\n- **Sticking point**: (Ladder Rung 4)\n- **Next**: S1.4: because\n- Done when: quiz 8/10 ✅\n- note: a plain bullet\n",
        expect![[r#"
            preamble: 0 lines
            entry @1-6: date=Some("2026-07-22") text="2026-07-22" session="S1.3" title=None status=Some(Done)
              field @2-2 DoneWhen "Done-when" = "✔\u{fe0f} test_a.py"
              field @3-3 StickingPoint "Sticking point" = "(Ladder Rung 4)"
              field @4-4 Next "Next" = "S1.4: because"
              field @5-5 DoneWhen "Done when" = "quiz 8/10 ✅"
              built: None
              done_when: Some(DoneWhen { target: "test_a.py", mark: Some(Pass) })
              sticking_point: Some(StickingPoint { text: "", rung: Some(4) })
              next: Some(Next { session: Some("S1.4"), why: "because" })
            diag PROGRESS.md:5: second `Done when` field in this entry; the companion reads only the first, merge them into one
        "#]],
    );
}

#[test]
fn quiz_scores_are_read() {
    let (log, _) = progress::parse("### 2026-07-22 — S2.1 — DONE\n- **Done-when**: quiz 8/10 ✅\n");
    let dw = log.entries[0].done_when().clone().unwrap();
    assert_eq!(dw.quiz_score(), Some((8, 10)));
    assert_eq!(dw.mark, Some(progress::Mark::Pass));
}

#[test]
fn an_edited_log_prints_its_entries_in_their_new_order() {
    // Entries share their log's text; moved, cloned from another log, made new or outliving
    // their log, each still prints its own text.
    let a = "# A\n\n### 2026-07-22 — S1.3 — DONE\n- **Built**: one\n  more\n\n### 2026-07-23 — S1.4 — PARTIAL\n- **Built**: two\n";
    let b = "### 2026-07-24 — S1.5 — DONE\n- **Next**: S1.6 — why\n";
    let (mut log, _) = progress::parse(a);
    let from_b = progress::parse(b).0.entries.remove(0);
    let new = Entry::new(&progress::NewEntry {
        date: progress::Date::new(2026, 7, 25).unwrap(),
        session: "S1.6".into(),
        title: String::new(),
        status: progress::Status::Done,
        built: "three".into(),
        done_when: progress::DoneWhen::test("test_a.py", progress::Mark::Pass),
        sticking_point: progress::StickingPoint { text: String::new(), rung: None },
        next: progress::Next { session: None, why: String::new() },
    });
    log.entries.swap(0, 1);
    log.entries.insert(1, from_b.clone());
    log.entries.push(new.clone());
    log.preamble = "# Edited\n\n".into();
    let printed = progress::print(&log);
    let expected: String = std::iter::once(log.preamble.as_str()).chain(log.entries.iter().map(Entry::raw)).collect();
    assert_eq!(printed, expected);
    expect![[r#"
        # Edited

        ### 2026-07-23 — S1.4 — PARTIAL
        - **Built**: two
        ### 2026-07-24 — S1.5 — DONE
        - **Next**: S1.6 — why
        ### 2026-07-22 — S1.3 — DONE
        - **Built**: one
          more

        ### 2026-07-25 — S1.6 — DONE
        - **Built**: three
        - **Done-when**: test_a.py ✅
        - **Sticking point**: none
        - **Next**:
    "#]]
    .assert_eq(&printed);
    let moved = log.entries[2].clone();
    drop(log);
    assert_eq!(moved.built(), Some("one more"));
    assert_eq!(from_b.next().and_then(|n| n.session), Some("S1.6"));
    assert_eq!(new.done_when().map(|d| d.target), Some("test_a.py"));
    // Equal text at the same line reads the same, whichever file it came from.
    assert_eq!(progress::parse(b).0.entries[0], from_b);
    assert_ne!(progress::parse(&format!("\n{b}")).0.entries[0], from_b);
}
