//! What a replay on a fabric adds to the engine: each message's route, the flows on
//! the links per configuration, and when a completion may be settled.

use super::clocks::{parts, split};
use super::{time_key, Engine, Network, Request};
use crate::flow::{FlowNetwork, RankRoutes, Routes};
use crate::trace::replay::event::Slot;

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
    /// On a fabric, the key to put off the completion of `slots` until: when its
    /// messages would end on the first configuration if no other message started,
    /// when that is after rank `r`'s clock and after the key it was last put off
    /// until. Every rank whose clock is below that runs first, and the messages they
    /// start share the links; when none did, the completion is settled. Keys grow at
    /// every putting off, so this ends.
    pub(super) fn settle_after(&mut self, r: usize, slots: &[Slot]) -> Option<i64> {
        let fabric = self.fabric.as_mut()?;
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
        let key = time_key(latest);
        let later = self.ranks[r].deferred.map_or(true, |last| key > last);
        (latest > self.clocks.clock(r)[0] && later).then_some(key)
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
        let [s_clock, s_computation, s_latency, s_bandwidth, s_contention] =
            parts(self.times.get(message.start));
        let [clock, computation, latency, bandwidth, contention] = split(self.clocks.block_mut(r));
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
