//! The CSV table of a simulation's selected metric: pairs per weight (hist_max_cong),
//! one row per run (hist_acc_band, sum_max_cong, dep_max_delay) or one row per edge
//! (get_cable_cong). Columns in the README.

use crate::engine::metric::{scaled_congestion, MetricKind};
use crate::engine::unit::SimOutcome;
use crate::fabric::Fabric;
use crate::report::csv_field;
use std::fmt::Write as _;

/// The selected metric as CSV (one table; columns in the README).
pub fn csv_report(metric: MetricKind, fabric: &Fabric, outcome: &SimOutcome) -> String {
    match metric {
        MetricKind::HistMaxCong => weights_csv(outcome),
        MetricKind::HistAccBand | MetricKind::SumMaxCong | MetricKind::DepMaxDelay => {
            runs_csv(outcome)
        }
        MetricKind::GetCableCong => cables_csv(fabric, outcome),
    }
}

/// `weight,count,fraction`: the weights some pair had.
fn weights_csv(outcome: &SimOutcome) -> String {
    let total = outcome.total_pairs();
    let mut s = String::from("weight,count,fraction\n");
    for (w, &c) in outcome.weight_hist.iter().enumerate() {
        if c > 0 {
            let _ = writeln!(s, "{w},{c},{}", c as f64 / total as f64);
        }
    }
    s
}

/// `run,pairs,acc_band,sum_max_cong[,dep_max_delay]`: acc_band empty for a run without
/// traffic.
fn runs_csv(outcome: &SimOutcome) -> String {
    let delay = !outcome.dep_max_delay.is_empty();
    let mut s = String::from("run,pairs,acc_band,sum_max_cong");
    s.push_str(if delay { ",dep_max_delay\n" } else { "\n" });
    for r in 0..outcome.acc_band.len() {
        let acc = outcome.acc_band[r];
        let acc = if acc.is_nan() {
            String::new()
        } else {
            acc.to_string()
        };
        let _ = write!(
            s,
            "{r},{},{acc},{}",
            outcome.pairs[r], outcome.sum_max_cong[r]
        );
        if delay {
            let _ = write!(s, ",{}", outcome.dep_max_delay[r]);
        }
        s.push('\n');
    }
    s
}

/// `edge_id,tail,head,key,count,congestion`: every edge.
fn cables_csv(fabric: &Fabric, outcome: &SimOutcome) -> String {
    let scaled = scaled_congestion(&outcome.cable);
    let mut s = String::from("edge_id,tail,head,key,count,congestion\n");
    for (e, &c) in outcome.cable.iter().enumerate() {
        let _ = writeln!(
            s,
            "{e},{},{},{},{c},{:.6}",
            csv_field(&fabric.node_names[fabric.edge_tail[e] as usize]),
            csv_field(&fabric.node_names[fabric.edge_head[e] as usize]),
            csv_field(fabric.edge_keys[e].as_deref().unwrap_or("")),
            scaled[e]
        );
    }
    s
}
