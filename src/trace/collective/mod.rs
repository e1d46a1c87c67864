//! Collective operations as point-to-point messages, and their Hockney costs.
//!
//! A trace records one call per rank for each collective; this module turns one rank's
//! call into the messages that rank sends ([`RankCall::expand`]), picks the algorithm
//! the way MPICH does or as the user forces it ([`choose`], [`AlgorithmChoice`]), and
//! gives the Hockney time of the whole collective split into its latency, bandwidth
//! and compute parts ([`cost`]). The algorithms and thresholds are MPICH's (Thakur,
//! Rabenseifner and Gropp, "Optimization of Collective Communication Operations in
//! MPICH", IJHPCA 19(1), 2005, and MPICH's `src/mpi/coll`); [`expand`] describes each
//! algorithm's messages.
//!
//! # Operations, algorithms, and when MPICH uses them
//!
//! p ranks, lg = log₂ (⌈lg p⌉ when p is not a power of two), "pow2" = p is a power of
//! two, α per message, β per byte, γ per byte reduced. "Commutative" stands for MPICH's
//! condition on the operator (a predefined one for Rabenseifner).
//!
//! | operation | algorithm | MPICH uses it when | cost | n |
//! |---|---|---|---|---|
//! | barrier | dissemination | always | lg p·α | — |
//! | bcast | binomial | n < 12 KiB or p < 8 | lg p(α + nβ) | message |
//! | bcast | scatter_recursive_doubling | 12 KiB ≤ n < 512 KiB, pow2 | 2 lg p·α + 2((p−1)/p)nβ | message |
//! | bcast | scatter_ring | otherwise | (lg p + p − 1)α + 2((p−1)/p)nβ | message |
//! | gather, scatter | binomial | always | lg p·α + ((p−1)/p)nβ | all blocks |
//! | gather, scatter | linear | never (forced only) | (p − 1)α + ((p−1)/p)nβ | all blocks |
//! | gatherv, scatterv | linear | always | (p − 1)α + ((p−1)/p)nβ | all blocks |
//! | allgather(v) | recursive_doubling | total < 512 KiB, pow2 | lg p·α + ((p−1)/p)nβ | all blocks |
//! | allgather(v) | bruck | total < 80 KiB, not pow2 | lg p·α + ((p−1)/p)nβ | all blocks |
//! | allgather(v) | ring | otherwise | (p − 1)α + ((p−1)/p)nβ | all blocks |
//! | alltoall | bruck | block ≤ 256 B and p ≥ 8 | lg p·α + (n/2)lg p·β | sent to others |
//! | alltoall | linear | block ≤ 32 KiB otherwise | (p − 1)α + nβ | sent to others |
//! | alltoall | pairwise | block > 32 KiB | (p − 1)α + nβ | sent to others |
//! | alltoallv, alltoallw | linear | always | (p − 1)α + nβ | sent to others |
//! | alltoallv, alltoallw | pairwise | never (forced only) | (p − 1)α + nβ | sent to others |
//! | reduce | binomial | n ≤ 2 KiB, or not commutative, or n < 2^⌊lg p⌋ | lg p(α + nβ + nγ) | vector |
//! | reduce | rabenseifner | otherwise | 2 lg p·α + 2((p−1)/p)nβ + ((p−1)/p)nγ | vector |
//! | allreduce | recursive_doubling | n ≤ 2 KiB, or not commutative, or n < 2^⌊lg p⌋ | lg p(α + nβ + nγ) | vector |
//! | allreduce | rabenseifner | otherwise, pow2 | 2 lg p·α + 2((p−1)/p)nβ + ((p−1)/p)nγ | vector |
//! | allreduce | rabenseifner | otherwise, not pow2 | (2⌊lg p⌋ + 2)α + (2(p−1)/p + 2)nβ + (1 + (p−1)/p)nγ | vector |
//! | reduce_scatter(_block) | recursive_halving | commutative, n < 512 KiB | lg p·α + ((p−1)/p)n(β + γ) | vector |
//! | reduce_scatter(_block) | pairwise | commutative, n ≥ 512 KiB | (p − 1)α + ((p−1)/p)n(β + γ) | vector |
//! | reduce_scatter(_block) | recursive_doubling | not commutative | lg p·α + n(lg p − (p−1)/p)(β + γ) | vector |
//! | scan, exscan | recursive_doubling | always | lg p(α + nβ + nγ) | vector |
//!
//! The cost expressions are those of the paper and of MPICH's comments. Where orcs
//! goes beyond them:
//! * MPICH's alltoall uses its "scattered" algorithm (every message posted at once,
//!   here `linear`) for medium blocks and for every alltoallv/alltoallw; it sends the
//!   same messages as the pairwise exchange and gets the same cost.
//! * Scan and exscan are not in the paper; their cost follows from their schedule (lg p
//!   steps, each sending and reducing the vector).
//! * Reduce with Rabenseifner uses the power-of-two expression with ⌈lg p⌉ for every
//!   p; MPICH's comment gives (2⌊lg p⌋ + 1)α + (2(p−1)/p + 1)nβ + (1 + (p−1)/p)nγ when
//!   the root stays in the power-of-two part.
//! * MPICH runs its special non-commutative reduce-scatter for pow2 p with equal
//!   blocks; orcs uses recursive doubling for every non-commutative reduce-scatter.
//!
//! # Messages versus the α count
//!
//! The α coefficient counts messages on the critical path; the expansion lists every
//! message each rank sends. They agree as follows (checked by the tests): the root
//! sends lg p (binomial bcast, binomial scatter), receives lg p (binomial gather,
//! commutative binomial reduce) or p − 1 (linear gather, gatherv); every rank sends lg p
//! (dissemination, and for pow2 recursive doubling, recursive halving, Bruck), p − 1
//! (ring, pairwise, linear alltoall with non-empty blocks) or 2 lg p (Rabenseifner
//! allreduce, pow2). They differ where the critical path is not one rank's sends:
//! Rabenseifner reduce (the root sends lg p in the reduce-scatter and receives lg p in
//! the gather), the scatter-based bcasts (the scatter part skips empty chunks, so the
//! root sends fewer than lg p scatter messages when n is small), and recursive doubling
//! on p not a power of two (allreduce folds onto 2^⌊lg p⌋ ranks: ⌊lg p⌋ + 2 messages on
//! the critical path, not ⌈lg p⌉; allgather and reduce-scatter forward data inside
//! groups, so some ranks send more than ⌈lg p⌉ messages).
//!
//! # Choosing
//!
//! [`choose`] is MPICH's automatic choice; [`AlgorithmChoice`] forces one algorithm per
//! operation (`bcast=binomial,allreduce=rabenseifner`) and falls back to MPICH's choice
//! where the forced algorithm cannot run (Rabenseifner for a non-commutative operator
//! or a vector shorter than 2^⌊lg p⌋ bytes; recursive halving for a non-commutative
//! operator), as MPICH does.

mod cost;
pub mod expand;
mod op;
mod select;

pub use cost::{cost, point_to_point, Cost};
pub use expand::{CallData, RankCall};
pub use op::{Algorithm, CollectiveOp};
pub use select::{
    choose, AlgorithmChoice, ALLGATHER_LONG_MSG, ALLGATHER_SHORT_MSG, ALLREDUCE_SHORT_MSG,
    ALLTOALL_MEDIUM_MSG, ALLTOALL_MIN_PROCS, ALLTOALL_SHORT_MSG, BCAST_LONG_MSG, BCAST_MIN_PROCS,
    BCAST_SHORT_MSG, REDUCE_SCATTER_LONG_MSG, REDUCE_SHORT_MSG,
};

/// Why a collective cannot be expanded, costed or chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CollectiveError {
    /// An `OP=ALGORITHM,…` list could not be read.
    #[error("collective algorithms '{spec}', column {column}: {message}")]
    InvalidChoice {
        /// The list as given.
        spec: String,
        /// The 1-based column (in characters) of the offending item.
        column: u32,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The operation cannot use the algorithm.
    #[error("{op} cannot use the {algorithm} algorithm (it can use: {})", select::names(.op.algorithms()))]
    AlgorithmNotForOp {
        /// The operation.
        op: CollectiveOp,
        /// The algorithm asked for.
        algorithm: Algorithm,
    },
    /// The communicator has no ranks.
    #[error("{op} on a communicator with no ranks")]
    EmptyCommunicator {
        /// The operation.
        op: CollectiveOp,
    },
    /// The rank or the root is not in the communicator.
    #[error("{op}: {what} {rank} is not in a communicator of {size} ranks")]
    RankOutOfRange {
        /// The operation.
        op: CollectiveOp,
        /// `rank` or `root`.
        what: &'static str,
        /// The rank given.
        rank: u32,
        /// The communicator's size.
        size: u32,
    },
    /// A per-rank array does not have one entry per rank.
    #[error("{op}: {got} counts for a communicator of {expected} ranks")]
    CountsLength {
        /// The operation.
        op: CollectiveOp,
        /// The communicator's size.
        expected: u32,
        /// The number of counts given.
        got: usize,
    },
    /// The data is not of the shape the operation takes.
    #[error("{op} takes {expected} in bytes")]
    DataShape {
        /// The operation.
        op: CollectiveOp,
        /// What it takes.
        expected: &'static str,
    },
    /// The sizes add up to more than 2^64 − 1 bytes.
    #[error("{op}: the sizes add up to more than 2^64 - 1 bytes")]
    TooLarge {
        /// The operation.
        op: CollectiveOp,
    },
}
