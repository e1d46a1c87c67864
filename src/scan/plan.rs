//! Plans: the TOML file of a scan read into its fabrics (globs expanded, one generated
//! fabric per routing), its traffic files (globs expanded, with what of a trace counts)
//! and its cells (fabric × pattern × communicator size × metric), with the key that
//! identifies a cell's result and the command that reproduces it.

use super::tasks::TaskPoint;
use super::{located, ScanError};
use crate::engine::metric::MetricKind;
use crate::trace::collective::AlgorithmChoice;
use crate::trace::traffic::{Collectives, TrafficOptions, Window};
use crate::workload::pattern::Pattern;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use toml::Spanned;

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

/// The fabric and the routing engine that a [`FabricSource::label`] names: `gen:SPEC
/// --routing R` gives (`gen:SPEC`, Some(R)); a file, or a generator at its default
/// routing, gives the label and None.
pub fn split_label(label: &str) -> (&str, Option<&str>) {
    match label
        .strip_prefix("gen:")
        .and_then(|_| label.rsplit_once(" --routing "))
    {
        Some((fabric, routing)) => (fabric, Some(routing)),
        None => (label, None),
    }
}

/// A trace flag of `orcs -p matrix` and its value, e.g. `("--phase", "solve")`.
pub type TraceFlag = (&'static str, String);

/// A traffic file of the plan: what `orcs -p matrix --traffic FILE [trace flags]` reads.
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficSource {
    /// The file, as the plan's path leads to it.
    pub path: String,
    /// The trace flags the plan sets, as `orcs -p matrix` takes them: (flag, value as
    /// written). Empty but for a DUMPI trace's `.meta`; `--collectives expand`, the
    /// default, is left out.
    pub flags: Vec<TraceFlag>,
    /// What of a DUMPI trace counts, as the flags select it.
    pub options: TrafficOptions,
    /// The plan's line of the entry that names the file, for errors in reading it.
    pub line: Option<usize>,
}

impl TrafficSource {
    /// The trace flags as the command line gives them (empty without any).
    pub fn flags_text(&self) -> String {
        let mut s = String::new();
        for (flag, value) in &self.flags {
            let _ = write!(
                s,
                "{}{flag} {}",
                if s.is_empty() { "" } else { " " },
                shell_word(value)
            );
        }
        s
    }

    /// The text naming the traffic in keys and summaries: the file, then its trace flags.
    pub fn label(&self) -> String {
        match self.flags_text() {
            flags if flags.is_empty() => self.path.clone(),
            flags => format!("{} {flags}", self.path),
        }
    }
}

/// What a cell simulates.
#[derive(Debug, Clone, PartialEq)]
pub enum CellWorkload {
    /// A synthetic pattern (`-p NAME [-a ARG]`) measured by a metric.
    Pattern(Pattern, MetricKind),
    /// A traffic matrix (`-p matrix --traffic FILE`), an index into [`Plan::traffic`],
    /// measured by a metric.
    Traffic(usize, MetricKind),
    /// A task-model point (`orcs tasks run`): an index into [`Plan::tasks`].
    Tasks(usize),
}

/// One cell: a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Index in plan order (fabric, then pattern, then size, then metric; a fabric's task
    /// points after its patterns).
    pub index: usize,
    /// Index into [`Plan::fabrics`].
    pub fabric: usize,
    /// Pattern name as written in the plan (`matrix` for a traffic file).
    pub pattern: String,
    /// Pattern argument, if any.
    pub arg: Option<String>,
    /// What the cell simulates.
    pub workload: CellWorkload,
    /// Communicator size (0: all hosts, rounded down to even); a task cell's nodes (0:
    /// every host).
    pub commsize: u64,
}

impl Cell {
    /// The metric of a pattern or traffic cell (None for a task cell).
    pub fn metric(&self) -> Option<MetricKind> {
        match self.workload {
            CellWorkload::Pattern(_, metric) | CellWorkload::Traffic(_, metric) => Some(metric),
            CellWorkload::Tasks(_) => None,
        }
    }
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
    /// The traffic files, globs expanded, in plan order; each (file, trace flags) once.
    pub traffic: Vec<TrafficSource>,
    /// The task-model points of the `[[tasks]]` entries, in plan order.
    pub tasks: Vec<TaskPoint>,
    /// The cells.
    pub cells: Vec<Cell>,
    /// The plan's identity, fixed when it is read: see [`Plan::identity_of`]. Every
    /// record carries it, so that records of another plan are told apart.
    pub identity: String,
}

impl Plan {
    /// The identity of a plan with `cells` keyed by `key`: a hash (BLAKE3, 128 bits, in
    /// hex) of the [stream version](crate::engine::stream::STREAM_VERSION) and every
    /// cell's key in cell order, so two plans share it exactly when they expand to the
    /// same cells in the same order, whatever their TOML looks like, and draw the same
    /// numbers from a seed. The keys name file fabrics as the plan's path leads to them,
    /// as resuming does. O(cells).
    pub fn identity_of<'a>(keys: impl IntoIterator<Item = &'a str>) -> String {
        let mut hasher =
            blake3::Hasher::new_derive_key("orcs scan plan identity: cell keys in order");
        hasher.update(&crate::engine::stream::STREAM_VERSION.to_le_bytes());
        for key in keys {
            hasher.update(&(key.len() as u64).to_le_bytes());
            hasher.update(key.as_bytes());
        }
        hasher.finalize().as_bytes()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The plan as its records name it: identity and cell count.
    pub fn reference(&self) -> super::PlanRef<'_> {
        super::PlanRef {
            identity: &self.identity,
            cells: self.cells.len() as u64,
        }
    }

    /// The key identifying a cell's result, independent of its position in the plan:
    /// every parameter that changes the numbers (a traffic file's label in the place of
    /// the pattern argument).
    pub fn key(&self, cell: &Cell) -> String {
        let fabric = self.fabrics[cell.fabric].label();
        let (arg, metric) = match &cell.workload {
            CellWorkload::Traffic(t, metric) => (Cow::Owned(self.traffic[*t].label()), metric),
            CellWorkload::Pattern(_, metric) => {
                (Cow::Borrowed(cell.arg.as_deref().unwrap_or("")), metric)
            }
            CellWorkload::Tasks(t) => {
                // The point's flags hold every parameter; runs do not apply.
                return format!("{fabric}|tasks|{}|{}", self.tasks[*t].flags, self.seed);
            }
        };
        format!(
            "{fabric}|{}|{arg}|{}|{metric}|{}|{}",
            cell.pattern, cell.commsize, self.runs, self.seed
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
        let metric = match cell.workload {
            CellWorkload::Tasks(t) => {
                return format!(
                    "{prefix}orcs tasks run --network {} {} --seed {} --format json",
                    shell_word(&input),
                    self.tasks[t].flags,
                    self.seed
                );
            }
            CellWorkload::Pattern(_, metric) | CellWorkload::Traffic(_, metric) => metric,
        };
        let mut s = format!("{prefix}orcs -i {input} -p {}", cell.pattern);
        if let Some(a) = &cell.arg {
            let _ = write!(s, " -a '{a}'");
        }
        if let CellWorkload::Traffic(t, _) = cell.workload {
            let traffic = &self.traffic[t];
            let _ = write!(s, " --traffic {}", shell_word(&traffic.path));
            if !traffic.flags.is_empty() {
                let _ = write!(s, " {}", traffic.flags_text());
            }
        }
        let _ = write!(
            s,
            " -s {} --metric {metric} -n {} --seed {}",
            cell.commsize, self.runs, self.seed
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

/// `word` as one word of a POSIX shell command: as it is when it holds no character the
/// shell treats specially, else in single quotes.
pub(super) fn shell_word(word: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', "'\\''")))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    #[serde(default)]
    runs: Option<u64>,
    #[serde(default)]
    seed: u64,
    fabrics: Vec<RawFabric>,
    #[serde(default)]
    patterns: Vec<Spanned<toml::Value>>,
    #[serde(default = "default_sizes")]
    commsizes: Vec<u64>,
    #[serde(default)]
    metrics: Vec<String>,
    #[serde(default)]
    tasks: Vec<Spanned<toml::Value>>,
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

/// A pattern of the plan.
enum PlanPattern {
    /// A synthetic pattern: its name and argument as written, and the parsed pattern.
    Synthetic {
        name: String,
        arg: Option<String>,
        parsed: Pattern,
    },
    /// A traffic file: an index into the plan's traffic.
    Traffic(usize),
}

/// The keys of a pattern table.
const PATTERN_KEYS: [&str; 7] = [
    "name",
    "arg",
    "traffic",
    "collectives",
    "algorithms",
    "window",
    "phase",
];

/// The keys of a pattern table that choose what of a DUMPI trace counts.
const TRACE_KEYS: [&str; 4] = ["collectives", "algorithms", "window", "phase"];

/// The plan's text, for errors that name the line of what they are about.
struct PlanText<'a> {
    text: &'a str,
    path: &'a str,
}

impl PlanText<'_> {
    /// An error at the first line that contains `needle` (the file as a whole when none
    /// does).
    fn error(&self, needle: &str, message: impl Into<String>) -> ScanError {
        let line = (self.text.lines())
            .position(|l| l.contains(needle))
            .map(|i| i + 1);
        located(self.path, line, message)
    }

    /// The 1-based line of byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }
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
    let at = PlanText { text, path };
    if raw.runs == Some(0) {
        return Err(at.error("runs", "runs must be at least 1"));
    }
    let base = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut fabrics = Vec::new();
    for f in raw.fabrics {
        fabrics.extend(fabric_sources(&at, base, f)?);
    }
    let mut traffic = Vec::new();
    let mut patterns = Vec::new();
    for p in raw.patterns {
        patterns.extend(plan_patterns(&at, base, p, &mut traffic)?);
    }
    let metrics = (raw.metrics.iter())
        .map(|m| plan_metric(&at, m))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tasks = Vec::new();
    for entry in raw.tasks {
        let line = at.line_of(entry.span().start);
        tasks.extend(super::tasks::task_points(path, line, entry.into_inner())?);
    }
    if fabrics.is_empty() {
        return Err(at.error("fabrics", "fabrics lists nothing"));
    }
    if patterns.is_empty() && tasks.is_empty() {
        return Err(at.error(
            "patterns",
            "the plan simulates nothing: list patterns (with metrics) or [[tasks]]",
        ));
    }
    if !patterns.is_empty() {
        for (what, empty) in [
            ("commsizes", raw.commsizes.is_empty()),
            ("metrics", metrics.is_empty()),
        ] {
            if empty {
                return Err(at.error(what, format!("{what} lists nothing")));
            }
        }
    }
    let runs = match (raw.runs, patterns.is_empty()) {
        (Some(runs), _) => runs,
        // Task cells measure root tasks, not runs.
        (None, true) => 1,
        (None, false) => {
            return Err(at.error(
                "patterns",
                "runs is missing: the runs of every pattern cell",
            ))
        }
    };
    let cells = cells(fabrics.len(), &patterns, &raw.commsizes, &metrics, &tasks);
    let mut plan = Plan {
        path: path.to_string(),
        runs,
        seed: raw.seed,
        fabrics,
        traffic,
        tasks,
        cells,
        identity: String::new(),
    };
    let keys: Vec<String> = plan.cells.iter().map(|c| plan.key(c)).collect();
    plan.identity = Plan::identity_of(keys.iter().map(String::as_str));
    Ok(plan)
}

/// The fabrics of one `[[fabrics]]` entry: the files its glob matches (relative to
/// `base`, sorted), or its generator once per routing.
fn fabric_sources(
    at: &PlanText,
    base: &Path,
    f: RawFabric,
) -> Result<Vec<FabricSource>, ScanError> {
    let routings: Vec<Option<String>> = match f.routing {
        None => vec![None],
        Some(OneOrMany::One(r)) => vec![Some(r)],
        Some(OneOrMany::Many(v)) => v.into_iter().map(Some).collect(),
    };
    match (f.path, f.gen) {
        (Some(p), None) => {
            if routings != [None] {
                return Err(at.error(
                    &p,
                    format!("fabric '{p}': routing applies to gen fabrics (a file carries its own)"),
                ));
            }
            let matched = glob_files(base, &p)
                .map_err(|e| at.error(&p, format!("fabric {e}")))?;
            Ok(matched.into_iter().map(FabricSource::File).collect())
        }
        (None, Some(spec)) => Ok(routings
            .into_iter()
            .map(|routing| FabricSource::Gen {
                spec: spec.clone(),
                routing,
            })
            .collect()),
        _ => Err(at.error(
            "[[fabrics]]",
            "every [[fabrics]] entry needs exactly one of path (a file or glob) and gen (an orcs gen specification)",
        )),
    }
}

/// The files glob `pattern` matches relative to `base`, sorted; an error text (to be
/// prefixed with what the pattern names) when it is malformed or matches nothing.
fn glob_files(base: &Path, pattern: &str) -> Result<Vec<String>, String> {
    let full = base.join(pattern).to_string_lossy().into_owned();
    let mut matched: Vec<String> = glob::glob(&full)
        .map_err(|e| format!("'{pattern}': bad glob: {e}"))?
        .filter_map(Result::ok)
        .map(|pb| pb.to_string_lossy().into_owned())
        .collect();
    matched.sort();
    if matched.is_empty() {
        return Err(format!("'{pattern}' matches no file"));
    }
    Ok(matched)
}

/// The patterns of one entry: a name; a table with a name and an argument; or a table
/// naming pattern `matrix` with traffic files (a glob, relative to `base`) and what of a
/// trace counts, each file added to `traffic` once. Errors are at the entry's line.
fn plan_patterns(
    at: &PlanText,
    base: &Path,
    entry: Spanned<toml::Value>,
    traffic: &mut Vec<TrafficSource>,
) -> Result<Vec<PlanPattern>, ScanError> {
    let line = at.line_of(entry.span().start);
    let fail = |message: String| located(at.path, Some(line), message);
    let table = match entry.into_inner() {
        toml::Value::String(name) => return Ok(vec![synthetic(name, None, &fail)?]),
        toml::Value::Table(table) => table,
        other => {
            return Err(fail(format!(
                "a pattern is a name or a table such as {{ name = \"neighbor\", arg = \"4\" }}, not {} {}",
                if other.is_array() || other.is_integer() { "an" } else { "a" },
                other.type_str()
            )))
        }
    };
    let mut fields = BTreeMap::new();
    for (key, value) in table {
        if !PATTERN_KEYS.contains(&key.as_str()) {
            return Err(fail(format!(
                "unknown key '{key}' in a pattern (expected {})",
                PATTERN_KEYS.join(", ")
            )));
        }
        let toml::Value::String(text) = value else {
            return Err(fail(format!("pattern key '{key}' must be a string")));
        };
        fields.insert(key, text);
    }
    let name =
        (fields.remove("name")).ok_or_else(|| fail("a pattern table needs a name".into()))?;
    let arg = fields.remove("arg");
    let Some(files) = fields.remove("traffic") else {
        if let Some(key) = TRACE_KEYS.iter().find(|k| fields.contains_key(**k)) {
            return Err(fail(format!(
                "{key} chooses what of a DUMPI trace counts: it goes with name = \"matrix\" and traffic = a trace's .meta file"
            )));
        }
        return Ok(vec![synthetic(name, arg, &fail)?]);
    };
    if name != "matrix" {
        return Err(fail(format!(
            "traffic is the workload of pattern 'matrix', not of '{name}'"
        )));
    }
    if arg.is_some() {
        return Err(fail(
            "arg does not apply to pattern 'matrix': its traffic is its workload".into(),
        ));
    }
    let (flags, options) = trace_options(&fields, &fail)?;
    // Any trace key, the default `collectives = "expand"` too, as -p matrix refuses any
    // trace flag with another file.
    let for_a_trace = TRACE_KEYS.iter().any(|k| fields.contains_key(*k));
    let paths = glob_files(base, &files).map_err(|e| fail(format!("traffic {e}")))?;
    let mut patterns = Vec::with_capacity(paths.len());
    for path in paths {
        if for_a_trace && !path.ends_with(".meta") {
            return Err(fail(format!(
                "collectives, algorithms, window and phase choose what of a DUMPI trace counts; '{path}' is not a trace's .meta file"
            )));
        }
        let source = TrafficSource {
            path,
            flags: flags.clone(),
            options: options.clone(),
            line: Some(line),
        };
        let same = |t: &TrafficSource| t.path == source.path && t.flags == source.flags;
        let index = match traffic.iter().position(same) {
            Some(i) => i,
            None => {
                traffic.push(source);
                traffic.len() - 1
            }
        };
        patterns.push(PlanPattern::Traffic(index));
    }
    Ok(patterns)
}

/// A synthetic pattern by name, with its argument.
fn synthetic(
    name: String,
    arg: Option<String>,
    fail: &dyn Fn(String) -> ScanError,
) -> Result<PlanPattern, ScanError> {
    if name == "matrix" {
        return Err(fail(
            "pattern 'matrix' needs traffic = FILE (a traffic matrix or a DUMPI trace's .meta; a glob, relative to the plan), as -p matrix needs --traffic".into(),
        ));
    }
    let parsed = Pattern::parse(&name, arg.as_deref())
        .map_err(|e| fail(format!("pattern '{name}': {e}")))?;
    Ok(PlanPattern::Synthetic { name, arg, parsed })
}

/// The trace keys of a pattern table as the flags of `orcs -p matrix` (values as
/// written) and the options they select, checked as the simulator checks its flags.
fn trace_options(
    fields: &BTreeMap<String, String>,
    fail: &dyn Fn(String) -> ScanError,
) -> Result<(Vec<TraceFlag>, TrafficOptions), ScanError> {
    let mut flags = Vec::new();
    let exclude = match fields.get("collectives").map(String::as_str) {
        None | Some("expand") => false,
        Some("exclude") => true,
        Some(other) => {
            return Err(fail(format!(
                "collectives = '{other}': expected expand or exclude"
            )))
        }
    };
    if exclude {
        flags.push(("--collectives", "exclude".to_string()));
    }
    let mut choice = AlgorithmChoice::automatic();
    if let Some(text) = fields.get("algorithms") {
        if exclude {
            return Err(fail(
                "algorithms chooses how collectives expand: it cannot go with collectives = \"exclude\"".into(),
            ));
        }
        choice = AlgorithmChoice::parse(text)
            .map_err(|e| fail(format!("algorithms = '{text}': {e}")))?;
        flags.push(("--algorithms", text.clone()));
    }
    let window = match fields.get("window") {
        Some(text) => {
            let window =
                Window::parse(text).map_err(|e| fail(format!("window = '{text}': {e}")))?;
            flags.push(("--window", text.clone()));
            Some(window)
        }
        None => None,
    };
    let phase = fields.get("phase").cloned();
    if let Some(text) = &phase {
        flags.push(("--phase", text.clone()));
    }
    let options = TrafficOptions {
        collectives: if exclude {
            Collectives::Exclude
        } else {
            Collectives::Expand(choice)
        },
        window,
        phase,
    };
    Ok((flags, options))
}

/// A metric entry, by its option name.
fn plan_metric(at: &PlanText, m: &str) -> Result<MetricKind, ScanError> {
    MetricKind::ALL
        .into_iter()
        .find(|k| k.name() == m)
        .ok_or_else(|| {
            at.error(
                m,
                format!(
                    "unknown metric '{m}' (expected sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong)"
                ),
            )
        })
}

/// Every cell, in plan order: fabric, then pattern, then size, then metric; a fabric's
/// task points after its patterns.
fn cells(
    fabrics: usize,
    patterns: &[PlanPattern],
    commsizes: &[u64],
    metrics: &[MetricKind],
    tasks: &[TaskPoint],
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for f in 0..fabrics {
        for p in patterns {
            let (name, arg) = match p {
                PlanPattern::Synthetic { name, arg, .. } => (name.as_str(), arg),
                PlanPattern::Traffic(_) => ("matrix", &None),
            };
            for &commsize in commsizes {
                for &metric in metrics {
                    let workload = match p {
                        PlanPattern::Synthetic { parsed, .. } => {
                            CellWorkload::Pattern(parsed.clone(), metric)
                        }
                        PlanPattern::Traffic(t) => CellWorkload::Traffic(*t, metric),
                    };
                    cells.push(Cell {
                        index: cells.len(),
                        fabric: f,
                        pattern: name.to_string(),
                        arg: arg.clone(),
                        workload,
                        commsize,
                    });
                }
            }
        }
        for (t, point) in tasks.iter().enumerate() {
            cells.push(Cell {
                index: cells.len(),
                fabric: f,
                pattern: "tasks".to_string(),
                arg: Some(point.flags.clone()),
                workload: CellWorkload::Tasks(t),
                commsize: point.nodes.map_or(0, u64::from),
            });
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LocatedError;

    #[test]
    fn a_traffic_label_is_its_file_then_its_flags() {
        let mut source = TrafficSource {
            path: "runs/cg.meta".into(),
            flags: vec![],
            options: TrafficOptions::default(),
            line: None,
        };
        assert_eq!(source.label(), "runs/cg.meta");
        source.flags = vec![("--phase", "exchange".into()), ("--window", "0:1.5".into())];
        assert_eq!(
            source.label(),
            "runs/cg.meta --phase exchange --window 0:1.5"
        );
    }
    use crate::tasks::model::TreeSpec;
    use crate::tasks::sim::{Scheduler, TaskTimes};

    fn located_error(e: ScanError) -> LocatedError {
        match e {
            ScanError::Input(e) => e,
            e => panic!("not an input error: {e}"),
        }
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
    fn task_points_follow_each_fabrics_patterns() {
        let plan = parse_plan(
            "runs = 10\nseed = 3\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\"]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=3\"\nrouting = [\"dmodk\", \"minhop\"]\n\
             [[tasks]]\ntree = [\"z=4,3\", \"z=2\"]\nload = [0.25, 0.5]\nnodes = 6\n\
             scheduler = \"stealing\"\nsteal_retry = \"5us\"\nresult_size = \"1 MB\"\n\
             [[tasks]]\nload = 0.9\ntimes = \"exponential\"\n",
            "plan.toml",
        )
        .unwrap();
        // Per fabric: one pattern cell, then 2 × 2 points of the first entry and one of
        // the second.
        assert_eq!(plan.tasks.len(), 5);
        assert_eq!(plan.cells.len(), 2 * (1 + 5));
        let kinds: Vec<Option<usize>> = (plan.cells.iter())
            .map(|c| match c.workload {
                CellWorkload::Tasks(t) => Some(t),
                _ => None,
            })
            .collect();
        let per_fabric = [None, Some(0), Some(1), Some(2), Some(3), Some(4)];
        assert_eq!(kinds, [per_fabric, per_fabric].concat());
        let p = &plan.tasks[1];
        assert_eq!(
            (p.load, p.nodes, p.scheduler, p.costs.result_bits),
            (0.5, Some(6), Scheduler::Stealing { retry: 5e-6 }, 8e6)
        );
        assert_eq!(p.tree, TreeSpec::Layered(vec![4, 3]));
        let c = &plan.cells[9];
        assert_eq!((c.fabric, c.commsize, c.metric()), (1, 6, None));
        assert_eq!(
            plan.key(c),
            "gen:kary-ntree:k=2,n=3 --routing minhop|tasks|--tree z=2 --scheduler stealing \
             --steal-retry 5us --load 0.25 --nodes 6 --result-size '1 MB' --roots 10000 \
             --warmup 1000 --replications 10|3"
        );
        assert_eq!(
            plan.command(c),
            "orcs gen kary-ntree:k=2,n=3 --routing minhop -o fabric.orcsfab && orcs tasks run \
             --network fabric.orcsfab --tree z=2 --scheduler stealing --steal-retry 5us \
             --load 0.25 --nodes 6 --result-size '1 MB' --roots 10000 --warmup 1000 \
             --replications 10 --seed 3 --format json"
        );
        // The second entry: every default but the load and the times.
        let last = &plan.tasks[4];
        assert_eq!(
            (last.scheduler, last.times, last.nodes, last.bandwidth),
            (Scheduler::Central, TaskTimes::Exponential, None, 10e9)
        );
        assert_eq!(
            last.flags,
            "--tree z=4,3 --scheduler central --load 0.9 --times exponential --roots 10000 \
             --warmup 1000 --replications 10"
        );
    }

    #[test]
    fn identity_follows_the_cells_not_the_text() {
        let text = "runs = 10\nseed = 3\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\", \"bruck\"]\n\
                    [[fabrics]]\ngen = \"kary-ntree:k=2,n=3\"\n";
        let plan = parse_plan(text, "plan.toml").unwrap();
        assert_eq!(plan.identity.len(), 32);
        // As documented: BLAKE3 in derive-key mode over the stream version (2), then each
        // key's length and bytes, the first 16 bytes in hex.
        let mut hasher =
            blake3::Hasher::new_derive_key("orcs scan plan identity: cell keys in order");
        hasher.update(&2u32.to_le_bytes());
        for cell in &plan.cells {
            let key = plan.key(cell);
            hasher.update(&(key.len() as u64).to_le_bytes());
            hasher.update(key.as_bytes());
        }
        let hex: String = hasher.finalize().as_bytes()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(plan.identity, hex);
        // The same cells written otherwise: the same plan.
        let spaced = text.replace("seed = 3", "# a comment\nseed   =   3");
        assert_eq!(
            parse_plan(&spaced, "plan.toml").unwrap().identity,
            plan.identity
        );
        // Other runs, another order of the cells: other plans.
        for other in [
            text.replace("runs = 10", "runs = 11"),
            text.replace("[\"bisect\", \"bruck\"]", "[\"bruck\", \"bisect\"]"),
        ] {
            assert_ne!(
                parse_plan(&other, "plan.toml").unwrap().identity,
                plan.identity
            );
        }
        assert_eq!(plan.reference().cells, 2);
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
        let e = located_error(
            parse_plan(
                "runs = 1\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\"]\n[[fabrics]]\npath = \"a.dot\"\nrouting = \"dmodk\"\n",
                "p.toml",
            )
            .unwrap_err(),
        );
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("routing applies to gen fabrics"), "{e}");
    }

    /// A folder with two CSV matrices and a trace's `.meta` (parsing a plan only globs
    /// them), and the plan `patterns` written into it.
    fn traffic_plan(patterns: &str) -> (tempfile::TempDir, String, String) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("m")).unwrap();
        for f in ["m/b.csv", "m/a.csv", "t.meta"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let text = format!(
            "runs = 5\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\",\n  {patterns}]\n\
             [[fabrics]]\ngen = \"kary-ntree:k=2,n=3\"\n"
        );
        let path = dir.path().join("p.toml").to_string_lossy().into_owned();
        (dir, text, path)
    }

    #[test]
    fn traffic_patterns_expand_globs_with_their_trace_options() {
        let (dir, text, path) = traffic_plan(
            "{ name = \"matrix\", traffic = \"m/*.csv\" },\n  \
             { name = \"matrix\", traffic = \"t.meta\", collectives = \"exclude\", window = \"0:1.5\", phase = \"solve it\" }",
        );
        let plan = parse_plan(&text, &path).unwrap();
        let at = |f: &str| dir.path().join(f).to_string_lossy().into_owned();
        let files: Vec<&str> = plan.traffic.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(files, [at("m/a.csv"), at("m/b.csv"), at("t.meta")]);
        assert_eq!(plan.cells.len(), 4);
        assert_eq!(
            plan.cells[1].workload,
            CellWorkload::Traffic(0, MetricKind::SumMaxCong)
        );
        assert_eq!(
            (plan.cells[1].pattern.as_str(), plan.traffic[0].line),
            ("matrix", Some(4))
        );
        let trace = &plan.traffic[2];
        assert_eq!(trace.line, Some(5));
        assert_eq!(
            trace.options,
            TrafficOptions {
                collectives: Collectives::Exclude,
                window: Some(Window {
                    start_ns: 0,
                    end_ns: 1_500_000_000
                }),
                phase: Some("solve it".into()),
            }
        );
        assert_eq!(
            plan.key(&plan.cells[3]),
            format!(
                "gen:kary-ntree:k=2,n=3|matrix|{} --collectives exclude --window 0:1.5 --phase 'solve it'|0|sum_max_cong|5|0",
                at("t.meta")
            )
        );
        assert_eq!(
            plan.command(&plan.cells[3]),
            format!(
                "orcs gen kary-ntree:k=2,n=3 -o fabric.orcsfab && orcs -i fabric.orcsfab -p matrix --traffic {} \
                 --collectives exclude --window 0:1.5 --phase 'solve it' -s 0 --metric sum_max_cong -n 5 --seed 0",
                at("t.meta")
            )
        );
        assert!(plan
            .command(&plan.cells[1])
            .contains(&format!("-p matrix --traffic {} -s 0", at("m/a.csv"))));
        // The files or an option changed: another plan; the text spaced otherwise: the same.
        let other =
            |from: &str, to: &str| parse_plan(&text.replace(from, to), &path).unwrap().identity;
        assert_ne!(other("m/*.csv", "m/a.csv"), plan.identity);
        assert_ne!(other("solve it", "solve"), plan.identity);
        assert_ne!(other("collectives = \"exclude\", ", ""), plan.identity);
        assert_eq!(other("\"bisect\",", "\"bisect\", "), plan.identity);
    }

    #[test]
    fn a_traffic_file_named_twice_is_read_once() {
        let (_dir, text, path) = traffic_plan(
            "{ name = \"matrix\", traffic = \"m/a.csv\" }, { name = \"matrix\", traffic = \"m/*.csv\" },\n  \
             { name = \"matrix\", traffic = \"t.meta\" }, { name = \"matrix\", traffic = \"t.meta\", phase = \"x\" }",
        );
        let plan = parse_plan(&text, &path).unwrap();
        // a, a, b, t, t with a phase: four files to read, five patterns.
        assert_eq!(plan.traffic.len(), 4);
        let used: Vec<&CellWorkload> = plan.cells[1..].iter().map(|c| &c.workload).collect();
        let t = |i| CellWorkload::Traffic(i, MetricKind::SumMaxCong);
        assert_eq!(used, [&t(0), &t(0), &t(1), &t(2), &t(3)]);
        // Expanding collectives is the default: written or not, one file to read.
        let expand = text.replace("\"t.meta\" }", "\"t.meta\", collectives = \"expand\" }");
        let plan = parse_plan(&expand, &path).unwrap();
        assert_eq!(plan.traffic.len(), 4);
        assert!(plan.traffic[2].flags.is_empty());
    }

    #[test]
    fn traffic_entries_are_refused_at_their_line() {
        let cases = [
            ("{ name = \"matrix\", traffic = \"m/*.csv\", phase = \"x\" }", "'", "is not a trace's .meta file"),
            ("{ name = \"matrix\", traffic = \"m/a.csv\", collectives = \"expand\" }", "'", "is not a trace's .meta file"),
            ("{ name = \"matrix\", traffic = \"none/*.csv\" }", "'none/*.csv' matches no file", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", colectives = \"exclude\" }", "unknown key 'colectives'", "expected name, arg, traffic"),
            ("{ name = \"bisect\", traffic = \"t.meta\" }", "traffic is the workload of pattern 'matrix', not of 'bisect'", ""),
            ("\"matrix\"", "pattern 'matrix' needs traffic = FILE", ""),
            ("{ name = \"matrix\" }", "pattern 'matrix' needs traffic = FILE", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", arg = \"4\" }", "arg does not apply to pattern 'matrix'", ""),
            ("{ name = \"bisect\", window = \"0:1\" }", "window chooses what of a DUMPI trace counts", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", collectives = \"exclude\", algorithms = \"bcast=binomial\" }", "cannot go with collectives = \"exclude\"", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", collectives = \"skip\" }", "collectives = 'skip': expected expand or exclude", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", algorithms = \"bcast=ring\" }", "algorithms = 'bcast=ring'", "bcast"),
            ("{ name = \"matrix\", traffic = \"t.meta\", window = \"2:1\" }", "window = '2:1': the window 2:1 is empty", ""),
            ("{ name = \"matrix\", traffic = \"t.meta\", window = 1 }", "pattern key 'window' must be a string", ""),
            ("{ traffic = \"t.meta\" }", "a pattern table needs a name", ""),
            ("7", "a pattern is a name or a table", "not an integer"),
            ("{ name = \"neighbor\", arg = \"x\" }", "pattern 'neighbor'", ""),
        ];
        for (entry, needle, also) in cases {
            let (dir, text, path) = traffic_plan(entry);
            let e = located_error(parse_plan(&text, &path).unwrap_err());
            assert_eq!(
                (e.path.as_str(), e.line),
                (path.as_str(), Some(4)),
                "{entry}: {e}"
            );
            assert!(
                e.message.contains(needle) && e.message.contains(also),
                "{entry}: {e}"
            );
            if entry.contains("phase") || entry.contains("expand") {
                let csv = dir.path().join("m/a.csv").to_string_lossy().into_owned();
                assert!(e.message.contains(&csv), "names the file: {e}");
            }
        }
    }
}
