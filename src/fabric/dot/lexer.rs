//! The dot lexer: bytes to tokens over one refillable buffer read in large chunks
//! (tokens may straddle chunk boundaries), with ID text unescaped into a reused scratch
//! buffer, and the wording of tokens and bytes in messages.

use std::io::{BufRead, ErrorKind};

use super::{at_line, Failure};

/// Size of one read from the underlying reader.
pub(super) const CHUNK: usize = 1 << 20;

/// The kind of an ID token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IdKind {
    Plain,
    Numeral,
    Quoted,
    Html,
}

/// A token. The text of IDs (and keywords) is in [`Lexer::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok {
    Id(IdKind),
    Strict,
    Graph,
    Digraph,
    Node,
    Edge,
    Subgraph,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Eq,
    Semi,
    Comma,
    Colon,
    Arrow,
    Undirected,
    Eof,
}

/// True for bytes that may continue an unquoted ID.
#[inline]
fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// True for bytes that may start an unquoted ID.
#[inline]
fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// The keyword token for an unquoted ID, if it is one (case-insensitive).
fn keyword(t: &[u8]) -> Option<Tok> {
    const KEYWORDS: [(&[u8], Tok); 6] = [
        (b"strict", Tok::Strict),
        (b"graph", Tok::Graph),
        (b"digraph", Tok::Digraph),
        (b"node", Tok::Node),
        (b"edge", Tok::Edge),
        (b"subgraph", Tok::Subgraph),
    ];
    if !(4..=8).contains(&t.len()) {
        return None;
    }
    KEYWORDS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(t))
        .map(|&(_, tok)| tok)
}

/// The token of a one-byte punctuation mark, if `b` is one.
#[inline]
fn punctuation(b: u8) -> Option<Tok> {
    match b {
        b'{' => Some(Tok::LBrace),
        b'}' => Some(Tok::RBrace),
        b'[' => Some(Tok::LBracket),
        b']' => Some(Tok::RBracket),
        b'=' => Some(Tok::Eq),
        b';' => Some(Tok::Semi),
        b',' => Some(Tok::Comma),
        b':' => Some(Tok::Colon),
        _ => None,
    }
}

/// The error for a byte that starts no token.
#[cold]
fn unexpected_byte(c: u8, line: u32) -> Failure {
    if c == b'+' {
        return at_line(
            line,
            "expected an ID or punctuation, found `+` (`+` may only join two quoted strings)",
        );
    }
    at_line(
        line,
        format!(
            "expected an ID or punctuation, found unexpected character {}",
            describe_byte(Some(c))
        ),
    )
}

/// A short printable rendering of some input bytes for messages.
pub(super) fn shorten(text: &[u8]) -> String {
    const MAX: usize = 40;
    let s = String::from_utf8_lossy(text);
    if s.chars().count() <= MAX {
        s.into_owned()
    } else {
        let mut short: String = s.chars().take(MAX).collect();
        short.push('…');
        short
    }
}

/// How a byte reads in a message.
fn describe_byte(b: Option<u8>) -> String {
    match b {
        None => "end of input".to_string(),
        Some(b) if b.is_ascii_graphic() => format!("`{}`", b as char),
        Some(b' ') => "a space".to_string(),
        Some(b'\n') => "a line break".to_string(),
        Some(b) => format!("byte 0x{b:02x}"),
    }
}

/// How a token reads in a message.
pub(super) fn describe(tok: Tok, text: &[u8]) -> String {
    let fixed = match tok {
        Tok::Id(IdKind::Quoted) => return format!("`\"{}\"`", shorten(text)),
        Tok::Id(IdKind::Html) => return format!("`<{}>`", shorten(text)),
        Tok::Id(_)
        | Tok::Strict
        | Tok::Graph
        | Tok::Digraph
        | Tok::Node
        | Tok::Edge
        | Tok::Subgraph => return format!("`{}`", shorten(text)),
        Tok::LBrace => "`{`",
        Tok::RBrace => "`}`",
        Tok::LBracket => "`[`",
        Tok::RBracket => "`]`",
        Tok::Eq => "`=`",
        Tok::Semi => "`;`",
        Tok::Comma => "`,`",
        Tok::Colon => "`:`",
        Tok::Arrow => "`->`",
        Tok::Undirected => "`--`",
        Tok::Eof => "end of input",
    };
    fixed.to_string()
}

/// The byte-level lexer over a refillable buffer.
pub(super) struct Lexer<R> {
    rd: R,
    /// Read buffer; the unread input is `buf[pos..end]` (bytes past `end` are stale).
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Current 1-based line.
    line: u32,
    /// True when nothing but a line break precedes `pos` on its line (for `#` lines).
    line_start: bool,
    /// Text of the last ID or keyword token (quoted strings unescaped, HTML without `<>`).
    pub(super) text: Vec<u8>,
}

impl<R: BufRead> Lexer<R> {
    pub(super) fn new(rd: R) -> Self {
        Lexer {
            rd,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            line_start: true,
            text: Vec::new(),
        }
    }

    /// Makes at least `n` bytes available at `pos` unless the input ends first; returns how
    /// many are available.
    fn fill(&mut self, n: usize) -> Result<usize, Failure> {
        while self.end - self.pos < n && !self.eof {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
            }
            let want = CHUNK.max(n);
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
            match self.rd.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(at_line(self.line, format!("read error: {e}"))),
            }
        }
        Ok(self.end - self.pos)
    }

    /// The byte `k` positions ahead, if buffered (call [`Lexer::fill`] first).
    #[inline]
    fn at(&self, k: usize) -> Option<u8> {
        if self.pos + k < self.end {
            Some(self.buf[self.pos + k])
        } else {
            None
        }
    }

    /// The next byte, reading more input if needed.
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, Failure> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        self.fill(1)?;
        Ok(self.at(0))
    }

    /// The byte after the next one, reading more input if needed.
    #[inline]
    fn peek2(&mut self) -> Result<Option<u8>, Failure> {
        if self.end - self.pos < 2 {
            self.fill(2)?;
        }
        Ok(self.at(1))
    }

    fn new_line(&mut self) {
        self.line = self.line.saturating_add(1);
    }

    /// Skips a UTF-8 byte order mark at the very start of the input.
    pub(super) fn skip_bom(&mut self) -> Result<(), Failure> {
        self.fill(3)?;
        if self.at(0) == Some(0xef) && self.at(1) == Some(0xbb) && self.at(2) == Some(0xbf) {
            self.pos += 3;
        }
        Ok(())
    }

    /// Skips white space, `/* */` and `//` comments and `#` lines.
    fn skip_ws(&mut self) -> Result<(), Failure> {
        loop {
            let Some(b) = self.peek()? else {
                return Ok(());
            };
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.new_line();
                    self.line_start = true;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    self.line_start = false;
                }
                b'#' if self.line_start => self.skip_to_eol()?,
                b'/' => match self.peek2()? {
                    Some(b'*') => self.skip_block_comment()?,
                    Some(b'/') => self.skip_to_eol()?,
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Skips up to (not including) the next line break.
    fn skip_to_eol(&mut self) -> Result<(), Failure> {
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Ok(());
            }
            let chunk = &self.buf[self.pos..self.end];
            match chunk.iter().position(|&c| c == b'\n') {
                Some(i) => {
                    self.pos += i;
                    return Ok(());
                }
                None => self.pos = self.end,
            }
        }
    }

    /// Skips a `/* ... */` comment; `pos` is at the `/`.
    fn skip_block_comment(&mut self) -> Result<(), Failure> {
        let open = self.line;
        self.pos += 2;
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Err(at_line(
                    open,
                    "unterminated comment: expected `*/` to close the `/*` on this line, \
                     found end of input",
                ));
            }
            let chunk = &self.buf[self.pos..self.end];
            let i = chunk
                .iter()
                .position(|&c| c == b'*' || c == b'\n')
                .unwrap_or(chunk.len());
            self.pos += i;
            match self.at(0) {
                Some(b'\n') => {
                    self.new_line();
                    self.pos += 1;
                }
                Some(_) => {
                    if self.peek2()? == Some(b'/') {
                        self.pos += 2;
                        self.line_start = false;
                        return Ok(());
                    }
                    self.pos += 1;
                }
                None => {}
            }
        }
    }

    /// Lexes the next token; its 1-based starting line is returned with it.
    pub(super) fn next_token(&mut self) -> Result<(Tok, u32), Failure> {
        self.skip_ws()?;
        let line = self.line;
        self.line_start = false;
        self.text.clear();
        let Some(b) = self.peek()? else {
            return Ok((Tok::Eof, line));
        };
        if let Some(tok) = punctuation(b) {
            self.pos += 1;
            return Ok((tok, line));
        }
        let tok = match b {
            b'"' => {
                self.lex_quoted_concat()?;
                Tok::Id(IdKind::Quoted)
            }
            b'<' => {
                self.lex_html()?;
                Tok::Id(IdKind::Html)
            }
            b'-' => self.lex_after_dash(line)?,
            b'0'..=b'9' | b'.' => {
                self.lex_numeral()?;
                Tok::Id(IdKind::Numeral)
            }
            c if is_id_start(c) => {
                self.lex_ident()?;
                keyword(&self.text).unwrap_or(Tok::Id(IdKind::Plain))
            }
            c => return Err(unexpected_byte(c, line)),
        };
        Ok((tok, line))
    }

    /// Lexes what starts with `-` (at `pos`): `->`, `--`, or a negative numeral.
    #[inline]
    fn lex_after_dash(&mut self, line: u32) -> Result<Tok, Failure> {
        match self.peek2()? {
            Some(b'>') => {
                self.pos += 2;
                Ok(Tok::Arrow)
            }
            Some(b'-') => {
                self.pos += 2;
                Ok(Tok::Undirected)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                self.lex_numeral()?;
                Ok(Tok::Id(IdKind::Numeral))
            }
            c => Err(at_line(
                line,
                format!(
                    "expected `->` or a number after `-`, found {}",
                    describe_byte(c)
                ),
            )),
        }
    }

    /// Lexes an unquoted ID into `text`.
    fn lex_ident(&mut self) -> Result<(), Failure> {
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Ok(());
            }
            let chunk = &self.buf[self.pos..self.end];
            let n = chunk
                .iter()
                .position(|&c| !is_id_char(c))
                .unwrap_or(chunk.len());
            self.text.extend_from_slice(&chunk[..n]);
            self.pos += n;
            if self.pos < self.end {
                return Ok(());
            }
        }
    }

    /// Appends a run of ASCII digits to `text`; returns how many.
    fn take_digits(&mut self) -> Result<usize, Failure> {
        let mut count = 0;
        while let Some(c) = self.peek()? {
            if !c.is_ascii_digit() {
                break;
            }
            self.text.push(c);
            self.pos += 1;
            count += 1;
        }
        Ok(count)
    }

    /// Lexes a numeral `-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)` into `text`.
    fn lex_numeral(&mut self) -> Result<(), Failure> {
        if self.peek()? == Some(b'-') {
            self.text.push(b'-');
            self.pos += 1;
        }
        let int_digits = self.take_digits()?;
        if self.peek()? == Some(b'.') {
            self.text.push(b'.');
            self.pos += 1;
            let frac_digits = self.take_digits()?;
            if int_digits == 0 && frac_digits == 0 {
                let found = describe_byte(self.peek()?);
                return Err(at_line(
                    self.line,
                    format!(
                        "expected a digit after `{}`, found {found}",
                        shorten(&self.text)
                    ),
                ));
            }
        }
        match self.peek()? {
            Some(c) if is_id_char(c) || c == b'.' => Err(at_line(
                self.line,
                format!(
                    "numeral `{}` is immediately followed by `{}`: expected a separator \
                     after the number (quote the ID if it is meant as one name)",
                    shorten(&self.text),
                    String::from_utf8_lossy(&[c])
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Lexes an HTML string `<...>` (nested `<>` allowed) into `text`, without the outer
    /// brackets.
    fn lex_html(&mut self) -> Result<(), Failure> {
        let open = self.line;
        self.pos += 1;
        let mut depth = 1usize;
        loop {
            let Some(c) = self.peek()? else {
                return Err(at_line(
                    open,
                    "unterminated HTML string: expected `>` to close the `<` on this line, \
                     found end of input",
                ));
            };
            self.pos += 1;
            match c {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                b'\n' => self.new_line(),
                _ => {}
            }
            self.text.push(c);
        }
    }

    /// Lexes one or more quoted strings joined by `+` into `text`.
    fn lex_quoted_concat(&mut self) -> Result<(), Failure> {
        self.lex_quoted()?;
        loop {
            self.skip_ws()?;
            if self.peek()? != Some(b'+') {
                return Ok(());
            }
            self.pos += 1;
            self.line_start = false;
            self.skip_ws()?;
            match self.peek()? {
                Some(b'"') => self.lex_quoted()?,
                c => {
                    return Err(at_line(
                        self.line,
                        format!(
                            "expected a quoted string after `+`, found {}",
                            describe_byte(c)
                        ),
                    ))
                }
            }
        }
    }

    /// Lexes one quoted string (`pos` at the opening quote), appending its unescaped
    /// content to `text`: `\"` becomes `"`, a backslash before a line break (LF or CRLF)
    /// is dropped with the line break, `\\` stays as is, every other backslash is kept.
    fn lex_quoted(&mut self) -> Result<(), Failure> {
        let open = self.line;
        self.pos += 1;
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Err(at_line(
                    open,
                    "unterminated quoted string: expected a closing `\"` for the string \
                     opened on this line, found end of input",
                ));
            }
            let chunk = &self.buf[self.pos..self.end];
            // Routing comments are long quoted strings: a vectorised search, not a byte loop.
            let n = memchr::memchr3(b'"', b'\\', b'\n', chunk).unwrap_or(chunk.len());
            self.text.extend_from_slice(&chunk[..n]);
            self.pos += n;
            match self.at(0) {
                None => {}
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\n') => {
                    self.text.push(b'\n');
                    self.new_line();
                    self.pos += 1;
                }
                Some(_) => {
                    // A backslash: look at what follows.
                    self.fill(3)?;
                    match (self.at(1), self.at(2)) {
                        (Some(b'"'), _) => {
                            self.text.push(b'"');
                            self.pos += 2;
                        }
                        (Some(b'\\'), _) => {
                            self.text.extend_from_slice(b"\\\\");
                            self.pos += 2;
                        }
                        (Some(b'\n'), _) => {
                            self.new_line();
                            self.pos += 2;
                        }
                        (Some(b'\r'), Some(b'\n')) => {
                            self.new_line();
                            self.pos += 3;
                        }
                        _ => {
                            self.text.push(b'\\');
                            self.pos += 1;
                        }
                    }
                }
            }
        }
    }
}
