//! What the replay sees of a rank: its MPI calls lowered to a few kinds of events, with
//! world ranks, trace-wide communicator ids, byte counts and dense request slots.

use crate::trace::collective::{CallData, CollectiveOp};

/// A request slot of one rank: a blocking call's own slot ([`Event::BLOCKING_SEND`],
/// [`Event::BLOCKING_RECV`]) or a trace's request handle shifted past them.
pub type Slot = u32;

/// One event of a rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Wall-clock entry time of the call in the trace, ns: the order in which the
    /// replay takes the events of all ranks (so that a wildcard receive matches the
    /// sends the original run had made by then).
    pub wall: i64,
    /// Computation before the call, s (the trace's time since the previous call
    /// returned).
    pub gap: f64,
    /// Byte offset of the call's record, for errors.
    pub at: u64,
    /// What the call does.
    pub kind: Kind,
}

impl Event {
    /// The slot of a blocking send (`MPI_Send`, the send half of `MPI_Sendrecv`).
    pub const BLOCKING_SEND: Slot = 0;
    /// The slot of a blocking receive.
    pub const BLOCKING_RECV: Slot = 1;
    /// The first slot of a trace's request handles: handle `h` is slot `h + FIRST_HANDLE`.
    pub const FIRST_HANDLE: Slot = 2;
}

/// What one call does, as the clocks see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Only computation before it (a call that moves no data: `MPI_Finalize`, the end).
    Local,
    /// A message leaves: it is stamped with the sender's clock; the sender goes on
    /// (its request, in `slot`, completes at once when the message is eager, when the
    /// receiver has posted its receive and the data has moved when it is rendezvous).
    Send {
        /// Receiving world rank.
        dst: u32,
        /// Trace-wide communicator id.
        comm: u32,
        /// Tag.
        tag: i32,
        /// Message bytes.
        bytes: u64,
        /// Synchronous (`MPI_Ssend`, `MPI_Issend`): always rendezvous.
        sync: bool,
        /// The request slot the send completes in.
        slot: Slot,
    },
    /// A receive is posted: it matches the first message from `src` (any when None) with
    /// `tag` (any when None) on `comm`, in the order messages were sent.
    Recv {
        /// Sending world rank, None for `MPI_ANY_SOURCE`.
        src: Option<u32>,
        /// Trace-wide communicator id.
        comm: u32,
        /// Tag, None for `MPI_ANY_TAG`.
        tag: Option<i32>,
        /// The request slot the receive completes in.
        slot: Slot,
        /// The bytes its buffer holds (no valid message is larger), None when its
        /// datatype's size is unknown.
        capacity: Option<u64>,
    },
    /// The rank waits until the requests in these slots complete (a `Wait*`, or a
    /// `Test*` that found them complete), in this order.
    Complete(Slots),
    /// A collective call: the rank waits for every member, then all leave together
    /// after the operation's Hockney time (on a fabric, its bandwidth time stretched
    /// to when its messages, routed, have all arrived).
    Collective {
        /// The operation.
        op: CollectiveOp,
        /// Trace-wide communicator id.
        comm: u32,
        /// This rank's rank in the communicator.
        member: u32,
        /// The `n` of the cost expression as this rank's record gives it (None when
        /// only another member's record holds it: gatherv and scatterv off the root).
        cost_bytes: Option<u64>,
        /// The size MPICH's algorithm choice compares with its thresholds.
        selection_bytes: u64,
        /// Whether the reduction operator is commutative.
        commutative: bool,
        /// This member's data as its record gives it, kept only for a replay on a
        /// fabric, which routes the operation's messages (None otherwise).
        data: Option<Box<MemberData>>,
    },
    /// A one-sided transfer (`MPI_Put`, `MPI_Get`, `MPI_Accumulate`): the origin pays
    /// one message's time (on a fabric, its data's time on the route between the two).
    Transfer {
        /// Bytes moved.
        bytes: u64,
        /// The target's world rank (None when the trace does not say which window's
        /// group it is in).
        peer: Option<u32>,
        /// The data moves from the target to the origin (`MPI_Get`).
        get: bool,
    },
}

/// One member's own data of a collective call (its trace record's sizes): what
/// [`crate::trace::collective::RankCall`] needs to list the messages it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberData {
    /// The root's rank in the communicator (operations with a root).
    pub root: u32,
    /// One size ([`CallData::Bytes`]) when `per_rank` is None.
    pub bytes: u64,
    /// One size per rank of the communicator ([`CallData::PerRank`]).
    pub per_rank: Option<Box<[u64]>>,
}

impl MemberData {
    /// The data as [`crate::trace::collective::RankCall`] takes it.
    pub fn call_data(&self) -> CallData<'_> {
        match &self.per_rank {
            Some(sizes) => CallData::PerRank(sizes),
            None => CallData::Bytes(self.bytes),
        }
    }
}

/// The request slots of one completion: up to two held inline (a `Wait`, a blocking
/// call, a `Waitall` of one send and one receive: the common cases, without an
/// allocation per call), more on the heap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slots {
    /// `len` ≤ 2 slots.
    Inline {
        /// How many of `slots` count.
        len: u8,
        /// The slots, the first `len` of them.
        slots: [Slot; 2],
    },
    /// More than two.
    Heap(Box<[Slot]>),
}

impl std::ops::Deref for Slots {
    type Target = [Slot];

    fn deref(&self) -> &[Slot] {
        match self {
            Slots::Inline { len, slots } => &slots[..*len as usize],
            Slots::Heap(slots) => slots,
        }
    }
}

impl From<&[Slot]> for Slots {
    fn from(slots: &[Slot]) -> Self {
        match *slots {
            [] => Slots::Inline {
                len: 0,
                slots: [0; 2],
            },
            [a] => Slots::Inline {
                len: 1,
                slots: [a, 0],
            },
            [a, b] => Slots::Inline {
                len: 2,
                slots: [a, b],
            },
            _ => Slots::Heap(slots.into()),
        }
    }
}

impl<const N: usize> From<[Slot; N]> for Slots {
    fn from(slots: [Slot; N]) -> Self {
        Slots::from(&slots[..])
    }
}

impl FromIterator<Slot> for Slots {
    /// Collects without an allocation when there are at most two.
    fn from_iter<I: IntoIterator<Item = Slot>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let mut first = [0; 2];
        for (n, place) in first.iter_mut().enumerate() {
            match iter.next() {
                Some(slot) => *place = slot,
                None => {
                    return Slots::Inline {
                        len: n as u8,
                        slots: first,
                    }
                }
            }
        }
        match iter.next() {
            None => Slots::Inline {
                len: 2,
                slots: first,
            },
            Some(third) => {
                let mut all = first.to_vec();
                all.push(third);
                all.extend(iter);
                Slots::Heap(all.into_boxed_slice())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_keep_their_order_inline_or_not() {
        for n in 0..6u32 {
            let want: Vec<Slot> = (10..10 + n).collect();
            let collected: Slots = want.iter().copied().collect();
            let converted = Slots::from(&want[..]);
            assert_eq!(&*collected, &want[..]);
            assert_eq!(&*converted, &want[..]);
            assert_eq!(matches!(collected, Slots::Inline { .. }), n <= 2);
        }
        assert_eq!(&*Slots::from([4, 5]), &[4, 5]);
    }
}
