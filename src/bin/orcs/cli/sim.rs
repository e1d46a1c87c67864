//! The default command: a Monte Carlo simulation of a pattern (or of a traffic matrix
//! with `-p matrix`), in ORCS's flags.

use super::check::CheckPlan;
use super::files::OUTPUT_FILE;
use super::shared::{
    trace_flags_need_a_trace, FormatArg, InputArgs, LinksArg, MatrixArg, MaxMemoryArg, MetricArg,
    OrcsCompatArg, PlotArg, PlotRequest, QuietArg, RoutequalArg, SeedArg, ThreadsArg,
    TraceTrafficArgs,
};
use super::values::{decimal, parse_metric, resolve, subset_method, whole, Format};
use super::Request;
use anyhow::{bail, Context, Result};
use clap::Args;
use orcs::engine::metric::MetricKind;
use orcs::engine::request::SimRequest;
use orcs::fabric::input::InputSpec;
use orcs::limits::MemoryLimit;
use orcs::workload::mapping::SubsetMethod;
use orcs::workload::pattern::{Pattern, PatternKind};
use orcs::workload::WorkloadError;

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
    #[command(flatten)]
    pub metric: MetricArg,
    #[command(flatten)]
    pub matrix: MatrixArg,
    #[command(flatten)]
    pub trace_traffic: TraceTrafficArgs,
    /// With -p matrix: ranks placed on each host, consecutive ranks together (default 1).
    #[arg(
        verbatim_doc_comment,
        long = "ppn",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = whole::<u32>
    )]
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
    #[command(flatten)]
    pub routequal: RoutequalArg,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub max_memory: MaxMemoryArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub orcs_compat: OrcsCompatArg,
    #[command(flatten)]
    pub quiet: QuietArg,
    #[command(flatten)]
    pub links: LinksArg,
    #[command(flatten)]
    pub plot: PlotArg,
    /// Overlay the result in FILE (written earlier with --format json) on the --plot as a comparison series; repeat for more.
    #[arg(
        verbatim_doc_comment,
        long = "compare",
        value_name = "FILE",
        requires = "plot"
    )]
    pub compare: Vec<String>,
}

/// A validated simulation request. Fabric-dependent checks (sizes) happen after loading.
#[derive(Debug)]
pub struct SimPlan {
    /// The fabric.
    pub input: InputSpec,
    /// The fabric's file as given (for the header and messages).
    pub input_file: String,
    /// The metric's file (`-`: standard output).
    pub output_file: String,
    /// What the engine simulates.
    pub request: SimRequest,
    /// Whether -z was given (it has no effect on dep_max_delay outside compat mode).
    pub part_commsize_given: bool,
    /// The `Pattern:` header lines, with the -a text as the user wrote it.
    pub pattern_lines: Vec<String>,
    /// --printptrn.
    pub printptrn: bool,
    /// --printnamelist.
    pub printnamelist: bool,
    /// -v.
    pub verbose: bool,
    /// --seed, or None to pick one.
    pub seed: Option<u64>,
    /// The metric's format.
    pub format: Format,
    /// -q.
    pub quiet: bool,
    /// --links: the per-link CSV file.
    pub links_file: Option<String>,
    /// --plot: the plot file, its format and style.
    pub plot: Option<PlotRequest>,
    /// --compare: results to overlay on the plot.
    pub compare: Vec<String>,
    /// The memory the simulation may use.
    pub memory: MemoryLimit,
}

/// A validated `-p matrix` simulation.
#[derive(Debug)]
pub struct MatrixPlan {
    /// The fabric.
    pub input: InputSpec,
    /// The fabric's file as given.
    pub input_file: String,
    /// The metric's file (`-`: standard output).
    pub output_file: String,
    /// The traffic matrix file.
    pub matrix: String,
    /// What of a DUMPI trace counts.
    pub trace_options: orcs::trace::traffic::TrafficOptions,
    /// --ppn.
    pub ranks_per_host: u32,
    /// Monte Carlo runs.
    pub runs: u64,
    /// How the hosts are chosen.
    pub subset: SubsetMethod,
    /// The metric.
    pub metric: MetricKind,
    /// File of host GUIDs placed first.
    pub node_ordering_file: Option<String>,
    /// Reshuffle the ranks per run.
    pub shuffle: bool,
    /// --printnamelist.
    pub printnamelist: bool,
    /// -v.
    pub verbose: bool,
    /// --seed, or None to pick one.
    pub seed: Option<u64>,
    /// The metric's format.
    pub format: Format,
    /// -q.
    pub quiet: bool,
    /// --links: the per-link CSV file.
    pub links_file: Option<String>,
    /// The memory the simulation may use.
    pub memory: MemoryLimit,
}

impl SimArgs {
    /// What the flags ask for: a simulation, a traffic matrix's simulation, the level
    /// count, a pattern's usage or (ORCS's aliases) a route check.
    pub fn into_request(self) -> Result<Request> {
        if self.checkinputfile || self.routequal.routequal {
            return Ok(Request::Check(CheckPlan {
                input: self.input.spec(self.orcs_compat.orcs_compat),
                routequal: self.routequal.routequal,
                deadlock: false,
                format: self.format.get()?,
                output: (OUTPUT_FILE, self.output_file),
            }));
        }
        let wants_matrix = self.matrix.matrix.is_some()
            || (self.ptrn.as_deref()).is_some_and(|p| !p.is_empty() && "matrix".starts_with(p));
        if wants_matrix {
            return self
                .matrix_plan()
                .map(|plan| Request::Matrix(Box::new(plan)));
        }
        if self.trace_traffic.given() {
            bail!("--collectives, --algorithms, --window and --phase apply to -p matrix with a DUMPI trace");
        }
        if self.ppn.is_some() {
            bail!("--ppn applies to -p matrix");
        }
        let pattern = match self.pattern() {
            Ok(p) => p,
            Err(e) => {
                if let Some(help @ WorkloadError::HelpRequested { .. }) = e.downcast_ref() {
                    return Ok(Request::PatternHelp(help.to_string()));
                }
                return Err(e);
            }
        };
        let getnumlevels = self.getnumlevels;
        let plan = Box::new(self.sim_plan(pattern)?);
        Ok(if getnumlevels {
            Request::NumLevels(plan)
        } else {
            Request::Simulate(plan)
        })
    }

    /// The validated simulation of `pattern`.
    fn sim_plan(self, pattern: Pattern) -> Result<SimPlan> {
        let metric = parse_metric(self.metric.metric.as_deref().unwrap_or("hist_max_cong"))?;
        let (subset, part_subset) = self.subsets(&pattern)?;
        if self.num_runs < 1 {
            bail!(
                "--num_runs must be at least 1, got {} (orcs performs exactly the runs requested)",
                self.num_runs
            );
        }
        let level = match self.ptrn_level {
            -1 => None,
            l if l >= 0 => Some(l as usize),
            l => bail!("--ptrn_level must be -1 (all levels) or a level number, got {l}"),
        };
        if level.is_some() && metric == MetricKind::DepMaxDelay {
            bail!("--ptrn_level cannot be combined with --metric dep_max_delay (it evaluates the dependencies between all levels)");
        }
        if self.commsize < 0 {
            bail!(
                "-s/--commsize must be 0 (all hosts) or a host count, got {}",
                self.commsize
            );
        }
        let part_commsize = self.part_commsize.unwrap_or(2);
        if part_commsize < 0 {
            bail!("-z/--part_commsize must be positive, got {part_commsize}");
        }
        let format = self.format.get()?;
        if (self.printptrn || self.printnamelist) && format != Format::Text {
            bail!("--printptrn and --printnamelist print text; they cannot be combined with --format json or csv");
        }
        let pattern_lines = header_lines(&pattern, self.ptrnarg.as_deref());
        let plot = self.plot.get()?;
        let orcs_compat = self.orcs_compat.orcs_compat;
        let request = SimRequest {
            pattern,
            commsize: self.commsize as u64,
            part_commsize: part_commsize as u64,
            level,
            metric,
            runs: self.num_runs as u64,
            subset,
            part_subset,
            // "-" is ORCS's spelling of "no file".
            ordering_file: self.node_ordering_file.filter(|f| f != "-"),
            shuffle: !self.do_not_shuffle,
            orcs_compat,
            links: self.links.links.is_some(),
        };
        Ok(SimPlan {
            input: self.input.spec(orcs_compat),
            input_file: self.input.input_file,
            output_file: self.output_file,
            request,
            part_commsize_given: self.part_commsize.is_some(),
            pattern_lines,
            printptrn: self.printptrn,
            printnamelist: self.printnamelist,
            verbose: self.verbose,
            seed: self.seed.seed,
            format,
            quiet: self.quiet.quiet,
            links_file: self.links.links,
            plot,
            compare: self.compare,
            memory: self.max_memory.get(),
        })
    }

    /// --subset and --part_subset, checked against each other and the pattern.
    fn subsets(&self, pattern: &Pattern) -> Result<(SubsetMethod, Option<SubsetMethod>)> {
        let subset = subset_method("--subset", &self.subset)?;
        let part_names = [
            "rand",
            "linear_bfs",
            "guid_order_asc",
            "guid_order_desc",
            "none",
        ];
        let part_subset = match resolve("--part_subset", &self.part_subset, &part_names)? {
            "none" => None,
            name => Some(subset_method("--part_subset", name)?),
        };
        if part_subset.is_some() && pattern.kind() != PatternKind::PtrnVsPtrn {
            bail!("--part_subset can only be used with the ptrnvsptrn pattern");
        }
        if part_subset == Some(SubsetMethod::LinearBfs) && subset != SubsetMethod::LinearBfs {
            bail!("--part_subset linear_bfs requires --subset linear_bfs as well");
        }
        Ok((subset, part_subset))
    }

    /// The pattern from -p/-a, or from the ORCS 1 form -f/-c.
    fn pattern(&self) -> Result<Pattern> {
        let name = self.ptrn.as_deref().unwrap_or("bisect");
        if self.ptrnfst.is_none() && self.ptrnsec.is_none() {
            return Pattern::parse(name, self.ptrnarg.as_deref())
                .context("invalid -p/--ptrn or -a/--ptrnarg");
        }
        let (kind, _) = PatternKind::parse_name(name).context("invalid value for -p/--ptrn")?;
        if kind != PatternKind::PtrnVsPtrn {
            bail!("-f/--ptrnfst and -c/--ptrnsec require -p ptrnvsptrn");
        }
        if self.ptrnarg.is_some() {
            bail!("-a/--ptrnarg cannot be combined with -f/--ptrnfst or -c/--ptrnsec");
        }
        let part = |flag: &str, v: &Option<String>| -> Result<Pattern> {
            let v = v.as_deref().unwrap_or("bisect");
            Pattern::parse(v, None).with_context(|| format!("invalid value for {flag}"))
        };
        let first = part("-f/--ptrnfst", &self.ptrnfst)?;
        let second = part("-c/--ptrnsec", &self.ptrnsec)?;
        Ok(Pattern::ptrnvsptrn(first, second))
    }

    /// Validates the flags of `-p matrix`: the flags of unit-weight patterns that have no
    /// meaning for a matrix are refused by name.
    fn matrix_plan(self) -> Result<MatrixPlan> {
        if let Some(p) = self.ptrn.as_deref().filter(|p| !"matrix".starts_with(p)) {
            bail!("--matrix is the traffic of -p matrix; it cannot be combined with -p {p}");
        }
        let Some(matrix) = self.matrix.matrix.clone() else {
            bail!(
                "-p matrix needs --matrix FILE (a PFProf trace, CSV, Matrix Market or JSON matrix, or a DUMPI trace's .meta file)"
            );
        };
        if let Some((_, flag)) = self.matrix_refused().iter().find(|(given, _)| *given) {
            bail!("{flag} does not apply to -p matrix");
        }
        let metric = parse_metric(self.metric.metric.as_deref().unwrap_or("sum_max_cong"))?;
        if matches!(metric, MetricKind::HistMaxCong | MetricKind::DepMaxDelay) {
            bail!("--metric {metric} counts unit-weight messages; with -p matrix use sum_max_cong (largest link load in bytes), hist_acc_band (byte-weighted bandwidth fraction) or get_cable_cong (bytes per link)");
        }
        if self.num_runs < 1 {
            bail!("--num_runs must be at least 1, got {}", self.num_runs);
        }
        if self.ppn == Some(0) {
            bail!("--ppn must be at least 1");
        }
        let format = self.format.get()?;
        if self.printnamelist && format != Format::Text {
            bail!("--printnamelist prints text; it cannot be combined with --format json or csv");
        }
        trace_flags_need_a_trace(&self.trace_traffic, &matrix)?;
        Ok(MatrixPlan {
            trace_options: self.trace_traffic.options()?,
            input: self.input.spec(false),
            input_file: self.input.input_file,
            output_file: self.output_file,
            matrix,
            ranks_per_host: self.ppn.unwrap_or(1),
            runs: self.num_runs as u64,
            subset: subset_method("--subset", &self.subset)?,
            metric,
            node_ordering_file: self.node_ordering_file.filter(|f| f != "-"),
            shuffle: !self.do_not_shuffle,
            printnamelist: self.printnamelist,
            verbose: self.verbose,
            seed: self.seed.seed,
            format,
            quiet: self.quiet.quiet,
            links_file: self.links.links,
            memory: self.max_memory.get(),
        })
    }

    /// The flags of unit-weight patterns, whether given and how to name them.
    fn matrix_refused(&self) -> [(bool, &'static str); 10] {
        [
            (self.ptrnarg.is_some(), "-a/--ptrnarg"),
            (
                self.ptrnfst.is_some() || self.ptrnsec.is_some(),
                "-f/--ptrnfst and -c/--ptrnsec",
            ),
            (
                self.ptrn_level != -1,
                "-l/--ptrn_level (a matrix is one level)",
            ),
            (self.part_commsize.is_some(), "-z/--part_commsize"),
            (self.part_subset != "none", "--part_subset"),
            (
                self.commsize != 0,
                "-s/--commsize (the matrix's ranks and --ppn decide the hosts)",
            ),
            (self.printptrn, "--printptrn (use --printnamelist)"),
            (
                self.getnumlevels,
                "-g/--getnumlevels (a matrix is one level)",
            ),
            (
                self.orcs_compat.orcs_compat,
                "--orcs-compat (ORCS has no traffic matrices)",
            ),
            (self.plot.plot.is_some(), "--plot"),
        ]
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
