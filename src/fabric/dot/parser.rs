//! The dot parser: recursive descent with one token of lookahead over the [`Lexer`],
//! building the [`DotGraph`]: nodes at first mention, edges of chains and subgraph
//! operands, attribute defaults scoped to subgraphs, strict-graph merging and duplicate
//! keys, and `comment` values handed to the [`CommentTokenizer`].

use std::collections::hash_map::Entry;
use std::io::BufRead;

use rustc_hash::FxHashMap;

use super::comment::CommentTokenizer;
use super::lexer::{describe, shorten, Lexer, Tok};
use super::{at_line, Comment, DotEdge, DotGraph, DotNode, Failure, SymbolTable};

/// Deepest subgraph nesting accepted (keeps the recursive parser's stack bounded).
const MAX_DEPTH: usize = 200;
/// Marker for "this symbol is not a node" in the symbol → node map.
const NO_NODE: u32 = u32::MAX;

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

/// An owned string from ID bytes.
fn utf8_string(bytes: &[u8], line: u32) -> Result<String, Failure> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| at_line(line, "invalid UTF-8 in an ID"))
}

/// The recursive-descent parser with one token of lookahead.
pub(super) struct Parser<R> {
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
    /// Splits comment values.
    comments: CommentTokenizer,
    /// Reusable vectors for edge statements.
    node_pool: Vec<Vec<u32>>,
    op_pool: Vec<Vec<Operand>>,
}

impl<R: BufRead> Parser<R> {
    pub(super) fn new(rd: R) -> Self {
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
            comments: CommentTokenizer::default(),
            node_pool: Vec::new(),
            op_pool: Vec::new(),
        }
    }

    fn advance(&mut self) -> Result<(), Failure> {
        let (tok, line) = self.lex.next_token()?;
        self.tok = tok;
        self.line = line;
        Ok(())
    }

    fn err(&self, message: impl Into<String>) -> Failure {
        at_line(self.line, message)
    }

    /// "expected {what}, found {current token}".
    fn expected(&self, what: &str) -> Failure {
        self.err(format!(
            "expected {what}, found {}",
            describe(self.tok, &self.lex.text)
        ))
    }

    fn is_id(&self) -> bool {
        matches!(self.tok, Tok::Id(_))
    }

    pub(super) fn parse_graph(mut self) -> Result<DotGraph, Failure> {
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
    fn parse_stmt_list(&mut self, open: u32) -> Result<(), Failure> {
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

    /// One statement of a body.
    fn parse_stmt(&mut self) -> Result<(), Failure> {
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
            Tok::Id(_) => self.parse_id_stmt(),
            _ => Err(self.expected("a statement or `}`")),
        }
    }

    /// A statement that starts with an ID: `ID = ID`, a node statement, or an edge
    /// statement whose first operand is a node.
    fn parse_id_stmt(&mut self) -> Result<(), Failure> {
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

    fn take_nodes(&mut self) -> Vec<u32> {
        self.node_pool.pop().unwrap_or_default()
    }

    fn recycle_nodes(&mut self, mut v: Vec<u32>) {
        v.clear();
        self.node_pool.push(v);
    }

    /// Skips an optional `:port[:compass]`.
    fn parse_port(&mut self) -> Result<(), Failure> {
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
    fn mention_node(&mut self, held: bool, line: u32) -> Result<u32, Failure> {
        let bytes = if held { &self.held } else { &self.lex.text };
        let name =
            std::str::from_utf8(bytes).map_err(|_| at_line(line, "invalid UTF-8 in a node ID"))?;
        let sym = self
            .g
            .symbols
            .try_intern(name)
            .ok_or_else(|| at_line(line, "too many symbols"))?;
        let idx = sym as usize;
        if self.node_of_sym.len() <= idx {
            self.node_of_sym.resize(idx + 1, NO_NODE);
        }
        let mut node = self.node_of_sym[idx];
        if node == NO_NODE {
            node = u32::try_from(self.g.nodes.len())
                .ok()
                .filter(|&n| n != NO_NODE)
                .ok_or_else(|| at_line(line, "too many nodes"))?;
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
    fn parse_subgraph(&mut self) -> Result<(Vec<u32>, u32), Failure> {
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
    fn parse_edge_stmt(&mut self, mut nodes: Vec<u32>, first_line: u32) -> Result<(), Failure> {
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
    ) -> Result<(), Failure> {
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
    ) -> Result<(), Failure> {
        let index =
            u32::try_from(self.g.edges.len()).map_err(|_| at_line(line, "too many edges"))?;
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
                .ok_or_else(|| at_line(line, "too many keys"))?;
            match self.keyed_edges.entry((tail, head, kid)) {
                Entry::Occupied(o) => {
                    let first = self.g.edges.get(*o.get() as usize).map_or(0, |e| e.line);
                    return Err(at_line(
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
    ) -> Result<(), Failure> {
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
    ) -> Result<(), Failure> {
        let value: &[u8] = if has_value { &self.lex.text } else { b"true" };
        let name: &[u8] = &self.held;
        match edge {
            Some(e) if name == b"comment" => {
                let c = self
                    .comments
                    .tokenize(&mut self.g.symbols, &mut self.g.comment_tokens, value)
                    .map_err(|m| at_line(line, m))?;
                e.comment = Some(c);
            }
            Some(e) if name == b"key" => e.key = Some(utf8_string(value, line)?),
            Some(e) => {
                let name = std::str::from_utf8(name)
                    .map_err(|_| at_line(line, "invalid UTF-8 in an attribute name"))?;
                set_attr(&mut e.other, name, utf8_string(value, line)?);
            }
            None => {
                let name = std::str::from_utf8(name)
                    .map_err(|_| at_line(line, "invalid UTF-8 in an attribute name"))?;
                set_attr(generic, name, utf8_string(value, line)?);
            }
        }
        Ok(())
    }
}
