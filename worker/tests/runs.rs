//! Runs through the real `bookside serve` with fixture commands (no shell: each Done-when is
//! `sh script.sh`): process groups, cancel, timeout, output cap, pipes held by grandchildren,
//! and one run at a time.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::{Card, Worker, alive, eventually, fixture_book, fixture_site, proc_kib};

/// Scripts write their grandchildren's pids into the clone so the test can look for them.
const SLEEPER: &str = "sleep 300 &\necho $! > grandchild.pid\necho started\nwait\n";
/// The command exits at once, leaving a grandchild that holds stdout (and stderr) open.
const HOLDER: &str = "sleep 300 &\necho $! > grandchild.pid\necho bye\n";
/// Same, but the grandchild escapes the process group: only the drain limit can save the run.
/// (`setsid` in a non-interactive shell's background job execs in place, so `$!` is the sleep.)
const ESCAPER: &str = "setsid sleep 300 &\necho $! > grandchild.pid\necho bye\n";
const FLOOD: &str = "yes\n";
const STREAM: &str = "echo first\nsleep 1\necho second >&2\nexit 0\n";

fn book(dir: &Path) -> std::path::PathBuf {
    fixture_book(
        dir,
        &[
            Card("S1.1", "Sleeper", Some("sh sleeper.sh")),
            Card("S1.2", "Holder", Some("sh holder.sh")),
            Card("S1.3", "Escaper", Some("sh escaper.sh")),
            Card("S1.4", "Flood", Some("sh flood.sh")),
            Card("S1.5", "Stream", Some("sh stream.sh")),
            Card("S1.6", "Missing program", Some("no-such-program-bookside --flag")),
        ],
        &[("sleeper.sh", SLEEPER), ("holder.sh", HOLDER), ("escaper.sh", ESCAPER), ("flood.sh", FLOOD), ("stream.sh", STREAM)],
    )
}

fn grandchild(book: &Path) -> u32 {
    let file = book.join("grandchild.pid");
    assert!(eventually(Duration::from_secs(10), || std::fs::read_to_string(&file).is_ok_and(|s| s.ends_with('\n'))));
    std::fs::read_to_string(&file).unwrap().trim().parse().unwrap()
}

#[test]
fn cancel_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let run = w.start_run("S1.1");
    let sleeper = grandchild(&book);
    assert!(alive(sleeper), "the grandchild sleep is running");
    let cancel = w.post(&format!("/api/runs/{run}/cancel"), "{}");
    assert_eq!(cancel.status, 202, "{}", cancel.body);
    let (output, done) = w.events(&run);
    assert!(output.contains("started"), "{output}");
    assert_eq!(done["outcome"], "error");
    assert_eq!(done["end"], "cancelled");
    assert!(eventually(Duration::from_secs(5), || !alive(sleeper)), "grandchild {sleeper} survived the cancel");
    let snapshot = w.get(&format!("/api/runs/{run}")).json();
    assert_eq!(snapshot["state"], "finished");
}

#[test]
fn a_timeout_kills_the_group_and_returns_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &["--timeout", "2"]);
    let started = Instant::now();
    let run = w.start_run("S1.1");
    let sleeper = grandchild(&book);
    let (_, done) = w.events(&run);
    let took = started.elapsed();
    assert_eq!(done["end"], "timed-out", "{done}");
    assert_eq!(done["outcome"], "error");
    assert!(done["message"].as_str().unwrap().contains("2 s"), "{done}");
    // Timeout 2 s + 1 s between TERM and KILL + 0.5 s drain, with room for a busy machine.
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(eventually(Duration::from_secs(5), || !alive(sleeper)), "grandchild {sleeper} survived the timeout");
}

#[test]
fn a_grandchild_holding_stdout_does_not_hang_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let started = Instant::now();
    let run = w.start_run("S1.2");
    let (output, done) = w.events(&run);
    assert!(started.elapsed() < Duration::from_secs(10), "the run waited for the grandchild: {:?}", started.elapsed());
    assert!(output.contains("bye"), "{output}");
    assert_eq!(done["end"], "exited", "{done}");
    assert_eq!(done["outcome"], "pass", "exit 0 and no pytest report is a pass: {done}");
    // What the command left behind in its group goes with it.
    let sleeper = grandchild(&book);
    assert!(eventually(Duration::from_secs(5), || !alive(sleeper)), "leftover {sleeper} still running");
}

#[test]
fn a_grandchild_outside_the_group_holding_the_pipe_does_not_hang_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let started = Instant::now();
    let run = w.start_run("S1.3");
    let (output, done) = w.events(&run);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert!(output.contains("bye"), "{output}");
    assert_eq!(done["outcome"], "pass", "{done}");
    // The escaped sleep is out of the worker's reach by design (it left the group); this test
    // started it, so this test stops it, by its pid.
    let escaped = grandchild(&book);
    let _ = std::process::Command::new("kill").arg(escaped.to_string()).status();
}

#[test]
fn output_is_capped_and_memory_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &["--timeout", "3"]);
    let before = proc_kib(w.pid(), "VmRSS");
    let run = w.start_run("S1.4");
    let (output, done) = w.events(&run);
    assert_eq!(done["end"], "timed-out", "`yes` never ends by itself");
    assert_eq!(done["truncated"], true);
    let cap = 1 << 20;
    assert!(output.len() <= cap && output.len() > cap - 8, "kept {} bytes", output.len());
    assert!(output.starts_with("y\ny\n"));
    let snapshot = w.get(&format!("/api/runs/{run}")).json();
    assert_eq!(snapshot["truncated"], true);
    assert_eq!(snapshot["output"].as_str().unwrap().len(), output.len());
    // `yes` wrote far more than the cap in 3 s; the worker's peak memory grew by a few copies
    // of the kept megabyte at most, not by what was written.
    let peak = proc_kib(w.pid(), "VmHWM");
    assert!(peak < before + 32 * 1024, "peak RSS {peak} KiB against {before} KiB before the run");
}

#[test]
fn two_runs_at_once_get_one_409_naming_the_running_one() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let first = w.start_run("S1.1");
    for other in ["S1.5", "S1.1"] {
        let r = w.post("/api/runs", &format!(r#"{{"session":"{other}"}}"#));
        assert_eq!(r.status, 409, "{}", r.body);
        assert_eq!(r.json()["error"], "busy");
        assert_eq!(r.json()["running"], first.as_str());
    }
    let status = w.get("/api/status");
    assert_eq!(status.status, 409, "the status sweep waits its turn too");
    assert_eq!(w.post(&format!("/api/runs/{first}/cancel"), "{}").status, 202);
    let (_, done) = w.events(&first);
    assert_eq!(done["end"], "cancelled");
    // The clone is free again as soon as the first run is over.
    let second = w.start_run("S1.5");
    assert_ne!(second, first);
    let (_, done) = w.events(&second);
    assert_eq!(done["outcome"], "pass");
}

#[test]
fn output_streams_while_the_run_goes_and_can_be_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let run = w.start_run("S1.5");
    // Read the raw stream: "first" arrives a second before the command ends.
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", w.port)).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /api/runs/{run}/events HTTP/1.1\r\nHost: {}\r\nX-Bookside-Token: {}\r\nAccept-Encoding: gzip, br\r\nConnection: close\r\n\r\n",
        w.host(),
        w.token
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("first") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "stream closed before the first line");
        seen.extend_from_slice(&buf[..n]);
    }
    let first_at = started.elapsed();
    let text = String::from_utf8_lossy(&seen).to_lowercase();
    assert!(!text.contains("content-encoding"), "events are not compressed, so they stream: {text}");
    stream.read_to_end(&mut seen).unwrap();
    let all_at = started.elapsed();
    assert!(all_at >= first_at + Duration::from_millis(500), "output arrived only at the end ({first_at:?} vs {all_at:?})");
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("second"), "stderr is part of the output: {text}");
    assert!(text.contains("event: done"));

    // Resuming after the first event's id replays only what came after it.
    let (all, _) = w.events(&run);
    let offset = all.find("second").unwrap();
    let r = w.raw(
        &format!("GET /api/runs/{run}/events HTTP/1.1\r\nHost: {}\r\nX-Bookside-Token: {}\r\nLast-Event-ID: {offset}", w.host(), w.token),
        "",
    );
    assert!(r.body.contains("second") && !r.body.contains("first"), "{}", r.body);
}

#[test]
fn a_missing_program_is_an_error_that_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let run = w.start_run("S1.6");
    let (_, done) = w.events(&run);
    assert_eq!(done["outcome"], "error");
    assert_eq!(done["end"], "not-started");
    assert!(done["message"].as_str().unwrap().contains("no-such-program-bookside` was not found on PATH"), "{done}");
    assert_eq!(w.get("/api/runs/nope").status, 404);
}

#[test]
fn stopping_the_worker_stops_the_run_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let w = Worker::start(&book, &fixture_site(dir.path()), &[]);
    let worker_pid = w.pid();
    w.start_run("S1.1");
    let sleeper = grandchild(&book);
    assert!(alive(sleeper));
    // Dropping the worker sends it SIGTERM: its runs live in their own process groups, so
    // without a clean stop they would outlive it.
    drop(w);
    assert!(!alive(worker_pid), "the worker exited");
    assert!(eventually(Duration::from_secs(5), || !alive(sleeper)), "grandchild {sleeper} outlived the worker");
}

#[test]
fn one_run_per_clone_holds_across_workers_and_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let book = book(dir.path());
    let site = fixture_site(dir.path());
    let a = Worker::start(&book, &site, &[]);
    let b = Worker::start(&book, &site, &[]);
    let first = a.start_run("S1.1");
    grandchild(&book);
    let r = b.post("/api/runs", r#"{"session":"S1.5"}"#);
    assert_eq!(r.status, 409, "a second worker on the same clone waits too: {}", r.body);
    assert_eq!(r.json()["running"], first.as_str());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bookside")).args(["run", "S1.5", "--book"]).arg(&book).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("run {first} is still going")), "{stderr}");
    assert_eq!(a.post(&format!("/api/runs/{first}/cancel"), "{}").status, 202);
    a.events(&first);
    let second = b.start_run("S1.5");
    assert_eq!(b.events(&second).1["outcome"], "pass");
}
