//! Turning results into bytes, one format per file. Exporters only format: every number
//! they print is a field of a result or comes from [`crate::engine::metric`], the one
//! owner of the metrics' arithmetic.
//!
//! The Monte Carlo simulation's outputs (ORCS's text blocks of spec §7 and §9.1, JSON,
//! CSV, the per-link table and the get_cable_cong congestion map as dot) and those of
//! `orcs check` are the crate's main reports and are reached from here; [`matrix`],
//! [`jobs`], [`queue`], [`traffic`], [`scan`], [`tasks`] and [`trace`] hold those of the other commands, and
//! [`results`] reads the simulation's JSON back (as a document, or built in memory from
//! a result). This file owns what every format shares: the schema version, and CSV
//! quoting from [`crate::escape`].
//!
//! May use: the results of every capability ([`crate::engine`], [`crate::routing`],
//! [`crate::cluster`], [`crate::queueing`], [`crate::scan`], [`crate::tasks`], [`crate::trace`]), what they describe
//! ([`crate::fabric`], [`crate::workload`]) and the congestion colors of
//! [`crate::viz::draw`].

mod check;
pub mod jobs;
pub mod matrix;
pub mod queue;
pub mod results;
pub mod scan;
mod sim;
pub mod tasks;
pub mod trace;
pub mod traffic;

pub use check::{check_csv, check_json, check_text, deadlock_text, routequal_text, CheckReport};
pub use sim::{
    compat_preamble, csv_report, echo_block, header, json_report, links_csv, metric_text,
    summary_line, write_cable_dot, write_runs, RunInfo,
};
pub(crate) use sim::{congestion_color, hist_acc_band_text};

/// Version of the JSON and CSV layouts; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Up to four significant digits, without trailing zeros.
pub(crate) fn significant(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let digits = if x.abs() >= 1000.0 {
        0
    } else if x.abs() >= 100.0 {
        1
    } else if x.abs() >= 10.0 {
        2
    } else {
        3
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

pub(crate) use crate::escape::csv_field;

/// The JSON text of an exporter's document: pretty-printed, ending with a newline.
pub(crate) fn json_text(doc: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}
