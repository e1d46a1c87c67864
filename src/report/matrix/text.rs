//! The text output of a byte-weighted simulation: the matrix lines of the header, the
//! `--printnamelist` listing, and the statistics table of the per-run values (with
//! ORCS's 20-bin histogram for hist_acc_band).

use super::MatrixInfo;
use crate::engine::metric::{MatrixSummaries, MetricKind, Summary};
use crate::engine::weighted::{WeightedOutcome, WeightedSimulation};
use crate::fabric::Fabric;
use crate::report::hist_acc_band_text;
use std::fmt::Write as _;

/// The matrix lines of the text header, ending with an empty line.
pub fn matrix_header(m: &MatrixInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Traffic matrix: {}", m.file);
    let _ = writeln!(
        s,
        "Ranks: {} on {} hosts ({} per host)",
        m.ranks, m.hosts, m.ranks_per_host
    );
    let _ = writeln!(
        s,
        "Rank pairs: {} ({} host pairs between hosts)",
        m.rank_pairs, m.host_pairs
    );
    let _ = writeln!(
        s,
        "Bytes: {} ({} between ranks of one host)",
        m.total_bytes, m.local_bytes
    );
    s.push('\n');
    s
}

/// `--printnamelist` of `-p matrix`: each run's hosts of the slots in order, one line per
/// run, then an empty line. Written as it goes: the listing grows with runs × hosts.
pub fn write_namelists(
    out: &mut dyn std::io::Write,
    sim: &WeightedSimulation,
    fabric: &Fabric,
    runs: u64,
) -> std::io::Result<()> {
    let mut hosts = Vec::new();
    for run in 0..runs {
        sim.materialize(run, &mut hosts);
        let names: Vec<&str> = hosts.iter().map(|&h| fabric.host_name(h)).collect();
        writeln!(out, "Run {run}: {}", names.join(","))?;
    }
    writeln!(out)
}

/// The statistics table of a weighted outcome, plus ORCS's 20-bin histogram for
/// hist_acc_band.
pub fn matrix_text(metric: MetricKind, o: &WeightedOutcome) -> String {
    let sums = MatrixSummaries::of(o);
    let mut s = format!(
        "Statistical Results over {} runs (links: every directed edge; load in bytes)\n===================\n\n",
        o.runs
    );
    let _ = writeln!(
        s,
        "{:<30} {:>18} {:>18} {:>18} {:>18} {:>18}",
        "per run", "mean", "sd", "min", "max", "95% CI half-width"
    );
    let mut row = |name: &str, sum: &Option<Summary>| {
        if let Some(x) = sum {
            let _ = writeln!(
                s,
                "{name:<30} {:>18.6} {:>18.6} {:>18.6} {:>18.6} {:>18.6}",
                x.mean,
                x.sd,
                x.min,
                x.max,
                x.ci95_half_width()
            );
        }
    };
    row("max link load", &sums.max_load);
    row("max load / capacity", &sums.max_utilisation);
    row("load / capacity std-dev", &sums.utilisation_sd);
    row("max flows on a link", &sums.max_flows);
    row("byte-weighted bandwidth", &sums.acc_band);
    s.push_str("===================\n");
    if metric == MetricKind::HistAccBand {
        s.push('\n');
        s.push_str(&hist_acc_band_text(&o.acc_band));
    }
    s
}
