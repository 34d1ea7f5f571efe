//! `bookside fmt` and `bookside merge`: thin shells over core's PROGRESS.md functions.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// Report entries that are not canonical instead of rewriting the file.
    #[arg(long)]
    check: bool,
    file: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    a: PathBuf,
    b: PathBuf,
}

pub fn fmt(_args: FmtArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside fmt` is not built yet")
}

pub fn merge(_args: MergeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bookside merge` is not built yet")
}
