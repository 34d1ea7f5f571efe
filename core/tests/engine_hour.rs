//! The hour: the planned phase, the panels and the nudges at each moment, and the entry date.

use bookside_core::engine::hour::{
    Clock, Nudge, Pace, Phase, Position, Sitting, clock, date_of_day, day_of_date, local_date, plan,
};
use bookside_core::progress::Date;
use proptest::prelude::*;

/// 2026-07-22 21:40 UTC, which is 23:40 in UTC+2.
const START: i64 = 1_784_756_400;

fn sitting(pace: Pace, resumed: bool, milestone: bool) -> Sitting {
    Sitting { start_unix: START, utc_offset_minutes: 120, pace, resumed, milestone }
}

fn at(s: &Sitting, minutes: i64, phase: Phase, past_midpoint: bool) -> Clock {
    clock(s, START + minutes * 60, Position { phase, past_midpoint })
}

fn nudges(c: &Clock) -> String {
    c.nudges.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

#[test]
fn plans() {
    let show = |p: Vec<bookside_core::engine::hour::Slot>| {
        p.iter().map(|s| format!("{:?} {}-{}", s.phase, s.from, s.to)).collect::<Vec<_>>().join(" · ")
    };
    assert_eq!(show(plan(Pace::Sixty, false, true)), "Open 0-5 · Read 5-25 · Build 25-50 · Verify 50-55 · Log 55-60");
    assert_eq!(show(plan(Pace::Sixty, true, true)), "Open 0-5 · Build 5-50 · Verify 50-55 · Log 55-60");
    assert_eq!(show(plan(Pace::Sixty, false, false)), "Open 0-5 · Read 5-45 · Verify 45-55 · Log 55-60");
    assert_eq!(show(plan(Pace::Thirty, false, true)), "Open 0-3 · Read 3-18 · Build 18-26 · Log 26-30");
    assert_eq!(show(plan(Pace::Thirty, true, true)), "Open 0-3 · Build 3-20 · Verify 20-25 · Log 25-30");
    assert_eq!(show(plan(Pace::Thirty, false, false)), "Open 0-3 · Read 3-26 · Log 26-30");
    // Every plan fits its sitting exactly.
    for pace in [Pace::Sixty, Pace::Thirty] {
        for resumed in [false, true] {
            for milestone in [false, true] {
                let p = plan(pace, resumed, milestone);
                let len = pace.minutes();
                assert_eq!(p.last().unwrap().to, len);
                assert!(p.windows(2).all(|w| w[0].to == w[1].from));
                assert_eq!(p.first().unwrap().phase, Phase::Open);
                assert_eq!(p.last().unwrap().phase, Phase::Log);
                assert_eq!(p.iter().any(|s| s.phase == Phase::Read), !resumed || !milestone, "a resumed milestone skips Read");
            }
        }
    }
}

#[test]
fn table() {
    use Pace::*;
    use Phase::*;
    /// (pace, resumed, milestone, minute, reader's phase, past Midpoint, planned phase, nudges)
    type Case = (Pace, bool, bool, i64, Phase, bool, Phase, &'static str);
    let cases: &[Case] = &[
        (Sixty, false, true, 0, Open, false, Open, ""),
        (Sixty, false, true, 4, Open, false, Open, ""),
        (Sixty, false, true, 5, Read, false, Read, ""),
        (Sixty, false, true, 24, Read, false, Read, ""),
        (Sixty, false, true, 25, Build, false, Build, ""),
        (Sixty, false, true, 39, Build, false, Build, ""),
        // The hour runs away: 40 minutes in and the Midpoint not reached.
        (Sixty, false, true, 40, Build, false, Build, "OfferMidpointStop(HourRunningAway)"),
        (Sixty, false, true, 40, Read, false, Build, "OfferMidpointStop(HourRunningAway)"),
        (Sixty, false, true, 40, Build, true, Build, ""),
        (Sixty, false, true, 49, Build, true, Build, ""),
        // ~50 minutes: suggest Verify.
        (Sixty, false, true, 50, Build, true, Verify, "MoveToVerify"),
        (Sixty, false, true, 50, Verify, true, Verify, ""),
        (Sixty, false, true, 55, Verify, true, Log, "LogNow"),
        (Sixty, false, true, 55, Build, true, Log, "MoveToVerify"),
        (Sixty, false, true, 58, Log, true, Log, ""),
        (Sixty, false, true, 60, Log, true, Log, "Overtime { minutes: 0 }"),
        (Sixty, false, true, 65, Build, false, Log, "OfferMidpointStop(HourRunningAway), MoveToVerify, LogNow, Overtime { minutes: 5 }"),
        // A resumed PARTIAL starts at the Midpoint: no Read, no Midpoint offer.
        (Sixty, true, true, 5, Build, false, Build, ""),
        (Sixty, true, true, 45, Build, false, Build, ""),
        (Sixty, true, true, 50, Build, true, Verify, "MoveToVerify"),
        // A read-only card: Read is the work, Verify is the quiz.
        (Sixty, false, false, 44, Read, true, Read, ""),
        (Sixty, false, false, 45, Read, true, Verify, "MoveToVerify"),
        // 30-minute pacing, first half: the Midpoint stop is offered near its end.
        (Thirty, false, true, 3, Read, false, Read, ""),
        (Thirty, false, true, 18, Build, false, Build, ""),
        (Thirty, false, true, 21, Build, false, Build, ""),
        (Thirty, false, true, 22, Build, false, Build, "OfferMidpointStop(HalfHourPacing)"),
        (Thirty, false, true, 22, Read, false, Build, "OfferMidpointStop(HalfHourPacing)"),
        (Thirty, false, true, 26, Build, false, Log, "OfferMidpointStop(HalfHourPacing), LogNow"),
        (Thirty, false, true, 26, Build, true, Log, "LogNow"),
        (Thirty, false, true, 31, Log, true, Log, "Overtime { minutes: 1 }"),
        // 30-minute pacing, second half: from the Midpoint to Verify.
        (Thirty, true, true, 3, Build, false, Build, ""),
        (Thirty, true, true, 19, Build, true, Build, ""),
        (Thirty, true, true, 20, Build, true, Verify, "MoveToVerify"),
        (Thirty, true, true, 25, Verify, true, Log, "LogNow"),
    ];
    for &(pace, resumed, milestone, minute, phase, past, planned, want) in cases {
        let s = sitting(pace, resumed, milestone);
        let c = at(&s, minute, phase, past);
        let label = format!("{pace:?} resumed={resumed} milestone={milestone} minute {minute} at {phase:?} past={past}");
        assert_eq!(c.elapsed_minutes, minute as u32, "{label}");
        assert_eq!(c.planned, planned, "{label}: planned phase");
        assert_eq!(nudges(&c), want, "{label}: nudges");
    }
}

#[test]
fn panels_per_phase() {
    use Phase::*;
    let fresh = sitting(Pace::Sixty, false, true);
    let resumed = sitting(Pace::Sixty, true, true);
    let read_only = sitting(Pace::Sixty, false, false);
    let cases: &[(&Sitting, Phase, &str)] = &[
        (&fresh, Open, "[Goal, DoneWhen, RetrievalCheck]"),
        (&resumed, Open, "[Goal, DoneWhen, RetrievalCheck, ResumeAtMidpoint]"),
        (&fresh, Read, "[ReadList]"),
        (&read_only, Read, "[ReadList, Midpoint]"),
        (&fresh, Build, "[Midpoint, Hints]"),
        (&resumed, Build, "[ResumeAtMidpoint, Midpoint, Hints]"),
        (&fresh, Verify, "[RunDoneWhen]"),
        (&read_only, Verify, "[Quiz]"),
        (&fresh, Log, "[EntryDraft]"),
    ];
    for (s, phase, want) in cases {
        let c = at(s, 0, *phase, false);
        assert_eq!(format!("{:?}", c.panels), *want, "{phase:?} resumed={} milestone={}", s.resumed, s.milestone);
    }
}

#[test]
fn a_session_across_midnight_is_dated_by_its_start() {
    // 23:40 to 00:45 in UTC+2: 65 minutes, over the planned hour, logged on the 22nd.
    let s = sitting(Pace::Sixty, false, true);
    let c = at(&s, 65, Phase::Log, true);
    assert_eq!(c.entry_date.to_string(), "2026-07-22");
    assert_eq!(local_date(START + 65 * 60, 120).to_string(), "2026-07-23", "the clock itself is past midnight");
    assert_eq!(c.nudges, [Nudge::Overtime { minutes: 5 }]);
    // The same instants in UTC are both on the 22nd; in UTC-5 the start is the 22nd too.
    assert_eq!(local_date(START, 0).to_string(), "2026-07-22");
    assert_eq!(local_date(START, -300).to_string(), "2026-07-22");
    // 2026-03-01 02:00 UTC is still February the 28th in UTC-5.
    assert_eq!(local_date(1_772_330_400, -300).to_string(), "2026-02-28");
}

#[test]
fn a_clock_that_went_backwards_reads_as_the_start() {
    let s = sitting(Pace::Sixty, false, true);
    let c = clock(&s, START - 600, Position { phase: Phase::Open, past_midpoint: false });
    assert_eq!((c.elapsed_minutes, c.planned), (0, Phase::Open));
    assert!(c.nudges.is_empty());
}

#[test]
fn day_numbers() {
    assert_eq!(date_of_day(0), Date::new(1970, 1, 1).unwrap());
    assert_eq!(date_of_day(-1), Date::new(1969, 12, 31).unwrap());
    assert_eq!(date_of_day(11_016), Date::new(2000, 2, 29).unwrap());
    assert_eq!(date_of_day(20_656), Date::new(2026, 7, 22).unwrap());
    assert_eq!(day_of_date(Date::new(2026, 7, 22).unwrap()), 20_656);
}

proptest! {
    #[test]
    fn day_numbers_round_trip(day in -700_000i64..3_000_000) {
        prop_assert_eq!(day_of_date(date_of_day(day)), day);
    }
}
