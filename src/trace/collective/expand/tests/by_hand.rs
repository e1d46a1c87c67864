//! Every schedule against message lists computed by hand for small communicators.

use super::*;

#[test]
fn dissemination_barrier_by_hand() {
    assert_eq!(
        run_all(Op::Barrier, Dissemination, 1, 0, true, |_| CallData::None),
        vec![]
    );
    assert_eq!(
        run_all(Op::Barrier, Dissemination, 2, 0, true, |_| CallData::None),
        vec![(0, 1, 0), (1, 0, 0)]
    );
    assert_eq!(
        run_all(Op::Barrier, Dissemination, 4, 0, true, |_| CallData::None),
        vec![
            (0, 1, 0),
            (0, 2, 0),
            (1, 2, 0),
            (1, 3, 0),
            (2, 3, 0),
            (2, 0, 0),
            (3, 0, 0),
            (3, 1, 0),
        ]
    );
    let five = run_all(Op::Barrier, Dissemination, 5, 0, true, |_| CallData::None);
    assert_eq!(sent_by(&five, 3), vec![(4, 0), (0, 0), (2, 0)]);
    assert_eq!(five.len(), 15);
}

#[test]
fn binomial_bcast_by_hand() {
    assert_eq!(run_bytes(Op::Bcast, Binomial, 1, 0, 10), vec![]);
    assert_eq!(run_bytes(Op::Bcast, Binomial, 2, 1, 10), vec![(1, 0, 10)]);
    assert_eq!(
        run_bytes(Op::Bcast, Binomial, 3, 0, 10),
        vec![(0, 2, 10), (0, 1, 10)]
    );
    assert_eq!(
        run_bytes(Op::Bcast, Binomial, 4, 0, 10),
        vec![(0, 2, 10), (0, 1, 10), (2, 3, 10)]
    );
    assert_eq!(
        run_bytes(Op::Bcast, Binomial, 5, 0, 10),
        vec![(0, 4, 10), (0, 2, 10), (0, 1, 10), (2, 3, 10)]
    );
    // Root 2: relative rank v is rank (v + 2) mod 5.
    assert_eq!(
        run_bytes(Op::Bcast, Binomial, 5, 2, 10),
        vec![(2, 1, 10), (2, 4, 10), (2, 3, 10), (4, 0, 10)]
    );
    let eight = run_bytes(Op::Bcast, Binomial, 8, 0, 1);
    assert_eq!(sent_by(&eight, 0), vec![(4, 1), (2, 1), (1, 1)]);
    assert_eq!(sent_by(&eight, 4), vec![(6, 1), (5, 1)]);
    assert_eq!(sent_by(&eight, 6), vec![(7, 1)]);
    assert_eq!(eight.len(), 7);
}

#[test]
fn scatter_ring_bcast_by_hand() {
    // p = 4, n = 100: chunks of 25; scatter 0→2 (chunks 2, 3), 0→1, 2→3; then a ring.
    let mut want = vec![(0, 2, 50), (0, 1, 25)];
    want.extend([(0, 1, 25); 3]);
    want.extend([(1, 2, 25); 3]);
    want.extend([(2, 3, 25), (2, 3, 25), (2, 3, 25), (2, 3, 25)]);
    want.extend([(3, 0, 25); 3]);
    assert_eq!(run_bytes(Op::Bcast, ScatterRingAllgather, 4, 0, 100), want);
    // p = 5, n = 7: chunks 2, 2, 2, 1, 0; the empty scatter to rank 4 is skipped, the
    // ring still sends the empty chunk.
    assert_eq!(
        run_bytes(Op::Bcast, ScatterRingAllgather, 5, 0, 7),
        vec![
            (0, 2, 3),
            (0, 1, 2),
            (0, 1, 2),
            (0, 1, 0),
            (0, 1, 1),
            (0, 1, 2),
            (1, 2, 2),
            (1, 2, 2),
            (1, 2, 0),
            (1, 2, 1),
            (2, 3, 1),
            (2, 3, 2),
            (2, 3, 2),
            (2, 3, 2),
            (2, 3, 0),
            (3, 4, 1),
            (3, 4, 2),
            (3, 4, 2),
            (3, 4, 2),
            (4, 0, 0),
            (4, 0, 1),
            (4, 0, 2),
            (4, 0, 2),
        ]
    );
}

#[test]
fn scatter_recursive_doubling_bcast_by_hand() {
    // p = 4, root 1, n = 100: relative rank v is rank (v + 1) mod 4.
    assert_eq!(
        run_bytes(Op::Bcast, ScatterRecursiveDoublingAllgather, 4, 1, 100),
        vec![
            (0, 3, 25),
            (0, 2, 50),
            (1, 3, 50),
            (1, 2, 25),
            (1, 2, 25),
            (1, 3, 50),
            (2, 1, 25),
            (2, 0, 50),
            (3, 0, 25),
            (3, 0, 25),
            (3, 1, 50),
        ]
    );
    // p = 3, n = 9: rank 0 forwards chunk 2 to rank 1, whose partner 3 does not exist.
    assert_eq!(
        run_bytes(Op::Bcast, ScatterRecursiveDoublingAllgather, 3, 0, 9),
        vec![
            (0, 2, 3),
            (0, 1, 3),
            (0, 1, 3),
            (0, 2, 6),
            (0, 1, 3),
            (1, 0, 3),
            (2, 0, 3)
        ]
    );
}

#[test]
fn binomial_gather_and_scatter_by_hand() {
    assert_eq!(
        run_bytes(Op::Gather, Binomial, 4, 0, 4),
        vec![(1, 0, 4), (2, 0, 8), (3, 2, 4)]
    );
    assert_eq!(
        run_bytes(Op::Gather, Binomial, 5, 0, 4),
        vec![(1, 0, 4), (2, 0, 8), (3, 2, 4), (4, 0, 4)]
    );
    assert_eq!(
        run_bytes(Op::Gather, Binomial, 5, 2, 4),
        vec![(0, 4, 4), (1, 2, 4), (3, 2, 4), (4, 2, 8)]
    );
    assert_eq!(
        run_bytes(Op::Scatter, Binomial, 5, 0, 4),
        vec![(0, 4, 4), (0, 2, 8), (0, 1, 4), (2, 3, 4)]
    );
    assert_eq!(
        run_bytes(Op::Scatter, Binomial, 4, 3, 4),
        vec![(1, 2, 4), (3, 1, 8), (3, 0, 4)]
    );
}

#[test]
fn linear_rooted_by_hand() {
    assert_eq!(
        run_bytes(Op::Gather, Linear, 4, 1, 4),
        vec![(0, 1, 4), (2, 1, 4), (3, 1, 4)]
    );
    assert_eq!(
        run_bytes(Op::Scatter, Linear, 4, 1, 4),
        vec![(1, 0, 4), (1, 2, 4), (1, 3, 4)]
    );
    let counts = [7, 0, 5];
    let gatherv = run_all(Op::Gatherv, Linear, 3, 1, true, |r| {
        if r == 1 {
            CallData::PerRank(&counts)
        } else {
            CallData::Bytes(counts[r as usize])
        }
    });
    assert_eq!(gatherv, vec![(0, 1, 7), (2, 1, 5)]);
    let sendcounts = [3, 0, 4];
    let scatterv = run_all(Op::Scatterv, Linear, 3, 0, true, |r| {
        if r == 0 {
            CallData::PerRank(&sendcounts)
        } else {
            CallData::Bytes(sendcounts[r as usize])
        }
    });
    assert_eq!(scatterv, vec![(0, 2, 4)]);
}

#[test]
fn allgather_by_hand() {
    assert_eq!(
        run_bytes(Op::Allgather, RecursiveDoubling, 4, 0, 8),
        vec![
            (0, 1, 8),
            (0, 2, 16),
            (1, 0, 8),
            (1, 3, 16),
            (2, 3, 8),
            (2, 0, 16),
            (3, 2, 8),
            (3, 1, 16),
        ]
    );
    let c = [1, 2, 3, 4, 5];
    let v = |_| CallData::PerRank(&c);
    // p = 5: rank 4 has no partner in the first two steps; ranks 1 and 3 get block 4
    // forwarded inside the group {0, 1, 2, 3}.
    assert_eq!(
        run_all(Op::Allgatherv, RecursiveDoubling, 5, 0, true, v),
        vec![
            (0, 1, 1),
            (0, 2, 3),
            (0, 4, 10),
            (0, 2, 5),
            (0, 1, 5),
            (1, 0, 2),
            (1, 3, 3),
            (2, 3, 3),
            (2, 0, 7),
            (2, 3, 5),
            (3, 2, 4),
            (3, 1, 7),
            (4, 0, 5),
        ]
    );
    assert_eq!(
        run_all(Op::Allgatherv, Bruck, 5, 0, true, v),
        vec![
            (0, 4, 1),
            (0, 3, 3),
            (0, 1, 1),
            (1, 0, 2),
            (1, 4, 5),
            (1, 2, 2),
            (2, 1, 3),
            (2, 0, 7),
            (2, 3, 3),
            (3, 2, 4),
            (3, 1, 9),
            (3, 4, 4),
            (4, 3, 5),
            (4, 2, 6),
            (4, 0, 5),
        ]
    );
    assert_eq!(
        run_bytes(Op::Allgather, Bruck, 4, 0, 2),
        vec![
            (0, 3, 2),
            (0, 2, 4),
            (1, 0, 2),
            (1, 3, 4),
            (2, 1, 2),
            (2, 0, 4),
            (3, 2, 2),
            (3, 1, 4),
        ]
    );
    let c3 = [1, 2, 3];
    assert_eq!(
        run_all(Op::Allgatherv, Ring, 3, 0, true, |_| CallData::PerRank(&c3)),
        vec![
            (0, 1, 1),
            (0, 1, 3),
            (1, 2, 2),
            (1, 2, 1),
            (2, 0, 3),
            (2, 0, 2)
        ]
    );
}

#[test]
fn alltoall_by_hand() {
    assert_eq!(
        run_bytes(Op::Alltoall, Bruck, 4, 0, 2),
        vec![
            (0, 1, 4),
            (0, 2, 4),
            (1, 2, 4),
            (1, 3, 4),
            (2, 3, 4),
            (2, 0, 4),
            (3, 0, 4),
            (3, 1, 4),
        ]
    );
    // p = 5: blocks 1, 3 go one step, 2, 3 two steps, 4 four steps.
    let five = run_bytes(Op::Alltoall, Bruck, 5, 0, 2);
    assert_eq!(sent_by(&five, 3), vec![(4, 4), (0, 4), (2, 2)]);
    assert_eq!(five.len(), 15);
    assert_eq!(
        run_bytes(Op::Alltoall, PairwiseExchange, 4, 0, 3),
        vec![
            (0, 1, 3),
            (0, 2, 3),
            (0, 3, 3),
            (1, 0, 3),
            (1, 3, 3),
            (1, 2, 3),
            (2, 3, 3),
            (2, 0, 3),
            (2, 1, 3),
            (3, 2, 3),
            (3, 1, 3),
            (3, 0, 3),
        ]
    );
    assert_eq!(
        run_bytes(Op::Alltoall, Linear, 3, 0, 2),
        vec![
            (0, 1, 2),
            (0, 2, 2),
            (1, 2, 2),
            (1, 0, 2),
            (2, 0, 2),
            (2, 1, 2)
        ]
    );
    let counts: [&[u64]; 3] = [&[0, 5, 6], &[7, 0, 0], &[1, 2, 0]];
    let data = |r: u32| CallData::PerRank(counts[r as usize]);
    assert_eq!(
        run_all(Op::Alltoallv, PairwiseExchange, 3, 0, true, data),
        vec![
            (0, 1, 5),
            (0, 2, 6),
            (1, 2, 0),
            (1, 0, 7),
            (2, 0, 1),
            (2, 1, 2)
        ]
    );
    assert_eq!(
        run_all(Op::Alltoallw, Linear, 3, 0, true, data),
        vec![(0, 1, 5), (0, 2, 6), (1, 0, 7), (2, 0, 1), (2, 1, 2)]
    );
}

#[test]
fn reduce_by_hand() {
    assert_eq!(
        run_bytes(Op::Reduce, Binomial, 5, 2, 8),
        vec![(0, 4, 8), (1, 2, 8), (3, 2, 8), (4, 2, 8)]
    );
    // Non-commutative: the tree is rooted at 0, which passes the result to the root.
    assert_eq!(
        run_all(Op::Reduce, Binomial, 5, 2, false, |_| CallData::Bytes(8)),
        vec![(0, 2, 8), (1, 0, 8), (2, 0, 8), (3, 2, 8), (4, 0, 8)]
    );
    // Rabenseifner, p = 4, pieces of 2: reduce-scatter, then gather to 0.
    assert_eq!(
        run_bytes(Op::Reduce, Rabenseifner, 4, 0, 8),
        vec![
            (0, 1, 4),
            (0, 2, 2),
            (1, 0, 4),
            (1, 3, 2),
            (1, 0, 4),
            (2, 3, 4),
            (2, 0, 2),
            (2, 0, 2),
            (3, 2, 4),
            (3, 1, 2),
            (3, 1, 2),
        ]
    );
    // p = 3, root 1 sits out of the fold: rank 0 hands it piece 0 (4 bytes), rank 2
    // sends piece 1 (3 bytes) to it.
    assert_eq!(
        run_bytes(Op::Reduce, Rabenseifner, 3, 1, 7),
        vec![(0, 2, 3), (0, 1, 4), (1, 0, 7), (2, 0, 4), (2, 1, 3)]
    );
}

#[test]
fn allreduce_by_hand() {
    assert_eq!(
        run_bytes(Op::Allreduce, RecursiveDoubling, 4, 0, 8),
        vec![
            (0, 1, 8),
            (0, 2, 8),
            (1, 0, 8),
            (1, 3, 8),
            (2, 3, 8),
            (2, 0, 8),
            (3, 2, 8),
            (3, 1, 8),
        ]
    );
    assert_eq!(
        run_bytes(Op::Allreduce, RecursiveDoubling, 5, 0, 8),
        vec![
            (0, 1, 8),
            (1, 2, 8),
            (1, 3, 8),
            (1, 0, 8),
            (2, 1, 8),
            (2, 4, 8),
            (3, 4, 8),
            (3, 1, 8),
            (4, 3, 8),
            (4, 2, 8),
        ]
    );
    assert_eq!(
        run_bytes(Op::Allreduce, Rabenseifner, 4, 0, 8),
        vec![
            (0, 1, 4),
            (0, 2, 2),
            (0, 2, 2),
            (0, 1, 4),
            (1, 0, 4),
            (1, 3, 2),
            (1, 3, 2),
            (1, 0, 4),
            (2, 3, 4),
            (2, 0, 2),
            (2, 0, 2),
            (2, 3, 4),
            (3, 2, 4),
            (3, 1, 2),
            (3, 1, 2),
            (3, 2, 4),
        ]
    );
    assert_eq!(
        run_bytes(Op::Allreduce, Rabenseifner, 3, 0, 7),
        vec![
            (0, 1, 7),
            (1, 2, 3),
            (1, 2, 4),
            (1, 0, 7),
            (2, 1, 4),
            (2, 1, 3)
        ]
    );
}

#[test]
fn reduce_scatter_by_hand() {
    let c4 = [1, 2, 3, 4];
    let c3 = [1, 2, 3];
    let four = |_| CallData::PerRank(&c4);
    let three = |_| CallData::PerRank(&c3);
    assert_eq!(
        run_all(Op::ReduceScatter, RecursiveHalving, 4, 0, true, four),
        vec![
            (0, 2, 7),
            (0, 1, 2),
            (1, 3, 7),
            (1, 0, 1),
            (2, 0, 3),
            (2, 3, 4),
            (3, 1, 3),
            (3, 2, 3),
        ]
    );
    assert_eq!(
        run_all(Op::ReduceScatter, RecursiveHalving, 3, 0, true, three),
        vec![(0, 1, 6), (1, 2, 3), (1, 0, 1), (2, 1, 3)]
    );
    assert_eq!(
        run_all(Op::ReduceScatter, PairwiseExchange, 3, 0, true, three),
        vec![
            (0, 1, 2),
            (0, 2, 3),
            (1, 2, 3),
            (1, 0, 1),
            (2, 0, 1),
            (2, 1, 2)
        ]
    );
    assert_eq!(
        run_all(Op::ReduceScatter, RecursiveDoubling, 4, 0, false, four),
        vec![
            (0, 1, 9),
            (0, 2, 7),
            (1, 0, 8),
            (1, 3, 7),
            (2, 3, 7),
            (2, 0, 3),
            (3, 2, 6),
            (3, 1, 3),
        ]
    );
    assert_eq!(
        run_all(Op::ReduceScatter, RecursiveDoubling, 3, 0, false, three),
        vec![(0, 1, 5), (0, 2, 3), (0, 1, 3), (1, 0, 4), (2, 0, 3)]
    );
    assert_eq!(
        run_all(Op::ReduceScatterBlock, PairwiseExchange, 3, 0, true, |_| {
            CallData::Bytes(2)
        }),
        vec![
            (0, 1, 2),
            (0, 2, 2),
            (1, 2, 2),
            (1, 0, 2),
            (2, 0, 2),
            (2, 1, 2)
        ]
    );
}

#[test]
fn scan_by_hand() {
    for op in [Op::Scan, Op::Exscan] {
        assert_eq!(
            run_bytes(op, RecursiveDoubling, 5, 0, 4),
            vec![
                (0, 1, 4),
                (0, 2, 4),
                (0, 4, 4),
                (1, 0, 4),
                (1, 3, 4),
                (2, 3, 4),
                (2, 0, 4),
                (3, 2, 4),
                (3, 1, 4),
                (4, 0, 4),
            ]
        );
    }
}
