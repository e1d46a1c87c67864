//! Turning `orcs traffic` evaluations into bytes: the table with one row per combination
//! (its largest link load relative to the first row's) and the per-link CSV.

use crate::cluster::evaluate::Evaluation;
use crate::cluster::loads::is_network_link;
use crate::cluster::Cluster;
use crate::workload::matrix::TrafficMatrix;
use std::fmt::Write as _;

/// The table's head: what was placed on what, and the column names.
pub fn traffic_header(
    cluster_path: &str,
    cluster: &Cluster,
    matrix_path: &str,
    matrix: &TrafficMatrix,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "cluster {cluster_path}: {} hosts, {} processing elements; matrix {matrix_path}: {} ranks, {} pairs, {} bytes",
        cluster.hosts.len(),
        cluster.host_pes.iter().map(|&p| p as u64).sum::<u64>(),
        matrix.ranks,
        matrix.entries.len(),
        matrix.total_bytes()
    );
    let _ = writeln!(
        s,
        "{:<15} {:<7} {:<12} {:>18} {:>10} {:>18} {:>10}  hosts",
        "selector", "mapper", "router", "max bytes/cap", "relative", "mean bytes/cap", "max flows"
    );
    s
}

/// One row of the table; `base` is the first row's largest load, which `relative`
/// divides by.
pub fn traffic_row(cluster: &Cluster, e: &Evaluation, base: f64) -> String {
    let c = &e.combination;
    let names: Vec<&str> = e
        .hosts
        .iter()
        .map(|&h| cluster.names[cluster.hosts[h as usize] as usize].as_str())
        .collect();
    format!(
        "{:<15} {:<7} {:<12} {:>18.1} {:>10.9} {:>18.1} {:>10}  {}\n",
        c.selector.to_string(),
        c.mapper.to_string(),
        c.router.to_string(),
        e.stats.max,
        if base > 0.0 { e.stats.max / base } else { 0.0 },
        e.stats.mean,
        e.stats.max_flows,
        names.join(",")
    )
}

/// The head of the per-link CSV.
pub const TRAFFIC_LINKS_HEADER: &str =
    "selector,mapper,router,src,dst,traffic_bytes,flows,capacity\n";

/// The per-link CSV rows of one combination: every network link's bytes, flows and
/// capacity.
pub fn traffic_links_rows(cluster: &Cluster, e: &Evaluation) -> String {
    let c = &e.combination;
    let mut s = String::new();
    for (i, &(u, v, cap)) in cluster.edges.iter().enumerate() {
        if !is_network_link(cluster, i as u32) {
            continue;
        }
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{cap}",
            c.selector,
            c.mapper,
            c.router,
            cluster.names[u as usize],
            cluster.names[v as usize],
            e.loads.bytes[i],
            e.loads.flows[i]
        );
    }
    s
}
