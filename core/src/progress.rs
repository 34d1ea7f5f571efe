//! PROGRESS.md: a lossless parser and printer, fmt.
