//! One replication under the central work-sharing scheduler of spec §12: node 0
//! schedules, the others compute; frames (a task being executed on a node) live in a
//! dense slab reused as they free.

use super::core::{Core, SimEvent, Slab};
use super::{Interconnect, Replication, SimConfig, TaskModel};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

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

impl SimEvent for Event {
    fn delivered(message: u32) -> Self {
        Event::Delivered(message)
    }
}

/// The simulation of one replication.
pub(super) struct Run<'a> {
    core: Core<'a, Event, Payload>,
    frames: Slab<Frame>,
    /// The nodes granted to a frame, by frame id (kept for their storage).
    grants: Vec<Vec<u32>>,
    /// Idle computing nodes, and each node's position there (NONE when busy).
    idle: Vec<u32>,
    idle_at: Vec<u32>,
    /// Root tasks waiting for an idle node, first come first served.
    waiting: VecDeque<u32>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        model: &'a TaskModel,
        interconnect: &'a Interconnect<'a>,
        config: &'a SimConfig,
        rng: Xoshiro256PlusPlus,
    ) -> Self {
        let nodes = config.nodes;
        Run {
            core: Core::new(model, interconnect, config, rng),
            frames: Slab::new(),
            grants: Vec::new(),
            idle: (1..nodes).collect(),
            idle_at: (0..nodes)
                .map(|n| if n == SCHEDULER { NONE } else { n - 1 })
                .collect(),
            waiting: VecDeque::new(),
        }
    }

    /// Runs until every measured root task is done; `progress` hears of completed
    /// measured roots in batches.
    pub(super) fn run(mut self, progress: &(dyn Fn(u64) + Sync)) -> Replication {
        let first = self.core.next_arrival();
        self.core.schedule(first, Event::Arrival);
        while let Some(event) = self.core.next(progress) {
            match event {
                Event::Arrival => self.arrive(),
                Event::Initialised(frame) => self.initialised(frame),
                Event::Aggregated(frame) => self.aggregated(frame),
                Event::Delivered(message) => self.deliver(message),
            }
        }
        self.core.finish(progress)
    }

    fn control_bits(&self) -> f64 {
        self.core.model.costs.control_bits
    }

    fn arrive(&mut self) {
        let job = self.core.arrive();
        self.waiting.push_back(job);
        self.dispatch();
        let next = self.core.next_arrival();
        self.core.schedule(next, Event::Arrival);
    }

    /// Ships waiting root tasks to random idle nodes while both exist.
    fn dispatch(&mut self) {
        while !self.waiting.is_empty() && !self.idle.is_empty() {
            let job = self.waiting.pop_front().expect("checked non-empty");
            let node = self.take_idle();
            let bits = self.control_bits();
            self.core.send(SCHEDULER, node, bits, Payload::Ship { job });
        }
    }

    /// A uniformly random idle node, now busy.
    fn take_idle(&mut self) -> u32 {
        let i = self.core.rng.random_range(0..self.idle.len());
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

    fn deliver(&mut self, id: u32) {
        let message = self.core.take_message(id);
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
                let bits = self.control_bits();
                self.core
                    .send(SCHEDULER, message.src, bits, Payload::Grant { frame });
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
                    let bits = self.control_bits();
                    self.core
                        .send(node, SCHEDULER, bits, Payload::NodeDone { helper });
                    self.maybe_aggregate(parent);
                }
            }
            Payload::NodeDone { helper } => self.release(helper),
            Payload::Final { job } => {
                self.core.complete(job);
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
        let (children, t) = self.core.start_task(node, job, task);
        let frame = self.frames.insert(Frame {
            node,
            job,
            next_child: children.start,
            end_child: children.end,
            outstanding: 0,
            local_busy: false,
            owner,
        });
        let at = self.core.now + t;
        self.core.schedule(at, Event::Initialised(frame));
    }

    fn initialised(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        let children = f.end_child - f.next_child;
        if children >= 2 {
            let want = children - 1;
            self.grant_list(frame);
            let bits = self.control_bits();
            self.core
                .send(f.node, SCHEDULER, bits, Payload::Request { frame, want });
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
        let bits = self.core.model.costs.schedule_bits;
        self.core.send(
            node,
            helper,
            bits,
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
            let t = self.core.aggregation_time(f.node);
            let at = self.core.now + t;
            self.core.schedule(at, Event::Aggregated(frame));
        }
    }

    fn aggregated(&mut self, frame: u32) {
        let f = self.frames.items[frame as usize];
        self.frames.release(frame);
        match f.owner {
            Owner::Scheduler => {
                let bits = self.control_bits();
                self.core
                    .send(f.node, SCHEDULER, bits, Payload::Final { job: f.job });
            }
            Owner::Local(parent) => {
                self.frames.items[parent as usize].local_busy = false;
                self.next_local(parent);
            }
            Owner::Remote {
                node,
                frame: parent,
            } => {
                let bits = self.core.model.costs.result_bits;
                self.core.send(
                    f.node,
                    node,
                    bits,
                    Payload::Result {
                        parent,
                        helper: f.node,
                    },
                );
            }
        }
    }
}
