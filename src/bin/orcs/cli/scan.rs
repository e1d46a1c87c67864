//! `orcs scan`: a batch of simulations from a plan, resumed, sharded or merged.

use super::shared::{MaxMemoryArg, OutputArg, QuietArg, ThreadsArg};
use anyhow::{bail, Result};
use clap::Args;
use orcs::limits::MemoryLimit;

/// Flags of `orcs scan`.
#[derive(Debug, Args)]
#[command(
    mut_arg("output", |a| a.help("The results file (JSON lines), appended to and resumed (default: the plan's name with .jsonl).")),
    mut_arg("threads", |a| a.help("Number of worker threads (default: all cores); results do not depend on it.")),
    mut_arg("quiet", |a| a.help("Print no progress or summary on standard error."))
)]
pub struct ScanArgs {
    /// The plan (TOML; the README shows its keys). Not used with --merge.
    #[arg(verbatim_doc_comment, value_name = "PLAN")]
    pub plan: Option<String>,
    #[command(flatten)]
    pub output: OutputArg,
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
    /// With --merge: write the results even when cells of the plan have no record (they are named on standard error); without it that is an error.
    #[arg(verbatim_doc_comment, long = "allow-partial")]
    pub allow_partial: bool,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub max_memory: MaxMemoryArg,
    #[command(flatten)]
    pub quiet: QuietArg,
}

/// A validated `orcs scan` request.
#[derive(Debug)]
pub struct ScanPlan {
    /// The plan file, or None when merging.
    pub plan: Option<String>,
    /// The results file.
    pub output: String,
    /// The CSV summary.
    pub csv: String,
    /// Only print the cells and estimates.
    pub dry_run: bool,
    /// (I, N), 1-based.
    pub shard: Option<(usize, usize)>,
    /// Results files to merge instead of running.
    pub merge: Vec<String>,
    /// Merge even when cells have no record.
    pub allow_partial: bool,
    /// Nothing on standard error but warnings.
    pub quiet: bool,
    /// The memory the run may use.
    pub memory: MemoryLimit,
}

impl ScanArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<ScanPlan> {
        let shard = self.shard.as_deref().map(parse_shard).transpose()?;
        let output = match (self.output.output, &self.plan) {
            (Some(o), _) => o,
            (None, Some(p)) if self.merge.is_empty() => {
                let base = p.strip_suffix(".toml").unwrap_or(p);
                match shard {
                    Some((i, n)) => format!("{base}.{i}of{n}.jsonl"),
                    None => format!("{base}.jsonl"),
                }
            }
            _ => bail!("--merge needs -o/--output FILE for the merged results"),
        };
        if !self.merge.is_empty() && (self.plan.is_some() || self.dry_run || shard.is_some()) {
            bail!("--merge combines results files; it takes no plan, --dry-run or --shard");
        }
        if self.allow_partial && self.merge.is_empty() {
            bail!("--allow-partial applies to --merge");
        }
        if self.merge.is_empty() && self.plan.is_none() {
            bail!("orcs scan needs a PLAN file (or --merge FILES -o OUT)");
        }
        let csv = self
            .csv
            .unwrap_or_else(|| format!("{}.csv", output.strip_suffix(".jsonl").unwrap_or(&output)));
        Ok(ScanPlan {
            plan: self.plan,
            output,
            csv,
            dry_run: self.dry_run,
            shard,
            merge: self.merge,
            allow_partial: self.allow_partial,
            quiet: self.quiet.quiet,
            memory: self.max_memory.get(),
        })
    }
}

/// `--shard I/N` with 1 ≤ I ≤ N.
fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
        .filter(|&(i, n)| n >= 1 && (1..=n).contains(&i));
    match parsed {
        Some(p) => Ok(p),
        None => bail!("--shard '{text}': expected I/N with 1 <= I <= N, e.g. 2/8"),
    }
}
