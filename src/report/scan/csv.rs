//! The summary CSV of a scan: one row per record with the cell's parameters and the
//! selected metric's statistics.

use crate::report::csv_field;
use serde_json::Value;
use std::fmt::Write as _;

/// One CSV row per record: the cell's parameters (`traffic`: a traffic cell's file and
/// trace flags), then the selected metric's per-run mean, standard deviation, minimum,
/// maximum and 95 % confidence interval (for hist_max_cong, of the per-run bandwidth;
/// for a traffic cell's sum_max_cong, of the largest link load in bytes), the aggregate
/// bandwidth `bw` where the metric has one, and the seconds the cell took.
pub fn summary_csv(records: &[&Value]) -> String {
    let mut s = String::from(
        "cell,fabric,pattern,arg,traffic,commsize,metric,runs,seed,mean,sd,min,max,ci95_low,ci95_high,bw,seconds\n",
    );
    let text = |r: &Value, k: &str| -> String {
        match r.get(k) {
            Some(Value::String(v)) => csv_field(v),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    };
    for r in records {
        let stats = r.get("result").and_then(|x| x.get("stats"));
        let stat = |k: &str| {
            stats
                .and_then(|x| x.get(k))
                .map(|v| v.to_string())
                .unwrap_or_default()
        };
        let bw = r
            .get("result")
            .and_then(|x| x.get("bw"))
            .map(|v| v.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            text(r, "cell"),
            text(r, "fabric"),
            text(r, "pattern"),
            text(r, "arg"),
            csv_field(&traffic_label(r)),
            text(r, "commsize"),
            text(r, "metric"),
            text(r, "runs"),
            text(r, "seed"),
            stat("mean"),
            stat("sd"),
            stat("min"),
            stat("max"),
            stat("ci95_low"),
            stat("ci95_high"),
            bw,
            text(r, "seconds"),
        );
    }
    s
}

/// A traffic cell's file followed by its trace flags; empty for other cells.
fn traffic_label(r: &Value) -> String {
    let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
    match (field("traffic"), field("trace_options")) {
        (file, "") => file.to_string(),
        (file, flags) => format!("{file} {flags}"),
    }
}
