//! The remediation offer: when one theme keeps coming back in the log's Sticking points, core's
//! `engine::remediation` proposes a session to take before continuing. Shown on the home page
//! and at the top of a session, before it starts; nothing when the log calls for none.

use bookside_core::engine::remediation::{self, Source};
use leptos::prelude::*;

use crate::library::{LibraryCtx, ParsedLog};

#[component]
pub fn RemediationOffer() -> impl IntoView {
    let LibraryCtx(library) = expect_context();
    let parsed: ParsedLog = expect_context();
    let offer = Memo::new(move |_| {
        let library = library.get().and_then(Result::ok)?;
        parsed.log.with(|log| remediation::remediation(&library.guide, log))
    });
    move || {
        offer.get().map(|offer| {
            let title = library
                .get()
                .and_then(Result::ok)
                .and_then(|l| l.guide.card(&offer.session).map(|c| format!("{} — {}", c.id, c.title)))
                .unwrap_or_else(|| offer.session.clone());
            let why = match offer.source {
                Source::Named => "the Session Guide names this session for it",
                Source::FirstCardWithTheme => "this is where the Session Guide first covers it",
            };
            let entries = offer
                .entries
                .iter()
                .map(|e| {
                    view! {
                        <li><a href=format!("/log#entry-{}", e.line)>{format!("{} {}", e.date, e.session)}</a>
                            ": " {e.sticking_point.clone()}</li>
                    }
                })
                .collect_view();
            view! {
                <aside class="remediation" id="remediation-offer" aria-labelledby="remediation-heading">
                    <h2 id="remediation-heading">"Before the next session: revisit " {title.clone()}</h2>
                    <p>{format!(
                        "“{}” came up in {} of your recent Sticking points. Taking {} first should make the next sessions easier ({why}).",
                        offer.theme,
                        offer.entries.len(),
                        offer.session,
                    )}</p>
                    <ul>{entries}</ul>
                    <div class="actions">
                        <a class="button primary" id="remediation-start" href=format!("/session/{}", offer.session)>{format!("Start {}", offer.session)}</a>
                    </div>
                </aside>
            }
        })
    }
}
