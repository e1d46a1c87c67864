//! The JSON document of `orcs traffic`: what was placed on what, then per combination
//! its statistics over the network links and its hosts.

use crate::cluster::evaluate::Evaluation;
use crate::cluster::Cluster;
use crate::report::json_text;
use crate::workload::matrix::TrafficMatrix;
use serde::Serialize;

/// Layout version of the JSON document.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    cluster: JsonCluster<'a>,
    matrix: JsonMatrix<'a>,
    combinations: Vec<JsonCombination<'a>>,
}

#[derive(Serialize)]
struct JsonCluster<'a> {
    path: &'a str,
    hosts: usize,
    processing_elements: u64,
}

#[derive(Serialize)]
struct JsonMatrix<'a> {
    path: &'a str,
    ranks: u32,
    pairs: usize,
    bytes: u64,
}

#[derive(Serialize)]
struct JsonCombination<'a> {
    selector: String,
    mapper: String,
    router: String,
    links: usize,
    max_bytes_per_capacity: f64,
    relative: f64,
    min_bytes_per_capacity: f64,
    mean_bytes_per_capacity: f64,
    variance: f64,
    max_flows: u64,
    hosts: Vec<&'a str>,
}

/// One JSON document (schema [`SCHEMA_VERSION`]): the cluster and the matrix, then per
/// evaluation its algorithms, its statistics over the network links (bytes ÷ capacity;
/// `relative` = its largest over the first evaluation's) and its hosts in the
/// selector's order.
pub fn traffic_json(
    cluster_path: &str,
    cluster: &Cluster,
    matrix_path: &str,
    matrix: &TrafficMatrix,
    evaluations: &[Evaluation],
) -> String {
    let base = evaluations.first().map_or(0.0, |e| e.stats.max);
    let doc = JsonDoc {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        cluster: JsonCluster {
            path: cluster_path,
            hosts: cluster.hosts.len(),
            processing_elements: cluster.host_pes.iter().map(|&p| p as u64).sum(),
        },
        matrix: JsonMatrix {
            path: matrix_path,
            ranks: matrix.ranks,
            pairs: matrix.entries.len(),
            bytes: matrix.total_bytes(),
        },
        combinations: (evaluations.iter())
            .map(|e| JsonCombination {
                selector: e.combination.selector.to_string(),
                mapper: e.combination.mapper.to_string(),
                router: e.combination.router.to_string(),
                links: e.stats.links,
                max_bytes_per_capacity: e.stats.max,
                relative: super::relative(e.stats.max, base),
                min_bytes_per_capacity: e.stats.min,
                mean_bytes_per_capacity: e.stats.mean,
                variance: e.stats.variance,
                max_flows: e.stats.max_flows,
                hosts: (e.hosts.iter())
                    .map(|&h| cluster.names[cluster.hosts[h as usize] as usize].as_str())
                    .collect(),
            })
            .collect(),
    };
    json_text(&doc)
}
