//! The worker's HTTP API under `/api/` (documented in docs/API.md). Every handler is a thin
//! shell over the clone, the runs and the doctor; every refusal is an [`ApiError`].

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use bookside_core::wire::{Health, RunRequest, RunSnapshot, RunStarted, SessionList, StatusReport};
use serde::de::DeserializeOwned;

use crate::clone::Clone;
use crate::error::ApiError;
use crate::runner::Sink;
use crate::runs::Runs;

/// What every handler can reach.
#[derive(Debug)]
pub struct AppState {
    pub clone: Clone,
    pub runs: Arc<Runs>,
    pub timeout: Duration,
}

type App = State<Arc<AppState>>;

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/sessions", get(sessions))
        .route("/runs", post(start_run))
        .route("/runs/{id}", get(run_snapshot))
        .route("/runs/{id}/events", get(run_events))
        .route("/runs/{id}/cancel", post(cancel_run))
        .route("/status", get(status))
        .route("/doctor", get(doctor))
        .fallback(|| async { ApiError::UnknownApiPath })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .with_state(state)
}

/// `Json`, with its refusals mapped into [`ApiError`] like every other refusal.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(match rejection.status() {
                StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge,
                StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::UnsupportedMediaType,
                _ => ApiError::BadRequest(format!("the body is not the JSON docs/API.md describes ({})", rejection.body_text())),
            }),
        }
    }
}

/// The `{id}` of a run path; a malformed one (bad percent-encoding) is simply an unknown run, so
/// this refusal too goes through [`ApiError`].
pub struct RunId(String);

impl<S: Send + Sync> FromRequestParts<S> for RunId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state).await.map(|Path(id)| RunId(id)).map_err(|_| ApiError::UnknownRun)
    }
}

async fn health(State(app): App) -> Json<Health> {
    Json(Health {
        name: "bookside".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        book: app.clone.title.clone(),
        clone: app.clone.root.display().to_string(),
    })
}

async fn sessions(State(app): App) -> Json<SessionList> {
    Json(SessionList { sessions: app.clone.sessions.iter().map(|s| s.info.clone()).collect() })
}

async fn start_run(State(app): App, ApiJson(request): ApiJson<RunRequest>) -> Result<impl IntoResponse, ApiError> {
    let (session, argv) = app.clone.runnable(&request.session)?;
    let command = session.info.done_when.clone().unwrap_or_default();
    let spec = app.clone.spec(argv, app.timeout);
    let run = app.runs.start(&session.info.id, &command, spec).map_err(|running| ApiError::Busy { running })?;
    let started = RunStarted {
        events: format!("/api/runs/{}/events", run.id),
        run: run.id.clone(),
        session: run.session.clone(),
        command,
    };
    Ok((StatusCode::ACCEPTED, Json(started)))
}

async fn run_snapshot(State(app): App, RunId(id): RunId) -> Result<Json<RunSnapshot>, ApiError> {
    Ok(Json(app.runs.get(&id).ok_or(ApiError::UnknownRun)?.snapshot()))
}

async fn run_events(State(app): App, RunId(id): RunId, headers: HeaderMap) -> Result<impl IntoResponse, ApiError> {
    let run = app.runs.get(&id).ok_or(ApiError::UnknownRun)?;
    // A reconnecting client resumes after the last output it saw.
    let from = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(Sse::new(run.events(from)).keep_alive(KeepAlive::default()))
}

async fn cancel_run(State(app): App, RunId(id): RunId) -> Result<impl IntoResponse, ApiError> {
    let run = app.runs.get(&id).ok_or(ApiError::UnknownRun)?;
    run.cancel();
    Ok((StatusCode::ACCEPTED, Json(run.snapshot())))
}

/// Output of the status sweep is not kept: the junit report says everything the table needs.
struct Discard;

impl Sink for Discard {
    fn output(&self, _: &str) {}
}

async fn status(State(app): App) -> Result<Json<StatusReport>, ApiError> {
    let _claim = app.runs.claim("status").map_err(|running| ApiError::Busy { running })?;
    let (_keep, never) = tokio::sync::watch::channel(false);
    let sweep = crate::runner::execute(&app.clone.status_spec(app.timeout), &Discard, never).await;
    Ok(Json(StatusReport { milestones: crate::clone::milestone_statuses(&app.clone, &sweep), run: sweep }))
}

async fn doctor(State(app): App) -> Json<bookside_core::wire::DoctorReport> {
    Json(crate::doctor::check(&app.clone).await)
}
