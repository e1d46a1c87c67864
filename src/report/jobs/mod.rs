//! The outputs of scenario runs (`orcs jobs`), one format per file: the summary table
//! ([`text`]), JSON ([`json`]), CSV ([`csv`]) and the per-run folder of PFSim's
//! `result.txt` and one CSV per metric ([`files`]).
//!
//! This folder owns [`RunReport`], a finished run with the statistics every format
//! shows. It may use the scenarios, runs and statistics of [`crate::cluster::jobs`].

mod csv;
mod files;
mod json;
mod text;

pub use self::csv::jobs_csv;
pub use files::run_files;
pub use json::jobs_json;
pub use text::jobs_text;

use crate::cluster::jobs::{RunResult, RunSpec, Stats};

/// A finished run with its statistics.
pub struct RunReport<'a> {
    /// The cell.
    pub spec: &'a RunSpec,
    /// What it recorded.
    pub result: &'a RunResult,
    /// Statistics of each of [`SERIES`](crate::cluster::jobs::SERIES).
    pub series: Vec<Option<Stats>>,
    /// Statistics of each of [`SAMPLES`](crate::cluster::jobs::SAMPLES).
    pub samples: Vec<Option<Stats>>,
}

impl<'a> RunReport<'a> {
    /// Statistics of `result` over `horizon` (PFSim's rules with `pfsim_compat`).
    pub fn new(spec: &'a RunSpec, result: &'a RunResult, horizon: f64, pfsim_compat: bool) -> Self {
        RunReport {
            spec,
            result,
            series: result
                .series
                .iter()
                .map(|s| Stats::of_series(s, horizon, pfsim_compat))
                .collect(),
            samples: result
                .samples
                .iter()
                .map(|s| Stats::of_samples(s))
                .collect(),
        }
    }
}
