//! What the replay sees of a rank: its MPI calls lowered to a few kinds of events, with
//! world ranks, trace-wide communicator ids, byte counts and dense request slots.

use crate::trace::collective::CollectiveOp;

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
    },
    /// The rank waits until the requests in these slots complete (a `Wait*`, or a
    /// `Test*` that found them complete), in this order.
    Complete(Box<[Slot]>),
    /// A collective call: the rank waits for every member, then all leave together
    /// after the operation's Hockney time.
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
    },
    /// A one-sided transfer (`MPI_Put`, `MPI_Get`, `MPI_Accumulate`): the origin pays
    /// one message's time.
    Transfer {
        /// Bytes moved.
        bytes: u64,
    },
}
