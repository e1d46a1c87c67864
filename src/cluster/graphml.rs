//! PFSim's GraphML cluster schema (spec §3.1) read into a [`Cluster`], with networkx's
//! semantics for repeated nodes and edges so that node, host and adjacency order are
//! the ones PFSim saw.

use crate::cluster::Cluster;
use crate::error::LocatedError;
use crate::limits::MAX_NESTING;
use crate::workload::matrix::{located, parse_index, show};
use roxmltree::{Document, Node};
use rustc_hash::FxHashMap;

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
/// Elements nested more than [`MAX_NESTING`] deep are an error at the line of the first
/// one too deep.
///
/// O(file size) time with hashing of node ids and edge pairs.
pub fn parse_cluster_graphml(text: &str, path: &str) -> Result<Cluster, LocatedError> {
    check_nesting(text, path)?;
    let doc = Document::parse(text).map_err(|e| {
        located(
            path,
            Some(e.pos().row as usize),
            format!("invalid XML: {e}"),
        )
    })?;
    let reader = Reader::new(&doc, path)?;
    let graph = reader.graph()?;
    let directed = reader.edge_default(graph)?;
    let mut cluster = Cluster::default();
    for (name, value, _) in reader.data_of(graph)? {
        if name == "name" {
            cluster.name = Some(value);
        }
    }
    let (nodes, edge_elements) = reader.read_nodes(graph, &mut cluster.names)?;
    reader.type_nodes(&nodes, &mut cluster)?;
    let edges = reader.read_edges(&edge_elements, &nodes.index, directed)?;
    if edges.len() > u32::MAX as usize {
        return Err(located(path, None, "too many edges"));
    }
    cluster.out_edges = vec![Vec::new(); cluster.names.len()];
    for (e, &(t, h, cap)) in edges.iter().enumerate() {
        cluster.edges.push((t, h, cap.unwrap_or(1.0)));
        cluster.out_edges[t as usize].push(e as u32);
    }
    Ok(cluster)
}

/// One GraphML document being read: its file name (for errors) and its `<key>`
/// declarations.
struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    path: &'a str,
    /// Key id → attribute name.
    keys: FxHashMap<&'a str, &'a str>,
}

/// The nodes of the graph as read: their ids and the data they get typed by.
struct Nodes<'a> {
    /// Node id → node index (file order of first appearance).
    index: FxHashMap<&'a str, u32>,
    /// Per node: its `typ`, if given.
    typ: Vec<Option<String>>,
    /// Per node: its `capacity` (processing elements), if given.
    pes: Vec<Option<u32>>,
    /// Per node: the line of its first `<node>`.
    first_line: Vec<usize>,
}

/// An edge as read: tail, head, capacity if given.
type RawEdge = (u32, u32, Option<f64>);

impl<'a, 'input> Reader<'a, 'input> {
    /// Checks the root element and reads the `<key>` declarations.
    fn new(doc: &'a Document<'input>, path: &'a str) -> Result<Self, LocatedError> {
        let mut reader = Reader {
            doc,
            path,
            keys: FxHashMap::default(),
        };
        let root = doc.root_element();
        if root.tag_name().name() != "graphml" {
            return Err(reader.error(
                root,
                format!(
                    "expected a <graphml> root element, found <{}>",
                    root.tag_name().name()
                ),
            ));
        }
        for k in root.children().filter(|n| n.has_tag_name_local("key")) {
            let (Some(id), Some(name)) = (k.attribute("id"), k.attribute("attr.name")) else {
                return Err(reader.error(k, "<key> needs both `id` and `attr.name`"));
            };
            reader.keys.insert(id, name);
        }
        Ok(reader)
    }

    /// 1-based line where `node` starts.
    fn line_of(&self, node: Node) -> usize {
        self.doc.text_pos_at(node.range().start).row as usize
    }

    /// The error `message` at the line of `node`.
    fn error(&self, node: Node, message: impl Into<String>) -> LocatedError {
        located(self.path, Some(self.line_of(node)), message)
    }

    /// The first `<graph>` element.
    fn graph(&self) -> Result<Node<'a, 'input>, LocatedError> {
        self.doc
            .root_element()
            .children()
            .find(|n| n.has_tag_name_local("graph"))
            .ok_or_else(|| located(self.path, None, "no <graph> element"))
    }

    /// Whether edges are directed unless they say otherwise (`edgedefault`).
    fn edge_default(&self, graph: Node) -> Result<bool, LocatedError> {
        match graph.attribute("edgedefault") {
            None | Some("directed") => Ok(true),
            Some("undirected") => Ok(false),
            Some(other) => Err(self.error(
                graph,
                format!(
                    "edgedefault `{}` (expected `directed` or `undirected`)",
                    show(other)
                ),
            )),
        }
    }

    /// The `<data>` children of an element: (attribute name, trimmed text, line).
    fn data_of(&self, el: Node) -> Result<Vec<(&'a str, String, usize)>, LocatedError> {
        let mut out = Vec::new();
        for d in el.children().filter(|n| n.has_tag_name_local("data")) {
            let line = self.line_of(d);
            let Some(key) = d.attribute("key") else {
                return Err(located(self.path, Some(line), "<data> without `key`"));
            };
            let Some(&name) = self.keys.get(key) else {
                return Err(located(
                    self.path,
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
    }

    /// Reads the `<node>` elements of `graph` (names into `names`) and returns them with
    /// the `<edge>` elements, which are read once every node is known.
    fn read_nodes(
        &self,
        graph: Node<'a, 'input>,
        names: &mut Vec<String>,
    ) -> Result<(Nodes<'a>, Vec<Node<'a, 'input>>), LocatedError> {
        let mut nodes = Nodes {
            index: FxHashMap::default(),
            typ: Vec::new(),
            pes: Vec::new(),
            first_line: Vec::new(),
        };
        let mut edges = Vec::new();
        for el in graph.children().filter(|n| n.is_element()) {
            match el.tag_name().name() {
                "node" => self.read_node(el, &mut nodes, names)?,
                "edge" => edges.push(el),
                "hyperedge" => return Err(self.error(el, "hyperedges are not supported")),
                _ => {}
            }
        }
        Ok((nodes, edges))
    }

    /// Reads one `<node>`: a new id is appended, a repeated one merges its data.
    fn read_node(
        &self,
        el: Node<'a, 'input>,
        nodes: &mut Nodes<'a>,
        names: &mut Vec<String>,
    ) -> Result<(), LocatedError> {
        let line = self.line_of(el);
        let Some(id) = el.attribute("id") else {
            return Err(located(self.path, Some(line), "<node> without `id`"));
        };
        if el.children().any(|c| c.has_tag_name_local("graph")) {
            return Err(located(
                self.path,
                Some(line),
                "nested graphs are not supported",
            ));
        }
        let v = match nodes.index.get(id) {
            Some(&v) => v as usize,
            None => {
                let v = names.len();
                if v >= u32::MAX as usize {
                    return Err(located(self.path, Some(line), "too many nodes"));
                }
                nodes.index.insert(id, v as u32);
                names.push(id.to_string());
                nodes.typ.push(None);
                nodes.pes.push(None);
                nodes.first_line.push(line);
                v
            }
        };
        for (name, value, dline) in self.data_of(el)? {
            match name {
                "typ" => nodes.typ[v] = Some(value),
                "capacity" => {
                    let pe = parse_index(&value)
                        .filter(|&p| p <= u32::MAX as u64)
                        .ok_or_else(|| {
                            located(
                                self.path,
                                Some(dline),
                                format!(
                                    "node `{}`: capacity `{}` (expected a non-negative integer: processing elements)",
                                    show(id),
                                    show(&value)
                                ),
                            )
                        })?;
                    nodes.pes[v] = Some(pe as u32);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Sets the node types and the hosts (file order) with their processing elements.
    fn type_nodes(&self, nodes: &Nodes, cluster: &mut Cluster) -> Result<(), LocatedError> {
        for v in 0..cluster.names.len() {
            let expected = match nodes.typ[v].as_deref() {
                Some("host") => {
                    cluster.is_host.push(true);
                    cluster.hosts.push(v as u32);
                    cluster.host_pes.push(nodes.pes[v].unwrap_or(1));
                    continue;
                }
                Some("switch") => {
                    cluster.is_host.push(false);
                    continue;
                }
                Some(other) => format!(
                    "node `{}`: typ `{}` (expected `host` or `switch`)",
                    show(&cluster.names[v]),
                    show(other)
                ),
                None => format!(
                    "node `{}` has no `typ` (expected `host` or `switch`)",
                    show(&cluster.names[v])
                ),
            };
            return Err(located(self.path, Some(nodes.first_line[v]), expected));
        }
        Ok(())
    }

    /// Reads the `<edge>` elements in file order; an undirected edge adds tail→head then
    /// head→tail, and a repeated directed edge updates the first one's capacity.
    fn read_edges(
        &self,
        elements: &[Node],
        index: &FxHashMap<&str, u32>,
        directed: bool,
    ) -> Result<Vec<RawEdge>, LocatedError> {
        let mut edges: Vec<RawEdge> = Vec::new();
        let mut edge_index: FxHashMap<(u32, u32), usize> = FxHashMap::default();
        for &el in elements {
            let line = self.line_of(el);
            let [tail, head] = self.edge_ends(el, line, index)?;
            let cap = self.edge_capacity(el)?;
            let both = match el.attribute("directed") {
                Some("false") => true,
                Some("true") => false,
                None => !directed,
                Some(other) => {
                    return Err(located(
                        self.path,
                        Some(line),
                        format!("directed=`{}` (expected `true` or `false`)", show(other)),
                    ))
                }
            };
            let mut add = |t: u32, h: u32| match edge_index.get(&(t, h)) {
                Some(&e) => {
                    if cap.is_some() {
                        edges[e].2 = cap;
                    }
                }
                None => {
                    edge_index.insert((t, h), edges.len());
                    edges.push((t, h, cap));
                }
            };
            add(tail, head);
            if both && tail != head {
                add(head, tail);
            }
        }
        Ok(edges)
    }

    /// The declared nodes an edge joins: [source, target].
    fn edge_ends(
        &self,
        el: Node,
        line: usize,
        index: &FxHashMap<&str, u32>,
    ) -> Result<[u32; 2], LocatedError> {
        let mut ends = [0u32; 2];
        for (k, attr) in ["source", "target"].iter().enumerate() {
            let Some(name) = el.attribute(*attr) else {
                return Err(located(
                    self.path,
                    Some(line),
                    format!("<edge> without `{attr}`"),
                ));
            };
            let Some(&v) = index.get(name) else {
                return Err(located(
                    self.path,
                    Some(line),
                    format!("edge {attr} `{}` is not a declared <node>", show(name)),
                ));
            };
            ends[k] = v;
        }
        Ok(ends)
    }

    /// An edge's `capacity` data, if given (the last one wins); it must be positive.
    fn edge_capacity(&self, el: Node) -> Result<Option<f64>, LocatedError> {
        let mut cap = None;
        for (name, value, dline) in self.data_of(el)? {
            if name == "capacity" {
                let c: f64 = value
                    .parse()
                    .ok()
                    .filter(|c: &f64| c.is_finite() && *c > 0.0)
                    .ok_or_else(|| {
                        located(
                            self.path,
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
        Ok(cap)
    }
}

/// Local-name tag test that ignores the GraphML namespace.
trait LocalName {
    fn has_tag_name_local(&self, name: &str) -> bool;
}

impl LocalName for Node<'_, '_> {
    fn has_tag_name_local(&self, name: &str) -> bool {
        self.is_element() && self.tag_name().name() == name
    }
}

/// Refuses XML whose elements nest more than [`MAX_NESTING`] deep, before roxmltree
/// reads it: its parser recurses once per level, so a deep enough file would overflow
/// the stack. A lexical scan (comments, CDATA, processing instructions, declarations
/// and quoted attribute values skipped), so it never counts fewer levels than the file
/// has; anything else malformed is left for the parser to report. O(file size).
fn check_nesting(text: &str, path: &str) -> Result<(), LocatedError> {
    let bytes = text.as_bytes();
    let (mut at, mut line, mut depth) = (0usize, 1usize, 0usize);
    // Moves past the next `end` (or to the end of the text), counting lines.
    let skip_past = |at: usize, line: &mut usize, end: &[u8]| -> usize {
        let rest = &bytes[at..];
        let stop = rest
            .windows(end.len())
            .position(|w| w == end)
            .map_or(rest.len(), |p| p + end.len());
        *line += rest[..stop].iter().filter(|&&b| b == b'\n').count();
        at + stop
    };
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => {
                line += 1;
                at += 1;
            }
            b'<' => {
                let rest = &bytes[at..];
                if rest.starts_with(b"<!--") {
                    at = skip_past(at, &mut line, b"-->");
                } else if rest.starts_with(b"<![CDATA[") {
                    at = skip_past(at, &mut line, b"]]>");
                } else if rest.starts_with(b"<?") {
                    at = skip_past(at, &mut line, b"?>");
                } else if rest.starts_with(b"<!") {
                    at = skip_declaration(bytes, at, &mut line);
                } else {
                    let start_line = line;
                    let (end, self_closing) = tag_end(bytes, at, &mut line);
                    if rest.starts_with(b"</") {
                        depth = depth.saturating_sub(1);
                    } else if !self_closing {
                        depth += 1;
                        if depth > MAX_NESTING {
                            return Err(located(
                                path,
                                Some(start_line),
                                format!(
                                    "elements nested more than {MAX_NESTING} deep; orcs reads at most {MAX_NESTING} levels"
                                ),
                            ));
                        }
                    }
                    at = end;
                }
            }
            _ => at += 1,
        }
    }
    Ok(())
}

/// The end of the tag opening at `at` (past its `>`, quoted values skipped) and whether
/// it closes itself (`/>`); counts its lines.
fn tag_end(bytes: &[u8], mut at: usize, line: &mut usize) -> (usize, bool) {
    let mut quote = None;
    let mut last = 0u8;
    while at < bytes.len() {
        let b = bytes[at];
        at += 1;
        if b == b'\n' {
            *line += 1;
        }
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return (at, last == b'/'),
            None => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
    }
    (at, false)
}

/// The end of the declaration (`<!DOCTYPE …>`) opening at `at`, past its internal
/// subset in brackets and quoted strings; counts its lines.
fn skip_declaration(bytes: &[u8], mut at: usize, line: &mut usize) -> usize {
    let (mut brackets, mut quote) = (0usize, None);
    while at < bytes.len() {
        let b = bytes[at];
        at += 1;
        if b == b'\n' {
            *line += 1;
        }
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' => quote = Some(b),
                b'[' => brackets += 1,
                b']' => brackets = brackets.saturating_sub(1),
                b'>' if brackets == 0 => return at,
                _ => {}
            },
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::mutate;
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
    fn deep_nesting_is_an_error_at_its_line() {
        let nested = |depth: usize| {
            format!(
                "<?xml version=\"1.0\"?>\n<!-- <a><a><a> -->\n<graphml>\n<graph edgedefault=\"undirected\">\n{}{}\n</graph></graphml>\n",
                "<a x=\"<b>\"><![CDATA[<c>]]><e/>\n".repeat(depth),
                "</a>".repeat(depth)
            )
        };
        // graphml and graph are two levels: 254 more fit, 255 do not.
        let fits = parse_cluster_graphml(&nested(MAX_NESTING - 2), "deep.graphml");
        assert!(!fits.unwrap_err().message.contains("nested"));
        let e = parse_cluster_graphml(&nested(MAX_NESTING - 1), "deep.graphml").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("deep.graphml:{}: elements nested more than 256 deep; orcs reads at most 256 levels", 5 + MAX_NESTING - 2)
        );
        let e = parse_cluster_graphml(&nested(20_000), "deep.graphml").unwrap_err();
        assert!(e.message.contains("nested more than 256"), "{e}");
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
