//! The answer-formula language of quiz.toml.
