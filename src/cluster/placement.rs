//! Process placement: which host each rank of a job runs on, and the job's traffic summed
//! per ordered host pair under that placement.

use crate::cluster::Cluster;
use crate::workload::matrix::TrafficMatrix;
use rustc_hash::FxHashMap;
use std::fmt;

/// How ranks are placed on the chosen hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapper {
    /// Consecutive ranks fill a host before the next ("Linear" in PFSim).
    Block,
    /// Round robin over the hosts, skipping full ones.
    Cyclic,
    /// Communication-aware: fill the hosts one after another (in the selector's order,
    /// so neighbouring hosts share a switch), each time adding the unplaced rank that
    /// exchanges the most bytes with the ranks already on the host; an empty host starts
    /// with the unplaced rank of most total traffic. Ties go to the lowest rank.
    Greedy,
}

impl Mapper {
    /// Every mapper, in the order of its documentation.
    pub const ALL: [Mapper; 3] = [Mapper::Block, Mapper::Cyclic, Mapper::Greedy];
}

impl fmt::Display for Mapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mapper::Block => "block",
            Mapper::Cyclic => "cyclic",
            Mapper::Greedy => "greedy",
        })
    }
}

/// Places `ranks` ranks on `hosts` (in the selector's order): rank → host index.
/// O(ranks + hosts) for block and cyclic; the greedy mapper needs the `matrix` and takes
/// O(ranks² + entries).
pub fn map_ranks(
    cluster: &Cluster,
    hosts: &[u32],
    ranks: u32,
    mapper: Mapper,
    matrix: &TrafficMatrix,
) -> Vec<u32> {
    let mut placement = Vec::with_capacity(ranks as usize);
    match mapper {
        Mapper::Greedy => return greedy_placement(cluster, hosts, ranks, matrix),
        Mapper::Block => {
            'fill: for &h in hosts {
                for _ in 0..cluster.host_pes[h as usize] {
                    if placement.len() == ranks as usize {
                        break 'fill;
                    }
                    placement.push(h);
                }
            }
        }
        Mapper::Cyclic => {
            let mut used = vec![0u32; hosts.len()];
            while placement.len() < ranks as usize {
                let before = placement.len();
                for (i, &h) in hosts.iter().enumerate() {
                    if placement.len() == ranks as usize {
                        break;
                    }
                    if used[i] < cluster.host_pes[h as usize] {
                        used[i] += 1;
                        placement.push(h);
                    }
                }
                if placement.len() == before {
                    break; // every host full: the selector guarantees this cannot happen
                }
            }
        }
    }
    placement
}

/// The communication-aware placement of [`Mapper::Greedy`].
fn greedy_placement(
    cluster: &Cluster,
    hosts: &[u32],
    ranks: u32,
    matrix: &TrafficMatrix,
) -> Vec<u32> {
    let n = ranks as usize;
    // Symmetric byte counts per rank: neighbours and totals.
    let mut neighbours: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
    let mut total = vec![0u64; n];
    for &(r, q, bytes) in &matrix.entries {
        if r != q && (r as usize) < n && (q as usize) < n {
            neighbours[r as usize].push((q, bytes));
            neighbours[q as usize].push((r, bytes));
            total[r as usize] += bytes;
            total[q as usize] += bytes;
        }
    }
    const UNPLACED: u32 = u32::MAX;
    let mut placement = vec![UNPLACED; n];
    // Bytes each rank exchanges with the ranks on the current host, and on the current
    // leaf switch (so a new host on the same leaf continues the group).
    let mut on_host = vec![0u64; n];
    let mut on_leaf = vec![0u64; n];
    let mut leaf = None;
    let mut placed = 0;
    for &h in hosts {
        on_host.iter_mut().for_each(|a| *a = 0);
        let this_leaf = cluster.leaf_of(h);
        if leaf != Some(this_leaf) {
            on_leaf.iter_mut().for_each(|a| *a = 0);
            leaf = Some(this_leaf);
        }
        for _ in 0..cluster.host_pes[h as usize] {
            if placed == n {
                break;
            }
            // The unplaced rank closest to this host, then to this leaf; with nothing
            // connected, the busiest unplaced rank.
            let best = (0..n)
                .filter(|&r| placement[r] == UNPLACED)
                .max_by_key(|&r| (on_host[r], on_leaf[r], total[r], std::cmp::Reverse(r)))
                .expect("an unplaced rank remains");
            placement[best] = h;
            placed += 1;
            for &(q, bytes) in &neighbours[best] {
                on_host[q as usize] += bytes;
                on_leaf[q as usize] += bytes;
            }
        }
    }
    placement
}

/// Traffic of one job aggregated per ordered host pair, heaviest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostPairs {
    /// (source host, destination host, bytes, rank pairs), bytes descending; ties keep
    /// first-seen order (the matrix's entry order), as PFSim's stable sort does.
    pub pairs: Vec<(u32, u32, u64, u64)>,
}

/// Sums `matrix` per ordered host pair under `placement` (rank → host index).
/// O(entries).
pub fn host_pairs(matrix: &TrafficMatrix, placement: &[u32]) -> HostPairs {
    let mut index: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut pairs: Vec<(u32, u32, u64, u64)> = Vec::new();
    for &(r, q, bytes) in &matrix.entries {
        let key = (placement[r as usize], placement[q as usize]);
        let i = *index.entry(key).or_insert_with(|| {
            pairs.push((key.0, key.1, 0, 0));
            pairs.len() - 1
        });
        pairs[i].2 += bytes;
        pairs[i].3 += 1;
    }
    pairs.sort_by_key(|p| std::cmp::Reverse(p.2));
    HostPairs { pairs }
}
