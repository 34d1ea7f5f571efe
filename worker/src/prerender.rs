//! Chapter pages rendered natively: the built site's `chapter.html` with the chapter already in
//! it. A reader sees the text as soon as the HTML and CSS arrive, and reading needs no script.
//!
//! The markup is the app's own for the same route (`app/src/shell.rs` and
//! `app/src/pages/reader.rs`: the top bar, the table of contents twice, the chapter cut into
//! sections by `core::reading` with the session cards in place, previous/next), from the same
//! core functions, inside `<div id="prerender">`. What the server cannot know stays neutral: a
//! card's status comes from the reader's log in the browser, so its badge is filled in there by
//! the page's small entry point (`app/src/bin/chapter.rs`), which also runs the theme toggle.
//! In a site built without `chapter.html`, the template is index.html: the whole app starts, draws
//! the same page from the book and removes the copy in the frame its own appears
//! (`app::library::WithLibrary`). `tests/browser/reader.test.mjs` checks that a chapter page and
//! the app's page for it say the same.

use std::collections::BTreeMap;

use bookside_core::book::{Book, TocKind};
use bookside_core::guide::{Card, CardKind, Guide};
use bookside_core::{reading, render};

/// The id of the element that holds a pre-rendered page.
pub const ID: &str = "prerender";

/// The page chapters are put into: the built site's `chapter.html` (the chapter page's own small
/// entry point, `app/src/bin/chapter.rs`), or its `index_html` (the whole app, which takes the
/// page over) in a site built without it.
pub fn template(site: &std::path::Path, index_html: &str) -> String {
    std::fs::read_to_string(site.join("chapter.html")).unwrap_or_else(|_| index_html.to_owned())
}

/// Every chapter's page keyed by its app route (`/book/kv-cache`; `/book` is the first
/// chapter, as in the app). `index_html` is the built site's index.html.
pub fn pages(index_html: &str, book: &Book, guide: Option<&Guide>) -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    for (i, chapter) in book.chapters.iter().enumerate() {
        let page = inject(index_html, &chapter_markup(book, guide, i));
        if i == 0 {
            pages.insert("/book".to_owned(), page.clone());
        }
        pages.insert(render::route(&chapter.path), page);
    }
    pages
}

/// `index_html` with `body` placed first inside `<body>`, wrapped in the pre-render element.
fn inject(index_html: &str, body: &str) -> String {
    // After the head, so a comment in it that names the body cannot be taken for it.
    let head_end = index_html.find("</head>").unwrap_or(0);
    let at = index_html[head_end..].find("<body").map(|start| head_end + start).and_then(|start| index_html[start..].find('>').map(|end| start + end + 1)).unwrap_or(index_html.len());
    format!("{}<div id=\"{ID}\">{body}</div>{}", &index_html[..at], &index_html[at..])
}

/// Text for HTML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page of chapter `index`: the shell's frame around the reader.
fn chapter_markup(book: &Book, guide: Option<&Guide>, index: usize) -> String {
    let chapter = &book.chapters[index];
    let rendered = render::chapter(&chapter.path, &chapter.source);
    let sections = reading::sections(&rendered.html);
    let placements = guide.map(|g| reading::placements(g, &chapter.path)).unwrap_or_default();
    let known: Vec<&str> = sections.iter().filter_map(|s| s.id.as_deref()).collect();
    let mut article = String::new();
    for (i, section) in sections.iter().enumerate() {
        article.push_str(&format!("<div class=\"section-heading\">{}</div>", section.heading));
        // As the reader does: a card whose anchor is missing from the chapter shows at the top.
        let cards = placements.iter().filter(|p| match (&p.anchor, section.id.as_deref()) {
            (Some(a), Some(id)) => a == id,
            (Some(a), None) => i == 0 && !known.contains(&a.as_str()),
            (None, _) => i == 0,
        });
        for card in cards.filter_map(|p| guide.and_then(|g| g.card(&p.card))) {
            article.push_str(&card_markup(card));
        }
        article.push_str(&format!("<div class=\"section-body\">{}</div>", section.body));
    }
    let link = |i: usize, rel: &str| {
        book.chapters.get(i).map(|c| {
            let title = esc(&c.title);
            let text = if rel == "prev" { format!("← {title}") } else { format!("{title} →") };
            format!("<a class=\"button\" href=\"{}\" rel=\"{rel}\">{text}</a>", esc(&render::route(&c.path)))
        })
    };
    let prev = index.checked_sub(1).and_then(|i| link(i, "prev")).unwrap_or_default();
    let next = link(index + 1, "next").unwrap_or_default();
    let toc = toc_markup(book, &chapter.path);
    format!(
        "<a class=\"skip\" href=\"#content\">Skip to content</a>\
         <header class=\"topbar\"><a class=\"brand\" href=\"/\">Bookside</a>\
         <nav aria-label=\"Sections\"><a href=\"/book\" aria-current=\"page\">Read</a><a href=\"/guide\">Guide</a><a href=\"/log\">Log</a><a href=\"/profile\">Profile</a></nav>\
         <div class=\"tools\"><a class=\"icon\" href=\"/search\" aria-label=\"Search the book\">{SEARCH_ICON}</a>\
         <button id=\"theme-toggle\" class=\"icon\" type=\"button\" aria-label=\"Switch the theme\">{THEME_ICON}</button></div></header>\
         <div class=\"notices\" role=\"status\" aria-live=\"polite\"></div>\
         <main id=\"content\" tabindex=\"-1\"><div class=\"reader\">\
         <nav class=\"toc-sidebar\" aria-label=\"Table of contents\">{toc}</nav>\
         <div class=\"chapter-column\">\
         <details class=\"toc-drawer\"><summary>Contents</summary><nav aria-label=\"Table of contents\">{toc}</nav></details>\
         <form class=\"search-form\" action=\"/search\" method=\"get\" role=\"search\">\
         <label class=\"visually-hidden\" for=\"reader-search\">Search the book</label>\
         <input id=\"reader-search\" type=\"search\" name=\"q\" placeholder=\"Search the book\">\
         <button class=\"button\" type=\"submit\">Search</button></form>\
         <article class=\"chapter\" aria-label=\"{title}\">{article}</article>\
         <nav class=\"pager\" aria-label=\"Previous and next chapter\">{prev}<span></span>{next}</nav>\
         </div></div></main>",
        title = esc(&chapter.title),
    )
}

const SEARCH_ICON: &str = "<svg aria-hidden=\"true\" viewBox=\"0 0 24 24\" width=\"20\" height=\"20\"><circle cx=\"10\" cy=\"10\" r=\"6\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\"/><path d=\"M15 15l5 5\" stroke=\"currentColor\" stroke-width=\"2\"/></svg>";
const THEME_ICON: &str = "<svg aria-hidden=\"true\" viewBox=\"0 0 24 24\" width=\"20\" height=\"20\"><path d=\"M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z\" fill=\"currentColor\"/></svg>";

fn toc_markup(book: &Book, current: &str) -> String {
    let mut out = String::from("<ol class=\"toc\">");
    for item in book.toc.iter().filter(|item| item.kind != TocKind::Separator) {
        let depth = item.depth;
        match (&item.path, item.kind) {
            (Some(path), _) => {
                let here = if path == current { " aria-current=\"page\"" } else { "" };
                let number = item.number.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
                out.push_str(&format!(
                    "<li class=\"depth-{depth}\"><a href=\"{}\"{here}>{}{}</a></li>",
                    esc(&render::route(path)),
                    esc(&number),
                    esc(&item.title)
                ));
            }
            (None, TocKind::Part) => out.push_str(&format!("<li class=\"part\"><strong>{}</strong></li>", esc(&item.title))),
            (None, _) => out.push_str(&format!("<li class=\"depth-{depth}\"><span class=\"muted\">{} (not written yet)</span></li>", esc(&item.title))),
        }
    }
    out.push_str("</ol>");
    out
}

/// A session card as `reader::SessionCard` draws it, its status left to the app.
fn card_markup(card: &Card) -> String {
    let heading_id = format!("card-{}", card.id.replace('.', "-"));
    let needs = if card.needs.is_empty() { "none".to_owned() } else { card.needs.join(", ") };
    let ends = match (card.kind(), &card.done_when, card.quiz.is_empty()) {
        (CardKind::Milestone, Some(done), _) => format!("<span>Done-when: <code>{}</code></span>", esc(&done.command)),
        (_, _, false) => format!("<span>{}</span>", esc(&format!("Quiz: {}", card.quiz.join(", ")))),
        _ => String::new(),
    };
    let id = esc(&card.id);
    let label = esc(&format!("{} — {}", card.id, card.title));
    format!(
        "<section class=\"card\" data-card=\"{id}\" aria-labelledby=\"{heading_id}\"><h3 id=\"{heading_id}\">{label}</h3>\
         <p class=\"meta\"><span class=\"badge\">…</span>{}</p><p class=\"goal\">{}</p><p class=\"meta\">{ends}</p>\
         <div class=\"actions\"><a class=\"button primary\" href=\"/session/{id}\" aria-label=\"Start session {label}\">Start</a></div></section>",
        esc(&format!(" · Phase {} · Needs: {needs}", card.phase)),
        esc(&card.goal),
        heading_id = esc(&heading_id),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Book, Option<Guide>) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
        let bundle = crate::bundle::load(&root).unwrap();
        let book = bookside_core::book::load(&bundle);
        let (guide, _) = bookside_core::guide::load(&book, None);
        (book, guide)
    }

    #[test]
    fn every_chapter_gets_its_page_with_the_chapter_text_inside_the_body() {
        // A comment in the head that names the body is not the body.
        let index = "<!DOCTYPE html><html><head><title>B</title><!-- goes in <body> --></head><body>\n</body></html>";
        let (book, guide) = sample();
        let pages = pages(index, &book, guide.as_ref());
        assert_eq!(pages.len(), book.chapters.len() + 1, "one page per chapter, plus /book");
        let page = &pages["/book/kv-cache"];
        let body = page.split_once("</head><body>").unwrap().1;
        assert!(body.starts_with("<div id=\"prerender\">"), "{body:.80}");
        assert!(page.ends_with("</div>\n</body></html>"));
        let chapter = book.chapters.iter().find(|c| c.path == "kv-cache.md").unwrap();
        let rendered = render::chapter(&chapter.path, &chapter.source);
        // The chapter's HTML, cut into sections with cards between them, is all there.
        for section in reading::sections(&rendered.html) {
            assert!(body.contains(&section.heading) && body.contains(&section.body));
        }
        assert!(body.contains("<a href=\"/book/kv-cache\" aria-current=\"page\">"));
        assert_eq!(pages["/book"], pages[&render::route(&book.chapters[0].path)]);
    }

    #[test]
    fn cards_sit_at_their_section_and_text_is_escaped() {
        let (book, guide) = sample();
        let guide = guide.unwrap();
        let placed = book.chapters.iter().position(|c| !reading::placements(&guide, &c.path).is_empty()).unwrap();
        let html = chapter_markup(&book, Some(&guide), placed);
        for p in reading::placements(&guide, &book.chapters[placed].path) {
            assert!(html.contains(&format!("data-card=\"{}\"", p.card)), "card {} is missing", p.card);
        }
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
