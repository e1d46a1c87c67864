//! The clocks: per rank and configuration, a clock and the make-up of the path that
//! set it, in one flat rank-major array with the configurations of one quantity
//! contiguous; and the pool of copied blocks (a message's start, a receive's post).

/// The quantities kept per rank and configuration, in their order in the flat array.
pub(super) const CLOCK: usize = 0;
pub(super) const COMPUTATION: usize = 1;
pub(super) const LATENCY: usize = 2;
pub(super) const BANDWIDTH: usize = 3;
pub(super) const CONTENTION: usize = 4;
pub(super) const QUANTITIES: usize = 5;

/// Every rank's clocks at the end of the replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Clocks {
    /// Configurations.
    pub configs: usize,
    /// Per rank: its computation, s (the same for every configuration).
    pub computation: Vec<f64>,
    /// Rank-major: per rank, [clock; K], then its path's [computation; K],
    /// [latency; K], [bandwidth; K] and [contention; K].
    data: Vec<f64>,
}

impl Clocks {
    pub(super) fn new(ranks: usize, configs: usize) -> Self {
        Clocks {
            configs,
            computation: vec![0.0; ranks],
            data: vec![0.0; ranks * QUANTITIES * configs],
        }
    }

    /// The clocks of several replays of the same ranks side by side: the
    /// configurations of `parts[0]`, then those of `parts[1]`, … O(ranks · K).
    pub fn concat(parts: &[Clocks]) -> Clocks {
        let ranks = parts.first().map_or(0, Clocks::ranks);
        let configs = parts.iter().map(|p| p.configs).sum();
        let mut all = Clocks::new(ranks, configs);
        if let Some(first) = parts.first() {
            all.computation.clone_from(&first.computation);
        }
        for r in 0..ranks {
            for q in 0..QUANTITIES {
                let mut at = all.range(r, q).start;
                for p in parts {
                    let from = &p.data[p.range(r, q)];
                    all.data[at..at + from.len()].copy_from_slice(from);
                    at += from.len();
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
        let start = (rank * QUANTITIES + quantity) * self.configs;
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
        &self.data[self.range(rank, CONTENTION)]
    }

    /// The block of `rank`: [clock; K], [computation; K], [latency; K], [bandwidth; K],
    /// [contention; K].
    pub(super) fn block(&self, rank: usize) -> &[f64] {
        let size = QUANTITIES * self.configs;
        &self.data[rank * size..(rank + 1) * size]
    }

    pub(super) fn block_mut(&mut self, rank: usize) -> &mut [f64] {
        let size = QUANTITIES * self.configs;
        &mut self.data[rank * size..(rank + 1) * size]
    }
}

/// The quantities of a block, mutable: (clock, computation, latency, bandwidth,
/// contention).
pub(super) fn split(block: &mut [f64]) -> [&mut [f64]; QUANTITIES] {
    let k = block.len() / QUANTITIES;
    let (clock, rest) = block.split_at_mut(k);
    let (computation, rest) = rest.split_at_mut(k);
    let (latency, rest) = rest.split_at_mut(k);
    let (bandwidth, contention) = rest.split_at_mut(k);
    [clock, computation, latency, bandwidth, contention]
}

/// Blocks of 4K floats, copies of a rank's block (a message's start, a receive's post,
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

/// The quantities of a block: (clock, computation, latency, bandwidth, contention).
pub(super) fn parts(block: &[f64]) -> [&[f64]; QUANTITIES] {
    let k = block.len() / QUANTITIES;
    let (clock, rest) = block.split_at(k);
    let (computation, rest) = rest.split_at(k);
    let (latency, rest) = rest.split_at(k);
    let (bandwidth, contention) = rest.split_at(k);
    [clock, computation, latency, bandwidth, contention]
}
