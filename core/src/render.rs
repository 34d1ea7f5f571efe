//! Chapter Markdown to safe HTML, with mdBook-compatible heading anchors.
//!
//! One pass over pulldown-cmark's events, fed straight into its `push_html`: only headings are
//! buffered (to compute their id from their text before the opening tag is written). On the way:
//!
//! - every heading gets mdBook's id (see [`normalize_id`]; repeats get `-1`, `-2`, …, an explicit
//!   `{#id}` is used as written) and a self-link `<a class="header" href="#id">`, as mdBook does;
//! - links to other chapters (`other.md#x`, resolved against the chapter's own folder) become app
//!   routes (`/book/other#x`); external `http(s)`/`mailto` links are kept with `rel="noopener"`;
//!   any other scheme (`javascript:`, `data:`, `vbscript:`, …) is replaced by `#`;
//! - raw HTML, block or inline, is escaped and shown as text: a book cannot inject markup or
//!   script into the companion. Heading attributes other than id and classes are dropped for the
//!   same reason (`{onclick=…}`);
//! - fenced code blocks keep pulldown-cmark's `language-xxx` class.
//!
//! Extensions: those `mdbook build` 0.5 enables by default (tables, footnotes, strikethrough,
//! task lists, heading attributes, smart punctuation, definition lists, GFM alerts); see
//! [`options`]. Definition terms get ids and self-links like headings, as in mdBook. Known
//! divergence: GFM alerts keep pulldown-cmark's markup, not mdBook's.

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// A heading of a chapter, as the guide validator, in-chapter links and search need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6.
    pub level: u8,
    /// The heading's text with markup removed.
    pub text: String,
    /// The anchor id, identical to mdBook's.
    pub id: String,
}

/// A rendered chapter: safe HTML and the headings it holds, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub html: String,
    pub headings: Vec<Heading>,
}

/// The pulldown-cmark extensions Bookside renders with: exactly those `mdbook build` (0.5) uses
/// by default, so a chapter reads and anchors the same in both (never `Options::all()`). Smart
/// punctuation matters to anchors (`a -- b` becomes `a – b`, whose id is `a--b`), and definition
/// terms take ids from the same counter as headings. `ENABLE_GFM` is mdBook's "admonitions":
/// `> [!NOTE]` block quotes.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
}

/// mdBook's heading-id rule (mdbook-html 0.5, `id_from_content`): letters lowercased (Unicode
/// lowercase, so `Über` gives `über`), letters, digits, `-` and `_` kept, whitespace turned into
/// `-`, everything else dropped.
pub fn normalize_id(content: &str) -> String {
    let mut id = String::with_capacity(content.len());
    if content.is_ascii() {
        // The common case, byte by byte: ASCII letters, digits, `-`, `_` and whitespace are the
        // same under both rules.
        for b in content.bytes() {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
                id.push(char::from(b.to_ascii_lowercase()));
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r') {
                id.push('-');
            }
        }
        return id;
    }
    for ch in content.chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == '-' {
            if ch.is_ascii() {
                id.push(ch.to_ascii_lowercase());
            } else {
                id.extend(ch.to_lowercase());
            }
        } else if ch.is_whitespace() {
            id.push('-');
        }
    }
    id
}

/// mdBook's id for a heading's text: trimmed, then [`normalize_id`].
fn id_from_text(text: &str) -> String {
    normalize_id(text.trim())
}

/// The app route of a chapter: `part/kv-cache.md` → `/book/part/kv-cache`.
pub fn route(chapter_path: &str) -> String {
    let stem = chapter_path.strip_suffix(".md").unwrap_or(chapter_path);
    format!("/book/{stem}")
}

/// Renders the chapter at `src/`-relative `path` (used to resolve its relative links).
pub fn chapter(path: &str, markdown: &str) -> Rendered {
    let mut headings = Vec::new();
    let mut html = String::with_capacity(markdown.len() + markdown.len() / 2);
    let events = Transform::new(path, Parser::new_ext(markdown, options()), Some(&mut headings));
    pulldown_cmark::html::push_html(&mut html, events);
    Rendered { html, headings }
}

/// The headings of a chapter with their ids, without rendering it.
pub fn headings(markdown: &str) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut ids = IdCounter::default();
    let mut current: Option<(u8, Option<String>, String)> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Heading { level, id, .. }) => current = Some((level_number(level), id.map(|s| s.to_string()), String::new())),
            // Definition terms take ids from the same counter (mdBook anchors them too).
            Event::Start(Tag::DefinitionListTitle) => current = Some((0, None, String::new())),
            Event::End(TagEnd::Heading(_) | TagEnd::DefinitionListTitle) => {
                if let Some((level, explicit, text)) = current.take() {
                    let id = ids.id(explicit.as_deref(), &text);
                    if level > 0 {
                        out.push(Heading { level, text: collapse(&text), id });
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, text)) = &mut current {
                    text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, text)) = &mut current {
                    text.push('\n');
                }
            }
            _ => {}
        }
    }
    out
}

/// The chapter's words for offline search: text and code, one block per line, no markup.
pub fn plain_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item | TagEnd::CodeBlock | TagEnd::TableCell | TagEnd::FootnoteDefinition)
                if !out.ends_with('\n') && !out.is_empty() =>
            {
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// Renders every chapter of the book (for the benchmark and for static export): `(path, html)`.
pub fn book(book: &crate::book::Book) -> Vec<(String, Rendered)> {
    book.chapters.iter().map(|c| (c.path.clone(), chapter(&c.path, &c.source))).collect()
}

fn level_number(level: HeadingLevel) -> u8 {
    level as u8
}

/// The text with runs of whitespace turned into single spaces and the ends trimmed.
fn collapse(text: &str) -> String {
    // Most heading texts already are: ASCII with single inner spaces and nothing to trim.
    let b = text.as_bytes();
    let plain = text.is_ascii()
        && b.first().is_none_or(|&c| c != b' ')
        && b.last().is_none_or(|&c| c != b' ')
        && !b.iter().any(|&c| matches!(c, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
        && !b.windows(2).any(|w| w == b"  ");
    if plain {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Hands out mdBook's unique ids: an id already used gets the first free suffix `-1`, `-2`, …
/// An explicit `{#id}` is used verbatim and does not reserve its id, as in mdBook.
///
/// mdBook retries suffixes from 1 for every repeat, which is quadratic in the number of equal
/// headings; remembering where the search for each base stopped gives the same ids in linear
/// time, because an id once used stays used.
#[derive(Default)]
struct IdCounter {
    used: HashSet<String>,
    next: HashMap<String, u32>,
}

impl IdCounter {
    fn id(&mut self, explicit: Option<&str>, text: &str) -> String {
        if let Some(id) = explicit {
            return id.to_owned();
        }
        let base = id_from_text(text);
        if self.used.insert(base.clone()) {
            return base;
        }
        let counter = self.next.entry(base.clone()).or_insert(1);
        loop {
            let candidate = format!("{base}-{counter}");
            *counter += 1;
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

/// The event filter between the parser and `push_html`.
struct Transform<'a, 'h, I> {
    path: &'a str,
    inner: I,
    ids: IdCounter,
    headings: Option<&'h mut Vec<Heading>>,
    /// Events waiting to be handed out (a whole heading, or a rewritten tag plus its parts).
    queue: std::collections::VecDeque<Event<'a>>,
    /// A heading's text, reused from one heading to the next.
    text: String,
}

impl<'a, 'h, I: Iterator<Item = Event<'a>>> Transform<'a, 'h, I> {
    fn new(path: &'a str, inner: I, headings: Option<&'h mut Vec<Heading>>) -> Self {
        Transform { path, inner, ids: IdCounter::default(), headings, queue: std::collections::VecDeque::new(), text: String::new() }
    }

    /// Reads a whole heading (`level` is `Some`) or definition term (`None`) from the parser and
    /// queues it with its id and self-link.
    fn heading(&mut self, level: Option<HeadingLevel>, explicit: Option<CowStr<'a>>, classes: Vec<CowStr<'a>>) {
        // The queue is empty here: slots 0 and 1 are filled once the id is known, so the heading's
        // events go straight into the queue's reused buffer instead of a fresh one.
        debug_assert!(self.queue.is_empty());
        self.queue.push_back(Event::SoftBreak);
        self.queue.push_back(Event::SoftBreak);
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        while let Some(event) = self.inner.next() {
            match event {
                Event::End(TagEnd::Heading(_) | TagEnd::DefinitionListTitle) => break,
                Event::Text(ref t) | Event::Code(ref t) => text.push_str(t),
                Event::SoftBreak | Event::HardBreak => text.push('\n'),
                _ => {}
            }
            let event = self.rewrite(event);
            self.queue.push_back(event);
        }
        let id = self.ids.id(explicit.as_deref(), &text);
        if let (Some(headings), Some(level)) = (self.headings.as_deref_mut(), level) {
            headings.push(Heading { level: level_number(level), text: collapse(&text), id: id.clone() });
        }
        self.text = text;
        let mut anchor = String::with_capacity(id.len() + 32);
        anchor.push_str("<a class=\"header\" href=\"#");
        escape_attr(&mut anchor, &id);
        anchor.push_str("\">");
        self.queue[1] = Event::Html(CowStr::from(anchor));
        self.queue.push_back(Event::Html(CowStr::Borrowed("</a>")));
        match level {
            Some(level) => {
                self.queue[0] = Event::Start(Tag::Heading { level, id: Some(CowStr::from(id)), classes, attrs: Vec::new() });
                self.queue.push_back(Event::End(TagEnd::Heading(level)));
            }
            None => {
                // push_html writes a bare `<dt>`; the id needs the tag written here.
                let mut dt = String::with_capacity(id.len() + 16);
                dt.push_str("<dt id=\"");
                escape_attr(&mut dt, &id);
                dt.push_str("\">");
                self.queue[0] = Event::Html(CowStr::from(dt));
                self.queue.push_back(Event::End(TagEnd::DefinitionListTitle));
            }
        }
    }

    /// Rewrites one event that needs no look-ahead.
    fn rewrite(&self, event: Event<'a>) -> Event<'a> {
        match event {
            // Raw HTML is shown, never interpreted.
            Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
            Event::Start(Tag::HtmlBlock) => Event::Html(CowStr::Borrowed("<p class=\"raw-html\">")),
            Event::End(TagEnd::HtmlBlock) => Event::Html(CowStr::Borrowed("</p>\n")),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => match if link_type == LinkType::Email { Target::External } else { classify(&dest_url) } {
                Target::External => {
                    let mut html = String::with_capacity(dest_url.len() + title.len() + 40);
                    html.push_str("<a href=\"");
                    if link_type == LinkType::Email {
                        html.push_str("mailto:");
                    }
                    escape_href(&mut html, &dest_url);
                    if !title.is_empty() {
                        html.push_str("\" title=\"");
                        escape_attr(&mut html, &title);
                    }
                    html.push_str("\" rel=\"noopener\">");
                    Event::Html(CowStr::from(html))
                }
                Target::Local => Event::Start(Tag::Link { link_type, dest_url: local_url(self.path, &dest_url), title, id }),
                Target::Unsafe => Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url: CowStr::Borrowed("#"), title, id }),
            },
            Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
                let dest_url = match classify(&dest_url) {
                    Target::External if !dest_url.trim_start().to_ascii_lowercase().starts_with("mailto:") => dest_url,
                    Target::Local => local_url(self.path, &dest_url),
                    _ => CowStr::Borrowed(""),
                };
                Event::Start(Tag::Image { link_type, dest_url, title, id })
            }
            other => other,
        }
    }
}

impl<'a, I: Iterator<Item = Event<'a>>> Iterator for Transform<'a, '_, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        if let Some(event) = self.queue.pop_front() {
            return Some(event);
        }
        let event = self.inner.next()?;
        // Most events (text, paragraphs, lists, code, emphasis) pass through untouched: a check
        // of the kind by reference keeps them from being moved through `rewrite`.
        if !matches!(
            event,
            Event::Start(Tag::Heading { .. } | Tag::DefinitionListTitle | Tag::HtmlBlock | Tag::Link { .. } | Tag::Image { .. })
                | Event::End(TagEnd::HtmlBlock)
                | Event::Html(_)
                | Event::InlineHtml(_)
        ) {
            return Some(event);
        }
        match event {
            Event::Start(Tag::Heading { level, id, classes, attrs: _ }) => {
                self.heading(Some(level), id, classes);
                self.queue.pop_front()
            }
            Event::Start(Tag::DefinitionListTitle) => {
                self.heading(None, None, Vec::new());
                self.queue.pop_front()
            }
            event => Some(self.rewrite(event)),
        }
    }
}

enum Target {
    /// `http:`, `https:` or `mailto:`.
    External,
    /// No scheme: a path in the book or an in-page anchor.
    Local,
    /// Any other scheme.
    Unsafe,
}

/// Classifies a link target the way a browser would read its scheme: ASCII whitespace and control
/// characters are ignored (browsers strip them, so `java\tscript:` is `javascript:`).
fn classify(url: &str) -> Target {
    // The scheme, lower-cased; only its first 7 bytes matter (`mailto` is the longest kept).
    let mut scheme = [0u8; 7];
    let mut len = 0;
    for &b in url.as_bytes() {
        if b.is_ascii_whitespace() || b.is_ascii_control() {
            continue;
        }
        match b {
            b':' => {
                return match &scheme[..len] {
                    b"http" | b"https" | b"mailto" => Target::External,
                    _ => Target::Unsafe,
                };
            }
            b'/' | b'?' | b'#' => return Target::Local,
            c if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') => {
                scheme[len.min(6)] = c.to_ascii_lowercase();
                len = (len + 1).min(7);
            }
            // A character no scheme can hold (any non-ASCII byte too): what came before is a
            // path, not a scheme.
            _ => return Target::Local,
        }
    }
    Target::Local
}

/// A local link resolved against the chapter's folder: `.md` targets become app routes, other
/// files keep their extension under `/book/`, `#x` stays an in-page anchor.
fn local_url<'a>(chapter_path: &str, dest: &str) -> CowStr<'a> {
    if dest.is_empty() || dest.starts_with('#') {
        return CowStr::from(dest.to_owned());
    }
    let (path, fragment) = match dest.find(['#', '?']) {
        Some(i) => dest.split_at(i),
        None => (dest, ""),
    };
    // `/book/` + the path resolved against the chapter's folder (as `guide::resolve` does),
    // built in place: each part is pushed as `/part`, and `..` cuts the last one off.
    let mut url = String::with_capacity(6 + chapter_path.len() + dest.len());
    url.push_str("/book");
    let root = url.len();
    let folder = chapter_path.rsplit_once('/').map(|(folder, _)| folder);
    for part in folder.into_iter().flat_map(|f| f.split('/')) {
        url.push('/');
        url.push_str(part);
    }
    for piece in path.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                if let Some(cut) = url[root..].rfind('/') {
                    url.truncate(root + cut);
                }
            }
            part => {
                url.push('/');
                url.push_str(part);
            }
        }
    }
    if url.len() == root {
        url.push('/');
    }
    // A chapter becomes its route (`route` drops `.md`); other files keep their extension.
    if url.ends_with(".md") {
        url.truncate(url.len() - 3);
    }
    url.push_str(fragment);
    CowStr::from(url)
}

/// pulldown-cmark's href escaping: percent-encodes what may not appear in an attribute or URL.
fn escape_href(out: &mut String, url: &str) {
    for byte in url.bytes() {
        match byte {
            b'&' => out.push_str("&amp;"),
            b'\'' => out.push_str("&#x27;"),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'!' | b'#' | b'$' | b'(' | b')' | b'*' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' | b'%' => {
                out.push(byte as char)
            }
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[(byte >> 4) as usize] as char);
                out.push(HEX[(byte & 15) as usize] as char);
            }
        }
    }
}

fn escape_attr(out: &mut String, text: &str) {
    // Copies the runs between special bytes whole (they are ASCII, so never split a character).
    let mut from = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[from..i]);
        out.push_str(entity);
        from = i + 1;
    }
    out.push_str(&text[from..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `local_url` builds in place what resolving with `guide::resolve` and then `route` gives.
    #[test]
    fn local_urls_match_resolve_then_route() {
        let chapters = ["ch.md", "part/ch.md", "a/b/ch.md", "/ch.md", "a//ch.md", "../ch.md"];
        let targets = [
            "other.md", "other.md#x", "./other.md?q#x", "../other.md", "../../../x.md", "sub/x.png", "a/../b.md", "..", ".", "x/", ".md", "a//b.md",
        ];
        for chapter in chapters {
            for target in targets {
                let (path, fragment) = target.find(['#', '?']).map_or((target, ""), |i| target.split_at(i));
                let resolved = crate::guide::resolve(&format!("src/{chapter}"), path);
                let mut want = if resolved.ends_with(".md") { route(&resolved) } else { format!("/book/{resolved}") };
                want.push_str(fragment);
                assert_eq!(local_url(chapter, target).as_ref(), want, "{chapter} -> {target}");
            }
        }
    }

    #[test]
    fn schemes_are_classified_without_case_or_hidden_characters() {
        let kind = |u: &str| match classify(u) {
            Target::External => "external",
            Target::Local => "local",
            Target::Unsafe => "unsafe",
        };
        for (url, want) in [
            ("https://x", "external"),
            ("HTTP://x", "external"),
            ("Mail\tto:a@b", "external"),
            ("mailtox:a", "unsafe"),
            ("httpsmailto:a", "unsafe"),
            ("java\nscript:alert(1)", "unsafe"),
            ("javascript:x", "unsafe"),
            ("x.md#a:b", "local"),
            ("#a", "local"),
            ("é:x", "local"),
            ("", "local"),
        ] {
            assert_eq!(kind(url), want, "{url:?}");
        }
    }

    #[test]
    fn fast_paths_agree_with_the_general_rules() {
        for text in ["Plain title", " padded ", "two  spaces", "tab\there", "line\nbreak", "Über  uns", "", "a"] {
            let slow: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(collapse(text), slow, "{text:?}");
        }
        for text in ["What the Cache Stores", "a_b-c d\te", "Über uns", "x\u{a0}y", "Q&A: 1+1?"] {
            let slow: String = text
                .chars()
                .flat_map(|c| {
                    if c.is_alphanumeric() || c == '_' || c == '-' {
                        c.to_lowercase().collect::<Vec<_>>()
                    } else if c.is_whitespace() {
                        vec!['-']
                    } else {
                        vec![]
                    }
                })
                .collect();
            assert_eq!(normalize_id(text), slow, "{text:?}");
        }
        let mut out = String::new();
        escape_attr(&mut out, "a&b<c>d\"e'f é");
        assert_eq!(out, "a&amp;b&lt;c&gt;d&quot;e&#39;f é");
    }
}
