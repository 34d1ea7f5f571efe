//! `fmt`: hand-edited entries made canonical, everything else left as written.

use bookside_core::progress;
use expect_test::{Expect, expect, expect_file};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/log/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn check(input: &str, expect: Expect) {
    let out = progress::fmt(input);
    assert_eq!(progress::fmt(&out), out, "fmt must be idempotent");
    expect.assert_eq(&out);
}

#[test]
fn hand_edited_fixture() {
    let text = fixture("hand_edits.md");
    let out = progress::fmt(&text);
    expect_file!["fixtures/log/hand_edits.fmt.md"].assert_eq(&out);
    assert_eq!(progress::fmt(&out), out);
    let report: String = progress::check_canonical(&text).iter().map(|d| format!("{d}\n")).collect();
    expect_file!["fixtures/log/hand_edits.check.txt"].assert_eq(&report);
    assert!(progress::check_canonical(&out).is_empty());
}

#[test]
fn canonical_log_is_left_alone() {
    let text = fixture("canonical.md");
    assert_eq!(progress::fmt(&text), text);
    assert!(progress::check_canonical(&text).is_empty());
}

#[test]
fn crlf_stays_crlf() {
    let text = fixture("hand_edits.md").replace('\n', "\r\n");
    let out = progress::fmt(&text);
    assert_eq!(out, progress::fmt(&fixture("hand_edits.md")).replace('\n', "\r\n"));
}

#[test]
fn separators_bullets_marks_and_case() {
    check(
        "### 2026-07-22 -- S1.3 (KV-cache budget) -- done   \n+ **next:** S1.4 - dense vs MoE\n* **done-when**: ☑️ test_m02.py   \n* sticking point: sizing (Rung 2)\n* **Built**: x\n",
        expect![[r#"
            ### 2026-07-22 — S1.3 (KV-cache budget) — DONE
            - **Built**: x
            - **Done-when**: test_m02.py ✅
            - **Sticking point**: sizing (ladder rung 2)
            - **Next**: S1.4 — dense vs MoE
        "#]],
    );
}

#[test]
fn text_it_does_not_understand_is_kept() {
    check(
        "Preamble  \n### 2026-07-22 — S1.3 — WIP  \n- **Mood**:   fine  \nA note **with** stuff  \n\n- a plain list item\n### 2026-13-01 - S1.4 - done\n- **Built**: x\n  continued ✔\n- **Done-when**: ✗\n```\n- **Next**: quoted\n```",
        expect![[r#"
            Preamble  
            ### 2026-07-22 — S1.3 — WIP
            - **Mood**: fine
            A note **with** stuff  

            - a plain list item
            ### 2026-13-01 - S1.4 - done
            - **Built**: x
              continued ✔
            - **Done-when**: ❌
            ```
            - **Next**: quoted
            ```
        "#]],
    );
}

#[test]
fn check_says_what_would_change() {
    let report = |text: &str| -> String { progress::check_canonical(text).iter().map(|d| format!("{d}\n")).collect() };
    expect![[r#"
        PROGRESS.md:1: entry 2026-07-22 S1.3 DONE is not in canonical form; line 2 has no line ending; run `bookside fmt` to rewrite it
    "#]]
    .assert_eq(&report("### 2026-07-22 — S1.3 — DONE\n- **Built**: x"));
    expect![[r#"
        PROGRESS.md:3: entry 2026-07-23 S1.4 PARTIAL is not in canonical form; line 4 would become `- **Next**: S1.5 — why`; run `bookside fmt` to rewrite it
    "#]]
    .assert_eq(&report("### 2026-07-22 — S1.3 — DONE\n\n### 2026-07-23 — S1.4 — PARTIAL\n- **Next**: S1.5: why\n"));
    assert_eq!(report(""), "");
}

/// Found by `cargo xtask fuzz progress` (kept in fuzz/regressions/progress/): a bold field name
/// holding `*` printed as `- ***:***:`, which reads back as another name, so fmt was not
/// idempotent. Such a line is now a note and stays as written.
#[test]
fn field_names_with_stars_stay_notes() {
    let input = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions/progress/fmt-not-idempotent-bold-colons"))
        .expect("the saved fuzz input");
    let once = progress::fmt(&input);
    assert_eq!(progress::fmt(&once), once, "fmt is idempotent");
    assert!(progress::check_canonical(&once).is_empty());
    let (log, _) = progress::parse(&input);
    assert_eq!(progress::print(&log), input);
    assert_eq!(log.entries[0].fields().len(), 0, "{:?}", log.entries[0]);
}
