//! The worker's runs: one at a time per clone, each with its output and result kept in memory
//! for clients that ask later, and streamed as server-sent events while it goes.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::response::sse::Event;
use bookside_core::wire::{OutputChunk, RunResult, RunSnapshot, RunState};
use futures_util::Stream;
use tokio::sync::watch;

use crate::runner::{self, Sink, Spec};

/// How many finished runs stay answerable.
const KEEP: usize = 16;
/// Largest piece of output sent in one event.
const EVENT_CHUNK: usize = 64 * 1024;

/// One run: what it is, the output so far, and (once over) its result.
#[derive(Debug)]
pub struct Run {
    pub id: String,
    pub session: String,
    pub command: String,
    data: Mutex<RunData>,
    /// Bumped after every change to `data`, so event streams wake up.
    changed: watch::Sender<u64>,
    cancel: watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct RunData {
    output: String,
    truncated: bool,
    result: Option<RunResult>,
}

impl Sink for Run {
    fn output(&self, text: &str) {
        self.data.lock().expect("run data lock").output.push_str(text);
        self.changed.send_modify(|v| *v += 1);
    }

    fn truncated(&self) {
        self.data.lock().expect("run data lock").truncated = true;
        self.changed.send_modify(|v| *v += 1);
    }
}

impl Run {
    pub fn snapshot(&self) -> RunSnapshot {
        let data = self.data.lock().expect("run data lock");
        RunSnapshot {
            run: self.id.clone(),
            session: self.session.clone(),
            command: self.command.clone(),
            state: if data.result.is_some() { RunState::Finished } else { RunState::Running },
            output: data.output.clone(),
            truncated: data.truncated,
            result: data.result.clone(),
        }
    }

    pub fn cancel(&self) {
        self.cancel.send_replace(true);
    }

    /// Output events from byte `from` on (a `Last-Event-ID` resumes), then one `done` event
    /// carrying the result. Each output event's id is the byte offset after it.
    pub fn events(self: Arc<Self>, from: usize) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
        let changes = self.changed.subscribe();
        futures_util::stream::unfold(Some((self, changes, from)), |state| async move {
            let (run, mut changes, mut offset) = state?;
            loop {
                changes.borrow_and_update();
                let (chunk, result) = {
                    let data = run.data.lock().expect("run data lock");
                    if offset > data.output.len() || !data.output.is_char_boundary(offset) {
                        offset = 0;
                    }
                    let mut end = data.output.len().min(offset + EVENT_CHUNK);
                    while !data.output.is_char_boundary(end) {
                        end -= 1;
                    }
                    (data.output[offset..end].to_owned(), data.result.clone())
                };
                if !chunk.is_empty() {
                    offset += chunk.len();
                    let event = Event::default().event("output").id(offset.to_string()).json_data(OutputChunk { text: chunk });
                    return Some((Ok(event.expect("output serialises")), Some((run, changes, offset))));
                }
                if let Some(result) = result {
                    let event = Event::default().event("done").json_data(result).expect("results serialise");
                    return Some((Ok(event), None));
                }
                if changes.changed().await.is_err() {
                    return None;
                }
            }
        })
    }
}

/// The runs of one clone, and which one (if any) holds it.
#[derive(Debug)]
pub struct Runs {
    /// The canonical clone root, whose lock file the runs take.
    root: PathBuf,
    /// The id of what holds the clone: a run, or `status`.
    busy: Mutex<Option<String>>,
    recent: Mutex<VecDeque<Arc<Run>>>,
}

/// Holds the clone until dropped.
#[derive(Debug)]
pub struct Claim {
    runs: Arc<Runs>,
    id: String,
    _lock: Option<CloneLock>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut busy = self.runs.busy.lock().expect("busy lock");
        if busy.as_deref() == Some(self.id.as_str()) {
            *busy = None;
        }
    }
}

impl Runs {
    pub fn new(root: PathBuf) -> Runs {
        Runs { root, busy: Mutex::default(), recent: Mutex::default() }
    }

    /// Takes the clone for `id`, or names what holds it: a run of this worker, or of another
    /// `bookside` process (a second worker, `bookside run` in a terminal).
    pub fn claim(self: &Arc<Self>, id: &str) -> Result<Claim, String> {
        let mut busy = self.busy.lock().expect("busy lock");
        if let Some(running) = busy.as_ref() {
            return Err(running.clone());
        }
        let lock = lock_clone(&self.root, id)?;
        *busy = Some(id.to_owned());
        Ok(Claim { runs: Arc::clone(self), id: id.to_owned(), _lock: lock })
    }

    /// The run holding the clone, if a run (not the status sweep) holds it.
    pub fn current(&self) -> Option<Arc<Run>> {
        let busy = self.busy.lock().expect("busy lock").clone()?;
        self.get(&busy)
    }

    pub fn get(&self, id: &str) -> Option<Arc<Run>> {
        self.recent.lock().expect("recent lock").iter().find(|r| r.id == id).cloned()
    }

    /// Starts `spec` in the background if the clone is free; otherwise names the run holding it.
    pub fn start(self: &Arc<Self>, session: &str, command: &str, spec: Spec) -> Result<Arc<Run>, String> {
        let id = new_run_id();
        let claim = self.claim(&id)?;
        let (changed, _) = watch::channel(0);
        let (cancel, cancelled) = watch::channel(false);
        let run = Arc::new(Run {
            id,
            session: session.to_owned(),
            command: command.to_owned(),
            data: Mutex::default(),
            changed,
            cancel,
        });
        {
            let mut recent = self.recent.lock().expect("recent lock");
            recent.push_back(Arc::clone(&run));
            while recent.len() > KEEP {
                recent.pop_front();
            }
        }
        let task_run = Arc::clone(&run);
        tokio::spawn(async move {
            let result = runner::execute(&spec, task_run.as_ref(), cancelled).await;
            task_run.data.lock().expect("run data lock").result = Some(result);
            // Free the clone before telling anyone the run is over, so a client that starts the
            // next run on `done` is never refused.
            drop(claim);
            task_run.changed.send_modify(|v| *v += 1);
        });
        Ok(run)
    }
}

/// An exclusive lock on the clone, shared by every `bookside` process on this machine: a file
/// named after the canonical clone path in the per-user runtime folder (else the temporary
/// folder), locked with `flock` and holding the id of what holds it. The kernel drops the lock
/// when the holder exits, however it exits. Never in the clone itself: Bookside writes nothing
/// there.
#[derive(Debug)]
pub struct CloneLock {
    _file: std::fs::File,
}

/// Takes the clone's lock for `id`, or returns the id written by its holder. `Ok(None)` when no
/// lock file can be made (a read-only temporary folder): runs are then only exclusive within
/// this process.
pub fn lock_clone(root: &Path, id: &str) -> Result<Option<CloneLock>, String> {
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::OpenOptionsExt;

    use rustix::fs::{FlockOperation, OFlags, flock};
    use sha2::{Digest, Sha256};

    let dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_dir()).unwrap_or_else(std::env::temp_dir);
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("bookside-clone-{name}.lock"));
    // O_NOFOLLOW: a link planted at this name in a shared folder must not redirect the write.
    let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
    else {
        return Ok(None);
    };
    if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
        let mut holder = String::new();
        let _ = file.take(64).read_to_string(&mut holder);
        let holder = holder.trim();
        return Err(if holder.is_empty() { "another bookside process".to_owned() } else { holder.to_owned() });
    }
    let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(id.as_bytes()));
    Ok(Some(CloneLock { _file: file }))
}

/// Run ids are random so that one client cannot guess another's (they are not secrets: every
/// API call also needs the token).
fn new_run_id() -> String {
    let mut bytes = [0u8; 8];
    // Falling back to the clock only costs guessability, which the token already covers.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        bytes = (nanos as u64).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
