//! `orcs trace`: MPI traces (DUMPI). `orcs trace dump` prints a trace as the reference
//! `dumpi2ascii -H -S -F -X` does; `orcs trace matrix` writes its traffic matrix.

use super::shared::OutputArg;
use super::values::{resolve, whole};
use anyhow::Result;
use clap::{Args, Subcommand};
use orcs::trace::collective::AlgorithmChoice;
use orcs::trace::traffic::{Collectives, TrafficOptions, Window};

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
    /// Write the traffic matrix of a DUMPI trace: bytes and messages every world rank sends every other, with communicators translated to world ranks, one-sided puts, accumulates and gets, and collectives expanded into the point-to-point messages of MPICH's algorithms (or left out).
    Matrix(MatrixArgs),
}

/// Flags of `orcs trace matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub trace: TraceArg,
    #[command(flatten)]
    pub traffic: TrafficArgs,
    /// Output format: csv (src,dst,bytes,messages rows), mtx (Matrix Market), json (sparse matrix with message counts) or pfprof (a .tar.gz of per-rank PFProf JSON files) (default: from the output file's extension, else csv).
    #[arg(verbatim_doc_comment, long = "format", value_name = "FORMAT")]
    pub format: Option<String>,
    #[command(flatten)]
    pub output: OutputArg,
}

/// What of a trace counts as traffic: collectives, time window, phase.
#[derive(Debug, Args)]
pub struct TrafficArgs {
    /// Collective operations: expand (into the point-to-point messages of their algorithm) or exclude.
    #[arg(
        verbatim_doc_comment,
        long = "collectives",
        value_name = "MODE",
        default_value = "expand"
    )]
    pub collectives: String,
    /// Force collective algorithms, e.g. bcast=binomial,allreduce=rabenseifner (default: MPICH's choice by communicator and message size).
    #[arg(
        verbatim_doc_comment,
        long = "algorithms",
        value_name = "OP=ALG,...",
        value_parser = parse_algorithms
    )]
    pub algorithms: Option<AlgorithmChoice>,
    /// Only calls that start in this window, in seconds after the trace's start time (START:END, START: or :END).
    #[arg(
        verbatim_doc_comment,
        long = "window",
        value_name = "START:END",
        value_parser = parse_window
    )]
    pub window: Option<Window>,
    /// Only calls after an MPI_Pcontrol annotation with this text, up to the next annotation.
    #[arg(verbatim_doc_comment, long = "phase", value_name = "TEXT")]
    pub phase: Option<String>,
}

fn parse_algorithms(text: &str) -> Result<AlgorithmChoice, String> {
    AlgorithmChoice::parse(text).map_err(|e| e.to_string())
}

/// `START:END` in seconds (either side may be empty) as a window in ns.
fn parse_window(text: &str) -> Result<Window, String> {
    let Some((a, b)) = text.split_once(':') else {
        return Err("expected START:END in seconds (START: and :END leave a side open)".into());
    };
    let seconds = |s: &str, open: i64| -> Result<i64, String> {
        if s.trim().is_empty() {
            return Ok(open);
        }
        match s.trim().parse::<f64>() {
            Ok(v) if (0.0..9.0e9).contains(&v) => Ok((v * 1e9).round() as i64),
            _ => Err(format!("'{s}' is not a number of seconds (0 or more)")),
        }
    };
    let window = Window {
        start_ns: seconds(a, 0)?,
        end_ns: seconds(b, i64::MAX)?,
    };
    if window.start_ns >= window.end_ns {
        return Err(format!(
            "the window {text} is empty: END must be after START"
        ));
    }
    Ok(window)
}

impl TrafficArgs {
    /// The validated options.
    pub fn options(self) -> Result<TrafficOptions> {
        let mode = resolve("--collectives", &self.collectives, &["expand", "exclude"])?;
        let collectives = match (mode, self.algorithms) {
            ("exclude", Some(_)) => {
                anyhow::bail!("--algorithms chooses how collectives expand: it cannot go with --collectives exclude")
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
        })
    }
}
