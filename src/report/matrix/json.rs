//! The JSON document of a byte-weighted simulation: parameters, the matrix, summaries,
//! the hist_acc_band histogram when computed, the per-run values and, with `--links`,
//! every edge's loads.

use super::MatrixInfo;
use crate::engine::metric::{acc_band_histogram, AccBandBin, MatrixSummaries};
use crate::engine::weighted::{WeightedLinks, WeightedOutcome};
use crate::fabric::Fabric;
use crate::report::{json_text, RunInfo, SCHEMA_VERSION};
use serde::Serialize;

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
struct MatrixReport<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    parameters: &'a RunInfo,
    matrix: &'a MatrixInfo,
    summary: MatrixSummaries,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hist_acc_band: Vec<AccBandBin>,
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
    json_text(&MatrixReport {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: info,
        matrix,
        summary: MatrixSummaries::of(o),
        hist_acc_band: if o.acc_band.is_empty() {
            Vec::new()
        } else {
            acc_band_histogram(&o.acc_band).to_vec()
        },
        per_run: PerRun {
            max_load: &o.max_load,
            max_utilisation: &o.max_utilisation,
            utilisation_sd: &o.utilisation_sd,
            max_flows: &o.max_flows,
            acc_band: &o.acc_band,
        },
        links: o.links.as_ref().map(|l| link_entries(fabric, capacity, l)),
    })
}

/// Every edge with its endpoints, key, capacity and loads.
fn link_entries<'a>(fabric: &'a Fabric, capacity: &[f64], l: &WeightedLinks) -> Vec<LinkEntry<'a>> {
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
}
