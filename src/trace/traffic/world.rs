//! One rank's tallies as world-rank pairs: peers translated through their resolved
//! communicators, collectives expanded into their algorithm's messages.

use super::rank::{CollectiveKey, RankTraffic, Tally};
use super::{Collectives, Pair, TrafficError, TrafficOptions};
use crate::error::LocatedError;
use crate::trace::collective::RankCall;
use crate::trace::comm::{Communicators, LocalComm};

/// The pairs world rank `rank` (file `path`) contributes: its sends and the
/// expansions of its collectives, and the gets it receives (as the target's sends).
pub(super) fn pairs(
    rank: u32,
    traffic: &RankTraffic,
    comms: &Communicators,
    options: &TrafficOptions,
    path: &str,
) -> Result<Vec<Pair>, TrafficError> {
    let mut out = Vec::new();
    for (&(comm, peer), t) in &traffic.sends {
        let dst = peer_rank(rank, comm, peer, comms, path, t)?;
        out.push(pair(rank, dst, t));
    }
    for (&(comm, peer), t) in &traffic.gets {
        let src = peer_rank(rank, comm, peer, comms, path, t)?;
        out.push(pair(src, rank, t));
    }
    if let Collectives::Expand(choice) = &options.collectives {
        for (key, t) in &traffic.collectives {
            expand(rank, key, t, comms, choice, path, &mut out)?;
        }
    }
    Ok(out)
}

fn pair(src: u32, dst: u32, t: &Tally) -> Pair {
    Pair {
        src,
        dst,
        bytes: t.bytes,
        messages: t.messages,
    }
}

/// The world rank of rank `peer` of `comm`, or an error at the first record naming it.
fn peer_rank(
    rank: u32,
    comm: LocalComm,
    peer: i64,
    comms: &Communicators,
    path: &str,
    t: &Tally,
) -> Result<u32, TrafficError> {
    let Some(members) = comms.members(rank, comm) else {
        return Err(located(
            path,
            t.at,
            format!("peer {peer} is named through an intercommunicator, whose remote group's order is not in the trace"),
        ));
    };
    usize::try_from(peer)
        .ok()
        .and_then(|p| members.get(p))
        .copied()
        .ok_or_else(|| {
            located(
                path,
                t.at,
                format!(
                    "peer rank {peer} is outside its communicator of {} ranks",
                    members.len()
                ),
            )
        })
}

fn located(path: &str, at: u64, message: String) -> TrafficError {
    TrafficError::Input(LocatedError::at_byte(path, at, message))
}

/// Appends the messages `t.messages` identical collective calls `key` of world rank
/// `rank` send.
fn expand(
    rank: u32,
    key: &CollectiveKey,
    t: &Tally,
    comms: &Communicators,
    choice: &crate::trace::collective::AlgorithmChoice,
    path: &str,
    out: &mut Vec<Pair>,
) -> Result<(), TrafficError> {
    let unresolved = || {
        located(
            path,
            t.at,
            format!("{} on a communicator that is not resolved", key.op),
        )
    };
    let members = comms.members(rank, key.comm).ok_or_else(unresolved)?;
    let me = members
        .iter()
        .position(|&m| m == rank)
        .ok_or_else(unresolved)?;
    let size = members.len() as u32;
    let root = u32::try_from(key.root).unwrap_or(u32::MAX);
    let call = RankCall {
        op: key.op,
        rank: me as u32,
        size,
        root,
        commutative: key.commutative,
        data: key.sizes.call_data(),
    };
    let calls = t.messages;
    let algorithm = call.algorithm(choice);
    call.expand(algorithm, |dst, bytes| {
        out.push(Pair {
            src: rank,
            dst: members[dst as usize],
            bytes: bytes.saturating_mul(calls),
            messages: calls,
        })
    })
    .map_err(|source| TrafficError::Collective {
        path: path.to_string(),
        at: t.at,
        source,
    })
}

/// Sums the pairs of the same (src, dst) and sorts them by src then dst.
/// O(P log P).
pub(super) fn merge(mut pairs: Vec<Pair>) -> Vec<Pair> {
    pairs.sort_unstable_by_key(|p| (p.src, p.dst));
    let mut merged: Vec<Pair> = Vec::with_capacity(pairs.len());
    for p in pairs {
        match merged.last_mut() {
            Some(last) if (last.src, last.dst) == (p.src, p.dst) => {
                last.bytes = last.bytes.saturating_add(p.bytes);
                last.messages += p.messages;
            }
            _ => merged.push(p),
        }
    }
    merged
}
