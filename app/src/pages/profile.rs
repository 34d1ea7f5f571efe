//! `/profile`: onboarding, and PROFILE.md import and export.

use leptos::prelude::*;

#[component]
pub fn ProfilePage() -> impl IntoView {
    view! { <h1>"Your profile"</h1> }
}
