//! The `--links` table of a byte-weighted simulation: one CSV row per directed edge.

use crate::engine::weighted::WeightedLinks;
use crate::fabric::Fabric;
use crate::report::csv_field;
use std::fmt::Write as _;

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
