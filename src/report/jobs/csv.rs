//! The CSV table of `orcs jobs`: one row per run with the statistics of every metric.

use super::RunReport;
use crate::cluster::jobs::{Scenario, SAMPLES, SERIES};
use crate::report::csv_field;
use std::fmt::Write as _;

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
            csv_field(&scenario.topologies[r.spec.topology].0),
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
