//! Plans: the TOML file of a scan read into its fabrics (globs expanded, one generated
//! fabric per routing) and its cells (fabric × pattern × communicator size × metric),
//! with the key that identifies a cell's result and the command that reproduces it.

use super::{located, ScanError};
use crate::engine::metric::MetricKind;
use crate::workload::pattern::Pattern;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

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
    /// The plan's identity, fixed when it is read: see [`Plan::identity_of`]. Every
    /// record carries it, so that records of another plan are told apart.
    pub identity: String,
}

impl Plan {
    /// The identity of a plan with `cells` keyed by `key`: a hash (BLAKE3, 128 bits, in
    /// hex) of every cell's key in cell order, so two plans share it exactly when they
    /// expand to the same cells in the same order, whatever their TOML looks like. The
    /// keys name file fabrics as the plan's path leads to them, as resuming does.
    /// O(cells).
    pub fn identity_of<'a>(keys: impl IntoIterator<Item = &'a str>) -> String {
        let mut hasher =
            blake3::Hasher::new_derive_key("orcs scan plan identity: cell keys in order");
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

/// A pattern of the plan: its name and argument as written, and the parsed pattern.
type PlanPattern = (String, Option<String>, Pattern);

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
    if raw.runs < 1 {
        return Err(at.error("runs", "runs must be at least 1"));
    }
    let base = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut fabrics = Vec::new();
    for f in raw.fabrics {
        fabrics.extend(fabric_sources(&at, base, f)?);
    }
    let patterns = (raw.patterns.into_iter())
        .map(|p| plan_pattern(&at, p))
        .collect::<Result<Vec<_>, _>>()?;
    let metrics = (raw.metrics.iter())
        .map(|m| plan_metric(&at, m))
        .collect::<Result<Vec<_>, _>>()?;
    for (what, empty) in [
        ("fabrics", fabrics.is_empty()),
        ("patterns", patterns.is_empty()),
        ("commsizes", raw.commsizes.is_empty()),
        ("metrics", metrics.is_empty()),
    ] {
        if empty {
            return Err(at.error(what, format!("{what} lists nothing")));
        }
    }
    let cells = cells(fabrics.len(), &patterns, &raw.commsizes, &metrics);
    let mut plan = Plan {
        path: path.to_string(),
        runs: raw.runs,
        seed: raw.seed,
        fabrics,
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
            let full = base.join(&p);
            let pattern = full.to_string_lossy().into_owned();
            let mut matched: Vec<String> = glob::glob(&pattern)
                .map_err(|e| at.error(&p, format!("bad glob '{p}': {e}")))?
                .filter_map(Result::ok)
                .map(|pb| pb.to_string_lossy().into_owned())
                .collect();
            matched.sort();
            if matched.is_empty() {
                return Err(at.error(&p, format!("fabric '{p}' matches no file")));
            }
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

/// A pattern entry: a name, or a name with its argument.
fn plan_pattern(at: &PlanText, p: RawPattern) -> Result<PlanPattern, ScanError> {
    let (name, arg) = match p {
        RawPattern::Name(n) => (n, None),
        RawPattern::Full { name, arg } => (name, arg),
    };
    let parsed = Pattern::parse(&name, arg.as_deref())
        .map_err(|e| at.error(&name, format!("pattern '{name}': {e}")))?;
    Ok((name, arg, parsed))
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

/// Every cell, in plan order: fabric, then pattern, then size, then metric.
fn cells(
    fabrics: usize,
    patterns: &[PlanPattern],
    commsizes: &[u64],
    metrics: &[MetricKind],
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for f in 0..fabrics {
        for (name, arg, parsed) in patterns {
            for &commsize in commsizes {
                for &metric in metrics {
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
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LocatedError;

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
    fn identity_follows_the_cells_not_the_text() {
        let text = "runs = 10\nseed = 3\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\", \"bruck\"]\n\
                    [[fabrics]]\ngen = \"kary-ntree:k=2,n=3\"\n";
        let plan = parse_plan(text, "plan.toml").unwrap();
        assert_eq!(plan.identity.len(), 32);
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
}
