//! Linear-time checks for what the Session Guide parser scans itself: 10x input, at most 20x time.

mod book_support;

use std::collections::{BTreeMap, BTreeSet};

use book_support::assert_linear;
use bookside_core::guide;

/// Scale factor for the small input; the large one is ten times bigger.
const BASE: usize = 2_000;

fn parse(text: &str) {
    let (guide, diags) = guide::parse("src/session-guide.md", text);
    let chapters: BTreeMap<String, BTreeSet<String>> = BTreeMap::from([("a.md".to_owned(), BTreeSet::from(["x".to_owned()]))]);
    let more = guide::check(&guide, &chapters, "session-guide.md", Some(&BTreeSet::new()));
    std::hint::black_box((guide, diags, more));
}

#[test]
fn many_cards() {
    assert_linear(
        "many cards",
        |k| {
            let mut text = String::from("## Phase 1 — P\n\n");
            for i in 0..BASE * k / 10 {
                let need = if i == 0 { "none".to_owned() } else { format!("S1.{}", i - 1) };
                text.push_str(&format!(
                    "### S1.{i} — Card\n\n- **Goal**: g\n- **Needs**: {need}\n- **Read**: [a](a.md#x); [b](a.md#y)\n- **Midpoint**: m\n- **Done-when**: `uv run pytest t/test_{i}.py`\n\n#### Hints: h\n\n1. **Point**: p\n2. **Ask**: a\n3. **Pseudocode**: c\n4. **One line**: o\n\n"
                ));
            }
            text
        },
        parse,
    );
}

#[test]
fn tangled_needs() {
    // A chain where every card also needs the first one: many cycles through one long path.
    assert_linear(
        "tangled needs",
        |k| {
            // Big enough that even the small input's diagnostics do not fit in the CPU caches:
            // below that, the small run is unfairly fast and the ratio looks superlinear.
            let n = BASE * k;
            let mut text = String::from("## Phase 1 — P\n\n");
            for i in 0..n {
                text.push_str(&format!("### S1.{i} — C\n- **Needs**: S1.{}, S1.0\n", (i + 1) % n));
            }
            text
        },
        parse,
    );
}

#[test]
fn duplicate_ids_and_fields() {
    assert_linear(
        "duplicates",
        |k| "### S1.1 — Same\n- **Goal**: g\n- **Goal**: again\n".repeat(BASE * k),
        parse,
    );
}

#[test]
fn one_long_read_field() {
    assert_linear(
        "long read field",
        |k| {
            let mut text = String::from("## Phase 1 — P\n### S1.1 — C\n- **Read**: [a](a.md#x)");
            for _ in 0..BASE * k {
                text.push_str(";\n  [b [nested]](a.md#y); notebook `n.ipynb` cells 1–2");
            }
            text
        },
        parse,
    );
}

#[test]
fn unclosed_brackets_backticks_and_continuations() {
    assert_linear(
        "unclosed brackets",
        |k| {
            let n = BASE * k / 4;
            format!(
                "## Phase 1 — P\n### S1.1 — C\n- **Read**: {}\n- **Done-when**: {}\n- **Needs**: {}\n- **Goal**: g\n{}",
                "[".repeat(n),
                "`".repeat(n),
                "S1.1,".repeat(n / 5),
                "  more\n".repeat(n / 5)
            )
            .repeat(10)
        },
        parse,
    );
}

#[test]
fn fences_and_headings() {
    assert_linear(
        "fences",
        |k| "```\n### S1.1 — in code\n````\n~~~~\n```\n#### Hints: x\n1. **Point**: p\n##### deep\n".repeat(BASE * k / 2),
        parse,
    );
}
