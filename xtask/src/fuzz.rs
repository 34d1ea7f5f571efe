//! `cargo xtask fuzz [--time SECONDS] [TARGET...]`: runs each cargo-fuzz target under `fuzz/`.
//!
//! cargo-fuzz needs a nightly compiler for `-Zsanitizer=address`, and this project has one stable
//! toolchain. So this builds the targets itself with the flags `cargo fuzz build` passes (sancov
//! instrumentation, AddressSanitizer, debug assertions, `--cfg fuzzing`), on stable with
//! `RUSTC_BOOTSTRAP=1`, which lets a stable rustc accept `-Z` flags. The sanitizer runtime ships
//! with the stable toolchain for x86_64 Linux. The layout stays cargo-fuzz's own, so
//! `cargo +nightly fuzz run quiz` works unchanged wherever a nightly exists.
//!
//! Before fuzzing, every file in `fuzz/regressions/<target>/` (crashes found earlier, kept as
//! regression tests) is replayed; a crash found now is left in `fuzz/artifacts/<target>/` and the
//! command fails, saying how to reproduce it and how to keep it as a regression.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::{root, run};

const TARGET_TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// The RUSTFLAGS of `cargo fuzz build` with default options and AddressSanitizer, less
/// `-simplifycfg-branch-fold-bonus-insts=0`, which the LLVM of rustc 1.95 no longer knows.
const FUZZ_RUSTFLAGS: &[&str] = &[
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "--cfg",
    "fuzzing",
    "-Zsanitizer=address",
    "-Cdebug-assertions",
    "-Coverflow-checks",
];

pub fn fuzz(args: &[String]) -> anyhow::Result<()> {
    let mut seconds: u64 = 60;
    let mut wanted = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--time" => {
                let v = it.next().context("--time needs a number of seconds per target")?;
                seconds = v.parse().with_context(|| format!("--time {v}: give whole seconds, e.g. --time 600"))?;
            }
            other if other.starts_with('-') => bail!("unknown option `{other}`: use --time SECONDS and target names"),
            name => wanted.push(name.to_owned()),
        }
    }
    let dir = root().join("fuzz");
    let all = targets(&dir)?;
    if let Some(unknown) = wanted.iter().find(|w| !all.contains(w)) {
        bail!("no fuzz target `{unknown}`: the targets are {}", all.join(", "));
    }
    let targets = if wanted.is_empty() { all } else { wanted };
    if std::env::consts::OS != "linux" || std::env::consts::ARCH != "x86_64" {
        bail!("fuzzing is set up for x86_64 Linux only (the sanitizer runtime of the stable toolchain); use `cargo +nightly fuzz run` elsewhere");
    }

    let flags = FUZZ_RUSTFLAGS.join(" ");
    eprintln!("xtask: building {} fuzz target(s) with AddressSanitizer on the stable toolchain", targets.len());
    let mut build = Command::new("cargo");
    build
        .args(["build", "--release", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        // An explicit target keeps build scripts and proc macros uninstrumented, as cargo-fuzz does.
        .args(["--target", TARGET_TRIPLE])
        .args(targets.iter().flat_map(|t| ["--bin", t.as_str()]))
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTFLAGS", &flags)
        .env_remove("CARGO_TARGET_DIR");
    run(&mut build)?;

    let mut report = Vec::new();
    for target in &targets {
        let exe = dir.join("target").join(TARGET_TRIPLE).join("release").join(target);
        replay_regressions(&dir, target, &exe)?;
        let corpus = dir.join("corpus").join(target);
        let artifacts = dir.join("artifacts").join(target);
        std::fs::create_dir_all(&corpus)?;
        std::fs::create_dir_all(&artifacts)?;
        eprintln!("xtask: fuzzing `{target}` for {seconds} s (corpus fuzz/corpus/{target})");
        let started = Instant::now();
        let status = Command::new(&exe)
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg("-print_final_stats=1")
            .arg(&corpus)
            .current_dir(&dir)
            .status()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        let took = started.elapsed().as_secs();
        if !status.success() {
            bail!(
                "fuzz target `{target}` crashed after {took} s: the input is in fuzz/artifacts/{target}/; reproduce with `{} <file>`, \
                 fix the bug, then copy the file into fuzz/regressions/{target}/ so every later run replays it",
                exe.display()
            );
        }
        report.push(format!("{target}: {took} s, no crash"));
    }
    println!("xtask: fuzzing done\n  {}", report.join("\n  "));
    Ok(())
}

/// The `[[bin]]` targets of fuzz/Cargo.toml, in file order.
fn targets(dir: &Path) -> anyhow::Result<Vec<String>> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).context("cannot read fuzz/Cargo.toml: the fuzz targets live in fuzz/")?;
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin && let Some(v) = line.strip_prefix("name").map(str::trim_start).and_then(|l| l.strip_prefix('=')) {
            names.push(v.trim().trim_matches('"').to_owned());
        }
    }
    if names.is_empty() {
        bail!("fuzz/Cargo.toml declares no [[bin]] fuzz targets");
    }
    Ok(names)
}

/// Runs the target once over each saved crash input; any failure is a regression.
fn replay_regressions(dir: &Path, target: &str, exe: &Path) -> anyhow::Result<()> {
    let saved = dir.join("regressions").join(target);
    let Ok(entries) = std::fs::read_dir(&saved) else { return Ok(()) };
    let files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect();
    if files.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: replaying {} saved input(s) of `{target}`", files.len());
    run(Command::new(exe).args(&files).current_dir(dir)).with_context(|| format!("a saved crash of `{target}` crashes again: a regression"))
}
