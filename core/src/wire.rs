//! The types that cross the wire between the app, the worker and static hosting.
//!
//! Only these derive serde; the domain types stay plain so they can change freely.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Every text file of a book that the companion reads, keyed by its path relative to the book
/// root with `/` separators (`book.toml`, `src/SUMMARY.md`, `src/ch01.md`, ...).
///
/// The worker builds it from disk and serves it as `/book.json`; `cargo xtask dist` writes the
/// same file for static hosting. The app parses it with the same core functions as the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookBundle {
    pub files: BTreeMap<String, String>,
}

impl BookBundle {
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }
}
