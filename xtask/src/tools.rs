//! Installs the tools the build and the tests need, each only when missing or at the wrong
//! version, so a warm run costs seconds. Versions come from one place: this file and Cargo.lock.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::{root, run};

const TRUNK_VERSION: &str = "0.21.14";
/// Debian's binaryen (108) breaks wasm-bindgen's externref table in release builds; 132 works.
const BINARYEN_VERSION: &str = "132.0.0";

#[derive(Debug)]
pub struct BuildTools {
    pub trunk: PathBuf,
    /// PATH with the project's wasm-opt first, for Trunk.
    pub path: OsString,
}

pub fn ensure_build_tools() -> anyhow::Result<BuildTools> {
    ensure_wasm_target()?;
    let cargo_bin = cargo_bin_dir();
    let trunk = cargo_bin.join("trunk");
    if version_of(&trunk).is_none_or(|v| !v.contains(TRUNK_VERSION)) {
        eprintln!("xtask: installing trunk {TRUNK_VERSION} (several minutes, once)");
        run(Command::new("cargo").args(["install", "--locked", "trunk", "--version", TRUNK_VERSION]))?;
    }
    let bindgen_version = locked_version("wasm-bindgen")?;
    let bindgen = cargo_bin.join("wasm-bindgen");
    if version_of(&bindgen).is_none_or(|v| !v.split_whitespace().any(|w| w == bindgen_version)) {
        eprintln!("xtask: installing wasm-bindgen-cli {bindgen_version} (matches Cargo.lock)");
        // Not --locked: one of its locked dependencies is missing from the registry mirror here.
        run(Command::new("cargo").args(["install", "--force", "wasm-bindgen-cli", "--version", &bindgen_version]))?;
    }
    let tools_dir = root().join(".tools");
    let bin = tools_dir.join("node_modules/.bin");
    if version_of(&bin.join("wasm-opt")).is_none_or(|v| !v.contains(&BINARYEN_VERSION[..3])) {
        eprintln!("xtask: installing binaryen {BINARYEN_VERSION} from npm into .tools/");
        std::fs::create_dir_all(&tools_dir)?;
        run(Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--save-exact", &format!("binaryen@{BINARYEN_VERSION}")])
            .current_dir(&tools_dir))?;
    }
    let mut dirs = vec![bin, cargo_bin];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let path = std::env::join_paths(dirs).context("PATH holds a folder name that cannot be joined")?;
    Ok(BuildTools { trunk, path })
}

/// Test-only tools: Chromium and ChromeDriver from Debian, uv from PyPI, the browser tests'
/// pinned npm packages.
pub fn ensure_test_tools() -> anyhow::Result<()> {
    if !Path::new("/usr/bin/chromium").exists() || !Path::new("/usr/bin/chromedriver").exists() {
        eprintln!("xtask: installing Debian's chromium and chromium-driver");
        run(Command::new("apt-get").arg("update"))?;
        run(Command::new("apt-get").args(["install", "-y", "--no-install-recommends", "chromium", "chromium-driver"]))?;
    }
    if version_of(Path::new("uv")).is_none() {
        eprintln!("xtask: installing uv from PyPI");
        run(Command::new("python3").args(["-m", "pip", "install", "--quiet", "uv"]))?;
        // pyenv puts console scripts behind shims that exist only after a rehash.
        let _ = Command::new("pyenv").arg("rehash").status();
        if version_of(Path::new("uv")).is_none() {
            bail!("uv was installed but is not on PATH: add Python's scripts folder to PATH");
        }
    }
    let browser = root().join("tests/browser");
    let stamp = browser.join("node_modules/.package-lock.json");
    let lock = browser.join("package-lock.json");
    if !stamp.exists() || modified(&lock)? > modified(&stamp)? {
        eprintln!("xtask: installing the browser tests' npm packages (pinned by package-lock.json)");
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&browser))?;
    }
    Ok(())
}

fn ensure_wasm_target() -> anyhow::Result<()> {
    let out = Command::new("rustup").args(["target", "list", "--installed"]).output().context("cannot run rustup")?;
    if !String::from_utf8_lossy(&out.stdout).lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    Ok(())
}

/// The version of `name` that Cargo.lock pins, so the CLI always matches the crate.
fn locked_version(name: &str) -> anyhow::Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).context("cannot read Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"")
            && let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \""))
        {
            return Ok(v.trim_end_matches('"').to_owned());
        }
    }
    bail!("{name} is not in Cargo.lock: run `cargo generate-lockfile`")
}

fn cargo_bin_dir() -> PathBuf {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"));
    cargo_home.join("bin")
}

/// `program --version`, or None when it is missing or does not run.
fn version_of(program: &Path) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn modified(path: &Path) -> anyhow::Result<std::time::SystemTime> {
    Ok(std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?.modified()?)
}
