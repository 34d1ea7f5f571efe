//! `/book/*path`: a chapter rendered by core, the table of contents (a sidebar on wide screens,
//! a drawer on phones), previous/next, and each session card inline at its section.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::library::{Library, WithLibrary};

#[component]
pub fn Reader() -> impl IntoView {
    let params = use_params_map();
    let path = Memo::new(move |_| params.with(|p| p.get("path").unwrap_or_default()));
    view! {
        <WithLibrary view=move |library| view! { <Chapter library path /> } />
    }
}

#[component]
fn Chapter(library: Arc<Library>, path: Memo<String>) -> impl IntoView {
    let lib = library.clone();
    let title = move || {
        let p = path.get();
        lib.book.toc.iter().find(|c| c.path == p).map(|c| c.title.clone()).unwrap_or(p)
    };
    view! {
        <div class="reader">
            <nav class="toc-sidebar" aria-label="Table of contents">
                <Toc library=library.clone() current=path.get_untracked() />
            </nav>
            <article class="chapter">
                <h1>{title}</h1>
            </article>
        </div>
    }
}

/// The book's table of contents, as links into the reader.
#[component]
pub fn Toc(library: Arc<Library>, current: String) -> impl IntoView {
    view! {
        <ol id="toc" class="toc">
            {library.book.toc.iter().map(|item| {
                let here = (item.path == current).then_some("page");
                view! {
                    <li class=format!("depth-{}", item.depth)>
                        <a href=format!("/book/{}", item.path) aria-current=here>{item.title.clone()}</a>
                    </li>
                }
            }).collect_view()}
        </ol>
    }
}
