//! Routing over minimal paths, per host pair: the routers (classical D-mod-K and S-mod-K,
//! PFSim's D-mod-K, greedy and greedy-max "dynamic" routing, random), the paths they
//! choose for a job, and the listing of every minimal path in networkx's order that
//! defines their tie-breaks.
//!
//! The routers never list paths: [`PathFinder`] works on the DAG of minimal paths from
//! each source host, which makes a host pair cost the size of its DAG even where
//! thousands of minimal paths exist. It is the hot loop of `orcs traffic` and
//! `orcs jobs`: buffers are allocated once per finder, not per pair.

use crate::cluster::loads::LinkLoads;
use crate::cluster::placement::HostPairs;
use crate::cluster::{Cluster, ClusterError};
use rand::{Rng, RngExt};
use rustc_hash::FxHashMap;
use std::fmt;

/// How each host pair's path is chosen among the minimal (hop-count) paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRouter {
    /// Classical digit-wise D-mod-K: at the i-th position where the minimal paths branch
    /// over |C| distinct nodes (sorted by node order), keep `C[⌊d / Π⌋ mod |C|]`, Π being
    /// the product of the branch counts before it and d the destination host index. On a
    /// k-ary n-tree this is the textbook up-port ⌊d / kˡ⁻¹⌋ mod k at level l.
    Dmodk,
    /// S-mod-K: the same rule with the source host index.
    Smodk,
    /// PFSim's D-mod-K: at every branching position keep the candidates' node
    /// `C[d mod |C|]` (C sorted by name, d = destination host index).
    PfsimDmodk,
    /// Heaviest pair first; the path with the smallest sum of link bytes (PFSim's Greedy).
    Greedy,
    /// Heaviest pair first; the path with the smallest maximal link bytes (PFSim's
    /// Greedy2, the paper's "dynamic" routing).
    GreedyMax,
    /// A uniformly random minimal path per host pair.
    Random,
}

impl PathRouter {
    /// Every router, in the order of its documentation.
    pub const ALL: [PathRouter; 6] = [
        PathRouter::Dmodk,
        PathRouter::Smodk,
        PathRouter::PfsimDmodk,
        PathRouter::Greedy,
        PathRouter::GreedyMax,
        PathRouter::Random,
    ];

    /// Whether the router chooses by the link loads (PFSim's Greedy and Greedy2).
    pub fn is_greedy(self) -> bool {
        matches!(self, PathRouter::Greedy | PathRouter::GreedyMax)
    }

    /// Whether the path depends on the host pair only (not on loads or chance), so that
    /// it can be remembered.
    fn is_fixed(self) -> bool {
        matches!(
            self,
            PathRouter::Dmodk | PathRouter::Smodk | PathRouter::PfsimDmodk
        )
    }
}

impl fmt::Display for PathRouter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathRouter::Dmodk => "dmodk",
            PathRouter::Smodk => "smodk",
            PathRouter::PfsimDmodk => "pfsim-dmodk",
            PathRouter::Greedy => "greedy",
            PathRouter::GreedyMax => "greedy-max",
            PathRouter::Random => "random",
        })
    }
}

/// All minimal (hop-count) paths from node `src` to node `dst`, each a node list from
/// `src` to `dst`, in networkx's `all_shortest_paths` order: breadth-first search records
/// each node's predecessors in discovery order (adjacency = file order), and paths are
/// emitted depth-first from the destination taking predecessors in that order. The
/// routers' reference, not their method. O(edges + paths × length).
pub fn shortest_paths(cluster: &Cluster, src: u32, dst: u32) -> Vec<Vec<u32>> {
    let n = cluster.names.len();
    let mut level = vec![u32::MAX; n];
    let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
    level[src as usize] = 0;
    let mut frontier = vec![src];
    let mut depth = 0;
    while !frontier.is_empty() && level[dst as usize] == u32::MAX {
        depth += 1;
        let mut next = Vec::new();
        for &v in &frontier {
            for &e in &cluster.out_edges[v as usize] {
                let w = cluster.edges[e as usize].1;
                if level[w as usize] == u32::MAX {
                    level[w as usize] = depth;
                    pred[w as usize].push(v);
                    next.push(w);
                } else if level[w as usize] == depth {
                    pred[w as usize].push(v);
                }
            }
        }
        frontier = next;
    }
    if level[dst as usize] == u32::MAX {
        return Vec::new();
    }
    // Depth-first from the destination: stack of (node, next predecessor index).
    let mut paths = Vec::new();
    let mut stack: Vec<(u32, usize)> = vec![(dst, 0)];
    while let Some(&(node, i)) = stack.last() {
        if node == src {
            paths.push(stack.iter().rev().map(|&(v, _)| v).collect());
        }
        match pred[node as usize].get(i) {
            Some(&p) => {
                stack.last_mut().expect("non-empty").1 += 1;
                stack.push((p, 0));
            }
            None => {
                stack.pop();
            }
        }
    }
    paths
}

/// The paths of a job's host pairs (edge indices), stored flat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routes {
    edges: Vec<u32>,
    /// Pair i's path is `edges[start[i]..start[i + 1]]`.
    start: Vec<u32>,
}

impl Routes {
    /// Number of paths.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether there are no paths.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Path `i`: its edges from the source host to the destination host (empty for a
    /// pair within one host).
    pub fn path(&self, i: usize) -> &[u32] {
        &self.edges[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Appends the next pair's path.
    pub(crate) fn push(&mut self, path: &[u32]) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        self.edges.extend_from_slice(path);
        self.start.push(self.edges.len() as u32);
    }
}

/// Routes every host pair of a job (heaviest first) and adds its bytes and flows to
/// `loads`; the greedy routers see the loads already there (other jobs and heavier pairs).
/// Returns the chosen path of each pair, in `pairs` order; fails with
/// [`ClusterError::Disconnected`] when a pair has no path.
/// O(sources × (nodes + edges) + pairs × DAG size); see [`PathFinder`].
pub fn route_job(
    cluster: &Cluster,
    pairs: &HostPairs,
    router: PathRouter,
    loads: &mut LinkLoads,
    rng: &mut impl Rng,
) -> Result<Routes, ClusterError> {
    PathFinder::new(cluster).route_job(pairs, router, loads, rng)
}

/// The breadth-first search from one source node: levels and, per node, its
/// predecessors one level closer (with the first edge from each), in the discovery order
/// of the predecessor, as networkx records them.
struct SourceDag {
    level: Vec<u32>,
    /// CSR offsets into `preds`, one per node plus one.
    pred_start: Vec<u32>,
    preds: Vec<(u32, u32)>,
}

/// Scratch space of [`SourceDag::new`], kept by the finder between searches.
#[derive(Default)]
struct SearchBuffers {
    /// Nodes in discovery order.
    order: Vec<u32>,
    /// Per node: the last predecessor recorded (u32::MAX for none yet), then the next
    /// free slot of its predecessors.
    cursor: Vec<u32>,
}

impl SourceDag {
    /// Two passes over the reached nodes in discovery order: the first sets the levels
    /// and counts each node's predecessors, the second fills them in, so the search
    /// allocates its three arrays and nothing per node. O(nodes + edges).
    fn new(cluster: &Cluster, src: u32, buffers: &mut SearchBuffers) -> SourceDag {
        let n = cluster.names.len();
        let SearchBuffers { order, cursor } = buffers;
        let mut level = vec![u32::MAX; n];
        let mut pred_start = vec![0u32; n + 1];
        order.clear();
        cursor.clear();
        cursor.resize(n, u32::MAX);
        level[src as usize] = 0;
        order.push(src);
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            let lv = level[v as usize];
            for &e in &cluster.out_edges[v as usize] {
                let w = cluster.edges[e as usize].1 as usize;
                if level[w] == u32::MAX {
                    level[w] = lv + 1;
                    order.push(w as u32);
                }
                // One entry per predecessor node: the first edge between them carries
                // the path, as for the enumeration.
                if level[w] == lv + 1 && cursor[w] != v {
                    cursor[w] = v;
                    pred_start[w + 1] += 1;
                }
            }
        }
        for v in 0..n {
            pred_start[v + 1] += pred_start[v];
        }
        cursor[..n].copy_from_slice(&pred_start[..n]);
        let mut preds = vec![(0u32, 0u32); pred_start[n] as usize];
        for &v in order.iter() {
            let lv = level[v as usize];
            for &e in &cluster.out_edges[v as usize] {
                let w = cluster.edges[e as usize].1 as usize;
                let slot = cursor[w] as usize;
                if level[w] == lv + 1 && (slot == pred_start[w] as usize || preds[slot - 1].0 != v)
                {
                    preds[slot] = (v, e);
                    cursor[w] += 1;
                }
            }
        }
        SourceDag {
            level,
            pred_start,
            preds,
        }
    }

    fn preds(&self, v: u32) -> &[(u32, u32)] {
        &self.preds[self.pred_start[v as usize] as usize..self.pred_start[v as usize + 1] as usize]
    }
}

/// Chooses minimal paths without listing them: the breadth-first search from the source
/// (kept per source host) gives the DAG of minimal paths, with predecessors in networkx's
/// discovery order, and each router works on the part of it that leads to the
/// destination. The greedy routers find the cheapest path by dynamic programming and,
/// among equal costs, the one [`shortest_paths`] lists first; D-mod-K and S-mod-K walk
/// from the source choosing among the DAG successors; the random router samples a path
/// uniformly from path counts. A pair costs O(size of its DAG) once its source was
/// searched (O(nodes + edges)), even where thousands of minimal paths exist.
pub struct PathFinder<'c> {
    cluster: &'c Cluster,
    name_rank: Vec<u32>,
    /// Per source host: its search, once done (kept while the total stays moderate).
    dags: Vec<Option<SourceDag>>,
    /// Whether searches are kept (hosts × nodes below a memory bound).
    keep: bool,
    search: SearchBuffers,
    /// Per node: lies on a minimal path to the current destination.
    on_path: Vec<bool>,
    /// The nodes marked in `on_path`, sorted by discovery order before use.
    marked: Vec<u32>,
    /// Per node: cheapest cost from the source (greedy), or path count (random).
    best: Vec<u64>,
    count: Vec<f64>,
    stack: Vec<u32>,
    next_pred: Vec<usize>,
    /// The minimal-path successors of the current node of a D-mod-K walk.
    successors: Vec<(u32, u32)>,
    /// Paths of the pair-determined routers, by (source, destination, router).
    remembered: FxHashMap<(u32, u32, u8), Box<[u32]>>,
}

impl<'c> PathFinder<'c> {
    /// Buffers for `cluster`. O(nodes log nodes) for the name order.
    pub fn new(cluster: &'c Cluster) -> Self {
        let n = cluster.names.len();
        // Keep every source's search when that stays below ~2·10⁸ entries.
        let keep = (cluster.hosts.len() as u64) * ((n + cluster.edges.len()) as u64) < 200_000_000;
        PathFinder {
            cluster,
            name_rank: name_rank(cluster),
            dags: (0..cluster.hosts.len()).map(|_| None).collect(),
            keep,
            search: SearchBuffers::default(),
            on_path: vec![false; n],
            marked: Vec::new(),
            best: vec![0; n],
            count: vec![0.0; n],
            stack: Vec::new(),
            next_pred: Vec::new(),
            successors: Vec::new(),
            remembered: FxHashMap::default(),
        }
    }

    /// The cluster it routes on.
    pub(crate) fn cluster(&self) -> &'c Cluster {
        self.cluster
    }

    /// [`route_job`] with these buffers.
    pub fn route_job(
        &mut self,
        pairs: &HostPairs,
        router: PathRouter,
        loads: &mut LinkLoads,
        rng: &mut impl Rng,
    ) -> Result<Routes, ClusterError> {
        let cluster = self.cluster;
        if loads.bytes.len() != cluster.edges.len() {
            *loads = LinkLoads::new(cluster);
        }
        let mut routes = Routes {
            edges: Vec::new(),
            start: Vec::with_capacity(pairs.pairs.len() + 1),
        };
        routes.start.push(0);
        for &(hs, hd, bytes, flows) in &pairs.pairs {
            if hs != hd {
                let from = routes.edges.len();
                self.route_into(hs, hd, router, &loads.bytes, rng, &mut routes.edges)?;
                loads.add(cluster, &routes.edges[from..], bytes, flows);
            }
            routes.start.push(routes.edges.len() as u32);
        }
        Ok(routes)
    }

    /// The path (edge indices) `router` chooses from host `hs` to host `hd` given the
    /// current link `bytes`.
    pub fn route(
        &mut self,
        hs: u32,
        hd: u32,
        router: PathRouter,
        bytes: &[u64],
        rng: &mut impl Rng,
    ) -> Result<Vec<u32>, ClusterError> {
        let mut path = Vec::new();
        self.route_into(hs, hd, router, bytes, rng, &mut path)?;
        Ok(path)
    }

    /// [`PathFinder::route`], appending the path to `out`. Paths of the destination-
    /// or source-based routers depend on the pair only and are remembered.
    fn route_into(
        &mut self,
        hs: u32,
        hd: u32,
        router: PathRouter,
        bytes: &[u64],
        rng: &mut impl Rng,
        out: &mut Vec<u32>,
    ) -> Result<(), ClusterError> {
        if router.is_fixed() {
            if let Some(path) = self.remembered.get(&(hs, hd, router as u8)) {
                out.extend_from_slice(path);
                return Ok(());
            }
        }
        let from = out.len();
        let cluster = self.cluster;
        let (src, dst) = (cluster.hosts[hs as usize], cluster.hosts[hd as usize]);
        let dag = match self.dags[hs as usize].take() {
            Some(d) => d,
            None => SourceDag::new(cluster, src, &mut self.search),
        };
        let result = if dag.level[dst as usize] == u32::MAX {
            Err(ClusterError::Disconnected {
                from: cluster.names[src as usize].clone(),
                to: cluster.names[dst as usize].clone(),
            })
        } else {
            self.mark(&dag, dst);
            match router {
                PathRouter::Dmodk => self.walk_down(&dag, src, dst, hd as usize, false, out),
                PathRouter::Smodk => self.walk_down(&dag, src, dst, hs as usize, false, out),
                PathRouter::PfsimDmodk => self.walk_down(&dag, src, dst, hd as usize, true, out),
                PathRouter::Greedy => self.cheapest(&dag, src, dst, bytes, false, out),
                PathRouter::GreedyMax => self.cheapest(&dag, src, dst, bytes, true, out),
                PathRouter::Random => self.sample(&dag, src, dst, rng, out),
            }
            for &v in &self.marked {
                self.on_path[v as usize] = false;
            }
            if router.is_fixed() {
                self.remembered
                    .insert((hs, hd, router as u8), out[from..].into());
            }
            Ok(())
        };
        if self.keep {
            self.dags[hs as usize] = Some(dag);
        }
        result
    }

    /// Marks the nodes on minimal paths to `dst` and lists them predecessors first (a
    /// depth-first post-order from `dst`, so the source comes first). O(DAG size).
    fn mark(&mut self, dag: &SourceDag, dst: u32) {
        self.marked.clear();
        self.stack.clear();
        self.next_pred.clear();
        self.stack.push(dst);
        self.next_pred.push(0);
        self.on_path[dst as usize] = true;
        while let Some(&v) = self.stack.last() {
            let i = self.next_pred.last_mut().expect("same length as the stack");
            match dag.preds(v).get(*i) {
                Some(&(u, _)) => {
                    *i += 1;
                    if !self.on_path[u as usize] {
                        self.on_path[u as usize] = true;
                        self.stack.push(u);
                        self.next_pred.push(0);
                    }
                }
                None => {
                    self.marked.push(v);
                    self.stack.pop();
                    self.next_pred.pop();
                }
            }
        }
    }

    /// D-mod-K style walk from the source: at each node the minimal-path successors,
    /// sorted by node order, and the choice `digit mod |C|`, the digit divided by |C|
    /// after each branch; PFSim's variant (`pfsim`) sorts by name and keeps the digit.
    fn walk_down(
        &mut self,
        dag: &SourceDag,
        src: u32,
        dst: u32,
        index: usize,
        pfsim: bool,
        path: &mut Vec<u32>,
    ) {
        let cluster = self.cluster;
        let mut digit = index;
        let mut v = src;
        let next = &mut self.successors;
        while v != dst {
            next.clear();
            for &e in &cluster.out_edges[v as usize] {
                let w = cluster.edges[e as usize].1;
                if self.on_path[w as usize]
                    && dag.level[w as usize] == dag.level[v as usize] + 1
                    && !next.iter().any(|&(x, _)| x == w)
                {
                    next.push((w, e));
                }
            }
            if pfsim {
                next.sort_unstable_by_key(|&(w, _)| self.name_rank[w as usize]);
            } else {
                next.sort_unstable_by_key(|&(w, _)| w);
            }
            let (w, _) = if next.len() == 1 {
                next[0]
            } else {
                let pick = next[digit % next.len()];
                if !pfsim {
                    digit /= next.len();
                }
                pick
            };
            // The first edge from v to w, as the enumeration uses.
            let e = dag
                .preds(w)
                .iter()
                .find(|p| p.0 == v)
                .expect("w is a successor of v in the DAG")
                .1;
            path.push(e);
            v = w;
        }
    }
    /// The cheapest minimal path by the sum (or the maximum) of `bytes` over its edges;
    /// among equal costs the first in enumeration order (predecessor choices from the
    /// destination backwards, earliest first).
    fn cheapest(
        &mut self,
        dag: &SourceDag,
        src: u32,
        dst: u32,
        bytes: &[u64],
        max: bool,
        out: &mut Vec<u32>,
    ) {
        let combine = |a: u64, b: u64| if max { a.max(b) } else { a.saturating_add(b) };
        self.best[src as usize] = 0;
        for i in 1..self.marked.len() {
            let w = self.marked[i];
            self.best[w as usize] = dag
                .preds(w)
                .iter()
                .filter(|p| self.on_path[p.0 as usize])
                .map(|&(u, e)| combine(self.best[u as usize], bytes[e as usize]))
                .min()
                .unwrap_or(u64::MAX);
        }
        // Backwards: the first predecessor that can still complete a path of the optimal
        // cost. For sums the prefix must be optimal itself; for maxima it must not exceed
        // the optimum.
        let target = self.best[dst as usize];
        let mut budget = target;
        let from = out.len();
        let mut v = dst;
        while v != src {
            let &(u, e) = dag
                .preds(v)
                .iter()
                .find(|&&(u, e)| {
                    self.on_path[u as usize]
                        && if max {
                            self.best[u as usize] <= target && bytes[e as usize] <= target
                        } else {
                            self.best[u as usize].saturating_add(bytes[e as usize]) == budget
                        }
                })
                .expect("an optimal predecessor exists");
            if !max {
                budget = self.best[u as usize];
            }
            out.push(e);
            v = u;
        }
        out[from..].reverse();
    }

    /// A uniformly random minimal path: count the paths into every node, then walk back
    /// from the destination choosing each predecessor with probability proportional to
    /// its count.
    fn sample(
        &mut self,
        dag: &SourceDag,
        src: u32,
        dst: u32,
        rng: &mut impl Rng,
        out: &mut Vec<u32>,
    ) {
        self.count[src as usize] = 1.0;
        for i in 1..self.marked.len() {
            let w = self.marked[i];
            self.count[w as usize] = dag
                .preds(w)
                .iter()
                .filter(|p| self.on_path[p.0 as usize])
                .map(|p| self.count[p.0 as usize])
                .sum();
        }
        let from = out.len();
        let mut v = dst;
        while v != src {
            let mut x = rng.random::<f64>() * self.count[v as usize];
            let mut chosen = None;
            for &(u, e) in dag.preds(v).iter().filter(|p| self.on_path[p.0 as usize]) {
                chosen = Some((u, e));
                x -= self.count[u as usize];
                if x < 0.0 {
                    break;
                }
            }
            let (u, e) = chosen.expect("a reached node has a predecessor");
            out.push(e);
            v = u;
        }
        out[from..].reverse();
    }
}

/// Per node: its rank in the lexicographic order of node names (PFSim sorts string ids).
///
/// Names that are all integers (PFSim's generated topologies) sort numerically, as
/// Python sorts int ids; otherwise lexicographically ("core10" before "core2").
fn name_rank(cluster: &Cluster) -> Vec<u32> {
    let mut order: Vec<u32> = (0..cluster.names.len() as u32).collect();
    let numbers: Option<Vec<u64>> = cluster.names.iter().map(|n| n.parse().ok()).collect();
    match numbers {
        Some(ids) => order.sort_by_key(|&v| ids[v as usize]),
        None => order.sort_by(|&a, &b| cluster.names[a as usize].cmp(&cluster.names[b as usize])),
    }
    let mut rank = vec![0; order.len()];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    //! The DAG-based routers against the obvious implementation: list every minimal path
    //! ([`shortest_paths`]) and apply the router's rule to the list.
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Classical digit-wise D-mod-K (or S-mod-K with a source index) among `paths`: at each
    /// position where the remaining paths differ, keep those through `C[digit mod |C|]`, C
    /// being the distinct nodes there in node order, then divide the digit by |C| for the
    /// next branching position. O(paths × length).
    fn digit_mod_k(paths: &[Vec<u32>], index: usize) -> Vec<u32> {
        let mut alive: Vec<&Vec<u32>> = paths.iter().collect();
        let mut digit = index;
        let len = alive[0].len();
        for i in 0..len {
            if alive.len() == 1 {
                break;
            }
            let mut c: Vec<u32> = alive.iter().map(|p| p[i]).collect();
            c.sort_unstable();
            c.dedup();
            if c.len() == 1 {
                continue;
            }
            let keep = c[digit % c.len()];
            digit /= c.len();
            alive.retain(|p| p[i] == keep);
        }
        alive[0].clone()
    }

    /// PFSim's D-mod-K choice among `paths` for destination host index `d`: at each position
    /// where the remaining paths differ, keep those through `C[d mod |C|]`, C being the
    /// distinct nodes there sorted by name.
    fn pfsim_dmodk(paths: &[Vec<u32>], d: usize, name_rank: &[u32]) -> Vec<u32> {
        let mut alive: Vec<&Vec<u32>> = paths.iter().collect();
        let len = alive[0].len();
        for i in 0..len {
            if alive.len() == 1 {
                break;
            }
            let mut c: Vec<u32> = alive.iter().map(|p| p[i]).collect();
            c.sort_by_key(|&v| name_rank[v as usize]);
            c.dedup();
            if c.len() == 1 {
                continue;
            }
            let keep = c[d % c.len()];
            alive.retain(|p| p[i] == keep);
        }
        alive[0].clone()
    }

    /// (tail, head) → the first edge between them in file order.
    fn edge_lookup(cluster: &Cluster) -> FxHashMap<(u32, u32), u32> {
        let mut map = FxHashMap::default();
        for (e, &(u, v, _)) in cluster.edges.iter().enumerate() {
            map.entry((u, v)).or_insert(e as u32);
        }
        map
    }

    /// The reference choice of `router` among the listed minimal paths.
    fn by_listing(
        cluster: &Cluster,
        hs: u32,
        hd: u32,
        router: PathRouter,
        bytes: &[u64],
    ) -> Vec<u32> {
        let (s, d) = (cluster.hosts[hs as usize], cluster.hosts[hd as usize]);
        let candidates = shortest_paths(cluster, s, d);
        let edge_of = edge_lookup(cluster);
        let as_edges =
            |p: &Vec<u32>| -> Vec<u32> { p.windows(2).map(|w| edge_of[&(w[0], w[1])]).collect() };
        match router {
            PathRouter::Dmodk => as_edges(&digit_mod_k(&candidates, hd as usize)),
            PathRouter::Smodk => as_edges(&digit_mod_k(&candidates, hs as usize)),
            PathRouter::PfsimDmodk => {
                as_edges(&pfsim_dmodk(&candidates, hd as usize, &name_rank(cluster)))
            }
            PathRouter::Greedy | PathRouter::GreedyMax => {
                let mut best: Option<(u64, Vec<u32>)> = None;
                for p in &candidates {
                    let edges = as_edges(p);
                    let on = edges.iter().map(|&e| bytes[e as usize]);
                    let cost = if router == PathRouter::Greedy {
                        on.sum()
                    } else {
                        on.max().unwrap_or(0)
                    };
                    if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                        best = Some((cost, edges));
                    }
                }
                best.expect("candidates exist").1
            }
            PathRouter::Random => unreachable!("not deterministic"),
        }
    }

    /// A random connected cluster: `switches` switches with random links (both
    /// directions, in random file order), and two hosts per switch.
    fn random_cluster(switches: usize, links: &[(usize, usize)], names: &[u32]) -> Cluster {
        let mut c = Cluster::default();
        for s in 0..switches {
            c.names
                .push(format!("s{}", names[s % names.len()] as usize * 100 + s));
            c.is_host.push(false);
        }
        for s in 0..switches {
            for k in 0..2 {
                let h = c.names.len() as u32;
                c.names.push(format!("h{s}_{k}"));
                c.is_host.push(true);
                c.hosts.push(h);
                c.host_pes.push(1);
                c.edges.push((h, s as u32, 1.0));
                c.edges.push((s as u32, h, 1.0));
            }
        }
        // A ring keeps it connected; the random links add alternatives.
        for s in 0..switches {
            let t = (s + 1) % switches;
            if t != s {
                c.edges.push((s as u32, t as u32, 1.0));
                c.edges.push((t as u32, s as u32, 1.0));
            }
        }
        for &(a, b) in links {
            let (a, b) = (a % switches, b % switches);
            if a != b {
                c.edges.push((a as u32, b as u32, 1.0));
                c.edges.push((b as u32, a as u32, 1.0));
            }
        }
        c.out_edges = vec![Vec::new(); c.names.len()];
        for (e, &(u, _, _)) in c.edges.iter().enumerate() {
            c.out_edges[u as usize].push(e as u32);
        }
        c
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn dag_routers_choose_what_listing_chooses(
            switches in 2usize..9,
            links in proptest::collection::vec((0usize..9, 0usize..9), 0..14),
            names in proptest::collection::vec(0u32..20, 1..9),
            loads in proptest::collection::vec(0u64..4, 200),
        ) {
            let cluster = random_cluster(switches, &links, &names);
            let bytes: Vec<u64> = (0..cluster.edges.len()).map(|e| loads[e % loads.len()]).collect();
            let mut finder = PathFinder::new(&cluster);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let n = cluster.hosts.len() as u32;
            for hs in 0..n {
                for hd in (0..n).filter(|&d| d != hs) {
                    for router in [PathRouter::Dmodk, PathRouter::Smodk, PathRouter::PfsimDmodk,
                                   PathRouter::Greedy, PathRouter::GreedyMax] {
                        let fast = finder.route(hs, hd, router, &bytes, &mut rng).unwrap();
                        prop_assert_eq!(&fast, &by_listing(&cluster, hs, hd, router, &bytes),
                            "{} {}→{}", router, hs, hd);
                    }
                    let random = finder.route(hs, hd, PathRouter::Random, &bytes, &mut rng).unwrap();
                    let (s, d) = (cluster.hosts[hs as usize], cluster.hosts[hd as usize]);
                    let listed = shortest_paths(&cluster, s, d);
                    let edge_of = edge_lookup(&cluster);
                    prop_assert!(listed.iter().any(|p| p.windows(2)
                        .map(|w| edge_of[&(w[0], w[1])]).collect::<Vec<_>>() == random));
                }
            }
        }
    }

    #[test]
    fn random_router_is_uniform_over_minimal_paths() {
        // A 2-ary 3-tree: 4 minimal paths between the pods. 8 000 draws, each path
        // expected 2 000 times; chi-square with 3 degrees of freedom below 16.27 (p = 0.001).
        let generated = crate::gen::topology::kary_ntree(2, 3).unwrap();
        let cluster = Cluster::from_fabric(&generated.fabric, "t").unwrap();
        let mut finder = PathFinder::new(&cluster);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut seen: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
        for _ in 0..8000 {
            let p = finder
                .route(0, 7, PathRouter::Random, &[], &mut rng)
                .unwrap();
            *seen.entry(p).or_default() += 1;
        }
        assert_eq!(seen.len(), 4);
        let chi: f64 = seen
            .values()
            .map(|&c| (c as f64 - 2000.0).powi(2) / 2000.0)
            .sum();
        assert!(chi < 16.27, "{seen:?}");
    }
}
