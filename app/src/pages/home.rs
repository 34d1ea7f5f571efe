//! `/`: the book's title and contents, where you are in the sessions (locate, with its reason,
//! one tap to start), where the reader left off in the book, and the way in.

use std::sync::Arc;

use leptos::prelude::*;

use bookside_core::engine::locate::{self, Why};

use crate::library::{Library, ParsedLog, WithLibrary, with_context};
use crate::platform::PrefsCtx;

#[component]
pub fn Home() -> impl IntoView {
    view! { <WithLibrary view=|library| view! { <HomeView library /> } /> }
}

#[component]
fn HomeView(library: Arc<Library>) -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let book = &library.book;
    let first = book.chapters.first().map(|c| bookside_core::render::route(&c.path));
    view! {
        <div class="home">
            <h1 id="book-title">{book.title.clone()}</h1>
            <p class="lede">"Read the book, run each one-hour session, keep your log — online or off."</p>
            <crate::pages::remediation::RemediationOffer />
            <WhereYouAre library=library.clone() />
            <div class="actions">
                {move || match prefs.last_location.get() {
                    Some(location) => view! { <a class="button primary" href=location>"Continue reading"</a> }.into_any(),
                    None => view! { <a class="button primary" href=first.clone().unwrap_or_else(|| "/book".into())>"Start reading"</a> }.into_any(),
                }}
                <a class="button" href="/guide">"Session Guide"</a>
                <a class="button" href="/log">"Your log"</a>
            </div>
            <nav aria-labelledby="toc-heading">
                <h2 id="toc-heading">"Contents"</h2>
                <crate::pages::reader::Toc library=library.clone() current=String::new() id="toc" />
            </nav>
        </div>
    }
}

/// Locate's answer: the session to take now and why, with one tap to start it.
#[component]
fn WhereYouAre(library: Arc<Library>) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let worker: crate::worker::WorkerCtx = expect_context();
    let lib = library.clone();
    let location = Memo::new(move |_| with_context(&lib, parsed, |cx| locate::locate(cx, None)));
    let title_of = move |id: &str| library.guide.card(id).map(|c| c.title.clone()).unwrap_or_default();
    let body = move || {
        let location = location.get();
        let Some(session) = location.session.clone() else {
            return view! { <p id="where-reason">"Every session of the guide is done. Well done."</p> }.into_any();
        };
        let title = title_of(&session);
        let reason = match (&location.detour, &location.why) {
            (Some(detour), _) => format!(
                "{} is next, but it needs {} first: start with this prerequisite.",
                detour.wanted,
                detour.missing.join(", ")
            ),
            (None, Why::ResumePartial { line }) => format!("Your log's last PARTIAL entry (line {line}) is still open: resume it at the Midpoint."),
            (None, Why::FirstNotDone) => "The first session in Guide order whose Done-when does not pass yet.".to_owned(),
            (None, Why::Named) => "The session you named.".to_owned(),
            (None, Why::AllDone) => String::new(),
        };
        let label = if location.resume_at_midpoint { "Resume" } else { "Start" };
        let href = format!("/session/{session}?start=now");
        let aria = format!("{label} session {session} — {title} now");
        view! {
            <p class="where-session"><strong id="where-session">{format!("{session} — {title}")}</strong></p>
            <p id="where-reason">{reason}</p>
            <div class="actions">
                <a class="button primary" id="where-start" href=href aria-label=aria>{format!("{label} {session}")}</a>
                <Show when=move || worker.connection.get().is_paired()>
                    <button type="button" class="button" id="refresh-status" disabled=move || worker.refreshing.get()
                        on:click=move |_| worker.refresh_status()>
                        {move || if worker.refreshing.get() { "Running every milestone test…" } else { "Refresh test status" }}
                    </button>
                </Show>
            </div>
        }
        .into_any()
    };
    view! {
        <section class="panel where" aria-labelledby="where-heading">
            <h2 id="where-heading">"Where you are"</h2>
            {body}
        </section>
    }
}
