//! The chapter page's own entry point (`bookside-chapter`): a small wasm with core and web-sys,
//! no Leptos.
//!
//! A chapter address is answered with the chapter already rendered by core, natively
//! (`worker/src/prerender.rs`, the same markup as the app's reader). Reading it needs no code at
//! all: links, the contents drawer (`<details>`), previous/next and search (a form to `/search`)
//! are plain HTML. What only the browser knows is filled in here, from the same core functions
//! and the same IndexedDB the app uses:
//! - each session card's status (the log, the profile's Phase 0 answer, the verified runs the
//!   app last heard from the worker) and its Start/Resume button;
//! - the theme toggle; where the reader is (for the home page's "Continue reading");
//! - the reminder to export (at the end of the chapter), and any storage failure, in the page's
//!   notices.
//!
//! Every other route loads the full app (`main.rs`), which the service worker has precached
//! since the first visit; a chapter reached inside the app is drawn by the app itself. Keeping
//! Leptos out of this page is what keeps the first page of the book small (docs/BENCHMARKS.md).
//!
//! When it has drawn what it knows, `<html>` gets `data-chapter-ready` (the browser tests wait
//! for it).

#[path = "../bundle.rs"]
mod bundle;
// The app uses the rest of it (writes, snapshots, persistence).
#[allow(dead_code)]
#[path = "../storage.rs"]
mod storage;
#[path = "../theme.rs"]
mod theme;

/// What `storage` reports outside any call (an upgrade blocked by another tab): shown in the
/// page's notices, as the app's `status` module does.
mod status {
    pub fn report_error(text: &str) {
        super::notice(text);
    }
}

use std::cell::RefCell;
use std::rc::Rc;

use bookside_core::engine::locate;
use bookside_core::guide::Guide;
use bookside_core::wire::RunRecord;
use bookside_core::{book, profile, progress, reading};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Document, Element};

fn main() {
    console_error_panic_hook::set_once();
    let Some(document) = document() else { return };
    theme_toggle(&document);
    on_window("hashchange", || spawn_local(remember_location()));
    spawn_local(async {
        remember_location().await;
        show_what_the_browser_knows().await;
        if let Some(root) = self::document().and_then(|d| d.document_element()) {
            let _ = root.set_attribute("data-chapter-ready", "");
        }
    });
    // Another tab saved the log or the profile: the statuses follow.
    if let Ok(channel) = web_sys::BroadcastChannel::new(storage::FILES_CHANNEL) {
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |_| spawn_local(show_what_the_browser_knows()));
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // Both live as long as the page.
        on_message.forget();
        std::mem::forget(channel);
    }
}

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

fn on_window(event: &str, f: impl Fn() + 'static) {
    let callback = Closure::<dyn Fn()>::new(f);
    if let Some(window) = web_sys::window() {
        let _ = window.add_event_listener_with_callback(event, callback.as_ref().unchecked_ref());
    }
    callback.forget();
}

fn theme_toggle(document: &Document) {
    let Some(button) = document.get_element_by_id("theme-toggle") else { return };
    let _ = button.set_attribute("aria-label", theme::current().toggle_label());
    let target = button.clone();
    let on_click = Closure::<dyn Fn()>::new(move || {
        let next = theme::current().other();
        theme::apply(next);
        let _ = target.set_attribute("aria-label", next.toggle_label());
    });
    let _ = button.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
    on_click.forget();
}

/// Keeps the chapter (as the contents name it: `/book` is the first chapter's page) and the
/// section in the address, as the app's reader does.
async fn remember_location() {
    let Some(document) = document() else { return };
    let location = document.location();
    let chapter = document
        .query_selector(".toc-sidebar a[aria-current=page]")
        .ok()
        .flatten()
        .and_then(|a| a.get_attribute("href"))
        .or_else(|| location.as_ref().and_then(|l| l.pathname().ok()))
        .unwrap_or_default();
    let hash = location.and_then(|l| l.hash().ok()).unwrap_or_default();
    if let Err(err) = storage::save_pref(storage::pref::LAST_LOCATION, &format!("{chapter}{hash}")).await {
        notice(&err.0);
    }
}

thread_local! {
    /// The Session Guide, read once per page from `/book.json`.
    static GUIDE: RefCell<Option<Rc<Guide>>> = const { RefCell::new(None) };
}

async fn guide() -> Result<Rc<Guide>, String> {
    if let Some(guide) = GUIDE.with(|g| g.borrow().clone()) {
        return Ok(guide);
    }
    let bundle = bundle::fetch().await?;
    let guide = Rc::new(bundle::guide(&book::load(&bundle)));
    GUIDE.with(|g| *g.borrow_mut() = Some(Rc::clone(&guide)));
    Ok(guide)
}

/// The cards' statuses and the export reminder, from the reader's files in this browser.
async fn show_what_the_browser_knows() {
    let Some(document) = document() else { return };
    let log = match storage::load_file(progress::FILE).await {
        Ok(text) => text.unwrap_or_default(),
        Err(err) => return notice(&err.0),
    };
    if let Ok(cards) = document.query_selector_all("section.card[data-card]")
        && cards.length() > 0
    {
        match guide().await {
            Ok(guide) => show_statuses(&cards, &guide, &log).await,
            Err(message) => notice(&message),
        }
    }
    let last_export = storage::load_pref(storage::pref::LAST_EXPORT).await.ok().flatten().and_then(|v| v.parse().ok());
    let due = storage::export_reminder_due(!log.trim().is_empty(), storage::is_persisted().await, last_export, js_sys::Date::now());
    show_reminder(&document, due);
}

async fn show_statuses(cards: &web_sys::NodeList, guide: &Guide, log_text: &str) {
    let profile = storage::load_file(profile::FILE).await.ok().flatten().unwrap_or_default();
    let phase0_skipped = profile::parse(&profile).0.profile.phase0_skipped;
    let verified: Vec<RunRecord> = match storage::load_pref(storage::pref::VERIFIED_RUNS).await {
        Ok(Some(json)) => serde_json::from_str(&json).unwrap_or_default(),
        _ => Vec::new(),
    };
    let (log, _) = progress::parse(log_text);
    let runs = locate::known_runs(&log, &verified);
    let cx = locate::Context { guide, log: &log, runs: &runs, phase0_skipped };
    for card in (0..cards.length()).filter_map(|i| cards.item(i)).filter_map(|n| n.dyn_into::<Element>().ok()) {
        let Some(id) = card.get_attribute("data-card") else { continue };
        let status = reading::card_status(&cx, &id);
        if let Ok(Some(badge)) = card.query_selector(".badge") {
            badge.set_class_name(&format!("badge status-{}", status.class()));
            badge.set_text_content(Some(status.label()));
        }
        if let Ok(Some(start)) = card.query_selector(".actions a.primary") {
            start.set_text_content(Some(status.start_label()));
        }
    }
}

fn show_reminder(document: &Document, due: bool) {
    let existing = document.query_selector("p.reminder").ok().flatten();
    match (existing, due) {
        (Some(p), false) => p.remove(),
        (None, true) => {
            // At the end of the chapter, not atop it: text the reader is already reading must not
            // move when the log has been read.
            let Some(pager) = document.query_selector("nav.pager").ok().flatten() else { return };
            let Ok(p) = document.create_element("p") else { return };
            p.set_class_name("reminder");
            p.set_text_content(Some(storage::EXPORT_REMINDER.0));
            if let Ok(link) = document.create_element("a") {
                let _ = link.set_attribute("href", "/log#keep");
                link.set_text_content(Some(storage::EXPORT_REMINDER.1));
                let _ = p.append_child(&link);
            }
            let _ = pager.after_with_node_1(&p);
        }
        _ => {}
    }
}

/// An error for the reader, in the page's live region, until they dismiss it (as the app's
/// notices do).
fn notice(text: &str) {
    web_sys::console::error_1(&text.into());
    let Some(document) = document() else { return };
    let Some(notices) = document.query_selector(".notices").ok().flatten() else { return };
    // The same message twice in a row says nothing new.
    if notices.last_element_child().and_then(|last| last.text_content()).is_some_and(|t| t.starts_with(text)) {
        return;
    }
    let (Ok(item), Ok(span), Ok(dismiss)) = (document.create_element("div"), document.create_element("span"), document.create_element("button")) else { return };
    item.set_class_name("notice error");
    let _ = item.set_attribute("role", "alert");
    span.set_text_content(Some(text));
    dismiss.set_class_name("dismiss");
    let _ = dismiss.set_attribute("aria-label", "Dismiss this message");
    dismiss.set_text_content(Some("×"));
    let gone = item.clone();
    let on_click = Closure::once_into_js(move || gone.remove());
    let _ = dismiss.add_event_listener_with_callback("click", on_click.unchecked_ref());
    let _ = item.append_child(&span);
    let _ = item.append_child(&dismiss);
    let _ = notices.append_child(&item);
}
