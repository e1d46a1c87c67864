//! The cluster model of PFSim-style studies: hosts with processing elements and links
//! with capacities, read from PFSim's GraphML schema or from any fabric orcs reads.

use crate::error::LocatedError;
use crate::workload::matrix::{located, parse_index, show};
use rustc_hash::FxHashMap;
use std::io::Read;

/// A PFSim cluster read from GraphML: hosts carry processing elements, edges capacities.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cluster {
    /// The graph's `name` attribute, if any.
    pub name: Option<String>,
    /// Node names in file order.
    pub names: Vec<String>,
    /// Per node: true for `typ` = host.
    pub is_host: Vec<bool>,
    /// Host index → node id, in file order (the host order of the Linear selector and D-mod-K).
    pub hosts: Vec<u32>,
    /// Per host index: processing elements (`capacity`, default 1).
    pub host_pes: Vec<u32>,
    /// Directed edges in file order: (tail, head, capacity; default 1.0 where absent).
    pub edges: Vec<(u32, u32, f64)>,
    /// Per node: indices into `edges` of its out-edges, in file order (the adjacency
    /// insertion order networkx uses, which decides PFSim's shortest-path enumeration order).
    pub out_edges: Vec<Vec<u32>>,
}

impl Cluster {
    /// The cluster of a fabric, its routing ignored: hosts in the fabric's host order,
    /// edges in its edge order. A host's processing elements come from its `capacity`
    /// attribute (default 1), a link's capacity from the edge's `capacity` attribute
    /// (default 1.0); a value that is not a positive number is an error naming `path`
    /// and the input line. O(nodes + edges).
    pub fn from_fabric(
        fabric: &crate::fabric::Fabric,
        path: &str,
    ) -> Result<Cluster, LocatedError> {
        let n = fabric.num_nodes();
        let mut host_pes = Vec::with_capacity(fabric.num_hosts());
        for &node in &fabric.hosts {
            let v = node as usize;
            let line = Some(fabric.node_lines[v] as usize).filter(|&l| l > 0);
            let pes = match fabric.node_attrs[v].iter().find(|(k, _)| k == "capacity") {
                None => 1,
                Some((_, text)) => match text.trim_matches('"').parse::<u32>() {
                    Ok(p) if p > 0 => p,
                    _ => {
                        return Err(located(
                            path,
                            line,
                            format!("host capacity \"{text}\" is not a positive whole number of processing elements"),
                        ))
                    }
                },
            };
            host_pes.push(pes);
        }
        let capacity = fabric.edge_capacities().map_err(|(line, message)| {
            located(path, Some(line as usize).filter(|&l| l > 0), message)
        })?;
        let mut edges = Vec::with_capacity(fabric.num_edges());
        let mut out_edges = vec![Vec::new(); n];
        for (e, &cap) in capacity.iter().enumerate() {
            let (u, v) = (fabric.edge_tail[e], fabric.edge_head[e]);
            out_edges[u as usize].push(e as u32);
            edges.push((u, v, cap));
        }
        Ok(Cluster {
            name: fabric.graph_id.clone(),
            names: fabric.node_names.clone(),
            is_host: (0..n)
                .map(|v| fabric.host_of_node[v] != crate::fabric::NONE)
                .collect(),
            hosts: fabric.hosts.clone(),
            host_pes,
            edges,
            out_edges,
        })
    }
}

/// Reads a cluster: PFSim GraphML (a `.graphml` name or a file that starts with XML), or
/// any fabric `orcs -i` reads (dot, `.orcsfab`), whose routing is then ignored (see
/// [`Cluster::from_fabric`]). O(file size).
pub fn read_cluster(path: &str) -> Result<Cluster, LocatedError> {
    let looks_xml = path.ends_with(".graphml")
        || std::fs::File::open(path)
            .and_then(|mut f| {
                let mut head = [0u8; 64];
                let n = f.read(&mut head)?;
                Ok(String::from_utf8_lossy(&head[..n])
                    .trim_start()
                    .starts_with('<'))
            })
            .unwrap_or(false);
    if looks_xml {
        return read_cluster_graphml(path);
    }
    let spec = crate::fabric::input::InputSpec {
        path: path.to_string(),
        topology_only: true,
        ..Default::default()
    };
    let loaded = crate::fabric::input::load_input(&spec)
        .map_err(|e| LocatedError::at(path, e.line, e.message))?;
    Cluster::from_fabric(&loaded.fabric, path)
}

/// Reads a GraphML cluster file; see [`parse_cluster_graphml`]. O(file size).
pub fn read_cluster_graphml(path: &str) -> Result<Cluster, LocatedError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| located(path, None, format!("cannot read: {e}")))?;
    parse_cluster_graphml(&text, path)
}

/// Parses PFSim's GraphML cluster schema (spec §3.1); `path` only names the file in errors.
///
/// `<data key=…>` is resolved through the `<key attr.name=…>` declarations (ids vary between
/// files). Every node needs `typ` = `host` or `switch`; hosts take `capacity` (processing
/// elements, default 1); edges take `capacity` (default 1.0; must be positive). A repeated
/// `<node>` id merges its data into the first one and keeps the first position, and a
/// repeated directed edge updates the first one, as networkx does. Edges never create
/// nodes: an unknown endpoint is an error. `edgedefault="undirected"` (or an edge with
/// `directed="false"`) adds both directions, tail→head then head→tail. Key `<default>`
/// values are ignored, as in networkx 1.11 which PFSim used. Only the first `<graph>` is read.
///
/// O(file size) time with hashing of node ids and edge pairs.
pub fn parse_cluster_graphml(text: &str, path: &str) -> Result<Cluster, LocatedError> {
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        located(
            path,
            Some(e.pos().row as usize),
            format!("invalid XML: {e}"),
        )
    })?;
    let line_of = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row as usize;
    let root = doc.root_element();
    if root.tag_name().name() != "graphml" {
        return Err(located(
            path,
            Some(line_of(root)),
            format!(
                "expected a <graphml> root element, found <{}>",
                root.tag_name().name()
            ),
        ));
    }
    // key id -> attribute name
    let mut keys: FxHashMap<&str, &str> = FxHashMap::default();
    for k in root.children().filter(|n| n.has_tag_name_local("key")) {
        let (Some(id), Some(name)) = (k.attribute("id"), k.attribute("attr.name")) else {
            return Err(located(
                path,
                Some(line_of(k)),
                "<key> needs both `id` and `attr.name`",
            ));
        };
        keys.insert(id, name);
    }
    let Some(graph) = root.children().find(|n| n.has_tag_name_local("graph")) else {
        return Err(located(path, None, "no <graph> element"));
    };
    let directed = match graph.attribute("edgedefault") {
        None | Some("directed") => true,
        Some("undirected") => false,
        Some(other) => {
            return Err(located(
                path,
                Some(line_of(graph)),
                format!(
                    "edgedefault `{}` (expected `directed` or `undirected`)",
                    show(other)
                ),
            ))
        }
    };
    // Resolves the <data> children of an element to (attribute name, text, line).
    let data_of =
        |el: roxmltree::Node<'_, '_>| -> Result<Vec<(&str, String, usize)>, LocatedError> {
            let mut out = Vec::new();
            for d in el.children().filter(|n| n.has_tag_name_local("data")) {
                let line = line_of(d);
                let Some(key) = d.attribute("key") else {
                    return Err(located(path, Some(line), "<data> without `key`"));
                };
                let Some(&name) = keys.get(key) else {
                    return Err(located(
                        path,
                        Some(line),
                        format!("<data key=\"{}\"> has no <key> declaration", show(key)),
                    ));
                };
                let text: String = d
                    .descendants()
                    .filter(|n| n.is_text())
                    .filter_map(|n| n.text())
                    .collect();
                out.push((name, text.trim().to_string(), line));
            }
            Ok(out)
        };

    let mut cluster = Cluster::default();
    for d in data_of(graph)? {
        if d.0 == "name" {
            cluster.name = Some(d.1);
        }
    }
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    let mut typ: Vec<Option<String>> = Vec::new();
    let mut pes: Vec<Option<u32>> = Vec::new();
    let mut first_line: Vec<usize> = Vec::new();
    let mut edge_index: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut edge_caps: Vec<Option<f64>> = Vec::new();
    let mut pending_edges: Vec<(roxmltree::Node, usize)> = Vec::new();

    for el in graph.children().filter(|n| n.is_element()) {
        let line = line_of(el);
        match el.tag_name().name() {
            "node" => {
                let Some(id) = el.attribute("id") else {
                    return Err(located(path, Some(line), "<node> without `id`"));
                };
                if el.children().any(|c| c.has_tag_name_local("graph")) {
                    return Err(located(path, Some(line), "nested graphs are not supported"));
                }
                let v = match index.get(id) {
                    Some(&v) => v as usize,
                    None => {
                        let v = cluster.names.len();
                        if v >= u32::MAX as usize {
                            return Err(located(path, Some(line), "too many nodes"));
                        }
                        index.insert(id, v as u32);
                        cluster.names.push(id.to_string());
                        typ.push(None);
                        pes.push(None);
                        first_line.push(line);
                        v
                    }
                };
                for (name, value, dline) in data_of(el)? {
                    match name {
                        "typ" => typ[v] = Some(value),
                        "capacity" => {
                            let pe = parse_index(&value)
                                .filter(|&p| p <= u32::MAX as u64)
                                .ok_or_else(|| {
                                    located(
                                        path,
                                        Some(dline),
                                        format!(
                                            "node `{}`: capacity `{}` (expected a non-negative integer: processing elements)",
                                            show(id),
                                            show(&value)
                                        ),
                                    )
                                })?;
                            pes[v] = Some(pe as u32);
                        }
                        _ => {}
                    }
                }
            }
            "edge" => pending_edges.push((el, line)),
            "hyperedge" => return Err(located(path, Some(line), "hyperedges are not supported")),
            _ => {}
        }
    }
    // Node types, hosts.
    for v in 0..cluster.names.len() {
        match typ[v].as_deref() {
            Some("host") => {
                cluster.is_host.push(true);
                cluster.hosts.push(v as u32);
                cluster.host_pes.push(pes[v].unwrap_or(1));
            }
            Some("switch") => cluster.is_host.push(false),
            Some(other) => {
                return Err(located(
                    path,
                    Some(first_line[v]),
                    format!(
                        "node `{}`: typ `{}` (expected `host` or `switch`)",
                        show(&cluster.names[v]),
                        show(other)
                    ),
                ))
            }
            None => {
                return Err(located(
                    path,
                    Some(first_line[v]),
                    format!(
                        "node `{}` has no `typ` (expected `host` or `switch`)",
                        show(&cluster.names[v])
                    ),
                ))
            }
        }
    }
    // Edges, after all nodes are known (edges never create nodes).
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (el, line) in pending_edges {
        let mut ends = [0u32; 2];
        for (k, attr) in ["source", "target"].iter().enumerate() {
            let Some(name) = el.attribute(*attr) else {
                return Err(located(
                    path,
                    Some(line),
                    format!("<edge> without `{attr}`"),
                ));
            };
            let Some(&v) = index.get(name) else {
                return Err(located(
                    path,
                    Some(line),
                    format!("edge {attr} `{}` is not a declared <node>", show(name)),
                ));
            };
            ends[k] = v;
        }
        let mut cap = None;
        for (name, value, dline) in data_of(el)? {
            if name == "capacity" {
                let c: f64 = value
                    .parse()
                    .ok()
                    .filter(|c: &f64| c.is_finite() && *c > 0.0)
                    .ok_or_else(|| {
                        located(
                            path,
                            Some(dline),
                            format!(
                                "edge capacity `{}` (expected a positive number)",
                                show(&value)
                            ),
                        )
                    })?;
                cap = Some(c);
            }
        }
        let both = match el.attribute("directed") {
            Some("false") => true,
            Some("true") => false,
            None => !directed,
            Some(other) => {
                return Err(located(
                    path,
                    Some(line),
                    format!("directed=`{}` (expected `true` or `false`)", show(other)),
                ))
            }
        };
        let mut add = |t: u32, h: u32| match edge_index.get(&(t, h)) {
            Some(&e) => {
                if cap.is_some() {
                    edge_caps[e] = cap;
                }
            }
            None => {
                edge_index.insert((t, h), edges.len());
                edges.push((t, h));
                edge_caps.push(cap);
            }
        };
        add(ends[0], ends[1]);
        if both && ends[0] != ends[1] {
            add(ends[1], ends[0]);
        }
    }
    if edges.len() > u32::MAX as usize {
        return Err(located(path, None, "too many edges"));
    }
    cluster.out_edges = vec![Vec::new(); cluster.names.len()];
    for (e, (&(t, h), cap)) in edges.iter().zip(&edge_caps).enumerate() {
        cluster.edges.push((t, h, cap.unwrap_or(1.0)));
        cluster.out_edges[t as usize].push(e as u32);
    }
    Ok(cluster)
}

/// Local-name tag test that ignores the GraphML namespace.
trait LocalName {
    fn has_tag_name_local(&self, name: &str) -> bool;
}

impl LocalName for roxmltree::Node<'_, '_> {
    fn has_tag_name_local(&self, name: &str) -> bool {
        self.is_element() && self.tag_name().name() == name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::shared;

    #[test]
    fn milk_cluster() {
        let Some(p) = shared("traces/pfsim/topologies/milk.graphml") else {
            return;
        };
        let c = read_cluster_graphml(&p).unwrap();
        assert_eq!(c.name.as_deref(), Some("Milk cluster"));
        assert_eq!(c.hosts.len(), 20);
        assert!(c.host_pes.iter().all(|&pe| pe == 8));
        let host_names: Vec<&str> = c
            .hosts
            .iter()
            .map(|&h| c.names[h as usize].as_str())
            .collect();
        let want: Vec<String> = (1..=20).map(|i| format!("milk{i:02}")).collect();
        assert_eq!(host_names, want);
        let switches: Vec<&str> = (0..c.names.len())
            .filter(|&v| !c.is_host[v])
            .map(|v| c.names[v].as_str())
            .collect();
        assert_eq!(
            switches,
            ["edge1", "edge2", "edge3", "edge4", "core1", "core2"]
        );
        assert_eq!(c.edges.len(), 56);
        assert!(c.edges.iter().all(|e| e.2 == 1.0));
        assert_eq!(c.out_edges.iter().map(Vec::len).sum::<usize>(), 56);
        // milk01 -> edge1 is the first edge.
        assert_eq!(c.edges[0], (0, 20, 1.0));
    }

    #[test]
    fn pepsi_cluster() {
        let Some(p) = shared("traces/pfsim/topologies/pepsi.graphml") else {
            return;
        };
        let c = read_cluster_graphml(&p).unwrap();
        assert_eq!(c.hosts.len(), 28);
        assert!(c.host_pes.iter().all(|&pe| pe == 12));
        let idx = |n: &str| c.names.iter().position(|x| x == n).unwrap() as u32;
        let (e1, c1) = (idx("edge1"), idx("core1"));
        let cap = |t, h| c.edges.iter().find(|e| e.0 == t && e.1 == h).unwrap().2;
        assert_eq!(cap(e1, c1), 4.0);
        assert_eq!(cap(c1, e1), 4.0);
        let edge_core = c
            .edges
            .iter()
            .filter(|e| !c.is_host[e.0 as usize] && !c.is_host[e.1 as usize])
            .count();
        assert_eq!(edge_core, 16);
        assert!(c
            .edges
            .iter()
            .filter(|e| c.is_host[e.0 as usize] || c.is_host[e.1 as usize])
            .all(|e| e.2 == 1.0));
    }

    const SMALL_GRAPHML: &str = r#"<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="name" attr.type="string" for="graph" id="g0"/>
  <key attr.name="capacity" attr.type="long" for="edge" id="k9"/>
  <key attr.name="typ" attr.type="string" for="node" id="k7"/>
  <key attr.name="capacity" attr.type="long" for="node" id="k8"/>
  <graph edgedefault="undirected">
    <data key="g0">tiny</data>
    <node id="s"><data key="k7">switch</data></node>
    <node id="a"><data key="k7">host</data><data key="k8">4</data></node>
    <node id="b"><data key="k7">host</data></node>
    <edge source="a" target="s"><data key="k9">2</data></edge>
    <edge source="s" target="b"/>
  </graph>
</graphml>
"#;

    #[test]
    fn graphml_inline_undirected() {
        let c = parse_cluster_graphml(SMALL_GRAPHML, "tiny.graphml").unwrap();
        assert_eq!(c.name.as_deref(), Some("tiny"));
        assert_eq!(c.names, ["s", "a", "b"]);
        assert_eq!(c.is_host, [false, true, true]);
        assert_eq!(c.hosts, [1, 2]);
        assert_eq!(c.host_pes, [4, 1]);
        assert_eq!(
            c.edges,
            [(1, 0, 2.0), (0, 1, 2.0), (0, 2, 1.0), (2, 0, 1.0)]
        );
        assert_eq!(c.out_edges, [vec![1, 2], vec![0], vec![3]]);
    }

    #[test]
    fn graphml_directed_duplicates_merge() {
        let text = SMALL_GRAPHML
            .replace("undirected", "directed")
            .replace(
                "<edge source=\"s\" target=\"b\"/>",
                "<edge source=\"s\" target=\"b\"/><node id=\"a\"/><edge source=\"a\" target=\"s\"><data key=\"k9\">3</data></edge>",
            );
        let c = parse_cluster_graphml(&text, "t.graphml").unwrap();
        assert_eq!(c.names, ["s", "a", "b"]);
        assert_eq!(c.host_pes, [4, 1]);
        assert_eq!(c.edges, [(1, 0, 3.0), (0, 2, 1.0)]);
    }

    #[test]
    fn graphml_errors_name_line() {
        let no_typ = SMALL_GRAPHML.replace(
            "<node id=\"b\"><data key=\"k7\">host</data></node>",
            "<node id=\"b\"/>",
        );
        let e = parse_cluster_graphml(&no_typ, "t.graphml").unwrap_err();
        assert_eq!(e.line, Some(11), "{e}");
        assert!(
            e.to_string()
                .starts_with("t.graphml:11: node `b` has no `typ`"),
            "{e}"
        );

        let unknown = SMALL_GRAPHML.replace("target=\"b\"", "target=\"zz\"");
        let e = parse_cluster_graphml(&unknown, "t.graphml").unwrap_err();
        assert_eq!(e.line, Some(13), "{e}");
        assert!(e.message.contains("`zz` is not a declared <node>"), "{e}");

        let bad_key = SMALL_GRAPHML.replace("<data key=\"k8\">", "<data key=\"nope\">");
        let e = parse_cluster_graphml(&bad_key, "t.graphml").unwrap_err();
        assert_eq!(e.line, Some(10), "{e}");

        let bad_cap = SMALL_GRAPHML.replace("<data key=\"k9\">2<", "<data key=\"k9\">-2<");
        let e = parse_cluster_graphml(&bad_cap, "t.graphml").unwrap_err();
        assert_eq!(e.line, Some(12), "{e}");

        let e = parse_cluster_graphml("<graphml><graph>", "t.graphml").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert!(e.message.starts_with("invalid XML"), "{e}");
    }

    fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
        let mut v = base.to_vec();
        for &(pos, byte, kind) in edits {
            let i = if v.is_empty() { 0 } else { pos % (v.len() + 1) };
            match kind % 3 {
                0 if i < v.len() => v[i] = byte,
                1 => v.insert(i, byte),
                _ if i < v.len() => {
                    v.remove(i);
                }
                _ => v.push(byte),
            }
        }
        v
    }

    proptest::proptest! {
        #[test]
        fn mutated_graphml_never_panics(
            edits in proptest::collection::vec((0usize..10_000, proptest::prelude::any::<u8>(), 0u8..3), 0..12)
        ) {
            let g = mutate(SMALL_GRAPHML.as_bytes(), &edits);
            let _ = parse_cluster_graphml(&String::from_utf8_lossy(&g), "g.graphml");
        }
    }
}
