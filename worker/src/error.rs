//! Every way a request to the worker can be refused or fail, and the one place each becomes an
//! HTTP status.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bookside_core::wire::ApiErrorBody;

/// Why the worker did not do what a request asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiError {
    /// The Host header is not this worker's loopback address and port (DNS rebinding, a proxy).
    BadHost,
    /// The Origin header names a site that was not allowed at launch.
    BadOrigin,
    /// A CORS preflight that asks for something the worker never allows.
    BadPreflight(String),
    MissingToken,
    BadToken,
    MethodNotAllowed,
    UnsupportedMediaType,
    TooLarge,
    BadRequest(String),
    /// The session id is not a card id at all (`../x`, `S1.3;rm -rf ~`).
    BadSessionId,
    /// A well-formed id the worker's guide does not hold.
    UnknownSession(String),
    /// A card the worker will not run: read-only, or a command that needs a shell.
    NotRunnable { session: String, why: String },
    UnknownRun,
    UnknownApiPath,
    /// The clone is busy with another run.
    Busy { running: String },
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str, String) {
        match self {
            ApiError::BadHost => (
                StatusCode::FORBIDDEN,
                "bad-host",
                "this worker only answers to 127.0.0.1, localhost or [::1] with its own port; open the URL it printed".to_owned(),
            ),
            ApiError::BadOrigin => (
                StatusCode::FORBIDDEN,
                "bad-origin",
                "requests from this site are not allowed; start the worker with --origin <site> to allow it".to_owned(),
            ),
            ApiError::BadPreflight(why) => (StatusCode::FORBIDDEN, "bad-preflight", why.clone()),
            ApiError::MissingToken => (
                StatusCode::UNAUTHORIZED,
                "missing-token",
                "send the pairing token in the X-Bookside-Token header; open the URL the worker printed to pair".to_owned(),
            ),
            ApiError::BadToken => (
                StatusCode::UNAUTHORIZED,
                "bad-token",
                "the pairing token is wrong (the worker makes a new one at every launch); open the URL it printed to pair again".to_owned(),
            ),
            ApiError::MethodNotAllowed => {
                (StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed", "use GET or POST as docs/API.md says".to_owned())
            }
            ApiError::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "send POST bodies as JSON with Content-Type: application/json".to_owned(),
            ),
            ApiError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "too-large",
                format!("request bodies are capped at {} bytes; send only what docs/API.md asks for", crate::security::BODY_CAP),
            ),
            ApiError::BadRequest(why) => (StatusCode::BAD_REQUEST, "bad-request", why.clone()),
            ApiError::BadSessionId => (
                StatusCode::BAD_REQUEST,
                "bad-session-id",
                "a session id looks like S1.3; pick one from the Session Guide (`bookside guide` or GET /api/sessions)".to_owned(),
            ),
            ApiError::UnknownSession(id) => (
                StatusCode::NOT_FOUND,
                "unknown-session",
                format!("the Session Guide has no card {id}; pick one from `bookside guide` or GET /api/sessions"),
            ),
            ApiError::NotRunnable { session, why } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "not-runnable", format!("session {session} cannot be run: {why}"))
            }
            ApiError::UnknownRun => {
                (StatusCode::NOT_FOUND, "unknown-run", "no such run (the worker keeps only recent runs); start a new one".to_owned())
            }
            ApiError::UnknownApiPath => (StatusCode::NOT_FOUND, "not-found", "no such API path; see docs/API.md".to_owned()),
            ApiError::Busy { running } => (
                StatusCode::CONFLICT,
                "busy",
                format!("run {running} is still going in this clone; wait for it or cancel it first"),
            ),
        }
    }

    /// What went wrong and what to do next, for people (the CLI prints it).
    pub fn message(&self) -> String {
        self.parts().2
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, error, message) = self.parts();
        let running = match self {
            ApiError::Busy { running } => Some(running),
            _ => None,
        };
        (status, Json(ApiErrorBody { error: error.to_owned(), message, running })).into_response()
    }
}
