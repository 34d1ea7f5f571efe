//! The Session Guide: cards, hint ladders and their diagnostics.
