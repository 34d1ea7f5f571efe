//! Bookside's site: a client-side Leptos app over the same core as the CLI.

use bookside_core::book::{self, Book};
use bookside_core::wire::BookBundle;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Fetches the book bundle the worker (or a static host) serves next to the app.
async fn fetch_bundle() -> Result<BookBundle, String> {
    let response = gloo_net::http::Request::get("/book.json").send().await.map_err(|e| format!("cannot reach the book: {e}"))?;
    if !response.ok() {
        return Err(format!("the book could not be loaded (HTTP {})", response.status()));
    }
    response.json::<BookBundle>().await.map_err(|e| format!("the book bundle is damaged: {e}"))
}

#[component]
fn App() -> impl IntoView {
    let book = LocalResource::new(|| async { fetch_bundle().await.map(|b| book::load(&b)) });
    view! {
        <Router>
            <main>
                <Transition fallback=|| view! { <p>"Loading the book…"</p> }>
                    {move || book.get().map(|result| match result {
                        Ok(book) => view! { <Home book /> }.into_any(),
                        Err(message) => view! { <p role="alert">{message}</p> }.into_any(),
                    })}
                </Transition>
                <Routes fallback=|| "Page not found.">
                    <Route path=path!("/") view=|| () />
                </Routes>
            </main>
        </Router>
    }
}

#[component]
fn Home(book: Book) -> impl IntoView {
    view! {
        <h1 id="book-title">{book.title}</h1>
        <nav aria-label="Table of contents">
            <ol id="toc">
                {book.toc.into_iter().map(|item| view! { <li>{item.title}</li> }).collect_view()}
            </ol>
        </nav>
    }
}
