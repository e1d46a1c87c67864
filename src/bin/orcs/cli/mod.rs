//! Command-line flags (clap) and their translation into one validated [`Invocation`].
//! One file per command holds its flags, its validated plan and the conversion; flags
//! that several commands take are declared once in [`shared`]. Nothing outside this
//! folder sees clap types, and the library never does.

pub mod check;
pub mod convert;
pub mod files;
pub mod gen;
pub mod jobs;
pub mod map;
pub mod plot;
pub mod profile;
pub mod queue;
pub mod report;
pub mod scan;
pub mod shared;
pub mod sim;
pub mod tasks;
pub mod trace;
pub mod traffic;
pub mod values;

use anyhow::Result;
use clap::{ArgAction, CommandFactory, Parser, Subcommand, ValueEnum};

/// `orcs --version`: the version, and the commit it was built from and the features
/// when the build script told them.
fn version() -> String {
    match option_env!("ORCS_BUILD_INFO") {
        Some(info) => format!("{} ({info})", env!("CARGO_PKG_VERSION")),
        None => env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Oblivious routing congestion simulator for HPC interconnects.
///
/// Maps a communication pattern randomly onto the hosts of a routed fabric, many times,
/// routes every message through the fabric's forwarding tables and reports how much
/// bandwidth the pattern gets. Flags and output follow the original ORCS simulator.
#[derive(Debug, Parser)]
#[command(
    name = "orcs",
    version = version(),
    about,
    args_conflicts_with_subcommands = true,
    infer_long_args = true,
    disable_help_flag = true,
    disable_version_flag = true,
    disable_help_subcommand = true,
    after_help = "Exit status: 0 success; 1 bad flags, unreadable or invalid input, an output \
                  that cannot be written, or broken routing; 2 `orcs check`, `orcs convert` \
                  or `orcs gen` found broken routes; 101 an internal error (a bug: please \
                  report it)."
)]
pub struct Cli {
    /// Print this help and exit.
    #[arg(verbatim_doc_comment, short = 'h', long = "help", alias = "full-help", action = ArgAction::Help, global = true)]
    help: Option<bool>,
    /// Print the version and exit.
    #[arg(verbatim_doc_comment, short = 'V', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    sim: sim::SimArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Verify that every host pair of a fabric is routed, without loops or dead ends, and
    /// print path-length and per-link route statistics.
    Check(check::CheckArgs),
    /// Convert a fabric between formats: InfiniBand dumps or routed dot in; routed dot,
    /// binary cache (.orcsfab), ibsim net or GraphML out.
    Convert(convert::ConvertArgs),
    /// Generate a topology (fat tree, XGFT, mesh, torus, hypercube, HyperX, dragonfly,
    /// Jellyfish), route it, and write it as dot, .orcsfab, ibsim net or GraphML.
    Gen(gen::GenArgs),
    /// Draw the congestion map of a get_cable_cong result (JSON, or the dot written with
    /// -o) as SVG or PNG: every cable colored by its scaled congestion.
    Map(map::MapArgs),
    /// Plot the distribution of a metric from results written with --format json, several
    /// overlaid for comparison.
    Plot(plot::PlotArgs),
    /// Write one self-contained HTML page with the parameters, statistics, histograms and
    /// congestion maps of results written with --format json.
    Report(report::ReportArgs),
    /// Place one application's profiled traffic matrix on a cluster (PFSim's model) and
    /// report the link loads for every combination of node selection, process placement
    /// and routing asked for.
    Traffic(traffic::TrafficArgs),
    /// Run a PFSim-style scenario (YAML): jobs arrive, queue (FCFS), are placed and routed
    /// when they start and leave when they end; report link loads over time, waiting and
    /// response times for every combination of the listed algorithms.
    Jobs(jobs::JobsArgs),
    /// Run a batch of simulations from a TOML plan (fabrics × patterns × sizes × metrics)
    /// into checksummed JSON lines that a restarted scan completes; shard it over a
    /// cluster and merge the parts.
    Scan(scan::ScanArgs),
    /// Mean message latency of a multi-cluster system from its queueing model (Javadi et
    /// al., ICCS 2005): per-network waiting and transfer times, sweeps over C, λ or M with
    /// blocking and non-blocking networks, plots, and a discrete-event simulation check.
    Queue(Box<queue::QueueArgs>),
    /// MPI traces (SST DUMPI): `orcs trace dump` prints one as text, byte for byte as
    /// sst-dumpi's dumpi2ascii does.
    Trace(trace::TraceArgs),
    /// The synthetic task model (Rumley et al.): task trees, their footprints and loads, and root tasks executed by a central or a work-stealing scheduler on a crossbar or a routed fabric whose links the messages share.
    Tasks(Box<tasks::TasksArgs>),
    /// Run an MPI application with the profiling library preloaded into its ranks
    /// (`orcs profile -- mpirun -n 8 ./app`): what each rank sends to each other,
    /// collectives modelled, as matrices `-p matrix --traffic` reads.
    Profile(profile::ProfileArgs),
    /// Print a shell completion script for orcs's commands and flags, e.g.
    /// `orcs completions bash > /etc/bash_completion.d/orcs`.
    Completions(CompletionsArgs),
    /// Print the manual page of orcs, or of one command (`orcs man scan`), in roff:
    /// `orcs man | man -l -`.
    Man(ManArgs),
}

/// Flags of `orcs completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(verbatim_doc_comment, value_enum)]
    shell: Shell,
}

/// The shells `orcs completions` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

/// Flags of `orcs man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The command whose page to print (default: orcs itself).
    #[arg(verbatim_doc_comment, value_name = "COMMAND")]
    command: Option<String>,
}

/// The completion script for `shell`.
fn completions(shell: Shell) -> Vec<u8> {
    use clap_complete::Shell as S;
    let shell = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Elvish => S::Elvish,
        Shell::Powershell => S::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "orcs", &mut out);
    out
}

/// The roff manual page of orcs or of its command `command`.
fn man_page(command: Option<&str>) -> Result<Vec<u8>> {
    let mut cli = Cli::command();
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => {
            let names: Vec<String> = cli
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let sub = cli.find_subcommand(name).cloned().ok_or_else(|| {
                anyhow::anyhow!("no command '{name}' (the commands: {})", names.join(", "))
            })?;
            let full = format!("orcs-{name}");
            sub.name(full.clone()).bin_name(full)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(out)
}

/// What the user asked for, validated as far as possible without reading any input.
#[derive(Debug)]
pub struct Invocation {
    /// Size of the worker pool (None: all cores).
    pub threads: Option<usize>,
    /// The command.
    pub request: Request,
}

/// One command with its validated flags.
#[derive(Debug)]
pub enum Request {
    /// Simulate.
    Simulate(Box<sim::SimPlan>),
    /// Print the number of levels.
    NumLevels(Box<sim::SimPlan>),
    /// Print a pattern's usage (`-a help`).
    PatternHelp(String),
    /// Simulate a traffic matrix with the Monte Carlo engine.
    Matrix(Box<sim::MatrixPlan>),
    /// Check the routing.
    Check(check::CheckPlan),
    /// Convert a fabric.
    Convert(convert::ConvertPlan),
    /// Generate a fabric.
    Gen(gen::GenPlan),
    /// Draw a congestion map.
    Map(map::MapPlan),
    /// Plot results.
    Plot(plot::PlotPlan),
    /// Write an HTML report.
    Report(report::ReportPlan),
    /// Place and route an application's traffic.
    Traffic(traffic::TrafficPlan),
    /// Run a job scenario.
    Jobs(jobs::JobsPlan),
    /// Run, resume or merge a batch scan.
    Scan(scan::ScanPlan),
    /// Evaluate the multi-cluster queueing model.
    Queue(Box<queue::QueuePlan>),
    /// Read an MPI trace.
    Trace(trace::TracePlan),
    /// Describe or simulate a task model.
    Tasks(tasks::TasksPlan),
    /// Profile an MPI application.
    Profile(profile::ProfilePlan),
    /// Print generated text (a completion script, a manual page) on standard output.
    Print(Vec<u8>),
}

impl Request {
    /// Whether the command shares its work over the ranks of `mpirun` (the others run on
    /// rank 0 alone).
    pub fn is_shared(&self) -> bool {
        matches!(
            self,
            Request::Simulate(_)
                | Request::Matrix(_)
                | Request::Scan(_)
                | Request::Tasks(tasks::TasksPlan::Run(_) | tasks::TasksPlan::Sweep(_))
                | Request::Trace(trace::TracePlan::Classify(_))
        )
    }
}

impl Cli {
    /// Validates the flags; errors quote the offending flag.
    pub fn into_invocation(self) -> Result<Invocation> {
        let threads = self.threads().map(shared::ThreadsArg::get).transpose()?;
        let request = match self.command {
            Some(Command::Check(c)) => Request::Check(c.into_plan()?),
            Some(Command::Convert(c)) => Request::Convert(c.into_plan()?),
            Some(Command::Gen(g)) => Request::Gen(g.into_plan()?),
            Some(Command::Map(m)) => Request::Map(m.into_plan()?),
            Some(Command::Plot(p)) => Request::Plot(p.into_plan()?),
            Some(Command::Report(r)) => Request::Report(r.into_plan()),
            Some(Command::Traffic(t)) => Request::Traffic(t.into_plan()?),
            Some(Command::Jobs(j)) => Request::Jobs(j.into_plan()?),
            Some(Command::Scan(s)) => Request::Scan(s.into_plan()?),
            Some(Command::Queue(q)) => Request::Queue(Box::new(q.into_plan()?)),
            Some(Command::Trace(t)) => Request::Trace(t.into_plan()?),
            Some(Command::Tasks(t)) => Request::Tasks(t.into_plan()?),
            Some(Command::Profile(p)) => Request::Profile(p.into_plan()?),
            Some(Command::Completions(c)) => Request::Print(completions(c.shell)),
            Some(Command::Man(m)) => Request::Print(man_page(m.command.as_deref())?),
            None => self.sim.into_request()?,
        };
        Ok(Invocation {
            threads: threads.flatten(),
            request,
        })
    }

    /// The -j flag of the command, for those that take one.
    fn threads(&self) -> Option<&shared::ThreadsArg> {
        match &self.command {
            Some(Command::Check(c)) => Some(&c.threads),
            Some(Command::Convert(c)) => Some(&c.threads),
            Some(Command::Gen(g)) => Some(&g.threads),
            Some(Command::Jobs(j)) => Some(&j.threads),
            Some(Command::Scan(s)) => Some(&s.threads),
            Some(Command::Queue(q)) => Some(&q.threads),
            Some(Command::Trace(t)) => t.threads(),
            Some(Command::Tasks(t)) => t.threads(),
            Some(
                Command::Map(_)
                | Command::Plot(_)
                | Command::Report(_)
                | Command::Traffic(_)
                | Command::Profile(_)
                | Command::Completions(_)
                | Command::Man(_),
            ) => None,
            None => Some(&self.sim.threads),
        }
    }
}
