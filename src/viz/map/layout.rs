//! Placing a map's nodes: the choice between the layered drawing of indirect networks
//! and the force-directed drawing of direct ones ([`pick_layout`]), the hop-distance
//! levels both the layered drawing and the Graphviz document use, and the scaling of
//! every placement into the unit square. The placements themselves are in
//! [`super::layered`] and [`super::force`].

use crate::fabric::NONE;
use crate::viz::map::force::force;
use crate::viz::map::layered::layered;
use crate::viz::map::{CongestionGraph, MapOptions};
use std::collections::VecDeque;

/// How nodes are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Levels by hop distance from the hosts (hosts at the bottom), for indirect networks.
    Layered,
    /// Fruchterman–Reingold on the switches, hosts around their switch, for direct ones.
    Force,
}

/// Node positions in [0, 1]² (y grows upward), `None` for hidden nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Positions {
    /// The layout that produced them.
    pub layout: Layout,
    /// Per node.
    pub points: Vec<Option<(f64, f64)>>,
}

/// Breadth-first search from the nodes in `queue` (their `dist` already set), filling
/// the [`NONE`] entries of `dist` with hop counts. O(n + m).
pub(crate) fn bfs(adj: &[Vec<u32>], dist: &mut [u32], queue: &mut VecDeque<u32>) {
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v as usize] {
            if dist[w as usize] == NONE {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
        }
    }
}

/// Levels by hop distance from the hosts (multi-source BFS); components without hosts
/// start at level 1 (0 when there are no hosts at all) from their lowest node. O(n + m).
pub(crate) fn levels(graph: &CongestionGraph, adj: &[Vec<u32>]) -> Vec<u32> {
    let mut level = vec![NONE; adj.len()];
    let mut queue: VecDeque<u32> = (0..adj.len() as u32).filter(|&v| graph.host(v)).collect();
    queue.iter().for_each(|&v| level[v as usize] = 0);
    let start = u32::from(!queue.is_empty());
    bfs(adj, &mut level, &mut queue);
    for v in 0..adj.len() as u32 {
        if level[v as usize] == NONE {
            level[v as usize] = start;
            queue.push_back(v);
            bfs(adj, &mut level, &mut queue);
        }
    }
    level
}

/// Picks the layout: [`Layout::Layered`] when there are hosts, the switches span at
/// least two levels of hop distance from them, and at most 1 in 20 switch-to-switch
/// links joins two switches of the same level (a tree-like, indirect network);
/// [`Layout::Force`] otherwise (tori, meshes, hypercubes, dragonflies, where the switches
/// carry the hosts). O(nodes + edges log edges).
pub(crate) fn pick_layout(graph: &CongestionGraph) -> Layout {
    let adj = graph.adjacency();
    if !(0..adj.len() as u32).any(|v| graph.host(v)) {
        return Layout::Force;
    }
    let level = levels(graph, &adj);
    let mut switch_levels: Vec<u32> = (0..adj.len())
        .filter(|&v| !graph.host(v as u32))
        .map(|v| level[v])
        .collect();
    switch_levels.sort_unstable();
    switch_levels.dedup();
    let (mut links, mut flat) = (0usize, 0usize);
    for (v, list) in adj.iter().enumerate() {
        for &w in list.iter().filter(|&&w| w as usize > v) {
            if !graph.host(v as u32) && !graph.host(w) {
                links += 1;
                flat += usize::from(level[v] == level[w as usize]);
            }
        }
    }
    if switch_levels.len() >= 2 && flat * 20 <= links {
        Layout::Layered
    } else {
        Layout::Force
    }
}

/// Places the nodes in [0, 1]², deterministically (hidden hosts get `None`).
///
/// Layered: levels from [`pick_layout`]'s BFS, nodes evenly spread along their level,
/// ordered by 4 rounds of barycenter sweeps (up, then down; ties keep the previous order,
/// which starts as node order). O(rounds × (edges + nodes log nodes)).
///
/// Force: classical MDS of the hop distances (power iteration) as the start, then
/// Fruchterman–Reingold on the switches; O(n·(n + m) + iterations × n²) for n ≤
/// [`FORCE_LIMIT`](super::force::FORCE_LIMIT) switches, with 30 to 300 iterations (fewer for larger n); a grid in
/// node order beyond. Hosts sit on a small circle around their lowest-numbered switch.
pub fn layout(graph: &CongestionGraph, options: &MapOptions) -> Positions {
    let kind = options.layout.unwrap_or_else(|| pick_layout(graph));
    let adj = graph.adjacency();
    let hidden = |v: usize| options.switches_only && graph.host(v as u32);
    let mut points = match kind {
        Layout::Layered => layered(graph, &adj, &hidden),
        Layout::Force => force(graph, &adj),
    };
    (points.iter_mut().enumerate())
        .filter(|(v, _)| hidden(*v))
        .for_each(|(_, p)| *p = None);
    normalize(&mut points, kind == Layout::Layered);
    Positions {
        layout: kind,
        points,
    }
}

/// Scales the points into [0, 1]²: independently per axis (`stretch`) or uniformly and
/// centered; a degenerate axis is centered. Non-finite values become 0.5.
pub(crate) fn normalize(points: &mut [Option<(f64, f64)>], stretch: bool) {
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    for &(x, y) in points.iter().flatten() {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    let span = (hi.0 - lo.0, hi.1 - lo.1);
    let uniform = span.0.max(span.1);
    let fit = |v: f64, lo: f64, span: f64| {
        let s = if stretch { span } else { uniform };
        let t = if s > 1e-12 {
            (v - lo) / s + (1.0 - span / s) / 2.0
        } else {
            0.5
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.5
        }
    };
    for p in points.iter_mut().flatten() {
        *p = (fit(p.0, lo.0, span.0), fit(p.1, lo.1, span.1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;
    use crate::viz::map::fixtures::{ring, tree};

    #[test]
    fn trees_are_layered_and_direct_networks_forced() {
        let g = tree();
        assert_eq!(pick_layout(&g), Layout::Layered);
        let p = layout(&g, &MapOptions::default()).points;
        let (x, y) = (|v: usize| p[v].unwrap().0, |v: usize| p[v].unwrap().1);
        assert!(
            (0..4).all(|h| y(h) < y(4) && y(h) < y(5)),
            "hosts lowest: {p:?}"
        );
        assert!(y(4) == y(5) && y(4) < y(6) && y(6) == y(7), "{p:?}");
        // The barycenter sweeps group each leaf's hosts under it (no crossings).
        let (left, right) = if x(4) < x(5) {
            ([0, 2], [1, 3])
        } else {
            ([1, 3], [0, 2])
        };
        assert!(
            left.iter().all(|&a| right.iter().all(|&b| x(a) < x(b))),
            "{p:?}"
        );
        let r = ring();
        assert_eq!(pick_layout(&r), Layout::Force);
        let p: Vec<(f64, f64)> = layout(&r, &MapOptions::default())
            .points
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(p.len(), 8);
        for (i, a) in p.iter().enumerate() {
            assert!((0.0..=1.0).contains(&a.0) && (0.0..=1.0).contains(&a.1));
            assert!(
                p[i + 1..]
                    .iter()
                    .all(|b| (a.0 - b.0).hypot(a.1 - b.1) > 0.05),
                "{p:?}"
            );
        }
        for (spec, want) in [
            ("kary-ntree:k=4,n=3", Layout::Layered),
            ("xgft:m=4,4;w=1,2", Layout::Layered),
            ("torus:dims=4x4", Layout::Force),
            ("hypercube:d=4", Layout::Force),
            ("dragonfly:a=4,p=2,h=2", Layout::Force),
        ] {
            let g = CongestionGraph::from_fabric(&generate(spec).unwrap().fabric, &[]);
            assert_eq!(pick_layout(&g), want, "{spec}");
        }
    }
}
