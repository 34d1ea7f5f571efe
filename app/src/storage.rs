//! IndexedDB: the reader's files (PROGRESS.md, PROFILE.md), a snapshot of every version they
//! replace, and small preferences. Every write waits for a strict-durability commit.
//!
//! Schema (version [`SCHEMA_VERSION`]; [`migrate`] upgrades from any older one, step by step):
//! - `files`: key = file name (`PROGRESS.md`), value = `{ text, savedAt }`. The text is the
//!   file byte for byte, so an export is exactly what was imported when nothing changed.
//! - `prefs`: key = name, value = string (where the reader left off, last export time, ...; the
//!   review queue and quizzes in progress as JSON, see `study`).
//! - `snapshots` (since version 2): auto-increment key, value = `{ name, text, savedAt, reason }`,
//!   the previous text of a file each time it is replaced, so no import or edit can lose a line.
//!
//! Errors are returned to the caller as readable messages (quota, blocked upgrade, private mode)
//! and shown on the page; nothing here swallows a failure.

use std::cell::RefCell;

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbObjectStoreParameters, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbVersionChangeEvent};

pub const DB_NAME: &str = "bookside";
pub const SCHEMA_VERSION: u32 = 2;

/// The prefs keys more than one part of the site reads.
pub mod pref {
    /// The reader's last place in the book (`/book/kv-cache#mqa-and-gqa`).
    pub const LAST_LOCATION: &str = "lastLocation";
    /// When the log was last exported (milliseconds since the epoch).
    pub const LAST_EXPORT: &str = "lastExport";
    /// The worker's verified runs, as JSON (`Vec<wire::RunRecord>`), kept between visits.
    pub const VERIFIED_RUNS: &str = "verifiedRuns";
}

/// The BroadcastChannel on which a tab that saved a file names it, so every tab reloads it.
pub const FILES_CHANNEL: &str = "bookside-files";

/// A week: Safari deletes a site's storage after seven days without a visit.
const EXPORT_REMINDER_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

/// The reminder to export, and where it leads.
pub const EXPORT_REMINDER: (&str, &str) =
    ("This browser may delete your log if the site goes unused (Safari does after 7 days). ", "Export it or ask the browser to keep it");

/// Whether to remind the reader to export: there is a log, the browser has not promised to keep
/// it, and it was not exported in the last week.
pub fn export_reminder_due(has_log: bool, persisted: Option<bool>, last_export: Option<f64>, now: f64) -> bool {
    has_log && persisted != Some(true) && last_export.is_none_or(|at| now - at > EXPORT_REMINDER_MS)
}

const FILES: &str = "files";
const PREFS: &str = "prefs";
const SNAPSHOTS: &str = "snapshots";

#[wasm_bindgen]
extern "C" {
    // web-sys keeps the `options` argument (durability) behind its unstable-API flag; this binds
    // the same standard method with it, on a view of the same IDBDatabase object.
    #[wasm_bindgen(js_name = IDBDatabase)]
    type DatabaseWithOptions;
    #[wasm_bindgen(method, catch, js_name = transaction)]
    fn transaction_with_options(this: &DatabaseWithOptions, stores: &Array, mode: &str, options: &Object) -> Result<IdbTransaction, JsValue>;
}

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// A storage failure, already worded for the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageError(pub String);

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Words a DOMException (or anything thrown) for the reader, with what to do next.
fn describe(action: &str, err: &JsValue) -> StorageError {
    let name = Reflect::get(err, &"name".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let message = Reflect::get(err, &"message".into()).ok().and_then(|v| v.as_string()).or_else(|| err.as_string()).unwrap_or_default();
    let text = match name.as_str() {
        "QuotaExceededError" => format!("{action}: the browser's storage for this site is full; export your log now, then free space in the browser settings"),
        "InvalidStateError" | "SecurityError" => format!("{action}: the browser blocks storage here (private window or storage disabled); export your log after every session"),
        "VersionError" => format!("{action}: a newer Bookside stored data here; reload the page to get the newer version"),
        "AbortError" => format!("{action}: the write was cancelled ({message}); try again, and export your log if it keeps failing"),
        _ if name.is_empty() => format!("{action}: {message}"),
        _ => format!("{action}: {name}: {message}"),
    };
    StorageError(text)
}

/// Resolves when an IDB request succeeds, with its result; rejects with its error.
async fn finish(req: &IdbRequest) -> Result<JsValue, JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let ok = req.clone();
        let on_success = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call1(&JsValue::UNDEFINED, &ok.result().unwrap_or(JsValue::UNDEFINED));
        });
        let bad = req.clone();
        let on_error = Closure::once_into_js(move |_: web_sys::Event| {
            let err = bad.error().ok().flatten().map(JsValue::from).unwrap_or_else(|| "the request failed".into());
            let _ = reject.call1(&JsValue::UNDEFINED, &err);
        });
        req.set_onsuccess(Some(on_success.unchecked_ref()));
        req.set_onerror(Some(on_error.unchecked_ref()));
    });
    JsFuture::from(promise).await
}

/// Resolves when a transaction has committed (for a strict one: reached the disk).
async fn committed(tx: &IdbTransaction) -> Result<(), JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let on_complete = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let failed = tx.clone();
        let reject_too = reject.clone();
        let aborted = tx.clone();
        let on_error = Closure::once_into_js(move |_: web_sys::Event| {
            let err = failed.error().map(JsValue::from).unwrap_or_else(|| "the transaction failed".into());
            let _ = reject.call1(&JsValue::UNDEFINED, &err);
        });
        let on_abort = Closure::once_into_js(move |_: web_sys::Event| {
            let err = aborted.error().map(JsValue::from).unwrap_or_else(|| "the transaction was aborted".into());
            let _ = reject_too.call1(&JsValue::UNDEFINED, &err);
        });
        tx.set_oncomplete(Some(on_complete.unchecked_ref()));
        tx.set_onerror(Some(on_error.unchecked_ref()));
        tx.set_onabort(Some(on_abort.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ())
}

/// Brings a database at `old` up to [`SCHEMA_VERSION`], one step per version, so a reader who
/// skipped releases still gets every step in order.
fn migrate(db: &IdbDatabase, old: u32) -> Result<(), JsValue> {
    if old < 1 {
        db.create_object_store(FILES)?;
        db.create_object_store(PREFS)?;
    }
    if old < 2 {
        let params = IdbObjectStoreParameters::new();
        params.set_auto_increment(true);
        db.create_object_store_with_optional_parameters(SNAPSHOTS, &params)?;
    }
    Ok(())
}

async fn open() -> Result<IdbDatabase, StorageError> {
    if let Some(db) = DB.with(|db| db.borrow().clone()) {
        return Ok(db);
    }
    let action = "cannot open the browser's storage";
    let window = web_sys::window().ok_or_else(|| StorageError(format!("{action}: no window")))?;
    let factory = window
        .indexed_db()
        .map_err(|e| describe(action, &e))?
        .ok_or_else(|| StorageError(format!("{action}: this browser offers no IndexedDB here (private window?); export your log after every session")))?;
    let req: IdbOpenDbRequest = factory.open_with_u32(DB_NAME, SCHEMA_VERSION).map_err(|e| describe(action, &e))?;
    let upgrading = req.clone();
    let on_upgrade = Closure::once_into_js(move |ev: IdbVersionChangeEvent| {
        let Ok(result) = upgrading.result() else { return };
        let db: IdbDatabase = result.unchecked_into();
        if let Err(err) = migrate(&db, ev.old_version() as u32) {
            web_sys::console::error_2(&"bookside: storage migration failed".into(), &err);
            if let Some(tx) = upgrading.transaction() {
                let _ = tx.abort();
            }
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let on_blocked = Closure::once_into_js(move |_: web_sys::Event| {
        crate::status::report_error("storage is waiting for another Bookside tab to close; close the other tabs or reload them");
    });
    req.set_onblocked(Some(on_blocked.unchecked_ref()));
    let db: IdbDatabase = finish(&req).await.map_err(|e| describe(action, &e))?.unchecked_into();
    // A newer version opening in another tab must not be blocked by this one: let go, and say so.
    let closing = db.clone();
    let on_version_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        closing.close();
        DB.with(|db| db.borrow_mut().take());
        crate::status::report_error("a newer Bookside opened in another tab: reload this page before writing");
    });
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget();
    DB.with(|slot| *slot.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn strict_tx(db: &IdbDatabase, stores: &[&str]) -> Result<IdbTransaction, JsValue> {
    let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
    let options = Object::new();
    Reflect::set(&options, &"durability".into(), &"strict".into())?;
    db.unchecked_ref::<DatabaseWithOptions>().transaction_with_options(&names, "readwrite", &options)
}

/// A stored file's text, or `None` when it was never saved.
pub async fn load_file(name: &str) -> Result<Option<String>, StorageError> {
    let action = format!("cannot read {name} from the browser's storage");
    let db = open().await?;
    let read = async {
        let tx = db.transaction_with_str(FILES)?;
        let value = finish(&tx.object_store(FILES)?.get(&name.into())?).await?;
        Ok::<_, JsValue>(value)
    };
    let value = read.await.map_err(|e| describe(&action, &e))?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    Ok(Reflect::get(&value, &"text".into()).ok().and_then(|t| t.as_string()))
}

/// Replaces a file's text in one strict transaction, keeping `previous` as a snapshot.
pub async fn save_file(name: &str, text: &str, previous: Option<&str>, reason: &str) -> Result<(), StorageError> {
    let action = format!("cannot save {name} in the browser's storage");
    let db = open().await?;
    let write = async {
        let tx = strict_tx(&db, &[FILES, SNAPSHOTS])?;
        let now = js_sys::Date::now();
        if let Some(previous) = previous.filter(|p| !p.is_empty() && *p != text) {
            let snapshot = Object::new();
            Reflect::set(&snapshot, &"name".into(), &name.into())?;
            Reflect::set(&snapshot, &"text".into(), &previous.into())?;
            Reflect::set(&snapshot, &"savedAt".into(), &now.into())?;
            Reflect::set(&snapshot, &"reason".into(), &reason.into())?;
            tx.object_store(SNAPSHOTS)?.add(&snapshot)?;
        }
        let record = Object::new();
        Reflect::set(&record, &"text".into(), &text.into())?;
        Reflect::set(&record, &"savedAt".into(), &now.into())?;
        tx.object_store(FILES)?.put_with_key(&record, &name.into())?;
        committed(&tx).await
    };
    write.await.map_err(|e| describe(&action, &e))
}

/// How many snapshots are kept (shown so the reader knows earlier versions exist).
pub async fn snapshot_count() -> Result<u32, StorageError> {
    let action = "cannot count the saved versions";
    let db = open().await?;
    let count = async {
        let tx = db.transaction_with_str(SNAPSHOTS)?;
        finish(&tx.object_store(SNAPSHOTS)?.count()?).await
    };
    let value = count.await.map_err(|e| describe(action, &e))?;
    Ok(value.as_f64().unwrap_or(0.0) as u32)
}

pub async fn load_pref(key: &str) -> Result<Option<String>, StorageError> {
    let action = format!("cannot read the preference {key}");
    let db = open().await?;
    let read = async {
        let tx = db.transaction_with_str(PREFS)?;
        finish(&tx.object_store(PREFS)?.get(&key.into())?).await
    };
    Ok(read.await.map_err(|e| describe(&action, &e))?.as_string())
}

pub async fn save_pref(key: &str, value: &str) -> Result<(), StorageError> {
    let action = format!("cannot save the preference {key}");
    let db = open().await?;
    let write = async {
        let tx = strict_tx(&db, &[PREFS])?;
        tx.object_store(PREFS)?.put_with_key(&value.into(), &key.into())?;
        committed(&tx).await
    };
    write.await.map_err(|e| describe(&action, &e))
}

/// `navigator.storage.persist()`: must run from a user gesture. `Ok(true)` when granted.
pub async fn request_persistence() -> Result<bool, StorageError> {
    let action = "cannot ask the browser to keep this site's data";
    let manager = storage_manager().ok_or_else(|| StorageError(format!("{action}: this browser has no storage manager; export your log regularly")))?;
    let answer = JsFuture::from(manager.persist().map_err(|e| describe(action, &e))?).await.map_err(|e| describe(action, &e))?;
    Ok(answer.as_bool().unwrap_or(false))
}

/// Whether the browser already promised to keep this site's data (`None`: cannot tell).
pub async fn is_persisted() -> Option<bool> {
    let manager = storage_manager()?;
    JsFuture::from(manager.persisted().ok()?).await.ok()?.as_bool()
}

/// Bytes used and the quota, when the browser tells.
pub async fn estimate() -> Option<(f64, f64)> {
    let manager = storage_manager()?;
    let value = JsFuture::from(manager.estimate().ok()?).await.ok()?;
    let usage = Reflect::get(&value, &"usage".into()).ok()?.as_f64()?;
    let quota = Reflect::get(&value, &"quota".into()).ok()?.as_f64()?;
    Some((usage, quota))
}

fn storage_manager() -> Option<web_sys::StorageManager> {
    let navigator = web_sys::window()?.navigator();
    // Older Safari lacks `navigator.storage`; check before calling into it.
    let storage = Reflect::get(&navigator, &"storage".into()).ok()?;
    if storage.is_undefined() {
        return None;
    }
    Some(navigator.storage())
}
