//! Review: a spaced-repetition queue (FSRS) of missed questions and sticking points.
//!
//! Between sessions the phone offers a five-minute review: the items due today, most at risk of
//! being forgotten first. Items are quiz questions the reader missed (by question key) and
//! Sticking points from the log (by normalised concept).
//!
//! Scheduling is FSRS-5 in its long-term form (whole days, no same-day learning steps), written
//! from the published formulas because the maintained crates did not fit: `fsrs` pulls in a
//! training framework, and `rs-fsrs` publishes no licence and reads the system clock. With
//! weights `w` (19 numbers; the FSRS-5 defaults unless given), grades G = 1..4
//! (Again, Hard, Good, Easy), t days since the last review:
//!
//! ```text
//! R(t, S)  = (1 + F·t/S)^C                  C = -0.5, F = 19/81  (so R(S, S) = 0.9)
//! I(S)     = S/F · (r^(1/C) - 1)            days until R falls to the desired retention r
//! S0(G)    = w[G-1]
//! D0(G)    = w4 - e^(w5·(G-1)) + 1          clamped to [1, 10]
//! D'       = w7·D0(4) + (1-w7)·(D + ΔD·(10-D)/9),  ΔD = -w6·(G-3)      clamped to [1, 10]
//! S'(G>1)  = S·(1 + e^w8·(11-D)·S^(-w9)·(e^(w10·(1-R)) - 1)·(w15 if G=2)·(w16 if G=4))
//! S'(G=1)  = min(S, w11·D^(-w12)·((S+1)^w13 - 1)·e^(w14·(1-R)))
//! ```
//!
//! Intervals are rounded to whole days, at least 1, and kept strictly increasing from Again to
//! Easy. All the transcendental functions go through `libm`, so wasm32 and native agree.

use crate::rng;

/// FSRS-5's published default weights.
pub const DEFAULT_W: [f64; 19] = [
    0.40255, 1.18385, 3.173, 15.69105, 7.1949, 0.5345, 1.4604, 0.0046, 1.54575, 0.1192, 1.01925, 1.9395, 0.11, 0.29605, 2.2698,
    0.2315, 2.9898, 0.51655, 0.6621,
];

const DECAY: f64 = -0.5;
const FACTOR: f64 = 19.0 / 81.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub w: [f64; 19],
    /// The probability of recall at which an item comes due.
    pub retention: f64,
    pub max_interval_days: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params { w: DEFAULT_W, retention: 0.9, max_interval_days: 36_500 }
    }
}

/// How the reader did on an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rating {
    Again = 1,
    Hard = 2,
    Good = 3,
    Easy = 4,
}

impl Rating {
    pub const ALL: [Rating; 4] = [Rating::Again, Rating::Hard, Rating::Good, Rating::Easy];

    fn g(self) -> f64 {
        f64::from(self as u8)
    }
}

/// The memory model's state of one item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Memory {
    /// Days until recall probability falls to 90%.
    pub stability: f64,
    /// 1 (easy) to 10 (hard).
    pub difficulty: f64,
}

/// The probability of recalling an item `t` days after its last review.
pub fn retrievability(t: f64, stability: f64) -> f64 {
    libm::pow(1.0 + FACTOR * t / stability, DECAY)
}

fn init_difficulty(w: &[f64; 19], g: f64) -> f64 {
    w[4] - libm::exp(w[5] * (g - 1.0)) + 1.0
}

/// The memory after a review with `rating`, `elapsed_days` after the last one (`None` for the
/// first review of a new item).
pub fn next_memory(params: &Params, memory: Option<Memory>, elapsed_days: u32, rating: Rating) -> Memory {
    let w = &params.w;
    let g = rating.g();
    let Some(m) = memory else {
        return Memory { stability: w[rating as usize - 1], difficulty: init_difficulty(w, g).clamp(1.0, 10.0) };
    };
    let (s, d) = (m.stability, m.difficulty);
    let r = retrievability(f64::from(elapsed_days), s);
    let stability = if rating == Rating::Again {
        let forget = w[11] * libm::pow(d, -w[12]) * (libm::pow(s + 1.0, w[13]) - 1.0) * libm::exp(w[14] * (1.0 - r));
        forget.min(s)
    } else {
        let hard = if rating == Rating::Hard { w[15] } else { 1.0 };
        let easy = if rating == Rating::Easy { w[16] } else { 1.0 };
        s * (1.0 + libm::exp(w[8]) * (11.0 - d) * libm::pow(s, -w[9]) * (libm::exp(w[10] * (1.0 - r)) - 1.0) * hard * easy)
    };
    let delta = -w[6] * (g - 3.0);
    let damped = d + delta * (10.0 - d) / 9.0;
    let difficulty = (w[7] * init_difficulty(w, 4.0) + (1.0 - w[7]) * damped).clamp(1.0, 10.0);
    Memory { stability, difficulty }
}

/// Whole days until the item is due, for a stability.
pub fn interval(params: &Params, stability: f64) -> u32 {
    let days = stability / FACTOR * (libm::pow(params.retention, 1.0 / DECAY) - 1.0);
    let days = libm::round(days).clamp(1.0, f64::from(params.max_interval_days));
    days as u32
}

/// The four possible outcomes of a review: memory and interval for Again, Hard, Good, Easy,
/// with intervals kept strictly increasing (a harder grade never waits longer).
pub fn preview(params: &Params, memory: Option<Memory>, elapsed_days: u32) -> [(Memory, u32); 4] {
    let mems = Rating::ALL.map(|r| next_memory(params, memory, elapsed_days, r));
    let mut ivl = mems.map(|m| interval(params, m.stability));
    ivl[0] = ivl[0].min(ivl[1]);
    ivl[1] = ivl[1].max(ivl[0] + 1);
    ivl[2] = ivl[2].max(ivl[1] + 1);
    ivl[3] = ivl[3].max(ivl[2] + 1);
    [(mems[0], ivl[0]), (mems[1], ivl[1]), (mems[2], ivl[2]), (mems[3], ivl[3])]
}

// ---------------------------------------------------------------------------------------------
// The queue

/// What an item reminds the reader of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// A quiz question missed: its stable key (`topic/numeric0/17`) and topic.
    Question { key: String, topic: String },
    /// A Sticking point from the log: the normalised concept and the session it came from.
    StickingPoint { concept: String, session: String },
}

impl Subject {
    pub fn id(&self) -> String {
        match self {
            Subject::Question { key, .. } => format!("q:{key}"),
            Subject::StickingPoint { concept, .. } => format!("s:{concept}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub subject: Subject,
    pub memory: Option<Memory>,
    /// Day numbers (days since 1970-01-01 in the reader's time zone; see `hour::local_day`).
    pub last_day: Option<i64>,
    pub due_day: i64,
    pub reps: u32,
    pub lapses: u32,
}

/// The review queue, in insertion order (never a hash order: it is shown and stored).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queue {
    pub items: Vec<Item>,
}

/// Adds a subject missed on `today`; it is first offered tomorrow. A subject already queued is
/// brought forward to tomorrow if it was due later (it was just missed again).
pub fn add(queue: &Queue, subject: Subject, today: i64) -> Queue {
    let mut q = queue.clone();
    let id = subject.id();
    match q.items.iter_mut().find(|i| i.subject.id() == id) {
        Some(item) => item.due_day = item.due_day.min(today + 1),
        None => q.items.push(Item { subject, memory: None, last_day: None, due_day: today + 1, reps: 0, lapses: 0 }),
    }
    q
}

/// Queues every question a quiz missed (their keys are `topic/...`).
pub fn add_missed(queue: &Queue, score: &crate::quiz::Score, today: i64) -> Queue {
    score.missed.iter().fold(queue.clone(), |q, key| {
        let topic = key.split('/').next().unwrap_or_default().to_owned();
        add(&q, Subject::Question { key: key.clone(), topic }, today)
    })
}

/// Queues the Sticking points of the log (normalised, so rewordings are one item), each from the
/// day after its entry; entries without a valid date count from `today`.
pub fn add_sticking_points(queue: &Queue, log: &crate::progress::ProgressLog, today: i64) -> Queue {
    log.entries.iter().fold(queue.clone(), |q, e| {
        let Some(sp) = e.sticking_point().filter(|s| !s.is_none()) else { return q };
        let concept = crate::engine::remediation::normalise(sp.text);
        if concept.is_empty() {
            return q;
        }
        let day = e.date.map_or(today, crate::engine::hour::day_of_date);
        add(&q, Subject::StickingPoint { concept, session: e.session().to_string() }, day)
    })
}

/// Records a review of the item with subject id `id` on `today`.
pub fn review(params: &Params, queue: &Queue, id: &str, rating: Rating, today: i64) -> Queue {
    let mut q = queue.clone();
    if let Some(item) = q.items.iter_mut().find(|i| i.subject.id() == id) {
        let elapsed = item.last_day.map_or(0, |d| u32::try_from((today - d).max(0)).unwrap_or(u32::MAX));
        let (memory, days) = preview(params, item.memory, elapsed)[rating as usize - 1];
        if rating == Rating::Again && item.memory.is_some() {
            item.lapses += 1;
        }
        item.memory = Some(memory);
        item.last_day = Some(today);
        item.due_day = today + i64::from(days);
        item.reps += 1;
    }
    q
}

/// The items due on `today`, at most `limit`: most overdue relative to their stability first
/// (lowest recall probability), new items after reviewed ones, ties by subject for a stable order.
pub fn due(queue: &Queue, today: i64, limit: usize) -> Vec<&Item> {
    let mut due: Vec<(&Item, u64)> = queue
        .items
        .iter()
        .filter(|i| i.due_day <= today)
        .map(|i| {
            // Sort on an integer key so equal floats never depend on the platform.
            let r = match (i.memory, i.last_day) {
                (Some(m), Some(last)) => retrievability((today - last).max(0) as f64, m.stability),
                _ => 1.0,
            };
            (i, (r * 1e9) as u64)
        })
        .collect();
    due.sort_by(|(a, ra), (b, rb)| ra.cmp(rb).then_with(|| a.subject.cmp(&b.subject)));
    due.into_iter().take(limit).map(|(i, _)| i).collect()
}

/// About one minute per item: the five-minute review between sessions.
pub const FIVE_MINUTES: usize = 5;

/// A stable short hash of a subject, handy as a key in the app's storage.
pub fn subject_hash(subject: &Subject) -> u64 {
    rng::mix(rng::fnv1a(&subject.id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrievability_is_ninety_percent_at_stability() {
        for s in [0.5, 3.0, 100.0] {
            assert!((retrievability(s, s) - 0.9).abs() < 1e-12);
            assert_eq!(interval(&Params::default(), s), libm::round(s).max(1.0) as u32);
        }
    }
}
