//! The bytes a call's record moves: `count × size(datatype)` of a message and the data
//! sizes of a collective call, from the trace's own datatype sizes.

use crate::trace::args::{Arg, ArgsOf};
use crate::trace::collective::{CallData, CollectiveOp};
use crate::trace::datatype::Datatypes;
use crate::trace::dumpi::Record;

/// The data sizes of one collective call, in bytes (an owned [`CallData`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Sizes {
    None,
    Bytes(u64),
    PerRank(Box<[u64]>),
}

impl Sizes {
    /// The sizes as [`crate::trace::collective::RankCall`] takes them.
    pub(crate) fn call_data(&self) -> CallData<'_> {
        match self {
            Sizes::None => CallData::None,
            Sizes::Bytes(b) => CallData::Bytes(*b),
            Sizes::PerRank(v) => CallData::PerRank(v),
        }
    }
}

/// `count` elements of `datatype` as `rec` records them, in bytes; None when the count
/// or the datatype's size is unknown.
pub(crate) fn message_bytes(
    types: &Datatypes,
    rec: &Record,
    count: Arg,
    datatype: Arg,
) -> Option<u64> {
    let count = rec.get(count).unwrap_or(0);
    rec.get(datatype).and_then(|t| types.bytes(count, t))
}

/// The data sizes of collective `op` recorded by `rec`, and whether some size was
/// unknown (counted as 0 bytes).
pub(crate) fn collective_sizes(types: &Datatypes, op: CollectiveOp, rec: &Record) -> (Sizes, bool) {
    use CollectiveOp as Op;
    let mut unknown = false;
    let mut sized = |count, datatype| {
        message_bytes(types, rec, count, datatype).unwrap_or_else(|| {
            unknown = true;
            0
        })
    };
    let at_root = rec.list(Arg::RecvCounts).is_some();
    let sizes = match op {
        Op::Barrier => Sizes::None,
        Op::Bcast | Op::Reduce | Op::Allreduce | Op::Scan | Op::Exscan => {
            Sizes::Bytes(sized(Arg::Count, Arg::Datatype))
        }
        Op::Gather | Op::Allgather | Op::Alltoall => {
            Sizes::Bytes(sized(Arg::SendCount, Arg::SendType))
        }
        // The root's block equals every other rank's: read the receive side, which
        // every rank records.
        Op::Scatter => Sizes::Bytes(sized(Arg::RecvCount, Arg::RecvType)),
        Op::Scatterv if rec.list(Arg::SendCounts).is_none() => {
            Sizes::Bytes(sized(Arg::RecvCount, Arg::RecvType))
        }
        Op::Gatherv if !at_root => Sizes::Bytes(sized(Arg::SendCount, Arg::SendType)),
        Op::Gatherv | Op::Allgatherv => {
            per_rank(types, rec, Arg::RecvCounts, Arg::RecvType, &mut unknown)
        }
        Op::Scatterv | Op::Alltoallv => {
            per_rank(types, rec, Arg::SendCounts, Arg::SendType, &mut unknown)
        }
        Op::ReduceScatter | Op::ReduceScatterBlock => {
            per_rank(types, rec, Arg::RecvCounts, Arg::Datatype, &mut unknown)
        }
        Op::Alltoallw => per_rank_typed(types, rec, &mut unknown),
    };
    (sizes, unknown)
}

/// `counts[i] × size(datatype)` for each rank.
fn per_rank(
    types: &Datatypes,
    rec: &Record,
    counts: Arg,
    datatype: Arg,
    unknown: &mut bool,
) -> Sizes {
    let counts = rec.list(counts).unwrap_or(&[]);
    let datatype = rec.get(datatype).unwrap_or(-1);
    let sizes = counts
        .iter()
        .map(|&c| {
            types.bytes(c, datatype).unwrap_or_else(|| {
                *unknown = true;
                0
            })
        })
        .collect();
    Sizes::PerRank(sizes)
}

/// `sendcounts[i] × size(sendtypes[i])` for each rank (`MPI_Alltoallw`).
fn per_rank_typed(types: &Datatypes, rec: &Record, unknown: &mut bool) -> Sizes {
    let counts = rec.list(Arg::SendCounts).unwrap_or(&[]);
    let datatypes = rec.list(Arg::SendTypes).unwrap_or(&[]);
    let sizes = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let t = datatypes.get(i).copied().unwrap_or(-1);
            types.bytes(c, t).unwrap_or_else(|| {
                *unknown = true;
                0
            })
        })
        .collect();
    Sizes::PerRank(sizes)
}
