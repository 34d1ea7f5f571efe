//! The hint ladder: four rungs, one at a time, within the profile's cap.
//!
//! The rules, from the book's description of a session:
//!
//! - a hint request climbs exactly one rung: Point, then Ask, then Pseudocode; never skipping;
//! - rung 4 (One line) comes only on an explicit "just show me", and only from rung 3 (asking
//!   for it earlier climbs one rung, as any request does);
//! - after rung 4 the obstacle is over: the next request starts again at rung 1;
//! - the profile's hint cap is absolute: a cap of 3 (hard mode) never yields rung 4, whatever
//!   is asked;
//! - the highest rung reached in the session is kept for the log's Sticking point.
//!
//! [`Ladder::step`] is a pure transition: the old state in, the new state and what to show out.

pub use crate::guide::RungKind as Rung;

/// What the reader asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// "Hint", or /stuck.
    Hint,
    /// The explicit "just show me".
    JustShowMe,
    /// The reader moved on to a different obstacle: the ladder starts again.
    NewObstacle,
}

/// Why the ladder said something other than the rung that was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// "Just show me" before rung 3: the ladder does not skip, so this is the next rung.
    NoSkipping,
    /// A plain hint request at rung 3: rung 4 needs an explicit "just show me".
    SayJustShowMe,
    /// The profile caps the ladder here (hard mode caps it at 3); nothing higher is given.
    Capped { cap: u8 },
}

/// What to do after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Show this rung of the current obstacle's ladder (with a note when the request was bent).
    Show { rung: Rung, note: Option<Note> },
    /// Nothing new to show: the reader stays on `rung` (or has none yet), for the reason given.
    Stay { rung: Option<Rung>, note: Note },
    /// The ladder was reset for a new obstacle.
    Reset,
}

/// The ladder's state during one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ladder {
    cap: u8,
    current: Option<Rung>,
    highest: Option<Rung>,
}

fn rung(n: u8) -> Option<Rung> {
    Rung::ALL.into_iter().find(|r| r.number() == n)
}

impl Ladder {
    /// A fresh ladder under the profile's hint cap (clamped to 1..=4; 4 is the default).
    pub fn new(cap: u8) -> Ladder {
        Ladder { cap: cap.clamp(1, 4), current: None, highest: None }
    }

    /// A fresh ladder under a profile: its hint cap, and never above 3 in hard mode.
    pub fn for_profile(profile: &crate::profile::Profile) -> Ladder {
        Ladder::new(profile.ladder_cap())
    }

    pub fn cap(&self) -> u8 {
        self.cap
    }

    /// The rung last shown for the current obstacle.
    pub fn current(&self) -> Option<Rung> {
        self.current
    }

    /// The highest rung shown this session: what the log's Sticking point records.
    pub fn highest(&self) -> Option<Rung> {
        self.highest
    }

    pub fn step(self, request: Request) -> (Ladder, Step) {
        // After rung 4 the obstacle is solved; whatever comes next starts a new ladder.
        let from = if self.current == Some(Rung::OneLine) { None } else { self.current };
        let next_number = from.map_or(1, |r| r.number() + 1);
        match request {
            Request::NewObstacle => (Ladder { current: None, ..self }, Step::Reset),
            Request::Hint if next_number == 4 => {
                let note = if self.cap < 4 { Note::Capped { cap: self.cap } } else { Note::SayJustShowMe };
                (Ladder { current: from, ..self }, Step::Stay { rung: from, note })
            }
            Request::JustShowMe if next_number == 4 && self.cap < 4 => {
                (Ladder { current: from, ..self }, Step::Stay { rung: from, note: Note::Capped { cap: self.cap } })
            }
            Request::Hint | Request::JustShowMe => {
                if next_number > self.cap {
                    return (Ladder { current: from, ..self }, Step::Stay { rung: from, note: Note::Capped { cap: self.cap } });
                }
                let Some(shown) = rung(next_number) else {
                    return (self, Step::Stay { rung: from, note: Note::Capped { cap: self.cap } });
                };
                let note = (request == Request::JustShowMe && shown != Rung::OneLine).then_some(Note::NoSkipping);
                let highest = Some(self.highest.map_or(shown, |h| h.max(shown)));
                (Ladder { current: Some(shown), highest, ..self }, Step::Show { rung: shown, note })
            }
        }
    }
}

/// Runs a whole sequence of requests from a fresh ladder: the final state and every step.
pub fn replay(cap: u8, requests: &[Request]) -> (Ladder, Vec<Step>) {
    let mut ladder = Ladder::new(cap);
    let mut steps = Vec::with_capacity(requests.len());
    for &r in requests {
        let (next, step) = ladder.step(r);
        ladder = next;
        steps.push(step);
    }
    (ladder, steps)
}

/// The log's Sticking point for a concept, with the highest rung this ladder reached (none when
/// no hint was asked for).
pub fn sticking_point(ladder: &Ladder, concept: &str) -> crate::progress::StickingPoint {
    crate::progress::StickingPoint { text: concept.trim().to_owned(), rung: ladder.highest().map(Rung::number) }
}
