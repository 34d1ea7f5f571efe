//! `bookside check --book book FILE` on a hand-written log: every gate finding, with its line.

use std::path::PathBuf;
use std::process::Command;

const LOG: &str = "\
# Progress

### 2026-07-01 — S0.1 (How this book works) — DONE
- **Done-when**: quiz 5/5 ✅
- **Next**: S0.2 — tooling

### 2026-07-02 — S0.2 (Tooling and the clone) — DONE
- **Done-when**: quiz 4/5 ✅
- **Next**: S9.9 — a typo in the id

### 2026-07-03 — S0.3 (The math you need) — PARTIAL
- **Done-when**: quiz 2/5 ❌
- **Next**: S0.3 — resume at the Midpoint

### 2026-07-04 — S0.4 (The shape of a transformer) — DONE
- **Done-when**: quiz 5/5 ❌
- **Next**: S1.1 — parameters

### 2026-06-30 — S1.1 (Where the parameters live) — DONE
- **Done-when**: quiz 9/10 ✅
- **Sticking point**: tied embeddings (ladder rung 6)
- **Next**: S1.2 — the config

### 2099-01-01 — S7.7 (Not a card) — DONE
- **Done-when**: something ✅
- **Next**: S1.2 — the config

### 2026-07-05 — S1.2 (Model config on paper) — FINISHED
- **Done-when**: test_m01_model_config.py ✅
- **Next**: S1.3 — the cache
";

#[test]
fn check_shows_every_gate_finding_with_its_line() {
    let dir = std::env::temp_dir().join(format!("bookside-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("PROGRESS.md"), LOG).unwrap();
    let book = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../book");
    let out = Command::new(env!("CARGO_BIN_EXE_bookside"))
        .args(["check", "--book"])
        .arg(&book)
        .arg("PROGRESS.md")
        .current_dir(&dir)
        .output()
        .expect("run bookside");
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "findings exit 1; stderr: {}", String::from_utf8_lossy(&out.stderr));

    // The gate lines only (another part of `check` may print book diagnostics), with today's
    // date (which the clock decides) masked.
    let mut gate_lines: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("PROGRESS.md:"))
        .map(|l| match l.find("after today (") {
            Some(i) => format!("{}after today (TODAY){}", &l[..i], &l[i + "after today (YYYY-MM-DD)".len()..]),
            None => l.to_owned(),
        })
        .collect();
    gate_lines.dedup();
    let want = [
        "PROGRESS.md:9: next-is-real: Next names `S9.9`, which is not a card of the Session Guide",
        "PROGRESS.md:15: needs-done-before: S0.4 comes before its prerequisite S0.3 is DONE in the log: take S0.3 first, or move this entry below it",
        "PROGRESS.md:15: partial-resumed: S0.3 was left PARTIAL at line 11 and this entry is S0.4: resume S0.3 at its Midpoint first",
        "PROGRESS.md:16: done-is-green: S0.4 is DONE but its Done-when is ❌: a DONE needs a green run; log it as PARTIAL or run it again",
        "PROGRESS.md:19: log-in-order: dated 2026-06-30, before the entry at line 15 (2026-07-04): entries go oldest first",
        "PROGRESS.md:21: rung-within-cap: ladder rung 6 does not exist: rungs go from 1 (point) to 4 (one line)",
        "PROGRESS.md:24: session-exists: session `S7.7` is not a card of the Session Guide: check the id (cards look like S1.3)",
        "PROGRESS.md:24: date-not-in-future: dated 2099-01-01, after today (TODAY): fix the date",
        "PROGRESS.md:28: entry-parses: entry status `FINISHED` is not DONE, PARTIAL or SKIPPED; the companion reads it as unfinished",
        "PROGRESS.md:28: log-in-order: dated 2026-07-05, before the entry at line 24 (2099-01-01): entries go oldest first",
        "PROGRESS.md:4: note: S0.1's green Done-when is self-reported: no verified run on record",
        "PROGRESS.md:8: note: S0.2's green Done-when is self-reported: no verified run on record",
        "PROGRESS.md:20: note: S1.1's green Done-when is self-reported: no verified run on record",
    ];
    assert_eq!(gate_lines, want, "full stdout:\n{stdout}");
}

#[test]
fn check_reads_the_hard_mode_profile_beside_the_log() {
    let dir = std::env::temp_dir().join(format!("bookside-cli-check-profile-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("checkpoints/myllm")).unwrap();
    std::fs::write(dir.join("checkpoints/myllm/PROFILE.md"), "# Profile\n\n- **Hint cap**: 4\n- **Hard mode**: yes\n").unwrap();
    let log = "### 2026-07-01 — S0.1 (How this book works) — DONE\n- **Done-when**: quiz 5/5 ✅\n- **Sticking point**: the hour (ladder rung 4)\n- **Next**: S0.2 — tooling\n";
    std::fs::write(dir.join("PROGRESS.md"), log).unwrap();
    let book = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../book");
    let out = Command::new(env!("CARGO_BIN_EXE_bookside")).args(["check", "--book"]).arg(&book).arg("PROGRESS.md").current_dir(&dir).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("PROGRESS.md:3: rung-within-cap: ladder rung 4 is above the profile's hint cap of 3 (hard mode): the ladder never goes past the cap"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1));
}
