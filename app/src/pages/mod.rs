//! One module per route.

pub mod guide;
pub mod home;
pub mod log;
pub mod profile;
pub mod quiz;
pub mod reader;
pub mod remediation;
pub mod review;
pub mod search;
pub mod session;

use leptos::prelude::*;

/// What `/session/:id` and `/quiz/:id` show for an id the Session Guide does not have.
#[component]
pub fn UnknownCard(id: String) -> impl IntoView {
    view! {
        <h1>"Unknown session"</h1>
        <p>"The Session Guide has no card " <code>{id}</code> ". " <a href="/guide">"Pick one in the guide"</a></p>
    }
}

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <h1>"Page not found"</h1>
        <p>"This address is not part of Bookside. " <a href="/">"Go to the start page"</a></p>
    }
}
