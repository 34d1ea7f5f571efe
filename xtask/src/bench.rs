//! `cargo xtask bench`: runs every benchmark side by side in one run and rewrites
//! docs/BENCHMARKS.md with the machine, the date, the medians and the ratios.
//!
//! The in-process numbers (PROGRESS.md throughput natively and in wasm, rendering, Bookside's
//! whole-book build) come from `cargo bench -p bookside-tests --bench core`, which prints
//! `bench <key> <value>` lines. This file adds what needs other programs: `mdbook build`,
//! first-page transfer sizes, Lighthouse, and a Done-when run through the worker vs directly.
//!
//! A number never fails the command: a row whose inputs are missing says `not measured: <why>`,
//! and a target that is missed says `no`. Only a broken harness is an error.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::{root, run};

/// mdBook from crates.io: 0.5.4 builds on rustc 1.95 (it needs 1.88). Installed into
/// `.tools/mdbook` without its `serve`/`watch` features, which a build does not use.
const MDBOOK_VERSION: &str = "0.5.4";
/// Lighthouse 13 needs Node 22; the machine has Node 20.
const LIGHTHOUSE_VERSION: &str = "12.2.3";
/// Chromium flags that work as root on these machines (TOOLCHAIN.md).
const CHROME_FLAGS: &str = "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync";

/// How many timed runs each process-level row takes (after one warm-up).
const PROCESS_RUNS: usize = 5;
const LIGHTHOUSE_RUNS: usize = 3;

struct Row {
    what: String,
    ours: String,
    theirs: String,
    ratio: String,
    target: String,
    met: String,
}

impl Row {
    fn not_measured(what: &str, target: &str, why: impl std::fmt::Display) -> Row {
        Row { what: what.into(), ours: format!("not measured: {why}"), theirs: "—".into(), ratio: "—".into(), target: target.into(), met: "—".into() }
    }
}

fn yes_no(ok: bool) -> String {
    if ok { "yes".into() } else { "no".into() }
}

pub fn bench(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("`cargo xtask bench` takes no arguments (got `{arg}`)");
    }
    let started = Instant::now();
    let mut rows = Vec::new();

    eprintln!("xtask: bench: in-process benchmarks (cargo bench -p bookside-tests --bench core)");
    let core = core_numbers();
    rows.extend(core_rows(&core));

    eprintln!("xtask: bench: mdbook build vs Bookside");
    let mdbook_out = root().join("target/bench-mdbook");
    let mdbook = match mdbook_build(&mdbook_out) {
        Ok(ms) => Some(ms),
        Err(e) => {
            rows.push(Row::not_measured("Whole-book build of book/", "—", format!("{e:#}")));
            None
        }
    };
    if let Some(mdbook_ms) = mdbook {
        rows.push(match core.as_ref().ok().and_then(|c| c.get("build_bookside_ms")).and_then(|v| v.parse::<f64>().ok()) {
            Some(ours) => Row {
                what: "Whole-book build of book/: read, check, render every chapter, write pages".into(),
                ours: format!("{ours:.1} ms (in process, N={})", core.as_ref().ok().and_then(|c| c.get("build_n")).map_or("?", String::as_str)),
                theirs: format!("`mdbook build` {MDBOOK_VERSION}: {mdbook_ms:.1} ms (process, N={PROCESS_RUNS})"),
                ratio: format!("{:.2}x mdBook's time", ours / mdbook_ms),
                target: "—".into(),
                met: "—".into(),
            },
            None => Row::not_measured("Whole-book build of book/", "—", "the core benchmark did not run"),
        });
    }

    eprintln!("xtask: bench: first-page transfer size");
    let dist = root().join("dist");
    let mut notes = Vec::new();
    let sizes = first_page_row(&dist, &mdbook_out, mdbook.is_some(), &mut notes);
    rows.push(sizes.unwrap_or_else(|e| Row::not_measured("First-page transfer size (gzip)", "—", format!("{e:#}"))));

    eprintln!("xtask: bench: Lighthouse (mobile)");
    rows.extend(lighthouse_rows(&dist, &mdbook_out, mdbook.is_some()).unwrap_or_else(|e| {
        vec![Row::not_measured("Lighthouse mobile: performance, accessibility", "—", format!("{e:#}"))]
    }));

    eprintln!("xtask: bench: a Done-when run through the worker vs directly");
    let command = core.as_ref().ok().and_then(|c| c.get("done_when_S1.3")).cloned();
    rows.push(done_when_row(command).unwrap_or_else(|e| Row::not_measured("Done-when run of S1.3", "≤ 5% + 50 ms", format!("{e:#}"))));

    let doc = document(&rows, &notes, started.elapsed());
    let path = root().join("docs/BENCHMARKS.md");
    std::fs::write(&path, &doc).with_context(|| format!("cannot write {}", path.display()))?;
    print!("{doc}");
    eprintln!("xtask: bench: wrote docs/BENCHMARKS.md");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// In-process numbers

fn core_numbers() -> anyhow::Result<BTreeMap<String, String>> {
    let out = Command::new("cargo")
        .args(["bench", "--package", "bookside-tests", "--bench", "core"])
        .current_dir(root())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo bench")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("`cargo bench -p bookside-tests --bench core` failed ({})", out.status);
    }
    Ok(stdout
        .lines()
        .filter_map(|l| l.strip_prefix("bench "))
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect())
}

fn core_rows(core: &anyhow::Result<BTreeMap<String, String>>) -> Vec<Row> {
    let c = match core {
        Ok(c) => c,
        Err(e) => {
            return ["PROGRESS.md parse+print", "Whole-book render"].iter().map(|w| Row::not_measured(w, "—", format!("{e:#}"))).collect();
        }
    };
    let get = |k: &str| c.get(k).map_or("?", String::as_str);
    let num = |k: &str| c.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    let mb = num("progress_bytes") / 1e6;
    vec![
        Row {
            what: format!("PROGRESS.md parse+print, a generated log of {} entries ({mb:.2} MB), native", thousands(get("progress_entries"))),
            ours: format!("{} MB/s ({} ms, N={})", get("progress_native_mb_s"), get("progress_native_ms"), get("progress_n")),
            theirs: "—".into(),
            ratio: "—".into(),
            target: "≥ 100 MB/s".into(),
            met: yes_no(num("progress_native_mb_s") >= 100.0),
        },
        Row {
            what: format!(
                "Same log, core's wasm32 build ({:.0} KB; singlepass compiles and instantiates it in {} ms) under wasmer",
                num("wasm_bytes") / 1e3,
                get("wasm_load_ms")
            ),
            ours: format!("{} ms", get("progress_wasm_ms")),
            theirs: format!("native {} ms", get("progress_native_ms")),
            ratio: format!("{}x native's time", get("progress_wasm_ratio")),
            target: "—".into(),
            met: "—".into(),
        },
        Row {
            what: format!("Whole-book render, {} chapters ({:.0} KB of Markdown)", get("book_chapters"), num("book_markdown_bytes") / 1e3),
            ours: format!("Bookside `render::book`: {} ms (N={})", get("render_bookside_ms"), get("render_n")),
            theirs: format!("bare pulldown-cmark `push_html`: {} ms", get("render_pulldown_ms")),
            ratio: format!("{}x", get("render_ratio")),
            target: "≤ 1.5x".into(),
            met: yes_no(num("render_ratio") <= 1.5),
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// mdBook

fn mdbook_bin() -> anyhow::Result<PathBuf> {
    let tools = root().join(".tools/mdbook");
    let bin = tools.join("bin/mdbook");
    let version = Command::new(&bin).arg("--version").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    if version.is_none_or(|v| !v.contains(MDBOOK_VERSION)) {
        eprintln!("xtask: installing mdbook {MDBOOK_VERSION} into .tools/mdbook (a few minutes, once)");
        run(Command::new("cargo")
            .args(["install", "--locked", "mdbook", "--version", MDBOOK_VERSION, "--no-default-features", "--features", "search", "--root"])
            .arg(&tools))?;
    }
    Ok(bin)
}

/// Builds a copy of book/ (book.toml and src/ only: what mdBook reads) with `mdbook build`;
/// the median wall time in ms. The HTML stays in `out` for the size and Lighthouse rows.
fn mdbook_build(out: &Path) -> anyhow::Result<f64> {
    let bin = mdbook_bin()?;
    let copy = root().join("target/bench-mdbook-src");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy)?;
    std::fs::copy(root().join("book/book.toml"), copy.join("book.toml"))?;
    copy_dir(&root().join("book/src"), &copy.join("src"))?;
    let times = timed_runs(PROCESS_RUNS, || {
        let _ = std::fs::remove_dir_all(out);
        let status = Command::new(&bin).arg("build").arg(&copy).arg("-d").arg(out).stdout(Stdio::null()).stderr(Stdio::null()).status()?;
        if !status.success() {
            bail!("`mdbook build` failed ({status}) on a copy of book/");
        }
        Ok(())
    })?;
    Ok(median(times))
}

// ---------------------------------------------------------------------------------------------
// First-page transfer size

/// The companion's dist/, built by `cargo xtask dist` (trunk --release) when it is missing.
fn ensure_dist(dist: &Path) -> anyhow::Result<()> {
    if dist.join("index.html").exists() && dist.join("book.json").exists() {
        return Ok(());
    }
    eprintln!("xtask: bench: dist/ is missing: building it with `cargo xtask dist`");
    run(Command::new(std::env::current_exe()?).arg("dist"))
}

/// What a first visit downloads, gzipped: the page, its stylesheets, scripts and preloads
/// (Trunk preloads the wasm), plus book.json for the companion, which fetches it at start.
/// Fonts and icons are left out on both sides.
fn first_page_row(dist: &Path, mdbook_out: &Path, have_mdbook: bool, notes: &mut Vec<String>) -> anyhow::Result<Row> {
    if !have_mdbook {
        bail!("mdbook build did not run");
    }
    ensure_dist(dist)?;
    let our_list = page_weight(dist, "index.html", &["book.json"])?;
    let chapter = mdbook_chapter(mdbook_out)?;
    let their_list = page_weight(mdbook_out, &chapter, &[])?;
    notes.push(format!("First-page files (gzip) — {}", file_list("companion", &our_list)));
    notes.push(format!("First-page files (gzip) — {}", file_list("mdBook", &their_list)));
    let (ours, our_files) = (our_list.iter().map(|(_, s)| s).sum::<u64>(), our_list.len());
    let (theirs, their_files) = (their_list.iter().map(|(_, s)| s).sum::<u64>(), their_list.len());
    Ok(Row {
        what: "First-page transfer size (gzip -6; fonts and icons excluded)".into(),
        ours: format!("companion `/`: {:.1} KB in {our_files} files", ours as f64 / 1024.0),
        theirs: format!("mdBook `{chapter}`: {:.1} KB in {their_files} files", theirs as f64 / 1024.0),
        ratio: format!("{:.2}x", ours as f64 / theirs as f64),
        target: "—".into(),
        met: "—".into(),
    })
}

/// A chapter page of the mdBook output: the KV-cache chapter when the book has it.
fn mdbook_chapter(out: &Path) -> anyhow::Result<String> {
    for name in ["kv-cache.html", "introduction.html"] {
        if out.join(name).exists() {
            return Ok(name.into());
        }
    }
    bail!("the mdBook output has no chapter page")
}

fn page_weight(dir: &Path, page: &str, extra: &[&str]) -> anyhow::Result<Vec<(String, u64)>> {
    let html = std::fs::read_to_string(dir.join(page)).with_context(|| format!("cannot read {}", dir.join(page).display()))?;
    let mut files = vec![page.to_owned()];
    files.extend(extra.iter().map(|s| (*s).to_owned()));
    for tag in html.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or_default();
        let attr = if tag.starts_with("script") {
            "src"
        } else if tag.starts_with("link") && ["stylesheet", "modulepreload", "preload"].iter().any(|r| tag.contains(&format!("rel=\"{r}\""))) {
            "href"
        } else {
            continue;
        };
        if let Some(url) = attribute(tag, attr)
            && !url.contains("://")
            && !url.starts_with("//")
        {
            let local = url.trim_start_matches('/').split(['?', '#']).next().unwrap_or_default().to_owned();
            if !files.contains(&local) {
                files.push(local);
            }
        }
    }
    files.into_iter().map(|f| gzip_size(&dir.join(&f)).map(|size| (f, size))).collect()
}

/// One line per file of a first page, for the notes under the table.
fn file_list(side: &str, files: &[(String, u64)]) -> String {
    let list: Vec<String> = files.iter().map(|(f, size)| format!("`{f}` {:.1} KB", *size as f64 / 1024.0)).collect();
    format!("{side}: {}", list.join(", "))
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    tag[start..].split('"').next()
}

fn gzip_size(path: &Path) -> anyhow::Result<u64> {
    let out = Command::new("gzip").args(["-6", "-c"]).arg(path).output().context("cannot run gzip")?;
    if !out.status.success() {
        bail!("gzip cannot read {}", path.display());
    }
    Ok(out.stdout.len() as u64)
}

// ---------------------------------------------------------------------------------------------
// Lighthouse

fn lighthouse_bin() -> anyhow::Result<PathBuf> {
    let dir = root().join(".tools/lighthouse");
    let bin = dir.join("node_modules/.bin/lighthouse");
    let version = Command::new(&bin).arg("--version").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    if version.is_none_or(|v| v.trim() != LIGHTHOUSE_VERSION) {
        eprintln!("xtask: installing lighthouse {LIGHTHOUSE_VERSION} from npm into .tools/lighthouse");
        std::fs::create_dir_all(&dir)?;
        if !dir.join("package.json").exists() {
            std::fs::write(dir.join("package.json"), "{ \"private\": true }\n")?;
        }
        run(Command::new("npm").args(["install", "--no-audit", "--no-fund", "--save-exact", &format!("lighthouse@{LIGHTHOUSE_VERSION}")]).current_dir(&dir))?;
    }
    Ok(bin)
}

/// Both sites are served the same way (Python's static server, no compression), so neither
/// gains from the server; scores are medians of Lighthouse's default mobile run.
fn lighthouse_rows(dist: &Path, mdbook_out: &Path, have_mdbook: bool) -> anyhow::Result<Vec<Row>> {
    if !have_mdbook {
        bail!("mdbook build did not run");
    }
    if !Path::new("/usr/bin/chromium").exists() {
        bail!("/usr/bin/chromium is missing: `cargo xtask test` installs it");
    }
    ensure_dist(dist)?;
    let bin = lighthouse_bin()?;
    let chapter = mdbook_chapter(mdbook_out)?;
    let ours = with_static_server(dist, |base| lighthouse_scores(&bin, &format!("{base}/")))?;
    let theirs = with_static_server(mdbook_out, |base| lighthouse_scores(&bin, &format!("{base}/{chapter}")))?;
    let row = |what: &str, i: usize| Row {
        what: format!("Lighthouse mobile {what} (median of {LIGHTHOUSE_RUNS})"),
        ours: format!("companion `/`: {:.0}", ours[i] * 100.0),
        theirs: format!("mdBook `{chapter}`: {:.0}", theirs[i] * 100.0),
        ratio: format!("{:+.0} points", (ours[i] - theirs[i]) * 100.0),
        target: "—".into(),
        met: "—".into(),
    };
    Ok(vec![row("performance", 0), row("accessibility", 1)])
}

fn lighthouse_scores(bin: &Path, url: &str) -> anyhow::Result<[f64; 2]> {
    let report = root().join("target/bench-lighthouse.json");
    let mut perf = Vec::new();
    let mut a11y = Vec::new();
    for _ in 0..LIGHTHOUSE_RUNS {
        let status = Command::new(bin)
            .arg(url)
            .args(["--only-categories=performance,accessibility", "--output=json", "--quiet"])
            .arg(format!("--output-path={}", report.display()))
            .arg(format!("--chrome-flags={CHROME_FLAGS}"))
            .env("CHROME_PATH", "/usr/bin/chromium")
            .stdout(Stdio::null())
            .status()
            .context("cannot run lighthouse")?;
        if !status.success() {
            bail!("lighthouse failed on {url} ({status})");
        }
        let out = Command::new("node")
            .arg("-e")
            .arg("const r = require(process.argv[1]); console.log(r.categories.performance.score, r.categories.accessibility.score)")
            .arg(&report)
            .output()
            .context("cannot run node")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut scores = text.split_whitespace().map(|s| s.parse::<f64>());
        match (scores.next(), scores.next()) {
            (Some(Ok(p)), Some(Ok(a))) => {
                perf.push(p);
                a11y.push(a);
            }
            _ => bail!("lighthouse gave no scores for {url} (a page that fails to load scores null)"),
        }
    }
    Ok([median(perf), median(a11y)])
}

/// Serves `dir` on a free loopback port for the duration of `f`.
fn with_static_server<T>(dir: &Path, f: impl FnOnce(&str) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let mut server = Command::new("python3")
        .args(["-m", "http.server", &port.to_string(), "--bind", "127.0.0.1", "--directory"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start python3 -m http.server")?;
    let result = wait_for_port(port, &mut server).and_then(|()| f(&format!("http://127.0.0.1:{port}")));
    let _ = server.kill();
    let _ = server.wait();
    result
}

fn wait_for_port(port: u16, server: &mut Child) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Some(status) = server.try_wait()? {
            bail!("the static server exited early ({status})");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("the static server did not listen on port {port} within 10 s")
}

// ---------------------------------------------------------------------------------------------
// Done-when through the worker vs directly

fn done_when_row(command: Option<String>) -> anyhow::Result<Row> {
    let what = "Done-when run of S1.3 on a fresh copy of the clone";
    let target = "worker ≤ direct × 1.05 + 50 ms";
    let Some(command) = command else { bail!("the Session Guide has no Done-when command for S1.3") };
    run(Command::new("cargo").args(["build", "--release", "--package", "bookside-worker"]))?;
    let bookside = root().join("target/release/bookside");
    let copy = root().join("target/bench-clone");
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(&root().join("book"), &copy)?;

    let argv: Vec<&str> = command.split_whitespace().collect();
    let direct = || -> anyhow::Result<()> {
        Command::new(argv[0]).args(&argv[1..]).current_dir(&copy).stdout(Stdio::null()).stderr(Stdio::null()).status().with_context(|| format!("cannot run `{command}`"))?;
        Ok(())
    };
    // The worker's answer decides whether this row can be measured at all: exit 2 means usage
    // or I/O error (or a subcommand that is not built), not a test result.
    let probe = Command::new(&bookside).args(["run", "S1.3", "--book"]).arg(&copy).output().context("cannot run target/release/bookside")?;
    if probe.status.code() == Some(2) {
        let why = String::from_utf8_lossy(&probe.stderr);
        bail!("`bookside run S1.3` is not usable yet: {}", why.lines().next().unwrap_or("exit 2").trim());
    }
    let through_worker = || -> anyhow::Result<()> {
        Command::new(&bookside).args(["run", "S1.3", "--book"]).arg(&copy).stdout(Stdio::null()).stderr(Stdio::null()).status()?;
        Ok(())
    };
    // Alternate the two so a slow moment of the shared machine hits both alike.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    direct()?;
    through_worker()?;
    for _ in 0..PROCESS_RUNS {
        theirs.push(time(direct)?);
        ours.push(time(through_worker)?);
    }
    let (ours, theirs) = (median(ours), median(theirs));
    Ok(Row {
        what: what.into(),
        ours: format!("`bookside run S1.3`: {ours:.0} ms (N={PROCESS_RUNS})"),
        theirs: format!("`{command}` directly: {theirs:.0} ms"),
        ratio: format!("{:+.1}% ({:+.0} ms)", (ours / theirs - 1.0) * 100.0, ours - theirs),
        target: target.into(),
        met: yes_no(ours <= theirs * 1.05 + 50.0),
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// `10000` → `10,000`.
fn thousands(n: &str) -> String {
    let digits: Vec<char> = n.chars().collect();
    let mut out = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*c);
    }
    out
}

fn time(f: impl Fn() -> anyhow::Result<()>) -> anyhow::Result<f64> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed().as_secs_f64() * 1000.0)
}

/// One warm-up, then `n` timed runs in ms.
fn timed_runs(n: usize, f: impl Fn() -> anyhow::Result<()>) -> anyhow::Result<Vec<f64>> {
    f()?;
    (0..n).map(|_| time(&f)).collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Copies a folder, leaving out what is the reader's or a cache: virtual environments,
/// checkpoints, caches and build output.
fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("cannot list {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        if [".venv", "checkpoints", "__pycache__", ".pytest_cache", "book", "target"].iter().any(|n| name == *n) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).with_context(|| format!("cannot copy {}", src.display()))?;
        }
    }
    Ok(())
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo.lines().find_map(|l| l.strip_prefix("model name")).and_then(|l| l.split_once(':')).map_or("unknown CPU", |(_, m)| m.trim());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = Command::new("rustc").arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
    format!("{model}, {cores} logical cores (`nproc`), {rustc}, {} {}", std::env::consts::OS, std::env::consts::ARCH)
}

fn now_utc() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "unknown date".into())
}

fn document(rows: &[Row], notes: &[String], took: Duration) -> String {
    let mut doc = String::new();
    let _ = writeln!(doc, "# Benchmarks\n");
    let _ = writeln!(doc, "Written by `cargo xtask bench`; do not edit by hand, run the command again. Every number below");
    let _ = writeln!(doc, "comes from one run of it, with both sides of each row measured side by side in that run.\n");
    let _ = writeln!(doc, "- Date: {}", now_utc());
    let _ = writeln!(doc, "- Machine: {}", machine());
    let _ = writeln!(doc, "- Run took: {:.0} s", took.as_secs_f64());
    let _ = writeln!(doc, "- Method: medians of N timed runs after one warm-up (`std::time::Instant`). In-process rows come from");
    let _ = writeln!(doc, "  `cargo bench -p bookside-tests --bench core` (release build). The wasm row runs core's real");
    let _ = writeln!(doc, "  `wasm32-unknown-unknown` build (the parity shim) under wasmer's singlepass compiler, which");
    let _ = writeln!(doc, "  generates slower code than a browser's optimising tier: read it as an upper bound.");
    let _ = writeln!(doc, "- The machine is shared (2 cores, other builds running): ratios measured side by side are more");
    let _ = writeln!(doc, "  trustworthy than absolute times.\n");
    let _ = writeln!(doc, "| What | Bookside | Compared with | Ratio | Target | Met |");
    let _ = writeln!(doc, "| --- | --- | --- | --- | --- | --- |");
    for r in rows {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let _ = writeln!(doc, "| {} | {} | {} | {} | {} | {} |", cell(&r.what), cell(&r.ours), cell(&r.theirs), cell(&r.ratio), cell(&r.target), cell(&r.met));
    }
    if !notes.is_empty() {
        let _ = writeln!(doc, "\n## Notes\n");
        for n in notes {
            let _ = writeln!(doc, "- {n}");
        }
    }
    doc
}
