//! `/session/:id`, `/quiz/:id`, `/review`: the routes the session work fills in.

use leptos::prelude::*;

#[component]
pub fn SessionPage() -> impl IntoView {
    view! { <h1>"Session"</h1> }
}

#[component]
pub fn QuizPage() -> impl IntoView {
    view! { <h1>"Quiz"</h1> }
}

#[component]
pub fn ReviewPage() -> impl IntoView {
    view! { <h1>"Review"</h1> }
}
