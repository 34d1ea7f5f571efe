//! The quiz bank (quiz.toml): generating and grading quizzes from a seed.
//!
//! The file format is documented in docs/FORMATS.md. In short:
//!
//! ```text
//! [[topic]]            id, title, reread, themes
//! [[topic.numeric]]    prompt with {param} holes, params = { name = [values] }, answer = formula,
//!                      unit, tolerance (relative, 0 = exact), why
//! [[topic.choice]]     prompt, correct = [..], wrong = [..], options = N, why
//! [[topic.explain]]    prompt, answer (the model answer), keywords
//! ```
//!
//! [`parse_quiz`] never fails: it keeps every topic and template it can read and reports the rest
//! as diagnostics with line numbers.
//!
//! **The question space.** Each topic has a finite, enumerable set of distinct questions: one per
//! parameter combination of a numeric template, one per (correct option, set of wrong options)
//! of a choice template, one per explain template. [`question`] maps a seed onto that space
//! through a fixed per-topic permutation, so any `n` consecutive seeds give `n` distinct
//! questions (as long as the topic has that many), the same seed always gives the same question,
//! and everything is integer arithmetic plus `libm`: wasm32 and native agree to the bit.

use std::collections::BTreeSet;

use toml::de::{DeTable, DeValue};

use crate::diag::Diagnostic;
use crate::expr::{self, Expr};
use crate::rng::{self, Rng};

/// A topic must offer at least this many distinct questions (docs/FORMATS.md).
pub const MIN_QUESTIONS: u64 = 20;

/// The share of right answers, in percent, that passes a quiz.
pub const PASS_PERCENT: usize = 80;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuizBank {
    pub topics: Vec<Topic>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    pub id: String,
    pub title: String,
    /// The chapter section to re-read after missing a question (`kv-cache.md#what-the-cache-stores`).
    pub reread: Option<String>,
    pub themes: Vec<String>,
    pub numeric: Vec<Numeric>,
    pub choice: Vec<Choice>,
    pub explain: Vec<Explain>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub values: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Numeric {
    pub prompt: String,
    /// Sorted by name, so the enumeration order does not depend on how the file lists them.
    pub params: Vec<Param>,
    pub formula: String,
    pub answer: Expr,
    pub unit: Option<String>,
    pub tolerance: f64,
    pub why: Option<String>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub prompt: String,
    pub correct: Vec<String>,
    pub wrong: Vec<String>,
    /// How many options a question shows: one correct and `options - 1` wrong.
    pub options: usize,
    pub why: Option<String>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    pub prompt: String,
    pub answer: String,
    pub keywords: Vec<String>,
    pub line: usize,
}

impl QuizBank {
    pub fn topic(&self, id: &str) -> Option<&Topic> {
        self.topics.iter().find(|t| t.id == id)
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// Reads quiz.toml. `file` names it in diagnostics.
pub fn parse_quiz(file: &str, text: &str) -> (QuizBank, Vec<Diagnostic>) {
    let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut cx = Cx { file, line_starts, diags: Vec::new() };
    let (doc, errors) = DeTable::parse_recoverable(text);
    for e in &errors {
        let line = e.span().map_or(0, |s| cx.line(s.start));
        let msg = e.message().trim().trim_end_matches('.').to_lowercase();
        cx.diag(line, format!("toml syntax: {msg}"));
    }
    let mut bank = QuizBank::default();
    let doc = doc.get_ref();
    for (key, _) in doc.iter() {
        if key.get_ref() != "topic" {
            cx.diag(cx.line(key.span().start), format!("unknown top-level key `{}`: only [[topic]] tables are read", key.get_ref()));
        }
    }
    match doc.get("topic").map(|v| (v.get_ref(), v.span())) {
        None => cx.diag(0, "no [[topic]] tables: add one per quiz topic"),
        Some((DeValue::Array(items), _)) => {
            for item in items.iter() {
                let line = cx.line(item.span().start);
                match item.get_ref() {
                    DeValue::Table(t) => {
                        if let Some(topic) = cx.topic(t, line) {
                            if bank.topic(&topic.id).is_some() {
                                cx.diag(topic.line, format!("duplicate topic id `{}`: rename one of them", topic.id));
                            } else {
                                bank.topics.push(topic);
                            }
                        }
                    }
                    _ => cx.diag(line, "`topic` must be a table: write [[topic]]"),
                }
            }
        }
        Some((_, span)) => cx.diag(cx.line(span.start), "`topic` must be an array of tables: write [[topic]]"),
    }
    let mut diags = cx.diags;
    diags.sort();
    diags.dedup();
    (bank, diags)
}

struct Cx<'a> {
    file: &'a str,
    /// Byte offset where each line of the file starts, so a span's line is a binary search
    /// (counting newlines from the top for every key made the parse quadratic).
    line_starts: Vec<usize>,
    diags: Vec<Diagnostic>,
}

type Table<'i> = DeTable<'i>;

impl Cx<'_> {
    fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    fn diag(&mut self, line: usize, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(self.file, line, msg));
    }

    fn line_of_key(&self, t: &Table<'_>, key: &str, fallback: usize) -> usize {
        t.get(key).map_or(fallback, |v| self.line(v.span().start))
    }

    fn unknown_keys(&mut self, t: &Table<'_>, known: &[&str], what: &str) {
        for (k, _) in t.iter() {
            if !known.contains(&k.get_ref().as_ref()) {
                let line = self.line(k.span().start);
                self.diag(line, format!("unknown key `{}` in {what}: it is ignored (known: {})", k.get_ref(), known.join(", ")));
            }
        }
    }

    fn string(&mut self, t: &Table<'_>, key: &str, required: bool, what: &str, line: usize) -> Option<String> {
        match t.get(key).map(|v| v.get_ref()) {
            Some(DeValue::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Some(DeValue::String(_)) | None => {
                if required {
                    self.diag(line, format!("{what} has no `{key}`: add `{key} = \"...\"`"));
                }
                None
            }
            Some(other) => {
                let l = self.line_of_key(t, key, line);
                self.diag(l, format!("`{key}` in {what} must be a string, not {}", other.type_str()));
                None
            }
        }
    }

    fn strings(&mut self, t: &Table<'_>, key: &str, what: &str, line: usize) -> Vec<String> {
        let Some(v) = t.get(key) else { return Vec::new() };
        let l = self.line(v.span().start);
        match v.get_ref() {
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(s) => out.push(s.trim().to_owned()),
                        other => self.diag(l, format!("`{key}` in {what} must list strings; found {}", other.type_str())),
                    }
                }
                out
            }
            DeValue::String(s) => vec![s.trim().to_owned()],
            other => {
                self.diag(line.max(l), format!("`{key}` in {what} must be an array of strings, not {}", other.type_str()));
                Vec::new()
            }
        }
    }

    fn number(&mut self, v: &DeValue<'_>) -> Option<f64> {
        match v {
            DeValue::Integer(i) => i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok().map(|n| n as f64),
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok().filter(|x| x.is_finite()),
            _ => None,
        }
    }

    fn tables<'t, 'i>(&mut self, t: &'t Table<'i>, key: &str, what: &str) -> Vec<(&'t Table<'i>, usize)> {
        let Some(v) = t.get(key) else { return Vec::new() };
        let line = self.line(v.span().start);
        match v.get_ref() {
            DeValue::Array(items) => items
                .iter()
                .filter_map(|item| match item.get_ref() {
                    DeValue::Table(tt) => Some((tt, self.line(item.span().start))),
                    _ => {
                        self.diag(line, format!("`{key}` in {what} must hold tables: write [[topic.{key}]]"));
                        None
                    }
                })
                .collect(),
            _ => {
                self.diag(line, format!("`{key}` in {what} must be an array of tables: write [[topic.{key}]]"));
                Vec::new()
            }
        }
    }

    fn topic(&mut self, t: &Table<'_>, line: usize) -> Option<Topic> {
        self.unknown_keys(t, &["id", "title", "reread", "themes", "numeric", "choice", "explain"], "a topic");
        let id = self.string(t, "id", true, "a topic", line)?;
        let what = format!("topic `{id}`");
        let title = self.string(t, "title", false, &what, line).unwrap_or_else(|| id.clone());
        let reread = self.string(t, "reread", false, &what, line);
        let themes = self.strings(t, "themes", &what, line);
        let mut topic = Topic { id, title, reread, themes, numeric: Vec::new(), choice: Vec::new(), explain: Vec::new(), line };
        for (tt, l) in self.tables(t, "numeric", &what) {
            if let Some(n) = self.numeric(tt, l, &what) {
                topic.numeric.push(n);
            }
        }
        for (tt, l) in self.tables(t, "choice", &what) {
            if let Some(c) = self.choice(tt, l, &what) {
                topic.choice.push(c);
            }
        }
        for (tt, l) in self.tables(t, "explain", &what) {
            if let Some(e) = self.explain(tt, l, &what) {
                topic.explain.push(e);
            }
        }
        let size = topic_size(&topic);
        if size < MIN_QUESTIONS {
            self.diag(
                line,
                format!("{what} yields {size} distinct questions; a topic needs at least {MIN_QUESTIONS}: add parameter values, options or templates"),
            );
        }
        Some(topic)
    }

    fn numeric(&mut self, t: &Table<'_>, line: usize, topic: &str) -> Option<Numeric> {
        let what = format!("a numeric question of {topic}");
        self.unknown_keys(t, &["prompt", "params", "answer", "unit", "tolerance", "why"], &what);
        let prompt = self.string(t, "prompt", true, &what, line);
        let formula = self.string(t, "answer", true, &what, line);
        let unit = self.string(t, "unit", false, &what, line);
        let why = self.string(t, "why", false, &what, line);
        let mut params = Vec::new();
        if let Some(v) = t.get("params") {
            let pl = self.line(v.span().start);
            match v.get_ref() {
                DeValue::Table(pt) => {
                    for (k, vals) in pt.iter() {
                        let values: Vec<f64> = match vals.get_ref() {
                            DeValue::Array(items) => items.iter().filter_map(|i| self.number(i.get_ref())).collect(),
                            single => self.number(single).into_iter().collect(),
                        };
                        let mut distinct = values.clone();
                        distinct.sort_by(f64::total_cmp);
                        distinct.dedup();
                        if values.is_empty() {
                            self.diag(pl, format!("parameter `{}` in {what} has no numeric values: write `{} = [1, 2, 4]`", k.get_ref(), k.get_ref()));
                        } else if distinct.len() != values.len() {
                            self.diag(pl, format!("parameter `{}` in {what} repeats a value: list each value once", k.get_ref()));
                        }
                        if !distinct.is_empty() {
                            params.push(Param { name: k.get_ref().to_string(), values: distinct_in_order(&values) });
                        }
                    }
                }
                other => self.diag(pl, format!("`params` in {what} must be a table such as {{ layers = [4, 8] }}, not {}", other.type_str())),
            }
        }
        params.sort_by(|a, b| a.name.cmp(&b.name));
        let tolerance = match t.get("tolerance") {
            None => 0.0,
            Some(v) => match self.number(v.get_ref()) {
                Some(x) if x >= 0.0 => x,
                _ => {
                    let l = self.line(v.span().start);
                    self.diag(l, format!("`tolerance` in {what} must be a number ≥ 0 (relative; 0 means exact)"));
                    0.0
                }
            },
        };
        let (prompt, formula) = (prompt?, formula?);
        let answer_line = self.line_of_key(t, "answer", line);
        let answer = match expr::parse(&formula) {
            Ok(e) => e,
            Err(e) => {
                self.diag(answer_line, format!("`answer` of {what}: {e}"));
                return None;
            }
        };
        let names: BTreeSet<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let mut ok = true;
        for v in answer.variables() {
            if !names.contains(v.as_str()) {
                self.diag(answer_line, format!("`answer` of {what} uses `{v}`, which is not in `params`: add it or fix the name"));
                ok = false;
            }
        }
        let holes = holes(&prompt);
        let prompt_line = self.line_of_key(t, "prompt", line);
        for h in &holes {
            if !names.contains(h.as_str()) {
                self.diag(prompt_line, format!("the prompt of {what} has `{{{h}}}`, which is not in `params`"));
                ok = false;
            }
        }
        for p in &params {
            if !holes.contains(&p.name) {
                self.diag(prompt_line, format!("parameter `{}` of {what} never appears in the prompt: write `{{{}}}` in it, or two questions would read the same", p.name, p.name));
            }
        }
        if !ok {
            return None;
        }
        let n = Numeric { prompt, params, formula, answer, unit, tolerance, why, line };
        // Evaluate every combination (bounded) so a division by zero shows up now, not mid-quiz.
        let combos = combinations(&n.params).min(10_000);
        for i in 0..combos {
            let values = param_values(&n.params, i);
            if let Err(e) = n.answer.eval(&|name| lookup(&n.params, &values, name)) {
                let shown: Vec<String> = n.params.iter().zip(&values).map(|(p, v)| format!("{}={}", p.name, fmt_number(*v))).collect();
                self.diag(answer_line, format!("`answer` of {what} fails for {}: {}", shown.join(", "), e.message));
                return None;
            }
        }
        Some(n)
    }

    fn choice(&mut self, t: &Table<'_>, line: usize, topic: &str) -> Option<Choice> {
        let what = format!("a choice question of {topic}");
        self.unknown_keys(t, &["prompt", "correct", "wrong", "options", "why"], &what);
        let prompt = self.string(t, "prompt", true, &what, line);
        let correct = self.strings(t, "correct", &what, line);
        let wrong = self.strings(t, "wrong", &what, line);
        let why = self.string(t, "why", false, &what, line);
        let options = match t.get("options") {
            None => 4.min(wrong.len() + 1),
            Some(v) => match self.number(v.get_ref()) {
                Some(x) if x >= 2.0 && x.fract() == 0.0 => x as usize,
                _ => {
                    let l = self.line(v.span().start);
                    self.diag(l, format!("`options` in {what} must be a whole number ≥ 2"));
                    return None;
                }
            },
        };
        let prompt = prompt?;
        if correct.is_empty() {
            self.diag(line, format!("{what} has no `correct` answers: add `correct = [\"...\"]`"));
            return None;
        }
        if wrong.len() + 1 < options {
            self.diag(line, format!("{what} shows {options} options but has only {} wrong answers: add wrong answers or lower `options`", wrong.len()));
            return None;
        }
        let all: BTreeSet<&String> = correct.iter().chain(&wrong).collect();
        if all.len() != correct.len() + wrong.len() {
            self.diag(line, format!("{what} lists an answer twice (or as both correct and wrong): list each once"));
            return None;
        }
        Some(Choice { prompt, correct, wrong, options, why, line })
    }

    fn explain(&mut self, t: &Table<'_>, line: usize, topic: &str) -> Option<Explain> {
        let what = format!("an explain question of {topic}");
        self.unknown_keys(t, &["prompt", "answer", "keywords"], &what);
        let prompt = self.string(t, "prompt", true, &what, line);
        let answer = self.string(t, "answer", true, &what, line);
        let keywords = self.strings(t, "keywords", &what, line);
        Some(Explain { prompt: prompt?, answer: answer?, keywords, line })
    }
}

fn distinct_in_order(values: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for v in values {
        if !out.contains(v) {
            out.push(*v);
        }
    }
    out
}

/// The `{name}` holes of a prompt, in order of first appearance.
fn holes(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = after[..close].trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') && !out.iter().any(|h| h == name) {
            out.push(name.to_owned());
        }
        rest = &after[close + 1..];
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The question space

fn combinations(params: &[Param]) -> u64 {
    params.iter().fold(1u64, |acc, p| acc.saturating_mul(p.values.len() as u64))
}

/// The parameter values of combination `i` (mixed radix, first parameter most significant).
fn param_values(params: &[Param], mut i: u64) -> Vec<f64> {
    let mut out = vec![0.0; params.len()];
    for (k, p) in params.iter().enumerate().rev() {
        let n = p.values.len() as u64;
        out[k] = p.values[(i % n) as usize];
        i /= n;
    }
    out
}

fn lookup(params: &[Param], values: &[f64], name: &str) -> Option<f64> {
    params.iter().position(|p| p.name == name).map(|k| values[k])
}

/// n choose k, saturating.
fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        acc = acc * u128::from(n - i) / u128::from(i + 1);
        if acc > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    acc as u64
}

/// The `rank`-th k-subset of `0..n` in the combinatorial number system (colex order).
fn unrank_subset(n: u64, k: u64, mut rank: u64) -> Vec<usize> {
    let mut out = Vec::with_capacity(k as usize);
    let mut top = n;
    for kk in (1..=k).rev() {
        // The largest c < top with C(c, kk) <= rank.
        let mut c = kk - 1;
        while c + 1 < top && binomial(c + 1, kk) <= rank {
            c += 1;
        }
        rank -= binomial(c, kk);
        out.push(c as usize);
        top = c;
    }
    out.reverse();
    out
}

fn choice_size(c: &Choice) -> u64 {
    (c.correct.len() as u64).saturating_mul(binomial(c.wrong.len() as u64, c.options as u64 - 1))
}

/// How many distinct questions a topic can ask.
pub fn topic_size(t: &Topic) -> u64 {
    let n: u64 = t.numeric.iter().map(|n| combinations(&n.params)).fold(0, u64::saturating_add);
    let c: u64 = t.choice.iter().map(choice_size).fold(0, u64::saturating_add);
    n.saturating_add(c).saturating_add(t.explain.len() as u64)
}

/// Where seed `seed` lands in a topic of `size` questions: a bijection of `0..size` keyed by
/// the topic id, so consecutive seeds visit the space in a scattered order without repeating
/// until it is exhausted. It is a four-round Feistel network over the smallest even number of
/// bits that covers `size`, with cycle-walking to stay below `size` (a permutation of a power
/// of two restricted to a subrange stays a permutation of that subrange).
fn permute(topic_id: &str, size: u64, seed: u64) -> u64 {
    if size <= 1 {
        return 0;
    }
    let key = rng::mix(rng::fnv1a(topic_id));
    let bits = (64 - (size - 1).leading_zeros()).max(2).next_multiple_of(2);
    let half = bits / 2;
    let mask = (1u64 << half) - 1;
    let feistel = |x: u64| {
        let (mut l, mut r) = (x >> half, x & mask);
        for round in 0..4u64 {
            let f = rng::mix(key ^ (round << 56) ^ r) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << half) | r
    };
    let mut x = seed % size;
    loop {
        x = feistel(x);
        if x < size {
            return x;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Questions

#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub topic: String,
    /// Stable identity of the question (topic, template, variant): the same question always has
    /// the same key, whatever the seed that reached it. The review queue keys on it.
    pub key: String,
    pub prompt: String,
    pub kind: QuestionKind,
    /// Shown only after the reader has answered and explained: why the answer is what it is.
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    Numeric { answer: f64, unit: Option<String>, tolerance: f64 },
    Choice { options: Vec<String>, correct: usize },
    /// Graded by the reader against the model answer, after writing their own.
    Explain { model_answer: String, keywords: Vec<String> },
}

impl Question {
    /// The answer as it is revealed: a number with its unit, the right option, or the model answer.
    pub fn expected(&self) -> String {
        match &self.kind {
            QuestionKind::Numeric { answer, unit, .. } => match unit {
                Some(u) => format!("{} {u}", fmt_number(*answer)),
                None => fmt_number(*answer),
            },
            QuestionKind::Choice { options, correct } => format!("{}) {}", letter(*correct), options[*correct]),
            QuestionKind::Explain { model_answer, .. } => model_answer.clone(),
        }
    }
}

fn letter(i: usize) -> char {
    (b'A' + (i % 26) as u8) as char
}

/// The question a seed gives for one topic; `None` when the topic has no questions.
pub fn question(topic: &Topic, seed: u64) -> Option<Question> {
    let size = topic_size(topic);
    if size == 0 {
        return None;
    }
    let mut i = permute(&topic.id, size, seed);
    for (k, n) in topic.numeric.iter().enumerate() {
        let m = combinations(&n.params);
        if i < m {
            return Some(numeric_question(topic, k, n, i));
        }
        i -= m;
    }
    for (k, c) in topic.choice.iter().enumerate() {
        let m = choice_size(c);
        if i < m {
            return Some(choice_question(topic, k, c, i, seed));
        }
        i -= m;
    }
    let k = i as usize;
    let e = topic.explain.get(k)?;
    Some(Question {
        topic: topic.id.clone(),
        key: format!("{}/explain{k}", topic.id),
        prompt: e.prompt.clone(),
        kind: QuestionKind::Explain { model_answer: e.answer.clone(), keywords: e.keywords.clone() },
        why: Some(e.answer.clone()),
    })
}

fn numeric_question(topic: &Topic, k: usize, n: &Numeric, i: u64) -> Question {
    let values = param_values(&n.params, i);
    let mut prompt = n.prompt.clone();
    for (p, v) in n.params.iter().zip(&values) {
        prompt = prompt.replace(&format!("{{{}}}", p.name), &fmt_number(*v));
    }
    // Parsing evaluated every combination (up to a bound), so an error here is a combination
    // past that bound; it shows as NaN, which no answer grades right.
    let answer = n.answer.eval(&|name| lookup(&n.params, &values, name)).unwrap_or(f64::NAN);
    Question {
        topic: topic.id.clone(),
        key: format!("{}/numeric{k}/{i}", topic.id),
        prompt,
        kind: QuestionKind::Numeric { answer, unit: n.unit.clone(), tolerance: n.tolerance },
        why: n.why.clone(),
    }
}

fn choice_question(topic: &Topic, k: usize, c: &Choice, i: u64, seed: u64) -> Question {
    let per_correct = binomial(c.wrong.len() as u64, c.options as u64 - 1);
    let right = &c.correct[(i / per_correct) as usize];
    let wrong = unrank_subset(c.wrong.len() as u64, c.options as u64 - 1, i % per_correct);
    let mut options: Vec<String> = std::iter::once(right.clone()).chain(wrong.iter().map(|&w| c.wrong[w].clone())).collect();
    Rng::for_stream(seed, &format!("{}/choice{k}/{i}", topic.id)).shuffle(&mut options);
    let correct = options.iter().position(|o| o == right).unwrap_or(0);
    Question {
        topic: topic.id.clone(),
        key: format!("{}/choice{k}/{i}", topic.id),
        prompt: c.prompt.clone(),
        kind: QuestionKind::Choice { options, correct },
        why: c.why.clone(),
    }
}

/// The question a key names (`Question::key`), rebuilt without the seed that first reached it:
/// the review queue keeps keys only. Choice options are shuffled by the key itself, so a
/// reviewed question always shows its options in the same order. `None` when the bank no
/// longer has that topic, template or variant (the book changed).
pub fn question_by_key(bank: &QuizBank, key: &str) -> Option<Question> {
    let mut parts = key.split('/');
    let topic = bank.topic(parts.next()?)?;
    let template = parts.next()?;
    let variant: Option<u64> = parts.next().map(|v| v.parse().ok()).unwrap_or(None);
    if parts.next().is_some() {
        return None;
    }
    let index = |prefix: &str| template.strip_prefix(prefix).and_then(|k| k.parse::<usize>().ok());
    if let Some(k) = index("numeric") {
        let n = topic.numeric.get(k)?;
        let i = variant.filter(|&i| i < combinations(&n.params))?;
        return Some(numeric_question(topic, k, n, i));
    }
    if let Some(k) = index("choice") {
        let c = topic.choice.get(k)?;
        let i = variant.filter(|&i| i < choice_size(c))?;
        return Some(choice_question(topic, k, c, i, rng::fnv1a(key)));
    }
    let k = index("explain").filter(|_| variant.is_none())?;
    let e = topic.explain.get(k)?;
    Some(Question {
        topic: topic.id.clone(),
        key: key.to_owned(),
        prompt: e.prompt.clone(),
        kind: QuestionKind::Explain { model_answer: e.answer.clone(), keywords: e.keywords.clone() },
        why: Some(e.answer.clone()),
    })
}

/// A quiz: `per_topic` questions from each named topic, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Quiz {
    pub seed: u64,
    pub questions: Vec<Question>,
    /// Topic ids the bank does not have (the guide's diagnostics report them too).
    pub missing_topics: Vec<String>,
}

/// Generates a fresh quiz. Quiz `seed` uses question seeds `seed * per_topic ..` of each
/// topic, so successive quiz seeds walk through each topic's questions without repeats.
pub fn generate(bank: &QuizBank, topics: &[String], seed: u64, per_topic: usize) -> Quiz {
    let mut quiz = Quiz { seed, questions: Vec::new(), missing_topics: Vec::new() };
    for id in topics {
        let Some(topic) = bank.topic(id) else {
            quiz.missing_topics.push(id.clone());
            continue;
        };
        let size = topic_size(topic);
        let take = (per_topic as u64).min(size);
        for j in 0..take {
            let s = seed.wrapping_mul(per_topic as u64).wrapping_add(j);
            quiz.questions.extend(question(topic, s));
        }
    }
    quiz
}

// ---------------------------------------------------------------------------------------------
// Grading

/// What the reader gave. Choice questions accept a pick or text (`B`, `2`, or the option).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Text(String),
    Pick(usize),
    /// For explain questions: the reader's own verdict after comparing with the model answer.
    SelfMarked { right: bool },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grade {
    Right,
    Wrong,
    /// The answer could not be read; the message says how to write it. Scores as not right.
    Unreadable(String),
}

impl Grade {
    pub fn is_right(&self) -> bool {
        matches!(self, Grade::Right)
    }
}

/// The reader's attempt: the answer and, before anything is revealed, why they think so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub answer: Answer,
    pub explanation: String,
}

/// Whether the reveal may happen: a good answer says why, so the why comes first. Explain
/// questions are themselves the explanation, so the written answer is enough.
pub fn ready_to_reveal(q: &Question, attempt: &Attempt) -> Result<(), &'static str> {
    let explained = !attempt.explanation.trim().is_empty();
    match (&q.kind, explained) {
        (QuestionKind::Explain { .. }, _) | (_, true) => Ok(()),
        _ => Err("say in a sentence why you think so, then reveal the answer"),
    }
}

/// What the reader sees after the reveal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    pub grade: Grade,
    pub expected: String,
    pub why: Option<String>,
}

pub fn grade(q: &Question, answer: &Answer) -> Feedback {
    let grade = match (&q.kind, answer) {
        (QuestionKind::Numeric { answer: want, unit, tolerance }, Answer::Text(text)) => match read_quantity(text, unit.as_deref()) {
            Ok(candidates) => {
                if candidates.iter().any(|&x| within(x, *want, *tolerance)) {
                    Grade::Right
                } else {
                    Grade::Wrong
                }
            }
            Err(msg) => Grade::Unreadable(msg),
        },
        (QuestionKind::Numeric { .. }, _) => Grade::Unreadable("type a number".to_owned()),
        (QuestionKind::Choice { options, correct }, Answer::Pick(i)) => {
            if i == correct {
                Grade::Right
            } else if *i < options.len() {
                Grade::Wrong
            } else {
                Grade::Unreadable(format!("pick one of the {} options", options.len()))
            }
        }
        (QuestionKind::Choice { options, correct }, Answer::Text(text)) => match read_pick(text, options) {
            Some(i) if i == *correct => Grade::Right,
            Some(_) => Grade::Wrong,
            None => Grade::Unreadable(format!("answer with a letter from A to {}", letter(options.len().saturating_sub(1)))),
        },
        (QuestionKind::Choice { .. }, Answer::SelfMarked { .. }) => Grade::Unreadable("pick one of the options".to_owned()),
        (QuestionKind::Explain { .. }, Answer::SelfMarked { right }) => {
            if *right {
                Grade::Right
            } else {
                Grade::Wrong
            }
        }
        (QuestionKind::Explain { .. }, _) => {
            Grade::Unreadable("compare your explanation with the model answer and mark it right or not".to_owned())
        }
    };
    Feedback { grade, expected: q.expected(), why: q.why.clone() }
}

fn read_pick(text: &str, options: &[String]) -> Option<usize> {
    let t = text.trim();
    // "B) the option", as the reveal prints it: the letter decides.
    if let Some((head, _)) = t.split_once(')')
        && head.trim().len() == 1
    {
        return read_pick(head, options);
    }
    let t = t.trim_end_matches([')', '.']).trim();
    if let Some(i) = options.iter().position(|o| o.eq_ignore_ascii_case(t)) {
        return Some(i);
    }
    let mut chars = t.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_ascii_alphabetic()
    {
        let i = (c.to_ascii_uppercase() as u8 - b'A') as usize;
        return (i < options.len()).then_some(i);
    }
    t.parse::<usize>().ok().filter(|&n| n >= 1 && n <= options.len()).map(|n| n - 1)
}

/// Relative comparison; tolerance 0 still forgives the last bits of float rounding.
pub fn within(got: f64, want: f64, tolerance: f64) -> bool {
    if !got.is_finite() || !want.is_finite() {
        return false;
    }
    let tol = tolerance.max(1e-9);
    if want == 0.0 {
        return got.abs() <= 1e-12;
    }
    (got - want).abs() <= tol * want.abs()
}

// ---------------------------------------------------------------------------------------------
// Reading a typed quantity

/// Reads what a reader typed for a numeric answer into the values it could mean, in the
/// question's unit. Accepts `5242880`, `5,242,880`, `5 242 880`, `5.24e6`, `5.2 × 10^6`,
/// `2^20`, scale words (`7B`, `3.5 million`), and the unit itself with SI or binary prefixes
/// (`5.2 MB` means 5.2e6 or 5.2 × 2^20 bytes: both readings are tried, since people use both).
pub fn read_quantity(input: &str, unit: Option<&str>) -> Result<Vec<f64>, String> {
    let text = input.trim();
    let (num, rest) = split_number(text).ok_or_else(|| {
        format!("could not read a number in `{text}`: write digits such as 5242880, 5.24e6 or 5.2 MB")
    })?;
    let suffix = rest.trim().trim_end_matches('.').trim();
    let scales = scales_for(suffix, unit).ok_or_else(|| match unit {
        Some(u) => format!("could not read the unit `{suffix}`: answer in {u}"),
        None => format!("could not read `{suffix}`: answer with a plain number"),
    })?;
    Ok(scales.into_iter().map(|s| num * s).collect())
}

/// Splits a leading number (with separators, exponent, `× 10^n`, `^`) from the rest.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        neg = b[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut digits = String::new();
    let mut seen_dot = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            digits.push(c as char);
            i += 1;
        } else if c == b'.' && !seen_dot && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            seen_dot = true;
            digits.push('.');
            i += 1;
        } else if (c == b',' || c == b'_' || c == b' ' || c == b'\'')
            && !seen_dot
            && i > start
            && b[i - 1].is_ascii_digit()
            && group_of_three(&b[i + 1..])
        {
            // A thousands separator: exactly three digits follow before the next non-digit.
            i += 1;
        } else if c == b',' && !seen_dot && i > start && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            // "5,2": a decimal comma.
            seen_dot = true;
            digits.push('.');
            i += 1;
        } else {
            break;
        }
    }
    if digits.is_empty() || digits == "." {
        return None;
    }
    let mut value: f64 = digits.parse().ok()?;
    // Exponent: e6, E-3.
    if i < b.len()
        && (b[i] == b'e' || b[i] == b'E')
        && let Some((e, len)) = read_int(&b[i + 1..])
    {
        value *= libm::pow(10.0, e as f64);
        i += 1 + len;
    }
    // "× 10^6", "x 10^6", "* 10^6", "·10^6", or a power "2^20".
    let rest = &text[i..];
    let trimmed = rest.trim_start();
    for op in ["×", "x", "*", "·"] {
        if let Some(after) = trimmed.strip_prefix(op) {
            let after = after.trim_start();
            if let Some((base, blen)) = read_int(after.as_bytes()) {
                let tail = &after[blen..];
                let tail = tail.trim_start();
                if let Some(t) = tail.strip_prefix('^').or_else(|| tail.strip_prefix("**")) {
                    let t = t.trim_start();
                    if let Some((e, elen)) = read_int(t.as_bytes()) {
                        value *= libm::pow(base as f64, e as f64);
                        let consumed = text.len() - t.len() + elen;
                        return Some((if neg { -value } else { value }, &text[consumed..]));
                    }
                }
            }
        }
    }
    if let Some(t) = trimmed.strip_prefix('^').or_else(|| trimmed.strip_prefix("**")) {
        let t = t.trim_start();
        if let Some((e, elen)) = read_int(t.as_bytes()) {
            value = libm::pow(value, e as f64);
            let consumed = text.len() - t.len() + elen;
            return Some((if neg { -value } else { value }, &text[consumed..]));
        }
    }
    Some((if neg { -value } else { value }, rest))
}

fn group_of_three(b: &[u8]) -> bool {
    b.len() >= 3 && b[..3].iter().all(u8::is_ascii_digit) && (b.len() == 3 || !b[3].is_ascii_digit())
}

/// A signed decimal integer at the start of `b`, and its length in bytes.
fn read_int(b: &[u8]) -> Option<(i32, usize)> {
    let mut i = 0;
    let neg = if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
        b[0] == b'-'
    } else {
        false
    };
    let from = i;
    while i < b.len() && b[i].is_ascii_digit() && i - from < 4 {
        i += 1;
    }
    if i == from {
        return None;
    }
    let n: i32 = std::str::from_utf8(&b[from..i]).ok()?.parse().ok()?;
    Some((if neg { -n } else { n }, i))
}

const BYTE_UNITS: [&str; 3] = ["bytes", "byte", "b"];
const TIME_UNITS: [(&str, f64); 14] = [
    ("ns", 1e-9),
    ("µs", 1e-6),
    ("us", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("sec", 1.0),
    ("second", 1.0),
    ("seconds", 1.0),
    ("min", 60.0),
    ("minute", 60.0),
    ("minutes", 60.0),
    ("h", 3600.0),
    ("hour", 3600.0),
    ("hours", 3600.0),
];

/// Scale words that may stand before a unit (or alone): `k`, `M`, `B`/`G`, `T`, and words.
fn scale_word(w: &str) -> Option<f64> {
    Some(match w {
        "" => 1.0,
        "k" | "thousand" => 1e3,
        "m" | "mn" | "million" | "millions" => 1e6,
        "b" | "g" | "bn" | "billion" | "billions" => 1e9,
        "t" | "trillion" | "trillions" => 1e12,
        "p" | "quadrillion" => 1e15,
        _ => return None,
    })
}

/// The multipliers a suffix can mean for a question in `unit`; `None` when it means nothing.
fn scales_for(suffix: &str, unit: Option<&str>) -> Option<Vec<f64>> {
    let s = suffix.to_lowercase();
    let s = s.trim();
    let unit_l = unit.map(|u| u.trim().to_lowercase());
    if s.is_empty() {
        return Some(vec![1.0]);
    }
    match unit_l.as_deref() {
        Some(u) if BYTE_UNITS.contains(&u) => {
            if BYTE_UNITS.contains(&s) {
                return Some(vec![1.0]);
            }
            let (prefix, binary_only) = if let Some(p) = s.strip_suffix("ib") {
                (p, true)
            } else if let Some(p) = s.strip_suffix("bytes").or_else(|| s.strip_suffix("byte")).or_else(|| s.strip_suffix('b')) {
                (p, false)
            } else {
                (s, false)
            };
            let power = match prefix {
                "k" | "kilo" => 1,
                "m" | "mega" => 2,
                "g" | "giga" => 3,
                "t" | "tera" => 4,
                _ => return None,
            };
            let binary = libm::pow(1024.0, f64::from(power));
            let decimal = libm::pow(1000.0, f64::from(power));
            Some(if binary_only { vec![binary] } else { vec![decimal, binary] })
        }
        Some(u) if TIME_UNITS.iter().any(|(n, _)| *n == u) => {
            let base = TIME_UNITS.iter().find(|(n, _)| *n == u).map(|(_, v)| *v)?;
            TIME_UNITS.iter().find(|(n, _)| *n == s).map(|(_, v)| vec![v / base])
        }
        Some(u) => {
            // "3.5 GFLOPs" for unit "FLOPs": strip the unit (or its singular), the rest is a scale.
            let singular = u.strip_suffix('s').unwrap_or(u);
            let prefix = [u, singular].iter().filter(|x| !x.is_empty()).find_map(|x| s.strip_suffix(*x)).unwrap_or(s).trim();
            scale_word(prefix).map(|m| vec![m])
        }
        None => scale_word(s).map(|m| vec![m]),
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers as text

/// Formats a number the same way on every target: whole numbers in full (`1048576`), others
/// with up to four significant digits (`0.1172`, `5.243e-07` for tiny ones).
pub fn fmt_number(x: f64) -> String {
    if !x.is_finite() {
        return "?".to_owned();
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let a = x.abs();
    if (1e-4..1e15).contains(&a) {
        let digits_before = libm::floor(libm::log10(a)) as i32 + 1;
        let decimals = (4 - digits_before).max(0) as usize;
        let s = format!("{x:.decimals$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
        return s;
    }
    format!("{x:.3e}")
}

// ---------------------------------------------------------------------------------------------
// Score, re-reading and the Phase 0 skip

/// Where to go back after missing a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reread {
    pub topic: String,
    pub title: String,
    pub link: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Score {
    pub right: usize,
    pub total: usize,
    /// One per topic with a missed question, in quiz order.
    pub reread: Vec<Reread>,
    /// Keys of the missed questions, for the review queue.
    pub missed: Vec<String>,
}

impl Score {
    pub fn passed(&self) -> bool {
        self.total > 0 && self.right * 100 >= self.total * PASS_PERCENT
    }
}

/// Scores a quiz from one grade per question (a missing grade counts as not right).
pub fn score(bank: &QuizBank, quiz: &Quiz, grades: &[Grade]) -> Score {
    let mut s = Score { right: 0, total: quiz.questions.len(), reread: Vec::new(), missed: Vec::new() };
    for (k, q) in quiz.questions.iter().enumerate() {
        if grades.get(k).is_some_and(Grade::is_right) {
            s.right += 1;
            continue;
        }
        s.missed.push(q.key.clone());
        if !s.reread.iter().any(|r| r.topic == q.topic) {
            let topic = bank.topic(&q.topic);
            s.reread.push(Reread {
                topic: q.topic.clone(),
                title: topic.map_or_else(|| q.topic.clone(), |t| t.title.clone()),
                link: topic.and_then(|t| t.reread.clone()),
            });
        }
    }
    s
}

/// Whether a Phase 0 quiz result allows recording the skip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipDecision {
    Allowed,
    /// The quiz did not cover every Phase 0 topic; take one that does.
    TopicsMissing(Vec<String>),
    NotPassed { right: usize, total: usize },
}

/// Phase 0 is skipped only after a quiz over all its topics is passed.
pub fn phase0_skip(quiz: &Quiz, score: &Score, phase0_topics: &[String]) -> SkipDecision {
    let asked: BTreeSet<&str> = quiz.questions.iter().map(|q| q.topic.as_str()).collect();
    let missing: Vec<String> = phase0_topics.iter().filter(|t| !asked.contains(t.as_str())).cloned().collect();
    if !missing.is_empty() || phase0_topics.is_empty() {
        return SkipDecision::TopicsMissing(missing);
    }
    if score.passed() { SkipDecision::Allowed } else { SkipDecision::NotPassed { right: score.right, total: score.total } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    const SAMPLE: &str = r#"
[[topic]]
id = "kv-cache-size"
title = "Sizing the KV cache"
reread = "kv-cache.md#what-the-cache-stores"
themes = ["per-head vs per-layer cache sizing"]

[[topic.numeric]]
prompt = "A model has {layers} layers and {kv_heads} KV heads of dimension {head_dim} in fp16. How many bytes of cache does one token need?"
params = { layers = [4, 6, 8, 12, 16], kv_heads = [1, 2, 4, 8], head_dim = [32, 64, 128] }
answer = "2 * layers * kv_heads * head_dim * 2"
unit = "bytes"
tolerance = 0.01
why = "Keys and values for every layer and KV head."

[[topic.choice]]
prompt = "Which change shrinks the KV cache?"
correct = ["fewer KV heads (GQA or MQA)", "a 1-byte cache dtype"]
wrong = ["more query heads", "a larger vocabulary", "a wider feed-forward layer", "tied embeddings"]
options = 4
why = "The cache holds keys and values only."

[[topic.explain]]
prompt = "Why does GQA keep quality close to MHA while cutting the cache?"
answer = "Only keys and values are shared within a group."
keywords = ["share", "group"]
"#;

    fn check_parse(text: &str, want: Expect) {
        let (bank, diags) = parse_quiz("quiz.toml", text);
        let mut out = String::new();
        for t in &bank.topics {
            out += &format!(
                "topic {} line {}: {} numeric, {} choice, {} explain, size {}\n",
                t.id,
                t.line,
                t.numeric.len(),
                t.choice.len(),
                t.explain.len(),
                topic_size(t)
            );
        }
        for d in diags {
            out += &format!("{d}\n");
        }
        want.assert_eq(&out);
    }

    #[test]
    fn parses_the_format_example() {
        check_parse(
            SAMPLE,
            expect![[r#"
                topic kv-cache-size line 2: 1 numeric, 1 choice, 1 explain, size 69
            "#]],
        );
    }

    #[test]
    fn reports_problems_with_lines() {
        check_parse(
            r#"
[[topic]]
id = "a"
colour = "blue"

[[topic.numeric]]
prompt = "{x} and {y}?"
params = { x = [1, 2], z = [3] }
answer = "x / (z - 3)"

[[topic.numeric]]
prompt = "{x}"
params = { x = [1, 2, 2] }
answer = "x +"

[[topic.choice]]
prompt = "pick"
correct = ["a"]
wrong = ["b"]
options = 3

[[topic.explain]]
answer = "because"

[[topic]]
id = "a"
title = "again"
"#,
            expect![[r#"
                topic a line 2: 0 numeric, 0 choice, 0 explain, size 0
                quiz.toml:2: topic `a` yields 0 distinct questions; a topic needs at least 20: add parameter values, options or templates
                quiz.toml:4: unknown key `colour` in a topic: it is ignored (known: id, title, reread, themes, numeric, choice, explain)
                quiz.toml:7: parameter `z` of a numeric question of topic `a` never appears in the prompt: write `{z}` in it, or two questions would read the same
                quiz.toml:7: the prompt of a numeric question of topic `a` has `{y}`, which is not in `params`
                quiz.toml:13: parameter `x` in a numeric question of topic `a` repeats a value: list each value once
                quiz.toml:14: `answer` of a numeric question of topic `a`: at column 4: the formula ends too early: expected a number, a name or `(`
                quiz.toml:16: a choice question of topic `a` shows 3 options but has only 1 wrong answers: add wrong answers or lower `options`
                quiz.toml:22: an explain question of topic `a` has no `prompt`: add `prompt = "..."`
                quiz.toml:25: duplicate topic id `a`: rename one of them
                quiz.toml:25: topic `a` yields 0 distinct questions; a topic needs at least 20: add parameter values, options or templates
            "#]],
        );
    }

    #[test]
    fn division_by_zero_is_caught_at_parse_time() {
        check_parse(
            "[[topic]]\nid = \"d\"\n[[topic.numeric]]\nprompt = \"{x}\"\nparams = { x = [1, 2, 3] }\nanswer = \"6 / (x - 2)\"\n",
            expect![[r#"
                topic d line 1: 0 numeric, 0 choice, 0 explain, size 0
                quiz.toml:1: topic `d` yields 0 distinct questions; a topic needs at least 20: add parameter values, options or templates
                quiz.toml:6: `answer` of a numeric question of topic `d` fails for x=2: division by zero for these parameter values
            "#]],
        );
    }

    #[test]
    fn broken_toml_keeps_what_it_can() {
        let (bank, diags) = parse_quiz("quiz.toml", &format!("{SAMPLE}\n[[topic]\nid = \"x\"\n"));
        assert_eq!(bank.topics.len(), 1, "the good topic survives");
        assert!(diags.iter().any(|d| d.message.starts_with("toml syntax") && d.line == 28), "{diags:?}");
        let (_, diags) = parse_quiz("quiz.toml", "");
        assert_eq!(diags, [Diagnostic::new("quiz.toml", 0, "no [[topic]] tables: add one per quiz topic")]);
    }

    #[test]
    fn seeds_walk_the_space_without_repeats() {
        let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
        let t = &bank.topics[0];
        let n = topic_size(t);
        let keys: BTreeSet<String> = (0..n).map(|s| question(t, s).unwrap().key).collect();
        assert_eq!(keys.len() as u64, n, "n consecutive seeds cover all n questions");
        // Seeds n apart reach the same question (a choice's shuffle may differ, so compare keys).
        assert_eq!(question(t, 5).unwrap().key, question(t, 5 + n).unwrap().key);
    }

    #[test]
    fn a_key_rebuilds_its_question() {
        let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
        for t in &bank.topics {
            for seed in 0..topic_size(t) {
                let q = question(t, seed).unwrap();
                let again = question_by_key(&bank, &q.key).unwrap_or_else(|| panic!("{} rebuilds", q.key));
                assert_eq!((&again.key, &again.prompt, &again.why), (&q.key, &q.prompt, &q.why));
                match (&q.kind, &again.kind) {
                    (QuestionKind::Choice { options: a, correct: ca }, QuestionKind::Choice { options: b, correct: cb }) => {
                        assert_eq!(a[*ca], b[*cb], "{}: the same right option", q.key);
                        let (mut a, mut b) = (a.clone(), b.clone());
                        a.sort();
                        b.sort();
                        assert_eq!(a, b, "{}: the same options, in the key's own order", q.key);
                    }
                    _ => assert_eq!(again.expected(), q.expected()),
                }
            }
        }
        let t = &bank.topics[0].id;
        for bad in ["", "nope/numeric0/0", &format!("{t}/numeric0/999999"), &format!("{t}/numeric9/0"), &format!("{t}/explain0/1"), &format!("{t}/numeric0/1/2"), &format!("{t}/choice0")] {
            assert_eq!(question_by_key(&bank, bad), None, "{bad:?}");
        }
    }

    #[test]
    fn generated_quiz_snapshot() {
        let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
        let quiz = generate(&bank, &["kv-cache-size".to_owned(), "nope".to_owned()], 7, 3);
        let mut out = format!("missing: {:?}\n", quiz.missing_topics);
        for q in &quiz.questions {
            out += &format!("{} | {} | {}\n", q.key, q.prompt, q.expected());
            if let QuestionKind::Choice { options, .. } = &q.kind {
                out += &format!("  options: {}\n", options.join(" / "));
            }
        }
        expect![[r#"
            missing: ["nope"]
            kv-cache-size/choice0/0 | Which change shrinks the KV cache? | C) fewer KV heads (GQA or MQA)
              options: a wider feed-forward layer / more query heads / fewer KV heads (GQA or MQA) / a larger vocabulary
            kv-cache-size/numeric0/17 | A model has 8 layers and 8 KV heads of dimension 32 in fp16. How many bytes of cache does one token need? | 8192 bytes
            kv-cache-size/numeric0/19 | A model has 16 layers and 8 KV heads of dimension 32 in fp16. How many bytes of cache does one token need? | 16384 bytes
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn reading_quantities() {
        let cases: [(&str, Option<&str>, &str); 22] = [
            ("5242880", Some("bytes"), "[5242880.0]"),
            ("5,242,880", Some("bytes"), "[5242880.0]"),
            ("5 242 880 bytes", Some("bytes"), "[5242880.0]"),
            ("5.24e6", Some("bytes"), "[5240000.0]"),
            ("5.2 MB", Some("bytes"), "[5200000.0, 5452595.2]"),
            ("5 MiB", Some("bytes"), "[5242880.0]"),
            ("2^20 B", Some("bytes"), "[1048576.0]"),
            ("1.5 × 10^3", None, "[1500.0]"),
            ("-3", None, "[-3.0]"),
            ("7B", Some("parameters"), "[7000000000.0]"),
            ("3.5 million params", Some("params"), "[3500000.0]"),
            ("2 GFLOPs", Some("FLOPs"), "[2000000000.0]"),
            ("1 TFLOP", Some("FLOPs"), "[1000000000000.0]"),
            ("250 ms", Some("s"), "[0.25]"),
            ("2 min", Some("seconds"), "[120.0]"),
            ("0,5", None, "[0.5]"),
            ("12k", None, "[12000.0]"),
            ("42 tokens", Some("tokens"), "[42.0]"),
            ("abc", Some("bytes"), "error: could not read a number in `abc`: write digits such as 5242880, 5.24e6 or 5.2 MB"),
            ("5 parsecs", Some("bytes"), "error: could not read the unit `parsecs`: answer in bytes"),
            ("5 seconds", Some("bytes"), "error: could not read the unit `seconds`: answer in bytes"),
            ("5 apples", None, "error: could not read `apples`: answer with a plain number"),
        ];
        for (input, unit, want) in cases {
            let got = match read_quantity(input, unit) {
                Ok(v) => format!("{v:?}"),
                Err(e) => format!("error: {e}"),
            };
            assert_eq!(got, want, "input {input:?} unit {unit:?}");
        }
    }

    #[test]
    fn grading() {
        let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
        let t = &bank.topics[0];
        let q = (0..100).map(|s| question(t, s).unwrap()).find(|q| q.key == "kv-cache-size/numeric0/0").unwrap();
        // Combination 0 takes every parameter's first value: 2 × 4 layers × 1 head × 32 × 2 bytes.
        assert!(q.prompt.contains("4 layers and 1 KV heads of dimension 32"), "{}", q.prompt);
        assert_eq!(q.expected(), "512 bytes");
        let g = |s: &str| grade(&q, &Answer::Text(s.to_owned())).grade;
        assert_eq!(g("512"), Grade::Right);
        assert_eq!(g("512 bytes"), Grade::Right);
        assert_eq!(g("0.5 KiB"), Grade::Right);
        assert_eq!(g("5.12e2"), Grade::Right);
        assert_eq!(g("515"), Grade::Right, "within the 1% tolerance");
        assert_eq!(g("520"), Grade::Wrong);
        assert_eq!(g("1024"), Grade::Wrong);
        assert!(matches!(g("lots"), Grade::Unreadable(_)));

        let c = (0..100).map(|s| question(t, s).unwrap()).find(|q| matches!(q.kind, QuestionKind::Choice { .. })).unwrap();
        let QuestionKind::Choice { correct, options } = &c.kind else { unreachable!() };
        assert_eq!(grade(&c, &Answer::Pick(*correct)).grade, Grade::Right);
        assert_eq!(grade(&c, &Answer::Pick((*correct + 1) % options.len())).grade, Grade::Wrong);
        assert_eq!(grade(&c, &Answer::Text(letter(*correct).to_string().to_lowercase())).grade, Grade::Right);
        assert_eq!(grade(&c, &Answer::Text(options[*correct].clone())).grade, Grade::Right);
        assert_eq!(grade(&c, &Answer::Text(format!("{}", correct + 1))).grade, Grade::Right);
        assert_eq!(grade(&c, &Answer::Text(c.expected())).grade, Grade::Right, "the revealed answer reads back");
        assert_eq!(grade(&c, &Answer::Text(format!("{}) whatever", letter((correct + 1) % options.len())))).grade, Grade::Wrong);
        assert!(matches!(grade(&c, &Answer::Pick(9)).grade, Grade::Unreadable(_)));

        let e = (0..100).map(|s| question(t, s).unwrap()).find(|q| matches!(q.kind, QuestionKind::Explain { .. })).unwrap();
        assert_eq!(grade(&e, &Answer::SelfMarked { right: true }).grade, Grade::Right);
        assert_eq!(grade(&e, &Answer::SelfMarked { right: false }).grade, Grade::Wrong);
        assert!(ready_to_reveal(&e, &Attempt { answer: Answer::SelfMarked { right: true }, explanation: String::new() }).is_ok());
        assert!(ready_to_reveal(&q, &Attempt { answer: Answer::Text("1536".into()), explanation: " ".into() }).is_err());
        assert!(ready_to_reveal(&q, &Attempt { answer: Answer::Text("1536".into()), explanation: "2 per K and V".into() }).is_ok());
    }

    #[test]
    fn score_and_phase0_skip() {
        let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
        let topics = vec!["kv-cache-size".to_owned()];
        let quiz = generate(&bank, &topics, 1, 5);
        assert_eq!(quiz.questions.len(), 5);
        let all_right = vec![Grade::Right; 5];
        let s = score(&bank, &quiz, &all_right);
        assert!(s.passed() && s.reread.is_empty() && s.missed.is_empty());
        assert_eq!(phase0_skip(&quiz, &s, &topics), SkipDecision::Allowed);

        let two_wrong = [Grade::Right, Grade::Wrong, Grade::Right, Grade::Unreadable("x".into()), Grade::Right];
        let s = score(&bank, &quiz, &two_wrong);
        assert_eq!((s.right, s.total, s.passed()), (3, 5, false));
        assert_eq!(s.missed, [quiz.questions[1].key.clone(), quiz.questions[3].key.clone()]);
        assert_eq!(
            s.reread,
            [Reread {
                topic: "kv-cache-size".into(),
                title: "Sizing the KV cache".into(),
                link: Some("kv-cache.md#what-the-cache-stores".into())
            }]
        );
        assert_eq!(phase0_skip(&quiz, &s, &topics), SkipDecision::NotPassed { right: 3, total: 5 });
        let more = vec!["kv-cache-size".to_owned(), "tokens".to_owned()];
        let full = score(&bank, &quiz, &all_right);
        assert_eq!(phase0_skip(&quiz, &full, &more), SkipDecision::TopicsMissing(vec!["tokens".into()]));
        assert_eq!(phase0_skip(&quiz, &full, &[]), SkipDecision::TopicsMissing(vec![]));
    }

    #[test]
    fn number_formatting() {
        let cases = [
            (1536.0, "1536"),
            (-2.0, "-2"),
            (0.1172, "0.1172"),
            (4.56789, "4.568"),
            (1234.5678, "1235"),
            (0.000012345, "1.234e-5"),
            (2.5e20, "2.500e20"),
            (f64::NAN, "?"),
        ];
        for (x, want) in cases {
            assert_eq!(fmt_number(x), want, "{x}");
        }
    }

    #[test]
    fn subsets_unrank_to_all_distinct() {
        let n = 6;
        let k = 3;
        let all: BTreeSet<Vec<usize>> = (0..binomial(n, k)).map(|r| unrank_subset(n, k, r)).collect();
        assert_eq!(all.len() as u64, binomial(n, k));
        assert!(all.iter().all(|s| s.len() == 3 && s.windows(2).all(|w| w[0] < w[1]) && s[2] < 6));
    }

    proptest::proptest! {
        /// A seed always yields the same, valid question.
        #[test]
        fn same_seed_same_valid_question(seed: u64) {
            let (bank, _) = parse_quiz("quiz.toml", SAMPLE);
            let t = &bank.topics[0];
            let a = question(t, seed).unwrap();
            proptest::prop_assert_eq!(Some(a.clone()), question(t, seed));
            let unfilled = a.prompt.contains('{');
            proptest::prop_assert!(!unfilled, "unfilled hole in {}", a.prompt);
            match &a.kind {
                QuestionKind::Numeric { answer, .. } => proptest::prop_assert!(answer.is_finite()),
                QuestionKind::Choice { options, correct } => {
                    proptest::prop_assert!(*correct < options.len());
                    let set: BTreeSet<&String> = options.iter().collect();
                    proptest::prop_assert_eq!(set.len(), options.len());
                }
                QuestionKind::Explain { model_answer, .. } => proptest::prop_assert!(!model_answer.is_empty()),
            }
        }

        /// Reading never panics on anything typed.
        #[test]
        fn reading_never_panics(s in "\\PC{0,30}") {
            let _ = read_quantity(&s, Some("bytes"));
            let _ = read_quantity(&s, Some("FLOPs"));
            let _ = read_quantity(&s, None);
        }
    }
}
