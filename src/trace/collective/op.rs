//! The collective operations of MPI, the algorithms that carry them out, and which
//! algorithm can carry out which operation.

use std::fmt;

/// One MPI collective operation.
///
/// The non-blocking (`MPI_Ibcast`, …) and persistent (`MPI_Bcast_init`, …) forms move
/// the same data as the blocking form and map to the same operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CollectiveOp {
    /// `MPI_Barrier`: synchronisation, no data.
    Barrier,
    /// `MPI_Bcast`: the root's message to every rank.
    Bcast,
    /// `MPI_Gather`: one equal block from every rank to the root.
    Gather,
    /// `MPI_Gatherv`: one block of its own size from every rank to the root.
    Gatherv,
    /// `MPI_Scatter`: one equal block from the root to every rank.
    Scatter,
    /// `MPI_Scatterv`: one block of its own size from the root to every rank.
    Scatterv,
    /// `MPI_Allgather`: every rank's equal block to every rank.
    Allgather,
    /// `MPI_Allgatherv`: every rank's block, of its own size, to every rank.
    Allgatherv,
    /// `MPI_Alltoall`: a distinct equal block from every rank to every rank.
    Alltoall,
    /// `MPI_Alltoallv`: a distinct block of its own size from every rank to every rank.
    Alltoallv,
    /// `MPI_Alltoallw`: as `Alltoallv` with one datatype per peer.
    Alltoallw,
    /// `MPI_Reduce`: the element-wise reduction of every rank's vector, at the root.
    Reduce,
    /// `MPI_Allreduce`: the reduction of every rank's vector, at every rank.
    Allreduce,
    /// `MPI_Reduce_scatter`: the reduction, scattered in blocks of given sizes.
    ReduceScatter,
    /// `MPI_Reduce_scatter_block`: the reduction, scattered in equal blocks.
    ReduceScatterBlock,
    /// `MPI_Scan`: the inclusive prefix reduction.
    Scan,
    /// `MPI_Exscan`: the exclusive prefix reduction.
    Exscan,
}

impl CollectiveOp {
    /// Every operation, in declaration order.
    pub const ALL: [CollectiveOp; 17] = [
        CollectiveOp::Barrier,
        CollectiveOp::Bcast,
        CollectiveOp::Gather,
        CollectiveOp::Gatherv,
        CollectiveOp::Scatter,
        CollectiveOp::Scatterv,
        CollectiveOp::Allgather,
        CollectiveOp::Allgatherv,
        CollectiveOp::Alltoall,
        CollectiveOp::Alltoallv,
        CollectiveOp::Alltoallw,
        CollectiveOp::Reduce,
        CollectiveOp::Allreduce,
        CollectiveOp::ReduceScatter,
        CollectiveOp::ReduceScatterBlock,
        CollectiveOp::Scan,
        CollectiveOp::Exscan,
    ];

    /// The short lower-case name used on the command line (`bcast`, `reduce_scatter`, …).
    pub fn name(self) -> &'static str {
        match self {
            CollectiveOp::Barrier => "barrier",
            CollectiveOp::Bcast => "bcast",
            CollectiveOp::Gather => "gather",
            CollectiveOp::Gatherv => "gatherv",
            CollectiveOp::Scatter => "scatter",
            CollectiveOp::Scatterv => "scatterv",
            CollectiveOp::Allgather => "allgather",
            CollectiveOp::Allgatherv => "allgatherv",
            CollectiveOp::Alltoall => "alltoall",
            CollectiveOp::Alltoallv => "alltoallv",
            CollectiveOp::Alltoallw => "alltoallw",
            CollectiveOp::Reduce => "reduce",
            CollectiveOp::Allreduce => "allreduce",
            CollectiveOp::ReduceScatter => "reduce_scatter",
            CollectiveOp::ReduceScatterBlock => "reduce_scatter_block",
            CollectiveOp::Scan => "scan",
            CollectiveOp::Exscan => "exscan",
        }
    }

    /// The operation with the short name `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<CollectiveOp> {
        CollectiveOp::ALL
            .into_iter()
            .find(|op| op.name().eq_ignore_ascii_case(name))
    }

    /// The operation an MPI function carries out, for its blocking, non-blocking and
    /// persistent forms: `MPI_Bcast`, `MPI_Ibcast` and `MPI_Bcast_init` all give
    /// [`CollectiveOp::Bcast`]. `None` for every other function.
    pub fn from_mpi_function(function: &str) -> Option<CollectiveOp> {
        let name = function.strip_prefix("MPI_")?;
        let name = name.strip_suffix("_init").unwrap_or(name);
        if let Some(op) = CollectiveOp::from_name(name) {
            return Some(op);
        }
        // Non-blocking forms prefix an `I` (`MPI_Ibarrier`, `MPI_Ireduce_scatter`);
        // no blocking collective's name starts with `I`, so stripping it is unambiguous.
        let blocking = name.strip_prefix('I')?;
        CollectiveOp::from_name(blocking)
    }

    /// Whether one rank (the root) sends or receives everything.
    pub fn is_rooted(self) -> bool {
        matches!(
            self,
            CollectiveOp::Bcast
                | CollectiveOp::Gather
                | CollectiveOp::Gatherv
                | CollectiveOp::Scatter
                | CollectiveOp::Scatterv
                | CollectiveOp::Reduce
        )
    }

    /// Whether the operation reduces data (and so costs compute, γ, and may depend on
    /// the operator being commutative).
    pub fn is_reduction(self) -> bool {
        matches!(
            self,
            CollectiveOp::Reduce
                | CollectiveOp::Allreduce
                | CollectiveOp::ReduceScatter
                | CollectiveOp::ReduceScatterBlock
                | CollectiveOp::Scan
                | CollectiveOp::Exscan
        )
    }

    /// The algorithms that can carry out this operation; the first is the one used
    /// when nothing else applies.
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Algorithm::*;
        match self {
            CollectiveOp::Barrier => &[Dissemination],
            CollectiveOp::Bcast => &[
                Binomial,
                ScatterRecursiveDoublingAllgather,
                ScatterRingAllgather,
            ],
            CollectiveOp::Gather | CollectiveOp::Scatter => &[Binomial, Linear],
            CollectiveOp::Gatherv | CollectiveOp::Scatterv => &[Linear],
            CollectiveOp::Allgather | CollectiveOp::Allgatherv => &[RecursiveDoubling, Bruck, Ring],
            CollectiveOp::Alltoall => &[Bruck, Linear, PairwiseExchange],
            CollectiveOp::Alltoallv | CollectiveOp::Alltoallw => &[Linear, PairwiseExchange],
            CollectiveOp::Reduce => &[Binomial, Rabenseifner],
            CollectiveOp::Allreduce => &[RecursiveDoubling, Rabenseifner],
            CollectiveOp::ReduceScatter | CollectiveOp::ReduceScatterBlock => {
                &[RecursiveHalving, PairwiseExchange, RecursiveDoubling]
            }
            CollectiveOp::Scan | CollectiveOp::Exscan => &[RecursiveDoubling],
        }
    }

    /// Whether `algorithm` can carry out this operation.
    pub fn supports(self, algorithm: Algorithm) -> bool {
        self.algorithms().contains(&algorithm)
    }
}

impl fmt::Display for CollectiveOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm that carries out a collective operation with point-to-point messages.
///
/// The schedule of each (its messages, per rank) is documented on the expansion
/// functions in [`super::expand`]; the module documentation of [`super`] says which
/// operation uses which algorithm when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// Binomial tree rooted at the root (bcast, reduce, gather, scatter).
    Binomial,
    /// Binomial scatter of the message, then a recursive-doubling allgather (bcast).
    ScatterRecursiveDoublingAllgather,
    /// Binomial scatter of the message, then a ring allgather (bcast).
    ScatterRingAllgather,
    /// Rabenseifner: recursive-halving reduce-scatter, then a binomial gather (reduce)
    /// or a recursive-doubling allgather (allreduce).
    Rabenseifner,
    /// Recursive doubling: partners at distance 1, 2, 4, … exchange (allreduce,
    /// allgather, reduce-scatter, scan).
    RecursiveDoubling,
    /// Recursive halving: partners at distance p/2, p/4, … exchange half of what
    /// remains (reduce-scatter).
    RecursiveHalving,
    /// Bruck: ⌈lg p⌉ steps with partners at distance 1, 2, 4, … (allgather, alltoall).
    Bruck,
    /// Ring: p − 1 steps, each rank forwarding to its right neighbour (allgather).
    Ring,
    /// Pairwise exchange: p − 1 steps, each with one partner (alltoall, reduce-scatter).
    PairwiseExchange,
    /// Linear: direct messages between the ranks concerned, all at once.
    Linear,
    /// Dissemination: ⌈lg p⌉ rounds, rank r signalling r + 2^k (barrier).
    Dissemination,
}

impl Algorithm {
    /// Every algorithm, in declaration order.
    pub const ALL: [Algorithm; 11] = [
        Algorithm::Binomial,
        Algorithm::ScatterRecursiveDoublingAllgather,
        Algorithm::ScatterRingAllgather,
        Algorithm::Rabenseifner,
        Algorithm::RecursiveDoubling,
        Algorithm::RecursiveHalving,
        Algorithm::Bruck,
        Algorithm::Ring,
        Algorithm::PairwiseExchange,
        Algorithm::Linear,
        Algorithm::Dissemination,
    ];

    /// The name used on the command line (`binomial`, `scatter_ring`, …).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Binomial => "binomial",
            Algorithm::ScatterRecursiveDoublingAllgather => "scatter_recursive_doubling",
            Algorithm::ScatterRingAllgather => "scatter_ring",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::RecursiveDoubling => "recursive_doubling",
            Algorithm::RecursiveHalving => "recursive_halving",
            Algorithm::Bruck => "bruck",
            Algorithm::Ring => "ring",
            Algorithm::PairwiseExchange => "pairwise",
            Algorithm::Linear => "linear",
            Algorithm::Dissemination => "dissemination",
        }
    }

    /// The algorithm named `name` (case-insensitive; `-` and `_` are the same).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        let same = |a: &str| {
            a.len() == name.len()
                && a.bytes().zip(name.bytes()).all(|(x, y)| {
                    let y = if y == b'-' { b'_' } else { y };
                    x == y.to_ascii_lowercase()
                })
        };
        Algorithm::ALL.into_iter().find(|alg| same(alg.name()))
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for op in CollectiveOp::ALL {
            assert_eq!(CollectiveOp::from_name(op.name()), Some(op));
            assert!(!op.algorithms().is_empty(), "{op}");
        }
        for alg in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(alg.name()), Some(alg));
            assert!(
                CollectiveOp::ALL.iter().any(|op| op.supports(alg)),
                "{alg} serves no operation"
            );
        }
        assert_eq!(
            Algorithm::from_name("Recursive-Doubling"),
            Some(Algorithm::RecursiveDoubling)
        );
        assert_eq!(Algorithm::from_name("recursive"), None);
    }

    #[test]
    fn mpi_function_names_map_every_form() {
        let cases = [
            ("MPI_Barrier", CollectiveOp::Barrier),
            ("MPI_Ibarrier", CollectiveOp::Barrier),
            ("MPI_Bcast", CollectiveOp::Bcast),
            ("MPI_Ibcast", CollectiveOp::Bcast),
            ("MPI_Bcast_init", CollectiveOp::Bcast),
            ("MPI_Igatherv", CollectiveOp::Gatherv),
            ("MPI_Ialltoallw", CollectiveOp::Alltoallw),
            ("MPI_Reduce_scatter", CollectiveOp::ReduceScatter),
            (
                "MPI_Ireduce_scatter_block",
                CollectiveOp::ReduceScatterBlock,
            ),
            (
                "MPI_Reduce_scatter_block_init",
                CollectiveOp::ReduceScatterBlock,
            ),
            ("MPI_Iexscan", CollectiveOp::Exscan),
        ];
        for (name, op) in cases {
            assert_eq!(CollectiveOp::from_mpi_function(name), Some(op), "{name}");
        }
        for other in [
            "MPI_Send",
            "MPI_Isend",
            "Bcast",
            "MPI_Init",
            "MPI_Iprobe",
            "MPI_I",
        ] {
            assert_eq!(CollectiveOp::from_mpi_function(other), None, "{other}");
        }
    }
}
