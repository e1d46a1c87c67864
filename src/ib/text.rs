//! The line-level reading shared by the InfiniBand text parsers: a reused line buffer,
//! a byte cursor over one line, blanks and hex/C-style numbers, and the excerpts and
//! [`LocatedError`]s their messages are made of.
//!
//! Every parser of this folder reads its input one line at a time through
//! [`LineReader`] and reports problems with [`perr`] (an error at a 1-based line, without
//! a file name: the caller names the file with [`LocatedError::in_file`]).

use std::io::BufRead;

use crate::error::LocatedError;
use crate::ib::NodeKind;

/// Reads a byte stream line by line into one reused buffer.
pub(super) struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    line: u32,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps a reader; the first line is line 1.
    pub(super) fn new(reader: R) -> Self {
        LineReader {
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
        }
    }

    /// The next line without its `\n`/`\r\n`, with its 1-based number; `None` at the end.
    pub(super) fn next_line(&mut self) -> Result<Option<(u32, &[u8])>, LocatedError> {
        self.buf.clear();
        let next = self.line.saturating_add(1);
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| perr(next, format!("cannot read the input: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        self.line = next;
        let mut text: &[u8] = &self.buf;
        if let Some(t) = text.strip_suffix(b"\n") {
            text = t;
        }
        if let Some(t) = text.strip_suffix(b"\r") {
            text = t;
        }
        Ok(Some((self.line, text)))
    }
}

/// An error at the 1-based `line` of the input (0: the input as a whole), named after
/// no file yet.
pub(super) fn perr(line: u32, message: impl Into<String>) -> LocatedError {
    LocatedError::at_line("", line, message)
}

/// Whether `b` is a blank (space or tab).
pub(super) fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` without leading and trailing blanks.
pub(super) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_ws(b)).map_or(start, |i| i + 1);
    s.get(start..end).unwrap_or(&[])
}

/// A short, escaped rendering of input bytes for error messages: `` `text` `` (cut after
/// 60 bytes), or "the end of the line".
pub(super) fn excerpt(s: &[u8]) -> String {
    if s.is_empty() {
        return "the end of the line".to_string();
    }
    const MAX: usize = 60;
    let shown = s.get(..MAX).unwrap_or(s);
    let more = if s.len() > MAX { "…" } else { "" };
    format!("`{}{more}`", shown.escape_ascii())
}

/// The ibnetdiscover id of a node, e.g. `"S-0000000000200000"` (with the quotes).
pub(super) fn node_id(kind: NodeKind, guid: u64) -> String {
    let letter = match kind {
        NodeKind::Switch => 'S',
        NodeKind::Ca => 'H',
        NodeKind::Router => 'R',
    };
    format!("\"{letter}-{guid:016x}\"")
}

/// A byte cursor over one line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cur<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    /// A cursor at the start of `s`.
    pub(super) fn new(s: &'a [u8]) -> Self {
        Cur { s, pos: 0 }
    }

    /// The unread bytes.
    pub(super) fn rest(&self) -> &'a [u8] {
        self.s.get(self.pos..).unwrap_or(&[])
    }

    /// Whether everything was read.
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    /// The next byte, if any.
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// Skips `n` bytes (clamped to the end).
    pub(super) fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n).min(self.s.len());
    }

    /// Consumes `b` if it is next.
    pub(super) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `lit` if the rest starts with it.
    pub(super) fn eat_lit(&mut self, lit: &[u8]) -> bool {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Skips blanks; whether there were any.
    pub(super) fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// Consumes bytes while `f` holds and returns them.
    pub(super) fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        self.s.get(start..self.pos).unwrap_or(&[])
    }

    /// A decimal number (at least one digit); `None` without digits or above `u64::MAX`.
    pub(super) fn dec(&mut self) -> Option<u64> {
        let digits = self.take_while(|b| b.is_ascii_digit());
        if digits.is_empty() {
            return None;
        }
        digits.iter().try_fold(0u64, |acc, &d| {
            acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    }

    /// A hexadecimal number of 1 to 16 digits (either case); `None` otherwise.
    pub(super) fn hex(&mut self) -> Option<u64> {
        let digits = self.take_while(|b| b.is_ascii_hexdigit());
        parse_hex(digits)
    }
}

/// Parses 1 to 16 hex digits (leading zeros beyond 16 digits are accepted).
pub(super) fn parse_hex(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    let significant = digits
        .iter()
        .position(|&b| b != b'0')
        .map_or(&digits[digits.len() - 1..], |i| &digits[i..]);
    if significant.len() > 16 {
        return None;
    }
    significant.iter().try_fold(0u64, |acc, &d| {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        Some((acc << 4) | u64::from(v))
    })
}

/// Why [`c_integer`] found no number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CNumberError {
    /// No digits where the number should start.
    NoDigits,
    /// The value does not fit in 64 bits.
    Overflow,
}

/// Reads an unsigned integer the way C's `strtoull(s, &end, 0)` does: leading blanks, an
/// optional `+`, then `0x`/`0X` and hex digits, or a `0` and octal digits, or decimal
/// digits. Returns the value and the number of bytes read (text after the number is left
/// to the caller). Unlike C, a value that does not fit and a missing number are errors
/// rather than `ULLONG_MAX` and 0. `O(len)`.
pub(super) fn c_integer(s: &[u8]) -> Result<(u64, usize), CNumberError> {
    let mut i = s
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .unwrap_or(s.len());
    if s.get(i) == Some(&b'+') {
        i += 1;
    }
    let hex_prefix = s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let (radix, start) = if hex_prefix {
        (16, i + 2)
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut value: u64 = 0;
    let mut end = start;
    while let Some(d) = s.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(CNumberError::Overflow)?;
        end += 1;
    }
    if end == start {
        return Err(CNumberError::NoDigits);
    }
    Ok((value, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(parse_hex(b"00000000000000000001"), Some(1));
        assert_eq!(parse_hex(b"10000000000000000"), None);
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_hex(b"0"), Some(0));
        assert_eq!(parse_hex(b""), None);
        assert_eq!(trim(b" \t x y \t"), b"x y");
        assert_eq!(trim(b" \t "), b"");
        assert_eq!(excerpt(b""), "the end of the line");
        assert_eq!(excerpt(b"a\tb"), "`a\\tb`");
        assert!(excerpt(&[b'x'; 100]).ends_with("…`"));
        assert_eq!(Cur::new(b"18446744073709551616").dec(), None);
        assert_eq!(perr(3, "m").to_string(), "m");
        assert_eq!(perr(3, "m").in_file("f").to_string(), "f:3: m");
        assert_eq!(perr(0, "m").in_file("f").to_string(), "f: m");
    }
}
