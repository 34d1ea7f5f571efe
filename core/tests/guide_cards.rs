//! What the Session Guide parser reads from a card: every field, in the shapes authors write.

use bookside_core::guide::{self, Guide};
use expect_test::expect;

/// The card example of docs/FORMATS.md: authors copy it, so it must parse without a finding.
fn formats_example() -> String {
    let doc = include_str!("../../docs/FORMATS.md");
    let section = doc.split("## Session cards").nth(1).expect("FORMATS.md has a Session cards section");
    let block = section.split("```markdown\n").nth(1).expect("the section has a markdown example");
    block.split("\n```").next().unwrap().to_owned()
}

#[test]
fn the_documented_example_parses_clean() {
    let (guide, diags) = guide::parse("src/session-guide.md", &formats_example());
    // The example's Needs names S1.2, a card the one-card excerpt cannot hold: the only finding.
    let messages: Vec<String> = diags.iter().map(ToString::to_string).collect();
    assert_eq!(messages, vec!["src/session-guide.md:7: card S1.3 needs S1.2, which is not in the guide: fix the id or add the card"]);
    assert_eq!(guide.cards.len(), 1);
    expect![[r#"
        Guide {
            file: "src/session-guide.md",
            phases: [
                Phase {
                    number: 1,
                    title: "Design the model on paper",
                    line: 1,
                },
            ],
            cards: [
                Card {
                    id: "S1.3",
                    title: "KV-cache budget",
                    phase: 1,
                    phase_title: "Design the model on paper",
                    line: 3,
                    goal: "Size the key/value cache for your model and pick the number of KV heads that fits the memory budget. You leave with a config whose cache you can defend with arithmetic.",
                    needs: [
                        "S1.2",
                    ],
                    read: [
                        Chapter {
                            text: "What the cache stores",
                            path: "kv-cache.md",
                            anchor: Some(
                                "what-the-cache-stores",
                            ),
                        },
                        Chapter {
                            text: "MQA and GQA",
                            path: "kv-cache.md",
                            anchor: Some(
                                "mqa-and-gqa",
                            ),
                        },
                        Notebook {
                            path: "notebooks/kv_cache.ipynb",
                            cells: None,
                        },
                    ],
                    midpoint: "bytes per token computed for MHA and for one GQA choice",
                    done_when: Some(
                        DoneWhen {
                            command: "uv run pytest tests/milestones/test_m02_kv_budget.py",
                            test_file: Some(
                                "test_m02_kv_budget.py",
                            ),
                        },
                    ),
                    quiz: [],
                    themes: [
                        "per-head vs per-layer cache sizing",
                        "bytes per element",
                    ],
                    remediation: None,
                    hints: [
                        HintLadder {
                            obstacle: "the cache still blows the budget",
                            line: 13,
                            rungs: [
                                Rung {
                                    kind: Some(
                                        Point,
                                    ),
                                    text: "the formula is in [What the cache stores](kv-cache.md#what-the-cache-stores); check which factors are per layer and which are per head.",
                                    line: 15,
                                },
                                Rung {
                                    kind: Some(
                                        Ask,
                                    ),
                                    text: "did you compute `head_dim` from `n_heads` or from `n_kv_heads`?",
                                    line: 17,
                                },
                                Rung {
                                    kind: Some(
                                        Pseudocode,
                                    ),
                                    text: "bytes = 2 × layers × kv_heads × head_dim × bytes_per_element × tokens",
                                    line: 18,
                                },
                                Rung {
                                    kind: Some(
                                        OneLine,
                                    ),
                                    text: "`head_dim = d_model // n_heads`",
                                    line: 19,
                                },
                            ],
                        },
                    ],
                    fields: [],
                    unknown: [],
                },
            ],
        }
    "#]]
    .assert_debug_eq(&without_raw_fields(guide));
}

/// The raw field list repeats the typed fields; the golden tests look at the typed ones.
fn without_raw_fields(mut guide: Guide) -> Guide {
    for card in &mut guide.cards {
        card.fields.clear();
    }
    guide
}

#[test]
fn the_documented_read_only_example_parses_clean() {
    let doc = include_str!("../../docs/FORMATS.md");
    let section = doc.split("## Session cards").nth(1).unwrap();
    let block = section.split("```markdown\n").nth(2).expect("a second, read-only example").split("\n```").next().unwrap();
    let (guide, diags) = guide::parse("src/session-guide.md", block);
    assert_eq!(diags, vec![]);
    assert_eq!(guide.cards[0].kind(), guide::CardKind::ReadOnly);
    assert_eq!(guide.cards[0].quiz, ["session-protocol"]);
}

#[test]
fn hand_written_variants_read_the_same() {
    let text = "## Phase 0: Tools\r\n\r\n### S0.2 – Python and uv\r\n\r\n\
                * **Goal:** Install the tools.\r\n  Run them once.\r\n\
                * **Needs**: [S0.1](#s01--welcome)\r\n\
                * **Read**: [Tooling](./tooling.md) ; notebook `nb/setup.ipynb`\r\n\
                * **Midpoint**: uv installed\r\n\
                * **Quiz**: `tooling`, uv-basics\r\n\
                * **Remediation**: none\r\n";
    let (guide, diags) = guide::parse("src/session-guide.md", text);
    let card = &guide.cards[0];
    assert_eq!((card.id.as_str(), card.title.as_str(), card.phase, card.phase_title.as_str()), ("S0.2", "Python and uv", 0, "Tools"));
    assert_eq!(card.goal, "Install the tools. Run them once.");
    assert_eq!(card.needs, vec!["S0.1"]);
    assert_eq!(card.quiz, vec!["tooling", "uv-basics"]);
    assert_eq!(card.remediation, None);
    assert_eq!(card.kind(), guide::CardKind::ReadOnly);
    assert_eq!(
        card.read,
        vec![
            guide::ReadItem::Chapter { text: "Tooling".into(), path: "tooling.md".into(), anchor: None },
            guide::ReadItem::Notebook { path: "nb/setup.ipynb".into(), cells: None },
        ]
    );
    // S0.1 is not in this guide: the only finding.
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].line, 7);
}

#[test]
fn headings_inside_code_blocks_are_not_cards() {
    let text = "## Phase 1 — Paper\n\n```markdown\n### S1.1 — Not a card\n```\n\n~~~\n## Phase 9\n~~~\n";
    let (guide, diags) = guide::parse("g.md", text);
    assert!(guide.cards.is_empty());
    assert_eq!(guide.phases.len(), 1);
    assert!(diags.is_empty(), "{diags:?}");
}
