//! `bookside run`, `status` and `doctor`: the worker's runs without a browser ("no browser,
//! still a book"). Same guide, same runner, same verdicts as the HTTP API.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use bookside_core::wire::{Outcome, StatusReport};
use tokio::sync::watch;

use crate::runner::{self, Sink};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The session id, e.g. S1.3.
    session: String,
    #[arg(long)]
    book: PathBuf,
    /// Time limit of the run, in seconds.
    #[arg(long, default_value_t = runner::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    #[arg(long)]
    book: PathBuf,
    #[arg(long)]
    json: bool,
    /// Time limit of the pytest run, in seconds.
    #[arg(long, default_value_t = runner::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
}

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    #[arg(long)]
    book: PathBuf,
    #[arg(long)]
    json: bool,
}

/// Exit codes of `bookside run`: 0 pass, 1 fail, 3 skip, 2 error.
fn exit_code(outcome: Outcome) -> ExitCode {
    ExitCode::from(match outcome {
        Outcome::Pass => 0,
        Outcome::Fail => 1,
        Outcome::Error => 2,
        Outcome::Skip => 3,
    })
}

fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Skip => "skip",
        Outcome::Error => "error",
    }
}

/// Writes output straight through to our stdout as it arrives.
struct Stdout;

impl Sink for Stdout {
    fn output(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    fn truncated(&self) {
        println!("\n[bookside: output passed {} bytes; the rest is not shown]", runner::OUTPUT_CAP);
    }
}

struct Discard;

impl Sink for Discard {
    fn output(&self, _: &str) {}
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")
}

/// Ctrl-C reaches only our process group, not the run's: pass it on as a cancel.
fn cancel_on_ctrl_c(runtime: &tokio::runtime::Runtime) -> watch::Receiver<bool> {
    let (cancel, cancelled) = watch::channel(false);
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.send_replace(true);
        }
        // Keep the sender alive so the receiver does not read a dropped channel as "never".
        std::future::pending::<()>().await;
    });
    cancelled
}

/// One run at a time per clone, across processes: a worker's run holds the clone too.
fn hold_clone(clone: &crate::clone::Clone, id: &str) -> anyhow::Result<Option<crate::runs::CloneLock>> {
    crate::runs::lock_clone(&clone.root, id).map_err(|running| anyhow::anyhow!("{}", crate::error::ApiError::Busy { running }.message()))
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let clone = crate::clone::open(&args.book)?;
    let (session, argv) = match clone.runnable(&args.session) {
        Ok(found) => found,
        Err(refusal) => anyhow::bail!("{}", refusal.message()),
    };
    let command = session.info.done_when.clone().unwrap_or_default();
    let _lock = hold_clone(&clone, &format!("cli-run-{}", std::process::id()))?;
    println!("$ {command}");
    let spec = clone.spec(argv, Duration::from_secs(args.timeout));
    let runtime = runtime()?;
    let cancelled = cancel_on_ctrl_c(&runtime);
    let result = runtime.block_on(runner::execute(&spec, &Stdout, cancelled));
    let word = outcome_word(result.outcome);
    match &result.message {
        Some(message) => println!("bookside: {} {word}: {message}", session.info.id),
        None => println!("bookside: {} {word}", session.info.id),
    }
    Ok(exit_code(result.outcome))
}

pub fn status(args: StatusArgs) -> anyhow::Result<ExitCode> {
    let clone = crate::clone::open(&args.book)?;
    let _lock = hold_clone(&clone, &format!("cli-status-{}", std::process::id()))?;
    let runtime = runtime()?;
    let cancelled = cancel_on_ctrl_c(&runtime);
    let sweep = runtime.block_on(runner::execute(&clone.status_spec(Duration::from_secs(args.timeout)), &Discard, cancelled));
    let report = StatusReport { milestones: crate::clone::milestone_statuses(&clone, &sweep), run: sweep };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for m in &report.milestones {
            let message = m.message.as_deref().map(|m| format!("  {}", m.lines().next().unwrap_or(""))).unwrap_or_default();
            println!("{:<6} {:<5} {}{message}", m.session.as_deref().unwrap_or("-"), outcome_word(m.outcome), m.test_file);
        }
        let count = |o: Outcome| report.milestones.iter().filter(|m| m.outcome == o).count();
        println!(
            "{} pass, {} fail, {} skip, {} error (one pytest run, {} ms)",
            count(Outcome::Pass),
            count(Outcome::Fail),
            count(Outcome::Skip),
            count(Outcome::Error),
            report.run.millis
        );
    }
    let worst = report.milestones.iter().map(|m| m.outcome).fold(Outcome::Pass, |a, b| match (a, b) {
        (Outcome::Error, _) | (_, Outcome::Error) => Outcome::Error,
        (Outcome::Fail, _) | (_, Outcome::Fail) => Outcome::Fail,
        _ => Outcome::Pass,
    });
    // Skips are the normal state of a book in progress: status is clean unless something failed.
    Ok(match worst {
        Outcome::Error => ExitCode::from(2),
        Outcome::Fail => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

pub fn doctor(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let clone = crate::clone::open(&args.book)?;
    let report = runtime()?.block_on(crate::doctor::check(&clone));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for check in &report.checks {
            println!("{} {}: {}", if check.ok { "ok  " } else { "FAIL" }, check.name, check.detail);
            if let Some(fix) = &check.fix {
                println!("     fix: {fix}");
            }
        }
    }
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
