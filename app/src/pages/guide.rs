//! `/guide`: every session card in Guide order, its status, and the progress picture.

use leptos::prelude::*;

#[component]
pub fn GuidePage() -> impl IntoView {
    view! { <h1>"Session Guide"</h1> }
}
