//! Turning byte-weighted (`-p matrix`) results into bytes: the text block, JSON, CSV and
//! the per-link table. Like the rest of [`crate::report`], these only format.

use super::{acc_band_bins, csv_field, RunInfo, SCHEMA_VERSION};
use crate::engine::metric::{acc_band_bin_edges, MetricKind, Summary};
use crate::engine::weighted::{SlotTraffic, WeightedLinks, WeightedOutcome, WeightedSimulation};
use crate::fabric::Fabric;
use serde::Serialize;
use std::fmt::Write as _;

/// What the header says about the matrix.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixInfo {
    /// The matrix file as given.
    pub file: String,
    /// Ranks of the matrix.
    pub ranks: u32,
    /// Ranks per host (`--ppn`).
    pub ranks_per_host: u32,
    /// Hosts the ranks occupy.
    pub hosts: u32,
    /// Rank pairs with at least one message.
    pub rank_pairs: u64,
    /// Ordered host pairs with traffic between different hosts.
    pub host_pairs: u64,
    /// Bytes of the whole matrix.
    pub total_bytes: u64,
    /// Bytes between ranks of one host (never on a link).
    pub local_bytes: u64,
}

impl MatrixInfo {
    /// The header facts of `traffic` read from `file` with `rank_pairs` entries.
    pub fn new(file: &str, traffic: &SlotTraffic, rank_pairs: u64) -> Self {
        MatrixInfo {
            file: file.to_string(),
            ranks: traffic.ranks,
            ranks_per_host: traffic.ranks_per_host,
            hosts: traffic.slots,
            rank_pairs,
            host_pairs: traffic.pairs.len() as u64,
            total_bytes: traffic.total_bytes,
            local_bytes: traffic.local_bytes,
        }
    }
}

/// Summaries of the per-run values (runs without a value left out).
#[derive(Debug, Clone, Serialize)]
pub struct MatrixSummaries {
    /// Largest link load in bytes.
    pub max_load: Option<Summary>,
    /// Largest bytes ÷ capacity.
    pub max_utilisation: Option<Summary>,
    /// Standard deviation of bytes ÷ capacity over the links.
    pub utilisation_sd: Option<Summary>,
    /// Largest number of rank pairs on a link.
    pub max_flows: Option<Summary>,
    /// Byte-weighted bandwidth fraction, when computed.
    pub acc_band: Option<Summary>,
}

impl MatrixSummaries {
    /// Summarises an outcome.
    pub fn of(o: &WeightedOutcome) -> Self {
        let finite = |v: &[f64]| {
            Summary::of(
                &v.iter()
                    .copied()
                    .filter(|x| !x.is_nan())
                    .collect::<Vec<_>>(),
            )
        };
        MatrixSummaries {
            max_load: Summary::of_counts(&o.max_load),
            max_utilisation: finite(&o.max_utilisation),
            utilisation_sd: finite(&o.utilisation_sd),
            max_flows: Summary::of_counts(&o.max_flows),
            acc_band: finite(&o.acc_band),
        }
    }
}

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
        s.push_str(&super::hist_acc_band_text(&o.acc_band));
    }
    s
}

#[derive(Serialize)]
struct PerRun<'a> {
    max_load: &'a [u64],
    max_utilisation: &'a [f64],
    utilisation_sd: &'a [f64],
    max_flows: &'a [u64],
    #[serde(skip_serializing_if = "<[f64]>::is_empty")]
    acc_band: &'a [f64],
}

#[derive(Serialize)]
struct LinkEntry<'a> {
    edge_id: usize,
    tail: &'a str,
    head: &'a str,
    key: Option<&'a str>,
    capacity: f64,
    bytes: u64,
    max_bytes: u64,
    flows: u64,
    max_flows: u64,
    bottleneck_runs: u64,
}

#[derive(Serialize)]
struct BinCount {
    low: f64,
    high: f64,
    count: u64,
}

#[derive(Serialize)]
struct MatrixReport<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    parameters: &'a RunInfo,
    matrix: &'a MatrixInfo,
    summary: MatrixSummaries,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hist_acc_band: Vec<BinCount>,
    per_run: PerRun<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    links: Option<Vec<LinkEntry<'a>>>,
}

/// The whole weighted result as one JSON document; `links` are listed when collected.
pub fn matrix_json(
    info: &RunInfo,
    matrix: &MatrixInfo,
    fabric: &Fabric,
    capacity: &[f64],
    o: &WeightedOutcome,
) -> String {
    let edges = acc_band_bin_edges();
    let report = MatrixReport {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: info,
        matrix,
        summary: MatrixSummaries::of(o),
        hist_acc_band: if o.acc_band.is_empty() {
            Vec::new()
        } else {
            acc_band_bins(&o.acc_band)
                .iter()
                .enumerate()
                .map(|(i, &count)| BinCount {
                    low: edges[i],
                    high: edges[i + 1],
                    count,
                })
                .collect()
        },
        per_run: PerRun {
            max_load: &o.max_load,
            max_utilisation: &o.max_utilisation,
            utilisation_sd: &o.utilisation_sd,
            max_flows: &o.max_flows,
            acc_band: &o.acc_band,
        },
        links: o.links.as_ref().map(|l| {
            (0..fabric.num_edges())
                .map(|e| LinkEntry {
                    edge_id: e,
                    tail: &fabric.node_names[fabric.edge_tail[e] as usize],
                    head: &fabric.node_names[fabric.edge_head[e] as usize],
                    key: fabric.edge_keys[e].as_deref(),
                    capacity: capacity[e],
                    bytes: l.bytes[e],
                    max_bytes: l.max_bytes[e],
                    flows: l.flows[e],
                    max_flows: l.max_flows[e],
                    bottleneck_runs: l.bottleneck_runs[e],
                })
                .collect()
        }),
    };
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}

/// One CSV row per run: `run,max_load,max_utilisation,utilisation_sd,max_flows` and
/// `acc_band` when computed (empty for a run without bytes).
pub fn matrix_csv(o: &WeightedOutcome) -> String {
    let band = !o.acc_band.is_empty();
    let mut s = String::from("run,max_load,max_utilisation,utilisation_sd,max_flows");
    s.push_str(if band { ",acc_band\n" } else { "\n" });
    for r in 0..o.max_load.len() {
        let _ = write!(
            s,
            "{r},{},{},{},{}",
            o.max_load[r], o.max_utilisation[r], o.utilisation_sd[r], o.max_flows[r]
        );
        if band {
            let a = o.acc_band[r];
            if a.is_nan() {
                s.push(',');
            } else {
                let _ = write!(s, ",{a}");
            }
        }
        s.push('\n');
    }
    s
}

/// The `--links` table of a weighted run: per directed edge its endpoints, key and
/// capacity, bytes summed over runs and their mean per run, the largest load in one run,
/// flows likewise, and the runs (and share of runs) in which it carried the run's largest
/// utilisation. O(edges).
pub fn matrix_links_csv(fabric: &Fabric, capacity: &[f64], runs: u64, l: &WeightedLinks) -> String {
    let mut s = String::from(
        "edge_id,tail,head,key,capacity,bytes,mean_bytes,max_bytes,flows,max_flows,bottleneck_runs,bottleneck_share\n",
    );
    let runs_f = runs.max(1) as f64;
    for (e, cap) in capacity.iter().enumerate().take(fabric.num_edges()) {
        let _ = writeln!(
            s,
            "{e},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&fabric.node_names[fabric.edge_tail[e] as usize]),
            csv_field(&fabric.node_names[fabric.edge_head[e] as usize]),
            csv_field(fabric.edge_keys[e].as_deref().unwrap_or("")),
            cap,
            l.bytes[e],
            l.bytes[e] as f64 / runs_f,
            l.max_bytes[e],
            l.flows[e],
            l.max_flows[e],
            l.bottleneck_runs[e],
            l.bottleneck_runs[e] as f64 / runs_f
        );
    }
    s
}
