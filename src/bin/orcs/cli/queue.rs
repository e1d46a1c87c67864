//! `orcs queue`: the queueing model of a multi-cluster system.

use super::shared::{FormatArg, OutputArg, PlotArg, PlotRequest, SeedArg, ThreadsArg};
use super::values::{resolve, whole, Format};
use anyhow::{bail, Context, Result};
use clap::Args;
use orcs::fabric::input::InputSpec;
use orcs::queueing::des::DesConfig;
use orcs::queueing::params::{
    parse_bandwidth, parse_count, parse_list, parse_rate, parse_size, parse_time, Config,
    NetworkSettings,
};
use orcs::queueing::sweep::Axis;
use orcs::queueing::{Architecture, Centre, Sources};

/// Flags of `orcs queue`.
#[derive(Debug, Args)]
#[command(
    mut_arg("format", |a| a.help("Output format: text, json or csv.")),
    mut_arg("plot", |a| a.help("Also plot the mean latency against the swept parameter to FILE (.svg, .png or .pdf), one line per series.")),
    mut_arg("seed", |a| a.help("Seed of the simulation; the same seed gives byte-identical output with any number of threads (default: a random seed, which is printed).").requires("simulate")),
    mut_arg("threads", |a| a.help("Number of worker threads of the simulation and the fabric measurement (default: all cores)."))
)]
pub struct QueueArgs {
    /// TOML file with the model's parameters (the README lists its keys); flags override its values.
    #[arg(verbatim_doc_comment, long = "config", value_name = "FILE")]
    pub config: Option<String>,
    /// Number of clusters C: a value, a comma-separated list or a range FIRST:LAST[:STEP] or FIRST:LAST:xFACTOR (default 4).
    #[arg(
        verbatim_doc_comment,
        long = "clusters",
        value_name = "LIST",
        allow_negative_numbers = true
    )]
    pub clusters: Option<String>,
    /// Total number of processors N, kept when C changes (each cluster has N/C); default 256, or the host count of --fabric.
    #[arg(
        verbatim_doc_comment,
        long = "nodes",
        value_name = "N",
        conflicts_with = "nodes_per_cluster",
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub nodes: Option<u32>,
    /// Processors per cluster N0, kept when C changes (N = C·N0), instead of a fixed N.
    #[arg(verbatim_doc_comment, long = "nodes-per-cluster", value_name = "N0",
        allow_negative_numbers = true,
        value_parser = whole::<u32>)]
    pub nodes_per_cluster: Option<u32>,
    /// Message rate λ per processor in messages per second: a value, a list or a range (default 20).
    #[arg(
        verbatim_doc_comment,
        long = "rate",
        value_name = "LIST",
        allow_negative_numbers = true
    )]
    pub rate: Option<String>,
    /// Message size M in bytes (or with B, kB, KiB, MB, MiB): a value, a list or a range (default 1024).
    #[arg(
        verbatim_doc_comment,
        long = "size",
        value_name = "LIST",
        allow_negative_numbers = true
    )]
    pub size: Option<String>,
    /// Architecture of all three networks, a comma-separated list with one series each: non-blocking (fat tree) or blocking (linear array of switches) (default: each network's own, non-blocking unless --config says otherwise).
    #[arg(verbatim_doc_comment, long = "arch", value_name = "LIST")]
    pub arch: Option<String>,
    /// Network preset of all networks, or of one when prefixed with icn1=, ecn1= or icn2=: fast-ethernet, gigabit-ethernet (default), 10g-ethernet, infiniband-qdr or infiniband-hdr (repeatable).
    #[arg(verbatim_doc_comment, long = "network", value_name = "[NET=]PRESET")]
    pub network: Vec<String>,
    /// Link bandwidth in bytes/s or with a unit (125MB/s, 10Gb/s), of all networks or of one, e.g. icn2=4GB/s (repeatable).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "bandwidth",
        value_name = "[NET=]RATE"
    )]
    pub bandwidth: Vec<String>,
    /// End-to-end software and NIC latency per message, with a unit (50us), of all networks or of one (repeatable).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "latency",
        value_name = "[NET=]TIME"
    )]
    pub latency: Vec<String>,
    /// Latency of one switch, with a unit (2us), of all networks or of one (repeatable).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "switch-latency",
        value_name = "[NET=]TIME"
    )]
    pub switch_latency: Vec<String>,
    /// Ports per switch (even, at least 4), which set the closed-form switch counts, of all networks or of one (repeatable).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "ports",
        value_name = "[NET=]K"
    )]
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
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub plot: PlotArg,
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
        requires = "simulate",
        allow_negative_numbers = true,
        value_parser = whole::<u64>
    )]
    pub messages: Option<u64>,
    /// Independent replications of the simulation, at least 2 (default 20).
    #[arg(
        verbatim_doc_comment,
        long = "replications",
        value_name = "R",
        requires = "simulate",
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub replications: Option<u32>,
    /// Warm-up before the measurement, as a fraction of the measurement window (default 0.1).
    #[arg(
        verbatim_doc_comment,
        long = "warmup",
        value_name = "FRACTION",
        requires = "simulate",
        allow_negative_numbers = true
    )]
    pub warmup: Option<f64>,
    /// Confidence level of the simulated intervals, in percent (default 99).
    #[arg(
        verbatim_doc_comment,
        long = "confidence",
        value_name = "PERCENT",
        requires = "simulate",
        allow_negative_numbers = true
    )]
    pub confidence: Option<f64>,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

/// A validated `orcs queue` request (the parameter file is read when it runs).
#[derive(Debug)]
pub struct QueuePlan {
    /// --config.
    pub config_file: Option<String>,
    /// The values given by flags, laid over the file's.
    pub flags: Config,
    /// The swept parameter, when named.
    pub axis: Option<Axis>,
    /// The fabric that gives the switch counts.
    pub fabric: Option<InputSpec>,
    /// The results' format.
    pub format: Format,
    /// The results file (None: standard output).
    pub output: Option<String>,
    /// The plot file and its format.
    pub plot: Option<PlotRequest>,
    /// The simulation settings (seed still to choose when `seed` is `None`).
    pub simulate: Option<DesConfig>,
    /// The simulation's seed.
    pub seed: Option<u64>,
}

impl QueueArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<QueuePlan> {
        let mut flags = self.model_flags()?;
        for (n, what) in [
            (self.nodes, "--nodes"),
            (self.nodes_per_cluster, "--nodes-per-cluster"),
        ] {
            if n == Some(0) {
                bail!("{what} must be at least 1");
            }
        }
        self.network_flags(&mut flags)?;
        let axis = match &self.sweep {
            Some(name) => {
                let names: Vec<&str> = Axis::ALL.iter().map(|a| a.name()).collect();
                let name = resolve("--sweep", name, &names)?;
                Axis::ALL.into_iter().find(|a| a.name() == name)
            }
            None => None,
        };
        let format = self.format.get()?;
        let simulate = self.simulate.then(|| self.simulation()).transpose()?;
        let plot = self.plot.get()?;
        Ok(QueuePlan {
            config_file: self.config,
            flags,
            axis,
            fabric: self.fabric.map(|path| InputSpec {
                path,
                ..InputSpec::default()
            }),
            format,
            output: self.output.output,
            plot,
            simulate,
            seed: self.seed.seed,
        })
    }

    /// The model parameters given by the flags that set one value or list each.
    fn model_flags(&self) -> Result<Config> {
        let list = |flag: &str, text: &Option<String>, parse| -> Result<Option<Vec<f64>>> {
            text.as_ref()
                .map(|t| parse_list(t, parse).with_context(|| format!("invalid value for {flag}")))
                .transpose()
        };
        Ok(Config {
            clusters: list("--clusters", &self.clusters, parse_count)?
                .map(|v| v.into_iter().map(|c| c as u32).collect()),
            total_nodes: self.nodes,
            nodes_per_cluster: self.nodes_per_cluster,
            rate: list("--rate", &self.rate, parse_rate)?,
            message_size: list("--size", &self.size, parse_size)?,
            service: (self.service.as_deref().map(str::parse).transpose())
                .context("invalid value for --service")?,
            ecn1: (self.ecn1.as_deref().map(str::parse).transpose())
                .context("invalid value for --ecn1")?,
            sources: self.open.then_some(Sources::Open),
            architectures: (self.arch.as_deref())
                .map(|text| {
                    text.split(',')
                        .map(|a| a.trim().parse::<Architecture>())
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()
                .context("invalid value for --arch")?,
            ..Config::default()
        })
    }

    /// The `[NET=]VALUE` flags laid over `flags`, in the order given (later ones win); a
    /// preset for all networks replaces per-network presets given before it.
    fn network_flags(&self, flags: &mut Config) -> Result<()> {
        for v in &self.network {
            let (target, text) = split_network("--network", v)?;
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
            flags,
            |n, v| n.bandwidth = Some(v),
        )?;
        per_network(
            "--latency",
            &self.latency,
            |t| Ok(parse_time(t)?),
            flags,
            |n, v| n.latency = Some(v),
        )?;
        per_network(
            "--switch-latency",
            &self.switch_latency,
            |t| Ok(parse_time(t)?),
            flags,
            |n, v| n.switch_latency = Some(v),
        )?;
        per_network("--ports", &self.ports, parse_ports, flags, |n, v| {
            n.ports = Some(v)
        })
    }

    /// The settings of `--simulate`.
    fn simulation(&self) -> Result<DesConfig> {
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
            bail!("--confidence must lie strictly between 0 and 100 (percent), got {confidence}");
        }
        let replications = self.replications.unwrap_or(d.replications);
        if replications < 2 {
            bail!(
                "--replications must be at least 2 for a confidence interval, got {replications}"
            );
        }
        let messages = self.messages.unwrap_or(d.messages);
        if messages == 0 {
            bail!("--messages must be at least 1");
        }
        let warmup = self.warmup.unwrap_or(d.warmup);
        if !(warmup.is_finite() && (0.0..=10.0).contains(&warmup)) {
            bail!("--warmup must be a fraction of the measurement window between 0 and 10, got {warmup}");
        }
        Ok(DesConfig {
            sources,
            messages,
            warmup,
            replications,
            seed: 0,
            confidence: confidence / 100.0,
        })
    }
}

/// `[NET=]VALUE`: the network named before `=`, if any, and the value.
fn split_network<'a>(flag: &str, v: &'a str) -> Result<(Option<Centre>, &'a str)> {
    Ok(match v.split_once('=') {
        Some((net, text)) => {
            let centre: Centre =
                (net.trim().parse()).with_context(|| format!("invalid value '{v}' for {flag}"))?;
            (Some(centre), text)
        }
        None => (None, v),
    })
}

/// Applies the `[NET=]VALUE` values of `flag` with `set`, in the order given.
fn per_network<T>(
    flag: &str,
    values: &[String],
    parse: impl Fn(&str) -> Result<T>,
    config: &mut Config,
    mut set: impl FnMut(&mut NetworkSettings, T),
) -> Result<()> {
    for v in values {
        let (target, text) = split_network(flag, v)?;
        let value = parse(text).with_context(|| format!("invalid value for {flag}"))?;
        match target {
            Some(c) => set(&mut config.networks[c.index()], value),
            None => set(&mut config.all_networks, value),
        }
    }
    Ok(())
}

/// A `--ports` value: an even number of ports, at least 4.
fn parse_ports(t: &str) -> Result<u32> {
    t.trim()
        .parse::<u32>()
        .ok()
        .filter(|k| *k >= 4 && k % 2 == 0)
        .with_context(|| format!("'{t}' is not an even number of ports ≥ 4"))
}
