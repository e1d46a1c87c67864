//! `orcs jobs`: a PFSim-style scenario of jobs over time.

use super::shared::{FormatArg, MaxMemoryArg, OutputArg, QuietArg, SeedArg, ThreadsArg};
use super::values::Format;
use anyhow::Result;
use clap::Args;
use orcs::limits::MemoryLimit;

/// Flags of `orcs jobs`.
#[derive(Debug, Args)]
#[command(
    mut_arg("seed", |a| a.help("Seed of every random stream (default: the scenario's `seed` key, else 0).")),
    mut_arg("output", |a| a.help("Also write each run's result.txt and one CSV per metric into DIR/<run id>/.").value_name("DIR")),
    mut_arg("format", |a| a.help("Format of the summary on standard output: text, json or csv.")),
    mut_arg("threads", |a| a.help("Number of worker threads (default: all cores); runs are independent and the output does not depend on it.")),
    mut_arg("quiet", |a| a.help("Print no progress on standard error."))
)]
pub struct JobsArgs {
    /// The scenario file (PFSim's YAML schema; paths inside are relative to it).
    #[arg(verbatim_doc_comment, value_name = "SCENARIO")]
    pub scenario: String,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub format: FormatArg,
    /// Reproduce PFSim's quirks: at most one queued job starts per job end, the last sample of each time series is dropped, and the greedy routers keep PFSim's route cache, whose return routes are never dropped.
    #[arg(verbatim_doc_comment, long = "pfsim-compat")]
    pub pfsim_compat: bool,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub max_memory: MaxMemoryArg,
    #[command(flatten)]
    pub quiet: QuietArg,
}

/// A validated `orcs jobs` request.
#[derive(Debug)]
pub struct JobsPlan {
    /// The scenario file.
    pub scenario: String,
    /// The seed, or None for the scenario's.
    pub seed: Option<u64>,
    /// The folder of the run folders.
    pub output: Option<String>,
    /// The summary's format.
    pub format: Format,
    /// PFSim's quirks.
    pub pfsim_compat: bool,
    /// No progress bar.
    pub quiet: bool,
    /// The memory the run may use.
    pub memory: MemoryLimit,
}

impl JobsArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<JobsPlan> {
        Ok(JobsPlan {
            format: self.format.get()?,
            scenario: self.scenario,
            seed: self.seed.seed,
            output: self.output.output,
            pfsim_compat: self.pfsim_compat,
            quiet: self.quiet.quiet,
            memory: self.max_memory.get(),
        })
    }
}
