//! Golden snapshots of what the Session Guide parser sees over the sample book and the fixture
//! books (`UPDATE_EXPECT=1 cargo test -p bookside-core --test guide_golden`).

mod book_support;

use expect_test::expect_file;

fn dump(name: &std::path::Path) -> (String, Vec<String>) {
    let (_, guide, diags) = book_support::load(name);
    let guide = guide.expect("the book has a Session Guide");
    (book_support::dump_guide(&guide), diags.iter().map(ToString::to_string).collect())
}

#[test]
fn sample_book_guide() {
    let (text, diags) = dump(&book_support::sample_book());
    expect_file!["fixtures/books/sample.guide.txt"].assert_eq(&text);
    assert_eq!(diags, Vec::<String>::new(), "the sample book's guide must check clean");
}

#[test]
fn full_fixture_guide() {
    let (text, diags) = dump(&book_support::fixture("full"));
    expect_file!["fixtures/books/full.guide.txt"].assert_eq(&text);
    // The one deliberate finding: an unknown field, kept and reported.
    assert_eq!(diags, vec!["src/session-guide.md:27: card S1.1 has an unknown field `Estimate`; it is kept but unused (known fields: Goal, Needs, Read, Midpoint, Done-when, Quiz, Themes, Remediation)"]);
}

#[test]
fn card_errors_fixture() {
    let (book, guide, diags) = book_support::load(&book_support::fixture("card-errors"));
    let mut all: Vec<String> = book.diagnostics.iter().map(ToString::to_string).collect();
    all.extend(diags.iter().map(ToString::to_string));
    expect_file!["fixtures/books/card-errors.diagnostics.txt"].assert_eq(&(all.join("\n") + "\n"));
    // The guide was found by its cards (book.toml names none) and still read whole.
    let guide = guide.expect("found by its cards");
    assert_eq!(guide.file, "src/guide.md");
    assert_eq!(guide.cards.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["S1.1", "S1.1", "S1.3", "S1.4", "S1.5"]);
}
