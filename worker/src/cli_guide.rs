//! `bookside guide` and `bookside check`: thin shells over core's book, guide and gate functions.
//!
//! Output contract (scripts rely on it): findings are `file:line: message`, one per line; `guide`
//! prints the cards on stdout and the findings on stderr (`--json` puts both in one JSON document
//! on stdout, see `wire::GuideReport`). Exit 0 clean, 1 findings, 2 usage or I/O error.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use bookside_core::book::{self, Book};
use bookside_core::guide::{self, Guide};
use bookside_core::wire::{BookBundle, CardKindWire, CardSummary, GuideReport, WireDiagnostic};
use bookside_core::{Diagnostic, quiz};

#[derive(Debug, clap::Args)]
pub struct GuideArgs {
    /// The book folder (the one holding book.toml).
    #[arg(long)]
    book: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The book folder (the one holding book.toml).
    #[arg(long)]
    book: PathBuf,
    /// The PROGRESS.md to check.
    file: PathBuf,
}

/// The book read from disk, its Session Guide, and every finding about both.
struct Loaded {
    book: Book,
    guide: Option<Guide>,
    diagnostics: Vec<Diagnostic>,
}

/// Reads the book folder and checks the book and its guide (Read links against the chapters, quiz
/// topics against the quiz bank).
fn load(dir: &Path) -> anyhow::Result<Loaded> {
    let mut bundle = crate::bundle::load(dir)?;
    // The quiz bank sits beside book.toml; bring it in if the bundle did not.
    let quiz_path = dir.join("quiz.toml");
    if !bundle.files.contains_key("quiz.toml") && quiz_path.is_file() {
        let text = std::fs::read_to_string(&quiz_path).with_context(|| format!("cannot read {}", quiz_path.display()))?;
        bundle.files.insert("quiz.toml".to_owned(), text);
    }
    let book = book::load(&bundle);
    let topics = quiz_topics(&bundle);
    let (guide, guide_diags) = guide::load(&book, topics.as_ref());
    let mut diagnostics = book.diagnostics.clone();
    diagnostics.extend(guide_diags);
    Ok(Loaded { book, guide, diagnostics })
}

/// The topic ids of every quiz bank in the bundle (`quiz.toml`, `quiz/*.toml`); `None` when the
/// book has no quiz bank, so quiz topics go unchecked rather than all reported missing.
fn quiz_topics(bundle: &BookBundle) -> Option<BTreeSet<String>> {
    let mut banks = bundle.files.iter().filter(|(path, _)| *path == "quiz.toml" || (path.starts_with("quiz/") && path.ends_with(".toml"))).peekable();
    banks.peek()?;
    let mut ids = BTreeSet::new();
    for (path, text) in banks {
        let (bank, _) = quiz::parse_quiz(path, text);
        ids.extend(bank.topics.into_iter().map(|t| t.id));
    }
    Some(ids)
}

/// The JSON document of `bookside guide --json`.
fn report(loaded: &Loaded) -> GuideReport {
    GuideReport {
        book: loaded.book.title.clone(),
        guide: loaded.guide.as_ref().map(|g| g.file.clone()),
        cards: loaded.guide.iter().flat_map(|g| g.cards.iter().map(CardSummary::from)).collect(),
        diagnostics: loaded.diagnostics.iter().map(WireDiagnostic::from).collect(),
    }
}

/// One line per card: id, phase, title, kind, and the Done-when command or the quiz topics.
fn card_lines(cards: &[CardSummary]) -> String {
    let title_width = cards.iter().map(|c| c.title.chars().count()).max().unwrap_or(0).min(40);
    let mut out = String::new();
    for card in cards {
        let (kind, end) = match card.kind {
            CardKindWire::Milestone => ("milestone", card.done_when.clone().unwrap_or_default()),
            CardKindWire::ReadOnly => ("read-only", format!("quiz: {}", card.quiz.join(", "))),
            CardKindWire::Unknown => ("unknown", String::new()),
        };
        let line = format!("{:<5} phase {:<2} {:<title_width$}  {kind:<9}  {end}", card.id, card.phase, card.title);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn guide(args: GuideArgs) -> anyhow::Result<ExitCode> {
    let loaded = load(&args.book)?;
    let report = report(&loaded);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        match &report.guide {
            Some(file) => println!("{} — Session Guide {file}, {} cards", report.book, report.cards.len()),
            None => println!("{} — no Session Guide", report.book),
        }
        print!("{}", card_lines(&report.cards));
        for d in &loaded.diagnostics {
            eprintln!("{}", located(&args.book, d));
        }
    }
    Ok(exit(loaded.diagnostics.len()))
}

pub fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    // The book's own findings first: a broken guide explains surprising gate findings.
    let loaded = load(&args.book)?;
    for d in &loaded.diagnostics {
        println!("{}", located(&args.book, d));
    }
    let findings = crate::cli_gates::run(&args.book, &args.file)?;
    Ok(exit(loaded.diagnostics.len() + findings))
}

/// A finding with its file named from where the command was run (`book/src/guide.md:13: …`), so
/// editors and terminals can jump to it.
fn located(book_dir: &Path, d: &Diagnostic) -> Diagnostic {
    Diagnostic { file: book_dir.join(&d.file).display().to_string(), ..d.clone() }
}

fn exit(findings: usize) -> ExitCode {
    if findings == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
