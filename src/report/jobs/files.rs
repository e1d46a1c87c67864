//! The per-run folder of `orcs jobs`, as PFSim writes it: `result.txt` with the run's
//! parameters and statistics, and one CSV per metric.

use super::RunReport;
use crate::cluster::jobs::{Scenario, SAMPLES, SERIES};
use std::fmt::Write as _;

/// The files of one run's folder: `result.txt` and one CSV per metric named as PFSim
/// names them (`Maximum Congestion.csv`: `Time,Value`; samples: `Value`). Series keep
/// their last sample unless `pfsim_compat`.
pub fn run_files(scenario: &Scenario, r: &RunReport, pfsim_compat: bool) -> Vec<(String, String)> {
    let mut files = vec![("result.txt".to_string(), result_text(scenario, r))];
    for (name, series) in SERIES.iter().zip(&r.result.series) {
        let keep = series.values.len() - usize::from(pfsim_compat && !series.values.is_empty());
        let mut csv = String::from("Time,Value\n");
        for i in 0..keep {
            let _ = writeln!(csv, "{},{}", series.times[i], series.values[i]);
        }
        files.push((format!("{name}.csv"), csv));
    }
    for (name, samples) in SAMPLES.iter().zip(&r.result.samples) {
        let mut csv = String::from("Value\n");
        for v in samples {
            let _ = writeln!(csv, "{v}");
        }
        files.push((format!("{name}.csv"), csv));
    }
    files
}

/// PFSim's `result.txt`: the scenario's parameters, the job counts and every metric's
/// statistics.
fn result_text(scenario: &Scenario, r: &RunReport) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "Simulation Scenario");
    let _ = writeln!(text, "  Duration: {}", scenario.duration);
    let _ = writeln!(
        text,
        "  Cluster Topology: {}",
        scenario.topologies[r.spec.topology].0
    );
    let _ = writeln!(text, "  Scheduler: {}", r.spec.scheduler);
    let _ = writeln!(text, "  Host Selection Algorithm: {}", r.spec.selector);
    let _ = writeln!(text, "  Process Mapping Algorithm: {}", r.spec.mapper);
    let _ = writeln!(text, "  Routing Algorithm: {}", r.spec.router);
    let _ = writeln!(
        text,
        "Jobs: {} submitted, {} started, {} finished",
        r.result.submitted, r.result.started, r.result.finished
    );
    for (name, st) in SERIES
        .iter()
        .zip(&r.series)
        .chain(SAMPLES.iter().zip(&r.samples))
    {
        let _ = writeln!(text, "{name}");
        match st {
            Some(x) => {
                let _ = writeln!(
                    text,
                    "  Max: {}\n  Min: {}\n  Mean: {}\n  Count: {}\n  Variance: {}",
                    x.max, x.min, x.mean, x.count, x.variance
                );
            }
            None => text.push_str("  (no values)\n"),
        }
    }
    text
}
