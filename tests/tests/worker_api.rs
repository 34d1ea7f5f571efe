//! The worker's API read as the app reads it: every answer of the real `bookside serve` decodes
//! into `bookside_core::wire` types, and the sessions it offers are exactly the cards core's guide
//! parser finds in the `/book.json` the same worker serves.
//!
//! The binary is `$BOOKSIDE_BIN` (set by `cargo xtask test`), else built here with cargo.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bookside_core::wire::{
    ApiErrorBody, BookBundle, DoctorReport, Health, Outcome, RunEnd, RunResult, RunSnapshot, RunStarted, RunState, SessionList,
    StatusReport,
};
use bookside_tests::{TempDir, fresh_clone, root};

fn bookside() -> PathBuf {
    if let Some(bin) = std::env::var_os("BOOKSIDE_BIN") {
        return PathBuf::from(bin);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--package", "bookside-worker", "--bin", "bookside"])
        .current_dir(root())
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build of the worker failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"));
    target.join("debug/bookside")
}

struct Worker {
    child: Child,
    port: u16,
    token: String,
}

impl Worker {
    fn start(book: &std::path::Path, site: &std::path::Path) -> Worker {
        let mut child = Command::new(bookside())
            .args(["serve", "--port", "0", "--book"])
            .arg(book)
            .arg("--site")
            .arg(site)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start bookside serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut banner = String::new();
        out.read_line(&mut banner).unwrap();
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let url = banner.split(" at http://127.0.0.1:").nth(1).unwrap_or_else(|| panic!("no URL in {banner:?}"));
        let (port, token) = url.trim().split_once("/#token=").expect("a token in the URL's fragment");
        Worker { child, port: port.parse().unwrap(), token: token.to_owned() }
    }

    /// One request; returns the status and the (de-chunked) body.
    fn call(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(180))).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Bookside-Token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            self.token,
            body.len()
        )
        .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let mut body = &raw[split + 4..];
        let mut out = Vec::new();
        if head.contains("transfer-encoding: chunked") {
            while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
                let size = usize::from_str_radix(std::str::from_utf8(&body[..end]).unwrap().trim(), 16).unwrap();
                if size == 0 {
                    break;
                }
                out.extend_from_slice(&body[end + 2..end + 2 + size]);
                body = &body[end + 4 + size..];
            }
        } else {
            out = body.to_vec();
        }
        (status, String::from_utf8(out).unwrap())
    }

    /// The body of a call with the expected status, as text for `decode!`.
    fn expect(&self, method: &str, path: &str, body: &str, expected: u16) -> String {
        let (status, text) = self.call(method, path, body);
        assert_eq!(status, expected, "{method} {path}: {text}");
        text
    }
}

/// Decodes a JSON answer into a wire type, saying which answer did not fit.
macro_rules! decode {
    ($ty:ty, $text:expr) => {{
        let text: String = $text;
        serde_json::from_str::<$ty>(&text).unwrap_or_else(|e| panic!("not a {} ({e}): {text}", stringify!($ty)))
    }};
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let _ = self.child.wait();
    }
}

fn site(dir: &TempDir) -> PathBuf {
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!DOCTYPE html><html><body></body></html>").unwrap();
    site
}

#[test]
fn the_sessions_offered_are_the_cards_core_finds_in_the_served_book() {
    let clone = fresh_clone("worker-api-sessions");
    let dir = TempDir::new("worker-api-site");
    let w = Worker::start(clone.path(), &site(&dir));
    let bundle = decode!(BookBundle, w.expect("GET", "/book.json", "", 200));
    let book = bookside_core::book::load(&bundle);
    let (guide, _) = bookside_core::guide::load(&book, None);
    let guide = guide.expect("the sample book has a Session Guide");
    let offered = decode!(SessionList, w.expect("GET", "/api/sessions", "", 200));
    let expected: Vec<(String, Option<String>, Option<String>)> = guide
        .cards
        .iter()
        .map(|c| (c.id.clone(), c.done_when.as_ref().map(|d| d.command.clone()), c.done_when.as_ref().and_then(|d| d.test_file.clone())))
        .collect();
    let got: Vec<(String, Option<String>, Option<String>)> =
        offered.sessions.iter().map(|s| (s.id.clone(), s.done_when.clone(), s.test_file.clone())).collect();
    assert_eq!(got, expected, "same cards, same order, Done-when exactly as printed");
    assert_eq!(offered.sessions.iter().filter(|s| s.runnable).count(), 26, "every milestone of the sample book can run");
    let health = decode!(Health, w.expect("GET", "/api/health", "", 200));
    assert_eq!(health.book, book.title);
}

#[test]
fn a_run_status_doctor_and_refusals_decode_as_wire_types() {
    let clone = fresh_clone("worker-api-run");
    let dir = TempDir::new("worker-api-run-site");
    let w = Worker::start(clone.path(), &site(&dir));

    let started = decode!(RunStarted, w.expect("POST", "/api/runs", r#"{"session":"S1.3"}"#, 202));
    assert_eq!(started.command, "uv run pytest tests/milestones/test_m02_kv_budget.py");
    let (status, stream) = w.call("GET", &started.events, "");
    assert_eq!(status, 200);
    // Read with the parser the app reads the stream with.
    let events = bookside_core::sse::Parser::default().push(stream.as_bytes());
    let done = events.iter().find(|e| e.name == "done").expect("a done event");
    let result: RunResult = serde_json::from_str(&done.data).expect("done carries a RunResult");
    assert_eq!((result.outcome, result.end), (Outcome::Skip, RunEnd::Exited));
    assert!(result.message.as_deref().unwrap().contains("S1.3"));
    let snapshot = decode!(RunSnapshot, w.expect("GET", &format!("/api/runs/{}", started.run), "", 200));
    assert_eq!(snapshot.state, RunState::Finished);
    assert_eq!(snapshot.result.as_ref(), Some(&result));

    let refused = decode!(ApiErrorBody, w.expect("POST", "/api/runs", r#"{"session":"../x"}"#, 400));
    assert_eq!(refused.error, "bad-session-id");
    let unknown = decode!(ApiErrorBody, w.expect("GET", "/api/runs/nope", "", 404));
    assert_eq!(unknown.error, "unknown-run");

    let report = decode!(StatusReport, w.expect("GET", "/api/status", "", 200));
    assert_eq!(report.milestones.len(), 26);
    assert!(report.milestones.iter().all(|m| m.outcome == Outcome::Skip && m.session.is_some()));
    let doctor = decode!(DoctorReport, w.expect("GET", "/api/doctor", "", 200));
    assert!(doctor.ok, "{doctor:#?}");
}
