//! Merging two logs: what the reader gets, shown on examples (expect-test snapshots).

use std::fmt::Write as _;

use bookside_core::merge::{self, Merged};
use expect_test::{Expect, expect, expect_file};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/log/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn describe(m: &Merged) -> String {
    let mut out = m.text.clone();
    writeln!(out, "=== {} conflict(s)", m.conflicts.len()).unwrap();
    for c in &m.conflicts {
        writeln!(out, "conflict {} formatting_only={}", c.key, c.formatting_only).unwrap();
        for v in &c.versions {
            writeln!(out, "  {:?}:{} -> merged {}-{}", v.side, v.line, v.merged_line, v.merged_last_line).unwrap();
        }
    }
    out
}

fn check(a: &str, b: &str, expect: Expect) {
    expect.assert_eq(&describe(&merge::merge(a, b)));
}

#[test]
fn laptop_and_desktop_logs() {
    let m = merge::merge(&fixture("merge_a.md"), &fixture("merge_b.md"));
    expect_file!["fixtures/log/merge_ab.txt"].assert_eq(&describe(&m));
    // The conflict's lines point at each version's heading in the merged text.
    for v in &m.conflicts[0].versions {
        let heading = m.text.lines().nth(v.merged_line - 1).unwrap();
        assert_eq!(heading, "### 2026-07-22 — S1.3 (KV-cache budget) — DONE");
        assert!(v.text.starts_with(heading));
    }
}

#[test]
fn resolving_keeps_the_chosen_version_only() {
    let m = merge::merge(&fixture("merge_a.md"), &fixture("merge_b.md"));
    let c = &m.conflicts[0];
    let kept_b = merge::resolve(&m.text, c, 1);
    assert!(kept_b.contains("cache 5.2 MB"));
    assert!(!kept_b.contains("fan was loud"));
    let again = merge::merge(&kept_b, &kept_b);
    assert!(again.conflicts.is_empty());
    assert_eq!(again.text, kept_b);
    assert_eq!(merge::resolve(&m.text, c, 9), m.text);
}

#[test]
fn formatting_only_differences_are_kept_and_labelled() {
    check(
        "### 2026-07-20 — S1.1 — DONE\n- **Done-when**: t.py ✅\n",
        "### 2026-07-20 - S1.1 - done\n* **Done-when**: t.py ✔\n",
        expect![[r#"
            ### 2026-07-20 — S1.1 — DONE
            - **Done-when**: t.py ✅

            ### 2026-07-20 - S1.1 - done
            * **Done-when**: t.py ✔
            === 1 conflict(s)
            conflict 2026-07-20 S1.1 DONE formatting_only=true
              A:1 -> merged 1-3
              B:1 -> merged 4-5
        "#]],
    );
}

#[test]
fn crlf_and_lf_logs_merge_in_the_first_logs_endings() {
    let a = "# Log\r\n\r\n### 2026-07-20 — S1.1 — DONE\r\n- **Built**: x\r\n";
    let b = "### 2026-07-19 — S0 — SKIPPED\n- **Built**: y\r\n### 2026-07-20 — S1.1 — DONE\n- **Built**: x";
    let m = merge::merge(a, b);
    assert!(m.conflicts.is_empty());
    assert_eq!(
        m.text,
        "# Log\r\n\r\n### 2026-07-19 — S0 — SKIPPED\r\n- **Built**: y\r\n\r\n### 2026-07-20 — S1.1 — DONE\r\n- **Built**: x\r\n"
    );
}

#[test]
fn undated_entries_travel_with_the_entry_before_them() {
    check(
        "### 2026-07-22 — S1.3 — DONE\n### 2026-7-23 — S1.4 — DONE\n",
        "### 2026-07-21 — S1.2 — DONE\n### 2026-07-24 — S1.5 — DONE\n",
        expect![[r#"
            ### 2026-07-21 — S1.2 — DONE

            ### 2026-07-22 — S1.3 — DONE

            ### 2026-7-23 — S1.4 — DONE

            ### 2026-07-24 — S1.5 — DONE
            === 0 conflict(s)
        "#]],
    );
}

#[test]
fn empty_inputs() {
    check("", "", expect![[r#"
        === 0 conflict(s)
    "#]]);
    check("", "# only a preamble", expect![[r#"
        # only a preamble
        === 0 conflict(s)
    "#]]);
}
