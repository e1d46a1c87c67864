//! One replication of the central work-sharing scheduler: a discrete-event simulation
//! whose messages are flows of a [`FlowNetwork`], so that messages crossing the same
//! link share it.
//!
//! The state lives in dense slabs reused as they free: jobs (root tasks in the system),
//! frames (a task being executed on a node), messages (flow ids of the network). The
//! loop takes the earlier of the next scheduled event (an arrival, a computation done,
//! a message delivered) and the network's next event (a flow finishing, whose message is
//! delivered one latency later).

use super::{Interconnect, Replication, SimConfig, TaskModel, TaskTimes, TreeModel};
use crate::flow::{FlowId, FlowNetwork, Routes};
use crate::tasks::TaskTree;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Marks an empty slot of the idle pool's position array.
const NONE: u32 = u32::MAX;
/// The central scheduler's node.
const SCHEDULER: u32 = 0;

/// Something scheduled: what happens when its time comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The next root task arrives at the scheduler.
    Arrival,
    /// A frame's initialisation is done.
    Initialised(u32),
    /// A frame's aggregation is done.
    Aggregated(u32),
    /// A message reaches its destination.
    Delivered(u32),
}

/// Who a frame reports to when its task is done.
#[derive(Debug, Clone, Copy)]
enum Owner {
    /// The scheduler: the frame is its job's root task.
    Scheduler,
    /// A frame of the same node that executes it as its local subtask.
    Local(u32),
    /// A frame of another node that delegated it.
    Remote { node: u32, frame: u32 },
}

/// A task being executed on a node.
#[derive(Debug, Clone, Copy)]
struct Frame {
    node: u32,
    job: u32,
    /// Its children not handed out yet: `next_child..end_child`.
    next_child: u32,
    end_child: u32,
    /// Delegated children whose result has not come back.
    outstanding: u32,
    /// A child is running on this node.
    local_busy: bool,
    owner: Owner,
}

/// What a message carries.
#[derive(Debug, Clone, Copy)]
enum Payload {
    /// The scheduler ships a job's root task to a node.
    Ship { job: u32 },
    /// A frame asks the scheduler for `want` nodes.
    Request { frame: u32, want: u32 },
    /// The scheduler's answer to a frame's request (the nodes are in `grants[frame]`).
    Grant { frame: u32 },
    /// A delegated child task for a granted node, on behalf of frame `parent`.
    Subtask { parent: u32, task: u32 },
    /// A delegated task's result, from `helper` to frame `parent`.
    Result { parent: u32, helper: u32 },
    /// A delegating node releases `helper` back to the scheduler.
    NodeDone { helper: u32 },
    /// A job's root task is done.
    Final { job: u32 },
}

#[derive(Debug, Clone, Copy)]
struct Message {
    src: u32,
    dst: u32,
    payload: Payload,
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
struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Slab<T> {
    fn new() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    fn insert(&mut self, value: T) -> u32 {
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

    fn release(&mut self, id: u32) {
        self.free.push(id);
    }
}

/// The simulation of one replication.
pub(super) struct Run<'a> {
    model: &'a TaskModel,
    interconnect: &'a Interconnect<'a>,
    config: &'a SimConfig,
    rng: Xoshiro256PlusPlus,
    now: f64,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    sequence: u64,
    network: FlowNetwork,
    routes: Routes,
    finished: Vec<FlowId>,
    messages: Slab<Message>,
    frames: Slab<Frame>,
    /// The nodes granted to a frame, by frame id (kept for their storage).
    grants: Vec<Vec<u32>>,
    jobs: Slab<Job>,
    trees: Slab<TaskTree>,
    /// Idle computing nodes, and each node's position there (NONE when busy).
    idle: Vec<u32>,
    idle_at: Vec<u32>,
    /// Root tasks waiting for an idle node, first come first served.
    waiting: std::collections::VecDeque<u32>,
    /// Root tasks arrived so far.
    arrivals: u64,
    /// Measured root tasks completed so far.
    completed: u64,
    /// Whether the measurement window has opened (the first measured root arrived).
    measuring: bool,
    out: Replication,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        model: &'a TaskModel,
        interconnect: &'a Interconnect<'a>,
        config: &'a SimConfig,
        rng: Xoshiro256PlusPlus,
    ) -> Self {
        let nodes = config.nodes;
        let links = interconnect.links(nodes);
        let mut trees = Slab::new();
        if let TreeModel::Fixed(tree) = &model.tree {
            trees.insert(tree.clone());
        }
        Run {
            model,
            interconnect,
            config,
            rng,
            now: 0.0,
            events: BinaryHeap::new(),
            sequence: 0,
            network: interconnect.flow_network(nodes),
            routes: Routes::default(),
            finished: Vec::new(),
            messages: Slab::new(),
            frames: Slab::new(),
            grants: Vec::new(),
            jobs: Slab::new(),
            trees,
            idle: (1..nodes).collect(),
            idle_at: (0..nodes)
                .map(|n| if n == SCHEDULER { NONE } else { n - 1 })
                .collect(),
            waiting: std::collections::VecDeque::new(),
            arrivals: 0,
            completed: 0,
            measuring: false,
            out: Replication::empty(nodes as usize, links, config.record_traffic),
        }
    }

    /// Runs until every measured root task is done; `progress` hears of completed
    /// measured roots in batches.
    pub(super) fn run(mut self, progress: &(dyn Fn(u64) + Sync)) -> Replication {
        let mut reported = 0;
        let first = self.interarrival();
        self.schedule(first, Event::Arrival);
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
                    self.schedule(at, Event::Delivered(message));
                }
                continue;
            }
            let Some(Reverse((bits, _, event))) = self.events.pop() else {
                break; // nothing left to happen (cannot be while roots are pending)
            };
            self.now = f64::from_bits(bits);
            match event {
                Event::Arrival => self.arrive(),
                Event::Initialised(frame) => self.initialised(frame),
                Event::Aggregated(frame) => self.aggregated(frame),
                Event::Delivered(message) => self.deliver(message),
            }
            if self.completed - reported >= 256 {
                progress(self.completed - reported);
                reported = self.completed;
            }
        }
        progress(self.completed - reported);
        self.out.window = self.now - self.out.window_start;
        self.out
    }

    fn schedule(&mut self, at: f64, event: Event) {
        self.sequence += 1;
        self.events
            .push(Reverse((at.to_bits(), self.sequence, event)));
    }

    fn interarrival(&mut self) -> f64 {
        self.now + exponential(1.0 / self.config.arrival_rate, &mut self.rng)
    }

    /// A computation time of mean `mean` seconds at power 1.
    fn compute_time(&mut self, mean: f64) -> f64 {
        let t = match self.model.times {
            TaskTimes::Constant => mean,
            TaskTimes::Exponential => exponential(mean, &mut self.rng),
        };
        t / self.config.power
    }

    fn arrive(&mut self) {
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
        let job = self.jobs.insert(Job {
            arrival: self.now,
            tree,
            measured,
        });
        self.waiting.push_back(job);
        self.dispatch();
        let next = self.interarrival();
        self.schedule(next, Event::Arrival);
    }

    /// Ships waiting root tasks to random idle nodes while both exist.
    fn dispatch(&mut self) {
        while !self.waiting.is_empty() && !self.idle.is_empty() {
            let job = self.waiting.pop_front().expect("checked non-empty");
            let node = self.take_idle();
            self.send(
                SCHEDULER,
                node,
                self.model.costs.control_bits,
                Payload::Ship { job },
            );
        }
    }

    /// A uniformly random idle node, now busy.
    fn take_idle(&mut self) -> u32 {
        let i = self.rng.gen_range(0..self.idle.len());
        let node = self.idle.swap_remove(i);
        if let Some(&moved) = self.idle.get(i) {
            self.idle_at[moved as usize] = i as u32;
        }
        self.idle_at[node as usize] = NONE;
        node
    }

    fn release(&mut self, node: u32) {
        debug_assert_eq!(self.idle_at[node as usize], NONE);
        self.idle_at[node as usize] = self.idle.len() as u32;
        self.idle.push(node);
        self.dispatch();
    }

    /// Sends `bits` from `src` to `dst`: a flow on the route's links.
    fn send(&mut self, src: u32, dst: u32, bits: f64, payload: Payload) {
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
            self.schedule(at, Event::Delivered(id));
        } else {
            self.network.add(id, self.now, work, &self.routes);
        }
    }

    fn deliver(&mut self, id: u32) {
        let message = self.messages.items[id as usize];
        self.messages.release(id);
        match message.payload {
            Payload::Ship { job } => {
                self.start_frame(message.dst, job, 0, Owner::Scheduler);
            }
            Payload::Request { frame, want } => {
                let mut granted = std::mem::take(self.grant_list(frame));
                granted.clear();
                let k = want.min(self.idle.len() as u32);
                for _ in 0..k {
                    let node = self.take_idle();
                    granted.push(node);
                }
                self.grants[frame as usize] = granted;
                self.send(
                    SCHEDULER,
                    message.src,
                    self.model.costs.control_bits,
                    Payload::Grant { frame },
                );
            }
            Payload::Grant { frame } => {
                let granted = std::mem::take(&mut self.grants[frame as usize]);
                for &helper in &granted {
                    self.delegate(frame, helper);
                }
                self.grants[frame as usize] = granted;
                self.next_local(frame);
            }
            Payload::Subtask { parent, task } => {
                let job = self.frames.items[parent as usize].job;
                self.start_frame(
                    message.dst,
                    job,
                    task,
                    Owner::Remote {
                        node: message.src,
                        frame: parent,
                    },
                );
            }
            Payload::Result { parent, helper } => {
                let f = &mut self.frames.items[parent as usize];
                f.outstanding -= 1;
                let (left, node) = (f.next_child < f.end_child, f.node);
                if left {
                    self.delegate(parent, helper);
                } else {
                    self.send(
                        node,
                        SCHEDULER,
                        self.model.costs.control_bits,
                        Payload::NodeDone { helper },
                    );
                    self.maybe_aggregate(parent);
                }
            }
            Payload::NodeDone { helper } => self.release(helper),
            Payload::Final { job } => {
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
                self.release(message.src);
            }
        }
    }

    /// The grant list of `frame`, grown to hold it.
    fn grant_list(&mut self, frame: u32) -> &mut Vec<u32> {
        let i = frame as usize;
        if self.grants.len() <= i {
            self.grants.resize_with(i + 1, Vec::new);
        }
        &mut self.grants[i]
    }

    /// Starts `task` of `job` on `node`: its initialisation first.
    fn start_frame(&mut self, node: u32, job: u32, task: u32, owner: Owner) {
        let tree = &self.trees.items[self.jobs.items[job as usize].tree as usize];
        let children = tree.children(task);
        let frame = self.frames.insert(Frame {
            node,
            job,
            next_child: children.start,
            end_child: children.end,
            outstanding: 0,
            local_busy: false,
            owner,
        });
        self.out.tasks += 1;
        let t = self.compute_time(self.model.costs.init);
        self.busy(node, t);
        self.schedule(self.now + t, Event::Initialised(frame));
    }

    /// Counts `t` seconds of computation on `node` if measuring.
    fn busy(&mut self, node: u32, t: f64) {
        if self.measuring {
            self.out.node_busy[node as usize] += t;
        }
    }

    fn initialised(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        let children = f.end_child - f.next_child;
        if children >= 2 {
            let want = children - 1;
            self.grant_list(frame);
            self.send(
                f.node,
                SCHEDULER,
                self.model.costs.control_bits,
                Payload::Request { frame, want },
            );
        } else {
            self.next_local(frame);
        }
    }

    /// Hands the frame's next child to `helper`.
    fn delegate(&mut self, frame: u32, helper: u32) {
        let f = &mut self.frames.items[frame as usize];
        let task = f.next_child;
        f.next_child += 1;
        f.outstanding += 1;
        let node = f.node;
        self.send(
            node,
            helper,
            self.model.costs.schedule_bits,
            Payload::Subtask {
                parent: frame,
                task,
            },
        );
    }

    /// Runs the frame's next child on its own node, or aggregates when nothing is left.
    fn next_local(&mut self, frame: u32) {
        let f = &mut self.frames.items[frame as usize];
        if f.next_child < f.end_child {
            let task = f.next_child;
            f.next_child += 1;
            f.local_busy = true;
            let (node, job) = (f.node, f.job);
            self.start_frame(node, job, task, Owner::Local(frame));
        } else {
            self.maybe_aggregate(frame);
        }
    }

    /// Starts the aggregation once every child is done.
    fn maybe_aggregate(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        if f.next_child == f.end_child && f.outstanding == 0 && !f.local_busy {
            let t = self.compute_time(self.model.costs.aggregate);
            self.busy(f.node, t);
            self.schedule(self.now + t, Event::Aggregated(frame));
        }
    }

    fn aggregated(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        self.frames.release(frame);
        match f.owner {
            Owner::Scheduler => {
                self.send(
                    f.node,
                    SCHEDULER,
                    self.model.costs.control_bits,
                    Payload::Final { job: f.job },
                );
            }
            Owner::Local(parent) => {
                self.frames.items[parent as usize].local_busy = false;
                self.next_local(parent);
            }
            Owner::Remote {
                node,
                frame: parent,
            } => {
                self.send(
                    f.node,
                    node,
                    self.model.costs.result_bits,
                    Payload::Result {
                        parent,
                        helper: f.node,
                    },
                );
            }
        }
    }
}

/// An exponential draw of mean `mean`.
fn exponential(mean: f64, rng: &mut impl Rng) -> f64 {
    // 1 − u is in (0, 1]: its logarithm is finite.
    -mean * (1.0 - rng.gen::<f64>()).ln()
}
