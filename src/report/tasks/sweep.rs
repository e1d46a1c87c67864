//! `orcs tasks sweep`: one line per (network, scheduler, tree, costs, load) point as text, JSON or CSV.

use super::run::{csv_row, summary, CSV_HEADER};
use super::{significant, size, time};
use crate::tasks::study::{TaskRun, TaskSweep};
use serde_json::json;
use std::io::{self, Write};

/// A table: one row per point, networks in turn, each naming its scheduler, tree and
/// communication footprint. O(points).
pub fn sweep_text(out: &mut dyn Write, sweep: &TaskSweep) -> io::Result<()> {
    if let Some(first) = sweep.points.first() {
        let c = &first.config;
        writeln!(
            out,
            "{} nodes; {} replications × {} root tasks after {} warm-up, seed {}",
            c.nodes, c.replications, c.roots, c.warmup, c.seed
        )?;
    }
    let widest = |name: &str, column: &dyn Fn(&TaskRun) -> String| {
        (sweep.points.iter())
            .map(|p| column(p).chars().count())
            .max()
            .unwrap_or(0)
            .max(name.len())
    };
    let network = |p: &TaskRun| p.network.clone();
    let tree = |p: &TaskRun| p.description.spec.to_string();
    let footprint = |p: &TaskRun| size(p.description.footprint.communication);
    let (wn, wt, wf) = (
        widest("network", &network),
        widest("tree", &tree),
        widest("F_c", &footprint),
    );
    writeln!(
        out,
        "{:<wn$} {:<9} {:<wt$} {:>wf$} {:>7} {:>10} {:>7} {:>11} {:>10} {:>11} {:>6} {:>7}",
        "network",
        "scheduler",
        "tree",
        "F_c",
        "rho_x",
        "beta/s",
        "rho_c",
        "mean",
        "±",
        "p99",
        "busy",
        "link"
    )?;
    for p in &sweep.points {
        let r = &p.result;
        let p99 = r
            .percentiles
            .iter()
            .find(|(q, _)| *q == 0.99)
            .map_or(f64::NAN, |x| x.1);
        writeln!(
            out,
            "{:<wn$} {:<9} {:<wt$} {:>wf$} {:>7} {:>10} {:>7} {:>11} {:>10} {:>11} {:>6} {:>7}",
            network(p),
            p.config.scheduler.name(),
            tree(p),
            footprint(p),
            significant(p.description.loads.computation),
            significant(p.description.loads.arrival_rate),
            significant(p.description.loads.communication),
            time(r.mean),
            r.completion.map_or("-".to_string(), |e| time(e.half_width)),
            time(p99),
            format!("{:.3}", p.computing_utilisation()),
            p.busiest_link()
                .map_or("-".to_string(), |(_, u)| format!("{u:.3}")),
        )?;
    }
    writeln!(
        out,
        "(F_c: a root task's communication footprint; mean ± the half width of its \
         confidence interval; busy: computing nodes' utilisation; link: the busiest link's)"
    )
}

/// Every point's summary in one JSON document. O(points).
pub fn sweep_json(out: &mut dyn Write, sweep: &TaskSweep) -> io::Result<()> {
    let doc = json!({
        "schema": crate::report::SCHEMA_VERSION,
        "points": sweep.points.iter().map(summary).collect::<Vec<_>>(),
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// A header and one row per point. O(points).
pub fn sweep_csv(out: &mut dyn Write, sweep: &TaskSweep) -> io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    for p in &sweep.points {
        csv_row(out, p)?;
    }
    Ok(())
}
