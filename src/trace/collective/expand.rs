//! One rank's part of a collective as the point-to-point messages it sends.
//!
//! [`RankCall::expand`] runs one algorithm's schedule for one rank. It needs only that
//! rank's own call arguments (its rank, the communicator size, the root, its counts),
//! so a trace reader expands every rank's record independently, without matching
//! records across ranks; it allocates nothing and calls `emit(dst, bytes)` once per
//! message, in the order the rank sends them. Ranks are ranks in the communicator.
//!
//! Rules shared by every schedule (those of MPICH):
//! * a rank never sends to itself (its own block is a local copy);
//! * a collective whose data is empty sends nothing (MPICH returns early), except
//!   gatherv, scatterv, alltoallv and alltoallw, where one rank's counts say nothing
//!   about the others'; a barrier's messages carry 0 bytes;
//! * steps of exchange algorithms (recursive doubling, ring, Bruck, pairwise) send one
//!   message each, even of 0 bytes, because MPICH's `sendrecv` does; the linear
//!   algorithms of the v/w variants skip peers with a count of 0, as MPICH does.
//!
//! Vectors are split in bytes: where MPICH splits `count` elements into pieces, orcs
//! splits the bytes the same way (first pieces one unit longer), so piece sizes may
//! differ from MPICH's by less than one element. MPICH's pipelining of long ring
//! blocks into several messages is not modelled: one block, one message.
//!
//! # Schedules
//!
//! Rank r of p; for rooted operations v is r's rank relative to the root
//! ((r − root) mod p, the root is 0); pof2 = 2^⌊lg p⌋, rem = p − pof2. "Per rank"
//! counts are for p a power of two. Work per rank: O(number of messages) for one-size
//! records, plus O(p) to sum per-rank arrays.
//!
//! * **dissemination** (barrier): r sends 0 bytes to (r + 2^k) mod p for each 2^k < p;
//!   ⌈lg p⌉ messages per rank.
//! * **binomial** bcast: v sends the message to each child v + m, m the powers of two
//!   below v's lowest set bit (below p for the root), largest first, v + m < p; the
//!   root sends ⌈lg p⌉, p − 1 messages in all. Gather: each v ≠ 0 sends its subtree's
//!   blocks, min(m, p − v) of them (m = lowest set bit of v), to v − m. Scatter: v sends
//!   each child c = v + m its subtree's blocks, min(m, p − c). Reduce: each v ≠ 0 sends
//!   the vector to v − m; for a non-commutative operator the tree is rooted at rank 0,
//!   which then sends the result to the root.
//! * **scatter_recursive_doubling**, **scatter_ring** (bcast): the message is cut into p
//!   chunks of ⌈n/p⌉ bytes; a binomial scatter sends each child its subtree's chunks
//!   (skipping empty ones), then the chunks are allgathered by recursive doubling or by
//!   a ring, in relative ranks.
//! * **linear**: gather(v): every non-root rank sends its block to the root; scatter(v):
//!   the root sends every other rank its block; alltoall(v/w): r sends every other rank
//!   its block, in the order r + 1, r + 2, … (mod p). p − 1 messages at the root or
//!   per rank; empty blocks of v/w variants are skipped.
//! * **recursive_doubling**: step i pairs r with r ^ 2^i. Allgather(v): r sends the
//!   blocks of its group of 2^i ranks; reduce-scatter: every block except its group's;
//!   when p is not a power of two, ranks whose partner does not exist get the data
//!   forwarded inside their group (MPICH's scheme). Allreduce: pairs of the first 2·rem
//!   ranks fold (the even one sends the vector to the odd one, which sends the result
//!   back at the end); the pof2 others exchange the vector lg pof2 times. Scan, exscan:
//!   r sends the vector to r ^ 2^i when it exists. lg p messages per rank.
//! * **rabenseifner**: the fold as in recursive doubling (for reduce, the odd rank of a
//!   pair hands its vector to the even one), a reduce-scatter of pof2 pieces by
//!   recursive halving (partners at distance 1, 2, 4, … swap halves of what they hold),
//!   then an allgather in the reverse order (allreduce) or a binomial gather to the root
//!   (reduce; when the root sat out of the fold, new rank 0 first hands it its piece).
//!   2 lg p messages per rank for allreduce.
//! * **recursive_halving** (reduce-scatter): the allreduce fold (the odd rank also
//!   computes its neighbour's block and sends it at the end), then partners at distance
//!   pof2/2, …, 1 send each other the blocks of the half the partner keeps. lg p per
//!   rank.
//! * **bruck**: allgather(v): r sends the 2^k blocks it holds (ranks r … r + 2^k − 1) to
//!   r − 2^k while 2^k ≤ p/2, then the first rem of them to r − pof2; alltoall: in step
//!   k, r sends to r + 2^k the blocks whose distance to their destination has bit k
//!   set. ⌈lg p⌉ messages per rank.
//! * **ring** (allgather(v)): in step i = 1 … p − 1, r sends block (r − i + 1) mod p to
//!   r + 1. p − 1 per rank.
//! * **pairwise**: alltoall(v/w): in step i = 1 … p − 1, r sends its block for r ^ i (p a
//!   power of two) or (r + i) mod p; reduce-scatter: its block of the vector for
//!   (r + i) mod p. p − 1 per rank.

use super::op::{Algorithm, CollectiveOp};
use super::select::{pof2_floor, AlgorithmChoice};
use super::CollectiveError;

mod exchange;
mod reduce;
mod tree;

use exchange::*;
use reduce::*;
use tree::*;

/// The data sizes of one rank's collective call, in bytes, as its trace record holds
/// them (count × datatype size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallData<'a> {
    /// No data (barrier).
    None,
    /// One size: the message (bcast), the vector (reduce, allreduce, scan, exscan), one
    /// block (gather, scatter, allgather, reduce_scatter_block: the block of one rank;
    /// alltoall: the block for one peer), or this rank's own block of a gatherv
    /// (non-root) or scatterv (non-root).
    Bytes(u64),
    /// One size per rank of the communicator: allgatherv and reduce_scatter
    /// (`recvcounts`), alltoallv and alltoallw (`sendcounts`, per destination),
    /// gatherv at the root (`recvcounts`) and scatterv at the root (`sendcounts`).
    PerRank(&'a [u64]),
}

/// One rank's collective call: what its trace record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankCall<'a> {
    /// The operation.
    pub op: CollectiveOp,
    /// This rank's rank in the communicator.
    pub rank: u32,
    /// The communicator's size, p.
    pub size: u32,
    /// The root's rank in the communicator (ignored by operations without a root).
    pub root: u32,
    /// Whether the reduction operator is commutative (see [`super::choose`]); ignored by
    /// operations that do not reduce.
    pub commutative: bool,
    /// The data sizes.
    pub data: CallData<'a>,
}

impl RankCall<'_> {
    /// Checks that the call is well formed: a non-empty communicator, rank and root in
    /// it, data of the shape the operation takes (one size per rank for allgatherv,
    /// reduce_scatter, alltoallv, alltoallw and for gatherv and scatterv at the root;
    /// one size otherwise; anything for a barrier), and totals that fit in 64 bits.
    pub fn validate(&self) -> Result<(), CollectiveError> {
        let op = self.op;
        if self.size == 0 {
            return Err(CollectiveError::EmptyCommunicator { op });
        }
        let in_range = |what: &'static str, rank: u32| {
            if rank < self.size {
                Ok(())
            } else {
                Err(CollectiveError::RankOutOfRange {
                    op,
                    what,
                    rank,
                    size: self.size,
                })
            }
        };
        in_range("rank", self.rank)?;
        if op.is_rooted() {
            in_range("root", self.root)?;
        }
        let at_root = self.rank == self.root;
        let per_rank = match op {
            CollectiveOp::Barrier => return Ok(()),
            CollectiveOp::Allgatherv
            | CollectiveOp::ReduceScatter
            | CollectiveOp::Alltoallv
            | CollectiveOp::Alltoallw => true,
            CollectiveOp::Gatherv | CollectiveOp::Scatterv => at_root,
            _ => false,
        };
        let p = u64::from(self.size);
        match (per_rank, self.data) {
            (true, CallData::PerRank(a)) if a.len() != self.size as usize => {
                Err(CollectiveError::CountsLength {
                    op,
                    expected: self.size,
                    got: a.len(),
                })
            }
            (true, CallData::PerRank(a)) => match checked_sum(a) {
                Some(_) => Ok(()),
                None => Err(CollectiveError::TooLarge { op }),
            },
            // Every sum a schedule forms over equal blocks is at most p blocks.
            (false, CallData::Bytes(b)) => match b.checked_mul(p) {
                Some(_) => Ok(()),
                None => Err(CollectiveError::TooLarge { op }),
            },
            (true, _) => Err(CollectiveError::DataShape {
                op,
                expected: "one size per rank",
            }),
            (false, _) => Err(CollectiveError::DataShape {
                op,
                expected: "one size",
            }),
        }
    }

    /// The size MPICH compares with its thresholds, as [`super::choose`] takes it
    /// (`None` when it overflows 64 bits or the data does not fit the operation).
    pub fn selection_bytes(&self) -> Option<u64> {
        let p = u64::from(self.size);
        match (self.op, self.data) {
            (CollectiveOp::Barrier, _) => Some(0),
            (CollectiveOp::Allgather | CollectiveOp::ReduceScatterBlock, CallData::Bytes(b)) => {
                b.checked_mul(p)
            }
            (_, CallData::Bytes(b)) => Some(b),
            (_, CallData::PerRank(a)) => checked_sum(a),
            (_, CallData::None) => None,
        }
    }

    /// The `n` of the cost expressions ([`super::cost`]) when this rank's record holds
    /// it: `None` for gatherv and scatterv away from the root (only the root's record
    /// has every block's size) and for malformed calls.
    pub fn cost_bytes(&self) -> Option<u64> {
        let p = u64::from(self.size);
        let at_root = self.rank == self.root;
        match (self.op, self.data) {
            (CollectiveOp::Barrier, _) => Some(0),
            (CollectiveOp::Gatherv | CollectiveOp::Scatterv, CallData::Bytes(_)) if !at_root => {
                None
            }
            (
                CollectiveOp::Gather
                | CollectiveOp::Scatter
                | CollectiveOp::Allgather
                | CollectiveOp::ReduceScatterBlock,
                CallData::Bytes(b),
            ) => b.checked_mul(p),
            (CollectiveOp::Alltoall, CallData::Bytes(b)) => b.checked_mul(p - 1),
            (CollectiveOp::Alltoallv | CollectiveOp::Alltoallw, CallData::PerRank(a)) => {
                let own = a.get(self.rank as usize).copied().unwrap_or(0);
                checked_sum(a).map(|total| total - own)
            }
            (_, CallData::Bytes(b)) => Some(b),
            (_, CallData::PerRank(a)) => checked_sum(a),
            (_, CallData::None) => None,
        }
    }

    /// The algorithm `choice` picks for this call (MPICH's when nothing is forced).
    /// Ranks whose record lacks the size MPICH decides by (gatherv, scatterv) get the
    /// only algorithm those operations have.
    pub fn algorithm(&self, choice: &AlgorithmChoice) -> Algorithm {
        let bytes = self.selection_bytes().unwrap_or(0);
        choice.select(self.op, self.size, bytes, self.commutative)
    }

    /// Calls `emit(dst, bytes)` for every message this rank sends when the collective
    /// runs `algorithm`, in the order it sends them.
    ///
    /// Fails, before emitting anything, when the call is malformed (see
    /// [`RankCall::validate`]) or the operation cannot use `algorithm`.
    pub fn expand(
        &self,
        algorithm: Algorithm,
        emit: impl FnMut(u32, u64),
    ) -> Result<(), CollectiveError> {
        self.validate()?;
        if !self.op.supports(algorithm) {
            return Err(CollectiveError::AlgorithmNotForOp {
                op: self.op,
                algorithm,
            });
        }
        dispatch(self, algorithm, emit);
        Ok(())
    }
}

/// The sum of `sizes`, or `None` when it overflows.
fn checked_sum(sizes: &[u64]) -> Option<u64> {
    sizes.iter().try_fold(0u64, |sum, &b| sum.checked_add(b))
}

/// Runs the schedule of a validated call.
fn dispatch(call: &RankCall, algorithm: Algorithm, mut emit: impl FnMut(u32, u64)) {
    use Algorithm::*;
    use CollectiveOp as Op;
    let (r, p) = (call.rank, call.size);
    let ring = Rooted::new(call.root, p);
    let bytes = match call.data {
        CallData::Bytes(b) => b,
        _ => 0,
    };
    let per_rank = match call.data {
        CallData::PerRank(a) => a,
        _ => &[],
    };
    let blocks = match call.data {
        CallData::PerRank(a) => Blocks::PerRank(a),
        _ => Blocks::Uniform {
            size: bytes,
            count: p,
        },
    };
    let empty = match call.data {
        CallData::None => call.op != Op::Barrier,
        CallData::Bytes(b) => b == 0,
        CallData::PerRank(a) => a.iter().all(|&b| b == 0),
    };
    // Gatherv, scatterv and the alltoall v/w variants have no global early return:
    // a rank's zero counts say nothing about the other ranks' data.
    let no_early_return = matches!(
        call.op,
        Op::Barrier | Op::Gatherv | Op::Scatterv | Op::Alltoallv | Op::Alltoallw
    );
    if empty && !no_early_return {
        return;
    }
    match (call.op, algorithm) {
        (Op::Barrier, _) => dissemination(r, p, &mut emit),
        (Op::Bcast, Binomial) => binomial_bcast(ring.relative(r), p, bytes, &mut |v, b| {
            emit(ring.real(v), b)
        }),
        (Op::Bcast, ScatterRecursiveDoublingAllgather) => {
            scatter_recursive_doubling_bcast(ring.relative(r), p, bytes, &mut |v, b| {
                emit(ring.real(v), b)
            })
        }
        (Op::Bcast, _) => scatter_ring_bcast(ring.relative(r), p, bytes, &mut |v, b| {
            emit(ring.real(v), b)
        }),
        (Op::Gather, Binomial) => binomial_gather(ring.relative(r), p, bytes, &mut |v, b| {
            emit(ring.real(v), b)
        }),
        (Op::Scatter, Binomial) => binomial_scatter(ring.relative(r), p, bytes, &mut |v, b| {
            emit(ring.real(v), b)
        }),
        (Op::Gather | Op::Gatherv, _) => linear_gather(r, call.root, bytes, &mut emit),
        (Op::Scatter | Op::Scatterv, _) => linear_scatter(r, call.root, blocks, &mut emit),
        (Op::Allgather | Op::Allgatherv, RecursiveDoubling) => {
            recursive_doubling_allgather(r, p, blocks, &mut emit)
        }
        (Op::Allgather | Op::Allgatherv, Bruck) => bruck_allgather(r, p, blocks, &mut emit),
        (Op::Allgather | Op::Allgatherv, _) => {
            ring_allgather(r, p, &mut |rank| blocks.get(rank), &mut emit)
        }
        (Op::Alltoall, Bruck) => bruck_alltoall(r, p, bytes, &mut emit),
        (Op::Alltoall, Linear) => linear_alltoall(r, p, &mut |_| bytes, false, &mut emit),
        (Op::Alltoallv | Op::Alltoallw, Linear) => {
            linear_alltoall(r, p, &mut |dst| per_rank[dst as usize], true, &mut emit)
        }
        (Op::Alltoall, _) => pairwise_alltoall(r, p, &mut |_| bytes, &mut emit),
        (Op::Alltoallv | Op::Alltoallw, _) => {
            pairwise_alltoall(r, p, &mut |dst| per_rank[dst as usize], &mut emit)
        }
        (Op::Reduce, Binomial) => {
            binomial_reduce(r, p, call.root, bytes, call.commutative, &mut emit)
        }
        (Op::Reduce, _) => rabenseifner_reduce(r, p, call.root, bytes, &mut emit),
        (Op::Allreduce, Rabenseifner) => rabenseifner_allreduce(r, p, bytes, &mut emit),
        (Op::Allreduce, _) => recursive_doubling_allreduce(r, p, bytes, &mut emit),
        (Op::ReduceScatter | Op::ReduceScatterBlock, RecursiveHalving) => {
            recursive_halving_reduce_scatter(r, p, blocks, &mut emit)
        }
        (Op::ReduceScatter | Op::ReduceScatterBlock, PairwiseExchange) => {
            pairwise_reduce_scatter(r, p, blocks, &mut emit)
        }
        (Op::ReduceScatter | Op::ReduceScatterBlock, _) => {
            recursive_doubling_reduce_scatter(r, p, blocks, &mut emit)
        }
        (Op::Scan | Op::Exscan, _) => recursive_doubling_scan(r, p, bytes, &mut emit),
    }
}

/// Ranks renumbered so that the root is 0 (MPICH's "relative rank").
#[derive(Clone, Copy)]
struct Rooted {
    root: u32,
    p: u32,
}

impl Rooted {
    fn new(root: u32, p: u32) -> Self {
        Rooted { root, p }
    }

    /// The relative rank of `rank`.
    fn relative(self, rank: u32) -> u32 {
        ((u64::from(rank) + u64::from(self.p) - u64::from(self.root)) % u64::from(self.p)) as u32
    }

    /// The rank whose relative rank is `v`.
    fn real(self, v: u32) -> u32 {
        ((u64::from(v) + u64::from(self.root)) % u64::from(self.p)) as u32
    }
}

/// Block sizes indexed by (relative) rank, with sums over index ranges.
#[derive(Clone, Copy)]
enum Blocks<'a> {
    /// `count` blocks of `size` bytes.
    Uniform { size: u64, count: u32 },
    /// `total` bytes cut into `count` chunks of ⌈total/count⌉ bytes, the last ones
    /// shorter or empty (MPICH's bcast scatter).
    Chunked { total: u64, count: u32 },
    /// `total` bytes cut into `count` pieces, the first `total mod count` one byte
    /// longer than the others (MPICH's Rabenseifner pieces).
    Balanced { total: u64, count: u32 },
    /// One size per rank.
    PerRank(&'a [u64]),
}

impl Blocks<'_> {
    fn count(&self) -> u32 {
        match *self {
            Blocks::Uniform { count, .. }
            | Blocks::Chunked { count, .. }
            | Blocks::Balanced { count, .. } => count,
            Blocks::PerRank(a) => a.len() as u32,
        }
    }

    fn get(&self, i: u32) -> u64 {
        self.sum(i, i + 1)
    }

    /// The bytes of blocks `a..b` (clamped to the blocks that exist).
    fn sum(&self, a: u32, b: u32) -> u64 {
        let b = b.min(self.count());
        if a >= b {
            return 0;
        }
        let (a64, b64) = (u64::from(a), u64::from(b));
        match *self {
            Blocks::Uniform { size, .. } => size * (b64 - a64),
            Blocks::Chunked { total, count } => {
                let chunk = total.div_ceil(u64::from(count));
                (b64 * chunk).min(total) - (a64 * chunk).min(total)
            }
            Blocks::Balanced { total, count } => {
                let (base, longer) = (total / u64::from(count), total % u64::from(count));
                base * (b64 - a64) + b64.min(longer) - a64.min(longer)
            }
            Blocks::PerRank(sizes) => sizes[a as usize..b as usize].iter().sum(),
        }
    }

    /// The bytes of the `len` blocks from `start` on, wrapping around the end.
    fn wrapping_sum(&self, start: u32, len: u32) -> u64 {
        let count = self.count();
        let end = u64::from(start) + u64::from(len);
        if end <= u64::from(count) {
            self.sum(start, end as u32)
        } else {
            self.sum(start, count) + self.sum(0, (end - u64::from(count)) as u32)
        }
    }

    fn total(&self) -> u64 {
        self.sum(0, self.count())
    }
}

/// The lowest set bit of `v` (`v` > 0).
fn lowbit(v: u32) -> u32 {
    v & v.wrapping_neg()
}

/// The binomial-tree children of relative rank `v` among `p`, with the size of their
/// subtrees' mask, largest first: `v + m` for every power of two `m` below `v`'s
/// lowest set bit (below p for the root) with `v + m < p`.
fn for_each_child(v: u32, p: u32, mut f: impl FnMut(u32, u32)) {
    let mut mask = match v {
        // The largest power of two below p (written so that p > 2^31 cannot overflow).
        0 if p > 1 => 1 << (31 - (p - 1).leading_zeros()),
        0 => 0,
        _ => lowbit(v) / 2,
    };
    while mask > 0 {
        if let Some(child) = v.checked_add(mask).filter(|&c| c < p) {
            f(child, mask);
        }
        mask /= 2;
    }
}

#[cfg(test)]
mod tests;
