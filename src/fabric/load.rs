//! Loading a routed dot file into a [`Fabric`] and its [`ForwardingTable`].

use super::dot::{parse_dot, Comment, DotGraph};
use super::{is_host_name, Fabric, NONE};
use crate::routing::{comments_from_table, ForwardingTable, RouteSummary, NO_PORT};
use flate2::read::MultiGzDecoder;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// A load failure, naming the file and, where it applies, the line (an empty `path`
/// means the message names its files itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The input as the user named it (`-` for standard input).
    pub path: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u32>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.path.as_str(), self.line) {
            ("", _) => write!(f, "{}", self.message),
            (path, Some(line)) => write!(f, "{path}:{line}: {}", self.message),
            (path, None) => write!(f, "{path}: {}", self.message),
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    fn at(path: &str, line: u32, message: String) -> Self {
        LoadError {
            path: path.to_string(),
            line: (line > 0).then_some(line),
            message,
        }
    }
}

/// How to interpret a routed dot file.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// ORCS behaviour for ambiguous next hops: the first out-edge wins (with a warning)
    /// instead of an error.
    pub orcs_compat: bool,
    /// Accept a file without any routing comment (an empty table): for users that route
    /// on the fly from the topology, such as the traffic-matrix routers.
    pub topology_only: bool,
}

/// A fabric with the routing read from the same file.
#[derive(Debug, Clone, Default)]
pub struct LoadedFabric {
    /// The topology.
    pub fabric: Fabric,
    /// The forwarding tables from the edges' `comment` attributes.
    pub table: ForwardingTable,
    /// Things the user should know that are not errors (one line each).
    pub warnings: Vec<String>,
    /// The result of an earlier check of every host pair, when the input carried one (a
    /// fabric cache does), so that simulations need not check the routes again.
    pub routes: Option<RouteSummary>,
}

impl LoadedFabric {
    /// A fabric and its finished table (stored compactly, see
    /// [`ForwardingTable::compact`]), with no warnings and no stored route check.
    pub fn new(fabric: Fabric, mut table: ForwardingTable) -> Self {
        table.compact();
        LoadedFabric {
            fabric,
            table,
            warnings: Vec::new(),
            routes: None,
        }
    }

    /// Gives the fabric the routing comments of its table when it has none (a cache
    /// stores only the table when the comments are the table's own, and generated
    /// fabrics start without them). Writers of dot and GraphML need them.
    /// O(nodes × hosts) when filling, O(1) otherwise.
    pub fn fill_comments(&mut self) {
        if self.fabric.edge_comments.kinds.len() != self.fabric.num_edges() {
            self.fabric.edge_comments = comments_from_table(&self.fabric, &self.table);
        }
    }
}

/// Opens `path` (`-` = standard input) as a buffered reader, decompressing gzip when the
/// content starts with the gzip magic bytes, whatever the file is called.
pub fn read_input(path: &str) -> Result<Box<dyn BufRead + Send>, LoadError> {
    let io_err = |e: io::Error| LoadError {
        path: path.to_string(),
        line: None,
        message: format!("cannot read: {e}"),
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        if Path::new(path).is_dir() {
            return Err(io_err(io::Error::other("is a directory")));
        }
        Box::new(File::open(path).map_err(io_err)?)
    };
    let mut reader = BufReader::with_capacity(1 << 16, raw);
    let head = reader.fill_buf().map_err(io_err)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(reader),
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// Reads and compiles a routed dot file (plain or gzip). See [`compile_dot`].
pub fn load_routed_fabric(path: &str, options: LoadOptions) -> Result<LoadedFabric, LoadError> {
    load_routed_fabric_from(read_input(path)?, path, options)
}

/// Like [`load_routed_fabric`], from an open reader (`path` names it in messages).
pub fn load_routed_fabric_from(
    reader: impl BufRead,
    path: &str,
    options: LoadOptions,
) -> Result<LoadedFabric, LoadError> {
    let graph = parse_dot(reader).map_err(|e| LoadError::at(path, e.line, e.message))?;
    compile_dot(graph, path, options)
}

/// Turns a parsed dot graph into dense ids and forwarding tables (spec §2).
///
/// Hosts are the nodes whose name starts with `H`. Edge ids follow ORCS (§2.4). Each
/// edge's comment lists the destination hosts it carries (`*`: all); tokens that name no
/// host are ignored with one summary warning. Errors: no routing at all, a host without
/// an out-edge, and two out-edges of one node claiming the same destination (unless
/// `options.orcs_compat`, where the first one wins as in ORCS).
///
/// O(nodes + edges + comment tokens + rows × hosts).
pub fn compile_dot(
    graph: DotGraph,
    path: &str,
    options: LoadOptions,
) -> Result<LoadedFabric, LoadError> {
    let num_nodes = graph.nodes.len();
    let mut fabric = Fabric {
        graph_id: graph.id.clone(),
        graph_attrs: graph.graph_attrs.clone(),
        node_names: Vec::with_capacity(num_nodes),
        node_lines: Vec::with_capacity(num_nodes),
        node_attrs: Vec::with_capacity(num_nodes),
        host_of_node: vec![NONE; num_nodes],
        ..Fabric::default()
    };
    // Symbol → host index, for resolving comment tokens.
    let mut host_of_symbol = vec![NONE; graph.symbols.len()];
    for (v, node) in graph.nodes.iter().enumerate() {
        let name = graph.symbols.name(node.symbol);
        if is_host_name(name) {
            let h = fabric.hosts.len() as u32;
            host_of_symbol[node.symbol as usize] = h;
            fabric.host_of_node[v] = h;
            fabric.hosts.push(v as u32);
        }
        fabric.node_names.push(name.to_string());
        fabric.node_lines.push(node.line);
        fabric.node_attrs.push(node.attrs.clone());
    }

    // ORCS edge order: by tail, then head (node order), then creation order.
    let mut order: Vec<u32> = (0..graph.edges.len() as u32).collect();
    order.sort_by_key(|&i| {
        let e = &graph.edges[i as usize];
        (e.tail, e.head)
    });
    let num_edges = order.len();
    fabric.out_start = vec![0; num_nodes + 1];
    fabric.edge_tail.reserve(num_edges);
    fabric.edge_head.reserve(num_edges);
    for &i in &order {
        let e = &graph.edges[i as usize];
        fabric.out_start[e.tail as usize + 1] += 1;
        fabric.edge_tail.push(e.tail);
        fabric.edge_head.push(e.head);
        fabric.edge_lines.push(e.line);
        fabric.edge_keys.push(e.key.clone());
        fabric.edge_attrs.push(e.attrs.clone());
        fabric.edge_comments.kinds.push(e.comment);
    }
    for v in 0..num_nodes {
        fabric.out_start[v + 1] += fabric.out_start[v];
    }

    if !graph.comment_declared && !options.topology_only {
        return Err(LoadError::at(
            path,
            0,
            "no edge has a `comment` attribute, so the file carries no routing \
             (expected edges like `S1 -> H2 [comment=\"H2, H3\"]`)"
                .to_string(),
        ));
    }
    if let Some(&host_node) = fabric
        .hosts
        .iter()
        .find(|&&v| fabric.out_start[v as usize] == fabric.out_start[v as usize + 1])
    {
        return Err(LoadError::at(
            path,
            fabric.node_lines[host_node as usize],
            format!(
                "host {} has no uplink (no edge leaves it)",
                fabric.node_names[host_node as usize]
            ),
        ));
    }

    let mut table = ForwardingTable::new(&fabric);
    let mut unknown = UnknownTokens::default();
    let mut ambiguous = 0u64;
    let num_hosts = fabric.num_hosts();
    for v in 0..num_nodes as u32 {
        let edges = fabric.out_edges(v);
        let comment_of = |e: u32| graph.edges[order[e as usize] as usize].comment;
        let tokens_of = |e: u32| graph.comment_tokens(&graph.edges[order[e as usize] as usize]);
        // Uniform when one `*` edge and no other edge names a host.
        let stars: Vec<u32> = edges
            .clone()
            .filter(|&e| comment_of(e) == Comment::All)
            .collect();
        let names_host = |e: u32| {
            tokens_of(e)
                .iter()
                .any(|&s| host_of_symbol[s as usize] != NONE)
        };
        let listing: Vec<u32> = edges.clone().filter(|&e| names_host(e)).collect();
        if listing.is_empty() && stars.len() <= 1 {
            if let Some(&e) = stars.first() {
                table.set_uniform(v, e);
            }
            for e in edges {
                unknown.note(&graph, tokens_of(e));
            }
            continue;
        }
        let base = fabric.out_start[v as usize];
        let row = table.row_mut(&fabric, v);
        for e in edges {
            let port = (e - base) as u16;
            if port == NO_PORT {
                return Err(LoadError::at(
                    path,
                    fabric.node_lines[v as usize],
                    format!(
                        "node {} has more than {} out-edges",
                        fabric.node_names[v as usize],
                        NO_PORT - 1
                    ),
                ));
            }
            let mut claim = |h: u32| -> Result<(), LoadError> {
                let slot = &mut row[h as usize];
                if *slot == NO_PORT {
                    *slot = port;
                } else if *slot != port {
                    if !options.orcs_compat {
                        let first = base + *slot as u32;
                        return Err(LoadError::at(
                            path,
                            fabric.edge_lines[e as usize],
                            format!(
                                "ambiguous route: node {} has two out-edges for destination {}: \
                                 {} and {} (each destination must appear in the comment of \
                                 exactly one out-edge; --orcs-compat takes the first)",
                                fabric.node_names[v as usize],
                                fabric.host_name(h),
                                fabric.edge_label(first),
                                fabric.edge_label(e),
                            ),
                        ));
                    }
                    ambiguous += 1;
                }
                Ok(())
            };
            match comment_of(e) {
                Comment::All => {
                    for h in 0..num_hosts as u32 {
                        claim(h)?;
                    }
                }
                Comment::Absent => {}
                Comment::Tokens { .. } => {
                    for &s in tokens_of(e) {
                        match host_of_symbol[s as usize] {
                            NONE => unknown.note(&graph, &[s]),
                            h => claim(h)?,
                        }
                    }
                }
            }
        }
    }

    let mut warnings = Vec::new();
    if let Some(w) = unknown.warning() {
        warnings.push(format!("{path}: {w}"));
    }
    if ambiguous > 0 {
        warnings.push(format!(
            "{path}: {ambiguous} (node, destination) pairs have several matching out-edges; \
             the first edge in ORCS order is used (--orcs-compat)"
        ));
    }
    fabric.edge_comments.tokens = graph.comment_tokens;
    fabric.edge_comments.symbols = graph.symbols;
    Ok(LoadedFabric {
        warnings,
        ..LoadedFabric::new(fabric, table)
    })
}

/// Counts comment tokens that name no host (callers pass only those), keeping a few
/// examples.
#[derive(Default)]
struct UnknownTokens {
    count: u64,
    examples: Vec<String>,
}

impl UnknownTokens {
    const EXAMPLES: usize = 3;

    fn note(&mut self, graph: &DotGraph, symbols: &[u32]) {
        for &s in symbols {
            let name = graph.symbols.name(s);
            self.count += 1;
            if self.examples.len() < Self::EXAMPLES && !self.examples.iter().any(|x| x == name) {
                self.examples.push(name.to_string());
            }
        }
    }

    fn warning(&self) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "{} comment entries name no host of the fabric and were ignored (e.g. {})",
                self.count,
                self.examples.join(", ")
            )
        })
    }
}
