//! `bookside --help` and `--version`: the first things a reader types.

use std::process::Command;

fn bookside(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bookside")).args(args).output().expect("bookside runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn version_names_the_crate_version() {
    let (ok, stdout) = bookside(&["--version"]);
    assert!(ok);
    assert_eq!(stdout.trim(), format!("bookside {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_every_subcommand() {
    let (ok, stdout) = bookside(&["--help"]);
    assert!(ok);
    for sub in ["serve", "fmt", "merge", "guide", "check", "run", "status", "doctor", "bundle"] {
        assert!(stdout.lines().any(|l| l.trim_start().starts_with(sub)), "--help lacks `{sub}`:\n{stdout}");
    }
}

#[test]
fn serve_refuses_a_folder_without_a_book() {
    let out = Command::new(env!("CARGO_BIN_EXE_bookside"))
        .args(["serve", "--port", "0", "--book", env!("CARGO_MANIFEST_DIR")])
        .output()
        .expect("bookside runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("book.toml"), "the message says what is missing: {stderr}");
}
