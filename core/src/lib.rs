//! Bookside's core: everything the companion knows, as pure functions.
//!
//! This crate does not interact with the outside world and thus can't fail on I/O: no file
//! system, no clock, no randomness source, no network. Whatever changes over time (the text of a
//! file, `now`, a quiz seed) comes in as a parameter. It builds for `wasm32-unknown-unknown` and
//! natively, and both builds must give byte-identical answers.

pub mod book;
pub mod diag;
pub mod engine;
pub mod expr;
pub mod guide;
pub mod import;
pub mod logedit;
pub mod merge;
pub mod profile;
pub mod progress;
pub mod reading;
pub mod quiz;
pub mod render;
pub mod rng;
pub mod search;
pub mod sse;
pub mod wire;

pub use diag::Diagnostic;
