//! The input of a congestion map: a get_cable_cong result as JSON (`--format json`) or
//! as the dot map written with `-o`, told apart by content (`orcs map`), or a result
//! already read (`orcs report`).

use crate::error::LocatedError;
use crate::fabric::{load_routed_fabric_from, read_input, NONE};
use crate::report::results::ResultDoc;
use crate::viz::error::VizError;
use crate::viz::map::{CongestionGraph, MapEdge};
use rustc_hash::FxHashMap;
use std::io::{BufRead, Read};

/// The congestion graph of a JSON result, or of a dot map written by get_cable_cong
/// (whose edges carry the scaled value, kept to six decimals as the count).
/// O(input size).
pub fn read_congestion_graph(path: &str) -> Result<CongestionGraph, VizError> {
    let mut input = read_input(path)?;
    let read_error = |source| VizError::Read {
        path: path.to_string(),
        source,
    };
    // JSON or dot, told by the first character that is not white space.
    let starts_json = loop {
        let buf = input.fill_buf().map_err(read_error)?;
        if buf.starts_with(b"Input File:") {
            return Err(LocatedError::at_line(path, 1, "this is ORCS's edge table (-o with --orcs-compat); give `orcs map` the dot map of --metric get_cable_cong (-o map.dot) or a --format json result").into());
        }
        match buf.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(&b) => break b == b'{',
            None if buf.is_empty() => break false,
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    if starts_json {
        let mut text = String::new();
        input.read_to_string(&mut text).map_err(read_error)?;
        let doc = crate::report::results::parse_result(&text, path)?;
        return graph_of(&doc).ok_or_else(|| {
            LocatedError::new(path, "the result has no per-link congestion; run the simulation with --metric get_cable_cong").into()
        });
    }
    dot_map_graph(input, path)
}

/// The congestion graph of a get_cable_cong dot map: every edge must carry a
/// `congestion` value in [0, 1].
fn dot_map_graph(input: impl BufRead, path: &str) -> Result<CongestionGraph, VizError> {
    let loaded = load_routed_fabric_from(input, path, Default::default())?;
    let fabric = &loaded.fabric;
    let mut edges = Vec::with_capacity(fabric.num_edges());
    for e in 0..fabric.num_edges() {
        let value = fabric.edge_attrs[e]
            .iter()
            .find(|(k, _)| k == "congestion")
            .map(|(_, v)| v.parse::<f64>());
        let scaled = match value {
            Some(Ok(v)) if (0.0..=1.0).contains(&v) => v,
            _ => {
                return Err(LocatedError::at_line(
                    path,
                    fabric.edge_lines[e],
                    format!(
                        "edge {} has no congestion value in [0, 1]; expected the dot map of --metric get_cable_cong",
                        fabric.edge_label(e as u32)
                    ),
                )
                .into())
            }
        };
        edges.push(MapEdge {
            tail: fabric.edge_tail[e],
            head: fabric.edge_head[e],
            count: (scaled * 1e6).round() as u64,
            label: fabric.edge_keys[e].clone(),
        });
    }
    Ok(CongestionGraph {
        names: fabric.node_names.clone(),
        is_host: (0..fabric.num_nodes())
            .map(|v| fabric.host_of_node[v] != NONE)
            .collect(),
        edges,
        grouped: false,
    })
}

/// The congestion map input of a result with per-edge counts: nodes in order of first
/// appearance along the edge list, hosts by ORCS's naming rule (names starting with `H`).
pub(crate) fn graph_of(doc: &ResultDoc) -> Option<CongestionGraph> {
    let cables = doc.cable_congestion.as_ref()?;
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut names: Vec<String> = Vec::new();
    let mut edges = Vec::with_capacity(cables.len());
    for c in cables {
        let tail = intern(&mut ids, &mut names, &c.tail);
        let head = intern(&mut ids, &mut names, &c.head);
        edges.push(MapEdge {
            tail,
            head,
            count: c.count,
            label: c.key.clone(),
        });
    }
    let is_host = names.iter().map(|n| n.starts_with('H')).collect();
    Some(CongestionGraph {
        names,
        is_host,
        edges,
        grouped: false,
    })
}

/// The id of `name`, numbering new names in order of appearance.
fn intern<'a>(ids: &mut FxHashMap<&'a str, u32>, names: &mut Vec<String>, name: &'a str) -> u32 {
    *ids.entry(name).or_insert_with(|| {
        names.push(name.to_string());
        names.len() as u32 - 1
    })
}
