//! Offline search over the book: every section of every chapter (titles, headings and text),
//! built from the bundle in the browser, no server and no prebuilt index needed.
//!
//! A query's words must all appear in a section (as word prefixes, any case). Hits are ranked by
//! where the words appear: chapter title, then section heading, then how often in the text.

use crate::book::Book;
use crate::reading;
use crate::render;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Doc {
    href: String,
    chapter: String,
    heading: Option<String>,
    text: String,
    /// Lower-cased words of title, heading and text, for matching.
    title_words: Vec<String>,
    heading_words: Vec<String>,
    text_words: Vec<String>,
}

/// The search index of a book.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Index {
    docs: Vec<Doc>,
}

/// One result: where to go and what to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// App route with the section's anchor: `/book/kv-cache#mqa-and-gqa`.
    pub href: String,
    pub chapter: String,
    pub heading: Option<String>,
    /// About 160 characters of the section around the first match.
    pub snippet: String,
    pub score: u32,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The text of rendered HTML: tags dropped, the renderer's entities decoded, spaces collapsed.
fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    // Inline tags join their text (`<code>n</code>.` stays `n.`); cells, items and breaks
    // separate words.
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('>').map_or(rest.len(), |c| open + c + 1);
        let name = rest[open + 1..close].trim_start_matches('/');
        if ["td", "th", "li", "br", "p", "tr", "div", "pre"].iter().any(|t| name.starts_with(t)) {
            out.push(' ');
        }
        rest = &rest[close.min(rest.len())..];
    }
    out.push_str(rest);
    let decoded = out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Indexes every chapter of the book, one document per section.
pub fn index(book: &Book) -> Index {
    let mut docs = Vec::new();
    for chapter in &book.chapters {
        let rendered = render::chapter(&chapter.path, &chapter.source);
        let route = render::route(&chapter.path);
        for section in reading::sections(&rendered.html) {
            let heading = (!section.heading.is_empty()).then(|| text_of(&section.heading));
            let text = text_of(&section.body);
            if heading.is_none() && text.is_empty() {
                continue;
            }
            let href = match &section.id {
                Some(id) => format!("{route}#{id}"),
                None => route.clone(),
            };
            docs.push(Doc {
                href,
                chapter: chapter.title.clone(),
                title_words: words(&chapter.title),
                heading_words: heading.as_deref().map(words).unwrap_or_default(),
                text_words: words(&text),
                heading,
                text,
            });
        }
    }
    Index { docs }
}

fn snippet(text: &str, first: &str) -> String {
    const WIDTH: usize = 160;
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII; then start at the beginning.
    let at = if lower.len() == text.len() { lower.find(first).unwrap_or(0) } else { 0 };
    let mut start = at.saturating_sub(WIDTH / 3);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + WIDTH).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(text[start..end].trim());
    if end < text.len() {
        out.push('…');
    }
    out
}

/// The best `limit` sections for `query`; empty for a query without words.
pub fn search(index: &Index, query: &str, limit: usize) -> Vec<Hit> {
    let terms = words(query);
    if terms.is_empty() {
        return Vec::new();
    }
    let count = |ws: &[String], t: &str| ws.iter().filter(|w| w.starts_with(t)).count() as u32;
    let mut hits: Vec<Hit> = index
        .docs
        .iter()
        .filter_map(|doc| {
            let mut score = 0;
            for t in &terms {
                let (title, heading, text) = (count(&doc.title_words, t), count(&doc.heading_words, t), count(&doc.text_words, t));
                if title + heading + text == 0 {
                    return None;
                }
                score += 20 * title.min(1) + 10 * heading.min(1) + text.min(10);
            }
            Some(Hit { href: doc.href.clone(), chapter: doc.chapter.clone(), heading: doc.heading.clone(), snippet: snippet(&doc.text, &terms[0]), score })
        })
        .collect();
    // Stable: equal scores keep book order.
    hits.sort_by_key(|h| std::cmp::Reverse(h.score));
    hits.truncate(limit);
    hits
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::wire::BookBundle;

    fn book() -> Book {
        let mut bundle = BookBundle::default();
        for (path, text) in [
            ("book.toml", "[book]\ntitle = \"T\"\n"),
            ("src/SUMMARY.md", "# Summary\n\n- [The KV cache](kv-cache.md)\n- [Attention](attention.md)\n"),
            ("src/kv-cache.md", "# The KV cache\n\nDecoding reuses keys.\n\n## MQA and GQA\n\nGrouped heads share keys &amp; values: `n_kv_heads < n_heads`.\n"),
            ("src/attention.md", "# Attention\n\nQueries meet keys. Keys, keys, keys.\n\n## Grouped heads in code\n\nRepeat the KV heads.\n"),
        ] {
            bundle.files.insert(path.into(), text.into());
        }
        crate::book::load(&bundle)
    }

    fn check(query: &str, expected: expect_test::Expect) {
        let hits = search(&index(&book()), query, 10);
        let shown: Vec<String> = hits.iter().map(|h| format!("{} [{}] {}", h.href, h.score, h.snippet)).collect();
        expected.assert_debug_eq(&shown);
    }

    #[test]
    fn ranks_titles_then_headings_then_text() {
        check("keys", expect![[r#"
            [
                "/book/attention#attention [4] Queries meet keys. Keys, keys, keys.",
                "/book/kv-cache#the-kv-cache [1] Decoding reuses keys.",
                "/book/kv-cache#mqa-and-gqa [1] Grouped heads share keys & values: n_kv_heads < n_heads.",
            ]
        "#]]);
        check("GROUP head", expect![[r#"
            [
                "/book/attention#grouped-heads-in-code [21] Repeat the KV heads.",
                "/book/kv-cache#mqa-and-gqa [4] Grouped heads share keys & values: n_kv_heads < n_heads.",
            ]
        "#]]);
        check("kv cache", expect![[r#"
            [
                "/book/kv-cache#the-kv-cache [60] Decoding reuses keys.",
                "/book/kv-cache#mqa-and-gqa [41] Grouped heads share keys & values: n_kv_heads < n_heads.",
            ]
        "#]]);
        check("  ", expect![[r#"
            []
        "#]]);
        check("zebra", expect![[r#"
            []
        "#]]);
    }

    #[test]
    fn snippets_stay_on_char_boundaries() {
        let text = "é".repeat(300);
        let s = snippet(&text, "x");
        assert!(s.chars().count() <= 162);
    }
}
