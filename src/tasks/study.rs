//! A simulation as the outputs show it: the model, where it ran (with the names of the
//! nodes' hosts and of the links), the loads and the result; and a sweep of such points.

use super::model::Description;
use super::sim::{Scheduler, SimConfig, TaskResult};
use crate::trace::traffic::{Notes, Pair, TraceTraffic};

/// One simulated point.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    /// The model, its machine and its loads at the simulated arrival rate.
    pub description: Description,
    /// Where it ran: `crossbar`, or the fabric's file.
    pub network: String,
    /// How the nodes were placed on the fabric (None on the crossbar).
    pub placement: Option<String>,
    /// Each node's host name (`node0`… on the crossbar).
    pub node_names: Vec<String>,
    /// Each link's name (`node3 up`, `node3 down` on the crossbar).
    pub link_names: Vec<String>,
    /// Each link's capacity, as a multiple of B.
    pub link_capacities: Vec<f64>,
    /// The simulation's parameters.
    pub config: SimConfig,
    /// What it measured.
    pub result: TaskResult,
}

impl TaskRun {
    /// Mean utilisation of the computing nodes (every node but the central
    /// scheduler's).
    pub fn computing_utilisation(&self) -> f64 {
        let busy = &self.result.node_utilisation[self.first_computing_node()..];
        busy.iter().sum::<f64>() / busy.len() as f64
    }

    /// The first node that computes: 1 under the central scheduler (node 0 schedules),
    /// 0 with work stealing.
    pub fn first_computing_node(&self) -> usize {
        match self.config.scheduler {
            Scheduler::Central => 1,
            Scheduler::Stealing { .. } => 0,
        }
    }

    /// The busiest link (index, utilisation); None without links.
    pub fn busiest_link(&self) -> Option<(usize, f64)> {
        self.result
            .link_utilisation
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    /// The links by utilisation, busiest first (ties by link id), at most `limit`.
    pub fn busiest_links(&self, limit: usize) -> Vec<(usize, f64)> {
        let mut links: Vec<(usize, f64)> = self
            .result
            .link_utilisation
            .iter()
            .copied()
            .enumerate()
            .collect();
        links.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        links.truncate(limit);
        links
    }

    /// The traffic of the measurement windows of every replication as a matrix of
    /// bytes and messages between nodes (None when it was not recorded): what `-p
    /// matrix`, `orcs traffic` and `orcs jobs` read.
    pub fn traffic(&self) -> Option<TraceTraffic> {
        let traffic = self.result.traffic.as_ref()?;
        let n = traffic.nodes as usize;
        let pairs = (0..n * n)
            .filter(|&k| traffic.messages[k] > 0)
            .map(|k| Pair {
                src: (k / n) as u32,
                dst: (k % n) as u32,
                bytes: (traffic.bits[k] / 8.0).round() as u64,
                messages: traffic.messages[k],
            })
            .collect();
        Some(TraceTraffic {
            ranks: traffic.nodes,
            pairs,
            notes: Notes::default(),
        })
    }
}

/// The points of a sweep, in the order they were asked for (networks, then loads).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSweep {
    /// Every point.
    pub points: Vec<TaskRun>,
}
