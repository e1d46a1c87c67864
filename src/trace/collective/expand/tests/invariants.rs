//! Invariants over every rank of one collective, for p up to 64: no message to self,
//! destinations in range, and what each operation must deliver.

use super::*;

/// Checks (c): no message to self, destinations in range.
fn check_destinations(msgs: &[Msg], p: u32) -> Result<(), TestCaseError> {
    for &(src, dst, _) in msgs {
        prop_assert!(dst < p, "{src} -> {dst} with p = {p}");
        prop_assert_ne!(src, dst, "message to self");
    }
    Ok(())
}

/// Σ popcount(b) for b in 1 … p − 1: the blocks Bruck's alltoall moves per rank.
fn bruck_blocks(p: u32) -> u64 {
    (1..p).map(|b| u64::from(b.count_ones())).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn barrier_and_scan_invariants(p in 1u32..=64, n in 1u64..1000) {
        let barrier = run_all(Op::Barrier, Dissemination, p, 0, true, |_| CallData::None);
        check_destinations(&barrier, p)?;
        for r in 0..p {
            prop_assert_eq!(count_sent(&barrier, r), lg(p));
            prop_assert_eq!(count_received(&barrier, r), lg(p));
        }
        for op in [Op::Scan, Op::Exscan] {
            let scan = run_bytes(op, RecursiveDoubling, p, 0, n);
            check_destinations(&scan, p)?;
            for r in 0..p {
                let partners = (0..lg(p)).filter(|k| (r ^ (1 << k)) < p).count();
                prop_assert_eq!(count_sent(&scan, r), partners);
                prop_assert_eq!(bytes_sent(&scan, r), partners as u64 * n);
                if p.is_power_of_two() {
                    prop_assert_eq!(partners, lg(p));
                }
            }
        }
    }

    #[test]
    fn bcast_invariants(p in 1u32..=64, root_seed in any::<u32>(), n in 1u64..5000, chunk in 1u64..50) {
        let root = root_seed % p;
        let binomial = run_bytes(Op::Bcast, Binomial, p, root, n);
        check_destinations(&binomial, p)?;
        prop_assert_eq!(total(&binomial), u64::from(p - 1) * n);
        prop_assert_eq!(count_sent(&binomial, root), lg(p));
        for r in (0..p).filter(|&r| r != root) {
            prop_assert_eq!(count_received(&binomial, r), 1);
        }
        prop_assert_eq!(count_received(&binomial, root), 0);
        // Scatter-based: each rank receives its subtree's chunks in the scatter and,
        // in the allgather, every chunk but its own.
        let c = n.div_ceil(u64::from(p));
        let chunks = |a: u64, b: u64| (b * c).min(n) - (a * c).min(n);
        for alg in [ScatterRecursiveDoublingAllgather, ScatterRingAllgather] {
            let msgs = run_bytes(Op::Bcast, alg, p, root, n);
            check_destinations(&msgs, p)?;
            for r in 0..p {
                let v = u64::from((r + p - root) % p);
                let subtree = if v == 0 { 0 } else { chunks(v, v + (v & v.wrapping_neg())) };
                prop_assert_eq!(bytes_received(&msgs, r), subtree + n - chunks(v, v + 1), "{} rank {}", alg, r);
            }
        }
        // With n a multiple of p every chunk is non-empty: the root's sends are the α
        // count of the cost expression.
        let even = chunk * u64::from(p);
        let ring = run_bytes(Op::Bcast, ScatterRingAllgather, p, root, even);
        prop_assert_eq!(count_sent(&ring, root), lg(p) + p as usize - 1);
        if p.is_power_of_two() {
            let rd = run_bytes(Op::Bcast, ScatterRecursiveDoublingAllgather, p, root, even);
            prop_assert_eq!(count_sent(&rd, root), 2 * lg(p));
            // Every message of a pow2 scatter/allgather carries whole chunks.
            prop_assert_eq!(total(&rd), chunk * u64::from(p) * (u64::from(p) - 1) + chunk * (u64::from(p) / 2) * lg(p) as u64);
        }
    }

    #[test]
    fn gather_scatter_invariants(p in 1u32..=64, root_seed in any::<u32>(), block in 1u64..100) {
        let root = root_seed % p;
        let gather = run_bytes(Op::Gather, Binomial, p, root, block);
        let scatter = run_bytes(Op::Scatter, Binomial, p, root, block);
        for msgs in [&gather, &scatter] {
            check_destinations(msgs, p)?;
            prop_assert_eq!(msgs.len(), p as usize - 1);
        }
        prop_assert_eq!(bytes_received(&gather, root), u64::from(p - 1) * block);
        prop_assert_eq!(count_received(&gather, root), lg(p));
        prop_assert_eq!(bytes_sent(&scatter, root), u64::from(p - 1) * block);
        prop_assert_eq!(count_sent(&scatter, root), lg(p));
        for r in (0..p).filter(|&r| r != root) {
            // A rank passes on its own block plus everything it collected.
            prop_assert_eq!(count_sent(&gather, r), 1);
            prop_assert_eq!(bytes_sent(&gather, r), bytes_received(&gather, r) + block);
            prop_assert_eq!(count_received(&scatter, r), 1);
            prop_assert_eq!(bytes_received(&scatter, r), bytes_sent(&scatter, r) + block);
        }
        for op in [Op::Gather, Op::Scatter] {
            let linear = run_bytes(op, Linear, p, root, block);
            check_destinations(&linear, p)?;
            prop_assert_eq!(linear.len(), p as usize - 1);
            prop_assert!(linear.iter().all(|m| m.2 == block && (m.0 == root || m.1 == root)));
        }
    }

    #[test]
    fn allgather_invariants(counts in prop::collection::vec(0u64..100, 1..=64), block in 1u64..100) {
        let p = counts.len() as u32;
        let sum: u64 = counts.iter().sum();
        for alg in [RecursiveDoubling, Bruck, Ring] {
            let v = run_all(Op::Allgatherv, alg, p, 0, true, |_| CallData::PerRank(&counts));
            let u = run_bytes(Op::Allgather, alg, p, 0, block);
            check_destinations(&v, p)?;
            check_destinations(&u, p)?;
            for r in 0..p {
                if sum > 0 {
                    prop_assert_eq!(bytes_received(&v, r), sum - counts[r as usize], "{} rank {}", alg, r);
                }
                prop_assert_eq!(bytes_received(&u, r), u64::from(p - 1) * block);
                match alg {
                    Ring => prop_assert_eq!(count_sent(&u, r), p as usize - 1),
                    Bruck => prop_assert_eq!(count_sent(&u, r), lg(p)),
                    _ => {}
                }
                if alg == RecursiveDoubling && p.is_power_of_two() {
                    prop_assert_eq!(count_sent(&u, r), lg(p));
                    prop_assert_eq!(bytes_sent(&u, r), u64::from(p - 1) * block);
                }
            }
        }
    }

    #[test]
    fn alltoall_invariants(p in 1u32..=64, block in 1u64..100, seed in any::<u64>()) {
        let bruck = run_bytes(Op::Alltoall, Bruck, p, 0, block);
        check_destinations(&bruck, p)?;
        for r in 0..p {
            prop_assert_eq!(count_sent(&bruck, r), lg(p));
            prop_assert_eq!(bytes_sent(&bruck, r), bruck_blocks(p) * block);
            if p.is_power_of_two() {
                // (n/2)·lg p with n = p blocks.
                prop_assert_eq!(bytes_sent(&bruck, r), u64::from(p) * block / 2 * lg(p) as u64);
            }
        }
        // Rank-dependent counts, some zero: each rank sends each peer exactly its count.
        let counts: Vec<Vec<u64>> = (0..p)
            .map(|r| (0..p).map(|d| (seed >> ((r + 3 * d) % 61)) % 5).collect())
            .collect();
        for alg in [PairwiseExchange, Linear] {
            for op in [Op::Alltoallv, Op::Alltoallw] {
                let msgs = run_all(op, alg, p, 0, true, |r| CallData::PerRank(&counts[r as usize]));
                check_destinations(&msgs, p)?;
                for src in 0..p {
                    for dst in (0..p).filter(|&d| d != src) {
                        let between: Vec<u64> = msgs.iter().filter(|m| m.0 == src && m.1 == dst).map(|m| m.2).collect();
                        let want = counts[src as usize][dst as usize];
                        let expect = if want == 0 && alg == Linear { vec![] } else { vec![want] };
                        prop_assert_eq!(between, expect);
                    }
                }
            }
            let uniform = run_bytes(Op::Alltoall, alg, p, 0, block);
            for r in 0..p {
                prop_assert_eq!(count_sent(&uniform, r), p as usize - 1);
                prop_assert_eq!(bytes_sent(&uniform, r), u64::from(p - 1) * block);
            }
        }
    }

    #[test]
    fn reduce_and_allreduce_invariants(p in 1u32..=64, root_seed in any::<u32>(), piece in 1u64..50, commutative in any::<bool>()) {
        let root = root_seed % p;
        let pof2 = 1u32 << (31 - p.leading_zeros());
        let rem = p - pof2;
        let lg2 = pof2.trailing_zeros() as u64;
        let n = piece * u64::from(pof2);
        let binomial = run_all(Op::Reduce, Binomial, p, root, commutative, |_| CallData::Bytes(n));
        check_destinations(&binomial, p)?;
        let extra = usize::from(!commutative && root != 0);
        prop_assert_eq!(binomial.len(), p as usize - 1 + extra);
        prop_assert!(binomial.iter().all(|m| m.2 == n));
        let tree_root = if commutative { root } else { 0 };
        prop_assert_eq!(count_received(&binomial, tree_root), lg(p));
        if extra == 1 {
            prop_assert_eq!(sent_by(&binomial, 0), vec![(root, n)]);
        }

        let raben = run_bytes(Op::Reduce, Rabenseifner, p, root, n);
        check_destinations(&raben, p)?;
        let root_sat_out = root < 2 * rem && root % 2 == 1;
        let want = (u64::from(pof2) - 1) * n + n / 2 * lg2 + u64::from(rem) * n
            + if root_sat_out { piece } else { 0 };
        prop_assert_eq!(total(&raben), want);
        if p.is_power_of_two() {
            // The α count 2 lg p: lg p exchange steps, then lg p gather messages in.
            prop_assert_eq!(count_sent(&raben, root), lg(p));
            prop_assert_eq!(count_received(&raben, root), 2 * lg(p));
        }

        let rd = run_bytes(Op::Allreduce, RecursiveDoubling, p, 0, n);
        let rs = run_bytes(Op::Allreduce, Rabenseifner, p, 0, n);
        check_destinations(&rd, p)?;
        check_destinations(&rs, p)?;
        prop_assert_eq!(total(&rd), u64::from(pof2) * lg2 * n + 2 * u64::from(rem) * n);
        prop_assert_eq!(total(&rs), 2 * (u64::from(pof2) - 1) * n + 2 * u64::from(rem) * n);
        for r in 0..p {
            // Ranks of the fold: the one that sits out sends once; its partner sends one
            // message more than the others, its last. The α counts of the cost:
            // lg p and 2 lg p for p a power of two; for other p, ⌊lg p⌋ + 2 and
            // 2⌊lg p⌋ + 2 on the path through a folded pair.
            let (rd_count, rs_count) = if r >= 2 * rem {
                (lg2 as usize, 2 * lg2 as usize)
            } else if r % 2 == 0 {
                (1, 1)
            } else {
                (lg2 as usize + 1, 2 * lg2 as usize + 1)
            };
            prop_assert_eq!(count_sent(&rd, r), rd_count);
            prop_assert_eq!(count_sent(&rs, r), rs_count);
        }
    }

    #[test]
    fn reduce_scatter_invariants(counts in prop::collection::vec(0u64..100, 1..=64), block in 1u64..100) {
        let p = counts.len() as u32;
        let sum: u64 = counts.iter().sum();
        let pof2 = 1u32 << (31 - p.leading_zeros());
        let rem = p - pof2;
        let data = |_| CallData::PerRank(&counts);
        let halving = run_all(Op::ReduceScatter, RecursiveHalving, p, 0, true, data);
        let pairwise = run_all(Op::ReduceScatter, PairwiseExchange, p, 0, true, data);
        let doubling = run_all(Op::ReduceScatter, RecursiveDoubling, p, 0, false, data);
        for msgs in [&halving, &pairwise, &doubling] {
            check_destinations(msgs, p)?;
        }
        if sum > 0 {
            let folded: u64 = (0..rem).map(|i| counts[2 * i as usize]).sum();
            prop_assert_eq!(total(&halving), u64::from(p - 1) * sum + folded);
            prop_assert_eq!(total(&pairwise), u64::from(p - 1) * sum);
            for r in 0..p {
                prop_assert_eq!(count_sent(&pairwise, r), p as usize - 1);
                prop_assert_eq!(bytes_received(&pairwise, r), u64::from(p - 1) * counts[r as usize]);
            }
        }
        for op_alg in [RecursiveHalving, PairwiseExchange, RecursiveDoubling] {
            let msgs = run_all(Op::ReduceScatterBlock, op_alg, p, 0, op_alg != RecursiveDoubling, |_| CallData::Bytes(block));
            check_destinations(&msgs, p)?;
            if p.is_power_of_two() || op_alg == PairwiseExchange {
                let steps = if op_alg == PairwiseExchange { p as usize - 1 } else { lg(p) };
                let per_rank = match op_alg {
                    // n(p − 1)/p with n = p blocks.
                    RecursiveHalving | PairwiseExchange => u64::from(p - 1) * block,
                    // n(lg p − (p − 1)/p).
                    _ => (u64::from(p) * lg(p) as u64 - u64::from(p - 1)) * block,
                };
                for r in 0..p {
                    prop_assert_eq!(count_sent(&msgs, r), steps);
                    prop_assert_eq!(bytes_sent(&msgs, r), per_rank);
                }
            }
        }
    }
}
