//! The book as the app holds it: `/book.json` fetched once, parsed by core into the book and
//! its Session Guide, shared through [`LibraryCtx`].

use std::sync::Arc;

use bookside_core::book::{self, Book};
use bookside_core::guide::Guide;
use bookside_core::wire::BookBundle;
use leptos::prelude::*;

/// Everything read from the book bundle. Parsed once; pages borrow it.
#[derive(Debug)]
pub struct Library {
    pub book: Book,
    /// The Session Guide (empty when the book has none).
    pub guide: Guide,
    /// The quiz bank (the book's root `quiz.toml`; empty when there is none).
    pub quiz: QuizBankOnDemand,
}

/// The quiz bank, parsed the first time a page uses it: chapter pages never do, and parsing it
/// up front made the first page's start-up longer.
#[derive(Debug, Default)]
pub struct QuizBankOnDemand {
    text: Option<String>,
    bank: std::sync::OnceLock<bookside_core::quiz::QuizBank>,
}

impl std::ops::Deref for QuizBankOnDemand {
    type Target = bookside_core::quiz::QuizBank;

    fn deref(&self) -> &Self::Target {
        self.bank.get_or_init(|| self.text.as_deref().map(|text| bookside_core::quiz::parse_quiz("quiz.toml", text).0).unwrap_or_default())
    }
}

#[derive(Clone, Copy)]
pub struct LibraryCtx(pub LocalResource<Result<Arc<Library>, String>>);

impl std::fmt::Debug for LibraryCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LibraryCtx")
    }
}

fn parse(mut bundle: BookBundle) -> Library {
    let book = book::load(&bundle);
    let guide = crate::bundle::guide(&book);
    let quiz = QuizBankOnDemand { text: bundle.files.remove("quiz.toml"), bank: std::sync::OnceLock::new() };
    Library { book, guide, quiz }
}

pub fn provide() {
    let resource = LocalResource::new(|| async { crate::bundle::fetch().await.map(|b| Arc::new(parse(b))) });
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
            {move || resource.get().map(|result| {
                release_prerender();
                match result {
                    Ok(library) => view(library).into_any(),
                    Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// A chapter page can arrive pre-rendered inside `#prerender` (see `worker/src/prerender.rs`),
/// with the app's own nodes hidden by style.css while it is there. Once the app is drawing its
/// page from the book (or its error), that copy goes, at the next frame: after the app's page is
/// in the document and before anything paints, so the swap neither flashes nor shifts.
fn release_prerender() {
    use wasm_bindgen::JsCast;
    let remove = wasm_bindgen::closure::Closure::once_into_js(|| {
        if let Some(copy) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("prerender")) {
            copy.remove();
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(remove.unchecked_ref());
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

/// The runs known for `log` (`locate::known_runs`): the worker's verified ones, when there is a
/// worker, and the log's own Done-when marks for the sessions it has not run. Reactive on the
/// worker's runs.
pub fn known_runs(worker: Option<crate::worker::WorkerCtx>, log: &bookside_core::progress::ProgressLog) -> Vec<bookside_core::wire::RunRecord> {
    use bookside_core::engine::locate;
    worker.map_or_else(|| locate::known_runs(log, &[]), |w| w.runs.with(|verified| locate::known_runs(log, verified)))
}

/// Calls `f` with locate's context: the guide, the parsed log, and the runs known so far
/// (`locate::known_runs`: the runs the worker reported, verified, and the log's own Done-when
/// marks for the sessions the worker has not run). Reactive: reads the log, the worker's runs
/// and the profile's Phase 0 flag.
pub fn with_context<R>(library: &Library, parsed: ParsedLog, f: impl FnOnce(&bookside_core::engine::locate::Context<'_>) -> R) -> R {
    let phase0_skipped = parsed.phase0_skipped.get();
    parsed.log.with(|log| {
        let runs = known_runs(use_context(), log);
        let cx = bookside_core::engine::locate::Context { guide: &library.guide, log, runs: &runs, phase0_skipped };
        f(&cx)
    })
}
