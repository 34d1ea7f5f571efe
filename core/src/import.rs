//! Importing a PROGRESS.md into the one the app holds: the preview shown before anything is
//! written (added, unchanged, conflicts) and the text written once the reader has chosen.
//!
//! Built on [`crate::merge`], with two rules of its own so an import never rewrites bytes it
//! does not have to:
//! - importing into an empty log keeps the imported file byte for byte (so an export right
//!   after gives back exactly the file that was imported);
//! - importing a log that adds nothing (every entry and preamble line already present) leaves
//!   the current text untouched.

use crate::merge::{self, Conflict, Merged};
use crate::progress::{self, Entry, EntryKey};

/// One entry as the preview lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub key: EntryKey,
    pub title: Option<String>,
    /// 1-based line of its heading in the imported file.
    pub line: usize,
}

/// What an import would do, computed before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// Entries of the imported file that the current log lacks.
    pub added: Vec<Listed>,
    /// Entries of the imported file already in the current log (they collapse into one).
    pub unchanged: Vec<Listed>,
    /// Keys with different versions on each side: the reader picks one, or keeps both.
    pub conflicts: Vec<Conflict>,
    /// Preamble lines of the imported file that the current log lacks (they are kept).
    pub added_preamble_lines: usize,
    /// The text to write when every conflict keeps all its versions.
    pub text: String,
    /// True when writing `text` changes nothing.
    pub no_change: bool,
}

/// What the reader chose for one conflict: keep one version (index into `versions`) or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Keep(usize),
    KeepAll,
}

/// Line endings and trailing spaces aside, the same text (what "already there" compares).
fn normalised(raw: &str) -> String {
    raw.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim_end().to_owned()
}

fn listed(entry: &Entry) -> Listed {
    Listed { key: entry.key(), title: entry.title().map(str::to_string), line: entry.line }
}

/// The preview of importing `incoming` into `current`. Never fails: whatever cannot be parsed
/// is still kept as text.
pub fn preview(current: &str, incoming: &str) -> Preview {
    let (ours, _) = progress::parse(current);
    let (theirs, _) = progress::parse(incoming);
    let have: Vec<(EntryKey, String)> = ours.entries.iter().map(|e| (e.key(), normalised(e.raw()))).collect();
    let (unchanged, added): (Vec<&Entry>, Vec<&Entry>) =
        theirs.entries.iter().partition(|e| have.contains(&(e.key(), normalised(e.raw()))));
    let our_lines: Vec<&str> = ours.preamble.lines().map(str::trim_end).collect();
    let added_preamble_lines =
        theirs.preamble.lines().map(str::trim_end).filter(|l| !l.is_empty() && !our_lines.contains(l)).count();

    if current.trim().is_empty() {
        return Preview {
            added: theirs.entries.iter().map(listed).collect(),
            unchanged: Vec::new(),
            conflicts: Vec::new(),
            added_preamble_lines,
            text: incoming.to_owned(),
            no_change: current == incoming,
        };
    }
    if added.is_empty() && added_preamble_lines == 0 {
        return Preview {
            added: Vec::new(),
            unchanged: unchanged.into_iter().map(listed).collect(),
            conflicts: Vec::new(),
            added_preamble_lines,
            text: current.to_owned(),
            no_change: true,
        };
    }
    let Merged { text, conflicts } = merge::merge(current, incoming);
    Preview {
        added: added.into_iter().map(listed).collect(),
        unchanged: unchanged.into_iter().map(listed).collect(),
        conflicts,
        added_preamble_lines,
        no_change: text == current,
        text,
    }
}

/// The text to write: the preview's text with each conflict resolved as chosen. Choices are
/// matched to `preview.conflicts` by position; a missing choice keeps every version.
pub fn apply(preview: &Preview, choices: &[Choice]) -> String {
    // Every conflict's line numbers refer to the unresolved text, so all drops are collected
    // first and applied in one pass.
    let mut drop: Vec<(usize, usize)> = Vec::new();
    for (conflict, choice) in preview.conflicts.iter().zip(choices) {
        if let Choice::Keep(keep) = *choice
            && keep < conflict.versions.len()
        {
            drop.extend(conflict.versions.iter().enumerate().filter(|(i, _)| *i != keep).map(|(_, v)| (v.merged_line, v.merged_last_line)));
        }
    }
    if drop.is_empty() {
        return preview.text.clone();
    }
    preview
        .text
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, _)| !drop.iter().any(|&(a, b)| (a..=b).contains(&(i + 1))))
        .map(|(_, l)| l)
        .collect()
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    const HAND: &str = "# My log\r\n\r\nSome notes.  \r\n\r\n### 2026-07-20 — S1.1 (Tokens) — DONE\r\n- **Built**: a BPE tokenizer\r\n- **Mood**: tired\r\n\r\n### 2026-07-21 — S1.2 (Embeddings) — PARTIAL\r\n* **Done-when**: test_m01.py ❌\r\n";

    fn show(p: &Preview) -> String {
        let keys = |l: &[Listed]| l.iter().map(|e| e.key.to_string()).collect::<Vec<_>>().join(", ");
        let conflicts = p
            .conflicts
            .iter()
            .map(|c| format!("{} ({} versions)", c.key, c.versions.len()))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "added: {}\nunchanged: {}\nconflicts: {}\npreamble lines: {}\nno change: {}\n",
            keys(&p.added),
            keys(&p.unchanged),
            conflicts,
            p.added_preamble_lines,
            p.no_change
        )
    }

    fn check(current: &str, incoming: &str, expected: Expect) {
        expected.assert_eq(&show(&preview(current, incoming)));
    }

    #[test]
    fn into_an_empty_log_keeps_every_byte() {
        let p = preview("", HAND);
        assert_eq!(p.text, HAND);
        assert_eq!(apply(&p, &[]), HAND);
        check("", HAND, expect![[r#"
            added: 2026-07-20 S1.1 DONE, 2026-07-21 S1.2 PARTIAL
            unchanged: 
            conflicts: 
            preamble lines: 2
            no change: false
        "#]]);
    }

    #[test]
    fn the_same_log_again_changes_nothing() {
        let p = preview(HAND, &HAND.replace("\r\n", "\n"));
        assert!(p.no_change);
        assert_eq!(p.text, HAND);
        check(HAND, HAND, expect![[r#"
            added: 
            unchanged: 2026-07-20 S1.1 DONE, 2026-07-21 S1.2 PARTIAL
            conflicts: 
            preamble lines: 0
            no change: true
        "#]]);
    }

    #[test]
    fn an_overlapping_log_adds_collapses_and_offers_conflicts() {
        let other = "### 2026-07-20 — S1.1 (Tokens) — DONE\n- **Built**: a BPE tokenizer\n- **Mood**: tired\n\n### 2026-07-21 — S1.2 (Embeddings) — PARTIAL\n- **Done-when**: test_m01.py ❌\n- **Sticking point**: shapes (ladder rung 1)\n\n### 2026-07-23 — S1.3 (KV-cache budget) — DONE\n- **Done-when**: test_m02_kv_budget.py ✅\n";
        let p = preview(HAND, other);
        check(HAND, other, expect![[r#"
            added: 2026-07-21 S1.2 PARTIAL, 2026-07-23 S1.3 DONE
            unchanged: 2026-07-20 S1.1 DONE
            conflicts: 2026-07-21 S1.2 PARTIAL (2 versions)
            preamble lines: 0
            no change: false
        "#]]);
        // Keeping both loses nothing: every line of both files is in the result.
        let both = apply(&p, &[Choice::KeepAll]);
        for line in HAND.lines().chain(other.lines()).map(str::trim_end).filter(|l| !l.is_empty()) {
            assert!(both.lines().any(|l| l.trim_end() == line), "kept {line:?}");
        }
        // Keeping the imported version drops only ours.
        let conflict = &p.conflicts[0];
        let theirs = conflict.versions.iter().position(|v| v.side == merge::Side::B).unwrap();
        let chosen = apply(&p, &[Choice::Keep(theirs)]);
        assert!(chosen.contains("shapes (ladder rung 1)"));
        assert!(!chosen.contains("* **Done-when**"));
        assert!(chosen.contains("S1.3 (KV-cache budget)"));
        let (log, _) = progress::parse(&chosen);
        assert_eq!(log.entries.len(), 3);
    }
}
