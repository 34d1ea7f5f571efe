//! The hour: phases, what to show and the nudges, from start time, now and pace.
//!
//! Time comes in as unix seconds plus the reader's UTC offset in minutes; nothing here reads a
//! clock. The plan of a sitting is a table of phases with their minutes:
//!
//! ```text
//! 60-minute pace, fresh        Open 0-5 · Read 5-25 · Build 25-50 · Verify 50-55 · Log 55-60
//! 60-minute pace, resumed      Open 0-5 · Build 5-50 (from the Midpoint) · Verify 50-55 · Log 55-60
//! 30-minute pace, first half   Open 0-3 · Read 3-18 · Build 18-26 (to the Midpoint) · Log 26-30
//! 30-minute pace, second half  Open 0-3 · Build 3-20 (from the Midpoint) · Verify 20-25 · Log 25-30
//! ```
//!
//! A read-only card has no Build: its work phase is Read, and its Verify is the self-check quiz.
//! A PARTIAL resumed the next sitting starts at the Midpoint: no Read, Build picks up there.
//!
//! The nudges: the Midpoint stop is offered near the end of a first 30-minute sitting, or in a
//! 60-minute sitting when the hour runs away (40 minutes in and the Midpoint not reached); moving
//! to Verify is suggested at 50 minutes (20 in a second 30-minute sitting); at the Log slot the
//! reader is told to write the entry, and past the end how far over the sitting is.
//!
//! The entry's date is the date the sitting *started*, in the reader's time zone: a session from
//! 23:40 to 00:45 is logged under the day it began.

use crate::progress::Date;

/// How the reader paces sessions: the profile's own type (60-minute sessions, or 30-minute
/// sittings split at the Midpoint).
pub use crate::profile::Pace;

/// The five phases of a session, plus time past the end of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Locate + Open: find the card, state the goal, the retrieval check.
    Open,
    Read,
    Build,
    Verify,
    Log,
}

/// One phase of the plan with its minutes, `from` inclusive and `to` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub phase: Phase,
    pub from: u32,
    pub to: u32,
}

/// A sitting as it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sitting {
    pub start_unix: i64,
    /// The reader's offset from UTC in minutes at the start (+120 for UTC+2).
    pub utc_offset_minutes: i32,
    pub pace: Pace,
    /// True when this sitting resumes a PARTIAL entry (or is the second half of a 30-minute pair).
    pub resumed: bool,
    /// True for a milestone card (Build + Done-when), false for a read-only card (Read + quiz).
    pub milestone: bool,
}

/// Where the reader actually is (the plan says where they should be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub phase: Phase,
    /// Whether the reader has reached the card's Midpoint.
    pub past_midpoint: bool,
}

/// Something to show for the reader's current phase; the app renders each from the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    /// The card's two-sentence goal.
    Goal,
    /// The Done-when restated (milestone) or the quiz topics (read-only).
    DoneWhen,
    /// The two-minute retrieval check on the last Sticking point, when there is one.
    RetrievalCheck,
    /// The card's Read list.
    ReadList,
    /// The Midpoint: where a 30-minute sitting stops.
    Midpoint,
    /// "Resume at the Midpoint": this sitting continues a PARTIAL.
    ResumeAtMidpoint,
    /// The hint ladders of the card (asked for one rung at a time).
    Hints,
    /// The Done-when command to run, exactly as printed.
    RunDoneWhen,
    /// The self-check quiz of a read-only card.
    Quiz,
    /// The draft of the log entry, dated by the sitting's start.
    EntryDraft,
}

/// A prompt the companion gives on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nudge {
    /// Offer to stop at the Midpoint (logged as PARTIAL, resumed there next sitting).
    OfferMidpointStop(StopReason),
    /// Suggest moving on to Verify now.
    MoveToVerify,
    /// Time to write the log entry; a red Done-when at the hour is a normal PARTIAL.
    LogNow,
    /// The sitting is this many minutes past its plan.
    Overtime { minutes: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The reader paces in 30-minute sittings, and this one is nearly over.
    HalfHourPacing,
    /// The hour is running away: the Midpoint is not reached and time is short.
    HourRunningAway,
}

/// Everything the hour says at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    pub elapsed_minutes: u32,
    pub plan: Vec<Slot>,
    /// Where the plan says the reader should be (`Log` past the end).
    pub planned: Phase,
    pub panels: Vec<Panel>,
    pub nudges: Vec<Nudge>,
    pub entry_date: Date,
}

/// Minutes into a 60-minute sitting at which an unreached Midpoint means the hour runs away.
pub const RUNAWAY_AT: u32 = 40;
/// Minutes into a 30-minute first sitting at which the Midpoint stop is offered.
pub const HALF_STOP_AT: u32 = 22;

/// The plan of a sitting (see the module docs for the tables).
pub fn plan(pace: Pace, resumed: bool, milestone: bool) -> Vec<Slot> {
    use Phase::*;
    let work = if milestone { Build } else { Read };
    let table: &[(Phase, u32)] = match (pace, resumed, milestone) {
        (Pace::Sixty, false, true) => &[(Open, 5), (Read, 20), (Build, 25), (Verify, 5), (Log, 5)],
        (Pace::Sixty, false, false) => &[(Open, 5), (Read, 40), (Verify, 10), (Log, 5)],
        (Pace::Sixty, true, _) => &[(Open, 5), (work, 45), (Verify, 5), (Log, 5)],
        (Pace::Thirty, false, true) => &[(Open, 3), (Read, 15), (Build, 8), (Log, 4)],
        (Pace::Thirty, false, false) => &[(Open, 3), (Read, 23), (Log, 4)],
        (Pace::Thirty, true, _) => &[(Open, 3), (work, 17), (Verify, 5), (Log, 5)],
    };
    let mut from = 0;
    table
        .iter()
        .map(|&(phase, minutes)| {
            let slot = Slot { phase, from, to: from + minutes };
            from += minutes;
            slot
        })
        .collect()
}

/// The hour at `now_unix` for a reader at `at`.
pub fn clock(sitting: &Sitting, now_unix: i64, at: Position) -> Clock {
    let plan = plan(sitting.pace, sitting.resumed, sitting.milestone);
    // A clock that went backwards (or a start in the future) reads as the very start.
    let elapsed = u32::try_from((now_unix - sitting.start_unix).max(0) / 60).unwrap_or(u32::MAX);
    let end = plan.last().map_or(0, |s| s.to);
    let planned = plan.iter().find(|s| elapsed < s.to).map_or(Phase::Log, |s| s.phase);
    let has_verify = plan.iter().any(|s| s.phase == Phase::Verify);
    let log_from = plan.iter().find(|s| s.phase == Phase::Log).map_or(end, |s| s.from);
    let verify_from = plan.iter().find(|s| s.phase == Phase::Verify).map(|s| s.from);

    let mut nudges = Vec::new();
    let working = matches!(at.phase, Phase::Read | Phase::Build);
    if !sitting.resumed && !at.past_midpoint && working {
        match sitting.pace {
            Pace::Thirty if elapsed >= HALF_STOP_AT => nudges.push(Nudge::OfferMidpointStop(StopReason::HalfHourPacing)),
            Pace::Sixty if elapsed >= RUNAWAY_AT => nudges.push(Nudge::OfferMidpointStop(StopReason::HourRunningAway)),
            _ => {}
        }
    }
    if let Some(v) = verify_from
        && working
        && elapsed >= v
    {
        nudges.push(Nudge::MoveToVerify);
    }
    if at.phase != Phase::Log && elapsed >= log_from && (!has_verify || at.phase == Phase::Verify || elapsed >= end) {
        nudges.push(Nudge::LogNow);
    }
    if elapsed >= end {
        nudges.push(Nudge::Overtime { minutes: elapsed - end });
    }

    Clock {
        elapsed_minutes: elapsed,
        planned,
        panels: panels(sitting, at),
        nudges,
        entry_date: local_date(sitting.start_unix, sitting.utc_offset_minutes),
        plan,
    }
}

/// What to show in each phase.
pub fn panels(sitting: &Sitting, at: Position) -> Vec<Panel> {
    use Panel::*;
    match at.phase {
        Phase::Open if sitting.resumed => vec![Goal, DoneWhen, RetrievalCheck, ResumeAtMidpoint],
        Phase::Open => vec![Goal, DoneWhen, RetrievalCheck],
        Phase::Read if sitting.milestone => vec![ReadList],
        Phase::Read => vec![ReadList, Midpoint],
        Phase::Build if sitting.resumed => vec![ResumeAtMidpoint, Midpoint, Hints],
        Phase::Build => vec![Midpoint, Hints],
        Phase::Verify if sitting.milestone => vec![RunDoneWhen],
        Phase::Verify => vec![Quiz],
        Phase::Log => vec![EntryDraft],
    }
}

/// The phase a sitting opens into after Open: Read when fresh, the work phase at the Midpoint
/// when it resumes a PARTIAL.
pub fn first_work_phase(resumed: bool, milestone: bool) -> Phase {
    if resumed && milestone { Phase::Build } else { Phase::Read }
}

/// Days since 1970-01-01 of the local date at `unix` with the given offset.
pub fn local_day(unix: i64, utc_offset_minutes: i32) -> i64 {
    (unix + i64::from(utc_offset_minutes) * 60).div_euclid(86_400)
}

/// The local calendar date at `unix`: the civil-from-days algorithm (Howard Hinnant's), all
/// integer arithmetic.
pub fn local_date(unix: i64, utc_offset_minutes: i32) -> Date {
    date_of_day(local_day(unix, utc_offset_minutes))
}

/// The calendar date of a day number (days since 1970-01-01). Years outside 0..=65535 clamp.
pub fn date_of_day(day: i64) -> Date {
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let y = u16::try_from(y.clamp(0, 65_535)).unwrap_or(0);
    Date { year: y, month: m as u8, day: d as u8 }
}

/// The day number of a calendar date (the inverse of [`date_of_day`]).
pub fn day_of_date(date: Date) -> i64 {
    let y = i64::from(date.year) - i64::from(date.month <= 2);
    let m = i64::from(date.month);
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(date.day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
