//! Runs one command (a Done-when, or the status sweep) in the reader's clone and judges it.
//!
//! The child gets its own process group, so cancel and timeout can stop everything it started,
//! grandchildren included. stdout and stderr share one pipe (the order the reader would see in a
//! terminal), read without blocking: a grandchild that keeps the pipe open cannot hold the run,
//! because the run ends when the command itself ends, plus a short drain. The output kept per run
//! is capped; past the cap the pipe is still drained (so the child never blocks) but the bytes are
//! dropped. pytest's verdict comes from its junit report, requested through `PYTEST_ADDOPTS` so
//! the command stays exactly as printed; the report goes to a private temporary folder, never
//! into the clone.

use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use bookside_core::wire::{Outcome, RunEnd, RunResult};
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::sync::watch;

/// Output kept per run; the rest is dropped and the run is marked truncated.
pub const OUTPUT_CAP: usize = 1 << 20;
/// How long a stopped command gets between SIGTERM and SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(1);
/// How long to keep reading after the command ended, for output still in the pipe.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// A junit report larger than this is not read (pytest's are a few kilobytes).
const REPORT_CAP: u64 = 16 << 20;
const READ_CHUNK: usize = 64 * 1024;

/// Default time limit of one run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// What to run, where, and for how long at most.
#[derive(Debug, Clone)]
pub struct Spec {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// Where a run's output goes as it arrives (already capped and decoded as UTF-8).
pub trait Sink: Send + Sync {
    fn output(&self, text: &str);
    /// Called once, when the output first passes the cap.
    fn truncated(&self) {}
}

/// Runs `spec` to the end (or until `cancel` turns true, or the time limit), streaming its
/// output into `sink`, and says what it came to.
pub async fn execute(spec: &Spec, sink: &dyn Sink, mut cancel: watch::Receiver<bool>) -> RunResult {
    let started = Instant::now();
    let not_started = |message: String| RunResult {
        outcome: Outcome::Error,
        message: Some(message),
        end: RunEnd::NotStarted,
        exit_code: None,
        truncated: false,
        millis: elapsed_millis(started),
        tests: Vec::new(),
    };
    let Some((program, args)) = spec.argv.split_first() else {
        return not_started("the command is empty".to_owned());
    };
    let report_dir = match tempfile::Builder::new().prefix("bookside-run-").tempdir() {
        Ok(dir) => dir,
        Err(e) => return not_started(format!("cannot create a temporary folder for pytest's report ({e}); check TMPDIR")),
    };
    let report_path = report_dir.path().join("report.xml");
    let (reader, writer) = match io::pipe() {
        Ok(ends) => ends,
        Err(e) => return not_started(format!("cannot create a pipe for the output ({e})")),
    };
    let writer_for_stderr = match writer.try_clone() {
        Ok(w) => w,
        Err(e) => return not_started(format!("cannot create a pipe for the output ({e})")),
    };

    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_for_stderr)
        .env("PYTEST_ADDOPTS", pytest_addopts(std::env::var("PYTEST_ADDOPTS").ok().as_deref(), &report_path))
        .kill_on_drop(true);
    // Python buffers a pipe in 8 KiB blocks; unbuffered output streams line by line.
    if std::env::var_os("PYTHONUNBUFFERED").is_none() {
        command.env("PYTHONUNBUFFERED", "1");
    }
    let spawned = command.spawn();
    // The parent's copies of the pipe's write end live in `command`: drop them, or EOF never comes.
    drop(command);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return not_started(format!("`{program}` was not found on PATH; install it (run `bookside doctor` for how)"));
        }
        Err(e) => return not_started(format!("cannot start `{program}` in {} ({e})", spec.cwd.display())),
    };
    let group = child.id().and_then(|id| Pid::from_raw(id as i32));
    // If this future is dropped mid-run (a client hung up on the status sweep), the group still
    // goes: `kill_on_drop` alone would only reach the direct child.
    let _group_guard = GroupGuard(group);
    let rx = match pipe::Receiver::from_owned_fd(reader.into()) {
        Ok(rx) => rx,
        Err(e) => {
            stop_group(group, Signal::KILL);
            return not_started(format!("cannot read the command's output ({e})"));
        }
    };
    let mut pump = Pump { rx, open: true, buf: vec![0; READ_CHUNK], capture: Capture::default(), sink };

    let stop = pump
        .run_until(async {
            tokio::select! {
                status = child.wait() => Stop::Exited(status.ok()),
                () = tokio::time::sleep(spec.timeout) => Stop::Deadline,
                () = cancelled(&mut cancel) => Stop::Cancel,
            }
        })
        .await;
    let (end, status) = match stop {
        Stop::Exited(status) => (RunEnd::Exited, status),
        Stop::Deadline | Stop::Cancel => {
            let end = if matches!(stop, Stop::Deadline) { RunEnd::TimedOut } else { RunEnd::Cancelled };
            stop_group(group, Signal::TERM);
            let status = match pump.run_until(tokio::time::timeout(TERM_GRACE, child.wait())).await {
                Ok(Ok(status)) => Some(status),
                _ => {
                    stop_group(group, Signal::KILL);
                    pump.run_until(tokio::time::timeout(TERM_GRACE, child.wait())).await.ok().and_then(Result::ok)
                }
            };
            (end, status)
        }
    };
    // The command is over; whatever it left running in its group goes with it, so no stray
    // process keeps working in the clone or keeps the pipe open.
    stop_group(group, Signal::KILL);
    let _ = tokio::time::timeout(DRAIN_GRACE, pump.drain()).await;
    pump.capture.finish(sink);

    let exit_code = status.and_then(|s: ExitStatus| s.code());
    let report = if end == RunEnd::Exited { read_report(&report_path) } else { None };
    let (outcome, message) = crate::junit::judge(end, exit_code, report.as_ref(), spec.timeout.as_secs());
    RunResult {
        outcome,
        message,
        end,
        exit_code,
        truncated: pump.capture.truncated,
        millis: elapsed_millis(started),
        tests: report.and_then(Result::ok).unwrap_or_default(),
    }
}

enum Stop {
    Exited(Option<ExitStatus>),
    Deadline,
    Cancel,
}

fn elapsed_millis(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Signals the run's whole process group. A group that is already gone is not an error.
fn stop_group(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        let _ = kill_process_group(group, signal);
    }
}

struct GroupGuard(Option<Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        stop_group(self.0, Signal::KILL);
    }
}

/// Resolves once `cancel` holds true; never, if its sender is gone without cancelling.
async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    if cancel.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The reader's own `PYTEST_ADDOPTS`, plus the report path. pytest splits the variable like a
/// POSIX shell (`shlex.split`), so the path is single-quoted.
fn pytest_addopts(existing: Option<&str>, report: &std::path::Path) -> String {
    let quoted = format!("'{}'", report.display().to_string().replace('\'', r"'\''"));
    match existing.map(str::trim).filter(|s| !s.is_empty()) {
        Some(existing) => format!("{existing} --junitxml={quoted}"),
        None => format!("--junitxml={quoted}"),
    }
}

fn read_report(path: &std::path::Path) -> Option<Result<Vec<bookside_core::wire::TestResult>, String>> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > REPORT_CAP {
        return Some(Err(format!("pytest's junit report is {} bytes, too large to read", meta.len())));
    }
    Some(match std::fs::read_to_string(path) {
        Ok(xml) => crate::junit::parse(&xml),
        Err(e) => Err(format!("cannot read pytest's junit report ({e})")),
    })
}

/// Reads the output pipe while the run waits on something else.
struct Pump<'a> {
    rx: pipe::Receiver,
    open: bool,
    buf: Vec<u8>,
    capture: Capture,
    sink: &'a dyn Sink,
}

impl Pump<'_> {
    /// Awaits `fut`, reading output meanwhile so a chatty child never blocks on a full pipe.
    async fn run_until<F: Future>(&mut self, fut: F) -> F::Output {
        tokio::pin!(fut);
        loop {
            tokio::select! {
                biased;
                value = &mut fut => return value,
                read = self.rx.read(&mut self.buf), if self.open => self.take(read),
            }
        }
    }

    /// Reads until every writer has closed the pipe.
    async fn drain(&mut self) {
        while self.open {
            let read = self.rx.read(&mut self.buf).await;
            self.take(read);
        }
    }

    fn take(&mut self, read: io::Result<usize>) {
        match read {
            Ok(0) | Err(_) => self.open = false,
            Ok(n) => self.capture.push(&self.buf[..n], self.sink),
        }
    }
}

/// Decodes output as UTF-8 across chunk boundaries and keeps at most [`OUTPUT_CAP`] bytes.
#[derive(Debug, Default)]
struct Capture {
    /// The start of a character split across two reads (at most 3 bytes).
    carry: Vec<u8>,
    kept: usize,
    truncated: bool,
}

impl Capture {
    fn push(&mut self, bytes: &[u8], sink: &dyn Sink) {
        if self.truncated {
            return;
        }
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(bytes);
        let mut text = String::with_capacity(data.len());
        let mut rest = &data[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).expect("checked by valid_up_to"));
                    match e.error_len() {
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            self.carry = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        self.keep(&text, sink);
    }

    fn finish(&mut self, sink: &dyn Sink) {
        if !self.carry.is_empty() && !self.truncated {
            let text = String::from_utf8_lossy(&std::mem::take(&mut self.carry)).into_owned();
            self.keep(&text, sink);
        }
    }

    fn keep(&mut self, text: &str, sink: &dyn Sink) {
        let room = OUTPUT_CAP - self.kept;
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end > 0 {
            sink.output(&text[..end]);
            self.kept += end;
        }
        if end < text.len() {
            self.truncated = true;
            sink.truncated();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::{Capture, OUTPUT_CAP, Sink, pytest_addopts};

    #[derive(Default)]
    struct Collect(Mutex<(String, usize)>);

    impl Sink for Collect {
        fn output(&self, text: &str) {
            self.0.lock().unwrap().0.push_str(text);
        }
        fn truncated(&self) {
            self.0.lock().unwrap().1 += 1;
        }
    }

    #[test]
    fn characters_split_across_reads_survive() {
        let sink = Collect::default();
        let mut capture = Capture::default();
        let text = "héllo — ✅ done";
        for byte in text.as_bytes() {
            capture.push(&[*byte], &sink);
        }
        capture.push(b"\xff!", &sink);
        capture.finish(&sink);
        assert_eq!(sink.0.lock().unwrap().0, format!("{text}\u{fffd}!"));
    }

    #[test]
    fn output_stops_at_the_cap_on_a_character_boundary_and_says_so_once() {
        let sink = Collect::default();
        let mut capture = Capture::default();
        let chunk = "é".repeat(1000); // 2000 bytes
        for _ in 0..(OUTPUT_CAP / 2000 + 10) {
            capture.push(chunk.as_bytes(), &sink);
        }
        let (kept, truncations) = sink.0.lock().unwrap().clone();
        assert!(capture.truncated);
        assert_eq!(truncations, 1);
        assert!(kept.len() <= OUTPUT_CAP && kept.len() > OUTPUT_CAP - 4);
        assert!(kept.chars().all(|c| c == 'é'));
    }

    #[test]
    fn the_report_path_is_added_to_the_readers_own_options() {
        let path = std::path::Path::new("/tmp/it's here/report.xml");
        assert_eq!(pytest_addopts(None, path), r"--junitxml='/tmp/it'\''s here/report.xml'");
        assert_eq!(pytest_addopts(Some(" -q "), path), r"-q --junitxml='/tmp/it'\''s here/report.xml'");
    }
}
