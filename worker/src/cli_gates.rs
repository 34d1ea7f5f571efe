//! The gate part of `bookside check`: gather the guide, the log, the profile and today's date,
//! and print core's gate report, one finding per line with the line it points at.
//!
//! The CLI has no run store of its own (the worker keeps runs in memory while it serves), so the
//! Done-when marks in the log are all it knows: a ✅ passes the `done-is-green` gate as a
//! self-reported result and is labelled so in the report.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;

use bookside_core::engine::gates::{self, GateReport};
use bookside_core::engine::hour;
use bookside_core::wire::{BookBundle, RunRecord};
use bookside_core::{book, guide, profile, progress};

/// The hint cap when no profile says otherwise.
const DEFAULT_HINT_CAP: u8 = 4;

/// What the reader's profile contributes to the gates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileFacts {
    pub hint_cap: u8,
    pub phase0_skipped: bool,
}

impl Default for ProfileFacts {
    fn default() -> ProfileFacts {
        ProfileFacts { hint_cap: DEFAULT_HINT_CAP, phase0_skipped: false }
    }
}

/// Runs the gates over `log_text` against the book in `bundle`.
pub fn report(bundle: &BookBundle, log_text: &str, runs: &[RunRecord], profile: ProfileFacts, now_unix: i64) -> GateReport {
    let book = book::load(bundle);
    let guide_text = book.guide.as_deref().and_then(|p| book.chapter(p)).map_or("", |c| c.source.as_str());
    let (guide, _) = guide::parse(book.guide.as_deref().unwrap_or(""), guide_text);
    let (log, diagnostics) = progress::parse(log_text);
    // The reader's time zone is not known here: "in the future" means after today anywhere on
    // Earth (UTC+14), so no reader is flagged for logging in their own evening.
    let today = hour::local_date(now_unix, 14 * 60);
    gates::check(&gates::Input {
        guide: &guide,
        log: &log,
        log_diagnostics: &diagnostics,
        runs,
        hint_cap: profile.hint_cap,
        phase0_skipped: profile.phase0_skipped,
        today,
    })
}

/// The whole gate step of `bookside check`: reads the book and the log, prints every finding as
/// `FILE:LINE: gate: message` (and the self-reported labels), and returns the number of findings.
/// The log's parse diagnostics are the `entry-parses` gate's findings, so they are printed here.
pub fn run(book_dir: &Path, log_path: &Path) -> anyhow::Result<usize> {
    let bundle = crate::bundle::load(book_dir)?;
    let text = std::fs::read_to_string(log_path).with_context(|| format!("cannot read {}", log_path.display()))?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let report = report(&bundle, &text, &[], profile_near(log_path)?, now);
    Ok(print(&report, log_path))
}

/// The reader's profile beside a log (`checkpoints/myllm/PROFILE.md` in the log's folder, the
/// clone's root): its ladder cap (hard mode included) and whether Phase 0 was skipped. Without a
/// profile, the defaults: cap 4, Phase 0 not skipped.
pub fn profile_near(log_path: &Path) -> anyhow::Result<ProfileFacts> {
    let dir = log_path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let path = dir.join("checkpoints").join("myllm").join("PROFILE.md");
    if !path.is_file() {
        return Ok(ProfileFacts::default());
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (doc, _) = profile::parse(&text);
    Ok(ProfileFacts { hint_cap: doc.profile.ladder_cap(), phase0_skipped: doc.profile.phase0_skipped })
}

/// Prints the report for `file` and returns how many findings it has.
pub fn print(report: &GateReport, file: &Path) -> usize {
    print!("{}", report.render(&file.display().to_string()));
    report.findings.len()
}
