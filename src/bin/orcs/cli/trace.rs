//! `orcs trace`: MPI traces (DUMPI). `orcs trace dump` prints a trace as the reference
//! `dumpi2ascii -H -S -F -X` does; `orcs trace stats` summarises it like `dumpistats`;
//! `orcs trace matrix` writes its traffic matrix; `orcs trace classify` tells what
//! limits the application, `orcs trace rules` prints the rules it classifies by.

use super::shared::{
    AlgorithmsArg, FormatArg, OutputArg, PlacementArgs, PlacementPlan, PlotArg, PlotRequest,
    SeedArg, ThreadsArg, TraceTrafficArgs,
};
use super::values::{resolve, whole, Format};
use anyhow::{anyhow, bail, Result};
use clap::{Args, Subcommand};
use orcs::queueing::params::parse_size;
use orcs::trace::collective::AlgorithmChoice;
use orcs::trace::replay::DEFAULT_EAGER_LIMIT;
use orcs::trace::traffic::TrafficOptions;

/// Flags of `orcs trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

impl TraceArgs {
    /// The -j flag of the subcommand, for those that work in parallel.
    pub fn threads(&self) -> Option<&ThreadsArg> {
        match &self.command {
            TraceCommand::Stats(s) => Some(&s.threads),
            TraceCommand::Matrix(m) => Some(&m.threads),
            TraceCommand::Classify(c) => Some(&c.threads),
            TraceCommand::Dump(_) | TraceCommand::Rules(_) => None,
        }
    }
}

/// The trace subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Print a DUMPI trace as text, byte for byte as sst-dumpi's `dumpi2ascii -H -S -F -X`
    /// prints each rank file (header with the start time in UTC, every call, footer call
    /// counts, datatype sizes): every rank in order, or one.
    Dump(DumpArgs),
    /// Summarise a DUMPI trace like sst-dumpi's `dumpistats`: per rank and in total, the calls and wall time of every MPI function, time inside and outside MPI, point-to-point messages and bytes, collective calls and bytes (text tables, JSON or CSV).
    Stats(StatsArgs),
    /// Write the traffic matrix of a DUMPI trace: bytes and messages every world rank sends every other, with communicators translated to world ranks, one-sided puts, accumulates and gets, and collectives expanded into the point-to-point messages of MPICH's algorithms (or left out).
    Matrix(MatrixArgs),
    /// What limits the application: replay the trace with logical clocks on many latency/bandwidth configurations in one pass, split each predicted run time into computation, load imbalance, latency and bandwidth, and classify it (computation-, load-imbalance-, latency-, bandwidth- or communication-bound) by a table of rules. With --fabric, the messages follow their routes on a real fabric and share its links, and the bandwidth time splits into wire time and contention (contention-bound).
    Classify(ClassifyArgs),
    /// Print the default classification rules of `orcs trace classify`, a TOML table to edit and give back with --rules.
    Rules(RulesArgs),
}

/// Flags of `orcs trace classify`.
#[derive(Debug, Args)]
#[command(
    mut_arg("format", |a| a.help("Output format: text (one line per configuration, then the rules), json or csv.")),
    mut_arg("plot", |a| a.help("Also draw the predicted run times to FILE (.svg, .png or .pdf): per interconnect family, one bar per configuration stacked by computation, load imbalance, latency and bandwidth (with --fabric: its wire time and contention).")),
)]
pub struct ClassifyArgs {
    #[command(flatten)]
    pub trace: TraceArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Latencies to replay on, e.g. 1us,5us,50us (with --bandwidth: every latency with every bandwidth; default: 21 configurations around each of 1GbE, 10GbE and InfiniBand QDR, EDR and HDR).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "latency",
        value_name = "TIMES",
        value_delimiter = ',',
        requires = "bandwidth",
        conflicts_with = "grid"
    )]
    pub latency: Vec<String>,
    /// Bandwidths to replay on, e.g. 10Gb/s,100Gb/s,inf (with --latency).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "bandwidth",
        value_name = "RATES",
        value_delimiter = ',',
        requires = "latency",
        conflicts_with = "grid"
    )]
    pub bandwidth: Vec<String>,
    /// A TOML file of configurations: [[family]] entries (name, latency, bandwidth: 21 configurations around them) and [[config]] entries (family, name, latency, bandwidth).
    #[arg(verbatim_doc_comment, long = "grid", value_name = "FILE")]
    pub grid: Option<String>,
    /// Messages larger than this use the rendezvous protocol (the transfer starts when the receive is posted), e.g. 64KiB, 0 (all rendezvous) (default 64KiB).
    #[arg(
        verbatim_doc_comment,
        allow_hyphen_values = true,
        long = "eager-limit",
        value_name = "BYTES"
    )]
    pub eager_limit: Option<String>,
    #[command(flatten)]
    pub algorithms: AlgorithmsArg,
    /// A TOML table of classification rules replacing the default one (`orcs trace rules` prints it).
    #[arg(verbatim_doc_comment, long = "rules", value_name = "FILE")]
    pub rules: Option<String>,
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub plot: PlotArg,
}

/// Flags of `orcs trace rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    #[command(flatten)]
    pub output: OutputArg,
}

/// The configurations of a replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GridSpec {
    /// The default grid.
    Default,
    /// Every latency with every bandwidth.
    Product {
        /// Latencies as given.
        latencies: Vec<String>,
        /// Bandwidths as given.
        bandwidths: Vec<String>,
    },
    /// A grid file.
    File(String),
}

/// A validated `orcs trace classify`.
#[derive(Debug)]
pub struct ClassifyPlan {
    /// The .meta file.
    pub trace: String,
    /// The configurations.
    pub grid: GridSpec,
    /// The eager limit, bytes.
    pub eager_limit: u64,
    /// The collective algorithms.
    pub algorithms: AlgorithmChoice,
    /// A rules file replacing the default rules.
    pub rules: Option<String>,
    /// The fabric the messages are routed on, and the ranks' hosts.
    pub placement: Option<PlacementPlan>,
    /// The seed of a random placement.
    pub seed: Option<u64>,
    /// The output format.
    pub format: Format,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
    /// The picture to draw, and its format.
    pub plot: Option<PlotRequest>,
}

/// A validated `orcs trace rules`.
#[derive(Debug)]
pub struct RulesPlan {
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
}

impl ClassifyArgs {
    fn into_plan(self) -> Result<ClassifyPlan> {
        let grid = match (self.grid, self.latency.is_empty()) {
            (Some(path), _) => GridSpec::File(path),
            (None, true) => GridSpec::Default,
            (None, false) => GridSpec::Product {
                latencies: self.latency,
                bandwidths: self.bandwidth,
            },
        };
        let eager_limit = match &self.eager_limit {
            None => DEFAULT_EAGER_LIMIT,
            Some(text) => {
                let bytes = parse_size(text).map_err(|e| anyhow!("--eager-limit: {e}"))?;
                if bytes.fract() != 0.0 || bytes >= u64::MAX as f64 {
                    bail!("--eager-limit: '{text}' is not a whole number of bytes");
                }
                bytes as u64
            }
        };
        Ok(ClassifyPlan {
            trace: self.trace.trace,
            grid,
            eager_limit,
            algorithms: self
                .algorithms
                .algorithms
                .unwrap_or_else(AlgorithmChoice::automatic),
            rules: self.rules,
            placement: self.placement.get()?,
            seed: self.seed.seed,
            format: self.format.get()?,
            output: self.output.output,
            plot: self.plot.get()?,
        })
    }
}

/// Flags of `orcs trace matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub trace: TraceArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub traffic: TraceTrafficArgs,
    /// Output format: csv (src,dst,bytes,messages rows), mtx (Matrix Market), json (sparse matrix with message counts) or pfprof (a .tar.gz of per-rank PFProf JSON files) (default: from the output file's extension, else csv).
    #[arg(verbatim_doc_comment, long = "format", value_name = "FORMAT")]
    pub format: Option<String>,
    #[command(flatten)]
    pub output: OutputArg,
}

/// The formats `orcs trace matrix` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixFormat {
    /// `src,dst,bytes,messages` rows.
    Csv,
    /// Matrix Market coordinate file.
    Market,
    /// Sparse JSON matrix.
    Json,
    /// PFProf per-rank JSON files in a .tar.gz.
    Pfprof,
}

/// The format from --format, or else from the output file's extension (csv by default).
fn matrix_format(format: Option<&str>, output: Option<&str>) -> Result<MatrixFormat> {
    if let Some(name) = format {
        return Ok(
            match resolve("--format", name, &["csv", "mtx", "json", "pfprof"])? {
                "mtx" => MatrixFormat::Market,
                "json" => MatrixFormat::Json,
                "pfprof" => MatrixFormat::Pfprof,
                _ => MatrixFormat::Csv,
            },
        );
    }
    let lower = output.unwrap_or("-").to_ascii_lowercase();
    Ok(if lower.ends_with(".mtx") {
        MatrixFormat::Market
    } else if lower.ends_with(".json") {
        MatrixFormat::Json
    } else if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
        MatrixFormat::Pfprof
    } else {
        MatrixFormat::Csv
    })
}

/// Flags of `orcs trace dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    #[command(flatten)]
    pub trace: TraceArg,
    #[command(flatten)]
    pub rank: RankArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// Flags of `orcs trace stats`.
#[derive(Debug, Args)]
#[command(mut_arg("format", |a| a.help("Output format: text (totals, one line per rank, then the functions by time), json or csv (one row per rank and function, plus each rank's totals).")))]
pub struct StatsArgs {
    #[command(flatten)]
    pub trace: TraceArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub rank: RankArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// TRACE: the trace to read.
#[derive(Debug, Args)]
pub struct TraceArg {
    /// The trace: its .meta file (all ranks, files <fileprefix>-NNNN.bin beside it, plain or gzip), or one rank's .bin file.
    #[arg(verbatim_doc_comment, value_name = "TRACE")]
    pub trace: String,
}

/// --rank: one rank of a trace.
#[derive(Debug, Args)]
#[group(id = "rank_selection", multiple = false)]
pub struct RankArg {
    /// Only this rank (default: every rank, in order).
    #[arg(
        verbatim_doc_comment,
        long = "rank",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub rank: Option<u32>,
}

/// A validated trace request.
#[derive(Debug)]
pub enum TracePlan {
    /// Print a trace.
    Dump(DumpPlan),
    /// Summarise a trace.
    Stats(StatsPlan),
    /// Write a trace's traffic matrix.
    Matrix(MatrixPlan),
    /// Replay and classify a trace (boxed: by far the largest plan).
    Classify(Box<ClassifyPlan>),
    /// Print the default rules.
    Rules(RulesPlan),
}

/// A validated `orcs trace matrix`.
#[derive(Debug)]
pub struct MatrixPlan {
    /// The .meta file.
    pub trace: String,
    /// What counts.
    pub options: TrafficOptions,
    /// The format to write.
    pub format: MatrixFormat,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
}

/// A validated `orcs trace dump`.
#[derive(Debug)]
pub struct DumpPlan {
    /// The .meta or .bin file.
    pub trace: String,
    /// One rank, or all.
    pub rank: Option<u32>,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
}

/// A validated `orcs trace stats`.
#[derive(Debug)]
pub struct StatsPlan {
    /// The .meta or .bin file.
    pub trace: String,
    /// One rank, or all.
    pub rank: Option<u32>,
    /// The output format.
    pub format: Format,
    /// The file to write (None or `-`: standard output).
    pub output: Option<String>,
}

impl TraceArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<TracePlan> {
        Ok(match self.command {
            TraceCommand::Dump(d) => TracePlan::Dump(DumpPlan {
                trace: d.trace.trace,
                rank: d.rank.rank,
                output: d.output.output,
            }),
            TraceCommand::Matrix(m) => TracePlan::Matrix(MatrixPlan {
                format: matrix_format(m.format.as_deref(), m.output.output.as_deref())?,
                trace: m.trace.trace,
                options: m.traffic.options()?,
                output: m.output.output,
            }),
            TraceCommand::Classify(c) => TracePlan::Classify(Box::new(c.into_plan()?)),
            TraceCommand::Rules(r) => TracePlan::Rules(RulesPlan {
                output: r.output.output,
            }),
            TraceCommand::Stats(s) => TracePlan::Stats(StatsPlan {
                trace: s.trace.trace,
                rank: s.rank.rank,
                format: s.format.get()?,
                output: s.output.output,
            }),
        })
    }
}
