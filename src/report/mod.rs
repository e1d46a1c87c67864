//! Turning simulation results into bytes: ORCS's text blocks (spec §7, §9.1), JSON, CSV,
//! and the get_cable_cong congestion map as dot. Exporters only format; they never compute
//! anything the simulation did not. This file holds the Monte Carlo simulation's and
//! `orcs check`'s outputs; [`matrix`], [`jobs`], [`queue`] and [`traffic`] those of the
//! other commands, and [`results`] reads the JSON back (as a document, or built in memory
//! from a result).
//!
//! May use: the results of every capability ([`crate::engine`], [`crate::routing`],
//! [`crate::cluster`], [`crate::queueing`]) and what they describe ([`crate::fabric`],
//! [`crate::workload`]).

pub mod jobs;
pub mod matrix;
pub mod queue;
pub mod results;
pub mod traffic;

use crate::engine::metric::{acc_band, acc_band_bin, acc_band_bin_edges, MetricKind, Summary};
use crate::engine::unit::{LinkCongestionTotals, SimOutcome, Simulation};
use crate::fabric::write::write_dot;
use crate::fabric::Fabric;
use crate::routing::deadlock::DeadlockReport;
use crate::routing::{RouteCheck, RouteQuality};
use crate::workload::pattern::Levels;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Version of the JSON and CSV layouts; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// The parameters of a simulation as the header shows them (spec §9.1).
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// Input file as given.
    pub input_file: String,
    /// Output file as given (`-` = standard output).
    pub output_file: String,
    /// The `Pattern:` line(s) of the header, without the trailing newline.
    pub pattern_lines: Vec<String>,
    /// Pattern name.
    pub pattern: String,
    /// Resolved communicator size.
    pub commsize: usize,
    /// `-z` value.
    pub part_commsize: usize,
    /// Subset method.
    pub subset: String,
    /// Part subset method or `none`.
    pub part_subset: String,
    /// `-l` value (−1 = all levels).
    pub level: i64,
    /// Number of runs.
    pub runs: u64,
    /// Metric name.
    pub metric: MetricKind,
    /// Whether ranks are reshuffled per run.
    pub shuffle: bool,
    /// Seed of every random stream.
    pub seed: u64,
    /// Hosts in the communicator.
    pub subset_hosts: usize,
    /// Hosts in the fabric.
    pub fabric_hosts: usize,
    /// Switches in the fabric.
    pub fabric_switches: usize,
    /// Directed edges in the fabric.
    pub fabric_edges: usize,
    /// ORCS's exact header: no `Seed:` line.
    #[serde(skip)]
    pub orcs_compat: bool,
}

impl Serialize for MetricKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The `Key: value` block ORCS echoes (also at the top of the `-o` file), ending with
/// an empty line.
pub fn echo_block(info: &RunInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Input File: {}", info.input_file);
    let _ = writeln!(s, "Output File: {}", info.output_file);
    for line in &info.pattern_lines {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "Commsize: {}", info.commsize);
    let _ = writeln!(s, "Part_commsize: {}", info.part_commsize);
    let _ = writeln!(s, "Subset: {}", info.subset);
    let _ = writeln!(s, "Part_subset: {}", info.part_subset);
    let _ = writeln!(s, "Level: {}", info.level);
    let _ = writeln!(s, "Runs: {}", info.runs);
    let _ = writeln!(s, "Metric: {}", info.metric);
    let _ = writeln!(
        s,
        "Shuffling namelists: {}",
        if info.shuffle { "Yes" } else { "No" }
    );
    if !info.orcs_compat {
        let _ = writeln!(s, "Seed: {}", info.seed);
    }
    s.push('\n');
    s
}

/// The full header on standard output: the echo block and the four count lines.
pub fn header(info: &RunInfo) -> String {
    let mut s = echo_block(info);
    let _ = writeln!(
        s,
        "      Number of hosts in the subset: {}",
        info.subset_hosts
    );
    let _ = writeln!(
        s,
        "   Number of hosts in the inputfile: {}",
        info.fabric_hosts
    );
    let _ = writeln!(
        s,
        "Number of switches in the inputfile: {}",
        info.fabric_switches
    );
    let _ = writeln!(
        s,
        "   Number of edges in the inputfile: {}",
        info.fabric_edges
    );
    s.push('\n');
    s
}

/// ORCS's hist_max_cong block (spec §7.1).
pub fn hist_max_cong_text(weight_hist: &[u64]) -> String {
    let total: u64 = weight_hist.iter().sum();
    let mut s = String::new();
    for (w, &c) in weight_hist.iter().enumerate() {
        if c > 0 {
            let pct = c as f64 / total as f64 * 100.0;
            let _ = writeln!(s, "weight {w}: {c} of the {total} connections ({pct:.2}%)");
        }
    }
    let bw = acc_band(weight_hist).unwrap_or(-1.0);
    let _ = write!(s, "\nBW: {bw:.6}\n");
    s
}

/// Counts of per-run acc_band values in ORCS's 20 bins; values outside [0, 1] (runs
/// without pairs) are not counted.
pub fn acc_band_bins(values: &[f64]) -> [u64; 20] {
    let edges = acc_band_bin_edges();
    let mut counts = [0u64; 20];
    for &v in values {
        if let Some(b) = acc_band_bin(&edges, v) {
            counts[b] += 1;
        }
    }
    counts
}

/// ORCS's hist_acc_band block (spec §7.2).
pub fn hist_acc_band_text(values: &[f64]) -> String {
    let edges = acc_band_bin_edges();
    let counts = acc_band_bins(values);
    let mut s = String::from(
        "Histogramm bin width: 0.050000\nFraction of full bandwidt | Number of occurences\n",
    );
    for (i, c) in counts.iter().enumerate() {
        let _ = writeln!(s, "{:12.8} {:12.8} {:5}", edges[i], edges[i + 1], c);
    }
    s
}

/// ORCS's statistics block for sum_max_cong and dep_max_delay (spec §7.3, §7.4).
pub fn integer_stats_text(metric: MetricKind, values: &[u64]) -> String {
    let (min_l, max_l, avg_l, var_l, raw) = match metric {
        MetricKind::DepMaxDelay => (
            "Minimal Delay:",
            "Maximal Delay:",
            "Average Delay:",
            "Delay Variance:",
            "Delay of",
        ),
        _ => (
            "Minimal Maximal Congestion:",
            "Maximal Maximal Congestion:",
            "Average Maximal Congestion:",
            "Maximal Congestion Variance:",
            "Congestion sum of",
        ),
    };
    let floats: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    let mut s = String::from("Statistical Results\n===================\n\n");
    if let Some(sum) = Summary::of(&floats) {
        let _ = writeln!(s, "{min_l} {:.6}", sum.min);
        let _ = writeln!(s, "{max_l} {:.6}", sum.max);
        let _ = writeln!(s, "{avg_l} {:.6}", sum.mean);
        let _ = writeln!(s, "{var_l} {:.6}", sum.population_variance);
    }
    s.push_str("===================\n\n");
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    for group in sorted.chunk_by(|a, b| a == b) {
        let _ = writeln!(s, "{raw} {} occured {} times.", group[0], group.len());
    }
    s
}

/// Per-edge congestion scaled to [0, 1] by the largest value, in single precision as
/// ORCS computes it (spec §7.5).
pub fn scaled_congestion(cable: &[u64]) -> Vec<f32> {
    let max = cable.iter().copied().max().unwrap_or(0);
    cable
        .iter()
        .map(|&c| if max == 0 { 0.0 } else { c as f32 / max as f32 })
        .collect()
}

/// The HSV color ORCS gives an edge of scaled congestion `c`: green (0.4) to red (0).
pub fn congestion_color(c: f32) -> String {
    let (h, s, v) = crate::viz::draw::congestion_hsv(c);
    format!("{h:.6} {s:.6} {v:.6}")
}

/// ORCS's `-o` table for get_cable_cong (spec §7.5): edges with a non-zero count.
pub fn cable_table_text(cable: &[u64]) -> String {
    let mut s = String::from("\nCable Congestions:\n\n Edge-ID\tacc. cong\n");
    for (e, &c) in cable.iter().enumerate() {
        if c > 0 {
            let _ = writeln!(s, "{e}\t{c}");
        }
    }
    s
}

/// Writes the fabric back as a dot graph with every edge's `congestion`, `color` and
/// `edge_id` (spec §7.5); node, edge and graph attributes of the input are kept (an
/// existing `congestion`, `color` or `edge_id` is replaced). O(nodes + edges + tokens).
pub fn write_cable_dot(out: &mut dyn Write, fabric: &Fabric, cable: &[u64]) -> io::Result<()> {
    let scaled = scaled_congestion(cable);
    write_dot(out, fabric, &|e| {
        let c = scaled[e as usize];
        vec![
            ("color".to_string(), congestion_color(c)),
            ("congestion".to_string(), format!("{c:.6}")),
            ("edge_id".to_string(), e.to_string()),
        ]
    })
}

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
    if check.all_routed() {
        let _ = writeln!(
            s,
            "All {} ordered host pairs are routed (no dead ends, no loops).",
            check.pairs_checked
        );
    } else {
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
    let routed: u64 = check.path_lengths.iter().sum();
    if routed > 0 {
        s.push_str("\nPath length histogram (edges per route, host links included):\n");
        let mut weighted = 0u64;
        for (len, &c) in check.path_lengths.iter().enumerate() {
            if c > 0 {
                weighted += len as u64 * c;
                let _ = writeln!(
                    s,
                    "  {len:>3} edges: {c} pairs ({:.2}%)",
                    c as f64 / routed as f64 * 100.0
                );
            }
        }
        let _ = writeln!(s, "  mean {:.4} edges", weighted as f64 / routed as f64);
    }
    if !check.link_routes.is_empty() {
        let min = check.link_routes.iter().copied().min().unwrap_or(0);
        let max = check.link_routes.iter().copied().max().unwrap_or(0);
        let mean = check.link_routes.iter().sum::<u64>() as f64 / check.link_routes.len() as f64;
        let unused = check.link_routes.iter().filter(|&&c| c == 0).count();
        s.push_str("\nRoutes per link (ordered host pairs whose route uses the directed edge):\n");
        let _ = writeln!(
            s,
            "  min {min}, mean {mean:.2}, max {max} over {} links; {unused} links carry no route",
            check.link_routes.len()
        );
    }
    s
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

/// The ORCS text block of `metric` (spec §7).
pub fn metric_text(metric: MetricKind, outcome: &SimOutcome) -> String {
    match metric {
        MetricKind::HistMaxCong => hist_max_cong_text(&outcome.weight_hist),
        MetricKind::HistAccBand => hist_acc_band_text(&outcome.acc_band),
        MetricKind::SumMaxCong => integer_stats_text(metric, &outcome.sum_max_cong),
        MetricKind::DepMaxDelay => integer_stats_text(metric, &outcome.dep_max_delay),
        MetricKind::GetCableCong => cable_table_text(&outcome.cable),
    }
}

/// The lines ORCS printed before its header under MPI; `--orcs-compat` keeps them, with
/// one process on `host`.
pub fn compat_preamble(host: &str) -> String {
    format!(
        "Total MPI threads participating in the simulation: '1'\nUnique hosts participating:\n    {host}\n\n"
    )
}

/// The one-line summary on standard error: the selected metric's mean per run with its
/// 95 % confidence interval (so users see whether `-n` is large enough), the time taken,
/// and the runs without traffic.
pub fn summary_line(metric: MetricKind, outcome: &SimOutcome, secs: f64) -> String {
    let s = Summaries::of(outcome);
    let (name, summary) = match metric {
        MetricKind::SumMaxCong => ("sum_max_cong", s.sum_max_cong),
        MetricKind::DepMaxDelay => ("dep_max_delay", s.dep_max_delay),
        _ => ("acc_band", s.acc_band),
    };
    let empty = outcome.acc_band.iter().filter(|v| v.is_nan()).count();
    let mut line = format!("orcs: {} runs in {secs:.2} s", outcome.runs);
    if let Some(m) = summary {
        let _ = write!(
            line,
            "; {name} per run: mean {:.6} ± {:.6} (95% CI), sd {:.6}, min {:.6}, max {:.6}",
            m.mean,
            m.ci95_half_width(),
            m.sd,
            m.min,
            m.max
        );
    }
    if empty > 0 {
        let _ = write!(line, "; {empty} runs had no traffic");
    }
    line
}

/// `--printnamelist` and `--printptrn` (spec §8.4, §8.5), run by run: each run's
/// rank-to-host list and each simulated level's rank pairs with their hosts, from the
/// same random streams the simulation used. Written as it goes: the listing grows with
/// runs × pairs.
pub fn write_runs(
    out: &mut dyn Write,
    sim: &Simulation,
    fabric: &Fabric,
    runs: u64,
    namelist: bool,
    pattern: bool,
) -> io::Result<()> {
    let mut ranks = Vec::new();
    let mut levels = Levels::new();
    for run in 0..runs {
        sim.materialize(run, &mut ranks, &mut levels);
        if namelist {
            write!(
                out,
                "\n\nNamelist in node with rank 0: \n=================\n"
            )?;
            for &h in &ranks {
                writeln!(out, "{}", fabric.host_name(h))?;
            }
            write!(out, "\n===============\n\n")?;
        }
        if pattern {
            for l in sim.simulated_levels(&levels) {
                let pairs = levels.level(l);
                if pairs.is_empty() {
                    break;
                }
                write!(out, "\nUsed Pattern:\n=================\n")?;
                for &(s, d) in pairs {
                    writeln!(
                        out,
                        "{:>5} -> {:<5}   |   {} -> {}",
                        format!(" {s}"),
                        d,
                        fabric.host_name(ranks[s as usize]),
                        fabric.host_name(ranks[d as usize])
                    )?;
                }
                writeln!(out, "=================")?;
            }
        }
    }
    Ok(())
}

/// Summaries of every per-run metric, for JSON and the stderr summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summaries {
    /// hist_acc_band per-run values (runs without pairs left out).
    pub acc_band: Option<Summary>,
    /// sum_max_cong per-run values.
    pub sum_max_cong: Option<Summary>,
    /// dep_max_delay per-run values, when computed.
    pub dep_max_delay: Option<Summary>,
    /// Pairs per run.
    pub pairs_per_run: Option<Summary>,
}

impl Summaries {
    /// Summarises an outcome.
    pub fn of(outcome: &SimOutcome) -> Self {
        let acc: Vec<f64> = outcome
            .acc_band
            .iter()
            .copied()
            .filter(|v| !v.is_nan())
            .collect();
        Summaries {
            acc_band: Summary::of(&acc),
            sum_max_cong: Summary::of_counts(&outcome.sum_max_cong),
            dep_max_delay: Summary::of_counts(&outcome.dep_max_delay),
            pairs_per_run: Summary::of_counts(&outcome.pairs),
        }
    }
}

#[derive(Serialize)]
struct WeightCount {
    weight: usize,
    count: u64,
}

#[derive(Serialize)]
struct BinCount {
    low: f64,
    high: f64,
    count: u64,
}

#[derive(Serialize)]
struct CableEntry<'a> {
    edge_id: usize,
    tail: &'a str,
    head: &'a str,
    key: Option<&'a str>,
    count: u64,
    congestion: f32,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    parameters: &'a RunInfo,
    summary: Summaries,
    hist_max_cong: HistMaxCong,
    hist_acc_band: Vec<BinCount>,
    per_run: PerRun<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cable_congestion: Option<Vec<CableEntry<'a>>>,
}

#[derive(Serialize)]
struct HistMaxCong {
    total_pairs: u64,
    bw: Option<f64>,
    weights: Vec<WeightCount>,
}

#[derive(Serialize)]
struct PerRun<'a> {
    acc_band: &'a [f64],
    sum_max_cong: &'a [u64],
    pairs: &'a [u64],
    #[serde(skip_serializing_if = "<[u64]>::is_empty")]
    dep_max_delay: &'a [u64],
}

/// The whole result as one JSON document (schema in the README).
pub fn json_report(info: &RunInfo, fabric: &Fabric, outcome: &SimOutcome) -> String {
    let edges = acc_band_bin_edges();
    let bins = acc_band_bins(&outcome.acc_band);
    let scaled = scaled_congestion(&outcome.cable);
    let report = JsonReport {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: info,
        summary: Summaries::of(outcome),
        hist_max_cong: HistMaxCong {
            total_pairs: outcome.total_pairs(),
            bw: acc_band(&outcome.weight_hist),
            weights: outcome
                .weight_hist
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(weight, &count)| WeightCount { weight, count })
                .collect(),
        },
        hist_acc_band: bins
            .iter()
            .enumerate()
            .map(|(i, &count)| BinCount {
                low: edges[i],
                high: edges[i + 1],
                count,
            })
            .collect(),
        per_run: PerRun {
            acc_band: &outcome.acc_band,
            sum_max_cong: &outcome.sum_max_cong,
            pairs: &outcome.pairs,
            dep_max_delay: &outcome.dep_max_delay,
        },
        cable_congestion: (!outcome.cable.is_empty()).then(|| {
            outcome
                .cable
                .iter()
                .enumerate()
                .map(|(e, &count)| CableEntry {
                    edge_id: e,
                    tail: &fabric.node_names[fabric.edge_tail[e] as usize],
                    head: &fabric.node_names[fabric.edge_head[e] as usize],
                    key: fabric.edge_keys[e].as_deref(),
                    count,
                    congestion: scaled[e],
                })
                .collect()
        }),
    };
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}

/// The selected metric as CSV (one table; columns in the README).
pub fn csv_report(metric: MetricKind, fabric: &Fabric, outcome: &SimOutcome) -> String {
    let mut s = String::new();
    match metric {
        MetricKind::HistMaxCong => {
            let total = outcome.total_pairs();
            s.push_str("weight,count,fraction\n");
            for (w, &c) in outcome.weight_hist.iter().enumerate() {
                if c > 0 {
                    let _ = writeln!(s, "{w},{c},{}", c as f64 / total as f64);
                }
            }
        }
        MetricKind::HistAccBand | MetricKind::SumMaxCong | MetricKind::DepMaxDelay => {
            let delay = !outcome.dep_max_delay.is_empty();
            s.push_str("run,pairs,acc_band,sum_max_cong");
            s.push_str(if delay { ",dep_max_delay\n" } else { "\n" });
            for r in 0..outcome.acc_band.len() {
                let acc = outcome.acc_band[r];
                let acc = if acc.is_nan() {
                    String::new()
                } else {
                    acc.to_string()
                };
                let _ = write!(
                    s,
                    "{r},{},{acc},{}",
                    outcome.pairs[r], outcome.sum_max_cong[r]
                );
                if delay {
                    let _ = write!(s, ",{}", outcome.dep_max_delay[r]);
                }
                s.push('\n');
            }
        }
        MetricKind::GetCableCong => {
            let scaled = scaled_congestion(&outcome.cable);
            s.push_str("edge_id,tail,head,key,count,congestion\n");
            for (e, &c) in outcome.cable.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "{e},{},{},{},{c},{:.6}",
                    csv_field(&fabric.node_names[fabric.edge_tail[e] as usize]),
                    csv_field(&fabric.node_names[fabric.edge_head[e] as usize]),
                    csv_field(fabric.edge_keys[e].as_deref().unwrap_or("")),
                    scaled[e]
                );
            }
        }
    }
    s
}

/// The `--links` table: one row per directed edge with its endpoints and port key,
/// `routes` (all-pairs routes over it, from the route check), `messages` (routes it
/// carried over all levels and runs), `max_congestion` (most routes sharing it in one
/// level), `bottleneck_runs` and `bottleneck_share` (runs in which it carried the run's
/// largest congestion, and their share of the runs with traffic). O(edges).
pub fn links_csv(fabric: &Fabric, routes: &[u64], links: &LinkCongestionTotals) -> String {
    let mut s = String::from(
        "edge_id,tail,head,key,routes,messages,max_congestion,bottleneck_runs,bottleneck_share\n",
    );
    let runs = links.runs_with_traffic;
    for e in 0..fabric.num_edges() {
        let share = if runs == 0 {
            0.0
        } else {
            links.bottleneck_runs[e] as f64 / runs as f64
        };
        let _ = writeln!(
            s,
            "{e},{},{},{},{},{},{},{},{share:.6}",
            csv_field(&fabric.node_names[fabric.edge_tail[e] as usize]),
            csv_field(&fabric.node_names[fabric.edge_head[e] as usize]),
            csv_field(fabric.edge_keys[e].as_deref().unwrap_or("")),
            routes.get(e).copied().unwrap_or(0),
            links.messages[e],
            links.max_congestion[e],
            links.bottleneck_runs[e],
        );
    }
    s
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_max_cong_matches_orcs_format() {
        let text = hist_max_cong_text(&[0, 6583, 1330, 87]);
        assert_eq!(
            text,
            "weight 1: 6583 of the 8000 connections (82.29%)\n\
             weight 2: 1330 of the 8000 connections (16.62%)\n\
             weight 3: 87 of the 8000 connections (1.09%)\n\nBW: 0.909625\n"
        );
    }

    #[test]
    fn integer_stats_match_orcs_format() {
        let text = integer_stats_text(MetricKind::SumMaxCong, &[34]);
        assert_eq!(
            text,
            "Statistical Results\n===================\n\n\
             Minimal Maximal Congestion: 34.000000\n\
             Maximal Maximal Congestion: 34.000000\n\
             Average Maximal Congestion: 34.000000\n\
             Maximal Congestion Variance: 0.000000\n\
             ===================\n\nCongestion sum of 34 occured 1 times.\n"
        );
        let delay = integer_stats_text(MetricKind::DepMaxDelay, &[4, 3, 3, 4, 3]);
        assert!(delay.contains("Average Delay: 3.400000\nDelay Variance: 0.240000\n"));
        assert!(delay.ends_with("Delay of 3 occured 3 times.\nDelay of 4 occured 2 times.\n"));
    }

    #[test]
    fn acc_band_histogram_lines() {
        let text = hist_acc_band_text(&[0.5, 0.75, 0.75, 1.0]);
        assert!(text.contains("  0.45000000   0.50000000     1\n"));
        assert!(text.contains("  0.70000000   0.75000000     2\n"));
        assert!(text.contains("  0.95000000   1.00000000     1\n"));
        assert_eq!(text.lines().count(), 22);
    }

    #[test]
    fn colors_go_from_green_to_red() {
        assert_eq!(congestion_color(0.0), "0.400000 0.900000 0.900000");
        assert_eq!(congestion_color(1.0), "0.000000 0.900000 0.900000");
        assert_eq!(congestion_color(0.9), "0.040000 0.900000 0.900000");
    }
}
