//! Notices for the reader: failures (storage, import, clipboard) and confirmations, shown in one
//! live region at the top of every page. Errors stay until the reader dismisses them.

use std::cell::OnceCell;

use leptos::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Error,
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub id: u32,
    pub kind: Kind,
    pub text: String,
}

thread_local! {
    // Callbacks from the browser (IndexedDB, BroadcastChannel) run outside any component, so the
    // list lives here rather than in a context.
    static NOTICES: OnceCell<RwSignal<Vec<Notice>>> = const { OnceCell::new() };
}

fn notices() -> RwSignal<Vec<Notice>> {
    NOTICES.with(|cell| *cell.get_or_init(|| RwSignal::new(Vec::new())))
}

fn push(kind: Kind, text: &str) {
    notices().update(|list| {
        // The same message twice in a row says nothing new.
        if list.last().is_some_and(|n| n.text == text) {
            return;
        }
        let id = list.iter().map(|n| n.id).max().unwrap_or(0) + 1;
        list.push(Notice { id, kind, text: text.to_owned() });
    });
}

pub fn report_error(text: &str) {
    web_sys::console::error_1(&text.into());
    push(Kind::Error, text);
}

pub fn report_info(text: &str) {
    push(Kind::Info, text);
}

#[component]
pub fn Notices() -> impl IntoView {
    let list = notices();
    view! {
        <div class="notices" role="status" aria-live="polite">
            <For each=move || list.get() key=|n| n.id let:notice>
                <div class="notice" class:error=notice.kind == Kind::Error role=if notice.kind == Kind::Error { "alert" } else { "note" }>
                    <span>{notice.text.clone()}</span>
                    <button class="dismiss" aria-label="Dismiss this message" on:click=move |_| list.update(|l| l.retain(|n| n.id != notice.id))>"×"</button>
                </div>
            </For>
        </div>
    }
}
