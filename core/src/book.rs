//! The book: `book.toml` and `src/SUMMARY.md` read into a table of contents and chapters.
//!
//! The book arrives as a [`BookBundle`] (every text file keyed by its path from the book root), so
//! loading does no I/O and behaves the same in the browser and in the CLI.
//!
//! # SUMMARY.md grammar (mdBook's)
//!
//! ```text
//! summary    := title? prefix* numbered* suffix*
//! title      := "# " TEXT                       ; only as the first non-blank line
//! prefix     := link | separator                ; plain lines before the first list or part
//! numbered   := part | item | separator
//! part       := "# " TEXT                       ; a part title between numbered chapters
//! item       := INDENT ("-" | "*" | "+") WS link ; nesting follows indentation
//! suffix     := link | separator                ; plain lines after the numbered chapters
//! link       := "[" TITLE "](" PATH? ")"        ; an empty PATH makes a draft (any section)
//! separator  := "---" | "***" | "___"           ; three or more of the same character
//! ```
//!
//! Blank lines and HTML comments (`<!-- … -->`, possibly over several lines) are ignored.
//! Numbered chapters are numbered `1.`, `1.1.`, … across parts, drafts included, as mdBook does.
//! Paths are relative to the source folder (`src` unless book.toml's `book.src` says otherwise).
//!
//! Diagnostics: a missing `book.toml` title, malformed lines, chapters whose file is missing,
//! chapters listed twice, list items or parts after the suffix chapters.
//!
//! The Session Guide is the chapter named by `[bookside] guide = "path.md"` in book.toml, else the
//! first chapter in SUMMARY order that holds a card heading (`### S1.3 — Title`).

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Diagnostic;
use crate::render::{self, Heading};
use crate::wire::BookBundle;

/// A loaded book: what the app shows and what the guide is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    pub title: String,
    /// Every SUMMARY.md entry in order: chapters, drafts, parts and separators.
    pub toc: Vec<TocItem>,
    /// The chapters whose file exists, in SUMMARY order, each once.
    pub chapters: Vec<Chapter>,
    /// The `src/`-relative path of the Session Guide chapter, if the book has one.
    pub guide: Option<String>,
    /// The source folder, relative to the book root (`src`).
    pub src: String,
    /// What is wrong with book.toml, SUMMARY.md or the chapter files.
    pub diagnostics: Vec<Diagnostic>,
}

/// What an entry of SUMMARY.md is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TocKind {
    /// A plain link before the numbered chapters (unnumbered).
    Prefix,
    /// A list item: numbered, possibly nested, possibly a draft.
    Numbered,
    /// A plain link after the numbered chapters (unnumbered).
    Suffix,
    /// A `# Part` title.
    Part,
    /// A `---` separator.
    Separator,
}

/// One entry of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocItem {
    pub kind: TocKind,
    /// The chapter or part title; empty for separators.
    pub title: String,
    /// The chapter's path relative to the source folder (`kv-cache.md`); `None` for drafts,
    /// parts and separators.
    pub path: Option<String>,
    /// `1.2.` for numbered chapters.
    pub number: Option<String>,
    /// Nesting depth of a numbered chapter (0 at the top level).
    pub depth: usize,
    /// Line in SUMMARY.md.
    pub line: usize,
}

impl TocItem {
    /// A chapter listed without a file (`[Title]()`): mdBook shows it greyed out.
    pub fn is_draft(&self) -> bool {
        matches!(self.kind, TocKind::Prefix | TocKind::Numbered | TocKind::Suffix) && self.path.is_none()
    }
}

/// A chapter whose file is in the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chapter {
    /// Relative to the source folder: `kv-cache.md`.
    pub path: String,
    pub title: String,
    pub number: Option<String>,
    /// The chapter's Markdown.
    pub source: String,
}

impl Chapter {
    /// Its headings with mdBook's ids. Computed on demand: only link checks need them, and
    /// rendering every chapter up front would delay the app's first page.
    pub fn headings(&self) -> Vec<Heading> {
        render::headings(&self.source)
    }
}

impl Book {
    pub fn chapter(&self, path: &str) -> Option<&Chapter> {
        self.chapters.iter().find(|c| c.path == path)
    }

    /// The chapter at an app route (`/book/kv-cache`).
    pub fn chapter_at_route(&self, route: &str) -> Option<&Chapter> {
        self.chapters.iter().find(|c| render::route(&c.path) == route)
    }
}

impl crate::guide::Chapters for Book {
    fn has_chapter(&self, path: &str) -> bool {
        self.chapter(path).is_some()
    }
    fn has_anchor(&self, path: &str, anchor: &str) -> bool {
        self.chapter(path).is_some_and(|c| c.headings().iter().any(|h| h.id == anchor))
    }
}

/// Reads the book from a bundle. Never fails: problems are in `Book::diagnostics`.
pub fn load(bundle: &BookBundle) -> Book {
    let mut diagnostics = Vec::new();
    let config = match bundle.get("book.toml") {
        Some(text) => parse_config(text, &mut diagnostics),
        None => {
            diagnostics.push(Diagnostic::new("book.toml", 0, "the book has no book.toml: add one with [book] title = \"…\""));
            Config::default()
        }
    };
    let src = config.src.clone().unwrap_or_else(|| "src".to_owned());
    let summary_path = format!("{src}/SUMMARY.md");
    let toc = match bundle.get(&summary_path) {
        Some(text) => {
            let (toc, diags) = parse_summary(&summary_path, text);
            diagnostics.extend(diags);
            toc
        }
        None => {
            diagnostics.push(Diagnostic::new(&summary_path, 0, "the book has no SUMMARY.md: list its chapters there"));
            Vec::new()
        }
    };
    let mut chapters = Vec::new();
    let mut listed: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &toc {
        let Some(path) = &item.path else { continue };
        if let Some(first) = listed.get(path.as_str()) {
            diagnostics.push(Diagnostic::new(&summary_path, item.line, format!("{path} is listed twice (first at line {first}): list each chapter once")));
            continue;
        }
        listed.insert(path, item.line);
        match bundle.get(&format!("{src}/{path}")) {
            Some(source) => chapters.push(Chapter {
                path: path.clone(),
                title: item.title.clone(),
                number: item.number.clone(),
                source: source.to_owned(),
            }),
            None => diagnostics.push(Diagnostic::new(&summary_path, item.line, format!("chapter file {src}/{path} is missing: create it or fix the link"))),
        }
    }
    let guide = match config.guide {
        Some(path) => {
            if !chapters.iter().any(|c| c.path == path) {
                diagnostics.push(Diagnostic::new("book.toml", config.guide_line, format!("[bookside] guide names {path}, which is not a chapter in SUMMARY.md: fix the path or list the chapter")));
            }
            Some(path)
        }
        None => chapters.iter().find(|c| holds_a_card(&c.source)).map(|c| c.path.clone()),
    };
    Book { title: config.title.unwrap_or_else(|| "Untitled book".to_owned()), toc, chapters, guide, src, diagnostics }
}

#[derive(Default)]
struct Config {
    title: Option<String>,
    src: Option<String>,
    guide: Option<String>,
    guide_line: usize,
}

fn parse_config(text: &str, diagnostics: &mut Vec<Diagnostic>) -> Config {
    let (doc, errors) = toml::de::DeTable::parse_recoverable(text);
    let mut last_line = None;
    for error in errors {
        let line = error.span().map_or(0, |span| line_of(text, span.start));
        // The parser may report one mistake several ways; the first says it best.
        if last_line.replace(line) == Some(line) {
            continue;
        }
        diagnostics.push(Diagnostic::new("book.toml", line, format!("book.toml is not valid TOML ({}): fix this line", error.message().trim().trim_end_matches('.').to_lowercase())));
    }
    let doc = doc.into_inner();
    let string = |table: &str, key: &str| -> Option<(String, usize)> {
        let value = doc.get(table)?.get_ref().as_table()?.get(key)?;
        let line = line_of(text, value.span().start);
        Some((value.get_ref().as_str()?.to_owned(), line))
    };
    let title = string("book", "title").map(|(t, _)| t);
    if title.is_none() {
        diagnostics.push(Diagnostic::new("book.toml", 0, "book.toml has no title: add `title = \"…\"` under [book]"));
    }
    let guide = string("bookside", "guide");
    Config { title, src: string("book", "src").map(|(s, _)| s.trim_matches('/').to_owned()), guide_line: guide.as_ref().map_or(0, |g| g.1), guide: guide.map(|g| g.0) }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Whether a chapter's text holds a Session Guide card heading (outside code blocks).
fn holds_a_card(source: &str) -> bool {
    let (guide, _) = crate::guide::parse("", source);
    !guide.cards.is_empty()
}

/// Which section of SUMMARY.md the parser is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Prefix,
    Numbered,
    Suffix,
}

/// Parses SUMMARY.md (found at bundle path `file`) into its entries. See the module doc.
pub fn parse_summary(file: &str, text: &str) -> (Vec<TocItem>, Vec<Diagnostic>) {
    let mut items = Vec::new();
    let mut diags = Vec::new();
    let mut section = Section::Prefix;
    let mut seen_any = false;
    let mut in_comment = false;
    // Indents of the open list levels, and the chapter counter at each level.
    let mut indents: Vec<usize> = Vec::new();
    let mut counters: Vec<u32> = vec![0];
    for (index, raw) in text.split('\n').enumerate() {
        let line_no = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim();
        if in_comment {
            in_comment = !trimmed.contains("-->");
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("<!--") {
            in_comment = !rest.contains("-->");
            continue;
        }
        let first = !seen_any;
        seen_any = true;
        if let Some((level, heading)) = crate::guide::atx_heading(line) {
            if first && level == 1 {
                continue;
            }
            if section == Section::Suffix {
                diags.push(Diagnostic::new(file, line_no, "a part title after the suffix chapters: move it above them or make the suffix chapters list items"));
                continue;
            }
            if level != 1 {
                diags.push(Diagnostic::new(file, line_no, format!("`{}` heading in SUMMARY.md: a part title is a level-1 heading, `# {heading}`", "#".repeat(level))));
            }
            section = Section::Numbered;
            indents.clear();
            items.push(TocItem { kind: TocKind::Part, title: heading.to_owned(), path: None, number: None, depth: 0, line: line_no });
            continue;
        }
        if is_separator(trimmed) {
            items.push(TocItem { kind: TocKind::Separator, title: String::new(), path: None, number: None, depth: 0, line: line_no });
            continue;
        }
        if let Some((indent, body)) = list_item(line) {
            if section == Section::Suffix {
                diags.push(Diagnostic::new(file, line_no, "a numbered chapter after the suffix chapters: make it a plain link or move it above them"));
                continue;
            }
            section = Section::Numbered;
            let Some((title, path)) = link(body) else {
                diags.push(Diagnostic::new(file, line_no, "list item is not a chapter link: write `- [Title](file.md)`, or `- [Title]()` for a draft"));
                continue;
            };
            while indents.last().is_some_and(|&open| open > indent) {
                indents.pop();
                counters.pop();
            }
            if indents.last() != Some(&indent) {
                indents.push(indent);
                if counters.len() < indents.len() {
                    counters.push(0);
                }
            }
            let depth = indents.len() - 1;
            counters.truncate(depth + 1);
            counters[depth] += 1;
            let number: String = counters.iter().map(|n| format!("{n}.")).collect();
            items.push(TocItem { kind: TocKind::Numbered, title, path: chapter_path(file, path), number: Some(number), depth, line: line_no });
            continue;
        }
        if let Some((title, path)) = link(trimmed) {
            let kind = if section == Section::Prefix { TocKind::Prefix } else { TocKind::Suffix };
            if section == Section::Numbered {
                section = Section::Suffix;
            }
            items.push(TocItem { kind, title, path: chapter_path(file, path), number: None, depth: 0, line: line_no });
            continue;
        }
        diags.push(Diagnostic::new(file, line_no, "line is not a chapter link, a part title or a separator: write `[Title](file.md)` or `- [Title](file.md)`"));
    }
    (items, diags)
}

fn chapter_path(summary_file: &str, path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let path = path.split_once('#').map_or(path, |(p, _)| p);
    let decoded = crate::guide::percent_decode(path);
    // SUMMARY.md sits at the root of the source folder, so its links are already relative to it.
    Some(crate::guide::resolve(summary_file, &decoded))
}

/// A thematic break: three or more `-`, `*` or `_` (the same one), spaces allowed between.
fn is_separator(trimmed: &str) -> bool {
    let mut marks = trimmed.bytes().filter(|b| !b.is_ascii_whitespace());
    let Some(first) = marks.next() else { return false };
    let mut count = 1;
    for b in marks {
        if b != first {
            return false;
        }
        count += 1;
    }
    matches!(first, b'-' | b'*' | b'_') && count >= 3
}

/// `  - [Title](path)` → (indent width, `[Title](path)`). Tabs count as four columns.
fn list_item(line: &str) -> Option<(usize, &str)> {
    let body = line.trim_start();
    let indent: usize = line[..line.len() - body.len()].chars().map(|c| if c == '\t' { 4 } else { 1 }).sum();
    let rest = body.strip_prefix(['-', '*', '+'])?;
    rest.starts_with([' ', '\t']).then(|| (indent, rest.trim()))
}

/// `[Title](path)` (the whole of `s`) → (title, path), with the title's escaped brackets read.
fn link(s: &str) -> Option<(String, &str)> {
    let (title, target) = markdown_link(s)?;
    Some((title.replace("\\[", "[").replace("\\]", "]"), target))
}

/// `[text](target)` (the whole of `s`) → (text as written, target). Brackets may nest or be
/// escaped in the text; the target may be wrapped in `<…>` and followed by a quoted title, as in
/// CommonMark. SUMMARY.md entries and the guide's Read items both use it.
pub(crate) fn markdown_link(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix('[')?;
    let mut depth = 1usize;
    let mut close = None;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let target = rest[close + 1..].strip_prefix('(')?.strip_suffix(')')?.trim();
    let target = match target.strip_prefix('<') {
        Some(t) => t.split_once('>').map_or(t, |(p, _)| p),
        None => target.split_once(char::is_whitespace).map_or(target, |(p, _)| p),
    };
    Some((&rest[..close], target))
}

/// The ids of a chapter's headings, for tests and tools that check links.
pub fn anchors(book: &Book) -> BTreeMap<String, BTreeSet<String>> {
    book.chapters.iter().map(|c| (c.path.clone(), c.headings().into_iter().map(|h| h.id).collect())).collect()
}
