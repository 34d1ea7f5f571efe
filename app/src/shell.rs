//! The frame around every page: skip link, top bar (sections, search, theme), notices, and the
//! reminder to export when the browser may evict the log.

use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::files::LogCtx;
use crate::platform::PrefsCtx;

#[component]
pub fn Shell(children: Children) -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let location = use_location();
    let current = move |prefix: &'static str| {
        move || {
            let path = location.pathname.get();
            let here = if prefix == "/" { path == "/" } else { path == prefix || path.starts_with(&format!("{prefix}/")) };
            here.then_some("page")
        }
    };
    let toggle = move |_| {
        prefs.set_theme(prefs.theme.get_untracked().other());
    };
    view! {
        <a class="skip" href="#content">"Skip to content"</a>
        <header class="topbar">
            <a class="brand" href="/" aria-current=current("/")>"Bookside"</a>
            <nav aria-label="Sections">
                <a href="/book" aria-current=current("/book")>"Read"</a>
                <a href="/guide" aria-current=current("/guide")>"Guide"</a>
                <a href="/log" aria-current=current("/log")>"Log"</a>
                <a href="/profile" aria-current=current("/profile")>"Profile"</a>
            </nav>
            <div class="tools">
                <crate::worker::WorkerBadge />
                <a class="icon" href="/search" aria-label="Search the book" aria-current=current("/search")>
                    <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20"><circle cx="10" cy="10" r="6" fill="none" stroke="currentColor" stroke-width="2"/><path d="M15 15l5 5" stroke="currentColor" stroke-width="2"/></svg>
                </a>
                <button id="theme-toggle" class="icon" type="button" on:click=toggle
                    aria-label=move || prefs.theme.get().toggle_label()>
                    <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20"><path d="M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z" fill="currentColor"/></svg>
                </button>
            </div>
        </header>
        <crate::status::Notices />
        <ExportReminder />
        <main id="content" tabindex="-1">{children()}</main>
    }
}

/// Shown while the log is not protected from eviction and has not been exported for a week.
#[component]
fn ExportReminder() -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let LogCtx(log) = expect_context();
    let due = move || {
        let has_log = log.text.with(|t| !t.trim().is_empty());
        crate::storage::export_reminder_due(has_log, prefs.persisted.get(), prefs.last_export.get(), js_sys::Date::now())
    };
    view! {
        <Show when=due>
            <p class="reminder">
                {crate::storage::EXPORT_REMINDER.0}
                <a href="/log#keep">{crate::storage::EXPORT_REMINDER.1}</a>
            </p>
        </Show>
    }
}
