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

    eprintln!("xtask: bench: a chapter page's first load: transfer size and Lighthouse (mobile)");
    let mut notes = Vec::new();
    rows.extend(first_page_rows(&mdbook_out, mdbook.is_some(), &mut notes).unwrap_or_else(|e| {
        vec![Row::not_measured("First-page transfer size and Lighthouse mobile scores of a chapter page", "≤ 250 KB; ≥ 95; 100", format!("{e:#}"))]
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
// First page: what a chapter page downloads, and Lighthouse's scores for it

/// The chapter both sides open: the book's KV-cache chapter (`src/kv-cache.md`).
const CHAPTER: &str = "kv-cache";

/// One request of a page load.
#[derive(Debug, Clone)]
struct Fetched {
    url: String,
    kind: String,
    /// Body bytes on the wire.
    bytes: u64,
}

/// Lighthouse's medians for one page, the requests of its last run (as the browser downloaded
/// them, in whatever encoding it negotiated), and the same requests fetched again with gzip.
#[derive(Debug)]
struct PageRun {
    performance: f64,
    accessibility: f64,
    lcp_ms: f64,
    tbt_ms: f64,
    as_run: Vec<Fetched>,
    gzip: Vec<Fetched>,
}

/// The companion's chapter page through the real worker (`bookside serve`: what a reader gets,
/// compressed, with its caching headers) and mdBook's same chapter through a static server that
/// gzips as the hosts of an online book do; Lighthouse's default mobile run on both, in turn.
/// The size row counts every request the page itself made during that load (service-worker
/// precaching excluded: it runs after the page is up), fetched again with `Accept-Encoding: gzip`
/// only, so both sides are counted in the same encoding.
fn first_page_rows(mdbook_out: &Path, have_mdbook: bool, notes: &mut Vec<String>) -> anyhow::Result<Vec<Row>> {
    if !have_mdbook {
        bail!("mdbook build did not run");
    }
    if !Path::new("/usr/bin/chromium").exists() {
        bail!("/usr/bin/chromium is missing: `cargo xtask test` installs it");
    }
    let theirs_page = format!("{CHAPTER}.html");
    if !mdbook_out.join(&theirs_page).exists() {
        bail!("the mdBook output has no {theirs_page}");
    }
    // Always the current code: the site, the book bundle, the worker.
    run(Command::new(std::env::current_exe()?).arg("dist"))?;
    run(Command::new("cargo").args(["build", "--release", "--package", "bookside-worker"]))?;
    let bin = lighthouse_bin()?;
    let (ours, offline_kb) = with_worker(&root().join("dist"), |base| {
        let page = lighthouse_page(&bin, &format!("{base}/book/{CHAPTER}"))?;
        Ok((page, offline_copy_bytes(base)? as f64 / 1024.0))
    })?;
    notes.push(format!(
        "Not in the first page: once it is up, the service worker (app/sw.js) downloads the whole app for offline use, index.html and every asset it names ({offline_kb:.1} KB gzip), in the background. Lighthouse's trace holds none of those requests."
    ));
    let theirs = with_gzip_server(mdbook_out, |base| lighthouse_page(&bin, &format!("{base}/{theirs_page}")))?;

    let total = |list: &[Fetched]| list.iter().map(|r| r.bytes).sum::<u64>();
    let kb = |b: u64| b as f64 / 1024.0;
    for (side, page) in [("companion", &ours), ("mdBook", &theirs)] {
        let list: Vec<String> = page.gzip.iter().map(|r| format!("`{}` ({}) {:.1} KB", short_url(&r.url), r.kind, kb(r.bytes))).collect();
        notes.push(format!("First-page requests, gzip — {side}: {}", list.join(", ")));
        notes.push(format!(
            "{side}, as Chromium downloaded it in the last Lighthouse run: {:.1} KB; medians of Lighthouse's simulated mobile LCP {:.0} ms and TBT {:.0} ms",
            kb(total(&page.as_run)),
            page.lcp_ms,
            page.tbt_ms
        ));
    }
    let (our_size, their_size) = (total(&ours.gzip), total(&theirs.gzip));
    let ours_label = format!("companion `/book/{CHAPTER}`");
    let theirs_label = format!("mdBook `{theirs_page}`");
    let score = |what: &str, o: f64, t: f64, target: &str, met: bool| Row {
        what: format!("Lighthouse {LIGHTHOUSE_VERSION} mobile {what}, chapter page (median of {LIGHTHOUSE_RUNS})"),
        ours: format!("{ours_label}: {:.0}", o * 100.0),
        theirs: format!("{theirs_label}: {:.0}", t * 100.0),
        ratio: format!("{:+.0} points", (o - t) * 100.0),
        target: target.into(),
        met: yes_no(met),
    };
    Ok(vec![
        Row {
            what: "First-page transfer size of a chapter page: every request of the load (HTML, wasm, JS, CSS, book data, fonts, icons), gzip".into(),
            ours: format!("{ours_label}: {:.1} KB in {} requests", kb(our_size), ours.gzip.len()),
            theirs: format!("{theirs_label}: {:.1} KB in {} requests", kb(their_size), theirs.gzip.len()),
            ratio: format!("{:.2}x", our_size as f64 / their_size as f64),
            target: "≤ 250 KB".into(),
            met: yes_no(kb(our_size) <= 250.0),
        },
        score("performance", ours.performance, theirs.performance, "≥ 95", ours.performance >= 0.95),
        score("accessibility", ours.accessibility, theirs.accessibility, "100", ours.accessibility >= 1.0),
    ])
}

/// What app/sw.js fetches on the first visit besides the page itself (index.html and the wasm,
/// JS and CSS it names; `/book.json` is the first page's already), gzip.
fn offline_copy_bytes(base: &str) -> anyhow::Result<u64> {
    let index = std::fs::read_to_string(root().join("dist/index.html"))?;
    let mut paths = vec!["/".to_owned()];
    for piece in index.split(['"', '\'']) {
        if piece.starts_with('/') && [".js", ".wasm", ".css"].iter().any(|e| piece.ends_with(e)) && piece != "/sw.js" && !paths.iter().any(|p| p == piece) {
            paths.push(piece.to_owned());
        }
    }
    paths.iter().map(|p| gzip_bytes(&format!("{base}{p}"))).sum()
}

/// `http://127.0.0.1:1234/a/b.css?x` → `/a/b.css`.
fn short_url(url: &str) -> &str {
    let path = url.split_once("://").map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
    path.split(['?', '#']).next().unwrap_or(path)
}

/// Fetches `url` with `Accept-Encoding: gzip` and counts the body bytes the server sends
/// (compressed when it compresses, as stored otherwise).
fn gzip_bytes(url: &str) -> anyhow::Result<u64> {
    let out = Command::new("curl")
        .args(["--silent", "--show-error", "--fail", "--output", "/dev/null", "--write-out", "%{size_download}", "--header", "Accept-Encoding: gzip"])
        .arg(url)
        .output()
        .context("cannot run curl")?;
    if !out.status.success() {
        bail!("curl cannot fetch {url}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    String::from_utf8_lossy(&out.stdout).trim().parse::<u64>().with_context(|| format!("curl gave no size for {url}"))
}

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

/// Reads a Lighthouse JSON report: the two scores, LCP and TBT, then one line per request the
/// page made (the service worker's own requests are left out) with its type and transfer size.
const READ_REPORT: &str = r#"
const r = require(process.argv[1]);
const num = (a) => r.audits[a] && r.audits[a].numericValue;
console.log(r.categories.performance.score, r.categories.accessibility.score, num('largest-contentful-paint'), num('total-blocking-time'));
for (const q of r.audits['network-requests'].details.items) {
  if (q.sessionTargetType && q.sessionTargetType !== 'page') continue;
  if (!q.url.startsWith('http')) continue;
  console.log(q.url + '\t' + (q.resourceType || q.mimeType || '?') + '\t' + (q.transferSize || 0));
}
"#;

fn lighthouse_page(bin: &Path, url: &str) -> anyhow::Result<PageRun> {
    let report = root().join("target/bench-lighthouse.json");
    let (mut perf, mut a11y, mut lcp, mut tbt) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut as_run = Vec::new();
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
        let out = Command::new("node").arg("-e").arg(READ_REPORT).arg(&report).output().context("cannot run node")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let scores: Vec<f64> = lines.next().unwrap_or_default().split_whitespace().filter_map(|s| s.parse().ok()).collect();
        let [p, a, l, t] = scores[..] else {
            bail!("lighthouse gave no scores for {url} (a page that fails to load scores null): {}", String::from_utf8_lossy(&out.stderr).trim())
        };
        perf.push(p);
        a11y.push(a);
        lcp.push(l);
        tbt.push(t);
        as_run = lines
            .filter_map(|l| {
                let mut f = l.split('\t');
                Some(Fetched { url: f.next()?.to_owned(), kind: f.next()?.to_owned(), bytes: f.next()?.parse().ok()? })
            })
            .collect();
    }
    let gzip = as_run.iter().map(|r| gzip_bytes(&r.url).map(|bytes| Fetched { bytes, ..r.clone() })).collect::<anyhow::Result<Vec<_>>>()?;
    Ok(PageRun { performance: median(perf), accessibility: median(a11y), lcp_ms: median(lcp), tbt_ms: median(tbt), as_run, gzip })
}

/// A static server for mdBook's output that gzips (level 6) what is not already compressed,
/// with Content-Encoding and Vary, as the hosts of an online book do.
const GZIP_SERVER: &str = r#"
import gzip, http.server, io, os, sys
SKIP = ('.woff2', '.woff', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.ico')
class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, 'index.html')
        if not os.path.isfile(path) or path.endswith(SKIP) or 'gzip' not in self.headers.get('Accept-Encoding', ''):
            return super().send_head()
        with open(path, 'rb') as f:
            body = gzip.compress(f.read(), 6)
        self.send_response(200)
        self.send_header('Content-Type', self.guess_type(path))
        self.send_header('Content-Encoding', 'gzip')
        self.send_header('Vary', 'Accept-Encoding')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        return io.BytesIO(body)
    def log_message(self, *args):
        pass
os.chdir(sys.argv[2])
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()
"#;

/// Serves `dir` with [`GZIP_SERVER`] on a free loopback port for the duration of `f`.
fn with_gzip_server<T>(dir: &Path, f: impl FnOnce(&str) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let port = free_port()?;
    let server = Command::new("python3").arg("-c").arg(GZIP_SERVER).arg(port.to_string()).arg(dir).stdout(Stdio::null()).spawn().context("cannot start python3")?;
    with_server(server, port, f)
}

/// Serves `site` with the release worker on the sample book for the duration of `f`.
fn with_worker<T>(site: &Path, f: impl FnOnce(&str) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let port = free_port()?;
    let server = Command::new(root().join("target/release/bookside"))
        .args(["serve", "--port", &port.to_string(), "--book"])
        .arg(root().join("book"))
        .arg("--site")
        .arg(site)
        .stdout(Stdio::null())
        .spawn()
        .context("cannot start target/release/bookside")?;
    with_server(server, port, f)
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn with_server<T>(mut server: Child, port: u16, f: impl FnOnce(&str) -> anyhow::Result<T>) -> anyhow::Result<T> {
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
            bail!("the server exited early ({status})");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("the server did not listen on port {port} within 10 s")
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
