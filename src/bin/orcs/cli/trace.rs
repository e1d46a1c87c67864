//! `orcs trace`: MPI traces (DUMPI). `orcs trace dump` prints a trace as the reference
//! `dumpi2ascii -H -S -F -X` does; `orcs trace stats` summarises it like `dumpistats`.

use super::shared::{FormatArg, OutputArg};
use super::values::{whole, Format};
use anyhow::Result;
use clap::{Args, Subcommand};

/// Flags of `orcs trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
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
            TraceCommand::Stats(s) => TracePlan::Stats(StatsPlan {
                trace: s.trace.trace,
                rank: s.rank.rank,
                format: s.format.get()?,
                output: s.output.output,
            }),
        })
    }
}
