//! The hint ladder's rules, as tables of request sequences and as laws over random sequences.

use bookside_core::engine::ladder::{Ladder, Note, Request, Rung, Step, replay};
use proptest::prelude::*;

use Request::{Hint, JustShowMe, NewObstacle};

/// A compact rendering of a step: `1`..`4` for a rung shown, `=N` for staying, plus the note.
fn show(step: &Step) -> String {
    match step {
        Step::Show { rung, note: None } => format!("{}", rung.number()),
        Step::Show { rung, note: Some(n) } => format!("{}({n:?})", rung.number()),
        Step::Stay { rung, note } => format!("={}({note:?})", rung.map_or(0, |r| r.number())),
        Step::Reset => "reset".to_owned(),
    }
}

#[test]
fn table() {
    let cases: &[(&str, u8, &[Request], &str, u8)] = &[
        ("hints climb one rung at a time", 4, &[Hint, Hint, Hint], "1 2 3", 3),
        ("a plain hint never reaches rung 4", 4, &[Hint, Hint, Hint, Hint], "1 2 3 =3(SayJustShowMe)", 3),
        ("just show me at rung 3 gives the line", 4, &[Hint, Hint, Hint, JustShowMe], "1 2 3 4", 4),
        ("just show me early does not skip", 4, &[JustShowMe, JustShowMe, JustShowMe, JustShowMe], "1(NoSkipping) 2(NoSkipping) 3(NoSkipping) 4", 4),
        ("after rung 4 the next obstacle starts at rung 1", 4, &[Hint, Hint, Hint, JustShowMe, Hint, Hint], "1 2 3 4 1 2", 4),
        ("a new obstacle resets the ladder", 4, &[Hint, Hint, NewObstacle, Hint], "1 2 reset 1", 2),
        ("hard mode (cap 3) refuses rung 4", 3, &[Hint, Hint, Hint, JustShowMe, JustShowMe], "1 2 3 =3(Capped { cap: 3 }) =3(Capped { cap: 3 })", 3),
        ("hard mode: a plain hint at 3 names the cap", 3, &[Hint, Hint, Hint, Hint], "1 2 3 =3(Capped { cap: 3 })", 3),
        ("cap 2 stops at Ask", 2, &[Hint, Hint, Hint, JustShowMe], "1 2 =2(Capped { cap: 2 }) =2(Capped { cap: 2 })", 2),
        ("cap 1 gives only Point", 1, &[Hint, Hint], "1 =1(Capped { cap: 1 })", 1),
        ("no requests, no rung", 4, &[], "", 0),
        ("a cap above 4 is 4", 9, &[Hint, Hint, Hint, JustShowMe], "1 2 3 4", 4),
        ("a cap of 0 is 1", 0, &[Hint, Hint], "1 =1(Capped { cap: 1 })", 1),
    ];
    for (name, cap, requests, want, highest) in cases {
        let (ladder, steps) = replay(*cap, requests);
        let got: Vec<String> = steps.iter().map(show).collect();
        assert_eq!(got.join(" "), *want, "{name}");
        assert_eq!(ladder.highest().map_or(0, |r| r.number()), *highest, "{name}: highest rung");
    }
}

#[test]
fn rung_names_follow_the_book() {
    let (ladder, _) = replay(4, &[Hint, Hint]);
    assert_eq!(ladder.current(), Some(Rung::Ask));
    assert_eq!(Rung::ALL.map(|r| r.label()), ["Point", "Ask", "Pseudocode", "One line"]);
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![Just(Hint), Just(JustShowMe), Just(NewObstacle)]
}

proptest! {
    /// Hard mode is absolute: under cap 3 no sequence of requests ever shows rung 4.
    #[test]
    fn cap_three_never_yields_rung_four(requests in proptest::collection::vec(request(), 0..60)) {
        let (ladder, steps) = replay(3, &requests);
        for s in &steps {
            if let Step::Show { rung, .. } = s {
                prop_assert!(rung.number() <= 3);
            }
        }
        prop_assert!(ladder.highest().is_none_or(|r| r.number() <= 3));
    }

    /// Never skipping: each rung shown is rung 1 or one above the rung before it (after a reset
    /// or after rung 4, the ladder starts over at 1). Any cap.
    #[test]
    fn no_skipping(cap in 1u8..=4, requests in proptest::collection::vec(request(), 0..60)) {
        let mut last: Option<u8> = None;
        let mut ladder = Ladder::new(cap);
        for r in requests {
            let (next, step) = ladder.step(r);
            ladder = next;
            match step {
                Step::Show { rung, .. } => {
                    let n = rung.number();
                    let ok = n == 1 || last == Some(n - 1);
                    prop_assert!(ok, "rung {} after {:?}", n, last);
                    prop_assert!(n <= cap);
                    if n == 4 {
                        prop_assert_eq!(r, JustShowMe, "rung 4 only on an explicit request");
                    }
                    if n == 1 {
                        prop_assert!(last.is_none() || last == Some(4), "rung 1 again only after a reset or rung 4");
                    }
                    last = Some(n);
                }
                Step::Reset => last = None,
                Step::Stay { .. } => {}
            }
        }
    }
}

#[test]
fn notes_say_why() {
    // The notes are what the app turns into words; each has a distinct meaning.
    let (_, steps) = replay(4, &[JustShowMe]);
    assert_eq!(steps, [Step::Show { rung: Rung::Point, note: Some(Note::NoSkipping) }]);
}

#[test]
fn the_highest_rung_goes_into_the_sticking_point() {
    use bookside_core::engine::ladder::sticking_point;
    let (ladder, _) = replay(4, &[Hint, Hint, NewObstacle, Hint]);
    let sp = sticking_point(&ladder, " per-head vs per-layer cache sizing ");
    assert_eq!(sp.canonical(), "per-head vs per-layer cache sizing (ladder rung 2)");
    let (fresh, _) = replay(4, &[]);
    assert_eq!(sticking_point(&fresh, "nothing hard").canonical(), "nothing hard");
}

#[test]
fn hard_mode_in_the_profile_caps_the_ladder_at_three() {
    let (doc, _) = bookside_core::profile::parse("- **Hint cap**: 4\n- **Hard mode**: yes\n");
    let ladder = Ladder::for_profile(&doc.profile);
    assert_eq!(ladder.cap(), 3);
    let (ladder, step) = [Hint, Hint, Hint].iter().fold((ladder, None), |(l, _), &r| {
        let (l, s) = l.step(r);
        (l, Some(s))
    });
    assert_eq!(step, Some(Step::Show { rung: Rung::Pseudocode, note: None }));
    assert_eq!(ladder.step(JustShowMe).1, Step::Stay { rung: Some(Rung::Pseudocode), note: Note::Capped { cap: 3 } });
}
