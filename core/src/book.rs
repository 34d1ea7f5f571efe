//! The book: `book.toml` and `src/SUMMARY.md` read into a table of contents.
//!
//! Walking-skeleton version: title and the linked chapters of SUMMARY.md. The full mdBook
//! grammar (parts, drafts, prefix/suffix chapters) and chapter rendering live here too.

use crate::wire::BookBundle;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    pub title: String,
    pub toc: Vec<TocItem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocItem {
    pub title: String,
    /// Path relative to `src/`, e.g. `ch01-tokens.md`.
    pub path: String,
    pub depth: usize,
}

/// Reads the title from `book.toml` and the chapter list from `src/SUMMARY.md`.
pub fn load(bundle: &BookBundle) -> Book {
    let title = bundle.get("book.toml").and_then(book_title).unwrap_or_else(|| "Untitled".to_owned());
    let toc = bundle.get("src/SUMMARY.md").map(parse_summary).unwrap_or_default();
    Book { title, toc }
}

fn book_title(toml: &str) -> Option<String> {
    toml.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("title")?.trim_start().strip_prefix('=')?.trim();
        Some(rest.trim_matches('"').to_owned())
    })
}

/// Every `[title](path)` link of SUMMARY.md, with its list nesting depth.
pub fn parse_summary(text: &str) -> Vec<TocItem> {
    text.lines()
        .filter_map(|line| {
            let indent = line.len() - line.trim_start().len();
            let rest = line.trim_start().trim_start_matches(['-', '*']).trim_start();
            let rest = rest.strip_prefix('[')?;
            let (title, rest) = rest.split_once("](")?;
            let (path, _) = rest.split_once(')')?;
            Some(TocItem { title: title.to_owned(), path: path.to_owned(), depth: indent / 2 })
        })
        .collect()
}
