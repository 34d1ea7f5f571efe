//! The book as the app holds it: `/book.json` fetched once, parsed by core into the book and
//! its Session Guide, shared through [`LibraryCtx`].

use std::sync::Arc;

use bookside_core::book::{self, Book};
use bookside_core::guide::{self, Guide};
use bookside_core::wire::BookBundle;
use leptos::prelude::*;

/// Everything read from the book bundle. Parsed once; pages borrow it.
#[derive(Debug)]
pub struct Library {
    pub book: Book,
    /// The Session Guide (empty when the book has none).
    pub guide: Guide,
    /// The quiz bank (the book's root `quiz.toml`; empty when there is none).
    pub quiz: bookside_core::quiz::QuizBank,
}

#[derive(Clone, Copy)]
pub struct LibraryCtx(pub LocalResource<Result<Arc<Library>, String>>);

impl std::fmt::Debug for LibraryCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LibraryCtx")
    }
}

/// Fetches the book bundle the worker (or a static host, or the service worker's cache) serves
/// next to the app.
async fn fetch_bundle() -> Result<BookBundle, String> {
    let response = gloo_net::http::Request::get("/book.json")
        .send()
        .await
        .map_err(|e| format!("cannot reach the book ({e}); check the connection, or open the page once online so it is kept for offline use"))?;
    if !response.ok() {
        return Err(format!("the book could not be loaded (HTTP {}); reload the page", response.status()));
    }
    response.json::<BookBundle>().await.map_err(|e| format!("the book bundle is damaged ({e}); rebuild it with `cargo xtask dist`"))
}

fn parse(bundle: BookBundle) -> Library {
    let book = book::load(&bundle);
    let guide = book
        .guide
        .as_ref()
        .and_then(|path| {
            let file = format!("{}/{path}", book.src);
            bundle.get(&file).map(|text| guide::parse(&file, text).0)
        })
        .unwrap_or_default();
    let quiz = bundle
        .get("quiz.toml")
        .map(|text| bookside_core::quiz::parse_quiz("quiz.toml", text).0)
        .unwrap_or_default();
    Library { book, guide, quiz }
}

pub fn provide() {
    let resource = LocalResource::new(|| async { fetch_bundle().await.map(|b| Arc::new(parse(b))) });
    provide_context(LibraryCtx(resource));
}

/// Renders `view` with the loaded library, a loading line meanwhile, and the error if the book
/// could not be loaded.
#[component]
pub fn WithLibrary<V, F>(view: F) -> impl IntoView
where
    F: Fn(Arc<Library>) -> V + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let LibraryCtx(resource) = expect_context();
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the book…"</p> }>
            {move || resource.get().map(|result| match result {
                Ok(library) => view(library).into_any(),
                Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            })}
        </Transition>
    }
}

/// The log parsed once for every page (cards, guide, locate), refreshed when the log changes,
/// and whether the profile says Phase 0 was skipped (after its quiz).
#[derive(Debug, Clone, Copy)]
pub struct ParsedLog {
    pub log: Memo<bookside_core::progress::ProgressLog>,
    pub phase0_skipped: Memo<bool>,
}

pub fn provide_parsed_log(log: crate::files::LogCtx, profile: crate::files::ProfileCtx) {
    provide_context(ParsedLog {
        log: Memo::new(move |_| log.0.text.with(|t| bookside_core::progress::parse(t).0)),
        phase0_skipped: Memo::new(move |_| profile.0.text.with(|t| bookside_core::profile::parse(t).0.profile.phase0_skipped)),
    });
}

/// Calls `f` with locate's context: the guide, the parsed log, and the runs known so far (the
/// log's own Done-when marks, self-reported, until a worker reports verified runs).
/// Reactive: reads the log and the profile's Phase 0 flag.
pub fn with_context<R>(library: &Library, parsed: ParsedLog, f: impl FnOnce(&bookside_core::engine::locate::Context<'_>) -> R) -> R {
    let phase0_skipped = parsed.phase0_skipped.get();
    parsed.log.with(|log| {
        let runs = bookside_core::engine::locate::self_reported_runs(log);
        let cx = bookside_core::engine::locate::Context { guide: &library.guide, log, runs: &runs, phase0_skipped };
        f(&cx)
    })
}
