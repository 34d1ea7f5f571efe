//! FSRS against published values, and the review queue's behaviour.
//!
//! The reference histories are those of ts-fsrs's long-term scheduler tests (the FSRS project's
//! TypeScript implementation, short-term steps off, no fuzz), with the 19 FSRS-5 weights used
//! there. That implementation rounds stability and difficulty to 8 decimals after each review,
//! so values are compared to 1e-6; intervals must match exactly.

use bookside_core::engine::review::{
    DEFAULT_W, FIVE_MINUTES, Memory, Params, Queue, Rating, Subject, add, due, next_memory, preview, review,
};

use Rating::{Again, Easy, Good, Hard};

const W: [f64; 19] = [
    0.4197, 1.1869, 3.0412, 15.2441, 7.1434, 0.6477, 1.0007, 0.0674, 1.6597, 0.1712, 1.1178, 2.0225, 0.0904, 0.3025, 2.1214,
    0.2498, 2.9466, 0.4891, 0.6468,
];

struct Case {
    ratings: &'static [Rating],
    intervals: &'static [u32],
    stability: &'static [f64],
    difficulty: &'static [f64],
}

fn run(case: &Case) {
    let params = Params { w: W, ..Params::default() };
    let mut memory: Option<Memory> = None;
    let mut elapsed = 0;
    for (k, &rating) in case.ratings.iter().enumerate() {
        let (m, days) = preview(&params, memory, elapsed)[rating as usize - 1];
        assert_eq!(days, case.intervals[k], "interval after review {k} ({rating:?})");
        assert!((m.stability - case.stability[k]).abs() < 1e-6 * case.stability[k].max(1.0), "stability {k}: {} vs {}", m.stability, case.stability[k]);
        assert!((m.difficulty - case.difficulty[k]).abs() < 1e-6, "difficulty {k}: {} vs {}", m.difficulty, case.difficulty[k]);
        memory = Some(m);
        // The next review happens on the due day.
        elapsed = days;
    }
}

#[test]
fn published_histories() {
    let cases = [
        Case {
            ratings: &[Good, Good, Good, Good, Good, Good, Again, Again, Good, Good, Good, Good, Good],
            intervals: &[3, 13, 48, 155, 445, 1158, 17, 3, 11, 37, 112, 307, 773],
            stability: &[
                3.0412, 13.09130698, 48.15848988, 154.93732625, 445.05562739, 1158.07779739, 16.63063166, 3.01732209, 11.42247264,
                37.37521902, 111.8752758, 306.5974569, 772.94026648,
            ],
            difficulty: &[
                4.49094334, 4.26664289, 4.05746029, 3.86237659, 3.68044154, 3.51076891, 4.69833071, 5.55956298, 5.26323756,
                4.98688448, 4.72915759, 4.4888015, 4.26464541,
            ],
        },
        Case {
            ratings: &[Again, Hard, Good, Easy, Again, Hard, Good, Easy],
            intervals: &[1, 2, 6, 41, 4, 7, 21, 133],
            stability: &[0.4197, 1.0344317, 5.5356759, 41.0033667, 4.46605519, 6.67743292, 20.88868155, 132.81849454],
            difficulty: &[7.1434, 7.03653841, 6.64066485, 5.92312772, 6.44779861, 6.45995078, 6.10293922, 5.36588547],
        },
        Case {
            ratings: &[Hard, Good, Easy, Again, Hard, Good, Easy, Again],
            intervals: &[2, 7, 54, 5, 8, 26, 171, 8],
            stability: &[1.1869, 6.59167572, 53.76078737, 5.0853693, 8.09786749, 25.52991279, 171.16195166, 8.11072373],
            difficulty: &[6.23225985, 5.89059466, 5.14583392, 5.884097, 5.99269555, 5.667177, 4.91430736, 5.71619151],
        },
        Case {
            ratings: &[Good, Easy, Again, Hard, Good, Easy, Again, Hard],
            intervals: &[3, 33, 4, 7, 26, 193, 9, 14],
            stability: &[3.0412, 32.65484522, 4.22256838, 7.2325009, 25.52681746, 193.36618775, 8.63899847, 14.31323867],
            difficulty: &[4.49094334, 3.69538259, 4.83221448, 5.12078462, 4.85403286, 4.07165035, 5.1050878, 5.34697075],
        },
        Case {
            ratings: &[Easy, Again, Hard, Good, Easy, Again, Hard, Good],
            intervals: &[15, 3, 6, 27, 240, 10, 17, 60],
            stability: &[15.2441, 3.25621013, 6.32684549, 26.56339029, 239.70462771, 9.75621519, 17.06035531, 59.59547542],
            difficulty: &[1.16304343, 2.99573557, 3.59851762, 3.43436666, 2.60045771, 4.03816348, 4.46259158, 4.24020203],
        },
    ];
    for case in &cases {
        run(case);
    }
}

#[test]
fn defaults_are_fsrs5() {
    let p = Params::default();
    assert_eq!(p.w, DEFAULT_W);
    // A new item rated Good starts with S = w2 and is due in round(w2) days.
    let first = next_memory(&p, None, 0, Good);
    assert_eq!(first.stability, 3.173);
    assert_eq!(preview(&p, None, 0).map(|(_, d)| d), [1, 2, 3, 16]);
}

#[test]
fn queue_offers_missed_items_and_spaces_them_out() {
    let p = Params::default();
    let today = 20_000;
    let q1 = Subject::Question { key: "kv/numeric0/3".into(), topic: "kv".into() };
    let sp = Subject::StickingPoint { concept: "per-head vs per-layer cache sizing".into(), session: "S1.3".into() };
    let queue = add(&add(&Queue::default(), q1.clone(), today), sp.clone(), today);
    assert!(due(&queue, today, FIVE_MINUTES).is_empty(), "missed today, offered from tomorrow");
    let tomorrow = today + 1;
    let offered: Vec<String> = due(&queue, tomorrow, FIVE_MINUTES).iter().map(|i| i.subject.id()).collect();
    assert_eq!(offered, ["q:kv/numeric0/3", "s:per-head vs per-layer cache sizing"]);
    assert_eq!(due(&queue, tomorrow, 1).len(), 1, "the limit holds");

    // Good pushes the question three days out; Again keeps the sticking point close.
    let queue = review(&p, &queue, &q1.id(), Good, tomorrow);
    let queue = review(&p, &queue, &sp.id(), Again, tomorrow);
    let by_id = |id: String| queue.items.iter().find(|i| i.subject.id() == id).unwrap().clone();
    assert_eq!(by_id(q1.id()).due_day, tomorrow + 3);
    assert_eq!(by_id(sp.id()).due_day, tomorrow + 1);
    assert_eq!(by_id(q1.id()).reps, 1);

    // Missing the question again brings it forward, without duplicating it.
    let queue = add(&queue, q1.clone(), tomorrow + 1);
    assert_eq!(queue.items.len(), 2);
    assert_eq!(queue.items[0].due_day, tomorrow + 2);

    // A lapse on a reviewed item counts.
    let queue = review(&p, &queue, &q1.id(), Again, tomorrow + 2);
    assert_eq!(queue.items[0].lapses, 1);
}

#[test]
fn most_forgotten_first() {
    let p = Params::default();
    let a = Subject::Question { key: "a".into(), topic: "t".into() };
    let b = Subject::Question { key: "b".into(), topic: "t".into() };
    let mut queue = add(&add(&Queue::default(), a.clone(), 0), b.clone(), 0);
    queue = review(&p, &queue, &a.id(), Easy, 1); // due in ~16 days
    queue = review(&p, &queue, &b.id(), Hard, 1); // due in ~2 days
    // On day 40 both are overdue; the one with the lower stability has faded more.
    let order: Vec<String> = due(&queue, 40, 5).iter().map(|i| i.subject.id()).collect();
    assert_eq!(order, ["q:b", "q:a"]);
}

#[test]
fn missed_questions_and_sticking_points_feed_the_queue() {
    use bookside_core::engine::review::{add_missed, add_sticking_points};
    use bookside_core::quiz::Score;
    let score = Score { right: 1, total: 3, reread: vec![], missed: vec!["kv-cache-size/numeric0/4".into(), "softmax/choice0/2".into()] };
    let queue = add_missed(&Queue::default(), &score, 100);
    let subjects: Vec<&Subject> = queue.items.iter().map(|i| &i.subject).collect();
    assert_eq!(
        subjects,
        [
            &Subject::Question { key: "kv-cache-size/numeric0/4".into(), topic: "kv-cache-size".into() },
            &Subject::Question { key: "softmax/choice0/2".into(), topic: "softmax".into() },
        ]
    );

    let log = "### 2026-07-21 — S1.3 (t) — PARTIAL\n- **Sticking point**: Per-head vs per-layer cache sizing (ladder rung 2)\n\n\
               ### 2026-07-22 — S1.3 (t) — DONE\n- **Sticking point**: per head versus per layer cache sizing (ladder rung 1)\n\n\
               ### 2026-07-23 — S1.4 (t) — DONE\n- **Sticking point**: none\n";
    let (log, _) = bookside_core::progress::parse(log);
    let queue = add_sticking_points(&Queue::default(), &log, 0);
    assert_eq!(queue.items.len(), 1, "rewordings of one concept are one item; `none` is none");
    let item = &queue.items[0];
    assert_eq!(item.subject.id(), "s:per head vs per layer cache sizing");
    // First seen on 2026-07-21 (day 20655): due the next day.
    assert_eq!(item.due_day, 20_656);
}

#[test]
fn the_stored_queue_round_trips_through_json() {
    use bookside_core::wire::StoredQueue;
    let mut queue = add(&Queue::default(), Subject::Question { key: "softmax/choice0/2".into(), topic: "softmax".into() }, 10);
    queue = add(&queue, Subject::StickingPoint { concept: "mb vs mib".into(), session: "S0.3".into() }, 10);
    for (day, rating) in [(11, Good), (14, Again), (15, Hard)] {
        queue = review(&Params::default(), &queue, "q:softmax/choice0/2", rating, day);
    }
    let json = serde_json::to_string(&StoredQueue::from_queue(&queue)).unwrap();
    let back: StoredQueue = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_queue(), queue, "stability and difficulty come back bit for bit");
    // An item kind from a newer version is left out rather than failing the whole queue.
    let newer = json.replacen("\"sticking-point\"", "\"flashcard\"", 1);
    assert_eq!(serde_json::from_str::<StoredQueue>(&newer).unwrap().to_queue().items.len(), 1);
}
