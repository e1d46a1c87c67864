//! One replication under work stealing: every node computes, keeps the tasks it may run
//! in its own deque, and an idle node asks a random other node for work.
//!
//! The rules (LWSim has a work-stealing scheduler but no specification of it; these are
//! the classic randomised work stealing of Blumofe and Leiserson, in the model's costs):
//!
//! - A root task arrives at a uniformly random node and joins the back of its deque.
//! - A node runs one computation at a time. When it is free it first aggregates a task
//!   whose children are all done, else runs the newest task of its deque (the back:
//!   depth first, as the owner of a deque does), else, unless it is already asking, sends
//!   a steal request (ε) to a uniformly random other node.
//! - Running a task is its initialisation t_i, after which its children join the back
//!   of the deque (the first child on top), and, once every child is done, its
//!   aggregation t_a.
//! - A node asked for work gives the oldest task of its deque (the front: the largest
//!   pieces of work travel) with the scheduling payload s_s (a root task with ε), or
//!   refuses with ε. A refused node waits the retry period before it asks again; its
//!   first request goes out at a uniformly random time within the first period, so that
//!   nodes do not ask in lockstep.
//! - A stolen task, once done, sends its result s_r to the node its parent runs on; a
//!   stolen root task sends its answer (ε) to the node it arrived at. A root task is
//!   complete when its result is on the node it arrived at.

use super::core::{Core, SimEvent, Slab};
use super::{Interconnect, Replication, SimConfig, TaskModel};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Something scheduled: what happens when its time comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The next root task arrives.
    Arrival,
    /// A frame's initialisation is done.
    Initialised(u32),
    /// A frame's aggregation is done.
    Aggregated(u32),
    /// A node's wait after a refusal (or before its first request) is over.
    Retry(u32),
    /// A message reaches its destination.
    Delivered(u32),
}

impl SimEvent for Event {
    fn delivered(message: u32) -> Self {
        Event::Delivered(message)
    }
}

/// Who a task reports to when it is done.
#[derive(Debug, Clone, Copy)]
enum Owner {
    /// Nobody: it is a root task, which arrived at node `home`.
    Root { home: u32 },
    /// A frame of the node the task runs on.
    Local(u32),
    /// A frame of another node: the task was stolen from there.
    Remote { node: u32, frame: u32 },
}

/// A task waiting in a deque.
#[derive(Debug, Clone, Copy)]
struct Ready {
    job: u32,
    task: u32,
    owner: Owner,
}

/// A task being executed on a node.
#[derive(Debug, Clone, Copy)]
struct Frame {
    node: u32,
    job: u32,
    /// Children whose result is not in yet.
    outstanding: u32,
    /// Its children, pushed on the deque once initialised.
    first_child: u32,
    end_child: u32,
    owner: Owner,
}

/// What a message carries.
#[derive(Debug, Clone, Copy)]
enum Payload {
    /// An idle node (the source) asks for work.
    Steal,
    /// The answer: a task.
    Stolen(Ready),
    /// The answer: no work.
    Refused,
    /// A stolen task's result for frame `parent` of the destination.
    Result { parent: u32 },
    /// A stolen root task's answer, to the node it arrived at.
    Final { job: u32 },
}

/// The simulation of one replication.
pub(super) struct Run<'a> {
    core: Core<'a, Event, Payload>,
    frames: Slab<Frame>,
    /// Each node's deque of tasks it may run.
    deques: Vec<VecDeque<Ready>>,
    /// Each node's frames whose children are all done.
    ready: Vec<Vec<u32>>,
    /// Whether each node is computing.
    running: Vec<bool>,
    /// Whether each node has a steal request out or waits to ask again.
    asking: Vec<bool>,
    /// Seconds an idle node waits after a refusal.
    retry: f64,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        model: &'a TaskModel,
        interconnect: &'a Interconnect<'a>,
        config: &'a SimConfig,
        rng: Xoshiro256PlusPlus,
        retry: f64,
    ) -> Self {
        let nodes = config.nodes as usize;
        Run {
            core: Core::new(model, interconnect, config, rng),
            frames: Slab::new(),
            deques: vec![VecDeque::new(); nodes],
            ready: vec![Vec::new(); nodes],
            running: vec![false; nodes],
            asking: vec![true; nodes],
            retry,
        }
    }

    /// Runs until every measured root task is done; `progress` hears of completed
    /// measured roots in batches.
    pub(super) fn run(mut self, progress: &(dyn Fn(u64) + Sync)) -> Replication {
        for node in 0..self.core.config.nodes {
            let first = self.retry * self.core.rng.random::<f64>();
            self.core.schedule(first, Event::Retry(node));
        }
        let first = self.core.next_arrival();
        self.core.schedule(first, Event::Arrival);
        while let Some(event) = self.core.next(progress) {
            match event {
                Event::Arrival => self.arrive(),
                Event::Initialised(frame) => self.initialised(frame),
                Event::Aggregated(frame) => self.aggregated(frame),
                Event::Retry(node) => {
                    self.asking[node as usize] = false;
                    self.pump(node);
                }
                Event::Delivered(message) => self.deliver(message),
            }
        }
        self.core.finish(progress)
    }

    fn arrive(&mut self) {
        let job = self.core.arrive();
        let home = self.core.rng.random_range(0..self.core.config.nodes);
        self.deques[home as usize].push_back(Ready {
            job,
            task: 0,
            owner: Owner::Root { home },
        });
        self.pump(home);
        let next = self.core.next_arrival();
        self.core.schedule(next, Event::Arrival);
    }

    /// Gives `node`, if free, its next computation, or sends it stealing.
    fn pump(&mut self, node: u32) {
        let n = node as usize;
        if self.running[n] {
            return;
        }
        if let Some(frame) = self.ready[n].pop() {
            self.running[n] = true;
            let t = self.core.aggregation_time(node);
            let at = self.core.now + t;
            self.core.schedule(at, Event::Aggregated(frame));
        } else if let Some(task) = self.deques[n].pop_back() {
            self.running[n] = true;
            self.start(node, task);
        } else if !self.asking[n] && self.core.config.nodes > 1 {
            self.asking[n] = true;
            // A uniformly random node other than this one.
            let mut victim = self.core.rng.random_range(0..self.core.config.nodes - 1);
            if victim >= node {
                victim += 1;
            }
            let bits = self.core.model.costs.control_bits;
            self.core.send(node, victim, bits, Payload::Steal);
        }
    }

    /// Starts `task` on `node`: its initialisation first.
    fn start(&mut self, node: u32, task: Ready) {
        let (children, t) = self.core.start_task(node, task.job, task.task);
        let frame = self.frames.insert(Frame {
            node,
            job: task.job,
            outstanding: children.end - children.start,
            first_child: children.start,
            end_child: children.end,
            owner: task.owner,
        });
        let at = self.core.now + t;
        self.core.schedule(at, Event::Initialised(frame));
    }

    fn initialised(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        let n = f.node as usize;
        self.running[n] = false;
        if f.outstanding == 0 {
            self.ready[n].push(frame);
        }
        for task in (f.first_child..f.end_child).rev() {
            self.deques[n].push_back(Ready {
                job: f.job,
                task,
                owner: Owner::Local(frame),
            });
        }
        self.pump(f.node);
    }

    fn aggregated(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        self.frames.release(frame);
        self.running[f.node as usize] = false;
        match f.owner {
            Owner::Root { home } if home == f.node => self.core.complete(f.job),
            Owner::Root { home } => {
                let bits = self.core.model.costs.control_bits;
                self.core
                    .send(f.node, home, bits, Payload::Final { job: f.job });
            }
            Owner::Local(parent) => self.child_done(parent),
            Owner::Remote {
                node,
                frame: parent,
            } => {
                let bits = self.core.model.costs.result_bits;
                self.core
                    .send(f.node, node, bits, Payload::Result { parent });
            }
        }
        self.pump(f.node);
    }

    /// One more child of `frame` is done: the frame is ready to aggregate after the last.
    fn child_done(&mut self, frame: u32) {
        let f = &mut self.frames.items[frame as usize];
        f.outstanding -= 1;
        if f.outstanding == 0 {
            let node = f.node;
            self.ready[node as usize].push(frame);
            self.pump(node);
        }
    }

    fn deliver(&mut self, id: u32) {
        let message = self.core.take_message(id);
        let (thief, victim) = (message.src, message.dst);
        let costs = self.core.model.costs;
        match message.payload {
            Payload::Steal => match self.deques[victim as usize].pop_front() {
                Some(mut task) => {
                    let bits = match task.owner {
                        Owner::Root { .. } => costs.control_bits,
                        Owner::Local(frame) => {
                            task.owner = Owner::Remote {
                                node: victim,
                                frame,
                            };
                            costs.schedule_bits
                        }
                        // Stolen before and not started yet: its result still goes to
                        // its parent's node.
                        Owner::Remote { .. } => costs.schedule_bits,
                    };
                    self.core.send(victim, thief, bits, Payload::Stolen(task));
                }
                None => {
                    self.core
                        .send(victim, thief, costs.control_bits, Payload::Refused);
                }
            },
            Payload::Stolen(task) => {
                let node = message.dst;
                self.asking[node as usize] = false;
                self.deques[node as usize].push_back(task);
                self.pump(node);
            }
            Payload::Refused => {
                let at = self.core.now + self.retry;
                self.core.schedule(at, Event::Retry(message.dst));
            }
            Payload::Result { parent } => self.child_done(parent),
            Payload::Final { job } => self.core.complete(job),
        }
    }
}
