//! One test per Session Guide diagnostic: each triggers it and checks its file and line.

use std::collections::{BTreeMap, BTreeSet};

use bookside_core::guide;
use expect_test::{Expect, expect};

const FILE: &str = "src/session-guide.md";

/// A card that passes every check, to build broken guides from.
fn card(id: &str, needs: &str) -> String {
    format!(
        "### {id} — Title of {id}\n\n\
         - **Goal**: Do the thing. Leave with proof.\n\
         - **Needs**: {needs}\n\
         - **Read**: [The cache](kv-cache.md#what-the-cache-stores)\n\
         - **Midpoint**: half done\n\
         - **Done-when**: `uv run pytest tests/milestones/test_{}.py`\n\n",
        id.replace('.', "_")
    )
}

fn parse_diags(text: &str) -> String {
    let (_, diags) = guide::parse(FILE, text);
    diags.iter().map(|d| format!("{d}\n")).collect()
}

fn check(text: &str, expect: Expect) {
    expect.assert_eq(&parse_diags(text));
}

#[test]
fn clean_guide_has_no_diagnostics() {
    let text = format!("# Session Guide\n\n## Phase 1 — Paper\n\n{}{}", card("S1.1", "none"), card("S1.2", "S1.1"));
    check(&text, expect![[""]]);
}

#[test]
fn duplicate_ids() {
    let text = format!("## Phase 1 — Paper\n\n{}{}", card("S1.1", "none"), card("S1.1", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:11: duplicate card id S1.1 (first at line 3): give each card its own id
    "#]]);
}

#[test]
fn needs_naming_unknown_cards() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "S1.9"));
    check(&text, expect![[r#"
        src/session-guide.md:6: card S1.1 needs S1.9, which is not in the guide: fix the id or add the card
    "#]]);
}

#[test]
fn needs_that_are_not_ids() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "the first one"));
    check(&text, expect![[r#"
        src/session-guide.md:6: card S1.1 needs `the first one`, which is not a card id: write ids like S1.2, or `none`
    "#]]);
}

#[test]
fn needs_pointing_forward() {
    let text = format!("## Phase 1 — Paper\n\n{}{}", card("S1.1", "S1.2"), card("S1.2", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:6: card S1.1 needs S1.2, which comes later in the guide: move S1.2 above it or fix Needs
    "#]]);
}

#[test]
fn needs_cycles() {
    let text = format!("## Phase 1 — Paper\n\n{}{}{}", card("S1.1", "S1.3"), card("S1.2", "S1.1"), card("S1.3", "S1.2"));
    check(&text, expect![[r#"
        src/session-guide.md:6: card S1.1 needs S1.3, which comes later in the guide: move S1.3 above it or fix Needs
        src/session-guide.md:6: needs form a cycle: S1.1 → S1.3 → S1.2 → S1.1; no card in it can ever be started, break one of these Needs
    "#]]);
}

#[test]
fn needs_itself() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "S1.1"));
    check(&text, expect![[r#"
        src/session-guide.md:6: card S1.1 needs itself: remove it from Needs
    "#]]);
}

#[test]
fn milestone_without_done_when() {
    let text = "## Phase 1 — Paper\n\n### S1.1 — Budget\n\n- **Goal**: g\n- **Needs**: none\n- **Read**: [a](kv-cache.md)\n- **Midpoint**: m\n\n\
                #### Hints: too big\n\n1. **Point**: p\n2. **Ask**: a\n3. **Pseudocode**: c\n4. **One line**: o\n";
    check(text, expect![[r#"
        src/session-guide.md:3: milestone card S1.1 (it has hint ladders) has no Done-when: add `- **Done-when**: `uv run pytest tests/milestones/test_….py``
    "#]]);
}

#[test]
fn card_with_neither_done_when_nor_quiz() {
    let text = "## Phase 1 — Paper\n\n### S1.1 — Budget\n\n- **Goal**: g\n- **Needs**: none\n- **Read**: [a](kv-cache.md)\n- **Midpoint**: m\n";
    check(text, expect![[r#"
        src/session-guide.md:3: card S1.1 has neither Done-when nor Quiz: add `- **Done-when**:` for a milestone or `- **Quiz**:` for a read-only session
    "#]]);
}

#[test]
fn read_only_without_quiz_topics() {
    let text = "## Phase 0 — Tools\n\n### S0.1 — Setup\n\n- **Goal**: g\n- **Needs**: none\n- **Read**: [a](kv-cache.md)\n- **Midpoint**: m\n- **Quiz**: \n";
    check(text, expect![[r#"
        src/session-guide.md:9: read-only card S0.1 lists no quiz topics: name topic ids from quiz.toml
    "#]]);
}

#[test]
fn hint_ladder_without_four_rungs() {
    let text = format!("## Phase 1 — Paper\n\n{}#### Hints: too big\n\n1. **Point**: p\n2. **Ask**: a\n3. **Pseudocode**: c\n", card("S1.1", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:11: hint ladder `too big` of card S1.1 has 3 rungs: write four, **Point**, **Ask**, **Pseudocode**, **One line**
    "#]]);
}

#[test]
fn hint_rungs_out_of_order() {
    let text = format!("## Phase 1 — Paper\n\n{}#### Hints: too big\n\n1. **Ask**: a\n2. **Point**: p\n3. **Pseudocode**: c\n4. **One line**: o\n", card("S1.1", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:13: rung 1 of hint ladder `too big` should start `**Point**:`
        src/session-guide.md:14: rung 2 of hint ladder `too big` should start `**Ask**:`
    "#]]);
}

#[test]
fn missing_required_fields() {
    let text = "## Phase 1 — Paper\n\n### S1.1 — Budget\n\n- **Done-when**: `uv run pytest tests/milestones/test_m01.py`\n";
    check(text, expect![[r#"
        src/session-guide.md:3: card S1.1 has no Goal: add `- **Goal**: …`
        src/session-guide.md:3: card S1.1 has no Needs: add `- **Needs**: …`
        src/session-guide.md:3: card S1.1 has no Read: add `- **Read**: …`
        src/session-guide.md:3: card S1.1 has no Midpoint: add `- **Midpoint**: …`
    "#]]);
}

#[test]
fn unknown_and_repeated_fields() {
    let text = format!("## Phase 1 — Paper\n\n{}\n- **Estimate**: 50 min\n- **Goal**: again\n", card("S1.1", "none").trim_end());
    check(&text, expect![[r#"
        src/session-guide.md:10: card S1.1 has an unknown field `Estimate`; it is kept but unused (known fields: Goal, Needs, Read, Midpoint, Done-when, Quiz, Themes, Remediation)
        src/session-guide.md:11: card S1.1 gives Goal twice (first at line 5): keep one
    "#]]);
}

#[test]
fn malformed_headings_and_items() {
    let text = format!(
        "## Phase one\n\n## Phase 1 — Paper\n\n### S1.x — Broken\n\n{}\n- not a field\n- **Read**: see the chapter\n",
        card("S1.1", "none").trim_end()
    );
    check(&text, expect![[r#"
        src/session-guide.md:1: malformed phase heading: write `## Phase 1 — Title`
        src/session-guide.md:5: malformed card heading: write `### S1.3 — Title`
        src/session-guide.md:14: list item in a card is not a field: write `- **Name**: value`
        src/session-guide.md:15: card S1.1 gives Read twice (first at line 11): keep one
    "#]]);
}

#[test]
fn read_items_that_are_neither_links_nor_notebooks() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "none").replace("[The cache](kv-cache.md#what-the-cache-stores)", "chapter 3"));
    check(&text, expect![[r#"
        src/session-guide.md:7: read item `chapter 3` is neither a chapter link nor a notebook reference: write `[text](chapter.md#anchor)` or notebook `path.ipynb` cells 2–5
    "#]]);
}

#[test]
fn card_outside_a_phase_and_in_the_wrong_phase() {
    let text = format!("{}## Phase 2 — Later\n\n{}", card("S1.1", "none"), card("S1.2", "S1.1"));
    check(&text, expect![[r#"
        src/session-guide.md:1: card S1.1 is not under a phase heading: add `## Phase 1 — Title` above it
        src/session-guide.md:11: card S1.2 sits under phase 2: renumber it S2.x or move it to phase 1
    "#]]);
}

#[test]
fn done_when_without_backticks_and_unknown_remediation() {
    let text = format!(
        "## Phase 1 — Paper\n\n{}\n- **Remediation**: S9.9\n",
        card("S1.1", "none").replace("`uv run pytest tests/milestones/test_S1_1.py`", "uv run pytest tests/milestones/test_S1_1.py").trim_end()
    );
    check(&text, expect![[r#"
        src/session-guide.md:9: card S1.1: put the Done-when command in backticks so it is kept exactly
        src/session-guide.md:10: card S1.1 names remediation S9.9, which is not in the guide: fix the id or add the card
    "#]]);
}

fn chapters() -> BTreeMap<String, BTreeSet<String>> {
    let mut map = BTreeMap::new();
    map.insert("kv-cache.md".to_owned(), BTreeSet::from(["what-the-cache-stores".to_owned()]));
    map.insert("session-guide.md".to_owned(), BTreeSet::from(["phase-1--paper".to_owned()]));
    map
}

fn check_against_book(text: &str, topics: &[&str], expect: Expect) {
    let (guide, _) = guide::parse(FILE, text);
    let topics: BTreeSet<String> = topics.iter().map(|s| (*s).to_owned()).collect();
    let diags = guide::check(&guide, &chapters(), "session-guide.md", Some(&topics));
    expect.assert_eq(&diags.iter().map(|d| format!("{d}\n")).collect::<String>());
}

#[test]
fn read_links_to_missing_chapters() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "none").replace("kv-cache.md#", "kv-cach.md#"));
    check_against_book(&text, &[], expect![[r#"
        src/session-guide.md:7: card S1.1 reads kv-cach.md, which is not a chapter of the book: fix the link or add it to SUMMARY.md
    "#]]);
}

#[test]
fn read_links_to_missing_anchors() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "none").replace("#what-the-cache-stores", "#what-the-cache-holds"));
    check_against_book(&text, &[], expect![[r#"
        src/session-guide.md:7: card S1.1 reads kv-cache.md#what-the-cache-holds, but that chapter has no heading with id `what-the-cache-holds`: fix the anchor
    "#]]);
}

#[test]
fn read_links_into_the_guide_itself() {
    let text = format!("## Phase 1 — Paper\n\n{}", card("S1.1", "none").replace("kv-cache.md#what-the-cache-stores", "#phase-1--paper); [b](#nowhere"));
    check_against_book(&text, &[], expect![[r#"
        src/session-guide.md:7: card S1.1 reads session-guide.md#nowhere, but that chapter has no heading with id `nowhere`: fix the anchor
    "#]]);
}

#[test]
fn quiz_topics_missing_from_quiz_toml() {
    let text = "## Phase 0 — Tools\n\n### S0.1 — Setup\n\n- **Goal**: g\n- **Needs**: none\n- **Read**: [a](kv-cache.md)\n- **Midpoint**: m\n- **Quiz**: tooling, kv-cache-size\n";
    check_against_book(text, &["tooling"], expect![[r#"
        src/session-guide.md:9: card S0.1 names quiz topic `kv-cache-size`, which quiz.toml does not define: add a [[topic]] with id = "kv-cache-size"
    "#]]);
}

#[test]
fn ladders_outside_cards_and_without_obstacles() {
    let text = format!("## Phase 1 — Paper\n\n#### Hints: nowhere\n\n{}#### Hints:\n\n1. **Point**: p\n2. **Ask**: a\n3. **Pseudocode**: c\n4. **One line**: o\n", card("S1.1", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:3: hint ladder outside a card: put it under the card's `### S1.3 — Title` heading
        src/session-guide.md:13: hint ladder has no obstacle: write `#### Hints: what the reader is stuck on`
    "#]]);
}

#[test]
fn cards_without_title_and_empty_fields() {
    let text = "## Phase 1 — Paper\n\n### S1.1 —\n\n- **Goal**: g\n- **Needs**: none\n- **Read**:\n- **Midpoint**: m\n- **Done-when**: ` `\n";
    check(text, expect![[r#"
        src/session-guide.md:3: card S1.1 has no title: write `### S1.1 — Title`
        src/session-guide.md:7: card S1.1 has an empty Read field: link the chapter sections to read
        src/session-guide.md:9: milestone card S1.1 has an empty Done-when: write the test command in backticks
    "#]]);
}

#[test]
fn cards_with_both_done_when_and_quiz() {
    let text = format!("## Phase 1 — Paper\n\n{}- **Quiz**: topic\n", card("S1.1", "none"));
    check(&text, expect![[r#"
        src/session-guide.md:11: card S1.1 has both Done-when and Quiz: a milestone ends in its test, keep only Done-when
    "#]]);
}
