//! Gates: mechanical checks over log, guide, profile and recorded runs.
//!
//! Each gate is named, checks one rule, and points at the entry (its heading line) or the field
//! line it is about. `bookside check` prints the report; the app shows the same one.
//!
//! | gate                 | fires when                                                              |
//! |----------------------|-------------------------------------------------------------------------|
//! | `entry-parses`       | the PROGRESS.md parser reported something (each of its diagnostics)    |
//! | `session-exists`     | an entry names a session the Session Guide has no card for             |
//! | `needs-done-before`  | a DONE/PARTIAL entry comes before a DONE entry of one of its Needs     |
//! | `done-is-green`      | a DONE entry's Done-when is ❌, is missing with no green run on record, |
//! |                      | or says ✅ while the latest verified run did not pass                   |
//! | `rung-within-cap`    | a Sticking point's rung is above the profile's hint cap (or not 1–4)    |
//! | `date-not-in-future` | an entry is dated after today                                          |
//! | `log-in-order`       | an entry is dated before an entry above it                              |
//! | `next-is-real`       | a Next field names no session, or one that is not a card               |
//! | `partial-resumed`    | a PARTIAL entry is followed by another session's entry, not its resume  |
//!
//! Self-reported results (a ✅ the reader wrote, with no verified run behind it) pass the
//! `done-is-green` gate but are listed in [`GateReport::self_reported`], so they are always
//! labelled and never shown as verified.

use std::collections::BTreeSet;

use crate::diag::Diagnostic;
use crate::engine::locate::latest_outcome;
use crate::guide::Guide;
use crate::progress::{Date, Entry, Mark, ProgressLog, Status};
use crate::wire::{Outcome, RunRecord, RunSource};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gate {
    EntryParses,
    SessionExists,
    NeedsDoneBefore,
    DoneIsGreen,
    RungWithinCap,
    DateNotInFuture,
    LogInOrder,
    NextIsReal,
    PartialResumed,
}

impl Gate {
    pub const ALL: [Gate; 9] = [
        Gate::EntryParses,
        Gate::SessionExists,
        Gate::NeedsDoneBefore,
        Gate::DoneIsGreen,
        Gate::RungWithinCap,
        Gate::DateNotInFuture,
        Gate::LogInOrder,
        Gate::NextIsReal,
        Gate::PartialResumed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Gate::EntryParses => "entry-parses",
            Gate::SessionExists => "session-exists",
            Gate::NeedsDoneBefore => "needs-done-before",
            Gate::DoneIsGreen => "done-is-green",
            Gate::RungWithinCap => "rung-within-cap",
            Gate::DateNotInFuture => "date-not-in-future",
            Gate::LogInOrder => "log-in-order",
            Gate::NextIsReal => "next-is-real",
            Gate::PartialResumed => "partial-resumed",
        }
    }
}

/// One gate's finding about one entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub line: usize,
    pub gate: Gate,
    /// The session of the entry it is about (empty when the entry names none).
    pub session: String,
    pub message: String,
}

/// A DONE entry whose green result only the reader vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfReported {
    pub line: usize,
    pub session: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateReport {
    /// Sorted by line, then gate.
    pub findings: Vec<Finding>,
    pub self_reported: Vec<SelfReported>,
}

impl GateReport {
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// The gates that fired.
    pub fn fired(&self) -> BTreeSet<Gate> {
        self.findings.iter().map(|f| f.gate).collect()
    }

    /// The report as `bookside check` prints it: one line per finding, `FILE:LINE: gate: message`,
    /// then one `note` line per self-reported result.
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        for f in &self.findings {
            out += &format!("{file}:{}: {}: {}\n", f.line, f.gate.name(), f.message);
        }
        for s in &self.self_reported {
            out += &format!("{file}:{}: note: {}'s green Done-when is self-reported: no verified run on record\n", s.line, s.session);
        }
        out
    }
}

/// What the gates read.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub guide: &'a Guide,
    pub log: &'a ProgressLog,
    /// The PROGRESS.md parser's diagnostics for this log.
    pub log_diagnostics: &'a [Diagnostic],
    /// Recorded Done-when runs: verified ones from the worker, self-reported ones from the app.
    pub runs: &'a [RunRecord],
    /// The profile's hint cap (4 by default, 3 in hard mode).
    pub hint_cap: u8,
    pub phase0_skipped: bool,
    /// The reader's local date today.
    pub today: Date,
}

pub fn check(input: &Input<'_>) -> GateReport {
    let mut findings = Vec::new();
    let mut self_reported = Vec::new();
    let Input { guide, log, runs, .. } = *input;
    let card = |id: &str| guide.cards.iter().find(|c| c.id == id);
    let entry_at = |line: usize| log.entries.iter().rev().find(|e| e.line <= line);
    let mut push = |gate: Gate, line: usize, session: &str, message: String| {
        findings.push(Finding { line, gate, session: session.to_owned(), message });
    };

    for d in input.log_diagnostics {
        let session = entry_at(d.line).map_or("", |e| e.session());
        push(Gate::EntryParses, d.line, session, d.message.clone());
    }

    let phase0 = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        s.starts_with("s0") || s == "phase 0" || s == "p0"
    };
    let mut latest_date: Option<(Date, usize)> = None;
    for (k, e) in log.entries.iter().enumerate() {
        let earlier = &log.entries[..k];
        let later = &log.entries[k + 1..];
        let this = card(e.session());

        // session-exists
        if !e.session().is_empty() && this.is_none() && !(e.status == Some(Status::Skipped) && phase0(e.session())) {
            push(
                Gate::SessionExists,
                e.line,
                e.session(),
                format!("session `{}` is not a card of the Session Guide: check the id (cards look like S1.3)", e.session()),
            );
        }

        // needs-done-before
        if let Some(c) = this
            && matches!(e.status, Some(Status::Done | Status::Partial))
        {
            let skipped_before = input.phase0_skipped || earlier.iter().any(|p| p.status == Some(Status::Skipped) && phase0(p.session()));
            for need in &c.needs {
                let done = earlier.iter().any(|p| p.session() == need && p.status == Some(Status::Done))
                    || (skipped_before && card(need).is_some_and(|n| n.phase == 0));
                if !done {
                    push(
                        Gate::NeedsDoneBefore,
                        e.line,
                        e.session(),
                        format!("{} comes before its prerequisite {need} is DONE in the log: take {need} first, or move this entry below it", e.session()),
                    );
                }
            }
        }

        // done-is-green
        if this.is_some() && e.status == Some(Status::Done) {
            done_is_green(e, runs, &mut push, &mut self_reported);
        }

        // rung-within-cap
        if let Some(rung) = e.sticking_point().and_then(|s| s.rung) {
            let line = field_line(e, "Sticking point");
            if !(1..=4).contains(&rung) {
                push(Gate::RungWithinCap, line, e.session(), format!("ladder rung {rung} does not exist: rungs go from 1 (point) to 4 (one line)"));
            } else if rung > input.hint_cap {
                let mode = if input.hint_cap == 3 { " (hard mode)" } else { "" };
                push(
                    Gate::RungWithinCap,
                    line,
                    e.session(),
                    format!("ladder rung {rung} is above the profile's hint cap of {}{mode}: the ladder never goes past the cap", input.hint_cap),
                );
            }
        }

        // date-not-in-future, log-in-order
        if let Some(date) = e.date {
            if date > input.today {
                push(Gate::DateNotInFuture, e.line, e.session(), format!("dated {date}, after today ({}): fix the date", input.today));
            }
            if let Some((before, line)) = latest_date
                && date < before
            {
                push(
                    Gate::LogInOrder,
                    e.line,
                    e.session(),
                    format!("dated {date}, before the entry at line {line} ({before}): entries go oldest first"),
                );
            }
            if latest_date.is_none_or(|(d, _)| date >= d) {
                latest_date = Some((date, e.line));
            }
        }

        // next-is-real
        if let Some(next) = &e.next() {
            let line = field_line(e, "Next");
            let last_card = guide.cards.last().is_some_and(|c| c.id == e.session());
            match next.session {
                None if !last_card => push(
                    Gate::NextIsReal,
                    line,
                    e.session(),
                    "Next names no session: start it with the id of the session that comes next, like `S1.4 — why`".to_owned(),
                ),
                Some(s) if card(s).is_none() => push(Gate::NextIsReal, line, e.session(), format!("Next names `{s}`, which is not a card of the Session Guide")),
                _ => {}
            }
        }

        // partial-resumed
        if e.status == Some(Status::Partial)
            && let Some(after) = later.first()
        {
            let remediation = this.and_then(|c| c.remediation.as_deref());
            if after.session() != e.session() && Some(after.session()) != remediation {
                push(
                    Gate::PartialResumed,
                    after.line,
                    after.session(),
                    format!("{} was left PARTIAL at line {} and this entry is {}: resume {} at its Midpoint first", e.session(), e.line, after.session(), e.session()),
                );
            }
        }
    }

    findings.sort();
    findings.dedup();
    GateReport { findings, self_reported }
}

fn done_is_green(e: &Entry, runs: &[RunRecord], push: &mut impl FnMut(Gate, usize, &str, String), self_reported: &mut Vec<SelfReported>) {
    let line = field_line(e, "Done-when");
    let verified: Vec<RunRecord> = runs.iter().filter(|r| r.source == RunSource::Verified).cloned().collect();
    let claimed: Vec<RunRecord> = runs.iter().filter(|r| r.source == RunSource::SelfReported).cloned().collect();
    let latest_verified = latest_outcome(&verified, e.session());
    let mark = e.done_when().and_then(|d| d.mark);
    match (mark, latest_verified) {
        (Some(Mark::Fail), _) => push(
            Gate::DoneIsGreen,
            line,
            e.session(),
            format!("{} is DONE but its Done-when is ❌: a DONE needs a green run; log it as PARTIAL or run it again", e.session()),
        ),
        (_, Some(Outcome::Pass)) => {}
        (Some(Mark::Pass), Some(other)) => push(
            Gate::DoneIsGreen,
            line,
            e.session(),
            format!("{} says ✅ but its latest verified run is {}: run the Done-when again", e.session(), outcome_word(other)),
        ),
        (Some(Mark::Pass), None) => self_reported.push(SelfReported { line, session: e.session().to_string() }),
        (None, _) if latest_outcome(&claimed, e.session()) == Some(Outcome::Pass) => {
            self_reported.push(SelfReported { line, session: e.session().to_string() })
        }
        (None, _) => push(
            Gate::DoneIsGreen,
            line,
            e.session(),
            format!("{} is DONE with no green run on record: run its Done-when, then record ✅", e.session()),
        ),
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "a pass",
        Outcome::Fail => "a fail",
        Outcome::Skip => "a skip",
        Outcome::Error => "an error",
    }
}

/// The line of a known field of an entry, else the heading's line.
fn field_line(e: &Entry, name: &str) -> usize {
    let key = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    e.fields().find(|f| key(f.name) == key(name)).map_or(e.line, |f| f.line)
}
