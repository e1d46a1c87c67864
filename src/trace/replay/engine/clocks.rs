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
    /// Per rank: computation not yet on its clocks, in the order it came. Off a fabric
    /// the gaps before the calls that leave the clocks alone (most receives posted,
    /// local calls) wait here, and go on in one pass when the block is next read.
    pending: Vec<Gaps>,
    /// Whether gaps wait in `pending` (off a fabric) or go on at once.
    lazy: bool,
}

/// Gaps waiting to go on one rank's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Gaps {
    len: u8,
    values: [f64; PENDING_GAPS],
}

impl std::ops::Deref for Gaps {
    type Target = [f64];

    /// The gaps, in the order they came.
    fn deref(&self) -> &[f64] {
        &self.values[..self.len as usize]
    }
}

/// Gaps that may wait at once; one more puts them all on the clocks.
const PENDING_GAPS: usize = 4;

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
            pending: vec![Gaps::default(); ranks],
            lazy: !contention,
        }
    }

    /// Adds the computation `gap` before `rank`'s next call to its clock and its path's
    /// computation in every configuration. Off a fabric it waits until the block is
    /// next read ([`Clocks::block`], [`Clocks::block_mut`], [`Clocks::settle_all`]),
    /// then goes on with the gaps before it, each added in turn: the same sums as at
    /// once, in fewer passes.
    pub(super) fn add_gap(&mut self, rank: usize, gap: f64) {
        self.computation[rank] += gap;
        if self.pending[rank].len as usize == PENDING_GAPS {
            self.settle(rank);
        }
        let gaps = &mut self.pending[rank];
        gaps.values[gaps.len as usize] = gap;
        gaps.len += 1;
        if !self.lazy {
            self.settle(rank);
        }
    }

    /// Puts `rank`'s waiting gaps on its clocks.
    #[inline]
    fn settle(&mut self, rank: usize) {
        let gaps = std::mem::take(&mut self.pending[rank]);
        if gaps.len > 0 {
            let (k, block) = (self.configs, self.block_range(rank));
            let [clock, computation, ..] = split(&mut self.data[block], k);
            super::kernels::add_gaps(clock, computation, &gaps);
        }
    }

    /// Puts every rank's waiting gaps on its clocks (at the end of a replay).
    pub(super) fn settle_all(&mut self) {
        for rank in 0..self.ranks() {
            self.settle(rank);
        }
    }

    /// The block of `rank` as it stands and the gaps waiting to go on it, which the
    /// caller's kernel puts on in its own pass ([`super::kernels::arrive`],
    /// [`super::kernels::settle_copy`]).
    pub(super) fn block_and_gaps(&mut self, rank: usize) -> (&mut [f64], Gaps) {
        let gaps = std::mem::take(&mut self.pending[rank]);
        let block = self.block_range(rank);
        (&mut self.data[block], gaps)
    }

    /// Where the block of `rank` lies in `data`.
    fn block_range(&self, rank: usize) -> std::ops::Range<usize> {
        let size = self.block_len();
        rank * size..(rank + 1) * size
    }

    /// These clocks with only their first `k` configurations (the ones a replay on
    /// [`super::kernels::padded`] configurations was asked for).
    pub(super) fn truncated(&self, k: usize) -> Clocks {
        let mut out = Clocks::new(self.ranks(), k, self.quantities == QUANTITIES);
        out.computation.clone_from(&self.computation);
        for r in 0..self.ranks() {
            for q in 0..self.quantities {
                let (to, from) = (out.range(r, q), self.range(r, q));
                out.data[to].copy_from_slice(&self.data[from.start..from.start + k]);
            }
        }
        out
    }

    /// Whether `rank` has no gap waiting: its clocks may be read as they are.
    fn settled(&self, rank: usize) -> bool {
        self.pending[rank].len == 0
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
        debug_assert!(self.settled(rank), "rank {rank} read with gaps waiting");
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

    /// The block of `rank`, its waiting gaps on it: [clock; K], [computation; K],
    /// [latency; K], [bandwidth; K] and, if kept, [contention; K].
    pub(super) fn block(&mut self, rank: usize) -> &[f64] {
        self.block_mut(rank)
    }

    /// The block of `rank`, its waiting gaps on it, to change.
    pub(super) fn block_mut(&mut self, rank: usize) -> &mut [f64] {
        self.settle(rank);
        let block = self.block_range(rank);
        &mut self.data[block]
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
    /// A copy of `block` once `gaps` are on its clock and computation (they go on the
    /// block too, in the same pass; `k` configurations).
    pub(super) fn alloc_settling(&mut self, block: &mut [f64], gaps: &[f64], k: usize) -> u32 {
        let id = self.take_block();
        super::kernels::settle_copy(block, gaps, self.get_mut(id), k);
        id
    }

    pub(super) fn alloc(&mut self, from: &[f64]) -> u32 {
        let id = self.take_block();
        self.get_mut(id).copy_from_slice(from);
        id
    }

    /// A free block, or a new one (its contents to be overwritten).
    fn take_block(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            let id = (self.data.len() / self.k.max(1)) as u32;
            self.data.resize(self.data.len() + self.k, 0.0);
            id
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_wait_off_a_fabric_and_go_on_when_the_block_is_read() {
        let mut clocks = Clocks::new(2, 3, false);
        clocks.add_gap(0, 0.5);
        clocks.add_gap(0, 0.25);
        assert!(!clocks.settled(0));
        assert!(clocks.settled(1));
        assert_eq!(clocks.computation, [0.75, 0.0]);
        // Clock and computation in every configuration; latency and bandwidth 0.
        let want = [[0.75; 6], [0.0; 6]].concat();
        assert_eq!(clocks.block(0), want);
        assert!(clocks.settled(0));
        // The fifth gap puts the first four on the clocks.
        for _ in 0..5 {
            clocks.add_gap(1, 1.0);
        }
        assert_eq!(clocks.pending[1].len, 1);
        assert_eq!(clocks.data[12..15], [4.0; 3]);
        clocks.settle_all();
        assert_eq!(clocks.clock(1), [5.0; 3]);
        assert_eq!(clocks.path_computation(1), [5.0; 3]);
        // On a fabric every gap goes on at once.
        let mut routed = Clocks::new(1, 2, true);
        routed.add_gap(0, 1.0);
        assert!(routed.settled(0));
        assert_eq!(routed.data[..4], [1.0; 4]);
    }

    #[test]
    fn truncated_clocks_keep_the_first_configurations_of_every_quantity() {
        let mut clocks = Clocks::new(2, 4, false);
        for (i, x) in clocks.data.iter_mut().enumerate() {
            *x = i as f64;
        }
        clocks.computation = vec![1.5, 2.5];
        let kept = clocks.truncated(3);
        assert_eq!((kept.configs, kept.ranks()), (3, 2));
        assert_eq!(kept.computation, [1.5, 2.5]);
        assert_eq!(kept.clock(0), [0.0, 1.0, 2.0]);
        assert_eq!(kept.path_computation(0), [4.0, 5.0, 6.0]);
        assert_eq!(kept.latency(1), [24.0, 25.0, 26.0]);
        assert_eq!(kept.bandwidth(1), [28.0, 29.0, 30.0]);
        assert_eq!(kept.contention(1), [0.0; 3]);
        assert_eq!(kept.block_len(), 12);
    }
}
