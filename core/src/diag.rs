//! Diagnostics: what a parser of hand-written text reports instead of failing.

use std::fmt;

/// One finding about a file the reader or the author wrote: where it is and what to do.
///
/// Parsers never fail on human-edited text; they return what they could read plus a list of
/// these. `line` is 1-based; 0 means "the file as a whole".
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl Diagnostic {
    pub fn new(file: impl Into<String>, line: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic { file: file.into(), line, message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}
