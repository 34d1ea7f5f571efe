//! `/guide`: every session card in Guide order with its phase, status and Needs, the current
//! session (from core's locate) highlighted, and the progress picture (phases × sessions).

use std::sync::Arc;

use bookside_core::engine::locate::{self, Why};
use bookside_core::guide::{Card, Phase};
use bookside_core::reading::{self, CardStatus};
use leptos::prelude::*;

use crate::library::{Library, ParsedLog, WithLibrary, with_context};
use crate::pages::reader::SessionCard;

#[component]
pub fn GuidePage() -> impl IntoView {
    view! {
        <div class="page">
            <h1>"Session Guide"</h1>
            <WithLibrary view=|library| view! { <GuideView library /> } />
        </div>
    }
}

#[component]
fn GuideView(library: Arc<Library>) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let lib = library.clone();
    let located = Memo::new(move |_| with_context(&lib, parsed, |cx| locate::locate(cx, None)));
    let lib = library.clone();
    let statuses = Memo::new(move |_| {
        with_context(&lib, parsed, |cx| lib.guide.cards.iter().map(|c| (c.id.clone(), reading::card_status(cx, &c.id))).collect::<Vec<_>>())
    });
    let current = Memo::new(move |_| located.with(|l| l.session.clone()));
    let why = move || {
        located.with(|l| {
            let Some(session) = &l.session else { return "Every session is done.".to_owned() };
            let mut text = match l.why {
                Why::ResumePartial { .. } => format!("Where you are: {session}, resuming your PARTIAL session at its Midpoint."),
                Why::FirstNotDone => format!("Where you are: {session}, the first session not done yet."),
                Why::Named => format!("Where you are: {session}."),
                Why::AllDone => "Every session is done.".to_owned(),
            };
            if let Some(detour) = &l.detour {
                text.push_str(&format!(" ({} needs {} first.)", detour.wanted, detour.missing.join(", ")));
            }
            text
        })
    };
    if library.guide.cards.is_empty() {
        return view! { <p class="error" role="alert">"This book has no Session Guide: add one and name it in book.toml under [bookside] guide"</p> }.into_any();
    }
    let picture = per_phase(&library, |phase, cards| {
        let cells = cards
            .map(|card| {
                let id = card.id.clone();
                let id_for_status = id.clone();
                let id_for_current = id.clone();
                let status = move || statuses.with(|s| s.iter().find(|(i, _)| *i == id_for_status).map(|(_, s)| *s).unwrap_or(CardStatus::NotStarted));
                let is_current = move || current.with(|c| c.as_deref() == Some(id_for_current.as_str()));
                let label = {
                    let status = status.clone();
                    let title = card.title.clone();
                    let id = id.clone();
                    move || format!("{id} {title}: {}", status().label())
                };
                let short = id.split_once('.').map(|(_, n)| n.to_owned()).unwrap_or_else(|| id.clone());
                view! {
                    <a class=move || format!("cell {}", status().class()) class:current=is_current
                        href=format!("#card-{}", id.replace('.', "-")) aria-label=label.clone() title=label>{short}</a>
                }
            })
            .collect_view();
        view! {
            <div class="phase-row">
                <span>{format!("Phase {}", phase.number)}</span>
                <div class="cells">{cells}</div>
            </div>
        }
    });
    let phases = per_phase(&library, |phase, cards| {
        let cards = cards
            .map(|card| {
                let id = card.id.clone();
                let is_current = Signal::derive(move || current.with(|c| c.as_deref() == Some(id.as_str())));
                view! { <SessionCard card=card.clone() library=library.clone() current=is_current /> }
            })
            .collect_view();
        view! {
            <h2 class="phase-heading">{format!("Phase {} — {}", phase.number, phase.title)}</h2>
            {cards}
        }
    });
    view! {
        <p class="lede" id="where-you-are">{why}</p>
        <section aria-labelledby="picture-heading">
            <h2 id="picture-heading">"Your progress"</h2>
            <div class="picture" id="progress-picture">{picture}</div>
            <p class="legend"><span>"■ done"</span><span>"■ PARTIAL"</span><span>"□ not started"</span><span>"outlined: where you are"</span></p>
        </section>
        {phases}
    }
    .into_any()
}

/// One view per phase of the guide, in order, from the phase and its cards in Guide order.
fn per_phase<'a, V: IntoView>(library: &'a Library, f: impl Fn(&'a Phase, Box<dyn Iterator<Item = &'a Card> + 'a>) -> V) -> Vec<V> {
    let cards = &library.guide.cards;
    library.guide.phases.iter().map(|phase| f(phase, Box::new(cards.iter().filter(move |c| c.phase == phase.number)))).collect()
}
