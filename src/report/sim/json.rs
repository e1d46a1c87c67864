//! The JSON document of a simulation: parameters, summaries, both histograms, the
//! per-run values and, with get_cable_cong, every edge's congestion (schema in the
//! README; [`crate::report::results`] reads it back).

use super::RunInfo;
use crate::engine::metric::{
    acc_band, acc_band_histogram, scaled_congestion, weight_counts, AccBandBin, Summaries,
    WeightCount, ACC_BAND_BINS,
};
use crate::engine::unit::SimOutcome;
use crate::fabric::Fabric;
use crate::report::{json_text, SCHEMA_VERSION};
use serde::Serialize;

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
    hist_acc_band: [AccBandBin; ACC_BAND_BINS],
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
    json_text(&JsonReport {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: info,
        summary: Summaries::of(outcome),
        hist_max_cong: HistMaxCong {
            total_pairs: outcome.total_pairs(),
            bw: acc_band(&outcome.weight_hist),
            weights: weight_counts(&outcome.weight_hist),
        },
        hist_acc_band: acc_band_histogram(&outcome.acc_band),
        per_run: PerRun {
            acc_band: &outcome.acc_band,
            sum_max_cong: &outcome.sum_max_cong,
            pairs: &outcome.pairs,
            dep_max_delay: &outcome.dep_max_delay,
        },
        cable_congestion: (!outcome.cable.is_empty()).then(|| cable_entries(fabric, outcome)),
    })
}

/// Every edge with its endpoints, key, count and scaled congestion.
fn cable_entries<'a>(fabric: &'a Fabric, outcome: &SimOutcome) -> Vec<CableEntry<'a>> {
    let scaled = scaled_congestion(&outcome.cable);
    (outcome.cable.iter().enumerate())
        .map(|(e, &count)| CableEntry {
            edge_id: e,
            tail: &fabric.node_names[fabric.edge_tail[e] as usize],
            head: &fabric.node_names[fabric.edge_head[e] as usize],
            key: fabric.edge_keys[e].as_deref(),
            count,
            congestion: scaled[e],
        })
        .collect()
}
