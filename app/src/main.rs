//! Bookside's site: a client-side Leptos app over the same core as the CLI.
//!
//! Routes: `/` (home), `/book/*path` (the reader), `/guide`, `/log`, `/profile`, and the routes
//! the session work fills in (`/session/:id`, `/quiz/:id`, `/review`). Components stay thin:
//! everything a test would want to check is computed by `bookside_core`.

mod library;
mod files;
mod pages;
mod platform;
mod shell;
mod status;
mod storage;
mod worker;
mod study;
mod theme;
mod bundle;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

fn main() {
    console_error_panic_hook::set_once();
    // Before the router reads the address: the pairing token must not stay in it.
    worker::take_token_from_address();
    mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    library::provide();
    let (log, profile) = files::provide();
    library::provide_parsed_log(log, profile);
    platform::provide_prefs();
    worker::provide();
    view! {
        <Router>
            <shell::Shell>
                <Routes fallback=|| view! { <pages::NotFound /> }>
                    <Route path=path!("/") view=pages::home::Home />
                    <Route path=path!("/book") view=pages::reader::Reader />
                    <Route path=path!("/book/*path") view=pages::reader::Reader />
                    <Route path=path!("/guide") view=pages::guide::GuidePage />
                    <Route path=path!("/log") view=pages::log::LogPage />
                    <Route path=path!("/profile") view=pages::profile::ProfilePage />
                    <Route path=path!("/session/:id") view=pages::session::SessionPage />
                    <Route path=path!("/quiz/:id") view=pages::quiz::QuizPage />
                    <Route path=path!("/review") view=pages::review::ReviewPage />
                    <Route path=path!("/search") view=pages::search::SearchPage />
                </Routes>
            </shell::Shell>
        </Router>
    }
}
