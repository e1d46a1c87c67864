//! Congestion maps: the fabric drawn as an image (SVG or PNG) or as a Graphviz document,
//! every cable colored and sized by its congestion, so the hot links can be seen.
//!
//! The input is a [`CongestionGraph`] ([`graph`]: nodes and directed edges with counts,
//! however they were obtained). [`layout()`] places the nodes: a layered drawing for
//! indirect networks ([`layered`]: fat trees, XGFTs, Clos; hosts at the bottom, each switch
//! level above the previous, orders chosen by barycenter sweeps) and a force-directed
//! drawing for direct networks ([`force`], started from [`mds`]: tori, meshes, hypercubes,
//! dragonflies), chosen by [`pick_layout`]. [`MapFigure`](render::MapFigure) ([`render`]) draws the result
//! and [`render_map`] turns it into bytes; [`crate::viz::graphviz`] writes the same map
//! for `dot` or `neato`. Everything is deterministic: the same input gives
//! byte-identical output.
//!
//! This module holds what every rendering shares: the [`MapOptions`] and the choice of
//! the cables that are shown and labelled.
//!
//! May use: [`crate::fabric`] (a fabric's graph), [`crate::report`]'s scaled congestion,
//! and [`crate::viz::draw`].

mod force;
mod graph;
mod layered;
mod layout;
mod mds;
mod render;

pub use graph::{Cable, CongestionGraph, MapEdge};
pub(crate) use layout::levels;
pub(crate) use layout::pick_layout;
pub use layout::{layout, Layout, Positions};
pub use render::render_map;

use crate::viz::draw::ColorScale;

/// What the map shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MapOptions {
    /// Label the N hottest cables (with non-zero count) with their scaled value.
    pub top_labels: usize,
    /// Hide the hosts and their cables.
    pub switches_only: bool,
    /// Draw the color bar.
    pub legend: bool,
    /// A title above the map.
    pub title: Option<String>,
    /// The layout; `None` picks it with [`pick_layout`].
    pub layout: Option<Layout>,
    /// The colours of the cables by scaled congestion.
    pub colors: ColorScale,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            top_labels: 5,
            switches_only: false,
            legend: true,
            title: None,
            layout: None,
            colors: ColorScale::default(),
        }
    }
}

impl MapOptions {
    /// The defaults, with hosts hidden when there are more than 256 of them.
    pub fn suggested(graph: &CongestionGraph) -> Self {
        let hosts = graph.is_host.iter().filter(|&&h| h).count();
        MapOptions {
            switches_only: hosts > 256,
            ..MapOptions::default()
        }
    }
}

/// The visible cables, coolest first (hottest last), ties by cable order.
pub(crate) fn visible_cables(graph: &CongestionGraph, points: &[Option<(f64, f64)>]) -> Vec<Cable> {
    let shown = |v: u32| points.get(v as usize).is_some_and(|p| p.is_some());
    let mut cables: Vec<Cable> = (graph.cables().into_iter())
        .filter(|c| shown(c.a) && shown(c.b))
        .collect();
    cables.sort_by(|x, y| x.value.total_cmp(&y.value).then(x.count.cmp(&y.count)));
    cables
}

/// Indices (into the coolest-first list) of the `n` hottest cables with traffic.
pub(crate) fn hottest(cables: &[Cable], n: usize) -> Vec<usize> {
    (0..cables.len())
        .rev()
        .filter(|&i| cables[i].count > 0)
        .take(n)
        .collect()
}

/// Graphs, options and views shared by the tests of the map's parts.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::viz::draw::ImageFormat;

    /// Nodes named `H…` are hosts; each link is two directed edges with the two counts.
    pub(crate) fn graph(names: &[&str], links: &[(u32, u32, u64, u64)]) -> CongestionGraph {
        let edges = (links.iter().enumerate())
            .flat_map(|(i, &(a, b, ab, ba))| {
                let label = Some(i.to_string());
                let edge = |tail, head, count| MapEdge {
                    tail,
                    head,
                    count,
                    label: label.clone(),
                };
                [edge(a, b, ab), edge(b, a, ba)]
            })
            .collect();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let is_host = names.iter().map(|s| s.starts_with('H')).collect();
        CongestionGraph {
            names,
            is_host,
            edges,
            grouped: false,
        }
    }

    /// 4 hosts (interleaved between the leaves), 2 leaves, 2 spines; the host cable
    /// H0–L0 is the hottest (4), L0–S0 carries 2, S1–L1 carries 1.
    pub(crate) fn tree() -> CongestionGraph {
        let names = ["H0", "H1", "H2", "H3", "L0", "L1", "S0", "S1"];
        let down = [(0, 4, 4, 0), (1, 5, 0, 0), (2, 4, 0, 0), (3, 5, 0, 0)];
        let up = [(4, 6, 2, 1), (4, 7, 0, 0), (5, 6, 0, 0), (5, 7, 0, 1)];
        graph(&names, &[down, up].concat())
    }

    /// A ring of 4 switches with a host each.
    pub(crate) fn ring() -> CongestionGraph {
        let names = ["S0", "S1", "S2", "S3", "H0", "H1", "H2", "H3"];
        let links: Vec<_> = (0..4)
            .flat_map(|i| [(i, (i + 1) % 4, i as u64, 1), (i, i + 4, 0, 0)])
            .collect();
        graph(&names, &links)
    }

    /// `options` changed by `f`.
    pub(crate) fn with(options: &MapOptions, f: impl FnOnce(&mut MapOptions)) -> MapOptions {
        let mut o = options.clone();
        f(&mut o);
        o
    }

    pub(crate) fn svg(g: &CongestionGraph, o: &MapOptions) -> String {
        String::from_utf8(render_map(g, o, ImageFormat::Svg, 500, 400).unwrap()).unwrap()
    }

    /// (congestion, color) of every edge of a dot document, and its node names.
    pub(crate) fn dot_view(text: &str) -> (Vec<(f64, String)>, Vec<String>) {
        use graphviz_rust::dot_structures::{Graph, Id, Node, NodeId, Stmt};
        let Graph::Graph { stmts, .. } = graphviz_rust::parse(text).unwrap() else {
            panic!("not an undirected graph")
        };
        let plain = |id: &Id| match id {
            Id::Escaped(s) => s.trim_matches('"').to_string(),
            Id::Plain(s) | Id::Html(s) | Id::Anonymous(s) => s.clone(),
        };
        let (mut edges, mut nodes) = (Vec::new(), Vec::new());
        for stmt in &stmts {
            match stmt {
                Stmt::Edge(e) => {
                    let attr = |k: &str| {
                        e.attributes
                            .iter()
                            .find(|a| plain(&a.0) == k)
                            .map(|a| plain(&a.1))
                    };
                    edges.push((
                        attr("congestion").unwrap().parse().unwrap(),
                        attr("color").unwrap(),
                    ));
                }
                Stmt::Node(Node {
                    id: NodeId(id, _), ..
                }) => nodes.push(plain(id)),
                _ => {}
            }
        }
        (edges, nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{dot_view, graph, ring, svg, tree};
    use super::*;
    use crate::gen::topology::generate;
    use crate::viz::draw::ImageFormat;
    use crate::viz::graphviz::graphviz_source;

    #[test]
    fn output_is_deterministic() {
        let fabric = generate("torus:dims=4x4x2,hosts=2").unwrap().fabric;
        let torus = CongestionGraph::from_fabric(
            &fabric,
            &(0..400).map(|e| e * 7 % 13).collect::<Vec<_>>(),
        );
        let o = MapOptions {
            title: Some("t".into()),
            ..Default::default()
        };
        for g in [tree(), ring(), torus] {
            assert_eq!(svg(&g, &o), svg(&g, &o));
            let png = |g| render_map(g, &o, ImageFormat::Png, 320, 240).unwrap();
            assert_eq!(png(&g), png(&g));
            assert_eq!(
                graphviz_source(&g, &o, (640, 480)),
                graphviz_source(&g, &o, (640, 480))
            );
        }
    }

    #[test]
    fn degenerate_graphs_do_not_panic() {
        let mut odd = graph(
            &["S0", "S1", "H0"],
            &[(0, 0, 5, 5), (0, 1, 0, 0), (1, 2, 1, 0)],
        );
        odd.is_host.truncate(1);
        odd.edges.push(MapEdge {
            tail: 0,
            head: 99,
            count: 1000,
            label: None,
        });
        let cases = [
            CongestionGraph::default(),
            graph(&["S0", "H0", "H1"], &[]),
            graph(&["H0", "H1"], &[(0, 1, 0, 0)]),
            graph(
                &["S0", "S1", "S2"],
                &[(0, 1, 0, 0), (1, 2, 0, 0), (0, 0, 0, 0)],
            ),
            odd,
        ];
        for g in &cases {
            for layout_kind in [None, Some(Layout::Layered), Some(Layout::Force)] {
                for switches_only in [false, true] {
                    let title = Some("x".into());
                    let o = MapOptions {
                        layout: layout_kind,
                        switches_only,
                        title,
                        ..Default::default()
                    };
                    let p = layout(g, &o).points;
                    assert!(p
                        .iter()
                        .flatten()
                        .all(|q| q.0.is_finite() && q.1.is_finite()));
                    for (w, h) in [(400, 300), (8, 8)] {
                        render_map(g, &o, ImageFormat::Svg, w, h).unwrap();
                        render_map(g, &o, ImageFormat::Png, w, h).unwrap();
                    }
                    dot_view(&graphviz_source(g, &o, (640, 480)));
                }
            }
        }
    }
}
