//! The reader's clone as the worker sees it: its canonical root, the book's title, and the
//! sessions of the worker's own Session Guide with the argv each Done-when splits into.
//!
//! The guide is read once, at launch, from the worker's own copy of the book: a client can only
//! name a session, never supply a command, so what runs is always what the book prints.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use bookside_core::Diagnostic;
use bookside_core::wire::{MilestoneStatus, Outcome, RunEnd, RunResult, SessionInfo, TestResult};

use crate::error::ApiError;
use crate::runner::Spec;

/// The folder of milestone tests, relative to the clone root.
pub const MILESTONES: &str = "tests/milestones/";
/// The one command behind `status`: the book's "whole project" command.
pub const STATUS_COMMAND: &str = "uv run pytest tests/milestones/";
/// Longest session id worth looking at (`S12.345` is 7).
const ID_CAP: usize = 16;

#[derive(Debug)]
pub struct Clone {
    /// Canonical (symlinks resolved) root: where every command runs.
    pub root: PathBuf,
    pub title: String,
    pub sessions: Vec<Session>,
    /// What the guide parser had to say; `doctor` shows them.
    pub diagnostics: Vec<Diagnostic>,
    pub has_guide: bool,
}

#[derive(Debug, Clone)]
pub struct Session {
    pub info: SessionInfo,
    /// The Done-when split into argv, or why it cannot be run without a shell.
    pub argv: Option<Result<Vec<String>, String>>,
}

/// Reads the book at `book` (the folder with book.toml, which is also the reader's clone).
pub fn open(book: &Path) -> anyhow::Result<Clone> {
    let root = book.canonicalize().with_context(|| format!("cannot open the book folder {}: check --book", book.display()))?;
    let bundle = crate::bundle::load(&root)?;
    let book = bookside_core::book::load(&bundle);
    let (guide, diagnostics) = bookside_core::guide::load(&book, None);
    let has_guide = guide.is_some();
    let sessions = guide
        .map(|g| {
            g.cards
                .into_iter()
                .map(|card| {
                    let argv = card.done_when.as_ref().map(|d| crate::argv::split(&d.command));
                    Session {
                        info: SessionInfo {
                            runnable: matches!(argv, Some(Ok(_))),
                            id: card.id,
                            title: card.title,
                            phase: card.phase,
                            test_file: card.done_when.as_ref().and_then(|d| d.test_file.clone()),
                            done_when: card.done_when.map(|d| d.command),
                        },
                        argv,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Clone { root, title: book.title, sessions, diagnostics, has_guide })
}

impl Clone {
    /// The session a client named, and the argv to run for it. Anything that is not plainly a
    /// card id of this guide is refused before a process could start.
    pub fn runnable(&self, id: &str) -> Result<(&Session, Vec<String>), ApiError> {
        if id.len() > ID_CAP || !bookside_core::guide::is_card_id(id) {
            return Err(ApiError::BadSessionId);
        }
        let session = self.sessions.iter().find(|s| s.info.id == id).ok_or_else(|| ApiError::UnknownSession(id.to_owned()))?;
        match &session.argv {
            None => Err(ApiError::NotRunnable {
                session: id.to_owned(),
                why: "it is a read-only session; it ends in a quiz, not a test".to_owned(),
            }),
            Some(Err(why)) => Err(ApiError::NotRunnable { session: id.to_owned(), why: why.clone() }),
            Some(Ok(argv)) => Ok((session, argv.clone())),
        }
    }

    pub fn spec(&self, argv: Vec<String>, timeout: Duration) -> Spec {
        Spec { argv, cwd: self.root.clone(), timeout }
    }

    pub fn status_spec(&self, timeout: Duration) -> Spec {
        self.spec(crate::argv::split(STATUS_COMMAND).expect("the status command is plain words"), timeout)
    }

    pub fn milestones(&self) -> impl Iterator<Item = &Session> {
        self.sessions.iter().filter(|s| s.info.done_when.is_some())
    }
}

/// Every milestone's outcome from the one pytest run over `tests/milestones/`: one line per
/// milestone card (Guide order), then test files no card names. A sweep that did not report
/// leaves every milestone in error with the sweep's message.
pub fn milestone_statuses(clone: &Clone, sweep: &RunResult) -> Vec<MilestoneStatus> {
    let reported = sweep.end == RunEnd::Exited && !sweep.tests.is_empty();
    let mut claimed = vec![false; sweep.tests.len()];
    let mut statuses = Vec::new();
    for session in clone.milestones() {
        let Some(file) = &session.info.test_file else { continue };
        let stem = file.strip_suffix(".py").unwrap_or(file);
        let mine: Vec<TestResult> = sweep
            .tests
            .iter()
            .enumerate()
            .filter(|(_, t)| belongs_to(t, stem))
            .map(|(i, t)| {
                claimed[i] = true;
                t.clone()
            })
            .collect();
        let (outcome, message) = if !reported {
            (Outcome::Error, sweep.message.clone())
        } else {
            crate::junit::summarise(&mine)
                .unwrap_or((Outcome::Error, Some(format!("pytest reported no test from {file}; check that {MILESTONES}{file} exists"))))
        };
        statuses.push(MilestoneStatus { session: Some(session.info.id.clone()), test_file: file.clone(), outcome, message });
    }
    // Test files the guide does not name still count: the reader sees everything pytest saw.
    let mut orphans: Vec<(String, Vec<TestResult>)> = Vec::new();
    for (test, _) in sweep.tests.iter().zip(&claimed).filter(|(_, c)| !**c) {
        let stem = dotted(test).find(|p| p.starts_with("test_")).unwrap_or("unknown").to_owned();
        match orphans.iter_mut().find(|(s, _)| *s == stem) {
            Some((_, tests)) => tests.push(test.clone()),
            None => orphans.push((stem, vec![test.clone()])),
        }
    }
    for (stem, tests) in orphans {
        let (outcome, message) = crate::junit::summarise(&tests).unwrap_or((Outcome::Error, None));
        statuses.push(MilestoneStatus { session: None, test_file: format!("{stem}.py"), outcome, message });
    }
    statuses
}

/// pytest names a test `tests.milestones.test_m02_kv_budget` + `test_x` (or, for a file that
/// failed to import, an empty class and the module as the name).
fn dotted(test: &TestResult) -> impl Iterator<Item = &str> {
    test.classname.split('.').chain(test.name.split('.'))
}

fn belongs_to(test: &TestResult, stem: &str) -> bool {
    dotted(test).any(|part| part == stem)
}

#[cfg(test)]
mod tests {
    use bookside_core::wire::{Outcome, RunEnd, RunResult, SessionInfo, TestResult};
    use expect_test::expect;

    use super::{Clone, Session, milestone_statuses};

    fn session(id: &str, test_file: Option<&str>) -> Session {
        Session {
            info: SessionInfo {
                id: id.to_owned(),
                title: String::new(),
                phase: 1,
                done_when: test_file.map(|f| format!("uv run pytest tests/milestones/{f}")),
                test_file: test_file.map(str::to_owned),
                runnable: true,
            },
            argv: None,
        }
    }

    fn case(classname: &str, name: &str, outcome: Outcome, message: Option<&str>) -> TestResult {
        TestResult { classname: classname.to_owned(), name: name.to_owned(), outcome, message: message.map(str::to_owned) }
    }

    fn sweep(end: RunEnd, tests: Vec<TestResult>) -> RunResult {
        RunResult { outcome: Outcome::Fail, message: Some("the sweep's own message".to_owned()), end, exit_code: Some(1), truncated: false, millis: 0, tests }
    }

    fn show(clone: &Clone, sweep: &RunResult) -> String {
        milestone_statuses(clone, sweep)
            .iter()
            .map(|m| format!("{:?} {} {:?} {:?}", m.session, m.test_file, m.outcome, m.message))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn one_sweep_is_split_per_milestone_file() {
        let clone = Clone {
            root: "/clone".into(),
            title: String::new(),
            sessions: vec![
                session("S0.1", None),
                session("S1.2", Some("test_m01_model_config.py")),
                session("S1.3", Some("test_m02_kv_budget.py")),
                session("S1.4", Some("test_m03_dense_vs_moe.py")),
                session("S1.5", Some("test_m04_missing.py")),
            ],
            diagnostics: Vec::new(),
            has_guide: true,
        };
        let tests = vec![
            case("tests.milestones.test_m01_model_config", "test_m01_model_config", Outcome::Pass, None),
            case("tests.milestones.test_m02_kv_budget", "test_shape", Outcome::Pass, None),
            case("tests.milestones.test_m02_kv_budget", "test_budget", Outcome::Skip, Some("run session S1.3")),
            // A file that failed to import: pytest names the module, with no class.
            case("", "tests.milestones.test_m03_dense_vs_moe", Outcome::Fail, Some("collection failure")),
            case("tests.milestones.test_extra", "test_x", Outcome::Pass, None),
        ];
        expect![[r#"
            Some("S1.2") test_m01_model_config.py Pass None
            Some("S1.3") test_m02_kv_budget.py Skip Some("run session S1.3")
            Some("S1.4") test_m03_dense_vs_moe.py Fail Some("collection failure")
            Some("S1.5") test_m04_missing.py Error Some("pytest reported no test from test_m04_missing.py; check that tests/milestones/test_m04_missing.py exists")
            None test_extra.py Pass None"#]]
        .assert_eq(&show(&clone, &sweep(RunEnd::Exited, tests.clone())));
        expect![[r#"
            Some("S1.2") test_m01_model_config.py Error Some("the sweep's own message")
            Some("S1.3") test_m02_kv_budget.py Error Some("the sweep's own message")
            Some("S1.4") test_m03_dense_vs_moe.py Error Some("the sweep's own message")
            Some("S1.5") test_m04_missing.py Error Some("the sweep's own message")"#]]
        .assert_eq(&show(&clone, &sweep(RunEnd::TimedOut, Vec::new())));
    }
}
