//! The logical clocks: every rank's events replayed for all configurations at once,
//! messages matched across ranks, collectives synchronised, time split by cause.
//!
//! Each rank keeps, per configuration k, a clock and the make-up of the path of calls
//! and messages that set it (its critical path so far): the computation, latency and
//! bandwidth time along that path, which add up to the clock. A message that arrives
//! after the receiver's clock hands the receiver the sender's path plus α and nβ; a
//! collective hands every member the path of the latest one plus the operation's
//! Hockney time. These live in one flat array ([`clocks`]), rank-major, with the
//! configurations of one quantity contiguous, so that every event updates `K` adjacent
//! floats in vector kernels ([`kernels`]), and replaying 63 configurations costs little
//! more than one (1.12× to 1.20× on the benchmark trace, see the README). Off a fabric
//! the blocks leave out the contention, which is 0 there.
//!
//! Ranks advance in the order of their calls' wall-clock entry times in the trace (a
//! heap of ranks keyed by their next call), so a wildcard receive matches the message
//! the original run had sent by then; on a fabric ([`routed`]), in the order of their
//! clocks instead. A rank that must wait (a receive whose message is
//! not sent yet, a rendezvous send whose receive is not posted, a collective some
//! member has not reached) is parked until what it waits for happens. Time O(events ·
//! (K + log ranks + matching-queue length)); memory O(ranks · K + messages in flight ·
//! K), whatever the trace's length.

use super::event::{Event, Kind, MemberData, Slot, Slots};
use super::{ReplayError, ReplayNotes};
use crate::flow::RankRoutes;
use crate::trace::collective::{cost, AlgorithmChoice, CollectiveOp};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod clocks;
mod kernels;
mod messages;
mod routed;

pub use clocks::Clocks;
use clocks::{split, TimePool};
use kernels::latest_of;
use routed::Routed;

/// Where a rank's events come from (a trace's rank file, or a list in tests).
pub trait Source {
    /// Puts the next event in `into`, None at the end. (In place: the replay keeps
    /// each rank's event where this writes it.)
    fn next_event(&mut self, into: &mut Option<Event>) -> Result<(), ReplayError>;
    /// The file the events come from, for errors.
    fn path(&self) -> &str;
    /// Whether the rank may make synchronous sends. When no rank does, a receive that
    /// holds no more than the eager limit can only take eager messages, and the replay
    /// does not keep a copy of its clocks at the post (which only a rendezvous transfer
    /// reads).
    fn may_send_synchronously(&self) -> bool;
}

/// The network of every configuration, and the protocol rules shared by all.
#[derive(Debug, Clone)]
pub struct Network {
    /// Per configuration: the time of one message, s (α).
    pub alpha: Vec<f64>,
    /// Per configuration: the time per byte, s (β = 1 / bandwidth).
    pub beta: Vec<f64>,
    /// Messages larger than this many bytes use the rendezvous protocol.
    pub eager_limit: u64,
    /// The collective algorithms.
    pub algorithms: AlgorithmChoice,
}

/// A message between its send and its last completion.
#[derive(Debug, Clone)]
struct Message {
    src: u32,
    dst: u32,
    comm: u32,
    tag: i32,
    bytes: u64,
    rendezvous: bool,
    /// Whether a receive has taken it.
    matched: bool,
    /// Completions still to come (the receiver's, and the sender's when rendezvous).
    refs: u8,
    /// Where the path stands when the transfer starts (the sender's at the send; for
    /// rendezvous, once matched, the later of that and the receiver's at the post).
    start: u32,
}

/// A posted receive no message has matched yet.
#[derive(Debug, Clone)]
struct Posted {
    comm: u32,
    src: Option<u32>,
    tag: Option<i32>,
    slot: Slot,
    post: Post,
}

/// The receiver's clocks when it posted a receive, as the match sees them.
#[derive(Debug, Clone, Copy)]
enum Post {
    /// It posts at the match: its clocks as they stand.
    Now,
    /// A copy of its block at the post, in the time pool.
    Kept(u32),
    /// Not kept: the receive could only take eager messages.
    NotKept,
}

/// A request slot's state.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Request {
    /// Nothing to wait for.
    Idle,
    /// Complete (an eager send).
    Done,
    /// A rendezvous send of this message.
    Send(u32),
    /// A receive, matched to this message or not yet.
    Recv(Option<u32>),
}

/// One collective call on its way: members arrive, the last releases them all.
#[derive(Debug, Clone)]
struct Instance {
    op: CollectiveOp,
    arrived: u32,
    /// The block of the latest member arrived so far, per configuration.
    latest: u32,
    cost_bytes: Option<u64>,
    selection_bytes: u64,
    commutative: bool,
    /// On a fabric, the members' data as their records give it, by member.
    data: Vec<(u32, Box<MemberData>)>,
}

/// The collective calls of one communicator: the k-th call of every member is the same
/// call.
#[derive(Debug, Clone, Default)]
struct CommCalls {
    /// Calls each member made so far, by its rank in the communicator.
    made: Vec<u64>,
    /// Call number of `pending[0]`.
    first: u64,
    pending: VecDeque<Instance>,
}

/// One rank's place in the replay.
#[derive(Debug)]
struct RankState {
    /// The event being replayed (its computation already on the clocks).
    current: Option<Event>,
    requests: Vec<Request>,
    /// Arrived at the collective of `current`, waiting for the others.
    in_collective: bool,
    /// The collective of `current` has released it.
    collective_done: bool,
    /// Waiting, out of the heap.
    parked: bool,
    /// The key the completion of `current` was last put off until (on a fabric only).
    deferred: Option<i64>,
    /// On a fabric, the collective this rank released, while its messages move.
    draining: Option<Box<routed::Draining>>,
    /// On a fabric, the message of the one-sided transfer of `current`, while it moves.
    transfer: Option<u32>,
}

/// A clock as a heap key: non-negative floats order as their bits.
fn time_key(t: f64) -> i64 {
    t.max(0.0).to_bits() as i64
}

/// Replays the events of `sources` (one per world rank) on `network`; `members` lists
/// each trace-wide communicator's members in rank order.
pub fn replay<S: Source>(
    sources: &mut [S],
    members: &[Vec<u32>],
    network: &Network,
) -> Result<(Clocks, ReplayNotes), ReplayError> {
    // Whole lanes for the kernels: the last configuration repeated, its copies'
    // clocks dropped at the end.
    let configs = network.alpha.len();
    let lanes = kernels::padded(configs);
    let pad = |values: &[f64]| {
        let mut padded = values.to_vec();
        padded.resize(lanes, values.last().copied().unwrap_or(0.0));
        padded
    };
    let padded = Network {
        alpha: pad(&network.alpha),
        beta: pad(&network.beta),
        ..network.clone()
    };
    let mut engine = Engine::new(sources.len(), members, &padded, None);
    engine.run(sources)?;
    let clocks = if lanes == configs {
        engine.clocks
    } else {
        engine.clocks.truncated(configs)
    };
    Ok((clocks, engine.notes))
}

/// Replays as [`replay`], with every point-to-point message routed from its sender's
/// host to its receiver's through `routes` (which places every rank): messages in
/// flight at the same time share the links they cross, max-min fair
/// ([`crate::flow`]), each configuration's links at its bandwidth. A message's time
/// beyond its bytes at full bandwidth is its contention.
///
/// The ranks advance in the order of their clocks on the first configuration (a
/// discrete-event simulation of it), not in the trace's wall-clock order: a completion
/// is put off until every other rank's clock has reached the time its messages would
/// end if no other message started, and again while messages that start before then
/// move that end later; so every message that starts before the end shares the links
/// with them. On the other configurations the order is that of the first; a message
/// met after the network's time passed its start moves at full rate until then. Replay
/// one configuration at a time for exact sharing on each ([`routed`]).
pub fn replay_routed<'a, S: Source>(
    sources: &mut [S],
    members: &'a [Vec<u32>],
    network: &'a Network,
    routes: &'a RankRoutes<'a>,
) -> Result<(Clocks, ReplayNotes), ReplayError> {
    let mut engine = Engine::new(
        sources.len(),
        members,
        network,
        Some(Routed::new(routes, network)),
    );
    engine.run(sources)?;
    Ok((engine.clocks, engine.notes))
}

struct Engine<'a> {
    network: &'a Network,
    fabric: Option<Routed<'a>>,
    members: &'a [Vec<u32>],
    clocks: Clocks,
    ranks: Vec<RankState>,
    times: TimePool,
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    /// Per rank: receives posted and not matched, in posting order.
    posted: Vec<Vec<Posted>>,
    /// Per rank: messages sent to it and not matched, in sending order.
    unexpected: Vec<Vec<u32>>,
    comms: Vec<CommCalls>,
    /// Ranks ready to run, by their next call's wall time (then rank).
    heap: BinaryHeap<Reverse<(i64, u32)>>,
    notes: ReplayNotes,
    /// Scratch for the per-configuration times of one event.
    scratch: Vec<f64>,
    /// Whether some rank may send synchronously ([`Source::may_send_synchronously`]).
    synchronous_sends: bool,
}

/// What running a rank's current event did.
enum Step {
    Done,
    Blocked,
    /// Put back on the heap, later.
    Deferred,
}

impl<'a> Engine<'a> {
    fn new(
        ranks: usize,
        members: &'a [Vec<u32>],
        network: &'a Network,
        fabric: Option<Routed<'a>>,
    ) -> Self {
        let k = network.alpha.len();
        // Off a fabric there is no contention to keep.
        let clocks = Clocks::new(ranks, k, fabric.is_some());
        let block = clocks.block_len();
        Engine {
            network,
            fabric,
            members,
            clocks,
            ranks: (0..ranks)
                .map(|_| RankState {
                    current: None,
                    requests: Vec::new(),
                    in_collective: false,
                    collective_done: false,
                    parked: false,
                    deferred: None,
                    draining: None,
                    transfer: None,
                })
                .collect(),
            times: TimePool {
                k: block,
                data: Vec::new(),
                free: Vec::new(),
            },
            messages: Vec::new(),
            free_messages: Vec::new(),
            posted: vec![Vec::new(); ranks],
            unexpected: vec![Vec::new(); ranks],
            comms: members
                .iter()
                .map(|m| CommCalls {
                    made: vec![0; m.len()],
                    ..CommCalls::default()
                })
                .collect(),
            heap: BinaryHeap::new(),
            notes: ReplayNotes::default(),
            scratch: vec![0.0; block],
            synchronous_sends: true,
        }
    }

    fn run<S: Source>(&mut self, sources: &mut [S]) -> Result<(), ReplayError> {
        self.synchronous_sends = sources.iter().any(Source::may_send_synchronously);
        for r in 0..sources.len() {
            if self.fetch(r, sources)? {
                self.push(r);
            }
        }
        loop {
            while let Some(Reverse((_, r))) = self.heap.pop() {
                self.run_rank(r as usize, sources)?;
            }
            if self.ranks.iter().all(|s| s.current.is_none()) {
                break;
            }
            if !self.relieve_deadlock() {
                return Err(self.stuck(sources));
            }
        }
        self.notes.unreceived_messages +=
            self.unexpected.iter().map(|u| u.len() as u64).sum::<u64>();
        self.clocks.settle_all();
        Ok(())
    }

    /// Runs rank `r` while its calls come before every other ready rank's.
    fn run_rank<S: Source>(&mut self, r: usize, sources: &mut [S]) -> Result<(), ReplayError> {
        loop {
            match self.step(r, sources[r].path()).map_err(|e| *e)? {
                Step::Blocked => {
                    self.ranks[r].parked = true;
                    return Ok(());
                }
                Step::Deferred => return Ok(()),
                Step::Done => {
                    if !self.fetch(r, sources)? {
                        return Ok(());
                    }
                    let key = self.key(r);
                    if let Some(Reverse((next, _))) = self.heap.peek() {
                        if key > *next {
                            self.push(r);
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// Rank `r`'s place in the order of the ranks: its next call's wall time, or on a
    /// fabric its clock on the first configuration.
    fn key(&self, r: usize) -> i64 {
        match self.ranks[r].current.as_ref() {
            None => i64::MAX,
            Some(e) if self.fabric.is_none() => e.wall,
            Some(_) => time_key(self.clocks.clock(r)[0]),
        }
    }

    fn push(&mut self, r: usize) {
        self.heap.push(Reverse((self.key(r), r as u32)));
    }

    /// Puts a parked rank back among the ready ones.
    fn wake(&mut self, r: usize) {
        if self.ranks[r].parked {
            self.ranks[r].parked = false;
            self.push(r);
        }
    }

    /// Loads rank `r`'s next event and puts its computation on the clocks; false at
    /// the end of its events.
    fn fetch<S: Source>(&mut self, r: usize, sources: &mut [S]) -> Result<bool, ReplayError> {
        let state = &mut self.ranks[r];
        sources[r].next_event(&mut state.current)?;
        state.deferred = None;
        let Some(event) = &state.current else {
            return Ok(false);
        };
        self.clocks.add_gap(r, event.gap);
        Ok(true)
    }

    /// Runs rank `r`'s current event. The error is boxed, and the common events are
    /// read in place, because this runs once per event: a large result written in
    /// pieces and read back whole stalls the processor's store forwarding.
    fn step(&mut self, r: usize, path: &str) -> Result<Step, Box<ReplayError>> {
        let Some(event) = &self.ranks[r].current else {
            return Ok(Step::Done);
        };
        match event.kind {
            Kind::Local => return Ok(Step::Done),
            Kind::Send {
                dst,
                comm,
                tag,
                bytes,
                sync,
                slot,
            } => {
                self.send(r, dst, comm, tag, bytes, sync, slot);
                return Ok(Step::Done);
            }
            Kind::Recv {
                src,
                comm,
                tag,
                slot,
                capacity,
            } => {
                self.recv(r, src, comm, tag, slot, capacity);
                return Ok(Step::Done);
            }
            Kind::Complete(Slots::Inline { len, slots }) => {
                let slots = &slots[..len as usize];
                return Ok(if self.settle_after(r, slots) {
                    Step::Deferred
                } else {
                    self.complete(r, slots)
                });
            }
            Kind::Transfer { bytes, peer, get } => {
                return Ok(match peer {
                    Some(peer) if self.fabric.is_some() => {
                        self.transfer_routed(r, bytes, peer, get)
                    }
                    _ => {
                        self.transfer(r, bytes);
                        Step::Done
                    }
                });
            }
            Kind::Complete(Slots::Heap(_)) | Kind::Collective { .. } => {}
        }
        // The others need the event while the engine changes: it is taken out and put
        // back.
        let Some(mut event) = self.ranks[r].current.take() else {
            return Ok(Step::Done);
        };
        let step = match &mut event.kind {
            Kind::Complete(slots) => {
                if self.settle_after(r, slots) {
                    Ok(Step::Deferred)
                } else {
                    Ok(self.complete(r, slots))
                }
            }
            Kind::Collective {
                op,
                comm,
                member,
                cost_bytes,
                selection_bytes,
                commutative,
                data,
            } => {
                let call = Instance {
                    op: *op,
                    arrived: 1,
                    latest: 0,
                    cost_bytes: *cost_bytes,
                    selection_bytes: *selection_bytes,
                    commutative: *commutative,
                    // A member's data goes into the call once, at its arrival.
                    data: data.take().map(|d| (*member, d)).into_iter().collect(),
                };
                let (comm, member) = (*comm, *member);
                self.collective(r, comm, member, call)
                    .map_err(|message| Box::new(ReplayError::at(path, event.at, message)))
            }
            Kind::Local | Kind::Send { .. } | Kind::Recv { .. } | Kind::Transfer { .. } => {
                Ok(Step::Done)
            }
        };
        self.ranks[r].current = Some(event);
        step
    }

    fn request(&mut self, r: usize, slot: Slot) -> &mut Request {
        let requests = &mut self.ranks[r].requests;
        let i = slot as usize;
        if requests.len() <= i {
            requests.resize(i + 1, Request::Idle);
        }
        &mut requests[i]
    }

    /// Rank `r` arrives at its next collective call on `comm`.
    fn collective(
        &mut self,
        r: usize,
        comm: u32,
        member: u32,
        mut call: Instance,
    ) -> Result<Step, String> {
        if self.ranks[r].draining.is_some() {
            return Ok(self.settle_collective(r));
        }
        let state = &mut self.ranks[r];
        if state.collective_done {
            state.collective_done = false;
            state.in_collective = false;
            return Ok(Step::Done);
        }
        if state.in_collective {
            return Ok(Step::Blocked);
        }
        let size = self.members[comm as usize].len();
        let calls = &mut self.comms[comm as usize];
        let made = &mut calls.made[member as usize];
        let index = (*made - calls.first) as usize;
        *made += 1;
        let k = self.clocks.configs;
        let block = self.clocks.block(r);
        if index == calls.pending.len() {
            let latest = self.times.alloc(block);
            calls.pending.push_back(Instance { latest, ..call });
        } else {
            let pending = &mut calls.pending[index];
            if pending.op != call.op {
                return Err(format!(
                    "{} where another member of its communicator calls {} at the same point",
                    call.op, pending.op
                ));
            }
            pending.arrived += 1;
            pending.cost_bytes = pending.cost_bytes.max(call.cost_bytes);
            pending.selection_bytes = pending.selection_bytes.max(call.selection_bytes);
            pending.commutative &= call.commutative;
            pending.data.append(&mut call.data);
            let latest = pending.latest;
            latest_of(self.times.get_mut(latest), block, k);
        }
        self.ranks[r].in_collective = true;
        let calls = &mut self.comms[comm as usize];
        if calls
            .pending
            .front()
            .is_some_and(|p| p.arrived as usize == size)
        {
            let done = calls.pending.pop_front().expect("checked");
            calls.first += 1;
            return self.release(comm, done, r);
        }
        Ok(Step::Blocked)
    }

    /// Every member of `comm` leaves collective `call` together after its Hockney time;
    /// `current` (the last to arrive) goes on by itself, the others are woken. On a
    /// fabric, the operation's messages start moving instead, and the members leave
    /// when they have arrived ([`Engine::settle_collective`]).
    fn release(&mut self, comm: u32, call: Instance, current: usize) -> Result<Step, String> {
        let members = &self.members[comm as usize];
        let p = members.len() as u32;
        let algorithm =
            self.network
                .algorithms
                .select(call.op, p, call.selection_bytes, call.commutative);
        let unit = cost(
            call.op,
            algorithm,
            p,
            call.cost_bytes.unwrap_or(0),
            1.0,
            1.0,
            0.0,
        )
        .map_err(|e| e.to_string())?;
        let (messages, bytes) = (unit.latency, unit.bandwidth);
        if self.fabric.is_some() && call.data.len() == members.len() {
            return self.route_collective(comm, call, algorithm, messages, bytes, current);
        }
        self.scratch.copy_from_slice(self.times.get(call.latest));
        self.times.release(call.latest);
        // The latest member's path, then the operation.
        let k = self.clocks.configs;
        {
            let [clock, _, latency, bandwidth, _] = split(&mut self.scratch, k);
            for i in 0..k {
                let lat = messages * self.network.alpha[i];
                let bw = bytes * self.network.beta[i];
                clock[i] += lat + bw;
                latency[i] += lat;
                bandwidth[i] += bw;
            }
        }
        self.leave_together(comm, current);
        Ok(Step::Done)
    }

    /// Every member of `comm` leaves its collective with the path in `scratch`;
    /// `current` (the one releasing it) goes on by itself, the others are woken.
    fn leave_together(&mut self, comm: u32, current: usize) {
        for &m in &self.members[comm as usize] {
            self.clocks
                .block_mut(m as usize)
                .copy_from_slice(&self.scratch);
            let state = &mut self.ranks[m as usize];
            state.in_collective = false;
            if m as usize != current {
                state.collective_done = true;
                self.wake(m as usize);
            }
        }
    }

    /// A one-sided transfer off a fabric: the origin pays one message.
    fn transfer(&mut self, r: usize, bytes: u64) {
        let (n, k) = (bytes as f64, self.clocks.configs);
        let [clock, _, latency, bandwidth, _] = split(self.clocks.block_mut(r), k);
        for k in 0..clock.len() {
            let (lat, bw) = (self.network.alpha[k], n * self.network.beta[k]);
            latency[k] += lat;
            bandwidth[k] += bw;
            clock[k] += lat + bw;
        }
    }

    /// When every rank waits: a blocked rendezvous send completes as if buffered (the
    /// original run did not deadlock, so its MPI buffered it). False when no rank waits
    /// on one.
    fn relieve_deadlock(&mut self) -> bool {
        for r in 0..self.ranks.len() {
            let Some(Event {
                kind: Kind::Complete(slots),
                ..
            }) = &self.ranks[r].current
            else {
                continue;
            };
            for &slot in slots.iter() {
                if let Some(&Request::Send(m)) = self.ranks[r].requests.get(slot as usize) {
                    if !self.messages[m as usize].matched {
                        let message = &mut self.messages[m as usize];
                        message.rendezvous = false;
                        // Its data moves from the send, as an eager message's.
                        self.start_flow(m);
                        self.ranks[r].requests[slot as usize] = Request::Done;
                        self.release_message(m);
                        self.notes.rendezvous_buffered += 1;
                        self.wake(r);
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The error when no rank can go on: the first waiting rank and what it waits for.
    fn stuck<S: Source>(&self, sources: &[S]) -> ReplayError {
        let (r, event) = self
            .ranks
            .iter()
            .enumerate()
            .find_map(|(r, s)| s.current.as_ref().map(|e| (r, e)))
            .expect("some rank has an event left");
        let what = match &event.kind {
            Kind::Collective { op, .. } => {
                format!("rank {r} waits in {op} for members that never call it")
            }
            _ => format!("rank {r} waits for a message no rank sends"),
        };
        ReplayError::at(sources[r].path(), event.at, what)
    }
}
