//! The CSV tables of `orcs traffic`: one row per combination (`--format csv`), and
//! every network link's bytes, flows and capacity for every combination (`--links`).

use crate::cluster::evaluate::Evaluation;
use crate::cluster::loads::is_network_link;
use crate::cluster::Cluster;
use crate::report::csv_field;
use std::fmt::Write as _;

/// The head of the table of combinations.
pub const TRAFFIC_CSV_HEADER: &str = "selector,mapper,router,links,max_bytes_per_capacity,relative,min_bytes_per_capacity,mean_bytes_per_capacity,variance,max_flows,hosts\n";

/// One combination's row: its statistics over the network links (bytes ÷ capacity,
/// `relative` = its largest over `base`, the first combination's largest) and its hosts
/// in the selector's order, separated by spaces.
pub fn traffic_csv_row(cluster: &Cluster, e: &Evaluation, base: f64) -> String {
    let (c, st) = (&e.combination, &e.stats);
    let hosts: Vec<&str> = (e.hosts.iter())
        .map(|&h| cluster.names[cluster.hosts[h as usize] as usize].as_str())
        .collect();
    format!(
        "{},{},{},{},{},{},{},{},{},{},{}\n",
        c.selector,
        c.mapper,
        c.router,
        st.links,
        st.max,
        super::relative(st.max, base),
        st.min,
        st.mean,
        st.variance,
        st.max_flows,
        csv_field(&hosts.join(" "))
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
            csv_field(&cluster.names[u as usize]),
            csv_field(&cluster.names[v as usize]),
            e.loads.bytes[i],
            e.loads.flows[i]
        );
    }
    s
}
