//! PROGRESS.md: a lossless parser and printer, the canonical entry, `append` and `fmt`.
//!
//! The reader edits this log by hand, the app appends to it and an agent writes to it, so the
//! parser reads what people actually write and the printer gives back every byte it was given:
//! `print(&parse(s).0) == s` for every `s`. Each entry keeps its raw text (a range of the one
//! copy of the file its log holds); the parsed view (date, session, status, fields) sits on top
//! of it and is never printed.
//!
//! # Grammar
//!
//! Lines end with `\n` or `\r\n`; a lone `\r` is part of a line's text.
//!
//! ```text
//! log      = preamble entry*
//! preamble = every line before the first entry heading (kept as is)
//! entry    = heading line*              up to the next entry heading
//! heading  = ≤3 spaces "###" ws DATE SEP SESSION [ws "(" TITLE ")"] SEP STATUS
//! SEP      = "—" | "–" (spaces optional) | ws "-" ws | ws "--" ws
//! DATE     = YYYY-MM-DD
//! STATUS   = DONE | PARTIAL | SKIPPED (any case) | other text (kept, with a diagnostic)
//! line     = field | continuation | blank | note
//! field    = ≤3 spaces ("-" | "*" | "+") ws ( "**" NAME "**:" | "**" NAME ":**" | KNOWN ":" ) VALUE
//! continuation = a non-blank line right after a field or continuation that is not a bullet,
//!                a heading, a fence or a rule (Markdown's lazy continuation); its text joins
//!                the field's value
//! note     = anything else, including lines in a code fence that closes within the entry
//!            (kept with the entry it follows, never interpreted)
//! ```
//!
//! A `###` heading is an entry heading when its text starts with a digit, or when it has a
//! separator and ends in a status word. A heading that looks like an entry but whose date is not
//! `YYYY-MM-DD` is still an entry (so it is never lost) and gets a diagnostic. Other headings are
//! notes. Whether a line is an entry heading depends on that line alone, even inside a code
//! fence: then no other line (and no merge or fmt that moves lines) can hide an entry.
//!
//! Known fields (names compared without case, spaces or dashes): Built, Done-when, Sticking
//! point, Next. Any other bold field name is an unknown field, kept and exposed.
//!
//! # The canonical entry
//!
//! ```text
//! ### 2026-07-22 — S1.3 (KV-cache budget) — DONE
//! - **Built**: chose n_kv_heads=2 (GQA); cache 5.2 MB @ batch 8 x 512
//! - **Done-when**: test_m02_kv_budget.py ✅
//! - **Sticking point**: per-head vs per-layer cache sizing (ladder rung 2)
//! - **Next**: S1.4 — dense vs MoE, decided with numbers
//! ```
//!
//! [`NewEntry::to_text`] writes it, [`append`] adds it to a log, and [`fmt()`] rewrites
//! hand-edited entries into it without touching lines it does not understand.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::diag::Diagnostic;

/// The file name diagnostics carry; shells replace it with the real path.
pub const FILE: &str = "PROGRESS.md";

// ---------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------

/// A parsed PROGRESS.md: the text before the first entry, then the entries in file order.
///
/// Concatenating `preamble` and every entry's [`Entry::raw`] gives back the file byte for byte.
/// The entries may be reordered, removed, or taken from other logs: [`print()`] writes whatever
/// they hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProgressLog {
    pub preamble: String,
    pub entries: Vec<Entry>,
}

/// One session's entry: its raw text (heading, fields, and any notes up to the next entry,
/// with their line endings) and what could be read from it.
///
/// The entries of a parsed log share one copy of the file's text (a `Source` behind an
/// `Arc`): an entry is a byte range of it, and everything read from the entry is kept as byte
/// ranges too, read back through the accessors below. Parsing a log thus allocates a fixed
/// handful of buffers whatever its length, and nothing per entry unless it needs a diagnostic
/// or has an unknown status word; cloning an entry is cheap. An
/// entry made by [`Entry::new`] has a source of its own. The model is complete after [`parse`];
/// accessors only slice.
#[derive(Clone)]
pub struct Entry {
    source: Arc<Source>,
    /// The entry exactly as written, including notes and blank lines that follow it: a byte
    /// range of `source.text`.
    raw: Range<usize>,
    /// Its fields, in file order: a range of the source's list of fields.
    fields: Range<usize>,
    /// Where its values joined from continuation lines start in the source's joined values.
    joined: usize,
    /// 1-based line of the heading in the file it was parsed from.
    pub line: usize,
    /// The date, when the heading's date is a valid `YYYY-MM-DD`.
    pub date: Option<Date>,
    pub status: Option<Status>,
    date_text: Span,
    session: Span,
    title: Option<Span>,
    built: Option<Span>,
    done_when: Option<DoneWhen<Span>>,
    sticking_point: Option<StickingPoint<Span>>,
    next: Option<Next<Span>>,
}

/// The text a log was parsed from, shared by its entries.
#[derive(Debug)]
struct Source {
    text: Box<str>,
    /// What was read from the text that is not a slice of it. [`parse`] fills it once it has
    /// read every entry (the entries, which point into it, are made while it reads), so it is
    /// always set by the time an entry leaves `parse`.
    read: OnceLock<Read>,
}

/// What a log's entries read that is not a slice of its text.
#[derive(Debug, Default)]
struct Read {
    /// Values joined from continuation lines (empty for almost every log).
    joined: String,
    /// The fields of every entry, in file order.
    fields: Vec<FieldSpans>,
}

impl Source {
    fn read(&self) -> &Read {
        static NOTHING: Read = Read { joined: String::new(), fields: Vec::new() };
        self.read.get().unwrap_or(&NOTHING)
    }
}

/// Two entries are equal when they were written the same and read the same: the parsed view is
/// a function of the raw text and the heading's line, so it need not be compared.
impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.raw() == other.raw() && self.line == other.line && self.date == other.date && self.status == other.status
    }
}

impl Eq for Entry {}

/// Where a piece of an entry's text is, counted from the start of the entry: a byte range of
/// its raw text, or, with [`Span::JOINED`] set, of the values it joined from continuation lines
/// (see [`Entry::text`]).
///
/// Offsets are 31 bits, which keeps an entry and its fields small (and parsing fast): in an
/// entry longer than 2 GiB, a field that starts past its first 2 GiB is read as a note. Its
/// text is still printed back whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// Marks a span of the joined values.
    const JOINED: u32 = 1 << 31;

    /// The span `start..end` of the raw text, if both ends fit in 31 bits.
    fn raw(start: usize, end: usize) -> Option<Span> {
        let fits = |n: usize| u32::try_from(n).ok().filter(|n| *n < Span::JOINED);
        Some(Span { start: fits(start)?, end: fits(end)? })
    }

    /// The span `start..end` of the joined values, if both ends fit in 31 bits.
    fn joined(start: usize, end: usize) -> Option<Span> {
        Span::raw(start, end).map(|s| Span { start: s.start | Span::JOINED, end: s.end | Span::JOINED })
    }

    fn is_joined(self) -> bool {
        self.start & Span::JOINED != 0
    }

    /// Its byte range in the raw text or in the joined values, whichever it is in.
    fn range(self) -> Range<usize> {
        (self.start & !Span::JOINED) as usize..(self.end & !Span::JOINED) as usize
    }
}

/// A field as stored: the ranges of its name and value, and its lines counted from the
/// heading's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FieldSpans {
    kind: FieldKind,
    name: Span,
    value: Span,
    line: u32,
    last_line: u32,
}

/// A `- **Name**: value` line of an entry (plus its continuation lines), borrowed from the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    pub kind: FieldKind,
    /// The name as written (`Done-when`, `done when`, `Mood`).
    pub name: &'a str,
    /// The value, trimmed, with continuation lines joined by a space.
    pub value: &'a str,
    /// 1-based line of the field's bullet.
    pub line: usize,
    /// 1-based line of its last continuation line (equal to `line` when there is none).
    pub last_line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldKind {
    Built,
    DoneWhen,
    StickingPoint,
    Next,
    Unknown,
}

impl FieldKind {
    /// The canonical field name, or `None` for unknown fields.
    pub fn canonical_name(self) -> Option<&'static str> {
        match self {
            FieldKind::Built => Some("Built"),
            FieldKind::DoneWhen => Some("Done-when"),
            FieldKind::StickingPoint => Some("Sticking point"),
            FieldKind::Next => Some("Next"),
            FieldKind::Unknown => None,
        }
    }

    fn from_name(name: &str) -> FieldKind {
        // Compared without case, spaces or dashes, and without allocating: this runs per field.
        let same = |canonical: &str| {
            let mut a = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase);
            let mut b = canonical.bytes();
            loop {
                match (a.next(), b.next()) {
                    (None, None) => return true,
                    (Some(x), Some(y)) if x == char::from(y) => {}
                    _ => return false,
                }
            }
        };
        // The canonical spellings first: almost every field is written that way.
        match name {
            "Built" => return FieldKind::Built,
            "Done-when" => return FieldKind::DoneWhen,
            "Sticking point" => return FieldKind::StickingPoint,
            "Next" => return FieldKind::Next,
            _ => {}
        }
        if name.len() > 40 {
            FieldKind::Unknown
        } else if same("built") {
            FieldKind::Built
        } else if same("donewhen") {
            FieldKind::DoneWhen
        } else if same("stickingpoint") {
            FieldKind::StickingPoint
        } else if same("next") {
            FieldKind::Next
        } else {
            FieldKind::Unknown
        }
    }
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// A valid calendar date, or `None`.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days).contains(&day).then_some(Date { year, month, day })
    }

    /// Parses exactly `YYYY-MM-DD` (four, two and two ASCII digits).
    pub fn parse(text: &str) -> Option<Date> {
        let b = text.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: Range<usize>| -> Option<u16> {
            b[r].iter().try_fold(0u16, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + u16::from(c - b'0')))
        };
        Date::new(num(0..4)?, u8::try_from(num(5..7)?).ok()?, u8::try_from(num(8..10)?).ok()?)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// How a session ended. Unknown words are kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Status {
    Done,
    Partial,
    /// A skipped Phase 0 (recorded after passing its quiz).
    Skipped,
    Other(String),
}

impl Status {
    /// Reads a status word in any case; anything else is kept as `Other`.
    pub fn parse(text: &str) -> Status {
        let t = trim(text);
        let t = trim(t.strip_prefix("**").and_then(|t| t.strip_suffix("**")).unwrap_or(t));
        if t.eq_ignore_ascii_case("done") {
            Status::Done
        } else if t.eq_ignore_ascii_case("partial") {
            Status::Partial
        } else if t.eq_ignore_ascii_case("skipped") {
            Status::Skipped
        } else {
            Status::Other(trim(text).to_string())
        }
    }

    /// The word the canonical heading uses (`DONE`); `Other` keeps its text.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Done => "DONE",
            Status::Partial => "PARTIAL",
            Status::Skipped => "SKIPPED",
            Status::Other(s) => s,
        }
    }
}

/// A Done-when mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Pass,
    Fail,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Pass => "✅",
            Mark::Fail => "❌",
        }
    }
}

// Longest spellings first so `✔️` is not read as `✔` plus a stray variation selector.
const MARKS: &[(&str, Mark)] = &[
    ("✔\u{fe0f}", Mark::Pass),
    ("☑\u{fe0f}", Mark::Pass),
    ("✖\u{fe0f}", Mark::Fail),
    ("✅", Mark::Pass),
    ("✔", Mark::Pass),
    ("☑", Mark::Pass),
    ("✓", Mark::Pass),
    ("❌", Mark::Fail),
    ("✗", Mark::Fail),
    ("✘", Mark::Fail),
    ("✖", Mark::Fail),
];

/// The Done-when field: what was checked (a test file, or `quiz 8/10` for a read-only
/// session) and its mark.
///
/// `DoneWhen` owns its text (what the app writes); [`Entry::done_when`] gives a
/// `DoneWhen<&str>` borrowed from the entry. [`DoneWhen::into_owned`] turns one into the other.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DoneWhen<S = String> {
    pub target: S,
    pub mark: Option<Mark>,
}

impl DoneWhen {
    /// A milestone test's result, e.g. `test_m02_kv_budget.py ✅`.
    pub fn test(file: &str, mark: Mark) -> DoneWhen {
        DoneWhen { target: one_line(file), mark: Some(mark) }
    }

    /// A read-only session's quiz result, e.g. `quiz 8/10 ✅`.
    pub fn quiz(score: u32, out_of: u32, passed: bool) -> DoneWhen {
        DoneWhen {
            target: format!("quiz {score}/{out_of}"),
            mark: Some(if passed { Mark::Pass } else { Mark::Fail }),
        }
    }

    /// Reads a value: a mark at the end (or, failing that, at the start) and the rest.
    pub fn parse(value: &str) -> DoneWhen {
        DoneWhen::read(value).into_owned()
    }
}

impl<'a> DoneWhen<&'a str> {
    /// [`DoneWhen::parse`], borrowing from `value`.
    pub fn read(value: &'a str) -> DoneWhen<&'a str> {
        let v = trim(value);
        for &(m, mark) in MARKS {
            if let Some(rest) = v.strip_suffix(m) {
                return DoneWhen { target: trim(rest), mark: Some(mark) };
            }
        }
        for &(m, mark) in MARKS {
            if let Some(rest) = v.strip_prefix(m) {
                return DoneWhen { target: trim(rest), mark: Some(mark) };
            }
        }
        DoneWhen { target: v, mark: None }
    }

    pub fn into_owned(self) -> DoneWhen {
        DoneWhen { target: self.target.to_owned(), mark: self.mark }
    }
}

impl<S: AsRef<str>> DoneWhen<S> {
    /// The score of a quiz recorded as `quiz N/M`, if this is one.
    pub fn quiz_score(&self) -> Option<(u32, u32)> {
        let target = self.target.as_ref();
        let rest = target.get(..5).filter(|p| p.eq_ignore_ascii_case("quiz "))?;
        let (n, m) = target[rest.len()..].trim().split_once('/')?;
        Some((n.trim().parse().ok()?, m.trim().parse().ok()?))
    }

    /// The canonical value: target, a space, then ✅ or ❌.
    pub fn canonical(&self) -> String {
        let target = self.target.as_ref().trim();
        match (target.is_empty(), self.mark) {
            (_, None) => target.to_string(),
            (true, Some(m)) => m.as_str().to_string(),
            (false, Some(m)) => format!("{target} {}", m.as_str()),
        }
    }
}

/// The Sticking point field: the concept that was hard and the highest rung reached.
/// Owned or borrowed, like [`DoneWhen`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StickingPoint<S = String> {
    pub text: S,
    pub rung: Option<u8>,
}

impl StickingPoint {
    /// Reads `concept (ladder rung N)`; `(rung N)` is read too.
    pub fn parse(value: &str) -> StickingPoint {
        StickingPoint::read(value).into_owned()
    }
}

impl<'a> StickingPoint<&'a str> {
    /// [`StickingPoint::parse`], borrowing from `value`.
    pub fn read(value: &'a str) -> StickingPoint<&'a str> {
        let v = trim(value);
        if let Some(inner_end) = v.strip_suffix(')')
            && let Some(open) = inner_end.rfind('(')
        {
            // Case-insensitive prefixes without allocating: this runs once per entry.
            let strip_word = |s: &'_ str, word: &str| -> Option<usize> {
                s.get(..word.len()).filter(|p| p.eq_ignore_ascii_case(word)).map(|_| word.len())
            };
            let inner = trim(&inner_end[open + 1..]);
            let inner = strip_word(inner, "ladder").map_or(inner, |n| trim_start(&inner[n..]));
            if let Some(n) = strip_word(inner, "rung").map(|n| trim(&inner[n..]))
                && n.bytes().all(|b| b.is_ascii_digit())
                && let Ok(rung) = n.parse::<u8>()
            {
                return StickingPoint { text: trim(&v[..open]), rung: Some(rung) };
            }
        }
        StickingPoint { text: v, rung: None }
    }

    pub fn into_owned(self) -> StickingPoint {
        StickingPoint { text: self.text.to_owned(), rung: self.rung }
    }
}

impl<S: AsRef<str>> StickingPoint<S> {
    /// True when the reader wrote that nothing was hard (`none`, `-`, `n/a`, empty).
    pub fn is_none(&self) -> bool {
        let t = self.text.as_ref().trim().to_lowercase();
        self.rung.is_none() && matches!(t.as_str(), "" | "none" | "-" | "—" | "–" | "n/a" | "nothing")
    }

    pub fn canonical(&self) -> String {
        let text = self.text.as_ref().trim();
        match (text.is_empty(), self.rung) {
            (_, None) => text.to_string(),
            (true, Some(r)) => format!("(ladder rung {r})"),
            (false, Some(r)) => format!("{text} (ladder rung {r})"),
        }
    }
}

/// The Next field: the session that comes next and why. Owned or borrowed, like [`DoneWhen`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Next<S = String> {
    pub session: Option<S>,
    pub why: S,
}

impl Next {
    /// Reads `S1.4 — why`; when the value does not start with a session id, it is all `why`.
    pub fn parse(value: &str) -> Next {
        Next::read(value).into_owned()
    }
}

impl<'a> Next<&'a str> {
    /// [`Next::parse`], borrowing from `value`.
    pub fn read(value: &'a str) -> Next<&'a str> {
        let v = trim(value);
        let end = v.find(|c: char| c.is_whitespace() || matches!(c, '—' | '–' | ':' | ',')).unwrap_or(v.len());
        let token = &v[..end];
        if !looks_like_session_id(token) {
            return Next { session: None, why: v };
        }
        // One separator between the id and the reason, whichever the reader used.
        let rest = trim_start(&v[end..]);
        let rest = strip_leading_separator(rest).or_else(|| rest.strip_prefix([':', ','])).unwrap_or(rest);
        Next { session: Some(token), why: trim(rest) }
    }

    pub fn into_owned(self) -> Next {
        Next { session: self.session.map(str::to_owned), why: self.why.to_owned() }
    }
}

impl<S: AsRef<str>> Next<S> {
    pub fn canonical(&self) -> String {
        let why = self.why.as_ref().trim();
        match self.session.as_ref().map(|s| s.as_ref().trim()) {
            None | Some("") => why.to_string(),
            Some(s) if why.is_empty() => s.to_string(),
            Some(s) => format!("{s} — {why}"),
        }
    }
}

/// Card ids as the book writes them: capital letters, then digits and dots (`S1.4`, `M2`).
fn looks_like_session_id(token: &str) -> bool {
    let letters = token.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest = &token.as_bytes()[letters..];
    (1..=3).contains(&letters)
        && rest.first().is_some_and(u8::is_ascii_digit)
        && rest.iter().all(|c| c.is_ascii_digit() || *c == b'.')
        && token.len() <= 16
}

/// What identifies an entry across files: its date, session and status, as written
/// (normalised: the date canonical when valid, the status word upper-cased when known).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntryKey {
    pub date: String,
    pub session: String,
    pub status: String,
}

impl fmt::Display for EntryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.date, self.session, self.status)
    }
}

impl Entry {
    /// Builds the canonical entry for a session the app just logged.
    pub fn new(new: &NewEntry) -> Entry {
        let text = new.to_text();
        let (log, _) = parse(&text);
        log.entries.into_iter().next().expect("a canonical entry always parses as one entry")
    }

    pub fn key(&self) -> EntryKey {
        EntryKey {
            date: self.date.map(|d| d.to_string()).unwrap_or_else(|| self.date_text().to_string()),
            session: self.session().to_string(),
            status: self.status.as_ref().map(|s| s.as_str().to_string()).unwrap_or_default(),
        }
    }

    /// The entry exactly as written, including notes and blank lines that follow it.
    pub fn raw(&self) -> &str {
        &self.source.text[self.raw.clone()]
    }

    /// The heading's date as written (kept even when it is not a valid date).
    pub fn date_text(&self) -> &str {
        self.text(self.date_text)
    }

    /// The session id as written (`S1.3`); empty when the heading has none.
    pub fn session(&self) -> &str {
        self.text(self.session)
    }

    pub fn title(&self) -> Option<&str> {
        self.title.map(|t| self.text(t))
    }

    /// Every field, known or not, in file order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = Field<'_>> + DoubleEndedIterator + Clone {
        self.source.read().fields[self.fields.clone()].iter().map(|f| Field {
            kind: f.kind,
            name: self.text(f.name),
            value: self.text(f.value),
            line: self.line + f.line as usize,
            last_line: self.line + f.last_line as usize,
        })
    }

    /// The first field of a kind.
    pub fn field(&self, kind: FieldKind) -> Option<Field<'_>> {
        self.fields().find(|f| f.kind == kind)
    }

    /// Fields the companion does not know, in file order.
    pub fn unknown_fields(&self) -> impl Iterator<Item = Field<'_>> {
        self.fields().filter(|f| f.kind == FieldKind::Unknown)
    }

    /// The first Built field's value.
    pub fn built(&self) -> Option<&str> {
        self.built.map(|s| self.text(s))
    }

    /// The first Done-when field, read.
    pub fn done_when(&self) -> Option<DoneWhen<&str>> {
        self.done_when.as_ref().map(|d| DoneWhen { target: self.text(d.target), mark: d.mark })
    }

    /// The first Sticking point field, read.
    pub fn sticking_point(&self) -> Option<StickingPoint<&str>> {
        self.sticking_point.as_ref().map(|s| StickingPoint { text: self.text(s.text), rung: s.rung })
    }

    /// The first Next field, read.
    pub fn next(&self) -> Option<Next<&str>> {
        self.next.as_ref().map(|n| Next { session: n.session.map(|s| self.text(s)), why: self.text(n.why) })
    }

    /// 1-based line of the entry's last line (notes and blank lines included).
    pub fn last_line(&self) -> usize {
        let raw = self.raw();
        self.line + memchr::memchr_iter(b'\n', raw.as_bytes()).count() - usize::from(raw.ends_with('\n'))
    }

    /// The text a span stands for (see [`Span`]).
    fn text(&self, s: Span) -> &str {
        let r = s.range();
        if r.is_empty() {
            ""
        } else if s.is_joined() {
            &self.source.read().joined[self.joined + r.start..self.joined + r.end]
        } else {
            &self.source.text[self.raw.start + r.start..self.raw.start + r.end]
        }
    }
}

/// Everything the model exposes, as the derived `Debug` of a plain struct would show it.
impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("raw", &self.raw())
            .field("line", &self.line)
            .field("date", &self.date)
            .field("date_text", &self.date_text())
            .field("session", &self.session())
            .field("title", &self.title())
            .field("status", &self.status)
            .field("fields", &self.fields().collect::<Vec<_>>())
            .field("built", &self.built())
            .field("done_when", &self.done_when())
            .field("sticking_point", &self.sticking_point())
            .field("next", &self.next())
            .finish()
    }
}

/// What the app knows when it logs a session; [`NewEntry::to_text`] writes the canonical entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    pub date: Date,
    pub session: String,
    pub title: String,
    pub status: Status,
    pub built: String,
    pub done_when: DoneWhen,
    pub sticking_point: StickingPoint,
    pub next: Next,
}

impl NewEntry {
    /// The canonical entry, lines ending in `\n`, with a final newline.
    ///
    /// Values are flattened to one line so a stray newline cannot break the entry apart.
    pub fn to_text(&self) -> String {
        let title = one_line(&self.title);
        let heading = if title.is_empty() {
            format!("### {} — {} — {}", self.date, one_line(&self.session), self.status.as_str())
        } else {
            format!("### {} — {} ({title}) — {}", self.date, one_line(&self.session), self.status.as_str())
        };
        let sticking = if self.sticking_point.text.trim().is_empty() && self.sticking_point.rung.is_none() {
            "none".to_string()
        } else {
            self.sticking_point.canonical()
        };
        let mut out = heading;
        out.push('\n');
        for (kind, value) in [
            (FieldKind::Built, self.built.clone()),
            (FieldKind::DoneWhen, self.done_when.canonical()),
            (FieldKind::StickingPoint, sticking),
            (FieldKind::Next, self.next.canonical()),
        ] {
            // Re-reading the value makes the output canonical even for odd input, e.g. a
            // Sticking point text that itself ends in `(rung 2)`.
            push_field(&mut out, kind.canonical_name().unwrap_or_default(), &canonical_value(kind, &one_line(&value)));
            out.push('\n');
        }
        out
    }
}

fn one_line(s: &str) -> String {
    if s.contains(['\n', '\r']) {
        s.split(['\n', '\r']).map(str::trim).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ")
    } else {
        s.trim().to_string()
    }
}

fn push_field(out: &mut String, name: &str, value: &str) {
    out.push_str("- **");
    out.push_str(name);
    out.push_str("**:");
    if !value.is_empty() {
        out.push(' ');
        out.push_str(value);
    }
}

// ---------------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------------

/// One line: its text without the line ending, the ending (`\n`, `\r\n` or empty), its 1-based
/// number.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    eol: &'a str,
    number: usize,
}

fn lines(text: &str, first_number: usize) -> impl Iterator<Item = Line<'_>> {
    let mut rest = text;
    let mut number = first_number;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // memchr's vectorised search: line splitting was an eighth of parse time with `str::find`.
        let (line, tail) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => rest.split_at(i + 1),
            None => (rest, ""),
        };
        rest = tail;
        let (text, eol) = split_eol(line);
        number += 1;
        Some(Line { text, eol, number: number - 1 })
    })
}

fn split_eol(line: &str) -> (&str, &str) {
    if let Some(t) = line.strip_suffix("\r\n") {
        (t, &line[t.len()..])
    } else if let Some(t) = line.strip_suffix('\n') {
        (t, &line[t.len()..])
    } else {
        (line, "")
    }
}

/// The line ending most lines of `text` use (`\r\n` or `\n`; `\n` when there is none).
pub fn dominant_eol(text: &str) -> &'static str {
    let lf = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    if crlf * 2 > lf { "\r\n" } else { "\n" }
}

fn is_blank(text: &str) -> bool {
    trim(text).is_empty()
}

/// `str::trim`, without decoding characters while the ends are ASCII, as they are in almost
/// every field and heading (a value usually starts after one space).
fn trim(s: &str) -> &str {
    trim_end(trim_start(s))
}

/// The whitespace `char::is_whitespace` accepts within ASCII.
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// `str::trim_start` with [`trim`]'s fast path; a non-ASCII character falls back to it.
fn trim_start(s: &str) -> &str {
    let n = s.bytes().take_while(|&b| is_ascii_ws(b)).count();
    let rest = &s[n..];
    if rest.as_bytes().first().is_some_and(|b| !b.is_ascii()) { rest.trim_start() } else { rest }
}

/// `str::trim_end` with [`trim`]'s fast path.
fn trim_end(s: &str) -> &str {
    let n = s.bytes().rev().take_while(|&b| is_ascii_ws(b)).count();
    let rest = &s[..s.len() - n];
    if rest.as_bytes().last().is_some_and(|b| !b.is_ascii()) { rest.trim_end() } else { rest }
}

/// Up to three spaces of indentation, as Markdown allows before a block.
fn strip_indent(text: &str) -> Option<&str> {
    let n = text.bytes().take_while(|&b| b == b' ').count();
    (n <= 3).then(|| &text[n..])
}

// ---------------------------------------------------------------------------------------------
// Headings
// ---------------------------------------------------------------------------------------------

/// What an entry heading says. Borrowed from the line; `Entry` owns copies.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heading<'a> {
    date_text: &'a str,
    date: Option<Date>,
    session: &'a str,
    title: Option<&'a str>,
    status: Option<&'a str>,
}

/// Finds the last separator of a heading's tail: its (start, end) byte range including the
/// spaces around it; with `outside_parens`, only separators outside parentheses count.
fn last_separator(text: &str, outside_parens: bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut found = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Most bytes are none of `(`, `)`, `-` or an em/en dash's lead byte: skip them cheaply.
        if !matches!(c, b'(' | b')' | b'-' | 0xE2) {
            i += 1;
            continue;
        }
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let at_top = !outside_parens || depth == 0;
        // Em dash and en dash are U+2014 / U+2013: E2 80 94 / E2 80 93.
        let dash_len = match c {
            0xE2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0x93 | 0x94)) => 3,
            b'-' if i > 0 && b[i - 1].is_ascii_whitespace() => {
                let n = if b.get(i + 1) == Some(&b'-') { 2 } else { 1 };
                if b.get(i + n).is_some_and(u8::is_ascii_whitespace) { n } else { 0 }
            }
            _ => 0,
        };
        if dash_len > 0 && at_top {
            let mut start = i;
            while start > 0 && b[start - 1].is_ascii_whitespace() {
                start -= 1;
            }
            let mut end = i + dash_len;
            while end < b.len() && b[end].is_ascii_whitespace() {
                end += 1;
            }
            found = Some((start, end));
            i = end;
            continue;
        }
        i += if dash_len > 0 { dash_len } else { 1 };
    }
    found
}

/// `—`, `–`, `-` or `--` at the start of `text`, returning what follows it (spaces trimmed).
fn strip_leading_separator(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix('—')
        .or_else(|| text.strip_prefix('–'))
        .or_else(|| text.strip_prefix("--").filter(|r| r.starts_with(char::is_whitespace)))
        .or_else(|| text.strip_prefix('-').filter(|r| r.starts_with(char::is_whitespace)))?;
    Some(trim_start(rest))
}

/// Reads a line as an entry heading; `None` when it is not one (it is then a note).
fn parse_heading(line: &str) -> Option<Heading<'_>> {
    parse_canonical_heading(line).or_else(|| parse_any_heading(line))
}

/// Reads the canonical heading, `### DATE — SESSION (TITLE) — STATUS` (title optional), as the
/// app writes it and most headings are: the same reading as [`parse_any_heading`], without its
/// search for separators outside parentheses. `None` for anything else, even a valid heading.
fn parse_canonical_heading(line: &str) -> Option<Heading<'_>> {
    const SEP: &str = " — ";
    let b = line.as_bytes();
    let date_ok = |i: usize, c: &u8| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() };
    if b.len() < 19 || !line.starts_with("### ") || !b[4..14].iter().enumerate().all(|(i, c)| date_ok(i, c)) || &b[14..19] != SEP.as_bytes() {
        return None;
    }
    let date_text = &line[4..14];
    let rest = &line[19..];
    // The status is a word after the last separator; before it, a session id and maybe a
    // title in parentheses, with no other parentheses that could nest separators.
    // (Byte scans: this runs once per entry, and `str` searches cost more to set up than a
    // heading is long.)
    let status_start = rest.bytes().rposition(|c| !c.is_ascii_alphabetic()).map_or(0, |i| i + 1);
    let status = &rest[status_start..];
    let middle = rest[..status_start].strip_suffix(SEP)?;
    let (session, title) = match middle.bytes().position(|c| c == b' ') {
        None => (middle, None),
        Some(i) => (&middle[..i], Some(middle[i + 1..].strip_prefix('(')?.strip_suffix(')')?)),
    };
    let paren = |c: u8| c == b'(' || c == b')';
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_graphic() && !paren(c));
    if status.is_empty() || !plain(session) || title.is_some_and(|t| memchr::memchr2(b'(', b')', t.as_bytes()).is_some()) {
        return None;
    }
    Some(Heading {
        date_text,
        date: Date::parse(date_text),
        session,
        title: title.map(trim).filter(|t| !t.is_empty()),
        status: Some(status),
    })
}

/// [`parse_heading`] for any spelling.
fn parse_any_heading(line: &str) -> Option<Heading<'_>> {
    let t = strip_indent(line)?.strip_prefix("###")?;
    if !(t.is_empty() || t.starts_with([' ', '\t'])) {
        return None;
    }
    let t = trim(t);
    let starts_with_digit = t.starts_with(|c: char| c.is_ascii_digit());
    if !starts_with_digit {
        // Without a leading date, only a heading that ends in a status word is an entry.
        let (_, last_end) = last_separator(t, true)?;
        if matches!(Status::parse(&t[last_end..]), Status::Other(_)) {
            return None;
        }
    }
    // A heading without a leading date has an empty date text (and a diagnostic).
    let date_end = if starts_with_digit {
        t.find(|c: char| c.is_whitespace() || matches!(c, '—' | '–' | ':' | ',')).unwrap_or(t.len())
    } else {
        0
    };
    let date_text = &t[..date_end];
    let mut rest = trim_start(&t[date_end..]);
    rest = rest.strip_prefix([':', ',']).map(trim_start).unwrap_or(rest);
    rest = strip_leading_separator(rest).unwrap_or(rest);
    // Unbalanced parentheses in a title: fall back to every separator.
    let last = last_separator(rest, true).or_else(|| last_separator(rest, false));
    let (middle, status) = match last {
        Some((s, e)) => (trim(&rest[..s]), Some(trim(&rest[e..])).filter(|s| !s.is_empty())),
        None => (trim(rest), None),
    };
    let session_end = middle.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(middle.len());
    let session = &middle[..session_end];
    let title = trim(&middle[session_end..]);
    let title = match title.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) => trim(inner),
        None => title,
    };
    Some(Heading {
        date_text,
        date: Date::parse(date_text),
        session,
        title: Some(title).filter(|t| !t.is_empty()),
        status,
    })
}

fn canonical_heading(h: &Heading<'_>) -> Option<String> {
    let date = h.date?;
    let status = Status::parse(h.status?);
    if h.session.is_empty() {
        return None;
    }
    Some(match h.title {
        Some(t) => format!("### {date} — {} ({t}) — {}", h.session, status.as_str()),
        None => format!("### {date} — {} — {}", h.session, status.as_str()),
    })
}

// ---------------------------------------------------------------------------------------------
// Field lines
// ---------------------------------------------------------------------------------------------

/// The first `**` in `s` (a byte search for `*`, cheaper than a substring search here).
fn find_double_star(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b'*') {
        let at = from + i;
        if b.get(at + 1) == Some(&b'*') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Reads `- **Name**: value` (and the variants in the grammar): (name, value, kind).
fn parse_field_line(line: &str) -> Option<(&str, &str, FieldKind)> {
    // A known field spelled canonically, as the app writes it and most lines are, reads the
    // same as below without searching for the closing `**` or comparing names loosely.
    if let Some(bold) = line.strip_prefix("- **") {
        for kind in [FieldKind::Built, FieldKind::DoneWhen, FieldKind::StickingPoint, FieldKind::Next] {
            let name = kind.canonical_name().unwrap_or_default();
            if let Some(value) = bold.strip_prefix(name).and_then(|rest| rest.strip_prefix("**:")) {
                return Some((&bold[..name.len()], trim(value), kind));
            }
        }
    }
    parse_any_field_line(line)
}

/// [`parse_field_line`] for any spelling.
fn parse_any_field_line(line: &str) -> Option<(&str, &str, FieldKind)> {
    let t = strip_indent(line)?;
    let t = t.strip_prefix(['-', '*', '+'])?;
    if !t.starts_with([' ', '\t']) {
        return None;
    }
    let t = trim_start(t);
    if let Some(bold) = t.strip_prefix("**") {
        let close = find_double_star(bold)?;
        let inner = &bold[..close];
        let after = &bold[close + 2..];
        let (name, value) = if let Some(v) = after.strip_prefix(':') {
            (inner, v)
        } else if let Some(name) = inner.strip_suffix(':') {
            (name, after)
        } else {
            return None;
        };
        let name = trim(name);
        // A name with a `*` in it cannot be printed back as `**Name**:` and read the same
        // (`- ***:***:` reads as name `*`), so such a line is a note, kept as written.
        if name.is_empty() || name.len() > 60 || name.contains('*') {
            return None;
        }
        return Some((name, trim(value), FieldKind::from_name(name)));
    }
    // A plain `Name: value` bullet is a field only for the names the companion knows; any
    // other bullet with a colon is the reader's own list.
    let colon = t.find(':')?;
    let name = trim(&t[..colon]);
    if name.len() > 20 {
        return None;
    }
    match FieldKind::from_name(name) {
        FieldKind::Unknown => None,
        kind => Some((name, trim(&t[colon + 1..]), kind)),
    }
}

/// A non-blank line that Markdown would join to the list item above it.
fn is_continuation(line: &str) -> bool {
    if is_blank(line) {
        return false;
    }
    let indented = line.starts_with("  ") || line.starts_with('\t');
    if indented {
        return true;
    }
    let t = trim_start(line);
    let rule = t.len() >= 3 && t.bytes().all(|b| matches!(b, b'-' | b'*' | b'_' | b'=' | b' '));
    let bullet = t.starts_with(['-', '*', '+']) && t[1..].starts_with([' ', '\t']) || matches!(t, "-" | "*" | "+");
    !(rule || bullet || t.starts_with('#') || t.starts_with("```") || t.starts_with("~~~") || t.starts_with('>'))
}

/// Which lines of an entry sit in a fenced code block (```` ``` ```` or `~~~`, fence lines
/// included): their text is quoted, never a field. A fence that is not closed within the entry
/// is not a fence, so a stray ```` ``` ```` cannot hide the fields after it.
///
/// Linear: a suffix maximum of closing-fence lengths per fence character answers "is this
/// opener ever closed?" in O(1).
fn fence_mask(texts: &[&str]) -> Vec<bool> {
    let fences: Vec<_> = texts.iter().map(|t| fence_of(t)).collect();
    let mut mask = vec![false; texts.len()];
    if fences.iter().all(Option::is_none) {
        return mask;
    }
    // longest_close[i] = (longest bare ``` run, longest bare ~~~ run) at or after line i.
    let mut longest_close = vec![(0usize, 0usize); texts.len() + 1];
    for i in (0..texts.len()).rev() {
        let (mut bt, mut tl) = longest_close[i + 1];
        if let Some((c, n, true)) = fences[i] {
            if c == b'`' { bt = bt.max(n) } else { tl = tl.max(n) }
        }
        longest_close[i] = (bt, tl);
    }
    let mut i = 0;
    while i < texts.len() {
        if let Some((c, n, _)) = fences[i] {
            let (bt, tl) = longest_close[i + 1];
            if (if c == b'`' { bt } else { tl }) >= n {
                mask[i] = true;
                i += 1;
                while i < texts.len() {
                    mask[i] = true;
                    let closes = matches!(fences[i], Some((c2, n2, true)) if c2 == c && n2 >= n);
                    i += 1;
                    if closes {
                        break;
                    }
                }
                continue;
            }
        }
        i += 1;
    }
    mask
}

/// A fence line's (fence char, run length, nothing else on the line); `None` for other lines.
fn fence_of(line: &str) -> Option<(u8, usize, bool)> {
    let t = strip_indent(line)?;
    let c = *t.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|&b| b == c).count();
    (n >= 3).then(|| (c, n, t[n..].trim().is_empty()))
}

/// How one line of an entry reads.
#[derive(Debug, Clone, Copy)]
enum LineKind<'a> {
    Heading,
    Field { name: &'a str, value: &'a str, kind: FieldKind },
    Continuation,
    Other,
}

/// Reads the lines of an entry after its heading, one at a time: a line's kind depends on the
/// line before it (a continuation follows a field).
#[derive(Debug, Default)]
struct LineReader {
    in_field: bool,
}

impl LineReader {
    /// How a line after the heading reads; `fenced` when it sits in a code fence.
    fn kind<'a>(&mut self, text: &'a str, fenced: bool) -> LineKind<'a> {
        let kind = if fenced {
            LineKind::Other
        } else if let Some((name, value, kind)) = parse_field_line(text) {
            LineKind::Field { name, value, kind }
        } else if self.in_field && is_continuation(text) {
            LineKind::Continuation
        } else {
            LineKind::Other
        };
        self.in_field = matches!(kind, LineKind::Field { .. } | LineKind::Continuation);
        kind
    }
}

/// Classifies the lines of one entry's raw text (its first line is the heading).
///
/// `has_fence` says whether any line is a fence line ([`fence_of`]); when it is false the fence
/// pre-pass is skipped, which is the common case.
fn scan_entry(raw: &str, first_number: usize, has_fence: bool) -> impl Iterator<Item = (Line<'_>, LineKind<'_>)> {
    let fenced = if has_fence {
        let texts: Vec<&str> = lines(raw, first_number).map(|l| l.text).collect();
        fence_mask(&texts)
    } else {
        Vec::new()
    };
    let mut reader = LineReader::default();
    lines(raw, first_number).enumerate().map(move |(i, line)| {
        let kind = if i == 0 { LineKind::Heading } else { reader.kind(line.text, fenced.get(i).copied().unwrap_or(false)) };
        (line, kind)
    })
}

// ---------------------------------------------------------------------------------------------
// Parse and print
// ---------------------------------------------------------------------------------------------

/// Parses a PROGRESS.md. Never fails: whatever cannot be read stays in the raw text, and the
/// diagnostics say where.
pub fn parse<'a>(text: &'a str) -> (ProgressLog, Vec<Diagnostic>) {
    /// The entry being read.
    struct Open<'a> {
        at: Place,
        heading: Heading<'a>,
        /// Whether a fence line follows the heading: then its lines are read again, once its
        /// end is known, with the fences masked ([`scan_entry`]).
        has_fence: bool,
        reader: LineReader,
    }
    // The entries share one copy of the text; they are ranges of it.
    let source = Arc::new(Source { text: text.into(), read: OnceLock::new() });
    let mut diags = Vec::new();
    // Sized up front (lines starting `###` are about the entries, and an entry has about four
    // fields), so that the lists are not copied as they grow; capped so that a file of nothing
    // but such lines cannot reserve much more than its own size.
    let headings = memchr::memmem::find_iter(text.as_bytes(), "\n###").count().min(text.len() / 64) + 1;
    let mut entries = Vec::with_capacity(headings);
    let mut read = Read { joined: String::new(), fields: Vec::with_capacity(headings * 4) };
    let mut open: Option<Open<'_>> = None;
    // Entries that repeat an earlier one's key, found as each entry is read.
    let mut duplicates = Duplicates::with_capacity(headings);
    let mut finish = |o: Open<'a>, end: usize, read: &mut Read, diags: &mut Vec<Diagnostic>| {
        if o.has_fence {
            read.fields.truncate(o.at.fields_start);
            read.joined.truncate(o.at.joined_start);
            for (line, kind) in scan_entry(&text[o.at.offset..end], o.at.number, true).skip(1) {
                record(text, o.at, kind, line, read);
            }
        }
        let entry = read_entry(text, &source, o.at, end, &o.heading, read, diags);
        duplicates.add(&entries, duplicate_key(&o.heading, entry.status.as_ref()));
        entries.push(entry);
    };
    // One pass over the lines, each entry read as soon as it ends. A heading is recognised by
    // its own line alone (even inside a code fence), so no earlier line, and no merge or fmt,
    // can hide an entry or make one appear.
    let mut offset = 0;
    let mut preamble_end = text.len();
    for line in lines(text, 1) {
        if strip_indent(line.text).is_some_and(|t| t.starts_with("###"))
            && let Some(heading) = parse_heading(line.text)
        {
            match open.take() {
                Some(o) => finish(o, offset, &mut read, &mut diags),
                None => preamble_end = offset,
            }
            let at = Place { offset, number: line.number, fields_start: read.fields.len(), joined_start: read.joined.len() };
            open = Some(Open { at, heading, has_fence: false, reader: LineReader::default() });
        } else if let Some(o) = &mut open
            && !o.has_fence
        {
            if fence_of(line.text).is_some() {
                o.has_fence = true;
            } else {
                let kind = o.reader.kind(line.text, false);
                record(text, o.at, kind, line, &mut read);
            }
        }
        offset += line.text.len() + line.eol.len();
    }
    if let Some(o) = open.take() {
        finish(o, text.len(), &mut read, &mut diags);
    }
    // The cell is this parse's own, so it is empty and `set` cannot fail.
    let _ = source.read.set(read);
    check_duplicates(&entries, &duplicates.repeats, &mut diags);
    (ProgressLog { preamble: text[..preamble_end].to_string(), entries }, diags)
}

/// Where an entry being read sits: in the text, in the file's lines, and in the lists of fields
/// and joined values its log is filling.
#[derive(Debug, Clone, Copy)]
struct Place {
    offset: usize,
    number: usize,
    fields_start: usize,
    joined_start: usize,
}

/// Records a line of the entry at `at` of `text`: a field, or a continuation of the field before
/// it, as spans of the entry's text (or, for a value joined from continuation lines, of its
/// joined values; see [`Span`]).
fn record(text: &str, at: Place, kind: LineKind<'_>, line: Line<'_>, read: &mut Read) {
    let base = text.as_ptr() as usize + at.offset;
    let span = |sub: &str| {
        let start = sub.as_ptr() as usize - base;
        Span::raw(start, start + sub.len())
    };
    match kind {
        LineKind::Heading | LineKind::Other => {}
        LineKind::Field { name, value, kind } => {
            // A field past the first 2 GiB of an entry is left a note (see `Span`).
            if let (Some(name), Some(value), Ok(line)) = (span(name), span(value), u32::try_from(line.number - at.number)) {
                read.fields.push(FieldSpans { kind, name, value, line, last_line: line });
            }
        }
        LineKind::Continuation => {
            if read.fields.len() > at.fields_start
                && let Some(f) = read.fields.last_mut()
                && let Ok(last_line) = u32::try_from(line.number - at.number)
            {
                // The value moves to `joined` at its first continuation line (the field is
                // the last one, so its text is at the end of `joined` from then on).
                let joined = &mut read.joined;
                let (start, moved) = if f.value.is_joined() {
                    (f.value.range().start, "")
                } else {
                    let r = f.value.range();
                    (joined.len() - at.joined_start, &text[at.offset + r.start..at.offset + r.end])
                };
                let space = !f.value.range().is_empty();
                let more = trim(line.text);
                let end = joined.len() - at.joined_start + moved.len() + usize::from(space) + more.len();
                // Past 2 GiB of joined values, the value stays what it was (see `Span`).
                let Some(value) = Span::joined(start, end) else { return };
                joined.push_str(moved);
                if space {
                    joined.push(' ');
                }
                joined.push_str(more);
                f.value = value;
                f.last_line = last_line;
            }
        }
    }
}

/// Builds the entry at `at` of `text`, which ends at `end` and whose fields are `read.fields`
/// from `at.fields_start` on, and reports what is wrong with it. `h`, its heading, borrows from
/// `text`; `source` holds a copy of `text`.
fn read_entry(text: &str, source: &Arc<Source>, at: Place, end: usize, h: &Heading<'_>, read: &Read, diags: &mut Vec<Diagnostic>) -> Entry {
    let number = at.number;
    let base = text.as_ptr() as usize + at.offset;
    // A heading longer than 2 GiB reads as empty parts (see `Span`).
    let span = |sub: &str| {
        let start = sub.as_ptr() as usize - base;
        Span::raw(start, start + sub.len()).unwrap_or_default()
    };
    if h.date_text.is_empty() {
        diags.push(Diagnostic::new(FILE, number, "entry heading has no date; start it with the session's date, like `### 2026-07-22 —`"));
    } else if h.date.is_none() {
        diags.push(Diagnostic::new(
            FILE,
            number,
            format!("entry date `{}` is not a date like 2026-07-22; fix it so the entry sorts and merges by date", h.date_text),
        ));
    }
    if h.session.is_empty() {
        diags.push(Diagnostic::new(FILE, number, "entry heading names no session; write it after the date, like `— S1.3 (title) —`"));
    }
    let status = h.status.map(Status::parse);
    match &status {
        None => diags.push(Diagnostic::new(FILE, number, "entry heading has no status; end it with `— DONE` or `— PARTIAL`")),
        Some(Status::Other(s)) => diags.push(Diagnostic::new(
            FILE,
            number,
            format!("entry status `{s}` is not DONE, PARTIAL or SKIPPED; the companion reads it as unfinished"),
        )),
        Some(_) => {}
    }
    // A value's parts, as ranges of the same text the value's own range points into.
    let value_of = |s: Span| {
        let r = s.range();
        if s.is_joined() { &read.joined[at.joined_start + r.start..at.joined_start + r.end] } else { &text[at.offset + r.start..at.offset + r.end] }
    };
    // Within a value's span, so its ends fit as the value's do.
    let sub_span = |value: Span, sub: &str| {
        let start = value.start + (sub.as_ptr() as usize - value_of(value).as_ptr() as usize) as u32;
        Span { start, end: start + sub.len() as u32 }
    };
    let fields = at.fields_start..read.fields.len();
    let list = &read.fields[fields.clone()];
    let first = |kind: FieldKind| list.iter().find(|f| f.kind == kind).map(|f| f.value);
    let built = first(FieldKind::Built);
    let done_when = first(FieldKind::DoneWhen).map(|v| {
        let d = DoneWhen::read(value_of(v));
        DoneWhen { target: sub_span(v, d.target), mark: d.mark }
    });
    let sticking_point = first(FieldKind::StickingPoint).map(|v| {
        let s = StickingPoint::read(value_of(v));
        StickingPoint { text: sub_span(v, s.text), rung: s.rung }
    });
    let next = first(FieldKind::Next).map(|v| {
        let n = Next::read(value_of(v));
        Next { session: n.session.map(|s| sub_span(v, s)), why: sub_span(v, n.why) }
    });
    for (i, f) in list.iter().enumerate() {
        if f.kind != FieldKind::Unknown && list[..i].iter().any(|g| g.kind == f.kind) {
            diags.push(Diagnostic::new(
                FILE,
                number + f.line as usize,
                format!("second `{}` field in this entry; the companion reads only the first, merge them into one", value_of(f.name)),
            ));
        }
    }
    Entry {
        source: Arc::clone(source),
        raw: at.offset..end,
        fields,
        joined: at.joined_start,
        line: number,
        date: h.date,
        status,
        date_text: span(h.date_text),
        session: span(h.session),
        title: h.title.map(span),
        built,
        done_when,
        sticking_point,
        next,
    }
}

/// FNV-1a: the duplicate check hashes one short key per entry, where SipHash's DoS resistance
/// buys nothing (the reader's own file) and costs a visible share of parse time.
#[derive(Debug, Default, Clone, Copy)]
struct BuildFnv;

#[derive(Debug)]
struct Fnv(u64);

impl std::hash::BuildHasher for BuildFnv {
    type Hasher = Fnv;
    fn build_hasher(&self) -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// What identifies an entry for the duplicate check, as its heading reads it: the date (its
/// text when it is not a valid date), the session and the status word.
type DuplicateKey<'a> = (Option<Date>, &'a str, &'a str, &'a str);

fn duplicate_key<'a>(h: &Heading<'a>, status: Option<&Status>) -> DuplicateKey<'a> {
    let date_text = if h.date.is_some() { "" } else { h.date_text };
    let status = match status {
        None => "",
        Some(Status::Done) => "DONE",
        Some(Status::Partial) => "PARTIAL",
        Some(Status::Skipped) => "SKIPPED",
        // `Status::Other` holds the heading's status text, trimmed.
        Some(Status::Other(_)) => trim(h.status.unwrap_or_default()),
    };
    (h.date, date_text, h.session, status)
}

/// The entries whose key repeats an earlier entry's.
///
/// Keys are kept as hashes (a key borrows three strings, four times the size), so the table
/// stays small; a hit is confirmed by reading the earlier entry's heading again, which happens
/// only for repeats. Keys whose hash an entry with another key already holds go to a second
/// table of whole keys, so even crafted collisions keep this linear.
#[derive(Debug)]
struct Duplicates<'a> {
    first_by_hash: HashMap<u64, usize, BuildFnv>,
    collided: HashMap<DuplicateKey<'a>, usize>,
    /// (entry, first entry with its key), in file order.
    repeats: Vec<(usize, usize)>,
}

impl<'a> Duplicates<'a> {
    fn with_capacity(n: usize) -> Duplicates<'a> {
        Duplicates { first_by_hash: HashMap::with_capacity_and_hasher(n, BuildFnv), collided: HashMap::new(), repeats: Vec::new() }
    }

    /// Adds the key of the entry that comes after `entries`.
    fn add(&mut self, entries: &[Entry], key: DuplicateKey<'a>) {
        use std::hash::BuildHasher as _;
        self.add_hashed(entries, key, BuildFnv.hash_one(key));
    }

    fn add_hashed(&mut self, entries: &[Entry], key: DuplicateKey<'a>, hash: u64) {
        use std::collections::hash_map::Entry::{Occupied, Vacant};
        let i = entries.len();
        match self.first_by_hash.entry(hash) {
            Vacant(v) => {
                v.insert(i);
            }
            Occupied(o) => {
                let j = *o.get();
                let first = &entries[j];
                let same = lines(first.raw(), 1)
                    .next()
                    .and_then(|l| parse_heading(l.text))
                    .is_some_and(|h| duplicate_key(&h, first.status.as_ref()) == key);
                let j = if same { j } else { *self.collided.entry(key).or_insert(i) };
                if j != i {
                    self.repeats.push((i, j));
                }
            }
        }
    }
}

/// Reports entries that repeat an earlier one: `repeats` holds (entry, first entry with the
/// same key), in file order.
fn check_duplicates(entries: &[Entry], repeats: &[(usize, usize)], diags: &mut Vec<Diagnostic>) {
    // Texts are only normalised for entries whose key repeats, which is rare, so parsing stays
    // cheap; a hash map keeps this linear even when thousands of entries share a key.
    let mut texts: HashMap<String, usize> = HashMap::new();
    let mut normalized_done = vec![false; if repeats.is_empty() { 0 } else { entries.len() }];
    for &(i, j) in repeats {
        let e = &entries[i];
        if !normalized_done[j] {
            normalized_done[j] = true;
            texts.entry(normalized(entries[j].raw())).or_insert(entries[j].line);
        }
        normalized_done[i] = true;
        match texts.entry(normalized(e.raw())) {
            std::collections::hash_map::Entry::Occupied(first) => diags.push(Diagnostic::new(
                FILE,
                e.line,
                format!("this entry repeats the one at line {}; delete one copy", first.get()),
            )),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(e.line);
            }
        }
    }
}

/// An entry's text for comparisons: line endings and trailing spaces dropped, trailing blank
/// lines dropped.
pub(crate) fn normalized(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in lines(raw, 1) {
        out.push_str(line.text.trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Prints a log: the preamble, then every entry's raw text. Gives back the parsed bytes.
pub fn print(log: &ProgressLog) -> String {
    let len = log.preamble.len() + log.entries.iter().map(|e| e.raw.len()).sum::<usize>();
    let mut out = String::with_capacity(len);
    out.push_str(&log.preamble);
    // Entries that follow each other in the same source are copied in one piece.
    let mut run: Option<(&Arc<Source>, Range<usize>)> = None;
    for e in &log.entries {
        match &mut run {
            Some((source, r)) if Arc::ptr_eq(source, &e.source) && r.end == e.raw.start => r.end = e.raw.end,
            _ => {
                if let Some((source, r)) = run.replace((&e.source, e.raw.clone())) {
                    out.push_str(&source.text[r]);
                }
            }
        }
    }
    if let Some((source, r)) = run {
        out.push_str(&source.text[r]);
    }
    out
}

/// Parse then print: what the benchmark measures (and always equal to its input).
pub fn roundtrip(text: &str) -> String {
    print(&parse(text).0)
}

// ---------------------------------------------------------------------------------------------
// Append
// ---------------------------------------------------------------------------------------------

/// Appends a new canonical entry to a log's text, separated by one blank line and using the
/// file's line ending (CRLF stays CRLF).
pub fn append(log_text: &str, entry: &NewEntry) -> String {
    let eol = dominant_eol(log_text);
    let mut out = String::with_capacity(log_text.len() + 512);
    out.push_str(log_text);
    if !log_text.is_empty() {
        if !log_text.ends_with('\n') {
            out.push_str(eol);
        }
        let last_blank = lines(log_text, 1).last().is_some_and(|l| is_blank(l.text));
        if !last_blank {
            out.push_str(eol);
        }
    }
    let text = entry.to_text();
    if eol == "\n" {
        out.push_str(&text);
    } else {
        out.push_str(&text.replace('\n', eol));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// fmt
// ---------------------------------------------------------------------------------------------

fn canonical_value(kind: FieldKind, value: &str) -> String {
    match kind {
        FieldKind::DoneWhen => DoneWhen::read(value).canonical(),
        FieldKind::StickingPoint => StickingPoint::read(value).canonical(),
        FieldKind::Next => Next::read(value).canonical(),
        FieldKind::Built | FieldKind::Unknown => value.to_string(),
    }
}

fn rank(kind: FieldKind) -> u8 {
    match kind {
        FieldKind::Built => 0,
        FieldKind::DoneWhen => 1,
        FieldKind::StickingPoint => 2,
        FieldKind::Next => 3,
        FieldKind::Unknown => 4,
    }
}

/// The canonical form of one entry: heading separators and status word, `- **Name**: ` bullets
/// with known names spelled canonically, ✅/❌ marks at the end, `(ladder rung N)`, `S1.4 — why`,
/// known fields in canonical order within each run of fields. Notes, continuation lines and
/// a heading it cannot read fully are kept as written. Every line ends with a line ending
/// (`eol` where the line had none).
pub fn fmt_entry<'a>(entry: &'a Entry, eol: &'a str) -> String {
    /// A field bullet with its continuation lines, printed when its run of fields ends.
    struct Group<'a> {
        kind: FieldKind,
        name: &'a str,
        value: &'a str,
        eol: &'a str,
        continuation: String,
    }
    let flush = |run: &mut Vec<Group<'_>>, out: &mut String| {
        run.sort_by_key(|g| rank(g.kind));
        for g in run.drain(..) {
            let name = g.kind.canonical_name().unwrap_or(g.name);
            // A value spread over several lines is read joined; rewriting only its first line
            // could change what the joined value means, so it keeps its text.
            if g.continuation.is_empty() {
                push_field(out, name, &canonical_value(g.kind, g.value));
            } else {
                push_field(out, name, g.value);
            }
            out.push_str(g.eol);
            out.push_str(&g.continuation);
        }
    };
    let line_eol = |l: &Line<'a>| -> &'a str { if l.eol.is_empty() { eol } else { l.eol } };
    let mut out = String::with_capacity(entry.raw.len() + 16);
    let mut run: Vec<Group<'a>> = Vec::new();
    let has_fence = lines(entry.raw(), entry.line).any(|l| fence_of(l.text).is_some());
    for (line, kind) in scan_entry(entry.raw(), entry.line, has_fence) {
        match kind {
            LineKind::Heading => {
                let h = parse_heading(line.text).expect("an entry's first line is its heading");
                match canonical_heading(&h) {
                    Some(c) => out.push_str(&c),
                    None => out.push_str(line.text),
                }
                out.push_str(line_eol(&line));
            }
            LineKind::Field { name, value, kind } => {
                run.push(Group { kind, name, value, eol: line_eol(&line), continuation: String::new() });
            }
            LineKind::Continuation => {
                if let Some(g) = run.last_mut() {
                    g.continuation.push_str(line.text);
                    g.continuation.push_str(line_eol(&line));
                }
            }
            LineKind::Other => {
                flush(&mut run, &mut out);
                out.push_str(line.text);
                out.push_str(line_eol(&line));
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Canonicalises every entry of a log, keeping the preamble and every note. Idempotent.
pub fn fmt(text: &str) -> String {
    let eol = dominant_eol(text);
    let (log, _) = parse(text);
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&log.preamble);
    for e in &log.entries {
        out.push_str(&fmt_entry(e, eol));
    }
    out
}

/// One diagnostic per entry that `fmt` would change, at the entry's heading, naming the first
/// line that would change.
pub fn check_canonical(text: &str) -> Vec<Diagnostic> {
    let eol = dominant_eol(text);
    let (log, _) = parse(text);
    let mut diags = Vec::new();
    for e in &log.entries {
        let canonical = fmt_entry(e, eol);
        if canonical != e.raw() {
            let mut message = format!("entry {} is not in canonical form", e.key());
            let first_diff = lines(e.raw(), e.line)
                .zip(lines(&canonical, e.line))
                .find(|(a, b)| a.text != b.text || a.eol != b.eol);
            if let Some((was, now)) = first_diff {
                if was.text != now.text {
                    message.push_str(&format!("; line {} would become `{}`", was.number, now.text));
                } else if was.eol.is_empty() {
                    message.push_str(&format!("; line {} has no line ending", was.number));
                } else {
                    message.push_str(&format!("; line {} would get the file's line ending", was.number));
                }
            }
            message.push_str("; run `bookside fmt` to rewrite it");
            diags.push(Diagnostic::new(FILE, e.line, message));
        }
    }
    diags
}

// ---------------------------------------------------------------------------------------------
// A generated log, for benchmarks and tests
// ---------------------------------------------------------------------------------------------

/// A deterministic log of `n` varied entries (the benchmark parses and prints 10,000 of them).
#[doc(hidden)]
pub fn sample_log(n: usize) -> String {
    let mut out = String::from("# Progress\n\nMy log for the book. Hand-edited notes are welcome.\n\n");
    for i in 0..n {
        let day = Date::new(2026 + (i / 336) as u16, (i / 28 % 12) as u8 + 1, (i % 28) as u8 + 1)
            .expect("days 1..=28 exist in every month");
        let status = if i % 3 == 2 { Status::Partial } else { Status::Done };
        let e = NewEntry {
            date: day,
            session: format!("S{}.{}", i / 10 % 9 + 1, i % 10 + 1),
            title: format!("session {i} of the book — part {}", i % 7),
            status,
            built: format!("chose n_kv_heads={} (GQA); cache {}.{} MB @ batch 8 x 512", i % 8 + 1, i % 9, i % 7),
            done_when: if i % 5 == 0 {
                DoneWhen::quiz((i % 10) as u32, 10, i % 10 >= 7)
            } else {
                DoneWhen::test(&format!("test_m{:02}_step.py", i % 40), if i % 3 == 2 { Mark::Fail } else { Mark::Pass })
            },
            sticking_point: StickingPoint { text: format!("per-head vs per-layer sizing, take {i}"), rung: Some((i % 4) as u8 + 1) },
            next: Next { session: Some(format!("S{}.{}", i / 10 % 9 + 1, i % 10 + 2)), why: "dense vs MoE, decided with numbers".into() },
        };
        out.push_str(&e.to_text());
        if i % 4 == 1 {
            out.push_str("\nA note between entries: re-read `ch03.md#what-the-cache-stores`.\n");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_validated() {
        assert_eq!(Date::parse("2024-02-29"), Date::new(2024, 2, 29));
        assert!(Date::parse("2024-02-29").is_some());
        assert_eq!(Date::parse("2026-02-29"), None);
        assert_eq!(Date::parse("2026-7-22"), None);
        assert_eq!(Date::parse("2026-13-01"), None);
        assert_eq!(Date::parse("２026-07-22"), None);
    }

    #[test]
    fn fast_trims_agree_with_str_trim() {
        let samples = [
            "", " ", "\t x \t", "x", " value ", "\u{a0}nbsp\u{a0}", " \u{3000}ideographic\u{2003} ", "\u{b}vt\u{c}",
            "\u{85}next line\u{85}", "é ", " ✅", "a\u{2028}", " \r\n", "\u{200b}zero width\u{200b}",
        ];
        for s in samples {
            assert_eq!(trim(s), s.trim(), "trim {s:?}");
            assert_eq!(trim_start(s), s.trim_start(), "trim_start {s:?}");
            assert_eq!(trim_end(s), s.trim_end(), "trim_end {s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn canonical_field_lines_read_as_any_other(
            name in "(Built|Done-when|Sticking point|Next|Built\\*|Nex|Next\\+|Done-when:)",
            open in "(- \\*\\*|-  \\*\\*|\\* \\*\\*|- \\*)",
            close in "(\\*\\*:|\\*\\*:\\*\\*|\\*\\*\\*:|\\*\\*| \\*\\*:|\\*\\*::)",
            value in "[ a-z*:✅()—]{0,12}",
        ) {
            let line = format!("{open}{name}{close}{value}");
            proptest::prop_assert_eq!(parse_field_line(&line), parse_any_field_line(&line), "{:?}", line);
        }
    }

    #[test]
    fn canonical_headings_read_as_any_other() {
        // Every combination of near-canonical parts: the fast reading either declines or reads
        // exactly what the general one does.
        let dates = ["2026-07-22", "2026-7-222", "2026-02-30", "20x6-07-22", "2026-07-22 "];
        let seps = [" — ", "—", " – ", " - ", " —  ", "  — ", " -- "];
        let sessions = ["S1.3", "S1 3", "S(1", "M2—", "S1\u{a0}", "s", "", "S1.3)"];
        let titles = ["", " (a — b)", " (  )", " (a (b) c)", " (a))", " (a — DONE)", "  (t)", " (x - y)", " (t", " (—)"];
        let statuses = ["DONE", "partial", "Other", "DONE ", "**DONE**", "DO-NE", "DONE\r", "", "DONE)", "A — B"];
        let mut fast = 0;
        for date in dates {
            for sep in seps {
                for session in sessions {
                    for title in titles {
                        for sep2 in seps.iter().chain(&[""]) {
                            for status in statuses {
                                let line = format!("### {date}{sep}{session}{title}{sep2}{status}");
                                let canonical = parse_canonical_heading(&line);
                                if canonical.is_some() {
                                    fast += 1;
                                    assert_eq!(canonical, parse_any_heading(&line), "{line:?}");
                                }
                                assert_eq!(parse_heading(&line), parse_any_heading(&line), "{line:?}");
                            }
                        }
                    }
                }
            }
        }
        assert!(fast >= 50, "only {fast} lines took the fast reading");
    }

    #[test]
    fn colliding_keys_are_told_apart() {
        // Every key given the same hash: repeats are still found, and only true ones.
        for (text, repeats) in [("A B A", vec![(2, 0)]), ("A B B", vec![(2, 1)]), ("A B C B A", vec![(3, 1), (4, 0)]), ("A B C", vec![])] {
            let log: String = text.split(' ').map(|s| format!("### 2026-07-22 — {s} — DONE\n")).collect();
            let (parsed, _) = parse(&log);
            let mut duplicates = Duplicates::with_capacity(0);
            for (i, e) in parsed.entries.iter().enumerate() {
                let h = parse_heading(lines(e.raw(), 1).next().unwrap().text).unwrap();
                duplicates.add_hashed(&parsed.entries[..i], duplicate_key(&h, e.status.as_ref()), 7);
            }
            assert_eq!(duplicates.repeats, repeats, "{text}");
        }
    }

    #[test]
    fn session_ids() {
        assert!(looks_like_session_id("S1.4"));
        assert!(looks_like_session_id("M2"));
        assert!(!looks_like_session_id("finish"));
        assert!(!looks_like_session_id("S"));
        assert!(!looks_like_session_id("s1.4"));
    }
}
