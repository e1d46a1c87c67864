//! The clocks: per rank and configuration, a clock and the make-up of the path that
//! set it, in one flat rank-major array with the configurations of one quantity
//! contiguous; and the pool of copied blocks (a message's start, a receive's post).

/// The quantities kept per rank and configuration, in their order in the flat array.
pub(super) const CLOCK: usize = 0;
pub(super) const COMPUTATION: usize = 1;
pub(super) const LATENCY: usize = 2;
pub(super) const BANDWIDTH: usize = 3;
pub(super) const CONTENTION: usize = 4;
/// All the quantities, on a fabric.
pub(super) const QUANTITIES: usize = 5;
/// The quantities off a fabric, where there is no contention: every event's copies and
/// kernels move a fifth less.
pub(super) const UNROUTED_QUANTITIES: usize = 4;

/// Every rank's clocks at the end of the replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Clocks {
    /// Configurations.
    pub configs: usize,
    /// Per rank: its computation, s (the same for every configuration).
    pub computation: Vec<f64>,
    /// Quantities kept per rank: [`QUANTITIES`], or [`UNROUTED_QUANTITIES`] without
    /// the contention.
    quantities: usize,
    /// Rank-major: per rank, [clock; K], then its path's [computation; K],
    /// [latency; K], [bandwidth; K] and, if kept, [contention; K].
    data: Vec<f64>,
    /// The contention when it is not kept: [0; K].
    zeros: Vec<f64>,
}

impl Clocks {
    /// Clocks at 0, with the contention kept when `contention`.
    pub(super) fn new(ranks: usize, configs: usize, contention: bool) -> Self {
        let quantities = if contention {
            QUANTITIES
        } else {
            UNROUTED_QUANTITIES
        };
        Clocks {
            configs,
            computation: vec![0.0; ranks],
            quantities,
            data: vec![0.0; ranks * quantities * configs],
            zeros: vec![0.0; configs],
        }
    }

    /// Floats in one rank's block.
    pub(super) fn block_len(&self) -> usize {
        self.quantities * self.configs
    }

    /// The clocks of several replays of the same ranks side by side: the
    /// configurations of `parts[0]`, then those of `parts[1]`, … O(ranks · K).
    pub fn concat(parts: &[Clocks]) -> Clocks {
        let ranks = parts.first().map_or(0, Clocks::ranks);
        let configs = parts.iter().map(|p| p.configs).sum();
        let contention = parts.iter().any(|p| p.quantities == QUANTITIES);
        let mut all = Clocks::new(ranks, configs, contention);
        if let Some(first) = parts.first() {
            all.computation.clone_from(&first.computation);
        }
        for r in 0..ranks {
            for q in 0..all.quantities {
                let mut at = all.range(r, q).start;
                for p in parts {
                    // A part without contention has none: its zeros are there already.
                    if q < p.quantities {
                        let from = &p.data[p.range(r, q)];
                        all.data[at..at + from.len()].copy_from_slice(from);
                    }
                    at += p.configs;
                }
            }
        }
        all
    }

    /// Ranks.
    pub fn ranks(&self) -> usize {
        self.computation.len()
    }

    pub(super) fn range(&self, rank: usize, quantity: usize) -> std::ops::Range<usize> {
        let start = (rank * self.quantities + quantity) * self.configs;
        start..start + self.configs
    }

    /// The clock of `rank` per configuration: when it finished, s after it started.
    pub fn clock(&self, rank: usize) -> &[f64] {
        &self.data[self.range(rank, CLOCK)]
    }

    /// The computation on the path that set `rank`'s clock, per configuration.
    pub fn path_computation(&self, rank: usize) -> &[f64] {
        &self.data[self.range(rank, COMPUTATION)]
    }

    /// The message latency on the path that set `rank`'s clock, per configuration.
    pub fn latency(&self, rank: usize) -> &[f64] {
        &self.data[self.range(rank, LATENCY)]
    }

    /// The time moving bytes on the path that set `rank`'s clock, per configuration.
    pub fn bandwidth(&self, rank: usize) -> &[f64] {
        &self.data[self.range(rank, BANDWIDTH)]
    }

    /// The part of the bandwidth time on the path that set `rank`'s clock spent sharing
    /// links with other messages, per configuration (0 without a fabric).
    pub fn contention(&self, rank: usize) -> &[f64] {
        if self.quantities == QUANTITIES {
            &self.data[self.range(rank, CONTENTION)]
        } else {
            &self.zeros
        }
    }

    /// The block of `rank`: [clock; K], [computation; K], [latency; K], [bandwidth; K]
    /// and, if kept, [contention; K].
    pub(super) fn block(&self, rank: usize) -> &[f64] {
        let size = self.block_len();
        &self.data[rank * size..(rank + 1) * size]
    }

    pub(super) fn block_mut(&mut self, rank: usize) -> &mut [f64] {
        let size = self.block_len();
        &mut self.data[rank * size..(rank + 1) * size]
    }
}

/// The quantities of a block of `k` configurations, mutable: (clock, computation,
/// latency, bandwidth, contention); the contention is empty where it is not kept.
pub(super) fn split(block: &mut [f64], k: usize) -> [&mut [f64]; QUANTITIES] {
    let (clock, rest) = block.split_at_mut(k);
    let (computation, rest) = rest.split_at_mut(k);
    let (latency, rest) = rest.split_at_mut(k);
    let (bandwidth, contention) = rest.split_at_mut(k);
    [clock, computation, latency, bandwidth, contention]
}

/// Blocks of one rank's size, copies of a rank's block (a message's start, a receive's post,
/// the latest member of a collective), reused.
pub(super) struct TimePool {
    pub(super) k: usize,
    pub(super) data: Vec<f64>,
    pub(super) free: Vec<u32>,
}

impl TimePool {
    pub(super) fn alloc(&mut self, from: &[f64]) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.get_mut(id).copy_from_slice(from);
                id
            }
            None => {
                let id = (self.data.len() / self.k.max(1)) as u32;
                self.data.extend_from_slice(from);
                id
            }
        }
    }

    pub(super) fn get(&self, id: u32) -> &[f64] {
        let start = id as usize * self.k;
        &self.data[start..start + self.k]
    }

    pub(super) fn get_mut(&mut self, id: u32) -> &mut [f64] {
        let start = id as usize * self.k;
        &mut self.data[start..start + self.k]
    }

    pub(super) fn release(&mut self, id: u32) {
        self.free.push(id);
    }
}

/// The quantities of a block of `k` configurations: (clock, computation, latency,
/// bandwidth, contention); the contention is empty where it is not kept.
pub(super) fn parts(block: &[f64], k: usize) -> [&[f64]; QUANTITIES] {
    let (clock, rest) = block.split_at(k);
    let (computation, rest) = rest.split_at(k);
    let (latency, rest) = rest.split_at(k);
    let (bandwidth, contention) = rest.split_at(k);
    [clock, computation, latency, bandwidth, contention]
}
