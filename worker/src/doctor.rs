//! The environment self-check: can this machine run the clone's Done-when commands, and if not,
//! what exactly to do about it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use bookside_core::wire::{DoctorCheck, DoctorReport, Outcome};
use tokio::sync::watch;

use crate::clone::{Clone, MILESTONES};
use crate::runner::{self, Sink};

/// `uv run pytest --version` may have to build the environment first (download pytest).
const PYTEST_PROBE_TIMEOUT: Duration = Duration::from_secs(180);

pub async fn check(clone: &Clone) -> DoctorReport {
    let mut checks = vec![book(clone), guide(clone), pyproject(clone), milestone_tests(clone), checkpoints(clone)];
    checks.push(commands(clone));
    let uv = uv().await;
    let uv_ok = uv.ok;
    checks.push(uv);
    if uv_ok {
        checks.push(pytest(clone).await);
    } else {
        checks.push(problem("pytest", "not checked: uv is missing".to_owned(), "install uv first, then run `bookside doctor` again"));
    }
    checks.push(temp_dir());
    DoctorReport { ok: checks.iter().all(|c| c.ok), checks }
}

fn fine(name: &str, detail: String) -> DoctorCheck {
    DoctorCheck { name: name.to_owned(), ok: true, detail, fix: None }
}

fn problem(name: &str, detail: String, fix: &str) -> DoctorCheck {
    DoctorCheck { name: name.to_owned(), ok: false, detail, fix: Some(fix.to_owned()) }
}

fn book(clone: &Clone) -> DoctorCheck {
    fine("book", format!("\"{}\" at {}", clone.title, clone.root.display()))
}

fn guide(clone: &Clone) -> DoctorCheck {
    if !clone.has_guide {
        return problem(
            "guide",
            "the book has no Session Guide".to_owned(),
            "list a chapter with `### S0.1 — Title` cards in src/SUMMARY.md (see docs/FORMATS.md)",
        );
    }
    let milestones = clone.milestones().count();
    let detail = format!("{} sessions, {milestones} with a Done-when test, {} diagnostics", clone.sessions.len(), clone.diagnostics.len());
    if milestones == 0 {
        return problem("guide", detail, "give milestone cards a `- **Done-when**: `uv run pytest ...`` field");
    }
    fine("guide", detail)
}

fn pyproject(clone: &Clone) -> DoctorCheck {
    let path = clone.root.join("pyproject.toml");
    if path.is_file() {
        fine("clone", format!("{} found", path.display()))
    } else {
        problem(
            "clone",
            format!("no pyproject.toml in {}", clone.root.display()),
            "pass --book the root of your clone of the book (the folder holding book.toml and pyproject.toml)",
        )
    }
}

fn milestone_tests(clone: &Clone) -> DoctorCheck {
    let dir = clone.root.join(MILESTONES);
    let found = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("test_") && n.ends_with(".py")))
                .count()
        })
        .ok();
    let missing: Vec<&str> = clone
        .milestones()
        .filter_map(|s| s.info.test_file.as_deref())
        .filter(|f| !dir.join(f).is_file())
        .collect();
    match found {
        None => problem(
            "milestone tests",
            format!("{} does not exist", dir.display()),
            "restore tests/milestones/ from the book's repository (`git checkout -- tests/milestones`)",
        ),
        Some(n) if !missing.is_empty() => problem(
            "milestone tests",
            format!("{n} test files; the guide names {} that are missing: {}", missing.len(), missing.join(", ")),
            "restore them from the book's repository (`git checkout -- tests/milestones`)",
        ),
        Some(n) => fine("milestone tests", format!("{n} test files in {}", dir.display())),
    }
}

fn checkpoints(clone: &Clone) -> DoctorCheck {
    let dir = clone.root.join("checkpoints/myllm");
    if dir.is_dir() {
        fine("workspace", format!("{} exists (Bookside only reads it)", dir.display()))
    } else {
        fine("workspace", format!("{} not created yet: your first milestone session creates it", dir.display()))
    }
}

fn commands(clone: &Clone) -> DoctorCheck {
    let refused: Vec<String> = clone
        .milestones()
        .filter_map(|s| match &s.argv {
            Some(Err(why)) => Some(format!("{}: {why}", s.info.id)),
            _ => None,
        })
        .collect();
    if refused.is_empty() {
        fine("done-when commands", format!("all {} run without a shell", clone.milestones().count()))
    } else {
        problem(
            "done-when commands",
            refused.join("; "),
            "print each Done-when as plain words (e.g. `uv run pytest tests/milestones/test_m02_kv_budget.py`)",
        )
    }
}

/// Where `program` is on PATH, if anywhere.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

const UV_FIX: &str = "install uv (`pip install uv`, or see https://docs.astral.sh/uv/) and make sure it is on PATH";

async fn uv() -> DoctorCheck {
    let Some(path) = which("uv") else {
        return problem("uv", "uv is not on PATH".to_owned(), UV_FIX);
    };
    let (result, output) = probe(vec![path.display().to_string(), "--version".to_owned()], std::env::temp_dir(), Duration::from_secs(30)).await;
    if result == Outcome::Pass {
        fine("uv", format!("{} at {}", output.trim(), path.display()))
    } else {
        problem("uv", format!("{} does not run: {}", path.display(), last_line(&output)), UV_FIX)
    }
}

async fn pytest(clone: &Clone) -> DoctorCheck {
    let argv = ["uv", "run", "pytest", "--version"].map(str::to_owned).to_vec();
    let (result, output) = probe(argv, clone.root.clone(), PYTEST_PROBE_TIMEOUT).await;
    if result == Outcome::Pass {
        fine("pytest", format!("{} (through uv, in {})", last_line(&output), clone.root.display()))
    } else {
        problem(
            "pytest",
            format!("`uv run pytest --version` failed: {}", last_line(&output)),
            "add pytest to the clone's dev dependencies (`uv add --dev pytest`) and check that PyPI or your uv cache is reachable",
        )
    }
}

fn temp_dir() -> DoctorCheck {
    match tempfile::Builder::new().prefix("bookside-doctor-").tempdir() {
        Ok(dir) => fine("temporary folder", format!("{} is writable (pytest's reports go there)", dir.path().parent().unwrap_or(dir.path()).display())),
        Err(e) => problem("temporary folder", format!("cannot create a temporary folder ({e})"), "point TMPDIR at a writable folder"),
    }
}

fn last_line(output: &str) -> String {
    output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output").trim().to_owned()
}

#[derive(Default)]
struct Collect(Mutex<String>);

impl Sink for Collect {
    fn output(&self, text: &str) {
        self.0.lock().expect("collect lock").push_str(text);
    }
}

/// Runs a probe command through the same runner as the Done-when runs.
async fn probe(argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> (Outcome, String) {
    let sink = Collect::default();
    let (_keep, never) = watch::channel(false);
    let result = runner::execute(&runner::Spec { argv, cwd, timeout }, &sink, never).await;
    let mut output = sink.0.into_inner().expect("collect lock");
    if let Some(message) = result.message.filter(|_| result.outcome != Outcome::Pass) {
        output.push('\n');
        output.push_str(&message);
    }
    (result.outcome, output)
}
