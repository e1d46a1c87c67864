//! The summary CSV of a scan: one row per record with the cell's parameters and the
//! selected metric's statistics.

use crate::report::csv_field;
use crate::scan::split_label;
use serde_json::Value;
use std::fmt::Write as _;

/// One CSV row per record: the cell's parameters (`fabric` and, for a generated one,
/// its `routing` engine in a column of its own; `traffic`: a traffic cell's file and
/// trace flags), then the selected metric's per-run mean, standard deviation, minimum,
/// maximum and 95 % confidence interval (for hist_max_cong, of the per-run bandwidth;
/// for a traffic cell's sum_max_cong, of the largest link load in bytes), the aggregate
/// bandwidth `bw` where the metric has one, and the seconds the cell took. A task cell's
/// row (`pattern` tasks, its `orcs tasks run` flags as `arg`, its nodes as `commsize`)
/// has the root tasks' completion time in seconds (metric `completion_s`): the mean over
/// every measured root task, the slowest (no sd or minimum: the simulation keeps
/// percentiles), and the 95 % confidence interval of the mean over replications.
pub fn summary_csv(records: &[&Value]) -> String {
    let mut s = String::from(
        "cell,fabric,routing,pattern,arg,traffic,commsize,metric,runs,seed,mean,sd,min,max,ci95_low,ci95_high,bw,seconds\n",
    );
    let text = |r: &Value, k: &str| -> String {
        match r.get(k) {
            Some(Value::String(v)) => csv_field(v),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    };
    let fabric = |r: &Value| -> (String, String) {
        let label = r.get("fabric").and_then(Value::as_str).unwrap_or("");
        let (fabric, routing) = split_label(label);
        (
            csv_field(fabric),
            routing.map(csv_field).unwrap_or_default(),
        )
    };
    for r in records {
        let (fabric, routing) = fabric(r);
        let completion = r.get("result").and_then(|x| x.get("completion_s"));
        if completion.is_some() || r.get("pattern").and_then(Value::as_str) == Some("tasks") {
            let _ = writeln!(
                s,
                "{},{},{},tasks,{},,{},completion_s,,{},{},,,{},{},{},,{}",
                text(r, "cell"),
                fabric,
                routing,
                text(r, "arg"),
                text(r, "commsize"),
                text(r, "seed"),
                completion_stat(completion, "mean"),
                completion_stat(completion, "max"),
                completion_stat(completion, "ci95_low"),
                completion_stat(completion, "ci95_high"),
                text(r, "seconds"),
            );
            continue;
        }
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
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            text(r, "cell"),
            fabric,
            routing,
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

/// One figure of a task cell's completion times (empty when the cell failed or the
/// simulation has no interval): `mean`, `max` (the percentile q = 1), `ci95_low` and `ci95_high` (the mean of replications ± its half
/// width).
fn completion_stat(completion: Option<&Value>, which: &str) -> String {
    let Some(c) = completion else {
        return String::new();
    };
    let number = |v: Option<&Value>| v.and_then(Value::as_f64);
    let percentile = |q: f64| {
        (c.get("percentiles").and_then(Value::as_array))
            .and_then(|ps| ps.iter().find(|p| number(p.get("q")) == Some(q)))
            .and_then(|p| p.get("s"))
            .map(|v| v.to_string())
    };
    let interval = |sign: f64| match (
        number(c.get("mean_of_replications")),
        number(c.get("half_width")),
    ) {
        (Some(m), Some(h)) => Some((m + sign * h).to_string()),
        _ => None,
    };
    match which {
        "mean" => c.get("mean").map(|v| v.to_string()),
        "max" => percentile(1.0),
        "ci95_low" => interval(-1.0),
        "ci95_high" => interval(1.0),
        _ => None,
    }
    .unwrap_or_default()
}

/// A traffic cell's file followed by its trace flags; empty for other cells.
fn traffic_label(r: &Value) -> String {
    let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
    match (field("traffic"), field("trace_options")) {
        (file, "") => file.to_string(),
        (file, flags) => format!("{file} {flags}"),
    }
}
