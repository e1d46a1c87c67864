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
//! Costs: [`FlowNetwork::add`] O(log pending + hops); every event O(bottlenecks ·
//! component · hops) for the new rates of the flows connected to the one that started
//! or finished (through shared links, transitively), and O(log flows) for the next
//! finish. Flow ids are dense and chosen by the caller (the replay uses its message
//! ids), so no map sits in the loop.

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
    /// Seconds still to move at full rate, as of `since`.
    remaining: f64,
    /// When `remaining` was last brought up to date.
    since: f64,
    /// The share of the link bandwidth it gets now.
    rate: f64,
    /// When it finished (Done only).
    finish: f64,
    /// Completion threshold: a remainder this small is rounding.
    epsilon: f64,
    /// Bumped at every new rate or change of state: finish-heap entries of older
    /// versions are stale.
    version: u32,
}

const FREE: Flow = Flow {
    state: State::Free,
    remaining: 0.0,
    since: 0.0,
    rate: 0.0,
    finish: 0.0,
    epsilon: 0.0,
    version: 0,
};

impl Flow {
    /// Seconds still to move at full rate at time `t` ≥ `since`.
    fn remaining_at(&self, t: f64) -> f64 {
        self.remaining - self.rate * (t - self.since)
    }
}

/// A change of the link → active flows lists, for undoing a look ahead.
#[derive(Debug, Clone, Copy)]
enum Change {
    Added(u32, FlowId),
    Removed(u32, FlowId),
}

/// The flows of one link speed (one configuration) over a fabric's links.
///
/// The rates only change in the part of the network an event touches: a flow starting
/// or finishing changes the rates of the flows connected to it through shared links
/// (its component), and no other. So the network keeps, per link, the flows moving on
/// it; at an event it gathers the component of the links whose flows changed and
/// refills only that, and a heap of projected finishes (stale entries skipped by
/// version) gives the next event without scanning every flow.
#[derive(Debug, Clone)]
pub struct FlowNetwork {
    /// The network's present: its history up to here is settled.
    now: f64,
    flows: Vec<Flow>,
    /// Flows moving now.
    active: usize,
    /// Flows not started yet, by start (as bits: starts are non-negative) then id.
    pending: BinaryHeap<Reverse<(u64, FlowId)>>,
    /// Projected finishes of the moving flows: (time bits, id, version).
    finishes: BinaryHeap<Reverse<(u64, FlowId, u32)>>,
    /// Per link, the flows moving on it (in no particular order).
    on_link: Vec<Vec<FlowId>>,
    /// Links whose flows changed since the rates were last set.
    dirty: Vec<u32>,
    /// Each link's capacity, as a multiple of the rate a flow alone on unit links gets.
    link_capacity: Vec<f64>,
    /// While looking ahead ([`FlowNetwork::expected_finish`]): the changes to undo.
    journal: Option<Vec<Change>>,
    // Scratch of the component gathering and the progressive filling.
    link_seen: Vec<bool>,
    flow_seen: Vec<bool>,
    component: Vec<FlowId>,
    component_links: Vec<u32>,
    old_rates: Vec<f64>,
    capacity: Vec<f64>,
    fair_share: Vec<f64>,
    unfixed: Vec<u32>,
    bottleneck: Vec<bool>,
    open_links: Vec<u32>,
    open_flows: Vec<FlowId>,
    /// Per open flow, the least capacity of the links it alone crosses.
    open_caps: Vec<f64>,
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
            now: 0.0,
            flows: Vec::new(),
            active: 0,
            pending: BinaryHeap::new(),
            finishes: BinaryHeap::new(),
            on_link: vec![Vec::new(); links],
            dirty: Vec::new(),
            link_capacity,
            journal: None,
            link_seen: vec![false; links],
            flow_seen: Vec::new(),
            component: Vec::new(),
            component_links: Vec::new(),
            old_rates: Vec::new(),
            capacity: vec![0.0; links],
            fair_share: vec![0.0; links],
            unfixed: vec![0; links],
            bottleneck: vec![false; links],
            open_links: Vec::new(),
            open_flows: Vec::new(),
            open_caps: Vec::new(),
        }
    }

    /// The network's present, s.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Flows added and not finished yet.
    pub fn in_flight(&self) -> usize {
        self.active + self.pending.len()
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
            self.flow_seen.resize(i + 1, false);
        }
        match self.flows[i].state {
            State::Active => self.deactivate(id, routes),
            State::Pending => self.pending.retain(|Reverse((_, f))| *f != id),
            State::Free | State::Done => {}
        }
        let start = start.max(0.0);
        let version = self.flows[i].version.wrapping_add(1);
        let mut flow = Flow {
            state: State::Pending,
            remaining: work,
            since: start,
            rate: 0.0,
            finish: 0.0,
            epsilon: work * 1e-12,
            version,
        };
        if work <= 0.0 || routes.get(id).is_empty() {
            flow.state = State::Done;
            flow.finish = start + work.max(0.0);
            self.flows[i] = flow;
        } else if start <= self.now {
            // Its past is settled without it: full rate until now.
            let credit = self.now - start;
            if credit >= work {
                flow.state = State::Done;
                flow.finish = start + work;
                self.flows[i] = flow;
            } else {
                flow.remaining = work - credit;
                flow.since = self.now;
                self.flows[i] = flow;
                self.activate(id, routes);
            }
        } else {
            self.flows[i] = flow;
            self.pending.push(Reverse((start.to_bits(), id)));
        }
    }

    /// Puts flow `id` on its links.
    fn activate(&mut self, id: FlowId, routes: &Routes) {
        let flow = &mut self.flows[id as usize];
        flow.state = State::Active;
        flow.since = self.now;
        flow.rate = 0.0;
        self.active += 1;
        for &l in routes.get(id) {
            self.on_link[l as usize].push(id);
            self.dirty.push(l);
            if let Some(journal) = &mut self.journal {
                journal.push(Change::Added(l, id));
            }
        }
    }

    /// Takes flow `id` off its links (its state is the caller's to set).
    fn deactivate(&mut self, id: FlowId, routes: &Routes) {
        self.active -= 1;
        let flow = &mut self.flows[id as usize];
        flow.version = flow.version.wrapping_add(1);
        for &l in routes.get(id) {
            let list = &mut self.on_link[l as usize];
            if let Some(p) = list.iter().position(|&f| f == id) {
                list.swap_remove(p);
            }
            self.dirty.push(l);
            if let Some(journal) = &mut self.journal {
                journal.push(Change::Removed(l, id));
            }
        }
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
            if !self.step(routes, None) {
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
    /// flows ever added) more than `finish` for the copy of their state; the changes to
    /// the per-link lists are undone from a journal.
    pub fn expected_finish(&mut self, id: FlowId, routes: &Routes) -> f64 {
        self.expected_last_finish(&[id], routes)
    }

    /// When the last of flows `ids` (all added before) would finish if no other flow
    /// were added, s, without moving the network ([`FlowNetwork::expected_finish`] of
    /// several flows at the cost of one copy). NaN when some id was never added;
    /// −∞ for no ids.
    pub fn expected_last_finish(&mut self, ids: &[FlowId], routes: &Routes) -> f64 {
        let mut done = f64::NEG_INFINITY;
        let mut moving = false;
        for &id in ids {
            match self.flows.get(id as usize) {
                Some(flow) if flow.state == State::Done => done = done.max(flow.finish),
                Some(flow) if flow.state != State::Free => moving = true,
                _ => return f64::NAN,
            }
        }
        if !moving {
            return done;
        }
        let saved = (
            self.now,
            self.flows.clone(),
            self.active,
            self.pending.clone(),
            self.finishes.clone(),
            self.dirty.clone(),
        );
        self.journal = Some(Vec::new());
        let finish = ids
            .iter()
            .fold(done, |last, &id| last.max(self.finish(id, routes)));
        let journal = self.journal.take().unwrap_or_default();
        for change in journal.into_iter().rev() {
            match change {
                Change::Added(l, f) => {
                    let list = &mut self.on_link[l as usize];
                    if let Some(p) = list.iter().position(|&x| x == f) {
                        list.swap_remove(p);
                    }
                }
                Change::Removed(l, f) => self.on_link[l as usize].push(f),
            }
        }
        (
            self.now,
            self.flows,
            self.active,
            self.pending,
            self.finishes,
            self.dirty,
        ) = saved;
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
    /// the flows that finished there to `finished` (in order of projected finish, then
    /// id; their finish is [`FlowNetwork::now`]). False when no flow is in flight.
    pub fn advance(&mut self, routes: &Routes, finished: &mut Vec<FlowId>) -> bool {
        self.step(routes, Some(finished))
    }

    /// The next event's time and whether it is a finish; activates the due flows, sets
    /// the rates that changed and drops stale finishes first.
    fn next(&mut self, routes: &Routes) -> (f64, bool) {
        self.start_due(routes);
        if !self.dirty.is_empty() {
            self.rates(routes);
        }
        let mut next = f64::INFINITY;
        let mut finish = false;
        while let Some(&Reverse((bits, f, version))) = self.finishes.peek() {
            let flow = &self.flows[f as usize];
            if flow.state == State::Active && flow.version == version {
                next = f64::from_bits(bits);
                finish = true;
                break;
            }
            self.finishes.pop();
        }
        if let Some(&Reverse((bits, _))) = self.pending.peek() {
            let start = f64::from_bits(bits);
            if start < next {
                next = start;
                finish = false;
            }
        }
        (next, finish)
    }

    /// Runs the network to its next event: the earliest finish or start. False when
    /// there is none. The flows it finishes are appended to `finished` if given.
    fn step(&mut self, routes: &Routes, mut finished: Option<&mut Vec<FlowId>>) -> bool {
        let (next, finish) = self.next(routes);
        if !next.is_finite() {
            return false;
        }
        // Projected finishes are never in the past; rounding must not move time back.
        self.now = self.now.max(next);
        if finish {
            // The first flow finishes by definition; the others whose remainder is
            // rounding finish with it.
            let mut first = true;
            while let Some(&Reverse((_, f, version))) = self.finishes.peek() {
                let flow = &self.flows[f as usize];
                let current = flow.state == State::Active && flow.version == version;
                if current && !first && flow.remaining_at(self.now) > flow.epsilon {
                    break;
                }
                self.finishes.pop();
                if !current {
                    continue;
                }
                first = false;
                self.deactivate(f, routes);
                let flow = &mut self.flows[f as usize];
                flow.state = State::Done;
                flow.finish = self.now;
                if let Some(finished) = finished.as_deref_mut() {
                    finished.push(f);
                }
            }
        }
        self.start_due(routes);
        true
    }

    /// Activates the pending flows whose start has come.
    fn start_due(&mut self, routes: &Routes) {
        while let Some(&Reverse((bits, f))) = self.pending.peek() {
            if f64::from_bits(bits) > self.now {
                break;
            }
            self.pending.pop();
            self.activate(f, routes);
        }
    }

    /// New max-min fair rates for the flows connected to the links that changed, by
    /// progressive filling: while some flow of the component has no rate, the links
    /// with the least capacity left per unfixed flow are the bottlenecks, and every
    /// unfixed flow crossing one gets that share, which the links of its route give up.
    /// Flows outside the component keep their rates, and the rates do not depend on the
    /// order of the per-link lists (every flow of a level gets the same share). Each level
    /// scans only the shared links and the flows still open: O(levels × open shared
    /// links and flows) after the O(component × hops) gathering.
    fn rates(&mut self, routes: &Routes) {
        // Gather the component: links and flows reachable from the changed links.
        self.component.clear();
        self.component_links.clear();
        let mut stack = std::mem::take(&mut self.dirty);
        while let Some(l) = stack.pop() {
            if self.link_seen[l as usize] {
                continue;
            }
            self.link_seen[l as usize] = true;
            self.component_links.push(l);
            for &f in &self.on_link[l as usize] {
                if !self.flow_seen[f as usize] {
                    self.flow_seen[f as usize] = true;
                    self.component.push(f);
                    stack.extend(
                        routes
                            .get(f)
                            .iter()
                            .filter(|&&m| !self.link_seen[m as usize]),
                    );
                }
            }
        }
        self.dirty = stack; // empty: its storage back
        for &l in &self.component_links {
            self.link_seen[l as usize] = false;
        }
        let now = self.now;
        self.old_rates.clear();
        for &f in &self.component {
            self.flow_seen[f as usize] = false;
            let flow = &mut self.flows[f as usize];
            flow.remaining = flow.remaining_at(now);
            flow.since = now;
            self.old_rates.push(flow.rate);
        }
        // Progressive filling over the component. A link only one flow crosses (a
        // private link: most of a route) is the bottleneck exactly when its capacity is
        // that flow's share, so each flow keeps the least capacity of its private
        // links as a cap of its own, and the levels scan only the shared links. The
        // shares are the same bits as a scan of every link: a private link's share is
        // its capacity, and the cap is their minimum.
        self.open_flows.clear();
        self.open_caps.clear();
        for &f in &self.component {
            let mut cap = f64::INFINITY;
            for &l in routes.get(f) {
                let l = l as usize;
                if self.on_link[l].len() == 1 {
                    cap = cap.min(self.link_capacity[l]);
                    continue;
                }
                if self.unfixed[l] == 0 {
                    self.capacity[l] = self.link_capacity[l];
                }
                self.unfixed[l] += 1;
            }
            self.open_flows.push(f);
            self.open_caps.push(cap);
        }
        // The shared links and the flows still open shrink level by level.
        self.open_links.clear();
        let unfixed = &self.unfixed;
        self.open_links.extend(
            self.component_links
                .iter()
                .filter(|&&l| unfixed[l as usize] > 0),
        );
        while !self.open_flows.is_empty() {
            // Each link's fair share once per level, kept for the bottleneck test.
            let mut share = f64::INFINITY;
            for &l in &self.open_links {
                let l = l as usize;
                let fair = self.capacity[l] / f64::from(self.unfixed[l]);
                self.fair_share[l] = fair;
                share = share.min(fair);
            }
            for &cap in &self.open_caps {
                share = share.min(cap);
            }
            let limit = share * (1.0 + 1e-12);
            for &l in &self.open_links {
                let l = l as usize;
                self.bottleneck[l] = self.fair_share[l] <= limit;
            }
            // Every flow fixed at this level gets the same share, so each link gives up
            // the same sum whatever the order of the flows: the component needs no
            // sorting for the rates to be the same bits.
            let mut kept = 0;
            for p in 0..self.open_flows.len() {
                let (f, cap) = (self.open_flows[p], self.open_caps[p]);
                let route = routes.get(f);
                if cap > limit && !route.iter().any(|&l| self.bottleneck[l as usize]) {
                    self.open_flows[kept] = f;
                    self.open_caps[kept] = cap;
                    kept += 1;
                    continue;
                }
                self.flows[f as usize].rate = share;
                for &l in route {
                    let l = l as usize;
                    // Private links (no count) have nothing to give up to anyone.
                    if self.unfixed[l] > 0 {
                        self.capacity[l] -= share;
                        self.unfixed[l] -= 1;
                    }
                }
            }
            self.open_flows.truncate(kept);
            self.open_caps.truncate(kept);
            if self.open_flows.is_empty() {
                // The last level: only the marks to clear, no links to keep.
                for &l in &self.open_links {
                    self.bottleneck[l as usize] = false;
                }
                break;
            }
            let (unfixed, bottleneck) = (&self.unfixed, &mut self.bottleneck);
            self.open_links.retain(|&l| {
                bottleneck[l as usize] = false;
                unfixed[l as usize] > 0
            });
        }
        for &l in &self.component_links {
            self.unfixed[l as usize] = 0;
        }
        for (&f, &old) in self.component.iter().zip(&self.old_rates) {
            let flow = &mut self.flows[f as usize];
            // A flow whose rate did not change keeps its projected finish (and its
            // heap entry): most of a component keeps its rates when one flow comes or
            // goes.
            if flow.rate == old {
                continue;
            }
            flow.version = flow.version.wrapping_add(1);
            let at = now + flow.remaining / flow.rate;
            self.finishes.push(Reverse((at.to_bits(), f, flow.version)));
        }
    }
}

#[cfg(test)]
mod tests;
