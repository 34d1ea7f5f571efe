//! PROFILE.md: a lossless parser and printer, and setting one field for onboarding.
//!
//! Onboarding writes `checkpoints/myllm/PROFILE.md`; the reader may edit it by hand. The parser
//! keeps the file's text and reads a view on top, so `print(&parse(s).0) == s` for every `s`.
//!
//! # Format
//!
//! ```text
//! # Profile
//!
//! - **Background**: Python developer, some PyTorch
//! - **Goal**: understand transformers by building one
//! - **Hardware**: laptop, 16 GB, no GPU
//! - **Pace**: 60
//! - **Hint cap**: 4
//! - **Hard mode**: no
//! - **Phase 0 skipped**: no
//! ```
//!
//! # Grammar
//!
//! ```text
//! field = ≤3 spaces ("-" | "*" | "+") ws ( "**" NAME "**:" | "**" NAME ":**" | NAME ":" ) VALUE
//! ```
//!
//! Names are compared without case, spaces or dashes. Every other line (headings, notes,
//! unknown fields) is kept as written. Values:
//! - Pace: `60` (one-hour sessions) or `30` (30-minute sittings split at the Midpoint); words
//!   after the number (`30 minutes`) are allowed. Default 60.
//! - Hint cap: `1` to `4`, the highest hint-ladder rung the companion offers. Default 4.
//! - Hard mode: `yes`/`no` (also `true`/`false`, `on`/`off`). Hard mode caps the ladder at
//!   rung 3 whatever the hint cap says, and the companion respects it absolutely.
//! - Phase 0 skipped: `yes`/`no`; onboarding sets it only after the Phase 0 quiz is passed.
//!
//! A value the parser cannot read keeps its text, the default applies, and a diagnostic says
//! where.

use std::ops::Range;

use crate::diag::Diagnostic;

/// The file name diagnostics carry; shells replace it with the real path.
pub const FILE: &str = "PROFILE.md";

/// Session length: one hour, or two 30-minute sittings split at the card's Midpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pace {
    #[default]
    Sixty,
    Thirty,
}

impl Pace {
    pub fn minutes(self) -> u32 {
        match self {
            Pace::Sixty => 60,
            Pace::Thirty => 30,
        }
    }
}

/// The profile fields the companion knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProfileKey {
    Background,
    Goal,
    Hardware,
    Pace,
    HintCap,
    HardMode,
    Phase0Skipped,
}

impl ProfileKey {
    pub const ALL: [ProfileKey; 7] = [
        ProfileKey::Background,
        ProfileKey::Goal,
        ProfileKey::Hardware,
        ProfileKey::Pace,
        ProfileKey::HintCap,
        ProfileKey::HardMode,
        ProfileKey::Phase0Skipped,
    ];

    /// The name onboarding writes.
    pub fn name(self) -> &'static str {
        match self {
            ProfileKey::Background => "Background",
            ProfileKey::Goal => "Goal",
            ProfileKey::Hardware => "Hardware",
            ProfileKey::Pace => "Pace",
            ProfileKey::HintCap => "Hint cap",
            ProfileKey::HardMode => "Hard mode",
            ProfileKey::Phase0Skipped => "Phase 0 skipped",
        }
    }

    fn from_name(name: &str) -> Option<ProfileKey> {
        let key: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        ProfileKey::ALL.into_iter().find(|k| {
            let n: String = k.name().chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
            n == key
        })
    }
}

/// One `- **Name**: value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileField {
    /// `None` for a field the companion does not know (kept as written).
    pub key: Option<ProfileKey>,
    pub name: String,
    pub value: String,
    /// 1-based line.
    pub line: usize,
    /// Byte range of the value (trimmed) in the file's text, for [`set`].
    pub value_span: Range<usize>,
}

/// What the companion reads from PROFILE.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub background: Option<String>,
    pub goal: Option<String>,
    pub hardware: Option<String>,
    pub pace: Pace,
    /// The hint cap as the reader set it (1 to 4). See [`Profile::ladder_cap`].
    pub hint_cap: u8,
    pub hard_mode: bool,
    pub phase0_skipped: bool,
}

impl Default for Profile {
    fn default() -> Profile {
        Profile {
            background: None,
            goal: None,
            hardware: None,
            pace: Pace::Sixty,
            hint_cap: 4,
            hard_mode: false,
            phase0_skipped: false,
        }
    }
}

impl Profile {
    /// The highest rung the hint ladder may reach: the hint cap, and never above 3 in hard mode.
    pub fn ladder_cap(&self) -> u8 {
        if self.hard_mode { self.hint_cap.min(3) } else { self.hint_cap }
    }

    /// The value onboarding writes for a key (the hint cap written is the effective one, so a
    /// hard-mode profile never says 4).
    pub fn value_text(&self, key: ProfileKey) -> String {
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        match key {
            ProfileKey::Background => self.background.clone().unwrap_or_default(),
            ProfileKey::Goal => self.goal.clone().unwrap_or_default(),
            ProfileKey::Hardware => self.hardware.clone().unwrap_or_default(),
            ProfileKey::Pace => self.pace.minutes().to_string(),
            ProfileKey::HintCap => self.ladder_cap().to_string(),
            ProfileKey::HardMode => yes_no(self.hard_mode),
            ProfileKey::Phase0Skipped => yes_no(self.phase0_skipped),
        }
    }
}

/// A parsed PROFILE.md: its text (printed back as is), its fields and the profile they say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileDoc {
    pub text: String,
    pub fields: Vec<ProfileField>,
    pub profile: Profile,
}

/// Reads `- **Name**: value` (or `**Name:**`, or plain `Name:` for known names): the name and
/// the value's byte range within `line`.
fn field_line(line: &str) -> Option<(&str, Range<usize>)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let t = line[indent..].strip_prefix(['-', '*', '+'])?;
    if !t.starts_with([' ', '\t']) {
        return None;
    }
    let t = t.trim_start();
    let base = line.len() - t.len();
    let (name, value_start) = if let Some(bold) = t.strip_prefix("**") {
        let close = bold.find("**")?;
        let inner = &bold[..close];
        let after = close + 4; // offset in t just past the closing `**`
        if t[after..].starts_with(':') {
            (inner, after + 1)
        } else if let Some(name) = inner.strip_suffix(':') {
            (name, after)
        } else {
            return None;
        }
    } else {
        let colon = t.find(':')?;
        let name = &t[..colon];
        ProfileKey::from_name(name)?;
        (name, colon + 1)
    };
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let raw = &t[value_start..];
    let lead = raw.len() - raw.trim_start().len();
    let start = base + value_start + lead;
    let end = start + raw.trim().len();
    Some((name, start..end))
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "yes" | "y" | "true" | "on" => Some(true),
        "no" | "n" | "false" | "off" => Some(false),
        _ => None,
    }
}

/// Parses PROFILE.md. Never fails: unreadable values keep their defaults, with diagnostics.
pub fn parse(text: &str) -> (ProfileDoc, Vec<Diagnostic>) {
    let mut fields = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.strip_suffix('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).unwrap_or(line);
        if let Some((name, span)) = field_line(body) {
            fields.push(ProfileField {
                key: ProfileKey::from_name(name),
                name: name.to_string(),
                value: body[span.clone()].to_string(),
                line: i + 1,
                value_span: offset + span.start..offset + span.end,
            });
        }
        offset += line.len();
    }
    let mut diags = Vec::new();
    let mut profile = Profile::default();
    let mut seen = Vec::new();
    for f in &fields {
        let Some(key) = f.key else { continue };
        if seen.contains(&key) {
            diags.push(Diagnostic::new(
                FILE,
                f.line,
                format!("second `{}` field; the companion reads only the first, delete this one", f.name),
            ));
            continue;
        }
        seen.push(key);
        let v = f.value.trim();
        let mut bad = |what: &str| diags.push(Diagnostic::new(FILE, f.line, format!("{} `{v}` is not {what}", f.name)));
        match key {
            ProfileKey::Background => profile.background = Some(v.to_string()).filter(|s| !s.is_empty()),
            ProfileKey::Goal => profile.goal = Some(v.to_string()).filter(|s| !s.is_empty()),
            ProfileKey::Hardware => profile.hardware = Some(v.to_string()).filter(|s| !s.is_empty()),
            ProfileKey::Pace => {
                let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
                match digits.as_str() {
                    "60" => profile.pace = Pace::Sixty,
                    "30" => profile.pace = Pace::Thirty,
                    _ => bad("60 or 30 (minutes); using 60"),
                }
            }
            ProfileKey::HintCap => match v.parse::<u8>() {
                Ok(n @ 1..=4) => profile.hint_cap = n,
                _ => bad("a rung from 1 to 4; using 4"),
            },
            ProfileKey::HardMode => match parse_bool(v) {
                Some(b) => profile.hard_mode = b,
                None => bad("yes or no; hard mode stays off"),
            },
            ProfileKey::Phase0Skipped => match parse_bool(v) {
                Some(b) => profile.phase0_skipped = b,
                None => bad("yes or no; Phase 0 counts as not skipped"),
            },
        }
    }
    // Only a hint cap the reader wrote is worth a word; the default 4 under hard mode is not.
    let written_cap = fields.iter().find(|f| f.key == Some(ProfileKey::HintCap));
    if let Some(f) = written_cap.filter(|_| profile.hard_mode && profile.hint_cap > 3) {
        let line = f.line;
        diags.push(Diagnostic::new(
            FILE,
            line,
            format!("hard mode caps the hint ladder at rung 3, so hint cap {} is read as 3", profile.hint_cap),
        ));
    }
    (ProfileDoc { text: text.to_string(), fields, profile }, diags)
}

/// Prints the profile back: exactly the text it was parsed from.
pub fn print(doc: &ProfileDoc) -> String {
    doc.text.clone()
}

/// A fresh PROFILE.md, as onboarding writes it.
pub fn render(profile: &Profile) -> String {
    let mut out = String::from("# Profile\n\n");
    for key in ProfileKey::ALL {
        let value = one_line(&profile.value_text(key));
        out.push_str("- **");
        out.push_str(key.name());
        out.push_str("**:");
        if !value.is_empty() {
            out.push(' ');
            out.push_str(&value);
        }
        out.push('\n');
    }
    out
}

fn one_line(s: &str) -> String {
    s.split(['\n', '\r']).map(str::trim).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Sets one field's value and returns the new text; every other byte stays. The first field
/// with that key is rewritten; when there is none, a `- **Name**: value` line goes after the
/// last field (or at the end), in the file's line endings.
pub fn set(text: &str, key: ProfileKey, value: &str) -> String {
    let value = one_line(value);
    let (doc, _) = parse(text);
    if let Some(f) = doc.fields.iter().find(|f| f.key == Some(key)) {
        let mut out = String::with_capacity(text.len() + value.len());
        out.push_str(&text[..f.value_span.start]);
        // A `- **Name**:` line with no value has no space after the colon yet.
        if f.value_span.is_empty() && !text[..f.value_span.start].ends_with([' ', '\t']) && !value.is_empty() {
            out.push(' ');
        }
        out.push_str(&value);
        out.push_str(&text[f.value_span.end..]);
        return out;
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut line = format!("- **{}**:", key.name());
    if !value.is_empty() {
        line.push(' ');
        line.push_str(&value);
    }
    line.push_str(eol);
    // Insert after the line of the last field, or append.
    let at = match doc.fields.last() {
        Some(f) => text[f.value_span.end..].find('\n').map_or(text.len(), |i| f.value_span.end + i + 1),
        None => text.len(),
    };
    let mut out = String::with_capacity(text.len() + line.len() + 2);
    out.push_str(&text[..at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(&line);
    out.push_str(&text[at..]);
    out
}
