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

// ---------------------------------------------------------------------------------------------
// The worker's HTTP API (docs/API.md). Every body below is JSON; the worker is the only writer.
// ---------------------------------------------------------------------------------------------

/// `GET /api/health`: the worker is up, which build it is, and which clone it runs in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Always `bookside`, so a client can tell it reached the right program.
    pub name: String,
    pub version: String,
    /// The book's title from book.toml.
    pub book: String,
    /// The canonical path of the reader's clone, where Done-when commands run.
    pub clone: String,
}

/// `GET /api/sessions`: the cards of the worker's own Session Guide, in Guide order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionList {
    pub sessions: Vec<SessionInfo>,
}

/// One card as the worker sees it: enough to offer a run, nothing the app must trust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub phase: u32,
    /// The Done-when command exactly as printed; `None` for read-only cards.
    pub done_when: Option<String>,
    /// The milestone test file the command runs (`test_m02_kv_budget.py`).
    pub test_file: Option<String>,
    /// Whether the worker can run `done_when`: it splits into argv without a shell.
    pub runnable: bool,
}

/// `POST /api/runs`: the only thing a client may say about a run is which session it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    pub session: String,
}

/// `202 Accepted` answer to `POST /api/runs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStarted {
    pub run: String,
    pub session: String,
    /// The command being run, exactly as the card prints it.
    pub command: String,
    /// Where the output and the outcome stream (server-sent events).
    pub events: String,
}

/// Whether a run is still going.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Running,
    Finished,
}

/// `GET /api/runs/{id}`: a run's output so far and, once finished, its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSnapshot {
    pub run: String,
    pub session: String,
    pub command: String,
    pub state: RunState,
    pub output: String,
    pub truncated: bool,
    pub result: Option<RunResult>,
}

/// How a run's process came to an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunEnd {
    /// The command exited by itself.
    Exited,
    /// The command ran past the time limit; its process group was killed.
    TimedOut,
    /// Someone cancelled the run; its process group was killed.
    Cancelled,
    /// The command could not be started at all.
    NotStarted,
}

/// The final word on one run. `outcome` and `message` come from pytest's junit report when there
/// is one; `message` is the skip reason, the failure message, or what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    pub outcome: Outcome,
    pub message: Option<String>,
    pub end: RunEnd,
    /// The command's exit code; `None` when it was killed by a signal or never started.
    pub exit_code: Option<i32>,
    /// The output passed the per-run cap and the rest was dropped.
    pub truncated: bool,
    pub millis: u64,
    /// Every test case pytest reported, in report order.
    pub tests: Vec<TestResult>,
}

/// One pytest test case from the junit report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    /// Dotted module path and class, as pytest reports it (`tests.milestones.test_m02_kv_budget`).
    pub classname: String,
    pub name: String,
    pub outcome: Outcome,
    pub message: Option<String>,
}

/// Data of an `output` server-sent event: the next piece of the run's combined stdout and stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputChunk {
    pub text: String,
}

/// `GET /api/status`: every milestone's outcome from one pytest process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusReport {
    pub milestones: Vec<MilestoneStatus>,
    /// The pytest run behind the report (its tests, exit code and any problem).
    pub run: RunResult,
}

/// One milestone test file and what it came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MilestoneStatus {
    /// The card whose Done-when runs this file, when the guide has one.
    pub session: Option<String>,
    pub test_file: String,
    pub outcome: Outcome,
    pub message: Option<String>,
}

/// `GET /api/doctor`: can this machine run the clone's Done-when commands?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorReport {
    pub ok: bool,
    pub checks: Vec<DoctorCheck>,
}

/// One self-check: what was looked at, what was found, and how to fix it when it is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorCheck {
    pub name: String,
    pub ok: bool,
    pub detail: String,
    pub fix: Option<String>,
}

/// The body of every error answer from the worker's API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorBody {
    /// A stable, kebab-case name for the kind of error (`bad-host`, `busy`, ...).
    pub error: String,
    /// What went wrong and what to do next, for people.
    pub message: String,
    /// For `busy`: the id of the run that holds the clone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<String>,
}

/// The spaced-repetition queue as the app keeps it in the browser's storage (JSON in IndexedDB).
/// [`StoredQueue::from_queue`] and [`StoredQueue::to_queue`] convert to and from
/// `engine::review::Queue` without loss (floats print and parse back exactly).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredQueue {
    pub items: Vec<StoredItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredItem {
    /// `question` (a missed quiz question) or `sticking-point`.
    pub kind: String,
    /// The question key, or the normalised concept.
    pub key: String,
    /// The question's topic, or the session the Sticking point came from.
    pub about: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_day: Option<i64>,
    pub due_day: i64,
    pub reps: u32,
    pub lapses: u32,
}

impl StoredQueue {
    pub fn from_queue(queue: &crate::engine::review::Queue) -> StoredQueue {
        use crate::engine::review::Subject;
        let items = queue
            .items
            .iter()
            .map(|i| {
                let (kind, key, about) = match &i.subject {
                    Subject::Question { key, topic } => ("question", key, topic),
                    Subject::StickingPoint { concept, session } => ("sticking-point", concept, session),
                };
                StoredItem {
                    kind: kind.to_owned(),
                    key: key.clone(),
                    about: about.clone(),
                    stability: i.memory.map(|m| m.stability),
                    difficulty: i.memory.map(|m| m.difficulty),
                    last_day: i.last_day,
                    due_day: i.due_day,
                    reps: i.reps,
                    lapses: i.lapses,
                }
            })
            .collect();
        StoredQueue { items }
    }

    /// The queue; items of an unknown kind (written by a newer version) are left out.
    pub fn to_queue(&self) -> crate::engine::review::Queue {
        use crate::engine::review::{Item, Memory, Queue, Subject};
        let items = self
            .items
            .iter()
            .filter_map(|s| {
                let subject = match s.kind.as_str() {
                    "question" => Subject::Question { key: s.key.clone(), topic: s.about.clone() },
                    "sticking-point" => Subject::StickingPoint { concept: s.key.clone(), session: s.about.clone() },
                    _ => return None,
                };
                let memory = match (s.stability, s.difficulty) {
                    (Some(stability), Some(difficulty)) => Some(Memory { stability, difficulty }),
                    _ => None,
                };
                Some(Item { subject, memory, last_day: s.last_day, due_day: s.due_day, reps: s.reps, lapses: s.lapses })
            })
            .collect();
        Queue { items }
    }
}

/// A quiz attempt as the app keeps it while it is taken, so a reload loses no answer. The
/// questions are not stored: `quiz::generate` rebuilds them from the seed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredQuiz {
    /// The quiz topics, in order.
    pub topics: Vec<String>,
    pub seed: u64,
    pub per_topic: u32,
    /// One per question reached, in order.
    pub answers: Vec<StoredAnswer>,
    /// The question on screen (`answers.len()` or less).
    pub at: u32,
    /// The reader reached the score screen (and the misses went into the review queue).
    pub finished: bool,
    /// The question keys of the attempt before this one, so a new attempt can avoid them.
    #[serde(default)]
    pub previous_keys: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAnswer {
    /// What the reader typed (numeric questions, or their own explanation on explain questions).
    pub text: String,
    /// The option picked on a choice question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<u32>,
    /// The reader's own verdict on an explain question, after the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_marked: Option<bool>,
    /// Why they think so, written before the reveal.
    pub explanation: String,
    pub revealed: bool,
}
