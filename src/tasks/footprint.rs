//! What a task model costs: the per-task times and payloads, the computation and
//! communication footprints F_x and F_c of one root task, and the loads (ρ_x, ρ_c, β,
//! ζ, F, ξ) that tie them to a machine of N nodes. Units are SI: seconds, bits, bits/s;
//! the compute power P is in flop/ns as in LWSim (1 flop/ns runs t seconds of work in t
//! seconds).

/// The costs of every task of a model (LWSim's `ConstantsTaskPropertiesGenerator`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskCosts {
    /// Initialisation time t_i of a task, s (at P = 1).
    pub init: f64,
    /// Aggregation time t_a of a task, s (at P = 1).
    pub aggregate: f64,
    /// Scheduling payload s_s: the bits sent with a delegated subtask.
    pub schedule_bits: f64,
    /// Result payload s_r: the bits a delegated subtask returns.
    pub result_bits: f64,
    /// Control-message size ε, bits: allocation requests, grants, node-done messages,
    /// and the root task's shipment and final result.
    pub control_bits: f64,
}

impl Default for TaskCosts {
    /// LWSim's defaults: t_i = t_a = 10 µs, s_s = 20 kB, s_r = 40 kB, ε = 40 B.
    fn default() -> Self {
        TaskCosts {
            init: 10e-6,
            aggregate: 10e-6,
            schedule_bits: 160_000.0,
            result_bits: 320_000.0,
            control_bits: 320.0,
        }
    }
}

/// The counts of a task tree (or their expectations over a random tree model) the
/// footprints depend on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeCounts {
    /// Tasks n.
    pub tasks: f64,
    /// Leaves L.
    pub leaves: f64,
    /// Delegating tasks d (two or more children).
    pub delegating: f64,
}

/// The footprints of one root task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    /// Computation footprint F_x = n · (t_i + t_a), s of work at P = 1 (flop / 10⁹).
    pub computation: f64,
    /// Communication footprint F_c = (L − 1)(s_s + s_r + ε) + ε(2 + 2d), bits: every
    /// one of the L − 1 delegations ships a subtask, returns a result and releases its
    /// node; every delegating task asks for nodes and gets a grant; the root task is
    /// shipped and answers.
    pub communication: f64,
}

impl Footprint {
    /// The footprints of a tree with `counts` under `costs`.
    pub fn of(counts: TreeCounts, costs: &TaskCosts) -> Self {
        let eps = costs.control_bits;
        Footprint {
            computation: counts.tasks * (costs.init + costs.aggregate),
            communication: (counts.leaves - 1.0) * (costs.schedule_bits + costs.result_bits + eps)
                + eps * (2.0 + 2.0 * counts.delegating),
        }
    }

    /// F = F_c / F_x in bits/s: the communication a second of computation brings.
    pub fn intensity(&self) -> f64 {
        self.communication / self.computation
    }
}

/// The costs whose footprints are the imposed `computation` (s) and `communication`
/// (bits) for a tree with `counts`: the times scaled so that t_i + t_a = F_x / n in
/// the ratio of `base`, and `s_s + s_r = (F_c − 2ε − 2dε)/(L − 1) − ε` split in the
/// ratio of `base` (1:2 by default). None when the tree has a single leaf (no
/// delegation carries the payloads), the imposed F_c is below the control traffic, F_x
/// is negative, or `base` has no time or no payload to take the ratios from.
pub fn costs_for(
    counts: TreeCounts,
    computation: f64,
    communication: f64,
    base: &TaskCosts,
) -> Option<TaskCosts> {
    let eps = base.control_bits;
    if counts.leaves <= 1.0 {
        return None;
    }
    let payload =
        (communication - 2.0 * eps - 2.0 * counts.delegating * eps) / (counts.leaves - 1.0) - eps;
    let base_payload = base.schedule_bits + base.result_bits;
    let base_time = base.init + base.aggregate;
    let usable = |v: f64| v.is_finite() && v >= 0.0;
    if !usable(payload) || !usable(computation) || base_payload <= 0.0 || base_time <= 0.0 {
        return None;
    }
    let time = computation / counts.tasks;
    Some(TaskCosts {
        init: time * base.init / base_time,
        aggregate: time * base.aggregate / base_time,
        schedule_bits: payload * base.schedule_bits / base_payload,
        result_bits: payload * base.result_bits / base_payload,
        control_bits: eps,
    })
}

/// Who schedules: the central scheduler takes node 0 (it computes nothing), work
/// stealing computes on every node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    /// One central work-sharing scheduler on node 0 (N_c = N − 1).
    Central,
    /// Work stealing, no scheduler node (N_c = N).
    Stealing,
}

/// A machine the model runs on: N nodes of compute power P with per-node injection
/// bandwidth B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    /// Nodes N (the scheduler's node included).
    pub nodes: u32,
    /// Compute power P, flop/ns (1 = a task's times as given).
    pub power: f64,
    /// Per-node injection bandwidth B, bits/s.
    pub bandwidth: f64,
    /// Who schedules (decides N_c).
    pub scheduler: SchedulerKind,
}

impl Machine {
    /// Computing nodes N_c: N − 1 under the central scheduler, N with work stealing.
    pub fn computing_nodes(&self) -> f64 {
        match self.scheduler {
            SchedulerKind::Central => f64::from(self.nodes.saturating_sub(1)),
            SchedulerKind::Stealing => f64::from(self.nodes),
        }
    }
}

/// The loads of a model on a machine at root-task arrival rate β.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loads {
    /// Root-task arrival rate β, 1/s (Poisson).
    pub arrival_rate: f64,
    /// Computation load ρ_x = F_x β / (N_c P).
    pub computation: f64,
    /// Communication load ρ_c = F_c β / (B N).
    pub communication: f64,
    /// ζ = ρ_x / ρ_c.
    pub zeta: f64,
    /// F = B / ζ, bits/s (≈ F_c / F_x when N_c ≈ N).
    pub f: f64,
    /// ξ = ζ / P.
    pub xi: f64,
}

/// Which load is imposed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadTarget {
    /// Root tasks per second β.
    ArrivalRate(f64),
    /// Computation load ρ_x.
    Computation(f64),
    /// Communication load ρ_c.
    Communication(f64),
}

impl Loads {
    /// The loads of `footprint` on `machine` at the imposed `target`.
    pub fn new(footprint: &Footprint, machine: &Machine, target: LoadTarget) -> Self {
        let work_per_second = machine.computing_nodes() * machine.power;
        let link_capacity = machine.bandwidth * f64::from(machine.nodes);
        let beta = match target {
            LoadTarget::ArrivalRate(beta) => beta,
            LoadTarget::Computation(rho) => rho * work_per_second / footprint.computation,
            LoadTarget::Communication(rho) => rho * link_capacity / footprint.communication,
        };
        let computation = footprint.computation * beta / work_per_second;
        let communication = footprint.communication * beta / link_capacity;
        let zeta = computation / communication;
        Loads {
            arrival_rate: beta,
            computation,
            communication,
            zeta,
            f: machine.bandwidth / zeta,
            xi: zeta / machine.power,
        }
    }
}
