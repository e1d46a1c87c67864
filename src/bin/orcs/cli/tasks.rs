//! `orcs tasks`: the synthetic task model. `describe` prints a model's counts,
//! footprints and loads; `run` simulates it at one load on a crossbar or a fabric;
//! `sweep` simulates it over loads, trees and networks.

use super::shared::{FormatArg, LinksArg, OutputArg, PlotArg, PlotRequest, SeedArg, ThreadsArg};
use super::values::{resolve, subset_method, whole, Format};
use anyhow::{anyhow, bail, Result};
use clap::{Args, Subcommand};
use orcs::queueing::params::{parse_bandwidth, parse_list, parse_size, parse_time};
use orcs::tasks::model::{CostSpec, CountSource, TreeSpec};
use orcs::tasks::sim::{Scheduler, TaskTimes};
use orcs::tasks::{LoadTarget, TaskCosts};
use orcs::workload::mapping::SubsetMethod;

/// Flags of `orcs tasks`.
#[derive(Debug, Args)]
pub struct TasksArgs {
    #[command(subcommand)]
    pub command: TasksCommand,
}

impl TasksArgs {
    /// The -j flag of the subcommand, for those that work in parallel.
    pub fn threads(&self) -> Option<&ThreadsArg> {
        match &self.command {
            TasksCommand::Describe(_) => None,
            TasksCommand::Run(r) => Some(&r.common.threads),
            TasksCommand::Sweep(s) => Some(&s.common.threads),
        }
    }
}

/// The task-model subcommands.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// Print a task model's trees (tasks n, leaves L, delegating tasks d: the generator's and LWSim's), its costs, its footprints F_x and F_c, and its loads β, ρ_x, ρ_c, ζ, F and ξ on a machine.
    Describe(DescribeArgs),
    /// Simulate root tasks arriving at a central work-sharing scheduler (Poisson arrivals, random idle nodes, allocation requests, delegation, results) or under work stealing (--scheduler stealing) on an ideal crossbar or a routed fabric whose links the messages share: completion times with confidence intervals and percentiles, node and link utilisation, the traffic matrix.
    Run(RunArgs),
    /// Simulate a task model over loads, trees and networks (in parallel, the same for a seed): one line per point, and a plot of completion time against the load.
    Sweep(SweepArgs),
}

/// --tree and the task costs: a task model.
#[derive(Debug, Args)]
pub struct TaskModelArgs {
    /// The task trees: z=Z1,Z2,… (layered: every task on layer i − 1 has Z_i children, e.g. z=4,3) or n=N,s=S (a preferential-attachment tree of N tasks with exponent S drawn for every root task) (default z=4,3; sweep: a list separated by ';').
    #[arg(
        verbatim_doc_comment,
        long = "tree",
        value_name = "TREE",
        value_delimiter = ';'
    )]
    pub tree: Vec<String>,
    /// Initialisation time t_i of every task (default 10us; sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "init",
        value_name = "TIME"
    )]
    pub init: Option<String>,
    /// Aggregation time t_a of every task (default 10us; sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "aggregate",
        value_name = "TIME"
    )]
    pub aggregate: Option<String>,
    /// Scheduling payload s_s sent with a delegated task (default 20kB; sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "schedule-size",
        value_name = "BYTES"
    )]
    pub schedule_size: Option<String>,
    /// Result payload s_r a delegated task returns (default 40kB; sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "result-size",
        value_name = "BYTES"
    )]
    pub result_size: Option<String>,
    /// Size ε of every control message: allocation requests, grants, node-done messages, a root task's shipment and answer (default 40B; sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "control-size",
        value_name = "BYTES"
    )]
    pub control_size: Option<String>,
    /// Impose the computation footprint F_x of a root task (with --communication-footprint): the times are scaled in the ratio of --init and --aggregate (sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "computation-footprint",
        value_name = "TIME",
        requires = "communication_footprint"
    )]
    pub computation_footprint: Option<String>,
    /// Impose the communication footprint F_c of a root task (with --computation-footprint): the payloads are (F_c − 2ε − 2dε)/(L − 1) − ε split in the ratio of --schedule-size and --result-size (sweep: a list or range, e.g. 100kB:1.6MB:x2).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "communication-footprint",
        value_name = "BYTES",
        requires = "computation_footprint"
    )]
    pub communication_footprint: Option<String>,
    /// The counts the footprints use: generator (the trees' own: d counts the tasks with two children or more; the mean of --samples trees for preferential attachment) or lwsim (LWSim's formulas: its d for layered trees, its fits of L and d for preferential attachment) (default generator).
    #[arg(verbatim_doc_comment, long = "counts", value_name = "SOURCE")]
    pub counts: Option<String>,
    /// Preferential-attachment trees drawn to count the mean L and d (default 10000).
    #[arg(verbatim_doc_comment, long = "samples", value_name = "N", value_parser = whole::<u32>)]
    pub samples: Option<u32>,
}

/// --nodes, --bandwidth, --power, --scheduler: the machine.
#[derive(Debug, Args)]
pub struct MachineArgs {
    /// Nodes N, the central scheduler's included (default 100 on the crossbar; every placed host on a fabric).
    #[arg(verbatim_doc_comment, long = "nodes", value_name = "N", value_parser = whole::<u32>)]
    pub nodes: Option<u32>,
    /// Per-node injection bandwidth B, the bandwidth of every link (times its `capacity` attribute on a fabric), e.g. 10Gb/s (default 10Gb/s).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "bandwidth",
        value_name = "RATE"
    )]
    pub bandwidth: Option<String>,
    /// Compute power P of a node, flop/ns: computations take their time / P (default 1).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "power",
        value_name = "P"
    )]
    pub power: Option<f64>,
    /// Who hands the tasks out: central (node 0 schedules, spec §12: N_c = N − 1) or stealing (every node computes, idle nodes steal from random nodes: N_c = N) (default central; sweep: a list).
    #[arg(
        verbatim_doc_comment,
        long = "scheduler",
        value_name = "SCHEDULER",
        value_delimiter = ','
    )]
    pub scheduler: Vec<String>,
    /// Work stealing: how long a node refused work waits before it asks again (default 10us).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "steal-retry",
        value_name = "TIME"
    )]
    pub steal_retry: Option<String>,
}

/// --load, --comm-load, --rate: the offered load.
#[derive(Debug, Args)]
#[group(id = "task_load", multiple = false)]
pub struct LoadArgs {
    /// Computation load ρ_x = F_x·β/(N_c·P) (default 0.5; sweep: a list or range such as 0.1:0.9:0.1).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "load",
        value_name = "RHO"
    )]
    pub load: Option<String>,
    /// Communication load ρ_c = F_c·β/(B·N) instead (sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "comm-load",
        value_name = "RHO"
    )]
    pub comm_load: Option<String>,
    /// Root tasks per second β instead (sweep: a list or range).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "rate",
        value_name = "BETA"
    )]
    pub rate: Option<String>,
}

/// The network flags: crossbar or fabrics, and where the nodes go.
#[derive(Debug, Args)]
pub struct NetworkArgs {
    /// The network: crossbar (an ideal crossbar: only the nodes' own links are shared) or a routed fabric (dot with routing comments, plain or gzip, or a fabric cache) whose links the messages share (default crossbar; sweep: a list).
    #[arg(
        verbatim_doc_comment,
        long = "network",
        value_name = "NETWORK",
        value_delimiter = ','
    )]
    pub network: Vec<String>,
    /// Which hosts of a fabric the nodes take, node 0 (the scheduler) first: linear_bfs, rand (drawn with --seed), guid_order_asc or guid_order_desc (default linear_bfs).
    #[arg(verbatim_doc_comment, long = "placement", value_name = "METHOD")]
    pub placement: Option<String>,
}

/// The simulation's flags.
#[derive(Debug, Args)]
pub struct SimulationArgs {
    /// Root tasks measured per replication (default 10000).
    #[arg(verbatim_doc_comment, long = "roots", value_name = "N", value_parser = whole::<u64>)]
    pub roots: Option<u64>,
    /// Root tasks before the measured ones, to warm the system up (default a tenth of --roots).
    #[arg(verbatim_doc_comment, long = "warmup", value_name = "N", value_parser = whole::<u64>)]
    pub warmup: Option<u64>,
    /// Independent replications, run in parallel; the confidence interval is over their means (default 10).
    #[arg(verbatim_doc_comment, long = "replications", value_name = "N", value_parser = whole::<u32>)]
    pub replications: Option<u32>,
    /// Latency added to every message (default 0s).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "latency",
        value_name = "TIME"
    )]
    pub latency: Option<String>,
    /// Computation times: constant (t_i and t_a, as LWSim) or exponential (draws of those means) (default constant).
    #[arg(verbatim_doc_comment, long = "times", value_name = "LAW")]
    pub times: Option<String>,
    /// Confidence level of the intervals (default 0.95).
    #[arg(verbatim_doc_comment, long = "confidence", value_name = "LEVEL")]
    pub confidence: Option<f64>,
}

/// Flags of `orcs tasks describe`.
#[derive(Debug, Args)]
#[command(mut_arg("format", |a| a.help("Output format: text or json.")))]
pub struct DescribeArgs {
    #[command(flatten)]
    pub model: TaskModelArgs,
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// What `orcs tasks run` and `orcs tasks sweep` share: the model, the machine, the
/// loads, the networks, the simulation and the output.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub model: TaskModelArgs,
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub network: NetworkArgs,
    #[command(flatten)]
    pub simulation: SimulationArgs,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// Flags of `orcs tasks run`.
#[derive(Debug, Args)]
#[command(
    mut_arg("format", |a| a.help("Output format: text (completion times, utilisation, the busiest links), json (every node and used link too) or csv (one row).")),
    mut_arg("links", |a| a.help("Also write every link's utilisation and carried rate as CSV to FILE.")),
)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: SimulateArgs,
    #[command(flatten)]
    pub links: LinksArg,
    /// Also write the traffic between the nodes during the measurement (bytes and messages of every pair, over all replications) to FILE: CSV, Matrix Market (.mtx), JSON (.json) or a PFProf trace (.tar.gz), as `-p matrix --traffic` reads.
    #[arg(verbatim_doc_comment, long = "matrix-out", value_name = "FILE")]
    pub matrix_out: Option<String>,
}

/// Flags of `orcs tasks sweep`.
#[derive(Debug, Args)]
#[command(
    mut_arg("format", |a| a.help("Output format: text (one line per point), json or csv.")),
    mut_arg("plot", |a| a.help("Also plot the mean completion time against ρ_x with its confidence intervals to FILE (.svg, .png or .pdf): one line per network and tree.")),
)]
pub struct SweepArgs {
    #[command(flatten)]
    pub common: SimulateArgs,
    #[command(flatten)]
    pub plot: PlotArg,
}

/// Most combinations of cost lists a sweep takes.
const MAX_COST_COMBINATIONS: usize = 10_000;

/// A validated task model.
#[derive(Debug, Clone)]
pub struct ModelPlan {
    /// The trees (one, or a sweep's list).
    pub trees: Vec<TreeSpec>,
    /// The costs (one, or every combination of a sweep's cost lists).
    pub costs: Vec<CostSpec>,
    /// Where the footprints' counts come from.
    pub counts: CountSource,
    /// Trees drawn to count a random model.
    pub samples: u32,
}

/// A validated machine.
#[derive(Debug, Clone)]
pub struct MachinePlan {
    /// Nodes, when given.
    pub nodes: Option<u32>,
    /// The schedulers (one, or a sweep's list).
    pub schedulers: Vec<Scheduler>,
    /// B, bits/s.
    pub bandwidth: f64,
    /// P, flop/ns.
    pub power: f64,
}

/// A validated network.
#[derive(Debug, Clone)]
pub enum NetworkPlan {
    /// The ideal crossbar.
    Crossbar,
    /// A fabric file.
    Fabric(String),
}

/// Validated simulation parameters.
#[derive(Debug, Clone, Copy)]
pub struct SimulationPlan {
    /// Measured roots per replication.
    pub roots: u64,
    /// Warm-up roots.
    pub warmup: u64,
    /// Replications.
    pub replications: u32,
    /// Latency, s.
    pub latency: f64,
    /// Constant or exponential times.
    pub times: TaskTimes,
    /// Confidence level.
    pub confidence: f64,
}

/// A validated `orcs tasks describe`.
#[derive(Debug)]
pub struct DescribePlan {
    /// The model (one tree).
    pub model: ModelPlan,
    /// The machine.
    pub machine: MachinePlan,
    /// The load.
    pub load: LoadTarget,
    /// The seed of the counting draws.
    pub seed: u64,
    /// Text or JSON.
    pub format: Format,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
}

/// A validated `orcs tasks run` or `orcs tasks sweep`.
#[derive(Debug)]
pub struct SimulatePlan {
    /// The model (one tree for run, a list for sweep).
    pub model: ModelPlan,
    /// The machine.
    pub machine: MachinePlan,
    /// The loads (one for run).
    pub loads: Vec<LoadTarget>,
    /// The networks (one for run).
    pub networks: Vec<NetworkPlan>,
    /// How nodes are placed on a fabric.
    pub placement: SubsetMethod,
    /// The simulation's parameters.
    pub simulation: SimulationPlan,
    /// The seed (None: pick one and print it).
    pub seed: Option<u64>,
    /// The output format.
    pub format: Format,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
    /// Run only: the per-link CSV.
    pub links: Option<String>,
    /// Run only: the traffic matrix.
    pub matrix_out: Option<String>,
    /// Sweep only: the plot and its format.
    pub plot: Option<PlotRequest>,
}

/// A validated `orcs tasks` request.
#[derive(Debug)]
pub enum TasksPlan {
    /// Describe a model.
    Describe(DescribePlan),
    /// Simulate one point.
    Run(SimulatePlan),
    /// Simulate a sweep.
    Sweep(SimulatePlan),
}

impl TasksArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<TasksPlan> {
        Ok(match self.command {
            TasksCommand::Describe(d) => {
                let model = d.model.plan(false)?;
                let loads = d.load.targets(false)?;
                TasksPlan::Describe(DescribePlan {
                    model,
                    machine: d.machine.plan(false)?,
                    load: loads[0],
                    seed: d.seed.seed.unwrap_or(1),
                    format: text_or_json(&d.format)?,
                    output: d.output.output,
                })
            }
            TasksCommand::Run(r) => TasksPlan::Run(SimulatePlan {
                links: r.links.links,
                matrix_out: r.matrix_out,
                ..r.common.plan(false)?
            }),
            TasksCommand::Sweep(s) => TasksPlan::Sweep(SimulatePlan {
                plot: s.plot.get()?,
                ..s.common.plan(true)?
            }),
        })
    }
}

impl SimulateArgs {
    /// The plan without the extra outputs of run and sweep; `many`: lists of trees,
    /// loads and networks are allowed (sweep).
    fn plan(self, many: bool) -> Result<SimulatePlan> {
        Ok(SimulatePlan {
            model: self.model.plan(many)?,
            machine: self.machine.plan(many)?,
            loads: self.load.targets(many)?,
            placement: self.network.placement()?,
            networks: self.network.plan(many)?,
            simulation: self.simulation.plan()?,
            seed: self.seed.seed,
            format: self.format.get()?,
            output: self.output.output,
            links: None,
            matrix_out: None,
            plot: None,
        })
    }
}

fn text_or_json(format: &FormatArg) -> Result<Format> {
    match format.get()? {
        Format::Csv => bail!("--format: describe writes text or json, not csv"),
        f => Ok(f),
    }
}

impl TaskModelArgs {
    fn plan(&self, many: bool) -> Result<ModelPlan> {
        let trees: Vec<TreeSpec> = if self.tree.is_empty() {
            vec![TreeSpec::Layered(vec![4, 3])]
        } else {
            self.tree
                .iter()
                .map(|t| TreeSpec::parse(t).map_err(|e| anyhow!("--tree: {e}")))
                .collect::<Result<_>>()?
        };
        if !many && trees.len() > 1 {
            bail!("--tree: one tree here (orcs tasks sweep takes several)");
        }
        // Every cost flag takes a list in a sweep: the costs are their every combination.
        let list = |flag: &str,
                    value: &Option<String>,
                    parse: fn(&str) -> Result<f64, orcs::queueing::QueueError>,
                    scale: f64|
         -> Result<Vec<Option<f64>>> {
            let Some(text) = value.as_deref() else {
                return Ok(vec![None]);
            };
            let values = parse_list(text, parse).map_err(|e| anyhow!("{flag}: {e}"))?;
            if !many && values.len() > 1 {
                bail!("{flag}: one value here (orcs tasks sweep takes a list)");
            }
            Ok(values.into_iter().map(|v| Some(v * scale)).collect())
        };
        let axes = [
            list("--init", &self.init, parse_time, 1.0)?,
            list("--aggregate", &self.aggregate, parse_time, 1.0)?,
            list("--schedule-size", &self.schedule_size, parse_size, 8.0)?,
            list("--result-size", &self.result_size, parse_size, 8.0)?,
            list("--control-size", &self.control_size, parse_size, 8.0)?,
            list(
                "--computation-footprint",
                &self.computation_footprint,
                parse_time,
                1.0,
            )?,
            list(
                "--communication-footprint",
                &self.communication_footprint,
                parse_size,
                8.0,
            )?,
        ];
        let combinations: usize = axes.iter().map(Vec::len).product();
        if combinations > MAX_COST_COMBINATIONS {
            bail!(
                "the cost lists make {combinations} combinations, more than {MAX_COST_COMBINATIONS}"
            );
        }
        let d = TaskCosts::default();
        let mut costs = Vec::with_capacity(combinations);
        for k in 0..combinations {
            // The k-th combination, the last flag varying fastest.
            let mut rest = k;
            let mut pick = [None; 7];
            for (axis, values) in axes.iter().enumerate().rev() {
                pick[axis] = values[rest % values.len()];
                rest /= values.len();
            }
            let base = TaskCosts {
                init: pick[0].unwrap_or(d.init),
                aggregate: pick[1].unwrap_or(d.aggregate),
                schedule_bits: pick[2].unwrap_or(d.schedule_bits),
                result_bits: pick[3].unwrap_or(d.result_bits),
                control_bits: pick[4].unwrap_or(d.control_bits),
            };
            if base.control_bits <= 0.0 {
                bail!("--control-size: control messages carry at least a byte");
            }
            costs.push(match (pick[5], pick[6]) {
                (Some(computation), Some(communication)) => CostSpec::Footprints {
                    base,
                    computation,
                    communication,
                },
                _ => CostSpec::Given(base),
            });
        }
        let counts = match self.counts.as_deref() {
            None => CountSource::Generator,
            Some(name) => match resolve("--counts", name, &["generator", "lwsim"])? {
                "lwsim" => CountSource::Lwsim,
                _ => CountSource::Generator,
            },
        };
        let samples = self.samples.unwrap_or(10_000);
        if samples < 2 {
            bail!("--samples: at least 2 trees, got {samples}");
        }
        Ok(ModelPlan {
            trees,
            costs,
            counts,
            samples,
        })
    }
}

impl MachineArgs {
    /// The machine; `many`: a list of schedulers is allowed (sweep).
    fn plan(&self, many: bool) -> Result<MachinePlan> {
        let bandwidth = match &self.bandwidth {
            // parse_bandwidth reads bytes per second.
            Some(text) => parse_bandwidth(text).map_err(|e| anyhow!("--bandwidth: {e}"))? * 8.0,
            None => 10e9,
        };
        let power = self.power.unwrap_or(1.0);
        if !(power.is_finite() && power > 0.0) {
            bail!("--power: a positive number of flop/ns, got {power}");
        }
        let retry = match &self.steal_retry {
            Some(t) => parse_time(t).map_err(|e| anyhow!("--steal-retry: {e}"))?,
            None => 10e-6,
        };
        let schedulers: Vec<Scheduler> = if self.scheduler.is_empty() {
            vec![Scheduler::Central]
        } else {
            self.scheduler
                .iter()
                .map(|name| {
                    Ok(
                        match resolve("--scheduler", name, &["central", "stealing"])? {
                            "stealing" => Scheduler::Stealing { retry },
                            _ => Scheduler::Central,
                        },
                    )
                })
                .collect::<Result<_>>()?
        };
        if !many && schedulers.len() > 1 {
            bail!("--scheduler: one scheduler here (orcs tasks sweep takes several)");
        }
        if let Some(n) = self.nodes {
            if n == 0 {
                bail!("--nodes: at least 1, got 0");
            }
            if n < 2 && schedulers.contains(&Scheduler::Central) {
                bail!("--nodes: the central scheduler needs at least 2 (one scheduler, one computing node), got {n}");
            }
        }
        Ok(MachinePlan {
            nodes: self.nodes,
            schedulers,
            bandwidth,
            power,
        })
    }
}

impl LoadArgs {
    fn targets(&self, many: bool) -> Result<Vec<LoadTarget>> {
        let (flag, text, make): (&str, &str, fn(f64) -> LoadTarget) =
            match (&self.load, &self.comm_load, &self.rate) {
                (_, Some(c), _) => ("--comm-load", c, LoadTarget::Communication),
                (_, _, Some(r)) => ("--rate", r, LoadTarget::ArrivalRate),
                (Some(l), _, _) => ("--load", l, LoadTarget::Computation),
                (None, None, None) => return Ok(vec![LoadTarget::Computation(0.5)]),
            };
        let plain = |t: &str| -> Result<f64, orcs::queueing::QueueError> {
            t.trim()
                .parse::<f64>()
                .map_err(|_| orcs::queueing::QueueError::BadQuantity {
                    given: t.to_string(),
                    what: "a load",
                    expected: "a positive number",
                })
        };
        let values = parse_list(text, plain).map_err(|e| anyhow!("{flag}: {e}"))?;
        if let Some(bad) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            bail!("{flag}: a load must be a positive number, got {bad}");
        }
        if !many && values.len() != 1 {
            bail!("{flag}: one value here (orcs tasks sweep takes a list)");
        }
        Ok(values.into_iter().map(make).collect())
    }
}

impl NetworkArgs {
    fn plan(&self, many: bool) -> Result<Vec<NetworkPlan>> {
        let networks: Vec<NetworkPlan> = if self.network.is_empty() {
            vec![NetworkPlan::Crossbar]
        } else {
            self.network
                .iter()
                .map(|n| match n.as_str() {
                    "crossbar" => NetworkPlan::Crossbar,
                    path => NetworkPlan::Fabric(path.to_string()),
                })
                .collect()
        };
        if !many && networks.len() > 1 {
            bail!("--network: one network here (orcs tasks sweep takes several)");
        }
        Ok(networks)
    }

    fn placement(&self) -> Result<SubsetMethod> {
        match &self.placement {
            Some(name) => subset_method("--placement", name),
            None => Ok(SubsetMethod::LinearBfs),
        }
    }
}

impl SimulationArgs {
    fn plan(&self) -> Result<SimulationPlan> {
        let roots = self.roots.unwrap_or(10_000);
        if roots == 0 {
            bail!("--roots: at least 1");
        }
        let replications = self.replications.unwrap_or(10);
        if replications == 0 {
            bail!("--replications: at least 1");
        }
        let confidence = self.confidence.unwrap_or(0.95);
        if !(confidence > 0.0 && confidence < 1.0) {
            bail!("--confidence: a level in (0, 1), got {confidence}");
        }
        let times = match self.times.as_deref() {
            None => TaskTimes::Constant,
            Some(name) => match resolve("--times", name, &["constant", "exponential"])? {
                "exponential" => TaskTimes::Exponential,
                _ => TaskTimes::Constant,
            },
        };
        Ok(SimulationPlan {
            roots,
            warmup: self.warmup.unwrap_or(roots / 10),
            replications,
            latency: match &self.latency {
                Some(t) => parse_time(t).map_err(|e| anyhow!("--latency: {e}"))?,
                None => 0.0,
            },
            times,
            confidence,
        })
    }
}
