//! PROFILE.md: what the parser reads (snapshots), setting fields for onboarding, round trips.

use bookside_core::profile::{self, Pace, Profile, ProfileKey};
use expect_test::{Expect, expect};
use proptest::prelude::*;

fn check(text: &str, expect: Expect) {
    let (doc, diags) = profile::parse(text);
    assert_eq!(profile::print(&doc), text);
    let mut out = format!("{:?}\n", doc.profile);
    out.push_str(&format!("ladder cap: {}\n", doc.profile.ladder_cap()));
    for f in &doc.fields {
        out.push_str(&format!("field @{} {:?} {:?} = {:?}\n", f.line, f.key, f.name, f.value));
    }
    for d in diags {
        out.push_str(&format!("diag {d}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn onboarding_output() {
    let p = Profile {
        background: Some("Python developer, some PyTorch".into()),
        goal: Some("understand transformers by building one".into()),
        hardware: Some("laptop, 16 GB, no GPU".into()),
        pace: Pace::Thirty,
        hint_cap: 4,
        hard_mode: false,
        phase0_skipped: true,
    };
    let text = profile::render(&p);
    expect![[r#"
        # Profile

        - **Background**: Python developer, some PyTorch
        - **Goal**: understand transformers by building one
        - **Hardware**: laptop, 16 GB, no GPU
        - **Pace**: 30
        - **Hint cap**: 4
        - **Hard mode**: no
        - **Phase 0 skipped**: yes
    "#]]
    .assert_eq(&text);
    let (doc, diags) = profile::parse(&text);
    assert!(diags.is_empty());
    assert_eq!(doc.profile, p);
}

#[test]
fn hand_edited_profile() {
    check(
        "# Me\r\n\r\nSome words about me.\r\n* background: ML student  \r\n- **Goal:** ship a tiny model\r\n- **pace**: 30 minutes\r\n- **HINT CAP**: 4\r\n- **Hard-mode**: Yes\r\n- **Favourite paper**: Attention Is All You Need\r\n- **Phase 0 skipped**: maybe",
        expect![[r#"
            Profile { background: Some("ML student"), goal: Some("ship a tiny model"), hardware: None, pace: Thirty, hint_cap: 4, hard_mode: true, phase0_skipped: false }
            ladder cap: 3
            field @4 Some(Background) "background" = "ML student"
            field @5 Some(Goal) "Goal" = "ship a tiny model"
            field @6 Some(Pace) "pace" = "30 minutes"
            field @7 Some(HintCap) "HINT CAP" = "4"
            field @8 Some(HardMode) "Hard-mode" = "Yes"
            field @9 None "Favourite paper" = "Attention Is All You Need"
            field @10 Some(Phase0Skipped) "Phase 0 skipped" = "maybe"
            diag PROFILE.md:10: Phase 0 skipped `maybe` is not yes or no; Phase 0 counts as not skipped
            diag PROFILE.md:7: hard mode caps the hint ladder at rung 3, so hint cap 4 is read as 3
        "#]],
    );
}

#[test]
fn bad_values_fall_back_to_defaults() {
    check(
        "- **Pace**: 45\n- **Hint cap**: 7\n- **Hint cap**: 2\n- **Hard mode**: sometimes\n",
        expect![[r#"
            Profile { background: None, goal: None, hardware: None, pace: Sixty, hint_cap: 4, hard_mode: false, phase0_skipped: false }
            ladder cap: 4
            field @1 Some(Pace) "Pace" = "45"
            field @2 Some(HintCap) "Hint cap" = "7"
            field @3 Some(HintCap) "Hint cap" = "2"
            field @4 Some(HardMode) "Hard mode" = "sometimes"
            diag PROFILE.md:1: Pace `45` is not 60 or 30 (minutes); using 60
            diag PROFILE.md:2: Hint cap `7` is not a rung from 1 to 4; using 4
            diag PROFILE.md:3: second `Hint cap` field; the companion reads only the first, delete this one
            diag PROFILE.md:4: Hard mode `sometimes` is not yes or no; hard mode stays off
        "#]],
    );
}

#[test]
fn hard_mode_is_absolute_and_lower_caps_stay() {
    let cap = |text: &str| profile::parse(text).0.profile.ladder_cap();
    assert_eq!(cap("- **Hard mode**: yes\n"), 3);
    assert_eq!(cap("- **Hard mode**: yes\n- **Hint cap**: 2\n"), 2);
    assert_eq!(cap("- **Hard mode**: no\n- **Hint cap**: 4\n"), 4);
    assert_eq!(cap(""), 4);
    // Onboarding never writes a hint cap above 3 in hard mode, and the default cap 4 of a hand
    // edit that only turns hard mode on is not worth a diagnostic.
    let hard = Profile { hard_mode: true, ..Profile::default() };
    let text = profile::render(&hard);
    assert!(text.contains("- **Hint cap**: 3\n"), "{text}");
    assert!(profile::parse("- **Hard mode**: yes\n").1.is_empty());
}

#[test]
fn set_rewrites_one_value_and_keeps_the_rest() {
    let text = "# Me\r\n- **Pace**: 60  \r\n* Goal:\r\nnotes\r\n";
    let t = profile::set(text, ProfileKey::Pace, "30");
    assert_eq!(t, "# Me\r\n- **Pace**: 30  \r\n* Goal:\r\nnotes\r\n");
    let t = profile::set(&t, ProfileKey::Goal, "ship it");
    assert_eq!(t, "# Me\r\n- **Pace**: 30  \r\n* Goal: ship it\r\nnotes\r\n");
    let t = profile::set(&t, ProfileKey::HardMode, "yes");
    assert_eq!(t, "# Me\r\n- **Pace**: 30  \r\n* Goal: ship it\r\n- **Hard mode**: yes\r\nnotes\r\n");
    assert!(profile::parse(&t).0.profile.hard_mode);
    assert_eq!(profile::set("", ProfileKey::Phase0Skipped, "yes"), "- **Phase 0 skipped**: yes\n");
    assert_eq!(profile::set("# P", ProfileKey::Pace, "30"), "# P\n- **Pace**: 30\n");
}

proptest! {
    #[test]
    fn any_profile_text_round_trips(s in "(\\PC|\r|\n|\r\n|- \\*\\*|\\*\\*: |Pace|Hint cap|: ){0,120}") {
        let (doc, _) = profile::parse(&s);
        prop_assert_eq!(profile::print(&doc), s);
    }

    #[test]
    fn set_changes_only_that_field(
        s in "(\\PC|\r\n|\n|- \\*\\*Pace\\*\\*: |- \\*\\*Goal\\*\\*: |\\* Hardware: ){0,80}",
        key in prop::sample::select(ProfileKey::ALL.to_vec()),
        value in "[a-zA-Z0-9 ]{0,12}",
    ) {
        let (before, _) = profile::parse(&s);
        let t = profile::set(&s, key, &value);
        let (after, _) = profile::parse(&t);
        let field = after.fields.iter().find(|f| f.key == Some(key)).unwrap();
        prop_assert_eq!(field.value.as_str(), value.trim());
        // Every other known field reads the same as before.
        for other in ProfileKey::ALL.into_iter().filter(|k| *k != key) {
            let v = |d: &profile::ProfileDoc| d.fields.iter().find(|f| f.key == Some(other)).map(|f| f.value.clone());
            prop_assert_eq!(v(&before), v(&after));
        }
    }
}
