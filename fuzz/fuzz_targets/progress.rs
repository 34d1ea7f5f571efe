//! Fuzz target: the PROGRESS.md and PROFILE.md parsers and everything built on them.
//!
//! Any UTF-8 input must round-trip byte for byte, `fmt` must be idempotent, and merging the
//! two halves of the input must be idempotent. A panic anywhere is a finding.

#![no_main]

use bookside_core::{merge, profile, progress};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };

    let (log, _) = progress::parse(text);
    assert_eq!(progress::print(&log), text, "PROGRESS.md round trip");

    let once = progress::fmt(text);
    assert_eq!(progress::fmt(&once), once, "fmt is idempotent");
    assert!(progress::check_canonical(&once).is_empty(), "fmt output is canonical");

    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid -= 1;
    }
    let (a, b) = text.split_at(mid);
    let merged = merge::merge(a, b);
    assert_eq!(merge::merge(&merged.text, b).text, merged.text, "merge is idempotent");

    let (doc, _) = profile::parse(text);
    assert_eq!(profile::print(&doc), text, "PROFILE.md round trip");
});
