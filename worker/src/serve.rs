//! `bookside serve`: the site, the book bundle and (later) the worker API on 127.0.0.1 only.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use axum::Router;
use axum::routing::get;
use tower_http::services::{ServeDir, ServeFile};

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
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(serve(args))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let bundle = crate::bundle::load(&args.book)?;
    let bundle_json = serde_json::to_string(&bundle)?;
    let site = args.site.unwrap_or_else(crate::default_site_dir);
    let index = site.join("index.html");
    if !index.is_file() {
        anyhow::bail!("no built site at {}: run `cargo xtask start` to build it", site.display());
    }
    let app = Router::new()
        .route(
            "/book.json",
            get(move || {
                let body = bundle_json.clone();
                async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], body) }
            }),
        )
        .fallback_service(ServeDir::new(&site).fallback(ServeFile::new(&index)));

    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{}: is another bookside running?", args.port))?;
    let addr = listener.local_addr()?;
    println!("Bookside is serving {} at http://{addr}/", args.book.display());
    axum::serve(listener, app).await.context("server stopped")?;
    Ok(())
}
