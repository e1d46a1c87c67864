//! Loading a routed dot file into a [`Fabric`] and its [`ForwardingTable`]: opening an
//! input (plain or gzip), and compiling a parsed dot graph into dense ids and forwarding
//! tables.

use super::dot::{parse_dot, Comment, DotGraph};
use super::{is_host_name, Fabric, NONE};
use crate::error::LocatedError;
use crate::routing::{comments_from_table, ForwardingTable, RouteSummary, NO_PORT};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

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
pub fn read_input(path: &str) -> Result<Box<dyn BufRead + Send>, LocatedError> {
    let io_err = |e: io::Error| LocatedError::new(path, format!("cannot read: {e}"));
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

/// Reads the whole text file `path` (`-` = standard input), gzip or not, as
/// [`read_input`] opens it; a file that is not UTF-8 is an error naming it.
pub fn read_text(path: &str) -> Result<String, LocatedError> {
    let mut text = String::new();
    read_input(path)?
        .read_to_string(&mut text)
        .map_err(|e| LocatedError::new(path, format!("cannot read: {e}")))?;
    Ok(text)
}

/// Reads and compiles a routed dot file (plain or gzip). See [`compile_dot`].
pub fn load_routed_fabric(path: &str, options: LoadOptions) -> Result<LoadedFabric, LocatedError> {
    load_routed_fabric_from(read_input(path)?, path, options)
}

/// Like [`load_routed_fabric`], from an open reader (`path` names it in messages).
pub fn load_routed_fabric_from(
    reader: impl BufRead,
    path: &str,
    options: LoadOptions,
) -> Result<LoadedFabric, LocatedError> {
    let graph = parse_dot(reader).map_err(|e| e.in_file(path))?;
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
) -> Result<LoadedFabric, LocatedError> {
    let (mut fabric, host_of_symbol) = dense_nodes(&graph);
    let order = add_edges(&graph, &mut fabric);
    if !graph.comment_declared && !options.topology_only {
        return Err(LocatedError::new(
            path,
            "no edge has a `comment` attribute, so the file carries no routing \
             (expected edges like `S1 -> H2 [comment=\"H2, H3\"]`)",
        ));
    }
    if let Some(&host_node) = fabric
        .hosts
        .iter()
        .find(|&&v| fabric.out_start[v as usize] == fabric.out_start[v as usize + 1])
    {
        return Err(LocatedError::at_line(
            path,
            fabric.node_lines[host_node as usize],
            format!(
                "host {} has no uplink (no edge leaves it)",
                fabric.node_names[host_node as usize]
            ),
        ));
    }
    let routes = Routes {
        graph: &graph,
        fabric: &fabric,
        order: &order,
        host_of_symbol: &host_of_symbol,
        path,
        orcs_compat: options.orcs_compat,
    };
    let mut notes = RouteNotes::default();
    let table = routes.table(&mut notes)?;
    let warnings = notes.warnings(path);
    fabric.edge_comments.tokens = graph.comment_tokens;
    fabric.edge_comments.symbols = graph.symbols;
    Ok(LoadedFabric {
        warnings,
        ..LoadedFabric::new(fabric, table)
    })
}

/// The fabric's nodes in graph order, hosts (names starting with `H`) numbered in that
/// order, without edges; and symbol → host index (or [`NONE`]) for comment tokens.
fn dense_nodes(graph: &DotGraph) -> (Fabric, Vec<u32>) {
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
    (fabric, host_of_symbol)
}

/// Adds the graph's edges in ORCS order (by tail, then head in node order, then creation
/// order) as a CSR index; returns each edge id's index in `graph.edges`.
fn add_edges(graph: &DotGraph, fabric: &mut Fabric) -> Vec<u32> {
    let num_nodes = graph.nodes.len();
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
    order
}

/// What the forwarding table is read from: the edges' comments.
struct Routes<'a> {
    graph: &'a DotGraph,
    fabric: &'a Fabric,
    /// Edge id → index in `graph.edges`.
    order: &'a [u32],
    /// Symbol → host index, or [`NONE`].
    host_of_symbol: &'a [u32],
    path: &'a str,
    orcs_compat: bool,
}

/// What reading the comments noted besides the table.
#[derive(Default)]
struct RouteNotes {
    unknown: UnknownTokens,
    /// (node, destination) pairs claimed by several out-edges (`orcs_compat`).
    ambiguous: u64,
}

impl Routes<'_> {
    /// The comment of edge `e`.
    fn comment_of(&self, e: u32) -> Comment {
        self.graph.edges[self.order[e as usize] as usize].comment
    }

    /// The comment tokens (symbols) of edge `e`.
    fn tokens_of(&self, e: u32) -> &[u32] {
        self.graph
            .comment_tokens(&self.graph.edges[self.order[e as usize] as usize])
    }

    /// Every node's row.
    fn table(&self, notes: &mut RouteNotes) -> Result<ForwardingTable, LocatedError> {
        let mut table = ForwardingTable::new(self.fabric);
        for v in 0..self.fabric.num_nodes() as u32 {
            if !self.uniform(&mut table, v, notes) {
                self.row(&mut table, v, notes)?;
            }
        }
        Ok(table)
    }

    /// Node `v` sends everything one way when no out-edge names a host and at most one is
    /// `*` (then that edge, or none); returns whether that is so and the row is set.
    fn uniform(&self, table: &mut ForwardingTable, v: u32, notes: &mut RouteNotes) -> bool {
        let edges = self.fabric.out_edges(v);
        let mut stars = edges
            .clone()
            .filter(|&e| self.comment_of(e) == Comment::All);
        let first_star = stars.next();
        let several_stars = stars.next().is_some();
        let names_host = |e: u32| {
            self.tokens_of(e)
                .iter()
                .any(|&s| self.host_of_symbol[s as usize] != NONE)
        };
        if several_stars || edges.clone().any(names_host) {
            return false;
        }
        if let Some(e) = first_star {
            table.set_uniform(v, e);
        }
        for e in edges {
            notes.unknown.note(self.graph, self.tokens_of(e));
        }
        true
    }

    /// Node `v`'s row: each destination host through the out-edge whose comment names it.
    fn row(
        &self,
        table: &mut ForwardingTable,
        v: u32,
        notes: &mut RouteNotes,
    ) -> Result<(), LocatedError> {
        let fabric = self.fabric;
        let num_hosts = fabric.num_hosts();
        let base = fabric.out_start[v as usize];
        let row = table.row_mut(fabric, v);
        let mut ambiguous = 0u64;
        for e in fabric.out_edges(v) {
            let port = (e - base) as u16;
            if port == NO_PORT {
                return Err(LocatedError::at_line(
                    self.path,
                    fabric.node_lines[v as usize],
                    format!(
                        "node {} has more than {} out-edges",
                        fabric.node_names[v as usize],
                        NO_PORT - 1
                    ),
                ));
            }
            let mut claim = |h: u32| -> Result<(), LocatedError> {
                let slot = &mut row[h as usize];
                if *slot == NO_PORT {
                    *slot = port;
                } else if *slot != port {
                    if !self.orcs_compat {
                        return Err(self.ambiguous_route(v, h, base + *slot as u32, e));
                    }
                    ambiguous += 1;
                }
                Ok(())
            };
            match self.comment_of(e) {
                Comment::All => {
                    for h in 0..num_hosts as u32 {
                        claim(h)?;
                    }
                }
                Comment::Absent => {}
                Comment::Tokens { .. } => {
                    for &s in self.tokens_of(e) {
                        match self.host_of_symbol[s as usize] {
                            NONE => notes.unknown.note(self.graph, &[s]),
                            h => claim(h)?,
                        }
                    }
                }
            }
        }
        notes.ambiguous += ambiguous;
        Ok(())
    }

    /// Edges `first` and `second` of node `v` both claim destination host `h`.
    fn ambiguous_route(&self, v: u32, h: u32, first: u32, second: u32) -> LocatedError {
        let fabric = self.fabric;
        LocatedError::at_line(
            self.path,
            fabric.edge_lines[second as usize],
            format!(
                "ambiguous route: node {} has two out-edges for destination {}: \
                 {} and {} (each destination must appear in the comment of \
                 exactly one out-edge; --orcs-compat takes the first)",
                fabric.node_names[v as usize],
                fabric.host_name(h),
                fabric.edge_label(first),
                fabric.edge_label(second),
            ),
        )
    }
}

impl RouteNotes {
    /// What the user should know about `path`: ignored comment tokens and ambiguous
    /// routes taken.
    fn warnings(&self, path: &str) -> Vec<String> {
        let mut warnings = Vec::new();
        if let Some(w) = self.unknown.warning() {
            warnings.push(format!("{path}: {w}"));
        }
        if self.ambiguous > 0 {
            warnings.push(format!(
                "{path}: {} (node, destination) pairs have several matching out-edges; \
                 the first edge in ORCS order is used (--orcs-compat)",
                self.ambiguous
            ));
        }
        warnings
    }
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
