//! Golden snapshots of what the book loader sees: the sample book and a book with every
//! SUMMARY.md construct (`UPDATE_EXPECT=1 cargo test -p bookside-core --test book_golden`).

mod book_support;

use expect_test::expect_file;

#[test]
fn sample_book() {
    let (book, _, _) = book_support::load(&book_support::sample_book());
    expect_file!["fixtures/books/sample.book.txt"].assert_eq(&book_support::dump_book(&book));
    assert!(book.diagnostics.is_empty(), "the sample book must load clean: {:?}", book.diagnostics);
}

#[test]
fn every_summary_construct() {
    let (book, _, _) = book_support::load(&book_support::fixture("full"));
    expect_file!["fixtures/books/full.book.txt"].assert_eq(&book_support::dump_book(&book));
    assert!(book.diagnostics.is_empty(), "the full fixture must load clean: {:?}", book.diagnostics);
}
