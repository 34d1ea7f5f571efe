//! The browser around the app: theme, downloads, the clipboard, where the reader left off, and
//! the storage-persistence answer. Thin wrappers; each failure comes back as a message.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::storage::{self, pref::{LAST_EXPORT, LAST_LOCATION}};


pub use crate::theme::Theme;

/// Preferences shared by every page.
#[derive(Debug, Clone, Copy)]
pub struct PrefsCtx {
    /// The reader's last place in the book (`/book/kv-cache.md#mqa-and-gqa`).
    pub last_location: RwSignal<Option<String>>,
    /// When the log was last exported (milliseconds since the epoch).
    pub last_export: RwSignal<Option<f64>>,
    /// Whether the browser promised to keep this site's data.
    pub persisted: RwSignal<Option<bool>>,
    pub theme: RwSignal<Theme>,
}

pub fn provide_prefs() {
    let prefs = PrefsCtx {
        last_location: RwSignal::new(None),
        last_export: RwSignal::new(None),
        persisted: RwSignal::new(None),
        theme: RwSignal::new(crate::theme::current()),
    };
    spawn_local(async move {
        match storage::load_pref(LAST_LOCATION).await {
            Ok(value) => prefs.last_location.set(value),
            Err(err) => crate::status::report_error(&err.0),
        }
        if let Ok(value) = storage::load_pref(LAST_EXPORT).await {
            prefs.last_export.set(value.and_then(|v| v.parse().ok()));
        }
        prefs.persisted.set(storage::is_persisted().await);
    });
    provide_context(prefs);
}

impl PrefsCtx {
    pub fn remember_location(self, location: String) {
        if self.last_location.get_untracked().as_deref() == Some(location.as_str()) {
            return;
        }
        self.last_location.set(Some(location.clone()));
        spawn_local(async move {
            if let Err(err) = storage::save_pref(LAST_LOCATION, &location).await {
                crate::status::report_error(&err.0);
            }
        });
    }

    pub fn mark_exported(self) {
        let now = js_sys::Date::now();
        self.last_export.set(Some(now));
        spawn_local(async move {
            if let Err(err) = storage::save_pref(LAST_EXPORT, &now.to_string()).await {
                crate::status::report_error(&err.0);
            }
        });
    }

    pub fn set_theme(self, theme: Theme) {
        self.theme.set(theme);
        crate::theme::apply(theme);
    }
}

/// Offers `text` as a file download, byte for byte (UTF-8, no BOM, line endings untouched).
pub fn download(file_name: &str, text: &str) -> Result<(), String> {
    let fail = |e: wasm_bindgen::JsValue| format!("cannot start the download ({e:?}); copy the log to the clipboard instead");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/markdown;charset=utf-8");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    link.set_href(&url);
    link.set_download(file_name);
    link.click();
    // Let the browser start the download before the URL goes away.
    let _ = web_sys::window().map(|w| {
        let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        });
        w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000)
    });
    Ok(())
}

/// Copies `text` to the clipboard.
pub async fn copy(text: &str) -> Result<(), String> {
    let clipboard = web_sys::window().map(|w| w.navigator().clipboard()).ok_or("no clipboard here; use the download instead")?;
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| format!("the browser refused the clipboard ({e:?}); use the download instead"))
}

/// Reads a picked or dropped file as text.
pub async fn read_file(file: web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text()).await.map_err(|e| format!("cannot read {} ({e:?}); try pasting its text instead", file.name()))?;
    text.as_string().ok_or_else(|| format!("{} is not a text file; pick PROGRESS.md", file.name()))
}

/// Today's date in the reader's time zone, as `(year, month, day)`.
pub fn today() -> (u16, u8, u8) {
    let now = js_sys::Date::new_0();
    (now.get_full_year() as u16, now.get_month() as u8 + 1, now.get_date() as u8)
}
