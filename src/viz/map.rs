//! Congestion maps: the fabric drawn as an image (SVG or PNG) or as a Graphviz document,
//! every cable colored and sized by its congestion, so the hot links can be seen.
//!
//! The input is a [`CongestionGraph`] (nodes and directed edges with counts, however they
//! were obtained). [`layout`] places the nodes: a layered drawing for indirect networks
//! (fat trees, XGFTs, Clos: hosts at the bottom, each switch level above the previous,
//! orders chosen by barycenter sweeps) and a force-directed drawing for direct networks
//! (tori, meshes, hypercubes, dragonflies), chosen by [`pick_layout`]. [`MapFigure`]
//! draws the result and [`render_map`] turns it into bytes; [`graphviz_source`] is the
//! same map for `dot` or `neato`. Everything is deterministic: the same input gives
//! byte-identical output.

use crate::engine::metric::scaled_congestion;
use crate::fabric::{write::dot_id, Fabric, NONE};
use crate::report::congestion_color;
use crate::viz::draw::{self, congestion_rgb, draw_err, DrawError, Figure, ImageFormat, FONT};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// Most switches the force-directed layout places; larger direct networks are placed on
/// a grid in node order (O(n)) instead of the O(iterations × n²) simulation.
pub const FORCE_LIMIT: usize = 2000;

/// Color of cables that carry no traffic.
const UNUSED: RGBColor = RGBColor(205, 205, 205);
/// Fill of switch markers.
const SWITCH: RGBColor = RGBColor(60, 60, 90);
/// Fill of host markers.
const HOST: RGBColor = RGBColor(110, 130, 160);

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

    /// Sorted, deduplicated neighbour lists without self-loops. O(edges log edges).
    fn adjacency(&self) -> Vec<Vec<u32>> {
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

/// How nodes are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Levels by hop distance from the hosts (hosts at the bottom), for indirect networks.
    Layered,
    /// Fruchterman–Reingold on the switches, hosts around their switch, for direct ones.
    Force,
}

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
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            top_labels: 5,
            switches_only: false,
            legend: true,
            title: None,
            layout: None,
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
fn bfs(adj: &[Vec<u32>], dist: &mut [u32], queue: &mut VecDeque<u32>) {
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
fn levels(graph: &CongestionGraph, adj: &[Vec<u32>]) -> Vec<u32> {
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
pub fn pick_layout(graph: &CongestionGraph) -> Layout {
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
/// [`FORCE_LIMIT`] switches, with 30 to 300 iterations (fewer for larger n); a grid in
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
fn normalize(points: &mut [Option<(f64, f64)>], stretch: bool) {
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

/// The layered placement (before normalization); hidden nodes are left out of the
/// spreading so the visible levels use the full width.
fn layered(
    graph: &CongestionGraph,
    adj: &[Vec<u32>],
    hidden: &dyn Fn(usize) -> bool,
) -> Vec<Option<(f64, f64)>> {
    let level = levels(graph, adj);
    let top = level.iter().copied().max().unwrap_or(0) as usize;
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); top + 1];
    for (v, &l) in level.iter().enumerate() {
        rows[l as usize].push(v as u32);
    }
    // Position within the level, scaled to (0, 1) so levels of any width compare.
    let mut pos = vec![0.0f64; adj.len()];
    let place = |row: &[u32], pos: &mut [f64]| {
        for (i, &v) in row.iter().enumerate() {
            pos[v as usize] = (i as f64 + 0.5) / row.len() as f64;
        }
    };
    rows.iter().for_each(|row| place(row, &mut pos));
    let up = (1..=top).map(|l| (l, l - 1));
    let sweep: Vec<(usize, usize)> = up.chain((0..top).rev().map(|l| (l, l + 1))).collect();
    for &(l, reference) in sweep.iter().cycle().take(4 * sweep.len()) {
        let key = |v: u32| {
            let near = adj[v as usize]
                .iter()
                .filter(|&&w| level[w as usize] as usize == reference);
            let (sum, count) = near.fold((0.0, 0), |(s, c), &w| (s + pos[w as usize], c + 1));
            if count == 0 {
                pos[v as usize]
            } else {
                sum / count as f64
            }
        };
        let mut keyed: Vec<(f64, f64, u32)> = rows[l]
            .iter()
            .map(|&v| (key(v), pos[v as usize], v))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        rows[l] = keyed.into_iter().map(|k| k.2).collect();
        place(&rows[l], &mut pos);
    }
    let mut points = vec![None; adj.len()];
    for (l, row) in rows.iter().enumerate() {
        let shown: Vec<u32> = row
            .iter()
            .copied()
            .filter(|&v| !hidden(v as usize))
            .collect();
        for (i, &v) in shown.iter().enumerate() {
            points[v as usize] = Some(((i as f64 + 0.5) / shown.len() as f64, l as f64));
        }
    }
    points
}

/// The force-directed placement (before normalization).
fn force(graph: &CongestionGraph, adj: &[Vec<u32>]) -> Vec<Option<(f64, f64)>> {
    let n = adj.len();
    // A host's anchor: its lowest-numbered switch neighbour; hosts without one are placed
    // like switches.
    let anchor: Vec<Option<u32>> = (0..n)
        .map(|v| {
            let host = graph.host(v as u32);
            host.then(|| adj[v].iter().copied().find(|&w| !graph.host(w)))
                .flatten()
        })
        .collect();
    let core: Vec<usize> = (0..n).filter(|&v| anchor[v].is_none()).collect();
    let mut index = vec![usize::MAX; n];
    core.iter().enumerate().for_each(|(i, &v)| index[v] = i);
    let core_adj: Vec<Vec<u32>> = (core.iter())
        .map(|&v| (adj[v].iter()).map(|&w| index[w as usize] as u32))
        .map(|list| list.filter(|&i| i != u32::MAX).collect())
        .collect();
    let mut p = if core.len() > FORCE_LIMIT {
        let cols = (core.len() as f64).sqrt().ceil() as usize;
        (0..core.len())
            .map(|i| ((i % cols) as f64, -((i / cols) as f64)))
            .collect()
    } else {
        let mut p = mds(&core_adj).unwrap_or_else(|| circle(core.len()));
        fruchterman_reingold(&mut p, &core_adj);
        p
    };
    let mut unit: Vec<Option<(f64, f64)>> = p.drain(..).map(Some).collect();
    normalize(&mut unit, false);
    let mut lengths: Vec<f64> = Vec::new();
    for (i, list) in core_adj.iter().enumerate() {
        for j in list.iter().map(|&j| j as usize).filter(|&j| j > i) {
            let (a, b) = (unit[i].unwrap_or_default(), unit[j].unwrap_or_default());
            lengths.push((a.0 - b.0).hypot(a.1 - b.1));
        }
    }
    lengths.sort_by(f64::total_cmp);
    let typical = lengths.get(lengths.len() / 2).copied().unwrap_or(0.2);
    let radius = (0.3 * typical).clamp(0.005, 0.08);
    let mut points = vec![None; n];
    core.iter().zip(&unit).for_each(|(&v, &p)| points[v] = p);
    let (mut seen, mut total) = (vec![0usize; n], vec![0usize; n]);
    anchor
        .iter()
        .flatten()
        .for_each(|&a| total[a as usize] += 1);
    for v in 0..n {
        if let Some(a) = anchor[v] {
            let a = a as usize;
            let angle = std::f64::consts::TAU * seen[a] as f64 / total[a] as f64 - 1.2;
            seen[a] += 1;
            let (cx, cy) = unit[index[a]].unwrap_or_default();
            points[v] = Some((cx + radius * angle.cos(), cy + radius * angle.sin()));
        }
    }
    points
}

/// `n` points on the unit circle, in order.
fn circle(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n.max(1) as f64;
            (a.cos(), a.sin())
        })
        .collect()
}

/// Classical multidimensional scaling of the hop distances (unreachable pairs at the
/// largest distance + 1): the top two eigenvectors of the double-centered squared
/// distances by 80 rounds of block power iteration. O(n·(n + m) + 80 n²) time, n² floats.
/// `None` when it degenerates (n < 3, no spread).
fn mds(adj: &[Vec<u32>]) -> Option<Vec<(f64, f64)>> {
    let n = adj.len();
    if n < 3 {
        return None;
    }
    let mut hops = vec![NONE; n * n];
    let mut queue = VecDeque::new();
    for (v, row) in hops.chunks_mut(n).enumerate() {
        row[v] = 0;
        queue.push_back(v as u32);
        bfs(adj, row, &mut queue);
    }
    let far = hops
        .iter()
        .filter(|&&x| x != NONE)
        .max()
        .map_or(1.0, |&x| x as f32 + 1.0);
    let d: Vec<f32> = (hops.into_iter())
        .map(|x| if x == NONE { far * far } else { (x * x) as f32 })
        .collect();
    let r: Vec<f64> = (0..n)
        .map(|i| d[i * n..(i + 1) * n].iter().map(|&x| x as f64).sum::<f64>() / n as f64)
        .collect();
    let g = r.iter().sum::<f64>() / n as f64;
    // B v with B = -1/2 (D² - r 1ᵀ - 1 rᵀ + g 11ᵀ).
    let apply = |v: &[f64]| -> Vec<f64> {
        let (sv, rv) = (
            v.iter().sum::<f64>(),
            r.iter().zip(v).map(|(a, b)| a * b).sum::<f64>(),
        );
        (0..n)
            .map(|i| {
                let dv: f64 = d[i * n..(i + 1) * n]
                    .iter()
                    .zip(v)
                    .map(|(&a, b)| a as f64 * b)
                    .sum();
                -0.5 * (dv - r[i] * sv - rv + g * sv)
            })
            .collect()
    };
    let unit = |v: &mut Vec<f64>| {
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm.max(1e-300));
        norm
    };
    // Deterministic pseudo-random start vectors (a Weyl sequence).
    let mut v1: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.618_034).fract() - 0.5)
        .collect();
    let mut v2: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.414_214 + 0.3).fract() - 0.5)
        .collect();
    let (mut l1, mut l2) = (0.0, 0.0);
    for _ in 0..80 {
        v1 = apply(&v1);
        l1 = unit(&mut v1);
        v2 = apply(&v2);
        let dot: f64 = v1.iter().zip(&v2).map(|(a, b)| a * b).sum();
        v2.iter_mut().zip(&v1).for_each(|(b, a)| *b -= dot * a);
        l2 = unit(&mut v2);
    }
    if l1.is_nan() || l1 <= 1e-9 || !l2.is_finite() {
        return None;
    }
    let (s1, s2) = (l1.sqrt(), l2.max(0.0).sqrt());
    Some((0..n).map(|i| (v1[i] * s1, v2[i] * s2)).collect())
}

/// Fruchterman–Reingold in the unit square (k = √(1/n)), temperature cooling linearly
/// from 0.1; `clamp(1.5·10⁸ / n², 30, 300)` iterations, each O(n² + m).
fn fruchterman_reingold(p: &mut [(f64, f64)], adj: &[Vec<u32>]) {
    let n = p.len();
    if n < 2 {
        return;
    }
    let mut unit: Vec<Option<(f64, f64)>> = p.iter().copied().map(Some).collect();
    normalize(&mut unit, false);
    for (q, u) in p.iter_mut().zip(unit) {
        *q = u.unwrap_or((0.5, 0.5));
    }
    let k2 = 1.0 / n as f64;
    let k = k2.sqrt();
    let iterations = (1.5e8 / (n * n) as f64).clamp(30.0, 300.0) as usize;
    let mut disp = vec![(0.0f64, 0.0f64); n];
    for it in 0..iterations {
        let t = 0.1 * (1.0 - it as f64 / iterations as f64) + 1e-4;
        disp.iter_mut().for_each(|d| *d = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (mut dx, mut dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                let mut d2 = dx * dx + dy * dy;
                if d2 < 1e-12 {
                    // Coincident nodes: push apart along a direction fixed by the ids.
                    let a = (i * 7 + j * 13) as f64;
                    (dx, dy, d2) = (1e-6 * a.cos(), 1e-6 * a.sin(), 1e-12);
                }
                let f = k2 / d2;
                disp[i] = (disp[i].0 + dx * f, disp[i].1 + dy * f);
                disp[j] = (disp[j].0 - dx * f, disp[j].1 - dy * f);
            }
        }
        for (i, list) in adj.iter().enumerate() {
            for j in list.iter().map(|&j| j as usize).filter(|&j| j > i) {
                let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                let f = (dx * dx + dy * dy).sqrt() / k;
                disp[i] = (disp[i].0 - dx * f, disp[i].1 - dy * f);
                disp[j] = (disp[j].0 + dx * f, disp[j].1 + dy * f);
            }
        }
        for (q, d) in p.iter_mut().zip(&disp) {
            let len = d.0.hypot(d.1);
            if len > 0.0 && len.is_finite() {
                let s = len.min(t) / len;
                *q = (q.0 + d.0 * s, q.1 + d.1 * s);
            }
        }
    }
}

/// The visible cables, coolest first (hottest last), ties by cable order.
fn visible_cables(graph: &CongestionGraph, points: &[Option<(f64, f64)>]) -> Vec<Cable> {
    let shown = |v: u32| points.get(v as usize).is_some_and(|p| p.is_some());
    let mut cables: Vec<Cable> = (graph.cables().into_iter())
        .filter(|c| shown(c.a) && shown(c.b))
        .collect();
    cables.sort_by(|x, y| x.value.total_cmp(&y.value).then(x.count.cmp(&y.count)));
    cables
}

/// Indices (into the coolest-first list) of the `n` hottest cables with traffic.
fn hottest(cables: &[Cable], n: usize) -> Vec<usize> {
    (0..cables.len())
        .rev()
        .filter(|&i| cables[i].count > 0)
        .take(n)
        .collect()
}

/// A congestion map ready to draw: the graph, the options and the computed layout.
pub struct MapFigure<'a> {
    graph: &'a CongestionGraph,
    options: &'a MapOptions,
    positions: Positions,
}

impl<'a> MapFigure<'a> {
    /// Lays out `graph` (see [`layout`]).
    pub fn new(graph: &'a CongestionGraph, options: &'a MapOptions) -> Self {
        MapFigure {
            graph,
            options,
            positions: layout(graph, options),
        }
    }

    /// The node positions used.
    pub fn positions(&self) -> &Positions {
        &self.positions
    }
}

impl Figure for MapFigure<'_> {
    /// Cables (unused ones thin and light grey, the others colored with
    /// [`congestion_rgb`] of the larger direction and wider when hotter, hottest on top),
    /// switches as squares, hosts as dots, switch names when there are at most 32, the
    /// top-N labels, the title and the legend. O(nodes + cables log cables).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), DrawError> {
        let (w, h) = area.dim_in_pixel();
        let (w, h) = (w as i32, h as i32);
        let points = &self.positions.points;
        let shown = points.iter().filter(|p| p.is_some()).count();
        let switches = (points.iter().enumerate())
            .filter(|(v, p)| p.is_some() && !self.graph.host(*v as u32))
            .count();
        let side = ((w.min(h) as f64 / (shown.max(1) as f64).sqrt() * 0.2) as i32).clamp(3, 14);
        let dot = (side / 3).clamp(1, 4);
        let pad = side + 6;
        let top = pad + if self.options.title.is_some() { 30 } else { 0 };
        let right = pad + if self.options.legend { 110 } else { 0 };
        let (pw, ph) = ((w - pad - right).max(1), (h - top - pad - 12).max(1));
        let at = |v: u32| {
            let (x, y) = points[v as usize].unwrap_or((0.5, 0.5));
            (
                pad + (x * pw as f64).round() as i32,
                top + ((1.0 - y) * ph as f64).round() as i32,
            )
        };
        let cables = visible_cables(self.graph, points);
        let widest =
            [7.0, 5.0, 3.0][usize::from(cables.len() > 100) + usize::from(cables.len() > 1000)];
        for c in cables.iter().filter(|c| c.a != c.b) {
            let (color, width) = if c.count == 0 {
                (UNUSED, 1)
            } else {
                (
                    congestion_rgb(c.value),
                    1 + (c.value as f64 * (widest - 1.0)).round() as u32,
                )
            };
            area.draw(&PathElement::new(
                vec![at(c.a), at(c.b)],
                color.stroke_width(width),
            ))
            .map_err(draw_err)?;
        }
        let centered = TextStyle::from((FONT, 11).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        for (v, p) in points.iter().enumerate() {
            let (x, y) = at(v as u32);
            if p.is_none() {
                continue;
            } else if self.graph.host(v as u32) {
                area.draw(&Circle::new((x, y), dot, HOST.filled()))
                    .map_err(draw_err)?;
                continue;
            }
            let s = side / 2;
            area.draw(&Rectangle::new(
                [(x - s, y - s), (x + s, y + s)],
                SWITCH.filled(),
            ))
            .map_err(draw_err)?;
            if switches <= 32 {
                let grey = centered.color(&RGBColor(70, 70, 70));
                boxed(area, &self.graph.names[v], &grey, (x, y + s + 8))?;
            }
        }
        for i in hottest(&cables, self.options.top_labels) {
            let (a, b) = (at(cables[i].a), at(cables[i].b));
            let text = format!("{:.3}", cables[i].value);
            boxed(area, &text, &centered, ((a.0 + b.0) / 2, (a.1 + b.1) / 2))?;
        }
        if shown == 0 {
            area.draw_text("no nodes to draw", &centered, (w / 2, h / 2))
                .map_err(draw_err)?;
        }
        if let Some(title) = &self.options.title {
            let style = TextStyle::from((FONT, 18).into_font())
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top));
            area.draw_text(title, &style, (w / 2, 8))
                .map_err(draw_err)?;
        }
        if self.options.legend {
            let max = self.graph.edges.iter().map(|e| e.count).max().unwrap_or(0);
            legend(area, (w - 100, top, h - pad - 12), max)?;
        }
        Ok(())
    }
}

/// Text centered at `at` on a translucent white box.
fn boxed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    (x, y): (i32, i32),
) -> Result<(), DrawError> {
    let (w, h) = area.estimate_text_size(text, style).map_err(draw_err)?;
    let (w, h) = (w as i32 / 2 + 2, h as i32 / 2 + 1);
    let frame = WHITE.mix(0.8).filled();
    area.draw(&Rectangle::new([(x - w, y - h), (x + w, y + h)], frame))
        .map_err(draw_err)?;
    area.draw_text(text, style, (x, y)).map_err(draw_err)
}

/// The color bar at `x` from `y0` (1) to `y1` (0), ticks, caption and the max count.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y0, y1): (i32, i32, i32),
    max: u64,
) -> Result<(), DrawError> {
    let (y0, y1) = (y0 + 10, (y1 - 24).max(y0 + 30));
    let steps = 64;
    let span = (y1 - y0) as f64;
    for s in 0..steps {
        let (a, b) = (s as f64 / steps as f64, (s + 1) as f64 / steps as f64);
        let c = congestion_rgb(s as f32 / (steps - 1) as f32);
        let (top, bottom) = (
            y1 - (b * span).round() as i32,
            y1 - (a * span).round() as i32,
        );
        area.draw(&Rectangle::new(
            [(x + 24, top), (x + 40, bottom)],
            c.filled(),
        ))
        .map_err(draw_err)?;
    }
    let tick = TextStyle::from((FONT, 11).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for t in 0..=4 {
        let y = y1 - (t as f64 / 4.0 * span).round() as i32;
        area.draw(&PathElement::new(vec![(x + 40, y), (x + 44, y)], BLACK))
            .map_err(draw_err)?;
        area.draw_text(&format!("{:.2}", t as f64 / 4.0), &tick, (x + 47, y))
            .map_err(draw_err)?;
    }
    let caption = TextStyle::from((FONT, 12).into_font().transform(FontTransform::Rotate270))
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text("scaled congestion", &caption, (x + 10, (y0 + y1) / 2))
        .map_err(draw_err)?;
    let below = tick.pos(Pos::new(HPos::Left, VPos::Top));
    area.draw_text(&format!("max count: {max}"), &below, (x, y1 + 8))
        .map_err(draw_err)
}

/// Renders the map of `graph` as `format` bytes of `width` × `height` pixels (see
/// [`MapFigure`]).
pub fn render_map(
    graph: &CongestionGraph,
    options: &MapOptions,
    format: ImageFormat,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, DrawError> {
    draw::render(&MapFigure::new(graph, options), format, width, height)
}

/// The Graphviz program for the automatic layout: `"dot"` when [`pick_layout`] says
/// layered, `"neato"` otherwise (a caller forcing [`MapOptions::layout`] picks its own).
pub fn graphviz_program(graph: &CongestionGraph) -> &'static str {
    match pick_layout(graph) {
        Layout::Layered => "dot",
        Layout::Force => "neato",
    }
}

/// The map as an undirected dot document for `dot` or `neato` (see [`graphviz_program`]):
/// one edge per cable, coolest first, with `get_cable_cong`'s `color="h s v"` of the
/// larger direction for cables with traffic (light grey for unused ones), `penwidth`
/// 1 + 5·value, the N hottest labelled with their value; hosts as points (hidden with
/// `switches_only`); for the layered layout, levels as `rank=same` groups with the hosts
/// at the bottom. O(nodes + cables log cables).
pub fn graphviz_source(graph: &CongestionGraph, options: &MapOptions) -> String {
    let kind = options.layout.unwrap_or_else(|| pick_layout(graph));
    let shown: Vec<Option<(f64, f64)>> = (0..graph.num_nodes() as u32)
        .map(|v| (!(options.switches_only && graph.host(v))).then_some((0.0, 0.0)))
        .collect();
    let level = levels(graph, &graph.adjacency());
    let max = graph.edges.iter().map(|e| e.count).max().unwrap_or(0);
    let mut s = String::from("graph congestion_map {\n");
    let title = options
        .title
        .as_deref()
        .map_or(String::new(), |t| format!("{t}\\n"));
    let label = format!("{title}color: scaled congestion 0 (green) to 1 (red) = count {max}");
    let _ = writeln!(
        s,
        "  graph [label={}, labelloc=t, outputorder=edgesfirst];",
        dot_id(&label)
    );
    if kind == Layout::Layered {
        s.push_str("  graph [rankdir=BT, splines=line, ranksep=1.2];\n");
    } else {
        s.push_str("  graph [overlap=false];\n");
    }
    s.push_str(
        "  node [shape=box, style=filled, fillcolor=\"#3c3c5a\", fontcolor=white, fontsize=10];\n",
    );
    for (v, name) in graph.names.iter().enumerate() {
        if shown[v].is_some() {
            let extra = if graph.host(v as u32) {
                " [shape=point, width=0.06, fillcolor=\"#6e82a0\"]"
            } else {
                ""
            };
            let _ = writeln!(s, "  {}{extra};", dot_id(name));
        }
    }
    if kind == Layout::Layered {
        let mut by_level: Vec<(u32, usize)> = (0..graph.num_nodes())
            .filter(|&v| shown[v].is_some())
            .map(|v| (level[v], v))
            .collect();
        by_level.sort_unstable();
        for group in by_level.chunk_by(|a, b| a.0 == b.0) {
            let names: Vec<String> = group
                .iter()
                .map(|&(_, v)| dot_id(&graph.names[v]))
                .collect();
            let _ = writeln!(
                s,
                "  subgraph level_{} {{ rank=same; {}; }}",
                group[0].0,
                names.join("; ")
            );
        }
    }
    let cables = visible_cables(graph, &shown);
    let mut labelled = vec![false; cables.len()];
    for i in hottest(&cables, options.top_labels) {
        labelled[i] = true;
    }
    for (i, c) in cables.iter().enumerate() {
        let (mut a, mut b) = (c.a as usize, c.b as usize);
        if level[a] > level[b] {
            (a, b) = (b, a);
        }
        let color = if c.count == 0 {
            "0.000000 0.000000 0.800000".to_string()
        } else {
            congestion_color(c.value)
        };
        let keys: Vec<&str> = (c.edges.iter().flatten())
            .filter_map(|&e| graph.edges[e].label.as_deref())
            .collect();
        let (ta, tb) = (&graph.names[a], &graph.names[b]);
        let tip = format!("{ta} -- {tb} [{}]: count {}", keys.join(", "), c.count);
        let _ = write!(
            s,
            "  {} -- {} [color={}, penwidth={:.3}, congestion=\"{:.6}\", tooltip={}",
            dot_id(&graph.names[a]),
            dot_id(&graph.names[b]),
            dot_id(&color),
            1.0 + 5.0 * c.value as f64,
            c.value,
            dot_id(&tip),
        );
        if labelled[i] {
            let _ = write!(s, ", label=\"{:.3}\", fontsize=10", c.value);
        }
        s.push_str("];\n");
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;

    /// Nodes named `H…` are hosts; each link is two directed edges with the two counts.
    fn graph(names: &[&str], links: &[(u32, u32, u64, u64)]) -> CongestionGraph {
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
        }
    }

    /// 4 hosts (interleaved between the leaves), 2 leaves, 2 spines; the host cable
    /// H0–L0 is the hottest (4), L0–S0 carries 2, S1–L1 carries 1.
    fn tree() -> CongestionGraph {
        let names = ["H0", "H1", "H2", "H3", "L0", "L1", "S0", "S1"];
        let down = [(0, 4, 4, 0), (1, 5, 0, 0), (2, 4, 0, 0), (3, 5, 0, 0)];
        let up = [(4, 6, 2, 1), (4, 7, 0, 0), (5, 6, 0, 0), (5, 7, 0, 1)];
        graph(&names, &[down, up].concat())
    }

    /// A ring of 4 switches with a host each.
    fn ring() -> CongestionGraph {
        let names = ["S0", "S1", "S2", "S3", "H0", "H1", "H2", "H3"];
        let links: Vec<_> = (0..4)
            .flat_map(|i| [(i, (i + 1) % 4, i as u64, 1), (i, i + 4, 0, 0)])
            .collect();
        graph(&names, &links)
    }

    /// `options` changed by `f`.
    fn with(options: &MapOptions, f: impl FnOnce(&mut MapOptions)) -> MapOptions {
        let mut o = options.clone();
        f(&mut o);
        o
    }

    fn stroke(c: RGBColor) -> String {
        format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
    }

    /// How the SVG backend writes a text element's content.
    fn txt(s: &str) -> String {
        format!(">\n{s}\n</text>")
    }

    fn svg(g: &CongestionGraph, o: &MapOptions) -> String {
        String::from_utf8(render_map(g, o, ImageFormat::Svg, 500, 400).unwrap()).unwrap()
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

    #[test]
    fn trees_are_layered_and_direct_networks_forced() {
        let g = tree();
        assert_eq!(
            (pick_layout(&g), graphviz_program(&g)),
            (Layout::Layered, "dot")
        );
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
        assert_eq!(
            (pick_layout(&r), graphviz_program(&r)),
            (Layout::Force, "neato")
        );
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

    #[test]
    fn svg_shows_cables_labels_and_legend() {
        let (g, bare) = (
            tree(),
            MapOptions {
                top_labels: 2,
                legend: false,
                ..Default::default()
            },
        );
        let s = svg(&g, &bare);
        assert_eq!(s.matches("<polyline").count(), 8, "{s}");
        for (value, cables) in [(1.0, 1), (0.5, 1), (0.25, 1)] {
            assert_eq!(
                s.matches(&stroke(congestion_rgb(value))).count(),
                cables,
                "{value}"
            );
        }
        assert_eq!(s.matches(&stroke(UNUSED)).count(), 5);
        // Drawn last: the hottest cable lies on top of the others.
        assert!(s.rfind("<polyline").unwrap() <= s.find(&stroke(congestion_rgb(1.0))).unwrap());
        assert!(s.contains(&txt("1.000")) && s.contains(&txt("0.500")));
        assert!(!s.contains(&txt("0.250")) && !s.contains("scaled congestion"));
        assert_eq!(s.matches("<circle").count(), 4);
        let titled = svg(&g, &with(&bare, |o| o.title = Some("fat tree".into())));
        assert!(titled.contains(&txt("fat tree")));
        let legend = svg(&g, &with(&bare, |o| o.legend = true));
        assert!(legend.contains("scaled congestion") && legend.contains("max count: 4"));
        let fill = |c: f32| stroke(congestion_rgb(c)).replace("stroke", "fill");
        assert!(legend.contains(&fill(0.0)) && legend.contains(&fill(1.0)));
        assert!(!s.contains(&fill(0.0)));
        let switches = svg(&g, &with(&bare, |o| o.switches_only = true));
        assert_eq!(switches.matches("<circle").count(), 0);
        assert_eq!(switches.matches("<polyline").count(), 4);
        assert!(!switches.contains(&txt("1.000")) && switches.contains(&txt("0.500")));
    }

    #[test]
    fn png_is_a_drawn_image() {
        let (w, h) = (300u32, 200u32);
        let png = render_map(&ring(), &MapOptions::default(), ImageFormat::Png, w, h).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let mut blank = Vec::new();
        let mut encoder = png::Encoder::new(&mut blank, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![255; (w * h * 3) as usize])
            .unwrap();
        writer.finish().unwrap();
        assert_ne!(png, blank);
    }

    /// (congestion, color) of every edge of a dot document, and its node names.
    fn dot_view(text: &str) -> (Vec<(f64, String)>, Vec<String>) {
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

    #[test]
    fn graphviz_source_parses_with_monotone_colors() {
        let names: Vec<String> = (0..8).map(|i| format!("S{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let g = graph(
            &names,
            &(0..8)
                .map(|i| (i, (i + 1) % 8, i as u64 * 3, 1))
                .collect::<Vec<_>>(),
        );
        let options = MapOptions {
            top_labels: 3,
            title: Some("a \"ring\"".into()),
            ..Default::default()
        };
        let text = graphviz_source(&g, &options);
        let (mut edges, nodes) = dot_view(&text);
        assert_eq!((edges.len(), nodes.len()), (8, 8), "{text}");
        assert_eq!(text.matches("label=\"").count(), 1 + 3, "{text}");
        edges.sort_by(|a, b| a.0.total_cmp(&b.0));
        let hue = |c: &str| c.split(' ').next().unwrap().parse::<f64>().unwrap();
        for pair in edges.windows(2) {
            assert!(
                pair[0].0 < pair[1].0 && hue(&pair[0].1) > hue(&pair[1].1),
                "{pair:?}"
            );
        }
        assert_eq!(edges[7].1, congestion_color(1.0));
        let text = graphviz_source(&tree(), &with(&options, |o| o.switches_only = true));
        let (edges, nodes) = dot_view(&text);
        assert_eq!((edges.len(), nodes.len()), (4, 4), "{text}");
        assert!(nodes.iter().all(|n| !n.starts_with('H')), "{text}");
        assert!(text.contains("rank=same") && text.contains("rankdir=BT"));
        assert_eq!(dot_view(&graphviz_source(&tree(), &options)).1.len(), 8);
    }

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
            assert_eq!(graphviz_source(&g, &o), graphviz_source(&g, &o));
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
                    dot_view(&graphviz_source(g, &o));
                }
            }
        }
    }
}
