//! The per-link CSV of `orcs traffic`: every network link's bytes, flows and capacity
//! for every combination.

use crate::cluster::evaluate::Evaluation;
use crate::cluster::loads::is_network_link;
use crate::cluster::Cluster;
use std::fmt::Write as _;

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
