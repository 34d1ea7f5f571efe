//! Fuzz target: the Session Guide parser, the SUMMARY.md parser and the chapter renderer.
//!
//! Raw text goes through every parser as-is. Because random text rarely forms a card, most
//! inputs assemble a book from fuzzed pieces (headings, field names and values, rung labels,
//! links, raw HTML) around the real grammar, so the card, ladder and Read-link code is reached.
//! Laws checked besides "no panic": every diagnostic points at a line of its file, the parser finds
//! no more cards than there are `###` lines, and rendered HTML never carries a `<script` tag or a
//! `javascript:` link whatever the Markdown holds.

#![no_main]

use std::collections::BTreeSet;

use bookside_core::wire::BookBundle;
use bookside_core::{book, guide, render};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Input {
    Raw { guide: String, summary: String, chapter: String },
    Built(Built),
}

#[derive(Debug, Arbitrary)]
struct Built {
    cards: Vec<Card>,
    summary_lines: Vec<(u8, String)>,
    chapter: Vec<(u8, String)>,
    topics: Vec<String>,
}

#[derive(Debug, Arbitrary)]
struct Card {
    phase: u8,
    number: u8,
    separator: u8,
    title: String,
    fields: Vec<(u8, String)>,
    ladders: Vec<(String, Vec<(u8, String)>)>,
}

const FIELDS: [&str; 10] = ["Goal", "Needs", "Read", "Midpoint", "Done-when", "Quiz", "Themes", "Remediation", "goal:", "Whatever"];
const RUNGS: [&str; 5] = ["Point", "Ask", "Pseudocode", "One line", "Other"];
const SEPARATORS: [&str; 5] = [" — ", " – ", " - ", ": ", " "];
const SUMMARY: [&str; 8] = ["# ", "- [", "    - [", "[", "---", "<!-- ", "* [", ""];
const CHAPTER: [&str; 8] = ["# ", "## ", "```\n", "<script>", "[x](javascript:", "| a |\n|---|\n| ", "- [ ] ", "[^n]: "];

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list[i as usize % list.len()]
}

impl Built {
    fn bundle(&self) -> BookBundle {
        let mut guide = String::from("# Guide\n\n");
        for card in self.cards.iter().take(12) {
            guide.push_str(&format!("## Phase {} — p\n\n### S{}.{}{}{}\n\n", card.phase % 4, card.phase % 4, card.number % 8, pick(&SEPARATORS, card.separator), card.title));
            for (name, value) in card.fields.iter().take(10) {
                guide.push_str(&format!("- **{}**: {}\n", pick(&FIELDS, *name), value));
            }
            for (obstacle, rungs) in card.ladders.iter().take(3) {
                guide.push_str(&format!("\n#### Hints: {obstacle}\n\n"));
                for (i, (label, text)) in rungs.iter().take(6).enumerate() {
                    guide.push_str(&format!("{}. **{}**: {}\n", i + 1, pick(&RUNGS, *label), text));
                }
            }
            guide.push('\n');
        }
        let mut summary = String::from("# Summary\n\n[Guide](guide.md)\n");
        for (kind, text) in self.summary_lines.iter().take(20) {
            let start = pick(&SUMMARY, *kind);
            let close = if start.ends_with('[') { "](ch.md)" } else { "" };
            summary.push_str(&format!("{start}{text}{close}\n"));
        }
        let mut chapter = String::new();
        for (kind, text) in self.chapter.iter().take(20) {
            chapter.push_str(&format!("{}{text}\n", pick(&CHAPTER, *kind)));
        }
        let mut quiz = String::new();
        for topic in self.topics.iter().take(4) {
            quiz.push_str(&format!("[[topic]]\nid = {topic:?}\n"));
        }
        let mut bundle = BookBundle::default();
        bundle.files.insert("book.toml".into(), "[book]\ntitle = \"f\"\n".into());
        bundle.files.insert("src/SUMMARY.md".into(), summary);
        bundle.files.insert("src/guide.md".into(), guide);
        bundle.files.insert("src/ch.md".into(), chapter);
        bundle.files.insert("quiz.toml".into(), quiz);
        bundle
    }
}

fn check_guide(text: &str) {
    let (parsed, diags) = guide::parse("src/guide.md", text);
    let lines = text.split('\n').count();
    for d in &diags {
        assert!(d.line <= lines, "{d} points past the end ({lines} lines)");
    }
    let headings = text.lines().filter(|l| l.trim_start().starts_with("###")).count();
    assert!(parsed.cards.len() <= headings, "{} cards from {headings} `###` lines", parsed.cards.len());
}

fn check_render(markdown: &str) {
    let html = render::chapter("part/ch.md", markdown).html.to_ascii_lowercase();
    assert!(!html.contains("<script"), "raw script survived: {html}");
    assert!(!html.contains("href=\"javascript:") && !html.contains("src=\"javascript:"), "javascript: link survived: {html}");
    let _ = render::plain_text(markdown);
}

fn check_book(bundle: &BookBundle) {
    let loaded = book::load(bundle);
    let topics: BTreeSet<String> = ["a".to_owned()].into();
    let _ = guide::load(&loaded, Some(&topics));
    for chapter in &loaded.chapters {
        check_render(&chapter.source);
        check_guide(&chapter.source);
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Raw { guide, summary, chapter } => {
            check_guide(&guide);
            check_render(&chapter);
            let _ = book::parse_summary("src/SUMMARY.md", &summary);
            let mut bundle = BookBundle::default();
            bundle.files.insert("book.toml".into(), summary.clone());
            bundle.files.insert("src/SUMMARY.md".into(), summary);
            bundle.files.insert("src/guide.md".into(), guide);
            bundle.files.insert("src/ch.md".into(), chapter);
            check_book(&bundle);
        }
        Input::Built(built) => check_book(&built.bundle()),
    }
});
