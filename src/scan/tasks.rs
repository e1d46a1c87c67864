//! Task-model cells of a plan: its `[[tasks]]` entries read into points (tree ×
//! scheduler × load, with the simulation's parameters), and one point simulated on a
//! fabric of the plan exactly as `orcs tasks run --network FABRIC … --seed SEED` does it
//! (every host a node unless `nodes` is given, placed linear_bfs; the counts are the
//! generator's, 10,000 trees for a random model; 95 % confidence).

use super::{located, CellError, ScanError};
use crate::engine::stream::{stream_rng, Stream};
use crate::fabric::LoadedFabric;
use crate::flow::RankRoutes;
use crate::queueing::params::{parse_bandwidth, parse_size, parse_time};
use crate::report::tasks::run_summary;
use crate::routing::check_routes;
use crate::tasks::model::{CostSpec, CountSource, Description, TreeSpec};
use crate::tasks::sim::{simulate, Interconnect, Scheduler, SimConfig, TaskModel, TaskTimes};
use crate::tasks::study::TaskRun;
use crate::tasks::{LoadTarget, Machine, TaskCosts};
use crate::workload::mapping::{place_ranks, SubsetMethod};
use serde_json::Value;
use std::fmt::Write as _;

/// Trees drawn to count a random model's mean leaves and delegating tasks (the
/// default of `orcs tasks`).
const SAMPLES: u32 = 10_000;

/// The keys of a `[[tasks]]` entry.
const TASK_KEYS: [&str; 17] = [
    "tree",
    "load",
    "scheduler",
    "steal_retry",
    "nodes",
    "bandwidth",
    "power",
    "latency",
    "roots",
    "warmup",
    "replications",
    "times",
    "init",
    "aggregate",
    "schedule_size",
    "result_size",
    "control_size",
];

/// One point of a `[[tasks]]` entry: a simulation `orcs tasks run` would run.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPoint {
    /// The task trees.
    pub tree: TreeSpec,
    /// Who schedules.
    pub scheduler: Scheduler,
    /// The computation load ρ_x.
    pub load: f64,
    /// Nodes (None: every host of the fabric).
    pub nodes: Option<u32>,
    /// B, bits/s.
    pub bandwidth: f64,
    /// P, flop/ns.
    pub power: f64,
    /// Latency of every message, s.
    pub latency: f64,
    /// Measured root tasks per replication.
    pub roots: u64,
    /// Warm-up root tasks.
    pub warmup: u64,
    /// Replications.
    pub replications: u32,
    /// Constant or exponential computation times.
    pub times: TaskTimes,
    /// The costs of every task.
    pub costs: TaskCosts,
    /// The point as `orcs tasks run` flags, values as written: its label, and the
    /// command that reproduces it.
    pub flags: String,
    /// The plan's line of its entry.
    pub line: usize,
}

/// A `[[tasks]]` entry's value: one, or a list of them.
fn each(value: &toml::Value) -> Vec<&toml::Value> {
    match value {
        toml::Value::Array(items) => items.iter().collect(),
        one => vec![one],
    }
}

/// The points of one `[[tasks]]` entry at `line` of `path`: every tree × scheduler ×
/// load, in that order (the last varying fastest).
pub(super) fn task_points(
    path: &str,
    line: usize,
    entry: toml::Value,
) -> Result<Vec<TaskPoint>, ScanError> {
    let fail = |message: String| located(path, Some(line), message);
    let toml::Value::Table(table) = entry else {
        return Err(fail(
            "a [[tasks]] entry is a table such as tree = \"z=4,3\", load = [0.2, 0.5]".into(),
        ));
    };
    if let Some(key) = table.keys().find(|k| !TASK_KEYS.contains(&k.as_str())) {
        return Err(fail(format!(
            "unknown key '{key}' in [[tasks]] (expected {})",
            TASK_KEYS.join(", ")
        )));
    }
    let text = |key: &str, v: &toml::Value| -> Result<String, ScanError> {
        match v {
            toml::Value::String(s) => Ok(s.clone()),
            other => Err(fail(format!(
                "tasks key '{key}' takes a string, not {}",
                other.type_str()
            ))),
        }
    };
    let number = |key: &str, v: &toml::Value| -> Result<f64, ScanError> {
        match v {
            toml::Value::Float(x) => Ok(*x),
            toml::Value::Integer(i) => Ok(*i as f64),
            other => Err(fail(format!(
                "tasks key '{key}' takes a number, not {}",
                other.type_str()
            ))),
        }
    };
    let whole = |key: &str, least: i64| -> Result<Option<i64>, ScanError> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) if *i >= least && *i <= i64::from(u32::MAX) => {
                Ok(Some(*i))
            }
            Some(v) => Err(fail(format!(
                "tasks key '{key}' takes a whole number of at least {least}, not {}",
                match v {
                    toml::Value::Integer(i) => i.to_string(),
                    other => other.type_str().to_string(),
                }
            ))),
        }
    };
    let quantity = |key: &str,
                    parse: fn(&str) -> Result<f64, crate::queueing::QueueError>|
     -> Result<Option<(f64, String)>, ScanError> {
        table
            .get(key)
            .map(|v| {
                let t = text(key, v)?;
                let x = parse(&t).map_err(|e| fail(format!("tasks key '{key}': {e}")))?;
                Ok((x, t))
            })
            .transpose()
    };
    let mut fixed = String::new();
    let mut flag = |name: &str, value: &str| {
        let _ = write!(fixed, " --{name} {}", super::plan::shell_word(value));
    };
    let nodes = whole("nodes", 1)?.map(|n| n as u32);
    if let Some(n) = nodes {
        flag("nodes", &n.to_string());
    }
    let bandwidth = match quantity("bandwidth", parse_bandwidth)? {
        // parse_bandwidth reads bytes per second.
        Some((b, t)) => {
            flag("bandwidth", &t);
            b * 8.0
        }
        None => 10e9,
    };
    let power = match table.get("power") {
        Some(v) => {
            let p = number("power", v)?;
            if !(p.is_finite() && p > 0.0) {
                return Err(fail(format!("tasks key 'power' must be positive, got {p}")));
            }
            flag("power", &p.to_string());
            p
        }
        None => 1.0,
    };
    let latency = match quantity("latency", parse_time)? {
        Some((l, t)) => {
            flag("latency", &t);
            l
        }
        None => 0.0,
    };
    let mut costs = TaskCosts::default();
    for (key, name, slot, bits) in [
        ("init", "init", &mut costs.init as &mut f64, false),
        ("aggregate", "aggregate", &mut costs.aggregate, false),
        (
            "schedule_size",
            "schedule-size",
            &mut costs.schedule_bits,
            true,
        ),
        ("result_size", "result-size", &mut costs.result_bits, true),
        (
            "control_size",
            "control-size",
            &mut costs.control_bits,
            true,
        ),
    ] {
        let parse = if bits { parse_size } else { parse_time };
        if let Some((x, t)) = quantity(key, parse)? {
            flag(name, &t);
            *slot = if bits { x * 8.0 } else { x };
        }
    }
    if costs.control_bits <= 0.0 {
        return Err(fail(
            "tasks key 'control_size': control messages carry at least a byte".into(),
        ));
    }
    let times = match table.get("times").map(|v| text("times", v)).transpose()? {
        None => TaskTimes::Constant,
        Some(t) if t == "constant" => {
            flag("times", &t);
            TaskTimes::Constant
        }
        Some(t) if t == "exponential" => {
            flag("times", &t);
            TaskTimes::Exponential
        }
        Some(t) => {
            return Err(fail(format!(
                "tasks key 'times' is constant or exponential, not '{t}'"
            )))
        }
    };
    let roots = whole("roots", 1)?.map_or(10_000, |r| r as u64);
    flag("roots", &roots.to_string());
    let warmup = whole("warmup", 0)?.map_or(roots / 10, |w| w as u64);
    flag("warmup", &warmup.to_string());
    let replications = whole("replications", 1)?.map_or(10, |r| r as u32);
    flag("replications", &replications.to_string());
    let retry = match quantity("steal_retry", parse_time)? {
        Some((r, _)) => r,
        None => 10e-6,
    };
    let trees = match table.get("tree") {
        None => vec![(TreeSpec::Layered(vec![4, 3]), "z=4,3".to_string())],
        Some(v) => each(v)
            .into_iter()
            .map(|t| {
                let t = text("tree", t)?;
                let spec = TreeSpec::parse(&t).map_err(|e| fail(format!("tree '{t}': {e}")))?;
                Ok((spec, t))
            })
            .collect::<Result<_, ScanError>>()?,
    };
    let schedulers = match table.get("scheduler") {
        None => vec![Scheduler::Central],
        Some(v) => each(v)
            .into_iter()
            .map(|s| match text("scheduler", s)?.as_str() {
                "central" => Ok(Scheduler::Central),
                "stealing" => Ok(Scheduler::Stealing { retry }),
                other => Err(fail(format!(
                    "scheduler '{other}': expected central or stealing"
                ))),
            })
            .collect::<Result<_, ScanError>>()?,
    };
    let loads = match table.get("load") {
        None => vec![0.5],
        Some(v) => each(v)
            .into_iter()
            .map(|l| {
                let rho = number("load", l)?;
                if !(rho.is_finite() && rho > 0.0) {
                    return Err(fail(format!("load must be a positive number, got {rho}")));
                }
                Ok(rho)
            })
            .collect::<Result<_, ScanError>>()?,
    };
    let steal_flag = table
        .get("steal_retry")
        .map(|v| text("steal_retry", v))
        .transpose()?;
    let mut points = Vec::new();
    for (tree, tree_text) in &trees {
        for &scheduler in &schedulers {
            if scheduler == Scheduler::Central && nodes == Some(1) {
                return Err(fail(
                    "the central scheduler needs at least 2 nodes (one scheduler, one computing)"
                        .into(),
                ));
            }
            for &load in &loads {
                let mut flags = format!(
                    "--tree {} --scheduler {}",
                    super::plan::shell_word(tree_text),
                    scheduler.name()
                );
                if let (Scheduler::Stealing { .. }, Some(t)) = (scheduler, &steal_flag) {
                    let _ = write!(flags, " --steal-retry {}", super::plan::shell_word(t));
                }
                let _ = write!(flags, " --load {load}{fixed}");
                points.push(TaskPoint {
                    tree: tree.clone(),
                    scheduler,
                    load,
                    nodes,
                    bandwidth,
                    power,
                    latency,
                    roots,
                    warmup,
                    replications,
                    times,
                    costs,
                    flags,
                    line,
                });
            }
        }
    }
    Ok(points)
}

/// Simulates `point` on `loaded` (whose label is `fabric`) with seed `seed`: (nodes,
/// the result object `orcs tasks run --format json` prints, without its per-node and
/// per-link arrays). `progress` hears of measured root tasks.
pub(super) fn simulate_task_cell(
    point: &TaskPoint,
    fabric: &str,
    loaded: &LoadedFabric,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(u64, Value), CellError> {
    let f = &loaded.fabric;
    let nodes = match point.nodes {
        Some(n) => n,
        None => u32::try_from(f.num_hosts()).unwrap_or(u32::MAX),
    };
    let mut rng = stream_rng(seed, Stream::Subset);
    let hosts = place_ranks(f, nodes as usize, 1, SubsetMethod::LinearBfs, &mut rng)
        .map_err(|e| CellError::Tasks(format!("cannot place the task model's nodes: {e}")))?;
    let check = check_routes(f, &loaded.table, &hosts);
    if check.broken() > 0 {
        return Err(CellError::Unrouted {
            broken: check.broken(),
            pairs: check.pairs_checked,
        });
    }
    let capacities = f.edge_capacities(fabric)?;
    let routes = RankRoutes::new(f, &loaded.table, &hosts).with_capacities(&capacities);
    let machine = Machine {
        nodes,
        power: point.power,
        bandwidth: point.bandwidth,
        scheduler: point.scheduler.kind(),
    };
    let description = Description::new(
        &point.tree,
        &CostSpec::Given(point.costs),
        CountSource::Generator,
        machine,
        LoadTarget::Computation(point.load),
        SAMPLES,
        seed,
        &|_| {},
    )
    .map_err(|e| CellError::Tasks(e.to_string()))?;
    let model = TaskModel {
        tree: (point.tree.tree_model()).map_err(|e| CellError::Tasks(e.to_string()))?,
        costs: description.costs,
        times: point.times,
    };
    let config = SimConfig {
        scheduler: point.scheduler,
        nodes,
        power: point.power,
        bandwidth: point.bandwidth,
        latency: point.latency,
        arrival_rate: description.loads.arrival_rate,
        roots: point.roots,
        warmup: point.warmup,
        replications: point.replications,
        seed,
        confidence: 0.95,
        record_traffic: false,
    };
    let result = simulate(&model, &Interconnect::Fabric(routes), &config, progress)
        .map_err(|e| CellError::Tasks(e.to_string()))?;
    let run = TaskRun {
        description,
        network: fabric.to_string(),
        placement: Some(SubsetMethod::LinearBfs.to_string()),
        node_names: hosts.iter().map(|&h| f.host_name(h).to_string()).collect(),
        link_names: (0..f.num_edges() as u32)
            .map(|e| f.edge_label(e).to_string())
            .collect(),
        link_capacities: capacities,
        config,
        result,
    };
    Ok((u64::from(nodes), run_summary(&run)))
}
