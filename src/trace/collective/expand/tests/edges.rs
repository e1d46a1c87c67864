//! One and two ranks, empty data, malformed calls, selection sizes and huge
//! communicators.

use super::*;

/// The record every rank of a small test collective gets: 4-byte blocks, an 8-byte
/// vector or message, counts of 4 per rank.
fn small_data(op: Op, rank: u32, root: u32, counts: &[u64]) -> CallData<'_> {
    match op {
        Op::Barrier => CallData::None,
        Op::Allgatherv | Op::ReduceScatter | Op::Alltoallv | Op::Alltoallw => {
            CallData::PerRank(counts)
        }
        Op::Gatherv | Op::Scatterv if rank == root => CallData::PerRank(counts),
        Op::Gather | Op::Gatherv | Op::Scatter | Op::Scatterv => CallData::Bytes(4),
        Op::Allgather | Op::Alltoall | Op::ReduceScatterBlock => CallData::Bytes(4),
        _ => CallData::Bytes(8),
    }
}

#[test]
fn one_rank_sends_nothing_with_any_algorithm() {
    for op in CollectiveOp::ALL {
        for &alg in op.algorithms() {
            let msgs = run_all(op, alg, 1, 0, true, |r| small_data(op, r, 0, &[4]));
            assert_eq!(msgs, vec![], "{op} {alg}");
        }
    }
}

#[test]
fn two_ranks_by_hand() {
    let both = |bytes| vec![(0, 1, bytes), (1, 0, bytes)];
    for op in CollectiveOp::ALL {
        for &alg in op.algorithms() {
            let want: Vec<Msg> = match (op, alg) {
                (Op::Barrier, _) => both(0),
                (Op::Bcast, Binomial) => vec![(0, 1, 8)],
                // Chunks of 4: scatter chunk 1, then swap chunks.
                (Op::Bcast, _) => vec![(0, 1, 4), (0, 1, 4), (1, 0, 4)],
                (Op::Gather | Op::Gatherv, _) => vec![(1, 0, 4)],
                (Op::Scatter | Op::Scatterv, _) => vec![(0, 1, 4)],
                (Op::Reduce, Binomial) => vec![(1, 0, 8)],
                // Swap halves, then rank 1 returns its half.
                (Op::Reduce, _) => vec![(0, 1, 4), (1, 0, 4), (1, 0, 4)],
                (Op::Allreduce, Rabenseifner) => vec![(0, 1, 4), (0, 1, 4), (1, 0, 4), (1, 0, 4)],
                (Op::Allreduce | Op::Scan | Op::Exscan, _) => both(8),
                // Block or vector half for the other rank: 4 bytes each way.
                _ => both(4),
            };
            let msgs = run_all(op, alg, 2, 0, true, |r| small_data(op, r, 0, &[4, 4]));
            assert_eq!(msgs, want, "{op} {alg}");
        }
    }
}

#[test]
fn more_schedules_for_four_ranks_by_hand() {
    assert_eq!(
        run_bytes(Op::Allgather, Ring, 4, 0, 2),
        [0u32, 1, 2, 3]
            .iter()
            .flat_map(|&r| [(r, (r + 1) % 4, 2); 3])
            .collect::<Vec<_>>()
    );
    assert_eq!(
        run_bytes(Op::Alltoall, Linear, 4, 0, 2),
        vec![
            (0, 1, 2),
            (0, 2, 2),
            (0, 3, 2),
            (1, 2, 2),
            (1, 3, 2),
            (1, 0, 2),
            (2, 3, 2),
            (2, 0, 2),
            (2, 1, 2),
            (3, 0, 2),
            (3, 1, 2),
            (3, 2, 2),
        ]
    );
    assert_eq!(
        run_bytes(Op::Reduce, Binomial, 4, 1, 8),
        vec![(0, 3, 8), (2, 1, 8), (3, 1, 8)]
    );
    let c4 = [1, 2, 3, 4];
    assert_eq!(
        run_all(Op::ReduceScatter, PairwiseExchange, 4, 0, true, |_| {
            CallData::PerRank(&c4)
        }),
        vec![
            (0, 1, 2),
            (0, 2, 3),
            (0, 3, 4),
            (1, 2, 3),
            (1, 3, 4),
            (1, 0, 1),
            (2, 3, 4),
            (2, 0, 1),
            (2, 1, 2),
            (3, 0, 1),
            (3, 1, 2),
            (3, 2, 3),
        ]
    );
    assert_eq!(
        run_bytes(Op::Scan, RecursiveDoubling, 4, 0, 4),
        vec![
            (0, 1, 4),
            (0, 2, 4),
            (1, 0, 4),
            (1, 3, 4),
            (2, 3, 4),
            (2, 0, 4),
            (3, 2, 4),
            (3, 1, 4),
        ]
    );
    assert_eq!(
        run_all(Op::Barrier, Dissemination, 3, 0, true, |_| CallData::None),
        vec![
            (0, 1, 0),
            (0, 2, 0),
            (1, 2, 0),
            (1, 0, 0),
            (2, 0, 0),
            (2, 1, 0)
        ]
    );
}

#[test]
fn empty_collectives_send_nothing_but_barriers_and_exchanges_of_v_variants() {
    for op in CollectiveOp::ALL {
        for &alg in op.algorithms() {
            let zeros = [0u64; 4];
            let data = |r: u32| match op {
                Op::Barrier => CallData::None,
                Op::Allgatherv | Op::ReduceScatter | Op::Alltoallv | Op::Alltoallw => {
                    CallData::PerRank(&zeros)
                }
                Op::Gatherv | Op::Scatterv if r == 0 => CallData::PerRank(&zeros),
                _ => CallData::Bytes(0),
            };
            let msgs = run_all(op, alg, 4, 0, true, data);
            let expected = match (op, alg) {
                (Op::Barrier, _) => 8,
                (Op::Alltoallv | Op::Alltoallw, PairwiseExchange) => 12,
                _ => 0,
            };
            assert_eq!(msgs.len(), expected, "{op} {alg}: {msgs:?}");
            assert_eq!(total(&msgs), 0);
        }
    }
}

#[test]
fn malformed_calls_fail_before_emitting() {
    let call = |op, rank, size, root, data| RankCall {
        op,
        rank,
        size,
        root,
        commutative: true,
        data,
    };
    let counts = [1u64, 2, 3];
    let cases = [
        (
            call(Op::Bcast, 0, 0, 0, CallData::Bytes(1)),
            "bcast on a communicator with no ranks",
        ),
        (
            call(Op::Bcast, 4, 4, 0, CallData::Bytes(1)),
            "bcast: rank 4 is not in a communicator of 4 ranks",
        ),
        (
            call(Op::Reduce, 0, 4, 9, CallData::Bytes(1)),
            "reduce: root 9 is not in a communicator of 4 ranks",
        ),
        (
            call(Op::Allgatherv, 0, 4, 0, CallData::PerRank(&counts)),
            "allgatherv: 3 counts for a communicator of 4 ranks",
        ),
        (
            call(Op::Allgatherv, 0, 3, 0, CallData::Bytes(1)),
            "allgatherv takes one size per rank in bytes",
        ),
        (
            call(Op::Gatherv, 0, 3, 0, CallData::Bytes(1)),
            "gatherv takes one size per rank in bytes",
        ),
        (
            call(Op::Gatherv, 1, 3, 0, CallData::PerRank(&counts)),
            "gatherv takes one size in bytes",
        ),
        (
            call(Op::Bcast, 0, 3, 0, CallData::None),
            "bcast takes one size in bytes",
        ),
        (
            call(Op::Alltoall, 0, 3, 0, CallData::Bytes(u64::MAX / 2)),
            "alltoall: the sizes add up to more than 2^64 - 1 bytes",
        ),
        (
            call(Op::Alltoallv, 0, 2, 0, CallData::PerRank(&[u64::MAX, 1])),
            "alltoallv: the sizes add up to more than 2^64 - 1 bytes",
        ),
    ];
    for (call, message) in cases {
        let mut emitted = 0;
        let err = call
            .expand(call.op.algorithms()[0], |_, _| emitted += 1)
            .unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(emitted, 0);
    }
    let ok = call(Op::Bcast, 0, 4, 0, CallData::Bytes(1));
    assert_eq!(
        ok.expand(Ring, |_, _| {}).unwrap_err().to_string(),
        "bcast cannot use the ring algorithm (it can use: binomial, scatter_recursive_doubling, scatter_ring)"
    );
    // A barrier takes any data; the root of an unrooted operation is not looked at.
    assert!(call(Op::Barrier, 0, 2, 7, CallData::Bytes(3))
        .validate()
        .is_ok());
    assert!(call(Op::Allreduce, 0, 2, 7, CallData::Bytes(3))
        .validate()
        .is_ok());
}

#[test]
fn sizes_for_selection_and_cost_come_from_the_rank_record() {
    let call = |op, rank, data| RankCall {
        op,
        rank,
        size: 4,
        root: 0,
        commutative: true,
        data,
    };
    let counts = [1u64, 2, 3, 4];
    let b = CallData::Bytes(10);
    let v = CallData::PerRank(&counts);
    let rows = [
        (call(Op::Bcast, 1, b), Some(10), Some(10)),
        (call(Op::Allgather, 1, b), Some(40), Some(40)),
        (call(Op::Gather, 1, b), Some(10), Some(40)),
        (call(Op::Alltoall, 1, b), Some(10), Some(30)),
        (call(Op::Alltoallv, 1, v), Some(10), Some(8)),
        (call(Op::Allgatherv, 1, v), Some(10), Some(10)),
        (call(Op::ReduceScatter, 1, v), Some(10), Some(10)),
        (call(Op::ReduceScatterBlock, 1, b), Some(40), Some(40)),
        (call(Op::Gatherv, 1, b), Some(10), None),
        (call(Op::Gatherv, 0, v), Some(10), Some(10)),
        (call(Op::Barrier, 2, CallData::None), Some(0), Some(0)),
    ];
    for (call, selection, cost) in rows {
        assert_eq!(call.selection_bytes(), selection, "{}", call.op);
        assert_eq!(call.cost_bytes(), cost, "{}", call.op);
    }
    let choice = AlgorithmChoice::automatic();
    let big = RankCall {
        op: Op::Allgather,
        rank: 0,
        size: 16,
        root: 0,
        commutative: true,
        data: CallData::Bytes(40_000),
    };
    // 16 × 40,000 B = 640,000 B ≥ 512 KiB: MPICH's ring, though one block is small.
    assert_eq!(big.algorithm(&choice), Ring);
}

#[test]
fn huge_communicators_expand_without_overflow() {
    // p above 2^31: the root's first child is 2^31 away.
    let p = (1u32 << 31) + 5;
    let mut sent = Vec::new();
    let call = RankCall {
        op: Op::Bcast,
        rank: 0,
        size: p,
        root: 0,
        commutative: true,
        data: CallData::Bytes(1),
    };
    call.expand(Binomial, |dst, bytes| sent.push((dst, bytes)))
        .unwrap();
    assert_eq!(sent.len(), 32);
    assert_eq!(sent[0], (1 << 31, 1));
    assert_eq!(sent[31], (1, 1));
    let mut rounds = 0;
    let barrier = RankCall {
        op: Op::Barrier,
        data: CallData::None,
        rank: p - 1,
        ..call
    };
    barrier.expand(Dissemination, |_, _| rounds += 1).unwrap();
    assert_eq!(rounds, 32);
}
