//! One rank's DUMPI records lowered to replay events: peers and communicators in
//! trace-wide terms, message sizes from the trace's datatypes, requests as slots, and
//! the computation between calls.
//!
//! Computation is the time between one call's return and the next call's entry, and
//! the time inside local calls, which move no data and wait for no one (`MPI_Wtime`,
//! `MPI_Comm_rank`, `MPI_Type_commit`, `MPI_Pack`, MPI-IO, for which the model has no
//! file system, …). The time inside calls that communicate is the traced network's,
//! replaced by the model's.

use super::event::{Event, Kind, MemberData, Slot, Slots};
use super::{ReplayError, ReplayNotes};
use crate::error::LocatedError;
use crate::trace::args::{Arg, ArgsOf};
use crate::trace::collective::{CallData, CollectiveOp, RankCall};
use crate::trace::comm::{Communicators, Handle, LocalComm, RankComms};
use crate::trace::datatype::Datatypes;
use crate::trace::dumpi::layout::CALLS;
use crate::trace::dumpi::{RankFile, Record, Stream};
use crate::trace::label;
use crate::trace::sizes::{collective_sizes, message_bytes, Sizes};
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// Request handles above this are refused: slots are a dense array per rank.
const MAX_HANDLE: i64 = 1 << 24;

/// The calls that move data, synchronise ranks or poll for them: their time in the
/// trace is the traced network's, which the replay replaces. Every other call is local
/// work (`MPI_Wtime`, `MPI_Comm_rank`, `MPI_Type_*`, `MPI_Pack`, MPI-IO, …), and its
/// time counts as computation. Collectives are added by [`label::collective_op`].
const NETWORK_CALLS: [&str; 52] = [
    "MPI_Send",
    "MPI_Recv",
    "MPI_Bsend",
    "MPI_Ssend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Ibsend",
    "MPI_Issend",
    "MPI_Irsend",
    "MPI_Irecv",
    "MPI_Wait",
    "MPI_Test",
    "MPI_Waitany",
    "MPI_Testany",
    "MPI_Waitall",
    "MPI_Testall",
    "MPI_Waitsome",
    "MPI_Testsome",
    "MPI_Iprobe",
    "MPI_Probe",
    "MPI_Cancel",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_Comm_split",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Comm_accept",
    "MPI_Comm_connect",
    "MPI_Comm_disconnect",
    "MPI_Comm_spawn",
    "MPI_Comm_spawn_multiple",
    "MPI_Comm_join",
    "MPI_Accumulate",
    "MPI_Get",
    "MPI_Put",
    "MPI_Win_create",
    "MPI_Win_fence",
    "MPI_Win_free",
    "MPI_Win_complete",
    "MPI_Win_post",
    "MPI_Win_start",
    "MPI_Win_wait",
    "MPI_Win_test",
    "MPI_Win_lock",
    "MPI_Win_unlock",
];

/// Whether the time inside each function label's calls is computation: local calls, not
/// `MPI_Init` and `MPI_Finalize` (start-up and tear-down), not the annotations.
static LOCAL_CALLS: LazyLock<Vec<bool>> = LazyLock::new(|| {
    CALLS
        .iter()
        .enumerate()
        .map(|(l, c)| {
            c.name.starts_with("MPI_")
                && !NETWORK_CALLS.contains(&c.name)
                && !matches!(
                    c.name,
                    "MPI_Init" | "MPI_Init_thread" | "MPI_Finalize" | "MPI_Abort"
                )
                && label::collective_op(l as u16).is_none()
        })
        .collect()
});

/// Reads the communicator-making calls of one rank (the first pass, before
/// [`crate::trace::comm::resolve`]).
pub(super) fn read_comms(file: &RankFile, rank: u32, size: u32) -> Result<RankComms, ReplayError> {
    let mut comms = RankComms::new(file.name.clone(), rank, size);
    // The footer counts every call: without a communicator call there is nothing to
    // follow, and the pass (a whole decode of the file) is skipped.
    if let Some(footer) = &file.footer {
        if !crate::trace::comm::may_follow(&footer.calls, &footer.ignored) {
            return Ok(comms);
        }
    }
    let mut stream = file.stream()?;
    let mut rec = Record::default();
    while stream.next_into(&mut rec)? {
        crate::trace::comm::follow(&mut comms, &rec, &file.name)?;
    }
    Ok(comms)
}

/// A persistent request made by `MPI_*_init`, posted at each `MPI_Start`.
#[derive(Debug, Clone, Copy)]
enum Persistent {
    Send {
        comm: LocalComm,
        dest: i64,
        tag: i32,
        bytes: u64,
        sync: bool,
    },
    Recv {
        comm: LocalComm,
        source: i64,
        tag: i32,
        capacity: Option<u64>,
    },
}

/// One rank's events, lowered as its file streams by.
pub(super) struct RankEvents<'f> {
    path: &'f str,
    rank: u32,
    stream: Stream<'f>,
    rec: Record,
    comms: RankComms,
    communicators: &'f Communicators,
    /// Per local communicator: (trace-wide id, this rank's rank in it).
    ids: Vec<Option<(u32, u32)>>,
    /// The communicator handle last looked up and what it named, until a call makes or
    /// frees a communicator.
    last_comm: Option<(Handle, LocalComm)>,
    types: Datatypes,
    ops: FxHashMap<i64, bool>,
    windows: FxHashMap<i64, LocalComm>,
    persistent: FxHashMap<i64, Persistent>,
    /// When the previous call returned, ns.
    last_return: Option<i64>,
    /// Computation since the last event, s.
    gap: f64,
    /// Events lowered and not handed out yet: the batch being filled.
    out: Vec<Event>,
    /// Whether the end's computation has been handed out.
    ended: bool,
    /// Whether the replay is on a fabric: collective events then carry their member's
    /// data, and one-sided transfers their target.
    keep_data: bool,
    /// Whether the rank may make synchronous sends (see [`Source::may_send_synchronously`]).
    synchronous_sends: bool,
    pub(super) notes: ReplayNotes,
}

/// Whether the rank of `file` may make synchronous sends: its footer counts some, or it
/// has no footer (or one too short to tell).
fn may_send_synchronously(file: &RankFile) -> bool {
    use label::{ISSEND, SSEND, SSEND_INIT};
    file.footer.as_ref().is_none_or(|footer| {
        [SSEND, ISSEND, SSEND_INIT]
            .iter()
            .any(|&l| footer.calls.get(l as usize).is_none_or(|&n| n > 0))
    })
}

impl<'f> RankEvents<'f> {
    pub(super) fn new(
        file: &'f RankFile,
        rank: u32,
        size: u32,
        communicators: &'f Communicators,
    ) -> Result<Self, ReplayError> {
        Ok(RankEvents {
            path: &file.name,
            rank,
            stream: file.stream()?,
            rec: Record::default(),
            comms: RankComms::new(file.name.clone(), rank, size),
            communicators,
            ids: Vec::new(),
            last_comm: None,
            types: Datatypes::new(file.sizes.clone()),
            ops: FxHashMap::default(),
            windows: FxHashMap::default(),
            persistent: FxHashMap::default(),
            last_return: None,
            gap: 0.0,
            out: Vec::new(),
            ended: false,
            keep_data: false,
            synchronous_sends: may_send_synchronously(file),
            notes: ReplayNotes::default(),
        })
    }

    /// Makes collective events carry this rank's data and one-sided transfers their
    /// target, which a replay on a fabric needs to route their messages.
    pub(super) fn keeping_collective_data(mut self, keep: bool) -> Self {
        self.keep_data = keep;
        self
    }

    fn error(&self, message: String) -> ReplayError {
        ReplayError::Input(LocatedError::at_byte(
            self.path,
            self.rec.offset,
            format!("{}: {message}", self.rec.name()),
        ))
    }

    /// Moves the record's computation onto the pending gap: the time since the previous
    /// call returned, and the call's own time when it is local.
    fn account_time(&mut self) {
        let (start, stop) = (self.rec.wall.start.nanos(), self.rec.wall.stop.nanos());
        if let Some(last) = self.last_return {
            self.gap += (start - last).max(0) as f64 * 1e-9;
        }
        if LOCAL_CALLS
            .get(self.rec.label as usize)
            .copied()
            .unwrap_or(false)
        {
            self.gap += (stop - start).max(0) as f64 * 1e-9;
        }
        self.last_return = Some(stop);
    }

    /// Adds an event of the current record to the batch, carrying the computation
    /// before it.
    fn emit(&mut self, kind: Kind) {
        let gap = std::mem::take(&mut self.gap);
        self.out.push(Event {
            wall: self.rec.wall.start.nanos(),
            gap,
            at: self.rec.offset,
            kind,
        });
    }

    fn comm(&mut self, arg: Arg) -> Result<LocalComm, ReplayError> {
        let handle = self
            .rec
            .get(arg)
            .and_then(|h| Handle::try_from(h).ok())
            .ok_or_else(|| self.error(format!("`{}` is not recorded", arg.name())))?;
        // Most calls name the communicator the call before named.
        if let Some((last, comm)) = self.last_comm {
            if last == handle {
                return Ok(comm);
            }
        }
        let comm = self.comms.current(handle, self.rec.offset)?;
        self.last_comm = Some((handle, comm));
        Ok(comm)
    }

    /// The trace-wide id of `comm` and this rank's rank in it.
    fn id(&mut self, comm: LocalComm) -> Result<(u32, u32), ReplayError> {
        let i = comm.0 as usize;
        if let Some(Some(id)) = self.ids.get(i) {
            return Ok(*id);
        }
        let global = self.communicators.global(self.rank, comm).ok_or_else(|| {
            self.error("the communicator is an intercommunicator, whose remote group's order is not in the trace".into())
        })?;
        let members = self.communicators.members_of(global);
        let me = members
            .iter()
            .position(|&m| m == self.rank)
            .ok_or_else(|| self.error("this rank is not a member of the communicator".into()))?;
        if self.ids.len() <= i {
            self.ids.resize(i + 1, None);
        }
        self.ids[i] = Some((global, me as u32));
        Ok((global, me as u32))
    }

    /// The world rank of rank `peer` of `comm`.
    fn world(&mut self, comm: LocalComm, peer: i64) -> Result<u32, ReplayError> {
        let (global, _) = self.id(comm)?;
        self.world_in(global, peer)
    }

    /// The world rank of rank `peer` of the trace-wide communicator `global`.
    fn world_in(&self, global: u32, peer: i64) -> Result<u32, ReplayError> {
        let members = self.communicators.members_of(global);
        usize::try_from(peer)
            .ok()
            .and_then(|p| members.get(p))
            .copied()
            .ok_or_else(|| {
                self.error(format!(
                    "peer rank {peer} is outside its communicator of {} ranks",
                    members.len()
                ))
            })
    }

    fn slot(&self, handle: i64) -> Result<Slot, ReplayError> {
        if (0..MAX_HANDLE).contains(&handle) {
            Ok(handle as Slot + Event::FIRST_HANDLE)
        } else {
            Err(self.error(format!(
                "request handle {handle} is outside 0..{MAX_HANDLE}"
            )))
        }
    }

    /// The slots of the request handles `handles`, in their order (an error for a
    /// handle out of range).
    fn slots(&self, handles: &[i64]) -> Result<Slots, ReplayError> {
        Ok(match *handles {
            [a] => Slots::from([self.slot(a)?]),
            [a, b] => Slots::from([self.slot(a)?, self.slot(b)?]),
            _ => handles
                .iter()
                .map(|&h| self.slot(h))
                .collect::<Result<_, _>>()?,
        })
    }

    fn int(&self, arg: Arg) -> i64 {
        self.rec.get(arg).unwrap_or(-1)
    }

    fn tag(&self, arg: Arg) -> i32 {
        i32::try_from(self.int(arg)).unwrap_or(-1)
    }

    fn bytes(&mut self, count: Arg, datatype: Arg) -> u64 {
        message_bytes(&self.types, &self.rec, count, datatype).unwrap_or_else(|| {
            self.notes.unsized_messages += 1;
            0
        })
    }

    /// A send of `bytes` to rank `dest` of `comm`, completing in `slot`.
    fn send(
        &mut self,
        comm: LocalComm,
        dest: i64,
        tag: i32,
        bytes: u64,
        sync: bool,
        slot: Slot,
    ) -> Result<(), ReplayError> {
        if dest < 0 {
            self.notes.null_peer_messages += 1;
            return Ok(());
        }
        let (comm, _) = self.id(comm)?;
        let dst = self.world_in(comm, dest)?;
        self.emit(Kind::Send {
            dst,
            comm,
            tag,
            bytes,
            sync,
            slot,
        });
        Ok(())
    }

    /// The bytes a buffer of `count` elements of `datatype` holds, None when the
    /// datatype's size is unknown (a receive's size is not counted as a message's).
    fn capacity(&self, count: Arg, datatype: Arg) -> Option<u64> {
        message_bytes(&self.types, &self.rec, count, datatype)
    }

    /// A receive from rank `source` of `comm` (-1: any) into a buffer of `capacity`
    /// bytes, completing in `slot`.
    fn recv(
        &mut self,
        comm: LocalComm,
        source: i64,
        tag: i32,
        capacity: Option<u64>,
        slot: Slot,
    ) -> Result<(), ReplayError> {
        if source < -1 {
            // MPI_PROC_NULL: the receive completes at once, with nothing.
            self.notes.null_peer_messages += 1;
            return Ok(());
        }
        let (comm, _) = self.id(comm)?;
        let src = match source {
            -1 => None,
            s => Some(self.world_in(comm, s)?),
        };
        self.emit(Kind::Recv {
            src,
            comm,
            tag: (tag != -1).then_some(tag),
            slot,
            capacity,
        });
        Ok(())
    }

    fn record(&mut self) -> Result<(), ReplayError> {
        use label::*;
        let l = self.rec.label;
        match l {
            SEND | BSEND | RSEND | SSEND | ISEND | IBSEND | IRSEND | ISSEND => {
                let comm = self.comm(Arg::Comm)?;
                let (dest, tag) = (self.int(Arg::Dest), self.tag(Arg::Tag));
                let bytes = self.bytes(Arg::Count, Arg::Datatype);
                let blocking = matches!(l, SEND | BSEND | RSEND | SSEND);
                let slot = if blocking {
                    Event::BLOCKING_SEND
                } else {
                    self.slot(self.int(Arg::Request))?
                };
                self.send(comm, dest, tag, bytes, matches!(l, SSEND | ISSEND), slot)?;
                if blocking {
                    self.emit(Kind::Complete(Slots::from([slot])));
                }
            }
            RECV | IRECV => {
                let comm = self.comm(Arg::Comm)?;
                let (source, tag) = (self.int(Arg::Source), self.tag(Arg::Tag));
                let slot = if l == RECV {
                    Event::BLOCKING_RECV
                } else {
                    self.slot(self.int(Arg::Request))?
                };
                let capacity = self.capacity(Arg::Count, Arg::Datatype);
                self.recv(comm, source, tag, capacity, slot)?;
                if l == RECV {
                    self.emit(Kind::Complete(Slots::from([slot])));
                }
            }
            SENDRECV | SENDRECV_REPLACE => {
                let comm = self.comm(Arg::Comm)?;
                let (bytes, capacity) = if l == SENDRECV {
                    (
                        self.bytes(Arg::SendCount, Arg::SendType),
                        self.capacity(Arg::RecvCount, Arg::RecvType),
                    )
                } else {
                    let bytes = self.bytes(Arg::Count, Arg::Datatype);
                    (bytes, self.capacity(Arg::Count, Arg::Datatype))
                };
                let (dest, source) = (self.int(Arg::Dest), self.int(Arg::Source));
                let (sendtag, recvtag) = (self.tag(Arg::SendTag), self.tag(Arg::RecvTag));
                self.send(comm, dest, sendtag, bytes, false, Event::BLOCKING_SEND)?;
                self.recv(comm, source, recvtag, capacity, Event::BLOCKING_RECV)?;
                self.emit(Kind::Complete(Slots::from([
                    Event::BLOCKING_SEND,
                    Event::BLOCKING_RECV,
                ])));
            }
            WAIT => {
                let slot = self.slot(self.int(Arg::Request))?;
                self.emit(Kind::Complete(Slots::from([slot])));
            }
            TEST => {
                if self.int(Arg::Flag) > 0 {
                    let slot = self.slot(self.int(Arg::Request))?;
                    self.emit(Kind::Complete(Slots::from([slot])));
                }
            }
            WAITALL | TESTALL => {
                if l == WAITALL || self.int(Arg::Flag) > 0 {
                    let slots = self.slots(self.rec.list(Arg::Requests).unwrap_or(&[]))?;
                    self.emit(Kind::Complete(slots));
                }
            }
            WAITANY | TESTANY => {
                let index = self.int(Arg::Index);
                let done = l == WAITANY || self.int(Arg::Flag) > 0;
                let handle = usize::try_from(index)
                    .ok()
                    .and_then(|i| self.rec.list(Arg::Requests)?.get(i).copied());
                if let (true, Some(h)) = (done, handle) {
                    let slot = self.slot(h)?;
                    self.emit(Kind::Complete(Slots::from([slot])));
                }
            }
            WAITSOME | TESTSOME => {
                let requests = self.rec.list(Arg::Requests).unwrap_or(&[]);
                let handles: Vec<i64> = self
                    .rec
                    .list(Arg::Indices)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|&i| {
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| requests.get(i).copied())
                    })
                    .collect();
                if !handles.is_empty() {
                    let slots = self.slots(&handles)?;
                    self.emit(Kind::Complete(slots));
                }
            }
            SEND_INIT | BSEND_INIT | SSEND_INIT | RSEND_INIT => {
                let comm = self.comm(Arg::Comm)?;
                let bytes = self.bytes(Arg::Count, Arg::Datatype);
                let p = Persistent::Send {
                    comm,
                    dest: self.int(Arg::Dest),
                    tag: self.tag(Arg::Tag),
                    bytes,
                    sync: l == SSEND_INIT,
                };
                self.persistent.insert(self.int(Arg::Request), p);
            }
            RECV_INIT => {
                let comm = self.comm(Arg::Comm)?;
                let p = Persistent::Recv {
                    comm,
                    source: self.int(Arg::Source),
                    tag: self.tag(Arg::Tag),
                    capacity: self.capacity(Arg::Count, Arg::Datatype),
                };
                self.persistent.insert(self.int(Arg::Request), p);
            }
            START => self.start(self.int(Arg::Request))?,
            STARTALL => {
                for h in self.rec.list(Arg::Requests).unwrap_or(&[]).to_vec() {
                    self.start(h)?;
                }
            }
            REQUEST_FREE => {
                self.persistent.remove(&self.int(Arg::Request));
            }
            PUT | GET | ACCUMULATE => {
                let bytes = self.bytes(Arg::OriginCount, Arg::OriginType);
                let target = self.int(Arg::TargetRank);
                if target < 0 {
                    self.notes.null_peer_messages += 1;
                } else {
                    // Only a replay on a fabric routes the data. A window created before
                    // the trace began has no group to find the target's world rank in:
                    // such a transfer is not routed.
                    let window = self.windows.get(&self.int(Arg::Win)).copied();
                    let peer = match window.filter(|_| self.keep_data) {
                        Some(comm) => Some(self.world(comm, target)?),
                        None => None,
                    };
                    self.emit(Kind::Transfer {
                        bytes,
                        peer,
                        get: l == GET,
                    });
                }
            }
            WIN_CREATE => {
                let comm = self.comm(Arg::Comm)?;
                self.windows.insert(self.int(Arg::Win), comm);
            }
            WIN_FREE => {
                self.windows.remove(&self.int(Arg::Win));
            }
            WIN_FENCE => {
                let win = self.int(Arg::Win);
                let comm = *self
                    .windows
                    .get(&win)
                    .ok_or_else(|| self.error(format!("window {win} is not defined here")))?;
                let (comm, member) = self.id(comm)?;
                self.emit(Kind::Collective {
                    op: CollectiveOp::Barrier,
                    comm,
                    member,
                    cost_bytes: Some(0),
                    selection_bytes: 0,
                    commutative: true,
                    data: None,
                });
            }
            OP_CREATE => {
                if let (Some(op), Some(c)) = (self.rec.get(Arg::Op), self.rec.get(Arg::Commute)) {
                    self.ops.insert(op, c != 0);
                }
            }
            OP_FREE => {
                self.ops.remove(&self.int(Arg::Op));
            }
            FINALIZE => self.emit(Kind::Local),
            _ => {
                if self.types.follow(&self.rec) {
                    return Ok(());
                }
                if crate::trace::comm::follow(&mut self.comms, &self.rec, self.path)? {
                    // A handle may now name another communicator.
                    self.last_comm = None;
                    return Ok(());
                }
                if let Some(op) = label::collective_op(l) {
                    self.collective(op)?;
                }
            }
        }
        Ok(())
    }

    fn start(&mut self, handle: i64) -> Result<(), ReplayError> {
        let slot = self.slot(handle)?;
        match self.persistent.get(&handle).copied() {
            Some(Persistent::Send {
                comm,
                dest,
                tag,
                bytes,
                sync,
            }) => self.send(comm, dest, tag, bytes, sync, slot),
            Some(Persistent::Recv {
                comm,
                source,
                tag,
                capacity,
            }) => self.recv(comm, source, tag, capacity, slot),
            None => Ok(()),
        }
    }

    fn collective(&mut self, op: CollectiveOp) -> Result<(), ReplayError> {
        let comm = self.comm(Arg::Comm)?;
        if self.comms.is_inter(comm) {
            self.notes.intercomm_collectives += 1;
            return Ok(());
        }
        let (global, member) = self.id(comm)?;
        let size = self.communicators.members_of(global).len() as u32;
        let commutative = self
            .rec
            .get(Arg::Op)
            .and_then(|op| self.ops.get(&op).copied())
            .unwrap_or(true);
        let (sizes, unknown) = collective_sizes(&self.types, op, &self.rec);
        if unknown {
            self.notes.unsized_messages += 1;
        }
        let call = RankCall {
            op,
            rank: member,
            size,
            root: u32::try_from(self.int(Arg::Root)).unwrap_or(u32::MAX),
            commutative,
            data: sizes.call_data(),
        };
        call.validate().map_err(|e| self.error(e.to_string()))?;
        let (cost_bytes, selection_bytes) =
            (call.cost_bytes(), call.selection_bytes().unwrap_or(0));
        let data = if self.keep_data {
            let root = call.root;
            let bytes = match call.data {
                CallData::Bytes(b) => b,
                _ => 0,
            };
            let per_rank = match sizes {
                Sizes::PerRank(sizes) => Some(sizes),
                _ => None,
            };
            Some(Box::new(MemberData {
                root,
                bytes,
                per_rank,
            }))
        } else {
            None
        };
        self.emit(Kind::Collective {
            op,
            comm: global,
            member,
            cost_bytes,
            selection_bytes,
            commutative,
            data,
        });
        Ok(())
    }
}

impl RankEvents<'_> {
    /// The next batch of the rank's events, in `room` (emptied, its allocation reused):
    /// records lowered straight into it until it holds at least `batch` events (a record
    /// adds a few at most) or the rank ends; with the end, and its error if any. Events
    /// of a record that fails are left out.
    pub(super) fn next_batch(
        &mut self,
        batch: usize,
        mut room: Vec<Event>,
    ) -> (Vec<Event>, Option<Result<(), ReplayError>>) {
        let mut end = None;
        room.clear();
        self.out = room;
        self.out.reserve(batch);
        while self.out.len() < batch {
            match self.stream.next_into(&mut self.rec) {
                Ok(true) => {
                    let before = self.out.len();
                    self.account_time();
                    if let Err(e) = self.record() {
                        self.out.truncate(before);
                        end = Some(Err(e));
                        break;
                    }
                }
                Ok(false) => {
                    // The computation after the last call, as one event of its own.
                    if !self.ended && self.gap != 0.0 {
                        self.ended = true;
                        self.emit(Kind::Local);
                    }
                    end = Some(Ok(()));
                    break;
                }
                Err(e) => {
                    end = Some(Err(e.into()));
                    break;
                }
            }
        }
        (std::mem::take(&mut self.out), end)
    }

    pub(super) fn path(&self) -> &str {
        self.path
    }

    pub(super) fn may_send_synchronously(&self) -> bool {
        self.synchronous_sends
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(name: &str) -> bool {
        let label = CALLS.iter().position(|c| c.name == name).unwrap();
        LOCAL_CALLS[label]
    }

    #[test]
    fn local_calls_are_the_ones_that_neither_move_data_nor_wait() {
        for name in NETWORK_CALLS {
            assert!(CALLS.iter().any(|c| c.name == name), "{name}");
            assert!(!local(name), "{name}");
        }
        for name in [
            "MPI_Wtime",
            "MPI_Comm_rank",
            "MPI_Type_commit",
            "MPI_Pack",
            "MPI_File_read",
            "MPI_Send_init",
        ] {
            assert!(local(name), "{name}");
        }
        for name in [
            "MPI_Bcast",
            "MPI_Alltoallw",
            "MPI_Init",
            "MPI_Finalize",
            "Function_enter",
        ] {
            assert!(!local(name), "{name}");
        }
    }
}
