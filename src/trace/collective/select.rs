//! Which algorithm a collective uses: MPICH's choice by message size and process count,
//! or one algorithm per operation forced by the user.

use super::op::{Algorithm, CollectiveOp};
use super::CollectiveError;

/// MPICH's `MPIR_CVAR_BCAST_SHORT_MSG_SIZE`: shorter broadcasts use the binomial tree.
pub const BCAST_SHORT_MSG: u64 = 12_288;
/// MPICH's `MPIR_CVAR_BCAST_LONG_MSG_SIZE`: longer broadcasts use scatter + ring.
pub const BCAST_LONG_MSG: u64 = 524_288;
/// MPICH's `MPIR_CVAR_BCAST_MIN_PROCS`: smaller communicators always use the binomial tree.
pub const BCAST_MIN_PROCS: u32 = 8;
/// MPICH's `MPIR_CVAR_REDUCE_SHORT_MSG_SIZE`: vectors up to this size reduce binomially.
pub const REDUCE_SHORT_MSG: u64 = 2_048;
/// MPICH's `MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE`: vectors up to this size use recursive
/// doubling.
pub const ALLREDUCE_SHORT_MSG: u64 = 2_048;
/// MPICH's `MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE`: below this total, a communicator whose
/// size is not a power of two uses Bruck.
pub const ALLGATHER_SHORT_MSG: u64 = 81_920;
/// MPICH's `MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE`: below this total, a power-of-two
/// communicator uses recursive doubling.
pub const ALLGATHER_LONG_MSG: u64 = 524_288;
/// MPICH's `MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE`: blocks up to this size use Bruck (with
/// at least [`ALLTOALL_MIN_PROCS`] ranks).
pub const ALLTOALL_SHORT_MSG: u64 = 256;
/// MPICH's `MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE`: blocks up to this size use the linear
/// (all at once) algorithm, longer ones the pairwise exchange.
pub const ALLTOALL_MEDIUM_MSG: u64 = 32_768;
/// The smallest communicator for which MPICH's alltoall uses Bruck.
pub const ALLTOALL_MIN_PROCS: u32 = 8;
/// MPICH's `MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE`: from this total on, a
/// commutative reduce-scatter uses the pairwise exchange.
pub const REDUCE_SCATTER_LONG_MSG: u64 = 524_288;

/// The largest power of two ≤ `p` (`p` ≥ 1).
pub(crate) fn pof2_floor(p: u32) -> u32 {
    1 << (31 - p.max(1).leading_zeros())
}

/// The algorithm MPICH uses for `op` on `p` ranks.
///
/// `bytes` is the size MPICH compares with its thresholds, which depends on the
/// operation (as [`RankCall::selection_bytes`](super::RankCall::selection_bytes)
/// computes it from one rank's record):
///
/// | operation | `bytes` |
/// |---|---|
/// | bcast | the message |
/// | reduce, allreduce, scan, exscan | the vector |
/// | allgather, allgatherv | the total gathered by each rank |
/// | alltoall | one block (what a rank sends to one peer) |
/// | reduce_scatter, reduce_scatter_block | the whole vector (sum of the blocks) |
/// | others | unused |
///
/// `commutative` is whether the reduction operator is one MPICH's fast algorithms
/// accept: a predefined operator (MPICH uses Rabenseifner only for those), or a
/// commutative user operator for reduce-scatter. It is ignored for operations that do
/// not reduce.
pub fn choose(op: CollectiveOp, p: u32, bytes: u64, commutative: bool) -> Algorithm {
    let pow2 = p.is_power_of_two();
    let pof2 = u64::from(pof2_floor(p));
    match op {
        CollectiveOp::Barrier => Algorithm::Dissemination,
        CollectiveOp::Bcast if bytes < BCAST_SHORT_MSG || p < BCAST_MIN_PROCS => {
            Algorithm::Binomial
        }
        CollectiveOp::Bcast if bytes < BCAST_LONG_MSG && pow2 => {
            Algorithm::ScatterRecursiveDoublingAllgather
        }
        CollectiveOp::Bcast => Algorithm::ScatterRingAllgather,
        CollectiveOp::Gather | CollectiveOp::Scatter => Algorithm::Binomial,
        CollectiveOp::Gatherv | CollectiveOp::Scatterv => Algorithm::Linear,
        CollectiveOp::Allgather | CollectiveOp::Allgatherv => {
            if bytes < ALLGATHER_LONG_MSG && pow2 {
                Algorithm::RecursiveDoubling
            } else if bytes < ALLGATHER_SHORT_MSG {
                Algorithm::Bruck
            } else {
                Algorithm::Ring
            }
        }
        CollectiveOp::Alltoall => {
            if bytes <= ALLTOALL_SHORT_MSG && p >= ALLTOALL_MIN_PROCS {
                Algorithm::Bruck
            } else if bytes <= ALLTOALL_MEDIUM_MSG {
                Algorithm::Linear
            } else {
                Algorithm::PairwiseExchange
            }
        }
        CollectiveOp::Alltoallv | CollectiveOp::Alltoallw => Algorithm::Linear,
        CollectiveOp::Reduce => {
            if commutative && bytes > REDUCE_SHORT_MSG && bytes >= pof2 {
                Algorithm::Rabenseifner
            } else {
                Algorithm::Binomial
            }
        }
        CollectiveOp::Allreduce => {
            if commutative && bytes > ALLREDUCE_SHORT_MSG && bytes >= pof2 {
                Algorithm::Rabenseifner
            } else {
                Algorithm::RecursiveDoubling
            }
        }
        CollectiveOp::ReduceScatter | CollectiveOp::ReduceScatterBlock => {
            if !commutative {
                Algorithm::RecursiveDoubling
            } else if bytes < REDUCE_SCATTER_LONG_MSG {
                Algorithm::RecursiveHalving
            } else {
                Algorithm::PairwiseExchange
            }
        }
        CollectiveOp::Scan | CollectiveOp::Exscan => Algorithm::RecursiveDoubling,
    }
}

/// Whether MPICH can run `algorithm` for this call: Rabenseifner needs a predefined
/// (commutative) operator and at least one element per power-of-two rank (here one
/// byte, the unit orcs splits vectors in); recursive halving needs a commutative
/// operator. Every other pairing of [`CollectiveOp::algorithms`] runs for any `p`.
fn applicable(algorithm: Algorithm, p: u32, bytes: u64, commutative: bool) -> bool {
    match algorithm {
        Algorithm::Rabenseifner => commutative && bytes >= u64::from(pof2_floor(p)),
        Algorithm::RecursiveHalving => commutative,
        _ => true,
    }
}

/// The algorithm of each operation: MPICH's automatic choice, or one forced per
/// operation.
///
/// A forced algorithm is used whenever it can run (see [`AlgorithmChoice::select`]);
/// otherwise the call falls back to MPICH's choice, as MPICH itself does when one of
/// its `MPIR_CVAR_<OP>_INTRA_ALGORITHM` settings cannot apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlgorithmChoice {
    forced: [Option<Algorithm>; CollectiveOp::ALL.len()],
}

impl AlgorithmChoice {
    /// MPICH's choice for every operation.
    pub fn automatic() -> Self {
        AlgorithmChoice::default()
    }

    /// Forces `algorithm` for `op`, or returns to MPICH's choice with `None`.
    ///
    /// Fails when `op` cannot use `algorithm` at all.
    pub fn force(
        &mut self,
        op: CollectiveOp,
        algorithm: Option<Algorithm>,
    ) -> Result<(), CollectiveError> {
        if let Some(alg) = algorithm {
            if !op.supports(alg) {
                return Err(CollectiveError::AlgorithmNotForOp { op, algorithm: alg });
            }
        }
        self.forced[op as usize] = algorithm;
        Ok(())
    }

    /// The algorithm forced for `op`, if any.
    pub fn forced(&self, op: CollectiveOp) -> Option<Algorithm> {
        self.forced[op as usize]
    }

    /// The algorithm a call uses: the forced one when it can run for these arguments,
    /// else [`choose`]. Arguments as for [`choose`].
    pub fn select(&self, op: CollectiveOp, p: u32, bytes: u64, commutative: bool) -> Algorithm {
        match self.forced(op) {
            Some(alg) if applicable(alg, p, bytes, commutative) => alg,
            _ => choose(op, p, bytes, commutative),
        }
    }

    /// Reads `OP=ALGORITHM[,OP=ALGORITHM…]`, e.g. `bcast=binomial,allreduce=rabenseifner`.
    ///
    /// Operation and algorithm names are those of [`CollectiveOp::name`] and
    /// [`Algorithm::name`] (case-insensitive, `-` for `_` allowed); the algorithm `auto`
    /// keeps MPICH's choice. Spaces around items are ignored; an empty text forces
    /// nothing. Errors name the 1-based column of the offending item.
    pub fn parse(spec: &str) -> Result<Self, CollectiveError> {
        let mut choice = AlgorithmChoice::automatic();
        let mut seen = [false; CollectiveOp::ALL.len()];
        if spec.trim().is_empty() {
            return Ok(choice);
        }
        let mut start = 0;
        for item in spec.split(',') {
            let at = start;
            start += item.len() + 1;
            let lead = item.len() - item.trim_start().len();
            let item = item.trim();
            let column = |offset: usize| spec[..at + lead + offset].chars().count() as u32 + 1;
            let fail = |offset: usize, message: String| CollectiveError::InvalidChoice {
                spec: spec.to_owned(),
                column: column(offset),
                message,
            };
            let Some((op_name, alg_name)) = item.split_once('=') else {
                return Err(fail(0, format!("expected OP=ALGORITHM, got '{item}'")));
            };
            let (op_name, alg_name) = (op_name.trim_end(), alg_name.trim_start());
            let alg_offset = item.len() - alg_name.len();
            let op = CollectiveOp::from_name(op_name).ok_or_else(|| {
                let ops: Vec<&str> = CollectiveOp::ALL.iter().map(|op| op.name()).collect();
                fail(
                    0,
                    format!(
                        "unknown collective operation '{op_name}' (expected one of: {})",
                        ops.join(", ")
                    ),
                )
            })?;
            if std::mem::replace(&mut seen[op as usize], true) {
                return Err(fail(0, format!("{op} is given twice")));
            }
            let algorithm = if alg_name.eq_ignore_ascii_case("auto") {
                None
            } else {
                let expected = names(op.algorithms());
                match Algorithm::from_name(alg_name) {
                    Some(alg) if op.supports(alg) => Some(alg),
                    Some(alg) => {
                        return Err(fail(
                            alg_offset,
                            format!("{op} cannot use {alg} (expected one of: {expected}, auto)"),
                        ))
                    }
                    None => {
                        return Err(fail(
                            alg_offset,
                            format!(
                                "unknown algorithm '{alg_name}' for {op} \
                                 (expected one of: {expected}, auto)"
                            ),
                        ))
                    }
                }
            };
            choice.forced[op as usize] = algorithm;
        }
        Ok(choice)
    }
}

/// The names of `algorithms`, comma separated.
pub(crate) fn names(algorithms: &[Algorithm]) -> String {
    let names: Vec<&str> = algorithms.iter().map(|alg| alg.name()).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::*;
    use CollectiveOp as Op;

    #[test]
    fn bcast_switches_at_mpich_thresholds() {
        assert_eq!(choose(Op::Bcast, 16, BCAST_SHORT_MSG - 1, true), Binomial);
        assert_eq!(choose(Op::Bcast, 7, 1 << 20, true), Binomial);
        assert_eq!(
            choose(Op::Bcast, 16, BCAST_SHORT_MSG, true),
            ScatterRecursiveDoublingAllgather
        );
        assert_eq!(
            choose(Op::Bcast, 16, BCAST_LONG_MSG - 1, true),
            ScatterRecursiveDoublingAllgather
        );
        assert_eq!(
            choose(Op::Bcast, 16, BCAST_LONG_MSG, true),
            ScatterRingAllgather
        );
        assert_eq!(
            choose(Op::Bcast, 12, BCAST_SHORT_MSG, true),
            ScatterRingAllgather
        );
        assert_eq!(
            choose(Op::Bcast, 8, BCAST_SHORT_MSG, true),
            ScatterRecursiveDoublingAllgather
        );
    }

    #[test]
    fn reductions_switch_at_mpich_thresholds() {
        assert_eq!(choose(Op::Reduce, 16, 2048, true), Binomial);
        assert_eq!(choose(Op::Reduce, 16, 2049, true), Rabenseifner);
        assert_eq!(choose(Op::Reduce, 16, 1 << 20, false), Binomial);
        assert_eq!(
            choose(Op::Reduce, 4096, 4000, true),
            Binomial,
            "bytes < pof2"
        );
        assert_eq!(choose(Op::Allreduce, 16, 2048, true), RecursiveDoubling);
        assert_eq!(choose(Op::Allreduce, 16, 2049, true), Rabenseifner);
        assert_eq!(choose(Op::Allreduce, 5, 2049, true), Rabenseifner);
        assert_eq!(choose(Op::Allreduce, 16, 1 << 20, false), RecursiveDoubling);
        for op in [Op::ReduceScatter, Op::ReduceScatterBlock] {
            assert_eq!(
                choose(op, 16, REDUCE_SCATTER_LONG_MSG - 1, true),
                RecursiveHalving
            );
            assert_eq!(
                choose(op, 16, REDUCE_SCATTER_LONG_MSG, true),
                PairwiseExchange
            );
            assert_eq!(choose(op, 6, 10, false), RecursiveDoubling);
        }
        assert_eq!(choose(Op::Scan, 6, 10, false), RecursiveDoubling);
        assert_eq!(choose(Op::Exscan, 6, 1 << 30, true), RecursiveDoubling);
    }

    #[test]
    fn gathers_and_alltoalls_switch_at_mpich_thresholds() {
        for op in [Op::Allgather, Op::Allgatherv] {
            assert_eq!(
                choose(op, 16, ALLGATHER_LONG_MSG - 1, true),
                RecursiveDoubling
            );
            assert_eq!(choose(op, 16, ALLGATHER_LONG_MSG, true), Ring);
            assert_eq!(choose(op, 12, ALLGATHER_SHORT_MSG - 1, true), Bruck);
            assert_eq!(choose(op, 12, ALLGATHER_SHORT_MSG, true), Ring);
        }
        assert_eq!(choose(Op::Alltoall, 8, 256, true), Bruck);
        assert_eq!(choose(Op::Alltoall, 7, 256, true), Linear);
        assert_eq!(choose(Op::Alltoall, 8, 257, true), Linear);
        assert_eq!(choose(Op::Alltoall, 8, 32_768, true), Linear);
        assert_eq!(choose(Op::Alltoall, 8, 32_769, true), PairwiseExchange);
        assert_eq!(choose(Op::Alltoallv, 8, 1, true), Linear);
        assert_eq!(choose(Op::Alltoallw, 8, 1 << 30, true), Linear);
        assert_eq!(choose(Op::Gather, 8, 1, true), Binomial);
        assert_eq!(choose(Op::Scatter, 8, 1, true), Binomial);
        assert_eq!(choose(Op::Gatherv, 8, 1, true), Linear);
        assert_eq!(choose(Op::Scatterv, 8, 1, true), Linear);
        assert_eq!(choose(Op::Barrier, 8, 0, true), Dissemination);
    }

    #[test]
    fn every_automatic_choice_is_an_algorithm_of_its_operation() {
        for op in Op::ALL {
            for p in [1, 2, 3, 7, 8, 9, 16, 100] {
                for bytes in [0, 1, 256, 2049, 81_920, 1 << 20] {
                    for commutative in [false, true] {
                        let alg = choose(op, p, bytes, commutative);
                        assert!(op.supports(alg), "{op} {p} {bytes} -> {alg}");
                    }
                }
            }
        }
    }

    #[test]
    fn parse_forces_algorithms_per_operation() {
        let choice =
            AlgorithmChoice::parse(" bcast=binomial, Allreduce = Rabenseifner ,alltoall=pairwise")
                .unwrap();
        assert_eq!(choice.forced(Op::Bcast), Some(Binomial));
        assert_eq!(choice.forced(Op::Allreduce), Some(Rabenseifner));
        assert_eq!(choice.forced(Op::Alltoall), Some(PairwiseExchange));
        assert_eq!(choice.forced(Op::Reduce), None);
        assert_eq!(choice.select(Op::Bcast, 64, 1 << 20, true), Binomial);
        assert_eq!(choice.select(Op::Reduce, 64, 1 << 20, true), Rabenseifner);
        assert_eq!(
            AlgorithmChoice::parse("").unwrap(),
            AlgorithmChoice::automatic()
        );
        let auto = AlgorithmChoice::parse("bcast=auto").unwrap();
        assert_eq!(auto.forced(Op::Bcast), None);
    }

    #[test]
    fn forced_algorithm_falls_back_where_mpich_cannot_run_it() {
        let choice =
            AlgorithmChoice::parse("allreduce=rabenseifner,reduce_scatter=recursive_halving")
                .unwrap();
        assert_eq!(
            choice.select(Op::Allreduce, 16, 1 << 20, false),
            RecursiveDoubling
        );
        assert_eq!(choice.select(Op::Allreduce, 16, 8, true), RecursiveDoubling);
        assert_eq!(choice.select(Op::Allreduce, 16, 16, true), Rabenseifner);
        assert_eq!(
            choice.select(Op::ReduceScatter, 16, 1 << 20, false),
            RecursiveDoubling
        );
        assert_eq!(
            choice.select(Op::ReduceScatter, 16, 1 << 20, true),
            RecursiveHalving
        );
    }

    #[test]
    fn parse_errors_name_the_column_and_what_was_expected() {
        let cases = [
            ("bcast=binomal", 7, "unknown algorithm 'binomal' for bcast"),
            (
                "bcast=binomial,allreduce=bruck",
                26,
                "allreduce cannot use bruck",
            ),
            (
                "bcast=binomial, bcats=ring",
                17,
                "unknown collective operation 'bcats'",
            ),
            ("bcast", 1, "expected OP=ALGORITHM, got 'bcast'"),
            ("bcast=binomial,,", 16, "expected OP=ALGORITHM, got ''"),
            ("bcast=binomial,bcast=auto", 16, "bcast is given twice"),
            ("é=x", 1, "unknown collective operation 'é'"),
            ("barrier=dissemination,é", 23, "expected OP=ALGORITHM"),
        ];
        for (spec, column, needle) in cases {
            let err = AlgorithmChoice::parse(spec).unwrap_err();
            match &err {
                CollectiveError::InvalidChoice { column: c, .. } => {
                    assert_eq!(*c, column, "{spec}: {err}")
                }
                other => panic!("{spec}: {other:?}"),
            }
            let text = err.to_string();
            assert!(text.contains(needle), "{spec}: {text}");
            assert!(text.contains(&format!("column {column}")), "{text}");
        }
        let text = AlgorithmChoice::parse("allreduce=bruck")
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("recursive_doubling, rabenseifner, auto"),
            "{text}"
        );
    }

    #[test]
    fn force_rejects_algorithms_an_operation_cannot_use() {
        let mut choice = AlgorithmChoice::automatic();
        let err = choice.force(Op::Barrier, Some(Ring)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "barrier cannot use the ring algorithm (it can use: dissemination)"
        );
        choice.force(Op::Gather, Some(Linear)).unwrap();
        assert_eq!(choice.select(Op::Gather, 4, 1, true), Linear);
        choice.force(Op::Gather, None).unwrap();
        assert_eq!(choice.select(Op::Gather, 4, 1, true), Binomial);
    }

    #[test]
    fn pof2_floor_is_the_largest_power_of_two_not_above() {
        let expect = [
            (1, 1),
            (2, 2),
            (3, 2),
            (4, 4),
            (5, 4),
            (7, 4),
            (8, 8),
            (63, 32),
            (64, 64),
        ];
        for (p, pof2) in expect {
            assert_eq!(pof2_floor(p), pof2, "{p}");
        }
    }
}
