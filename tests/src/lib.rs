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

/// A directory under the system temp dir, removed when dropped (std only, no extra crate).
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, empty directory whose name says which test made it.
    pub fn new(label: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("bookside-{label}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("create a temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies the tree `from` into `to`, skipping entries whose file name is in `skip`
/// (e.g. `.venv`, `checkpoints`, `target`) at any depth.
pub fn copy_tree(from: &Path, to: &Path, skip: &[&str]) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target, skip)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// A fresh copy of the reader's clone (book/) without any local state: no virtual
/// environment, no checkpoints, no caches. This is what a reader has right after cloning.
pub fn fresh_clone(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    copy_tree(&book_dir(), dir.path(), &[".venv", "checkpoints", "__pycache__", ".pytest_cache", "book"])
        .expect("copy book/ to a temp dir");
    dir
}
