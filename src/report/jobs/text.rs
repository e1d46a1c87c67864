//! The summary table of `orcs jobs`: the scenario, its topologies, and one line per run.

use super::RunReport;
use crate::cluster::jobs::{Scenario, Stats};
use std::fmt::Write as _;

/// A statistic of `s`, NaN (printed `NaN`) when the metric has no value.
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
