//! `orcs trace`: MPI traces (DUMPI). `orcs trace dump` prints a trace as the reference
//! `dumpi2ascii -H -S -F -X` does; `orcs trace stats` summarises it like `dumpistats`;
//! `orcs trace matrix` writes its traffic matrix.

use super::shared::{FormatArg, OutputArg, TraceTrafficArgs};
use super::values::{resolve, whole, Format};
use anyhow::Result;
use clap::{Args, Subcommand};
use orcs::trace::traffic::TrafficOptions;

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
    /// Write the traffic matrix of a DUMPI trace: bytes and messages every world rank sends every other, with communicators translated to world ranks, one-sided puts, accumulates and gets, and collectives expanded into the point-to-point messages of MPICH's algorithms (or left out).
    Matrix(MatrixArgs),
}

/// Flags of `orcs trace matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub trace: TraceArg,
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
            TraceCommand::Stats(s) => TracePlan::Stats(StatsPlan {
                trace: s.trace.trace,
                rank: s.rank.rank,
                format: s.format.get()?,
                output: s.output.output,
            }),
        })
    }
}
