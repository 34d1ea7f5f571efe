//! `/session/:id`: the hour, from Open to Log, on the real clock.
//!
//! Everything timed comes from core's `engine::hour` (the plan, the panels, the nudges, the
//! entry's date), the hint ladder from `engine::ladder`, and Next from `engine::locate`. This
//! page keeps only the sitting's state: when it started, where the reader is, the hint requests
//! made, and the Verify outcome. That state is saved in IndexedDB (prefs `hour:<id>`) at every
//! change, so a reload, a locked phone or a closed laptop comes back at the same minute and the
//! same rung.

use std::sync::Arc;

use bookside_core::engine::hour::{self, Clock, Nudge, Panel, Phase, Position, Sitting, StopReason};
use bookside_core::engine::ladder::{self, Ladder, Note, Request, Step};
use bookside_core::engine::locate;
use bookside_core::guide::{Card, CardKind, ReadItem};
use bookside_core::progress::{self, DoneWhen, Mark, NewEntry, Next, Status, StickingPoint};
use bookside_core::render;
use bookside_core::wire::Outcome;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_params_map, use_query_map};
use serde_json::{Value, json};

use crate::files::{LogCtx, ProfileCtx};
use crate::library::{Library, ParsedLog, WithLibrary};
use crate::status;
use crate::worker::WorkerCtx;

#[component]
pub fn SessionPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    view! {
        <div class="page session-page">
            <crate::pages::remediation::RemediationOffer />
            <WithLibrary view=move |library| {
                let library = library.clone();
                move || {
                    let id = id.get();
                    match library.guide.card(&id).cloned() {
                        Some(card) => view! { <HourView card library=library.clone() /> }.into_any(),
                        None => view! { <crate::pages::UnknownCard id /> }.into_any(),
                    }
                }
            } />
        </div>
    }
}

// ---------------------------------------------------------------------------------------------
// The sitting's state and how it is kept

/// What Verify came to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict {
    outcome: Outcome,
    message: Option<String>,
    /// The reader recorded it by hand (no worker ran it).
    self_reported: bool,
    cancelled: bool,
    /// The worker's id of the run (none when self-reported).
    run: Option<String>,
}

/// One sitting of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hour {
    start_unix: i64,
    utc_offset_minutes: i32,
    resumed: bool,
    phase: Phase,
    past_midpoint: bool,
    /// The reader stopped at the Midpoint: the entry is PARTIAL, resumed there next time.
    stopped_at_midpoint: bool,
    /// Which of the card's hint ladders is open.
    obstacle: usize,
    /// Every ladder request so far; the ladder is their replay under the profile's cap.
    requests: Vec<Request>,
    verdict: Option<Verdict>,
}

const PHASES: [(Phase, &str); 5] = [(Phase::Open, "open"), (Phase::Read, "read"), (Phase::Build, "build"), (Phase::Verify, "verify"), (Phase::Log, "log")];

fn phase_key(phase: Phase) -> &'static str {
    PHASES.iter().find(|(p, _)| *p == phase).map_or("open", |(_, k)| k)
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Open => "Locate + Open",
        Phase::Read => "Read",
        Phase::Build => "Build",
        Phase::Verify => "Verify",
        Phase::Log => "Log",
    }
}

fn outcome_key(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Skip => "skip",
        Outcome::Error => "error",
    }
}

impl Hour {
    fn to_json(&self) -> String {
        let requests: Vec<&str> = self
            .requests
            .iter()
            .map(|r| match r {
                Request::Hint => "hint",
                Request::JustShowMe => "show",
                Request::NewObstacle => "new",
            })
            .collect();
        let verdict = self.verdict.as_ref().map(|v| {
            json!({ "outcome": outcome_key(v.outcome), "message": v.message, "selfReported": v.self_reported, "cancelled": v.cancelled, "run": v.run })
        });
        json!({
            "start": self.start_unix,
            "offset": self.utc_offset_minutes,
            "resumed": self.resumed,
            "phase": phase_key(self.phase),
            "pastMidpoint": self.past_midpoint,
            "stoppedAtMidpoint": self.stopped_at_midpoint,
            "obstacle": self.obstacle,
            "requests": requests,
            "verdict": verdict,
        })
        .to_string()
    }

    /// Reads a saved sitting; `None` for anything unreadable (the page then offers a fresh start).
    fn from_json(text: &str) -> Option<Hour> {
        let v: Value = serde_json::from_str(text).ok()?;
        let phase_text = v.get("phase")?.as_str()?;
        let phase = PHASES.iter().find(|(_, k)| *k == phase_text)?.0;
        let requests = v
            .get("requests")?
            .as_array()?
            .iter()
            .filter_map(|r| match r.as_str()? {
                "hint" => Some(Request::Hint),
                "show" => Some(Request::JustShowMe),
                "new" => Some(Request::NewObstacle),
                _ => None,
            })
            .collect();
        let verdict = v.get("verdict").filter(|d| !d.is_null()).and_then(|d| {
            let outcome = match d.get("outcome")?.as_str()? {
                "pass" => Outcome::Pass,
                "fail" => Outcome::Fail,
                "skip" => Outcome::Skip,
                _ => Outcome::Error,
            };
            Some(Verdict {
                outcome,
                message: d.get("message").and_then(Value::as_str).map(str::to_owned),
                self_reported: d.get("selfReported").and_then(Value::as_bool).unwrap_or(false),
                cancelled: d.get("cancelled").and_then(Value::as_bool).unwrap_or(false),
                run: d.get("run").and_then(Value::as_str).map(str::to_owned),
            })
        });
        Some(Hour {
            start_unix: v.get("start")?.as_i64()?,
            utc_offset_minutes: v.get("offset")?.as_i64()? as i32,
            resumed: v.get("resumed")?.as_bool()?,
            phase,
            past_midpoint: v.get("pastMidpoint").and_then(Value::as_bool).unwrap_or(false),
            stopped_at_midpoint: v.get("stoppedAtMidpoint").and_then(Value::as_bool).unwrap_or(false),
            obstacle: v.get("obstacle").and_then(Value::as_u64).unwrap_or(0) as usize,
            requests,
            verdict,
        })
    }
}

fn pref_key(id: &str) -> String {
    format!("hour:{id}")
}

fn now_unix() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
}

/// The reader's offset from UTC in minutes, now (+120 for UTC+2).
fn utc_offset_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

/// The sitting as a signal, saved at every change. `pending` is true until the last change has
/// reached IndexedDB (the page says so, and tests wait for it before reloading).
#[derive(Debug, Clone, Copy)]
struct Store {
    id: StoredValue<String>,
    hour: RwSignal<Option<Hour>>,
    loaded: RwSignal<bool>,
    revision: RwSignal<u32>,
    saved: RwSignal<u32>,
    /// The entry this sitting saved (its Next), shown once the sitting is over.
    logged: RwSignal<Option<String>>,
}

impl Store {
    fn new(id: String) -> Store {
        let store = Store {
            id: StoredValue::new(id.clone()),
            hour: RwSignal::new(None),
            loaded: RwSignal::new(false),
            revision: RwSignal::new(0),
            saved: RwSignal::new(0),
            logged: RwSignal::new(None),
        };
        spawn_local(async move {
            match crate::storage::load_pref(&pref_key(&id)).await {
                Ok(text) => store.hour.set(text.as_deref().and_then(Hour::from_json)),
                Err(err) => status::report_error(&format!("{}; the hour starts afresh", err.0)),
            }
            store.loaded.set(true);
        });
        store
    }

    fn set(self, hour: Option<Hour>) {
        let text = hour.as_ref().map(Hour::to_json).unwrap_or_default();
        self.hour.set(hour);
        let revision = self.revision.get_untracked() + 1;
        self.revision.set(revision);
        let key = pref_key(&self.id.get_value());
        spawn_local(async move {
            match crate::storage::save_pref(&key, &text).await {
                Ok(()) => {
                    if self.saved.get_untracked() < revision {
                        self.saved.set(revision);
                    }
                }
                Err(err) => status::report_error(&format!("{}; the hour goes on, but a reload would lose its place", err.0)),
            }
        });
    }

    fn update(self, f: impl FnOnce(&mut Hour)) {
        let Some(mut hour) = self.hour.get_untracked() else { return };
        f(&mut hour);
        self.set(Some(hour));
    }
}

// ---------------------------------------------------------------------------------------------
// The page

#[component]
fn HourView(card: Card, library: Arc<Library>) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let ProfileCtx(profile_file) = expect_context();
    let store = Store::new(card.id.clone());
    let query = use_query_map();
    let profile = Memo::new(move |_| profile_file.text.with(|t| bookside_core::profile::parse(t).0.profile));
    let milestone = card.kind() == CardKind::Milestone;

    // The real clock, once a second; the interval stops when the page goes.
    let now = RwSignal::new(now_unix());
    if let Ok(handle) = set_interval_with_handle(move || now.set(now_unix()), std::time::Duration::from_secs(1)) {
        on_cleanup(move || handle.clear());
    }

    let lib = library.clone();
    let card_id = card.id.clone();
    let start = move || {
        let resumed = crate::library::with_context(&lib, parsed, |cx| locate::locate(cx, Some(&card_id)).resume_at_midpoint);
        store.set(Some(Hour {
            start_unix: now_unix(),
            utc_offset_minutes: utc_offset_minutes(),
            resumed,
            phase: Phase::Open,
            past_midpoint: resumed,
            stopped_at_midpoint: false,
            obstacle: 0,
            requests: Vec::new(),
            verdict: None,
        }));
    };
    // `?start=now` (home's one tap) starts the hour as soon as the page knows none is running.
    let auto = start.clone();
    Effect::new(move |_| {
        if store.loaded.get() && store.hour.with_untracked(Option::is_none) && query.with_untracked(|q| q.get("start").is_some()) {
            auto();
        }
    });

    let sitting = Memo::new(move |_| {
        store.hour.with(|h| {
            h.as_ref().map(|h| Sitting {
                start_unix: h.start_unix,
                utc_offset_minutes: h.utc_offset_minutes,
                pace: profile.with(|p| p.pace),
                resumed: h.resumed,
                milestone,
            })
        })
    });
    let clock = Memo::new(move |_| {
        let sitting = sitting.get()?;
        let at = store.hour.with(|h| h.as_ref().map(|h| Position { phase: h.phase, past_midpoint: h.past_midpoint }))?;
        Some(hour::clock(&sitting, now.get(), at))
    });

    // The panels are rebuilt only when the phase (or its panel list) changes, never on a tick:
    // a running Verify or a half-written entry must survive the minute changing.
    let panels = Memo::new(move |_| clock.with(|c| c.as_ref().map(|c| c.panels.clone())));
    let phase = Memo::new(move |_| store.hour.with(|h| h.as_ref().map(|h| h.phase)));

    let title = format!("{} — {}", card.id, card.title);
    let card = StoredValue::new(card);
    let library = StoredValue::new(library);
    view! {
        <h1 id="session-title">{title}</h1>
        <p class="muted">{move || card.with_value(|c| format!("Phase {} — {}", c.phase, c.phase_title))}</p>
        {move || {
            if !store.loaded.get() {
                return view! { <p class="loading">"Opening this session…"</p> }.into_any();
            }
            if let Some(next) = store.logged.get() {
                return view! {
                    <section class="panel" id="hour-logged"><h2>"Logged"</h2>
                        <p>{format!("The entry is in your log. Next: {next}.")}</p>
                        <p><a class="button" href="/log">"See your log"</a> " " <a class="button primary" href="/">"Where you are"</a></p>
                    </section>
                }.into_any();
            }
            let Some(clock) = clock.get() else {
                let start = start.clone();
                return view! { <NotStarted card=card.get_value() start=Callback::new(move |()| start()) /> }.into_any();
            };
            view! { <Timeline clock store /> }.into_any()
        }}
        <Show when=move || clock.with(Option::is_some)>
            <div id="hour" data-pending=move || (store.saved.get() < store.revision.get()).to_string()
                data-phase=move || store.hour.with(|h| h.as_ref().map_or("", |h| phase_key(h.phase)))>
                <Nudges clock store />
                {move || {
                    let (Some(panels), Some(phase)) = (panels.get(), phase.get()) else { return ().into_any() };
                    view! { <Panels panels phase store card library profile /> }.into_any()
                }}
                <PhaseNav clock store />
            </div>
        </Show>
    }
}

#[component]
fn NotStarted(card: Card, start: Callback<()>) -> impl IntoView {
    let done_when = card.done_when.as_ref().map(|d| d.command.clone());
    view! {
        <section class="panel" aria-labelledby="before-heading">
            <h2 id="before-heading">"Before you start"</h2>
            <p>{card.goal.clone()}</p>
            {done_when.map(|c| view! { <p>"It ends when this passes: " <code>{c}</code></p> })}
            <p class="muted">"The hour runs on the real clock from the moment you start: Open, Read, Build, Verify, Log. You can close the page; it picks up where you were."</p>
            <button type="button" class="button primary" id="start-hour" on:click=move |_| start.run(())>"Start the hour"</button>
        </section>
    }
}

/// The plan as a row of phases with their minutes; the Midpoint sits on Build.
#[component]
fn Timeline(clock: Clock, store: Store) -> impl IntoView {
    let at = store.hour.with_untracked(|h| h.as_ref().map(|h| h.phase)).unwrap_or(Phase::Open);
    let end = clock.plan.last().map_or(0, |s| s.to);
    let percent = (clock.elapsed_minutes.min(end) * 100).checked_div(end).unwrap_or(0);
    let steps = clock
        .plan
        .iter()
        .map(|slot| {
            let slot = *slot;
            let current = (slot.phase == at).then_some("step");
            let planned = slot.phase == clock.planned;
            let midpoint = slot.phase == Phase::Build;
            view! {
                <li class="step" class:here=slot.phase == at class:planned=planned data-phase=phase_key(slot.phase)>
                    <button type="button" aria-current=current on:click=move |_| store.update(|h| h.phase = slot.phase)
                        aria-label=format!("{}, minutes {} to {}{}", phase_name(slot.phase), slot.from, slot.to, if planned { ", where the clock is" } else { "" })>
                        <span class="name">{phase_name(slot.phase)}</span>
                        <span class="minutes">{format!("{}–{}", slot.from, slot.to)}</span>
                        {midpoint.then(|| view! { <span class="midpoint-mark">"Midpoint"</span> })}
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="timeline-wrap" aria-label="The hour">
            <p class="clock" id="elapsed" data-minute=clock.elapsed_minutes.to_string()>
                {format!("Minute {} of {end}", clock.elapsed_minutes)}
                <span class="muted">{format!(" · the clock says {}", phase_name(clock.planned))}</span>
            </p>
            <div class="elapsed-bar" aria-hidden="true"><div style=format!("width: {percent}%")></div></div>
            <ol class="timeline" id="timeline">{steps}</ol>
        </section>
    }
}

#[component]
fn Nudges(clock: Memo<Option<Clock>>, store: Store) -> impl IntoView {
    let items = move || {
        clock.with(|c| c.as_ref().map(|c| c.nudges.clone()).unwrap_or_default()).into_iter().map(move |nudge| {
            let (key, text, action): (&str, String, Option<(&str, Phase)>) = match nudge {
                Nudge::OfferMidpointStop(StopReason::HalfHourPacing) => (
                    "midpoint-stop",
                    "This sitting is nearly over: stopping at the Midpoint is the plan. It is logged PARTIAL and the next sitting starts there.".into(),
                    None,
                ),
                Nudge::OfferMidpointStop(StopReason::HourRunningAway) => (
                    "midpoint-stop",
                    "Forty minutes in and the Midpoint not reached: you may stop at the Midpoint, log PARTIAL and resume there next time.".into(),
                    None,
                ),
                Nudge::MoveToVerify => ("verify", "Time to move on to Verify.".into(), Some(("Go to Verify", Phase::Verify))),
                Nudge::LogNow => (
                    "log",
                    "Time to write the log entry. Red at the hour is a normal outcome: it is logged PARTIAL.".into(),
                    Some(("Go to Log", Phase::Log)),
                ),
                Nudge::Overtime { minutes } => ("overtime", format!("{minutes} minutes past the plan."), None),
            };
            let stop = key == "midpoint-stop";
            view! {
                <p class="nudge" data-nudge=key>
                    {text}
                    {action.map(|(label, phase)| view! {
                        " " <button type="button" class="button small" on:click=move |_| store.update(|h| h.phase = phase)>{label}</button>
                    })}
                    {stop.then(|| view! {
                        " " <button type="button" class="button small" on:click=move |_| stop_at_midpoint(store)>"Stop at the Midpoint"</button>
                    })}
                </p>
            }
        }).collect_view()
    };
    view! { <div class="nudges" id="nudges" role="status" aria-live="polite">{items}</div> }
}

fn stop_at_midpoint(store: Store) {
    store.update(|h| {
        h.stopped_at_midpoint = true;
        h.phase = Phase::Log;
    });
}

/// Moves to the next phase of the plan.
#[component]
fn PhaseNav(clock: Memo<Option<Clock>>, store: Store) -> impl IntoView {
    let next = move || {
        let plan = clock.with(|c| c.as_ref().map(|c| c.plan.clone()))?;
        let at = store.hour.with(|h| h.as_ref().map(|h| h.phase))?;
        let i = plan.iter().position(|s| s.phase == at)?;
        plan.get(i + 1).map(|s| s.phase)
    };
    view! {
        {move || next().map(|phase| view! {
            <div class="actions phase-nav">
                <button type="button" class="button primary" id="phase-next" on:click=move |_| store.update(|h| h.phase = phase)>
                    {format!("Next: {}", phase_name(phase))}
                </button>
            </div>
        })}
    }
}

#[component]
fn Panels(panels: Vec<Panel>, phase: Phase, store: Store, card: StoredValue<Card>, library: StoredValue<Arc<Library>>, profile: Memo<bookside_core::profile::Profile>) -> impl IntoView {
    let card = card.get_value();
    let library = library.get_value();
    let heading = phase_name(phase);
    let panels = panels
        .iter()
        .map(|panel| match panel {
            Panel::Goal => view! { <section class="panel" id="panel-goal"><h3>"Goal"</h3><p>{card.goal.clone()}</p></section> }.into_any(),
            Panel::DoneWhen => done_when(&card).into_any(),
            Panel::RetrievalCheck => view! { <RetrievalCheck library=library.clone() store /> }.into_any(),
            Panel::ReadList => read_list(&card).into_any(),
            Panel::Midpoint => view! { <MidpointPanel card=card.clone() store /> }.into_any(),
            Panel::ResumeAtMidpoint => view! {
                <section class="panel" id="panel-resume"><h3>"Resume at the Midpoint"</h3>
                    <p>"This sitting continues a PARTIAL entry: pick up at " <strong>{card.midpoint.clone()}</strong> "."</p></section>
            }
            .into_any(),
            Panel::Hints => view! { <Hints card=card.clone() store profile /> }.into_any(),
            Panel::RunDoneWhen => view! { <Verify card=card.clone() store /> }.into_any(),
            Panel::Quiz => {
                let href = format!("/quiz/{}", card.id);
                view! {
                    <section class="panel" id="panel-quiz"><h3>"Self-check quiz"</h3>
                        <p>{format!("Topics: {}. ", card.quiz.join(", "))} <a class="button" href=href>"Take the quiz"</a></p></section>
                }
                .into_any()
            }
            Panel::EntryDraft => view! { <EntryDraft card=card.clone() library=library.clone() store /> }.into_any(),
        })
        .collect_view();
    view! {
        <section class="phase" aria-labelledby="phase-heading">
            <h2 id="phase-heading">{heading}</h2>
            {panels}
        </section>
    }
}

fn done_when(card: &Card) -> impl IntoView + use<> {
    let body = match &card.done_when {
        Some(d) => view! { <p>"Done when this passes, exactly as printed: " <code id="done-when-command">{d.command.clone()}</code></p> }.into_any(),
        None => view! { <p>{format!("Done when you pass the self-check quiz on: {}", card.quiz.join(", "))}</p> }.into_any(),
    };
    view! { <section class="panel" id="panel-done-when"><h3>"Done-when"</h3>{body}</section> }
}

fn read_list(card: &Card) -> impl IntoView + use<> {
    let items = card
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
        <section class="panel" id="panel-read"><h3>"Read"</h3>
            <p class="muted">"Work through these sections; predict before you check."</p>
            <ul>{items}</ul>
        </section>
    }
}

/// Open's warm-up on the last entry's Sticking point; never a gate.
#[component]
fn RetrievalCheck(library: Arc<Library>, store: Store) -> impl IntoView {
    let parsed: ParsedLog = expect_context();
    let seed = store.hour.with_untracked(|h| h.as_ref().map_or(0, |h| h.start_unix as u64));
    let check = Memo::new(move |_| parsed.log.with(|log| locate::retrieval_check(&library.guide, &library.quiz, log, seed)));
    move || {
        check.get().map(|c| {
            let prompt = c.question.as_ref().map(|q| q.prompt.clone());
            let answer = c.question.as_ref().map(|q| q.expected());
            view! {
                <section class="panel" id="panel-retrieval"><h3>"Two-minute warm-up"</h3>
                    <p>{format!("Last time ({}) the sticking point was “{}”. From memory, without looking:", c.session, c.concept)}</p>
                    {match prompt {
                        Some(p) => view! { <p class="question">{p}</p> }.into_any(),
                        None => view! { <p class="question">"Explain that idea in two sentences, as you would to a colleague."</p> }.into_any(),
                    }}
                    {answer.map(|a| view! { <details><summary>"Check your answer"</summary><p>{a}</p></details> })}
                    <p class="muted">"A warm-up, not a test: nothing is recorded."</p>
                </section>
            }
        })
    }
}

#[component]
fn MidpointPanel(card: Card, store: Store) -> impl IntoView {
    let reached = move || store.hour.with(|h| h.as_ref().is_some_and(|h| h.past_midpoint));
    view! {
        <section class="panel" id="panel-midpoint"><h3>"Midpoint"</h3>
            <p>{card.midpoint.clone()}</p>
            <div class="choice">
                <input type="checkbox" id="midpoint-reached" prop:checked=reached
                    on:change=move |ev| { let on = event_target_checked(&ev); store.update(|h| h.past_midpoint = on); } />
                <label for="midpoint-reached">"I have reached the Midpoint"</label>
            </div>
            <button type="button" class="button" id="midpoint-stop" on:click=move |_| stop_at_midpoint(store)>"Stop at the Midpoint (log PARTIAL)"</button>
        </section>
    }
}

/// The ladder of the chosen obstacle, one rung per request, within the profile's cap.
#[component]
fn Hints(card: Card, store: Store, profile: Memo<bookside_core::profile::Profile>) -> impl IntoView {
    let ladders = card.hints.clone();
    if ladders.is_empty() {
        return view! { <section class="panel" id="panel-hints"><h3>"Hints"</h3><p class="muted">"This card has no hint ladder."</p></section> }.into_any();
    }
    let confirming = RwSignal::new(false);
    let state = Memo::new(move |_| {
        let cap = profile.with(|p| p.ladder_cap());
        store.hour.with(|h| {
            let requests = h.as_ref().map(|h| h.requests.clone()).unwrap_or_default();
            let (ladder, steps) = ladder::replay(cap, &requests);
            (ladder, steps.last().copied())
        })
    });
    let obstacle = move || store.hour.with(|h| h.as_ref().map_or(0, |h| h.obstacle));
    let ask = move |request: Request| {
        confirming.set(false);
        store.update(|h| h.requests.push(request));
    };
    let ladders_for_view = ladders.clone();
    let shown = move || {
        let (ladder, step): (Ladder, Option<Step>) = state.get();
        let ladder_index = obstacle().min(ladders_for_view.len() - 1);
        let rungs = &ladders_for_view[ladder_index].rungs;
        let current = ladder.current().map(|r| r.number()).unwrap_or(0);
        let list = rungs
            .iter()
            .filter(|r| r.kind.is_some_and(|k| k.number() <= current))
            .map(|r| {
                let kind = r.kind.expect("filtered on kind");
                let latest = kind.number() == current;
                view! {
                    <li class="rung" class:latest=latest id=latest.then_some("hint-rung") data-rung=kind.number().to_string()>
                        <strong>{format!("Rung {} — {}: ", kind.number(), kind.label())}</strong>{r.text.clone()}
                    </li>
                }
            })
            .collect_view();
        let note = step.and_then(|s| match s {
            Step::Show { note, .. } => note,
            Step::Stay { note, .. } => Some(note),
            Step::Reset => None,
        });
        let note = note.map(|n| match n {
            Note::NoSkipping => "The ladder never skips a rung: here is the next one.".to_owned(),
            Note::SayJustShowMe => "That is the last rung before the answer line. If you really want it, ask for it with “Just show me”.".to_owned(),
            Note::Capped { cap } => format!("Your profile stops the ladder at rung {cap}; nothing further is shown. Re-read the pseudocode and try the line yourself."),
        });
        view! {
            <ol class="rungs" id="hint-rungs">{list}</ol>
            {note.map(|n| view! { <p class="note" id="hint-note" role="status">{n}</p> })}
        }
    };
    let options = ladders
        .iter()
        .enumerate()
        .map(|(i, l)| view! { <option value=i.to_string() selected=move || obstacle() == i>{l.obstacle.clone()}</option> })
        .collect_view();
    let cap = move || profile.with(|p| p.ladder_cap());
    view! {
        <section class="panel" id="panel-hints"><h3>"Stuck? The hint ladder"</h3>
            <label for="hint-obstacle">"What is in the way"</label>
            <select id="hint-obstacle" on:change=move |ev| {
                let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                if i != obstacle() {
                    confirming.set(false);
                    store.update(|h| { h.obstacle = i; h.requests.push(Request::NewObstacle); });
                }
            }>{options}</select>
            {shown}
            <div class="actions">
                <button type="button" class="button" id="hint-next" on:click=move |_| ask(Request::Hint)>"Hint"</button>
                <button type="button" class="button" id="hint-show" on:click=move |_| confirming.set(true)>"Just show me"</button>
            </div>
            <Show when=move || confirming.get()>
                <div class="confirm" role="alertdialog" aria-labelledby="hint-confirm-text">
                    <p id="hint-confirm-text">"Sure? Working it out is the session. This asks for the one blocking line, and only after the pseudocode."</p>
                    <button type="button" class="button" id="hint-show-confirm" on:click=move |_| ask(Request::JustShowMe)>"Yes, show me"</button>
                    <button type="button" class="button" on:click=move |_| confirming.set(false)>"No, I'll keep trying"</button>
                </div>
            </Show>
            <p class="muted">{move || format!("One rung at a time; the highest you reach goes into the log. Your ladder stops at rung {}.", cap())}</p>
        </section>
    }
    .into_any()
}

/// Verify: the Done-when through the worker, live; or by hand, self-reported.
#[component]
fn Verify(card: Card, store: Store) -> impl IntoView {
    let worker: WorkerCtx = expect_context();
    let Some(command) = card.done_when.as_ref().map(|d| d.command.clone()) else {
        return ().into_any();
    };
    let session = StoredValue::new(card.id.clone());
    let running: RwSignal<Option<String>> = RwSignal::new(None);
    let starting = RwSignal::new(false);
    let output = RwSignal::new(String::new());
    let seconds = RwSignal::new(0u32);
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if running.get_untracked().is_some() {
                seconds.update(|s| *s += 1);
            }
        },
        std::time::Duration::from_secs(1),
    ) {
        on_cleanup(move || handle.clear());
    }
    let run = move |_| {
        if starting.get_untracked() || running.get_untracked().is_some() {
            return;
        }
        starting.set(true);
        problem.set(None);
        output.set(String::new());
        seconds.set(0);
        let id = session.get_value();
        // The page may be left while the run goes on: the signals below may be gone by the time
        // the worker answers, hence `try_` (the outcome still reaches the sitting's state).
        spawn_local(async move {
            let started = worker.start_run(&id).await;
            starting.try_set(false);
            let started = match started {
                Ok(s) => s,
                Err(message) => {
                    problem.try_set(Some(message));
                    return;
                }
            };
            let run_id = started.run.clone();
            running.try_set(Some(run_id.clone()));
            let result = worker.follow_run(&started.events, |text| {
                output.try_update(|o| o.push_str(text));
            }).await;
            running.try_set(None);
            match result {
                Ok(result) => {
                    let cancelled = result.end == bookside_core::wire::RunEnd::Cancelled;
                    if result.outcome != Outcome::Error {
                        worker.record(&id, result.outcome);
                    }
                    store.update(|h| {
                        h.verdict = Some(Verdict { outcome: result.outcome, message: result.message.clone(), self_reported: false, cancelled, run: Some(run_id) });
                    });
                }
                Err(message) => {
                    problem.try_set(Some(message));
                }
            }
        });
    };
    let cancel = move |_| {
        let Some(run) = running.get_untracked() else { return };
        spawn_local(async move {
            if let Err(message) = worker.cancel_run(&run).await {
                problem.try_set(Some(message));
            }
        });
    };
    let by_hand = move |outcome: Outcome| {
        store.update(|h| h.verdict = Some(Verdict { outcome, message: None, self_reported: true, cancelled: false, run: None }));
    };
    let copy_command = command.clone();
    let copy = move |_| {
        let text = copy_command.clone();
        spawn_local(async move {
            match crate::platform::copy(&text).await {
                Ok(()) => status::report_info("Command copied."),
                Err(message) => status::report_error(&message),
            }
        });
    };
    let paired = move || worker.connection.get().is_paired();
    let verdict = move || store.hour.with(|h| h.as_ref().and_then(|h| h.verdict.clone()));
    let session_for_outcome = card.id.clone();
    view! {
        <section class="panel" id="panel-verify"><h3>"Run the Done-when"</h3>
            <Show when=paired>
                <div class="actions">
                    <button type="button" class="button primary" id="verify-run" on:click=run
                        disabled=move || starting.get() || running.get().is_some()>"Run it on the worker"</button>
                    <Show when=move || running.get().is_some()>
                        <button type="button" class="button" id="verify-cancel" on:click=cancel>"Cancel"</button>
                    </Show>
                </div>
                <Show when=move || starting.get() || running.get().is_some()>
                    <p class="running" id="verify-progress">
                        <progress aria-label="The test is running"></progress>
                        {move || format!(" Running… {} s", seconds.get())}
                    </p>
                </Show>
                <Show when=move || output.with(|o| !o.is_empty())>
                    <pre class="output" id="verify-output" aria-label="Output of the test" aria-live="off">{move || output.get()}</pre>
                </Show>
            </Show>
            {move || problem.get().map(|p| view! { <p class="error" role="alert" id="verify-problem">{p}</p> })}
            {
                let session = session_for_outcome.clone();
                move || verdict().map(|v| outcome_view(&v, &session))
            }
            <details class="by-hand" id="verify-by-hand" open=move || !paired()>
                <summary>"No worker? Run it yourself"</summary>
                <p>"In your clone, run exactly:"</p>
                <pre><code id="verify-command">{command.clone()}</code></pre>
                <div class="actions">
                    <button type="button" class="button" on:click=copy>"Copy the command"</button>
                </div>
                <p>"Then record what it said. It is logged as self-reported, not verified."</p>
                <div class="actions">
                    <button type="button" class="button" id="self-pass" on:click=move |_| by_hand(Outcome::Pass)>"It passed"</button>
                    <button type="button" class="button" id="self-fail" on:click=move |_| by_hand(Outcome::Fail)>"It failed"</button>
                    <button type="button" class="button" id="self-skip" on:click=move |_| by_hand(Outcome::Skip)>"It skipped"</button>
                </div>
            </details>
        </section>
    }
    .into_any()
}

fn outcome_view(v: &Verdict, session: &str) -> impl IntoView + use<> {
    let (label, text) = match (v.outcome, v.cancelled) {
        (_, true) => ("Cancelled", "The run was cancelled and its processes stopped. Run it again when you are ready.".to_owned()),
        (Outcome::Pass, _) => ("Pass", format!("{session}'s Done-when is green: the artifact is there and meets the card's criterion.")),
        (Outcome::Fail, _) => ("Fail", v.message.clone().unwrap_or_else(|| "the test failed; read its output above".into())),
        (Outcome::Skip, _) => ("Skip", v.message.clone().unwrap_or_else(|| "the artifact does not exist yet".into())),
        (Outcome::Error, _) => ("Error", v.message.clone().unwrap_or_else(|| "the test could not run".into())),
    };
    let source = if v.self_reported { "self-reported" } else { "verified by the worker" };
    let class = format!("outcome outcome-{}", if v.cancelled { "cancelled" } else { outcome_key(v.outcome) });
    view! {
        <p class=class id="verify-outcome" role="status" data-run=v.run.clone()>
            <strong>{label}</strong> " · " <span class="source">{source}</span> " — " <span class="message">{text}</span>
        </p>
    }
}

/// Log: the entry pre-filled from the hour, finished by the reader, saved through the log file.
#[component]
fn EntryDraft(card: Card, library: Arc<Library>, store: Store) -> impl IntoView {
    let profile_cap = {
        let ProfileCtx(profile) = expect_context();
        profile.text.with_untracked(|t| bookside_core::profile::parse(t).0.profile.ladder_cap())
    };
    let Some(hour) = store.hour.get_untracked() else { return ().into_any() };
    let (ladder, _) = ladder::replay(profile_cap, &hour.requests);
    let passed = hour.verdict.as_ref().is_some_and(|v| v.outcome == Outcome::Pass && !v.cancelled);
    let status_value = if passed && !hour.stopped_at_midpoint { Status::Done } else { Status::Partial };
    let done_when = match (&card.done_when, &hour.verdict) {
        (Some(d), verdict) => {
            let file = d.test_file.clone().unwrap_or_else(|| d.command.clone());
            match verdict {
                Some(_) => DoneWhen::test(&file, if passed { Mark::Pass } else { Mark::Fail }),
                None => DoneWhen { target: file, mark: None },
            }
        }
        (None, _) => DoneWhen { target: "quiz".into(), mark: None },
    };
    let obstacle = card.hints.get(hour.obstacle).filter(|_| ladder.highest().is_some()).map(|h| h.obstacle.clone()).unwrap_or_default();
    let draft = NewEntry {
        // The day the sitting started, in the reader's time zone (as engine::hour dates it).
        date: hour::local_date(hour.start_unix, hour.utc_offset_minutes),
        session: card.id.clone(),
        title: card.title.clone(),
        status: status_value,
        built: String::new(),
        done_when,
        sticking_point: ladder::sticking_point(&ladder, &obstacle),
        next: Next { session: None, why: String::new() },
    };
    let mut notes = Vec::new();
    if !passed {
        notes.push("The Done-when is not green: this is logged PARTIAL, and the next sitting resumes at the Midpoint. That is a normal outcome.");
    }
    if hour.verdict.as_ref().is_some_and(|v| v.self_reported) {
        notes.push("The outcome was recorded by hand (self-reported).");
    }
    let on_saved = Callback::new(move |next: String| {
        // The sitting is over: the next visit starts a fresh hour.
        store.logged.set(Some(next));
        store.set(None);
    });
    view! { <EntryForm draft library partial_why="resume at the Midpoint" notes on_saved /> }.into_any()
}

/// The entry form a session ends with: `draft` pre-filled (Next from locate, once this entry is
/// in the log; back to this session, for `partial_why`, when it is PARTIAL), finished by the
/// reader and appended to PROGRESS.md in the canonical form. `on_saved` gets the Next line.
/// The hour's Log panel and a read-only session's quiz end screen both use it.
#[component]
pub fn EntryForm(
    draft: NewEntry,
    library: Arc<Library>,
    partial_why: &'static str,
    #[prop(optional)] notes: Vec<&'static str>,
    #[prop(optional)] on_saved: Option<Callback<String>>,
) -> impl IntoView {
    let LogCtx(log) = expect_context();
    let parsed: ParsedLog = expect_context();
    let worker: WorkerCtx = expect_context();
    let mut draft = draft;
    draft.next = {
        let text = log.text.with_untracked(|t| progress::append(t, &draft));
        let (after, _) = progress::parse(&text);
        let runs = worker.runs.with_untracked(|verified| locate::known_runs(&after, verified));
        let cx = locate::Context { guide: &library.guide, log: &after, runs: &runs, phase0_skipped: parsed.phase0_skipped.get_untracked() };
        let location = locate::locate(&cx, None);
        match location.session {
            _ if draft.status == Status::Partial => Next { session: Some(draft.session.clone()), why: partial_why.into() },
            Some(id) => {
                let why = library.guide.card(&id).map(|c| c.title.clone()).unwrap_or_default();
                Next { session: Some(id), why }
            }
            None => Next { session: None, why: "every session is done".into() },
        }
    };
    let date = RwSignal::new(draft.date.to_string());
    let status_word = RwSignal::new(draft.status.as_str().to_owned());
    let built = RwSignal::new(draft.built.clone());
    let done_when_text = RwSignal::new(draft.done_when.canonical());
    let sticking = &draft.sticking_point;
    let sticking_text = RwSignal::new(if sticking.is_none() && sticking.text.is_empty() { "none".to_owned() } else { sticking.canonical() });
    let next_text = RwSignal::new(draft.next.canonical());
    let (session, title) = (draft.session.clone(), draft.title.clone());
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let Some(date_value) = progress::Date::parse(&date.get_untracked()) else {
            status::report_error("the date must be written YYYY-MM-DD, e.g. 2026-07-22");
            return;
        };
        let entry = NewEntry {
            date: date_value,
            session: session.clone(),
            title: title.clone(),
            status: Status::parse(&status_word.get_untracked()),
            built: built.get_untracked(),
            done_when: DoneWhen::parse(&done_when_text.get_untracked()),
            sticking_point: StickingPoint::parse(&sticking_text.get_untracked()),
            next: Next::parse(&next_text.get_untracked()),
        };
        let text = log.text.with_untracked(|t| progress::append(t, &entry));
        spawn_local(async move {
            if log.save(text, "session").await.is_ok() {
                status::report_info("Entry saved to your log.");
                if let Some(f) = on_saved {
                    f.run(next_text.get_untracked());
                }
            }
        });
    };
    let input = |id: &'static str, label: &'static str, value: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <input id=id type="text" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
        }
    };
    let done_when_label = if draft.done_when.quiz_score().is_some() { "Done-when (the quiz score and mark)" } else { "Done-when (test file and mark)" };
    view! {
        <section class="panel" id="panel-log"><h3>"Your log entry"</h3>
            {notes.into_iter().map(|n| view! { <p class="note">{n}</p> }).collect_view()}
            <form class="entry-form" id="entry-draft" on:submit=submit>
                {input("entry-date", "Date (the day the session started)", date)}
                <label for="entry-status">"Status"</label>
                <select id="entry-status" on:change=move |ev| status_word.set(event_target_value(&ev)) prop:value=move || status_word.get()>
                    <option value="DONE">"DONE"</option>
                    <option value="PARTIAL">"PARTIAL"</option>
                </select>
                {input("entry-built", "Built (what you made, with the numbers)", built)}
                {input("entry-done-when", done_when_label, done_when_text)}
                {input("entry-sticking", "Sticking point (and the ladder rung)", sticking_text)}
                {input("entry-next", "Next", next_text)}
                <div class="actions">
                    <button type="submit" class="button primary" id="entry-save">"Save to my log"</button>
                </div>
            </form>
        </section>
    }
}
