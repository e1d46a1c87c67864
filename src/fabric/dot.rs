//! Graphviz dot reader: owns the streaming lexer and parser that turn a routed `digraph`
//! in the dot language into a [`DotGraph`] (nodes in order of first appearance, edges in
//! creation order, attributes after graphviz-style defaults, and each edge's `comment` list
//! split into interned symbols), reporting problems as line-numbered [`DotError`]s.
//!
//! The reader is hand-written for speed: a byte-level lexer reads the input in large chunks
//! into one refillable buffer (tokens may straddle chunk boundaries), ID text is copied into
//! a reused scratch buffer, node names and comment tokens are interned straight from that
//! buffer (a new allocation only for a name not seen before), and attribute lists are kept
//! in small vectors rather than per-edge maps.
//!
//! Complexity: time is linear in the input size (every byte is looked at a bounded number
//! of times; interning is one hash lookup per name) plus the number of edges created (a
//! statement `{a b} -> {c d}` creates the product). Two mild exceptions that do not occur
//! in real inputs: setting `k` distinct names in one attribute list costs `O(k²)`, and a
//! node named inside `d` nested subgraphs (`d` ≤ 200) is copied into each enclosing
//! subgraph's node set. Memory is `O(nodes + edges + comment tokens + distinct symbols)`
//! plus a fixed 1 MiB read buffer and the largest single token.

use std::collections::hash_map::Entry;
use std::io::{BufRead, ErrorKind};

use rustc_hash::FxHashMap;

/// Size of one read from the underlying reader.
const CHUNK: usize = 1 << 20;
/// Deepest subgraph nesting accepted (keeps the recursive parser's stack bounded).
const MAX_DEPTH: usize = 200;
/// Marker for "this symbol is not a node" in the symbol → node map.
const NO_NODE: u32 = u32::MAX;

/// An interner mapping strings to dense `u32` ids (`0, 1, 2, …` in order of first use).
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    map: FxHashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl SymbolTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it if it is new. Allocates only when `s` is new.
    ///
    /// # Panics
    /// If the table would hold more than `u32::MAX` symbols.
    pub fn intern(&mut self, s: &str) -> u32 {
        match self.try_intern(s) {
            Some(id) => id,
            None => panic!("symbol table overflow: more than u32::MAX symbols"),
        }
    }

    /// Like [`SymbolTable::intern`], but `None` instead of a panic on overflow.
    fn try_intern(&mut self, s: &str) -> Option<u32> {
        if let Some(&id) = self.map.get(s) {
            return Some(id);
        }
        let id = u32::try_from(self.names.len())
            .ok()
            .filter(|&id| id != u32::MAX)?;
        let name: Box<str> = s.into();
        self.names.push(name.clone());
        self.map.insert(name, id);
        Some(id)
    }

    /// The id of `s`, if it has been interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }

    /// The string with id `id`.
    ///
    /// # Panics
    /// If `id` was not returned by this table.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Number of distinct symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True if no symbol has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// An edge's `comment` attribute, as ORCS reads it (the routing information).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comment {
    /// The edge has no `comment` attribute (neither its own nor a default).
    Absent,
    /// The value is exactly `*`.
    All,
    /// The value split into tokens: the range `start..end` of [`DotGraph::comment_tokens`].
    Tokens {
        /// First token (index into [`DotGraph::comment_tokens`]).
        start: u32,
        /// One past the last token.
        end: u32,
    },
}

/// A node of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotNode {
    /// The node's name as a symbol of [`DotGraph::symbols`].
    pub symbol: u32,
    /// 1-based line of the node's first mention.
    pub line: u32,
    /// Attributes: node defaults in effect at creation, then the node statements' own,
    /// in first-set order (a later value for the same name replaces the earlier one).
    pub attrs: Vec<(String, String)>,
}

/// A directed edge of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotEdge {
    /// Tail node: index into [`DotGraph::nodes`].
    pub tail: u32,
    /// Head node: index into [`DotGraph::nodes`].
    pub head: u32,
    /// 1-based line where this edge's head appears (for a subgraph head, the line of the
    /// subgraph's opening brace).
    pub line: u32,
    /// The `key` attribute (after defaults), if any.
    pub key: Option<String>,
    /// The `comment` attribute (after defaults), tokenized.
    pub comment: Comment,
    /// Every other attribute (after defaults), in first-set order.
    pub attrs: Vec<(String, String)>,
}

/// A parsed dot digraph.
#[derive(Debug, Clone, Default)]
pub struct DotGraph {
    /// True for a `strict digraph` (repeated edges merge).
    pub strict: bool,
    /// The graph's ID, if it has one.
    pub id: Option<String>,
    /// Interned node names and comment tokens (one shared table, so a host named in a
    /// comment has the same symbol as the host node).
    pub symbols: SymbolTable,
    /// Nodes in order of first appearance.
    pub nodes: Vec<DotNode>,
    /// Edges in creation order.
    pub edges: Vec<DotEdge>,
    /// Comment tokens as symbol ids; [`Comment::Tokens`] is a range of this.
    pub comment_tokens: Vec<u32>,
    /// Top-level `graph [...]` and `ID = ID` attributes, in first-set order.
    pub graph_attrs: Vec<(String, String)>,
    /// True if any edge got a `comment` attribute (its own or a default).
    pub comment_declared: bool,
}

impl DotGraph {
    /// The comment tokens (symbol ids) of `e`; empty unless its comment is
    /// [`Comment::Tokens`].
    pub fn comment_tokens(&self, e: &DotEdge) -> &[u32] {
        match e.comment {
            Comment::Tokens { start, end } => self
                .comment_tokens
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The name of node `node` (an index into [`DotGraph::nodes`]).
    ///
    /// # Panics
    /// If `node` is out of range.
    pub fn node_name(&self, node: u32) -> &str {
        self.symbols.name(self.nodes[node as usize].symbol)
    }
}

/// A dot syntax or semantic error, or a read error, with the 1-based line it happened on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct DotError {
    /// 1-based input line.
    pub line: u32,
    /// What was expected and what was found.
    pub message: String,
}

impl DotError {
    fn new(line: u32, message: impl Into<String>) -> Self {
        DotError {
            line,
            message: message.into(),
        }
    }
}

/// Parses a dot digraph from `reader`, reading it in large chunks.
///
/// Accepts `[strict] digraph [ID] { ... }` with node, edge (chains and subgraph operands),
/// attribute, `ID = ID` and subgraph statements.
///
/// ```
/// use orcs::fabric::dot::{parse_dot_str, Comment};
///
/// let g = parse_dot_str("digraph { H0 -> S0 [key=1, comment=\"*\"]; S0 -> H0 [comment=\"H0\"] }")?;
/// assert_eq!(g.node_name(g.edges[0].tail), "H0");
/// assert_eq!(g.edges[0].comment, Comment::All);
/// assert_eq!(g.comment_tokens(&g.edges[1]), [g.nodes[0].symbol]);
/// # Ok::<(), orcs::fabric::dot::DotError>(())
/// ```
///
/// # Errors
/// A [`DotError`] with the line for: syntax errors (saying what was expected and what was
/// found), an undirected `graph` or a `--` edge, input after the closing `}`, a repeated
/// `(tail, head, key)` in a non-strict graph, invalid UTF-8 in an ID, and read errors.
pub fn parse_dot<R: BufRead>(reader: R) -> Result<DotGraph, DotError> {
    Parser::new(reader).parse_graph()
}

/// Parses a dot digraph held in memory; see [`parse_dot`].
///
/// # Errors
/// As [`parse_dot`] (without read errors).
pub fn parse_dot_str(text: &str) -> Result<DotGraph, DotError> {
    parse_dot(text.as_bytes())
}

// ---------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------

/// The kind of an ID token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdKind {
    Plain,
    Numeral,
    Quoted,
    Html,
}

/// A token. The text of IDs (and keywords) is in [`Lexer::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
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

/// A short printable rendering of some input bytes for messages.
fn shorten(text: &[u8]) -> String {
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
fn describe(tok: Tok, text: &[u8]) -> String {
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
struct Lexer<R> {
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
    text: Vec<u8>,
}

impl<R: BufRead> Lexer<R> {
    fn new(rd: R) -> Self {
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
    fn fill(&mut self, n: usize) -> Result<usize, DotError> {
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
                Err(e) => return Err(DotError::new(self.line, format!("read error: {e}"))),
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
    fn peek(&mut self) -> Result<Option<u8>, DotError> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        self.fill(1)?;
        Ok(self.at(0))
    }

    /// The byte after the next one, reading more input if needed.
    #[inline]
    fn peek2(&mut self) -> Result<Option<u8>, DotError> {
        if self.end - self.pos < 2 {
            self.fill(2)?;
        }
        Ok(self.at(1))
    }

    fn new_line(&mut self) {
        self.line = self.line.saturating_add(1);
    }

    /// Skips a UTF-8 byte order mark at the very start of the input.
    fn skip_bom(&mut self) -> Result<(), DotError> {
        self.fill(3)?;
        if self.at(0) == Some(0xef) && self.at(1) == Some(0xbb) && self.at(2) == Some(0xbf) {
            self.pos += 3;
        }
        Ok(())
    }

    /// Skips white space, `/* */` and `//` comments and `#` lines.
    fn skip_ws(&mut self) -> Result<(), DotError> {
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
    fn skip_to_eol(&mut self) -> Result<(), DotError> {
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
    fn skip_block_comment(&mut self) -> Result<(), DotError> {
        let open = self.line;
        self.pos += 2;
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Err(DotError::new(
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
    fn next_token(&mut self) -> Result<(Tok, u32), DotError> {
        self.skip_ws()?;
        let line = self.line;
        self.line_start = false;
        self.text.clear();
        let Some(b) = self.peek()? else {
            return Ok((Tok::Eof, line));
        };
        let single = match b {
            b'{' => Some(Tok::LBrace),
            b'}' => Some(Tok::RBrace),
            b'[' => Some(Tok::LBracket),
            b']' => Some(Tok::RBracket),
            b'=' => Some(Tok::Eq),
            b';' => Some(Tok::Semi),
            b',' => Some(Tok::Comma),
            b':' => Some(Tok::Colon),
            _ => None,
        };
        if let Some(tok) = single {
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
            b'-' => match self.peek2()? {
                Some(b'>') => {
                    self.pos += 2;
                    Tok::Arrow
                }
                Some(b'-') => {
                    self.pos += 2;
                    Tok::Undirected
                }
                Some(c) if c.is_ascii_digit() || c == b'.' => {
                    self.lex_numeral()?;
                    Tok::Id(IdKind::Numeral)
                }
                c => {
                    return Err(DotError::new(
                        line,
                        format!(
                            "expected `->` or a number after `-`, found {}",
                            describe_byte(c)
                        ),
                    ))
                }
            },
            b'0'..=b'9' | b'.' => {
                self.lex_numeral()?;
                Tok::Id(IdKind::Numeral)
            }
            c if is_id_start(c) => {
                self.lex_ident()?;
                keyword(&self.text).unwrap_or(Tok::Id(IdKind::Plain))
            }
            b'+' => {
                return Err(DotError::new(
                    line,
                    "expected an ID or punctuation, found `+` (`+` may only join two quoted \
                     strings)",
                ))
            }
            c => {
                return Err(DotError::new(
                    line,
                    format!(
                        "expected an ID or punctuation, found unexpected character {}",
                        describe_byte(Some(c))
                    ),
                ))
            }
        };
        Ok((tok, line))
    }

    /// Lexes an unquoted ID into `text`.
    fn lex_ident(&mut self) -> Result<(), DotError> {
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
    fn take_digits(&mut self) -> Result<usize, DotError> {
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
    fn lex_numeral(&mut self) -> Result<(), DotError> {
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
                return Err(DotError::new(
                    self.line,
                    format!(
                        "expected a digit after `{}`, found {found}",
                        shorten(&self.text)
                    ),
                ));
            }
        }
        match self.peek()? {
            Some(c) if is_id_char(c) || c == b'.' => Err(DotError::new(
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
    fn lex_html(&mut self) -> Result<(), DotError> {
        let open = self.line;
        self.pos += 1;
        let mut depth = 1usize;
        loop {
            let Some(c) = self.peek()? else {
                return Err(DotError::new(
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
    fn lex_quoted_concat(&mut self) -> Result<(), DotError> {
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
                    return Err(DotError::new(
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
    fn lex_quoted(&mut self) -> Result<(), DotError> {
        let open = self.line;
        self.pos += 1;
        loop {
            if self.pos == self.end && self.fill(1)? == 0 {
                return Err(DotError::new(
                    open,
                    "unterminated quoted string: expected a closing `\"` for the string \
                     opened on this line, found end of input",
                ));
            }
            let chunk = &self.buf[self.pos..self.end];
            let n = chunk
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c == b'\n')
                .unwrap_or(chunk.len());
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

// ---------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------

/// Edge attributes as parsed from lists or held as defaults.
#[derive(Debug, Clone, Default)]
struct EdgeAttrs {
    key: Option<String>,
    comment: Option<Comment>,
    other: Vec<(String, String)>,
}

/// Attribute defaults of one scope (the graph or a subgraph).
#[derive(Debug, Clone, Default)]
struct Scope {
    node: Vec<(String, String)>,
    edge: EdgeAttrs,
}

/// One operand of an edge statement: `nodes[start..end]` of the statement, and the line
/// used for edges whose head it is.
#[derive(Debug, Clone, Copy)]
struct Operand {
    start: usize,
    end: usize,
    line: u32,
}

/// Sets `name` to `value` in an attribute list, keeping the position of an earlier value.
fn set_attr(list: &mut Vec<(String, String)>, name: &str, value: String) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = value,
        None => list.push((name.to_string(), value)),
    }
}

/// True for comment token separators.
#[inline]
fn is_comment_sep(c: u8) -> bool {
    matches!(c, b',' | b' ' | b'\t' | b'\n' | b'\r')
}

/// Splits a `comment` value into interned tokens appended to `tokens`.
fn tokenize_comment(
    symbols: &mut SymbolTable,
    tokens: &mut Vec<u32>,
    value: &[u8],
) -> Result<Comment, &'static str> {
    if value == b"*" {
        return Ok(Comment::All);
    }
    let text = std::str::from_utf8(value).map_err(|_| "invalid UTF-8 in `comment` value")?;
    let start = u32::try_from(tokens.len()).map_err(|_| "too many comment tokens")?;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && is_comment_sep(bytes[i]) {
            i += 1;
        }
        let s = i;
        while i < bytes.len() && !is_comment_sep(bytes[i]) {
            i += 1;
        }
        if s < i {
            // Separators are ASCII, so `s..i` lies on character boundaries.
            let tok = text.get(s..i).ok_or("invalid UTF-8 in `comment` value")?;
            let id = symbols.try_intern(tok).ok_or("too many symbols")?;
            tokens.push(id);
        }
    }
    let end = u32::try_from(tokens.len()).map_err(|_| "too many comment tokens")?;
    Ok(Comment::Tokens { start, end })
}

/// An owned string from ID bytes.
fn utf8_string(bytes: &[u8], line: u32) -> Result<String, DotError> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| DotError::new(line, "invalid UTF-8 in an ID"))
}

/// The recursive-descent parser with one token of lookahead.
struct Parser<R> {
    lex: Lexer<R>,
    /// Current (lookahead) token and its line.
    tok: Tok,
    line: u32,
    /// Text of an earlier ID kept while looking at the token after it.
    held: Vec<u8>,
    g: DotGraph,
    /// Symbol → node index, or [`NO_NODE`].
    node_of_sym: Vec<u32>,
    /// Defaults of the innermost open scope.
    scope: Scope,
    /// Node mentions of each open subgraph, innermost last.
    collectors: Vec<Vec<u32>>,
    /// Strict graphs: (tail, head) → edge index.
    strict_edges: FxHashMap<(u32, u32), u32>,
    /// Non-strict graphs: interned keys, and (tail, head, key) → edge index.
    keys: SymbolTable,
    keyed_edges: FxHashMap<(u32, u32, u32), u32>,
    /// Reusable vectors for edge statements.
    node_pool: Vec<Vec<u32>>,
    op_pool: Vec<Vec<Operand>>,
}

impl<R: BufRead> Parser<R> {
    fn new(rd: R) -> Self {
        Parser {
            lex: Lexer::new(rd),
            tok: Tok::Eof,
            line: 1,
            held: Vec::new(),
            g: DotGraph::default(),
            node_of_sym: Vec::new(),
            scope: Scope::default(),
            collectors: Vec::new(),
            strict_edges: FxHashMap::default(),
            keys: SymbolTable::new(),
            keyed_edges: FxHashMap::default(),
            node_pool: Vec::new(),
            op_pool: Vec::new(),
        }
    }

    fn advance(&mut self) -> Result<(), DotError> {
        let (tok, line) = self.lex.next_token()?;
        self.tok = tok;
        self.line = line;
        Ok(())
    }

    fn err(&self, message: impl Into<String>) -> DotError {
        DotError::new(self.line, message)
    }

    /// "expected {what}, found {current token}".
    fn expected(&self, what: &str) -> DotError {
        self.err(format!(
            "expected {what}, found {}",
            describe(self.tok, &self.lex.text)
        ))
    }

    fn is_id(&self) -> bool {
        matches!(self.tok, Tok::Id(_))
    }

    fn parse_graph(mut self) -> Result<DotGraph, DotError> {
        self.lex.skip_bom()?;
        self.advance()?;
        if self.tok == Tok::Strict {
            self.g.strict = true;
            self.advance()?;
        }
        match self.tok {
            Tok::Digraph => {}
            Tok::Graph => {
                return Err(self.err(format!(
                    "expected `digraph`, found `{}`: undirected graphs are not supported",
                    shorten(&self.lex.text)
                )))
            }
            _ if self.g.strict => return Err(self.expected("`digraph` after `strict`")),
            _ => return Err(self.expected("`digraph` or `strict digraph`")),
        }
        self.advance()?;
        if self.is_id() {
            self.g.id = Some(utf8_string(&self.lex.text, self.line)?);
            self.advance()?;
        }
        if self.tok != Tok::LBrace {
            return Err(self.expected("`{` to open the graph body"));
        }
        let open = self.line;
        self.advance()?;
        self.parse_stmt_list(open)?;
        self.advance()?;
        if self.tok != Tok::Eof {
            return Err(self.expected("end of input after the closing `}` of the graph"));
        }
        Ok(self.g)
    }

    /// Parses statements up to the `}` closing a body opened on line `open`; returns with
    /// that `}` as the current token.
    fn parse_stmt_list(&mut self, open: u32) -> Result<(), DotError> {
        loop {
            match self.tok {
                Tok::RBrace => return Ok(()),
                Tok::Eof => {
                    return Err(self.err(format!(
                        "expected `}}` to close the `{{` opened at line {open}, found end \
                         of input"
                    )))
                }
                Tok::Semi => self.advance()?,
                _ => {
                    self.parse_stmt()?;
                    if self.tok == Tok::Semi {
                        self.advance()?;
                    }
                }
            }
        }
    }

    fn parse_stmt(&mut self) -> Result<(), DotError> {
        match self.tok {
            Tok::Graph => {
                self.advance()?;
                let mut attrs = Vec::new();
                self.parse_attr_lists(None, &mut attrs, Some("graph"))?;
                if self.collectors.is_empty() {
                    for (n, v) in attrs {
                        set_attr(&mut self.g.graph_attrs, &n, v);
                    }
                }
                Ok(())
            }
            Tok::Node => {
                self.advance()?;
                let mut attrs = Vec::new();
                self.parse_attr_lists(None, &mut attrs, Some("node"))?;
                for (n, v) in attrs {
                    set_attr(&mut self.scope.node, &n, v);
                }
                Ok(())
            }
            Tok::Edge => {
                self.advance()?;
                let mut attrs = EdgeAttrs::default();
                self.parse_attr_lists(Some(&mut attrs), &mut Vec::new(), Some("edge"))?;
                let defaults = &mut self.scope.edge;
                if attrs.key.is_some() {
                    defaults.key = attrs.key;
                }
                if attrs.comment.is_some() {
                    defaults.comment = attrs.comment;
                }
                for (n, v) in attrs.other {
                    set_attr(&mut defaults.other, &n, v);
                }
                Ok(())
            }
            Tok::Subgraph | Tok::LBrace => {
                let (nodes, line) = self.parse_subgraph()?;
                if matches!(self.tok, Tok::Arrow | Tok::Undirected) {
                    self.parse_edge_stmt(nodes, line)
                } else {
                    self.recycle_nodes(nodes);
                    Ok(())
                }
            }
            Tok::Id(_) => {
                std::mem::swap(&mut self.lex.text, &mut self.held);
                let line = self.line;
                self.advance()?;
                if self.tok == Tok::Eq {
                    self.advance()?;
                    if !self.is_id() {
                        return Err(self.expected("an ID after `=`"));
                    }
                    if self.collectors.is_empty() {
                        let name = utf8_string(&self.held, line)?;
                        let value = utf8_string(&self.lex.text, self.line)?;
                        set_attr(&mut self.g.graph_attrs, &name, value);
                    }
                    return self.advance();
                }
                let node = self.mention_node(true, line)?;
                self.parse_port()?;
                if matches!(self.tok, Tok::Arrow | Tok::Undirected) {
                    let mut stmt_nodes = self.take_nodes();
                    stmt_nodes.push(node);
                    return self.parse_edge_stmt(stmt_nodes, line);
                }
                let mut attrs = Vec::new();
                self.parse_attr_lists(None, &mut attrs, None)?;
                if let Some(n) = self.g.nodes.get_mut(node as usize) {
                    for (name, value) in attrs {
                        set_attr(&mut n.attrs, &name, value);
                    }
                }
                Ok(())
            }
            _ => Err(self.expected("a statement or `}`")),
        }
    }

    fn take_nodes(&mut self) -> Vec<u32> {
        self.node_pool.pop().unwrap_or_default()
    }

    fn recycle_nodes(&mut self, mut v: Vec<u32>) {
        v.clear();
        self.node_pool.push(v);
    }

    /// Skips an optional `:port[:compass]`.
    fn parse_port(&mut self) -> Result<(), DotError> {
        for _ in 0..2 {
            if self.tok != Tok::Colon {
                break;
            }
            self.advance()?;
            if !self.is_id() {
                return Err(self.expected("a port name after `:`"));
            }
            self.advance()?;
        }
        Ok(())
    }

    /// The node named by the held ID text (`held`) or the current token's text, created
    /// at `line` if new, and recorded as mentioned in the open subgraphs.
    fn mention_node(&mut self, held: bool, line: u32) -> Result<u32, DotError> {
        let bytes = if held { &self.held } else { &self.lex.text };
        let name = std::str::from_utf8(bytes)
            .map_err(|_| DotError::new(line, "invalid UTF-8 in a node ID"))?;
        let sym = self
            .g
            .symbols
            .try_intern(name)
            .ok_or_else(|| DotError::new(line, "too many symbols"))?;
        let idx = sym as usize;
        if self.node_of_sym.len() <= idx {
            self.node_of_sym.resize(idx + 1, NO_NODE);
        }
        let mut node = self.node_of_sym[idx];
        if node == NO_NODE {
            node = u32::try_from(self.g.nodes.len())
                .ok()
                .filter(|&n| n != NO_NODE)
                .ok_or_else(|| DotError::new(line, "too many nodes"))?;
            self.node_of_sym[idx] = node;
            self.g.nodes.push(DotNode {
                symbol: sym,
                line,
                attrs: self.scope.node.clone(),
            });
        }
        if let Some(c) = self.collectors.last_mut() {
            c.push(node);
        }
        Ok(node)
    }

    /// Parses `[subgraph [ID]] { ... }`; returns the subgraph's nodes (in node order) and
    /// the line of its opening brace. Leaves the token after `}` current.
    fn parse_subgraph(&mut self) -> Result<(Vec<u32>, u32), DotError> {
        if self.tok == Tok::Subgraph {
            self.advance()?;
            if self.is_id() {
                self.advance()?;
            }
        }
        if self.tok != Tok::LBrace {
            return Err(self.expected("`{` to open the subgraph body"));
        }
        let open = self.line;
        if self.collectors.len() >= MAX_DEPTH {
            return Err(self.err(format!(
                "subgraphs nested too deeply (more than {MAX_DEPTH} levels)"
            )));
        }
        self.advance()?;
        let saved = self.scope.clone();
        let collector = self.take_nodes();
        self.collectors.push(collector);
        let result = self.parse_stmt_list(open);
        let mut nodes = self.collectors.pop().unwrap_or_default();
        self.scope = saved;
        result?;
        self.advance()?;
        nodes.sort_unstable();
        nodes.dedup();
        if let Some(parent) = self.collectors.last_mut() {
            parent.extend_from_slice(&nodes);
        }
        Ok((nodes, open))
    }

    /// Parses the rest of an edge statement whose first operand's nodes are `nodes`
    /// (current token: the first `->`), then creates its edges.
    fn parse_edge_stmt(&mut self, mut nodes: Vec<u32>, first_line: u32) -> Result<(), DotError> {
        let mut ops = self.op_pool.pop().unwrap_or_default();
        ops.push(Operand {
            start: 0,
            end: nodes.len(),
            line: first_line,
        });
        while matches!(self.tok, Tok::Arrow | Tok::Undirected) {
            if self.tok == Tok::Undirected {
                return Err(self.err(
                    "expected `->`, found `--`: undirected edges are not allowed in a digraph",
                ));
            }
            self.advance()?;
            let start = nodes.len();
            let line = self.line;
            match self.tok {
                Tok::Id(_) => {
                    let node = self.mention_node(false, line)?;
                    nodes.push(node);
                    self.advance()?;
                    self.parse_port()?;
                    ops.push(Operand {
                        start,
                        end: nodes.len(),
                        line,
                    });
                }
                Tok::Subgraph | Tok::LBrace => {
                    let (set, line) = self.parse_subgraph()?;
                    nodes.extend_from_slice(&set);
                    self.recycle_nodes(set);
                    ops.push(Operand {
                        start,
                        end: nodes.len(),
                        line,
                    });
                }
                _ => return Err(self.expected("a node ID or a subgraph after `->`")),
            }
        }
        let mut own = EdgeAttrs::default();
        self.parse_attr_lists(Some(&mut own), &mut Vec::new(), None)?;
        self.create_edges(&ops, &nodes, &own)?;
        self.recycle_nodes(nodes);
        ops.clear();
        self.op_pool.push(ops);
        Ok(())
    }

    /// Creates the edges of one edge statement.
    fn create_edges(
        &mut self,
        ops: &[Operand],
        nodes: &[u32],
        own: &EdgeAttrs,
    ) -> Result<(), DotError> {
        let defaults = &self.scope.edge;
        let key = own.key.clone().or_else(|| defaults.key.clone());
        let comment = own.comment.or(defaults.comment);
        let mut attrs = defaults.other.clone();
        for (n, v) in &own.other {
            set_attr(&mut attrs, n, v.clone());
        }
        for pair in ops.windows(2) {
            let (tails, heads) = (pair[0], pair[1]);
            for &t in nodes.get(tails.start..tails.end).unwrap_or(&[]) {
                for &h in nodes.get(heads.start..heads.end).unwrap_or(&[]) {
                    self.add_edge(t, h, heads.line, &key, comment, &attrs, own)?;
                }
            }
        }
        Ok(())
    }

    /// Adds one edge, or merges it into an earlier one in a strict graph.
    #[allow(clippy::too_many_arguments)]
    fn add_edge(
        &mut self,
        tail: u32,
        head: u32,
        line: u32,
        key: &Option<String>,
        comment: Option<Comment>,
        attrs: &[(String, String)],
        own: &EdgeAttrs,
    ) -> Result<(), DotError> {
        let index =
            u32::try_from(self.g.edges.len()).map_err(|_| DotError::new(line, "too many edges"))?;
        if self.g.strict {
            match self.strict_edges.entry((tail, head)) {
                Entry::Occupied(o) => {
                    // Merge: the statement's own attributes override, position is kept.
                    if let Some(e) = self.g.edges.get_mut(*o.get() as usize) {
                        if own.key.is_some() {
                            e.key.clone_from(&own.key);
                        }
                        if let Some(c) = own.comment {
                            e.comment = c;
                            self.g.comment_declared = true;
                        }
                        for (n, v) in &own.other {
                            set_attr(&mut e.attrs, n, v.clone());
                        }
                    }
                    return Ok(());
                }
                Entry::Vacant(v) => {
                    v.insert(index);
                }
            }
        } else if let Some(k) = key {
            let kid = self
                .keys
                .try_intern(k)
                .ok_or_else(|| DotError::new(line, "too many keys"))?;
            match self.keyed_edges.entry((tail, head, kid)) {
                Entry::Occupied(o) => {
                    let first = self.g.edges.get(*o.get() as usize).map_or(0, |e| e.line);
                    return Err(DotError::new(
                        line,
                        format!(
                            "edge {} -> {} with key {k} is defined twice (first at line {first})",
                            self.g.node_name(tail),
                            self.g.node_name(head),
                        ),
                    ));
                }
                Entry::Vacant(v) => {
                    v.insert(index);
                }
            }
        }
        if comment.is_some() {
            self.g.comment_declared = true;
        }
        self.g.edges.push(DotEdge {
            tail,
            head,
            line,
            key: key.clone(),
            comment: comment.unwrap_or(Comment::Absent),
            attrs: attrs.to_vec(),
        });
        Ok(())
    }

    /// Parses zero or more `[...]` lists (at least one when `after` names the keyword that
    /// requires one). With `edge`, `key` and `comment` go to its special slots and the
    /// rest to its `other`; otherwise everything goes to `generic`.
    fn parse_attr_lists(
        &mut self,
        mut edge: Option<&mut EdgeAttrs>,
        generic: &mut Vec<(String, String)>,
        after: Option<&str>,
    ) -> Result<(), DotError> {
        if self.tok != Tok::LBracket {
            if let Some(kw) = after {
                return Err(self.expected(&format!("`[` after `{kw}`")));
            }
            return Ok(());
        }
        while self.tok == Tok::LBracket {
            self.advance()?;
            loop {
                match self.tok {
                    Tok::RBracket => {
                        self.advance()?;
                        break;
                    }
                    Tok::Id(_) => {
                        std::mem::swap(&mut self.lex.text, &mut self.held);
                        let name_line = self.line;
                        self.advance()?;
                        let has_value = self.tok == Tok::Eq;
                        if has_value {
                            self.advance()?;
                            if !self.is_id() {
                                return Err(self.expected("an attribute value after `=`"));
                            }
                        }
                        let line = if has_value { self.line } else { name_line };
                        self.store_attr(edge.as_deref_mut(), generic, has_value, line)?;
                        if has_value {
                            self.advance()?;
                        }
                        if matches!(self.tok, Tok::Comma | Tok::Semi) {
                            self.advance()?;
                        }
                    }
                    _ => return Err(self.expected("`]` or an attribute name")),
                }
            }
        }
        Ok(())
    }

    /// Stores the attribute named by `held` with the current token's text as value (or
    /// `true` when it has none).
    fn store_attr(
        &mut self,
        edge: Option<&mut EdgeAttrs>,
        generic: &mut Vec<(String, String)>,
        has_value: bool,
        line: u32,
    ) -> Result<(), DotError> {
        let value: &[u8] = if has_value { &self.lex.text } else { b"true" };
        let name: &[u8] = &self.held;
        match edge {
            Some(e) if name == b"comment" => {
                let c = tokenize_comment(&mut self.g.symbols, &mut self.g.comment_tokens, value)
                    .map_err(|m| DotError::new(line, m))?;
                e.comment = Some(c);
            }
            Some(e) if name == b"key" => e.key = Some(utf8_string(value, line)?),
            Some(e) => {
                let name = std::str::from_utf8(name)
                    .map_err(|_| DotError::new(line, "invalid UTF-8 in an attribute name"))?;
                set_attr(&mut e.other, name, utf8_string(value, line)?);
            }
            None => {
                let name = std::str::from_utf8(name)
                    .map_err(|_| DotError::new(line, "invalid UTF-8 in an attribute name"))?;
                set_attr(generic, name, utf8_string(value, line)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn parse(text: &str) -> DotGraph {
        match parse_dot_str(text) {
            Ok(g) => g,
            Err(e) => panic!("unexpected error {e} for input:\n{text}"),
        }
    }

    fn error(text: &str) -> DotError {
        match parse_dot_str(text) {
            Ok(g) => panic!("expected an error, parsed {g:?} from:\n{text}"),
            Err(e) => e,
        }
    }

    /// Asserts the error is on `line` and its message contains every fragment.
    fn assert_error(text: &str, line: u32, fragments: &[&str]) {
        let e = error(text);
        assert_eq!(e.line, line, "wrong line in `{e}` for:\n{text}");
        for f in fragments {
            assert!(e.message.contains(f), "`{e}` lacks `{f}` for:\n{text}");
        }
        assert_eq!(e.to_string(), format!("line {}: {}", e.line, e.message));
    }

    fn node_names(g: &DotGraph) -> Vec<&str> {
        (0..g.nodes.len() as u32).map(|n| g.node_name(n)).collect()
    }

    fn edge_pairs(g: &DotGraph) -> Vec<(&str, &str)> {
        g.edges
            .iter()
            .map(|e| (g.node_name(e.tail), g.node_name(e.head)))
            .collect()
    }

    fn tokens<'a>(g: &'a DotGraph, e: &DotEdge) -> Vec<&'a str> {
        g.comment_tokens(e)
            .iter()
            .map(|&s| g.symbols.name(s))
            .collect()
    }

    fn attrs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|&(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    const SAMPLE: &str = "digraph network {
\tH00000 -> S0_0\t[key=1,
\t\tcomment=\"*\"];
\tS0_0 -> H00000\t[key=1,
\t\tcomment=H00000];
\tS0_0 -> S1_0\t[key=5,
\t\tcomment=\"H00004, H00008, H00012\"];
}
";

    #[test]
    fn symbol_table_interns() {
        let mut t = SymbolTable::new();
        assert!(t.is_empty());
        assert_eq!(t.intern("a"), 0);
        assert_eq!(t.intern("b"), 1);
        assert_eq!(t.intern("a"), 0);
        assert_eq!(t.get("b"), Some(1));
        assert_eq!(t.get("c"), None);
        assert_eq!(t.name(1), "b");
        assert_eq!(t.len(), 2);
        assert!(!t.is_empty());
    }

    #[test]
    fn parses_orcs_sample() {
        let g = parse(SAMPLE);
        assert!(!g.strict);
        assert_eq!(g.id.as_deref(), Some("network"));
        assert_eq!(node_names(&g), ["H00000", "S0_0", "S1_0"]);
        assert_eq!(node_names(&g).len(), g.nodes.len());
        assert_eq!(
            g.nodes.iter().map(|n| n.line).collect::<Vec<_>>(),
            [2, 2, 6]
        );
        assert_eq!(
            edge_pairs(&g),
            [("H00000", "S0_0"), ("S0_0", "H00000"), ("S0_0", "S1_0")]
        );
        let e = &g.edges;
        assert_eq!(e.iter().map(|e| e.line).collect::<Vec<_>>(), [2, 4, 6]);
        assert_eq!(e[0].key.as_deref(), Some("1"));
        assert_eq!(e[2].key.as_deref(), Some("5"));
        assert_eq!(e[0].comment, Comment::All);
        assert!(g.comment_tokens(&e[0]).is_empty());
        assert_eq!(tokens(&g, &e[1]), ["H00000"]);
        assert_eq!(tokens(&g, &e[2]), ["H00004", "H00008", "H00012"]);
        assert!(e.iter().all(|e| e.attrs.is_empty()));
        assert!(g.comment_declared);
        // Node names and comment tokens share the symbol table.
        assert_eq!(g.comment_tokens(&e[1]), [g.nodes[0].symbol]);
        assert_eq!(g.symbols.len(), 3 + 3);
    }

    #[test]
    fn node_order_is_first_mention() {
        let g = parse("digraph { SA; SB; H0 -> SB; H0 -> SA; }");
        assert_eq!(node_names(&g), ["SA", "SB", "H0"]);
        let g = parse("digraph { x -> y; z; y -> w -> x }");
        assert_eq!(node_names(&g), ["x", "y", "z", "w"]);
        assert!(!g.comment_declared);
        assert!(g.edges.iter().all(|e| e.comment == Comment::Absent));
    }

    #[test]
    fn chains_make_one_edge_per_arrow() {
        let g = parse("digraph {\n a -> b\n -> c [key=k, comment=\"x y\"]\n}");
        assert_eq!(edge_pairs(&g), [("a", "b"), ("b", "c")]);
        assert_eq!(g.edges[0].line, 2);
        assert_eq!(g.edges[1].line, 3);
        for e in &g.edges {
            assert_eq!(e.key.as_deref(), Some("k"));
            assert_eq!(tokens(&g, e), ["x", "y"]);
        }
        // Both edges share one tokenization.
        assert_eq!(g.comment_tokens.len(), 2);
    }

    #[test]
    fn subgraph_operands() {
        let g = parse("digraph { a -> {b c}; {d e} -> f; {a b} -> {c d} }");
        assert_eq!(
            edge_pairs(&g),
            [
                ("a", "b"),
                ("a", "c"),
                ("d", "f"),
                ("e", "f"),
                ("a", "c"),
                ("a", "d"),
                ("b", "c"),
                ("b", "d")
            ]
        );
        assert_eq!(node_names(&g), ["a", "b", "c", "d", "e", "f"]);
        let g = parse("digraph {\n x -> subgraph s1\n {\n y z } -> subgraph {w}\n}");
        assert_eq!(
            edge_pairs(&g),
            [("x", "y"), ("x", "z"), ("y", "w"), ("z", "w")]
        );
        // A subgraph head's edges take the line of its opening brace.
        assert_eq!(
            g.edges.iter().map(|e| e.line).collect::<Vec<_>>(),
            [3, 3, 4, 4]
        );
    }

    #[test]
    fn subgraph_operand_nodes_follow_node_order() {
        // Graphviz walks a subgraph's nodes in creation order, not mention order.
        let g = parse("digraph { y; x; a -> {x y} }");
        assert_eq!(edge_pairs(&g), [("a", "y"), ("a", "x")]);
        // Nested subgraphs contribute their nodes; duplicates count once.
        let g = parse("digraph { a -> { b { c b } subgraph { d } c } }");
        assert_eq!(edge_pairs(&g), [("a", "b"), ("a", "c"), ("a", "d")]);
    }

    #[test]
    fn edges_inside_subgraph_operands_come_first() {
        let g = parse("digraph { a -> { b -> c } }");
        assert_eq!(edge_pairs(&g), [("b", "c"), ("a", "b"), ("a", "c")]);
        assert_eq!(node_names(&g), ["a", "b", "c"]);
    }

    #[test]
    fn attribute_statements_and_lists() {
        let g = parse(
            "digraph G { graph [rankdir=LR, size=\"4,4\"]; ratio = fill\n\
             node [shape=box]; a [color=red; label=x] [style=bold dir]\n\
             a -> b [weight=2 penwidth=1; arrowhead=none, comment=\"c\"]\n\
             graph [rankdir=TB] }",
        );
        assert_eq!(
            g.graph_attrs,
            attrs(&[("rankdir", "TB"), ("size", "4,4"), ("ratio", "fill")])
        );
        assert_eq!(
            g.nodes[0].attrs,
            attrs(&[
                ("shape", "box"),
                ("color", "red"),
                ("label", "x"),
                ("style", "bold"),
                ("dir", "true")
            ])
        );
        assert_eq!(g.nodes[1].attrs, attrs(&[("shape", "box")]));
        assert_eq!(
            g.edges[0].attrs,
            attrs(&[("weight", "2"), ("penwidth", "1"), ("arrowhead", "none")])
        );
        assert_eq!(g.edges[0].key, None);
        assert_eq!(tokens(&g, &g.edges[0]), ["c"]);
        let g = parse("digraph { a [] ; b [ ] [x=1,] }");
        assert!(g.nodes[0].attrs.is_empty());
        assert_eq!(g.nodes[1].attrs, attrs(&[("x", "1")]));
    }

    #[test]
    fn defaults_are_scoped_to_subgraphs() {
        let g = parse(
            "digraph {
               edge [comment=\"top\", color=blue]
               a -> b
               subgraph s {
                 edge [comment=\"inner\" key=7] node [shape=box]
                 c -> d [color=red]
                 { edge [comment=\"*\"] e -> f }
                 g -> h
               }
               i -> j [comment=own]
               edge [color=green]
               k -> l
               node [shape=circle]
               c
               m
             }",
        );
        let summary: Vec<_> = g
            .edges
            .iter()
            .map(|e| {
                (
                    format!("{}->{}", g.node_name(e.tail), g.node_name(e.head)),
                    match e.comment {
                        Comment::All => "*".to_string(),
                        _ => tokens(&g, e).join(","),
                    },
                    e.key.clone(),
                    e.attrs.clone(),
                )
            })
            .collect();
        let blue = attrs(&[("color", "blue")]);
        assert_eq!(
            summary,
            [
                ("a->b".into(), "top".into(), None, blue.clone()),
                (
                    "c->d".into(),
                    "inner".into(),
                    Some("7".into()),
                    attrs(&[("color", "red")])
                ),
                ("e->f".into(), "*".into(), Some("7".into()), blue.clone()),
                (
                    "g->h".into(),
                    "inner".into(),
                    Some("7".into()),
                    blue.clone()
                ),
                ("i->j".into(), "own".into(), None, blue),
                (
                    "k->l".into(),
                    "top".into(),
                    None,
                    attrs(&[("color", "green")])
                ),
            ]
        );
        let shape = |name: &str| {
            let i = node_names(&g).iter().position(|n| *n == name).unwrap();
            g.nodes[i].attrs.clone()
        };
        assert_eq!(shape("a"), []);
        assert_eq!(shape("c"), attrs(&[("shape", "box")]));
        assert_eq!(shape("f"), attrs(&[("shape", "box")]));
        assert_eq!(shape("i"), []);
        // Node defaults apply only when a node is created.
        assert_eq!(shape("m"), attrs(&[("shape", "circle")]));
        assert!(g.comment_declared);
    }

    #[test]
    fn own_attributes_override_defaults_in_place() {
        let g = parse("digraph { edge [a=1, b=2, comment=x] p -> q [b=3, c=4, a=5] }");
        let e = &g.edges[0];
        assert_eq!(e.attrs, attrs(&[("a", "5"), ("b", "3"), ("c", "4")]));
        assert_eq!(tokens(&g, e), ["x"]);
    }

    #[test]
    fn ports_are_ignored() {
        let g = parse("digraph { a:p1 -> b:p2:ne; c:sw [x=1]; \"d\":\"p\" -> a }");
        assert_eq!(node_names(&g), ["a", "b", "c", "d"]);
        assert_eq!(edge_pairs(&g), [("a", "b"), ("d", "a")]);
        assert_eq!(g.nodes[2].attrs, attrs(&[("x", "1")]));
    }

    #[test]
    fn id_forms() {
        let g = parse(
            "digraph { -1.5 -> .5 -> 1. -> 42 -> _x9 -> \"q x\" -> <b<i>t</i>> -> é_1; \
             \"42\" }",
        );
        assert_eq!(
            node_names(&g),
            ["-1.5", ".5", "1.", "42", "_x9", "q x", "b<i>t</i>", "é_1"]
        );
    }

    #[test]
    fn keywords_are_case_insensitive_ids_are_not() {
        let g = parse("STRICT DiGraph { NODE [s=1] Edge [e=2] a -> A; SubGraph { b } \"node\" }");
        assert!(g.strict);
        assert_eq!(node_names(&g), ["a", "A", "b", "node"]);
        assert_eq!(g.edges[0].attrs, attrs(&[("e", "2")]));
        assert_eq!(g.nodes[0].attrs, attrs(&[("s", "1")]));
    }

    #[test]
    fn quoted_string_escapes() {
        let g = parse(
            "digraph { \"a\\\"b\" -> \"c\\\\\" -> \"d\\le\" -> \"multi\nline\" -> \"cont\\\ninued\" -> \"crlf\\\r\nx\" }",
        );
        assert_eq!(
            node_names(&g),
            [
                "a\"b",
                "c\\\\",
                "d\\le",
                "multi\nline",
                "continued",
                "crlfx"
            ]
        );
        // Line numbers count the line breaks inside strings, continued or not.
        let g = parse("digraph {\n\"a\nb\" -> \"c\\\nd\" -> e\n}");
        assert_eq!(g.edges[0].line, 3);
        assert_eq!(g.edges[1].line, 4);
    }

    #[test]
    fn continuation_lines_in_comments() {
        let g = parse("digraph {\n a -> b [comment=\"H1, H2, \\\nH3, H4\\\r\n5\"];\n c -> d\n}");
        assert_eq!(tokens(&g, &g.edges[0]), ["H1", "H2", "H3", "H45"]);
        assert_eq!(g.edges[1].line, 5);
    }

    #[test]
    fn plus_concatenates_quoted_strings() {
        let g = parse(
            "digraph { a -> b [comment=\"H1, H\" + \"2\" /* c */ +\n // x\n \"3, H4\"] \"x\"+\"y\" }",
        );
        assert_eq!(tokens(&g, &g.edges[0]), ["H1", "H23", "H4"]);
        assert_eq!(node_names(&g), ["a", "b", "xy"]);
        assert_error(
            "digraph { a -> \"b\" + c }",
            1,
            &["expected a quoted string after `+`", "`c`"],
        );
        assert_error("digraph { a -> b + \"c\" }", 1, &["found `+`"]);
    }

    #[test]
    fn comments_and_hash_lines() {
        let text = "# preprocessor line\n/* block\n comment */ digraph // tail\n{\n#x -> y\n  a /* in\n */ -> b // c -> d\n# e -> f\n}\n# trailing\n// trailing\n";
        let g = parse(text);
        assert_eq!(edge_pairs(&g), [("a", "b")]);
        assert_eq!(g.edges[0].line, 7);
        assert_eq!(g.nodes[0].line, 6);
        // `#` is a comment only as the first character of a line.
        assert_error("digraph {\n a #b\n}", 2, &["`#`"]);
        assert_error("digraph {\n  # x\n}", 2, &["`#`"]);
    }

    #[test]
    fn comment_tokenization() {
        let g = parse(
            "digraph { a -> b [comment=\" ,x,,y\tz\n\r w ,\"]; a -> c [comment=\"\"]; \
             a -> d [comment=\"x, *\"]; a -> e [comment=\" * \"]; a -> f [comment=\"*\"] }",
        );
        let e = &g.edges;
        assert_eq!(tokens(&g, &e[0]), ["x", "y", "z", "w"]);
        assert_eq!(e[1].comment, Comment::Tokens { start: 4, end: 4 });
        assert_eq!(tokens(&g, &e[2]), ["x", "*"]);
        assert_eq!(tokens(&g, &e[3]), ["*"]);
        assert_eq!(e[4].comment, Comment::All);
        assert_eq!(g.comment_tokens[2], g.symbols.get("z").unwrap());
        // Only edges carry the comment routing information.
        let g = parse("digraph { node [comment=\"n\"] a [comment=\"m\"] }");
        assert!(!g.comment_declared);
        assert_eq!(g.nodes[0].attrs, attrs(&[("comment", "m")]));
        assert!(g.comment_tokens.is_empty());
    }

    #[test]
    fn strict_graphs_merge_repeated_edges() {
        let g = parse(
            "strict digraph {\n a -> b [key=1, comment=\"x\"]\n a -> c\n a -> b [comment=\"y\", color=red]\n b -> a\n a -> b [key=2]\n}",
        );
        assert!(g.strict);
        assert_eq!(edge_pairs(&g), [("a", "b"), ("a", "c"), ("b", "a")]);
        let e = &g.edges[0];
        assert_eq!(e.line, 2);
        assert_eq!(e.key.as_deref(), Some("2"));
        assert_eq!(tokens(&g, e), ["y"]);
        assert_eq!(e.attrs, attrs(&[("color", "red")]));
        // Merging into an edge without a comment declares one.
        let g = parse("strict digraph { a -> b; a -> b [comment=\"*\"] }");
        assert_eq!(g.edges.len(), 1);
        assert_eq!(g.edges[0].comment, Comment::All);
        assert!(g.comment_declared);
    }

    #[test]
    fn non_strict_graphs_keep_repeated_edges() {
        let g = parse("digraph { a -> b; a -> b; a -> b [key=1]; a -> b [key=2]; b -> a [key=1] }");
        assert_eq!(g.edges.len(), 5);
    }

    #[test]
    fn duplicate_key_is_an_error() {
        assert_error(
            "digraph {\n a -> b [key=1]\n c -> d\n a\n -> b [key=1]\n}",
            5,
            &["edge a -> b with key 1 is defined twice (first at line 2)"],
        );
        // The key may come from a default.
        assert_error(
            "digraph {\n edge [key=p]\n a -> b\n a -> b\n}",
            4,
            &["edge a -> b with key p is defined twice (first at line 3)"],
        );
        // A strict graph merges instead.
        assert_eq!(
            parse("strict digraph { a -> b [key=1]; a -> b [key=1] }")
                .edges
                .len(),
            1
        );
    }

    #[test]
    fn undirected_graphs_are_rejected() {
        assert_error(
            "graph { a -- b }",
            1,
            &["expected `digraph`", "found `graph`", "undirected"],
        );
        assert_error(
            "strict\nGraph { }",
            2,
            &["expected `digraph`", "undirected"],
        );
        assert_error(
            "digraph {\n a -> b\n b -- c\n}",
            3,
            &["expected `->`, found `--`", "undirected"],
        );
        assert_error("digraph { a -> b -- c }", 1, &["found `--`"]);
    }

    #[test]
    fn syntax_errors_say_what_was_expected() {
        assert_error(
            "",
            1,
            &["expected `digraph` or `strict digraph`, found end of input"],
        );
        assert_error("\n\nfoo {}", 3, &["expected `digraph`", "found `foo`"]);
        assert_error(
            "strict x",
            1,
            &["expected `digraph` after `strict`, found `x`"],
        );
        assert_error("digraph a b {}", 1, &["expected `{`", "found `b`"]);
        assert_error(
            "digraph {\n a -> b [x=1\n -> c]\n}",
            3,
            &["expected `]` or an attribute name, found `->`"],
        );
        assert_error(
            "digraph {\n a [x=]\n}",
            2,
            &["expected an attribute value after `=`, found `]`"],
        );
        assert_error(
            "digraph {\n a -> ;\n}",
            2,
            &["expected a node ID or a subgraph after `->`, found `;`"],
        );
        assert_error(
            "digraph {\n a = ;\n}",
            2,
            &["expected an ID after `=`, found `;`"],
        );
        assert_error(
            "digraph {\n a : ;\n}",
            2,
            &["expected a port name after `:`"],
        );
        assert_error(
            "digraph {\n node a\n}",
            2,
            &["expected `[` after `node`, found `a`"],
        );
        assert_error(
            "digraph {\n edge\n}",
            3,
            &["expected `[` after `edge`, found `}`"],
        );
        assert_error(
            "digraph {\n ]\n}",
            2,
            &["expected a statement or `}`, found `]`"],
        );
        assert_error(
            "digraph {\n subgraph x y\n}",
            2,
            &["expected `{` to open the subgraph body, found `y`"],
        );
        assert_error(
            "digraph {\n a -> b\n",
            3,
            &[
                "expected `}` to close the `{` opened at line 1",
                "end of input",
            ],
        );
        assert_error("digraph {\n a -> { b \n", 3, &["opened at line 2"]);
        assert_error(
            "digraph {\n}\n\n x",
            4,
            &["expected end of input after the closing `}`", "found `x`"],
        );
        assert_error("digraph {\n}\n}", 3, &["found `}`"]);
        assert_error(
            "digraph { a -> b } /* open",
            1,
            &["unterminated comment", "`*/`"],
        );
        assert_error(
            "digraph {\n a -> \"b\n\n",
            2,
            &["unterminated quoted string", "`\"`"],
        );
        assert_error(
            "digraph {\n a -> <b <c> \n",
            2,
            &["unterminated HTML string"],
        );
        assert_error(
            "digraph {\n a -> -x }",
            2,
            &["expected `->` or a number after `-`, found `x`"],
        );
        assert_error("digraph {\n a -> @ }", 2, &["unexpected character `@`"]);
        assert_error("digraph {\n a -> . }", 2, &["expected a digit after `.`"]);
    }

    #[test]
    fn badly_delimited_numerals_are_errors() {
        assert_error(
            "digraph {\n\n 12ab -> c }",
            3,
            &["numeral `12` is immediately followed by `a`", "separator"],
        );
        assert_error(
            "digraph { a -> 1.2.3 }",
            1,
            &["numeral `1.2` is immediately followed by `.`"],
        );
        assert_error("digraph { a -> -1_ }", 1, &["numeral `-1`"]);
        // A numeral may be followed by punctuation directly.
        let g = parse("digraph { 1->2[key=3]}");
        assert_eq!(edge_pairs(&g), [("1", "2")]);
    }

    #[test]
    fn invalid_utf8_and_read_errors_are_dot_errors() {
        let e = parse_dot(&b"digraph {\n a -> \"\xff\xfe\" }"[..]).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("UTF-8"), "{e}");
        let e = parse_dot(&b"digraph { a -> b [comment=\"x\xc3\"] }"[..]).unwrap_err();
        assert!(e.message.contains("UTF-8"), "{e}");

        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                let text = b"digraph {\n a -> b\n";
                let n = text.len().min(buf.len());
                buf[..n].copy_from_slice(&text[..n]);
                Ok(n)
            }
        }
        let e = parse_dot(BufReader::new(Failing(1))).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("read error: disk on fire"), "{e}");
    }

    use crate::test_support::Trickle;

    #[test]
    fn tokens_may_straddle_reads() {
        let text = "\u{feff}# x\n/* c */ strict digraph \"g\" {\n edge [k=v] a:p -> { b c } -> \"d\\\"\" + \"e\" \
                    [key=1, comment=\"H1, \\\r\nH2\"];\n <x<y>> -> -1.5 [comment=\"*\"]; z = \"w\" // end\n}\n";
        let whole = parse(text);
        let trickled = parse_dot(BufReader::with_capacity(1, Trickle(text.as_bytes()))).unwrap();
        assert_eq!(node_names(&whole), ["a", "b", "c", "d\"e", "x<y>", "-1.5"]);
        assert_eq!(whole.graph_attrs, attrs(&[("z", "w")]));
        assert_eq!(whole.id.as_deref(), Some("g"));
        assert_eq!(node_names(&trickled), node_names(&whole));
        assert_eq!(trickled.edges, whole.edges);
        assert_eq!(trickled.comment_tokens, whole.comment_tokens);
        assert_eq!(trickled.graph_attrs, whole.graph_attrs);
        assert_eq!(tokens(&whole, &whole.edges[2]), ["H1", "H2"]);
        assert_eq!(whole.edges[4].line, 5);
    }

    #[test]
    fn huge_quoted_strings_span_many_chunks() {
        let names: Vec<String> = (0..400_000).map(|i| format!("H{:05}", i % 4096)).collect();
        let mut comment = String::new();
        for (i, chunk) in names.chunks(16).enumerate() {
            if i > 0 {
                comment.push_str(", \\\n");
            }
            comment.push_str(&chunk.join(", "));
        }
        assert!(comment.len() > 3 * CHUNK);
        let text = format!("digraph {{\n a -> b [comment=\"{comment}\"]\n c -> d\n}}");
        let g = parse(&text);
        let toks = tokens(&g, &g.edges[0]);
        assert_eq!(toks.len(), names.len());
        assert!(toks.iter().zip(&names).all(|(a, b)| a == b));
        assert_eq!(g.symbols.len(), 4096 + 4);
        // The string starts on line 2 and has one continuation per 16 names.
        assert_eq!(g.edges[1].line, 2 + (names.len() as u32 / 16 - 1) + 1);
    }

    #[test]
    fn graph_ids_and_top_level_attributes() {
        assert_eq!(parse("digraph {}").id, None);
        assert_eq!(parse("digraph \"my net\" {}").id.as_deref(), Some("my net"));
        assert_eq!(parse("digraph 7 {}").id.as_deref(), Some("7"));
        let g = parse("digraph { a = b; subgraph { c = d graph [e=f] } }");
        assert_eq!(g.graph_attrs, attrs(&[("a", "b")]));
        assert!(g.nodes.is_empty());
    }

    #[test]
    fn later_node_statements_add_attributes() {
        let g = parse(
            "digraph { node [shape=box] a -> b; node [shape=oval color=red] a [shape=dot]; b }",
        );
        assert_eq!(g.nodes[0].attrs, attrs(&[("shape", "dot")]));
        assert_eq!(g.nodes[1].attrs, attrs(&[("shape", "box")]));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for opener in ["{", "a -> {", "subgraph s { b -> subgraph {"] {
            let text = format!("digraph {{ {} }}", opener.repeat(100_000));
            let e = error(&text);
            assert!(e.message.contains("nested too deeply"), "{e}");
        }
        let ok = format!("digraph {{ {}a{} }}", "{".repeat(50), "}".repeat(50));
        assert_eq!(node_names(&parse(&ok)), ["a"]);
    }

    #[test]
    fn stray_semicolons_are_accepted() {
        let g = parse("digraph { ; a ;; b -> c; }");
        assert_eq!(node_names(&g), ["a", "b", "c"]);
    }
}
