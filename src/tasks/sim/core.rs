//! What every scheduler's simulation shares: the clock and its event queue, the network
//! of flows the messages travel on, the root tasks in the system and their trees, and
//! the measurement.
//!
//! State lives in dense slabs reused as they free: jobs (root tasks in the system),
//! trees (one per job of a random model) and messages (flow ids of the network). The
//! loop takes the earlier of the next scheduled event and the network's next event (a
//! flow finishing, whose message is delivered one latency later).

use super::{Interconnect, Replication, SimConfig, TaskModel, TaskTimes, TreeModel};
use crate::flow::{FlowId, FlowNetwork, Routes};
use crate::tasks::TaskTree;
use rand::{Rng, RngExt};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

/// Completed measured roots between two calls of the progress callback.
const PROGRESS_BATCH: u64 = 256;

/// An event of a scheduler's simulation.
pub(super) trait SimEvent: Copy + Ord {
    /// The event of message `message` reaching its destination.
    fn delivered(message: u32) -> Self;
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct Message<P> {
    pub src: u32,
    pub dst: u32,
    pub payload: P,
}

/// A root task in the system.
#[derive(Debug, Clone, Copy)]
struct Job {
    arrival: f64,
    /// Its tree in the tree slab (0, the shared tree, for a fixed model).
    tree: u32,
    measured: bool,
}

/// A slab: values by dense id, freed ids reused first.
pub(super) struct Slab<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Slab<T> {
    pub fn new() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    pub fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = value;
                id
            }
            None => {
                self.items.push(value);
                (self.items.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }
}

/// The shared state of one replication; `E` are the scheduler's events, `P` what its
/// messages carry.
pub(super) struct Core<'a, E, P> {
    pub model: &'a TaskModel,
    pub config: &'a SimConfig,
    interconnect: &'a Interconnect<'a>,
    pub rng: Xoshiro256PlusPlus,
    pub now: f64,
    events: BinaryHeap<Reverse<(u64, u64, E)>>,
    sequence: u64,
    network: FlowNetwork,
    routes: Routes,
    finished: Vec<FlowId>,
    messages: Slab<Message<P>>,
    jobs: Slab<Job>,
    trees: Slab<TaskTree>,
    /// Root tasks arrived so far.
    arrivals: u64,
    /// Measured root tasks completed so far.
    completed: u64,
    /// Measured root tasks completed when progress was last told.
    reported: u64,
    /// Whether the measurement window has opened (the first measured root arrived).
    measuring: bool,
    out: Replication,
}

impl<'a, E: SimEvent, P: Copy> Core<'a, E, P> {
    pub fn new(
        model: &'a TaskModel,
        interconnect: &'a Interconnect<'a>,
        config: &'a SimConfig,
        rng: Xoshiro256PlusPlus,
    ) -> Self {
        let nodes = config.nodes;
        let mut trees = Slab::new();
        if let TreeModel::Fixed(tree) = &model.tree {
            trees.insert(tree.clone());
        }
        Core {
            model,
            config,
            interconnect,
            rng,
            now: 0.0,
            events: BinaryHeap::new(),
            sequence: 0,
            network: interconnect.flow_network(nodes),
            routes: Routes::default(),
            finished: Vec::new(),
            messages: Slab::new(),
            jobs: Slab::new(),
            trees,
            arrivals: 0,
            completed: 0,
            reported: 0,
            measuring: false,
            out: Replication::empty(
                nodes as usize,
                interconnect.links(nodes),
                config.record_traffic,
            ),
        }
    }

    /// The next event, the clock set to its time: None once every measured root task
    /// is done (or, which cannot be while roots are pending, when nothing is left).
    /// Flows finishing on the way schedule their messages' delivery.
    pub fn next(&mut self, progress: &(dyn Fn(u64) + Sync)) -> Option<E> {
        if self.completed - self.reported >= PROGRESS_BATCH {
            progress(self.completed - self.reported);
            self.reported = self.completed;
        }
        while self.completed < self.config.roots {
            let next_flow = self.network.next_event(&self.routes);
            let next_event = self
                .events
                .peek()
                .map_or(f64::INFINITY, |e| f64::from_bits(e.0 .0));
            if next_flow <= next_event && next_flow.is_finite() {
                self.finished.clear();
                self.network.advance(&self.routes, &mut self.finished);
                let at = self.network.now() + self.config.latency;
                for i in 0..self.finished.len() {
                    let message = self.finished[i];
                    self.schedule(at, E::delivered(message));
                }
                continue;
            }
            let Reverse((bits, _, event)) = self.events.pop()?;
            self.now = f64::from_bits(bits);
            return Some(event);
        }
        None
    }

    /// What the replication measured, `progress` told of the last completions.
    pub fn finish(mut self, progress: &(dyn Fn(u64) + Sync)) -> Replication {
        progress(self.completed - self.reported);
        self.out.window = self.now - self.out.window_start;
        self.out
    }

    /// Schedules `event` at `at` (ties in the order scheduled).
    pub fn schedule(&mut self, at: f64, event: E) {
        self.sequence += 1;
        self.events
            .push(Reverse((at.to_bits(), self.sequence, event)));
    }

    /// The time of the next root task's arrival.
    pub fn next_arrival(&mut self) -> f64 {
        self.now + exponential(1.0 / self.config.arrival_rate, &mut self.rng)
    }

    /// A computation time of mean `mean` seconds at power 1, on a node of power P.
    pub fn compute_time(&mut self, mean: f64) -> f64 {
        let t = match self.model.times {
            TaskTimes::Constant => mean,
            TaskTimes::Exponential => exponential(mean, &mut self.rng),
        };
        t / self.config.power
    }

    /// Counts `t` seconds of computation on `node` if measuring.
    pub fn busy(&mut self, node: u32, t: f64) {
        if self.measuring {
            self.out.node_busy[node as usize] += t;
        }
    }

    /// A root task arrives now: its job, with its own tree for a random model. The
    /// measurement window opens at the first measured arrival.
    pub fn arrive(&mut self) -> u32 {
        let index = self.arrivals;
        self.arrivals += 1;
        let measured =
            index >= self.config.warmup && index < self.config.warmup + self.config.roots;
        if measured && !self.measuring {
            self.measuring = true;
            self.out.window_start = self.now;
        }
        let tree = match &self.model.tree {
            TreeModel::Fixed(_) => 0,
            TreeModel::Preferential { tasks, exponent } => {
                let tree = TaskTree::preferential(*tasks, *exponent, &mut self.rng);
                self.trees.insert(tree)
            }
        };
        self.jobs.insert(Job {
            arrival: self.now,
            tree,
            measured,
        })
    }

    /// Job `job` is done now: its completion time is recorded if it is measured.
    pub fn complete(&mut self, job: u32) {
        let Job {
            arrival,
            tree,
            measured,
        } = self.jobs.items[job as usize];
        self.jobs.release(job);
        if matches!(self.model.tree, TreeModel::Preferential { .. }) {
            self.trees.release(tree);
        }
        if measured {
            self.out.completions.push(self.now - arrival);
            self.completed += 1;
        }
    }

    /// Starts executing `task` of `job` on `node`: counts the task and its
    /// initialisation's computation; returns its children and the initialisation time.
    pub fn start_task(&mut self, node: u32, job: u32, task: u32) -> (Range<u32>, f64) {
        let tree = &self.trees.items[self.jobs.items[job as usize].tree as usize];
        let children = tree.children(task);
        self.out.tasks += 1;
        let t = self.compute_time(self.model.costs.init);
        self.busy(node, t);
        (children, t)
    }

    /// Draws an aggregation time on `node`, counted as its computation.
    pub fn aggregation_time(&mut self, node: u32) -> f64 {
        let t = self.compute_time(self.model.costs.aggregate);
        self.busy(node, t);
        t
    }

    /// Sends `bits` from `src` to `dst`: a flow on the route's links.
    pub fn send(&mut self, src: u32, dst: u32, bits: f64, payload: P) {
        let id = self.messages.insert(Message { src, dst, payload });
        if self.measuring {
            self.out.bits += bits;
            self.out.messages += 1;
            if self.config.record_traffic {
                let pair = src as usize * self.config.nodes as usize + dst as usize;
                self.out.traffic_bits[pair] += bits;
                self.out.traffic_messages[pair] += 1;
            }
        }
        let route = self.routes.clear(id);
        self.interconnect.walk(src, dst, |link| route.push(link));
        if self.measuring {
            for &link in self.routes.get(id) {
                self.out.link_bits[link as usize] += bits;
            }
        }
        let work = bits / self.config.bandwidth;
        if self.routes.get(id).is_empty() {
            let at = self.now + work + self.config.latency;
            self.schedule(at, E::delivered(id));
        } else {
            self.network.add(id, self.now, work, &self.routes);
        }
    }

    /// The message `id`, delivered: its slot is free again.
    pub fn take_message(&mut self, id: u32) -> Message<P> {
        let message = self.messages.items[id as usize];
        self.messages.release(id);
        message
    }
}

/// An exponential draw of mean `mean`.
fn exponential(mean: f64, rng: &mut impl Rng) -> f64 {
    // 1 − u is in (0, 1]: its logarithm is finite.
    -mean * (1.0 - rng.random::<f64>()).ln()
}
