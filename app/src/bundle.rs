//! The book bundle (`/book.json`, `wire::BookBundle`) as the browser gets it, and the Session
//! Guide read from it. No Leptos here: the chapter page's own entry point (`bin/chapter.rs`)
//! shares this file with the app.

use bookside_core::book::Book;
use bookside_core::guide::{self, Guide};
use bookside_core::wire::BookBundle;

/// Fetches the book bundle the worker (or a static host, or the service worker's cache) serves
/// next to the app.
pub async fn fetch() -> Result<BookBundle, String> {
    let response = gloo_net::http::Request::get("/book.json")
        .send()
        .await
        .map_err(|e| format!("cannot reach the book ({e}); check the connection, or open the page once online so it is kept for offline use"))?;
    if !response.ok() {
        return Err(format!("the book could not be loaded (HTTP {}); reload the page", response.status()));
    }
    let text = response.text().await.map_err(|e| format!("the book could not be read ({e}); reload the page"))?;
    read_bundle(&text).map_err(|why| format!("the book bundle is damaged ({why}); rebuild it with `cargo xtask dist`"))
}

/// `{"files": {"<path>": "<text>", ...}}` (`wire::BookBundle` as the worker writes it), read with
/// the browser's own JSON parser: faster than a parser compiled into the wasm, and it keeps
/// serde_json out of the first page's download.
fn read_bundle(text: &str) -> Result<BookBundle, String> {
    use wasm_bindgen::JsCast;
    let value = js_sys::JSON::parse(text).map_err(|e| e.dyn_into::<js_sys::Error>().map_or_else(|_| "not JSON".to_owned(), |e| String::from(e.message())))?;
    let files = js_sys::Reflect::get(&value, &"files".into()).ok().filter(|f| f.is_object() && !js_sys::Array::is_array(f)).ok_or("no \"files\" object")?;
    let mut bundle = BookBundle::default();
    for entry in js_sys::Object::entries(files.unchecked_ref()).iter() {
        let pair: js_sys::Array = entry.unchecked_into();
        let path = pair.get(0).as_string().unwrap_or_default();
        let text = pair.get(1).as_string().ok_or_else(|| format!("{path} is not text"))?;
        bundle.files.insert(path, text);
    }
    Ok(bundle)
}

/// The book's Session Guide, parsed (empty when the book has none). Checking it against the
/// book is the CLI's job (`bookside check`): the browser only reads it.
pub fn guide(book: &Book) -> Guide {
    let chapter = book.guide.as_deref().and_then(|path| book.chapter(path));
    chapter.map(|c| guide::parse(&format!("{}/{}", book.src, c.path), &c.source).0).unwrap_or_default()
}
