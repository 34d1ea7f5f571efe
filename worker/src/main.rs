//! `bookside`: the command-line shell over core, and the local worker.
//!
//! Exit codes, for every subcommand: 0 clean, 1 findings (or a failing run), 2 usage or I/O
//! error, 3 a skipped run.

mod api;
mod argv;
mod bundle;
mod cli_gates;
mod cli_guide;
mod cli_log;
mod cli_runs;
mod clone;
mod doctor;
mod error;
mod junit;
mod prerender;
mod runner;
mod runs;
mod security;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "bookside", version, about = "A companion for a book taught in one-hour sessions")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the companion site and the worker API on 127.0.0.1.
    Serve(serve::Args),
    /// Canonicalise PROGRESS.md entries (or check that they already are).
    Fmt(cli_log::FmtArgs),
    /// Merge two PROGRESS.md logs; the result goes to stdout, conflicts to stderr.
    Merge(cli_log::MergeArgs),
    /// List the Session Guide's cards and its diagnostics.
    Guide(cli_guide::GuideArgs),
    /// Check a PROGRESS.md against the book: parse diagnostics and gates.
    Check(cli_guide::CheckArgs),
    /// Run a session's Done-when command in the clone and report its outcome.
    Run(cli_runs::RunArgs),
    /// Print every milestone's outcome (one pytest process).
    Status(cli_runs::StatusArgs),
    /// Check that the clone can run its Done-when commands, and say how to fix what is missing.
    Doctor(cli_runs::DoctorArgs),
    /// Write the book bundle (book.json) that the app reads, for static hosting.
    Bundle(bundle::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Serve(args) => serve::run(args),
        Command::Fmt(args) => cli_log::fmt(args),
        Command::Merge(args) => cli_log::merge(args),
        Command::Guide(args) => cli_guide::guide(args),
        Command::Check(args) => cli_guide::check(args),
        Command::Run(args) => cli_runs::run(args),
        Command::Status(args) => cli_runs::status(args),
        Command::Doctor(args) => cli_runs::doctor(args),
        Command::Bundle(args) => bundle::write(args),
    };
    result.unwrap_or_else(|err| {
        eprintln!("error: {err:#}");
        ExitCode::from(2)
    })
}

/// The site built by `cargo xtask start` (Trunk's output), used when `--site` is not given.
pub fn default_site_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dist")
}
