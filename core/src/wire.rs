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

/// A diagnostic as scripts read it (`bookside guide --json`, `bookside check --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireDiagnostic {
    pub file: String,
    /// 1-based; 0 means the file as a whole.
    pub line: usize,
    pub message: String,
}

impl From<&crate::diag::Diagnostic> for WireDiagnostic {
    fn from(d: &crate::diag::Diagnostic) -> WireDiagnostic {
        WireDiagnostic { file: d.file.clone(), line: d.line, message: d.message.clone() }
    }
}

/// What `bookside guide --json` prints: the Session Guide's cards and every finding about the
/// book and the guide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuideReport {
    /// The book's title from book.toml.
    pub book: String,
    /// Bundle path of the guide chapter (`src/session-guide.md`), if the book has one.
    pub guide: Option<String>,
    pub cards: Vec<CardSummary>,
    pub diagnostics: Vec<WireDiagnostic>,
}

/// One card of the Session Guide, as scripts need it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardSummary {
    pub id: String,
    pub title: String,
    pub phase: u32,
    pub phase_title: String,
    pub kind: CardKindWire,
    /// Line of the card's heading in the guide chapter.
    pub line: usize,
    pub needs: Vec<String>,
    /// Chapter links as `path#anchor` (relative to the book's source folder), notebooks as
    /// `notebook:path` with `cells` when given.
    pub read: Vec<String>,
    pub midpoint: String,
    /// The Done-when command exactly as printed on the card.
    pub done_when: Option<String>,
    /// The milestone test file the command runs (`test_m02_kv_budget.py`).
    pub test_file: Option<String>,
    pub quiz: Vec<String>,
    pub themes: Vec<String>,
    pub remediation: Option<String>,
    /// The obstacles that have a hint ladder.
    pub hints: Vec<String>,
}

/// A card's kind on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardKindWire {
    Milestone,
    ReadOnly,
    Unknown,
}

impl From<&crate::guide::Card> for CardSummary {
    fn from(card: &crate::guide::Card) -> CardSummary {
        use crate::guide::{CardKind, ReadItem};
        CardSummary {
            id: card.id.clone(),
            title: card.title.clone(),
            phase: card.phase,
            phase_title: card.phase_title.clone(),
            kind: match card.kind() {
                CardKind::Milestone => CardKindWire::Milestone,
                CardKind::ReadOnly => CardKindWire::ReadOnly,
                CardKind::Unknown => CardKindWire::Unknown,
            },
            line: card.line,
            needs: card.needs.clone(),
            read: card
                .read
                .iter()
                .map(|item| match item {
                    ReadItem::Chapter { path, anchor: Some(anchor), .. } => format!("{path}#{anchor}"),
                    ReadItem::Chapter { path, anchor: None, .. } => path.clone(),
                    ReadItem::Notebook { path, cells: Some((a, b)) } => format!("notebook:{path} cells {a}-{b}"),
                    ReadItem::Notebook { path, cells: None } => format!("notebook:{path}"),
                    ReadItem::Other(text) => text.clone(),
                })
                .collect(),
            midpoint: card.midpoint.clone(),
            done_when: card.done_when.as_ref().map(|d| d.command.clone()),
            test_file: card.done_when.as_ref().and_then(|d| d.test_file.clone()),
            quiz: card.quiz.clone(),
            themes: card.themes.clone(),
            remediation: card.remediation.clone(),
            hints: card.hints.iter().map(|h| h.obstacle.clone()).collect(),
        }
    }
}
