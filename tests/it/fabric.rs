//! Property tests for the dot reader (`orcs::fabric::dot`).
//!
//! Random digraph models are rendered as dot text (with random white space, comments,
//! `#` lines, quoting styles, ports, continuation lines, `+` concatenation, subgraph
//! operands and edge defaults in subgraphs) and parsed back; the result must match the
//! model, and, for texts within what graphviz-rust's parser accepts, the nodes and edges
//! found by walking graphviz-rust's AST. Arbitrary and mutated inputs must never panic.
//! The real fabrics under `../shared/fabrics/orcs` are parsed when present.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::support::shared;
use graphviz_rust::dot_structures::{Attribute, EdgeTy, GraphAttributes, Id, Stmt, Vertex};
use orcs::fabric::dot::*;
use proptest::prelude::*;

const KEYWORDS: [&str; 6] = ["strict", "graph", "digraph", "node", "edge", "subgraph"];

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum NameKind {
    Plain,
    Numeral,
    Quoted,
}

#[derive(Debug, Clone)]
struct Name {
    text: String,
    kind: NameKind,
}

#[derive(Debug, Clone)]
enum CommentSpec {
    All,
    List(Vec<String>),
}

#[derive(Debug, Clone)]
enum Op {
    Node(usize),
    Set(Vec<usize>),
}

#[derive(Debug, Clone)]
enum StmtSpec {
    Node(usize),
    Edge {
        ops: Vec<Op>,
        key: Option<u32>,
        comment: Option<CommentSpec>,
    },
    EdgeDefault(CommentSpec),
    Sub(Vec<StmtSpec>),
}

#[derive(Debug, Clone)]
struct Model {
    names: Vec<Name>,
    stmts: Vec<StmtSpec>,
    strict: bool,
    graph_id: Option<usize>,
    /// Restrict the rendering to what graphviz-rust's parser accepts.
    compat: bool,
    /// Drives the rendering choices (white space, quoting, ...).
    seed: u64,
}

fn not_keyword_prefixed(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    !KEYWORDS.iter().any(|k| lower.starts_with(k))
}

fn name_strategy() -> impl Strategy<Value = Name> {
    prop_oneof![
        3 => "[A-Za-z_][A-Za-z0-9_]{0,6}"
            .prop_filter("keyword", |s| not_keyword_prefixed(s))
            .prop_map(|text| Name { text, kind: NameKind::Plain }),
        1 => "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,2})?|-?\\.[0-9]{1,2}"
            .prop_map(|text| Name { text, kind: NameKind::Numeral }),
        2 => "[a-zA-Z0-9 _.,\"-]{1,8}".prop_map(|text| Name { text, kind: NameKind::Quoted }),
    ]
}

fn names_strategy() -> impl Strategy<Value = Vec<Name>> {
    prop::collection::vec(name_strategy(), 1..10).prop_map(|names| {
        let mut seen = HashSet::new();
        names
            .into_iter()
            .filter(|n| seen.insert(n.text.clone()))
            .collect()
    })
}

fn comment_strategy() -> impl Strategy<Value = CommentSpec> {
    prop_oneof![
        1 => Just(CommentSpec::All),
        4 => prop::collection::vec("[A-Za-z0-9_:.*-]{1,7}", 0..7).prop_map(CommentSpec::List),
    ]
}

fn op_strategy(n: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..n).prop_map(Op::Node),
        1 => prop::collection::vec(0..n, 1..4).prop_map(Op::Set),
    ]
}

fn stmt_strategy(n: usize) -> impl Strategy<Value = StmtSpec> {
    // A leading subgraph operand is rare: graphviz-rust cannot parse it, so it takes the
    // text out of the cross-check.
    let first = prop_oneof![30 => (0..n).prop_map(Op::Node), 1 => op_strategy(n)];
    let edge = (
        first,
        prop::collection::vec(op_strategy(n), 1..4),
        prop::option::weighted(0.3, 0u32..40),
        prop::option::weighted(0.8, comment_strategy()),
    )
        .prop_map(|(first, rest, key, comment)| {
            let mut ops = vec![first];
            ops.extend(rest);
            StmtSpec::Edge { ops, key, comment }
        });
    let leaf = prop_oneof![
        2 => (0..n).prop_map(StmtSpec::Node),
        8 => edge,
        1 => comment_strategy().prop_map(StmtSpec::EdgeDefault),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop::collection::vec(inner, 0..6).prop_map(StmtSpec::Sub)
    })
}

fn model_strategy() -> impl Strategy<Value = Model> {
    names_strategy().prop_flat_map(|names| {
        let n = names.len();
        (
            prop::collection::vec(stmt_strategy(n), 0..14),
            prop::bool::weighted(0.25),
            prop::option::of(0..n),
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(move |(stmts, strict, graph_id, compat, seed)| Model {
                names: names.clone(),
                stmts,
                strict,
                graph_id,
                compat,
                seed,
            })
    })
}

// ---------------------------------------------------------------------------------------
// Rendering a model as dot text, evaluating the expected graph on the way
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum ExpComment {
    Absent,
    All,
    Tokens(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
struct ExpEdge {
    tail: String,
    head: String,
    line: u32,
    key: Option<String>,
    comment: ExpComment,
}

/// What parsing the rendered text must give.
#[derive(Debug, Default)]
struct Expected {
    text: String,
    nodes: Vec<(String, u32)>,
    edges: Vec<ExpEdge>,
    comment_declared: bool,
    /// `(line, message fragment)` of the duplicate-key error the text must produce.
    dup_key: Option<(u32, String)>,
    /// False when the text uses something graphviz-rust cannot parse.
    gv_ok: bool,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability 1/n.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

struct Renderer<'m> {
    m: &'m Model,
    rng: Rng,
    out: String,
    line: u32,
    node_of_name: HashMap<usize, usize>,
    exp: Expected,
    default: Option<ExpComment>,
    pair_index: HashMap<(usize, usize), usize>,
    keyed: HashMap<(usize, usize, String), u32>,
    sub_count: usize,
}

const SEPARATORS: [&str; 12] = [
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "\r\n",
    " /* c -> d; */ ",
    " /* multi\n line\n comment */\n",
    " // x -> y [comment=\"z\"]\n",
    "\n# 1 \"file.dot\"\n",
    "\n#\n\t",
    "\n\t\t",
];

const COMMENT_SEPARATORS: [&str; 9] = [
    ", ", ",", " ", "\t", ",\n", ", \\\n", ",\\\r\n", " ,  ", "\n\t",
];

impl<'m> Renderer<'m> {
    fn new(m: &'m Model) -> Self {
        Renderer {
            m,
            rng: Rng(m.seed),
            out: String::new(),
            line: 1,
            node_of_name: HashMap::new(),
            exp: Expected {
                gv_ok: m.compat,
                ..Expected::default()
            },
            default: None,
            pair_index: HashMap::new(),
            keyed: HashMap::new(),
            sub_count: 0,
        }
    }

    fn push(&mut self, s: &str) {
        self.line += s.bytes().filter(|&b| b == b'\n').count() as u32;
        self.out.push_str(s);
    }

    fn sep(&mut self) {
        let s = self.rng.pick(&SEPARATORS);
        self.push(s);
    }

    fn keyword(&mut self, k: &str) {
        if self.m.compat || self.rng.one_in(2) {
            self.push(k);
        } else {
            let cased: String = k
                .chars()
                .map(|c| {
                    if self.rng.one_in(2) {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            self.push(&cased);
        }
    }

    /// Renders a quoted string with `"` escaped, sometimes with a continuation line or
    /// (outside compat mode) a `+` concatenation inside.
    fn quoted(&mut self, text: &str) {
        let escaped = text.replace('"', "\\\"");
        let mut s = String::from("\"");
        let cut = if escaped.len() >= 2 && self.rng.one_in(4) {
            // A cut point that does not split an escape sequence.
            let k = 1 + self.rng.below(escaped.len() - 1);
            (escaped.as_bytes()[k - 1] != b'\\').then_some(k)
        } else {
            None
        };
        match cut {
            Some(k) => {
                s.push_str(&escaped[..k]);
                if !self.m.compat && self.rng.one_in(2) {
                    s.push_str("\" +\n \"");
                } else {
                    let continuation = self.rng.pick(&["\\\n", "\\\r\n"]);
                    s.push_str(continuation);
                }
                s.push_str(&escaped[k..]);
            }
            None => s.push_str(&escaped),
        }
        s.push('"');
        self.push(&s);
    }

    fn name_token(&mut self, i: usize) {
        let name = &self.m.names[i];
        let text = name.text.clone();
        match name.kind {
            NameKind::Quoted => self.quoted(&text),
            _ if self.rng.one_in(4) => self.quoted(&text),
            NameKind::Plain if !self.m.compat && self.rng.one_in(6) => {
                self.push(&format!("<{text}>"))
            }
            _ => self.push(&text),
        }
    }

    /// Mentions name `i` (creating its node on first mention at the current line).
    fn mention(&mut self, i: usize) -> usize {
        if let Some(&n) = self.node_of_name.get(&i) {
            return n;
        }
        let n = self.exp.nodes.len();
        self.exp
            .nodes
            .push((self.m.names[i].text.clone(), self.line));
        self.node_of_name.insert(i, n);
        n
    }

    fn node_ref(&mut self, i: usize) -> usize {
        let node = self.mention(i);
        self.name_token(i);
        if self.rng.one_in(8) {
            // graphviz-rust reads `:p:ne` as compass `n` followed by a node `e`.
            let ports: &[&str] = if self.m.compat {
                &[":p1", ":p2:w", ":\"port x\"", ":w"]
            } else {
                &[":p1", ":p2:ne", ":\"port x\"", ":w", ":p:_"]
            };
            let port = self.rng.pick(ports);
            self.push(port);
        }
        node
    }

    fn comment_value(&mut self, c: &CommentSpec) -> ExpComment {
        match c {
            CommentSpec::All => {
                if !self.m.compat && self.rng.one_in(4) {
                    self.push("\"\" + \"*\"");
                } else {
                    self.push("\"*\"");
                }
                ExpComment::All
            }
            CommentSpec::List(tokens) => {
                let mut pieces: Vec<String> = Vec::new();
                let single_star = tokens.len() == 1 && tokens[0] == "*";
                if tokens.is_empty() && self.rng.one_in(2) || single_star || self.rng.one_in(5) {
                    pieces.push(self.rng.pick(&COMMENT_SEPARATORS).to_string());
                }
                for (i, t) in tokens.iter().enumerate() {
                    if i > 0 {
                        pieces.push(self.rng.pick(&COMMENT_SEPARATORS).to_string());
                    }
                    if t.len() >= 2 && self.rng.one_in(6) {
                        // A continuation line inside a token joins its halves.
                        let k = 1 + self.rng.below(t.len() - 1);
                        pieces.push(format!("{}\\\n{}", &t[..k], &t[k..]));
                    } else {
                        pieces.push(t.clone());
                    }
                }
                if self.rng.one_in(5) {
                    pieces.push(self.rng.pick(&COMMENT_SEPARATORS).to_string());
                }
                let mut s = String::from("\"");
                for (i, p) in pieces.iter().enumerate() {
                    if i > 0 && !self.m.compat && self.rng.one_in(5) {
                        s.push_str("\" + \"");
                    }
                    s.push_str(p);
                }
                s.push('"');
                self.push(&s);
                ExpComment::Tokens(tokens.clone())
            }
        }
    }

    fn key_text(k: u32) -> String {
        match k % 3 {
            0 => format!("p {k}"),
            _ => k.to_string(),
        }
    }

    /// Renders an edge statement's attribute lists; returns its own comment.
    fn attr_lists(
        &mut self,
        key: Option<u32>,
        comment: Option<&CommentSpec>,
    ) -> Option<ExpComment> {
        let mut items: Vec<u8> = Vec::new();
        if key.is_some() {
            items.push(0);
        }
        if comment.is_some() {
            items.push(1);
        }
        if items.len() == 2 && self.rng.one_in(2) {
            items.swap(0, 1);
        }
        if items.is_empty() {
            if self.rng.one_in(4) {
                self.push(" []");
            }
            return None;
        }
        let mut exp = None;
        self.sep();
        self.push("[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                let s = self.rng.pick(&[",", ";", " ", ",\n\t\t", "]["]);
                self.push(s);
            }
            if *item == 0 {
                self.push("key=");
                let text = Self::key_text(key.unwrap_or(0));
                if text.contains(' ') || self.rng.one_in(3) {
                    self.quoted(&text);
                } else {
                    self.push(&text);
                }
            } else {
                let name = self.rng.pick(&["comment=", "comment = ", "\"comment\"="]);
                self.push(name);
                if let Some(c) = comment {
                    exp = Some(self.comment_value(c));
                }
            }
        }
        if self.rng.one_in(3) {
            self.push(",");
        }
        self.push("]");
        exp
    }

    /// Renders a subgraph operand; returns its nodes in node order and its brace line.
    fn set_operand(&mut self, names: &[usize], first: bool) -> (Vec<usize>, u32) {
        if first {
            // graphviz-rust cannot parse a statement that starts with a subgraph operand.
            self.exp.gv_ok = false;
        }
        if self.m.compat || self.rng.one_in(2) {
            self.keyword("subgraph");
            self.push(" ");
            if self.rng.one_in(2) {
                self.sub_count += 1;
                self.push(&format!("s{}", self.sub_count));
                self.sep();
            }
        }
        let line = self.line;
        self.push("{");
        let mut nodes = Vec::new();
        for &i in names {
            self.sep();
            nodes.push(self.node_ref(i));
            if self.rng.one_in(3) {
                self.push(";");
            }
        }
        self.sep();
        self.push("}");
        nodes.sort_unstable();
        nodes.dedup();
        (nodes, line)
    }

    fn add_edge(
        &mut self,
        (t, h, line): (usize, usize, u32),
        key: &Option<String>,
        own: &Option<ExpComment>,
        comment: &ExpComment,
    ) {
        if self.exp.dup_key.is_some() {
            return; // parsing stops at the first error
        }
        if self.m.strict {
            if let Some(&e) = self.pair_index.get(&(t, h)) {
                let edge = &mut self.exp.edges[e];
                if key.is_some() {
                    edge.key.clone_from(key);
                }
                if let Some(c) = own {
                    edge.comment = c.clone();
                    self.exp.comment_declared = true;
                }
                return;
            }
            self.pair_index.insert((t, h), self.exp.edges.len());
        } else if let Some(k) = key {
            if let Some(&first) = self.keyed.get(&(t, h, k.clone())) {
                self.exp.dup_key = Some((
                    line,
                    format!(
                        "edge {} -> {} with key {k} is defined twice (first at line {first})",
                        self.exp.nodes[t].0, self.exp.nodes[h].0
                    ),
                ));
                self.exp.gv_ok = false;
                return;
            }
            self.keyed.insert((t, h, k.clone()), line);
        }
        if *comment != ExpComment::Absent {
            self.exp.comment_declared = true;
        }
        self.exp.edges.push(ExpEdge {
            tail: self.exp.nodes[t].0.clone(),
            head: self.exp.nodes[h].0.clone(),
            line,
            key: key.clone(),
            comment: comment.clone(),
        });
    }

    fn stmt(&mut self, s: &StmtSpec) {
        match s {
            StmtSpec::Node(i) => {
                self.node_ref(*i);
            }
            StmtSpec::EdgeDefault(c) => {
                self.keyword("edge");
                self.sep();
                self.push("[comment=");
                let exp = self.comment_value(c);
                self.push("]");
                self.default = Some(exp);
            }
            StmtSpec::Sub(body) => {
                if self.m.compat || self.rng.one_in(2) {
                    self.keyword("subgraph");
                    self.sep();
                    if self.rng.one_in(2) {
                        self.sub_count += 1;
                        self.push(&format!("\"cluster {}\"", self.sub_count));
                        self.sep();
                    }
                }
                self.push("{");
                let saved = self.default.clone();
                for st in body {
                    self.sep();
                    self.stmt(st);
                }
                self.default = saved;
                self.sep();
                self.push("}");
            }
            StmtSpec::Edge { ops, key, comment } => {
                let mut operands: Vec<(Vec<usize>, u32)> = Vec::new();
                for (i, op) in ops.iter().enumerate() {
                    if i > 0 {
                        self.sep();
                        self.push("->");
                        self.sep();
                    }
                    match op {
                        Op::Node(n) => {
                            let line = self.line;
                            let node = self.node_ref(*n);
                            operands.push((vec![node], line));
                        }
                        Op::Set(names) => {
                            let set = self.set_operand(names, i == 0);
                            operands.push(set);
                        }
                    }
                }
                let own = self.attr_lists(*key, comment.as_ref());
                let key = key.map(Self::key_text);
                let effective = own
                    .clone()
                    .or_else(|| self.default.clone())
                    .unwrap_or(ExpComment::Absent);
                for pair in operands.windows(2) {
                    for &t in &pair[0].0 {
                        for &h in &pair[1].0 {
                            self.add_edge((t, h, pair[1].1), &key, &own, &effective);
                        }
                    }
                }
            }
        }
        if self.rng.one_in(2) {
            self.push(";");
        }
    }

    fn render(mut self) -> Expected {
        if self.rng.one_in(3) {
            self.push("/* LID: 1 is assigned to GUID: 0x0000000000100001 */\n");
        }
        if self.m.strict {
            self.keyword("strict");
            self.sep();
        }
        self.keyword("digraph");
        self.push(" ");
        if let Some(i) = self.m.graph_id {
            self.name_token(i);
            self.sep();
        }
        self.push("{");
        for s in &self.m.stmts {
            self.sep();
            self.stmt(s);
        }
        self.sep();
        self.push("}");
        if self.rng.one_in(3) {
            self.sep();
            self.push("\n");
        }
        self.exp.text = std::mem::take(&mut self.out);
        self.exp
    }
}

// ---------------------------------------------------------------------------------------
// Reading results back
// ---------------------------------------------------------------------------------------

fn our_comment(g: &DotGraph, e: &DotEdge) -> ExpComment {
    match e.comment {
        Comment::Absent => ExpComment::Absent,
        Comment::All => ExpComment::All,
        Comment::Tokens { .. } => ExpComment::Tokens(
            g.comment_tokens(e)
                .iter()
                .map(|&s| g.symbols.name(s).to_string())
                .collect(),
        ),
    }
}

fn our_edges(g: &DotGraph) -> Vec<ExpEdge> {
    g.edges
        .iter()
        .map(|e| ExpEdge {
            tail: g.node_name(e.tail).to_string(),
            head: g.node_name(e.head).to_string(),
            line: e.line,
            key: e.key.clone(),
            comment: our_comment(g, e),
        })
        .collect()
}

/// The spec's tokenization of a raw comment value.
fn split_comment(raw: &str) -> ExpComment {
    if raw == "*" {
        return ExpComment::All;
    }
    ExpComment::Tokens(
        raw.split([',', ' ', '\t', '\n', '\r'])
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Unescapes a dot quoted string body per the spec (`\"`, `\\`, line continuations).
fn unescape(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('"') => {
                chars.next();
                out.push('"');
            }
            Some('\\') => {
                chars.next();
                out.push_str("\\\\");
            }
            Some('\n') => {
                chars.next();
            }
            Some('\r') => {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.peek() == Some(&'\n') {
                    chars.next();
                    chars.next();
                } else {
                    out.push('\\');
                }
            }
            _ => out.push('\\'),
        }
    }
    out
}

fn gv_id(id: &Id) -> String {
    let inner = |s: &str| {
        s.get(1..s.len().saturating_sub(1))
            .unwrap_or("")
            .to_string()
    };
    match id {
        Id::Plain(s) | Id::Anonymous(s) => s.clone(),
        Id::Escaped(s) => unescape(&inner(s)),
        Id::Html(s) => inner(s),
    }
}

/// Walks graphviz-rust's AST with the same semantics (first-mention node order, subgraph
/// operands in node order, scoped edge defaults, strict merging).
#[derive(Default)]
struct GvWalk {
    strict: bool,
    nodes: Vec<String>,
    index: HashMap<String, usize>,
    edges: Vec<(usize, usize, Option<String>, Option<String>)>,
    pairs: HashMap<(usize, usize), usize>,
}

impl GvWalk {
    fn mention(&mut self, name: String) -> usize {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(name.clone());
        self.index.insert(name, i);
        i
    }

    fn last_attr(attrs: &[Attribute], name: &str) -> Option<String> {
        attrs
            .iter()
            .rev()
            .find(|Attribute(k, _)| gv_id(k) == name)
            .map(|Attribute(_, v)| gv_id(v))
    }

    fn vertex(
        &mut self,
        v: &Vertex,
        default: &Option<String>,
        mentions: &mut Vec<usize>,
    ) -> Vec<usize> {
        match v {
            Vertex::N(node_id) => {
                let n = self.mention(gv_id(&node_id.0));
                mentions.push(n);
                vec![n]
            }
            Vertex::S(sub) => {
                let mut set = self.stmts(&sub.stmts, default.clone());
                mentions.extend_from_slice(&set);
                set.sort_unstable();
                set.dedup();
                set
            }
        }
    }

    fn edge(
        &mut self,
        (t, h): (usize, usize),
        key: &Option<String>,
        own: &Option<String>,
        comment: &Option<String>,
    ) {
        if self.strict {
            if let Some(&e) = self.pairs.get(&(t, h)) {
                if key.is_some() {
                    self.edges[e].2.clone_from(key);
                }
                if own.is_some() {
                    self.edges[e].3.clone_from(own);
                }
                return;
            }
            self.pairs.insert((t, h), self.edges.len());
        }
        self.edges.push((t, h, key.clone(), comment.clone()));
    }

    /// Walks statements; returns every node mentioned in them.
    fn stmts(&mut self, stmts: &[Stmt], mut default: Option<String>) -> Vec<usize> {
        let mut mentions = Vec::new();
        for s in stmts {
            match s {
                Stmt::Node(node) => {
                    let n = self.mention(gv_id(&node.id.0));
                    mentions.push(n);
                }
                Stmt::Subgraph(sub) => {
                    let inner = self.stmts(&sub.stmts, default.clone());
                    mentions.extend(inner);
                }
                Stmt::GAttribute(GraphAttributes::Edge(attrs)) => {
                    if let Some(c) = Self::last_attr(attrs, "comment") {
                        default = Some(c);
                    }
                }
                Stmt::GAttribute(_) | Stmt::Attribute(_) => {}
                Stmt::Edge(edge) => {
                    let vertices: Vec<&Vertex> = match &edge.ty {
                        EdgeTy::Pair(a, b) => vec![a, b],
                        EdgeTy::Chain(v) => v.iter().collect(),
                    };
                    let sets: Vec<Vec<usize>> = vertices
                        .iter()
                        .map(|v| self.vertex(v, &default, &mut mentions))
                        .collect();
                    let key = Self::last_attr(&edge.attributes, "key");
                    let own = Self::last_attr(&edge.attributes, "comment");
                    let comment = own.clone().or_else(|| default.clone());
                    for pair in sets.windows(2) {
                        for &t in &pair[0] {
                            for &h in &pair[1] {
                                self.edge((t, h), &key, &own, &comment);
                            }
                        }
                    }
                }
            }
        }
        mentions
    }
}

/// Parses `text` with graphviz-rust and returns (node names, edges without lines).
fn graphviz_rust_view(text: &str) -> Result<(Vec<String>, Vec<ExpEdge>), String> {
    use graphviz_rust::dot_structures::Graph;
    let (strict, stmts) = match graphviz_rust::parse(text)? {
        Graph::DiGraph { strict, stmts, .. } => (strict, stmts),
        Graph::Graph { .. } => return Err("undirected".into()),
    };
    let mut walk = GvWalk {
        strict,
        ..GvWalk::default()
    };
    walk.stmts(&stmts, None);
    let edges = walk
        .edges
        .iter()
        .map(|(t, h, key, comment)| ExpEdge {
            tail: walk.nodes[*t].clone(),
            head: walk.nodes[*h].clone(),
            line: 0,
            key: key.clone(),
            comment: comment.as_deref().map_or(ExpComment::Absent, split_comment),
        })
        .collect();
    Ok((walk.nodes, edges))
}

fn without_lines(edges: &[ExpEdge]) -> Vec<ExpEdge> {
    edges
        .iter()
        .map(|e| ExpEdge {
            line: 0,
            ..e.clone()
        })
        .collect()
}

/// Structural invariants of any successfully parsed graph.
fn check_invariants(g: &DotGraph) {
    let n = g.nodes.len() as u32;
    for node in &g.nodes {
        assert!((node.symbol as usize) < g.symbols.len());
        assert!(node.line >= 1);
    }
    for e in &g.edges {
        assert!(e.tail < n && e.head < n, "edge endpoints out of range");
        if let Comment::Tokens { start, end } = e.comment {
            assert!(start <= end && end as usize <= g.comment_tokens.len());
        }
    }
    assert!(g
        .comment_tokens
        .iter()
        .all(|&s| (s as usize) < g.symbols.len()));
}

/// Fragments for the "dotty soup" fuzz property.
const SOUP: [&[u8]; 40] = [
    b"a",
    b"H01",
    b" ",
    b"\n",
    b"\r\n",
    b"\t",
    b"->",
    b"--",
    b"-",
    b"{",
    b"}",
    b"[",
    b"]",
    b"=",
    b";",
    b",",
    b":",
    b"\"",
    b"\\",
    b"\\\n",
    b"#",
    b"/*",
    b"*/",
    b"//",
    b"<",
    b">",
    b"+",
    b"1",
    b".",
    b"12ab",
    b"subgraph",
    b"edge",
    b"node",
    b"graph",
    b"key=1",
    b"comment=\"x, y\"",
    b"comment=\"*\"",
    b"\xc3\xa9",
    b"\xff",
    b"\0",
];

/// A reader that returns at most one byte per call.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn rendered_models_parse_back(model in model_strategy()) {
        let exp = Renderer::new(&model).render();
        let text = &exp.text;
        let parsed = parse_dot_str(text);
        if let Some((line, message)) = &exp.dup_key {
            let e = parsed.expect_err("a repeated (tail, head, key) must be an error");
            prop_assert_eq!(e.line, Some(*line), "{}\n{}", e, text);
            prop_assert!(e.message.contains(message.as_str()), "{}\n{}", e, text);
            return Ok(());
        }
        let g = match parsed {
            Ok(g) => g,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        check_invariants(&g);
        prop_assert_eq!(g.strict, model.strict);
        prop_assert_eq!(
            g.id.clone(),
            model.graph_id.map(|i| model.names[i].text.clone())
        );
        let nodes: Vec<(String, u32)> = g
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (g.node_name(i as u32).to_string(), n.line))
            .collect();
        prop_assert_eq!(&nodes, &exp.nodes, "{}", text);
        prop_assert_eq!(our_edges(&g), exp.edges.clone(), "{}", text);
        prop_assert_eq!(g.comment_declared, exp.comment_declared);

        if exp.gv_ok {
            let (gv_nodes, gv_edges) = graphviz_rust_view(text)
                .map_err(|e| TestCaseError::fail(format!("graphviz-rust: {e}\n{text}")))?;
            let our_nodes: Vec<String> = nodes.into_iter().map(|(n, _)| n).collect();
            prop_assert_eq!(our_nodes, gv_nodes, "{}", text);
            prop_assert_eq!(without_lines(&our_edges(&g)), gv_edges, "{}", text);
        }
    }

    #[test]
    fn trickled_input_parses_like_whole_input(model in model_strategy(), cap in 1usize..5) {
        let exp = Renderer::new(&model).render();
        let whole = parse_dot_str(&exp.text);
        let trickled = parse_dot(BufReader::with_capacity(cap, Trickle(exp.text.as_bytes())));
        match (whole, trickled) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.nodes, b.nodes);
                prop_assert_eq!(a.edges, b.edges);
                prop_assert_eq!(a.comment_tokens, b.comment_tokens);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(g) = parse_dot(&bytes[..]) {
            check_invariants(&g);
        }
        let mut prefixed = b"digraph {".to_vec();
        prefixed.extend_from_slice(&bytes);
        if let Ok(g) = parse_dot(&prefixed[..]) {
            check_invariants(&g);
        }
    }

    #[test]
    fn dotty_soup_never_panics(
        pieces in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..80),
    ) {
        let mut text = b"strict digraph {".to_vec();
        for p in &pieces {
            text.extend_from_slice(p);
        }
        if let Ok(g) = parse_dot(&text[..]) {
            check_invariants(&g);
        }
    }

    #[test]
    fn mutated_texts_never_panic(
        model in model_strategy(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), 0u8..5, any::<u8>(), 1usize..8),
            1..6,
        ),
    ) {
        let mut text = Renderer::new(&model).render().text.into_bytes();
        for (at, kind, byte, len) in edits {
            if text.is_empty() {
                break;
            }
            let i = at.index(text.len());
            let end = (i + len).min(text.len());
            match kind {
                0 => {
                    text.drain(i..end);
                }
                1 => text.insert(i, byte),
                2 => text[i] = byte,
                3 => {
                    let piece = text[i..end].to_vec();
                    text.splice(i..i, piece);
                }
                _ => text.truncate(i),
            }
        }
        if let Ok(g) = parse_dot(&text[..]) {
            check_invariants(&g);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Real fabrics
// ---------------------------------------------------------------------------------------

fn parse_file(path: &Path) -> DotGraph {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|x| x == "gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    parse_dot(reader).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn real_shared_fabrics() {
    let Some(dir) = shared("fabrics/orcs") else {
        return;
    };
    // (file, nodes, hosts, edges, ORCS format)
    let cases = [
        ("ft4-2/ft4-2.ftree.orcs.dot", 24, 16, 64, true),
        ("ft4-2/ft4-2.ftree.gng.dot", 24, 16, 64, false),
        ("ft8-3/ft8-3.ftree.orcs.dot", 704, 512, 3072, true),
        ("ft8-3/ft8-3.ftree.gng.dot.gz", 704, 512, 3072, false),
        ("ft8-3/ft8-3.minhop.orcs.dot.gz", 704, 512, 3072, true),
        ("ft12-3/ft12-3.ftree.orcs.dot.gz", 2160, 1728, 10368, true),
        ("ft16-3/ft16-3.ftree.orcs.dot.gz", 4864, 4096, 24576, true),
    ];
    let mut checked = 0;
    for (file, nodes, hosts, edges, orcs_format) in cases {
        let Some(path) = shared(&format!("fabrics/orcs/{file}")) else {
            continue;
        };
        let g = parse_file(&path);
        check_invariants(&g);
        assert_eq!(g.nodes.len(), nodes, "{file}");
        assert_eq!(g.edges.len(), edges, "{file}");
        let host_count = (0..g.nodes.len() as u32)
            .filter(|&n| g.node_name(n).starts_with('H'))
            .count();
        assert_eq!(host_count, hosts, "{file}");
        assert!(g.comment_declared, "{file}");
        assert!(!g.strict, "{file}");
        for e in &g.edges {
            assert!(e.key.is_some(), "{file}: edge without key");
            // Host -> switch edges route everything; all others list hosts.
            if g.node_name(e.tail).starts_with('H') {
                assert_eq!(e.comment, Comment::All, "{file}");
            } else {
                assert!(matches!(e.comment, Comment::Tokens { .. }), "{file}");
                assert!(!g.comment_tokens(e).is_empty(), "{file}");
            }
        }
        if orcs_format {
            assert_eq!(g.id.as_deref(), Some("network"));
            // Every comment token names a host node.
            let node_syms: HashSet<u32> = g.nodes.iter().map(|n| n.symbol).collect();
            assert!(g
                .comment_tokens
                .iter()
                .all(|s| node_syms.contains(s) && g.symbols.name(*s).starts_with('H')));
            // Each switch routes every host through exactly one of its out-edges.
            let mut per_switch: HashMap<u32, usize> = HashMap::new();
            for e in &g.edges {
                *per_switch.entry(e.tail).or_default() += g.comment_tokens(e).len();
            }
            for (&sw, &count) in &per_switch {
                if !g.node_name(sw).starts_with('H') {
                    assert_eq!(count, hosts, "{file}: switch {}", g.node_name(sw));
                }
            }
        }
        checked += 1;
    }
    println!(
        "checked {checked} real fabric files under {}",
        dir.display()
    );
}
