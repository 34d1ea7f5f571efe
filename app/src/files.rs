//! The reader's files in the app: PROGRESS.md and PROFILE.md as signals backed by IndexedDB,
//! kept the same in every open tab through a BroadcastChannel.
//!
//! The stored text is the file itself, byte for byte; every change goes through core (append,
//! merge, edit) and comes back here as a whole new text, saved before the signal changes so the
//! page never shows something that is not on disk.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::storage;


#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    Loading,
    Ready,
    Failed(String),
}

/// One stored file. `text` is empty when the reader has none yet.
#[derive(Debug, Clone, Copy)]
pub struct StoredFile {
    pub name: &'static str,
    pub text: RwSignal<String>,
    pub state: RwSignal<Loaded>,
}

/// The progress log, PROGRESS.md.
#[derive(Debug, Clone, Copy)]
pub struct LogCtx(pub StoredFile);

/// The reader's profile, PROFILE.md.
#[derive(Debug, Clone, Copy)]
pub struct ProfileCtx(pub StoredFile);

impl StoredFile {
    fn new(name: &'static str) -> Self {
        StoredFile { name, text: RwSignal::new(String::new()), state: RwSignal::new(Loaded::Loading) }
    }

    /// Reads the file from storage into the signal (at mount, and when another tab wrote it).
    pub fn reload(self) {
        spawn_local(async move {
            match storage::load_file(self.name).await {
                Ok(text) => {
                    let text = text.unwrap_or_default();
                    if self.text.get_untracked() != text {
                        self.text.set(text);
                    }
                    self.state.set(Loaded::Ready);
                }
                Err(err) => {
                    crate::status::report_error(&err.0);
                    self.state.set(Loaded::Failed(err.0));
                }
            }
        });
    }

    /// Saves a new text (keeping the old one as a snapshot), then shows it here and tells the
    /// other tabs. On failure nothing changes on the page and the error is returned and shown.
    pub async fn save(self, text: String, reason: &str) -> Result<(), String> {
        let previous = self.text.get_untracked();
        match storage::save_file(self.name, &text, Some(&previous), reason).await {
            Ok(()) => {
                self.text.set(text);
                self.state.set(Loaded::Ready);
                announce(self.name);
                Ok(())
            }
            Err(err) => {
                crate::status::report_error(&err.0);
                Err(err.0)
            }
        }
    }
}

thread_local! {
    static CHANNEL_HANDLE: std::cell::OnceCell<Option<web_sys::BroadcastChannel>> = const { std::cell::OnceCell::new() };
}

fn channel() -> Option<web_sys::BroadcastChannel> {
    CHANNEL_HANDLE.with(|cell| cell.get_or_init(|| web_sys::BroadcastChannel::new(storage::FILES_CHANNEL).ok()).clone())
}

fn announce(name: &str) {
    if let Some(channel) = channel()
        && let Err(err) = channel.post_message(&JsValue::from_str(name))
    {
        web_sys::console::warn_2(&"bookside: cannot tell other tabs about the change".into(), &err);
    }
}

/// Creates the file contexts, loads them from storage and listens for writes from other tabs.
pub fn provide() -> (LogCtx, ProfileCtx) {
    let log = LogCtx(StoredFile::new(bookside_core::progress::FILE));
    let profile = ProfileCtx(StoredFile::new(bookside_core::profile::FILE));
    log.0.reload();
    profile.0.reload();
    if let Some(channel) = channel() {
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            match ev.data().as_string().as_deref() {
                Some(name) if name == log.0.name => log.0.reload(),
                Some(name) if name == profile.0.name => profile.0.reload(),
                _ => {}
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The listener lives as long as the page.
        on_message.forget();
    }
    provide_context(log);
    provide_context(profile);
    (log, profile)
}
