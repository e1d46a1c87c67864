//! Flags that several commands take, each declared once here and flattened into the
//! commands with `#[command(flatten)]`. A command whose flag means something more
//! specific rewords its help with `#[command(mut_arg(...))]`, and validation happens in
//! one place, here.

use super::values::{
    byte_size, image_format, picture_size, positive, report_format, resolve, subset_method, whole,
    Format,
};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use orcs::fabric::input::InputSpec;
use orcs::limits::{worker_threads, MemoryLimit};
use orcs::trace::collective::AlgorithmChoice;
use orcs::trace::traffic::{Collectives, TrafficOptions, Window};
use orcs::viz::draw::{ChartStyle, ImageFormat};
use orcs::workload::mapping::SubsetMethod;

/// Where a routed fabric comes from: the file and, for InfiniBand dumps, the tables.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Routed fabric: Graphviz dot with routing in edge comments (plain or gzip), a fabric cache (.orcsfab), or with --lft an ibnetdiscover or .lst topology dump ("-" reads standard input).
    #[arg(verbatim_doc_comment, short = 'i', long = "input_file", visible_aliases = ["input-file", "topology"], value_name = "FILE", default_value = "-")]
    pub input_file: String,
    /// InfiniBand forwarding tables for the topology given with -i: ibroute/dump_fts output, OpenSM's opensm-lfts.dump, or a .fdbs file.
    #[arg(verbatim_doc_comment, long = "lft", value_name = "FILE")]
    pub lft: Option<String>,
    /// Node name map (lines `0x<guid> "name"`) that gives converted InfiniBand nodes readable names (hosts keep an H prefix).
    // Not `requires = "lft"`: `orcs convert --routing` names a dump without tables too;
    // the loader says what it needs.
    #[arg(verbatim_doc_comment, long = "node-name-map", value_name = "FILE")]
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
    /// The input, read in ORCS's compat mode or not.
    pub fn spec(&self, orcs_compat: bool) -> InputSpec {
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

/// -j: the size of the worker pool.
#[derive(Debug, Args)]
pub struct ThreadsArg {
    /// Number of worker threads (default: all cores).
    #[arg(
        verbatim_doc_comment,
        short = 'j',
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = positive
    )]
    pub threads: Option<u64>,
}

impl ThreadsArg {
    /// The thread count asked for, if any, within what the machine can use (see
    /// [`worker_threads`]).
    pub fn get(&self) -> Result<Option<usize>> {
        self.threads
            .map(|n| {
                worker_threads(usize::try_from(n).unwrap_or(usize::MAX))
                    .map_err(|e| anyhow!("-j/--threads {n}: {e}"))
            })
            .transpose()
    }
}

/// --max-memory: the memory a run may use.
#[derive(Debug, Args)]
pub struct MaxMemoryArg {
    /// Most memory the run may use: 512M, 8G, 1.5T (powers of 1024) or a number of bytes; a request that needs more is refused before it starts (default: the memory available when orcs starts).
    #[arg(
        verbatim_doc_comment,
        long = "max-memory",
        value_name = "SIZE",
        allow_hyphen_values = true,
        value_parser = byte_size
    )]
    pub max_memory: Option<u64>,
}

impl MaxMemoryArg {
    /// The limit given, or else the memory available now.
    pub fn get(&self) -> MemoryLimit {
        match self.max_memory {
            Some(bytes) => MemoryLimit::given(bytes),
            None => MemoryLimit::available(),
        }
    }
}

/// -q: nothing on standard error but what cannot be left out.
#[derive(Debug, Args)]
pub struct QuietArg {
    /// Print no summary, notices, warnings or progress on standard error (a seed chosen by orcs and runs without traffic are still reported).
    #[arg(verbatim_doc_comment, short = 'q', long = "quiet")]
    pub quiet: bool,
}

/// --seed: the seed of every random choice.
#[derive(Debug, Args)]
pub struct SeedArg {
    /// Seed of all random choices; the same seed gives byte-identical output with any thread count (default: a random seed, which is printed).
    #[arg(
        verbatim_doc_comment,
        long = "seed",
        value_name = "SEED",
        allow_negative_numbers = true,
        value_parser = whole::<u64>
    )]
    pub seed: Option<u64>,
}

/// --orcs-compat: the original ORCS's behaviour where orcs deliberately differs.
#[derive(Debug, Args)]
pub struct OrcsCompatArg {
    /// Reproduce the original ORCS where orcs deliberately differs (inflated get_cable_cong counts, dep_max_delay model, ORCS 2 rand pattern, first-match next hops).
    #[arg(verbatim_doc_comment, long = "orcs-compat")]
    pub orcs_compat: bool,
}

/// --format: text, json or csv.
#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output format of the metric: text (ORCS's layout), json or csv.
    #[arg(
        verbatim_doc_comment,
        long = "format",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub format: String,
}

impl FormatArg {
    /// The format asked for.
    pub fn get(&self) -> Result<Format> {
        report_format(&self.format)
    }
}

/// -o/--output: the file (or folder) a command writes.
#[derive(Debug, Args)]
pub struct OutputArg {
    /// Write the results to FILE instead of standard output.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "FILE"
    )]
    pub output: Option<String>,
}

impl OutputArg {
    /// The output of a command that makes the flag required.
    pub fn required(self) -> String {
        self.output
            .expect("clap requires -o/--output for this command")
    }
}

/// --plot: a picture of the results.
#[derive(Debug, Args)]
pub struct PlotArg {
    /// Also plot the metric's distribution with its mean and 95 % confidence interval to FILE (.svg, .png or .pdf).
    #[arg(verbatim_doc_comment, long = "plot", value_name = "FILE")]
    pub plot: Option<String>,
    #[command(flatten)]
    pub chart: ChartArgs,
}

/// A `--plot` request, validated.
#[derive(Debug, Clone)]
pub struct PlotRequest {
    /// The picture to write.
    pub path: String,
    /// Its format.
    pub format: ImageFormat,
    /// Its title and size.
    pub style: ChartStyle,
}

impl PlotArg {
    /// The plot asked for, if any; --plot-title and --plot-size only go with --plot.
    pub fn get(self) -> Result<Option<PlotRequest>> {
        match self.plot {
            Some(path) => Ok(Some(PlotRequest {
                format: image_format("--plot", &path)?,
                path,
                style: self.chart.style("--plot-size")?,
            })),
            None if self.chart.given() => {
                bail!("--plot-title and --plot-size change the picture of --plot FILE")
            }
            None => Ok(None),
        }
    }
}

/// --plot-title and --plot-size of a chart (`orcs plot` names them --title and --size).
/// The fields' names are the arguments' ids, which must differ from those of every
/// command that flattens the group (`orcs queue` has its own `size`).
#[derive(Debug, Args)]
pub struct ChartArgs {
    /// Title above the plot, instead of the one made from the inputs.
    #[arg(verbatim_doc_comment, long = "plot-title", value_name = "TEXT")]
    pub plot_title: Option<String>,
    /// Size of the plot, WIDTHxHEIGHT in pixels (points for PDF), each 16 to 20000, e.g. 1200x800.
    #[arg(verbatim_doc_comment, long = "plot-size", value_name = "WxH")]
    pub plot_size: Option<String>,
}

impl ChartArgs {
    /// Whether either flag was given.
    pub fn given(&self) -> bool {
        self.plot_title.is_some() || self.plot_size.is_some()
    }

    /// The validated style; `size_flag` names the size flag in errors.
    pub fn style(self, size_flag: &str) -> Result<ChartStyle> {
        let size = match &self.plot_size {
            Some(text) => Some(picture_size(size_flag, text)?),
            None => None,
        };
        Ok(ChartStyle {
            title: self.plot_title,
            size,
        })
    }
}

/// --links: a per-link CSV table.
#[derive(Debug, Args)]
pub struct LinksArg {
    /// Also write a per-link table as CSV to FILE: every directed link with its endpoints, the all-pairs routes over it, the messages it carried, its largest congestion and the share of runs in which it was the bottleneck.
    #[arg(verbatim_doc_comment, long = "links", value_name = "FILE")]
    pub links: Option<String>,
}

/// --metric: one of ORCS's metrics.
#[derive(Debug, Args)]
pub struct MetricArg {
    /// Metric: sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong (default hist_max_cong; sum_max_cong with -p matrix, where it is the largest link load in bytes).
    #[arg(verbatim_doc_comment, long = "metric", value_name = "METRIC")]
    pub metric: Option<String>,
}

/// --matrix: an application's traffic matrix.
#[derive(Debug, Args)]
pub struct MatrixArg {
    /// The traffic matrix of -p matrix: a PFProf trace (.tar.gz, .tar or folder of per-rank JSON), CSV, Matrix Market, JSON, or a DUMPI trace (its .meta file); implies -p matrix.
    #[arg(
        verbatim_doc_comment,
        long = "matrix",
        visible_alias = "traffic",
        value_name = "FILE"
    )]
    pub matrix: Option<String>,
}

/// --algorithms: the algorithm of each collective operation of a trace.
#[derive(Debug, Args)]
pub struct AlgorithmsArg {
    /// With a DUMPI trace: force collective algorithms, e.g. bcast=binomial,allreduce=rabenseifner (default: MPICH's choice by communicator and message size).
    #[arg(
        verbatim_doc_comment,
        long = "algorithms",
        value_name = "OP=ALG,...",
        value_parser = parse_algorithms
    )]
    pub algorithms: Option<AlgorithmChoice>,
}

/// --fabric, --placement, --ppn: a routed fabric an application's ranks run on, and
/// which hosts they take.
#[derive(Debug, Args)]
pub struct PlacementArgs {
    /// Run the ranks on this routed fabric (dot with routing comments, plain or gzip, or a fabric cache; convert InfiniBand dumps with `orcs convert`): every message follows its route, and messages in flight at the same time share the links they cross.
    #[arg(verbatim_doc_comment, long = "fabric", value_name = "FILE")]
    pub fabric: Option<String>,
    /// Which hosts the ranks take, in rank order: linear_bfs (breadth first from the fabric's first node, so neighbouring ranks share a switch), rand (drawn with --seed), guid_order_asc or guid_order_desc (default linear_bfs).
    #[arg(
        verbatim_doc_comment,
        long = "placement",
        value_name = "METHOD",
        requires = "fabric"
    )]
    pub placement: Option<String>,
    /// Ranks per host, consecutive ranks together (default 1).
    #[arg(
        verbatim_doc_comment,
        long = "ppn",
        value_name = "N",
        requires = "fabric",
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
    pub ppn: Option<u32>,
}

/// A validated [`PlacementArgs`]: the fabric to load and where the ranks go.
#[derive(Debug, Clone)]
pub struct PlacementPlan {
    /// The fabric.
    pub input: InputSpec,
    /// How the hosts are chosen.
    pub method: SubsetMethod,
    /// Ranks per host (≥ 1).
    pub per_host: usize,
}

impl PlacementArgs {
    /// The placement, None without --fabric.
    pub fn get(&self) -> Result<Option<PlacementPlan>> {
        let Some(path) = &self.fabric else {
            return Ok(None);
        };
        let method = match &self.placement {
            Some(name) => subset_method("--placement", name)?,
            None => SubsetMethod::LinearBfs,
        };
        let per_host = match self.ppn {
            Some(0) => bail!("--ppn: a host takes at least one rank, got 0"),
            Some(n) => n as usize,
            None => 1,
        };
        Ok(Some(PlacementPlan {
            input: InputSpec {
                path: path.clone(),
                ..InputSpec::default()
            },
            method,
            per_host,
        }))
    }
}

/// --collectives, --algorithms, --window, --phase: what of a DUMPI trace counts as
/// traffic.
#[derive(Debug, Args)]
pub struct TraceTrafficArgs {
    /// With a DUMPI trace: collective operations expanded into the point-to-point messages of their algorithm (expand, the default) or left out (exclude).
    #[arg(verbatim_doc_comment, long = "collectives", value_name = "MODE")]
    pub collectives: Option<String>,
    #[command(flatten)]
    pub algorithms: AlgorithmsArg,
    /// With a DUMPI trace: only calls that start in this window, in seconds after the trace's first call (START:END, START: or :END).
    #[arg(
        verbatim_doc_comment, allow_hyphen_values = true,
        long = "window",
        value_name = "START:END",
        value_parser = parse_window
    )]
    pub window: Option<Window>,
    /// With a DUMPI trace: only calls after an MPI_Pcontrol annotation with this text, up to the next annotation.
    #[arg(verbatim_doc_comment, long = "phase", value_name = "TEXT")]
    pub phase: Option<String>,
}

fn parse_algorithms(text: &str) -> Result<AlgorithmChoice, String> {
    AlgorithmChoice::parse(text).map_err(|e| e.to_string())
}

/// `START:END` in seconds (either side may be empty) as a window in ns.
fn parse_window(text: &str) -> Result<Window, String> {
    Window::parse(text).map_err(|e| e.to_string())
}

impl TraceTrafficArgs {
    /// Whether any of the flags is given.
    pub fn given(&self) -> bool {
        self.collectives.is_some()
            || self.algorithms.algorithms.is_some()
            || self.window.is_some()
            || self.phase.is_some()
    }

    /// The validated options.
    pub fn options(self) -> Result<TrafficOptions> {
        let mode = resolve(
            "--collectives",
            self.collectives.as_deref().unwrap_or("expand"),
            &["expand", "exclude"],
        )?;
        let collectives = match (mode, self.algorithms.algorithms) {
            ("exclude", Some(_)) => {
                bail!("--algorithms chooses how collectives expand: it cannot go with --collectives exclude")
            }
            ("exclude", None) => Collectives::Exclude,
            (_, choice) => Collectives::Expand(choice.unwrap_or_else(AlgorithmChoice::automatic)),
        };
        Ok(TrafficOptions {
            collectives,
            window: self.window,
            phase: self.phase,
        })
    }
}

/// Refuses the trace flags when `matrix` is not a DUMPI trace's `.meta` file.
pub fn trace_flags_need_a_trace(flags: &TraceTrafficArgs, matrix: &str) -> Result<()> {
    if flags.given() && !matrix.ends_with(".meta") {
        bail!("--collectives, --algorithms, --window and --phase choose what of a DUMPI trace counts; '{matrix}' is not a trace's .meta file");
    }
    Ok(())
}

/// --routing and --roots: the routing engine that computes a fabric's forwarding tables.
#[derive(Debug, Args)]
pub struct RoutingArgs {
    /// Routing engine: dmodk, dor, dor-dateline, minhop, updn, dnup, sssp or random (default: dmodk for trees, dor for grids, minhop otherwise).
    #[arg(verbatim_doc_comment, long = "routing", value_name = "ENGINE")]
    pub routing: Option<String>,
    /// Root switches for updn, by name, comma separated (default: detected as OpenSM does).
    #[arg(verbatim_doc_comment, long = "roots", value_name = "NAMES")]
    pub roots: Option<String>,
}

impl RoutingArgs {
    /// The root switch names of `--roots`.
    pub fn root_names(&self) -> Option<Vec<String>> {
        self.roots
            .as_ref()
            .map(|r| r.split(',').map(|n| n.trim().to_string()).collect())
    }
}

/// --to: the format of a written fabric.
#[derive(Debug, Args)]
pub struct ToArg {
    /// Output format: dot, orcsfab, net or graphml (default: from the output file's extension).
    #[arg(verbatim_doc_comment, long = "to", value_name = "FORMAT")]
    pub to: Option<String>,
}

/// --routequal: ORCS's route quality figures.
#[derive(Debug, Args)]
pub struct RoutequalArg {
    /// Check the routing like `orcs check`, add ORCS's route quality figures (all-to-all load on inner links) and exit.
    #[arg(verbatim_doc_comment, long = "routequal")]
    pub routequal: bool,
}

/// RESULT…: results written with --format json.
#[derive(Debug, Args)]
pub struct ResultsArg {
    /// Results written with --format json.
    #[arg(verbatim_doc_comment, value_name = "RESULT", required = true)]
    pub results: Vec<String>,
}
