//! Batch scans (`orcs scan`): a TOML plan expanded into cells (fabric × pattern ×
//! communicator size × metric), their results as checksummed JSON lines that survive a
//! crash, resumption, deterministic shards and merging.
//!
//! Every cell is exactly the simulation `orcs -i FABRIC -p PATTERN [-a ARG] -s SIZE
//! --metric METRIC -n RUNS --seed SEED` performs, so any record can be reproduced by the
//! command it carries. A record is one line: a JSON object whose last member is
//! `"crc":"xxxxxxxx"`, the CRC-32 of the line's text before that member (with `}` in its
//! place). A line that is cut short or altered fails the check; only the file's last line
//! can be cut short by a crash (records are appended whole and synced), so a resumed scan
//! drops such a tail and runs its cell again.
//!
//! This file holds plans, cells, records and merging; [`run`] runs a plan's pending
//! cells (resumed, sharded, shared out over MPI ranks) and [`cache`] keeps each fabric of
//! a plan as a binary cache beside the results.
//!
//! May use: [`crate::engine`] (every cell is a [`SimRequest`]), [`crate::fabric`],
//! [`crate::gen`] and [`crate::routing`] (fabrics of a plan), [`crate::workload`]
//! (patterns) and [`crate::report`] (CSV fields and histogram bins).

pub mod cache;
pub mod run;

use crate::engine::metric::MetricKind;
use crate::engine::request::{PrepareError, SimRequest};
use crate::error::LocatedError;
use crate::workload::pattern::Pattern;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Why a scan cannot go on: a bad plan or results file, a file that cannot be read or
/// written, or a fabric of the plan that cannot be loaded, generated or routed. (A cell
/// that cannot run is not an error of the scan: its record carries a [`CellError`].)
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A plan, results or fabric file is not what a scan reads: the file, the line when
    /// known, what was expected.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// A results file, part file, fabric or cache folder cannot be read or written.
    #[error("{what} '{path}'")]
    File {
        /// What failed, e.g. "cannot open results file".
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing a fabric cache failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A generated fabric of the plan cannot be generated.
    #[error(transparent)]
    Gen(#[from] crate::gen::topology::GenError),
    /// A generated fabric of the plan cannot be routed.
    #[error(transparent)]
    Routing(#[from] crate::routing::RoutingChoiceError),
}

impl ScanError {
    /// A [`ScanError::File`] for `path`.
    pub(crate) fn file(what: &'static str, path: &str, source: std::io::Error) -> Self {
        ScanError::File {
            what,
            path: path.to_string(),
            source,
        }
    }
}

/// A plan or results error at `line` of `path`, when known.
fn located(path: &str, line: Option<usize>, message: impl Into<String>) -> ScanError {
    ScanError::Input(LocatedError::at(path, line.map(|l| l as u32), message))
}

/// Why one cell cannot run; its record carries the text as `error`. Such a failure is as
/// final as a result: the same cell fails the same way again.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    /// The pattern has no traffic at this size and the metric needs some.
    #[error("pattern {pattern} with commsize {commsize} has no traffic to measure")]
    NoTraffic {
        /// The pattern as the plan names it.
        pattern: String,
        /// The communicator size.
        commsize: u32,
    },
    /// The cell does not fit its fabric (too few hosts, a size out of range).
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    /// Some host pairs of the communicator are not routed.
    #[error("{broken} of {pairs} host pairs are not routed")]
    Unrouted {
        /// Pairs without a route.
        broken: u64,
        /// Pairs checked.
        pairs: u64,
    },
}

/// Where a fabric of the plan comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FabricSource {
    /// A file `orcs -i` reads (dot, gzip'd dot, `.orcsfab`).
    File(String),
    /// `orcs gen SPEC --routing ROUTING`.
    Gen {
        /// The generator specification.
        spec: String,
        /// The routing engine (None: the generator's default).
        routing: Option<String>,
    },
}

impl FabricSource {
    /// The text naming the fabric in records and reports.
    pub fn label(&self) -> String {
        match self {
            FabricSource::File(p) => p.clone(),
            FabricSource::Gen { spec, routing } => match routing {
                Some(r) => format!("gen:{spec} --routing {r}"),
                None => format!("gen:{spec}"),
            },
        }
    }
}

/// One cell: a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Index in plan order (fabric, then pattern, then size, then metric).
    pub index: usize,
    /// Index into [`Plan::fabrics`].
    pub fabric: usize,
    /// Pattern name as written in the plan.
    pub pattern: String,
    /// Pattern argument, if any.
    pub arg: Option<String>,
    /// The parsed pattern.
    pub parsed: Pattern,
    /// Communicator size (0: all hosts, rounded down to even).
    pub commsize: u64,
    /// Metric.
    pub metric: MetricKind,
}

/// A whole plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The plan file.
    pub path: String,
    /// Runs per cell.
    pub runs: u64,
    /// Seed of every cell.
    pub seed: u64,
    /// The fabrics, globs expanded, in plan order.
    pub fabrics: Vec<FabricSource>,
    /// The cells.
    pub cells: Vec<Cell>,
}

impl Plan {
    /// The key identifying a cell's result, independent of its position in the plan:
    /// every parameter that changes the numbers.
    pub fn key(&self, cell: &Cell) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}|{}",
            self.fabrics[cell.fabric].label(),
            cell.pattern,
            cell.arg.as_deref().unwrap_or(""),
            cell.commsize,
            cell.metric,
            self.runs,
            self.seed
        )
    }

    /// The shell command that computes `cell` alone (fabric files as written; generated
    /// fabrics are generated first).
    pub fn command(&self, cell: &Cell) -> String {
        let (prefix, input) = match &self.fabrics[cell.fabric] {
            FabricSource::File(p) => (String::new(), p.clone()),
            FabricSource::Gen { spec, routing } => (
                format!(
                    "orcs gen {spec}{} -o fabric.orcsfab && ",
                    routing
                        .as_deref()
                        .map(|r| format!(" --routing {r}"))
                        .unwrap_or_default()
                ),
                "fabric.orcsfab".to_string(),
            ),
        };
        let mut s = format!("{prefix}orcs -i {input} -p {}", cell.pattern);
        if let Some(a) = &cell.arg {
            let _ = write!(s, " -a '{a}'");
        }
        let _ = write!(
            s,
            " -s {} --metric {} -n {} --seed {}",
            cell.commsize, cell.metric, self.runs, self.seed
        );
        s
    }

    /// The cells of shard `index` (1-based) of `count`: every `count`-th cell from the
    /// `index`-th, so shards are disjoint, cover the plan and stay balanced across fabrics.
    pub fn shard(&self, index: usize, count: usize) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.index % count == index - 1)
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    runs: u64,
    #[serde(default)]
    seed: u64,
    fabrics: Vec<RawFabric>,
    patterns: Vec<RawPattern>,
    #[serde(default = "default_sizes")]
    commsizes: Vec<u64>,
    metrics: Vec<String>,
}

fn default_sizes() -> Vec<u64> {
    vec![0]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFabric {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    gen: Option<String>,
    #[serde(default)]
    routing: Option<OneOrMany>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawPattern {
    Name(String),
    Full {
        name: String,
        #[serde(default)]
        arg: Option<String>,
    },
}

/// Reads a plan; fabric paths and globs are relative to the plan's folder. O(plan size
/// + globbed files).
pub fn read_plan(path: &str) -> Result<Plan, ScanError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| located(path, None, format!("cannot read: {e}")))?;
    parse_plan(&text, path)
}

/// Parses plan `text`; `path` names it in errors and anchors relative paths.
pub fn parse_plan(text: &str, path: &str) -> Result<Plan, ScanError> {
    let raw: RawPlan = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        located(path, line, e.message().to_string())
    })?;
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).map(|i| i + 1);
    let err = |needle: &str, message: String| located(path, line_of(needle), message);
    if raw.runs < 1 {
        return Err(err("runs", "runs must be at least 1".to_string()));
    }
    let base = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut fabrics = Vec::new();
    for f in raw.fabrics {
        let routings: Vec<Option<String>> = match f.routing {
            None => vec![None],
            Some(OneOrMany::One(r)) => vec![Some(r)],
            Some(OneOrMany::Many(v)) => v.into_iter().map(Some).collect(),
        };
        match (f.path, f.gen) {
            (Some(p), None) => {
                if routings != [None] {
                    return Err(err(&p, format!("fabric '{p}': routing applies to gen fabrics (a file carries its own)")));
                }
                let full = base.join(&p);
                let pattern = full.to_string_lossy().into_owned();
                let mut matched: Vec<String> = glob::glob(&pattern)
                    .map_err(|e| err(&p, format!("bad glob '{p}': {e}")))?
                    .filter_map(Result::ok)
                    .map(|pb| pb.to_string_lossy().into_owned())
                    .collect();
                matched.sort();
                if matched.is_empty() {
                    return Err(err(&p, format!("fabric '{p}' matches no file")));
                }
                fabrics.extend(matched.into_iter().map(FabricSource::File));
            }
            (None, Some(spec)) => {
                for routing in routings {
                    fabrics.push(FabricSource::Gen {
                        spec: spec.clone(),
                        routing,
                    });
                }
            }
            _ => {
                return Err(located(
                    path,
                    line_of("[[fabrics]]"),
                    "every [[fabrics]] entry needs exactly one of path (a file or glob) and gen (an orcs gen specification)",
                ))
            }
        }
    }
    let mut patterns = Vec::new();
    for p in raw.patterns {
        let (name, arg) = match p {
            RawPattern::Name(n) => (n, None),
            RawPattern::Full { name, arg } => (name, arg),
        };
        let parsed = Pattern::parse(&name, arg.as_deref())
            .map_err(|e| err(&name, format!("pattern '{name}': {e}")))?;
        patterns.push((name, arg, parsed));
    }
    let mut metrics = Vec::new();
    for m in &raw.metrics {
        let metric = MetricKind::ALL
            .into_iter()
            .find(|k| k.name() == m)
            .ok_or_else(|| {
                err(
                    m,
                    format!(
                        "unknown metric '{m}' (expected sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong)"
                    ),
                )
            })?;
        metrics.push(metric);
    }
    for (what, empty) in [
        ("fabrics", fabrics.is_empty()),
        ("patterns", patterns.is_empty()),
        ("commsizes", raw.commsizes.is_empty()),
        ("metrics", metrics.is_empty()),
    ] {
        if empty {
            return Err(err(what, format!("{what} lists nothing")));
        }
    }
    let mut cells = Vec::new();
    for f in 0..fabrics.len() {
        for (name, arg, parsed) in &patterns {
            for &commsize in &raw.commsizes {
                for &metric in &metrics {
                    cells.push(Cell {
                        index: cells.len(),
                        fabric: f,
                        pattern: name.clone(),
                        arg: arg.clone(),
                        parsed: parsed.clone(),
                        commsize,
                        metric,
                    });
                }
            }
        }
    }
    Ok(Plan {
        path: path.to_string(),
        runs: raw.runs,
        seed: raw.seed,
        fabrics,
        cells,
    })
}

/// Runs one cell on its loaded fabric and returns its record (not yet sealed), an
/// `error` record when the cell cannot run (too few hosts, a size out of range, broken
/// routes, a pattern without traffic for a metric that needs some): those are as final
/// as results, since the same cell fails the same way again. `progress` receives the runs
/// done. O(runs × pairs × hops), like `orcs -i`.
pub fn run_cell(
    plan: &Plan,
    cell: &Cell,
    loaded: &crate::fabric::LoadedFabric,
    progress: &(dyn Fn(u64) + Sync),
) -> Value {
    let started = std::time::Instant::now();
    let mut record = serde_json::json!({
        "cell": cell.index,
        "key": plan.key(cell),
        "fabric": plan.fabrics[cell.fabric].label(),
        "pattern": cell.pattern,
        "arg": cell.arg,
        "commsize": cell.commsize,
        "metric": cell.metric.name(),
        "runs": plan.runs,
        "seed": plan.seed,
        "orcs_version": env!("CARGO_PKG_VERSION"),
        "command": plan.command(cell),
    });
    let result = simulate_cell(plan, cell, loaded, progress);
    let obj = record.as_object_mut().expect("an object");
    match result {
        Ok((hosts, result)) => {
            obj.insert("hosts".into(), hosts.into());
            obj.insert("result".into(), result);
        }
        Err(e) => {
            obj.insert("error".into(), e.to_string().into());
        }
    }
    obj.insert(
        "seconds".into(),
        ((started.elapsed().as_secs_f64() * 1e3).round() / 1e3).into(),
    );
    record
}

/// The simulation of a cell: (communicator size used, result object). The cell is
/// sized, checked and laid out as `orcs -i` does it ([`SimRequest`]), with ORCS's
/// defaults for everything the plan does not set.
fn simulate_cell(
    plan: &Plan,
    cell: &Cell,
    loaded: &crate::fabric::LoadedFabric,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(u64, Value), CellError> {
    let fabric = &loaded.fabric;
    let request = SimRequest {
        commsize: cell.commsize,
        ..SimRequest::new(cell.parsed.clone(), cell.metric, plan.runs)
    };
    let shape = request.shape(fabric.num_hosts()).map_err(|e| match e {
        PrepareError::NoTraffic { commsize, .. } => CellError::NoTraffic {
            pattern: cell.pattern.clone(),
            commsize,
        },
        e => e.into(),
    })?;
    let prepared = request.prepare(fabric, shape, plan.seed)?;
    let sim = prepared
        .simulation(fabric, &loaded.table, &request, loaded.routes.as_ref())
        .map_err(|check| CellError::Unrouted {
            broken: check.broken(),
            pairs: check.pairs_checked,
        })?;
    let outcome = sim.run(progress);
    Ok((
        shape.context.commsize as u64,
        cell_result(cell.metric, fabric, &outcome),
    ))
}

/// The `result` object of a cell's record: the metric's per-run statistics, its
/// aggregate where it has one, and the pairs per run.
fn cell_result(
    metric: MetricKind,
    fabric: &crate::fabric::Fabric,
    o: &crate::engine::unit::SimOutcome,
) -> Value {
    use crate::engine::metric::{acc_band, Summary};
    let acc: Vec<f64> = o.acc_band.iter().copied().filter(|v| !v.is_nan()).collect();
    let mut result = serde_json::Map::new();
    let stats = match metric {
        MetricKind::SumMaxCong | MetricKind::GetCableCong => Summary::of_counts(&o.sum_max_cong),
        MetricKind::DepMaxDelay => Summary::of_counts(&o.dep_max_delay),
        MetricKind::HistAccBand | MetricKind::HistMaxCong => Summary::of(&acc),
    };
    result.insert(
        "stats".into(),
        serde_json::to_value(stats).unwrap_or(Value::Null),
    );
    match metric {
        MetricKind::HistMaxCong => {
            result.insert("bw".into(), acc_band(&o.weight_hist).into());
            let weights: Vec<Value> = o
                .weight_hist
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(w, &c)| serde_json::json!([w, c]))
                .collect();
            result.insert("weights".into(), weights.into());
        }
        MetricKind::HistAccBand => {
            let bins = crate::report::acc_band_bins(&o.acc_band);
            result.insert("bins".into(), bins.to_vec().into());
        }
        MetricKind::GetCableCong => {
            let mut order: Vec<usize> = (0..o.cable.len()).collect();
            order.sort_by_key(|&e| (std::cmp::Reverse(o.cable[e]), e));
            let hot: Vec<Value> = order
                .iter()
                .take(10)
                .filter(|&&e| o.cable[e] > 0)
                .map(|&e| {
                    serde_json::json!([
                        fabric.node_names[fabric.edge_tail[e] as usize],
                        fabric.node_names[fabric.edge_head[e] as usize],
                        o.cable[e]
                    ])
                })
                .collect();
            result.insert("hot_links".into(), hot.into());
        }
        _ => {}
    }
    result.insert(
        "pairs".into(),
        serde_json::to_value(Summary::of_counts(&o.pairs)).unwrap_or(Value::Null),
    );
    Value::Object(result)
}

/// Seals a record: `object` (a JSON object without `crc`) in compact form with its
/// CRC-32 appended as the last member, and a newline.
pub fn seal(object: &Value) -> String {
    let text = object.to_string();
    let crc = crc32fast::hash(text.as_bytes());
    let mut line = text[..text.len() - 1].to_string();
    if line.len() > 1 {
        line.push(',');
    }
    let _ = writeln!(line, "\"crc\":\"{crc:08x}\"}}");
    line
}

/// Checks and parses one sealed line (without its newline). None when it is not a
/// sealed record (cut short, altered, or not JSON).
pub fn unseal(line: &str) -> Option<Value> {
    let at = line
        .rfind(",\"crc\":\"")
        .or_else(|| line.rfind("\"crc\":\""))?;
    let stated = line.get(at..)?;
    let hex = stated
        .trim_start_matches(',')
        .strip_prefix("\"crc\":\"")?
        .strip_suffix("\"}")?;
    let body = format!("{}}}", &line[..at]);
    // Exactly the text seal writes: 8 lowercase hex digits.
    if format!("{:08x}", crc32fast::hash(body.as_bytes())) != hex {
        return None;
    }
    let value: Value = serde_json::from_str(&body).ok()?;
    value.is_object().then_some(value)
}

/// The valid records of a results file, and the byte length of the valid prefix (a
/// resumed scan truncates the file there). A bad line that is not the last one is an
/// error: only a crash can damage a record, and only the last. A missing file is empty.
pub fn read_results(path: &str) -> Result<(Vec<Value>, u64), ScanError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(located(path, None, format!("cannot read: {e}"))),
    };
    let mut records = Vec::new();
    let mut valid = 0usize;
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| start + i);
        let record = end.and_then(|end| {
            std::str::from_utf8(&bytes[start..end])
                .ok()
                .and_then(unseal)
        });
        match (record, end) {
            (Some(r), Some(end)) => {
                records.push(r);
                start = end + 1;
                valid = start;
            }
            (_, end) => {
                // The damaged line must be the last one: no newline, or nothing after it.
                if end.is_some_and(|end| end + 1 < bytes.len()) {
                    return Err(located(
                        path,
                        Some(line_no),
                        "not a sealed orcs scan record (its checksum does not match); only the last line of a results file can be cut short by a crash",
                    ));
                }
                break;
            }
        }
    }
    Ok((records, valid as u64))
}

/// The key of a record (see [`Plan::key`]).
pub fn record_key(record: &Value) -> Option<&str> {
    record.get("key").and_then(Value::as_str)
}

/// Merges records: the first record of each key wins, ordered by cell index then key.
pub fn merge(records: Vec<Value>) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<Value> = records
        .into_iter()
        .filter(|r| record_key(r).is_some_and(|k| seen.insert(k.to_string())))
        .collect();
    kept.sort_by(|a, b| {
        let idx = |r: &Value| r.get("cell").and_then(Value::as_u64).unwrap_or(u64::MAX);
        idx(a)
            .cmp(&idx(b))
            .then_with(|| record_key(a).cmp(&record_key(b)))
    });
    kept
}

/// One CSV row per record: the cell's parameters, then the selected metric's per-run
/// mean, standard deviation, minimum, maximum and 95 % confidence interval (for
/// hist_max_cong, of the per-run bandwidth), the aggregate bandwidth `bw` where the
/// metric has one, and the seconds the cell took.
pub fn summary_csv(records: &[Value]) -> String {
    let mut s = String::from(
        "cell,fabric,pattern,arg,commsize,metric,runs,seed,mean,sd,min,max,ci95_low,ci95_high,bw,seconds\n",
    );
    let text = |r: &Value, k: &str| -> String {
        match r.get(k) {
            Some(Value::String(v)) => crate::report::csv_field(v),
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
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            text(r, "cell"),
            text(r, "fabric"),
            text(r, "pattern"),
            text(r, "arg"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn located_error(e: ScanError) -> LocatedError {
        match e {
            ScanError::Input(e) => e,
            e => panic!("not an input error: {e}"),
        }
    }

    #[test]
    fn seal_round_trip_and_damage() {
        let v = serde_json::json!({"cell": 3, "key": "a|b", "x": [1.5, null]});
        let line = seal(&v);
        assert!(line.ends_with("\"}\n"));
        assert_eq!(unseal(line.trim_end()), Some(v));
        // Cut short, or one character altered: rejected.
        let t = line.trim_end();
        assert!(unseal(&t[..t.len() - 3]).is_none());
        assert!(unseal(&t.replace("a|b", "a|c")).is_none());
    }

    proptest! {
        #[test]
        fn damaged_lines_never_pass(cut in 0usize..200, flip in 0usize..200, bit in 0u8..8) {
            let v = serde_json::json!({"cell": 7, "key": "fabric|bisect||0|sum_max_cong|100|1",
                                       "result": {"stats": {"mean": 2.5}}});
            let line = seal(&v);
            let t = line.trim_end().as_bytes();
            let cut = cut % t.len();
            prop_assert!(std::str::from_utf8(&t[..cut]).ok().and_then(unseal).is_none());
            let mut altered = t.to_vec();
            let i = flip % altered.len();
            altered[i] ^= 1 << bit;
            if let Ok(s) = std::str::from_utf8(&altered) {
                // A flip inside the stated checksum's hex may still be a valid hex digit of
                // another value: it must then mismatch, so nothing passes.
                prop_assert!(unseal(s).is_none());
            }
        }
    }

    #[test]
    fn results_keep_the_valid_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let a = seal(&serde_json::json!({"cell": 0, "key": "k0"}));
        let b = seal(&serde_json::json!({"cell": 1, "key": "k1"}));
        std::fs::write(&path, format!("{a}{}", &b[..b.len() / 2])).unwrap();
        let (records, valid) = read_results(path.to_str().unwrap()).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(valid, a.len() as u64);
        // Damage in the middle is an error naming the line.
        std::fs::write(&path, format!("{}{b}", a.replace("k0", "k9"))).unwrap();
        let e = located_error(read_results(path.to_str().unwrap()).unwrap_err());
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn plan_cells_keys_and_shards() {
        let plan = parse_plan(
            "runs = 10\nseed = 3\nmetrics = [\"sum_max_cong\", \"hist_acc_band\"]\ncommsizes = [0, 8]\n\
             patterns = [\"bisect\", {name = \"neighbor\", arg = \"4\"}]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=3\"\nrouting = [\"dmodk\", \"minhop\"]\n",
            "plan.toml",
        )
        .unwrap();
        // 2 fabrics × 2 patterns × 2 sizes × 2 metrics.
        assert_eq!(plan.cells.len(), 16);
        assert_eq!(
            plan.fabrics[1].label(),
            "gen:kary-ntree:k=2,n=3 --routing minhop"
        );
        let c = &plan.cells[5];
        assert_eq!(
            (c.fabric, c.pattern.as_str(), c.commsize),
            (0, "neighbor", 0)
        );
        assert_eq!(
            plan.key(c),
            "gen:kary-ntree:k=2,n=3 --routing dmodk|neighbor|4|0|hist_acc_band|10|3"
        );
        let mut all: Vec<usize> = (1..=3)
            .flat_map(|i| plan.shard(i, 3).into_iter().map(|c| c.index))
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn plan_errors_name_the_line() {
        let e = parse_plan("runs = 10\nmetrics = [\"max_cong\"]\npatterns = [\"bisect\"]\n[[fabrics]]\ngen = \"x\"\n", "p.toml")
            .unwrap_err();
        let e = located_error(e);
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("unknown metric 'max_cong'"));
        let e = located_error(parse_plan("runs = 10\nbogus = 1\n", "p.toml").unwrap_err());
        assert!(e.line.is_some(), "{e}");
    }
}
