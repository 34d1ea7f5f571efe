//! The sample book's quiz bank: it parses cleanly, and every topic gives 20 distinct, valid
//! questions over 20 seeds, each with an answer that grades right and a wrong one that grades
//! wrong.

use std::collections::BTreeSet;

use bookside_core::quiz::{self, Answer, Grade, Question, QuestionKind, QuizBank, fmt_number, grade};

fn bank() -> QuizBank {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/quiz.toml");
    let text = std::fs::read_to_string(path).expect("book/quiz.toml");
    let (bank, diags) = quiz::parse_quiz("quiz.toml", &text);
    assert!(diags.is_empty(), "quiz.toml diagnostics:\n{}", diags.iter().map(|d| format!("{d}\n")).collect::<String>());
    assert!(!bank.topics.is_empty());
    bank
}

/// A question's identity for "distinct": what the reader sees (prompt and the set of options).
fn seen(q: &Question) -> String {
    match &q.kind {
        QuestionKind::Choice { options, .. } => {
            let set: BTreeSet<&String> = options.iter().collect();
            format!("{} {set:?}", q.prompt)
        }
        _ => q.prompt.clone(),
    }
}

/// The right answer as a reader would type it, and a wrong one.
fn answers(q: &Question) -> (Answer, Answer) {
    match &q.kind {
        QuestionKind::Numeric { answer, unit, tolerance } => {
            let right = match unit {
                Some(u) => format!("{} {u}", fmt_number(*answer)),
                None => fmt_number(*answer),
            };
            // Off by far more than any tolerance (and never zero-equal to the answer).
            let off = if *answer == 0.0 { 1.0 } else { answer * (1.5 + tolerance * 10.0) };
            (Answer::Text(right), Answer::Text(format!("{off:e}")))
        }
        QuestionKind::Choice { options, correct } => (Answer::Pick(*correct), Answer::Pick((correct + 1) % options.len())),
        QuestionKind::Explain { .. } => (Answer::SelfMarked { right: true }, Answer::SelfMarked { right: false }),
    }
}

#[test]
fn every_topic_gives_twenty_distinct_checked_questions() {
    let bank = bank();
    for topic in &bank.topics {
        let mut distinct = BTreeSet::new();
        for seed in 0..20u64 {
            let q = quiz::question(topic, seed).unwrap_or_else(|| panic!("topic {} seed {seed}: no question", topic.id));
            assert_eq!(q.topic, topic.id);
            assert!(!q.prompt.is_empty() && !q.prompt.contains('{'), "topic {} seed {seed}: unfilled prompt {:?}", topic.id, q.prompt);
            match &q.kind {
                QuestionKind::Numeric { answer, .. } => assert!(answer.is_finite(), "topic {} seed {seed}", topic.id),
                QuestionKind::Choice { options, correct } => {
                    assert!(*correct < options.len() && options.len() >= 2);
                    assert_eq!(options.iter().collect::<BTreeSet<_>>().len(), options.len(), "options repeat");
                }
                QuestionKind::Explain { model_answer, .. } => assert!(!model_answer.is_empty()),
            }
            let (right, wrong) = answers(&q);
            let fb = grade(&q, &right);
            assert_eq!(fb.grade, Grade::Right, "topic {} seed {seed}: {:?} should grade right for {:?}", topic.id, right, q.prompt);
            assert_eq!(grade(&q, &wrong).grade, Grade::Wrong, "topic {} seed {seed}: {:?} should grade wrong", topic.id, wrong);
            assert!(!fb.expected.is_empty());
            distinct.insert(seen(&q));
        }
        assert_eq!(distinct.len(), 20, "topic {}: 20 seeds should give 20 distinct questions", topic.id);
    }
}

#[test]
fn the_same_seed_gives_the_same_quiz() {
    let bank = bank();
    let topics: Vec<String> = bank.topics.iter().map(|t| t.id.clone()).collect();
    for seed in [0, 1, 42, u64::MAX] {
        assert_eq!(quiz::generate(&bank, &topics, seed, 3), quiz::generate(&bank, &topics, seed, 3));
    }
    let a = quiz::generate(&bank, &topics, 1, 3);
    let b = quiz::generate(&bank, &topics, 2, 3);
    let keys = |q: &quiz::Quiz| q.questions.iter().map(|q| q.key.clone()).collect::<BTreeSet<_>>();
    assert!(keys(&a).is_disjoint(&keys(&b)), "successive quiz seeds give fresh questions");
}

#[test]
fn every_quiz_topic_a_card_names_exists() {
    let bank = bank();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/src/session-guide.md");
    let (guide, _) = bookside_core::guide::parse("session-guide.md", &std::fs::read_to_string(path).unwrap());
    for card in &guide.cards {
        for t in &card.quiz {
            assert!(bank.topic(t).is_some(), "card {} names quiz topic {t}, missing from quiz.toml", card.id);
        }
    }
}
