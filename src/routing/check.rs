//! The route check: every ordered host pair walked through the forwarding tables, with
//! dead ends, loops and ambiguous next hops reported, and ORCS's route-quality figures.

use super::table::{ColumnBlock, ForwardingTable};
use crate::fabric::Fabric;
use rayon::prelude::*;
use std::fmt;

/// What a full route check of a fabric established, kept with the fabric (in its cache)
/// so that loading it again need not repeat an O(hosts²) check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteSummary {
    /// Hosts checked: all hosts of the fabric.
    pub num_hosts: usize,
    /// Ordered pairs checked.
    pub pairs_checked: u64,
    /// Pairs with a dead end or a loop.
    pub broken: u64,
    /// `path_lengths[h]` = number of routed pairs with h edges.
    pub path_lengths: Vec<u64>,
}

impl RouteSummary {
    /// The summary of `check`, a check of every host of its fabric.
    pub fn of(check: &RouteCheck) -> Self {
        RouteSummary {
            num_hosts: check.num_hosts,
            pairs_checked: check.pairs_checked,
            broken: check.broken(),
            path_lengths: check.path_lengths.clone(),
        }
    }

    /// True if this summary covers every host of `fabric` and found nothing broken, so
    /// that any subset of its hosts may be simulated without checking again.
    pub(crate) fn proves_all_routed(&self, fabric: &Fabric) -> bool {
        self.num_hosts == fabric.num_hosts() && self.broken == 0
    }

    /// The longest route, in edges.
    pub(crate) fn max_route_len(&self) -> usize {
        self.path_lengths.len().saturating_sub(1)
    }
}

/// Why a route is broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteFault {
    /// The walk reached `at`, which has no out-edge for the destination.
    DeadEnd {
        /// Node without a next hop.
        at: u32,
    },
    /// The walk entered a cycle; `cycle` lists its nodes in walk order.
    Loop {
        /// Nodes of the cycle.
        cycle: Vec<u32>,
    },
}

/// One broken host pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenRoute {
    /// Source host index.
    pub src: u32,
    /// Destination host index.
    pub dst: u32,
    /// What went wrong.
    pub fault: RouteFault,
}

impl BrokenRoute {
    /// A readable description with node names.
    pub fn describe<'a>(&'a self, fabric: &'a Fabric) -> impl fmt::Display + 'a {
        DescribeBroken {
            route: self,
            fabric,
        }
    }
}

struct DescribeBroken<'a> {
    route: &'a BrokenRoute,
    fabric: &'a Fabric,
}

impl fmt::Display for DescribeBroken<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fab = self.fabric;
        let (s, d) = (fab.host_name(self.route.src), fab.host_name(self.route.dst));
        match &self.route.fault {
            RouteFault::DeadEnd { at } => write!(
                f,
                "no route from {s} to {d}: node {} has no out-edge whose comment lists {d}",
                fab.node_names[*at as usize]
            ),
            RouteFault::Loop { cycle } => {
                write!(f, "routing loop from {s} to {d}: ")?;
                for &v in cycle {
                    write!(f, "{} -> ", fab.node_names[v as usize])?;
                }
                write!(f, "{}", fab.node_names[cycle[0] as usize])
            }
        }
    }
}

/// Result of checking every ordered pair of a host set.
#[derive(Debug, Clone, Default)]
pub struct RouteCheck {
    /// Hosts checked (as sources and as destinations).
    pub num_hosts: usize,
    /// Ordered pairs (s ≠ d) checked.
    pub pairs_checked: u64,
    /// Pairs that end in a dead end.
    pub dead_ends: u64,
    /// Pairs that run into a loop.
    pub loops: u64,
    /// The first broken pairs found (at most [`RouteCheck::MAX_EXAMPLES`]), in
    /// (destination, source) order.
    pub examples: Vec<BrokenRoute>,
    /// `path_lengths[h]` = number of routed pairs with h edges (injection and ejection
    /// included).
    pub path_lengths: Vec<u64>,
    /// Per edge: number of routed ordered pairs whose route uses it.
    pub link_routes: Vec<u64>,
}

impl RouteCheck {
    /// How many broken pairs are kept as examples.
    pub(crate) const MAX_EXAMPLES: usize = 20;

    /// True if every pair is routed.
    pub fn all_routed(&self) -> bool {
        self.dead_ends == 0 && self.loops == 0
    }

    /// Number of broken pairs.
    pub fn broken(&self) -> u64 {
        self.dead_ends + self.loops
    }
}

const UNKNOWN: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;
const DEAD: u32 = u32::MAX - 2;
const LOOPS: u32 = u32::MAX - 3;
/// The destination's own entry in [`Scratch::order`]: it takes no edge.
const NO_EDGE: u32 = u32::MAX;

/// Destinations checked together by a thread: their columns of the table are copied at
/// once ([`ColumnBlock`]), a row's entries for the block from one cache line, so that
/// the walks read short columns instead of a cache line (and often a page) per node.
/// A block of 64 holds a 6,912-switch fabric's columns in 884 KB.
const DESTINATION_BLOCK: usize = 64;

/// Checks the routes between every ordered pair of `hosts` (host indices), in parallel
/// over destinations.
///
/// Sources that route every destination through one edge (a host's uplink) are walked
/// once per first hop and destination, with the number of hosts behind it: a fat tree's
/// leaf stands for all its hosts. A destination with a broken route is walked again
/// source by source, so that the broken pairs and their examples are the same as when
/// every pair is walked. Per destination each node's distance to it is memoised, so the
/// cost is O(|hosts| × (first hops + nodes + hops + rows)) time and O(nodes + 64 ×
/// rows) scratch per thread (the nodes' states and a block's columns of the table), plus
/// O(|hosts| × edges) for the per-link route counts merged at the end.
pub fn check_routes(fabric: &Fabric, table: &ForwardingTable, hosts: &[u32]) -> RouteCheck {
    check_routes_with_progress(fabric, table, hosts, &|_| {})
}

/// [`check_routes`], calling `progress(n)` as the routes to n more destinations are
/// checked (`hosts.len()` in all), from the worker threads, so that a long check can
/// show how far it is.
pub fn check_routes_with_progress(
    fabric: &Fabric,
    table: &ForwardingTable,
    hosts: &[u32],
    progress: &(dyn Fn(u64) + Sync),
) -> RouteCheck {
    let groups = SourceGroups::new(fabric, table, hosts);
    let empty = || Partial {
        check: RouteCheck {
            num_hosts: hosts.len(),
            link_routes: vec![0; fabric.num_edges()],
            ..RouteCheck::default()
        },
        by_group: 0,
        unrouted_from: vec![0; groups.heads.len()],
        routed_to_self: Vec::new(),
    };
    // fold/reduce keeps the destinations' order, so the examples are deterministic.
    let blocks = hosts.len().div_ceil(DESTINATION_BLOCK);
    let partial = (0..blocks)
        .into_par_iter()
        .fold(
            || {
                let scratch = Scratch {
                    dist: vec![UNKNOWN; fabric.num_nodes()],
                    count: vec![0; fabric.num_nodes()],
                    stack: Vec::new(),
                    stack_edges: Vec::new(),
                    order: Vec::new(),
                    bad: Vec::new(),
                    lengths: Vec::new(),
                    block: ColumnBlock::default(),
                };
                (scratch, empty())
            },
            |(mut scratch, mut acc), b| {
                let first = b * DESTINATION_BLOCK;
                let dsts = &hosts[first..hosts.len().min(first + DESTINATION_BLOCK)];
                scratch.block.load(table, dsts);
                for j in 0..dsts.len() {
                    check_destination(
                        fabric,
                        table,
                        hosts,
                        &groups,
                        first + j,
                        j,
                        &mut scratch,
                        &mut acc,
                    );
                }
                progress(dsts.len() as u64);
                (scratch, acc)
            },
        )
        .map(|(_, acc)| acc)
        .reduce(empty, merge_partials);
    groups.add_uplinks(partial)
}

/// The sources of a check grouped by their first hop, where it does not depend on the
/// destination.
struct SourceGroups {
    /// Per group: the node after the first hop.
    heads: Vec<u32>,
    /// Per group: its sources.
    members: Vec<u64>,
    /// Per source (index into the hosts checked): its group and its first edge, or None
    /// when its next hop depends on the destination (it is walked by itself).
    first: Vec<Option<(u32, u32)>>,
    /// The sources without a group.
    alone: Vec<u32>,
}

impl SourceGroups {
    fn new(fabric: &Fabric, table: &ForwardingTable, hosts: &[u32]) -> Self {
        let mut group_of_head = vec![u32::MAX; fabric.num_nodes()];
        let mut groups = SourceGroups {
            heads: Vec::new(),
            members: Vec::new(),
            first: Vec::with_capacity(hosts.len()),
            alone: Vec::new(),
        };
        for (k, &h) in hosts.iter().enumerate() {
            let node = fabric.hosts[h as usize];
            let Some(edge) = table.uniform_edge(node) else {
                groups.first.push(None);
                groups.alone.push(k as u32);
                continue;
            };
            let head = fabric.edge_head[edge as usize];
            let g = &mut group_of_head[head as usize];
            if *g == u32::MAX {
                *g = groups.heads.len() as u32;
                groups.heads.push(head);
                groups.members.push(0);
            }
            groups.members[*g as usize] += 1;
            groups.first.push(Some((*g, edge)));
        }
        groups
    }

    /// Adds the first edges' routes of the destinations checked by group to `partial`:
    /// a source's first edge carries one route per destination its group reached,
    /// except itself.
    fn add_uplinks(&self, partial: Partial) -> RouteCheck {
        let Partial {
            mut check,
            by_group,
            unrouted_from,
            mut routed_to_self,
        } = partial;
        // In destination order already when the parts merge in order; sorted here so
        // that the lookups below do not depend on it.
        routed_to_self.sort_unstable();
        for (k, first) in self.first.iter().enumerate() {
            if let Some((g, edge)) = *first {
                let own = routed_to_self.binary_search(&(k as u32)).is_ok();
                let routed_from = by_group - unrouted_from[g as usize];
                check.link_routes[edge as usize] += routed_from - u64::from(own);
            }
        }
        check
    }
}

/// A part of the check: the destinations of one rayon fold.
struct Partial {
    check: RouteCheck,
    /// Destinations checked by group. Each group's first hop reached all of them but
    /// those counted in `unrouted_from`.
    by_group: u64,
    /// Per group: destinations checked by group that were its only source (so that
    /// nothing was walked from its first hop).
    unrouted_from: Vec<u64>,
    /// The grouped sources (indices into the hosts checked) that their group reached
    /// as a destination, in order.
    routed_to_self: Vec<u32>,
}

/// Adds `b` (later destinations) to `a`.
fn merge_partials(mut a: Partial, b: Partial) -> Partial {
    a.check = merge_checks(a.check, b.check);
    a.by_group += b.by_group;
    for (t, p) in a.unrouted_from.iter_mut().zip(&b.unrouted_from) {
        *t += p;
    }
    a.routed_to_self.extend(b.routed_to_self);
    a
}

/// Adds `b` (later destinations) to `a`.
fn merge_checks(mut a: RouteCheck, b: RouteCheck) -> RouteCheck {
    a.pairs_checked += b.pairs_checked;
    a.dead_ends += b.dead_ends;
    a.loops += b.loops;
    let room = RouteCheck::MAX_EXAMPLES.saturating_sub(a.examples.len());
    a.examples.extend(b.examples.into_iter().take(room));
    if a.path_lengths.len() < b.path_lengths.len() {
        a.path_lengths.resize(b.path_lengths.len(), 0);
    }
    for (t, p) in a.path_lengths.iter_mut().zip(&b.path_lengths) {
        *t += p;
    }
    for (t, p) in a.link_routes.iter_mut().zip(&b.link_routes) {
        *t += p;
    }
    a
}

/// Per-thread scratch of [`check_routes`].
struct Scratch {
    /// Per node: hops to the destination, or one of the state sentinels. All `UNKNOWN`
    /// between destinations.
    dist: Vec<u32>,
    /// Per node: routed sources whose route passes through it. All 0 between destinations.
    count: Vec<u64>,
    /// The walk in progress.
    stack: Vec<u32>,
    /// The edge each node of `stack` takes (none yet for the last one when the walk
    /// stops at a dead end).
    stack_edges: Vec<u32>,
    /// Nodes with a known distance (the destination first) and the edge each takes
    /// towards it ([`NO_EDGE`] for the destination), so that counting the links need
    /// not look the edges up in the table again.
    order: Vec<(u32, u32)>,
    /// Nodes marked dead or looping.
    bad: Vec<u32>,
    /// The routed pairs of the destination checked by group, by path length (edges),
    /// added once every group is routed. All 0 between destinations.
    lengths: Vec<u64>,
    /// The table's columns of the destinations being checked.
    block: ColumnBlock,
}

/// Destination `hosts[k]` of [`check_routes`], column `j` of the scratch's block: by
/// group, or source by source when a route to it is broken.
#[allow(clippy::too_many_arguments)]
fn check_destination(
    fabric: &Fabric,
    table: &ForwardingTable,
    hosts: &[u32],
    groups: &SourceGroups,
    k: usize,
    j: usize,
    scratch: &mut Scratch,
    partial: &mut Partial,
) {
    let dst = hosts[k];
    let target = fabric.hosts[dst as usize];
    if scratch.by_group(fabric, table, hosts, groups, k, j) {
        let result = &mut partial.check;
        result.pairs_checked += hosts.len() as u64 - 1;
        if result.path_lengths.len() < scratch.lengths.len() {
            result.path_lengths.resize(scratch.lengths.len(), 0);
        }
        for (total, pairs) in result.path_lengths.iter_mut().zip(&mut scratch.lengths) {
            *total += std::mem::take(pairs);
        }
        // Every group with a source other than the destination itself was routed.
        partial.by_group += 1;
        if let Some((own, _)) = groups.first[k] {
            if groups.members[own as usize] == 1 {
                partial.unrouted_from[own as usize] += 1;
            } else {
                partial.routed_to_self.push(k as u32);
            }
        }
        scratch.count_links(fabric, result);
    } else {
        scratch.forget();
        scratch.dist[target as usize] = 0;
        scratch.order.push((target, NO_EDGE));
        for &src in hosts {
            if src == dst {
                continue;
            }
            partial.check.pairs_checked += 1;
            let start = fabric.hosts[src as usize];
            let (outcome, end) = scratch.walk(fabric, table, start, j);
            match outcome {
                DEAD | LOOPS => scratch.record_broken(
                    fabric,
                    table,
                    (src, dst),
                    outcome,
                    end,
                    &mut partial.check,
                ),
                d => scratch.record_routed(start, d, &mut partial.check),
            }
        }
        scratch.count_links(fabric, &mut partial.check);
    }
    scratch.forget();
}

impl Scratch {
    /// Walks to destination `hosts[k]` from each group's first hop and from each source
    /// without a group, counting in `count` the sources behind every node reached and in
    /// `lengths` the pairs by path length. False, with the walk left as it stood (and
    /// `lengths` cleared), as soon as a route is broken; true when every group with a
    /// source other than the destination is routed.
    fn by_group(
        &mut self,
        fabric: &Fabric,
        table: &ForwardingTable,
        hosts: &[u32],
        groups: &SourceGroups,
        k: usize,
        j: usize,
    ) -> bool {
        let target = fabric.hosts[hosts[k] as usize];
        self.dist[target as usize] = 0;
        self.order.push((target, NO_EDGE));
        let own = groups.first[k].map(|(g, _)| g);
        for (g, (&head, &members)) in groups.heads.iter().zip(&groups.members).enumerate() {
            let sources = members - u64::from(own == Some(g as u32));
            if sources == 0 {
                continue;
            }
            match self.walk(fabric, table, head, j) {
                (DEAD | LOOPS, _) => return self.clear_lengths(),
                (d, _) => self.resolve(d),
            }
            self.add_length(self.dist[head as usize] + 1, sources);
            self.count[head as usize] += sources;
        }
        for &i in &groups.alone {
            if i as usize == k {
                continue;
            }
            let start = fabric.hosts[hosts[i as usize] as usize];
            match self.walk(fabric, table, start, j) {
                (DEAD | LOOPS, _) => return self.clear_lengths(),
                (d, _) => self.resolve(d),
            }
            self.add_length(self.dist[start as usize], 1);
            self.count[start as usize] += 1;
        }
        true
    }

    /// Counts `pairs` routed pairs of `hops` edges in `lengths`.
    #[inline]
    fn add_length(&mut self, hops: u32, pairs: u64) {
        let hops = hops as usize;
        if self.lengths.len() <= hops {
            self.lengths.resize(hops + 1, 0);
        }
        self.lengths[hops] += pairs;
    }

    /// Forgets the pairs counted in `lengths` (a destination to check again source by
    /// source); false, for [`Scratch::by_group`] to return.
    fn clear_lengths(&mut self) -> bool {
        self.lengths.iter_mut().for_each(|p| *p = 0);
        false
    }

    /// Clears what the walks to the last destination left: distances, marks and counts.
    fn forget(&mut self) {
        let Scratch {
            dist,
            count,
            stack,
            order,
            bad,
            ..
        } = self;
        let ordered = order.iter().map(|&(v, _)| v);
        for v in ordered
            .chain(bad.iter().copied())
            .chain(stack.iter().copied())
        {
            dist[v as usize] = UNKNOWN;
            count[v as usize] = 0;
        }
        order.clear();
        bad.clear();
        stack.clear();
    }

    /// Gives the walked path, which reached a node `d` hops from the destination, its
    /// distances.
    #[inline]
    fn resolve(&mut self, d: u32) {
        let mut d = d;
        for (&v, &e) in self.stack.iter().zip(&self.stack_edges).rev() {
            d += 1;
            self.dist[v as usize] = d;
            self.order.push((v, e));
        }
    }

    /// Walks from `start` towards destination `j` of the block until a node with a known
    /// state, leaving the path (marked `IN_PROGRESS`) on `stack`. Returns the outcome
    /// (the hop count of the node reached, `DEAD` or `LOOPS`) and the node where the walk
    /// stopped.
    #[inline]
    fn walk(
        &mut self,
        fabric: &Fabric,
        table: &ForwardingTable,
        start: u32,
        j: usize,
    ) -> (u32, u32) {
        self.stack.clear();
        self.stack_edges.clear();
        let mut cur = start;
        let outcome = loop {
            match self.dist[cur as usize] {
                UNKNOWN => {}
                IN_PROGRESS => break LOOPS,
                d => break d,
            }
            self.dist[cur as usize] = IN_PROGRESS;
            self.stack.push(cur);
            match self.block.next_edge(table, fabric, cur, j) {
                Some(e) => {
                    self.stack_edges.push(e);
                    cur = fabric.edge_head[e as usize];
                }
                None => break DEAD,
            }
        };
        (outcome, cur)
    }

    /// Counts the broken pair `(src, dst)` whose walk ended at `cur` with `outcome`
    /// (`DEAD` or `LOOPS`), keeps it as an example while there is room, and marks the
    /// walked path with the same fate.
    fn record_broken(
        &mut self,
        fabric: &Fabric,
        table: &ForwardingTable,
        (src, dst): (u32, u32),
        outcome: u32,
        cur: u32,
        result: &mut RouteCheck,
    ) {
        let Scratch {
            dist, stack, bad, ..
        } = self;
        let fault = if outcome == DEAD {
            let at = if dist[cur as usize] == DEAD {
                dead_end_of(fabric, table, cur, dst)
            } else {
                *stack.last().unwrap_or(&cur)
            };
            RouteFault::DeadEnd { at }
        } else if dist[cur as usize] == IN_PROGRESS {
            let pos = stack.iter().position(|&v| v == cur).unwrap_or(0);
            RouteFault::Loop {
                cycle: stack[pos..].to_vec(),
            }
        } else {
            RouteFault::Loop {
                cycle: loop_of(fabric, table, cur, dst),
            }
        };
        let loop_now = matches!(fault, RouteFault::Loop { .. });
        if loop_now {
            result.loops += 1;
        } else {
            result.dead_ends += 1;
        }
        if result.examples.len() < RouteCheck::MAX_EXAMPLES {
            result.examples.push(BrokenRoute { src, dst, fault });
        }
        let mark = if loop_now { LOOPS } else { DEAD };
        for &v in stack.iter() {
            dist[v as usize] = mark;
            bad.push(v);
        }
    }

    /// Resolves the walked path from `start`, which reached a node `d` hops from the
    /// destination, and counts the route's length.
    #[inline]
    fn record_routed(&mut self, start: u32, d: u32, result: &mut RouteCheck) {
        self.resolve(d);
        let hops = self.dist[start as usize] as usize;
        if result.path_lengths.len() <= hops {
            result.path_lengths.resize(hops + 1, 0);
        }
        result.path_lengths[hops] += 1;
        self.count[start as usize] += 1;
    }

    /// Per-link counts: pushes each routed source's count down the in-tree towards the
    /// destination, along the edges the walks recorded in `order`. A node enters `order`
    /// only after its successor, so the reverse of `order` hands every node its complete
    /// count before it passes the count on.
    fn count_links(&mut self, fabric: &Fabric, result: &mut RouteCheck) {
        for &(v, e) in self.order.iter().rev() {
            let c = std::mem::take(&mut self.count[v as usize]);
            if e == NO_EDGE || c == 0 {
                continue;
            }
            result.link_routes[e as usize] += c;
            self.count[fabric.edge_head[e as usize] as usize] += c;
        }
    }
}

/// The node where the walk from `start` towards `dst` stops (known to be a dead end).
fn dead_end_of(fabric: &Fabric, table: &ForwardingTable, start: u32, dst: u32) -> u32 {
    let mut cur = start;
    for _ in 0..=fabric.num_nodes() {
        match table.next_edge(fabric, cur, dst) {
            Some(e) => cur = fabric.edge_head[e as usize],
            None => return cur,
        }
    }
    cur
}

/// The cycle that the walk from `start` towards `dst` enters (known to loop).
fn loop_of(fabric: &Fabric, table: &ForwardingTable, start: u32, dst: u32) -> Vec<u32> {
    let mut seen = vec![false; fabric.num_nodes()];
    let mut path = Vec::new();
    let mut cur = start;
    while !seen[cur as usize] {
        seen[cur as usize] = true;
        path.push(cur);
        match table.next_edge(fabric, cur, dst) {
            Some(e) => cur = fabric.edge_head[e as usize],
            None => return path,
        }
    }
    let pos = path.iter().position(|&v| v == cur).unwrap_or(0);
    path[pos..].to_vec()
}

/// ORCS's `--routequal` figures (spec §8.1): over all ordered pairs of `hosts` (self
/// pairs included, as ORCS does), the maximum all-to-all load on the route's inner edges
/// (first and last edge excluded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteQuality {
    /// Smallest non-zero per-pair maximum.
    pub gmin: u64,
    /// Largest per-pair maximum.
    pub gmax: u64,
    /// Mean of the non-zero per-pair maxima.
    pub mean: f64,
    /// Population standard deviation of the non-zero per-pair maxima.
    pub sigma: f64,
}

/// Computes [`RouteQuality`] from routes that `check` (a [`check_routes`] over the same
/// `hosts`) found all routed; its per-link route counts are the all-to-all loads.
/// O(|hosts|² × hops) time, O(edges) memory; the statistics are accumulated in integers,
/// so they do not depend on how the work is split over threads.
pub fn route_quality(
    fabric: &Fabric,
    table: &ForwardingTable,
    hosts: &[u32],
    check: &RouteCheck,
) -> RouteQuality {
    let load = &check.link_routes;
    let router = &table.router(fabric);
    // (count, sum, sum of squares, min, max) of the non-zero per-pair maxima; max over all.
    type Acc = (u64, u128, u128, u64, u64);
    let empty: Acc = (0, 0, 0, u64::MAX, 0);
    let (count, sum, sum_sq, gmin, gmax) = hosts
        .par_iter()
        .fold(
            || (empty, Vec::new()),
            |(mut acc, mut route): (Acc, Vec<u32>), &s| {
                for &d in hosts {
                    route.clear();
                    router.walk(s, d, |e| route.push(e));
                    let m = if route.len() <= 2 {
                        0
                    } else {
                        route[1..route.len() - 1]
                            .iter()
                            .map(|&e| load[e as usize])
                            .max()
                            .unwrap_or(0)
                    };
                    acc.4 = acc.4.max(m);
                    if m > 0 {
                        acc.0 += 1;
                        acc.1 += m as u128;
                        acc.2 += (m as u128) * (m as u128);
                        acc.3 = acc.3.min(m);
                    }
                }
                (acc, route)
            },
        )
        .map(|(acc, _)| acc)
        .reduce(
            || empty,
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3.min(b.3), a.4.max(b.4)),
        );
    let n = count.max(1) as f64;
    let mean = sum as f64 / n;
    let var = (sum_sq as f64 / n - mean * mean).max(0.0);
    RouteQuality {
        gmin: if count == 0 { 0 } else { gmin },
        gmax,
        mean,
        sigma: var.sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{load_routed_fabric_from, LoadOptions, LoadedFabric};

    fn load(text: &str) -> LoadedFabric {
        load_routed_fabric_from(text.as_bytes(), "t", LoadOptions::default()).unwrap()
    }

    /// Three switches in a line, S0 – S1 – S2, with H0 and H3 on S0, H1 on S1, H2 on S2.
    /// `between` is the routing of the four switch-to-switch edges.
    fn line(between: &str) -> String {
        format!(
            "digraph line {{ S0; S1; S2; H0; H1; H2; H3;
            H0 -> S0 [comment=\"*\"]; H3 -> S0 [comment=\"*\"];
            H1 -> S1 [comment=\"*\"]; H2 -> S2 [comment=\"*\"];
            S0 -> H0 [comment=H0]; S0 -> H3 [comment=H3];
            S1 -> H1 [comment=H1]; S2 -> H2 [comment=H2];
            {between} }}"
        )
    }

    const ROUTED: &str = "S0 -> S1 [comment=\"H1,H2\"]; S1 -> S2 [comment=H2];
        S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3\"];";

    /// The examples of `check` as (source, destination, fault), sorted by the pair.
    fn broken_pairs(check: &RouteCheck) -> Vec<(u32, u32, RouteFault)> {
        let mut broken: Vec<(u32, u32, RouteFault)> = check
            .examples
            .iter()
            .map(|b| (b.src, b.dst, b.fault.clone()))
            .collect();
        broken.sort_by_key(|b| (b.0, b.1));
        broken
    }

    fn all_hosts(f: &LoadedFabric) -> Vec<u32> {
        (0..f.fabric.num_hosts() as u32).collect()
    }

    fn node(f: &LoadedFabric, name: &str) -> u32 {
        f.fabric.node_names.iter().position(|n| n == name).unwrap() as u32
    }

    fn host(f: &LoadedFabric, name: &str) -> u32 {
        (0..f.fabric.num_hosts() as u32)
            .find(|&h| f.fabric.host_name(h) == name)
            .unwrap()
    }

    fn edge(f: &LoadedFabric, tail: &str, head: &str) -> usize {
        let (t, h) = (node(f, tail), node(f, head));
        (0..f.fabric.num_edges())
            .find(|&e| f.fabric.edge_tail[e] == t && f.fabric.edge_head[e] == h)
            .unwrap()
    }

    #[test]
    fn routed_line_counts_lengths_and_link_routes_by_hand() {
        let f = load(&line(ROUTED));
        let check = check_routes(&f.fabric, &f.table, &all_hosts(&f));
        assert!(check.all_routed());
        assert_eq!(check.pairs_checked, 12);
        // H0↔H3 cross 2 edges; H0,H3↔H1 and H1↔H2 cross 3; H0,H3↔H2 cross 4.
        assert_eq!(check.path_lengths, vec![0, 0, 2, 6, 4]);
        // S0>S1 carries {H0,H3}→{H1,H2}; S1>S2 carries {H0,H3,H1}→H2; and back.
        for (tail, head, routes) in [
            ("S0", "S1", 4),
            ("S1", "S2", 3),
            ("S2", "S1", 3),
            ("S1", "S0", 4),
        ] {
            assert_eq!(
                check.link_routes[edge(&f, tail, head)],
                routes,
                "{tail}>{head}"
            );
        }
        // Every host injects to and receives from the three others.
        for h in ["H0", "H1", "H2", "H3"] {
            let sw = f.fabric.node_names[f.fabric.edge_head[edge_from(&f, h)] as usize].clone();
            assert_eq!(check.link_routes[edge(&f, h, &sw)], 3, "{h} uplink");
            assert_eq!(check.link_routes[edge(&f, &sw, h)], 3, "{h} downlink");
        }
        let summary = RouteSummary::of(&check);
        assert_eq!(summary.max_route_len(), 4);
        assert!(summary.proves_all_routed(&f.fabric));
    }

    fn edge_from(f: &LoadedFabric, name: &str) -> usize {
        let v = node(f, name);
        f.fabric.out_edges(v).start as usize
    }

    #[test]
    fn a_subset_of_hosts_proves_nothing_about_the_rest() {
        let f = load(&line(ROUTED));
        let check = check_routes(&f.fabric, &f.table, &[host(&f, "H0"), host(&f, "H1")]);
        assert_eq!(check.pairs_checked, 2);
        assert_eq!(check.path_lengths, vec![0, 0, 0, 2]);
        assert!(!RouteSummary::of(&check).proves_all_routed(&f.fabric));
    }

    #[test]
    fn dead_end_is_found_where_the_walk_stops() {
        // S0 no longer forwards towards H2: H0→H2 and H3→H2 stop at S0.
        let f = load(&line(
            "S0 -> S1 [comment=H1]; S1 -> S2 [comment=H2];
             S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3\"];",
        ));
        let check = check_routes(&f.fabric, &f.table, &all_hosts(&f));
        assert_eq!((check.dead_ends, check.loops), (2, 0));
        assert_eq!(check.broken(), 2);
        assert!(!check.all_routed());
        assert_eq!(check.pairs_checked, 12);
        assert_eq!(check.path_lengths, vec![0, 0, 2, 6, 2]);
        let s0 = node(&f, "S0");
        let (h0, h2, h3) = (host(&f, "H0"), host(&f, "H2"), host(&f, "H3"));
        let mut expected = vec![
            (h0, h2, RouteFault::DeadEnd { at: s0 }),
            (h3, h2, RouteFault::DeadEnd { at: s0 }),
        ];
        expected.sort_by_key(|b| (b.0, b.1));
        assert_eq!(broken_pairs(&check), expected);
        let text = check.examples[0].describe(&f.fabric).to_string();
        assert!(
            text.starts_with("no route from H") && text.contains("node S0 has no out-edge"),
            "{text}"
        );
        assert!(!RouteSummary::of(&check).proves_all_routed(&f.fabric));
    }

    #[test]
    fn a_dead_end_met_again_is_named_where_the_walk_stops() {
        // S1 no longer forwards towards H2. H0's walk stops at S1 and leaves S0 marked
        // broken; H3's walk meets S0 again, and its example must still name S1.
        let f = load(&line(
            "S0 -> S1 [comment=\"H1,H2\"]; S1 -> S2 [comment=X];
             S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3\"];",
        ));
        let check = check_routes(&f.fabric, &f.table, &all_hosts(&f));
        assert_eq!((check.dead_ends, check.loops), (3, 0));
        let s1 = node(&f, "S1");
        let h2 = host(&f, "H2");
        let mut expected: Vec<(u32, u32, RouteFault)> = ["H0", "H1", "H3"]
            .iter()
            .map(|h| (host(&f, h), h2, RouteFault::DeadEnd { at: s1 }))
            .collect();
        expected.sort_by_key(|b| (b.0, b.1));
        assert_eq!(broken_pairs(&check), expected);
    }

    #[test]
    fn loop_is_reported_with_its_cycle() {
        // S1 sends H2's traffic back to S0, which sends it to S1 again.
        let f = load(&line(
            "S0 -> S1 [comment=\"H1,H2\"]; S1 -> S2 [comment=X];
             S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3,H2\"];",
        ));
        let check = check_routes(&f.fabric, &f.table, &all_hosts(&f));
        // H0, H1 and H3 never reach H2; H2 reaches everyone.
        assert_eq!((check.dead_ends, check.loops), (0, 3));
        // Routed: H0↔H3 (2 edges), H0,H3→H1 and H1→H0,H3 and H2→H1 (3), H2→H0,H3 (4).
        assert_eq!(check.path_lengths, vec![0, 0, 2, 5, 2]);
        let (s0, s1) = (node(&f, "S0"), node(&f, "S1"));
        for b in &check.examples {
            assert_eq!(b.dst, host(&f, "H2"));
            let RouteFault::Loop { cycle } = &b.fault else {
                panic!("{b:?}")
            };
            // The cycle is S0 → S1 → S0, entered at either node.
            assert!(cycle == &[s0, s1] || cycle == &[s1, s0], "{cycle:?}");
        }
        assert_eq!(check.examples.len(), 3);
        let text = check.examples[0].describe(&f.fabric).to_string();
        assert!(text.starts_with("routing loop from"), "{text}");
        assert!(
            text.ends_with("S0 -> S1 -> S0") || text.ends_with("S1 -> S0 -> S1"),
            "{text}"
        );
    }

    /// Every pair of `hosts` walked by itself, without memory: counts, path lengths,
    /// per-link routes and the broken pairs in the check's order (destinations, then
    /// sources).
    fn walked_pair_by_pair(f: &LoadedFabric, hosts: &[u32]) -> (RouteCheck, Vec<(u32, u32)>) {
        let (fabric, table) = (&f.fabric, &f.table);
        let mut check = RouteCheck {
            num_hosts: hosts.len(),
            link_routes: vec![0; fabric.num_edges()],
            ..RouteCheck::default()
        };
        let mut broken = Vec::new();
        for &dst in hosts {
            let target = fabric.hosts[dst as usize];
            for &src in hosts {
                if src == dst {
                    continue;
                }
                check.pairs_checked += 1;
                let (mut cur, mut edges) = (fabric.hosts[src as usize], Vec::new());
                let fate = loop {
                    if cur == target {
                        break None;
                    }
                    if edges.len() > fabric.num_nodes() {
                        break Some(false);
                    }
                    match table.next_edge(fabric, cur, dst) {
                        Some(e) => {
                            edges.push(e);
                            cur = fabric.edge_head[e as usize];
                        }
                        None => break Some(true),
                    }
                };
                match fate {
                    None => {
                        if check.path_lengths.len() <= edges.len() {
                            check.path_lengths.resize(edges.len() + 1, 0);
                        }
                        check.path_lengths[edges.len()] += 1;
                        for e in edges {
                            check.link_routes[e as usize] += 1;
                        }
                    }
                    Some(dead) => {
                        if dead {
                            check.dead_ends += 1;
                        } else {
                            check.loops += 1;
                        }
                        broken.push((src, dst));
                    }
                }
            }
        }
        (check, broken)
    }

    /// Checks `f` on `hosts` against [`walked_pair_by_pair`].
    fn agrees_with_every_pair_walked(f: &LoadedFabric, hosts: &[u32]) {
        let check = check_routes(&f.fabric, &f.table, hosts);
        let (want, broken) = walked_pair_by_pair(f, hosts);
        assert_eq!(check.pairs_checked, want.pairs_checked, "{hosts:?}");
        assert_eq!((check.dead_ends, check.loops), (want.dead_ends, want.loops));
        assert_eq!(check.path_lengths, want.path_lengths, "{hosts:?}");
        assert_eq!(check.link_routes, want.link_routes, "{hosts:?}");
        let examples: Vec<(u32, u32)> = check.examples.iter().map(|b| (b.src, b.dst)).collect();
        assert_eq!(examples, broken, "{hosts:?}");
    }

    #[test]
    fn sources_checked_by_first_hop_count_as_every_pair_walked() {
        // Hosts behind one leaf (H0 and H3 on S0), a host whose uplink depends on the
        // destination (H4 on S0 or S2), and fabrics with dead ends and loops, whose
        // destinations are walked source by source again.
        let two_uplinks = "H4; H4 -> S0 [comment=\"H0,H1,H3\"]; H4 -> S2 [comment=H2];
            S0 -> H4 [comment=H4]; S2 -> S1 [comment=H4]; S1 -> S0 [comment=H4];";
        let fabrics = [
            line(ROUTED),
            line(&format!("{ROUTED} {two_uplinks}")),
            line(
                "S0 -> S1 [comment=H1]; S1 -> S2 [comment=H2];
                 S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3\"];",
            ),
            line(
                "S0 -> S1 [comment=\"H1,H2\"]; S1 -> S2 [comment=X];
                 S2 -> S1 [comment=\"H0,H1,H3\"]; S1 -> S0 [comment=\"H0,H3,H2\"];",
            ),
        ];
        // On one thread every destination is checked with the same scratch space: what
        // a destination walked by group, then source by source, leaves there must not
        // count for the next.
        let one_thread = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a thread pool");
        for text in fabrics {
            let f = load(&text);
            let all = all_hosts(&f);
            let reversed: Vec<u32> = all.iter().rev().copied().collect();
            // Every host, subsets, and the hosts in other orders: with H1 first, S1's
            // group is walked before S0's, which on the third fabric is a dead end to H2
            // after S1's route to it was counted.
            let h1_first = [all[1], all[2], all[0], all[3]];
            for hosts in [
                &all[..],
                &all[..2],
                &[all[3], all[0], all[2]],
                &reversed,
                &h1_first,
            ] {
                agrees_with_every_pair_walked(&f, hosts);
                one_thread.install(|| agrees_with_every_pair_walked(&f, hosts));
            }
        }
    }

    #[test]
    fn hosts_behind_one_leaf_form_one_group() {
        // H0 and H3 on S0, H1 on S1, H2 on S2; switches route per destination and are
        // never sources.
        let f = load(&line(ROUTED));
        let hosts = all_hosts(&f);
        let groups = SourceGroups::new(&f.fabric, &f.table, &hosts);
        let name = |v: u32| f.fabric.node_names[v as usize].as_str();
        let mut by_head: Vec<(&str, u64)> = (groups.heads.iter().zip(&groups.members))
            .map(|(&h, &m)| (name(h), m))
            .collect();
        by_head.sort();
        assert_eq!(by_head, [("S0", 2), ("S1", 1), ("S2", 1)]);
        assert!(groups.alone.is_empty());
        for (k, &h) in hosts.iter().enumerate() {
            let (g, edge) = groups.first[k].expect("an uplink");
            assert_eq!(
                f.fabric.edge_tail[edge as usize],
                f.fabric.hosts[h as usize]
            );
            assert_eq!(groups.heads[g as usize], f.fabric.edge_head[edge as usize]);
        }
        let s1 = node(&f, "S1");
        assert_eq!(
            f.table.uniform_edge(s1),
            None,
            "a switch routes per destination"
        );
        // A switch cabled in but routing nothing has no uniform edge either.
        let spare = load(&line(&format!(
            "{ROUTED} S3; S3 -> S0 [comment=H9]; S0 -> S3 [comment=H9];"
        )));
        assert_eq!(spare.table.uniform_edge(node(&spare, "S3")), None);
    }

    #[test]
    fn examples_stop_at_the_limit_but_counts_do_not() {
        // A star of 22 hosts on one switch that forwards nothing: 21 dead ends to each
        // destination, more than the examples kept, and 462 in all.
        let mut text = String::from("digraph star { S0;");
        for h in 0..22 {
            text += &format!("H{h}; H{h} -> S0 [comment=\"*\"]; S0 -> H{h} [comment=X];");
        }
        text += "}";
        let f = load(&text);
        let check = check_routes(&f.fabric, &f.table, &all_hosts(&f));
        assert_eq!(check.dead_ends, 22 * 21);
        assert_eq!(check.examples.len(), RouteCheck::MAX_EXAMPLES);
        assert!(check.path_lengths.iter().all(|&n| n == 0));
        assert!(check.link_routes.iter().all(|&n| n == 0));
    }

    #[test]
    fn route_quality_by_hand() {
        let f = load(&line(ROUTED));
        let hosts = all_hosts(&f);
        let check = check_routes(&f.fabric, &f.table, &hosts);
        let q = route_quality(&f.fabric, &f.table, &hosts, &check);
        // Inner edges carry 4 (S0>S1, S1>S0) or 3 (S1>S2, S2>S1) all-to-all routes. The
        // per-pair maxima: 4 for the eight pairs between {H0,H3} and {H1,H2}, 3 for
        // H1↔H2, none for H0↔H3 (no inner edge) and the self pairs.
        assert_eq!((q.gmin, q.gmax), (3, 4));
        assert!((q.mean - 3.8).abs() < 1e-12, "{q:?}");
        // sqrt((8·16 + 2·9)/10 − 3.8²) = sqrt(0.16)
        assert!((q.sigma - 0.4).abs() < 1e-12, "{q:?}");
    }

    #[test]
    fn route_quality_leaves_out_the_host_links() {
        // Two leaves of two hosts joined by two spines, one spine per destination: each
        // inner edge carries the 2 routes from the other leaf, while a host's ejection
        // link carries 3, which must not count.
        let f = load(
            "digraph spines { S0; S1; A; B; H0; H1; H2; H3;
             H0 -> S0 [comment=\"*\"]; H1 -> S0 [comment=\"*\"];
             H2 -> S1 [comment=\"*\"]; H3 -> S1 [comment=\"*\"];
             S0 -> H0 [comment=H0]; S0 -> H1 [comment=H1];
             S1 -> H2 [comment=H2]; S1 -> H3 [comment=H3];
             S0 -> A [comment=H2]; S0 -> B [comment=H3];
             A -> S1 [comment=H2]; B -> S1 [comment=H3];
             S1 -> A [comment=H0]; S1 -> B [comment=H1];
             A -> S0 [comment=H0]; B -> S0 [comment=H1]; }",
        );
        let hosts = all_hosts(&f);
        let check = check_routes(&f.fabric, &f.table, &hosts);
        assert!(check.all_routed());
        let q = route_quality(&f.fabric, &f.table, &hosts, &check);
        // The 8 pairs between the leaves have maximum 2; a pair within a leaf crosses
        // no inner edge.
        assert_eq!((q.gmin, q.gmax), (2, 2));
        assert_eq!((q.mean, q.sigma), (2.0, 0.0));
    }
}
