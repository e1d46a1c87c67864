//! Schedules checked against hand-computed message lists for small communicators, and
//! against invariants over every rank of one collective for p up to 64.

use super::*;
use proptest::prelude::*;
use Algorithm::*;
use CollectiveOp as Op;

/// One message: (source, destination, bytes).
type Msg = (u32, u32, u64);

/// The messages of every rank of one collective, rank by rank in send order; `data`
/// gives each rank's record.
fn run_all<'a>(
    op: Op,
    alg: Algorithm,
    p: u32,
    root: u32,
    commutative: bool,
    data: impl Fn(u32) -> CallData<'a>,
) -> Vec<Msg> {
    let mut out = Vec::new();
    for rank in 0..p {
        let call = RankCall {
            op,
            rank,
            size: p,
            root,
            commutative,
            data: data(rank),
        };
        call.expand(alg, |dst, bytes| out.push((rank, dst, bytes)))
            .unwrap_or_else(|e| panic!("{op} {alg} p={p} rank {rank}: {e}"));
    }
    out
}

/// Every rank with the same one-size record.
fn run_bytes(op: Op, alg: Algorithm, p: u32, root: u32, bytes: u64) -> Vec<Msg> {
    run_all(op, alg, p, root, true, |_| CallData::Bytes(bytes))
}

fn sent_by(msgs: &[Msg], r: u32) -> Vec<(u32, u64)> {
    msgs.iter()
        .filter(|m| m.0 == r)
        .map(|m| (m.1, m.2))
        .collect()
}

fn bytes_received(msgs: &[Msg], r: u32) -> u64 {
    msgs.iter().filter(|m| m.1 == r).map(|m| m.2).sum()
}

fn bytes_sent(msgs: &[Msg], r: u32) -> u64 {
    msgs.iter().filter(|m| m.0 == r).map(|m| m.2).sum()
}

fn count_received(msgs: &[Msg], r: u32) -> usize {
    msgs.iter().filter(|m| m.1 == r).count()
}

fn count_sent(msgs: &[Msg], r: u32) -> usize {
    msgs.iter().filter(|m| m.0 == r).count()
}

fn total(msgs: &[Msg]) -> u64 {
    msgs.iter().map(|m| m.2).sum()
}

fn lg(p: u32) -> usize {
    p.next_power_of_two().trailing_zeros() as usize
}

// ---------------------------------------------------------------------------------
// Hand-computed schedules.

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

// ---------------------------------------------------------------------------------
// Invariants over every rank of one collective.

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
