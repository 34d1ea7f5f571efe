//! Laws of the Session Guide parser over generated guides salted with hostile text.

use bookside_core::guide;
use proptest::prelude::*;

/// A line a hand-written guide might hold, hostile ones included.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u8..4, 0u8..9, "[ -~]{0,12}").prop_map(|(p, n, t)| format!("### S{p}.{n} — {t}")),
        (0u8..4, "[ -~]{0,12}").prop_map(|(p, t)| format!("## Phase {p} — {t}")),
        (prop::sample::select(vec!["Goal", "Needs", "Read", "Midpoint", "Done-when", "Quiz", "Themes", "Remediation", "Other"]), "[ -~]{0,20}")
            .prop_map(|(f, v)| format!("- **{f}**: {v}")),
        (1u8..6, prop::sample::select(vec!["Point", "Ask", "Pseudocode", "One line", "Nope"]), "[ -~]{0,12}").prop_map(|(i, r, t)| format!("{i}. **{r}**: {t}")),
        "[ -~]{0,12}".prop_map(|t| format!("#### Hints: {t}")),
        prop::sample::select(vec!["```", "~~~", "", "   continued", "# Title", "---", "\r", "[^1]: x", "`", "**", "- [S1.1](#x); notebook `a.ipynb` cells 3–1"]).prop_map(str::to_owned),
        "\\PC{0,30}",
    ]
}

proptest! {
    #[test]
    fn cards_and_diagnostics_point_at_real_lines(lines in prop::collection::vec(line(), 0..60), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let (parsed, diags) = guide::parse("src/guide.md", &text);
        let source: Vec<&str> = text.split('\n').collect();
        for d in &diags {
            prop_assert!(d.line >= 1 && d.line <= source.len(), "{d} is outside the file");
            prop_assert_eq!(&d.file, "src/guide.md");
        }
        // Every card's line is its heading, every field's line starts with its name.
        for card in &parsed.cards {
            let heading = source[card.line - 1];
            prop_assert!(heading.starts_with("### ") && heading.contains(card.id.as_str()), "card {} at {heading:?}", card.id);
            for field in &card.fields {
                prop_assert!(source[field.line - 1].contains(&format!("**{}", field.name)), "field {} at line {}", field.name, field.line);
            }
        }
        // Guide order is file order.
        prop_assert!(parsed.cards.windows(2).all(|w| w[0].line < w[1].line));
        // Parsing is a function of the text alone.
        prop_assert_eq!(guide::parse("src/guide.md", &text), (parsed, diags));
    }
}
