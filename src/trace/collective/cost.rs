//! Hockney costs of the collective algorithms: the time one collective takes, split
//! into its latency (α), bandwidth (β) and reduction compute (γ) parts.

use super::op::{Algorithm, CollectiveOp};
use super::CollectiveError;

/// The time of one operation under the Hockney model, in seconds, split by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// The α part: the number of messages on the critical path times α.
    pub latency: f64,
    /// The β part: the bytes on the critical path times β.
    pub bandwidth: f64,
    /// The γ part: the bytes reduced on the critical path times γ.
    pub compute: f64,
}

impl Cost {
    /// The whole time: latency + bandwidth + compute.
    pub fn total(&self) -> f64 {
        self.latency + self.bandwidth + self.compute
    }
}

/// The cost of one point-to-point message of `n` bytes: α + nβ.
pub fn point_to_point(n: u64, alpha: f64, beta: f64) -> Cost {
    Cost {
        latency: alpha,
        bandwidth: n as f64 * beta,
        compute: 0.0,
    }
}

/// ⌈lg p⌉ for p ≥ 1.
pub(crate) fn ceil_lg(p: u32) -> u32 {
    // Not via next_power_of_two, which overflows above 2^31.
    32 - p.saturating_sub(1).leading_zeros()
}

/// The Hockney cost of `op` carried out by `algorithm` on `p` ranks.
///
/// α is the time per message, β per byte sent, γ per byte reduced (seconds). `n` is
/// the size the cost expressions are written in, which depends on the operation:
///
/// | operation | `n` |
/// |---|---|
/// | bcast | the message |
/// | reduce, allreduce, scan, exscan | the vector |
/// | allgather(v) | the total each rank gathers (all blocks) |
/// | gather(v), scatter(v) | the total at the root (all blocks) |
/// | alltoall(v/w) | the total a rank sends to the other ranks |
/// | reduce_scatter(_block) | the whole vector (all blocks) |
/// | barrier | unused |
///
/// [`RankCall::cost_bytes`](super::RankCall::cost_bytes) computes it from one rank's
/// record. The expressions are those of Thakur, Rabenseifner and Gropp (IJHPCA 2005)
/// as the module documentation tabulates them, with lg p read as ⌈lg p⌉ when `p` is
/// not a power of two. Fails when `op` cannot use `algorithm` or `p` is 0.
pub fn cost(
    op: CollectiveOp,
    algorithm: Algorithm,
    p: u32,
    n: u64,
    alpha: f64,
    beta: f64,
    gamma: f64,
) -> Result<Cost, CollectiveError> {
    if p == 0 {
        return Err(CollectiveError::EmptyCommunicator { op });
    }
    if !op.supports(algorithm) {
        return Err(CollectiveError::AlgorithmNotForOp { op, algorithm });
    }
    let terms = terms(op, algorithm, p);
    let n = n as f64;
    Ok(Cost {
        latency: terms.messages * alpha,
        bandwidth: terms.sent * n * beta,
        compute: terms.reduced * n * gamma,
    })
}

/// A cost expression as multiples of α, nβ and nγ.
struct Terms {
    messages: f64,
    sent: f64,
    reduced: f64,
}

/// The coefficients of α, nβ and nγ for a supported (`op`, `algorithm`) pair.
fn terms(op: CollectiveOp, algorithm: Algorithm, p: u32) -> Terms {
    let lg = f64::from(ceil_lg(p));
    let pf = f64::from(p);
    // (p − 1)/p, the share of the data a rank does not hold itself.
    let share = (pf - 1.0) / pf;
    let t = |messages: f64, sent: f64, reduced: f64| Terms {
        messages,
        sent,
        reduced,
    };
    use Algorithm::*;
    use CollectiveOp as Op;
    match (op, algorithm) {
        (Op::Barrier, _) => t(lg, 0.0, 0.0),
        (Op::Bcast, Binomial) => t(lg, lg, 0.0),
        (Op::Bcast, ScatterRecursiveDoublingAllgather) => t(2.0 * lg, 2.0 * share, 0.0),
        (Op::Bcast, _) => t(lg + pf - 1.0, 2.0 * share, 0.0),
        (Op::Reduce, Binomial) => t(lg, lg, lg),
        (Op::Reduce, _) => t(2.0 * lg, 2.0 * share, share),
        (Op::Allreduce, Rabenseifner) if p.is_power_of_two() => t(2.0 * lg, 2.0 * share, share),
        (Op::Allreduce, Rabenseifner) => {
            let floor_lg = f64::from(31 - p.leading_zeros());
            t(2.0 * floor_lg + 2.0, 2.0 * share + 2.0, 1.0 + share)
        }
        (Op::Allreduce, _) => t(lg, lg, lg),
        (Op::Allgather | Op::Allgatherv, Ring) => t(pf - 1.0, share, 0.0),
        (Op::Allgather | Op::Allgatherv, _) => t(lg, share, 0.0),
        (Op::Gather | Op::Scatter, Binomial) => t(lg, share, 0.0),
        (Op::Gather | Op::Scatter | Op::Gatherv | Op::Scatterv, _) => t(pf - 1.0, share, 0.0),
        (Op::Alltoall, Bruck) => t(lg, lg / 2.0, 0.0),
        (Op::Alltoall | Op::Alltoallv | Op::Alltoallw, _) => t(pf - 1.0, 1.0, 0.0),
        (Op::ReduceScatter | Op::ReduceScatterBlock, RecursiveHalving) => t(lg, share, share),
        (Op::ReduceScatter | Op::ReduceScatterBlock, PairwiseExchange) => t(pf - 1.0, share, share),
        (Op::ReduceScatter | Op::ReduceScatterBlock, _) => t(lg, lg - share, lg - share),
        (Op::Scan | Op::Exscan, _) => t(lg, lg, lg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::*;
    use CollectiveOp as Op;

    const GBE: (f64, f64) = (50e-6, 8e-9);
    const QDR: (f64, f64) = (1.3e-6, 0.25e-9);

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-9 * want.abs()
    }

    /// Spec §4's numeric oracles: p = 16, n = 65,536 B, γ = 0, in µs for 1GbE and QDR.
    #[test]
    fn spec_oracles_for_1gbe_and_qdr() {
        // (operation and algorithm, or None for one message; 1GbE µs; QDR µs)
        type Oracle = (Option<(Op, Algorithm)>, f64, f64);
        let rows: [Oracle; 9] = [
            (None, 574.288, 17.684),
            (Some((Op::Bcast, Binomial)), 2297.152, 70.736),
            (Some((Op::Bcast, ScatterRingAllgather)), 1933.040, 55.420),
            (Some((Op::Allreduce, Rabenseifner)), 1383.040, 41.120),
            (Some((Op::Allgather, Ring)), 1241.520, 34.860),
            (Some((Op::Allgather, RecursiveDoubling)), 691.520, 20.560),
            (Some((Op::Alltoall, PairwiseExchange)), 1274.288, 35.884),
            (Some((Op::Alltoall, Bruck)), 1248.576, 37.968),
            (Some((Op::Barrier, Dissemination)), 200.000, 5.200),
        ];
        for (case, gbe_us, qdr_us) in rows {
            for ((alpha, beta), want_us) in [(GBE, gbe_us), (QDR, qdr_us)] {
                let got = match case {
                    None => point_to_point(65_536, alpha, beta),
                    Some((op, alg)) => cost(op, alg, 16, 65_536, alpha, beta, 0.0).unwrap(),
                };
                assert_eq!(got.compute, 0.0);
                assert!(
                    close(got.total(), want_us * 1e-6),
                    "{case:?}: {} µs vs {want_us}",
                    got.total() * 1e6
                );
            }
        }
    }

    /// Closed forms with distinct α, β, γ so that a term in the wrong part shows.
    #[test]
    fn parts_follow_the_closed_forms() {
        let (a, b, g) = (3.0, 5.0, 7.0);
        let c = |op, alg, p, n| cost(op, alg, p, n, a, b, g).unwrap();
        let split = |cost: Cost| (cost.latency, cost.bandwidth, cost.compute);
        // p = 8: lg p = 3, (p − 1)/p = 7/8; n = 64.
        assert_eq!(
            split(c(Op::Bcast, Binomial, 8, 64)),
            (9.0, 3.0 * 64.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Bcast, ScatterRecursiveDoublingAllgather, 8, 64)),
            (18.0, 2.0 * 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Bcast, ScatterRingAllgather, 8, 64)),
            ((3.0 + 7.0) * 3.0, 2.0 * 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Reduce, Binomial, 8, 64)),
            (9.0, 3.0 * 64.0 * 5.0, 3.0 * 64.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::Reduce, Rabenseifner, 8, 64)),
            (18.0, 2.0 * 56.0 * 5.0, 56.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::Allreduce, RecursiveDoubling, 8, 64)),
            (9.0, 3.0 * 64.0 * 5.0, 3.0 * 64.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::Allreduce, Rabenseifner, 8, 64)),
            (18.0, 2.0 * 56.0 * 5.0, 56.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::Allgatherv, Bruck, 8, 64)),
            (9.0, 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Allgatherv, Ring, 8, 64)),
            (21.0, 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Gather, Binomial, 8, 64)),
            (9.0, 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Scatterv, Linear, 8, 64)),
            (21.0, 56.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Alltoallv, PairwiseExchange, 8, 64)),
            (21.0, 64.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Alltoall, Linear, 8, 64)),
            (21.0, 64.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::Alltoall, Bruck, 8, 64)),
            (9.0, 32.0 * 3.0 * 5.0, 0.0)
        );
        assert_eq!(
            split(c(Op::ReduceScatter, RecursiveHalving, 8, 64)),
            (9.0, 56.0 * 5.0, 56.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::ReduceScatterBlock, PairwiseExchange, 8, 64)),
            (21.0, 56.0 * 5.0, 56.0 * 7.0)
        );
        // n(lg p − (p − 1)/p) = 64 · 3 − 56.
        assert_eq!(
            split(c(Op::ReduceScatter, RecursiveDoubling, 8, 64)),
            (9.0, 136.0 * 5.0, 136.0 * 7.0)
        );
        assert_eq!(
            split(c(Op::Scan, RecursiveDoubling, 8, 64)),
            (9.0, 3.0 * 64.0 * 5.0, 3.0 * 64.0 * 7.0)
        );
        assert_eq!(split(c(Op::Barrier, Dissemination, 8, 64)), (9.0, 0.0, 0.0));
    }

    #[test]
    fn non_powers_of_two_use_the_ceiling_of_lg_p() {
        let c = |op, alg, p| cost(op, alg, p, 60, 1.0, 1.0, 1.0).unwrap();
        // p = 6: ⌈lg p⌉ = 3, ⌊lg p⌋ = 2, (p − 1)/p = 5/6.
        assert_eq!(c(Op::Barrier, Dissemination, 6).latency, 3.0);
        assert_eq!(c(Op::Bcast, Binomial, 6).bandwidth, 180.0);
        assert_eq!(c(Op::Bcast, ScatterRingAllgather, 6).latency, 8.0);
        let raben = c(Op::Allreduce, Rabenseifner, 6);
        assert_eq!(raben.latency, 6.0);
        assert!(
            close(raben.bandwidth, 220.0) && close(raben.compute, 110.0),
            "{raben:?}"
        );
        assert_eq!(c(Op::Alltoall, Bruck, 6).bandwidth, 90.0);
        assert_eq!(c(Op::Allgather, RecursiveDoubling, 6).latency, 3.0);
        // One rank: nothing to send, nothing to wait for.
        for op in CollectiveOp::ALL {
            for &alg in op.algorithms() {
                let one = cost(op, alg, 1, 1000, 1.0, 1.0, 1.0).unwrap();
                if (op, alg) == (Op::Alltoall, PairwiseExchange)
                    || op == Op::Alltoallv
                    || op == Op::Alltoallw
                    || (op, alg) == (Op::Alltoall, Linear)
                {
                    // nβ with n = the bytes sent to the other ranks, which is 0 for p = 1.
                    assert_eq!(one.latency, 0.0, "{op} {alg}");
                } else {
                    assert_eq!(one.total(), 0.0, "{op} {alg}: {one:?}");
                }
            }
        }
    }

    #[test]
    fn invalid_pairs_and_empty_communicators_fail() {
        let err = cost(Op::Bcast, Bruck, 4, 1, 1.0, 1.0, 1.0).unwrap_err();
        assert_eq!(err.to_string(), "bcast cannot use the bruck algorithm (it can use: binomial, scatter_recursive_doubling, scatter_ring)");
        let err = cost(Op::Bcast, Binomial, 0, 1, 1.0, 1.0, 1.0).unwrap_err();
        assert!(err.to_string().contains("no ranks"), "{err}");
    }

    #[test]
    fn ceil_lg_matches_definition() {
        let expect = [
            (1, 0),
            (2, 1),
            (3, 2),
            (4, 2),
            (5, 3),
            (8, 3),
            (9, 4),
            (64, 6),
            (65, 7),
            (1 << 31, 31),
            ((1 << 31) + 1, 32),
            (u32::MAX, 32),
        ];
        for (p, lg) in expect {
            assert_eq!(ceil_lg(p), lg, "{p}");
        }
    }
}
