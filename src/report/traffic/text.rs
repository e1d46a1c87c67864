//! The table of `orcs traffic`: what was placed on what, then one row per combination
//! with its largest link load relative to the first row's.

use crate::cluster::evaluate::Evaluation;
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
        super::relative(e.stats.max, base),
        e.stats.mean,
        e.stats.max_flows,
        names.join(",")
    )
}
