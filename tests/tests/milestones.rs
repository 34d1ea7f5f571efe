//! The reader's clone run for real: `uv run pytest tests/milestones/` on fresh copies of book/.
//!
//! These are the issue's acceptance journeys for the milestone suite: a fresh clone is 26 skips
//! that each name their session; dropping artifacts in `checkpoints/myllm/` turns exactly those
//! milestones into passes or failures; and every reference artifact in tests/fixtures/ does what
//! its folder name says. Results are read from pytest's JUnit XML report, not from its terminal
//! output, so column widths and plugins cannot change what we see.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bookside_tests::{book_dir, copy_tree, fresh_clone, root};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Passed,
    Skipped,
    Failed,
}

/// One test case of the JUnit report: its module (`test_m02_kv_budget`), outcome and message.
#[derive(Debug, Clone)]
struct Case {
    module: String,
    outcome: Outcome,
    message: String,
}

/// What a pytest run left behind.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    cases: Vec<Case>,
}

impl Run {
    fn by_milestone(&self) -> BTreeMap<String, Case> {
        self.cases.iter().map(|c| (milestone_of(&c.module), c.clone())).collect()
    }
}

/// `test_m02_kv_budget` → `m02`.
fn milestone_of(module: &str) -> String {
    let stem = module.rsplit('.').next().unwrap_or(module);
    stem.trim_start_matches("test_").chars().take(3).collect()
}

fn uv_available() {
    let found = Command::new("uv").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    assert!(found, "uv is not on PATH: run `cargo xtask start` (it installs uv) or `pip install uv`, then rerun");
}

/// Runs `uv run pytest <args>` in `clone` with a JUnit report, keeping uv's shared cache.
fn pytest(clone: &Path, args: &[&str]) -> Run {
    uv_available();
    let report = clone.join("junit.xml");
    let out = Command::new("uv")
        .current_dir(clone)
        .args(["run", "--quiet", "pytest", "-rs", "-p", "no:cacheprovider"])
        .args(args)
        .arg(format!("--junitxml={}", report.display()))
        // A developer's activated environment must not leak into the reader's clone.
        .env_remove("VIRTUAL_ENV")
        .env_remove("UV_PROJECT_ENVIRONMENT")
        .output()
        .expect("run uv");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let xml = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "pytest wrote no report ({e}); exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Run { code: out.status.code(), stdout, cases: parse_junit(&xml) }
}

/// Reads the `<testcase>` elements of a JUnit XML report. Small on purpose: pytest's report
/// has one flat list of test cases whose attribute values are escaped.
fn parse_junit(xml: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for chunk in xml.split("<testcase ").skip(1) {
        let head_end = tag_end(chunk);
        let head = &chunk[..head_end];
        let module = attr(head, "classname").unwrap_or_default();
        let body = if head.ends_with('/') { "" } else { chunk[head_end..].split("</testcase>").next().unwrap_or("") };
        let (outcome, message) = [("<skipped", Outcome::Skipped), ("<failure", Outcome::Failed), ("<error", Outcome::Failed)]
            .iter()
            .find_map(|(tag, outcome)| {
                body.find(tag).map(|at| {
                    let rest = &body[at..];
                    (*outcome, attr(&rest[..tag_end(rest)], "message").unwrap_or_default())
                })
            })
            .unwrap_or((Outcome::Passed, String::new()));
        cases.push(Case { module, outcome, message });
    }
    cases
}

/// Index of the `>` that closes the tag starting at the beginning of `s`, outside quotes.
fn tag_end(s: &str) -> usize {
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '>' if !quoted => return i,
            _ => {}
        }
    }
    s.len()
}

fn attr(head: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = format!(" {head}").find(&key)? + key.len() - 1;
    let value = head[start..].split('"').next()?;
    Some(unescape(value))
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#10;", "\n")
        .replace("&amp;", "&")
}

/// The Session Guide's milestone cards as `m02` → (`S1.3`, `KV-cache budget`), read straight
/// from the Markdown so the tests' skip messages are checked against the cards themselves.
fn guide_milestones() -> BTreeMap<String, (String, String)> {
    let guide = std::fs::read_to_string(book_dir().join("src/session-guide.md")).expect("read the Session Guide");
    let mut found = BTreeMap::new();
    let mut card: Option<(String, String)> = None;
    for line in guide.lines() {
        if let Some(rest) = line.strip_prefix("### ") {
            card = rest.split_once(" — ").map(|(id, title)| (id.trim().to_string(), title.trim().to_string()));
        } else if line.contains("**Done-when**")
            && let (Some(at), Some(card)) = (line.find("test_m"), card.clone())
        {
            // The card's command must name a test file the clone really has.
            let file = line[at..].split('`').next().unwrap_or_default();
            assert!(
                line.contains(&format!("`uv run pytest tests/milestones/{file}`")),
                "card {}'s Done-when should be `uv run pytest tests/milestones/<file>`: {line}",
                card.0
            );
            assert!(book_dir().join("tests/milestones").join(file).is_file(), "card {} names {file}, which book/tests/milestones lacks", card.0);
            found.insert(line[at + 5..at + 8].to_string(), card);
        }
    }
    found
}

fn fixture(milestone: &str, kind: &str) -> PathBuf {
    root().join("tests/fixtures/milestones").join(milestone).join(kind)
}

fn drop_artifacts(clone: &Path, milestone: &str, kind: &str) {
    let from = fixture(milestone, kind);
    assert!(from.is_dir(), "missing fixture {}", from.display());
    copy_tree(&from, &clone.join("checkpoints/myllm"), &[]).expect("copy a fixture into checkpoints/myllm");
}

#[test]
fn parse_junit_reads_all_three_outcomes() {
    let xml = r#"<testsuite><testcase classname="tests.milestones.test_m01_model_config" name="test_m01_model_config" time="0.01" />
<testcase classname="tests.milestones.test_m02_kv_budget" name="t"><skipped type="pytest.skip" message="run session S1.3 (KV-cache budget) to create checkpoints/myllm/kv_budget.json">x.py:23: run</skipped></testcase>
<testcase classname="tests.milestones.test_m03_dense_vs_moe" name="t"><failure message="Failed: a &lt; b &amp; &quot;c&quot;">boom</failure></testcase></testsuite>"#;
    let cases = parse_junit(xml);
    let got: Vec<_> = cases.iter().map(|c| (milestone_of(&c.module), c.outcome, c.message.as_str())).collect();
    assert_eq!(
        got,
        vec![
            ("m01".to_string(), Outcome::Passed, ""),
            ("m02".to_string(), Outcome::Skipped, "run session S1.3 (KV-cache budget) to create checkpoints/myllm/kv_budget.json"),
            ("m03".to_string(), Outcome::Failed, "Failed: a < b & \"c\""),
        ]
    );
}

#[test]
fn fresh_clone_is_26_skips_each_naming_its_session() {
    let guide = guide_milestones();
    assert_eq!(guide.len(), 26, "the Session Guide should have 26 milestone cards: {guide:?}");
    let clone = fresh_clone("fresh");
    let run = pytest(clone.path(), &["tests/milestones/"]);
    assert_eq!(run.code, Some(0), "a fresh clone must be green:\n{}", run.stdout);
    assert!(run.stdout.contains("26 skipped"), "pytest's summary should say 26 skipped:\n{}", run.stdout);
    let cases = run.by_milestone();
    assert_eq!(cases.keys().collect::<Vec<_>>(), guide.keys().collect::<Vec<_>>(), "one test per milestone card");
    for (milestone, case) in &cases {
        assert_eq!(case.outcome, Outcome::Skipped, "{milestone} should skip on a fresh clone: {case:?}");
        let (id, title) = &guide[milestone];
        let wanted = format!("run session {id} ({title}) to create checkpoints/myllm/");
        assert!(case.message.contains(&wanted), "{milestone}'s skip message should contain {wanted:?}, got {:?}", case.message);
    }
}

#[test]
fn dropped_artifacts_pass_and_fail_exactly_those_milestones() {
    let clone = fresh_clone("dropped");
    for good in ["m01", "m09", "m15"] {
        drop_artifacts(clone.path(), good, "good");
    }
    for short in ["m20", "m23"] {
        drop_artifacts(clone.path(), short, "short");
    }
    let run = pytest(clone.path(), &["tests/milestones/"]);
    assert_eq!(run.code, Some(1), "pytest exits 1 when a test fails:\n{}", run.stdout);
    let cases = run.by_milestone();
    assert_eq!(cases.len(), 26);
    let with = |outcome| cases.iter().filter(|(_, c)| c.outcome == outcome).map(|(m, _)| m.as_str()).collect::<Vec<_>>();
    assert_eq!(with(Outcome::Passed), ["m01", "m09", "m15"]);
    assert_eq!(with(Outcome::Failed), ["m20", "m23"]);
    assert_eq!(with(Outcome::Skipped).len(), 21);
    // The failure messages say what is short, naming the file and the figure.
    let m20 = &cases["m20"].message;
    assert!(m20.contains("eval.json") && m20.contains("bits_per_byte") && m20.contains("recomputes to"), "{m20}");
    let m23 = &cases["m23"].message;
    assert!(m23.contains("sampling_check.json") && m23.contains("probs[") && m23.contains("top-p"), "{m23}");
}

/// Every file of a fixture folder, by its path relative to the folder.
fn fixture_files(dir: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("list a fixture folder").filter_map(|e| e.ok()) {
        let path = entry.path();
        let rel = rel.join(entry.file_name());
        if path.is_dir() {
            fixture_files(&path, &rel, out);
        } else {
            out.insert(rel, std::fs::read(&path).expect("read a fixture file"));
        }
    }
}

#[test]
fn every_reference_artifact_does_what_its_folder_says() {
    // One pytest run per fixture would mean ~50 runs; instead fixtures are packed into as few
    // checkpoints folders as possible, never putting two kinds of one milestone together nor two
    // different files at one path. Sharing files only adds cross-checks between artifacts.
    struct Batch {
        members: Vec<(String, Outcome)>,
        files: BTreeMap<PathBuf, Vec<u8>>,
    }
    let mut batches: Vec<Batch> = Vec::new();
    let mut milestones: Vec<_> = std::fs::read_dir(root().join("tests/fixtures/milestones"))
        .expect("list the fixtures")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    milestones.sort();
    for milestone in &milestones {
        for (kind, want) in [("good", Outcome::Passed), ("short", Outcome::Failed)] {
            let dir = fixture(milestone, kind);
            if !dir.is_dir() {
                continue;
            }
            let mut files = BTreeMap::new();
            fixture_files(&dir, Path::new(""), &mut files);
            let fits = |b: &Batch| {
                b.members.iter().all(|(m, _)| m != milestone)
                    && files.iter().all(|(path, bytes)| b.files.get(path).is_none_or(|other| other == bytes))
            };
            let at = match batches.iter().position(fits) {
                Some(at) => at,
                None => {
                    batches.push(Batch { members: Vec::new(), files: BTreeMap::new() });
                    batches.len() - 1
                }
            };
            batches[at].members.push((milestone.clone(), want));
            batches[at].files.extend(files);
        }
    }
    let fixtures: usize = batches.iter().map(|b| b.members.len()).sum();
    assert!(fixtures >= 10, "expected good and short fixtures for at least five milestones, found {fixtures}");

    let clone = fresh_clone("fixtures");
    let myllm = clone.path().join("checkpoints/myllm");
    for batch in &batches {
        let _ = std::fs::remove_dir_all(clone.path().join("checkpoints"));
        for (rel, bytes) in &batch.files {
            let path = myllm.join(rel);
            std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("create checkpoints/myllm");
            std::fs::write(&path, bytes).expect("write a fixture file");
        }
        let run = pytest(clone.path(), &["tests/milestones/"]);
        let cases = run.by_milestone();
        for (milestone, want) in &batch.members {
            let case = cases.get(milestone).unwrap_or_else(|| panic!("no result for {milestone}:\n{}", run.stdout));
            assert_eq!(case.outcome, *want, "fixture {milestone} ({want:?} expected): {case:?}");
            if *want == Outcome::Failed {
                assert!(!case.message.trim().is_empty(), "{milestone}'s short fixture fails without saying why");
            }
        }
    }
}
