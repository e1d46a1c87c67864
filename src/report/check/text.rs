//! The text of `orcs check`: the fabric's counts, the routes that are broken, the
//! histogram of path lengths, the routes per link, and the `--routequal` and
//! `--deadlock` sections.

use super::{mean_path_length, LinkRoutes};
use crate::fabric::Fabric;
use crate::routing::deadlock::DeadlockReport;
use crate::routing::{RouteCheck, RouteQuality};
use std::fmt::Write as _;

/// The `orcs check` report: counts, broken pairs, path lengths and per-link route counts.
pub fn check_text(input: &str, fabric: &Fabric, check: &RouteCheck) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Input File: {input}");
    let _ = writeln!(
        s,
        "   Number of hosts in the inputfile: {}",
        fabric.num_hosts()
    );
    let _ = writeln!(
        s,
        "Number of switches in the inputfile: {}",
        fabric.num_switches()
    );
    let _ = writeln!(
        s,
        "   Number of edges in the inputfile: {}",
        fabric.num_edges()
    );
    s.push('\n');
    broken_routes(&mut s, fabric, check);
    path_lengths(&mut s, &check.path_lengths);
    link_routes(&mut s, &check.link_routes);
    s
}

/// Whether every pair is routed, or how many are not with a few examples.
fn broken_routes(s: &mut String, fabric: &Fabric, check: &RouteCheck) {
    if check.all_routed() {
        let _ = writeln!(
            s,
            "All {} ordered host pairs are routed (no dead ends, no loops).",
            check.pairs_checked
        );
        return;
    }
    let _ = writeln!(
        s,
        "Broken routes: {} of {} ordered host pairs ({} unreachable, {} in routing loops)",
        check.broken(),
        check.pairs_checked,
        check.dead_ends,
        check.loops
    );
    for ex in &check.examples {
        let _ = writeln!(s, "  {}", ex.describe(fabric));
    }
    if check.broken() > check.examples.len() as u64 {
        let _ = writeln!(
            s,
            "  ... and {} more",
            check.broken() - check.examples.len() as u64
        );
    }
}

/// The histogram of routed pairs per path length, and the mean length.
fn path_lengths(s: &mut String, path_lengths: &[u64]) {
    let Some(mean) = mean_path_length(path_lengths) else {
        return;
    };
    let routed: u64 = path_lengths.iter().sum();
    s.push_str("\nPath length histogram (edges per route, host links included):\n");
    for (len, &c) in path_lengths.iter().enumerate() {
        if c > 0 {
            let _ = writeln!(
                s,
                "  {len:>3} edges: {c} pairs ({:.2}%)",
                c as f64 / routed as f64 * 100.0
            );
        }
    }
    let _ = writeln!(s, "  mean {mean:.4} edges");
}

/// The least, mean and most routes over a link, and the links without any.
fn link_routes(s: &mut String, link_routes: &[u64]) {
    let Some(l) = LinkRoutes::of(link_routes) else {
        return;
    };
    s.push_str("\nRoutes per link (ordered host pairs whose route uses the directed edge):\n");
    let _ = writeln!(
        s,
        "  min {}, mean {:.2}, max {} over {} links; {} links carry no route",
        l.min, l.mean, l.max, l.links, l.unused
    );
}

/// ORCS's `--routequal` figures after the check report: the all-to-all load on the
/// inner links.
pub fn routequal_text(q: &RouteQuality) -> String {
    format!(
        "\ngmin: {}, gmax: {}\nE: {:.2}, sigma: {:.2}\n",
        q.gmin, q.gmax, q.mean as f32, q.sigma as f32
    )
}

/// The `orcs check --deadlock` section: the channel dependency graph and, when it has a
/// cycle, the cycle's channels.
pub fn deadlock_text(fabric: &Fabric, report: &DeadlockReport) -> String {
    let mut s = format!(
        "\nChannel dependency graph: {} channels, {} dependencies\n",
        report.channels, report.dependencies
    );
    match &report.cycle {
        None => s.push_str("  no cycle: the routing is deadlock-free with one virtual lane\n"),
        Some(cycle) => {
            let _ = writeln!(
                s,
                "  cycle of {} channels: the routing can deadlock with one virtual lane",
                cycle.len()
            );
            for &c in cycle {
                let _ = writeln!(s, "    {}", fabric.edge_label(c));
            }
        }
    }
    s
}
