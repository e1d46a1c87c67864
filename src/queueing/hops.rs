//! Mean number of switches a message crosses in one network: the closed forms for an
//! m-port n-tree and a linear array of switches, or measured on a routed fabric.

use super::QueueError;
use crate::fabric::{Fabric, NONE};
use crate::routing::{check_routes, ForwardingTable};
use rayon::prelude::*;

/// Mean switches crossed between two distinct endpoints, uniformly chosen, of the smallest
/// m-port n-tree (`ports` = m, even) with room for `endpoints`, routed through the nearest
/// common ancestor. O(n) with n = ⌈log_{m/2}(endpoints/2)⌉.
///
/// The tree has `2(m/2)^n` endpoints; with at most m endpoints it is one switch (h̄ = 1).
/// Of the `endpoints − 1` destinations, `(m/2)^h − (m/2)^(h−1)` have their nearest common
/// ancestor at level h < n and the rest at level n; a level-h route crosses `2h − 1`
/// switches.
pub fn fat_tree_switches(endpoints: u32, ports: u32) -> f64 {
    if endpoints <= ports.max(2) {
        return 1.0;
    }
    let half = (ports / 2).max(2) as f64;
    let n_x = endpoints as f64;
    let mut levels = 1u32;
    while 2.0 * half.powi(levels as i32) < n_x {
        levels += 1;
    }
    let mut weighted = 0.0;
    for h in 1..levels {
        let count = half.powi(h as i32) - half.powi(h as i32 - 1);
        weighted += count * (2 * h - 1) as f64;
    }
    let top = n_x - half.powi(levels as i32 - 1);
    weighted += top * (2 * levels - 1) as f64;
    weighted / (n_x - 1.0)
}

/// Mean switches crossed between two uniformly chosen endpoints of a linear array of
/// `S = max(1, ⌈(endpoints − 2)/(ports − 2)⌉)` switches (two ports of each used for
/// the chain, endpoints spread evenly): `1 + (S² − 1)/(3S)`, the mean of |i − j| + 1 for
/// independent uniform switch indices. O(1).
pub fn linear_array_switches(endpoints: u32, ports: u32) -> f64 {
    let per = ports.saturating_sub(2).max(1) as u64;
    let chain = (endpoints as u64).saturating_sub(2).div_ceil(per).max(1) as f64;
    1.0 + (chain * chain - 1.0) / (3.0 * chain)
}

/// Switch counts measured on a routed fabric for one partition into clusters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FabricHops {
    /// Clusters C.
    pub clusters: u32,
    /// Hosts per cluster N0.
    pub nodes_per_cluster: u32,
    /// Mean switches on a route between two hosts of one cluster (the ICN1's h̄); 0 when
    /// clusters have one host.
    pub intra: f64,
    /// Mean switches on a route between hosts of different clusters (0 for one cluster).
    pub inter: f64,
    /// Of those, the mean per end inside the clusters' own switches (the ECN1's h̄).
    pub ecn1: f64,
    /// Of those, the mean between the clusters (the ICN2's h̄).
    pub icn2: f64,
}

impl FabricHops {
    /// The switch counts of ICN1, ECN1 and ICN2, for [`super::System::measured_hops`].
    pub fn switches(&self) -> [f64; 3] {
        [self.intra, self.ecn1, self.icn2]
    }
}

/// A routed fabric whose hosts, in host order, form the processors of the clusters.
pub struct FabricRoutes<'a> {
    fabric: &'a Fabric,
    table: &'a ForwardingTable,
}

/// The owner of a switch that no cluster's local routes use (it belongs to the ICN2).
const UNUSED: u32 = NONE;
/// The owner of a switch that several clusters' local routes use (it belongs to the ICN2).
const SHARED: u32 = NONE - 1;

impl<'a> FabricRoutes<'a> {
    /// Wraps a loaded fabric and its forwarding table.
    pub fn new(fabric: &'a Fabric, table: &'a ForwardingTable) -> Self {
        FabricRoutes { fabric, table }
    }

    /// Number of hosts of the fabric.
    pub fn num_hosts(&self) -> usize {
        self.fabric.num_hosts()
    }

    /// Measures the switch counts when hosts `0..C·N0` (in the fabric's host order) form C
    /// clusters of N0 consecutive hosts.
    ///
    /// A switch belongs to cluster c when the routes between hosts of c use it and no
    /// other cluster's do; switches used by several clusters' local routes, or by none,
    /// belong to the global network. A route between clusters a and b is split into its
    /// leading switches that belong to a (a's ECN1), its trailing switches that belong to b
    /// (b's ECN1), and the rest (the ICN2), so `inter = 2·ecn1 + icn2` and every switch of
    /// the fabric's route is counted once.
    ///
    /// The routes between the hosts used are checked first (a broken one is an error).
    /// O(N² × route length) time, parallel over sources; O(nodes) memory per thread.
    pub fn hops(&self, clusters: u32, nodes_per_cluster: u32) -> Result<FabricHops, QueueError> {
        let (c, n0) = (clusters as usize, nodes_per_cluster as usize);
        self.check_hosts(clusters, nodes_per_cluster)?;
        let n = c * n0;
        let (owner, intra_sum) = self.switch_owners(c, n0);
        let (ends, middle, total) = self.split_inter_routes(&owner, n, n0);
        let intra_pairs = (c * n0 * (n0 - 1)) as f64;
        let inter_pairs = (n * (n - n0)) as f64;
        let mean = |sum: u64, pairs: f64| if pairs > 0.0 { sum as f64 / pairs } else { 0.0 };
        Ok(FabricHops {
            clusters,
            nodes_per_cluster,
            intra: mean(intra_sum, intra_pairs),
            inter: mean(total, inter_pairs),
            ecn1: mean(ends, 2.0 * inter_pairs),
            icn2: mean(middle, inter_pairs),
        })
    }

    /// Checks that the fabric has the C·N0 hosts and routes every pair of them.
    fn check_hosts(&self, clusters: u32, nodes_per_cluster: u32) -> Result<(), QueueError> {
        let fabric = self.fabric;
        let (c, n0) = (clusters as usize, nodes_per_cluster as usize);
        let n = c * n0;
        if c == 0 || n0 == 0 {
            return Err(QueueError::Fabric(
                "the clusters must have at least one host each".to_string(),
            ));
        }
        if n > fabric.num_hosts() {
            return Err(QueueError::Fabric(format!(
                "{clusters} clusters of {nodes_per_cluster} hosts need {n} hosts, but the fabric has {}",
                fabric.num_hosts()
            )));
        }
        let hosts: Vec<u32> = (0..n as u32).collect();
        let check = check_routes(fabric, self.table, &hosts);
        if !check.all_routed() {
            let mut msg = format!(
                "{} of {} host pairs are not routed:",
                check.broken(),
                check.pairs_checked
            );
            for ex in check.examples.iter().take(5) {
                msg.push_str(&format!("\n  {}", ex.describe(fabric)));
            }
            return Err(QueueError::Fabric(msg));
        }
        Ok(())
    }

    /// True if node `v` of the fabric is a switch.
    fn is_switch(&self, v: u32) -> bool {
        self.fabric.host_of_node[v as usize] == NONE
    }

    /// The owner of every node (the one cluster whose local routes use it, [`SHARED`] or
    /// [`UNUSED`]) and the switches crossed by all routes within clusters.
    fn switch_owners(&self, c: usize, n0: usize) -> (Vec<u32>, u64) {
        let fabric = self.fabric;
        let router = self.table.router(fabric);
        let mut owner = vec![UNUSED; fabric.num_nodes()];
        let mut intra_sum = 0u64;
        for cluster in 0..c {
            let members = (cluster * n0) as u32..((cluster + 1) * n0) as u32;
            let used: Vec<(u64, Vec<u32>)> = members
                .clone()
                .into_par_iter()
                .map(|s| {
                    let mut sum = 0u64;
                    let mut seen = Vec::new();
                    for d in members.clone() {
                        if d == s {
                            continue;
                        }
                        router.walk(s, d, |e| {
                            let v = fabric.edge_head[e as usize];
                            if self.is_switch(v) {
                                sum += 1;
                                seen.push(v);
                            }
                        });
                    }
                    seen.sort_unstable();
                    seen.dedup();
                    (sum, seen)
                })
                .collect();
            for (sum, seen) in used {
                intra_sum += sum;
                for v in seen {
                    let o = &mut owner[v as usize];
                    *o = match *o {
                        UNUSED => cluster as u32,
                        x if x == cluster as u32 => x,
                        _ => SHARED,
                    };
                }
            }
        }
        (owner, intra_sum)
    }

    /// The routes between hosts of different clusters (of `n0` hosts each, `n` in all),
    /// split by `owner` into their ends (switches of the source's or the destination's
    /// cluster) and their middle: the sums of the ends, the middles and the whole routes.
    fn split_inter_routes(&self, owner: &[u32], n: usize, n0: usize) -> (u64, u64, u64) {
        let fabric = self.fabric;
        let router = self.table.router(fabric);
        (0..n as u32)
            .into_par_iter()
            .map(|s| {
                let a = s as usize / n0;
                let mut path = Vec::new();
                let (mut ends, mut middle, mut total) = (0u64, 0u64, 0u64);
                for d in 0..n as u32 {
                    let b = d as usize / n0;
                    if a == b {
                        continue;
                    }
                    path.clear();
                    router.walk(s, d, |e| {
                        let v = fabric.edge_head[e as usize];
                        if self.is_switch(v) {
                            path.push(v);
                        }
                    });
                    let head = path
                        .iter()
                        .take_while(|&&v| owner[v as usize] == a as u32)
                        .count();
                    let tail = path[head..]
                        .iter()
                        .rev()
                        .take_while(|&&v| owner[v as usize] == b as u32)
                        .count();
                    ends += (head + tail) as u64;
                    middle += (path.len() - head - tail) as u64;
                    total += path.len() as u64;
                }
                (ends, middle, total)
            })
            .reduce(|| (0, 0, 0), |x, y| (x.0 + y.0, x.1 + y.1, x.2 + y.2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms_match_the_spec_examples() {
        assert_eq!(fat_tree_switches(64, 24), 167.0 / 63.0);
        assert_eq!(linear_array_switches(64, 24), 17.0 / 9.0);
        assert!((fat_tree_switches(128, 24) - 2.82677).abs() < 5e-6);
        assert!((linear_array_switches(128, 24) - 2.94444).abs() < 5e-6);
        assert!((fat_tree_switches(32, 24) - 2.29032).abs() < 5e-6);
        assert_eq!(linear_array_switches(32, 24), 1.5);
        for n in [1, 2, 16, 24] {
            assert_eq!(fat_tree_switches(n, 24), 1.0);
            assert_eq!(linear_array_switches(n, 24), 1.0);
        }
    }

    #[test]
    fn fat_tree_counts_every_destination_once() {
        // A brute force over the tree's endpoints: endpoint i sits at leaf position i, the
        // nearest common ancestor of i and j is the smallest level h at which they share
        // the block of (m/2)^h endpoints, the route crosses 2h − 1 switches.
        for ports in [4u32, 8, 24] {
            for endpoints in [2u32, 5, 25, 64, 100, 288, 300] {
                let half = (ports / 2) as u64;
                let mut levels = 1u32;
                while 2 * half.pow(levels) < endpoints as u64 {
                    levels += 1;
                }
                let mut sum = 0u64;
                for j in 1..endpoints as u64 {
                    let mut h = 1u32;
                    while j / half.pow(h) != 0 {
                        h += 1;
                    }
                    // The top switches have all m ports down: 2(m/2)^n endpoints.
                    sum += (2 * h.min(levels) - 1) as u64;
                }
                let brute = sum as f64 / (endpoints - 1) as f64;
                let closed = fat_tree_switches(endpoints, ports);
                assert!(
                    (brute - closed).abs() < 1e-12,
                    "k={ports} n={endpoints}: {brute} vs {closed}"
                );
            }
        }
    }

    #[test]
    fn linear_array_mean_is_the_mean_distance_plus_one() {
        for chain in 1u64..20 {
            let mut sum = 0u64;
            for i in 0..chain {
                for j in 0..chain {
                    sum += i.abs_diff(j) + 1;
                }
            }
            let brute = sum as f64 / (chain * chain) as f64;
            // 22 endpoints per switch of 24 ports: S switches hold 22·S + 2 endpoints.
            let endpoints = (22 * chain + 2) as u32;
            let closed = linear_array_switches(endpoints, 24);
            assert!((brute - closed).abs() < 1e-12, "S = {chain}");
        }
    }
}
