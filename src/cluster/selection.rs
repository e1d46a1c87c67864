//! Node selection: which free hosts of a cluster a job of a given size gets.

use crate::cluster::{Cluster, ClusterError};
use rand::seq::SliceRandom;
use rand::Rng;
use rustc_hash::FxHashMap;
use std::fmt;

/// How the hosts of a job are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// PFSim's Linear selector: the smallest block of consecutive free hosts (file
    /// order) that holds the job, else the largest blocks first.
    Linear,
    /// Uniformly random free hosts, without replacement (PFSim samples with replacement,
    /// a bug that oversubscribes hosts).
    Random,
    /// Fill as few leaf switches as possible: leaves with the most free processing
    /// elements first, hosts in file order within a leaf.
    TopologyAware,
}

impl Selector {
    /// Every selector, in the order of its documentation.
    pub const ALL: [Selector; 3] = [Selector::Linear, Selector::Random, Selector::TopologyAware];
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Selector::Linear => "linear",
            Selector::Random => "random",
            Selector::TopologyAware => "topology-aware",
        })
    }
}

/// Chooses hosts (host indices) for a job of `ranks` ranks among those not `allocated`:
/// the first hosts, in the selector's order, whose processing elements hold the job.
/// Random and topology-aware selections are returned in host order. Fails with
/// [`ClusterError::TooLarge`] when the free processing elements do not suffice.
/// O(hosts log hosts).
pub fn select_hosts(
    cluster: &Cluster,
    allocated: &[bool],
    ranks: u64,
    selector: Selector,
    rng: &mut impl Rng,
) -> Result<Vec<u32>, ClusterError> {
    let free: Vec<u32> = (0..cluster.hosts.len() as u32)
        .filter(|&h| !allocated[h as usize])
        .collect();
    let total: u64 = free.iter().map(|&h| pes(cluster, h)).sum();
    if total < ranks {
        return Err(ClusterError::TooLarge {
            needed: ranks,
            free: total,
        });
    }
    Ok(match selector {
        Selector::Linear => linear(cluster, &free, ranks),
        Selector::Random => {
            let mut shuffled = free;
            shuffled.shuffle(rng);
            let mut chosen = take(cluster, ranks, shuffled.into_iter());
            chosen.sort_unstable();
            chosen
        }
        Selector::TopologyAware => {
            let mut chosen = by_leaf(cluster, &free, ranks);
            chosen.sort_unstable();
            chosen
        }
    })
}

/// Processing elements of host `h`.
fn pes(cluster: &Cluster, h: u32) -> u64 {
    cluster.host_pes[h as usize] as u64
}

/// The first hosts of `order` whose processing elements cover `ranks`.
fn take(cluster: &Cluster, ranks: u64, order: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut chosen = Vec::new();
    let mut covered = 0;
    for h in order {
        if covered >= ranks {
            break;
        }
        covered += pes(cluster, h);
        chosen.push(h);
    }
    chosen
}

/// [`Selector::Linear`]: the smallest run of consecutive `free` hosts that holds the job,
/// else the runs from the largest down (earlier runs first among equals).
fn linear(cluster: &Cluster, free: &[u32], ranks: u64) -> Vec<u32> {
    // Maximal runs of consecutive free hosts, in file order.
    let mut blocks: Vec<Vec<u32>> = Vec::new();
    let mut previous: Option<u32> = None;
    for &h in free {
        match (blocks.last_mut(), previous) {
            (Some(block), Some(p)) if p + 1 == h => block.push(h),
            _ => blocks.push(vec![h]),
        }
        previous = Some(h);
    }
    let block_pes = |b: &Vec<u32>| b.iter().map(|&h| pes(cluster, h)).sum::<u64>();
    match blocks
        .iter()
        .filter(|b| block_pes(b) >= ranks)
        .min_by_key(|b| b.len())
    {
        Some(block) => take(cluster, ranks, block.iter().copied()),
        None => {
            // Largest blocks first (stable: earlier blocks win ties).
            blocks.sort_by_key(|b| std::cmp::Reverse(block_pes(b)));
            take(cluster, ranks, blocks.iter().flatten().copied())
        }
    }
}

/// [`Selector::TopologyAware`]: the `free` hosts grouped by leaf switch, leaves with the
/// most free processing elements first (earlier leaves first among equals).
fn by_leaf(cluster: &Cluster, free: &[u32], ranks: u64) -> Vec<u32> {
    let mut leaves: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut slot: FxHashMap<u32, usize> = FxHashMap::default();
    for &h in free {
        let leaf = cluster.leaf_of(h);
        let i = *slot.entry(leaf).or_insert_with(|| {
            leaves.push((leaf, Vec::new()));
            leaves.len() - 1
        });
        leaves[i].1.push(h);
    }
    leaves.sort_by_key(|(_, hosts)| {
        std::cmp::Reverse(hosts.iter().map(|&h| pes(cluster, h)).sum::<u64>())
    });
    take(
        cluster,
        ranks,
        leaves.iter().flat_map(|(_, h)| h.iter().copied()),
    )
}
