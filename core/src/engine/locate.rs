//! Locate: which session is current, and why; and Open's retrieval check.
//!
//! The rule, in order:
//!
//! 1. the session the reader names (when it is a card of the guide);
//! 2. else the most recent PARTIAL entry still open (no later DONE for it, Done-when not
//!    passing), resumed at its Midpoint;
//! 3. else the first card in Guide order that is not done.
//!
//! A milestone card is done when the latest recorded run of its Done-when passed; a read-only
//! card when the log has a DONE entry for it; Phase 0's cards when Phase 0 was skipped (the
//! profile says so, or the log has a SKIPPED entry for a Phase 0 session). Then the chosen
//! card's Needs are checked: if one is not done, that prerequisite is offered instead (following
//! its own Needs in turn), and the location says which card was wanted and what it is missing.
//!
//! Run records come from the worker (verified) or, without one, from the log's own Done-when
//! marks via [`self_reported_runs`]; locate treats both alike (gates tell them apart).

use std::collections::BTreeSet;

use crate::engine::hour::day_of_date;
use crate::engine::remediation::matches_theme;
use crate::guide::{CardKind, Guide};
use crate::progress::{Mark, ProgressLog, Status};
use crate::quiz::{self, Question, QuizBank};
use crate::wire::{Outcome, RunRecord, RunSource};

/// Everything locate reads.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub guide: &'a Guide,
    pub log: &'a ProgressLog,
    pub runs: &'a [RunRecord],
    /// From the profile: Phase 0 was skipped after passing its quiz.
    pub phase0_skipped: bool,
}

/// How the wanted session was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The reader named it.
    Named,
    /// The log's most recent open PARTIAL entry (at this line): resume at the Midpoint.
    ResumePartial { line: usize },
    /// The first card in Guide order whose Done-when does not pass.
    FirstNotDone,
    /// Every card is done.
    AllDone,
}

/// The wanted card's Needs were not all met, so a prerequisite is offered instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detour {
    pub wanted: String,
    /// The wanted card's Needs that are not done, in the order the card lists them.
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The session to take now; `None` only when every card is done (or the guide is empty).
    pub session: Option<String>,
    pub why: Why,
    /// This session continues an open PARTIAL: start at the card's Midpoint.
    pub resume_at_midpoint: bool,
    pub detour: Option<Detour>,
    /// The reader named a session the guide does not have; the rule chose instead.
    pub unknown_name: Option<String>,
}

/// The latest outcome recorded for a session: latest `at_unix`, the later record on ties.
pub fn latest_outcome(runs: &[RunRecord], session: &str) -> Option<Outcome> {
    runs.iter().enumerate().filter(|(_, r)| r.session == session).max_by_key(|(k, r)| (r.at_unix, *k)).map(|(_, r)| r.outcome)
}

/// Whether Phase 0 counts as skipped: the profile says so, or the log recorded the skip.
pub fn phase0_skipped(cx: &Context<'_>) -> bool {
    cx.phase0_skipped
        || cx.log.entries.iter().any(|e| e.status == Some(Status::Skipped) && is_phase0(e.session()))
}

fn is_phase0(session: &str) -> bool {
    let s = session.trim().to_ascii_lowercase();
    s.starts_with("s0") || s == "phase 0" || s == "p0"
}

/// Whether a card is done (see the module docs).
pub fn is_done(cx: &Context<'_>, card_id: &str) -> bool {
    let Some(card) = cx.guide.cards.iter().find(|c| c.id == card_id) else { return false };
    if card.phase == 0 && phase0_skipped(cx) {
        return true;
    }
    if latest_outcome(cx.runs, card_id) == Some(Outcome::Pass) {
        return true;
    }
    card.kind() != CardKind::Milestone && cx.log.entries.iter().any(|e| e.session() == card_id && e.status == Some(Status::Done))
}

/// The most recent PARTIAL entry still open: its session and line.
pub fn open_partial(cx: &Context<'_>) -> Option<(String, usize)> {
    let entries = &cx.log.entries;
    entries.iter().enumerate().rev().find_map(|(k, e)| {
        let open = e.status == Some(Status::Partial)
            && cx.guide.cards.iter().any(|c| c.id == e.session())
            && !entries[k + 1..].iter().any(|l| l.session() == e.session() && l.status == Some(Status::Done))
            && !is_done(cx, e.session());
        open.then(|| (e.session().to_string(), e.line))
    })
}

pub fn locate(cx: &Context<'_>, named: Option<&str>) -> Location {
    let named = named.map(str::trim).filter(|n| !n.is_empty());
    let found = named.and_then(|n| cx.guide.cards.iter().find(|c| c.id.eq_ignore_ascii_case(n)));
    let unknown_name = match (named, found) {
        (Some(n), None) => Some(n.to_owned()),
        _ => None,
    };
    let partial = open_partial(cx);
    let (wanted, why) = if let Some(card) = found {
        (Some(card.id.clone()), Why::Named)
    } else if let Some((session, line)) = &partial {
        (Some(session.clone()), Why::ResumePartial { line: *line })
    } else {
        match cx.guide.cards.iter().find(|c| !is_done(cx, &c.id)) {
            Some(card) => (Some(card.id.clone()), Why::FirstNotDone),
            None => (None, Why::AllDone),
        }
    };
    let Some(wanted) = wanted else {
        return Location { session: None, why, resume_at_midpoint: false, detour: None, unknown_name };
    };
    let (session, detour) = prerequisite(cx, &wanted);
    let resume_at_midpoint = partial.is_some_and(|(s, _)| s == session);
    Location { session: Some(session), why, resume_at_midpoint, detour, unknown_name }
}

/// The card to take for `wanted`: itself when its Needs are done, else the first missing
/// prerequisite, followed down its own Needs (cycles are the guide's diagnostics; they stop here).
fn prerequisite(cx: &Context<'_>, wanted: &str) -> (String, Option<Detour>) {
    let missing_of = |id: &str| -> Vec<String> {
        cx.guide.cards.iter().find(|c| c.id == id).map_or_else(Vec::new, |c| c.needs.iter().filter(|n| !is_done(cx, n)).cloned().collect())
    };
    let missing = missing_of(wanted);
    if missing.is_empty() {
        return (wanted.to_owned(), None);
    }
    let mut seen = BTreeSet::from([wanted.to_owned()]);
    let mut current = missing[0].clone();
    loop {
        seen.insert(current.clone());
        match missing_of(&current).into_iter().find(|n| !seen.contains(n)) {
            Some(next) => current = next,
            None => break,
        }
    }
    (current, Some(Detour { wanted: wanted.to_owned(), missing }))
}

/// The log's Done-when marks as self-reported run records, for when no worker has run anything:
/// ✅ is a pass, ❌ a fail, dated at the entry's day (UTC midnight).
pub fn self_reported_runs(log: &ProgressLog) -> Vec<RunRecord> {
    log.entries
        .iter()
        .filter_map(|e| {
            let mark = e.done_when()?.mark?;
            Some(RunRecord {
                session: e.session().to_string(),
                outcome: if mark == Mark::Pass { Outcome::Pass } else { Outcome::Fail },
                source: RunSource::SelfReported,
                at_unix: e.date.map_or(0, |d| day_of_date(d) * 86_400),
            })
        })
        .collect()
}

/// The runs locate, the card statuses and the gates read: every verified run the worker made,
/// and the log's own marks (self-reported) only for sessions no verified run covers. What the
/// worker ran outranks what the log claims, whatever their dates: a ✅ written in the log and
/// contradicted by a failing verified run reads as not done.
pub fn known_runs(log: &ProgressLog, verified: &[RunRecord]) -> Vec<RunRecord> {
    let covered = |session: &str| verified.iter().any(|v| v.source == RunSource::Verified && v.session == session);
    let mut runs: Vec<RunRecord> = self_reported_runs(log).into_iter().filter(|r| !covered(&r.session)).collect();
    runs.extend(verified.iter().cloned());
    runs
}

// ---------------------------------------------------------------------------------------------
// Open: the retrieval check

/// A two-minute warm-up on the last entry's Sticking point, answered from memory. Never a gate.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievalCheck {
    pub concept: String,
    pub session: String,
    pub entry_line: usize,
    /// The quiz topic the question comes from, when one is about this concept.
    pub topic: Option<String>,
    /// A question on exactly that concept; `None` means "explain it from memory" with no
    /// generated question (no quiz topic carries the theme).
    pub question: Option<Question>,
}

/// The retrieval check for the next Open, if the last entry recorded a Sticking point.
///
/// The question comes from a quiz topic whose themes match the concept, preferring the topics of
/// the entry's own card.
pub fn retrieval_check(guide: &Guide, bank: &QuizBank, log: &ProgressLog, seed: u64) -> Option<RetrievalCheck> {
    let last = log.entries.last()?;
    let sp = last.sticking_point().filter(|s| !s.is_none())?;
    let about = |id: &str| bank.topic(id).is_some_and(|t| t.themes.iter().any(|th| matches_theme(sp.text, th)));
    let own: Vec<&str> = guide.cards.iter().filter(|c| c.id == last.session()).flat_map(|c| c.quiz.iter().map(String::as_str)).collect();
    let topic = own.into_iter().find(|id| about(id)).or_else(|| bank.topics.iter().map(|t| t.id.as_str()).find(|id| about(id)));
    let question = topic.and_then(|id| bank.topic(id)).and_then(|t| quiz::question(t, seed));
    Some(RetrievalCheck {
        concept: sp.text.to_string(),
        session: last.session().to_string(),
        entry_line: last.line,
        topic: topic.map(str::to_owned),
        question,
    })
}

/// The quiz topics a Phase 0 skip must pass: every topic of every Phase 0 card, in Guide order,
/// each once. Feed them to `quiz::generate`, then `quiz::phase0_skip` decides.
pub fn phase0_topics(guide: &Guide) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in guide.cards.iter().filter(|c| c.phase == 0).flat_map(|c| c.quiz.iter()) {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}
