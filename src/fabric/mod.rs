//! The fabric model: hosts, switches and directed links with dense ids, and reading and
//! writing it.
//!
//! A [`Fabric`] is the topology only (who is connected to whom, in the edge numbering
//! ORCS uses); the destination-based forwarding tables live in [`crate::routing`]. Both
//! are built together from a routed dot file by [`load_routed_fabric`], from a binary
//! cache by [`cache::read_cache`], or from InfiniBand dumps through [`input::load_input`].
//!
//! Reading fails only on an input, with a [`LocatedError`] naming the file (and line) at
//! fault; [`FabricError`] is why a fabric cannot be written.
//!
//! This folder may use [`crate::error`], the forwarding table and route check of
//! [`crate::routing`], and the InfiniBand parsers and conversion of [`crate::ib`] (for
//! [`input`] only).

pub mod cache;
pub mod dot;
pub mod input;
mod load;
pub mod write;

pub use load::{
    compile_dot, load_routed_fabric, load_routed_fabric_from, read_input, read_text, LoadOptions,
    LoadedFabric,
};

use crate::error::LocatedError;
use std::fmt;
use std::io;

/// Why a fabric cannot be written: the output format cannot express it, or the output
/// failed.
#[derive(Debug, thiserror::Error)]
pub enum FabricError {
    /// ibsim needs every cable in both directions.
    #[error("edge {edge} has no edge in the opposite direction; ibsim needs every cable listed from both ends")]
    OneWayLink {
        /// The edge, described.
        edge: String,
    },
    /// Keys are used as port numbers and must be distinct per node.
    #[error("node {node} uses port {port} twice (edge keys are taken as port numbers)")]
    PortTwice {
        /// The node.
        node: String,
        /// The port.
        port: u32,
    },
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Sentinel for "no such id" in the dense u32 arrays.
pub const NONE: u32 = u32::MAX;

/// A topology with dense ids: nodes `0..num_nodes`, hosts `0..num_hosts` (a subset of the
/// nodes, in node order), directed edges `0..num_edges`.
///
/// Edges are numbered the way ORCS numbers them (spec §2.4): in node order of their tail,
/// and within one tail by the node order of their head, then by creation order. The
/// out-edges of node `v` are therefore the contiguous range
/// `out_start[v]..out_start[v + 1]` (a CSR layout).
#[derive(Debug, Clone, Default)]
pub struct Fabric {
    /// The graph's name in the input, if any.
    pub graph_id: Option<String>,
    /// Graph attributes from the input, kept for writers.
    pub graph_attrs: Vec<(String, String)>,
    /// Node names in order of first appearance in the input.
    pub node_names: Vec<String>,
    /// Input line of each node's first appearance (0 when not from a file).
    pub node_lines: Vec<u32>,
    /// Node attributes from the input, kept for writers.
    pub node_attrs: Vec<Vec<(String, String)>>,
    /// Host index → node id.
    pub hosts: Vec<u32>,
    /// Node id → host index, or [`NONE`] for switches.
    pub host_of_node: Vec<u32>,
    /// CSR offsets into the edge arrays, one per node plus one.
    pub out_start: Vec<u32>,
    /// Tail node of each edge.
    pub edge_tail: Vec<u32>,
    /// Head node of each edge.
    pub edge_head: Vec<u32>,
    /// Input line of each edge (0 when not from a file).
    pub edge_lines: Vec<u32>,
    /// The `key` attribute of each edge (port numbers or labels), if any.
    pub edge_keys: Vec<Option<String>>,
    /// Other edge attributes from the input (not `key`, not `comment`), kept for writers.
    pub edge_attrs: Vec<Vec<(String, String)>>,
    /// Each edge's routing comment as given in the input, kept for writers. Empty (no
    /// entry per edge) when the comments are the forwarding table's own and have not been
    /// derived yet (see [`LoadedFabric::fill_comments`]).
    pub edge_comments: EdgeComments,
}

/// The `comment` attributes of the edges, token by token (names interned once).
#[derive(Debug, Clone, Default)]
pub struct EdgeComments {
    /// Per edge: absent, `*`, or a range of `tokens`.
    pub kinds: Vec<dot::Comment>,
    /// Symbol ids of the comment tokens.
    pub tokens: Vec<u32>,
    /// The names behind the symbol ids.
    pub symbols: dot::SymbolTable,
}

impl EdgeComments {
    /// Comments from per-edge host lists (symbol ids in `symbols`); edges flagged in
    /// `all` get `*` instead of their list.
    pub(crate) fn from_lists(
        symbols: dot::SymbolTable,
        lists: Vec<Vec<u32>>,
        all: &[bool],
    ) -> Self {
        let mut comments = EdgeComments {
            kinds: Vec::with_capacity(lists.len()),
            tokens: Vec::new(),
            symbols,
        };
        for (list, &everything) in lists.into_iter().zip(all) {
            let kind = if everything {
                dot::Comment::All
            } else {
                let start = comments.tokens.len() as u32;
                comments.tokens.extend(list);
                dot::Comment::Tokens {
                    start,
                    end: comments.tokens.len() as u32,
                }
            };
            comments.kinds.push(kind);
        }
        comments
    }

    /// Edge `edge`'s comment text: tokens joined by `, `, `*`, or `None` when absent.
    pub fn text(&self, edge: u32) -> Option<String> {
        match self.kinds.get(edge as usize)? {
            dot::Comment::Absent => None,
            dot::Comment::All => Some("*".to_string()),
            dot::Comment::Tokens { start, end } => Some(
                self.tokens[*start as usize..*end as usize]
                    .iter()
                    .map(|&t| self.symbols.name(t))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        }
    }
}

impl Fabric {
    /// Number of nodes (hosts and switches).
    pub fn num_nodes(&self) -> usize {
        self.node_names.len()
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// Number of switches (every node that is not a host).
    pub fn num_switches(&self) -> usize {
        self.num_nodes() - self.num_hosts()
    }

    /// Number of directed edges (links in one direction).
    pub fn num_edges(&self) -> usize {
        self.edge_head.len()
    }

    /// The out-edge ids of `node`, in ORCS order.
    pub fn out_edges(&self, node: u32) -> std::ops::Range<u32> {
        self.out_start[node as usize]..self.out_start[node as usize + 1]
    }

    /// Name of host `host`.
    pub fn host_name(&self, host: u32) -> &str {
        &self.node_names[self.hosts[host as usize] as usize]
    }

    /// A readable description of an edge: `tail -> head` plus its key when it has one.
    pub fn edge_label(&self, edge: u32) -> EdgeLabel<'_> {
        EdgeLabel { fabric: self, edge }
    }

    /// The GUID ORCS derives from a host name (spec §4.3): the name without its first
    /// character read like C `strtoul(s, NULL, 16)`.
    pub(crate) fn host_guid(&self, host: u32) -> u64 {
        guid_from_host_name(self.host_name(host))
    }
}

/// Display helper for an edge, see [`Fabric::edge_label`].
pub struct EdgeLabel<'a> {
    fabric: &'a Fabric,
    edge: u32,
}

impl fmt::Display for EdgeLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.edge as usize;
        let fab = self.fabric;
        write!(
            f,
            "{} -> {}",
            fab.node_names[fab.edge_tail[e] as usize], fab.node_names[fab.edge_head[e] as usize]
        )?;
        if let Some(key) = &fab.edge_keys[e] {
            write!(f, " [key={key}]")?;
        }
        if fab.edge_lines[e] > 0 {
            write!(f, " (line {})", fab.edge_lines[e])?;
        }
        Ok(())
    }
}

impl Fabric {
    /// Each edge's capacity from its `capacity` attribute (1.0 where absent). An edge
    /// whose value is not a positive number is an error naming `path` (the file the
    /// fabric was read from), the edge's input line when it has one, and what was
    /// expected. O(edges).
    pub fn edge_capacities(&self, path: &str) -> Result<Vec<f64>, LocatedError> {
        (0..self.num_edges())
            .map(
                |e| match self.edge_attrs[e].iter().find(|(k, _)| k == "capacity") {
                    None => Ok(1.0),
                    Some((_, v)) => match v.trim_matches('"').parse::<f64>() {
                        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
                        _ => Err(LocatedError::at(
                            path,
                            Some(self.edge_lines[e]).filter(|&l| l > 0),
                            format!("edge capacity \"{v}\" is not a positive number"),
                        )),
                    },
                },
            )
            .collect()
    }
}

/// True if ORCS treats a node of this name as a host: the name starts with `H`.
pub(crate) fn is_host_name(name: &str) -> bool {
    name.starts_with('H')
}

/// ORCS's host GUID (spec §4.3): `strtoul(name + 1, NULL, 16)` semantics — optional
/// leading white space, optional sign, optional `0x`, hex digits up to the first other
/// character; no digits gives 0; overflow saturates at `u64::MAX`.
pub fn guid_from_host_name(name: &str) -> u64 {
    let rest = name.get(1..).unwrap_or("");
    parse_strtoul_hex(rest)
}

/// C `strtoul(s, NULL, 16)` on a string, saturating on overflow.
pub(crate) fn parse_strtoul_hex(s: &str) -> u64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits_of = |t: &str| t.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
    let s = match s.get(..2) {
        Some("0x") | Some("0X") if digits_of(&s[2..]) > 0 => &s[2..],
        _ => s,
    };
    let mut value: u64 = 0;
    for b in s.bytes().take_while(|b| b.is_ascii_hexdigit()) {
        let d = (b as char).to_digit(16).unwrap_or(0) as u64;
        match value.checked_mul(16).and_then(|v| v.checked_add(d)) {
            Some(v) => value = v,
            None => return u64::MAX,
        }
    }
    if negative {
        value.wrapping_neg()
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_follows_strtoul() {
        assert_eq!(guid_from_host_name("H0000000000100019"), 0x100019);
        assert_eq!(guid_from_host_name("H00010"), 16);
        assert_eq!(guid_from_host_name("H_n1"), 0);
        assert_eq!(guid_from_host_name("H0x1f"), 0x1f);
        assert_eq!(guid_from_host_name("H0xg"), 0);
        assert_eq!(guid_from_host_name("H  ab-"), 0xab);
        assert_eq!(guid_from_host_name("H-1"), u64::MAX);
        assert_eq!(guid_from_host_name("H"), 0);
        assert_eq!(guid_from_host_name("H11112222333344445"), u64::MAX);
    }

    #[test]
    fn host_names_start_with_capital_h() {
        assert!(is_host_name("H1"));
        assert!(is_host_name("Hswitch"));
        assert!(!is_host_name("h1"));
        assert!(!is_host_name("S0_0"));
    }
}
