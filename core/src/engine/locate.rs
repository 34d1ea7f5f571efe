//! Locate: which session is current, and why.
