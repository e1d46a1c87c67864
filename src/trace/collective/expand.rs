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

/// Dissemination barrier: in round k = 0, 1, … while 2^k < p, rank r sends 0 bytes to
/// (r + 2^k) mod p. ⌈lg p⌉ messages per rank, each rank alike.
fn dissemination(r: u32, p: u32, emit: &mut impl FnMut(u32, u64)) {
    let mut distance = 1u32;
    while distance < p {
        emit(
            ((u64::from(r) + u64::from(distance)) % u64::from(p)) as u32,
            0,
        );
        distance = distance.saturating_mul(2);
    }
}

/// Binomial bcast of `n` bytes, relative ranks (root 0): rank v sends the whole message
/// to each of its children v + m (m = powers of two below v's lowest set bit, largest
/// first; below p for the root). The root sends ⌈lg p⌉ messages, leaves none; p − 1
/// messages of n bytes in all.
fn binomial_bcast(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    for_each_child(v, p, |child, _| emit(child, n));
}

/// Binomial scatter of the message in chunks (MPICH's bcast scatter phase), relative
/// ranks: chunk i is bytes [i·c, (i+1)·c) of the message, c = ⌈n/p⌉. Rank v sends each
/// child v + m the chunks of the child's subtree, [v + m, v + 2m), unless they are all
/// empty. Bytes sent in all: Σ over non-root ranks of their subtree's chunks.
fn binomial_chunk_scatter(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let chunks = Blocks::Chunked { total: n, count: p };
    for_each_child(v, p, |child, mask| {
        let bytes = chunks.sum(child, child.saturating_add(mask));
        if bytes > 0 {
            emit(child, bytes);
        }
    });
}

/// Bcast as binomial scatter of ⌈n/p⌉-byte chunks ([`binomial_chunk_scatter`]) then a
/// recursive-doubling allgather of the chunks ([`recursive_doubling_exchange`]; each
/// rank sends the chunks its group holds, ⌈lg p⌉ exchanges plus forwarding when p is
/// not a power of two). Relative ranks. For p a power of two and n a multiple of p the
/// root sends 2·lg p messages.
fn scatter_recursive_doubling_bcast(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    binomial_chunk_scatter(v, p, n, emit);
    let chunks = Blocks::Chunked { total: n, count: p };
    recursive_doubling_exchange(
        v,
        p,
        |my_root, mask| chunks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| chunks.sum(my_root.saturating_add(mask), p),
        emit,
    );
}

/// Bcast as binomial scatter of ⌈n/p⌉-byte chunks ([`binomial_chunk_scatter`]) then a
/// ring allgather of the chunks: in step i = 1 … p − 1 rank v sends chunk (v − i + 1)
/// mod p to v + 1. Relative ranks (the ring runs in relative order). The root sends
/// ⌈lg p⌉ + p − 1 messages when all its chunks are non-empty.
fn scatter_ring_bcast(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    binomial_chunk_scatter(v, p, n, emit);
    let chunks = Blocks::Chunked { total: n, count: p };
    ring_allgather(v, p, &mut |i| chunks.get(i), emit);
}

/// Binomial gather of blocks of `block` bytes, relative ranks: every non-root rank v
/// sends once, to its parent v − m (m its lowest set bit), the blocks of its subtree,
/// min(m, p − v) blocks. The root receives ⌈lg p⌉ messages; p − 1 messages in all.
fn binomial_gather(v: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    if v != 0 {
        let m = lowbit(v);
        emit(v - m, u64::from(m.min(p - v)) * block);
    }
}

/// Binomial scatter of blocks of `block` bytes, relative ranks: rank v sends each child
/// v + m (largest m first) the blocks of the child's subtree, min(m, p − v − m) blocks.
/// The root sends ⌈lg p⌉ messages; p − 1 messages in all.
fn binomial_scatter(v: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    for_each_child(v, p, |child, mask| {
        emit(child, u64::from(mask.min(p - child)) * block)
    });
}

/// Linear gather(v): every non-root rank sends its own block to the root (nothing when
/// the block is empty). The root receives p − 1 messages.
fn linear_gather(r: u32, root: u32, own: u64, emit: &mut impl FnMut(u32, u64)) {
    if r != root && own > 0 {
        emit(root, own);
    }
}

/// Linear scatter(v): the root sends rank i its block, i = 0 … p − 1 except itself,
/// skipping empty blocks. p − 1 messages, all from the root.
fn linear_scatter(r: u32, root: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    if r != root {
        return;
    }
    for i in (0..blocks.count()).filter(|&i| i != root) {
        let bytes = blocks.get(i);
        if bytes > 0 {
            emit(i, bytes);
        }
    }
}

/// Recursive doubling among ranks 0 … p − 1 with MPICH's non-power-of-two forwarding.
///
/// In step i (mask = 2^i, while mask < p) rank v belongs to the group of `mask` ranks
/// starting at `my_root` = v with its low i bits cleared, and exchanges with v ^ mask
/// when that rank exists, sending `main(my_root, mask)` bytes. When v ^ mask's group
/// reaches past p, the ranks of v's group that had a partner pass what they received
/// on to those that had none, along a binomial tree inside the group (partners
/// v ^ mask/2, v ^ mask/4, …): each such message carries `forward(my_root, mask)`
/// bytes. For p a power of two: lg p messages per rank, no forwarding.
fn recursive_doubling_exchange(
    v: u32,
    p: u32,
    main: impl Fn(u32, u32) -> u64,
    forward: impl Fn(u32, u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (v64, p64) = (u64::from(v), u64::from(p));
    let mut mask = 1u64;
    while mask < p64 {
        let dst = v64 ^ mask;
        let my_root = v64 & !(mask - 1);
        let dst_root = dst & !(mask - 1);
        if dst < p64 {
            emit(dst as u32, main(my_root as u32, mask as u32));
        }
        if dst_root + mask > p64 {
            // The ranks of v's group (from its start) that exchanged in this step.
            let done = p64 as i64 - (my_root + mask) as i64;
            let mut sub = mask / 2;
            while sub > 0 {
                let peer = v64 ^ sub;
                let tree_root = (v64 & !(2 * sub - 1)) as i64;
                let (v_has, peer_has) = (
                    (v64 as i64) < tree_root + done,
                    (peer as i64) < tree_root + done,
                );
                if peer > v64 && v_has && !peer_has {
                    emit(peer as u32, forward(my_root as u32, mask as u32));
                }
                sub /= 2;
            }
        }
        mask *= 2;
    }
}

/// Recursive-doubling allgather(v): in step i rank r sends the blocks of its group of
/// 2^i ranks to r ^ 2^i (see [`recursive_doubling_exchange`]; forwarded messages carry
/// the blocks of the partner group, from its start to p − 1). For p a power of two:
/// lg p messages per rank, n(p − 1)/p bytes for equal blocks.
fn recursive_doubling_allgather(r: u32, p: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    recursive_doubling_exchange(
        r,
        p,
        |my_root, mask| blocks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| blocks.sum(my_root.saturating_add(mask), p),
        emit,
    );
}

/// Bruck allgather(v): while 2^k ≤ p/2, rank r sends the 2^k blocks it holds, those of
/// ranks r … r + 2^k − 1 (mod p), to r − 2^k; then, if p is not a power of two, the
/// first p − 2^⌊lg p⌋ of them to r − 2^⌊lg p⌋. ⌈lg p⌉ messages per rank, p − 1 blocks.
fn bruck_allgather(r: u32, p: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    let left =
        |distance: u32| ((u64::from(r) + u64::from(p) - u64::from(distance)) % u64::from(p)) as u32;
    let mut held = 1u32;
    while held <= p / 2 {
        emit(left(held), blocks.wrapping_sum(r, held));
        held *= 2;
    }
    let rest = p - held;
    if rest > 0 {
        emit(left(held), blocks.wrapping_sum(r, rest));
    }
}

/// Ring allgather(v): in step i = 1 … p − 1 rank r sends block (r − i + 1) mod p, the one
/// it received last (its own first), to r + 1. p − 1 messages per rank.
fn ring_allgather(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let right = ((r64 + 1) % p64) as u32;
    for step in 1..p64 {
        let owner = ((r64 + p64 + 1 - step) % p64) as u32;
        emit(right, block(owner));
    }
}

/// Bruck alltoall with blocks of `block` bytes: in step k (2^k < p) rank r sends to
/// r + 2^k the blocks whose index (distance to their destination) has bit k set.
/// ⌈lg p⌉ messages per rank; p/2 blocks each when p is a power of two.
fn bruck_alltoall(r: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let mut bit = 1u64;
    while bit < p64 {
        // Indices 1 … p − 1 with this bit set: whole periods of 2·bit, then the tail.
        let period = 2 * bit;
        let count = (p64 / period) * bit + (p64 % period).saturating_sub(bit);
        emit(((r64 + bit) % p64) as u32, count * block);
        bit *= 2;
    }
}

/// Linear alltoall(v/w) (MPICH's "scattered"): rank r sends each other rank its block,
/// in the order r + 1, r + 2, … (mod p); with `skip_empty`, empty blocks are not sent.
/// p − 1 messages per rank for non-empty blocks.
fn linear_alltoall(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    skip_empty: bool,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = ((r64 + step) % p64) as u32;
        let bytes = block(dst);
        if bytes > 0 || !skip_empty {
            emit(dst, bytes);
        }
    }
}

/// Pairwise-exchange alltoall(v/w): in step i = 1 … p − 1 rank r sends its block for
/// r ^ i when p is a power of two, else for (r + i) mod p. Exactly one message to every
/// other rank, p − 1 per rank.
fn pairwise_alltoall(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = if p.is_power_of_two() {
            (r64 ^ step) as u32
        } else {
            ((r64 + step) % p64) as u32
        };
        emit(dst, block(dst));
    }
}

/// Binomial reduce of an `n`-byte vector: every rank but the tree's root sends its
/// partial result, n bytes, once, to its parent (relative rank v − lowest set bit of
/// v). The tree is rooted at the root for a commutative operator; otherwise at rank 0,
/// which then sends the result to the root (MPICH keeps the operand order that way).
/// The root receives ⌈lg p⌉ messages.
fn binomial_reduce(
    r: u32,
    p: u32,
    root: u32,
    n: u64,
    commutative: bool,
    emit: &mut impl FnMut(u32, u64),
) {
    let tree = Rooted::new(if commutative { root } else { 0 }, p);
    let v = tree.relative(r);
    if v != 0 {
        emit(tree.real(v - lowbit(v)), n);
    } else if r != root {
        emit(root, n);
    }
}

/// The fold of a communicator onto its largest power of two, pof2 = 2^⌊lg p⌋ (MPICH's
/// non-power-of-two step): the first 2·rem ranks (rem = p − pof2) pair up, one of each
/// pair hands its data to the other and sits out; the others are renumbered 0 … pof2 − 1.
#[derive(Clone, Copy)]
struct Fold {
    pof2: u32,
    rem: u32,
    /// Whether the odd rank of each pair stays in (allreduce, reduce-scatter) or the
    /// even one (reduce).
    odd_stays: bool,
}

impl Fold {
    fn new(p: u32, odd_stays: bool) -> Self {
        let pof2 = pof2_floor(p);
        Fold {
            pof2,
            rem: p - pof2,
            odd_stays,
        }
    }

    /// The rank `r` hands its data to, if it sits out.
    fn partner_if_out(self, r: u32) -> Option<u32> {
        if r >= 2 * self.rem || (r % 2 == 1) == self.odd_stays {
            return None;
        }
        Some(if self.odd_stays { r + 1 } else { r - 1 })
    }

    /// The new rank of `r`, if it stays in.
    fn new_rank(self, r: u32) -> Option<u32> {
        if r >= 2 * self.rem {
            Some(r - self.rem)
        } else if (r % 2 == 1) == self.odd_stays {
            Some(r / 2)
        } else {
            None
        }
    }

    /// The rank that plays new rank `nr`.
    fn real(self, nr: u32) -> u32 {
        if nr < self.rem {
            2 * nr + u32::from(self.odd_stays)
        } else {
            nr + self.rem
        }
    }
}

/// Recursive-doubling allreduce of an `n`-byte vector: the fold of [`Fold`] (each even
/// rank below 2·rem sends n to its odd neighbour), then, in step i, new rank nr sends n
/// to nr ^ 2^i (lg pof2 steps), then each odd rank below 2·rem sends the result, n, back
/// to its even neighbour. lg p messages per rank for p a power of two.
fn recursive_doubling_allreduce(r: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    let mut mask = 1;
    while mask < fold.pof2 {
        emit(fold.real(nr ^ mask), n);
        mask *= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, n);
    }
}

/// A range of Rabenseifner pieces, `lo..hi`, held by one rank.
#[derive(Clone, Copy)]
struct Pieces {
    lo: u32,
    hi: u32,
}

/// The reduce-scatter half of Rabenseifner among new ranks (distance 1, 2, 4, … and
/// halves of the pieces): in the step with mask m, new rank nr keeps the lower half of
/// its pieces if nr < nr ^ m, else the upper half, and sends the other half to
/// nr ^ m. Returns the piece it ends with.
fn halving_exchange(
    nr: u32,
    fold: Fold,
    pieces: Blocks,
    emit: &mut impl FnMut(u32, u64),
) -> Pieces {
    let mut held = Pieces {
        lo: 0,
        hi: fold.pof2,
    };
    let mut mask = 1;
    while mask < fold.pof2 {
        let partner = nr ^ mask;
        let mid = held.lo + (held.hi - held.lo) / 2;
        let (keep, send) = if nr < partner {
            (
                Pieces {
                    lo: held.lo,
                    hi: mid,
                },
                Pieces {
                    lo: mid,
                    hi: held.hi,
                },
            )
        } else {
            (
                Pieces {
                    lo: mid,
                    hi: held.hi,
                },
                Pieces {
                    lo: held.lo,
                    hi: mid,
                },
            )
        };
        emit(fold.real(partner), pieces.sum(send.lo, send.hi));
        held = keep;
        mask *= 2;
    }
    held
}

/// The pieces held after undoing the halving step with mask `mask` when `nr`'s partner
/// holds the adjacent range of the same size.
fn merge(held: Pieces, nr: u32, mask: u32) -> Pieces {
    let size = held.hi - held.lo;
    if nr < nr ^ mask {
        Pieces {
            lo: held.lo,
            hi: held.hi + size,
        }
    } else {
        Pieces {
            lo: held.lo - size,
            hi: held.hi,
        }
    }
}

/// Rabenseifner allreduce of an `n`-byte vector cut into pof2 pieces: the fold of
/// [`Fold`] (even ranks below 2·rem send n to their odd neighbour), a recursive-halving
/// reduce-scatter ([`halving_exchange`]: lg pof2 messages, n − piece bytes), a
/// recursive-doubling allgather of the pieces in the reverse order (partners at
/// distance pof2/2, …, 1; each rank sends all it holds), then odd ranks below 2·rem
/// send n back. 2·lg p messages per rank for p a power of two.
fn rabenseifner_allreduce(r: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    let pieces = Blocks::Balanced {
        total: n,
        count: fold.pof2,
    };
    let mut held = halving_exchange(nr, fold, pieces, emit);
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        emit(fold.real(nr ^ mask), pieces.sum(held.lo, held.hi));
        held = merge(held, nr, mask);
        mask /= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, n);
    }
}

/// Rabenseifner reduce of an `n`-byte vector cut into pof2 pieces: the fold of [`Fold`]
/// with the even rank of each pair staying (odd ranks below 2·rem send n to r − 1), the
/// recursive-halving reduce-scatter of [`halving_exchange`], then a binomial gather of
/// the pieces to the root (partners at distance pof2/2, …, 1; a rank whose partner is
/// on the root's side sends it everything it holds and stops). When the root sat out
/// of the fold, new rank 0 first sends it its piece and the root plays new rank 0.
/// 2·lg p messages on the root's path for p a power of two (lg p sent, lg p received).
fn rabenseifner_reduce(r: u32, p: u32, root: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let fold = Fold::new(p, false);
    let pieces = Blocks::Balanced {
        total: n,
        count: fold.pof2,
    };
    let root_sat_out = fold.new_rank(root).is_none();
    let new_root = fold.new_rank(root).unwrap_or(0);
    let mut nr = fold.new_rank(r);
    let mut held = Pieces { lo: 0, hi: 1 };
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
    }
    if let Some(nr) = nr {
        held = halving_exchange(nr, fold, pieces, emit);
    }
    if root_sat_out {
        if r == root {
            nr = Some(0);
        } else if nr == Some(0) {
            emit(root, pieces.get(0));
            nr = None;
        }
    }
    let Some(nr) = nr else { return };
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        let partner = nr ^ mask;
        let dst = if partner == 0 && root_sat_out {
            root
        } else {
            fold.real(partner)
        };
        if partner / mask == new_root / mask {
            emit(dst, pieces.sum(held.lo, held.hi));
            return;
        }
        held = merge(held, nr, mask);
        mask /= 2;
    }
}

/// Recursive-halving reduce-scatter with the fold of [`Fold`] (even ranks below 2·rem
/// send the whole vector to their odd neighbour, which then also computes its
/// neighbour's block): in the step with mask m = pof2/2, …, 1, new rank nr sends to
/// nr ^ m the blocks of the half of its range that nr ^ m keeps; at the end odd ranks
/// below 2·rem send their even neighbour its block. lg p messages per rank, n(p − 1)/p
/// bytes for equal blocks, when p is a power of two.
fn recursive_halving_reduce_scatter(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, blocks.total());
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    // New rank i computes the blocks of ranks start(i) … start(i + 1) − 1.
    let start = |i: u32| if i < fold.rem { 2 * i } else { i + fold.rem };
    let (mut lo, mut hi) = (0, fold.pof2);
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        let mid = lo + mask;
        let (keep, send) = if nr < (nr ^ mask) {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        emit(
            fold.real(nr ^ mask),
            blocks.sum(start(send.0), start(send.1)),
        );
        (lo, hi) = keep;
        mask /= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, blocks.get(r - 1));
    }
}

/// Pairwise-exchange reduce-scatter: in step i = 1 … p − 1 rank r sends rank
/// (r + i) mod p that rank's block of r's vector. p − 1 messages per rank.
fn pairwise_reduce_scatter(r: u32, p: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = ((r64 + step) % p64) as u32;
        emit(dst, blocks.get(dst));
    }
}

/// Recursive-doubling reduce-scatter (MPICH's choice for non-commutative operators):
/// in step i rank r sends r ^ 2^i every block except those of its own group of 2^i
/// ranks (see [`recursive_doubling_exchange`]; forwarded messages carry every block
/// except those of the partner group). For p a power of two: lg p messages per rank,
/// n(lg p − (p − 1)/p) bytes for equal blocks.
fn recursive_doubling_reduce_scatter(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    let total = blocks.total();
    recursive_doubling_exchange(
        r,
        p,
        |my_root, mask| total - blocks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| {
            let dst_root = my_root.saturating_add(mask);
            total - blocks.sum(dst_root, dst_root.saturating_add(mask))
        },
        emit,
    );
}

/// Recursive-doubling scan and exscan of an `n`-byte vector: in step i rank r sends its
/// partial result, n bytes, to r ^ 2^i when that rank exists. ⌈lg p⌉ messages or fewer
/// per rank (lg p for p a power of two).
fn recursive_doubling_scan(r: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let mut mask = 1u64;
    while mask < p64 {
        let dst = r64 ^ mask;
        if dst < p64 {
            emit(dst as u32, n);
        }
        mask *= 2;
    }
}

#[cfg(test)]
mod tests;
