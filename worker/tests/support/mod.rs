//! Test support: starts the real `bookside serve`, speaks raw HTTP/1.1 to it (clients normalise
//! the Host header, and these tests need to send odd ones), and builds fixture books and sites.

#![allow(dead_code)] // each test file uses its own part of this module

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The real worker binary, on a free port.
pub struct Worker {
    child: Child,
    pub port: u16,
    pub token: String,
    /// The first line it printed (the URL with the token).
    pub banner: String,
}

impl Worker {
    pub fn start(book: &Path, site: &Path, extra: &[&str]) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bookside"))
            .args(["serve", "--port", "0", "--book"])
            .arg(book)
            .arg("--site")
            .arg(site)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start bookside serve");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout piped"));
        let mut banner = String::new();
        lines.read_line(&mut banner).expect("read the banner");
        // Keep draining stdout so the worker never blocks on it.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = lines.read_to_end(&mut sink);
        });
        let url = banner.split(" at ").nth(1).unwrap_or_else(|| panic!("no URL in the banner {banner:?}")).trim().to_owned();
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url}"));
        let (port, fragment) = rest.split_once('/').expect("a path after the port");
        let token = fragment.strip_prefix("#token=").unwrap_or_else(|| panic!("no token fragment in {url}")).to_owned();
        Worker { child, port: port.parse().expect("a port number"), token, banner }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A raw request; `head` is everything up to the blank line, without it.
    pub fn raw(&self, head: &str, body: &str) -> Response {
        send(self.port, head, body)
    }

    /// GET with the right Host and the token.
    pub fn get(&self, path: &str) -> Response {
        self.raw(&format!("GET {path} HTTP/1.1\r\nHost: {}\r\nX-Bookside-Token: {}", self.host(), self.token), "")
    }

    /// POST a JSON body with the right Host and the token.
    pub fn post(&self, path: &str, body: &str) -> Response {
        self.raw(
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {}\r\nX-Bookside-Token: {}\r\nContent-Type: application/json",
                self.host(),
                self.token
            ),
            body,
        )
    }

    /// Starts a run of `session` and returns its id (panics unless 202).
    pub fn start_run(&self, session: &str) -> String {
        let response = self.post("/api/runs", &format!(r#"{{"session":"{session}"}}"#));
        assert_eq!(response.status, 202, "starting {session}: {}", response.body);
        response.json()["run"].as_str().expect("a run id").to_owned()
    }

    /// Reads a run's event stream to its end: the output events' text, and the `done` result.
    pub fn events(&self, run: &str) -> (String, serde_json::Value) {
        let response = self.get(&format!("/api/runs/{run}/events"));
        assert_eq!(response.status, 200, "events: {}", response.body);
        assert_eq!(response.header("content-type"), Some("text/event-stream"));
        let mut output = String::new();
        let mut done = None;
        for block in response.body.split("\n\n") {
            let mut event = "message";
            let mut data = String::new();
            for line in block.lines() {
                if let Some(e) = line.strip_prefix("event:") {
                    event = e.trim();
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.strip_prefix(' ').unwrap_or(d));
                }
            }
            match event {
                "output" => output.push_str(serde_json::from_str::<serde_json::Value>(&data).unwrap()["text"].as_str().unwrap()),
                "done" => done = Some(serde_json::from_str(&data).unwrap()),
                _ => {}
            }
        }
        (output, done.unwrap_or_else(|| panic!("the stream ended without a done event:\n{}", response.body)))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // SIGTERM first: the worker then stops its running command's process group.
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// One request on a fresh connection, read to the end (`Connection: close` is added).
pub fn send(port: u16, head: &str, body: &str) -> Response {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the worker");
    stream.set_read_timeout(Some(Duration::from_secs(180))).unwrap();
    let framed = head.to_ascii_lowercase().contains("transfer-encoding:");
    let length = if framed || (body.is_empty() && !head.starts_with("POST")) { String::new() } else { format!("\r\nContent-Length: {}", body.len()) };
    let request = format!("{head}{length}\r\nConnection: close\r\n\r\n{body}");
    stream.write_all(request.as_bytes()).expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the response");
    parse(&raw)
}

fn parse(raw: &[u8]) -> Response {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned())).collect();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")) {
        body = dechunk(&body);
    }
    Response { status, headers, body: String::from_utf8_lossy(&body).into_owned() }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
    out
}

/// A site folder like Trunk's: an index.html with an inline module script, a script and a
/// stylesheet big enough to be worth compressing.
pub fn fixture_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<!DOCTYPE html>\n<html><head><script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script></head><body></body></html>\n",
    )
    .unwrap();
    std::fs::write(site.join("app.js"), "export default async function init() {}\n".repeat(200)).unwrap();
    site
}

/// A card of a fixture guide: id, title, Done-when command (None for a read-only card).
pub struct Card<'a>(pub &'a str, pub &'a str, pub Option<&'a str>);

/// A small book whose Session Guide holds `cards`, plus `files` (scripts the commands run)
/// written at the book's root, which is also the clone.
pub fn fixture_book(dir: &Path, cards: &[Card<'_>], files: &[(&str, &str)]) -> PathBuf {
    let book = dir.join("book");
    std::fs::create_dir_all(book.join("src")).unwrap();
    std::fs::write(book.join("book.toml"), "[book]\ntitle = \"Fixture book\"\nsrc = \"src\"\n").unwrap();
    std::fs::write(book.join("src/SUMMARY.md"), "# Summary\n\n[Session Guide](guide.md)\n").unwrap();
    let mut guide = String::from("# Session Guide\n\n## Phase 1 — Fixtures\n\n");
    for Card(id, title, done_when) in cards {
        guide.push_str(&format!(
            "### {id} — {title}\n\n- **Goal**: Run a fixture. Then stop.\n- **Needs**: none\n- **Read**: [Session Guide](guide.md)\n- **Midpoint**: halfway\n"
        ));
        match done_when {
            Some(command) => guide.push_str(&format!("- **Done-when**: `{command}`\n\n")),
            None => guide.push_str("- **Quiz**: fixture-topic\n\n"),
        }
    }
    std::fs::write(book.join("src/guide.md"), guide).unwrap();
    for (name, text) in files {
        std::fs::write(book.join(name), text).unwrap();
    }
    book
}

/// A temporary copy of the workspace's `book/` (the reader's clone), without any virtual
/// environment, caches or reader artifacts: a fresh clone. uv's default cache is shared.
pub fn fresh_clone(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
    let dest = dir.join("clone");
    copy_tree(&source, &dest);
    dest
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if matches!(name.to_str(), Some(".venv" | "checkpoints" | "__pycache__" | ".pytest_cache")) {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(&name));
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Whether a process is alive (a zombie waiting to be reaped counts as gone).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

/// Polls `check` until it holds or `limit` passes; says whether it held.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A field of /proc/PID/status in KiB (VmRSS, VmHWM).
pub fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
