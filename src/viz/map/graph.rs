//! The map's input model: a [`CongestionGraph`] of nodes and directed edges with
//! congestion counts, however they were obtained (a simulation, a JSON result, a
//! `get_cable_cong` dot map), and its [`Cable`]s, the two directions of a link paired up
//! as the map draws them.

use crate::engine::metric::scaled_congestion;
use crate::fabric::{Fabric, NONE};
use crate::viz::map::levels;

/// One directed edge's congestion, the map's input (independent of how it was obtained:
/// a simulation, a JSON result, or a `get_cable_cong` dot file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEdge {
    /// Tail node (index into [`CongestionGraph::names`]).
    pub tail: u32,
    /// Head node.
    pub head: u32,
    /// Summed congestion of the edge (as in `get_cable_cong`).
    pub count: u64,
    /// The edge's port key, if any (shown in Graphviz tooltips).
    pub label: Option<String>,
}

/// Nodes and directed edges with congestion counts. Edges whose endpoints are not below
/// `names.len()` are not drawn (their counts still enter the scale, as in
/// [`CongestionGraph::scaled`]); a node missing from `is_host` is a switch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CongestionGraph {
    /// Node names.
    pub names: Vec<String>,
    /// Per node: true for hosts.
    pub is_host: Vec<bool>,
    /// The directed edges.
    pub edges: Vec<MapEdge>,
    /// Each node stands for a group of nodes ([`CongestionGraph::per_level`]): hosts
    /// are drawn with their names, as switches are, not as points.
    pub grouped: bool,
}

/// One cable: the directed edges `a → b` and `b → a` paired up (the i-th edge one way
/// with the i-th the other way, so parallel cables stay apart).
#[derive(Debug, Clone, PartialEq)]
pub struct Cable {
    /// Lower endpoint.
    pub a: u32,
    /// Higher endpoint (equal to `a` for a self-loop).
    pub b: u32,
    /// Indices into [`CongestionGraph::edges`] of `a → b` and `b → a`, where present.
    pub edges: [Option<usize>; 2],
    /// The larger count of the two directions.
    pub count: u64,
    /// The larger scaled congestion of the two directions.
    pub value: f32,
}

impl CongestionGraph {
    /// The graph of `fabric` with `cable[e]` as the count of edge `e` (missing counts are
    /// 0, extra ones are ignored). O(nodes + edges).
    pub fn from_fabric(fabric: &Fabric, cable: &[u64]) -> Self {
        let edges = (0..fabric.num_edges())
            .map(|e| MapEdge {
                tail: fabric.edge_tail[e],
                head: fabric.edge_head[e],
                count: cable.get(e).copied().unwrap_or(0),
                label: fabric.edge_keys.get(e).cloned().flatten(),
            })
            .collect();
        CongestionGraph {
            names: fabric.node_names.clone(),
            is_host: (0..fabric.num_nodes())
                .map(|v| fabric.host_of_node.get(v).is_some_and(|&h| h != NONE))
                .collect(),
            edges,
            grouped: false,
        }
    }

    /// Scaled values exactly as `get_cable_cong`: count / max count (0 when all are 0),
    /// one per edge. O(edges).
    pub fn scaled(&self) -> Vec<f32> {
        scaled_congestion(&self.edges.iter().map(|e| e.count).collect::<Vec<_>>())
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.names.len()
    }

    /// True if `node` is a host.
    pub fn host(&self, node: u32) -> bool {
        self.is_host.get(node as usize).copied().unwrap_or(false)
    }

    /// True if `node` is drawn as a point, without its name: a host of a graph that is
    /// not [`grouped`](CongestionGraph::grouped).
    pub fn drawn_as_point(&self, node: u32) -> bool {
        !self.grouped && self.host(node)
    }

    /// The cables (edges with valid endpoints, the two directions paired), ordered by
    /// endpoints then edge index. O(edges log edges).
    pub fn cables(&self) -> Vec<Cable> {
        let n = self.num_nodes() as u32;
        let scaled = self.scaled();
        let mut ids: Vec<(u32, u32, bool, usize)> = (self.edges.iter().enumerate())
            .filter(|(_, e)| e.tail < n && e.head < n)
            .map(|(i, e)| (e.tail.min(e.head), e.tail.max(e.head), e.tail > e.head, i))
            .collect();
        ids.sort_unstable();
        let mut cables = Vec::new();
        for group in ids.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let fwd: Vec<usize> = group.iter().filter(|g| !g.2).map(|g| g.3).collect();
            let bwd: Vec<usize> = group.iter().filter(|g| g.2).map(|g| g.3).collect();
            for i in 0..fwd.len().max(bwd.len()) {
                let pair = [fwd.get(i).copied(), bwd.get(i).copied()];
                let dirs = pair.iter().flatten();
                cables.push(Cable {
                    a: group[0].0,
                    b: group[0].1,
                    edges: pair,
                    count: dirs
                        .clone()
                        .map(|&e| self.edges[e].count)
                        .max()
                        .unwrap_or(0),
                    value: dirs.map(|&e| scaled[e]).fold(0.0, f32::max),
                });
            }
        }
        cables
    }

    /// The per-level view, a summary of large indirect networks: every level (by hop
    /// distance from the hosts, as the layered layout draws them) as one node named
    /// with what it holds, and the links from one level to another as one edge per
    /// direction whose count is the hottest of theirs, so the scale and the hottest
    /// cable's colour stay those of the full map. An edge's label says how many links
    /// it stands for and their total count. Links within a level become a loop on its
    /// node; edges the map does not draw (an endpoint out of range) stay undrawn and
    /// keep their count for the scale. O(nodes + edges log edges).
    pub fn per_level(&self) -> CongestionGraph {
        let n = self.num_nodes();
        let level = levels(self, &self.adjacency());
        let depth = level.iter().max().map_or(0, |&l| l as usize + 1);
        // (hosts, switches) per level.
        let mut held = vec![(0usize, 0usize); depth];
        for (v, &l) in level.iter().enumerate() {
            let (hosts, switches) = &mut held[l as usize];
            if self.host(v as u32) {
                *hosts += 1;
            } else {
                *switches += 1;
            }
        }
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "es" });
        let mut node_of_level = vec![NONE; depth];
        let mut graph = CongestionGraph {
            grouped: true,
            ..CongestionGraph::default()
        };
        for (l, &(hosts, switches)) in held.iter().enumerate() {
            if hosts + switches == 0 {
                continue;
            }
            node_of_level[l] = graph.names.len() as u32;
            // The hosts are level 0 by themselves ([`levels`]).
            graph.names.push(if hosts > 0 {
                format!("{hosts} host{}", if hosts == 1 { "" } else { "s" })
            } else {
                format!("level {l}: {}", plural(switches, "switch"))
            });
            graph.is_host.push(hosts > 0);
        }
        // Per pair of levels: the hottest count, the links and their total.
        let mut pairs: Vec<(u32, u32, u64)> = Vec::with_capacity(self.edges.len());
        for e in &self.edges {
            if e.tail as usize >= n || e.head as usize >= n {
                graph.edges.push(MapEdge {
                    tail: u32::MAX,
                    head: u32::MAX,
                    count: e.count,
                    label: None,
                });
                continue;
            }
            let node = |v: u32| node_of_level[level[v as usize] as usize];
            pairs.push((node(e.tail), node(e.head), e.count));
        }
        pairs.sort_unstable_by_key(|&(t, h, _)| (t, h));
        for group in pairs.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let total: u64 = group.iter().map(|g| g.2).sum();
            let hottest = group.iter().map(|g| g.2).max().unwrap_or(0);
            let links = group.len();
            graph.edges.push(MapEdge {
                tail: group[0].0,
                head: group[0].1,
                count: hottest,
                label: Some(format!(
                    "{links} link{}, total count {total}",
                    if links == 1 { "" } else { "s" }
                )),
            });
        }
        graph
    }

    /// Sorted, deduplicated neighbour lists without self-loops. O(edges log edges).
    pub(crate) fn adjacency(&self) -> Vec<Vec<u32>> {
        let n = self.num_nodes();
        let mut adj = vec![Vec::new(); n];
        for e in &self.edges {
            let (t, h) = (e.tail as usize, e.head as usize);
            if t < n && h < n && t != h {
                adj[t].push(e.head);
                adj[h].push(e.tail);
            }
        }
        for list in &mut adj {
            list.sort_unstable();
            list.dedup();
        }
        adj
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;
    use crate::viz::map::fixtures::graph;

    #[test]
    fn the_per_level_view_keeps_the_hottest_link_of_each_level_pair() {
        // The fixture tree: 4 hosts, 2 leaves, 2 spines. Hosts → leaves: 4, 0, 0, 0;
        // leaves → hosts: 0. Leaves → spines: L0→S0 2, the others 0; spines → leaves:
        // S0→L0 1, S1→L1 1. One loose edge (to node 99) with count 8 sets the scale.
        let mut g = crate::viz::map::fixtures::tree();
        g.edges.push(MapEdge {
            tail: 4,
            head: 99,
            count: 8,
            label: None,
        });
        let v = g.per_level();
        assert_eq!(
            v.names,
            ["4 hosts", "level 1: 2 switches", "level 2: 2 switches"]
        );
        assert_eq!(v.is_host, [true, false, false]);
        assert!(v.grouped && !g.grouped && !v.drawn_as_point(0) && g.drawn_as_point(0));
        let drawn: Vec<(u32, u32, u64, &str)> = (v.edges.iter())
            .filter(|e| e.tail != u32::MAX)
            .map(|e| (e.tail, e.head, e.count, e.label.as_deref().unwrap()))
            .collect();
        assert_eq!(
            drawn,
            [
                (0, 1, 4, "4 links, total count 4"),
                (1, 0, 0, "4 links, total count 0"),
                (1, 2, 2, "4 links, total count 2"),
                (2, 1, 1, "4 links, total count 2"),
            ]
        );
        // The loose edge stays undrawn and keeps the scale: 4 / 8, 0, 2 / 8, 1 / 8.
        assert_eq!(v.edges[0].count, 8);
        let cables = v.cables();
        assert_eq!(cables.len(), 2);
        assert_eq!((cables[0].a, cables[0].b, cables[0].value), (0, 1, 0.5));
        assert_eq!((cables[1].a, cables[1].b, cables[1].value), (1, 2, 0.25));
        // Links within a level become a loop; one host or switch is singular.
        let flat = graph(
            &["H0", "S0", "S1"],
            &[(0, 1, 3, 0), (0, 2, 0, 0), (1, 2, 5, 6)],
        );
        let v = flat.per_level();
        assert_eq!(v.names, ["1 host", "level 1: 2 switches"]);
        assert!(v
            .edges
            .iter()
            .any(|e| (e.tail, e.head, e.count) == (1, 1, 6)));
        let star = graph(&["H0", "S0", "H1"], &[(0, 1, 1, 1), (1, 2, 1, 1)]);
        assert_eq!(star.per_level().names, ["2 hosts", "level 1: 1 switch"]);
    }

    #[test]
    fn scaled_values_and_cables_follow_the_counts() {
        let g = graph(&["S0", "S1", "S2"], &[(0, 1, 0, 2), (1, 2, 4, 0)]);
        assert_eq!(g.scaled(), vec![0.0, 0.5, 1.0, 0.0]);
        let c = g.cables();
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].value, c[0].count, c[0].edges),
            (0.5, 2, [Some(0), Some(1)])
        );
        assert_eq!((c[1].value, c[1].count), (1.0, 4));
        assert_eq!(
            graph(&["S0", "S1"], &[(0, 1, 0, 0)]).scaled(),
            vec![0.0, 0.0]
        );
        // From a generated fabric: one edge per fabric edge, the same scaling as report.
        let fabric = generate("kary-ntree:k=2,n=2").unwrap().fabric;
        let counts: Vec<u64> = (0..fabric.num_edges() as u64).map(|e| e % 5).collect();
        let g = CongestionGraph::from_fabric(&fabric, &counts);
        assert_eq!(g.scaled(), scaled_congestion(&counts));
        assert_eq!(g.is_host.iter().filter(|&&h| h).count(), fabric.num_hosts());
        assert_eq!(g.cables().len(), fabric.num_edges() / 2);
    }
}
