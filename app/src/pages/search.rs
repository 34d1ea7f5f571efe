//! `/search`: offline search over the book's titles and text.

use leptos::prelude::*;

#[component]
pub fn SearchPage() -> impl IntoView {
    view! { <h1>"Search the book"</h1> }
}
