//! `bookside guide` and `bookside check`: thin shells over core's guide and gate functions.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct GuideArgs {
    #[arg(long)]
    book: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[arg(long)]
    book: PathBuf,
    /// The PROGRESS.md to check.
    file: PathBuf,
}

pub fn guide(_args: GuideArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside guide` is not built yet")
}

pub fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let findings = crate::cli_gates::run(&args.book, &args.file)?;
    Ok(if findings == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
