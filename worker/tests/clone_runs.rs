//! The reader's journey through the real worker and the real `uv run pytest`, on a fresh copy of
//! the workspace's `book/`: all skips, a skip that names the session, then pass, then fail.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use support::{Worker, fixture_site, fresh_clone};

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/milestones")
}

/// Drops a reference artifact set (`m02/good`, `m02/short`) into the clone, as the reader would.
fn drop_artifacts(clone: &Path, set: &str) {
    let to = clone.join("checkpoints/myllm");
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(fixtures().join(set)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Every file under checkpoints/ with its bytes: the worker must never change any of them.
fn checkpoints(clone: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![clone.join("checkpoints")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.map(Result::unwrap) {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                files.insert(entry.path().display().to_string(), std::fs::read(entry.path()).unwrap());
            }
        }
    }
    files
}

#[test]
fn a_fresh_clone_is_26_skips_from_one_pytest_run() {
    let dir = tempfile::tempdir().unwrap();
    let clone = fresh_clone(dir.path());
    let w = Worker::start(&clone, &fixture_site(dir.path()), &[]);
    let r = w.get("/api/status");
    assert_eq!(r.status, 200, "{}", r.body);
    let report = r.json();
    let milestones = report["milestones"].as_array().unwrap();
    assert_eq!(milestones.len(), 26, "{report:#}");
    for m in milestones {
        assert_eq!(m["outcome"], "skip", "{m}");
        let session = m["session"].as_str().expect("every milestone file belongs to a card");
        assert!(m["message"].as_str().unwrap().contains(&format!("run session {session} ")), "{m}");
    }
    // One pytest process reported every test file.
    assert_eq!(report["run"]["end"], "exited");
    assert_eq!(report["run"]["exit_code"], 0);
    assert_eq!(report["run"]["tests"].as_array().unwrap().len(), 26);
    assert!(checkpoints(&clone).is_empty(), "status created files under checkpoints/");
    assert!(!clone.join("checkpoints").exists());
}

#[test]
fn s1_3_skips_naming_the_session_then_passes_then_fails_with_the_tests_message() {
    let dir = tempfile::tempdir().unwrap();
    let clone = fresh_clone(dir.path());
    let w = Worker::start(&clone, &fixture_site(dir.path()), &[]);
    let sessions = w.get("/api/sessions").json();
    let s13 = sessions["sessions"].as_array().unwrap().iter().find(|s| s["id"] == "S1.3").unwrap().clone();
    assert_eq!(s13["done_when"], "uv run pytest tests/milestones/test_m02_kv_budget.py");

    let run = w.start_run("S1.3");
    let (output, done) = w.events(&run);
    assert!(output.contains("test_m02_kv_budget.py"), "the stream carries pytest's own output:\n{output}");
    assert_eq!(done["outcome"], "skip", "{done}");
    assert!(done["message"].as_str().unwrap().contains("S1.3"), "the skip names the session: {done}");
    assert_eq!(done["exit_code"], 0);

    drop_artifacts(&clone, "m02/good");
    let before = checkpoints(&clone);
    let run = w.start_run("S1.3");
    let (output, done) = w.events(&run);
    assert_eq!(done["outcome"], "pass", "{done}\n{output}");
    assert_eq!(done["message"], serde_json::Value::Null);

    drop_artifacts(&clone, "m02/short");
    let short = checkpoints(&clone);
    let run = w.start_run("S1.3");
    let (output, done) = w.events(&run);
    assert_eq!(done["outcome"], "fail", "{done}\n{output}");
    assert_eq!(done["exit_code"], 1);
    let message = done["message"].as_str().unwrap();
    // The test's own words (it prefixes them with the artifact's name), not a traceback.
    assert!(message.starts_with("kv_budget.json: "), "{message}");
    assert!(!message.contains("Traceback"), "{message}");
    assert!(output.contains("1 failed"), "{output}");
    assert_eq!(checkpoints(&clone), short, "runs never change checkpoints/");
    assert_ne!(before, short);
}

#[test]
fn the_cli_runs_a_session_reports_status_and_checks_the_machine() {
    let dir = tempfile::tempdir().unwrap();
    let clone = fresh_clone(dir.path());
    let bin = env!("CARGO_BIN_EXE_bookside");

    let out = Command::new(bin).args(["run", "S1.3", "--book"]).arg(&clone).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "skip exits 3:\n{stdout}");
    assert!(stdout.contains("test_m02_kv_budget.py"), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("bookside: S1.3 skip: ") && last.contains("S1.3"), "{last}");

    drop_artifacts(&clone, "m02/good");
    let out = Command::new(bin).args(["run", "S1.3", "--book"]).arg(&clone).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "pass exits 0:\n{}", String::from_utf8_lossy(&out.stdout));
    drop_artifacts(&clone, "m02/short");
    let out = Command::new(bin).args(["run", "S1.3", "--book"]).arg(&clone).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "fail exits 1:\n{}", String::from_utf8_lossy(&out.stdout));
    let out = Command::new(bin).args(["run", "S1.3;rm -rf ~", "--book"]).arg(&clone).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a hostile id is a usage error");

    let out = Command::new(bin).args(["status", "--json", "--book"]).arg(&clone).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let milestones = report["milestones"].as_array().unwrap();
    assert_eq!(milestones.len(), 26);
    let s13 = milestones.iter().find(|m| m["session"] == "S1.3").unwrap();
    assert_eq!(s13["outcome"], "fail", "{s13}");
    // The dropped set also holds config.json, S1.2's artifact; every other milestone still skips.
    for m in milestones.iter().filter(|m| m["session"] != "S1.3" && m["session"] != "S1.2") {
        assert_eq!(m["outcome"], "skip", "{m}");
    }
    assert_eq!(out.status.code(), Some(1), "a failing milestone is a finding");

    let out = Command::new(bin).args(["doctor", "--json", "--book"]).arg(&clone).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<&str> = report["checks"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for name in ["uv", "pytest", "clone", "milestone tests"] {
        assert!(names.contains(&name), "{names:?}");
    }

    // A broken clone: doctor says what is wrong and how to fix it.
    std::fs::remove_file(clone.join("pyproject.toml")).unwrap();
    let out = Command::new(bin).args(["doctor", "--book"]).arg(&clone).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL clone: no pyproject.toml") && text.contains("fix: pass --book the root of your clone"), "{text}");
}
