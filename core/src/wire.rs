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

/// What one run of a session's Done-when command (or a read-only session's quiz) came to.
///
/// The milestone tests have exactly three behaviours (skip, fail, pass); `Error` is for a run
/// that could not happen at all (command missing, crashed before pytest reported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
    Error,
}

/// Who vouches for a recorded run: the worker ran it, or the reader said so.
///
/// Gates accept self-reported results but always label them; they are never shown as verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunSource {
    Verified,
    SelfReported,
}

/// One recorded Done-when run: which session, what came out, who vouches, and when
/// (unix seconds, so the record sorts and compares the same everywhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub session: String,
    pub outcome: Outcome,
    pub source: RunSource,
    pub at_unix: i64,
}
