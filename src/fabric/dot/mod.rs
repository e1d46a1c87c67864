//! Graphviz dot reader: owns the streaming lexer and parser that turn a routed `digraph`
//! in the dot language into a [`DotGraph`] (nodes in order of first appearance, edges in
//! creation order, attributes after graphviz-style defaults, and each edge's `comment` list
//! split into interned symbols), reporting problems as [`LocatedError`]s at their line.
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
//!
//! This folder holds the graph model and the entry points; `symbols.rs` the interner,
//! `lexer.rs` the tokens, `parser.rs` the grammar. It may use [`crate::error`] and
//! nothing else of the crate (the fabric loader builds on it, not the other way round).

use std::io::BufRead;

use crate::error::LocatedError;

mod comment;
mod lexer;
mod parser;
mod symbols;

pub use symbols::SymbolTable;

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

/// A problem found while reading: boxed, so that the results the lexer and the recursive
/// parser pass around stay one pointer wide (smaller frames on the hot path and in deep
/// subgraph nesting); [`parse_dot`] unboxes it.
type Failure = Box<LocatedError>;

/// An error at the 1-based `line` of the dot input, named after no file yet (the loader
/// names it with [`LocatedError::in_file`]).
#[cold]
fn at_line(line: u32, message: impl Into<String>) -> Failure {
    Box::new(LocatedError::at_line("", line, message))
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
/// # Ok::<(), orcs::error::LocatedError>(())
/// ```
///
/// # Errors
/// A [`LocatedError`] with the line (and no file name) for: syntax errors (saying what was expected and what was
/// found), an undirected `graph` or a `--` edge, input after the closing `}`, a repeated
/// `(tail, head, key)` in a non-strict graph, invalid UTF-8 in an ID, and read errors.
pub fn parse_dot<R: BufRead>(reader: R) -> Result<DotGraph, LocatedError> {
    parser::Parser::new(reader).parse_graph().map_err(|e| *e)
}

/// Parses a dot digraph held in memory; see [`parse_dot`].
///
/// # Errors
/// As [`parse_dot`] (without read errors).
pub fn parse_dot_str(text: &str) -> Result<DotGraph, LocatedError> {
    parse_dot(text.as_bytes())
}

#[cfg(test)]
mod tests;
