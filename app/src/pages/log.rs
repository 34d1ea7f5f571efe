//! `/log`: the reader's PROGRESS.md — its entries, import with a merge preview, export, adding
//! and editing entries, and keeping the log safe in this browser.

use bookside_core::import::{self, Choice, Preview};
use bookside_core::logedit::{self, EntryEdit};
use bookside_core::merge::Side;
use bookside_core::progress::{self, Date, DoneWhen, Entry, NewEntry, Next, ProgressLog, Status, StickingPoint};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use bookside_core::engine::gates::{self, GateReport};

use crate::files::{Loaded, LogCtx, ProfileCtx, StoredFile};
use crate::library::LibraryCtx;
use crate::platform::{self, PrefsCtx};
use crate::status;
use crate::worker::WorkerCtx;

#[component]
pub fn LogPage() -> impl IntoView {
    let LogCtx(log) = expect_context();
    let parsed = Memo::new(move |_| log.text.with(|t| progress::parse(t)));
    view! {
        <div class="page log-page">
            <h1>"Your log"</h1>
            <p class="lede">"PROGRESS.md, kept in this browser. Import it, add to it, export it: the file stays yours, byte for byte."</p>
            {move || match log.state.get() {
                Loaded::Loading => view! { <p class="loading">"Opening your log…"</p> }.into_any(),
                Loaded::Failed(message) => view! {
                    <p class="error" role="alert">{message}</p>
                }.into_any(),
                Loaded::Ready => ().into_any(),
            }}
            <FileActions file=log download_name="PROGRESS.md" what="log" />
            <ImportPanel log />
            <NewEntryForm log />
            <GatePanel parsed />
            <Entries log parsed />
        </div>
    }
}

/// Export (download and clipboard) and the storage panel, shared by the log and the profile.
#[component]
pub fn FileActions(file: StoredFile, download_name: &'static str, what: &'static str) -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let empty = move || file.text.with(|t| t.is_empty());
    let download = move |_| {
        let text = file.text.get_untracked();
        match platform::download(download_name, &text) {
            Ok(()) => {
                if download_name == "PROGRESS.md" {
                    prefs.mark_exported();
                }
            }
            Err(message) => status::report_error(&message),
        }
    };
    let copy = move |_| {
        let text = file.text.get_untracked();
        spawn_local(async move {
            match platform::copy(&text).await {
                Ok(()) => {
                    status::report_info(&format!("{download_name} copied to the clipboard"));
                    if download_name == "PROGRESS.md" {
                        prefs.mark_exported();
                    }
                }
                Err(message) => status::report_error(&message),
            }
        });
    };
    view! {
        <section class="panel" id="keep" aria-labelledby=format!("keep-{what}")>
            <h2 id=format!("keep-{what}")>"Export and keep"</h2>
            <div class="actions">
                <button type="button" id=format!("export-{what}-download") class="button" on:click=download disabled=empty>
                    "Download " {download_name}
                </button>
                <button type="button" id=format!("export-{what}-copy") class="button" on:click=copy disabled=empty>
                    "Copy to clipboard"
                </button>
            </div>
            <Persistence />
        </section>
    }
}

/// Asks the browser to keep this site's data (on a click: browsers want a user gesture) and
/// shows the answer, the space used, and when the log was last exported.
#[component]
fn Persistence() -> impl IntoView {
    let prefs: PrefsCtx = expect_context();
    let usage = LocalResource::new(crate::storage::estimate);
    let LogCtx(log) = expect_context();
    // Re-counted after every save: each save keeps the text it replaced.
    let snapshots = LocalResource::new(move || {
        log.text.track();
        crate::storage::snapshot_count()
    });
    let ask = move |_| {
        spawn_local(async move {
            match crate::storage::request_persistence().await {
                Ok(granted) => prefs.persisted.set(Some(granted)),
                Err(err) => status::report_error(&err.0),
            }
        });
    };
    view! {
        <p class="persist-answer" id="persist-answer">
            {move || match prefs.persisted.get() {
                Some(true) => "This browser has promised to keep your log.",
                Some(false) => "This browser may delete your log if space runs low or the site goes unused: export it regularly.",
                None => "This browser has not said whether it will keep your log.",
            }}
        </p>
        <Show when=move || prefs.persisted.get() != Some(true)>
            <button type="button" class="button" id="persist" on:click=ask>"Ask the browser to keep my log"</button>
        </Show>
        <p class="muted">
            {move || match prefs.last_export.get() {
                Some(at) => format!("Last exported {}.", js_sys::Date::new(&at.into()).to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)),
                None => "Not exported from this browser yet.".to_owned(),
            }}
            " "
            {move || usage.get().flatten().map(|(used, quota)| format!("Storage used: {:.1} MB of {:.0} MB.", used / 1e6, quota / 1e6))}
        </p>
        <p class="muted">
            {move || snapshots.get().map(|count| match count {
                Ok(0) => String::new(),
                Ok(n) => format!("{n} earlier versions of your files are kept in this browser."),
                Err(err) => err.0,
            })}
        </p>
    }
}

#[component]
fn ImportPanel(log: StoredFile) -> impl IntoView {
    // (where it came from, its text)
    let incoming: RwSignal<Option<(String, String)>> = RwSignal::new(None);
    let choices: RwSignal<Vec<Choice>> = RwSignal::new(Vec::new());
    let pasted = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);
    let preview = Memo::new(move |_| {
        incoming.with(|i| i.as_ref().map(|(_, text)| log.text.with(|current| import::preview(current, text))))
    });
    let start = move |source: String, text: String| {
        // Every conflict starts as "keep all": nothing is dropped unless the reader says so.
        let n = log.text.with_untracked(|current| import::preview(current, &text).conflicts.len());
        choices.set(vec![Choice::KeepAll; n]);
        incoming.set(Some((source, text)));
    };
    let read_files = move |files: Option<web_sys::FileList>| {
        let Some(file) = files.and_then(|f| f.get(0)) else { return };
        spawn_local(async move {
            let name = file.name();
            match platform::read_file(file).await {
                Ok(text) => start(name, text),
                Err(message) => status::report_error(&message),
            }
        });
    };
    let on_pick = move |ev: web_sys::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        read_files(input.files());
        // Picking the same file again must fire `change` again.
        input.set_value("");
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        read_files(ev.data_transfer().and_then(|d| d.files()));
    };
    let on_paste = move |_| {
        let text = pasted.get_untracked();
        if text.trim().is_empty() {
            status::report_error("nothing to import: paste the text of a PROGRESS.md first");
            return;
        }
        start("pasted text".to_owned(), text);
    };
    let accept = move |_| {
        let Some(preview) = preview.get_untracked() else { return };
        let text = import::apply(&preview, &choices.get_untracked());
        let added = preview.added.len();
        spawn_local(async move {
            if log.save(text, "import").await.is_ok() {
                incoming.set(None);
                pasted.set(String::new());
                status::report_info(&format!("Import saved: {added} entries added."));
            }
        });
    };
    view! {
        <section class="panel" aria-labelledby="import-heading">
            <h2 id="import-heading">"Import PROGRESS.md"</h2>
            <div class="dropzone" id="import-drop" class:dragging=dragging
                on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop>
                <label class="button" for="import-file">"Choose a file"</label>
                <input type="file" id="import-file" class="visually-hidden" accept=".md,.txt,text/markdown,text/plain" on:change=on_pick />
                <span class="muted">" or drop it here"</span>
            </div>
            <label for="import-paste">"Or paste its text"</label>
            <textarea id="import-paste" rows="4" prop:value=move || pasted.get()
                on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            <button type="button" class="button" id="import-paste-preview" on:click=on_paste>"Preview the import"</button>
            {move || preview.get().map(|p| view! {
                <MergePreview preview=p source=incoming.with(|i| i.as_ref().map(|(s, _)| s.clone()).unwrap_or_default()) choices />
                <div class="actions">
                    <button type="button" class="button primary" id="import-accept" on:click=accept>"Write the merged log"</button>
                    <button type="button" class="button" id="import-cancel" on:click=move |_| incoming.set(None)>"Cancel"</button>
                </div>
            })}
        </section>
    }
}

#[component]
fn MergePreview(preview: Preview, source: String, choices: RwSignal<Vec<Choice>>) -> impl IntoView {
    let summary = format!(
        "{} to add, {} already in your log, {} {} to choose",
        preview.added.len(),
        preview.unchanged.len(),
        preview.conflicts.len(),
        if preview.conflicts.len() == 1 { "conflict" } else { "conflicts" },
    );
    let listed = |items: &[import::Listed]| {
        items
            .iter()
            .map(|e| {
                let title = e.title.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
                view! { <li>{format!("{} — {}{} — {}", e.key.date, e.key.session, title, e.key.status)}</li> }
            })
            .collect_view()
    };
    let conflicts = preview
        .conflicts
        .iter()
        .enumerate()
        .map(|(i, conflict)| {
            let name = format!("conflict-{i}");
            let versions = conflict
                .versions
                .iter()
                .enumerate()
                .map(|(v, version)| {
                    let label = match version.side {
                        Side::A => format!("Keep the version in your log (line {})", version.line),
                        Side::B => format!("Keep the imported version (line {})", version.line),
                    };
                    let id = format!("{name}-{v}");
                    view! {
                        <div class="choice">
                            <input type="radio" name=name.clone() id=id.clone()
                                prop:checked=move || choices.with(|c| c.get(i) == Some(&Choice::Keep(v)))
                                on:change=move |_| choices.update(|c| if let Some(slot) = c.get_mut(i) { *slot = Choice::Keep(v) }) />
                            <label for=id>{label}</label>
                            <pre class="entry-text">{version.text.clone()}</pre>
                        </div>
                    }
                })
                .collect_view();
            let all_id = format!("{name}-all");
            view! {
                <fieldset class="conflict">
                    <legend>{format!("{} {} {}", conflict.key.date, conflict.key.session, conflict.key.status)}
                        {conflict.formatting_only.then_some(" (the versions differ only in formatting)")}</legend>
                    {versions}
                    <div class="choice">
                        <input type="radio" name=name.clone() id=all_id.clone()
                            prop:checked=move || choices.with(|c| c.get(i) == Some(&Choice::KeepAll))
                            on:change=move |_| choices.update(|c| if let Some(slot) = c.get_mut(i) { *slot = Choice::KeepAll }) />
                        <label for=all_id>"Keep both"</label>
                    </div>
                </fieldset>
            }
        })
        .collect_view();
    view! {
        <section class="preview" id="merge-preview" aria-labelledby="preview-heading">
            <h3 id="preview-heading">"Before anything is written: " {source}</h3>
            <p class="summary" id="merge-summary">{summary}</p>
            {(preview.no_change).then(|| view! { <p>"Your log already holds everything in this file: writing it changes nothing."</p> })}
            {(preview.added_preamble_lines > 0).then(|| view! { <p>{format!("{} lines of notes before the first entry will be kept.", preview.added_preamble_lines)}</p> })}
            <h4>"Added"</h4>
            <ul class="added">{listed(&preview.added)}</ul>
            <h4>"Unchanged"</h4>
            <ul class="unchanged">{listed(&preview.unchanged)}</ul>
            {(!preview.conflicts.is_empty()).then(|| view! { <h4>"Conflicts: choose a version, or keep both"</h4> })}
            {conflicts}
            <PreviewGates preview=preview.clone() choices />
        </section>
    }
}

fn event_target<T: JsCast>(ev: &web_sys::Event) -> T {
    ev.target().expect("an input event has a target").unchecked_into()
}

/// Adds a canonical entry at the end of the log (through core's `append`).
#[component]
fn NewEntryForm(log: StoredFile) -> impl IntoView {
    let (y, m, d) = platform::today();
    let date = RwSignal::new(format!("{y:04}-{m:02}-{d:02}"));
    let session = RwSignal::new(String::new());
    let title = RwSignal::new(String::new());
    let status_word = RwSignal::new("DONE".to_owned());
    let built = RwSignal::new(String::new());
    let done_when = RwSignal::new(String::new());
    let sticking = RwSignal::new(String::new());
    let next = RwSignal::new(String::new());
    let open = RwSignal::new(false);
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let Some(date_value) = Date::parse(&date.get_untracked()) else {
            status::report_error("the date must be written YYYY-MM-DD, e.g. 2026-07-22");
            return;
        };
        if session.with_untracked(|s| s.trim().is_empty()) {
            status::report_error("name the session this entry logs, e.g. S1.3");
            return;
        }
        let entry = NewEntry {
            date: date_value,
            session: session.get_untracked().trim().to_owned(),
            title: title.get_untracked(),
            status: Status::parse(&status_word.get_untracked()),
            built: built.get_untracked(),
            done_when: DoneWhen::parse(&done_when.get_untracked()),
            sticking_point: StickingPoint::parse(&sticking.get_untracked()),
            next: Next::parse(&next.get_untracked()),
        };
        let text = log.text.with_untracked(|t| progress::append(t, &entry));
        spawn_local(async move {
            if log.save(text, "new entry").await.is_ok() {
                for field in [session, title, built, done_when, sticking, next] {
                    field.set(String::new());
                }
                open.set(false);
                status::report_info("Entry added to your log.");
            }
        });
    };
    let input = |id: &'static str, label: &'static str, value: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <input id=id type="text" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
        }
    };
    view! {
        <section class="panel" aria-labelledby="new-entry-heading">
            <h2 id="new-entry-heading">"Add an entry"</h2>
            <Show when=move || open.get() fallback=move || view! {
                <button type="button" class="button" id="new-entry-open" on:click=move |_| open.set(true)>"Add an entry by hand"</button>
            }>
                <form class="entry-form" id="new-entry" on:submit=submit>
                    {input("new-date", "Date (when the session started)", date)}
                    {input("new-session", "Session", session)}
                    {input("new-title", "Title", title)}
                    <label for="new-status">"Status"</label>
                    <select id="new-status" on:change=move |ev| status_word.set(event_target_value(&ev)) prop:value=move || status_word.get()>
                        <option value="DONE">"DONE"</option>
                        <option value="PARTIAL">"PARTIAL"</option>
                        <option value="SKIPPED">"SKIPPED"</option>
                    </select>
                    {input("new-built", "Built", built)}
                    {input("new-done-when", "Done-when (test file and ✅ or ❌)", done_when)}
                    {input("new-sticking", "Sticking point (and the ladder rung)", sticking)}
                    {input("new-next", "Next", next)}
                    <div class="actions">
                        <button type="submit" class="button primary" id="new-entry-save">"Add to the log"</button>
                        <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                    </div>
                </form>
            </Show>
        </section>
    }
}

#[component]
fn Entries(log: StoredFile, parsed: Memo<(ProgressLog, Vec<bookside_core::Diagnostic>)>) -> impl IntoView {
    let newest_first = RwSignal::new(true);
    let editing: RwSignal<Option<usize>> = RwSignal::new(None);
    let rows = move || {
        parsed.with(|(log, _)| {
            let mut rows: Vec<(usize, Entry)> = log.entries.iter().cloned().enumerate().collect();
            if newest_first.get() {
                rows.reverse();
            }
            rows
        })
    };
    view! {
        <section aria-labelledby="entries-heading">
            <h2 id="entries-heading">"Entries"</h2>
            <div class="actions">
                <button type="button" class="button" aria-pressed=move || newest_first.get().to_string()
                    on:click=move |_| newest_first.update(|n| *n = !*n)>
                    {move || if newest_first.get() { "Showing newest first" } else { "Showing file order" }}
                </button>
            </div>
            {move || parsed.with(|(_, diags)| (!diags.is_empty()).then(|| view! {
                <details class="diagnostics">
                    <summary>{format!("{} lines could not be fully read (they are kept as written)", diags.len())}</summary>
                    <ul>{diags.iter().map(|d| view! { <li>{format!("line {}: {}", d.line, d.message)}</li> }).collect_view()}</ul>
                </details>
            }))}
            <Show when=move || parsed.with(|(l, _)| l.entries.is_empty())>
                <p class="muted" id="log-empty">"No entries yet. Import your PROGRESS.md or add an entry."</p>
            </Show>
            <ol class="entries" id="entries">
                {move || rows().into_iter().map(|(index, entry)| view! {
                    <li class="entry">
                        {move || if editing.get() == Some(index) {
                            let entry = parsed.with_untracked(|(l, _)| l.entries.get(index).cloned());
                            entry.map(|entry| view! { <EditEntry log index entry editing /> }.into_any()).unwrap_or_else(|| ().into_any())
                        } else {
                            let entry = entry.clone();
                            view! { <EntryView entry index editing /> }.into_any()
                        }}
                    </li>
                }).collect_view()}
            </ol>
        </section>
    }
}

#[component]
fn EntryView(entry: Entry, index: usize, editing: RwSignal<Option<usize>>) -> impl IntoView {
    let title = entry.title().map(|t| format!(" ({t})")).unwrap_or_default();
    let status_word = entry.status.as_ref().map(|s| s.as_str().to_owned()).unwrap_or_default();
    let status_class = format!("badge status-{}", status_word.to_lowercase());
    let heading = format!("{} — {}{}", entry.date_text(), entry.session(), title);
    let label = heading.clone();
    view! {
        <article aria-label=label id=format!("entry-{}", entry.line)>
            <h3>{heading} " " <span class=status_class>{status_word}</span></h3>
            <dl>
                {entry.fields().map(|f| view! {
                    <dt>{f.name.to_owned()}</dt>
                    <dd>{f.value.to_owned()}</dd>
                }).collect_view()}
            </dl>
            <button type="button" class="button small" on:click=move |_| editing.set(Some(index))
                aria-label=format!("Edit the entry of {} {}", entry.date_text(), entry.session())>"Edit"</button>
        </article>
    }
}

/// The edit form: heading parts and every field (unknown ones too), plus new fields. Only what
/// changed is rewritten (core's `logedit`).
#[component]
fn EditEntry(log: StoredFile, index: usize, entry: Entry, editing: RwSignal<Option<usize>>) -> impl IntoView {
    let start = logedit::form(&entry);
    let date = RwSignal::new(start.date.clone());
    let session = RwSignal::new(start.session.clone());
    let title = RwSignal::new(start.title.clone());
    let status_word = RwSignal::new(start.status.clone());
    let fields: Vec<(String, RwSignal<String>)> = start.fields.iter().map(|(n, v)| (n.clone(), RwSignal::new(v.clone()))).collect();
    let added_name = RwSignal::new(String::new());
    let added_value = RwSignal::new(String::new());
    let field_signals = fields.clone();
    let save = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let edit = EntryEdit {
            date: date.get_untracked(),
            session: session.get_untracked(),
            title: title.get_untracked(),
            status: status_word.get_untracked(),
            fields: field_signals.iter().map(|(n, v)| (n.clone(), v.get_untracked())).collect(),
            added: vec![(added_name.get_untracked(), added_value.get_untracked())],
        };
        let text = log.text.with_untracked(|t| logedit::edit_entry(t, index, &edit));
        spawn_local(async move {
            if log.save(text, "edit").await.is_ok() {
                editing.set(None);
            }
        });
    };
    let text_input = move |id: String, label: String, value: RwSignal<String>| {
        view! {
            <label for=id.clone()>{label}</label>
            <input id=id type="text" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
        }
    };
    view! {
        <form class="entry-form" on:submit=save aria-label=format!("Edit the entry of {} {}", entry.date_text(), entry.session())>
            {text_input(format!("edit-{index}-date"), "Date".into(), date)}
            {text_input(format!("edit-{index}-session"), "Session".into(), session)}
            {text_input(format!("edit-{index}-title"), "Title".into(), title)}
            {text_input(format!("edit-{index}-status"), "Status".into(), status_word)}
            {fields.into_iter().enumerate().map(|(i, (name, value))| text_input(format!("edit-{index}-field-{i}"), name, value)).collect_view()}
            <fieldset>
                <legend>"Add a field"</legend>
                {text_input(format!("edit-{index}-new-name"), "Name".into(), added_name)}
                {text_input(format!("edit-{index}-new-value"), "Value".into(), added_value)}
            </fieldset>
            <div class="actions">
                <button type="submit" class="button primary">"Save the entry"</button>
                <button type="button" class="button" on:click=move |_| editing.set(None)>"Cancel"</button>
            </div>
        </form>
    }
}

/// Core's gate report for a log text, with the reader's profile (hint cap, Phase 0 skip) and
/// today's date. The runs are the worker's verified ones (after a Verify or a status refresh)
/// and, for the sessions it has not run, the log's own Done-when marks (`locate::known_runs`),
/// so a ✅ that a failing verified run contradicts is reported. `None` until the book has loaded.
fn gate_report(library: LibraryCtx, profile: ProfileCtx, worker: Option<WorkerCtx>, log: &ProgressLog, diagnostics: &[bookside_core::Diagnostic]) -> Option<GateReport> {
    let library = library.0.get().and_then(Result::ok)?;
    let profile = profile.0.text.with(|t| bookside_core::profile::parse(t).0.profile);
    let (y, m, d) = platform::today();
    let today = Date::new(y, m, d)?;
    let runs = crate::library::known_runs(worker, log);
    Some(gates::check(&gates::Input {
        guide: &library.guide,
        log,
        log_diagnostics: diagnostics,
        runs: &runs,
        hint_cap: profile.ladder_cap(),
        phase0_skipped: profile.phase0_skipped,
        today,
    }))
}

/// The entry a finding's line falls in (its heading or one of its fields).
fn entry_at(log: &ProgressLog, line: usize) -> Option<&Entry> {
    log.entries.iter().find(|e| e.line <= line && line <= e.last_line())
}

/// The gates over the stored log, each finding linked to the entry it is about.
#[component]
fn GatePanel(parsed: Memo<(ProgressLog, Vec<bookside_core::Diagnostic>)>) -> impl IntoView {
    let library: LibraryCtx = expect_context();
    let profile: ProfileCtx = expect_context();
    let worker = use_context::<WorkerCtx>();
    let report = Memo::new(move |_| parsed.with(|(log, diags)| gate_report(library, profile, worker, log, diags)));
    move || {
        let report = report.get()?;
        let empty = parsed.with(|(l, _)| l.entries.is_empty());
        if empty {
            return None;
        }
        let findings = parsed.with(|(log, _)| {
            report
                .findings
                .iter()
                .map(|f| {
                    let entry = entry_at(log, f.line);
                    let place = match entry {
                        Some(e) => view! { <a href=format!("#entry-{}", e.line)>{format!("{} {}", e.date_text(), e.session())}</a> }.into_any(),
                        None => view! { <span>{format!("line {}", f.line)}</span> }.into_any(),
                    };
                    view! { <li class="finding" data-gate=f.gate.name()>{place} ": " <code>{f.gate.name()}</code> " — " {f.message.clone()}</li> }
                })
                .collect_view()
        });
        let self_reported = report
            .self_reported
            .iter()
            .map(|s| view! { <li><a href=format!("#entry-{}", s.line)>{s.session.clone()}</a>": its ✅ is self-reported (no verified run on record)"</li> })
            .collect_view();
        let clean = report.is_clean();
        let has_notes = !report.self_reported.is_empty();
        Some(view! {
            <section class="panel gates" id="gate-report" aria-labelledby="gates-heading">
                <h2 id="gates-heading">"Checks on your log"</h2>
                {if clean {
                    view! { <p id="gates-clean">"Every check passes."</p> }.into_any()
                } else {
                    view! {
                        <p>{format!("{} {} to look at. Each links to its entry.", report.findings.len(), if report.findings.len() == 1 { "finding" } else { "findings" })}</p>
                        <ul class="findings">{findings}</ul>
                    }.into_any()
                }}
                {has_notes.then(|| view! { <ul class="muted self-reported">{self_reported}</ul> })}
            </section>
        })
    }
}

/// What the gates will say about the log this import would write.
#[component]
fn PreviewGates(preview: Preview, choices: RwSignal<Vec<Choice>>) -> impl IntoView {
    let library: LibraryCtx = expect_context();
    let profile: ProfileCtx = expect_context();
    let worker = use_context::<WorkerCtx>();
    move || {
        let merged = import::apply(&preview, &choices.get());
        let (log, diags) = progress::parse(&merged);
        let report = gate_report(library, profile, worker, &log, &diags)?;
        let items = report
            .findings
            .iter()
            .map(|f| {
                let about = entry_at(&log, f.line).map_or_else(|| format!("line {}", f.line), |e| format!("{} {}", e.date_text(), e.session()));
                view! { <li class="finding" data-gate=f.gate.name()>{about} ": " <code>{f.gate.name()}</code> " — " {f.message.clone()}</li> }
            })
            .collect_view();
        Some(view! {
            <div class="preview-gates" id="preview-gates">
                <h4>"Checks on the merged log"</h4>
                {if report.is_clean() {
                    view! { <p>"Every check passes."</p> }.into_any()
                } else {
                    view! {
                        <p>{format!("{} to look at after writing; the log page links each to its entry.", report.findings.len())}</p>
                        <ul>{items}</ul>
                    }.into_any()
                }}
            </div>
        })
    }
}
