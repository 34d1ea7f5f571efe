//! `/quiz/:id`: a read-only session's quiz, one question per screen, phone first.
//!
//! Everything is core's: `quiz::generate` builds the questions from a seed drawn here,
//! `ready_to_reveal` asks for the reason before the answer, `grade` and `score` judge, and
//! `engine::review::add_missed` queues the misses. The attempt is stored after every change
//! (`study::save_quiz`), so a reload or a locked phone resumes at the same question with the
//! same answers. [`QuizRunner`] also runs the Phase 0 quiz on the profile page.

use std::sync::Arc;

use bookside_core::engine::{hour, review};
use bookside_core::guide::Card;
use bookside_core::progress::{DoneWhen, NewEntry, Next, Status, StickingPoint};
use bookside_core::quiz::{self, Answer, Attempt, Grade, Question, QuestionKind, Quiz, Score};
use bookside_core::render;
use bookside_core::wire::{StoredAnswer, StoredQuiz};
use leptos::callback::Callback;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_params_map;

use crate::library::{Library, ParsedLog, WithLibrary};
use crate::pages::session::EntryForm;
use crate::{status, study};

/// About eight questions per quiz, at least one per topic, at most five from one topic.
pub fn per_topic(topics: usize) -> usize {
    8usize.div_ceil(topics.max(1)).clamp(1, 5)
}

/// How many fresh seeds to draw, at most, looking for an attempt that shares no question with
/// the one before.
const DRAWS: usize = 32;

#[component]
pub fn QuizPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    view! {
        <div class="page quiz-page">
            <WithLibrary view=move |library| {
                let library = library.clone();
                move || {
                    let id = id.get();
                    match library.guide.card(&id).cloned() {
                        Some(card) if !card.quiz.is_empty() => view! {
                            <h1 id="quiz-title">{format!("Quiz — {} {}", card.id, card.title)}</h1>
                            <QuizRunner library=library.clone() store_id=card.id.clone() topics=card.quiz.clone()
                                after_score=log_entry(card.clone(), library.clone()) />
                        }.into_any(),
                        Some(card) => view! {
                            <h1>{format!("{} has no quiz", card.id)}</h1>
                            <p>"This session ends with its Done-when test, not a quiz. "
                                <a href=format!("/session/{}", card.id)>"Open the session"</a></p>
                        }.into_any(),
                        None => view! { <crate::pages::UnknownCard id /> }.into_any(),
                    }
                }
            } />
        </div>
    }
}

/// A read-only session is logged from its quiz's end screen: the entry's Done-when is the score
/// (`quiz 7/8 ✅`), DONE when the quiz is passed, PARTIAL (take it again) when not.
fn log_entry(card: Card, library: Arc<Library>) -> Callback<(Quiz, Score), AnyView> {
    Callback::new(move |(_, score): (Quiz, Score)| {
        view! { <QuizEntry card=card.clone() library=library.clone() score /> }.into_any()
    })
}

#[component]
fn QuizEntry(card: Card, library: Arc<Library>, score: Score) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let passed = score.passed();
    let draft = NewEntry {
        date: hour::date_of_day(study::today()),
        session: card.id.clone(),
        title: card.title.clone(),
        status: if passed { Status::Done } else { Status::Partial },
        built: String::new(),
        done_when: DoneWhen::quiz(score.right as u32, score.total as u32, passed),
        sticking_point: StickingPoint { text: String::new(), rung: None },
        next: Next { session: None, why: String::new() },
    };
    // This attempt is in the log already when an entry of the same day has its score: the end
    // screen (shown again after a reload) then offers no second entry.
    let logged = {
        let (session, date, done_when) = (draft.session.clone(), draft.date, draft.done_when.clone());
        Memo::new(move |_| {
            parsed.log.with(|log| {
                log.entries.iter().any(|e| e.session() == session && e.date == Some(date) && e.done_when().map(|d| d.into_owned()).as_ref() == Some(&done_when))
            })
        })
    };
    let notes = if passed { Vec::new() } else { vec!["The quiz is not passed yet: this is logged PARTIAL, and Next brings you back to it after the re-reading."] };
    let form = StoredValue::new((draft, library, notes));
    move || {
        if logged.get() {
            return view! {
                <p class="note" id="quiz-logged" role="status">"This attempt is in your log. " <a href="/log">"See your log"</a></p>
            }
            .into_any();
        }
        let (draft, library, notes) = form.get_value();
        view! { <EntryForm draft library partial_why="take the quiz again after re-reading" notes /> }.into_any()
    }
}

/// What the reader gave for `q`, as core grades it.
fn answer_of(q: &Question, a: &StoredAnswer) -> Answer {
    match &q.kind {
        QuestionKind::Numeric { .. } => Answer::Text(a.text.clone()),
        QuestionKind::Choice { .. } => a.pick.map_or_else(|| Answer::Text(a.text.clone()), |p| Answer::Pick(p as usize)),
        QuestionKind::Explain { .. } => Answer::SelfMarked { right: a.self_marked.unwrap_or(false) },
    }
}

fn grades(quiz: &Quiz, answers: &[StoredAnswer]) -> Vec<Grade> {
    quiz.questions
        .iter()
        .enumerate()
        .map(|(i, q)| answers.get(i).filter(|a| a.revealed).map_or(Grade::Wrong, |a| quiz::grade(q, &answer_of(q, a)).grade))
        .collect()
}

/// The quiz and score of a stored attempt once it is finished, as its end screen shows them.
pub fn finished_score(library: &Library, stored: &StoredQuiz) -> Option<(Quiz, Score)> {
    if !stored.finished {
        return None;
    }
    let quiz = quiz::generate(&library.quiz, &stored.topics, stored.seed, stored.per_topic as usize);
    let score = quiz::score(&library.quiz, &quiz, &grades(&quiz, &stored.answers));
    Some((quiz, score))
}

/// A new attempt: the first seed (of a few draws) whose questions differ from the last attempt's.
fn new_attempt(library: &Library, topics: &[String], previous_keys: Vec<String>) -> StoredQuiz {
    let per_topic = per_topic(topics.len());
    let mut seed = study::fresh_seed();
    for _ in 0..DRAWS {
        let quiz = quiz::generate(&library.quiz, topics, seed, per_topic);
        if !quiz.questions.iter().any(|q| previous_keys.contains(&q.key)) {
            break;
        }
        seed = study::fresh_seed();
    }
    StoredQuiz { topics: topics.to_vec(), seed, per_topic: per_topic as u32, answers: Vec::new(), at: 0, finished: false, previous_keys }
}

fn persist(store_id: &str, state: &StoredQuiz) {
    let (id, state) = (store_id.to_owned(), state.clone());
    spawn_local(async move {
        if let Err(err) = study::save_quiz(&id, &state).await {
            status::report_error(&format!("{err}; your answers stay on this page until you reload"));
        }
    });
}

fn focus(id: &str) {
    let id = id.to_owned();
    request_animation_frame(move || {
        if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&id)) {
            use wasm_bindgen::JsCast;
            let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
        }
    });
}

/// Runs a quiz over `topics`, stored under `store_id`, and calls `on_finish` with the score when
/// the reader reaches the end (after the misses are queued for review).
#[component]
pub fn QuizRunner(
    library: Arc<Library>,
    store_id: String,
    topics: Vec<String>,
    #[prop(optional)] on_finish: Option<Callback<(Quiz, Score)>>,
    /// Shown under the score whenever the finished attempt is on screen (after a reload too).
    #[prop(optional)] after_score: Option<Callback<(Quiz, Score), AnyView>>,
) -> impl IntoView {
    let state: RwSignal<Option<StoredQuiz>> = RwSignal::new(None);
    let store = StoredValue::new(store_id);
    {
        let library = library.clone();
        let topics = topics.clone();
        spawn_local(async move {
            let id = store.get_value();
            let stored = match study::load_quiz(&id).await {
                Ok(stored) => stored.filter(|s| s.topics == topics),
                Err(err) => {
                    status::report_error(&format!("{err}; this attempt will not survive a reload"));
                    None
                }
            };
            let attempt = stored.unwrap_or_else(|| {
                let fresh = new_attempt(&library, &topics, Vec::new());
                persist(&id, &fresh);
                fresh
            });
            state.set(Some(attempt));
        });
    }
    let bank = library.clone();
    let generated = Memo::new(move |_| {
        state.with(|s| s.as_ref().map(|s| (s.seed, s.topics.clone(), s.per_topic))).map(|(seed, topics, per)| {
            quiz::generate(&bank.quiz, &topics, seed, per as usize)
        })
    });
    // Only what changes the screen: which attempt, which question, whether it is over.
    let screen = Memo::new(move |_| state.with(|s| s.as_ref().map(|s| (s.seed, s.at, s.finished))));
    let edit = move |f: &dyn Fn(&mut StoredQuiz)| {
        state.update(|s| {
            if let Some(s) = s {
                f(s);
            }
        });
        state.with_untracked(|s| {
            if let Some(s) = s {
                persist(&store.get_value(), s);
            }
        });
    };
    let finish = {
        let library = library.clone();
        move || {
            let Some(quiz) = generated.get_untracked() else { return };
            let answers = state.with_untracked(|s| s.as_ref().map(|s| s.answers.clone()).unwrap_or_default());
            let score = quiz::score(&library.quiz, &quiz, &grades(&quiz, &answers));
            spawn_local(async move {
                // The misses reach the queue before the attempt is marked finished, so a reload
                // in between queues them again (harmless) rather than never.
                let queued = match study::load_queue().await {
                    Ok(queue) => study::save_queue(&review::add_missed(&queue, &score, study::today())).await,
                    Err(err) => Err(err),
                };
                if let Err(err) = queued {
                    status::report_error(&format!("{err}; the missed questions could not be queued for review"));
                }
                edit(&|s| s.finished = true);
                focus("quiz-score");
                if let Some(cb) = on_finish {
                    cb.run((quiz.clone(), score.clone()));
                }
            });
        }
    };
    let again = {
        let library = library.clone();
        let topics = topics.clone();
        move || {
            let previous = generated.get_untracked().map(|q| q.questions.into_iter().map(|q| q.key).collect()).unwrap_or_default();
            let fresh = new_attempt(&library, &topics, previous);
            persist(&store.get_value(), &fresh);
            state.set(Some(fresh));
            focus("quiz-question");
        }
    };
    let finish = StoredValue::new(finish);
    let again = StoredValue::new(again);
    let library = StoredValue::new(library);
    view! {
        <div class="quiz" id="quiz">
            {move || {
                let Some((_, at, finished)) = screen.get() else {
                    return view! { <p class="loading">"Preparing your quiz…"</p> }.into_any();
                };
                let Some(quiz) = generated.get_untracked() else { return ().into_any() };
                if quiz.questions.is_empty() {
                    return view! { <p class="error" role="alert">"The quiz bank has no questions for this session's topics; check the book's quiz.toml with `bookside guide`."</p> }.into_any();
                }
                if finished {
                    let answers = state.with_untracked(|s| s.as_ref().map(|s| s.answers.clone()).unwrap_or_default());
                    let score = quiz::score(&library.get_value().quiz, &quiz, &grades(&quiz, &answers));
                    let after = after_score.map(|f| f.run((quiz.clone(), score.clone())));
                    return view! {
                        <ScoreView score />
                        {after}
                        <div class="actions">
                            <button type="button" class="button primary big" id="quiz-again" on:click=move |_| again.with_value(|f| f())>"Take it again, with new questions"</button>
                            <a class="button big" href="/review">"Review what you missed"</a>
                        </div>
                    }.into_any();
                }
                let total = quiz.questions.len();
                let index = (at as usize).min(total - 1);
                let q = quiz.questions[index].clone();
                let next = move |_: ()| {
                    if index + 1 < total {
                        edit(&|s| s.at = (index + 1) as u32);
                        focus("quiz-question");
                    } else {
                        finish.with_value(|f| f());
                    }
                };
                view! { <QuestionView q index total state edit=Callback::new(move |f: EditFn| edit(&*f)) next=Callback::new(next) /> }.into_any()
            }}
        </div>
    }
}

type EditFn = Arc<dyn Fn(&mut StoredQuiz) + Send + Sync>;

/// Changes the answer to question `index` (creating it if the reader had not reached it).
fn answer_edit(index: usize, f: impl Fn(&mut StoredAnswer) + Send + Sync + 'static) -> EditFn {
    Arc::new(move |s: &mut StoredQuiz| {
        while s.answers.len() <= index {
            s.answers.push(StoredAnswer::default());
        }
        f(&mut s.answers[index]);
    })
}

#[component]
fn QuestionView(
    q: Question,
    index: usize,
    total: usize,
    state: RwSignal<Option<StoredQuiz>>,
    edit: Callback<EditFn>,
    next: Callback<()>,
) -> impl IntoView {
    let current = Memo::new(move |_| state.with(|s| s.as_ref().and_then(|s| s.answers.get(index).cloned()).unwrap_or_default()));
    let message: RwSignal<Option<String>> = RwSignal::new(None);
    let revealed = move || current.with(|a| a.revealed);
    let question = StoredValue::new(q.clone());
    let reveal = move |_| {
        let a = current.get_untracked();
        let q = question.get_value();
        let explanation = if matches!(q.kind, QuestionKind::Explain { .. }) { a.text.clone() } else { a.explanation.clone() };
        let problem = match &q.kind {
            QuestionKind::Numeric { .. } if a.text.trim().is_empty() => Some("type your answer first".to_owned()),
            QuestionKind::Numeric { .. } => match quiz::grade(&q, &answer_of(&q, &a)).grade {
                Grade::Unreadable(msg) => Some(msg),
                _ => None,
            },
            QuestionKind::Choice { .. } if a.pick.is_none() => Some("pick one of the options first".to_owned()),
            QuestionKind::Explain { .. } if explanation.trim().is_empty() => Some("write your explanation first, then compare it with the model answer".to_owned()),
            _ => None,
        }
        .or_else(|| quiz::ready_to_reveal(&q, &Attempt { answer: answer_of(&q, &a), explanation }).err().map(str::to_owned));
        match problem {
            Some(msg) => {
                message.set(Some(msg));
                focus("quiz-message");
            }
            None => {
                message.set(None);
                edit.run(answer_edit(index, |a| a.revealed = true));
                focus("quiz-feedback");
            }
        }
    };
    let kind = q.kind.clone();
    let input = match &kind {
        QuestionKind::Numeric { unit, .. } => {
            let label = match unit {
                Some(u) => format!("Your answer, in {u}"),
                None => "Your answer".to_owned(),
            };
            view! {
                <label for="quiz-answer">{label}</label>
                <input id="quiz-answer" type="text" inputmode="decimal" autocomplete="off" enterkeyhint="next"
                    aria-describedby="quiz-message"
                    prop:value=move || current.with(|a| a.text.clone())
                    prop:readonly=revealed
                    on:input=move |ev| { let v = event_target_value(&ev); edit.run(answer_edit(index, move |a| a.text = v.clone())) } />
            }
            .into_any()
        }
        QuestionKind::Choice { options, .. } => {
            let options = options
                .iter()
                .enumerate()
                .map(|(i, option)| {
                    let id = format!("quiz-option-{i}");
                    let letter = (b'A' + (i % 26) as u8) as char;
                    view! {
                        <div class="choice option">
                            <input type="radio" name="quiz-option" id=id.clone() prop:disabled=revealed
                                prop:checked=move || current.with(|a| a.pick == Some(i as u32))
                                on:change=move |_| edit.run(answer_edit(index, move |a| a.pick = Some(i as u32))) />
                            <label for=id>{format!("{letter}) {option}")}</label>
                        </div>
                    }
                })
                .collect_view();
            view! { <fieldset class="options"><legend>"Pick one"</legend>{options}</fieldset> }.into_any()
        }
        QuestionKind::Explain { .. } => view! {
            <label for="quiz-answer">"Your explanation"</label>
            <textarea id="quiz-answer" rows="4" prop:readonly=revealed prop:value=move || current.with(|a| a.text.clone())
                on:input=move |ev| { let v = event_target_value(&ev); edit.run(answer_edit(index, move |a| a.text = v.clone())) }></textarea>
        }
        .into_any(),
    };
    let asks_why = !matches!(kind, QuestionKind::Explain { .. });
    let feedback = move || {
        let a = current.get();
        if !a.revealed {
            return ().into_any();
        }
        let q = question.get_value();
        let explain = matches!(q.kind, QuestionKind::Explain { .. });
        let fb = quiz::grade(&q, &answer_of(&q, &a));
        let verdict = match (&fb.grade, explain, a.self_marked) {
            (_, true, None) => "Compare your explanation with this one, then say whether you had it.".to_owned(),
            (Grade::Right, _, _) => "Right.".to_owned(),
            (Grade::Wrong, _, _) => "Not this time.".to_owned(),
            (Grade::Unreadable(msg), _, _) => format!("Could not read the answer: {msg}."),
        };
        let class = match (&fb.grade, explain && a.self_marked.is_none()) {
            (_, true) => "feedback",
            (Grade::Right, _) => "feedback right",
            _ => "feedback wrong",
        };
        view! {
            <section class=class id="quiz-feedback" tabindex="-1" aria-live="polite" aria-labelledby="quiz-verdict">
                <p class="verdict" id="quiz-verdict">{verdict}</p>
                <p><strong>{if explain { "A model answer: " } else { "The answer: " }}</strong><span id="quiz-expected">{fb.expected.clone()}</span></p>
                {(!explain).then(|| fb.why.clone().map(|why| view! { <p class="why"><strong>"Why: "</strong>{why}</p> }))}
                {(explain && a.self_marked.is_none()).then(|| view! {
                    <div class="actions">
                        <button type="button" class="button big" id="quiz-mark-right" on:click=move |_| edit.run(answer_edit(index, |a| a.self_marked = Some(true)))>"I had it"</button>
                        <button type="button" class="button big" id="quiz-mark-wrong" on:click=move |_| edit.run(answer_edit(index, |a| a.self_marked = Some(false)))>"I missed it"</button>
                    </div>
                })}
            </section>
        }
        .into_any()
    };
    let can_go_on = move || current.with(|a| a.revealed && (asks_why || a.self_marked.is_some()));
    let last = index + 1 == total;
    view! {
        <p class="progress-line" id="quiz-progress">{format!("Question {} of {total}", index + 1)}</p>
        <progress max=total.to_string() value=index.to_string() aria-hidden="true"></progress>
        <section class="question" id="quiz-question" tabindex="-1" data-key=q.key.clone() aria-labelledby="quiz-prompt">
            <h2 id="quiz-prompt" class="prompt">{q.prompt.clone()}</h2>
            {input}
            {asks_why.then(|| view! {
                <label for="quiz-why">"Why? Say it in a sentence before you see the answer"</label>
                <textarea id="quiz-why" rows="2" prop:readonly=revealed prop:value=move || current.with(|a| a.explanation.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); edit.run(answer_edit(index, move |a| a.explanation = v.clone())) }></textarea>
            })}
            <p class="error" id="quiz-message" role="alert" tabindex="-1">{move || message.get()}</p>
            <Show when=move || !revealed()>
                <div class="actions">
                    <button type="button" class="button primary big" id="quiz-reveal" on:click=reveal>"Check my answer"</button>
                </div>
            </Show>
            {feedback}
            <Show when=can_go_on>
                <div class="actions">
                    <button type="button" class="button primary big" id="quiz-next" on:click=move |_| next.run(())>
                        {if last { "See my score" } else { "Next question" }}
                    </button>
                </div>
            </Show>
        </section>
    }
}

#[component]
fn ScoreView(score: Score) -> impl IntoView {
    let passed = score.passed();
    let reread = score
        .reread
        .iter()
        .map(|r| {
            let link = r.link.as_ref().map(|l| match l.split_once('#') {
                Some((path, anchor)) => format!("{}#{anchor}", render::route(path)),
                None => render::route(l),
            });
            match link {
                Some(href) => view! { <li><a href=href>{r.title.clone()}</a></li> }.into_any(),
                None => view! { <li>{r.title.clone()}</li> }.into_any(),
            }
        })
        .collect_view();
    let missed = score.missed.len();
    view! {
        <section class="score" id="quiz-score" tabindex="-1" aria-labelledby="quiz-score-heading">
            <h2 id="quiz-score-heading">{format!("{} of {} right", score.right, score.total)}</h2>
            <p id="quiz-verdict-final">{if passed {
                format!("Passed: {}% or more is a pass.", quiz::PASS_PERCENT)
            } else {
                format!("Not passed yet: a pass is {}% or more.", quiz::PASS_PERCENT)
            }}</p>
            {(missed > 0).then(|| view! {
                <h3>"Re-read before the next attempt"</h3>
                <ul class="reread" id="quiz-reread">{reread}</ul>
                <p class="muted">{format!("{missed} missed {} will come back in review from tomorrow.", if missed == 1 { "question" } else { "questions" })}</p>
            })}
        </section>
    }
}
