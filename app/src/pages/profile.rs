//! `/profile`: onboarding (background, goal, hardware, pace, hint cap or hard mode) and
//! PROFILE.md import and export. Saving changes only the fields that changed (core's
//! `profile::set`), so a hand-edited PROFILE.md keeps its notes and unknown fields.

use bookside_core::engine::locate::phase0_topics;
use bookside_core::profile::{self, Pace, ProfileKey};
use bookside_core::quiz::{self, Quiz, Score, SkipDecision};
use bookside_core::wire::StoredQuiz;
use leptos::callback::Callback;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::files::{Loaded, ProfileCtx};
use crate::library::{LibraryCtx, WithLibrary};
use crate::pages::log::FileActions;
use crate::pages::quiz::{QuizRunner, finished_score};
use crate::{platform, status, study};

#[component]
pub fn ProfilePage() -> impl IntoView {
    let ProfileCtx(file) = expect_context();
    view! {
        <div class="page">
            <h1>"Your profile"</h1>
            <p class="lede">"PROFILE.md: who you are and how you like to work. The session uses it for the pace and the hint ladder."</p>
            {move || match file.state.get() {
                Loaded::Loading => view! { <p class="loading">"Opening your profile…"</p> }.into_any(),
                Loaded::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
                Loaded::Ready => view! { <Onboarding /> <Phase0Skip /> }.into_any(),
            }}
            <FileActions file download_name="PROFILE.md" what="profile" />
            <ProfileImport />
        </div>
    }
}

#[component]
fn Onboarding() -> impl IntoView {
    let ProfileCtx(file) = expect_context();
    let start = file.text.with_untracked(|t| profile::parse(t).0.profile);
    let background = RwSignal::new(start.background.clone().unwrap_or_default());
    let goal = RwSignal::new(start.goal.clone().unwrap_or_default());
    let hardware = RwSignal::new(start.hardware.clone().unwrap_or_default());
    let pace = RwSignal::new(start.pace);
    let hint_cap = RwSignal::new(start.hint_cap);
    let hard_mode = RwSignal::new(start.hard_mode);
    let save = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let current = file.text.get_untracked();
        let (doc, _) = profile::parse(&current);
        let mut wanted = doc.profile.clone();
        wanted.background = Some(background.get_untracked()).filter(|s| !s.trim().is_empty());
        wanted.goal = Some(goal.get_untracked()).filter(|s| !s.trim().is_empty());
        wanted.hardware = Some(hardware.get_untracked()).filter(|s| !s.trim().is_empty());
        wanted.pace = pace.get_untracked();
        wanted.hint_cap = hint_cap.get_untracked();
        wanted.hard_mode = hard_mode.get_untracked();
        let text = if current.trim().is_empty() {
            profile::render(&wanted)
        } else {
            // Only the fields whose value changed are rewritten.
            ProfileKey::ALL.into_iter().fold(current.clone(), |text, key| {
                let value = wanted.value_text(key);
                if value == doc.profile.value_text(key) { text } else { profile::set(&text, key, &value) }
            })
        };
        spawn_local(async move {
            if file.save(text, "onboarding").await.is_ok() {
                status::report_info("Profile saved.");
            }
        });
    };
    let text = |id: &'static str, label: &'static str, hint: &'static str, value: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <p class="muted" id=format!("{id}-hint")>{hint}</p>
            <input id=id type="text" aria-describedby=format!("{id}-hint") prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
        }
    };
    view! {
        <form class="panel entry-form" id="onboarding" on:submit=save aria-labelledby="onboarding-heading">
            <h2 id="onboarding-heading">"Onboarding"</h2>
            {text("profile-background", "Background", "What you already know: languages, maths, machine learning.", background)}
            {text("profile-goal", "Goal", "What you want to leave the book with.", goal)}
            {text("profile-hardware", "Hardware", "The machine you will train on: memory, GPU or none.", hardware)}
            <fieldset>
                <legend>"Pace"</legend>
                <div class="choice">
                    <input type="radio" id="pace-60" name="pace" prop:checked=move || pace.get() == Pace::Sixty on:change=move |_| pace.set(Pace::Sixty) />
                    <label for="pace-60">"One-hour sessions"</label>
                </div>
                <div class="choice">
                    <input type="radio" id="pace-30" name="pace" prop:checked=move || pace.get() == Pace::Thirty on:change=move |_| pace.set(Pace::Thirty) />
                    <label for="pace-30">"30-minute sittings, split at the Midpoint"</label>
                </div>
            </fieldset>
            <label for="profile-hint-cap">"Highest hint the ladder may give"</label>
            <select id="profile-hint-cap" prop:value=move || hint_cap.get().to_string()
                on:change=move |ev| hint_cap.set(event_target_value(&ev).parse().unwrap_or(4))>
                <option value="1">"1 — Point to where the idea lives"</option>
                <option value="2">"2 — Ask a guiding question"</option>
                <option value="3">"3 — Pseudocode"</option>
                <option value="4">"4 — One line, when I ask twice"</option>
            </select>
            <div class="choice">
                <input type="checkbox" id="profile-hard-mode" prop:checked=move || hard_mode.get() on:change=move |ev| hard_mode.set(event_target_checked(&ev)) />
                <label for="profile-hard-mode">"Hard mode: never show rung 4"</label>
            </div>
            <p class="muted">{move || {
                let cap = if hard_mode.get() { hint_cap.get().min(3) } else { hint_cap.get() };
                format!("The ladder will stop at rung {cap}.")
            }}</p>
            <div class="actions">
                <button type="submit" class="button primary" id="profile-save">"Save my profile"</button>
            </div>
        </form>
    }
}

/// PROFILE.md from a file or pasted text: shown as read before it replaces the stored one.
#[component]
fn ProfileImport() -> impl IntoView {
    let ProfileCtx(file) = expect_context();
    let incoming: RwSignal<Option<String>> = RwSignal::new(None);
    let pasted = RwSignal::new(String::new());
    let on_pick = move |ev: web_sys::Event| {
        use wasm_bindgen::JsCast;
        let input: web_sys::HtmlInputElement = ev.target().expect("change has a target").unchecked_into();
        let Some(picked) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        spawn_local(async move {
            match platform::read_file(picked).await {
                Ok(text) => incoming.set(Some(text)),
                Err(message) => status::report_error(&message),
            }
        });
    };
    let accept = move |_| {
        let Some(text) = incoming.get_untracked() else { return };
        spawn_local(async move {
            if file.save(text, "import").await.is_ok() {
                incoming.set(None);
                status::report_info("Profile imported. Reload the page to see it in the form.");
            }
        });
    };
    view! {
        <section class="panel" aria-labelledby="profile-import-heading">
            <h2 id="profile-import-heading">"Import PROFILE.md"</h2>
            <div class="actions">
                <label class="button" for="profile-file">"Choose a file"</label>
                <input type="file" id="profile-file" class="visually-hidden" accept=".md,.txt,text/markdown,text/plain" on:change=on_pick />
            </div>
            <label for="profile-paste">"Or paste its text"</label>
            <textarea id="profile-paste" rows="4" prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            <button type="button" class="button" on:click=move |_| incoming.set(Some(pasted.get_untracked()))>"Preview the import"</button>
            {move || incoming.get().map(|text| {
                let (doc, diags) = profile::parse(&text);
                let p = doc.profile;
                view! {
                    <div class="preview" id="profile-preview">
                        <h3>"This will replace your profile"</h3>
                        <dl class="entry">
                            {ProfileKey::ALL.into_iter().map(|key| view! { <dt>{key.name()}</dt><dd>{p.value_text(key)}</dd> }).collect_view()}
                        </dl>
                        <ul>{diags.into_iter().map(|d| view! { <li>{format!("line {}: {}", d.line, d.message)}</li> }).collect_view()}</ul>
                        <div class="actions">
                            <button type="button" class="button primary" id="profile-accept" on:click=accept>"Replace my profile"</button>
                            <button type="button" class="button" on:click=move |_| incoming.set(None)>"Cancel"</button>
                        </div>
                    </div>
                }
            })}
        </section>
    }
}

/// The stored Phase 0 attempt's key (`quiz:phase0` in IndexedDB prefs).
const PHASE0_QUIZ: &str = "phase0";

/// Skipping Phase 0 goes through a quiz over every Phase 0 topic (`locate::phase0_topics`); only
/// when core's `quiz::phase0_skip` allows it is `Phase 0 skipped: yes` written to PROFILE.md,
/// which is what locate reads (`locate::phase0_skipped`). The outcome is shown from the stored
/// attempt (`quiz:phase0`), so it stays when the page re-renders after the save, and on a reload.
#[component]
fn Phase0Skip() -> impl IntoView {
    let ProfileCtx(file) = expect_context();
    let library: LibraryCtx = expect_context();
    let taking = RwSignal::new(false);
    let stored: RwSignal<Option<StoredQuiz>> = RwSignal::new(None);
    let load = move || {
        spawn_local(async move {
            match study::load_quiz(PHASE0_QUIZ).await {
                Ok(attempt) => stored.set(attempt),
                Err(err) => status::report_error(&format!("{err}; the Phase 0 quiz's outcome cannot be shown")),
            }
        })
    };
    load();
    let skipped = Memo::new(move |_| file.text.with(|t| profile::parse(t).0.profile.phase0_skipped));
    let decision = move || {
        let lib = library.0.get().and_then(Result::ok)?;
        let (quiz, score) = stored.with(|s| s.as_ref().and_then(|s| finished_score(&lib, s)))?;
        Some(decision_text(&quiz::phase0_skip(&quiz, &score, &phase0_topics(&lib.guide)), &score, skipped.get()))
    };
    view! {
        <section class="panel" id="phase0" aria-labelledby="phase0-heading">
            <h2 id="phase0-heading">"Already know the basics? Skip Phase 0"</h2>
            {move || if skipped.get() {
                view! { <p id="phase0-skipped">"Phase 0 is skipped: you passed its quiz. The Session Guide starts you at Phase 1."</p> }.into_any()
            } else if !taking.get() {
                view! {
                    <p>{format!("Phase 0 is orientation: how sessions run, the tooling, the maths and the shape of a transformer. \
                        Answer a quiz over all of it; {}% or more marks Phase 0 as skipped in your profile.", quiz::PASS_PERCENT)}</p>
                    <div class="actions">
                        <button type="button" class="button" id="phase0-start" on:click=move |_| taking.set(true)>"Take the Phase 0 quiz"</button>
                    </div>
                }.into_any()
            } else {
                view! {
                    <WithLibrary view=move |library| {
                        let topics = phase0_topics(&library.guide);
                        let wanted = topics.clone();
                        let on_finish = Callback::new(move |(quiz, score): (Quiz, Score)| {
                            if quiz::phase0_skip(&quiz, &score, &wanted) == SkipDecision::Allowed {
                                let current = file.text.get_untracked();
                                let text = if current.trim().is_empty() {
                                    let mut p = profile::parse(&current).0.profile;
                                    p.phase0_skipped = true;
                                    profile::render(&p)
                                } else {
                                    profile::set(&current, ProfileKey::Phase0Skipped, "yes")
                                };
                                spawn_local(async move {
                                    let _ = file.save(text, "phase 0 quiz passed").await;
                                    load();
                                });
                            } else {
                                load();
                            }
                        });
                        view! { <QuizRunner library store_id=PHASE0_QUIZ.to_owned() topics on_finish /> }
                    } />
                }.into_any()
            }}
            <p role="status" id="phase0-decision">{decision}</p>
        </section>
    }
}

/// What a finished Phase 0 quiz decided, in words.
fn decision_text(decision: &SkipDecision, score: &Score, skipped: bool) -> String {
    match decision {
        SkipDecision::Allowed if skipped => format!("Passed with {} of {}: Phase 0 is skipped.", score.right, score.total),
        SkipDecision::Allowed => format!("Passed with {} of {}: recording the skip in your profile…", score.right, score.total),
        SkipDecision::NotPassed { right, total } => format!(
            "{right} of {total} is below the {}% needed, so Phase 0 stays in your path. Re-read what the score lists, or take Phase 0's sessions.",
            quiz::PASS_PERCENT
        ),
        SkipDecision::TopicsMissing(missing) => {
            format!("The quiz bank lacks Phase 0 topics ({}), so the skip cannot be decided; take Phase 0's sessions.", missing.join(", "))
        }
    }
}
