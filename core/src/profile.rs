//! PROFILE.md: a lossless parser and printer.
