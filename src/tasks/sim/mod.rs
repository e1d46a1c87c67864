//! Executing a task model: root tasks arrive as a Poisson process and run on the nodes
//! of a network (an ideal crossbar or a routed fabric) under a central work-sharing
//! scheduler or work stealing; the messages share the links they cross (the flow model
//! of [`crate::flow`]). Independent replications run in parallel, each from its own
//! seeded stream, so a seed gives the same result whatever the thread count.
//!
//! # The central scheduler (spec §12)
//!
//! Node 0 is the scheduler and computes nothing; nodes 1 … N − 1 compute. A root task
//! arriving is shipped (ε bits) to a uniformly random idle node, or waits first come
//! first served until one is released. A node executing task t runs t_i; with one child
//! it executes the child itself; with m ≥ 2 it asks the scheduler for m − 1 nodes (ε)
//! and gets a grant (ε) of k = min(m − 1, idle) nodes, delegates one child to each (s_s),
//! executes the others itself one at a time, hands a child still waiting to a helper
//! whose result (s_r) comes back, and releases every helper no longer needed with a
//! node-done message (ε, sent by the delegating node to the scheduler, which makes the
//! helper idle on receipt); once every child is done it runs t_a. A root task's node
//! answers the scheduler (ε) and becomes idle when the answer arrives.
//!
//! # Work stealing
//!
//! Every node computes and keeps its tasks in a deque; root tasks arrive at random
//! nodes; an idle node asks a random other node for work (ε), which gives its oldest
//! waiting task (s_s) or refuses (ε); a stolen task's result (s_r) goes back to its
//! parent's node. The rules in full are in `stealing.rs`'s documentation.
//!
//! # The network
//!
//! A message of b bits is a flow needing b/B seconds alone on its route; it is
//! delivered when its flow finishes, plus the latency. On the crossbar a message
//! crosses its source's injection link and its destination's ejection link, each of
//! bandwidth B (LWSim's ideal network with per-node injection bandwidth). On a fabric,
//! node i runs on host `hosts[i]` and the message crosses the links of its route
//! through the forwarding tables, every link of bandwidth B times its capacity (the
//! fabric's `capacity` attributes, 1 where absent).
//!
//! # Measurement
//!
//! The first `warmup` root tasks of a replication warm the system up; the next `roots`
//! are measured: their completion time runs from arrival (at the scheduler, or at a
//! node under work stealing) to the arrival of their final answer there. Arrivals go
//! on until the last measured root is done, so the measured ones see a loaded system.
//! Utilisations and traffic count the work started and the bits sent between the
//! first measured arrival and the last measured completion (the window), over its
//! length.

mod central;
mod core;
mod stealing;

use super::{SchedulerKind, TaskCosts};
use crate::engine::stream::{stream_rng, Stream};
use crate::flow::{FlowNetwork, RankRoutes};
use crate::queueing::des::Estimate;
use crate::tasks::TaskTree;
use rayon::prelude::*;

/// Where the task trees come from.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeModel {
    /// Every root task has this tree (a layered tree, or any other).
    Fixed(TaskTree),
    /// Every root task draws its own preferential-attachment tree of `tasks` tasks and
    /// exponent `exponent` ([`TaskTree::preferential`]).
    Preferential {
        /// Tasks n per tree.
        tasks: u32,
        /// Attachment exponent s.
        exponent: f64,
    },
}

/// How long computations take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskTimes {
    /// Exactly t_i and t_a (LWSim).
    Constant,
    /// Exponential draws of means t_i and t_a (for checks against queueing formulas).
    Exponential,
}

/// A task model: its trees, its costs, its computation-time law.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskModel {
    /// The trees of the root tasks.
    pub tree: TreeModel,
    /// Times and payloads of every task.
    pub costs: TaskCosts,
    /// Constant or exponential computation times.
    pub times: TaskTimes,
}

/// The network the nodes talk over.
#[derive(Clone, Copy)]
pub enum Interconnect<'a> {
    /// An ideal crossbar: only the nodes' injection and ejection links are shared.
    Crossbar,
    /// A routed fabric: node i on host `routes`' rank i.
    Fabric(RankRoutes<'a>),
}

impl Interconnect<'_> {
    /// Link ids below this for `nodes` nodes.
    pub fn links(&self, nodes: u32) -> usize {
        match self {
            Interconnect::Crossbar => 2 * nodes as usize,
            Interconnect::Fabric(routes) => routes.links(),
        }
    }

    /// An empty network of flows over the links of `nodes` nodes.
    pub fn flow_network(&self, nodes: u32) -> FlowNetwork {
        match self {
            Interconnect::Crossbar => FlowNetwork::new(self.links(nodes)),
            Interconnect::Fabric(routes) => routes.flow_network(),
        }
    }

    /// Link `link`'s capacity, as a multiple of B.
    pub fn capacity(&self, link: u32) -> f64 {
        match self {
            Interconnect::Crossbar => 1.0,
            Interconnect::Fabric(routes) => routes.capacity(link),
        }
    }

    /// Calls `visit` with the links a message from node `src` to `dst` crosses.
    pub fn walk(&self, src: u32, dst: u32, mut visit: impl FnMut(u32)) {
        match self {
            Interconnect::Crossbar => {
                if src != dst {
                    visit(2 * src);
                    visit(2 * dst + 1);
                }
            }
            Interconnect::Fabric(routes) => routes.walk(src, dst, visit),
        }
    }
}

/// Who hands the tasks out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scheduler {
    /// The central work-sharing scheduler of spec §12 on node 0, which computes nothing.
    Central,
    /// Work stealing: every node computes, and an idle node asks a random other node
    /// for work, waiting `retry` seconds after a refusal (the rules are in
    /// `stealing.rs`).
    Stealing {
        /// Seconds between a refusal and the next request.
        retry: f64,
    },
}

impl Scheduler {
    /// Its name on the command line and in outputs: `central` or `stealing`.
    pub fn name(&self) -> &'static str {
        match self {
            Scheduler::Central => "central",
            Scheduler::Stealing { .. } => "stealing",
        }
    }

    /// Which kind it is (what the loads need: N_c).
    pub fn kind(&self) -> SchedulerKind {
        match self {
            Scheduler::Central => SchedulerKind::Central,
            Scheduler::Stealing { .. } => SchedulerKind::Stealing,
        }
    }
}

/// How to run the simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimConfig {
    /// Who schedules.
    pub scheduler: Scheduler,
    /// Nodes N, the central scheduler's included (≥ 2 with it, ≥ 1 with work stealing).
    pub nodes: u32,
    /// Compute power P, flop/ns: computations take their time / P.
    pub power: f64,
    /// Bandwidth B of every link, bits/s.
    pub bandwidth: f64,
    /// Latency added to every message, s.
    pub latency: f64,
    /// Root-task arrival rate β, 1/s.
    pub arrival_rate: f64,
    /// Root tasks measured per replication (≥ 1).
    pub roots: u64,
    /// Root tasks before the measured ones.
    pub warmup: u64,
    /// Independent replications (≥ 1), run in parallel.
    pub replications: u32,
    /// Seed: replication i draws from the stream (seed, i).
    pub seed: u64,
    /// Confidence level of the intervals, in (0, 1).
    pub confidence: f64,
    /// Whether to record the traffic between every pair of nodes (N² counters per
    /// replication).
    pub record_traffic: bool,
}

/// What one replication measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Replication {
    /// Completion times of the measured root tasks, s, in completion order.
    pub completions: Vec<f64>,
    /// Start of the measurement window, s.
    pub window_start: f64,
    /// Length of the measurement window, s.
    pub window: f64,
    /// Computation started in the window per node, s.
    pub node_busy: Vec<f64>,
    /// Bits sent in the window per link.
    pub link_bits: Vec<f64>,
    /// Bits sent in the window, by source node × N + destination node (empty unless
    /// recorded).
    pub traffic_bits: Vec<f64>,
    /// Messages sent in the window, by source node × N + destination node (empty unless
    /// recorded).
    pub traffic_messages: Vec<u64>,
    /// Bits sent in the window.
    pub bits: f64,
    /// Messages sent in the window.
    pub messages: u64,
    /// Tasks executed in the whole replication (warm-up and drain included).
    pub tasks: u64,
}

impl Replication {
    fn empty(nodes: usize, links: usize, record_traffic: bool) -> Self {
        let pairs = if record_traffic { nodes * nodes } else { 0 };
        Replication {
            completions: Vec::new(),
            window_start: 0.0,
            window: 0.0,
            node_busy: vec![0.0; nodes],
            link_bits: vec![0.0; links],
            traffic_bits: vec![0.0; pairs],
            traffic_messages: vec![0; pairs],
            bits: 0.0,
            messages: 0,
            tasks: 0,
        }
    }

    /// Mean completion time, s.
    pub fn mean(&self) -> f64 {
        self.completions.iter().sum::<f64>() / self.completions.len() as f64
    }
}

/// What the simulation measured over all replications.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResult {
    /// Mean completion time with its confidence interval over the replications' means
    /// (None with one replication).
    pub completion: Option<Estimate>,
    /// Mean completion time over every measured root task, s.
    pub mean: f64,
    /// Completion-time percentiles (q, seconds) over every measured root task, for q in
    /// [`PERCENTILES`].
    pub percentiles: Vec<(f64, f64)>,
    /// Per node: computation over the window, averaged over replications (0 … 1).
    pub node_utilisation: Vec<f64>,
    /// Per link: bits over (B × capacity × window), averaged over replications (0 … 1).
    pub link_utilisation: Vec<f64>,
    /// The traffic between nodes summed over the replications' windows, when recorded.
    pub traffic: Option<TaskTraffic>,
    /// Tasks executed over all replications.
    pub tasks: u64,
    /// Messages sent in the windows over all replications.
    pub messages: u64,
    /// The replications themselves, in order.
    pub replications: Vec<Replication>,
}

/// Traffic between nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskTraffic {
    /// Nodes N.
    pub nodes: u32,
    /// Bits from node i to node j at `i × N + j`.
    pub bits: Vec<f64>,
    /// Messages from node i to node j at `i × N + j`.
    pub messages: Vec<u64>,
    /// The windows' total length, s.
    pub seconds: f64,
}

/// The percentiles reported.
pub const PERCENTILES: [f64; 5] = [0.5, 0.9, 0.95, 0.99, 1.0];

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// Fewer than two nodes with the central scheduler (none would compute), or none.
    #[error("{}", too_few_nodes(*.0))]
    TooFewNodes(u32),
    /// A value out of range.
    #[error("{name} must be {expected}, got {value}")]
    Invalid {
        /// The parameter.
        name: &'static str,
        /// Its range.
        expected: &'static str,
        /// The value given.
        value: String,
    },
    /// A fabric with fewer hosts than nodes.
    #[error("the fabric places {placed} nodes, the simulation needs {nodes}")]
    NodesNotPlaced {
        /// Nodes placed on the fabric.
        placed: usize,
        /// Nodes asked for.
        nodes: u32,
    },
}

fn too_few_nodes(nodes: u32) -> String {
    if nodes == 0 {
        "the simulation needs at least 1 node, got 0".to_string()
    } else {
        format!(
            "the central scheduler needs at least 2 nodes (1 scheduler, 1 computing), got {nodes}"
        )
    }
}

fn invalid(name: &'static str, expected: &'static str, value: impl ToString) -> SimError {
    SimError::Invalid {
        name,
        expected,
        value: value.to_string(),
    }
}

impl SimConfig {
    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), SimError> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        let least = match self.scheduler {
            Scheduler::Central => 2,
            Scheduler::Stealing { retry } => {
                if !(retry.is_finite() && retry >= 0.0) {
                    return Err(invalid(
                        "the steal retry period",
                        "a non-negative number",
                        retry,
                    ));
                }
                1
            }
        };
        if self.nodes < least {
            return Err(SimError::TooFewNodes(self.nodes));
        }
        if !positive(self.power) {
            return Err(invalid(
                "the compute power",
                "a positive number",
                self.power,
            ));
        }
        if !positive(self.bandwidth) {
            return Err(invalid(
                "the bandwidth",
                "a positive number",
                self.bandwidth,
            ));
        }
        if !(self.latency.is_finite() && self.latency >= 0.0) {
            return Err(invalid(
                "the latency",
                "a non-negative number",
                self.latency,
            ));
        }
        if !positive(self.arrival_rate) {
            return Err(invalid(
                "the arrival rate",
                "a positive number",
                self.arrival_rate,
            ));
        }
        if self.roots == 0 {
            return Err(invalid("the measured root tasks", "at least 1", self.roots));
        }
        if self.replications == 0 {
            return Err(invalid("the replications", "at least 1", self.replications));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(invalid("the confidence", "in (0, 1)", self.confidence));
        }
        Ok(())
    }
}

/// Simulates `model` on `interconnect` under `config`: the replications in parallel,
/// then their statistics. `progress` hears of measured root tasks completed, in batches
/// (from any thread). Cost: O(events × flows in flight × hops) per replication.
pub fn simulate(
    model: &TaskModel,
    interconnect: &Interconnect<'_>,
    config: &SimConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TaskResult, SimError> {
    check(interconnect, config)?;
    let replications: Vec<Replication> = (0..config.replications)
        .into_par_iter()
        .map(|i| replicate(model, interconnect, config, i, progress))
        .collect();
    Ok(result_of(replications, interconnect, config))
}

/// Checks that `config` is valid and that `interconnect` holds its nodes: what
/// [`simulate`] checks before its first replication.
pub fn check(interconnect: &Interconnect<'_>, config: &SimConfig) -> Result<(), SimError> {
    config.validate()?;
    if let Interconnect::Fabric(routes) = interconnect {
        if routes.ranks() < config.nodes as usize {
            return Err(SimError::NodesNotPlaced {
                placed: routes.ranks(),
                nodes: config.nodes,
            });
        }
    }
    Ok(())
}

/// Replication `index` of [`simulate`] alone, from its own random stream, so that
/// replications can be computed anywhere (other threads, other processes) and joined
/// in order by [`result_of`]. `config` must have passed [`check`].
pub fn replicate(
    model: &TaskModel,
    interconnect: &Interconnect<'_>,
    config: &SimConfig,
    index: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> Replication {
    let rng = stream_rng(config.seed, Stream::Tasks(u64::from(index)));
    match config.scheduler {
        Scheduler::Central => central::Run::new(model, interconnect, config, rng).run(progress),
        Scheduler::Stealing { retry } => {
            stealing::Run::new(model, interconnect, config, rng, retry).run(progress)
        }
    }
}

/// The result of `config`'s replications, given in order (all of them, as
/// [`replicate`] made them).
pub fn result_of(
    replications: Vec<Replication>,
    interconnect: &Interconnect<'_>,
    config: &SimConfig,
) -> TaskResult {
    let capacities: Vec<f64> = (0..interconnect.links(config.nodes) as u32)
        .map(|l| interconnect.capacity(l))
        .collect();
    summarise(replications, config, &capacities)
}

/// The statistics of the replications.
fn summarise(replications: Vec<Replication>, config: &SimConfig, capacities: &[f64]) -> TaskResult {
    let means: Vec<f64> = replications.iter().map(Replication::mean).collect();
    let completion = Estimate::of(&means, config.confidence);
    let mut all: Vec<f64> = replications
        .iter()
        .flat_map(|r| r.completions.iter().copied())
        .collect();
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    all.sort_by(f64::total_cmp);
    let percentiles = PERCENTILES
        .iter()
        .map(|&q| (q, percentile(&all, q)))
        .collect();
    let r = replications.len() as f64;
    let average = |values: &dyn Fn(&Replication) -> Vec<f64>| -> Vec<f64> {
        let mut sum: Vec<f64> = Vec::new();
        for rep in &replications {
            let v = values(rep);
            if sum.is_empty() {
                sum = vec![0.0; v.len()];
            }
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x / r;
            }
        }
        sum
    };
    let node_utilisation = average(&|rep| rep.node_busy.iter().map(|b| b / rep.window).collect());
    let link_utilisation = average(&|rep| {
        rep.link_bits
            .iter()
            .zip(capacities)
            .map(|(b, c)| b / (config.bandwidth * c * rep.window))
            .collect()
    });
    let traffic = config.record_traffic.then(|| {
        let pairs = config.nodes as usize * config.nodes as usize;
        let mut t = TaskTraffic {
            nodes: config.nodes,
            bits: vec![0.0; pairs],
            messages: vec![0; pairs],
            seconds: 0.0,
        };
        for rep in &replications {
            for (sum, b) in t.bits.iter_mut().zip(&rep.traffic_bits) {
                *sum += b;
            }
            for (sum, m) in t.messages.iter_mut().zip(&rep.traffic_messages) {
                *sum += m;
            }
            t.seconds += rep.window;
        }
        t
    });
    TaskResult {
        completion,
        mean,
        percentiles,
        node_utilisation,
        link_utilisation,
        traffic,
        tasks: replications.iter().map(|r| r.tasks).sum(),
        messages: replications.iter().map(|r| r.messages).sum(),
        replications,
    }
}

/// The q-quantile of sorted values, nearest rank (q = 1: the maximum).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

#[cfg(test)]
mod tests;
