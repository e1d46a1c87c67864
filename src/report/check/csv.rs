//! The CSV table of `orcs check`, tidy: one row per figure, as `section,item,value`
//! (the fabric's counts, the route check, the routed pairs per path length, the spread
//! of routes over the links, the broken examples, and the `--routequal` and
//! `--deadlock` figures when asked for).

use super::{fault_kind, mean_path_length, CheckReport, LinkRoutes};
use crate::report::csv_field;
use std::fmt::Write;

/// The table: a header, then one row per figure. Sections: `fabric` (hosts, switches,
/// edges), `routes` (pairs_checked, routed, dead_ends, loops), `path_length` (one row
/// per length in edges with its routed pairs, then `mean`), `link_routes` (links, min,
/// mean, max, unused), `broken` (per example `SOURCE->DESTINATION` and its fault:
/// dead_end or loop), `routequal` (gmin, gmax, mean, sigma), `deadlock` (channels,
/// dependencies, deadlock_free) and `deadlock_cycle` (the cycle's channels by
/// position).
pub fn check_csv(report: &CheckReport) -> String {
    let (fabric, check) = (report.fabric, report.check);
    let mut out = String::from("section,item,value\n");
    let mut row = |section: &str, item: &str, value: &dyn std::fmt::Display| {
        let value = value.to_string();
        let _ = writeln!(out, "{section},{},{}", csv_field(item), csv_field(&value));
    };
    row("fabric", "hosts", &fabric.num_hosts());
    row("fabric", "switches", &fabric.num_switches());
    row("fabric", "edges", &fabric.num_edges());
    row("routes", "pairs_checked", &check.pairs_checked);
    row("routes", "routed", &(check.pairs_checked - check.broken()));
    row("routes", "dead_ends", &check.dead_ends);
    row("routes", "loops", &check.loops);
    for (edges, &pairs) in check.path_lengths.iter().enumerate() {
        if pairs > 0 {
            row("path_length", &edges.to_string(), &pairs);
        }
    }
    if let Some(mean) = mean_path_length(&check.path_lengths) {
        row("path_length", "mean", &mean);
    }
    if let Some(l) = LinkRoutes::of(&check.link_routes) {
        row("link_routes", "links", &l.links);
        row("link_routes", "min", &l.min);
        row("link_routes", "mean", &l.mean);
        row("link_routes", "max", &l.max);
        row("link_routes", "unused", &l.unused);
    }
    for b in &check.examples {
        let pair = format!("{}->{}", fabric.host_name(b.src), fabric.host_name(b.dst));
        row("broken", &pair, &fault_kind(&b.fault));
    }
    if let Some(q) = report.quality {
        row("routequal", "gmin", &q.gmin);
        row("routequal", "gmax", &q.gmax);
        row("routequal", "mean", &q.mean);
        row("routequal", "sigma", &q.sigma);
    }
    if let Some(d) = report.deadlock {
        row("deadlock", "channels", &d.channels);
        row("deadlock", "dependencies", &d.dependencies);
        row("deadlock", "deadlock_free", &d.cycle.is_none());
        for (at, &c) in d.cycle.iter().flatten().enumerate() {
            row("deadlock_cycle", &at.to_string(), &fabric.edge_label(c));
        }
    }
    out
}
