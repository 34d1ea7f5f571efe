//! The quiz bank (quiz.toml): generating and grading quizzes from a seed.
