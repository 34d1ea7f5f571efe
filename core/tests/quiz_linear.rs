//! The quiz bank parser finds each key's line for its diagnostics; that lookup must not rescan
//! the file from the top (it once did, and a large bank parsed in quadratic time).

mod book_support;

use book_support::assert_linear;
use bookside_core::quiz;

#[test]
fn a_large_quiz_bank_parses_in_linear_time() {
    assert_linear(
        "quiz bank",
        |k| {
            let mut text = String::new();
            for i in 0..100 * k {
                text.push_str(&format!(
                    "[[topic]]\nid = \"t{i}\"\ntitle = \"Topic {i}\"\n\n[[topic.numeric]]\nprompt = \"{{a}} plus {{b}}?\"\nparams = {{ a = [1, 2, 3, 4, 5], b = [6, 7, 8, 9, 10] }}\nanswer = \"a + b\"\nunit = \"things\"\ntolerance = 0\nwhy = \"Addition.\"\n\n[[topic.choice]]\nprompt = \"Pick one\"\ncorrect = [\"yes\"]\nwrong = [\"no\", \"maybe\", \"never\"]\noptions = 3\nwhy = \"Because.\"\n\n"
                ));
            }
            text
        },
        |text| {
            let (bank, diags) = quiz::parse_quiz("quiz.toml", text);
            assert!(diags.is_empty(), "the generated bank is valid: {:?}", diags.first());
            std::hint::black_box(bank);
        },
    );
}
