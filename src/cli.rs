//! Command-line flags (clap) and their translation into one validated [`Plan`]. Nothing
//! outside this file sees clap types.

use anyhow::{bail, Context, Result};
use clap::{ArgAction, Args, Parser, Subcommand};
use orcs::engine::metric::MetricKind;
use orcs::fabric::input::InputSpec;
use orcs::workload::mapping::SubsetMethod;
use orcs::workload::pattern::{Pattern, PatternError, PatternKind};

/// Oblivious routing congestion simulator for HPC interconnects.
///
/// Maps a communication pattern randomly onto the hosts of a routed fabric, many times,
/// routes every message through the fabric's forwarding tables and reports how much
/// bandwidth the pattern gets. Flags and output follow the original ORCS simulator.
#[derive(Debug, Parser)]
#[command(
    name = "orcs",
    version,
    about,
    args_conflicts_with_subcommands = true,
    infer_long_args = true,
    disable_help_flag = true,
    disable_version_flag = true,
    disable_help_subcommand = true,
    after_help = "Exit status: 0 success; 1 bad flags, unreadable or invalid input, or broken \
                  routing; 2 `orcs check` found broken routes."
)]
pub struct Cli {
    /// Print this help and exit.
    #[arg(verbatim_doc_comment, short = 'h', long = "help", alias = "full-help", action = ArgAction::Help, global = true)]
    help: Option<bool>,
    /// Print the version and exit.
    #[arg(verbatim_doc_comment, short = 'V', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub sim: SimArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify that every host pair of a fabric is routed, without loops or dead ends, and
    /// print path-length and per-link route statistics.
    Check(CheckArgs),
    /// Convert a fabric between formats: InfiniBand dumps or routed dot in; routed dot,
    /// binary cache (.orcsfab), ibsim net or GraphML out.
    Convert(ConvertArgs),
    /// Generate a topology (fat tree, XGFT, mesh, torus, hypercube, HyperX, dragonfly,
    /// Jellyfish), route it, and write it as dot, .orcsfab, ibsim net or GraphML.
    Gen(GenArgs),
    /// Draw the congestion map of a get_cable_cong result (JSON, or the dot written with
    /// -o) as SVG or PNG: every cable colored by its scaled congestion.
    Map(MapArgs),
    /// Plot the distribution of a metric from results written with --format json, several
    /// overlaid for comparison.
    Plot(PlotArgs),
    /// Write one self-contained HTML page with the parameters, statistics, histograms and
    /// congestion maps of results written with --format json.
    Report(ReportArgs),
    /// Place one application's profiled traffic matrix on a cluster (PFSim's model) and
    /// report the link loads for every combination of node selection, process placement
    /// and routing asked for.
    Traffic(TrafficArgs),
    /// Run a PFSim-style scenario (YAML): jobs arrive, queue (FCFS), are placed and routed
    /// when they start and leave when they end; report link loads over time, waiting and
    /// response times for every combination of the listed algorithms.
    Jobs(JobsArgs),
    /// Run a batch of simulations from a TOML plan (fabrics × patterns × sizes × metrics)
    /// into checksummed JSON lines that a restarted scan completes; shard it over a
    /// cluster and merge the parts.
    Scan(ScanArgs),
    /// Mean message latency of a multi-cluster system from its queueing model (Javadi et
    /// al., ICCS 2005): per-network waiting and transfer times, sweeps over C, λ or M with
    /// blocking and non-blocking networks, plots, and a discrete-event simulation check.
    Queue(Box<QueueArgs>),
}

/// Flags of `orcs queue`.
#[derive(Debug, Args)]
pub struct QueueArgs {
    /// TOML file with the model's parameters (the README lists its keys); flags override its values.
    #[arg(verbatim_doc_comment, long = "config", value_name = "FILE")]
    pub config: Option<String>,
    /// Number of clusters C: a value, a comma-separated list or a range FIRST:LAST[:STEP] or FIRST:LAST:xFACTOR (default 4).
    #[arg(verbatim_doc_comment, long = "clusters", value_name = "LIST")]
    pub clusters: Option<String>,
    /// Total number of processors N, kept when C changes (each cluster has N/C); default 256, or the host count of --fabric.
    #[arg(
        verbatim_doc_comment,
        long = "nodes",
        value_name = "N",
        conflicts_with = "nodes_per_cluster"
    )]
    pub nodes: Option<u32>,
    /// Processors per cluster N0, kept when C changes (N = C·N0), instead of a fixed N.
    #[arg(verbatim_doc_comment, long = "nodes-per-cluster", value_name = "N0")]
    pub nodes_per_cluster: Option<u32>,
    /// Message rate λ per processor in messages per second: a value, a list or a range (default 20).
    #[arg(verbatim_doc_comment, long = "rate", value_name = "LIST")]
    pub rate: Option<String>,
    /// Message size M in bytes (or with B, kB, KiB, MB, MiB): a value, a list or a range (default 1024).
    #[arg(verbatim_doc_comment, long = "size", value_name = "LIST")]
    pub size: Option<String>,
    /// Architecture of all three networks, a comma-separated list with one series each: non-blocking (fat tree) or blocking (linear array of switches) (default: each network's own, non-blocking unless --config says otherwise).
    #[arg(verbatim_doc_comment, long = "arch", value_name = "LIST")]
    pub arch: Option<String>,
    /// Network preset of all networks, or of one when prefixed with icn1=, ecn1= or icn2=: fast-ethernet, gigabit-ethernet (default), 10g-ethernet, infiniband-qdr or infiniband-hdr (repeatable).
    #[arg(verbatim_doc_comment, long = "network", value_name = "[NET=]PRESET")]
    pub network: Vec<String>,
    /// Link bandwidth in bytes/s or with a unit (125MB/s, 10Gb/s), of all networks or of one, e.g. icn2=4GB/s (repeatable).
    #[arg(verbatim_doc_comment, long = "bandwidth", value_name = "[NET=]RATE")]
    pub bandwidth: Vec<String>,
    /// End-to-end software and NIC latency per message, with a unit (50us), of all networks or of one (repeatable).
    #[arg(verbatim_doc_comment, long = "latency", value_name = "[NET=]TIME")]
    pub latency: Vec<String>,
    /// Latency of one switch, with a unit (2us), of all networks or of one (repeatable).
    #[arg(
        verbatim_doc_comment,
        long = "switch-latency",
        value_name = "[NET=]TIME"
    )]
    pub switch_latency: Vec<String>,
    /// Ports per switch (even, at least 4), which set the closed-form switch counts, of all networks or of one (repeatable).
    #[arg(verbatim_doc_comment, long = "ports", value_name = "[NET=]K")]
    pub ports: Vec<String>,
    /// Service time distribution of every network: exponential (M/M/1, the default) or deterministic (M/D/1, a fixed message size).
    #[arg(verbatim_doc_comment, long = "service", value_name = "MODEL")]
    pub service: Option<String>,
    /// ECN1 queueing: shared (one queue per cluster for both directions, the default) or split (one queue per direction: the paper's 2·L_E1 term).
    #[arg(verbatim_doc_comment, long = "ecn1", value_name = "MODE")]
    pub ecn1: Option<String>,
    /// Let processors keep sending while their messages are in flight (an open network, λ_eff = λ) instead of correcting the rate to λ_eff = λ(N−L)/N.
    #[arg(verbatim_doc_comment, long = "open")]
    pub open: bool,
    /// Take the switch counts from this routed fabric (dot or .orcsfab) instead of the closed forms: its hosts, in host order, form the clusters in blocks of N0 consecutive hosts.
    #[arg(verbatim_doc_comment, long = "fabric", value_name = "FILE")]
    pub fabric: Option<String>,
    /// The x axis when several of --clusters, --rate and --size have more than one value: clusters, rate or size (default: the first of them); the other lists make series.
    #[arg(verbatim_doc_comment, long = "sweep", value_name = "PARAMETER")]
    pub sweep: Option<String>,
    /// Output format: text, json or csv.
    #[arg(
        verbatim_doc_comment,
        long = "format",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub format: String,
    /// Write the results to FILE instead of standard output.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: Option<String>,
    /// Also plot the mean latency against the swept parameter to FILE (.svg or .png), one line per series.
    #[arg(verbatim_doc_comment, long = "plot", value_name = "FILE")]
    pub plot: Option<String>,
    /// Also simulate the queueing network message by message and compare it with the model, with confidence intervals.
    #[arg(verbatim_doc_comment, long = "simulate")]
    pub simulate: bool,
    /// Sources of the simulation: open (Poisson at the model's λ_eff, where the formulas are exact for exponential service; the default) or blocking (processors wait for their messages, which checks the λ_eff correction itself).
    #[arg(
        verbatim_doc_comment,
        long = "sim-sources",
        value_name = "KIND",
        requires = "simulate"
    )]
    pub sim_sources: Option<String>,
    /// Messages measured per replication of the simulation (default 100000).
    #[arg(
        verbatim_doc_comment,
        long = "messages",
        value_name = "N",
        requires = "simulate"
    )]
    pub messages: Option<u64>,
    /// Independent replications of the simulation, at least 2 (default 20).
    #[arg(
        verbatim_doc_comment,
        long = "replications",
        value_name = "R",
        requires = "simulate"
    )]
    pub replications: Option<u32>,
    /// Warm-up before the measurement, as a fraction of the measurement window (default 0.1).
    #[arg(
        verbatim_doc_comment,
        long = "warmup",
        value_name = "FRACTION",
        requires = "simulate"
    )]
    pub warmup: Option<f64>,
    /// Confidence level of the simulated intervals, in percent (default 99).
    #[arg(
        verbatim_doc_comment,
        long = "confidence",
        value_name = "PERCENT",
        requires = "simulate"
    )]
    pub confidence: Option<f64>,
    /// Seed of the simulation; the same seed gives byte-identical output with any number of threads (default: a random seed, which is printed).
    #[arg(
        verbatim_doc_comment,
        long = "seed",
        value_name = "SEED",
        requires = "simulate"
    )]
    pub seed: Option<u64>,
    /// Number of worker threads of the simulation and the fabric measurement (default: all cores).
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
}

/// A validated `orcs queue` request (the parameter file is read when it runs).
#[derive(Debug)]
pub struct QueuePlan {
    /// --config.
    pub config_file: Option<String>,
    /// The values given by flags, laid over the file's.
    pub flags: orcs::queueing::params::Config,
    pub axis: Option<orcs::queueing::sweep::Axis>,
    pub fabric: Option<InputSpec>,
    pub format: Format,
    pub output: Option<String>,
    pub plot: Option<(String, orcs::viz::draw::ImageFormat)>,
    /// The simulation settings (seed still to choose when `seed` is `None`).
    pub simulate: Option<orcs::queueing::des::DesConfig>,
    pub seed: Option<u64>,
    pub threads: Option<usize>,
}

impl QueueArgs {
    fn into_plan(self) -> Result<QueuePlan> {
        use orcs::queueing::des::DesConfig;
        use orcs::queueing::params::{
            parse_bandwidth, parse_count, parse_list, parse_rate, parse_size, parse_time, Config,
            NetworkSettings,
        };
        use orcs::queueing::sweep::Axis;
        use orcs::queueing::{Architecture, Centre, Sources};
        let list = |flag: &str, text: &Option<String>, parse| -> Result<Option<Vec<f64>>> {
            text.as_ref()
                .map(|t| parse_list(t, parse).with_context(|| format!("invalid value for {flag}")))
                .transpose()
        };
        let mut flags = Config {
            clusters: list("--clusters", &self.clusters, parse_count)?
                .map(|v| v.into_iter().map(|c| c as u32).collect()),
            total_nodes: self.nodes,
            nodes_per_cluster: self.nodes_per_cluster,
            rate: list("--rate", &self.rate, parse_rate)?,
            message_size: list("--size", &self.size, parse_size)?,
            service: self
                .service
                .as_deref()
                .map(str::parse)
                .transpose()
                .context("invalid value for --service")?,
            ecn1: self
                .ecn1
                .as_deref()
                .map(str::parse)
                .transpose()
                .context("invalid value for --ecn1")?,
            sources: self.open.then_some(Sources::Open),
            architectures: self
                .arch
                .as_deref()
                .map(|text| {
                    text.split(',')
                        .map(|a| a.trim().parse::<Architecture>())
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()
                .context("invalid value for --arch")?,
            ..Config::default()
        };
        for (n, what) in [
            (self.nodes, "--nodes"),
            (self.nodes_per_cluster, "--nodes-per-cluster"),
        ] {
            if n == Some(0) {
                bail!("{what} must be at least 1");
            }
        }
        // [NET=]VALUE flags, applied in the order given (later ones win).
        fn per_network<T>(
            flag: &str,
            values: &[String],
            parse: impl Fn(&str) -> Result<T>,
            mut set: impl FnMut(&mut NetworkSettings, T),
            config: &mut Config,
        ) -> Result<()> {
            for v in values {
                let (target, text) = match v.split_once('=') {
                    Some((net, text)) => {
                        let centre: Centre = net
                            .trim()
                            .parse()
                            .with_context(|| format!("invalid value '{v}' for {flag}"))?;
                        (Some(centre), text)
                    }
                    None => (None, v.as_str()),
                };
                let value = parse(text).with_context(|| format!("invalid value for {flag}"))?;
                match target {
                    Some(c) => set(&mut config.networks[c.index()], value),
                    None => set(&mut config.all_networks, value),
                }
            }
            Ok(())
        }
        // A preset for all networks replaces per-network values given before it.
        for v in &self.network {
            let (target, text) = match v.split_once('=') {
                Some((net, text)) => (
                    Some(
                        net.trim()
                            .parse::<Centre>()
                            .with_context(|| format!("invalid value '{v}' for --network"))?,
                    ),
                    text,
                ),
                None => (None, v.as_str()),
            };
            let preset = text.trim().parse().context("invalid value for --network")?;
            match target {
                Some(c) => flags.networks[c.index()].preset = Some(preset),
                None => {
                    flags.all_networks.preset = Some(preset);
                    for n in &mut flags.networks {
                        n.preset = None;
                    }
                }
            }
        }
        per_network(
            "--bandwidth",
            &self.bandwidth,
            |t| Ok(parse_bandwidth(t)?),
            |n, v| n.bandwidth = Some(v),
            &mut flags,
        )?;
        per_network(
            "--latency",
            &self.latency,
            |t| Ok(parse_time(t)?),
            |n, v| n.latency = Some(v),
            &mut flags,
        )?;
        per_network(
            "--switch-latency",
            &self.switch_latency,
            |t| Ok(parse_time(t)?),
            |n, v| n.switch_latency = Some(v),
            &mut flags,
        )?;
        per_network(
            "--ports",
            &self.ports,
            |t| {
                t.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|k| *k >= 4 && k % 2 == 0)
                    .with_context(|| format!("'{t}' is not an even number of ports ≥ 4"))
            },
            |n, v| n.ports = Some(v),
            &mut flags,
        )?;
        let axis = match &self.sweep {
            Some(name) => {
                let names: Vec<&str> = Axis::ALL.iter().map(|a| a.name()).collect();
                let name = resolve("--sweep", name, &names)?;
                Axis::ALL.into_iter().find(|a| a.name() == name)
            }
            None => None,
        };
        let format = report_format(&self.format)?;
        let plot = match self.plot {
            Some(path) => {
                let format = image_format("--plot", &path)?;
                Some((path, format))
            }
            None => None,
        };
        if self.threads == Some(0) {
            bail!("--threads must be at least 1");
        }
        let simulate = if self.simulate {
            let d = DesConfig::default();
            let sources = match &self.sim_sources {
                Some(s) => s.parse().context("invalid value for --sim-sources")?,
                None => d.sources,
            };
            if sources == Sources::Blocking && self.open {
                bail!("--sim-sources blocking checks the λ_eff correction, which --open turns off");
            }
            let confidence = self.confidence.unwrap_or(d.confidence * 100.0);
            if !(confidence > 0.0 && confidence < 100.0) {
                bail!(
                    "--confidence must lie strictly between 0 and 100 (percent), got {confidence}"
                );
            }
            let replications = self.replications.unwrap_or(d.replications);
            if replications < 2 {
                bail!("--replications must be at least 2 for a confidence interval, got {replications}");
            }
            let messages = self.messages.unwrap_or(d.messages);
            if messages == 0 {
                bail!("--messages must be at least 1");
            }
            let warmup = self.warmup.unwrap_or(d.warmup);
            if !(warmup.is_finite() && (0.0..=10.0).contains(&warmup)) {
                bail!("--warmup must be a fraction of the measurement window between 0 and 10, got {warmup}");
            }
            Some(DesConfig {
                sources,
                messages,
                warmup,
                replications,
                seed: 0,
                confidence: confidence / 100.0,
            })
        } else {
            None
        };
        Ok(QueuePlan {
            config_file: self.config,
            flags,
            axis,
            fabric: self.fabric.map(|path| InputSpec {
                path,
                ..InputSpec::default()
            }),
            format,
            output: self.output,
            plot,
            simulate,
            seed: self.seed,
            threads: self.threads,
        })
    }
}

/// Flags of `orcs scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The plan (TOML; the README shows its keys). Not used with --merge.
    #[arg(verbatim_doc_comment, value_name = "PLAN")]
    pub plan: Option<String>,
    /// The results file (JSON lines), appended to and resumed (default: the plan's name with .jsonl).
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: Option<String>,
    /// The CSV summary written at the end (default: the results file's name with .csv).
    #[arg(verbatim_doc_comment, long = "csv", value_name = "FILE")]
    pub csv: Option<String>,
    /// Print the cells, which are already done and an estimate of the time left, then exit.
    #[arg(verbatim_doc_comment, long = "dry-run")]
    pub dry_run: bool,
    /// Run only shard I of N (1-based): every N-th cell from the I-th, for job arrays.
    #[arg(verbatim_doc_comment, long = "shard", value_name = "I/N")]
    pub shard: Option<String>,
    /// Merge these results files (shards) into --output instead of running a plan.
    #[arg(verbatim_doc_comment, long = "merge", value_name = "FILE", num_args = 1..)]
    pub merge: Vec<String>,
    /// Number of worker threads (default: all cores); results do not depend on it.
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Print no progress or summary on standard error.
    #[arg(verbatim_doc_comment, short = 'q', long = "quiet")]
    pub quiet: bool,
}

/// A validated `orcs scan` request.
#[derive(Debug)]
pub struct ScanPlan {
    /// The plan file, or None when merging.
    pub plan: Option<String>,
    pub output: String,
    pub csv: String,
    pub dry_run: bool,
    /// (I, N), 1-based.
    pub shard: Option<(usize, usize)>,
    pub merge: Vec<String>,
    pub threads: Option<usize>,
    pub quiet: bool,
}

/// Flags of `orcs jobs`.
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// The scenario file (PFSim's YAML schema; paths inside are relative to it).
    #[arg(verbatim_doc_comment, value_name = "SCENARIO")]
    pub scenario: String,
    /// Seed of every random stream (default: the scenario's `seed` key, else 0).
    #[arg(verbatim_doc_comment, long = "seed", value_name = "SEED")]
    pub seed: Option<u64>,
    /// Also write each run's result.txt and one CSV per metric into DIR/<run id>/.
    #[arg(verbatim_doc_comment, short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<String>,
    /// Format of the summary on standard output: text, json or csv.
    #[arg(
        verbatim_doc_comment,
        long = "format",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub format: String,
    /// Reproduce PFSim's quirks: at most one queued job starts per job end, and the last sample of each time series is dropped.
    #[arg(verbatim_doc_comment, long = "pfsim-compat")]
    pub pfsim_compat: bool,
    /// Number of worker threads (default: all cores); runs are independent and the output does not depend on it.
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Print no progress on standard error.
    #[arg(verbatim_doc_comment, short = 'q', long = "quiet")]
    pub quiet: bool,
}

/// A validated `orcs jobs` request.
#[derive(Debug)]
pub struct JobsPlan {
    pub scenario: String,
    pub seed: Option<u64>,
    pub output: Option<String>,
    pub format: Format,
    pub pfsim_compat: bool,
    pub threads: Option<usize>,
    pub quiet: bool,
}

/// Flags of `orcs traffic`.
#[derive(Debug, Args)]
pub struct TrafficArgs {
    /// The cluster: PFSim GraphML (`typ` host/switch, host `capacity` = cores, edge `capacity`), or any fabric -i reads (dot, .orcsfab; its routing is ignored, `capacity` attributes are read).
    #[arg(verbatim_doc_comment, long = "cluster", value_name = "FILE")]
    pub cluster: String,
    /// The traffic matrix: a PFProf trace (.tar.gz or folder of per-rank JSON), CSV, Matrix Market or JSON.
    #[arg(
        verbatim_doc_comment,
        long = "matrix",
        visible_alias = "traffic",
        value_name = "FILE"
    )]
    pub matrix: String,
    /// Node selection, a comma-separated list of: linear, random, topology-aware.
    #[arg(
        verbatim_doc_comment,
        long = "selector",
        value_name = "LIST",
        default_value = "linear"
    )]
    pub selector: String,
    /// Process placement, a comma-separated list of: block, cyclic, greedy (heaviest-talking ranks on the same host).
    #[arg(
        verbatim_doc_comment,
        long = "mapper",
        value_name = "LIST",
        default_value = "block"
    )]
    pub mapper: String,
    /// Routing over the minimal paths, a comma-separated list of: dmodk (classical, digit-wise), smodk, pfsim-dmodk (PFSim's single-modulus variant), greedy, greedy-max, random.
    #[arg(
        verbatim_doc_comment,
        long = "router",
        value_name = "LIST",
        default_value = "dmodk,greedy,greedy-max"
    )]
    pub router: String,
    /// Seed of the random selector and router (default 0).
    #[arg(
        verbatim_doc_comment,
        long = "seed",
        value_name = "SEED",
        default_value_t = 0
    )]
    pub seed: u64,
    /// Also write every network link's bytes and flows per combination as CSV to FILE (switch-to-switch links, and host-to-host links of direct networks).
    #[arg(verbatim_doc_comment, long = "links", value_name = "FILE")]
    pub links: Option<String>,
}

/// A validated `orcs traffic` request.
#[derive(Debug)]
pub struct TrafficPlan {
    pub cluster: String,
    pub matrix: String,
    pub selectors: Vec<orcs::cluster::application::Selector>,
    pub mappers: Vec<orcs::cluster::application::Mapper>,
    pub routers: Vec<orcs::cluster::application::PathRouter>,
    pub seed: u64,
    pub links: Option<String>,
}

/// Each item of a comma-separated list resolved against the names (`Display`) of
/// `choices` (unambiguous prefixes allowed).
fn list_of<T: Copy + std::fmt::Display>(flag: &str, value: &str, choices: &[T]) -> Result<Vec<T>> {
    let names: Vec<String> = choices.iter().map(T::to_string).collect();
    let keys: Vec<&str> = names.iter().map(String::as_str).collect();
    value
        .split(',')
        .map(|item| {
            let name = resolve(flag, item.trim(), &keys)?;
            let i = keys.iter().position(|k| *k == name).expect("resolved");
            Ok(choices[i])
        })
        .collect()
}

/// Flags of `orcs map`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// A get_cable_cong result: JSON (--format json) or the dot map written with -o.
    #[arg(verbatim_doc_comment, value_name = "RESULT")]
    pub result: String,
    /// Image file to write; .svg or .png.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: String,
    /// Label the N most congested cables with their scaled congestion.
    #[arg(
        verbatim_doc_comment,
        long = "top",
        value_name = "N",
        default_value_t = 10
    )]
    pub top: usize,
    /// Draw switches and the cables between them only (default for fabrics of more than 256 hosts).
    #[arg(verbatim_doc_comment, long = "switches-only")]
    pub switches_only: bool,
    /// Draw hosts even on large fabrics.
    #[arg(verbatim_doc_comment, long = "hosts", conflicts_with = "switches_only")]
    pub hosts: bool,
    /// Leave out the color scale legend.
    #[arg(verbatim_doc_comment, long = "no-legend")]
    pub no_legend: bool,
    /// Who lays out and draws the map: auto (Graphviz when `dot` is installed, else built in), builtin or graphviz.
    #[arg(
        verbatim_doc_comment,
        long = "renderer",
        value_name = "RENDERER",
        default_value = "auto"
    )]
    pub renderer: String,
    /// Layout of the built-in renderer: auto (layered for indirect networks such as fat trees, force-directed for direct ones), layered or force.
    #[arg(
        verbatim_doc_comment,
        long = "layout",
        value_name = "LAYOUT",
        default_value = "auto"
    )]
    pub layout: String,
    /// Image width in pixels.
    #[arg(
        verbatim_doc_comment,
        long = "width",
        value_name = "PIXELS",
        default_value_t = 1200
    )]
    pub width: u32,
    /// Image height in pixels.
    #[arg(
        verbatim_doc_comment,
        long = "height",
        value_name = "PIXELS",
        default_value_t = 800
    )]
    pub height: u32,
}

/// Flags of `orcs plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Results written with --format json; the first is the main series, the others are overlaid.
    #[arg(verbatim_doc_comment, value_name = "RESULT", required = true)]
    pub results: Vec<String>,
    /// Image file to write; .svg or .png.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: String,
    /// The metric to plot: sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong (default: the first result's metric).
    #[arg(verbatim_doc_comment, long = "metric", value_name = "METRIC")]
    pub metric: Option<String>,
}

/// Flags of `orcs report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Results written with --format json.
    #[arg(verbatim_doc_comment, value_name = "RESULT", required = true)]
    pub results: Vec<String>,
    /// The HTML file to write.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: String,
}

/// Who draws a congestion map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renderer {
    /// Graphviz when installed, else built in.
    Auto,
    /// The built-in layout and drawing.
    Builtin,
    /// Graphviz (`dot` or `neato`), which must be installed.
    Graphviz,
}

/// A validated `orcs map` request.
#[derive(Debug)]
pub struct MapPlan {
    pub result: String,
    pub output: String,
    pub format: orcs::viz::draw::ImageFormat,
    pub top: usize,
    /// `Some(true)`/`Some(false)` when asked, `None` to decide by fabric size.
    pub switches_only: Option<bool>,
    pub legend: bool,
    pub renderer: Renderer,
    pub layout: Option<orcs::viz::map::Layout>,
    pub width: u32,
    pub height: u32,
}

/// A validated `orcs plot` request.
#[derive(Debug)]
pub struct PlotPlan {
    pub results: Vec<String>,
    pub output: String,
    pub format: orcs::viz::draw::ImageFormat,
    pub metric: Option<MetricKind>,
}

/// A validated `orcs report` request.
#[derive(Debug)]
pub struct ReportPlan {
    pub results: Vec<String>,
    pub output: String,
}

/// A --metric value: a metric name or an unambiguous prefix of one.
fn parse_metric(value: &str) -> Result<MetricKind> {
    let names: Vec<&str> = MetricKind::ALL.iter().map(|m| m.name()).collect();
    let name = resolve("--metric", value, &names)?;
    Ok(MetricKind::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .unwrap_or(MetricKind::HistMaxCong))
}

/// The value of a `--format` flag: text, json or csv (unambiguous prefixes allowed).
fn report_format(value: &str) -> Result<Format> {
    Ok(
        match resolve("--format", value, &["text", "json", "csv"])? {
            "json" => Format::Json,
            "csv" => Format::Csv,
            _ => Format::Text,
        },
    )
}

/// The image format of `path`, named by `flag` in the error.
fn image_format(flag: &str, path: &str) -> Result<orcs::viz::draw::ImageFormat> {
    match orcs::viz::draw::ImageFormat::from_path(path) {
        Some(f) => Ok(f),
        None => bail!("{flag} '{path}': the file name must end in .svg or .png"),
    }
}

impl MapArgs {
    fn into_plan(self) -> Result<MapPlan> {
        let renderer = match resolve(
            "--renderer",
            &self.renderer,
            &["auto", "builtin", "graphviz"],
        )? {
            "builtin" => Renderer::Builtin,
            "graphviz" => Renderer::Graphviz,
            _ => Renderer::Auto,
        };
        let layout = match resolve("--layout", &self.layout, &["auto", "layered", "force"])? {
            "layered" => Some(orcs::viz::map::Layout::Layered),
            "force" => Some(orcs::viz::map::Layout::Force),
            _ => None,
        };
        if layout.is_some() && renderer == Renderer::Graphviz {
            bail!("--layout chooses the built-in layout; Graphviz lays out the map itself");
        }
        if !(16..=20000).contains(&self.width) || !(16..=20000).contains(&self.height) {
            bail!("--width and --height must be between 16 and 20000 pixels");
        }
        Ok(MapPlan {
            format: image_format("-o/--output", &self.output)?,
            result: self.result,
            output: self.output,
            top: self.top,
            switches_only: if self.switches_only {
                Some(true)
            } else if self.hosts {
                Some(false)
            } else {
                None
            },
            legend: !self.no_legend,
            renderer,
            layout,
            width: self.width,
            height: self.height,
        })
    }
}

/// Flags of `orcs gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// The topology, e.g. kary-ntree:k=4,n=3, xgft:m=4x4,w=1x4, torus:dims=4x4x4, hypercube:d=6, hyperx:dims=4x4, dragonfly:a=4,p=2,h=2, jellyfish:switches=32,ports=8,hosts=4,seed=1, slimmed:leaf_hosts=16,leaves=8,uplinks=4 (the README lists every generator and key).
    #[arg(verbatim_doc_comment, value_name = "SPEC")]
    pub spec: String,
    /// Routing engine: dmodk, dor, dor-dateline, minhop, updn, dnup, sssp or random (default: dmodk for trees, dor for grids, minhop otherwise).
    #[arg(verbatim_doc_comment, long = "routing", value_name = "ENGINE")]
    pub routing: Option<String>,
    /// Root switches for updn, by name, comma separated (default: detected as OpenSM does).
    #[arg(verbatim_doc_comment, long = "roots", value_name = "NAMES")]
    pub roots: Option<String>,
    /// Seed of the random routing engine.
    #[arg(
        verbatim_doc_comment,
        long = "seed",
        value_name = "SEED",
        default_value_t = 0
    )]
    pub seed: u64,
    /// Output file; its format follows the extension (.dot/.gv routed dot, .orcsfab binary cache, .net ibsim net, .graphml GraphML) unless --to is given ("-" writes dot to standard output).
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: String,
    /// Output format: dot, orcsfab, net or graphml (default: from the output file's extension).
    #[arg(verbatim_doc_comment, long = "to", value_name = "FORMAT")]
    pub to: Option<String>,
    /// Number of worker threads for the route check (default: all cores).
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
}

/// A validated `orcs gen` request.
#[derive(Debug)]
pub struct GenPlan {
    pub spec: String,
    pub routing: Option<String>,
    pub roots: Option<Vec<String>>,
    pub seed: u64,
    pub output: String,
    pub format: FabricFormat,
    pub threads: Option<usize>,
}

/// Where a routed fabric comes from (shared by every command that reads one).
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Routed fabric: Graphviz dot with routing in edge comments (plain or gzip), a fabric cache (.orcsfab), or with --lft an ibnetdiscover or .lst topology dump ("-" reads standard input).
    #[arg(verbatim_doc_comment, short = 'i', long = "input_file", visible_aliases = ["input-file", "topology"], value_name = "FILE", default_value = "-")]
    pub input_file: String,
    /// InfiniBand forwarding tables for the topology given with -i: ibroute/dump_fts output, OpenSM's opensm-lfts.dump, or a .fdbs file.
    #[arg(verbatim_doc_comment, long = "lft", value_name = "FILE")]
    pub lft: Option<String>,
    /// Node name map (lines `0x<guid> "name"`) that gives converted InfiniBand nodes readable names (hosts keep an H prefix).
    #[arg(
        verbatim_doc_comment,
        long = "node-name-map",
        value_name = "FILE",
        requires = "lft"
    )]
    pub node_name_map: Option<String>,
    /// OpenSM's guid2lid file (port GUID, first and last LID per line): the LIDs for a topology that has none (an ibsim net file), or instead of the topology's own.
    #[arg(
        verbatim_doc_comment,
        long = "guid2lid",
        value_name = "FILE",
        requires = "lft"
    )]
    pub guid2lid: Option<String>,
    /// Route every LID of every host port (all LMC paths) instead of each host's base LID; hosts may then have several next hops, which only --orcs-compat simulates.
    #[arg(verbatim_doc_comment, long = "lmc-paths", requires = "lft")]
    pub lmc_paths: bool,
}

impl InputArgs {
    fn spec(&self, orcs_compat: bool) -> InputSpec {
        InputSpec {
            path: self.input_file.clone(),
            lft: self.lft.clone(),
            node_name_map: self.node_name_map.clone(),
            guid2lid: self.guid2lid.clone(),
            lmc_paths: self.lmc_paths,
            orcs_compat,
            topology_only: false,
        }
    }
}

/// Flags of `orcs convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output file; its format follows the extension (.dot/.gv routed dot, .orcsfab binary cache, .net ibsim net, .graphml GraphML) unless --to is given ("-" writes dot to standard output).
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        visible_alias = "output_file",
        value_name = "FILE"
    )]
    pub output: String,
    /// Output format: dot, orcsfab, net or graphml (default: from the output file's extension).
    #[arg(verbatim_doc_comment, long = "to", value_name = "FORMAT")]
    pub to: Option<String>,
    /// Behave like the original ORCS where it differs (ambiguous next hops in dot input take the first matching edge).
    #[arg(verbatim_doc_comment, long = "orcs-compat")]
    pub orcs_compat: bool,
    /// Number of worker threads for the route check (default: all cores).
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
}

/// Output formats of `orcs convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FabricFormat {
    /// Routed ORCS dot.
    Dot,
    /// Binary fabric cache.
    Orcsfab,
    /// ibsim net file.
    Net,
    /// GraphML (PFSim/Gephi schema).
    Graphml,
}

/// A validated conversion request.
#[derive(Debug)]
pub struct ConvertPlan {
    pub input: InputSpec,
    pub output: String,
    pub format: FabricFormat,
    pub threads: Option<usize>,
}

/// Flags of `orcs check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Also build the channel dependency graph and report whether the routing is deadlock-free on one virtual lane (with a cycle if not).
    #[arg(verbatim_doc_comment, long = "deadlock")]
    pub deadlock: bool,
    /// Also print ORCS's --routequal figures (all-to-all load on inner links).
    #[arg(verbatim_doc_comment, long = "routequal")]
    pub routequal: bool,
    /// Behave like the original ORCS where it differs (ambiguous next hops take the first matching edge instead of failing).
    #[arg(verbatim_doc_comment, long = "orcs-compat")]
    pub orcs_compat: bool,
    /// Number of worker threads (default: all cores).
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
}

/// Parses a decimal integer. ORCS read `010` as octal 8 and `0x10` as 16; orcs reads
/// decimal only and refuses those spellings rather than silently reading another number.
fn decimal(text: &str) -> Result<i64, String> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(format!(
            "'{text}' has a leading zero; orcs reads integers as decimal only (ORCS read it as octal or hexadecimal), so write the decimal value"
        ));
    }
    text.parse::<i64>()
        .map_err(|_| format!("'{text}' is not a decimal integer"))
}

/// Flags of a simulation (the default command).
#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// File for the metric output ("-" is standard output), opened once the input has been checked and before the simulation starts.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output_file",
        visible_alias = "output-file",
        value_name = "FILE",
        default_value = "-"
    )]
    pub output_file: String,
    /// Communication pattern: rand, null, bisect, bisect_fb_sym, tree, bruck, gather, scatter, ring, recdbl, neighbor, neighbor2d, recvs_one_src, recvs_all_src, ptrnvsptrn, or matrix (a traffic matrix given with --matrix) (an unambiguous prefix is enough; default bisect).
    #[arg(
        verbatim_doc_comment,
        short = 'p',
        long = "ptrn",
        visible_alias = "pattern",
        value_name = "PATTERN"
    )]
    pub ptrn: Option<String>,
    /// Pattern argument: neighbor count k for neighbor, "R[,c1[,c2]][,rand|linear]" for recvs_*, "p1[:arg1]::p2[:arg2]" for ptrnvsptrn.
    #[arg(
        verbatim_doc_comment,
        short = 'a',
        long = "ptrnarg",
        value_name = "ARG",
        requires = "ptrn"
    )]
    pub ptrnarg: Option<String>,
    /// First pattern of ptrnvsptrn in the ORCS 1 form (default bisect).
    #[arg(
        verbatim_doc_comment,
        short = 'f',
        long = "ptrnfst",
        value_name = "PATTERN"
    )]
    pub ptrnfst: Option<String>,
    /// Second pattern of ptrnvsptrn in the ORCS 1 form (default bisect).
    #[arg(
        verbatim_doc_comment,
        short = 'c',
        long = "ptrnsec",
        value_name = "PATTERN"
    )]
    pub ptrnsec: Option<String>,
    /// Communicator size: how many hosts take part (default 0 = all hosts, rounded down to even).
    #[arg(
        verbatim_doc_comment,
        short = 's',
        long = "commsize",
        value_name = "N",
        default_value = "0",
        allow_negative_numbers = true,
        value_parser = decimal
    )]
    pub commsize: i64,
    /// Size of the first communicator of ptrnvsptrn, and the rank bound of dep_max_delay under --orcs-compat (default 2).
    #[arg(
        verbatim_doc_comment,
        short = 'z',
        long = "part_commsize",
        visible_alias = "part-commsize",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = decimal
    )]
    pub part_commsize: Option<i64>,
    /// Number of Monte Carlo runs, each with a fresh random rank-to-host mapping.
    #[arg(
        verbatim_doc_comment,
        short = 'n',
        long = "num_runs",
        visible_alias = "num-runs",
        value_name = "N",
        default_value = "1",
        allow_negative_numbers = true,
        value_parser = decimal
    )]
    pub num_runs: i64,
    /// Simulate only this pattern level (default -1 = all levels).
    #[arg(verbatim_doc_comment, short = 'l', long = "ptrn_level", visible_alias = "ptrn-level", value_name = "LEVEL", default_value = "-1", allow_negative_numbers = true, requires = "ptrn", value_parser = decimal)]
    pub ptrn_level: i64,
    /// How the hosts of the communicator are chosen once: rand, linear_bfs, guid_order_asc or guid_order_desc.
    #[arg(
        verbatim_doc_comment,
        long = "subset",
        value_name = "METHOD",
        default_value = "rand"
    )]
    pub subset: String,
    /// How the first communicator of ptrnvsptrn is chosen from the subset: rand, linear_bfs, guid_order_asc, guid_order_desc or none.
    #[arg(
        verbatim_doc_comment,
        long = "part_subset",
        visible_alias = "part-subset",
        value_name = "METHOD",
        default_value = "none"
    )]
    pub part_subset: String,
    /// Metric: sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong (default hist_max_cong; sum_max_cong with -p matrix, where it is the largest link load in bytes).
    #[arg(verbatim_doc_comment, long = "metric", value_name = "METRIC")]
    pub metric: Option<String>,
    /// The traffic matrix of -p matrix: a PFProf trace (.tar.gz, .tar or folder of per-rank JSON), CSV, Matrix Market or JSON; implies -p matrix.
    #[arg(
        verbatim_doc_comment,
        long = "matrix",
        visible_alias = "traffic",
        value_name = "FILE"
    )]
    pub matrix: Option<String>,
    /// With -p matrix: ranks placed on each host, consecutive ranks together (default 1).
    #[arg(verbatim_doc_comment, long = "ppn", value_name = "N")]
    pub ppn: Option<u32>,
    /// File of host GUIDs (one hexadecimal number per line) placed at ranks 0, 1, ... in every run.
    #[arg(
        verbatim_doc_comment,
        long = "node_ordering_file",
        visible_alias = "node-ordering-file",
        value_name = "FILE"
    )]
    pub node_ordering_file: Option<String>,
    /// Keep the initial rank order in every run instead of shuffling it.
    #[arg(
        verbatim_doc_comment,
        short = 'd',
        long = "do_not_shuffle",
        visible_alias = "do-not-shuffle"
    )]
    pub do_not_shuffle: bool,
    /// Print every level's rank pairs and host names before the metric.
    #[arg(verbatim_doc_comment, long = "printptrn")]
    pub printptrn: bool,
    /// Print every run's rank-to-host list before the metric.
    #[arg(verbatim_doc_comment, long = "printnamelist")]
    pub printnamelist: bool,
    /// Print the chosen host lists and the level count on standard error.
    #[arg(verbatim_doc_comment, short = 'v', long = "verbose")]
    pub verbose: bool,
    /// Print how many levels the pattern has with these settings and exit.
    #[arg(verbatim_doc_comment, short = 'g', long = "getnumlevels")]
    pub getnumlevels: bool,
    /// Check the routing of the input file and exit (same as `orcs check`).
    #[arg(verbatim_doc_comment, long = "checkinputfile")]
    pub checkinputfile: bool,
    /// Check the routing like `orcs check`, add ORCS's route quality figures (all-to-all load on inner links) and exit.
    #[arg(verbatim_doc_comment, long = "routequal")]
    pub routequal: bool,
    /// Seed of all random choices; the same seed gives byte-identical output with any thread count (default: a random seed, which is printed).
    #[arg(verbatim_doc_comment, long = "seed", value_name = "SEED")]
    pub seed: Option<u64>,
    /// Number of worker threads (default: all cores).
    #[arg(verbatim_doc_comment, short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Output format of the metric: text (ORCS's layout), json or csv.
    #[arg(
        verbatim_doc_comment,
        long = "format",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub format: String,
    /// Reproduce the original ORCS where orcs deliberately differs (inflated get_cable_cong counts, dep_max_delay model, ORCS 2 rand pattern, first-match next hops).
    #[arg(verbatim_doc_comment, long = "orcs-compat")]
    pub orcs_compat: bool,
    /// Print no summary, notices, warnings or progress on standard error (a seed chosen by orcs and runs without traffic are still reported).
    #[arg(verbatim_doc_comment, short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Also write a per-link table as CSV to FILE: every directed link with its endpoints, the all-pairs routes over it, the messages it carried, its largest congestion and the share of runs in which it was the bottleneck.
    #[arg(verbatim_doc_comment, long = "links", value_name = "FILE")]
    pub links: Option<String>,
    /// Also plot the metric's distribution with its mean and 95 % confidence interval to FILE (.svg or .png).
    #[arg(verbatim_doc_comment, long = "plot", value_name = "FILE")]
    pub plot: Option<String>,
    /// Overlay the result in FILE (written earlier with --format json) on the --plot as a comparison series; repeat for more.
    #[arg(
        verbatim_doc_comment,
        long = "compare",
        value_name = "FILE",
        requires = "plot"
    )]
    pub compare: Vec<String>,
}

/// Output formats of a simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// ORCS's text layout.
    Text,
    /// One JSON document.
    Json,
    /// One CSV table.
    Csv,
}

/// What the user asked for, validated as far as possible without the fabric.
#[derive(Debug)]
pub enum Plan {
    /// Simulate.
    Simulate(Box<SimPlan>),
    /// Check the routing.
    Check(CheckPlan),
    /// Print the number of levels.
    NumLevels(Box<SimPlan>),
    /// Print a pattern's usage (`-a help`).
    PatternHelp(String),
    /// Convert a fabric.
    Convert(ConvertPlan),
    /// Generate a fabric.
    Gen(GenPlan),
    /// Draw a congestion map.
    Map(MapPlan),
    /// Plot results.
    Plot(PlotPlan),
    /// Write an HTML report.
    Report(ReportPlan),
    /// Place and route an application's traffic.
    Traffic(TrafficPlan),
    /// Simulate a traffic matrix with the Monte Carlo engine.
    Matrix(Box<MatrixPlan>),
    /// Run a job scenario.
    Jobs(JobsPlan),
    /// Run, resume or merge a batch scan.
    Scan(ScanPlan),
    /// Evaluate the multi-cluster queueing model.
    Queue(Box<QueuePlan>),
}

/// A validated simulation request. Fabric-dependent checks (sizes) happen after loading.
#[derive(Debug)]
pub struct SimPlan {
    pub input: InputSpec,
    pub input_file: String,
    pub output_file: String,
    pub pattern: Pattern,
    pub commsize: u64,
    pub part_commsize: u64,
    /// Whether -z was given (it has no effect on dep_max_delay outside compat mode).
    pub part_commsize_given: bool,
    /// The `Pattern:` header lines, with the -a text as the user wrote it.
    pub pattern_lines: Vec<String>,
    pub runs: u64,
    pub level: Option<usize>,
    pub subset: SubsetMethod,
    pub part_subset: Option<SubsetMethod>,
    pub metric: MetricKind,
    pub node_ordering_file: Option<String>,
    pub shuffle: bool,
    pub printptrn: bool,
    pub printnamelist: bool,
    pub verbose: bool,
    pub seed: Option<u64>,
    pub threads: Option<usize>,
    pub format: Format,
    pub orcs_compat: bool,
    pub quiet: bool,
    /// --links: the per-link CSV file.
    pub links_file: Option<String>,
    /// --plot: the plot file and its format.
    pub plot: Option<(String, orcs::viz::draw::ImageFormat)>,
    /// --compare: results to overlay on the plot.
    pub compare: Vec<String>,
}

/// A validated `-p matrix` simulation.
#[derive(Debug)]
pub struct MatrixPlan {
    pub input: InputSpec,
    pub input_file: String,
    pub output_file: String,
    pub matrix: String,
    pub ranks_per_host: u32,
    pub runs: u64,
    pub subset: SubsetMethod,
    pub metric: MetricKind,
    pub node_ordering_file: Option<String>,
    pub shuffle: bool,
    pub printnamelist: bool,
    pub verbose: bool,
    pub seed: Option<u64>,
    pub threads: Option<usize>,
    pub format: Format,
    pub quiet: bool,
    pub links_file: Option<String>,
}

/// Validates the flags of `-p matrix`: the flags of unit-weight patterns that have no
/// meaning for a matrix are refused by name.
fn matrix_plan(a: SimArgs) -> Result<MatrixPlan> {
    if let Some(p) = a.ptrn.as_deref().filter(|p| !"matrix".starts_with(p)) {
        bail!("--matrix is the traffic of -p matrix; it cannot be combined with -p {p}");
    }
    let Some(matrix) = a.matrix else {
        bail!("-p matrix needs --matrix FILE (a PFProf trace, CSV, Matrix Market or JSON matrix)");
    };
    let refused = [
        (a.ptrnarg.is_some(), "-a/--ptrnarg"),
        (
            a.ptrnfst.is_some() || a.ptrnsec.is_some(),
            "-f/--ptrnfst and -c/--ptrnsec",
        ),
        (
            a.ptrn_level != -1,
            "-l/--ptrn_level (a matrix is one level)",
        ),
        (a.part_commsize.is_some(), "-z/--part_commsize"),
        (a.part_subset != "none", "--part_subset"),
        (
            a.commsize != 0,
            "-s/--commsize (the matrix's ranks and --ppn decide the hosts)",
        ),
        (a.printptrn, "--printptrn (use --printnamelist)"),
        (a.getnumlevels, "-g/--getnumlevels (a matrix is one level)"),
        (
            a.orcs_compat,
            "--orcs-compat (ORCS has no traffic matrices)",
        ),
        (a.plot.is_some(), "--plot"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!("{flag} does not apply to -p matrix");
    }
    let metric = parse_metric(a.metric.as_deref().unwrap_or("sum_max_cong"))?;
    if matches!(metric, MetricKind::HistMaxCong | MetricKind::DepMaxDelay) {
        bail!("--metric {metric} counts unit-weight messages; with -p matrix use sum_max_cong (largest link load in bytes), hist_acc_band (byte-weighted bandwidth fraction) or get_cable_cong (bytes per link)");
    }
    if a.num_runs < 1 {
        bail!("--num_runs must be at least 1, got {}", a.num_runs);
    }
    if a.ppn == Some(0) {
        bail!("--ppn must be at least 1");
    }
    if a.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    let format = report_format(&a.format)?;
    if a.printnamelist && format != Format::Text {
        bail!("--printnamelist prints text; it cannot be combined with --format json or csv");
    }
    Ok(MatrixPlan {
        input: a.input.spec(false),
        input_file: a.input.input_file,
        output_file: a.output_file,
        matrix,
        ranks_per_host: a.ppn.unwrap_or(1),
        runs: a.num_runs as u64,
        subset: subset_method("--subset", &a.subset)?,
        metric,
        node_ordering_file: a.node_ordering_file.filter(|f| f != "-"),
        shuffle: !a.do_not_shuffle,
        printnamelist: a.printnamelist,
        verbose: a.verbose,
        seed: a.seed,
        threads: a.threads,
        format,
        quiet: a.quiet,
        links_file: a.links,
    })
}

/// A validated check request.
#[derive(Debug)]
pub struct CheckPlan {
    pub input: InputSpec,
    pub routequal: bool,
    pub deadlock: bool,
    pub threads: Option<usize>,
}

/// Resolves an enumerated value: an exact name, or an unambiguous prefix of one.
fn resolve<'a>(flag: &str, value: &str, names: &[&'a str]) -> Result<&'a str> {
    if let Some(exact) = names.iter().find(|n| **n == value) {
        return Ok(exact);
    }
    let matches: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with(value))
        .collect();
    match matches.as_slice() {
        [one] if !value.is_empty() => Ok(one),
        [] | [_] => bail!(
            "invalid value '{value}' for {flag}: expected one of {}",
            names.join(", ")
        ),
        many => bail!(
            "ambiguous value '{value}' for {flag}: could be {}",
            many.join(", ")
        ),
    }
}

fn subset_method(flag: &str, value: &str) -> Result<SubsetMethod> {
    let names: Vec<&str> = SubsetMethod::ALL.iter().map(|m| m.name()).collect();
    let name = resolve(flag, value, &names)?;
    Ok(SubsetMethod::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .unwrap_or(SubsetMethod::Rand))
}

impl Cli {
    /// Validates the flags into a [`Plan`]; errors quote the offending flag.
    pub fn into_plan(self) -> Result<Plan> {
        match self.command {
            Some(Command::Check(c)) => {
                return Ok(Plan::Check(CheckPlan {
                    input: c.input.spec(c.orcs_compat),
                    routequal: c.routequal,
                    deadlock: c.deadlock,
                    threads: c.threads,
                }))
            }
            Some(Command::Convert(c)) => return c.into_plan().map(Plan::Convert),
            Some(Command::Map(m)) => return m.into_plan().map(Plan::Map),
            Some(Command::Plot(p)) => {
                let metric = match &p.metric {
                    Some(m) => Some(parse_metric(m)?),
                    None => None,
                };
                return Ok(Plan::Plot(PlotPlan {
                    format: image_format("-o/--output", &p.output)?,
                    results: p.results,
                    output: p.output,
                    metric,
                }));
            }
            Some(Command::Traffic(t)) => {
                use orcs::cluster::application::{Mapper, PathRouter, Selector};
                return Ok(Plan::Traffic(TrafficPlan {
                    selectors: list_of("--selector", &t.selector, &Selector::ALL)?,
                    mappers: list_of("--mapper", &t.mapper, &Mapper::ALL)?,
                    routers: list_of("--router", &t.router, &PathRouter::ALL)?,
                    cluster: t.cluster,
                    matrix: t.matrix,
                    seed: t.seed,
                    links: t.links,
                }));
            }
            Some(Command::Jobs(j)) => {
                if j.threads == Some(0) {
                    bail!("--threads must be at least 1");
                }
                let format = report_format(&j.format)?;
                return Ok(Plan::Jobs(JobsPlan {
                    scenario: j.scenario,
                    seed: j.seed,
                    output: j.output,
                    format,
                    pfsim_compat: j.pfsim_compat,
                    threads: j.threads,
                    quiet: j.quiet,
                }));
            }
            Some(Command::Scan(a)) => {
                if a.threads == Some(0) {
                    bail!("--threads must be at least 1");
                }
                let shard = match &a.shard {
                    None => None,
                    Some(text) => {
                        let parsed = text
                            .split_once('/')
                            .and_then(|(i, n)| {
                                Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?))
                            })
                            .filter(|&(i, n)| n >= 1 && (1..=n).contains(&i));
                        match parsed {
                            Some(p) => Some(p),
                            None => {
                                bail!("--shard '{text}': expected I/N with 1 <= I <= N, e.g. 2/8")
                            }
                        }
                    }
                };
                let output = match (&a.output, &a.plan) {
                    (Some(o), _) => o.clone(),
                    (None, Some(p)) if a.merge.is_empty() => {
                        let base = p.strip_suffix(".toml").unwrap_or(p);
                        match shard {
                            Some((i, n)) => format!("{base}.{i}of{n}.jsonl"),
                            None => format!("{base}.jsonl"),
                        }
                    }
                    _ => bail!("--merge needs -o/--output FILE for the merged results"),
                };
                if !a.merge.is_empty() && (a.plan.is_some() || a.dry_run || shard.is_some()) {
                    bail!("--merge combines results files; it takes no plan, --dry-run or --shard");
                }
                if a.merge.is_empty() && a.plan.is_none() {
                    bail!("orcs scan needs a PLAN file (or --merge FILES -o OUT)");
                }
                let csv = a.csv.clone().unwrap_or_else(|| {
                    format!("{}.csv", output.strip_suffix(".jsonl").unwrap_or(&output))
                });
                return Ok(Plan::Scan(ScanPlan {
                    plan: a.plan,
                    output,
                    csv,
                    dry_run: a.dry_run,
                    shard,
                    merge: a.merge,
                    threads: a.threads,
                    quiet: a.quiet,
                }));
            }
            Some(Command::Queue(q)) => return Ok(Plan::Queue(Box::new(q.into_plan()?))),
            Some(Command::Report(r)) => {
                return Ok(Plan::Report(ReportPlan {
                    results: r.results,
                    output: r.output,
                }))
            }
            Some(Command::Gen(g)) => {
                if g.threads == Some(0) {
                    bail!("--threads must be at least 1");
                }
                return Ok(Plan::Gen(GenPlan {
                    format: output_format(&g.output, g.to.as_deref())?,
                    spec: g.spec,
                    routing: g.routing,
                    roots: g
                        .roots
                        .map(|r| r.split(',').map(|n| n.trim().to_string()).collect()),
                    seed: g.seed,
                    output: g.output,
                    threads: g.threads,
                }));
            }
            None => {}
        }
        let a = self.sim;
        if a.checkinputfile || a.routequal {
            return Ok(Plan::Check(CheckPlan {
                input: a.input.spec(a.orcs_compat),
                routequal: a.routequal,
                deadlock: false,
                threads: a.threads,
            }));
        }
        let wants_matrix = a.matrix.is_some()
            || a.ptrn
                .as_deref()
                .is_some_and(|p| !p.is_empty() && "matrix".starts_with(p));
        if wants_matrix {
            return matrix_plan(a).map(|plan| Plan::Matrix(Box::new(plan)));
        }
        if a.ppn.is_some() {
            bail!("--ppn applies to -p matrix");
        }
        let pattern = match build_pattern(&a) {
            Ok(p) => p,
            Err(e) => {
                if let Some(help @ PatternError::HelpRequested { .. }) = e.downcast_ref() {
                    return Ok(Plan::PatternHelp(help.to_string()));
                }
                return Err(e);
            }
        };
        let metric = parse_metric(a.metric.as_deref().unwrap_or("hist_max_cong"))?;
        let subset = subset_method("--subset", &a.subset)?;
        let part_names = [
            "rand",
            "linear_bfs",
            "guid_order_asc",
            "guid_order_desc",
            "none",
        ];
        let part_subset = match resolve("--part_subset", &a.part_subset, &part_names)? {
            "none" => None,
            name => Some(subset_method("--part_subset", name)?),
        };
        if part_subset.is_some() && pattern.kind() != PatternKind::PtrnVsPtrn {
            bail!("--part_subset can only be used with the ptrnvsptrn pattern");
        }
        if part_subset == Some(SubsetMethod::LinearBfs) && subset != SubsetMethod::LinearBfs {
            bail!("--part_subset linear_bfs requires --subset linear_bfs as well");
        }
        if a.num_runs < 1 {
            bail!(
                "--num_runs must be at least 1, got {} (orcs performs exactly the runs requested)",
                a.num_runs
            );
        }
        let level = match a.ptrn_level {
            -1 => None,
            l if l >= 0 => Some(l as usize),
            l => bail!("--ptrn_level must be -1 (all levels) or a level number, got {l}"),
        };
        if level.is_some() && metric == MetricKind::DepMaxDelay {
            bail!("--ptrn_level cannot be combined with --metric dep_max_delay (it evaluates the dependencies between all levels)");
        }
        if a.commsize < 0 {
            bail!(
                "-s/--commsize must be 0 (all hosts) or a host count, got {}",
                a.commsize
            );
        }
        let part_commsize = a.part_commsize.unwrap_or(2);
        if part_commsize < 0 {
            bail!("-z/--part_commsize must be positive, got {part_commsize}");
        }
        let format = report_format(&a.format)?;
        if a.threads == Some(0) {
            bail!("--threads must be at least 1");
        }
        if (a.printptrn || a.printnamelist) && format != Format::Text {
            bail!("--printptrn and --printnamelist print text; they cannot be combined with --format json or csv");
        }
        let pattern_lines = header_lines(&pattern, a.ptrnarg.as_deref());
        let plot = match a.plot {
            Some(path) => match orcs::viz::draw::ImageFormat::from_path(&path) {
                Some(f) => Some((path, f)),
                None => bail!("--plot '{path}': the file name must end in .svg or .png"),
            },
            None => None,
        };
        let plan = SimPlan {
            input: a.input.spec(a.orcs_compat),
            input_file: a.input.input_file,
            output_file: a.output_file,
            pattern,
            commsize: a.commsize as u64,
            part_commsize: part_commsize as u64,
            part_commsize_given: a.part_commsize.is_some(),
            pattern_lines,
            runs: a.num_runs as u64,
            level,
            subset,
            part_subset,
            metric,
            // "-" is ORCS's spelling of "no file".
            node_ordering_file: a.node_ordering_file.filter(|f| f != "-"),
            shuffle: !a.do_not_shuffle,
            printptrn: a.printptrn,
            printnamelist: a.printnamelist,
            verbose: a.verbose,
            seed: a.seed,
            threads: a.threads,
            format,
            orcs_compat: a.orcs_compat,
            quiet: a.quiet,
            links_file: a.links,
            plot,
            compare: a.compare,
        };
        Ok(if a.getnumlevels {
            Plan::NumLevels(Box::new(plan))
        } else {
            Plan::Simulate(Box::new(plan))
        })
    }
}

/// The fabric format from --to, or else from the output file's extension.
fn output_format(output: &str, to: Option<&str>) -> Result<FabricFormat> {
    let by_name = |name: &str| -> Result<FabricFormat> {
        Ok(
            match resolve("--to", name, &["dot", "orcsfab", "net", "graphml"])? {
                "orcsfab" => FabricFormat::Orcsfab,
                "net" => FabricFormat::Net,
                "graphml" => FabricFormat::Graphml,
                _ => FabricFormat::Dot,
            },
        )
    };
    if let Some(name) = to {
        return by_name(name);
    }
    let lower = output.to_ascii_lowercase();
    let ext = lower
        .trim_end_matches(".gz")
        .rsplit('.')
        .next()
        .unwrap_or("");
    Ok(match (output, ext) {
        ("-", _) | (_, "dot") | (_, "gv") => FabricFormat::Dot,
        (_, "orcsfab") => FabricFormat::Orcsfab,
        (_, "net") => FabricFormat::Net,
        (_, "graphml") => FabricFormat::Graphml,
        _ => bail!(
            "cannot tell the output format from '{output}': use a .dot, .orcsfab, .net or .graphml name, or --to"
        ),
    })
}

impl ConvertArgs {
    fn into_plan(self) -> Result<ConvertPlan> {
        let format = output_format(&self.output, self.to.as_deref())?;
        if self.threads == Some(0) {
            bail!("--threads must be at least 1");
        }
        Ok(ConvertPlan {
            input: self.input.spec(self.orcs_compat),
            output: self.output,
            format,
            threads: self.threads,
        })
    }
}

/// The header's `Pattern:` lines (spec §9.1) with the -a text as the user wrote it, as
/// ORCS prints it (the parsed pattern would print a normalised form).
fn header_lines(pattern: &Pattern, raw_arg: Option<&str>) -> Vec<String> {
    let Some(raw) = raw_arg else {
        return pattern.header_lines();
    };
    match pattern {
        Pattern::PtrnVsPtrn { first, second } => {
            let (raw1, raw2) = raw.split_once("::").unwrap_or((raw, ""));
            let part = |p: &Pattern, text: &str| match text.split_once(':') {
                Some((_, arg)) => format!("{},{arg}", p.name()),
                None => p.name().to_string(),
            };
            vec![
                format!("Pattern: {}", pattern.name()),
                format!("    First Pattern: {}", part(first, raw1)),
                format!("   Second Pattern: {}", part(second, raw2)),
            ]
        }
        _ => vec![format!("Pattern: {},{raw}", pattern.name())],
    }
}

/// The pattern from -p/-a, or from the ORCS 1 form -f/-c.
fn build_pattern(a: &SimArgs) -> Result<Pattern> {
    let name = a.ptrn.as_deref().unwrap_or("bisect");
    let v1_form = a.ptrnfst.is_some() || a.ptrnsec.is_some();
    if v1_form {
        let (kind, _) = PatternKind::parse_name(name).context("invalid value for -p/--ptrn")?;
        if kind != PatternKind::PtrnVsPtrn {
            bail!("-f/--ptrnfst and -c/--ptrnsec require -p ptrnvsptrn");
        }
        if a.ptrnarg.is_some() {
            bail!("-a/--ptrnarg cannot be combined with -f/--ptrnfst or -c/--ptrnsec");
        }
        let part = |flag: &str, v: &Option<String>| -> Result<Pattern> {
            let v = v.as_deref().unwrap_or("bisect");
            Pattern::parse(v, None).with_context(|| format!("invalid value for {flag}"))
        };
        let first = part("-f/--ptrnfst", &a.ptrnfst)?;
        let second = part("-c/--ptrnsec", &a.ptrnsec)?;
        return Ok(Pattern::ptrnvsptrn(first, second));
    }
    Pattern::parse(name, a.ptrnarg.as_deref()).context("invalid -p/--ptrn or -a/--ptrnarg")
}
