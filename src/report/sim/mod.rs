//! The outputs of the Monte Carlo simulation (`orcs -i`), one format per file: ORCS's
//! text blocks ([`text`]), the JSON document ([`json`]), the CSV table ([`csv`]), the
//! `--links` table ([`links`]) and get_cable_cong's congestion map as dot ([`dot_map`]).
//!
//! This folder owns [`RunInfo`], the parameters every format describes. It may use the
//! simulation's outcome ([`crate::engine::unit`]) and the metrics' arithmetic
//! ([`crate::engine::metric`]), the fabric the results are about, and the pattern's
//! levels for the per-run listings.

mod csv;
mod dot_map;
mod json;
mod links;
mod text;

pub use self::csv::csv_report;
pub(crate) use dot_map::congestion_color;
pub use dot_map::write_cable_dot;
pub use json::json_report;
pub use links::links_csv;
pub(crate) use text::hist_acc_band_text;
pub use text::{compat_preamble, echo_block, header, metric_text, summary_line, write_runs};

use crate::engine::metric::MetricKind;
use serde::Serialize;

/// The parameters of a simulation as the header shows them (spec §9.1).
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// Input file as given.
    pub input_file: String,
    /// Output file as given (`-` = standard output).
    pub output_file: String,
    /// The `Pattern:` line(s) of the header, without the trailing newline.
    pub pattern_lines: Vec<String>,
    /// Pattern name.
    pub pattern: String,
    /// Resolved communicator size.
    pub commsize: usize,
    /// `-z` value.
    pub part_commsize: usize,
    /// Subset method.
    pub subset: String,
    /// Part subset method or `none`.
    pub part_subset: String,
    /// `-l` value (−1 = all levels).
    pub level: i64,
    /// Number of runs.
    pub runs: u64,
    /// Metric name.
    pub metric: MetricKind,
    /// Whether ranks are reshuffled per run.
    pub shuffle: bool,
    /// Seed of every random stream.
    pub seed: u64,
    /// Hosts in the communicator.
    pub subset_hosts: usize,
    /// Hosts in the fabric.
    pub fabric_hosts: usize,
    /// Switches in the fabric.
    pub fabric_switches: usize,
    /// Directed edges in the fabric.
    pub fabric_edges: usize,
    /// ORCS's exact header: no `Seed:` line.
    #[serde(skip)]
    pub orcs_compat: bool,
}
