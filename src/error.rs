//! The error type of every parser: which input, where in it, and what was expected.
//!
//! Every reader of orcs (dot, InfiniBand dumps, traffic matrices, GraphML, scenarios,
//! plans, parameter files, result documents) reports a bad input as a [`LocatedError`],
//! so that a user always reads `file:line: what was expected` (or `file:line:column:`,
//! or `file: byte N:` for binary files) and tools can pick the position apart. Folders
//! wrap it in their own `thiserror` enums next to their non-input failures.

use std::fmt;

/// A problem found in an input: the file, the position when known, and the message.
///
/// Displays as `path:line:column: message`, `path:line: message`,
/// `path: byte N: message` or `path: message`, whichever position is known; an empty
/// `path` (the message names its files itself) displays the message alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LocatedError {
    /// The input as the user named it (`-` for standard input, `archive:member` for a
    /// member of an archive), or empty when the message names its inputs itself.
    pub path: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u32>,
    /// 1-based column within the line, when known.
    pub column: Option<u32>,
    /// Byte offset from the start of the input, for inputs without lines.
    pub byte: Option<u64>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl LocatedError {
    /// An error about the input `path` as a whole.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        LocatedError {
            path: path.into(),
            line: None,
            column: None,
            byte: None,
            message: message.into(),
        }
    }

    /// An error at the 1-based `line` of `path`; line 0 means "the file as a whole".
    pub(crate) fn at_line(path: impl Into<String>, line: u32, message: impl Into<String>) -> Self {
        let mut e = LocatedError::new(path, message);
        e.line = (line > 0).then_some(line);
        e
    }

    /// An error at `line` when it is known.
    pub fn at(path: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        LocatedError::at_line(path, line.unwrap_or(0), message)
    }

    /// An error at byte offset `byte` of a binary input.
    pub fn at_byte(path: impl Into<String>, byte: u64, message: impl Into<String>) -> Self {
        let mut e = LocatedError::new(path, message);
        e.byte = Some(byte);
        e
    }

    /// The same error with a 1-based column within its line.
    pub fn with_column(mut self, column: u32) -> Self {
        self.column = (column > 0).then_some(column);
        self
    }

    /// The same error named after `path` (for parsers that do not know their file's name).
    pub(crate) fn in_file(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
}

impl fmt::Display for LocatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            return f.write_str(&self.message);
        }
        f.write_str(&self.path)?;
        match (self.line, self.column, self.byte) {
            (Some(line), Some(column), _) => write!(f, ":{line}:{column}")?,
            (Some(line), None, _) => write!(f, ":{line}")?,
            (None, _, Some(byte)) => write!(f, ": byte {byte}")?,
            (None, _, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_the_known_position() {
        let whole = LocatedError::new("f.dot", "empty");
        assert_eq!(whole.to_string(), "f.dot: empty");
        let line = LocatedError::at_line("f.dot", 7, "expected ';'");
        assert_eq!(line.to_string(), "f.dot:7: expected ';'");
        assert_eq!(
            line.clone().with_column(3).to_string(),
            "f.dot:7:3: expected ';'"
        );
        assert_eq!(LocatedError::at_line("f", 0, "m").to_string(), "f: m");
        assert_eq!(
            LocatedError::at_byte("f.orcsfab", 4096, "bad checksum").to_string(),
            "f.orcsfab: byte 4096: bad checksum"
        );
        assert_eq!(
            LocatedError::new("", "a and b differ").to_string(),
            "a and b differ"
        );
        assert_eq!(
            LocatedError::at_line("x", 2, "m").in_file("y").to_string(),
            "y:2: m"
        );
    }
}
