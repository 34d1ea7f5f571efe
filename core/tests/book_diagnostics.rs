//! One test per book-loader diagnostic (book.toml, SUMMARY.md, chapter files), with file and line.

use bookside_core::book;
use bookside_core::wire::BookBundle;
use expect_test::{Expect, expect};

fn bundle(files: &[(&str, &str)]) -> BookBundle {
    let mut bundle = BookBundle::default();
    for (path, text) in files {
        bundle.files.insert((*path).to_owned(), (*text).to_owned());
    }
    bundle
}

const TOML: &str = "[book]\ntitle = \"T\"\n";

fn check(files: &[(&str, &str)], expect: Expect) {
    let loaded = book::load(&bundle(files));
    expect.assert_eq(&loaded.diagnostics.iter().map(|d| format!("{d}\n")).collect::<String>());
}

#[test]
fn a_clean_book_has_no_diagnostics() {
    check(&[("book.toml", TOML), ("src/SUMMARY.md", "# Summary\n\n- [A](a.md)\n"), ("src/a.md", "# A\n")], expect![[""]]);
}

#[test]
fn missing_book_toml_and_summary() {
    check(&[], expect![[r#"
        book.toml: the book has no book.toml: add one with [book] title = "…"
        src/SUMMARY.md: the book has no SUMMARY.md: list its chapters there
    "#]]);
}

#[test]
fn book_toml_without_title_or_not_toml() {
    check(&[("book.toml", "[book]\nauthors = []\n"), ("src/SUMMARY.md", "")], expect![[r#"
        book.toml: book.toml has no title: add `title = "…"` under [book]
    "#]]);
    let loaded = book::load(&bundle(&[("book.toml", "[book]\ntitle = \"T\"\nsrc = = 3\n"), ("src/SUMMARY.md", "")]));
    assert_eq!(loaded.title, "T", "what parses is kept");
    assert_eq!(loaded.diagnostics.len(), 1, "{:?}", loaded.diagnostics);
    assert_eq!((loaded.diagnostics[0].file.as_str(), loaded.diagnostics[0].line), ("book.toml", 3));
    assert_eq!(loaded.diagnostics[0].message, "book.toml is not valid TOML (extra `=`, expected nothing): fix this line");
}

#[test]
fn missing_chapter_files() {
    check(&[("book.toml", TOML), ("src/SUMMARY.md", "[Intro](intro.md)\n\n- [A](a.md)\n")], expect![[r#"
        src/SUMMARY.md:1: chapter file src/intro.md is missing: create it or fix the link
        src/SUMMARY.md:3: chapter file src/a.md is missing: create it or fix the link
    "#]]);
}

#[test]
fn malformed_lines() {
    check(&[("book.toml", TOML), ("src/SUMMARY.md", "# Summary\n\nJust some prose\n- A chapter without a link\n## Small part\n- [A](a.md)\n"), ("src/a.md", "")], expect![[r#"
        src/SUMMARY.md:3: line is not a chapter link, a part title or a separator: write `[Title](file.md)` or `- [Title](file.md)`
        src/SUMMARY.md:4: list item is not a chapter link: write `- [Title](file.md)`, or `- [Title]()` for a draft
        src/SUMMARY.md:5: `##` heading in SUMMARY.md: a part title is a level-1 heading, `# Small part`
    "#]]);
}

#[test]
fn chapters_listed_twice() {
    check(&[("book.toml", TOML), ("src/SUMMARY.md", "- [A](a.md)\n- [A again](./a.md)\n"), ("src/a.md", "")], expect![[r#"
        src/SUMMARY.md:2: a.md is listed twice (first at line 1): list each chapter once
    "#]]);
}

#[test]
fn lists_and_parts_after_the_suffix_chapters() {
    check(
        &[("book.toml", TOML), ("src/SUMMARY.md", "- [A](a.md)\n\n[End](end.md)\n\n# Late part\n- [B](b.md)\n"), ("src/a.md", ""), ("src/end.md", ""), ("src/b.md", "")],
        expect![[r#"
            src/SUMMARY.md:5: a part title after the suffix chapters: move it above them or make the suffix chapters list items
            src/SUMMARY.md:6: a numbered chapter after the suffix chapters: make it a plain link or move it above them
        "#]],
    );
}

#[test]
fn prefix_and_suffix_drafts_are_allowed_as_in_mdbook() {
    let loaded = book::load(&bundle(&[("book.toml", TOML), ("src/SUMMARY.md", "[Soon]()\n- [A](a.md)\n[Later]()\n"), ("src/a.md", "")]));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let drafts: Vec<&str> = loaded.toc.iter().filter(|t| t.is_draft()).map(|t| t.title.as_str()).collect();
    assert_eq!(drafts, ["Soon", "Later"]);
}

#[test]
fn configured_guide_that_is_not_a_chapter() {
    check(&[("book.toml", "[book]\ntitle = \"T\"\n\n[bookside]\nguide = \"guide.md\"\n"), ("src/SUMMARY.md", "- [A](a.md)\n"), ("src/a.md", "")], expect![[r#"
        book.toml:5: [bookside] guide names guide.md, which is not a chapter in SUMMARY.md: fix the path or list the chapter
    "#]]);
}

#[test]
fn a_custom_source_folder_is_honoured() {
    let loaded = book::load(&bundle(&[("book.toml", "[book]\ntitle = \"T\"\nsrc = \"text\"\n"), ("text/SUMMARY.md", "- [A](a.md)\n"), ("text/a.md", "# A\n")]));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.chapters[0].path, "a.md");
    assert_eq!(loaded.src, "text");
}

#[test]
fn a_book_without_a_guide_says_so() {
    let loaded = book::load(&bundle(&[("book.toml", TOML), ("src/SUMMARY.md", "- [A](a.md)\n"), ("src/a.md", "# A\n")]));
    assert_eq!(loaded.guide, None);
    let (guide, diags) = bookside_core::guide::load(&loaded, None);
    assert!(guide.is_none());
    assert_eq!(diags.iter().map(ToString::to_string).collect::<Vec<_>>(), ["src/SUMMARY.md: the book has no Session Guide: add a chapter with `### S0.1 — Title` cards to SUMMARY.md"]);
}
