//! Review: a spaced-repetition queue (FSRS) of missed questions and sticking points.
