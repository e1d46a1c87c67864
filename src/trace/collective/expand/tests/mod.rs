//! Schedules checked against hand-computed message lists for small communicators
//! ([`by_hand`]), in corner cases ([`edges`]), and against invariants over every rank of
//! one collective for p up to 64 ([`invariants`]). This file holds what they share.

mod by_hand;
mod edges;
mod invariants;

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
