//! The `--links` table of a simulation: one CSV row per directed edge with what the
//! route check and the runs recorded about it.

use crate::engine::unit::LinkCongestionTotals;
use crate::fabric::Fabric;
use crate::report::csv_field;
use std::fmt::Write as _;

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
