//! The JSON document of `orcs jobs`: the scenario's parameters and every run with every
//! metric's statistics.

use super::RunReport;
use crate::cluster::jobs::{Scenario, Stats, SAMPLES, SERIES};
use crate::report::json_text;
use serde::Serialize;

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
    json_text(&JsonDoc {
        orcs_version: env!("CARGO_PKG_VERSION"),
        scenario: &scenario.path,
        duration: scenario.duration,
        seed,
        pfsim_compat,
        runs: reports.iter().map(|r| json_run(scenario, r)).collect(),
    })
}

/// One run: its cell, job counts and metrics.
fn json_run<'a>(scenario: &'a Scenario, r: &RunReport) -> JsonRun<'a> {
    JsonRun {
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
    }
}
