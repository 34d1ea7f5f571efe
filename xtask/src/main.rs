//! Project automation. `cargo xtask start` and `cargo xtask test` are the README's two commands;
//! each installs what is missing on a fresh machine (and only that) before doing its work.

mod bench;
mod compress;
mod fuzz;
mod smoke;
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  start    install what is missing, build the site (release), serve the bundled book
           [--port N] (default 7878); --check starts it on a free port, checks that it
           serves the app and its wasm-opt'd wasm, and stops it (`test` runs this last)
  test     install test tools, then run every test: unit, integration, wasm32, real browser
  dist     build a static folder (dist/) that can be hosted beside the online book
  bench    measure side by side and rewrite docs/BENCHMARKS.md (never fails on a number)
  fuzz     run each fuzz target under fuzz/ (--time SECONDS per target, default 60)
";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("start") => start(&args[1..]),
        Some("test") => test(),
        Some("dist") => dist(),
        Some("bench") => bench::bench(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The workspace root (the folder holding the root Cargo.toml).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

fn start(args: &[String]) -> anyhow::Result<()> {
    let mut port = "7878".to_owned();
    let mut check = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--port" => port = it.next().context("--port needs a number, e.g. --port 7879")?.clone(),
            "--check" => check = true,
            other => bail!("unknown option `{other}` for start: use --port N or --check"),
        }
    }
    let tools = tools::ensure_build_tools()?;
    build_site(&tools)?;
    run(Command::new("cargo").args(["build", "--release", "--package", "bookside-worker"]))?;
    let mut serve = Command::new(root().join("target/release/bookside"));
    serve.args(["serve", "--book"]).arg(root().join("book")).arg("--site").arg(root().join("dist"));
    if check {
        return smoke::check_start(serve);
    }
    println!("xtask: starting the worker on the bundled book; open the URL it prints below");
    let status = serve.args(["--port", &port]).status().context("cannot start target/release/bookside")?;
    if !status.success() {
        bail!("the worker stopped with {status}");
    }
    Ok(())
}

fn test() -> anyhow::Result<()> {
    let tools = tools::ensure_build_tools()?;
    tools::ensure_test_tools()?;
    // The core must keep building for the browser: it holds no I/O.
    run(Command::new("cargo").args(["build", "--package", "bookside-core", "--target", "wasm32-unknown-unknown"]))?;
    // Release build on purpose: that is where a broken wasm-opt shows up.
    build_site(&tools)?;
    run(Command::new("cargo").args(["build", "--package", "bookside-worker"]))?;
    let bookside = root().join("target/debug/bookside");
    run(Command::new("cargo").args(["test", "--workspace", "--exclude", "bookside-app"]).env("BOOKSIDE_BIN", &bookside))?;
    let browser = root().join("tests/browser");
    run(Command::new("node")
        .args(["--test", "--test-concurrency=1"])
        .current_dir(&browser)
        .env("BOOKSIDE_BIN", &bookside)
        .env("BOOKSIDE_SITE", root().join("dist"))
        .env("BOOKSIDE_BOOK", root().join("book")))?;
    // Last, what the README's first command does, end to end.
    start(&["--check".to_owned()])
}

fn dist() -> anyhow::Result<()> {
    let tools = tools::ensure_build_tools()?;
    build_site(&tools)?;
    run(Command::new("cargo").args(["run", "--release", "--package", "bookside-worker", "--", "bundle", "--book"])
        .arg(root().join("book"))
        .arg("--out")
        .arg(root().join("dist/book.json"))
        .arg("--site")
        .arg(root().join("dist")))?;
    // Static hosts (GitHub Pages, S3 website hosting) answer unknown paths with 404.html: the app
    // routes on the client, so that page is the app itself. Its service worker then serves every
    // route from cache, offline too.
    std::fs::copy(root().join("dist/index.html"), root().join("dist/404.html")).context("cannot write dist/404.html")?;
    println!("xtask: dist/ is a static site: host it anywhere; unknown paths must serve index.html (404.html is a copy)");
    Ok(())
}

fn build_site(tools: &tools::BuildTools) -> anyhow::Result<()> {
    let dist = root().join("dist");
    run(Command::new(&tools.trunk).args(["build", "--release"]).current_dir(root()).env("PATH", &tools.path))?;
    check_wasm_optimised(&dist, "bookside-app")?;
    // The chapter pages' template and its small wasm (app/src/bin/chapter.rs), built by Trunk on
    // their own (Trunk builds one page per run and empties its output folder first), then moved
    // beside the app as dist/chapter.html.
    let chapter_dist = root().join("target/chapter-site");
    run(Command::new(&tools.trunk).args(["build", "--release", "--dist"]).arg(&chapter_dist).arg("app/chapter.html").current_dir(root()).env("PATH", &tools.path))?;
    check_wasm_optimised(&chapter_dist, "bookside-chapter")?;
    for entry in std::fs::read_dir(&chapter_dist)? {
        let path = entry?.path();
        let name = path.file_name().context("a file name")?.to_string_lossy().into_owned();
        // Trunk names the page after its source (older releases: index.html).
        let to = if name.ends_with(".html") { dist.join("chapter.html") } else { dist.join(&name) };
        if path.is_file() {
            std::fs::copy(&path, &to).with_context(|| format!("cannot copy {} to {}", path.display(), to.display()))?;
        }
    }
    compress::precompress(&dist)
}

/// Trunk skips wasm-opt silently when it cannot find a matching one; a release site must have
/// gone through it (size, and it is where Debian's broken binaryen would show up).
fn check_wasm_optimised(dist: &Path, bin: &str) -> anyhow::Result<()> {
    let optimised = std::fs::read(root().join(format!("target/wasm-opt/release/{bin}_bg.wasm")))
        .context("wasm-opt produced nothing: check Trunk.toml's [tools] wasm_opt and .tools/")?;
    let prefix = format!("{bin}-");
    let shipped = std::fs::read_dir(dist)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm") && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
        .with_context(|| format!("{} holds no {bin} .wasm after the build", dist.display()))?;
    if std::fs::read(&shipped)? != optimised {
        bail!("{} is not wasm-opt's output: the release build skipped wasm-opt", shipped.display());
    }
    eprintln!("xtask: {} went through wasm-opt ({} bytes)", shipped.display(), optimised.len());
    Ok(())
}

/// Runs a command from the workspace root, failing with the command line when it fails.
pub fn run(cmd: &mut Command) -> anyhow::Result<()> {
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
    let line = format!("{} {}", cmd.get_program().to_string_lossy(), cmd.get_args().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" "));
    eprintln!("xtask: $ {line}");
    let status = cmd.status().with_context(|| format!("cannot run `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed with {status}");
    }
    Ok(())
}
