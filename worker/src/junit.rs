//! Reads pytest's junit XML report and judges a run from it: the outcome never comes from
//! scraping coloured terminal output.
//!
//! The report is written by pytest itself (`--junitxml`, passed through `PYTEST_ADDOPTS` so the
//! command stays as printed). Only `<testcase>` elements and their `<failure>`, `<error>` and
//! `<skipped>` children matter; everything else (properties, captured output, timings) is ignored.

use std::borrow::Cow;

use bookside_core::wire::{Outcome, RunEnd, TestResult};
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// Longest message kept per test case: a traceback is for the terminal, not for a status line.
const MESSAGE_CAP: usize = 4000;

/// The test cases of a junit report, in report order, or why the report cannot be read.
pub fn parse(xml: &str) -> Result<Vec<TestResult>, String> {
    let mut reader = Reader::from_str(xml);
    let mut tests = Vec::new();
    let mut current: Option<TestResult> = None;
    // The child element (`failure`, `error`, `skipped`) whose text is being collected, if any.
    let mut collecting: Option<String> = None;
    loop {
        let event = reader.read_event().map_err(|e| format!("pytest's junit report is not valid XML ({e})"))?;
        // `<x/>` arrives as Empty and gets no End event; `<x>` arrives as Start.
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            if e.name().as_ref() == b"testcase" {
                let test = TestResult {
                    classname: attr(e, b"classname")?.unwrap_or_default(),
                    name: attr(e, b"name")?.unwrap_or_default(),
                    outcome: Outcome::Pass,
                    message: None,
                };
                if empty {
                    tests.push(test);
                } else {
                    current = Some(test);
                }
                continue;
            }
            let Some(test) = current.as_mut() else { continue };
            let kind = match e.name().as_ref() {
                b"failure" | b"error" => Outcome::Fail,
                b"skipped" => Outcome::Skip,
                _ => continue,
            };
            // A failure outranks a skip reported for the same case (e.g. a teardown error).
            if test.outcome == Outcome::Pass || kind == Outcome::Fail && test.outcome == Outcome::Skip {
                test.outcome = kind;
                test.message = attr(e, b"message")?.filter(|m| !m.trim().is_empty()).map(tidy);
                if test.message.is_none() && !empty {
                    collecting = Some(String::new());
                }
            }
            continue;
        }
        match event {
            Event::Text(t) if collecting.is_some() => {
                let text = t.decode().map_err(|e| format!("pytest's junit report has bad text ({e})"))?;
                collecting.as_mut().expect("checked above").push_str(&text);
            }
            Event::CData(t) if collecting.is_some() => {
                collecting.as_mut().expect("checked above").push_str(&String::from_utf8_lossy(&t));
            }
            Event::GeneralRef(r) if collecting.is_some() => {
                let name = r.decode().map_err(|e| format!("pytest's junit report has a bad entity ({e})"))?;
                let resolved: Option<Cow<'_, str>> = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(Cow::Owned(c.to_string())),
                    _ => quick_xml::escape::resolve_predefined_entity(&name).map(Cow::Borrowed),
                };
                collecting.as_mut().expect("checked above").push_str(&resolved.unwrap_or_default());
            }
            Event::End(e) if matches!(e.name().as_ref(), b"failure" | b"error" | b"skipped") => {
                if let (Some(text), Some(test)) = (collecting.take(), current.as_mut()) {
                    let text = text.trim();
                    if !text.is_empty() {
                        test.message = Some(tidy(text.to_owned()));
                    }
                }
            }
            Event::End(e) if e.name().as_ref() == b"testcase" => {
                if let Some(test) = current.take() {
                    tests.push(test);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(tests)
}

fn attr(e: &BytesStart<'_>, key: &[u8]) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|e| format!("pytest's junit report has a bad attribute ({e})"))?;
        if a.key.as_ref() == key {
            let value = a.unescape_value().map_err(|e| format!("pytest's junit report has a bad attribute value ({e})"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// `pytest.fail(msg)` reaches the report as `Failed: msg`; the reader wants `msg`. Long
/// tracebacks are cut at a character boundary.
fn tidy(message: String) -> String {
    let message = message.strip_prefix("Failed: ").map(str::to_owned).unwrap_or(message);
    if message.len() <= MESSAGE_CAP {
        return message;
    }
    let mut end = MESSAGE_CAP;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

/// What a set of test cases adds up to: any failure fails, else any skip skips (a milestone is
/// only done when all of it passes), else a pass. No test cases at all is `None`.
pub fn summarise(tests: &[TestResult]) -> Option<(Outcome, Option<String>)> {
    let first = |o: Outcome| tests.iter().find(|t| t.outcome == o);
    if let Some(t) = first(Outcome::Fail) {
        return Some((Outcome::Fail, t.message.clone().or_else(|| Some(format!("{} failed", t.name)))));
    }
    if let Some(t) = first(Outcome::Skip) {
        return Some((Outcome::Skip, t.message.clone()));
    }
    first(Outcome::Pass).map(|_| (Outcome::Pass, None))
}

/// What a run comes to, from how it ended, its exit code and pytest's report (`None` when the
/// command wrote none). `timeout_secs` is only used to word the timeout message.
pub fn judge(end: RunEnd, exit_code: Option<i32>, report: Option<&Result<Vec<TestResult>, String>>, timeout_secs: u64) -> (Outcome, Option<String>) {
    match end {
        RunEnd::TimedOut => {
            return (
                Outcome::Error,
                Some(format!("the run took longer than {timeout_secs} s and was stopped; raise --timeout if it needs longer")),
            );
        }
        RunEnd::Cancelled => return (Outcome::Error, Some("the run was cancelled".to_owned())),
        RunEnd::NotStarted => return (Outcome::Error, Some("the command could not be started".to_owned())),
        RunEnd::Exited => {}
    }
    let code = exit_code.map_or_else(|| "a signal".to_owned(), |c| c.to_string());
    match report {
        Some(Err(problem)) => (Outcome::Error, Some(format!("{problem}; read the output above"))),
        Some(Ok(tests)) => match summarise(tests) {
            None => (Outcome::Error, Some(format!("pytest ran no tests (exit {code}); check that the Done-when path names a test file"))),
            Some((Outcome::Pass, _)) if exit_code != Some(0) => (
                Outcome::Error,
                Some(format!("every test passed but pytest exited with {code}; read the output above")),
            ),
            Some(verdict) => verdict,
        },
        // Not pytest, or pytest stopped before reporting (a usage error, a crash in a plugin).
        None if exit_code == Some(0) => (Outcome::Pass, None),
        None => (
            Outcome::Error,
            Some(format!("the command exited with {code} before pytest wrote its report; read the output above")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use bookside_core::wire::{Outcome, RunEnd};
    use expect_test::{Expect, expect};

    use super::{judge, parse};

    fn check(xml: &str, expect: Expect) {
        let shown = match parse(xml) {
            Ok(tests) => {
                let lines: Vec<String> =
                    tests.iter().map(|t| format!("{}::{} {:?} {:?}", t.classname, t.name, t.outcome, t.message)).collect();
                format!("{}\njudged: {:?}", lines.join("\n"), judge(RunEnd::Exited, Some(1), Some(&Ok(tests.clone())), 0))
            }
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&shown);
    }

    /// The shape pytest 8 writes (xunit2), with a skip, a `pytest.fail(..., pytrace=False)`,
    /// an assertion with a traceback body and a collection error.
    #[test]
    fn reads_what_pytest_writes() {
        check(
            r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="2" skipped="1" tests="5" time="0.05" timestamp="2026-11-30T21:00:00" hostname="h"><testcase classname="tests.milestones.test_m01_model_config" name="test_m01_model_config" time="0.001"><skipped type="pytest.skip" message="run session S1.2 (Model config) to create checkpoints/myllm/config.json">/clone/tests/milestones/milestone.py:23: run session S1.2 (Model config) to create checkpoints/myllm/config.json</skipped></testcase><testcase classname="tests.milestones.test_m02_kv_budget" name="test_m02_kv_budget" time="0.002"><failure message="Failed: kv_budget.json: budget_bytes is 9,000,000; the book's budget is at most 8 MiB (8,388,608 bytes)">kv_budget.json: budget_bytes is 9,000,000</failure></testcase><testcase classname="tests.x" name="test_assert" time="0.001"><failure message="assert 1 == 2">def test_assert():
&gt;       assert 1 == 2
E       assert 1 == 2</failure></testcase><testcase classname="" name="tests.milestones.test_m03_dense_vs_moe" time="0.000"><error message="collection failure">ImportError: No module named &apos;torch&apos;</error></testcase><testcase classname="tests.y" name="test_ok" time="0.000" /><testcase classname="tests.z" name="test_body"><failure>first line &amp; more
second line</failure></testcase></testsuite></testsuites>"#,
            expect![[r#"
                tests.milestones.test_m01_model_config::test_m01_model_config Skip Some("run session S1.2 (Model config) to create checkpoints/myllm/config.json")
                tests.milestones.test_m02_kv_budget::test_m02_kv_budget Fail Some("kv_budget.json: budget_bytes is 9,000,000; the book's budget is at most 8 MiB (8,388,608 bytes)")
                tests.x::test_assert Fail Some("assert 1 == 2")
                ::tests.milestones.test_m03_dense_vs_moe Fail Some("collection failure")
                tests.y::test_ok Pass None
                tests.z::test_body Fail Some("first line & more\nsecond line")
                judged: (Fail, Some("kv_budget.json: budget_bytes is 9,000,000; the book's budget is at most 8 MiB (8,388,608 bytes)"))"#]],
        );
    }

    #[test]
    fn all_skipped_is_a_skip_with_the_first_reason() {
        check(
            r#"<testsuites><testsuite><testcase classname="a" name="t1"><skipped message="run session S1.3 first"/></testcase><testcase classname="a" name="t2"/></testsuite></testsuites>"#,
            expect![[r#"
                a::t1 Skip Some("run session S1.3 first")
                a::t2 Pass None
                judged: (Skip, Some("run session S1.3 first"))"#]],
        );
    }

    #[test]
    fn broken_xml_is_an_error_not_a_verdict() {
        check("<testsuites><testcase name=\"a\"><failure message=\"x></testsuites>", expect!["error: pytest's junit report is not valid XML (syntax error: tag not closed: `>` not found before end of input)"]);
    }

    #[test]
    fn judging_without_a_report_or_with_a_bad_end() {
        let show = |end, code, report: Option<Result<Vec<_>, String>>| format!("{:?}", judge(end, code, report.as_ref(), 600));
        expect![[r#"(Pass, None)"#]].assert_eq(&show(RunEnd::Exited, Some(0), None));
        expect![[r#"(Error, Some("the command exited with 4 before pytest wrote its report; read the output above"))"#]]
            .assert_eq(&show(RunEnd::Exited, Some(4), None));
        expect![[r#"(Error, Some("pytest ran no tests (exit 5); check that the Done-when path names a test file"))"#]]
            .assert_eq(&show(RunEnd::Exited, Some(5), Some(Ok(vec![]))));
        expect![[r#"(Error, Some("the run took longer than 600 s and was stopped; raise --timeout if it needs longer"))"#]]
            .assert_eq(&show(RunEnd::TimedOut, None, None));
        expect![[r#"(Error, Some("the run was cancelled"))"#]].assert_eq(&show(RunEnd::Cancelled, None, None));
        let passed = vec![bookside_core::wire::TestResult { classname: "a".into(), name: "t".into(), outcome: Outcome::Pass, message: None }];
        expect![[r#"(Error, Some("every test passed but pytest exited with 3; read the output above"))"#]]
            .assert_eq(&show(RunEnd::Exited, Some(3), Some(Ok(passed))));
    }
}
