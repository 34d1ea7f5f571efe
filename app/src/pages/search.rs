//! `/search?q=…`: offline search over the book's titles and text (core's `search`).

use std::sync::Arc;

use bookside_core::search;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::library::{Library, WithLibrary};

#[component]
pub fn SearchPage() -> impl IntoView {
    view! {
        <div class="page">
            <h1>"Search the book"</h1>
            <WithLibrary view=|library| view! { <SearchView library /> } />
        </div>
    }
}

#[component]
fn SearchView(library: Arc<Library>) -> impl IntoView {
    let query = use_query_map();
    let navigate = use_navigate();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let draft = RwSignal::new(q.get_untracked());
    // Built once per visit to the page: the book is small and this keeps it out of start-up.
    let index = Arc::new(search::index(&library.book));
    let hits = Memo::new(move |_| search::search(&index, &q.get(), 30));
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let text = draft.get_untracked();
        let encoded = js_sys::encode_uri_component(&text);
        navigate(&format!("/search?q={encoded}"), Default::default());
    };
    view! {
        <form class="search-form" role="search" on:submit=submit>
            <label class="visually-hidden" for="search-input">"Words to find"</label>
            <input id="search-input" type="search" name="q" autofocus prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev)) />
            <button class="button primary" type="submit">"Search"</button>
        </form>
        <p class="muted" role="status">
            {move || {
                let n = hits.with(Vec::len);
                if q.with(|q| q.trim().is_empty()) { String::new() } else if n == 0 { format!("Nothing in the book matches “{}”.", q.get()) } else { format!("{n} sections match “{}”.", q.get()) }
            }}
        </p>
        <ol class="hits" id="search-hits">
            {move || hits.get().into_iter().map(|hit| {
                let title = match &hit.heading {
                    Some(h) if *h != hit.chapter => format!("{} › {h}", hit.chapter),
                    _ => hit.chapter.clone(),
                };
                view! { <li><a href=hit.href>{title}</a><p>{hit.snippet}</p></li> }
            }).collect_view()}
        </ol>
    }
}
