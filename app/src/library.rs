//! The book as the app holds it: `/book.json` fetched once, parsed by core into the book and
//! its Session Guide, shared through [`LibraryCtx`].

use std::sync::Arc;

use bookside_core::book::{self, Book};
use bookside_core::wire::BookBundle;
use leptos::prelude::*;

/// Everything read from the book bundle. Parsed once; pages borrow it.
#[derive(Debug)]
pub struct Library {
    pub bundle: BookBundle,
    pub book: Book,
}

#[derive(Clone, Copy)]
pub struct LibraryCtx(pub LocalResource<Result<Arc<Library>, String>>);

impl std::fmt::Debug for LibraryCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LibraryCtx")
    }
}

/// Fetches the book bundle the worker (or a static host, or the service worker's cache) serves
/// next to the app.
async fn fetch_bundle() -> Result<BookBundle, String> {
    let response = gloo_net::http::Request::get("/book.json")
        .send()
        .await
        .map_err(|e| format!("cannot reach the book ({e}); check the connection, or open the page once online so it is kept for offline use"))?;
    if !response.ok() {
        return Err(format!("the book could not be loaded (HTTP {}); reload the page", response.status()));
    }
    response.json::<BookBundle>().await.map_err(|e| format!("the book bundle is damaged ({e}); rebuild it with `cargo xtask dist`"))
}

fn parse(bundle: BookBundle) -> Library {
    let book = book::load(&bundle);
    Library { bundle, book }
}

pub fn provide() {
    let resource = LocalResource::new(|| async { fetch_bundle().await.map(|b| Arc::new(parse(b))) });
    provide_context(LibraryCtx(resource));
}

/// Renders `view` with the loaded library, a loading line meanwhile, and the error if the book
/// could not be loaded.
#[component]
pub fn WithLibrary<V, F>(view: F) -> impl IntoView
where
    F: Fn(Arc<Library>) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let LibraryCtx(resource) = expect_context();
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the book…"</p> }>
            {move || resource.get().map(|result| match result {
                Ok(library) => view(library).into_any(),
                Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            })}
        </Transition>
    }
}
