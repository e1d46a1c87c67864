//! Writers: a fabric as routed ORCS dot, as an ibsim `net` file, or as GraphML.

use super::{Fabric, FabricError};
use crate::escape::xml;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// A dot ID as written: bare when it is a plain identifier or numeral, quoted otherwise.
pub(crate) fn dot_id(id: &str) -> String {
    let plain_ident = id
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let numeral = !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && id.bytes().filter(|&b| b == b'.').count() <= 1
        && id != ".";
    let keyword = ["node", "edge", "graph", "digraph", "subgraph", "strict"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(id));
    if (plain_ident || numeral) && !keyword {
        id.to_string()
    } else {
        format!("\"{}\"", id.replace('"', "\\\""))
    }
}

/// Writes `fabric` as a routed dot graph that [`super::load_routed_fabric`] reads back to
/// the same fabric: every node declared first (so node order, edge ids and tie-breaks
/// survive), then every edge in edge-id order with its `key`, its other attributes, its
/// routing `comment`, and `extra(edge)` (which replaces input attributes of the same name).
/// Attributes are written `key` first, then alphabetically, like graphviz.
/// O(nodes + edges + comment tokens).
pub fn write_dot(
    out: &mut dyn Write,
    fabric: &Fabric,
    extra: &dyn Fn(u32) -> Vec<(String, String)>,
) -> io::Result<()> {
    match &fabric.graph_id {
        Some(id) => writeln!(out, "digraph {} {{", dot_id(id))?,
        None => writeln!(out, "digraph {{")?,
    }
    for (k, v) in &fabric.graph_attrs {
        writeln!(out, "\t{}={};", dot_id(k), dot_id(v))?;
    }
    for (v, name) in fabric.node_names.iter().enumerate() {
        write!(out, "\t{}", dot_id(name))?;
        write_attrs(out, fabric.node_attrs[v].clone())?;
        writeln!(out, ";")?;
    }
    for e in 0..fabric.num_edges() {
        let tail = &fabric.node_names[fabric.edge_tail[e] as usize];
        let head = &fabric.node_names[fabric.edge_head[e] as usize];
        let added = extra(e as u32);
        let mut attrs: Vec<(String, String)> = fabric.edge_attrs[e]
            .iter()
            .filter(|(k, _)| !added.iter().any(|(a, _)| a == k))
            .cloned()
            .collect();
        if let Some(comment) = fabric.edge_comments.text(e as u32) {
            attrs.push(("comment".into(), comment));
        }
        attrs.extend(added);
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(key) = &fabric.edge_keys[e] {
            attrs.insert(0, ("key".into(), key.clone()));
        }
        write!(out, "\t{} -> {}", dot_id(tail), dot_id(head))?;
        write_attrs(out, attrs)?;
        writeln!(out, ";")?;
    }
    writeln!(out, "}}")
}

fn write_attrs(out: &mut dyn Write, attrs: Vec<(String, String)>) -> io::Result<()> {
    if attrs.is_empty() {
        return Ok(());
    }
    let parts: Vec<String> = attrs
        .iter()
        .map(|(k, v)| format!("{}={}", dot_id(k), dot_id(v)))
        .collect();
    write!(out, " [{}]", parts.join(", "))
}

/// The port number of every edge at its tail: the edge's `key` when all keys of the
/// fabric are port numbers (as converted and lftsdump2dot fabrics have), otherwise the
/// position in the tail's out-edge list (1-based).
pub(crate) fn edge_ports(fabric: &Fabric) -> Vec<u32> {
    let keyed: Option<Vec<u32>> = fabric
        .edge_keys
        .iter()
        .map(|k| {
            k.as_deref()
                .and_then(|k| k.parse::<u32>().ok())
                .filter(|&p| p > 0)
        })
        .collect();
    match keyed {
        Some(ports) => ports,
        None => (0..fabric.num_edges() as u32)
            .map(|e| e - fabric.out_start[fabric.edge_tail[e as usize] as usize] + 1)
            .collect(),
    }
}

/// Writes `fabric` as an ibsim `net` file (spec infiniband-formats §5.1): one record per
/// node (`Hca` for hosts, `Switch` otherwise) in node order, one `[port] "peer"[port]`
/// line per cable end. The i-th edge u → v is paired with the i-th edge v → u, so
/// parallel cables stay distinct. ibsim assigns GUIDs itself. O(edges).
pub fn write_ibsim_net(out: &mut dyn Write, fabric: &Fabric) -> Result<(), FabricError> {
    let ports = edge_ports(fabric);
    let reverse = pair_reverse_edges(fabric)?;
    for v in 0..fabric.num_nodes() as u32 {
        let mut used: Vec<u32> = fabric.out_edges(v).map(|e| ports[e as usize]).collect();
        used.sort_unstable();
        if let Some(w) = used.windows(2).find(|w| w[0] == w[1]) {
            return Err(FabricError::PortTwice {
                node: fabric.node_names[v as usize].clone(),
                port: w[0],
            });
        }
        let nports = used.last().copied().unwrap_or(1).max(1);
        let kind = if fabric.host_of_node[v as usize] != super::NONE {
            "Hca"
        } else {
            "Switch"
        };
        writeln!(
            out,
            "{kind}\t{nports} \"{}\"",
            fabric.node_names[v as usize]
        )?;
        let mut lines: Vec<(u32, String)> = fabric
            .out_edges(v)
            .map(|e| {
                let r = reverse[e as usize];
                let peer = &fabric.node_names[fabric.edge_head[e as usize] as usize];
                (
                    ports[e as usize],
                    format!("[{}]\t\"{peer}\"[{}]", ports[e as usize], ports[r as usize]),
                )
            })
            .collect();
        lines.sort();
        for (_, line) in lines {
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// For every edge, the edge of the same cable in the opposite direction: the i-th edge
/// u → v (in edge order) pairs with the i-th edge v → u; self-loops pair in twos.
fn pair_reverse_edges(fabric: &Fabric) -> Result<Vec<u32>, FabricError> {
    let mut by_pair: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    for e in 0..fabric.num_edges() as u32 {
        let key = (fabric.edge_tail[e as usize], fabric.edge_head[e as usize]);
        by_pair.entry(key).or_default().push(e);
    }
    let one_way = |e: u32| FabricError::OneWayLink {
        edge: fabric.edge_label(e).to_string(),
    };
    let mut reverse = vec![u32::MAX; fabric.num_edges()];
    for (&(t, h), list) in &by_pair {
        if t == h {
            if list.len() % 2 == 1 {
                return Err(one_way(list[list.len() - 1]));
            }
            for pair in list.chunks(2) {
                reverse[pair[0] as usize] = pair[1];
                reverse[pair[1] as usize] = pair[0];
            }
            continue;
        }
        let back = by_pair.get(&(h, t)).map_or(&[][..], Vec::as_slice);
        if back.len() < list.len() {
            return Err(one_way(list[back.len()]));
        }
        for (&a, &b) in list.iter().zip(back) {
            reverse[a as usize] = b;
        }
    }
    Ok(reverse)
}

/// Writes `fabric` as GraphML in the PFSim/Gephi schema (spec pfsim §3.1): directed
/// edges, node `typ` (`host`/`switch`) and `capacity` (1), edge `capacity` (1) and
/// `port`, plus the routing `comment` of each edge. O(nodes + edges + comment tokens).
pub fn write_graphml(out: &mut dyn Write, fabric: &Fabric) -> io::Result<()> {
    let ports = edge_ports(fabric);
    writeln!(out, "<?xml version='1.0' encoding='utf-8'?>")?;
    writeln!(
        out,
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"name\" attr.type=\"string\" for=\"graph\" id=\"d0\" />"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"typ\" attr.type=\"string\" for=\"node\" id=\"d1\" />"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"capacity\" attr.type=\"long\" for=\"node\" id=\"d2\" />"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"capacity\" attr.type=\"long\" for=\"edge\" id=\"d5\" />"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"port\" attr.type=\"long\" for=\"edge\" id=\"d6\" />"
    )?;
    writeln!(
        out,
        "  <key attr.name=\"comment\" attr.type=\"string\" for=\"edge\" id=\"d7\" />"
    )?;
    writeln!(out, "  <graph edgedefault=\"directed\">")?;
    if let Some(id) = &fabric.graph_id {
        writeln!(out, "    <data key=\"d0\">{}</data>", xml(id))?;
    }
    for (v, name) in fabric.node_names.iter().enumerate() {
        let host = fabric.host_of_node[v] != super::NONE;
        writeln!(out, "    <node id=\"{}\">", xml(name))?;
        writeln!(
            out,
            "      <data key=\"d1\">{}</data>",
            if host { "host" } else { "switch" }
        )?;
        if host {
            writeln!(out, "      <data key=\"d2\">1</data>")?;
        }
        writeln!(out, "    </node>")?;
    }
    for (e, port) in ports.iter().enumerate() {
        writeln!(
            out,
            "    <edge source=\"{}\" target=\"{}\">",
            xml(&fabric.node_names[fabric.edge_tail[e] as usize]),
            xml(&fabric.node_names[fabric.edge_head[e] as usize])
        )?;
        writeln!(out, "      <data key=\"d5\">1</data>")?;
        writeln!(out, "      <data key=\"d6\">{port}</data>")?;
        if let Some(c) = fabric.edge_comments.text(e as u32) {
            writeln!(out, "      <data key=\"d7\">{}</data>", xml(&c))?;
        }
        writeln!(out, "    </edge>")?;
    }
    writeln!(out, "  </graph>")?;
    writeln!(out, "</graphml>")
}
