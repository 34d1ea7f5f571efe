//! `bookside serve`: the site, the book bundle and the worker API, on 127.0.0.1 only, behind the
//! guard of [`crate::security`].

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use std::collections::BTreeMap;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

use crate::api::AppState;
use crate::runs::Runs;
use crate::security::{self, Policy, Token};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The book folder (the one holding book.toml); also the reader's clone.
    #[arg(long)]
    book: PathBuf,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    port: u16,
    /// The built site to serve (Trunk's dist folder).
    #[arg(long)]
    site: Option<PathBuf>,
    /// Also accept requests from this site (e.g. a hosted copy of the companion), exactly.
    #[arg(long = "origin", value_name = "URL")]
    origins: Vec<String>,
    /// Time limit of one run, in seconds.
    #[arg(long, default_value_t = crate::runner::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(serve(args))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let origins = args.origins.iter().map(|o| security::normalize_origin(o)).collect::<Result<Vec<_>, _>>().map_err(anyhow::Error::msg)?;
    let clone = crate::clone::open(&args.book)?;
    let bundle = crate::bundle::load(&clone.root)?;
    let bundle_json = serde_json::to_string(&bundle)?;
    let site = args.site.unwrap_or_else(crate::default_site_dir);
    let index = site.join("index.html");
    let index_html = std::fs::read_to_string(&index)
        .with_context(|| format!("no built site at {}: run `cargo xtask start` to build it", site.display()))?;
    let book = bookside_core::book::load(&bundle);
    let (guide, _) = bookside_core::guide::load(&book, None);
    let chapter_html = crate::prerender::template(&site, &index_html);
    let mut pages = crate::prerender::pages(&chapter_html, &book, guide.as_ref());
    // Under "": the page for any other `/book/...` address (the app says what is missing).
    pages.insert(String::new(), index_html.clone());
    let pages = Arc::new(pages);
    let token = Token::generate()?;

    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{}: is another bookside running?", args.port))?;
    let addr = listener.local_addr()?;
    let policy = Arc::new(Policy::new(addr.port(), origins.clone(), token.clone(), &[security::inline_scripts(&index_html), security::inline_scripts(&chapter_html)].concat()));
    let runs = Arc::new(Runs::new(clone.root.clone()));
    let state = Arc::new(AppState { clone, runs: Arc::clone(&runs), timeout: Duration::from_secs(args.timeout) });

    let app = Router::new()
        .nest("/api", crate::api::router(Arc::clone(&state)))
        .route(
            "/book.json",
            get(move || {
                let body = bundle_json.clone();
                async move { ([(header::CONTENT_TYPE, "application/json")], body) }
            }),
        )
        // A chapter's address gets its page pre-rendered (see `prerender`); the app's other
        // routes get index.html from the fallback.
        .route("/book", get(prerendered).with_state(Arc::clone(&pages)))
        .route("/book/{*path}", get(prerendered).with_state(Arc::clone(&pages)))
        .fallback_service(ServeDir::new(&site).precompressed_br().precompressed_gzip().fallback(ServeFile::new(&index)))
        .layer(axum::middleware::from_fn(cache_control))
        // Server-sent events are left uncompressed by the default predicate, so they stream.
        .layer(CompressionLayer::new())
        .layer(DefaultBodyLimit::max(security::BODY_CAP))
        .layer(axum::middleware::from_fn_with_state(policy, security::guard));

    // The token rides in the URL's fragment: browsers never send a fragment to a server, so it
    // stays out of request lines, logs and Referer headers. The app reads it and forgets the URL.
    let mut banner = format!("Bookside is serving {} at http://{addr}/#token={}\n", state.clone.root.display(), token.as_str());
    banner.push_str("Open that URL to pair this browser (the token changes at every launch).\n");
    for origin in &origins {
        banner.push_str(&format!("Also accepting requests from {origin}\n"));
    }
    // Whoever started the worker may stop reading its output (a closed terminal, a script that
    // only wanted the URL); the server keeps serving, so a failed write is not an error.
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    let served = axum::serve(listener, app);
    tokio::select! {
        result = served => result.context("server stopped")?,
        () = shutdown_signal() => {
            // Runs live in their own process groups, so they would outlive the worker: stop them.
            if let Some(run) = runs.current() {
                run.cancel();
                for _ in 0..30 {
                    if runs.current().is_none() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }
    Ok(())
}

/// The pre-rendered page of a chapter route, or (under the key "") the plain index.html for
/// any other `/book/...` address.
async fn prerendered(State(pages): State<Arc<BTreeMap<String, String>>>, uri: Uri) -> Response {
    let path = uri.path().trim_end_matches('/');
    let page = pages.get(path).or_else(|| pages.get("")).cloned();
    match page {
        Some(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Trunk names the wasm, JS and CSS it builds `<name>-<hash>...`, the hash a 64-bit number in
/// hex without leading zeros (so up to 16 digits; 12 or more in practice): such a name never
/// holds other bytes, so browsers may keep it for a year without asking. Everything else (pages,
/// the book, the service worker) is revalidated on every visit, so a new build or book shows.
async fn cache_control(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let hashed = is_hashed_asset(request.uri().path());
    let mut response = next.run(request).await;
    if response.status().is_success() && !response.headers().contains_key(header::CACHE_CONTROL) {
        let value = if hashed { "public, max-age=31536000, immutable" } else { "no-cache" };
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    }
    response
}

/// `/bookside-app-0123456789abcdef_bg.wasm` and `/style-0123456789abcdef.css` are; `/sw.js` is not.
fn is_hashed_asset(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    name.match_indices('-').any(|(i, _)| {
        let rest = &name[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        (12..=16).contains(&digits) && rest[digits..].starts_with(['.', '_'])
    })
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_trunk_hashed_names_are_cached_for_good() {
        for hashed in ["/bookside-app-0123456789abcdef_bg.wasm", "/bookside-app-df19baa69d71987.js", "/style-fedcba9876543210.css"] {
            assert!(super::is_hashed_asset(hashed), "{hashed}");
        }
        for plain in ["/", "/sw.js", "/book.json", "/index.html", "/icon-192.png", "/book/kv-cache", "/a-0123456789abcdef0.css", "/a-0123456789a.css"] {
            assert!(!super::is_hashed_asset(plain), "{plain}");
        }
    }
}
