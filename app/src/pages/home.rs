//! `/`: the book's title and contents, where the reader left off, and the way in.

use std::sync::Arc;

use leptos::prelude::*;

use crate::library::{Library, WithLibrary};
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
