//! Merging two PROGRESS.md logs without losing a line.
