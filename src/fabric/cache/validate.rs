//! Checking the sections of a cache against each other before anything indexes with
//! them: counts, ids, CSR offsets, the host list, comments, the forwarding table and the
//! route summary (see [`super`] for what is trusted and why). Every fault is a
//! [`LocatedError`] at the byte offset of the element at fault, saying what was expected.

use super::read::{Stored, StoredComments, StoredRoutes, StoredTable};
use crate::error::LocatedError;
use crate::fabric::dot::{Comment, SymbolTable};
use crate::fabric::{is_host_name, EdgeComments, Fabric, LoadedFabric, NONE};
use crate::routing::table::RawTableFault;
use crate::routing::{ForwardingTable, PortRows, RouteSummary};

/// The checked fabric, table, route summary (when the seal vouches for it) and warnings
/// of `stored`, read from `path`.
pub(super) fn validate(stored: Stored, path: &str) -> Result<LoadedFabric, LocatedError> {
    let at = |byte: u64, message: String| LocatedError::at_byte(path, byte, message);
    counts(&stored, &at)?;
    edge_offsets(&stored, &at)?;
    edge_ends(&stored, &at)?;
    let host_of_node = hosts(&stored, &at)?;
    let edges = stored.edge_head.items.len();
    let edge_comments = match &stored.comments {
        Some(c) => comments(c, edges, &at)?,
        None => EdgeComments::default(),
    };
    let (routes, warnings) = match &stored.routes {
        None => (None, Vec::new()),
        Some(_) if !stored.sealed => (
            None,
            vec![format!(
                "{path}: the stored route check does not match the file's content (it was changed after orcs wrote it); the routes are checked again"
            )],
        ),
        Some(r) => (Some(summary(r, &stored, &at)?), Vec::new()),
    };
    let Stored {
        graph_id,
        graph_attrs,
        node_names,
        node_lines,
        node_attrs,
        hosts,
        out_start,
        edge_tail,
        edge_head,
        edge_lines,
        edge_keys,
        edge_attrs,
        table,
        ..
    } = stored;
    let fabric = Fabric {
        graph_id,
        graph_attrs,
        node_names: node_names.items,
        node_lines: node_lines.items,
        node_attrs: node_attrs.items,
        hosts: hosts.items,
        host_of_node,
        out_start: out_start.items,
        edge_tail: edge_tail.items,
        edge_head: edge_head.items,
        edge_lines: edge_lines.items,
        edge_keys: edge_keys.items,
        edge_attrs: edge_attrs.items,
        edge_comments,
    };
    let table = forwarding_table(&fabric, table, &at)?;
    Ok(LoadedFabric {
        fabric,
        table,
        warnings,
        routes,
    })
}

/// Makes the error at a byte offset.
type At<'a> = dyn Fn(u64, String) -> LocatedError + 'a;

/// Every per-node and per-edge section has one item per node or edge, and ids fit
/// below the [`NONE`] sentinel.
fn counts(s: &Stored, at: &At) -> Result<(), LocatedError> {
    let (nodes, edges) = (s.node_names.items.len(), s.edge_head.items.len());
    if nodes >= NONE as usize {
        return Err(at(
            s.node_names.at,
            format!("{nodes} nodes; expected fewer than 2^32 - 1"),
        ));
    }
    if edges >= NONE as usize {
        return Err(at(
            s.edge_head.at,
            format!("{edges} edges; expected fewer than 2^32 - 1"),
        ));
    }
    let per_node = "one per node";
    let per_edge = "one per edge, as many as edge heads";
    let sections = [
        (
            "node lines",
            s.node_lines.at,
            s.node_lines.items.len(),
            nodes,
            per_node,
        ),
        (
            "node attributes",
            s.node_attrs.at,
            s.node_attrs.items.len(),
            nodes,
            per_node,
        ),
        (
            "edge offsets",
            s.out_start.at,
            s.out_start.items.len(),
            nodes + 1,
            "one per node and one more",
        ),
        (
            "edge tails",
            s.edge_tail.at,
            s.edge_tail.items.len(),
            edges,
            per_edge,
        ),
        (
            "edge lines",
            s.edge_lines.at,
            s.edge_lines.items.len(),
            edges,
            per_edge,
        ),
        (
            "edge keys",
            s.edge_keys.at,
            s.edge_keys.items.len(),
            edges,
            per_edge,
        ),
        (
            "edge attributes",
            s.edge_attrs.at,
            s.edge_attrs.items.len(),
            edges,
            per_edge,
        ),
        (
            "table row indices",
            s.table.row_of_node.at,
            s.table.row_of_node.items.len(),
            nodes,
            per_node,
        ),
        (
            "uniform table edges",
            s.table.uniform_edge.at,
            s.table.uniform_edge.items.len(),
            nodes,
            per_node,
        ),
    ];
    for (what, offset, found, expected, rule) in sections {
        if found != expected {
            return Err(at(
                offset,
                format!("the {what} section has {found} entries; expected {expected} ({rule})"),
            ));
        }
    }
    Ok(())
}

/// The CSR offsets start at 0, never decrease and end at the edge count.
fn edge_offsets(s: &Stored, at: &At) -> Result<(), LocatedError> {
    let offsets = &s.out_start;
    let o = &offsets.items;
    let nodes = s.node_names.items.len();
    if o[0] != 0 {
        return Err(at(
            offsets.item_at(0),
            format!("the first edge offset is {}; expected 0", o[0]),
        ));
    }
    if let Some(v) = (1..=nodes).find(|&v| o[v] < o[v - 1]) {
        return Err(at(
            offsets.item_at(v),
            format!(
                "edge offset {v} is {}, below offset {} ({}): expected non-decreasing offsets",
                o[v],
                v - 1,
                o[v - 1]
            ),
        ));
    }
    let edges = s.edge_head.items.len();
    if o[nodes] as usize != edges {
        return Err(at(
            offsets.item_at(nodes),
            format!(
                "the last edge offset is {}; expected the edge count {edges}",
                o[nodes]
            ),
        ));
    }
    Ok(())
}

/// Every edge's tail is the node whose range holds it, and its head is a node.
fn edge_ends(s: &Stored, at: &At) -> Result<(), LocatedError> {
    let o = &s.out_start.items;
    let names = &s.node_names.items;
    for v in 0..names.len() {
        for e in o[v] as usize..o[v + 1] as usize {
            let tail = s.edge_tail.items[e];
            if tail as usize != v {
                return Err(at(
                    s.edge_tail.item_at(e),
                    format!(
                        "edge {e} has tail node {tail}; expected node {v} ({}), whose edges are {}..{}",
                        names[v],
                        o[v],
                        o[v + 1]
                    ),
                ));
            }
            let head = s.edge_head.items[e];
            if head as usize >= names.len() {
                return Err(at(
                    s.edge_head.item_at(e),
                    format!(
                        "edge {e} has head node {head}; expected a node id below {}",
                        names.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The host list names, in node order and once each, exactly the nodes whose names make
/// them hosts; returns node → host index.
fn hosts(s: &Stored, at: &At) -> Result<Vec<u32>, LocatedError> {
    let names = &s.node_names.items;
    let list = &s.hosts;
    let mut host_of_node = vec![NONE; names.len()];
    for (h, &v) in list.items.iter().enumerate() {
        let fault = if v as usize >= names.len() {
            Some(format!("expected a node id below {}", names.len()))
        } else if h > 0 && v <= list.items[h - 1] {
            Some(format!(
                "expected a node after host {}'s node {}: hosts are listed in node order, each once",
                h - 1,
                list.items[h - 1]
            ))
        } else if !is_host_name(&names[v as usize]) {
            Some(format!(
                "'{}' is not a host: host names start with H",
                names[v as usize]
            ))
        } else {
            None
        };
        if let Some(expected) = fault {
            return Err(at(
                list.item_at(h),
                format!("host {h} names node {v}; {expected}"),
            ));
        }
        host_of_node[v as usize] = h as u32;
    }
    let unlisted = (0..names.len()).find(|&v| host_of_node[v] == NONE && is_host_name(&names[v]));
    if let Some(v) = unlisted {
        return Err(at(
            list.at,
            format!(
                "node {v} ('{}') is a host by its name but is not in the host list",
                names[v]
            ),
        ));
    }
    Ok(host_of_node)
}

/// The stored comments of `edges` edges, checked.
fn comments(c: &StoredComments, edges: usize, at: &At) -> Result<EdgeComments, LocatedError> {
    if c.kinds.items.len() != edges * 3 {
        return Err(at(
            c.kinds.at,
            format!(
                "the comment section has {} numbers; expected 3 per edge ({})",
                c.kinds.items.len(),
                edges * 3
            ),
        ));
    }
    let mut symbols = SymbolTable::new();
    for (i, name) in c.symbols.items.iter().enumerate() {
        if symbols.intern(name) as usize != i {
            return Err(at(
                c.symbols.at,
                format!("comment name '{name}' is stored twice; expected each name once"),
            ));
        }
    }
    let names = c.symbols.items.len();
    if let Some(i) = c.tokens.items.iter().position(|&t| t as usize >= names) {
        return Err(at(
            c.tokens.item_at(i),
            format!(
                "comment token {} names no symbol; expected an index below {names}",
                c.tokens.items[i]
            ),
        ));
    }
    let tokens = c.tokens.items.len();
    let mut kinds = Vec::with_capacity(edges);
    for (e, k) in c.kinds.items.chunks_exact(3).enumerate() {
        kinds.push(match k[0] {
            0 => Comment::Absent,
            1 => Comment::All,
            2 if k[1] <= k[2] && k[2] as usize <= tokens => Comment::Tokens {
                start: k[1],
                end: k[2],
            },
            _ => {
                return Err(at(
                    c.kinds.item_at(3 * e),
                    format!(
                        "the comment of edge {e} is ({}, {}, {}); expected kind 0 (none), 1 (*) or 2 with a token range within {tokens} tokens",
                        k[0], k[1], k[2]
                    ),
                ))
            }
        });
    }
    Ok(EdgeComments {
        kinds,
        tokens: c.tokens.items.clone(),
        symbols,
    })
}

/// The forwarding table of `fabric` (already checked), every entry in range.
fn forwarding_table(
    fabric: &Fabric,
    t: StoredTable,
    at: &At,
) -> Result<ForwardingTable, LocatedError> {
    let rows = t.ports.len().checked_div(t.num_hosts).unwrap_or(0);
    let no_route = match t.ports {
        PortRows::Narrow(_) => u8::MAX as u32,
        PortRows::Wide(_) => u16::MAX as u32,
    };
    let checked = ForwardingTable::check_raw_parts(
        fabric,
        t.num_hosts,
        &t.row_of_node.items,
        &t.uniform_edge.items,
        &t.ports,
    );
    let fault = match checked {
        Ok(()) => {
            return Ok(ForwardingTable::from_checked_parts(
                t.num_hosts,
                t.row_of_node.items,
                t.uniform_edge.items,
                t.ports,
            ))
        }
        Err(fault) => fault,
    };
    let StoredTable {
        hosts_at,
        num_hosts,
        row_of_node,
        uniform_edge,
        ..
    } = &t;
    let name = |v: usize| &fabric.node_names[v];
    let edges_of = |v: usize| format!("{}..{}", fabric.out_start[v], fabric.out_start[v + 1]);
    Err(match fault {
        RawTableFault::Sizes => at(
            *hosts_at,
            "the forwarding table's sizes do not match the fabric".to_string(),
        ),
        RawTableFault::NoRow { node } => at(
            row_of_node.item_at(node),
            format!(
                "node {node} ('{}') names table row {}; expected a row below {rows}, or {NONE} for none",
                name(node),
                row_of_node.items[node]
            ),
        ),
        RawTableFault::UniformEdge { node } => at(
            uniform_edge.item_at(node),
            format!(
                "node {node} ('{}') sends everything over edge {}; expected one of its edges {} or {NONE} for none",
                name(node),
                uniform_edge.items[node],
                edges_of(node)
            ),
        ),
        RawTableFault::Port { node, entry } => {
            let host = entry % num_hosts.max(&1);
            let degree = fabric.out_start[node + 1] - fabric.out_start[node];
            at(
                t.entry_at(entry),
                format!(
                    "the table entry of node {node} ('{}') towards host {host} ('{}') is port {}; expected a port below its {degree} out-edges, or {no_route} for no route",
                    name(node),
                    fabric.host_name(host as u32),
                    match &t.ports {
                        PortRows::Narrow(p) => p[entry] as u32,
                        PortRows::Wide(p) => p[entry] as u32,
                    },
                ),
            )
        }
    })
}

/// The stored route summary, sealed with the content, must also add up for this fabric.
fn summary(r: &StoredRoutes, s: &Stored, at: &At) -> Result<RouteSummary, LocatedError> {
    let summary = &r.summary;
    let hosts = s.hosts.items.len() as u64;
    let nodes = s.node_names.items.len();
    let routed: u64 = summary
        .path_lengths
        .iter()
        .fold(0u64, |a, &n| a.saturating_add(n));
    let fault = if summary.num_hosts as u64 != hosts {
        Some((
            r.at,
            format!(
                "it covers {} hosts; expected all {hosts}",
                summary.num_hosts
            ),
        ))
    } else if summary.pairs_checked != hosts * hosts.saturating_sub(1) {
        Some((
            r.at + 8,
            format!(
                "it checked {} pairs; expected every ordered pair of distinct hosts ({})",
                summary.pairs_checked,
                hosts * hosts.saturating_sub(1)
            ),
        ))
    } else if routed.saturating_add(summary.broken) != summary.pairs_checked {
        Some((
            r.at + 16,
            format!("{} broken and {routed} routed pairs; expected them to add up to the {} pairs checked", summary.broken, summary.pairs_checked),
        ))
    } else if summary.path_lengths.len() > nodes
        || summary.path_lengths.first().is_some_and(|&n| n > 0)
    {
        Some((
            r.at + 24,
            format!(
                "routes of {} edges; expected routes of 1 to {} edges",
                summary.path_lengths.len().saturating_sub(1),
                nodes.saturating_sub(1)
            ),
        ))
    } else {
        None
    };
    match fault {
        Some((offset, what)) => Err(at(
            offset,
            format!("the stored route check does not fit the fabric: {what}"),
        )),
        None => Ok(summary.clone()),
    }
}
