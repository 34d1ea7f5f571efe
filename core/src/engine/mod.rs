//! The session engine: the tutor's contract as pure functions over guide, log and profile.

pub mod gates;
pub mod hour;
pub mod ladder;
pub mod locate;
pub mod remediation;
pub mod review;
