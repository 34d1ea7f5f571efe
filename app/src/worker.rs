//! The worker client: pairing, the connection state, and the run API (docs/API.md).
//!
//! Pairing: the worker prints `http://127.0.0.1:PORT/#token=…`. Opening it loads the app from the
//! worker; before the app mounts, [`take_token_from_address`] reads the token from the fragment,
//! keeps it in `sessionStorage` under a key naming the worker's origin (so it is sent to that
//! worker only, and forgotten with the tab), and removes it from the address bar. A hosted copy
//! can be paired by pasting the printed URL ([`WorkerCtx::pair_from_url`]).
//!
//! Every API call carries the token in `X-Bookside-Token`. The run's output is a server-sent event
//! stream read through `fetch()` (an `EventSource` cannot send the header) and split into events
//! by core's `sse::Parser`.

use bookside_core::sse;
use bookside_core::wire::{self, Health, MilestoneStatus, Outcome, RunRecord, RunResult, RunSource, RunStarted, StatusReport};
use gloo_net::http::{Request, Response};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

const WORKER_KEY: &str = "bookside-worker";
const TOKEN_PREFIX: &str = "bookside-token ";
const HEADER: &str = "X-Bookside-Token";

/// What the app knows about its worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// No token for any worker in this tab.
    NotPaired,
    Checking,
    /// The worker answered with its health.
    Paired { book: String, clone: String },
    /// The worker did not answer (stopped, or another port).
    Unreachable(String),
    /// The worker answered but refused the token (it was restarted: new token).
    Refused(String),
}

impl Connection {
    pub fn label(&self) -> &'static str {
        match self {
            Connection::NotPaired => "Worker: not paired",
            Connection::Checking => "Worker: checking…",
            Connection::Paired { .. } => "Worker: paired",
            Connection::Unreachable(_) => "Worker: unreachable",
            Connection::Refused(_) => "Worker: pairing expired",
        }
    }

    pub fn class(&self) -> &'static str {
        match self {
            Connection::Paired { .. } => "paired",
            Connection::Checking => "checking",
            _ => "unpaired",
        }
    }

    pub fn is_paired(&self) -> bool {
        matches!(self, Connection::Paired { .. })
    }
}

/// The worker as every page sees it.
#[derive(Debug, Clone, Copy)]
pub struct WorkerCtx {
    pub connection: RwSignal<Connection>,
    /// The latest status sweep, when one was fetched.
    pub milestones: RwSignal<Option<Vec<MilestoneStatus>>>,
    /// Runs the worker reported (verified), fed to locate and the card statuses.
    pub runs: RwSignal<Vec<RunRecord>>,
    /// A status sweep is in progress.
    pub refreshing: RwSignal<bool>,
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// The paired worker's origin and token, if this tab has one.
fn credentials() -> Option<(String, String)> {
    let storage = session_storage()?;
    let origin = storage.get_item(WORKER_KEY).ok().flatten()?;
    let token = storage.get_item(&format!("{TOKEN_PREFIX}{origin}")).ok().flatten()?;
    Some((origin, token))
}

fn remember(origin: &str, token: &str) -> Result<(), String> {
    let storage = session_storage().ok_or("this browser keeps no session storage here; pairing needs it")?;
    // One worker at a time: forget any other worker's token.
    if let Ok(Some(old)) = storage.get_item(WORKER_KEY)
        && old != origin
    {
        let _ = storage.remove_item(&format!("{TOKEN_PREFIX}{old}"));
    }
    storage
        .set_item(WORKER_KEY, origin)
        .and_then(|()| storage.set_item(&format!("{TOKEN_PREFIX}{origin}"), token))
        .map_err(|_| "the browser refused to keep the pairing token (storage disabled?)".to_owned())
}

/// The token in a fragment such as `#token=abc` (other fragment parts are ignored).
fn token_in_fragment(hash: &str) -> Option<String> {
    hash.trim_start_matches('#')
        .split('&')
        .find_map(|part| part.strip_prefix("token="))
        .map(str::to_owned)
        .filter(|t| !t.is_empty() && t.len() <= 128 && t.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Reads `#token=…` from the address (the URL the worker printed), keeps it for this origin and
/// removes it from the address bar. Runs before the app mounts.
pub fn take_token_from_address() {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let Ok(hash) = location.hash() else { return };
    let Some(token) = token_in_fragment(&hash) else { return };
    let Ok(origin) = location.origin() else { return };
    if let Err(message) = remember(&origin, &token) {
        crate::status::report_error(&message);
    }
    let clean = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&clean));
    }
}

pub fn provide() -> WorkerCtx {
    let ctx = WorkerCtx {
        connection: RwSignal::new(if credentials().is_some() { Connection::Checking } else { Connection::NotPaired }),
        milestones: RwSignal::new(None),
        runs: RwSignal::new(Vec::new()),
        refreshing: RwSignal::new(false),
    };
    provide_context(ctx);
    spawn_local(async move {
        if let Ok(Some(text)) = crate::storage::load_pref(crate::storage::pref::VERIFIED_RUNS).await
            && let Ok(runs) = serde_json::from_str::<Vec<RunRecord>>(&text)
        {
            ctx.runs.update(|r| {
                let mut all = runs;
                all.append(r);
                *r = all;
            });
        }
    });
    ctx.check();
    // The worker may stop or come back at any time: look again every 15 seconds.
    set_interval(move || ctx.check(), std::time::Duration::from_secs(15));
    ctx
}

/// A refusal or failure from the worker, worded for the reader.
async fn error_of(response: Response) -> String {
    let status = response.status();
    match response.json::<wire::ApiErrorBody>().await {
        Ok(body) => body.message,
        Err(_) => format!("the worker answered HTTP {status}"),
    }
}

impl WorkerCtx {
    /// Pairs with the worker at a printed URL (`http://127.0.0.1:7878/#token=…`).
    pub fn pair_from_url(self, url: &str) -> Result<(), String> {
        let url = url.trim();
        let parsed = web_sys::Url::new(url).map_err(|_| "paste the whole URL the worker printed, e.g. http://127.0.0.1:7878/#token=…".to_owned())?;
        let token = token_in_fragment(&parsed.hash()).ok_or("that URL carries no #token=…; copy the line the worker printed")?;
        remember(&parsed.origin(), &token)?;
        self.check();
        Ok(())
    }

    /// Forgets the token in this tab.
    pub fn unpair(self) {
        if let Some(storage) = session_storage() {
            if let Ok(Some(origin)) = storage.get_item(WORKER_KEY) {
                let _ = storage.remove_item(&format!("{TOKEN_PREFIX}{origin}"));
            }
            let _ = storage.remove_item(WORKER_KEY);
        }
        self.connection.set(Connection::NotPaired);
    }

    /// Asks the worker for its health and updates the connection state.
    pub fn check(self) {
        let Some((origin, token)) = credentials() else {
            if self.connection.get_untracked() != Connection::NotPaired {
                self.connection.set(Connection::NotPaired);
            }
            return;
        };
        spawn_local(async move {
            let answer = Request::get(&format!("{origin}/api/health")).header(HEADER, &token).send().await;
            let state = match answer {
                Err(e) => Connection::Unreachable(format!("no answer from the worker at {origin} ({e}); start it with `bookside serve` and open the URL it prints")),
                Ok(r) if r.status() == 401 => Connection::Refused(format!("{}; open the URL the worker printed at its last start", error_of(r).await)),
                Ok(r) if !r.ok() => Connection::Unreachable(error_of(r).await),
                Ok(r) => match r.json::<Health>().await {
                    Ok(h) if h.name == "bookside" => Connection::Paired { book: h.book, clone: h.clone },
                    _ => Connection::Unreachable(format!("{origin} is not a Bookside worker")),
                },
            };
            if self.connection.get_untracked() != state {
                self.connection.set(state);
            }
        });
    }

    fn credentials_or_err(self) -> Result<(String, String), String> {
        credentials().ok_or_else(|| "not paired with a worker: start `bookside serve` and open the URL it prints".to_owned())
    }

    /// A network failure means the worker is gone: say so in the shell too.
    fn unreachable(self, origin: &str, e: impl std::fmt::Display) -> String {
        let message = format!("no answer from the worker at {origin} ({e}); is `bookside serve` still running?");
        self.connection.set(Connection::Unreachable(message.clone()));
        message
    }

    /// Starts the Done-when of `session`.
    pub async fn start_run(self, session: &str) -> Result<RunStarted, String> {
        let (origin, token) = self.credentials_or_err()?;
        let request = Request::post(&format!("{origin}/api/runs"))
            .header(HEADER, &token)
            .json(&wire::RunRequest { session: session.to_owned() })
            .map_err(|e| e.to_string())?;
        let response = request.send().await.map_err(|e| self.unreachable(&origin, e))?;
        if response.status() != 202 {
            return Err(error_of(response).await);
        }
        response.json::<RunStarted>().await.map_err(|e| format!("the worker's answer was not understood ({e})"))
    }

    /// Asks the worker to cancel a run; the stream then ends with `end: cancelled`.
    pub async fn cancel_run(self, run: &str) -> Result<(), String> {
        let (origin, token) = self.credentials_or_err()?;
        let response = Request::post(&format!("{origin}/api/runs/{run}/cancel"))
            .header(HEADER, &token)
            .json(&serde_json::json!({}))
            .map_err(|e| e.to_string())?
            .send()
            .await
            .map_err(|e| self.unreachable(&origin, e))?;
        if response.ok() { Ok(()) } else { Err(error_of(response).await) }
    }

    /// Reads a run's event stream, calling `on_output` with each piece of output, and returns
    /// the result from the `done` event.
    pub async fn follow_run(self, events: &str, mut on_output: impl FnMut(&str)) -> Result<RunResult, String> {
        let (origin, token) = self.credentials_or_err()?;
        let response = Request::get(&format!("{origin}{events}"))
            .header(HEADER, &token)
            .header("Accept", "text/event-stream")
            .send()
            .await
            .map_err(|e| self.unreachable(&origin, e))?;
        if !response.ok() {
            return Err(error_of(response).await);
        }
        let body = response.body().ok_or("the worker sent no event stream")?;
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut parser = sse::Parser::default();
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| format!("the run's stream broke ({e:?}); its outcome is still on the worker, run Verify again"))?;
            let done = js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true);
            let bytes = js_sys::Reflect::get(&chunk, &"value".into())
                .ok()
                .and_then(|value| value.dyn_ref::<js_sys::Uint8Array>().map(js_sys::Uint8Array::to_vec))
                .unwrap_or_default();
            for event in parser.push(&bytes) {
                match event.name.as_str() {
                    "output" => {
                        if let Ok(chunk) = serde_json::from_str::<wire::OutputChunk>(&event.data) {
                            on_output(&chunk.text);
                        }
                    }
                    "done" => {
                        return serde_json::from_str::<RunResult>(&event.data).map_err(|e| format!("the run's result was not understood ({e})"));
                    }
                    _ => {}
                }
            }
            if done {
                return Err("the worker closed the stream before the run ended; run Verify again".to_owned());
            }
        }
    }

    /// Records a verified outcome (locate and the card statuses read it) and keeps it.
    pub fn record(self, session: &str, outcome: Outcome) {
        let at_unix = (js_sys::Date::now() / 1000.0) as i64;
        self.runs.update(|runs| runs.push(RunRecord { session: session.to_owned(), outcome, source: RunSource::Verified, at_unix }));
        self.save_runs();
    }

    fn save_runs(self) {
        let runs = self.runs.get_untracked();
        // Only the latest record of each session matters to locate; keep the list short.
        let mut latest: Vec<RunRecord> = Vec::new();
        for run in runs.into_iter().rev() {
            if !latest.iter().any(|r| r.session == run.session) {
                latest.push(run);
            }
        }
        latest.reverse();
        let Ok(text) = serde_json::to_string(&latest) else { return };
        spawn_local(async move {
            if let Err(err) = crate::storage::save_pref(crate::storage::pref::VERIFIED_RUNS, &text).await {
                crate::status::report_error(&err.0);
            }
        });
    }

    /// Fetches every milestone's outcome from one pytest run on the worker.
    pub fn refresh_status(self) {
        let Ok((origin, token)) = self.credentials_or_err() else {
            crate::status::report_error("not paired with a worker: start `bookside serve` and open the URL it prints");
            return;
        };
        self.refreshing.set(true);
        spawn_local(async move {
            let answer = Request::get(&format!("{origin}/api/status")).header(HEADER, &token).send().await;
            let result = match answer {
                Err(e) => Err(self.unreachable(&origin, e)),
                Ok(r) if !r.ok() => Err(error_of(r).await),
                Ok(r) => r.json::<StatusReport>().await.map_err(|e| format!("the status report was not understood ({e})")),
            };
            self.refreshing.set(false);
            match result {
                Ok(report) => {
                    let at_unix = (js_sys::Date::now() / 1000.0) as i64;
                    self.runs.update(|runs| {
                        runs.extend(report.milestones.iter().filter(|m| m.outcome != Outcome::Error).filter_map(|m| {
                            Some(RunRecord { session: m.session.clone()?, outcome: m.outcome, source: RunSource::Verified, at_unix })
                        }));
                    });
                    self.save_runs();
                    let passing = report.milestones.iter().filter(|m| m.outcome == Outcome::Pass).count();
                    crate::status::report_info(&format!("Test status refreshed: {passing} of {} milestones pass.", report.milestones.len()));
                    self.milestones.set(Some(report.milestones));
                }
                Err(message) => crate::status::report_error(&message),
            }
        });
    }
}

/// The connection state, always in the top bar, with pairing and a fresh check one tap away.
#[component]
pub fn WorkerBadge() -> impl IntoView {
    let worker: WorkerCtx = expect_context();
    let open = RwSignal::new(false);
    let pasted = RwSignal::new(String::new());
    let pair = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        match worker.pair_from_url(&pasted.get_untracked()) {
            Ok(()) => {
                pasted.set(String::new());
                open.set(false);
            }
            Err(message) => crate::status::report_error(&message),
        }
    };
    let detail = move || match worker.connection.get() {
        Connection::NotPaired => "Verify needs the worker on your computer: run `bookside serve --book <your clone>` and open the URL it prints, or paste that URL here. Without it, Verify shows the command to run yourself.".to_owned(),
        Connection::Checking => "Asking the worker…".to_owned(),
        Connection::Paired { book, clone } => format!("Paired with the worker serving “{book}” from {clone}."),
        Connection::Unreachable(m) | Connection::Refused(m) => m,
    };
    view! {
        <div class="worker-state">
            <button type="button" id="worker-state" class=move || format!("badge worker-{}", worker.connection.get().class())
                aria-expanded=move || open.get().to_string() aria-controls="worker-panel"
                on:click=move |_| open.update(|o| *o = !*o)>
                {move || worker.connection.get().label()}
            </button>
            <Show when=move || open.get()>
                <div class="worker-panel panel" id="worker-panel">
                    <p id="worker-detail">{detail}</p>
                    <form on:submit=pair>
                        <label for="worker-url">"Pair with the URL the worker printed"</label>
                        <input id="worker-url" type="url" inputmode="url" autocomplete="off" placeholder="http://127.0.0.1:7878/#token=…"
                            prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev)) />
                        <div class="actions">
                            <button type="submit" class="button">"Pair"</button>
                            <button type="button" class="button" on:click=move |_| worker.check()>"Check again"</button>
                            <Show when=move || worker.connection.get() != Connection::NotPaired>
                                <button type="button" class="button" on:click=move |_| worker.unpair()>"Forget this worker"</button>
                            </Show>
                        </div>
                    </form>
                </div>
            </Show>
        </div>
    }
}
