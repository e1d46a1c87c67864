//! What a replay on a fabric adds to the engine: each message's route, the flows on
//! the links per configuration, and when a completion may be settled.

use super::clocks::{parts, split};
use super::{time_key, Engine, Instance, Message, Network, Request, Step};
use crate::flow::{FlowNetwork, RankRoutes, Routes};
use crate::trace::collective::{Algorithm, RankCall};
use crate::trace::replay::event::Slot;
use std::cmp::Reverse;

/// A collective whose messages move on the fabric: released (every member arrived),
/// not yet settled.
#[derive(Debug)]
pub(super) struct Draining {
    comm: u32,
    /// The path of the latest member, where every message starts (a block shared by
    /// the messages, released once).
    latest: u32,
    /// The operation's messages.
    messages: Vec<u32>,
    /// The Hockney cost per unit α and per unit β: the latency and (uncontended)
    /// bandwidth parts.
    alpha_units: f64,
    beta_units: f64,
}

/// What a contention-aware replay adds: the routes, and per configuration the flows on
/// the links.
pub(super) struct Routed<'r> {
    routes: &'r RankRoutes<'r>,
    /// Per message id: its links.
    links: Routes,
    /// Per configuration.
    flows: Vec<FlowNetwork>,
}

impl<'r> Routed<'r> {
    pub(super) fn new(routes: &'r RankRoutes<'r>, network: &Network) -> Self {
        Routed {
            routes,
            links: Routes::default(),
            flows: (0..network.alpha.len())
                .map(|_| routes.flow_network())
                .collect(),
        }
    }
}

impl Engine<'_> {
    /// On a fabric, puts off the completion of `slots` by rank `r` until when its
    /// messages would end on the first configuration if no other message started
    /// ([`Engine::put_off`]); false when there is no fabric or it may be settled now.
    pub(super) fn settle_after(&mut self, r: usize, slots: &[Slot]) -> bool {
        let Some(fabric) = self.fabric.as_mut() else {
            return false;
        };
        let requests = &self.ranks[r].requests;
        let mut latest = f64::NEG_INFINITY;
        for &s in slots {
            let m = match requests.get(s as usize) {
                Some(&Request::Send(m)) if self.messages[m as usize].matched => m,
                Some(&Request::Recv(Some(m))) => m,
                _ => continue,
            };
            latest = latest.max(fabric.flows[0].expected_finish(m, &fabric.links));
        }
        self.put_off(r, latest)
    }

    /// Puts rank `r`'s current event back on the heap, keyed by `latest`, when that is
    /// after its clock on the first configuration and after the key it was last put
    /// off until. Every rank whose clock is below runs first, and the messages they
    /// start share the links; when none did, the event is settled. Keys grow at every
    /// putting off, so this ends. False when the event may be settled now.
    fn put_off(&mut self, r: usize, latest: f64) -> bool {
        let key = time_key(latest);
        let later = self.ranks[r].deferred.is_none_or(|last| key > last);
        if latest > self.clocks.clock(r)[0] && later {
            self.ranks[r].deferred = Some(key);
            self.heap.push(Reverse((key, r as u32)));
            return true;
        }
        false
    }

    /// Message `m`'s data starts moving (its start is settled): on a fabric, its flow
    /// joins the links of its route in every configuration.
    pub(super) fn start_flow(&mut self, m: u32) {
        let Some(fabric) = &mut self.fabric else {
            return;
        };
        let message = &self.messages[m as usize];
        let route = fabric.links.clear(m);
        fabric
            .routes
            .walk(message.src, message.dst, |link| route.push(link));
        let n = message.bytes as f64;
        let start = &self.times.get(message.start)[..self.clocks.configs];
        for (k, flows) in fabric.flows.iter_mut().enumerate() {
            flows.add(m, start[k], n * self.network.beta[k], &fabric.links);
        }
    }

    /// [`Engine::arrive`] on a fabric: the transfer ends when its flow finishes, then α;
    /// the time beyond nβ is contention (part of the bandwidth time).
    pub(super) fn arrive_routed(&mut self, r: usize, m: u32) {
        let fabric = self.fabric.as_mut().expect("called on a fabric");
        let message = &self.messages[m as usize];
        let n = message.bytes as f64;
        let k = self.clocks.configs;
        let [s_clock, s_computation, s_latency, s_bandwidth, s_contention] =
            parts(self.times.get(message.start), k);
        let [clock, computation, latency, bandwidth, contention] =
            split(self.clocks.block_mut(r), k);
        let (alpha, beta) = (&self.network.alpha, &self.network.beta);
        for (k, flows) in fabric.flows.iter_mut().enumerate() {
            let wire = n * beta[k];
            let finish = flows.finish(m, &fabric.links);
            let mut transfer = (finish - s_clock[k]).max(wire);
            // The flow network advances in steps; what they leave of rounding is not
            // contention.
            if transfer - wire <= 1e-12 * finish.abs() {
                transfer = wire;
            }
            let arrival = s_clock[k] + transfer + alpha[k];
            if arrival > clock[k] {
                clock[k] = arrival;
                computation[k] = s_computation[k];
                latency[k] = s_latency[k] + alpha[k];
                bandwidth[k] = s_bandwidth[k] + transfer;
                contention[k] = s_contention[k] + (transfer - wire);
            }
        }
    }
}

impl Engine<'_> {
    /// Starts collective `call` on a fabric: every member's messages under `algorithm`
    /// (as [`RankCall::expand`] lists them for its own record) leave together when the
    /// latest member arrives, as flows on their routes. `current`, the last to arrive,
    /// holds the operation until it is settled. Data that moves within one host, or no
    /// data, takes no link.
    pub(super) fn route_collective(
        &mut self,
        comm: u32,
        call: Instance,
        algorithm: Algorithm,
        alpha_units: f64,
        beta_units: f64,
        current: usize,
    ) -> Result<Step, String> {
        let members = &self.members[comm as usize];
        let size = members.len() as u32;
        let mut pairs = Vec::new();
        for (member, data) in &call.data {
            let rank_call = RankCall {
                op: call.op,
                rank: *member,
                size,
                root: data.root,
                commutative: call.commutative,
                data: data.call_data(),
            };
            let src = members[*member as usize];
            rank_call
                .expand(algorithm, |dst, bytes| {
                    if bytes > 0 {
                        pairs.push((src, members[dst as usize], bytes));
                    }
                })
                .map_err(|e| e.to_string())?;
        }
        let mut messages = Vec::with_capacity(pairs.len());
        for (src, dst, bytes) in pairs {
            let message = Message {
                src,
                dst,
                comm,
                tag: 0,
                bytes,
                rendezvous: false,
                matched: true,
                refs: 1,
                start: call.latest,
            };
            let m = self.new_message(message);
            self.start_flow(m);
            messages.push(m);
        }
        self.ranks[current].draining = Some(Box::new(Draining {
            comm,
            latest: call.latest,
            messages,
            alpha_units,
            beta_units,
        }));
        Ok(self.settle_collective(current))
    }

    /// The collective rank `r` holds: put off ([`Engine::put_off`]),
    /// until every rank has passed the time its messages would have all arrived; then
    /// every member leaves with the latest member's path, the operation's latency, and
    /// its bandwidth time: the Hockney time nβ, or when the routed messages take longer
    /// to arrive, that time, the excess being contention.
    pub(super) fn settle_collective(&mut self, r: usize) -> Step {
        let fabric = self.fabric.as_mut().expect("called on a fabric");
        let draining = self.ranks[r]
            .draining
            .as_ref()
            .expect("called while draining");
        let latest = fabric.flows[0].expected_last_finish(&draining.messages, &fabric.links);
        if self.put_off(r, latest) {
            return Step::Deferred;
        }
        let draining = *self.ranks[r].draining.take().expect("checked");
        let fabric = self.fabric.as_mut().expect("checked");
        self.scratch
            .copy_from_slice(self.times.get(draining.latest));
        self.times.release(draining.latest);
        {
            let configs = self.clocks.configs;
            let [clock, _, latency, bandwidth, contention] = split(&mut self.scratch, configs);
            for (k, flows) in fabric.flows.iter_mut().enumerate() {
                let start = clock[k];
                let arrived = draining
                    .messages
                    .iter()
                    .fold(start, |last, &m| last.max(flows.finish(m, &fabric.links)));
                let wire = draining.beta_units * self.network.beta[k];
                let mut transfer = (arrived - start).max(wire);
                // What the flow network's steps leave of rounding is not contention.
                if transfer - wire <= 1e-12 * arrived.abs() {
                    transfer = wire;
                }
                let lat = draining.alpha_units * self.network.alpha[k];
                clock[k] += lat + transfer;
                latency[k] += lat;
                bandwidth[k] += transfer;
                contention[k] += transfer - wire;
            }
        }
        for m in draining.messages {
            // The start block is the collective's, released above.
            self.free_messages.push(m);
        }
        self.leave_together(draining.comm, r);
        Step::Done
    }
}

impl Engine<'_> {
    /// A one-sided transfer on a fabric: its data moves from the origin `r` to `peer`
    /// (from `peer` when `get`) as a message does, starting at the origin's clock, and
    /// the origin waits for it as for a blocking send's arrival (settled the same way),
    /// so its time beyond nβ is contention.
    pub(super) fn transfer_routed(&mut self, r: usize, bytes: u64, peer: u32, get: bool) -> Step {
        let m = match self.ranks[r].transfer {
            Some(m) => m,
            None => {
                let (src, dst) = if get {
                    (peer, r as u32)
                } else {
                    (r as u32, peer)
                };
                let start = self.times.alloc(self.clocks.block(r));
                let m = self.new_message(Message {
                    src,
                    dst,
                    comm: u32::MAX,
                    tag: 0,
                    bytes,
                    rendezvous: false,
                    matched: true,
                    refs: 1,
                    start,
                });
                self.start_flow(m);
                self.ranks[r].transfer = Some(m);
                m
            }
        };
        let fabric = self.fabric.as_mut().expect("called on a fabric");
        let latest = fabric.flows[0].expected_finish(m, &fabric.links);
        if self.put_off(r, latest) {
            return Step::Deferred;
        }
        self.ranks[r].transfer = None;
        self.arrive_routed(r, m);
        self.release_message(m);
        Step::Done
    }
}
