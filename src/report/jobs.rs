//! Turning scenario runs (`orcs jobs`) into bytes: the summary table, JSON, CSV, and
//! the per-run folder (PFSim's `result.txt` items and one CSV per metric).

use crate::cluster::jobs::{RunResult, RunSpec, Scenario, Stats, SAMPLES, SERIES};
use serde::Serialize;
use std::fmt::Write as _;

/// A finished run with its statistics.
pub struct RunReport<'a> {
    /// The cell.
    pub spec: &'a RunSpec,
    /// What it recorded.
    pub result: &'a RunResult,
    /// Statistics of each of [`SERIES`].
    pub series: Vec<Option<Stats>>,
    /// Statistics of each of [`SAMPLES`].
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

fn stat(s: &Option<Stats>, f: impl Fn(&Stats) -> f64) -> f64 {
    s.as_ref().map_or(f64::NAN, f)
}

/// The summary table: one line per run.
pub fn jobs_text(scenario: &Scenario, seed: u64, reports: &[RunReport]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Scenario: {} ({} runs, horizon {}, {} job streams, seed {seed})",
        scenario.path,
        reports.len(),
        scenario.duration,
        scenario.jobs.len()
    );
    for (i, (label, _)) in scenario.topologies.iter().enumerate() {
        let _ = writeln!(s, "Topology {i}: {label}");
    }
    s.push('\n');
    let _ = writeln!(
        s,
        "{:>3} {:>4} {:<15} {:<7} {:<12} {:>16} {:>16} {:>16} {:>9} {:>8} {:>10} {:>10}",
        "id",
        "topo",
        "selector",
        "mapper",
        "router",
        "max(MaxCong)",
        "mean(MaxCong)",
        "max(StdDev)",
        "max(Flows)",
        "finished",
        "mean wait",
        "mean resp."
    );
    for r in reports {
        let _ = writeln!(
            s,
            "{:>3} {:>4} {:<15} {:<7} {:<12} {:>16.6e} {:>16.6e} {:>16.6e} {:>9} {:>8} {:>10.3} {:>10.3}",
            r.spec.id,
            r.spec.topology,
            r.spec.selector.to_string(),
            r.spec.mapper.to_string(),
            r.spec.router.to_string(),
            stat(&r.series[0], |x| x.max),
            stat(&r.series[0], |x| x.mean),
            stat(&r.series[1], |x| x.max),
            stat(&r.series[2], |x| x.max),
            r.result.finished,
            stat(&r.samples[0], |x| x.mean),
            stat(&r.samples[1], |x| x.mean),
        );
    }
    s
}

#[derive(Serialize)]
struct JsonRun<'a> {
    id: usize,
    topology: &'a str,
    scheduler: String,
    host_selector: String,
    process_mapper: String,
    router: String,
    submitted: u64,
    started: u64,
    finished: u64,
    metrics: Vec<JsonMetric<'a>>,
}

#[derive(Serialize)]
struct JsonMetric<'a> {
    name: &'a str,
    #[serde(flatten)]
    stats: Option<Stats>,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    orcs_version: &'static str,
    scenario: &'a str,
    duration: f64,
    seed: u64,
    pfsim_compat: bool,
    runs: Vec<JsonRun<'a>>,
}

/// Every run with every metric's statistics, as JSON.
pub fn jobs_json(
    scenario: &Scenario,
    seed: u64,
    pfsim_compat: bool,
    reports: &[RunReport],
) -> String {
    let doc = JsonDoc {
        orcs_version: env!("CARGO_PKG_VERSION"),
        scenario: &scenario.path,
        duration: scenario.duration,
        seed,
        pfsim_compat,
        runs: reports
            .iter()
            .map(|r| JsonRun {
                id: r.spec.id,
                topology: &scenario.topologies[r.spec.topology].0,
                scheduler: r.spec.scheduler.to_string(),
                host_selector: r.spec.selector.to_string(),
                process_mapper: r.spec.mapper.to_string(),
                router: r.spec.router.to_string(),
                submitted: r.result.submitted,
                started: r.result.started,
                finished: r.result.finished,
                metrics: SERIES
                    .iter()
                    .zip(&r.series)
                    .chain(SAMPLES.iter().zip(&r.samples))
                    .map(|(name, stats)| JsonMetric {
                        name,
                        stats: *stats,
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}

/// `Maximum Congestion` → `maximum_congestion`.
fn snake(name: &str) -> String {
    name.to_ascii_lowercase().replace(' ', "_")
}

/// One CSV row per run: the cell, the job counts, then max, min, mean, count and variance
/// of every metric (empty where a metric has no value).
pub fn jobs_csv(scenario: &Scenario, reports: &[RunReport]) -> String {
    let mut s = String::from(
        "id,topology,scheduler,host_selector,process_mapper,router,submitted,started,finished",
    );
    for name in SERIES.iter().chain(SAMPLES.iter()) {
        for part in ["max", "min", "mean", "count", "variance"] {
            let _ = write!(s, ",{}_{part}", snake(name));
        }
    }
    s.push('\n');
    for r in reports {
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{}",
            r.spec.id,
            super::csv_field(&scenario.topologies[r.spec.topology].0),
            r.spec.scheduler,
            r.spec.selector,
            r.spec.mapper,
            r.spec.router,
            r.result.submitted,
            r.result.started,
            r.result.finished
        );
        for st in r.series.iter().chain(&r.samples) {
            match st {
                Some(x) => {
                    let _ = write!(
                        s,
                        ",{},{},{},{},{}",
                        x.max, x.min, x.mean, x.count, x.variance
                    );
                }
                None => s.push_str(",,,,,"),
            }
        }
        s.push('\n');
    }
    s
}

/// The files of one run's folder: `result.txt` and one CSV per metric named as PFSim
/// names them (`Maximum Congestion.csv`: `Time,Value`; samples: `Value`). Series keep
/// their last sample unless `pfsim_compat`.
pub fn run_files(scenario: &Scenario, r: &RunReport, pfsim_compat: bool) -> Vec<(String, String)> {
    let mut files = Vec::new();
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
    files.push(("result.txt".to_string(), text));
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
