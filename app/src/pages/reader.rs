//! `/book/*path`: a chapter rendered by core, the table of contents (a sidebar on wide screens,
//! a drawer on phones), previous/next, search, and each session card inline at its section.

use std::sync::Arc;

use bookside_core::guide::{Card, CardKind};
use bookside_core::reading;
use bookside_core::render;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_params_map};
use wasm_bindgen::JsCast;

use crate::library::{Library, ParsedLog, WithLibrary, with_context};
use crate::platform::PrefsCtx;

#[component]
pub fn Reader() -> impl IntoView {
    let params = use_params_map();
    let route = Memo::new(move |_| params.with(|p| p.get("path").map(|p| format!("/book/{}", p.trim_end_matches('/'))).unwrap_or_default()));
    view! {
        <WithLibrary view=move |library| {
            let library = library.clone();
            move || view! { <Chapter library=library.clone() route=route.get() /> }
        } />
    }
}

#[component]
fn Chapter(library: Arc<Library>, route: String) -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let location = use_location();
    let book = &library.book;
    // `/book` alone opens the first chapter.
    let index = if route.is_empty() || route == "/book" {
        (!book.chapters.is_empty()).then_some(0)
    } else {
        book.chapters.iter().position(|c| render::route(&c.path) == route)
    };
    let Some(index) = index else {
        return view! {
            <div class="page">
                <h1>"Chapter not found"</h1>
                <p>"The book has no chapter at " <code>{route}</code> ". " <a href="/book">"Open the first chapter"</a></p>
            </div>
        }
        .into_any();
    };
    let chapter = &book.chapters[index];
    let here = render::route(&chapter.path);
    let rendered = render::chapter(&chapter.path, &chapter.source);
    let placements = reading::placements(&library.guide, &chapter.path);
    let sections = reading::sections(&rendered.html);
    // A card whose anchor is missing from the chapter still shows, at the top.
    let known: Vec<&str> = sections.iter().filter_map(|s| s.id.as_deref()).collect();
    let cards_at = |id: Option<&str>, first: bool| -> Vec<Card> {
        placements
            .iter()
            .filter(|p| match (&p.anchor, id) {
                (Some(a), Some(id)) => a == id,
                (Some(a), None) => first && !known.contains(&a.as_str()),
                (None, _) => first,
            })
            .filter_map(|p| library.guide.card(&p.card).cloned())
            .collect()
    };
    let body = sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            let cards = cards_at(section.id.as_deref(), i == 0);
            view! {
                <div class="section-heading" inner_html=section.heading.clone()></div>
                {cards.into_iter().map(|card| view! { <SessionCard card library=library.clone() /> }).collect_view()}
                <div class="section-body" inner_html=section.body.clone()></div>
            }
        })
        .collect_view();
    let prev = index.checked_sub(1).and_then(|i| book.chapters.get(i)).map(|c| (render::route(&c.path), c.title.clone()));
    let next = book.chapters.get(index + 1).map(|c| (render::route(&c.path), c.title.clone()));

    // Remember where the reader is (chapter and section) and show the section the address names.
    let remembered = here.clone();
    Effect::new(move |_| {
        let hash = location.hash.get();
        prefs.remember_location(format!("{remembered}{hash}"));
        scroll_to(&hash);
    });

    let title = chapter.title.clone();
    view! {
        <div class="reader">
            <nav class="toc-sidebar" aria-label="Table of contents">
                <Toc library=library.clone() current=chapter.path.clone() id="" />
            </nav>
            <div class="chapter-column">
                <details class="toc-drawer">
                    <summary>"Contents"</summary>
                    <nav aria-label="Table of contents">
                        <Toc library=library.clone() current=chapter.path.clone() id="" />
                    </nav>
                </details>
                <form class="search-form" action="/search" method="get" role="search">
                    <label class="visually-hidden" for="reader-search">"Search the book"</label>
                    <input id="reader-search" type="search" name="q" placeholder="Search the book" />
                    <button class="button" type="submit">"Search"</button>
                </form>
                <article class="chapter" aria-label=title>
                    {body}
                </article>
                <nav class="pager" aria-label="Previous and next chapter">
                    {prev.map(|(href, title)| view! { <a class="button" href=href rel="prev">"← " {title}</a> })}
                    <span></span>
                    {next.map(|(href, title)| view! { <a class="button" href=href rel="next">{title} " →"</a> })}
                </nav>
            </div>
        </div>
    }
    .into_any()
}

/// Scrolls to the element a `#hash` names once the chapter is in the page.
fn scroll_to(hash: &str) {
    let id = hash.trim_start_matches('#').to_owned();
    if id.is_empty() {
        return;
    }
    let id = js_sys::decode_uri_component(&id).ok().and_then(|s| s.as_string()).unwrap_or(id);
    let callback = wasm_bindgen::closure::Closure::once_into_js(move || {
        if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&id)) {
            el.scroll_into_view();
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(callback.unchecked_ref());
    }
}

/// A session card: id, title, status, goal, what it needs, and the Start button.
#[component]
pub fn SessionCard(card: Card, library: Arc<Library>, #[prop(optional)] current: Option<Signal<bool>>) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let id = card.id.clone();
    let lib = library.clone();
    let status = Memo::new(move |_| with_context(&lib, parsed, |cx| reading::card_status(cx, &id)));
    let is_current = move || current.is_some_and(|c| c.get());
    let heading_id = format!("card-{}", card.id.replace('.', "-"));
    let needs = if card.needs.is_empty() { "none".to_owned() } else { card.needs.join(", ") };
    let ends = match (card.kind(), &card.done_when, card.quiz.is_empty()) {
        (CardKind::Milestone, Some(done), _) => Some(view! { <span>"Done-when: " <code>{done.command.clone()}</code></span> }.into_any()),
        (_, _, false) => Some(view! { <span>{format!("Quiz: {}", card.quiz.join(", "))}</span> }.into_any()),
        _ => None,
    };
    let start_label = format!("Start session {} — {}", card.id, card.title);
    let labelled_by = heading_id.clone();
    view! {
        <section class="card" class:current=is_current data-card=card.id.clone() aria-labelledby=labelled_by>
            <h3 id=heading_id>{format!("{} — {}", card.id, card.title)}</h3>
            <p class="meta">
                <span class=move || format!("badge status-{}", status.get().class())>{move || status.get().label()}</span>
                {move || is_current().then_some(" · where you are")}
                {format!(" · Phase {} · Needs: {needs}", card.phase)}
            </p>
            <p class="goal">{card.goal.clone()}</p>
            <p class="meta">{ends}</p>
            <div class="actions">
                <a class="button primary" href=format!("/session/{}", card.id) aria-label=start_label>
                    {move || status.get().start_label()}
                </a>
            </div>
        </section>
    }
}

/// The book's table of contents, as links into the reader. `id` is set on the home page only
/// (the reader shows two copies: sidebar and drawer).
#[component]
pub fn Toc(library: Arc<Library>, current: String, id: &'static str) -> impl IntoView {
    use bookside_core::book::TocKind;
    view! {
        <ol id=(!id.is_empty()).then_some(id) class="toc">
            {library.book.toc.iter().filter(|item| item.kind != TocKind::Separator).map(|item| {
                let depth = format!("depth-{}", item.depth);
                match (&item.path, item.kind) {
                    (Some(path), _) => {
                        let here = (*path == current).then_some("page");
                        let number = item.number.clone().map(|n| format!("{n} ")).unwrap_or_default();
                        view! {
                            <li class=depth>
                                <a href=render::route(path) aria-current=here>{number}{item.title.clone()}</a>
                            </li>
                        }.into_any()
                    }
                    (None, TocKind::Part) => view! { <li class="part"><strong>{item.title.clone()}</strong></li> }.into_any(),
                    (None, _) => view! { <li class=depth><span class="muted">{item.title.clone()} " (not written yet)"</span></li> }.into_any(),
                }
            }).collect_view()}
        </ol>
    }
}
