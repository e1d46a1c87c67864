//! The CSV table of a byte-weighted simulation: one row per run.

use crate::engine::weighted::WeightedOutcome;
use std::fmt::Write as _;

/// One CSV row per run: `run,max_load,max_utilisation,utilisation_sd,max_flows` and
/// `acc_band` when computed (empty for a run without bytes).
pub fn matrix_csv(o: &WeightedOutcome) -> String {
    let band = !o.acc_band.is_empty();
    let mut s = String::from("run,max_load,max_utilisation,utilisation_sd,max_flows");
    s.push_str(if band { ",acc_band\n" } else { "\n" });
    for r in 0..o.max_load.len() {
        let _ = write!(
            s,
            "{r},{},{},{},{}",
            o.max_load[r], o.max_utilisation[r], o.utilisation_sd[r], o.max_flows[r]
        );
        if band {
            let a = o.acc_band[r];
            if a.is_nan() {
                s.push(',');
            } else {
                let _ = write!(s, ",{a}");
            }
        }
        s.push('\n');
    }
    s
}
