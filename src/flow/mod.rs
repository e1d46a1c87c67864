//! Flows sharing links: messages in flight on a routed fabric as fluid flows whose
//! rates are the max-min fair share of the links they cross, advanced in time on
//! demand. This is the contention model of the trace replay and of the task model.
//!
//! A flow needs `work` seconds alone on unit links (its bytes over the base bandwidth;
//! a link's capacity is a multiple of it, 1 unless the fabric says otherwise, so rates
//! are fractions or multiples of it). Between two events
//! (a flow starting or finishing) the rates are constant: the max-min fair allocation
//! by progressive filling, where every flow crossing a link whose capacity left per
//! unfixed flow is the smallest gets that share, and so on until every flow has its
//! rate. A flow alone on unit links gets rate 1; k flows that cross one unit link and
//! nothing else slower get 1/k each and all finish after k × work.
//!
//! Time only moves when the finish of a flow is asked for ([`FlowNetwork::finish`]):
//! the network then runs its events in time order until that flow is done, and keeps
//! that history. A flow added later with a start in that past cannot change it: it is
//! taken to have moved at full rate from its start to the network's present (the
//! optimistic choice), and shares the links from then on. The trace replay keeps this
//! rare: it runs the ranks in the order of their clocks and settles a message only once
//! every rank has passed its end ([`crate::trace::replay::engine::replay_routed`]).
//!
//! Costs: [`FlowNetwork::add`] O(log pending); every event of [`FlowNetwork::finish`]
//! O(bottlenecks · active flows · hops) for the new rates. Flow ids are dense and chosen
//! by the caller (the replay uses its message ids), so no map sits in the loop.

use crate::fabric::Fabric;
use crate::routing::table::{AnyRouter, ForwardingTable};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The routes between the hosts ranks run on: rank → host, walked through a fabric's
/// forwarding tables, and the links' capacities.
#[derive(Clone, Copy)]
pub struct RankRoutes<'a> {
    router: AnyRouter<'a>,
    hosts: &'a [u32],
    links: usize,
    capacities: Option<&'a [f64]>,
}

impl<'a> RankRoutes<'a> {
    /// Rank r runs on host `hosts[r]` of `fabric`; the routes between those hosts must
    /// have been checked ([`crate::routing::check_routes`]): the walk trusts them.
    pub fn new(fabric: &'a Fabric, table: &'a ForwardingTable, hosts: &'a [u32]) -> Self {
        RankRoutes {
            router: table.router(fabric),
            hosts,
            links: fabric.num_edges(),
            capacities: None,
        }
    }

    /// The same routes over links of these capacities, by link id (multiples of the
    /// base bandwidth, as [`Fabric::edge_capacities`] reads them; 1 everywhere
    /// without). `capacities` has one entry per link, each positive.
    pub fn with_capacities(self, capacities: &'a [f64]) -> Self {
        debug_assert_eq!(capacities.len(), self.links);
        RankRoutes {
            capacities: Some(capacities),
            ..self
        }
    }

    /// Link `link`'s capacity (1 without capacities).
    pub fn capacity(&self, link: u32) -> f64 {
        self.capacities.map_or(1.0, |c| c[link as usize])
    }

    /// A network of flows over these links, empty, at time 0.
    pub fn flow_network(&self) -> FlowNetwork {
        match self.capacities {
            Some(capacities) => FlowNetwork::with_capacities(capacities.to_vec()),
            None => FlowNetwork::new(self.links),
        }
    }

    /// Ranks placed.
    pub fn ranks(&self) -> usize {
        self.hosts.len()
    }

    /// The fabric's links (directed edges): link ids are below this.
    pub fn links(&self) -> usize {
        self.links
    }

    /// Calls `visit` with every link from rank `src`'s host to rank `dst`'s (none when
    /// they share a host). O(hops).
    pub fn walk(&self, src: u32, dst: u32, visit: impl FnMut(u32)) {
        let (a, b) = (self.hosts[src as usize], self.hosts[dst as usize]);
        if a != b {
            self.router.walk(a, b, visit);
        }
    }
}

/// A flow's id: dense, chosen by the caller, reusable once the flow is finished and its
/// finish read.
pub type FlowId = u32;

/// The links every flow crosses, by flow id: shared by the [`FlowNetwork`]s of all
/// configurations, since a route does not depend on the link speed.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    links: Vec<Vec<u32>>,
}

impl Routes {
    /// Sets flow `id`'s links, reusing the storage of the flow that had the id before.
    pub fn set(&mut self, id: FlowId, links: impl IntoIterator<Item = u32>) {
        self.clear(id).extend(links);
    }

    /// Flow `id`'s links emptied, to be filled (by a route walk), reusing the storage
    /// of the flow that had the id before.
    pub fn clear(&mut self, id: FlowId) -> &mut Vec<u32> {
        let i = id as usize;
        if self.links.len() <= i {
            self.links.resize_with(i + 1, Vec::new);
        }
        let route = &mut self.links[i];
        route.clear();
        route
    }

    /// Flow `id`'s links (empty for an id never set).
    pub fn get(&self, id: FlowId) -> &[u32] {
        self.links.get(id as usize).map_or(&[], Vec::as_slice)
    }
}

/// Where a flow stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// No flow has this id.
    Free,
    /// Added, its start still in the network's future.
    Pending,
    /// Moving, at `rate`.
    Active,
    /// Finished at `finish`.
    Done,
}

#[derive(Debug, Clone, Copy)]
struct Flow {
    state: State,
    /// Seconds still to move at full rate.
    remaining: f64,
    /// The share of the link bandwidth it gets now.
    rate: f64,
    /// When it finished (Done only).
    finish: f64,
    /// Completion threshold: a remainder this small is rounding.
    epsilon: f64,
}

const FREE: Flow = Flow {
    state: State::Free,
    remaining: 0.0,
    rate: 0.0,
    finish: 0.0,
    epsilon: 0.0,
};

/// The flows of one link speed (one configuration) over a fabric's links.
#[derive(Debug, Clone)]
pub struct FlowNetwork {
    /// The network's present: its history up to here is settled.
    now: f64,
    flows: Vec<Flow>,
    /// Flows moving now, in the order they became active.
    active: Vec<FlowId>,
    /// Flows not started yet, by start (as bits: starts are non-negative) then id.
    pending: BinaryHeap<Reverse<(u64, FlowId)>>,
    /// Whether the rates need recomputing (the active set changed).
    stale: bool,
    /// Each link's capacity, as a multiple of the rate a flow alone on unit links gets.
    link_capacity: Vec<f64>,
    // Scratch of the progressive filling, per link (dense link ids).
    capacity: Vec<f64>,
    unfixed: Vec<u32>,
    bottleneck: Vec<bool>,
    touched: Vec<u32>,
    fixed: Vec<bool>,
}

impl FlowNetwork {
    /// An empty network over links `0..links` of capacity 1, at time 0.
    pub fn new(links: usize) -> Self {
        FlowNetwork::with_capacities(vec![1.0; links])
    }

    /// An empty network over links of these capacities (each positive; a flow alone on
    /// links of capacity c moves at rate min c), at time 0.
    pub fn with_capacities(link_capacity: Vec<f64>) -> Self {
        let links = link_capacity.len();
        FlowNetwork {
            link_capacity,
            now: 0.0,
            flows: Vec::new(),
            active: Vec::new(),
            pending: BinaryHeap::new(),
            stale: false,
            capacity: vec![0.0; links],
            unfixed: vec![0; links],
            bottleneck: vec![false; links],
            touched: Vec::new(),
            fixed: Vec::new(),
        }
    }

    /// The network's present, s.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Flows added and not finished yet.
    pub fn in_flight(&self) -> usize {
        self.active.len() + self.pending.len()
    }

    /// Adds flow `id` (its links set in `routes`, every link id below the network's
    /// link count): it starts at `start` ≥ 0 and needs `work` ≥ 0 seconds alone on its
    /// links. A flow with no links or no work finishes at `start + work` whatever else
    /// moves. An id still in flight is replaced (the caller reuses ids only after
    /// reading their finish).
    pub fn add(&mut self, id: FlowId, start: f64, work: f64, routes: &Routes) {
        let i = id as usize;
        if self.flows.len() <= i {
            self.flows.resize(i + 1, FREE);
        }
        if matches!(self.flows[i].state, State::Active | State::Pending) {
            self.remove(id);
        }
        let start = start.max(0.0);
        let mut flow = Flow {
            state: State::Pending,
            remaining: work,
            rate: 0.0,
            finish: 0.0,
            epsilon: work * 1e-12,
        };
        if work <= 0.0 || routes.get(id).is_empty() {
            flow.state = State::Done;
            flow.finish = start + work.max(0.0);
        } else if start <= self.now {
            // Its past is settled without it: full rate until now.
            let credit = self.now - start;
            if credit >= work {
                flow.state = State::Done;
                flow.finish = start + work;
            } else {
                flow.remaining = work - credit;
                flow.state = State::Active;
                self.active.push(id);
                self.stale = true;
            }
        } else {
            self.pending.push(Reverse((start.to_bits(), id)));
        }
        self.flows[i] = flow;
    }

    /// Takes flow `id` out of the active or pending set.
    fn remove(&mut self, id: FlowId) {
        if let Some(p) = self.active.iter().position(|&f| f == id) {
            self.active.remove(p);
            self.stale = true;
        }
        self.pending.retain(|Reverse((_, f))| *f != id);
    }

    /// When flow `id` (added before) finishes, s: the network moves on until it does.
    /// Returns NaN for an id never added.
    pub fn finish(&mut self, id: FlowId, routes: &Routes) -> f64 {
        let Some(flow) = self.flows.get(id as usize) else {
            return f64::NAN;
        };
        if flow.state == State::Free {
            return f64::NAN;
        }
        while self.flows[id as usize].state != State::Done {
            if !self.step(routes) {
                // Nothing moves and nothing will start: cannot happen for a flow added
                // with work and links, but a loop is worse than settling it here.
                let flow = &mut self.flows[id as usize];
                flow.state = State::Done;
                flow.finish = self.now;
            }
        }
        self.flows[id as usize].finish
    }

    /// When flow `id` (added before) would finish if no other flow were added, s,
    /// without moving the network: what [`FlowNetwork::finish`] would say now. O(the
    /// flows added and not finished) more than `finish` for the copy of their state.
    pub fn expected_finish(&mut self, id: FlowId, routes: &Routes) -> f64 {
        match self.flows.get(id as usize) {
            Some(flow) if flow.state == State::Done => return flow.finish,
            Some(flow) if flow.state != State::Free => {}
            _ => return f64::NAN,
        }
        let saved = (
            self.now,
            self.flows.clone(),
            self.active.clone(),
            self.pending.clone(),
            self.stale,
        );
        let finish = self.finish(id, routes);
        (self.now, self.flows, self.active, self.pending, self.stale) = saved;
        finish
    }

    /// The time of the network's next event, s: the earliest finish of a moving flow
    /// at the present rates, or the earliest start of a pending one; infinity when no
    /// flow is in flight. For simulations that drive the network from their own event
    /// loop ([`FlowNetwork::advance`]).
    pub fn next_event(&mut self, routes: &Routes) -> f64 {
        self.next(routes).0
    }

    /// Runs the network to its next event ([`FlowNetwork::next_event`]) and appends
    /// the flows that finished there to `finished` (in the order they became active;
    /// their finish is [`FlowNetwork::now`]). False when no flow is in flight.
    pub fn advance(&mut self, routes: &Routes, finished: &mut Vec<FlowId>) -> bool {
        let before = finished.len();
        let moved = self.step_collect(routes, Some(finished));
        debug_assert!(moved || finished.len() == before);
        moved
    }

    /// The next event's time and, when it is a finish, the position of the finishing
    /// flow in the active set; activates the due flows and sets the rates first.
    fn next(&mut self, routes: &Routes) -> (f64, Option<usize>) {
        self.start_due();
        if self.stale {
            self.rates(routes);
        }
        let mut next = f64::INFINITY;
        let mut first = None;
        for (p, &f) in self.active.iter().enumerate() {
            let flow = &self.flows[f as usize];
            let t = self.now + flow.remaining / flow.rate;
            if t < next {
                next = t;
                first = Some(p);
            }
        }
        if let Some(&Reverse((bits, _))) = self.pending.peek() {
            let start = f64::from_bits(bits);
            if start < next {
                next = start;
                first = None;
            }
        }
        (next, first)
    }

    /// Runs the network to its next event: the earliest finish or start. False when
    /// there is none.
    fn step(&mut self, routes: &Routes) -> bool {
        self.step_collect(routes, None)
    }

    /// [`FlowNetwork::step`], appending the flows it finishes to `finished` if given.
    fn step_collect(&mut self, routes: &Routes, mut finished: Option<&mut Vec<FlowId>>) -> bool {
        let (next, first) = self.next(routes);
        if !next.is_finite() {
            return false;
        }
        let dt = next - self.now;
        self.now = next;
        for &f in &self.active {
            let flow = &mut self.flows[f as usize];
            flow.remaining -= flow.rate * dt;
        }
        if let Some(p) = first {
            self.flows[self.active[p] as usize].remaining = 0.0;
        }
        let now = self.now;
        let flows = &mut self.flows;
        let before = self.active.len();
        self.active.retain(|&f| {
            let flow = &mut flows[f as usize];
            if flow.remaining <= flow.epsilon {
                flow.state = State::Done;
                flow.finish = now;
                if let Some(finished) = finished.as_deref_mut() {
                    finished.push(f);
                }
                false
            } else {
                true
            }
        });
        if self.active.len() != before {
            self.stale = true;
        }
        self.start_due();
        true
    }

    /// Activates the pending flows whose start has come.
    fn start_due(&mut self) {
        while let Some(&Reverse((bits, f))) = self.pending.peek() {
            if f64::from_bits(bits) > self.now {
                break;
            }
            self.pending.pop();
            self.flows[f as usize].state = State::Active;
            self.active.push(f);
            self.stale = true;
        }
    }

    /// The max-min fair rates of the active flows, by progressive filling: while some
    /// flow has no rate, the links with the least capacity left per unfixed flow are
    /// the bottlenecks, and every unfixed flow crossing one gets that share, which the
    /// links of its route give up.
    fn rates(&mut self, routes: &Routes) {
        self.stale = false;
        self.touched.clear();
        for &f in &self.active {
            for &l in routes.get(f) {
                let l = l as usize;
                if self.unfixed[l] == 0 {
                    self.capacity[l] = self.link_capacity[l];
                    self.touched.push(l as u32);
                }
                self.unfixed[l] += 1;
            }
        }
        self.fixed.clear();
        self.fixed.resize(self.active.len(), false);
        let mut left = self.active.len();
        // A flow that crosses no link (never added so, but a loop must not depend on
        // it) moves at full rate.
        for (p, &f) in self.active.iter().enumerate() {
            if routes.get(f).is_empty() {
                self.fixed[p] = true;
                self.flows[f as usize].rate = 1.0;
                left -= 1;
            }
        }
        while left > 0 {
            let mut share = f64::INFINITY;
            for &l in &self.touched {
                let l = l as usize;
                if self.unfixed[l] > 0 {
                    share = share.min(self.capacity[l] / f64::from(self.unfixed[l]));
                }
            }
            for &l in &self.touched {
                let l = l as usize;
                self.bottleneck[l] = self.unfixed[l] > 0
                    && self.capacity[l] / f64::from(self.unfixed[l]) <= share * (1.0 + 1e-12);
            }
            for (p, &f) in self.active.iter().enumerate() {
                if self.fixed[p] {
                    continue;
                }
                let route = routes.get(f);
                if !route.iter().any(|&l| self.bottleneck[l as usize]) {
                    continue;
                }
                self.fixed[p] = true;
                left -= 1;
                self.flows[f as usize].rate = share;
                for &l in route {
                    let l = l as usize;
                    self.capacity[l] -= share;
                    self.unfixed[l] -= 1;
                }
            }
        }
        for &l in &self.touched {
            self.unfixed[l as usize] = 0;
            self.bottleneck[l as usize] = false;
        }
    }
}

#[cfg(test)]
mod tests;
