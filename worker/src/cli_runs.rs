//! `bookside run`, `status` and `doctor`: the worker's runs without a browser.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The session id, e.g. S1.3.
    session: String,
    #[arg(long)]
    book: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    #[arg(long)]
    book: PathBuf,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    #[arg(long)]
    book: PathBuf,
}

pub fn run(_args: RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside run` is not built yet")
}

pub fn status(_args: StatusArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside status` is not built yet")
}

pub fn doctor(_args: DoctorArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside doctor` is not built yet")
}
