//! Fuzz target: quiz templates (quiz.toml), question generation from seeds, and answer grading.
//!
//! Raw text checks that the parser never panics. Random raw text almost never forms a valid
//! `[[topic.numeric]]` table, so most inputs build a well-formed bank from fuzzed pieces
//! (formulas, parameter values including NaN and infinities, options, seeds) and drive the
//! generator and the grader through it. Laws checked besides "no panic": the same seed gives the
//! same quiz, a choice question's right option is one of its options, and every finite number
//! the quiz prints reads back as a number.

#![no_main]

use bookside_core::quiz::{self, Answer, QuestionKind};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Input {
    Raw(String),
    Bank(Bank),
    Answer { text: String, unit: Option<String>, x: f64 },
}

#[derive(Debug, Arbitrary)]
struct Bank {
    prompt: String,
    params: Vec<(u8, Vec<f64>)>,
    formula: Formula,
    unit: Option<String>,
    tolerance: f64,
    correct: Vec<String>,
    wrong: Vec<String>,
    options: u8,
    seeds: Vec<u64>,
    answers: Vec<String>,
}

/// An answer formula: mostly well-formed over the parameters, sometimes arbitrary text.
#[derive(Debug, Arbitrary)]
enum Formula {
    Num(f64),
    Var(u8),
    Bin(Box<Formula>, u8, Box<Formula>),
    Call(u8, Vec<Formula>),
    Neg(Box<Formula>),
    Raw(String),
}

const OPS: [&str; 5] = ["+", "-", "*", "/", "^"];
const FUNCS: [&str; 9] = ["sqrt", "log2", "ln", "exp", "ceil", "floor", "round", "min", "max"];

impl Formula {
    fn render(&self, out: &mut String, depth: usize) {
        if depth > 12 {
            out.push('1');
            return;
        }
        match self {
            Formula::Num(v) if v.is_finite() => out.push_str(&format!("{}", v.abs())),
            Formula::Num(_) => out.push('0'),
            Formula::Var(n) => out.push_str(&format!("p{}", n % 4)),
            Formula::Bin(a, op, b) => {
                out.push('(');
                a.render(out, depth + 1);
                out.push_str(OPS[*op as usize % OPS.len()]);
                b.render(out, depth + 1);
                out.push(')');
            }
            Formula::Call(f, args) => {
                out.push_str(FUNCS[*f as usize % FUNCS.len()]);
                out.push('(');
                for (i, a) in args.iter().take(3).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    a.render(out, depth + 1);
                }
                out.push(')');
            }
            Formula::Neg(a) => {
                out.push('-');
                a.render(out, depth + 1);
            }
            Formula::Raw(s) => out.push_str(s),
        }
    }
}

/// A TOML basic string holding exactly `s`.
fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:?}")
    }
}

fn toml_list(items: &[String]) -> String {
    format!("[{}]", items.iter().take(8).map(|s| toml_str(s)).collect::<Vec<_>>().join(", "))
}

impl Bank {
    fn to_toml(&self) -> String {
        let mut formula = String::new();
        self.formula.render(&mut formula, 0);
        let mut params: Vec<String> = Vec::new();
        for (name, values) in self.params.iter().take(4) {
            let key = format!("p{}", name % 4);
            if params.iter().any(|p| p.starts_with(&format!("{key} "))) {
                continue;
            }
            let values: Vec<String> = values.iter().take(6).map(|v| toml_float(*v)).collect();
            params.push(format!("{key} = [{}]", values.join(", ")));
        }
        let mut t = String::from("[[topic]]\nid = \"t\"\ntitle = \"fuzzed\"\n");
        t.push_str(&format!("\n[[topic.numeric]]\nprompt = {}\nparams = {{ {} }}\nanswer = {}\n", toml_str(&self.prompt), params.join(", "), toml_str(&formula)));
        if let Some(unit) = &self.unit {
            t.push_str(&format!("unit = {}\n", toml_str(unit)));
        }
        t.push_str(&format!("tolerance = {}\n", toml_float(self.tolerance)));
        t.push_str(&format!(
            "\n[[topic.choice]]\nprompt = \"pick\"\ncorrect = {}\nwrong = {}\noptions = {}\n",
            toml_list(&self.correct),
            toml_list(&self.wrong),
            self.options % 10
        ));
        t.push_str("\n[[topic.explain]]\nprompt = \"why\"\nanswer = \"because\"\nkeywords = [\"because\"]\n");
        t
    }
}

fn check_bank(text: &str, seeds: &[u64], answers: &[String]) {
    let (bank, _diags) = quiz::parse_quiz("quiz.toml", text);
    let topics: Vec<String> = bank.topics.iter().map(|t| t.id.clone()).chain(["missing".to_owned()]).collect();
    for &seed in seeds.iter().take(4) {
        let first = quiz::generate(&bank, &topics, seed, 3);
        // Debug, not ==: a NaN answer is never equal to itself, yet must be generated alike.
        assert_eq!(format!("{first:?}"), format!("{:?}", quiz::generate(&bank, &topics, seed, 3)), "seed {seed} gave two quizzes");
        let mut grades = Vec::new();
        for q in &first.questions {
            let expected = q.expected();
            match &q.kind {
                QuestionKind::Choice { options, correct } => assert!(*correct < options.len(), "right option out of range in {q:?}"),
                QuestionKind::Numeric { answer, .. } if answer.is_finite() => {
                    let shown = quiz::fmt_number(*answer);
                    assert!(quiz::read_quantity(&shown, None).is_ok(), "the quiz shows {shown}, which it cannot read back");
                }
                _ => {}
            }
            let mut tries: Vec<Answer> = answers.iter().take(4).map(|a| Answer::Text(a.clone())).collect();
            tries.extend([Answer::Text(expected), Answer::Pick(0), Answer::Pick(usize::MAX), Answer::SelfMarked { right: true }]);
            for a in &tries {
                grades.push(quiz::grade(q, a).grade);
            }
        }
        let score = quiz::score(&bank, &first, &grades);
        let _ = quiz::phase0_skip(&first, &score, &topics);
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Raw(text) => check_bank(&text, &[0, 1], &["1".to_owned()]),
        Input::Bank(bank) => check_bank(&bank.to_toml(), &bank.seeds, &bank.answers),
        Input::Answer { text, unit, x } => {
            let _ = quiz::read_quantity(&text, unit.as_deref());
            let shown = quiz::fmt_number(x);
            if x.is_finite() {
                assert!(quiz::read_quantity(&shown, None).is_ok(), "fmt_number({x:?}) = {shown} does not read back");
            }
        }
    }
});
