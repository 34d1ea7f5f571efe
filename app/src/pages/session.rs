//! `/session/:id`, `/quiz/:id`, `/review`: the routes the session work (the timed hour, quizzes,
//! review) grows into. Today the session page shows the card the reader is about to work: its
//! goal, what to read, the Midpoint and how the session ends.

use std::sync::Arc;

use bookside_core::guide::{Card, ReadItem};
use bookside_core::render;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::library::{Library, WithLibrary};

#[component]
pub fn SessionPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    view! {
        <div class="page">
            <WithLibrary view=move |library| {
                let library = library.clone();
                move || {
                    let id = id.get();
                    match library.guide.card(&id).cloned() {
                        Some(card) => view! { <SessionView card library=library.clone() /> }.into_any(),
                        None => view! {
                            <h1>"Unknown session"</h1>
                            <p>"The Session Guide has no card " <code>{id}</code> ". " <a href="/guide">"Pick one in the guide"</a></p>
                        }.into_any(),
                    }
                }
            } />
        </div>
    }
}

#[component]
fn SessionView(card: Card, library: Arc<Library>) -> impl IntoView {
    let _ = library;
    let read = card
        .read
        .iter()
        .map(|item| match item {
            ReadItem::Chapter { text, path, anchor } => {
                let href = match anchor {
                    Some(a) => format!("{}#{a}", render::route(path)),
                    None => render::route(path),
                };
                view! { <li><a href=href>{text.clone()}</a></li> }.into_any()
            }
            ReadItem::Notebook { path, cells } => {
                let cells = cells.map(|(a, b)| if a == b { format!(" cell {a}") } else { format!(" cells {a}–{b}") }).unwrap_or_default();
                view! { <li>"Notebook " <code>{path.clone()}</code> {cells}</li> }.into_any()
            }
            ReadItem::Other(text) => view! { <li>{text.clone()}</li> }.into_any(),
        })
        .collect_view();
    view! {
        <h1 id="session-title">{format!("{} — {}", card.id, card.title)}</h1>
        <p class="muted">{format!("Phase {} — {}", card.phase, card.phase_title)}</p>
        <h2>"Goal"</h2>
        <p>{card.goal.clone()}</p>
        <h2>"Read"</h2>
        <ul>{read}</ul>
        <h2>"Midpoint"</h2>
        <p>{card.midpoint.clone()}</p>
        {card.done_when.clone().map(|d| view! { <h2>"Done-when"</h2><pre><code>{d.command}</code></pre> })}
        {(!card.quiz.is_empty()).then(|| view! { <h2>"Quiz"</h2><p>{card.quiz.join(", ")}</p> })}
        <p><a class="button" href="/guide">"Back to the Session Guide"</a></p>
    }
}

#[component]
pub fn QuizPage() -> impl IntoView {
    let params = use_params_map();
    view! {
        <div class="page">
            <h1>"Quiz " {move || params.with(|p| p.get("id").unwrap_or_default())}</h1>
            <p>"Quizzes are not available in this version yet."</p>
        </div>
    }
}

#[component]
pub fn ReviewPage() -> impl IntoView {
    view! {
        <div class="page">
            <h1>"Review"</h1>
            <p>"Spaced review is not available in this version yet."</p>
        </div>
    }
}
