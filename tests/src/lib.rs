//! Shared helpers for the cross-crate tests: the real `bookside` binary, the real book.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the workspace").to_path_buf()
}

/// The bundled sample book (also the reader's clone).
pub fn book_dir() -> PathBuf {
    root().join("book")
}
