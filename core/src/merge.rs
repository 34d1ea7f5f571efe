//! Merging two PROGRESS.md logs without losing a line.
//!
//! A reader who logged on two machines (or imports an agent's log) merges them. The rules:
//!
//! - Every entry of both logs is kept. Two entries are the same entry when they have the same
//!   key (date, session, status) and the same text (line endings and trailing spaces aside);
//!   such an entry appears once.
//! - Two different versions of the same key, one found only in A and one only in B, are both
//!   kept and reported as a [`Conflict`] for the reader to resolve (see [`resolve`]).
//!   Different versions within one log (two PARTIAL sittings on one day) are not conflicts.
//!   Versions that differ only in formatting (`*` vs `-`, ✔ vs ✅) are still both kept, so no
//!   line is ever lost, and the conflict says `formatting_only`.
//! - Entries are ordered by date, then by their original order (A's before B's on the same
//!   date). An entry without a valid date sorts with the dated entry before it in its log.
//! - Nothing is dropped: A's preamble is kept, B's preamble lines that A lacks follow it, and
//!   notes stay with the entry they follow. The output uses A's line endings.
//!
//! Merging is idempotent (`merge(m, b).text == m` for `m = merge(a, b).text`) and, up to the
//! order of entries on the same date and of preamble lines, insensitive to argument order.

use std::collections::{HashMap, HashSet};

use crate::progress::{self, Date, Entry, EntryKey};

/// Which input an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    A,
    B,
}

/// One version of a conflicting entry: where it was, where it is now, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub side: Side,
    /// 1-based line of its heading in its input.
    pub line: usize,
    /// 1-based lines of its first and last line in the merged text.
    pub merged_line: usize,
    pub merged_last_line: usize,
    /// Its raw text as it stands in the merged log (line endings of the output).
    pub text: String,
}

/// Two or more different versions of one entry (same date, session and status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub key: EntryKey,
    /// Every version found in only one of the logs, in merged order.
    pub versions: Vec<Version>,
    /// True when the versions differ only in what `fmt` would rewrite (bullets, marks,
    /// separators): the app can offer to keep either without a second look.
    pub formatting_only: bool,
}

/// The merged log and what the reader must decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// One entry on its way into the merged log.
struct Item<'a> {
    side: Side,
    entry: &'a Entry,
    /// Its date, or the date of the dated entry before it in its log.
    sort_date: Option<Date>,
    /// Normalised raw text (line endings and trailing spaces ignored): what "same content"
    /// compares. Raw, not canonical, so no line of either input is ever dropped.
    content: String,
    /// Normalised canonical text, to tell formatting-only conflicts apart.
    canonical: String,
    key: EntryKey,
}

fn items(side: Side, entries: &[Entry]) -> Vec<Item<'_>> {
    let mut last = None;
    entries
        .iter()
        .map(|e| {
            last = e.date.or(last);
            Item {
                side,
                entry: e,
                sort_date: last,
                content: progress::normalized(e.raw()),
                canonical: progress::normalized(&progress::fmt_entry(e, "\n")),
                key: e.key(),
            }
        })
        .collect()
}

fn with_eol(text: &str, eol: &str) -> String {
    // Line endings follow A. Line by line, so a lone CR inside a line stays text.
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        match line.strip_suffix("\r\n").or_else(|| line.strip_suffix('\n')) {
            Some(body) => {
                // With LF endings, a line whose text ends in CR would read back as CRLF and
                // change on the next merge; that CR is an invisible trailing character, dropped.
                out.push_str(if eol == "\n" { body.trim_end_matches('\r') } else { body });
                out.push_str(eol);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Ends the last line of `text` with `eol` if it has no line ending. A lone CR at the very end
/// is taken as that line's ending (as old Mac files had it): written out as `\r` + `eol` it
/// would read back as CRLF, and merging again would change the text.
fn end_line(text: &mut String, eol: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        if text.ends_with('\r') {
            text.pop();
        }
        // The same rule as `with_eol`: under LF endings, trailing CRs would read back as CRLF.
        if eol == "\n" {
            text.truncate(text.trim_end_matches('\r').len());
        }
        text.push_str(eol);
    }
}

/// Lines of B's preamble that A's preamble lacks (compared without trailing spaces), blank
/// lines left out.
fn missing_lines<'b>(a: &str, b: &'b str) -> Vec<&'b str> {
    let have: HashSet<&str> = a.split('\n').map(str::trim_end).collect();
    let mut seen = HashSet::new();
    b.split('\n')
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !have.contains(l) && seen.insert(*l))
        .collect()
}

/// Merges two PROGRESS.md texts. Never fails and never drops a line of either.
pub fn merge(a: &str, b: &str) -> Merged {
    let eol = if a.contains('\n') { progress::dominant_eol(a) } else { progress::dominant_eol(b) };
    let (log_a, _) = progress::parse(a);
    let (log_b, _) = progress::parse(b);

    let mut all = items(Side::A, &log_a.entries);
    all.extend(items(Side::B, &log_b.entries));
    // Stable: same date keeps A's order, then B's.
    all.sort_by_key(|it| it.sort_date);

    // Identical entries appear once; remember which sides had each kept entry.
    let mut kept: Vec<(Item<'_>, [bool; 2])> = Vec::with_capacity(all.len());
    let mut index: HashMap<(EntryKey, String), usize> = HashMap::with_capacity(all.len());
    for it in all {
        let side = it.side as usize;
        match index.get(&(it.key.clone(), it.content.clone())) {
            Some(&k) => kept[k].1[side] = true,
            None => {
                index.insert((it.key.clone(), it.content.clone()), kept.len());
                let mut sides = [false; 2];
                sides[side] = true;
                kept.push((it, sides));
            }
        }
    }

    // The text: A's preamble, B's extra preamble lines, then the entries.
    let mut text = with_eol(&log_a.preamble, eol);
    let extra = missing_lines(&log_a.preamble, &log_b.preamble);
    if !extra.is_empty() {
        if !text.is_empty() {
            end_line(&mut text, eol);
            if !text.lines().last().is_some_and(|l| l.trim().is_empty()) {
                text.push_str(eol);
            }
        }
        for l in extra {
            text.push_str(l);
            text.push_str(eol);
        }
        if !kept.is_empty() {
            text.push_str(eol);
        }
    }
    let mut line = 1 + text.matches('\n').count();
    let mut spans = Vec::with_capacity(kept.len());
    let n = kept.len();
    for (i, (it, _)) in kept.iter().enumerate() {
        if !text.is_empty() && !text.ends_with('\n') {
            end_line(&mut text, eol);
            line += 1;
        }
        let mut raw = with_eol(it.entry.raw(), eol);
        // Every entry ends with a line ending, and one blank line separates it from the next.
        end_line(&mut raw, eol);
        if i + 1 < n && !raw.ends_with(&format!("{eol}{eol}")) {
            raw.push_str(eol);
        }
        let lines = raw.matches('\n').count();
        spans.push((line, line + lines - 1, raw.clone()));
        line += lines;
        text.push_str(&raw);
    }

    // Conflicts: a key with a version only in A and another only in B.
    let mut by_key: HashMap<&EntryKey, Vec<usize>> = HashMap::new();
    for (i, (it, _)) in kept.iter().enumerate() {
        by_key.entry(&it.key).or_default().push(i);
    }
    let mut conflicts: Vec<Conflict> = by_key
        .into_iter()
        .filter(|(_, ix)| {
            let only = |s: usize| ix.iter().any(|&i| kept[i].1[s] && !kept[i].1[1 - s]);
            only(0) && only(1)
        })
        .map(|(key, ix)| {
            let one_sided: Vec<usize> = ix.into_iter().filter(|&i| kept[i].1[0] != kept[i].1[1]).collect();
            let formatting_only = one_sided.windows(2).all(|w| kept[w[0]].0.canonical == kept[w[1]].0.canonical);
            (key, one_sided, formatting_only)
        })
        .map(|(key, ix, formatting_only)| Conflict {
            key: key.clone(),
            formatting_only,
            versions: ix
                .into_iter()
                .map(|i| {
                    let (it, _) = &kept[i];
                    let (first, last, raw) = &spans[i];
                    Version {
                        side: it.side,
                        line: it.entry.line,
                        merged_line: *first,
                        merged_last_line: *last,
                        text: raw.clone(),
                    }
                })
                .collect(),
        })
        .collect();
    conflicts.sort_by_key(|c| c.versions.first().map(|v| v.merged_line));
    Merged { text, conflicts }
}

/// Resolves a conflict in a merged text by keeping one version (by index into
/// `conflict.versions`) and deleting the others' lines (their notes go with them: the
/// reader chose). Returns the text unchanged if `keep` is out of range.
pub fn resolve(merged: &str, conflict: &Conflict, keep: usize) -> String {
    if keep >= conflict.versions.len() {
        return merged.to_string();
    }
    let drop: Vec<(usize, usize)> = conflict
        .versions
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != keep)
        .map(|(_, v)| (v.merged_line, v.merged_last_line))
        .collect();
    merged
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, _)| !drop.iter().any(|&(a, b)| (a..=b).contains(&(i + 1))))
        .map(|(_, l)| l)
        .collect()
}
