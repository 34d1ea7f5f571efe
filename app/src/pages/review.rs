//! `/review`: five minutes of spaced repetition on a phone. The queue holds the quiz questions
//! the reader missed and the Sticking points of their log; core's FSRS scheduler
//! (`engine::review`) says what is due today and, after each rating, when it comes back. The
//! queue lives in IndexedDB (`study::load_queue`), so a rating sticks across reloads and devices'
//! tabs of this browser.

use bookside_core::engine::review::{self, Item, Params, Queue, Rating, Subject};
use bookside_core::quiz::{self, QuestionKind};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::library::{LibraryCtx, ParsedLog};
use crate::{status, study};

/// The queue with the log's Sticking points that are not in it yet (an item already queued keeps
/// its schedule: adding it again would make it due again).
fn with_sticking_points(queue: &Queue, log: &bookside_core::progress::ProgressLog, today: i64) -> Queue {
    let from_log = review::add_sticking_points(&Queue::default(), log, today);
    let mut out = queue.clone();
    for item in from_log.items {
        let id = item.subject.id();
        if !out.items.iter().any(|i| i.subject.id() == id) {
            out.items.push(item);
        }
    }
    out
}

fn rating_name(r: Rating) -> &'static str {
    match r {
        Rating::Again => "Again",
        Rating::Hard => "Hard",
        Rating::Good => "Good",
        Rating::Easy => "Easy",
    }
}

fn days(n: u32) -> String {
    if n == 1 { "tomorrow".to_owned() } else { format!("in {n} days") }
}

#[component]
pub fn ReviewPage() -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let queue: RwSignal<Option<Queue>> = RwSignal::new(None);
    let today = study::today();
    spawn_local(async move {
        let loaded = study::load_queue().await.unwrap_or_else(|err| {
            status::report_error(&err.0);
            Queue::default()
        });
        queue.set(Some(loaded));
    });
    // The log's Sticking points join the queue once the log has loaded.
    Effect::new(move |_| {
        let Some(current) = queue.get() else { return };
        let merged = parsed.log.with(|log| with_sticking_points(&current, log, today));
        if merged.items.len() != current.items.len() {
            queue.set(Some(merged.clone()));
            spawn_local(async move {
                if let Err(err) = study::save_queue(&merged).await {
                    status::report_error(&err.0);
                }
            });
        }
    });
    // How many are due today in all, and the next one (unless this visit's five are done).
    let rated_here = RwSignal::new(0usize);
    let due = Memo::new(move |_| {
        queue.with(|q| {
            q.as_ref().map(|q| {
                let all = review::due(q, today, usize::MAX);
                let next = (rated_here.get() < review::FIVE_MINUTES).then(|| all.first().map(|i| (*i).clone())).flatten();
                (all.len(), next)
            })
        })
    });
    let rate = move |id: String, rating: Rating| {
        let Some(current) = queue.get_untracked() else { return };
        let next = review::review(&Params::default(), &current, &id, rating, today);
        spawn_local(async move {
            match study::save_queue(&next).await {
                Ok(()) => {
                    rated_here.update(|n| *n += 1);
                    queue.set(Some(next));
                }
                Err(err) => status::report_error(&format!("{err}; the rating was not kept, try again")),
            }
        });
    };
    view! {
        <div class="page review-page">
            <h1>"Review"</h1>
            <p class="lede">"A few questions you missed and the Sticking points from your log, each when it is about to fade. About five minutes."</p>
            {move || match due.get() {
                None => view! { <p class="loading">"Opening your review queue…"</p> }.into_any(),
                Some((0, _)) => view! {
                    <p id="review-due-count" data-count="0">"Nothing is due today."</p>
                    <p class="muted">"Missed quiz questions come back here from the day after. "
                        <a href="/guide">"Take a quiz from the Session Guide"</a></p>
                }.into_any(),
                Some((n, None)) => view! {
                    <p id="review-due-count" data-count=n.to_string()>{format!("{n} more due today")}</p>
                    <p id="review-enough">"That was your five minutes: the rest keeps until your next break."</p>
                }.into_any(),
                Some((n, Some(item))) => view! {
                    <p id="review-due-count" data-count=n.to_string()>{format!("{n} due today")}</p>
                    <ReviewCard item today rate=Callback::new(move |(id, r): (String, Rating)| rate(id, r)) />
                }.into_any(),
            }}
        </div>
    }
}

#[component]
fn ReviewCard(item: Item, today: i64, rate: Callback<(String, Rating)>) -> impl IntoView {
    let LibraryCtx(library) = expect_context();
    let shown = RwSignal::new(false);
    let id = item.subject.id();
    let elapsed = item.last_day.map_or(0, |d| u32::try_from((today - d).max(0)).unwrap_or(0));
    let options = review::preview(&Params::default(), item.memory, elapsed);
    let subject = item.subject.clone();
    let body = move || {
        let lib = library.get().and_then(Result::ok);
        match &subject {
            Subject::Question { key, .. } => {
                let q = lib.as_ref().and_then(|l| quiz::question_by_key(&l.quiz, key));
                match q {
                    Some(q) => {
                        let options = match &q.kind {
                            QuestionKind::Choice { options, .. } => Some(view! {
                                <ol class="review-options" type="A">{options.iter().map(|o| view! { <li>{o.clone()}</li> }).collect_view()}</ol>
                            }),
                            _ => None,
                        };
                        let expected = q.expected();
                        let why = q.why.clone().filter(|_| !matches!(q.kind, QuestionKind::Explain { .. }));
                        view! {
                            <p class="muted">"A quiz question you missed"</p>
                            <h2 class="prompt" id="review-prompt">{q.prompt.clone()}</h2>
                            {options}
                            <Show when=move || shown.get()>
                                <p id="review-answer"><strong>"Answer: "</strong>{expected.clone()}</p>
                                {why.clone().map(|w| view! { <p class="why"><strong>"Why: "</strong>{w}</p> })}
                            </Show>
                        }
                        .into_any()
                    }
                    None => view! {
                        <h2 class="prompt" id="review-prompt">"This question is no longer in the book's quiz bank."</h2>
                        <p class="muted">"Rate it Easy to send it far away."</p>
                    }
                    .into_any(),
                }
            }
            Subject::StickingPoint { concept, session } => {
                let href = format!("/session/{session}");
                let check = format!("Check against what {session} reads");
                view! {
                    <p class="muted">{format!("A Sticking point from your log ({session})")}</p>
                    <h2 class="prompt" id="review-prompt">{concept.clone()}</h2>
                    <p>"Explain it to yourself from memory, then check."</p>
                    <Show when=move || shown.get()>
                        <p id="review-answer"><a href=href.clone()>{check.clone()}</a></p>
                    </Show>
                }
                .into_any()
            }
        }
    };
    let buttons = Rating::ALL
        .into_iter()
        .zip(options)
        .map(|(rating, (_, ivl))| {
            let id = id.clone();
            let name = rating_name(rating);
            view! {
                <button type="button" class="button big" id=format!("review-rate-{}", name.to_lowercase())
                    on:click=move |_| rate.run((id.clone(), rating))>
                    <span>{name}</span><span class="muted small">{days(ivl)}</span>
                </button>
            }
        })
        .collect_view();
    view! {
        <section class="review-card" id="review-card" data-id=id.clone() aria-labelledby="review-prompt">
            {body}
            <Show when=move || !shown.get()>
                <div class="actions">
                    <button type="button" class="button primary big" id="review-show" on:click=move |_| shown.set(true)>"Show the answer"</button>
                </div>
            </Show>
            <Show when=move || shown.get()>
                <p>"How well did you remember it?"</p>
            </Show>
            <div class="actions rating" hidden=move || !shown.get()>{buttons}</div>
        </section>
    }
}
