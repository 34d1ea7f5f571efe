//! Editing one PROGRESS.md entry from a form: only the lines whose value changed are rewritten;
//! unknown fields, notes, blank lines, bullets and line endings of everything else stay as
//! written, byte for byte.

use crate::progress::{self, Entry};

/// The form's content for one entry: heading parts, then every field of the entry in file order
/// (same length and order as `Entry::fields`), then any fields the reader added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryEdit {
    pub date: String,
    pub session: String,
    pub title: String,
    pub status: String,
    pub fields: Vec<(String, String)>,
    pub added: Vec<(String, String)>,
}

/// The form as it starts: the entry's own values.
pub fn form(entry: &Entry) -> EntryEdit {
    EntryEdit {
        date: entry.date.map(|d| d.to_string()).unwrap_or_else(|| entry.date_text().to_string()),
        session: entry.session().to_string(),
        title: entry.title().map(str::to_string).unwrap_or_default(),
        status: entry.status.as_ref().map(|s| s.as_str().to_owned()).unwrap_or_default(),
        fields: entry.fields().map(|f| (f.name.to_string(), f.value.to_string())).collect(),
        added: Vec::new(),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ending(line: &str) -> &str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

/// Rewrites entry `index` of `text` from `edit`. Returns `text` unchanged when the index is out
/// of range or nothing in the form differs from the entry.
pub fn edit_entry(text: &str, index: usize, edit: &EntryEdit) -> String {
    let (log, _) = progress::parse(text);
    let Some(entry) = log.entries.get(index) else { return text.to_owned() };
    let original = form(entry);
    let eol = progress::dominant_eol(text);
    let lines: Vec<&str> = entry.raw().split_inclusive('\n').collect();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();

    let heading_changed = (&original.date, &original.session, &original.title, &original.status)
        != (&edit.date, &edit.session, &edit.title, &edit.status);
    if heading_changed {
        let title = one_line(&edit.title);
        let heading = if title.is_empty() {
            format!("### {} — {} — {}", one_line(&edit.date), one_line(&edit.session), one_line(&edit.status))
        } else {
            format!("### {} — {} ({title}) — {}", one_line(&edit.date), one_line(&edit.session), one_line(&edit.status))
        };
        out[0] = format!("{heading}{}", ending(lines[0]));
    }

    let mut last_field_line = 0;
    for (field, (name, value)) in entry.fields().zip(&edit.fields) {
        let first = field.line - entry.line;
        let last = field.last_line - entry.line;
        last_field_line = last_field_line.max(last);
        if *name == field.name && one_line(value) == one_line(field.value) {
            continue;
        }
        // Keep the bullet and indent the reader used.
        let line = lines[first];
        let indent = &line[..line.len() - line.trim_start().len()];
        let rest = line.trim_start();
        let bullet = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '+')).unwrap_or('-');
        let lead = format!("{indent}{bullet} ");
        out[first] = format!("{lead}**{}**: {}{}", one_line(name), one_line(value), ending(lines[last]));
        for line in out.iter_mut().take(last + 1).skip(first + 1) {
            line.clear();
        }
    }

    let added: Vec<String> = edit
        .added
        .iter()
        .filter(|(name, _)| !name.trim().is_empty())
        .map(|(name, value)| format!("- **{}**: {}", one_line(name), one_line(value)))
        .collect();
    if !added.is_empty() {
        let at = last_field_line;
        if !out[at].ends_with('\n') {
            out[at].push_str(eol);
        }
        let block: String = added.iter().map(|l| format!("{l}{eol}")).collect();
        out[at].push_str(&block);
        // The entry's last line had no line ending (end of file): keep it that way.
        if at + 1 == out.len() && !entry.raw().ends_with('\n') {
            let keep = out[at].len() - eol.len();
            out[at].truncate(keep);
        }
    }

    let raw: String = out.concat();
    if raw == entry.raw() {
        return text.to_owned();
    }
    let mut result = log.preamble.clone();
    for (i, e) in log.entries.iter().enumerate() {
        result.push_str(if i == index { &raw } else { e.raw() });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "Preamble\r\n\r\n### 2026-07-20 — S1.1 (Tokens) — DONE\r\n* **Built**: a BPE   tokenizer\r\n* **Mood**: tired  \r\n  and hungry\r\n\r\nA note.\r\n\r\n### 2026-07-21 — S1.2 — PARTIAL\n- **Next**: S1.3";

    #[test]
    fn unchanged_form_changes_nothing() {
        let (log, _) = progress::parse(LOG);
        for (i, e) in log.entries.iter().enumerate() {
            assert_eq!(edit_entry(LOG, i, &form(e)), LOG);
        }
        assert_eq!(edit_entry(LOG, 9, &EntryEdit::default()), LOG);
    }

    #[test]
    fn editing_one_field_keeps_every_other_byte() {
        let (log, _) = progress::parse(LOG);
        let mut edit = form(&log.entries[0]);
        edit.fields[0].1 = "a byte-level BPE".into();
        edit.status = "PARTIAL".into();
        let out = edit_entry(LOG, 0, &edit);
        expect_test::expect![[r#"
            "Preamble\r\n\r\n### 2026-07-20 — S1.1 (Tokens) — PARTIAL\r\n* **Built**: a byte-level BPE\r\n* **Mood**: tired  \r\n  and hungry\r\n\r\nA note.\r\n\r\n### 2026-07-21 — S1.2 — PARTIAL\n- **Next**: S1.3"
        "#]]
        .assert_debug_eq(&out);
    }

    #[test]
    fn editing_an_unknown_multi_line_field_and_adding_one_at_the_end_of_file() {
        let (log, _) = progress::parse(LOG);
        let mut edit = form(&log.entries[0]);
        edit.fields[1].1 = "rested".into();
        let out = edit_entry(LOG, 0, &edit);
        assert!(out.contains("* **Mood**: rested\r\n\r\nA note."), "{out:?}");
        let mut edit = form(&log.entries[1]);
        edit.added.push(("Place".into(), "train".into()));
        let out = edit_entry(LOG, 1, &edit);
        assert!(out.ends_with("- **Next**: S1.3\r\n- **Place**: train"), "{out:?}");
        let (again, _) = progress::parse(&out);
        assert_eq!(again.entries.len(), 2);
        assert_eq!(again.entries[1].unknown_fields().count(), 1);
    }
}
