//! `bookside fmt` and `bookside merge`: thin shells over core's PROGRESS.md functions.
//!
//! Exit codes: 0 clean, 1 findings (non-canonical entries, merge conflicts), 2 usage or I/O.
//! The reader's file is never half-written: `fmt` writes a temporary file next to it and
//! renames it over the original.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use bookside_core::{merge, progress};

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

fn read(path: &Path) -> anyhow::Result<String> {
    let bytes = fs::read(path).with_context(|| format!("cannot read {}; check the path", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{} is not UTF-8 text (first bad byte at offset {}); save it as UTF-8 and try again",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Replaces `path`'s contents with `text` by writing a sibling temporary file and renaming it,
/// so a crash or a full disk leaves either the old file or the new one, never a mix.
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "log".into());
    let tmp = dir.join(format!(".{name}.bookside-{}.tmp", std::process::id()));
    let result = (|| -> anyhow::Result<()> {
        let mut f = fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("cannot flush {}", tmp.display()))?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the reader's permissions on the rewritten file.
            let _ = fs::set_permissions(&tmp, meta.permissions());
        }
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {}; it is unchanged", path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Puts the real path (and keeps the line) in a core diagnostic.
fn located(path: &Path, d: &bookside_core::Diagnostic) -> String {
    bookside_core::Diagnostic { file: path.display().to_string(), ..d.clone() }.to_string()
}

pub fn fmt(args: FmtArgs) -> anyhow::Result<ExitCode> {
    let text = read(&args.file)?;
    if args.check {
        let findings = progress::check_canonical(&text);
        for d in &findings {
            println!("{}", located(&args.file, d));
        }
        return Ok(if findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let formatted = progress::fmt(&text);
    if formatted != text {
        let changed = progress::check_canonical(&text).len();
        write_atomically(&args.file, &formatted)?;
        eprintln!("{}: rewrote {changed} entr{}", args.file.display(), if changed == 1 { "y" } else { "ies" });
    }
    Ok(ExitCode::SUCCESS)
}

pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let a = read(&args.a)?;
    let b = read(&args.b)?;
    let merged = merge::merge(&a, &b);
    let mut out = std::io::stdout().lock();
    out.write_all(merged.text.as_bytes()).context("cannot write the merged log to stdout")?;
    out.flush().context("cannot write the merged log to stdout")?;
    for c in &merged.conflicts {
        let path = |side| if side == merge::Side::A { &args.a } else { &args.b };
        let versions: Vec<String> = c
            .versions
            .iter()
            .map(|v| format!("{}:{} (merged line {})", path(v.side).display(), v.line, v.merged_line))
            .collect();
        let first = &c.versions[0];
        eprintln!(
            "{}:{}: conflict: entry {} has {} versions: {}; all are kept, delete the ones you do not want{}",
            path(first.side).display(),
            first.line,
            c.key,
            c.versions.len(),
            versions.join(", "),
            if c.formatting_only { " (they differ only in formatting)" } else { "" }
        );
    }
    Ok(if merged.conflicts.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
