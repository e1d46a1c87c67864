//! Where the arguments the passes over a rank's records read sit in each call's record, resolved once
//! from the layout table so that a pass never compares argument names per record.

use crate::trace::dumpi::layout::CALLS;
use crate::trace::dumpi::Record;
use std::sync::LazyLock;

/// The arguments the passes over a rank's records read, by their names in the layout
/// table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    Count,
    Datatype,
    Dest,
    Comm,
    Request,
    Requests,
    SendCount,
    SendType,
    SendCounts,
    SendTypes,
    RecvCount,
    RecvType,
    RecvCounts,
    Root,
    Op,
    Commute,
    OldComm,
    NewComm,
    Color,
    Key,
    Group,
    NewGroup,
    Group1,
    Group2,
    Ranks,
    Ranges,
    Dims,
    RemainDims,
    OldType,
    OldTypes,
    NewType,
    Lengths,
    BlockLength,
    BlockLengths,
    SubSizes,
    OriginCount,
    OriginType,
    TargetRank,
    Win,
    Function,
    Parent,
    Source,
    Tag,
    SendTag,
    RecvTag,
    Flag,
    Index,
    Indices,
}

impl Arg {
    /// The argument's name in the layout table.
    pub(crate) fn name(self) -> &'static str {
        NAMES[self as usize]
    }
}

/// The layout-table name of every [`Arg`], in declaration order.
const NAMES: [&str; 48] = [
    "count",
    "datatype",
    "dest",
    "comm",
    "request",
    "requests",
    "sendcount",
    "sendtype",
    "sendcounts",
    "sendtypes",
    "recvcount",
    "recvtype",
    "recvcounts",
    "root",
    "op",
    "commute",
    "oldcomm",
    "newcomm",
    "color",
    "key",
    "group",
    "newgroup",
    "group1",
    "group2",
    "ranks",
    "ranges",
    "dims",
    "remain_dims",
    "oldtype",
    "oldtypes",
    "newtype",
    "lengths",
    "blocklength",
    "blocklengths",
    "subsizes",
    "origincount",
    "origintype",
    "targetrank",
    "win",
    "fn",
    "parent",
    "source",
    "tag",
    "sendtag",
    "recvtag",
    "flag",
    "index",
    "indices",
];

/// Marks an argument the call does not have.
const ABSENT: u8 = u8::MAX;

/// Per function label, the position of each [`Arg`] among the call's arguments.
static POSITIONS: LazyLock<Vec<[u8; NAMES.len()]>> = LazyLock::new(|| {
    CALLS
        .iter()
        .map(|call| {
            NAMES.map(|name| {
                call.index_of(name)
                    .and_then(|i| u8::try_from(i).ok())
                    .unwrap_or(ABSENT)
            })
        })
        .collect()
});

/// The position of `arg` in the record of a call labelled `label`, if it has one.
pub(crate) fn position(label: u16, arg: Arg) -> Option<usize> {
    let p = *POSITIONS.get(label as usize)?.get(arg as usize)?;
    (p != ABSENT).then_some(p as usize)
}

/// Typed reads of a record's arguments by [`Arg`].
pub(crate) trait ArgsOf {
    /// The scalar of `arg` (an array's count), when the call has it and it was stored.
    fn get(&self, arg: Arg) -> Option<i64>;
    /// The elements of the integer-like array `arg`, when the call has it and stored it.
    fn list(&self, arg: Arg) -> Option<&[i64]>;
}

impl ArgsOf for Record {
    fn get(&self, arg: Arg) -> Option<i64> {
        let i = position(self.label, arg)?;
        let v = self.value(i);
        v.present().then_some(v.scalar)
    }

    fn list(&self, arg: Arg) -> Option<&[i64]> {
        self.ints(position(self.label, arg)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_exists_in_the_layout_table_and_positions_match_it() {
        for (k, name) in NAMES.iter().enumerate() {
            let holders = CALLS.iter().filter(|c| c.index_of(name).is_some()).count();
            assert!(holders > 0, "no call has an argument `{name}`");
            for (label, call) in CALLS.iter().enumerate() {
                let p = POSITIONS[label][k];
                assert_eq!(
                    call.index_of(name),
                    (p != ABSENT).then_some(p as usize),
                    "{} {name}",
                    call.name
                );
            }
        }
        assert_eq!(NAMES[Arg::Function as usize], "fn");
        assert_eq!(NAMES[Arg::SubSizes as usize], "subsizes");
        assert_eq!(position(0, Arg::Dest), Some(2));
        assert_eq!(position(33, Arg::SendType), Some(1));
        assert_eq!(position(0, Arg::Root), None);
        assert_eq!(position(9999, Arg::Count), None);
    }
}
