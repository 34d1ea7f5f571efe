//! Appending an entry the app built: the canonical form exactly, in the file's line endings.

use bookside_core::progress::{self, Date, DoneWhen, Entry, Mark, NewEntry, Next, Status, StickingPoint};

/// The seed's example entry, as the app would build it from a finished session.
fn seed_entry() -> NewEntry {
    NewEntry {
        date: Date::new(2026, 7, 22).unwrap(),
        session: "S1.3".into(),
        title: "KV-cache budget".into(),
        status: Status::Done,
        built: "chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512".into(),
        done_when: DoneWhen::test("test_m02_kv_budget.py", Mark::Pass),
        sticking_point: StickingPoint { text: "per-head vs per-layer cache sizing".into(), rung: Some(2) },
        next: Next { session: Some("S1.4".into()), why: "dense vs MoE, decided with numbers".into() },
    }
}

// The canonical entry exactly as the book prints it (an independent copy, not built by code).
const SEED: &str = "### 2026-07-22 — S1.3 (KV-cache budget) — DONE
- **Built**: chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512
- **Done-when**: test_m02_kv_budget.py ✅
- **Sticking point**: per-head vs per-layer cache sizing (ladder rung 2)
- **Next**: S1.4 — dense vs MoE, decided with numbers
";

#[test]
fn new_entry_is_the_seed_entry_exactly() {
    assert_eq!(seed_entry().to_text(), SEED);
    assert_eq!(progress::append("", &seed_entry()), SEED);
}

#[test]
fn append_separates_with_one_blank_line() {
    let before = "# Progress\n\nnotes";
    assert_eq!(progress::append(before, &seed_entry()), format!("{before}\n\n{SEED}"));
    let ends_with_newline = "# Progress\n";
    assert_eq!(progress::append(ends_with_newline, &seed_entry()), format!("# Progress\n\n{SEED}"));
    let ends_with_blank = "# Progress\n\n";
    assert_eq!(progress::append(ends_with_blank, &seed_entry()), format!("# Progress\n\n{SEED}"));
}

#[test]
fn append_keeps_crlf_files_crlf() {
    let before = "# Progress\r\n\r\n### 2026-07-21 — S1.2 — PARTIAL\r\n- **Built**: x\r\n";
    let after = progress::append(before, &seed_entry());
    assert_eq!(after, format!("{before}\r\n{}", SEED.replace('\n', "\r\n")));
    let (log, diags) = progress::parse(&after);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(log.entries.len(), 2);
    assert_eq!(log.entries[1].line, 6);
}

#[test]
fn appended_entry_reads_back_and_leaves_the_rest_alone() {
    let before = "Preamble with a ### heading-like line\n\n### 2026-07-21 — S1.2 — partial\n* **Built**: x  \n";
    let after = progress::append(before, &seed_entry());
    assert!(after.starts_with(before));
    let (log, _) = progress::parse(&after);
    let e = log.entries.last().unwrap();
    assert_eq!(e.raw(), SEED);
    let fresh = Entry::new(&seed_entry());
    fn view(e: &Entry) -> impl PartialEq + std::fmt::Debug + '_ {
        (e.date, e.session(), e.title(), e.status.clone(), e.built(), e.done_when(), e.sticking_point(), e.next())
    }
    assert_eq!(view(e), view(&fresh));
    assert_eq!(e.line, 6);
    assert_eq!(e.fields().map(|f| f.line).collect::<Vec<_>>(), [7, 8, 9, 10]);
}

#[test]
fn read_only_sessions_record_their_quiz() {
    let quiz = NewEntry {
        date: Date::new(2026, 7, 24).unwrap(),
        session: "S2.1".into(),
        title: "The training loop".into(),
        status: Status::Done,
        built: "read the chapter and ran the notebook".into(),
        done_when: DoneWhen::quiz(8, 10, true),
        sticking_point: StickingPoint { text: String::new(), rung: None },
        next: Next { session: Some("S2.2".into()), why: "write the loop".into() },
    };
    assert_eq!(
        quiz.to_text(),
        "### 2026-07-24 — S2.1 (The training loop) — DONE
- **Built**: read the chapter and ran the notebook
- **Done-when**: quiz 8/10 ✅
- **Sticking point**: none
- **Next**: S2.2 — write the loop
"
    );
    let e = Entry::new(&quiz);
    assert_eq!(e.done_when().unwrap().quiz_score(), Some((8, 10)));
    assert!(e.sticking_point().unwrap().is_none());
}

#[test]
fn newlines_in_values_cannot_break_the_entry() {
    let mut e = seed_entry();
    e.built = "line one\nline two\r\n### 2026-01-01 — S9 — DONE".into();
    let text = e.to_text();
    let (log, _) = progress::parse(&text);
    assert_eq!(log.entries.len(), 1);
    assert_eq!(log.entries[0].built(), Some("line one line two ### 2026-01-01 — S9 — DONE"));
}
