//! Remediation: a theme that keeps coming back in Sticking points.
//!
//! Readers write Sticking points in their own words, so matching is on normalised wording:
//! lower case, punctuation and dashes as spaces, `versus`/`vs.` as `vs`, a plural `s` dropped,
//! filler words ignored. A Sticking point matches a card's theme when it contains the theme, the
//! theme contains it, or it shares most of the theme's words (see [`matches_theme`]).
//!
//! When the same card theme matches at least [`REPEAT`] of the last [`WINDOW`] Sticking points,
//! the companion proposes a remediation session before continuing: the `Remediation` card named
//! by a card carrying that theme, else the first card in Guide order that carries it. The offer
//! names the entries that triggered it, and is withdrawn once that session has a DONE entry
//! after the last of them.

use std::collections::BTreeSet;

use crate::guide::Guide;
use crate::progress::{Entry, ProgressLog, Status};

/// How many Sticking points must share a theme.
pub const REPEAT: usize = 2;
/// How far back to look, in entries that have a Sticking point.
pub const WINDOW: usize = 5;

const FILLER: [&str; 16] =
    ["a", "an", "the", "of", "for", "to", "in", "on", "and", "or", "with", "from", "by", "is", "my", "when"];

/// Normalised wording: lower case, words separated by single spaces, `(ladder rung N)` removed.
pub fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let cut = match lower.rfind("(ladder rung").or_else(|| lower.rfind("(rung")) {
        Some(i) => &lower[..i],
        None => &lower[..],
    };
    let spaced: String = cut.chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect();
    spaced
        .split_whitespace()
        .map(|w| match w {
            "versus" | "v" => "vs".to_owned(),
            _ => singular(w),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn singular(w: &str) -> String {
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w[..w.len() - 1].to_owned()
    } else {
        w.to_owned()
    }
}

fn content_words(normalised: &str) -> BTreeSet<&str> {
    normalised.split(' ').filter(|w| !w.is_empty() && !FILLER.contains(w)).collect()
}

/// Whether a Sticking point (as written) is about a theme (as written on a card).
///
/// Either normalised text contains the other as whole words, or at least two thirds of the
/// theme's content words (and at least two of them, for themes longer than one word) appear in
/// the Sticking point.
pub fn matches_theme(sticking: &str, theme: &str) -> bool {
    let s = normalise(sticking);
    let t = normalise(theme);
    if s.is_empty() || t.is_empty() {
        return false;
    }
    let padded = |x: &str| format!(" {x} ");
    if padded(&s).contains(&padded(&t)) || padded(&t).contains(&padded(&s)) {
        return true;
    }
    let sw = content_words(&s);
    let tw = content_words(&t);
    if tw.is_empty() {
        return false;
    }
    let shared = tw.iter().filter(|w| sw.contains(*w)).count();
    shared * 3 >= tw.len() * 2 && (shared >= 2 || tw.len() == 1)
}

/// The first card theme (in Guide order) a Sticking point is about, preferring the themes of
/// the entry's own card: `(card id, theme as written)`.
pub fn theme_of<'g>(guide: &'g Guide, own_card: &str, sticking: &str) -> Option<(&'g str, &'g str)> {
    let own = guide.cards.iter().filter(|c| c.id == own_card);
    let rest = guide.cards.iter().filter(|c| c.id != own_card);
    own.chain(rest)
        .flat_map(|c| c.themes.iter().map(move |t| (c.id.as_str(), t.as_str())))
        .find(|(_, t)| matches_theme(sticking, t))
}

/// An entry that took part in a decision, as the app and the CLI print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRef {
    pub line: usize,
    pub date: String,
    pub session: String,
    pub sticking_point: String,
}

impl EntryRef {
    pub fn of(entry: &Entry) -> EntryRef {
        EntryRef {
            line: entry.line,
            date: entry.date_text().to_string(),
            session: entry.session().to_string(),
            sticking_point: entry.sticking_point().map(|s| s.text.to_string()).unwrap_or_default(),
        }
    }
}

/// Why this session is the one proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A card carrying the theme names it in its `Remediation` field.
    Named,
    /// No card names one: the first card in Guide order that carries the theme, to revisit.
    FirstCardWithTheme,
}

/// The proposal: take `session` before continuing, because of `theme` in `entries`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub session: String,
    pub source: Source,
    pub theme: String,
    pub entries: Vec<EntryRef>,
}

/// The remediation offer the log calls for, if any.
pub fn remediation(guide: &Guide, log: &ProgressLog) -> Option<Offer> {
    let with_sp: Vec<&Entry> =
        log.entries.iter().filter(|e| e.sticking_point().is_some_and(|s| !s.is_none())).collect();
    let recent = &with_sp[with_sp.len().saturating_sub(WINDOW)..];
    // (theme normalised, theme as written, entries), in order of each theme's first appearance.
    let mut groups: Vec<(String, &str, Vec<&Entry>)> = Vec::new();
    for e in recent {
        let text = &e.sticking_point()?.text;
        let Some((_, theme)) = theme_of(guide, e.session(), text) else { continue };
        let key = normalise(theme);
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some(g) => g.2.push(e),
            None => groups.push((key, theme, vec![e])),
        }
    }
    // The theme whose latest entry is the most recent wins: it is the live struggle.
    let (_, theme, entries) = groups.into_iter().filter(|g| g.2.len() >= REPEAT).max_by_key(|g| g.2.last().map_or(0, |e| e.line))?;
    let key = normalise(theme);
    let carriers: Vec<_> = guide.cards.iter().filter(|c| c.themes.iter().any(|t| normalise(t) == key)).collect();
    let (session, source) = match carriers.iter().find_map(|c| c.remediation.clone()) {
        Some(r) => (r, Source::Named),
        None => (carriers.first()?.id.clone(), Source::FirstCardWithTheme),
    };
    let last_line = entries.last().map_or(0, |e| e.line);
    let taken = log.entries.iter().any(|e| e.line > last_line && e.session() == session && e.status == Some(Status::Done));
    if taken {
        return None;
    }
    Some(Offer { session, source, theme: theme.to_owned(), entries: entries.into_iter().map(EntryRef::of).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising() {
        let cases = [
            ("Per-head vs. per-layer cache sizing (ladder rung 2)", "per head vs per layer cache sizing"),
            ("per head versus per layer caches", "per head vs per layer cache"),
            ("  MB vs MiB!! ", "mb vs mib"),
            ("bytes per element", "byte per element"),
            ("the softmax axis (rung 3)", "the softmax axis"),
        ];
        for (input, want) in cases {
            assert_eq!(normalise(input), want, "{input}");
        }
    }

    #[test]
    fn matching() {
        let theme = "per-head vs per-layer cache sizing";
        let cases = [
            ("per-head vs per-layer cache sizing (ladder rung 2)", true),
            ("confused per-head and per-layer cache sizing again", true),
            ("Per head vs per layer sizing", true),
            ("cache sizing", true),
            ("sizing the embedding table", false),
            ("which axis the softmax runs over", false),
            ("", false),
        ];
        for (sp, want) in cases {
            assert_eq!(matches_theme(sp, theme), want, "{sp:?}");
        }
        assert!(matches_theme("MB vs MiB confusion", "MB vs MiB"));
        assert!(!matches_theme("GB of VRAM", "MB vs MiB"));
    }
}
