//! Fuzz target: the worker's Done-when command splitter (`worker/src/argv.rs`), the parser that
//! stands between a card's text (a run request names a session; the command comes from the book)
//! and a spawned process.
//!
//! Laws besides "no panic": an accepted command has at least one word and no control character
//! but tab in any word, and quoting each word back (single quotes, `\'` for a quote) splits to
//! the same argv, so what runs is exactly what was printed.

#![no_main]

use libfuzzer_sys::fuzz_target;

// The worker is a binary crate; its splitter is std-only, so the target compiles the file itself.
#[allow(dead_code)]
#[path = "../../worker/src/argv.rs"]
mod argv;

fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

fuzz_target!(|command: &str| {
    match argv::split(command) {
        Ok(words) => {
            assert!(!words.is_empty(), "{command:?} was accepted with no words");
            for w in &words {
                assert!(!w.chars().any(|c| c.is_control() && c != '\t'), "{command:?} let a control character through in {w:?}");
            }
            let requoted: Vec<String> = words.iter().map(|w| quote(w)).collect();
            let again = argv::split(&requoted.join(" "));
            assert_eq!(again.as_ref(), Ok(&words), "{command:?} -> {words:?}, but quoting them back gives {again:?}");
        }
        Err(message) => assert!(!message.is_empty(), "{command:?} was refused without a reason"),
    }
});
