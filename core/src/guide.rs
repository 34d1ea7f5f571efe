//! The Session Guide: cards, hint ladders and their diagnostics.
//!
//! The Session Guide is one chapter of the book. Each session is a **card**; the card syntax is
//! documented for authors in `docs/FORMATS.md`. The parser reads the chapter line by line (not
//! through a Markdown parser) so that every card and field keeps its source line, and so that
//! text the parser does not understand is simply prose, never an error.
//!
//! # Grammar
//!
//! ```text
//! guide      := line*                       ; fenced code blocks (``` or ~~~) are skipped whole
//! phase      := "## " "Phase" WS NUMBER [SEP TITLE]      ; SEP is one of — – - :
//! card       := "### " ID WS* SEP WS* TITLE              ; ID is "S" NUMBER "." NUMBER
//! field      := BULLET "**" NAME "**" ":" VALUE          ; BULLET is "- " or "* "
//!             | BULLET "**" NAME ":**" VALUE             ; the colon may sit inside the bold
//! continued  := INDENT TEXT                 ; an indented line after a field or rung extends it
//! ladder     := "#### Hints" (":" | SEP) OBSTACLE
//! rung       := DIGIT+ ("." | ")") WS "**" RUNG "**" ":" TEXT   ; RUNG: Point, Ask, Pseudocode, One line
//! ```
//!
//! Any other `#`/`##` heading closes the current phase and card; any other `###` heading closes
//! the current card; any other `####` heading closes the current hint ladder. Lines that are none
//! of the above (prose, blank lines) are ignored; a blank line ends a field's continuation.
//!
//! Checks that need only the guide happen in [`parse`]. Checks against the rest of the book (Read
//! links, quiz topics) happen in [`check`], which takes the book's chapters and the set of quiz
//! topic ids as parameters so this module does not depend on the quiz bank's parser.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Diagnostic;

/// A parsed Session Guide: its phases and its cards in Guide order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Guide {
    /// Path of the guide chapter in the book bundle, e.g. `src/session-guide.md`.
    pub file: String,
    pub phases: Vec<Phase>,
    /// Every card, in the order it appears in the file (Guide order).
    pub cards: Vec<Card>,
}

/// A `## Phase N — Title` heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    pub number: u32,
    pub title: String,
    pub line: usize,
}

/// One session of the book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// `S1.3`.
    pub id: String,
    pub title: String,
    /// The phase number: of the `## Phase` heading above the card, else the one in its id.
    pub phase: u32,
    /// The title of that phase heading, empty when the card sits under none.
    pub phase_title: String,
    /// Line of the `### S1.3 — Title` heading.
    pub line: usize,
    pub goal: String,
    /// Prerequisite card ids, as written.
    pub needs: Vec<String>,
    pub read: Vec<ReadItem>,
    pub midpoint: String,
    pub done_when: Option<DoneWhen>,
    /// Quiz topic ids (read-only cards).
    pub quiz: Vec<String>,
    /// Sticking-point themes.
    pub themes: Vec<String>,
    /// The card to propose when one of this card's themes repeats.
    pub remediation: Option<String>,
    pub hints: Vec<HintLadder>,
    /// Every field as written, known or not, with its line; `unknown` are those the parser does
    /// not know (kept so a newer guide still reads in an older companion).
    pub fields: Vec<Field>,
    pub unknown: Vec<Field>,
}

/// What kind of session a card describes, from the fields it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CardKind {
    /// Ends in a Done-when test.
    Milestone,
    /// Ends in a self-check quiz.
    ReadOnly,
    /// Has neither a Done-when nor a Quiz field (reported as a diagnostic).
    Unknown,
}

/// A `- **Name**: value` field of a card, with its continuation lines joined by single spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: String,
    pub line: usize,
}

/// One item of a card's Read field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadItem {
    /// A link into a chapter section: `[text](kv-cache.md#what-the-cache-stores)`.
    Chapter {
        text: String,
        /// The chapter's path relative to the book's `src/`, resolved against the guide's own
        /// folder (`kv-cache.md`); empty for a link to a heading of the guide itself.
        path: String,
        /// The heading id after `#`, if any.
        anchor: Option<String>,
    },
    /// `` notebook `notebooks/kv_cache.ipynb` cells 2–5 ``.
    Notebook {
        path: String,
        /// First and last cell, inclusive; `None` when the item names no cells.
        cells: Option<(u32, u32)>,
    },
    /// Anything else, kept as written (and reported).
    Other(String),
}

/// The Done-when command of a milestone card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoneWhen {
    /// The command exactly as printed between the backticks.
    pub command: String,
    /// The milestone test file the command runs, e.g. `test_m02_kv_budget.py` (the name a
    /// PROGRESS.md entry records); `None` when the command names no `.py` file.
    pub test_file: Option<String>,
}

/// The hint ladder for one known obstacle: four rungs, climbed one at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintLadder {
    pub obstacle: String,
    pub line: usize,
    pub rungs: Vec<Rung>,
}

/// One rung of a hint ladder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rung {
    /// `None` when the item is not labelled with one of the four rung names.
    pub kind: Option<RungKind>,
    pub text: String,
    pub line: usize,
}

/// The four rungs of the hint ladder, in the order they are climbed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RungKind {
    Point,
    Ask,
    Pseudocode,
    OneLine,
}

impl RungKind {
    pub const ALL: [RungKind; 4] = [RungKind::Point, RungKind::Ask, RungKind::Pseudocode, RungKind::OneLine];

    /// The rung's number on the ladder, 1 to 4.
    pub fn number(self) -> u8 {
        match self {
            RungKind::Point => 1,
            RungKind::Ask => 2,
            RungKind::Pseudocode => 3,
            RungKind::OneLine => 4,
        }
    }

    /// The label an author writes in bold.
    pub fn label(self) -> &'static str {
        match self {
            RungKind::Point => "Point",
            RungKind::Ask => "Ask",
            RungKind::Pseudocode => "Pseudocode",
            RungKind::OneLine => "One line",
        }
    }

    fn from_label(label: &str) -> Option<RungKind> {
        RungKind::ALL.into_iter().find(|k| k.label().eq_ignore_ascii_case(label.trim()))
    }
}

impl Card {
    pub fn kind(&self) -> CardKind {
        if self.done_when.is_some() {
            CardKind::Milestone
        } else if self.field_line("Quiz").is_some() {
            CardKind::ReadOnly
        } else {
            CardKind::Unknown
        }
    }

    /// The line of the first field with this name (case-insensitive), if the card has one.
    pub fn field_line(&self, name: &str) -> Option<usize> {
        self.fields.iter().find(|f| f.name.eq_ignore_ascii_case(name)).map(|f| f.line)
    }
}

impl Guide {
    pub fn card(&self, id: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.id == id)
    }

    /// The card's position in Guide order.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.cards.iter().position(|c| c.id == id)
    }
}

/// The field names the parser understands, in the order docs/FORMATS.md lists them.
pub const KNOWN_FIELDS: [&str; 8] = ["Goal", "Needs", "Read", "Midpoint", "Done-when", "Quiz", "Themes", "Remediation"];

/// Whether `s` is a card id: `S` + phase number + `.` + session number.
pub fn is_card_id(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('S') else { return false };
    let Some((a, b)) = rest.split_once('.') else { return false };
    !a.is_empty() && !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
}

/// The phase number written in a card id (`S1.3` → 1).
pub fn id_phase(id: &str) -> Option<u32> {
    id.strip_prefix('S')?.split_once('.')?.0.parse().ok()
}

/// Parses the Session Guide chapter `text` (found at bundle path `file`) and reports everything
/// that can be checked from the guide alone.
pub fn parse(file: &str, text: &str) -> (Guide, Vec<Diagnostic>) {
    let mut p = Parser { file, guide: Guide { file: file.to_owned(), ..Guide::default() }, diags: Vec::new(), current_phase: None, open: Open::None };
    let mut fence: Option<(u8, usize)> = None;
    for (index, raw) in text.split('\n').enumerate() {
        let line_no = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(line) {
            p.open = p.open.close_text();
            fence = Some(open);
            continue;
        }
        p.line(line, line_no);
    }
    p.finish();
    let Parser { mut guide, mut diags, .. } = p;
    for card in &mut guide.cards {
        card_checks(file, card, &mut diags);
    }
    graph_checks(file, &guide, &mut diags);
    diags.sort_by_key(|d| d.line);
    (guide, diags)
}

/// What the previous lines left open, so continuation lines know where they belong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    /// Inside a card, no field open.
    Card,
    /// Inside a card, the last field is open for continuation lines.
    Field,
    /// Inside a hint ladder of the last card, no rung open.
    Ladder,
    /// Inside a hint ladder, its last rung open for continuation lines.
    Rung,
}

impl Open {
    /// A blank line or a code block ends continuation but stays in the same card or ladder.
    fn close_text(self) -> Open {
        match self {
            Open::Field => Open::Card,
            Open::Rung => Open::Ladder,
            other => other,
        }
    }
}

struct Parser<'a> {
    file: &'a str,
    guide: Guide,
    diags: Vec<Diagnostic>,
    current_phase: Option<(u32, String)>,
    open: Open,
}

impl Parser<'_> {
    fn diag(&mut self, line: usize, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(self.file, line, message));
    }

    fn line(&mut self, line: &str, line_no: usize) {
        if line.trim().is_empty() {
            self.open = self.open.close_text();
            return;
        }
        if let Some((level, text)) = atx_heading(line) {
            self.heading(level, text, line_no);
            return;
        }
        let indented = line.starts_with([' ', '\t']);
        match self.open {
            Open::None => {}
            Open::Card | Open::Field => {
                if let Some(item) = bullet_item(line) {
                    self.field(item, line_no);
                } else if indented && self.open == Open::Field {
                    let field = self.guide.cards.last_mut().and_then(|c| c.fields.last_mut()).expect("an open field belongs to a card");
                    append_continuation(&mut field.value, line);
                } else {
                    // Prose between fields: allowed, not part of any field.
                    self.open = Open::Card;
                }
            }
            Open::Ladder | Open::Rung => {
                if let Some(item) = ordered_item(line) {
                    self.rung(item, line_no);
                } else if indented && self.open == Open::Rung {
                    let rung = self.ladder_mut().and_then(|l| l.rungs.last_mut()).expect("an open rung belongs to a ladder");
                    append_continuation(&mut rung.text, line);
                } else {
                    self.open = Open::Ladder;
                }
            }
        }
    }

    fn ladder_mut(&mut self) -> Option<&mut HintLadder> {
        self.guide.cards.last_mut().and_then(|c| c.hints.last_mut())
    }

    fn heading(&mut self, level: usize, text: &str, line_no: usize) {
        match level {
            1 | 2 => {
                self.open = Open::None;
                self.current_phase = None;
                if level == 2 {
                    if let Some(phase) = parse_phase(text) {
                        self.current_phase = Some((phase.0, phase.1.clone()));
                        self.guide.phases.push(Phase { number: phase.0, title: phase.1, line: line_no });
                    } else if text.trim_start().to_ascii_lowercase().starts_with("phase ") {
                        self.diag(line_no, "malformed phase heading: write `## Phase 1 — Title`");
                    }
                }
            }
            3 => {
                self.open = Open::None;
                match parse_card_heading(text) {
                    Some((id, title)) => self.card(id, title, line_no),
                    None => {
                        let first = text.split_whitespace().next().unwrap_or("");
                        if first.starts_with('S') && first.len() > 1 && first[1..].starts_with(|c: char| c.is_ascii_digit()) {
                            self.diag(line_no, "malformed card heading: write `### S1.3 — Title`");
                        }
                    }
                }
            }
            4 => {
                let in_card = !matches!(self.open, Open::None);
                match text.trim().strip_prefix("Hints").or_else(|| text.trim().strip_prefix("hints")) {
                    Some(rest) if in_card => {
                        let obstacle = strip_separator(rest).trim().to_owned();
                        if obstacle.is_empty() {
                            self.diag(line_no, "hint ladder has no obstacle: write `#### Hints: what the reader is stuck on`");
                        }
                        let card = self.guide.cards.last_mut().expect("in a card");
                        card.hints.push(HintLadder { obstacle, line: line_no, rungs: Vec::new() });
                        self.open = Open::Ladder;
                    }
                    Some(_) => self.diag(line_no, "hint ladder outside a card: put it under the card's `### S1.3 — Title` heading"),
                    None => {
                        if in_card {
                            self.open = Open::Card;
                        }
                    }
                }
            }
            _ => {
                self.open = self.open.close_text();
            }
        }
    }

    fn card(&mut self, id: String, title: String, line_no: usize) {
        let (phase, phase_title) = match &self.current_phase {
            Some((n, t)) => (*n, t.clone()),
            None => {
                self.diag(line_no, format!("card {id} is not under a phase heading: add `## Phase {} — Title` above it", id_phase(&id).unwrap_or(0)));
                (id_phase(&id).unwrap_or(0), String::new())
            }
        };
        if let Some(n) = id_phase(&id)
            && self.current_phase.is_some()
            && n != phase
        {
            self.diag(line_no, format!("card {id} sits under phase {phase}: renumber it S{phase}.x or move it to phase {n}"));
        }
        if title.is_empty() {
            self.diag(line_no, format!("card {id} has no title: write `### {id} — Title`"));
        }
        self.guide.cards.push(Card {
            id,
            title,
            phase,
            phase_title,
            line: line_no,
            goal: String::new(),
            needs: Vec::new(),
            read: Vec::new(),
            midpoint: String::new(),
            done_when: None,
            quiz: Vec::new(),
            themes: Vec::new(),
            remediation: None,
            hints: Vec::new(),
            fields: Vec::new(),
            unknown: Vec::new(),
        });
        self.open = Open::Card;
    }

    fn field(&mut self, item: &str, line_no: usize) {
        let Some((name, value)) = field_parts(item) else {
            self.diag(line_no, "list item in a card is not a field: write `- **Name**: value`");
            self.open = Open::Card;
            return;
        };
        let card = self.guide.cards.last_mut().expect("fields belong to a card");
        card.fields.push(Field { name: name.to_owned(), value: value.trim().to_owned(), line: line_no });
        self.open = Open::Field;
    }

    fn rung(&mut self, item: &str, line_no: usize) {
        let (kind, text) = match field_parts(item) {
            Some((label, text)) => (RungKind::from_label(label), text.trim().to_owned()),
            None => (None, item.trim().to_owned()),
        };
        let ladder = self.ladder_mut().expect("rungs belong to a ladder");
        ladder.rungs.push(Rung { kind, text, line: line_no });
        self.open = Open::Rung;
    }

    fn finish(&mut self) {
        self.open = Open::None;
    }
}

/// Fills a card's typed fields from its raw fields and reports what is missing or malformed.
fn card_checks(file: &str, card: &mut Card, diags: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let fields = card.fields.clone();
    for field in &fields {
        let canonical = KNOWN_FIELDS.iter().find(|k| k.eq_ignore_ascii_case(&field.name)).copied();
        let key = canonical.unwrap_or(&field.name).to_ascii_lowercase();
        if let Some(first) = seen.get(&key) {
            diags.push(Diagnostic::new(file, field.line, format!("card {} gives {} twice (first at line {first}): keep one", card.id, field.name)));
            continue;
        }
        seen.insert(key, field.line);
        let value = field.value.as_str();
        match canonical {
            Some("Goal") => card.goal = value.to_owned(),
            Some("Needs") => {
                card.needs = split_list(value, ',').map(strip_id_decoration).filter(|s| !is_none_word(s)).map(str::to_owned).collect();
                for need in &card.needs {
                    if !is_card_id(need) {
                        diags.push(Diagnostic::new(file, field.line, format!("card {} needs `{need}`, which is not a card id: write ids like S1.2, or `none`", card.id)));
                    }
                }
            }
            Some("Read") => {
                card.read = split_read(value).into_iter().map(|item| parse_read_item(item, file)).collect();
                for item in &card.read {
                    if let ReadItem::Other(text) = item {
                        diags.push(Diagnostic::new(file, field.line, format!("read item `{text}` is neither a chapter link nor a notebook reference: write `[text](chapter.md#anchor)` or notebook `path.ipynb` cells 2–5")));
                    }
                }
                if card.read.is_empty() {
                    diags.push(Diagnostic::new(file, field.line, format!("card {} has an empty Read field: link the chapter sections to read", card.id)));
                }
            }
            Some("Midpoint") => card.midpoint = value.to_owned(),
            Some("Done-when") => {
                let (command, quoted) = match backticked(value) {
                    Some(cmd) => (cmd.to_owned(), true),
                    None => (value.to_owned(), false),
                };
                if !quoted {
                    diags.push(Diagnostic::new(file, field.line, format!("card {}: put the Done-when command in backticks so it is kept exactly", card.id)));
                }
                if command.trim().is_empty() {
                    diags.push(Diagnostic::new(file, field.line, format!("milestone card {} has an empty Done-when: write the test command in backticks", card.id)));
                } else {
                    card.done_when = Some(DoneWhen { test_file: test_file(&command), command });
                }
            }
            Some("Quiz") => {
                card.quiz = split_list(value, ',').map(|s| s.trim_matches('`').trim()).filter(|s| !s.is_empty() && !is_none_word(s)).map(str::to_owned).collect();
            }
            Some("Themes") => card.themes = split_list(value, ';').map(str::to_owned).collect(),
            Some("Remediation") => {
                let id = strip_id_decoration(value);
                if !id.is_empty() && !is_none_word(id) {
                    card.remediation = Some(id.to_owned());
                }
            }
            _ => {
                diags.push(Diagnostic::new(file, field.line, format!("card {} has an unknown field `{}`; it is kept but unused (known fields: {})", card.id, field.name, KNOWN_FIELDS.join(", "))));
                card.unknown.push(field.clone());
            }
        }
    }
    for required in ["Goal", "Needs", "Read", "Midpoint"] {
        if !seen.contains_key(&required.to_ascii_lowercase()) {
            diags.push(Diagnostic::new(file, card.line, format!("card {} has no {required}: add `- **{required}**: …`", card.id)));
        }
    }
    let has_done = seen.contains_key("done-when");
    let has_quiz = seen.contains_key("quiz");
    match (has_done, has_quiz) {
        (false, false) if !card.hints.is_empty() => diags.push(Diagnostic::new(
            file,
            card.line,
            format!("milestone card {} (it has hint ladders) has no Done-when: add `- **Done-when**: `uv run pytest tests/milestones/test_….py``", card.id),
        )),
        (false, false) => diags.push(Diagnostic::new(
            file,
            card.line,
            format!("card {} has neither Done-when nor Quiz: add `- **Done-when**:` for a milestone or `- **Quiz**:` for a read-only session", card.id),
        )),
        (true, true) => {
            let line = card.field_line("Quiz").unwrap_or(card.line);
            diags.push(Diagnostic::new(file, line, format!("card {} has both Done-when and Quiz: a milestone ends in its test, keep only Done-when", card.id)));
        }
        (false, true) if card.quiz.is_empty() => {
            let line = card.field_line("Quiz").unwrap_or(card.line);
            diags.push(Diagnostic::new(file, line, format!("read-only card {} lists no quiz topics: name topic ids from quiz.toml", card.id)));
        }
        _ => {}
    }
    for ladder in &card.hints {
        ladder_checks(file, &card.id, ladder, diags);
    }
}

fn ladder_checks(file: &str, id: &str, ladder: &HintLadder, diags: &mut Vec<Diagnostic>) {
    if ladder.rungs.len() != 4 {
        diags.push(Diagnostic::new(
            file,
            ladder.line,
            format!("hint ladder `{}` of card {id} has {} rungs: write four, **Point**, **Ask**, **Pseudocode**, **One line**", ladder.obstacle, ladder.rungs.len()),
        ));
    }
    for (rung, expected) in ladder.rungs.iter().zip(RungKind::ALL) {
        if rung.kind != Some(expected) {
            diags.push(Diagnostic::new(file, rung.line, format!("rung {} of hint ladder `{}` should start `**{}**:`", expected.number(), ladder.obstacle, expected.label())));
        }
    }
}

/// Duplicate ids, unknown Needs, Needs that point forward, Needs cycles, unknown Remediation.
fn graph_checks(file: &str, guide: &Guide, diags: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, card) in guide.cards.iter().enumerate() {
        if let Some(&prev) = first.get(card.id.as_str()) {
            diags.push(Diagnostic::new(file, card.line, format!("duplicate card id {} (first at line {}): give each card its own id", card.id, guide.cards[prev].line)));
        } else {
            first.insert(&card.id, index);
        }
    }
    for (index, card) in guide.cards.iter().enumerate() {
        let line = card.field_line("Needs").unwrap_or(card.line);
        for need in &card.needs {
            if !is_card_id(need) {
                continue; // already reported by card_checks
            }
            match first.get(need.as_str()) {
                None => diags.push(Diagnostic::new(file, line, format!("card {} needs {need}, which is not in the guide: fix the id or add the card", card.id))),
                Some(&at) if at == index => diags.push(Diagnostic::new(file, line, format!("card {} needs itself: remove it from Needs", card.id))),
                Some(&at) if at > index => diags.push(Diagnostic::new(file, line, format!("card {} needs {need}, which comes later in the guide: move {need} above it or fix Needs", card.id))),
                Some(_) => {}
            }
        }
        if let Some(rem) = &card.remediation
            && !first.contains_key(rem.as_str())
        {
            let line = card.field_line("Remediation").unwrap_or(card.line);
            diags.push(Diagnostic::new(file, line, format!("card {} names remediation {rem}, which is not in the guide: fix the id or add the card", card.id)));
        }
    }
    for cycle in needs_cycles(guide, &first) {
        let card = &guide.cards[cycle[0]];
        let line = card.field_line("Needs").unwrap_or(card.line);
        let path: Vec<&str> = cycle.iter().chain(std::iter::once(&cycle[0])).map(|&i| guide.cards[i].id.as_str()).collect();
        diags.push(Diagnostic::new(file, line, format!("needs form a cycle: {}; no card in it can ever be started, break one of these Needs", path.join(" → "))));
    }
}

/// One cycle of Needs per group of cards that need each other (a strongly connected component
/// with more than one card), starting at the group's earliest card in Guide order. Self-needs are
/// left out: they get their own message. Linear in cards plus Needs, however tangled.
fn needs_cycles(guide: &Guide, index_of: &BTreeMap<&str, usize>) -> Vec<Vec<usize>> {
    let n = guide.cards.len();
    let edges: Vec<Vec<usize>> = guide
        .cards
        .iter()
        .enumerate()
        .map(|(i, c)| c.needs.iter().filter_map(|need| index_of.get(need.as_str()).copied()).filter(|&j| j != i).collect())
        .collect();
    let component = strongly_connected(&edges);
    let mut size = vec![0usize; n];
    for &c in &component {
        size[c] += 1;
    }
    let mut reported = vec![false; n];
    let mut cycles = Vec::new();
    // Components are disjoint, so one parent array serves every search.
    let mut parent = vec![usize::MAX; n];
    for start in 0..n {
        let c = component[start];
        if size[c] < 2 || reported[c] {
            continue;
        }
        reported[c] = true;
        // Breadth-first search inside the component from `start` back to `start`.
        let mut queue = std::collections::VecDeque::from([start]);
        let mut last = None;
        'search: while let Some(node) = queue.pop_front() {
            for &to in &edges[node] {
                if component[to] != c {
                    continue;
                }
                if to == start {
                    last = Some(node);
                    break 'search;
                }
                if parent[to] == usize::MAX {
                    parent[to] = node;
                    queue.push_back(to);
                }
            }
        }
        let mut cycle = Vec::new();
        let mut node = last.expect("a component of two or more cards has a cycle through each card");
        while node != start {
            cycle.push(node);
            node = parent[node];
        }
        cycle.push(start);
        cycle.reverse();
        cycles.push(cycle);
    }
    cycles
}

/// Kosaraju's algorithm, iterative so a long chain of Needs cannot overflow the stack: the
/// component number of every node.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    let mut order = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    for root in 0..n {
        if visited[root] {
            continue;
        }
        visited[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((node, next)) = stack.last_mut() {
            if let Some(&to) = edges[*node].get(*next) {
                *next += 1;
                if !visited[to] {
                    visited[to] = true;
                    stack.push((to, 0));
                }
            } else {
                order.push(*node);
                stack.pop();
            }
        }
    }
    let mut reverse = vec![Vec::new(); n];
    for (from, tos) in edges.iter().enumerate() {
        for &to in tos {
            reverse[to].push(from);
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut count = 0;
    for &root in order.iter().rev() {
        if component[root] != usize::MAX {
            continue;
        }
        component[root] = count;
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            for &from in &reverse[node] {
                if component[from] == usize::MAX {
                    component[from] = count;
                    stack.push(from);
                }
            }
        }
        count += 1;
    }
    component
}

/// The heading ids a chapter offers, for checking Read links.
pub trait Chapters {
    /// Whether the book has a chapter at this `src/`-relative path.
    fn has_chapter(&self, path: &str) -> bool;
    /// Whether that chapter has a heading with this id.
    fn has_anchor(&self, path: &str, anchor: &str) -> bool;
}

impl Chapters for BTreeMap<String, BTreeSet<String>> {
    fn has_chapter(&self, path: &str) -> bool {
        self.contains_key(path)
    }
    fn has_anchor(&self, path: &str, anchor: &str) -> bool {
        self.get(path).is_some_and(|ids| ids.contains(anchor))
    }
}

/// Checks the guide against the rest of the book: Read links must land on a chapter of the book
/// and on a heading of that chapter, and quiz topics must exist in `quiz.toml`. `guide_path` is
/// the guide chapter's own `src/`-relative path (for `#anchor` links inside the guide);
/// `quiz_topics` is `None` when the book has no quiz bank to check against.
pub fn check(guide: &Guide, chapters: &dyn Chapters, guide_path: &str, quiz_topics: Option<&BTreeSet<String>>) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for card in &guide.cards {
        let read_line = card.field_line("Read").unwrap_or(card.line);
        for item in &card.read {
            let ReadItem::Chapter { path, anchor, .. } = item else { continue };
            let target = if path.is_empty() { guide_path } else { path.as_str() };
            if !chapters.has_chapter(target) {
                diags.push(Diagnostic::new(&guide.file, read_line, format!("card {} reads {target}, which is not a chapter of the book: fix the link or add it to SUMMARY.md", card.id)));
            } else if let Some(anchor) = anchor
                && !chapters.has_anchor(target, anchor)
            {
                diags.push(Diagnostic::new(&guide.file, read_line, format!("card {} reads {target}#{anchor}, but that chapter has no heading with id `{anchor}`: fix the anchor", card.id)));
            }
        }
        if let Some(topics) = quiz_topics {
            let quiz_line = card.field_line("Quiz").unwrap_or(card.line);
            for topic in &card.quiz {
                if !topics.contains(topic) {
                    diags.push(Diagnostic::new(&guide.file, quiz_line, format!("card {} names quiz topic `{topic}`, which quiz.toml does not define: add a [[topic]] with id = \"{topic}\"", card.id)));
                }
            }
        }
    }
    diags
}

/// Finds the book's Session Guide (see `book`'s module doc for the rule), parses it and checks it
/// against the book. `None` with a diagnostic when the book has no guide.
pub fn load(book: &crate::book::Book, quiz_topics: Option<&BTreeSet<String>>) -> (Option<Guide>, Vec<Diagnostic>) {
    let summary = format!("{}/SUMMARY.md", book.src);
    let Some(path) = &book.guide else {
        return (None, vec![Diagnostic::new(summary, 0, "the book has no Session Guide: add a chapter with `### S0.1 — Title` cards to SUMMARY.md")]);
    };
    let Some(chapter) = book.chapter(path) else {
        // book::load has already reported the missing chapter.
        return (None, Vec::new());
    };
    let file = format!("{}/{}", book.src, chapter.path);
    let (guide, mut diags) = parse(&file, &chapter.source);
    // An index of every chapter's heading ids, so checking is linear in the guide's links.
    diags.extend(check(&guide, &crate::book::anchors(book), &chapter.path, quiz_topics));
    diags.sort_by_key(|d| d.line);
    (Some(guide), diags)
}

// ---------------------------------------------------------------------------------------------
// Line-level helpers. Each scans its line once, so parsing is linear in the size of the guide.

/// An ATX heading: level and text (closing `#`s removed). Up to three spaces of indent.
pub(crate) fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = rest.trim();
    let without_hashes = text.trim_end_matches('#');
    if without_hashes.is_empty() || without_hashes.ends_with([' ', '\t']) {
        text = without_hashes.trim_end();
    }
    Some((level, text))
}

fn opens_fence(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let ch = *trimmed.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|&b| b == ch).count();
    if len < 3 || (ch == b'`' && trimmed[len..].contains('`')) {
        return None;
    }
    Some((ch, len))
}

fn closes_fence(line: &str, ch: u8, len: usize) -> bool {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return false;
    }
    let run = trimmed.bytes().take_while(|&b| b == ch).count();
    run >= len && trimmed[run..].trim().is_empty()
}

/// `## Phase 1 — Design the model` → (1, "Design the model").
fn parse_phase(text: &str) -> Option<(u32, String)> {
    let rest = text.trim().strip_prefix("Phase").or_else(|| text.trim().strip_prefix("phase"))?;
    let rest = rest.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number = rest[..digits].parse().ok()?;
    let title = strip_separator(&rest[digits..]).trim().to_owned();
    Some((number, title))
}

/// `S1.3 — KV-cache budget` → ("S1.3", "KV-cache budget").
fn parse_card_heading(text: &str) -> Option<(String, String)> {
    let text = text.trim();
    let end = text.find(|c: char| c.is_whitespace() || matches!(c, '—' | '–' | ':')).unwrap_or(text.len());
    let (id, rest) = text.split_at(end);
    // "S1.3-Title" has no space; split a hyphen only when what precedes it is a whole id.
    let (id, rest) = match id.split_once('-') {
        Some((head, _)) if is_card_id(head) => (head, &text[head.len()..]),
        _ => (id, rest),
    };
    if !is_card_id(id) {
        return None;
    }
    let rest = rest.trim_start();
    let title = strip_separator(rest).trim();
    if !rest.is_empty() && title.len() == rest.len() {
        return None; // text after the id without a separator: not a card heading
    }
    Some((id.to_owned(), title.to_owned()))
}

/// Removes one leading separator (`—`, `–`, `-`, `:`) and the spaces around it.
fn strip_separator(s: &str) -> &str {
    let s = s.trim_start();
    for sep in ['—', '–', '-', ':'] {
        if let Some(rest) = s.strip_prefix(sep) {
            return rest;
        }
    }
    s
}

/// `- item` / `* item` / `+ item` → `item` (the bullet at up to three spaces of indent).
fn bullet_item(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let rest = trimmed.strip_prefix(['-', '*', '+'])?;
    rest.starts_with([' ', '\t']).then(|| rest.trim_start())
}

/// `1. item` / `1) item` → `item`.
fn ordered_item(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = trimmed[digits..].strip_prefix(['.', ')'])?;
    rest.starts_with([' ', '\t']).then(|| rest.trim_start())
}

/// `**Name**: value` or `**Name:** value` → (Name, value).
fn field_parts(item: &str) -> Option<(&str, &str)> {
    let rest = item.strip_prefix("**").or_else(|| item.strip_prefix("__"))?;
    let close = rest.find("**").or_else(|| rest.find("__"))?;
    let (name, after) = (&rest[..close], &rest[close + 2..]);
    if let Some(name) = name.strip_suffix(':') {
        return Some((name.trim(), after));
    }
    let value = after.trim_start().strip_prefix(':')?;
    Some((name.trim(), value))
}

fn append_continuation(value: &mut String, line: &str) {
    if !value.is_empty() {
        value.push(' ');
    }
    value.push_str(line.trim());
}

fn is_none_word(s: &str) -> bool {
    matches!(s.trim().to_ascii_lowercase().as_str(), "none" | "-" | "—" | "–" | "")
}

/// Splits on `sep`, trims, drops empty pieces.
fn split_list(value: &str, sep: char) -> impl Iterator<Item = &str> {
    value.split(sep).map(str::trim).filter(|s| !s.is_empty())
}

/// `[S1.2](#s12--title)`, `` `S1.2` `` or `**S1.2**` → `S1.2`.
fn strip_id_decoration(s: &str) -> &str {
    let s = s.trim();
    let s = s.strip_prefix('[').and_then(|r| r.split_once(']')).map_or(s, |(text, _)| text);
    s.trim_matches(|c| c == '`' || c == '*').trim()
}

/// Splits a Read value on `;` that are outside links and code spans.
fn split_read(value: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut brackets, mut parens, mut code) = (0usize, 0usize, false);
    let mut start = 0;
    for (i, c) in value.char_indices() {
        match c {
            '`' => code = !code,
            '[' if !code => brackets += 1,
            ']' if !code => brackets = brackets.saturating_sub(1),
            '(' if !code => parens += 1,
            ')' if !code => parens = parens.saturating_sub(1),
            ';' if !code && brackets == 0 && parens == 0 => {
                items.push(value[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(value[start..].trim());
    items.retain(|s| !s.is_empty());
    items
}

fn parse_read_item(item: &str, guide_file: &str) -> ReadItem {
    if let Some((text, target)) = crate::book::markdown_link(item) {
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a.to_owned())),
            None => (target, None),
        };
        let path = if path.is_empty() { String::new() } else { resolve(guide_file, &percent_decode(path)) };
        return ReadItem::Chapter { text: text.to_owned(), path, anchor };
    }
    let lower = item.to_ascii_lowercase();
    if lower.starts_with("notebook")
        && let Some(path) = backticked(item)
    {
        let after = &item[item.find(path).map_or(item.len(), |i| i + path.len())..];
        return ReadItem::Notebook { path: path.to_owned(), cells: cell_range(after) };
    }
    ReadItem::Other(item.to_owned())
}

/// ` cells 2–5` → (2, 5); ` cell 3` → (3, 3).
fn cell_range(s: &str) -> Option<(u32, u32)> {
    let lower = s.trim().to_ascii_lowercase();
    let rest = lower.strip_prefix("cells").or_else(|| lower.strip_prefix("cell"))?.trim();
    let mut numbers = rest.split(['–', '—', '-', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(|s| s.trim_end_matches(|c: char| !c.is_ascii_digit()));
    let first: u32 = numbers.next()?.parse().ok()?;
    let last = numbers.next().and_then(|s| s.parse().ok()).unwrap_or(first);
    Some((first, last))
}

/// The text of the first code span (`` `x` `` or ``` ``x`` ```), as written.
fn backticked(value: &str) -> Option<&str> {
    let start = value.find('`')?;
    let run = value[start..].bytes().take_while(|&b| b == b'`').count();
    let body = &value[start + run..];
    let fence = &value[start..start + run];
    let end = body.find(fence)?;
    let inner = &body[..end];
    // CommonMark strips one space on each side of a code span that has both.
    let inner = if run > 1 && inner.starts_with(' ') && inner.ends_with(' ') && inner.len() >= 2 { &inner[1..inner.len() - 1] } else { inner };
    Some(inner)
}

/// Decodes `%XX` escapes (as in `my%20chapter.md`); malformed escapes are kept as written.
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// The milestone test file a Done-when command runs: the last argument naming a `.py` file, its
/// folder and any `::test` selector removed.
pub fn test_file(command: &str) -> Option<String> {
    command.split_whitespace().rev().find_map(|arg| {
        let arg = arg.trim_matches(|c| c == '"' || c == '\'');
        let file = arg.split("::").next()?;
        let name = file.rsplit('/').next()?;
        (name.ends_with(".py") && name.len() > 3).then(|| name.to_owned())
    })
}

/// Resolves a link `target` written in the file at bundle path `from` (e.g.
/// `src/session-guide.md`: the source folder, then the path inside it) to a path relative to the
/// source folder.
pub fn resolve(from: &str, target: &str) -> String {
    let base = from.split_once('/').map_or("", |(_, rest)| rest);
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop(); // the file itself
    for piece in target.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_and_items() {
        assert_eq!(parse_card_heading("S1.3 — KV-cache budget"), Some(("S1.3".into(), "KV-cache budget".into())));
        assert_eq!(parse_card_heading("S1.3-Title"), Some(("S1.3".into(), "Title".into())));
        assert_eq!(parse_card_heading("S1.3: Title"), Some(("S1.3".into(), "Title".into())));
        assert_eq!(parse_card_heading("S1.3 Title"), None);
        assert_eq!(parse_card_heading("Setup — x"), None);
        assert_eq!(field_parts("**Goal**: x"), Some(("Goal", " x")));
        assert_eq!(field_parts("**Goal:** x"), Some(("Goal", " x")));
        assert_eq!(test_file("uv run pytest tests/milestones/test_m02_kv_budget.py"), Some("test_m02_kv_budget.py".into()));
        assert_eq!(test_file("uv run pytest tests/milestones/test_m02.py::test_x -q"), Some("test_m02.py".into()));
        assert_eq!(test_file("uv run pytest tests/milestones/"), None);
        assert_eq!(cell_range(" cells 2–5"), Some((2, 5)));
        assert_eq!(cell_range(" cell 3"), Some((3, 3)));
        assert_eq!(resolve("src/session-guide.md", "kv-cache.md"), "kv-cache.md");
        assert_eq!(resolve("src/part/guide.md", "../kv-cache.md"), "kv-cache.md");
        assert_eq!(split_read("[a; b](x.md); notebook `n;b.ipynb` cells 1-2"), vec!["[a; b](x.md)", "notebook `n;b.ipynb` cells 1-2"]);
    }
}
