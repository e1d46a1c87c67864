//! Scenario files: PFSim's YAML schema read strictly, class names mapped to orcs's
//! algorithms, and the cartesian product of the list-valued settings in PFSim's order.
//!
//! A bad scenario is a [`LocatedError`]: the file, the line of the offending key or
//! value when it can be found, and what was expected.

use crate::cluster::paths::PathRouter;
use crate::cluster::placement::Mapper;
use crate::cluster::selection::Selector;
use crate::error::LocatedError;
use crate::workload::matrix::located;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a topology of the scenario is built.
#[derive(Debug, Clone, PartialEq)]
pub enum TopologySpec {
    /// A cluster file (PFSim GraphML, or any fabric orcs reads), path resolved against
    /// the scenario's folder.
    File {
        /// The resolved path.
        path: String,
    },
    /// PFSim's XGFT generator (complete bipartite levels).
    Xgft {
        /// Height.
        h: u32,
        /// Children per switch, per level (bottom first).
        m: Vec<u32>,
        /// Parents per level (bottom first).
        w: Vec<u32>,
        /// Link capacity.
        bw: f64,
        /// Processing elements per host.
        npe: u32,
    },
    /// PFSim's n-dimensional torus: every node a host, links to the ±1 neighbours.
    Torus {
        /// Size of each dimension.
        dims: Vec<u32>,
        /// Link capacity.
        bw: f64,
        /// Processing elements per host.
        npe: u32,
    },
    /// Any `orcs gen` specification (its routing is not used).
    Gen {
        /// The specification, e.g. `kary-ntree:k=4,n=3`.
        spec: String,
    },
}

/// The scheduler of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    /// First come, first served without backfilling: the queue's head starts as soon as
    /// it fits, and nothing overtakes it.
    Fcfs,
}

impl std::fmt::Display for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fcfs")
    }
}

/// A random or listed time (a job's inter-arrival time or run time).
#[derive(Debug, Clone, PartialEq)]
pub enum TimeDist {
    /// Exponential with this rate (mean 1 / rate), PFSim's `ExponentialDistribution`.
    Exponential {
        /// Rate λ.
        rate: f64,
    },
    /// Always this value.
    Constant(f64),
    /// Uniform on [low, high).
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// The listed values in turn (absolute submit times for arrivals; run times for
    /// durations); the stream ends when the list does.
    List(Vec<f64>),
}

/// One `jobs:` entry: a renewal stream of identical applications.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Inter-arrival times, or the list of submit times.
    pub submit: TimeDist,
    /// Run times.
    pub duration: TimeDist,
    /// The traffic matrix file, resolved against the scenario's folder.
    pub trace: String,
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The scenario file.
    pub path: String,
    /// Simulated time horizon.
    pub duration: f64,
    /// Topologies, with the text naming each in reports.
    pub topologies: Vec<(String, TopologySpec)>,
    /// Schedulers.
    pub schedulers: Vec<Scheduler>,
    /// Host selectors.
    pub selectors: Vec<Selector>,
    /// Process mappers.
    pub mappers: Vec<Mapper>,
    /// Routers.
    pub routers: Vec<PathRouter>,
    /// Job streams; all run together in every run.
    pub jobs: Vec<JobSpec>,
    /// The `seed` key (an orcs extension), if given.
    pub seed: Option<u64>,
}

/// One cell of the run matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSpec {
    /// Run id, as PFSim numbers them.
    pub id: usize,
    /// Index into [`Scenario::topologies`].
    pub topology: usize,
    /// Index into [`Scenario::selectors`] (runs with equal topology and selector index
    /// see the same host selections).
    pub selector_index: usize,
    /// Scheduler.
    pub scheduler: Scheduler,
    /// Host selector.
    pub selector: Selector,
    /// Process mapper.
    pub mapper: Mapper,
    /// Router.
    pub router: PathRouter,
}

impl Scenario {
    /// The runs: topology × scheduler × selector × mapper × router, the router varying
    /// fastest, numbered from 0 as PFSim numbers its output folders.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut runs = Vec::new();
        for t in 0..self.topologies.len() {
            for &scheduler in &self.schedulers {
                for (si, &selector) in self.selectors.iter().enumerate() {
                    for &mapper in &self.mappers {
                        for &router in &self.routers {
                            runs.push(RunSpec {
                                id: runs.len(),
                                topology: t,
                                selector_index: si,
                                scheduler,
                                selector,
                                mapper,
                                router,
                            });
                        }
                    }
                }
            }
        }
        runs
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    duration: f64,
    topology: OneOrMany<RawTopology>,
    #[serde(default)]
    output: Option<String>,
    algorithms: RawAlgorithms,
    jobs: Vec<RawJob>,
    #[serde(default)]
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    Many(Vec<T>),
    One(T),
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::Many(v) => v,
            OneOrMany::One(x) => vec![x],
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawTopology {
    /// The paper's plain-string form: a GraphML path.
    Path(String),
    Kind {
        kind: String,
        #[serde(default)]
        params: BTreeMap<String, serde_norway::Value>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAlgorithms {
    scheduler: OneOrMany<String>,
    #[serde(alias = "node_selector")]
    host_selector: OneOrMany<String>,
    process_mapper: OneOrMany<String>,
    router: OneOrMany<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    submit: RawTime,
    duration: RawTime,
    trace: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawTime {
    Number(f64),
    List(Vec<f64>),
    Dist {
        distribution: String,
        #[serde(default)]
        params: BTreeMap<String, serde_norway::Value>,
    },
}

/// Reads and validates a scenario file. Relative paths inside it are resolved against
/// its folder. The `output` key is accepted and ignored (orcs writes files only where
/// `--output` says). O(file size).
pub fn read_scenario(path: &str) -> Result<Scenario, LocatedError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| located(path, None, format!("cannot read: {e}")))?;
    parse_scenario(&text, path)
}

/// Parses scenario `text`; `path` names the file in errors and anchors relative paths.
pub fn parse_scenario(text: &str, path: &str) -> Result<Scenario, LocatedError> {
    let raw: RawScenario = serde_norway::from_str(text).map_err(|e| {
        located(
            path,
            e.location().map(|l| l.line()),
            format!("{e}; expected PFSim's scenario keys duration, topology, algorithms (scheduler, host_selector, process_mapper, router), jobs"),
        )
    })?;
    let _ = raw.output;
    let at = Locator { text, path };
    if !(raw.duration > 0.0 && raw.duration.is_finite()) {
        return Err(at.error(
            "duration",
            format!("duration must be a positive number, got {}", raw.duration),
        ));
    }
    let files = Folder {
        base: Path::new(path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let mut topologies = Vec::new();
    for t in raw.topology.into_vec() {
        topologies.push(match t {
            RawTopology::Path(p) => (
                p.clone(),
                TopologySpec::File {
                    path: files.resolve(&p),
                },
            ),
            RawTopology::Kind { kind, params } => {
                let label = format!("{kind} {}", describe_params(&params));
                let fail = |m: String| at.error(&kind, m);
                (label, topology_spec(&kind, &params, &files, &fail)?)
            }
        });
    }
    let algorithms = Algorithms::read(raw.algorithms, &at)?;
    for (what, empty) in [
        ("topology", topologies.is_empty()),
        ("algorithms.scheduler", algorithms.schedulers.is_empty()),
        ("algorithms.host_selector", algorithms.selectors.is_empty()),
        ("algorithms.process_mapper", algorithms.mappers.is_empty()),
        ("algorithms.router", algorithms.routers.is_empty()),
        ("jobs", raw.jobs.is_empty()),
    ] {
        if empty {
            return Err(at.error(
                what.rsplit('.').next().unwrap_or(what),
                format!("{what} lists nothing"),
            ));
        }
    }
    let mut jobs = Vec::new();
    for j in raw.jobs {
        let submit = time_dist(j.submit, true, &|m| at.error("submit", m))?;
        let duration = time_dist(j.duration, false, &|m| at.error("duration:", m))?;
        jobs.push(JobSpec {
            submit,
            duration,
            trace: files.resolve(&j.trace),
        });
    }
    Ok(Scenario {
        path: path.to_string(),
        duration: raw.duration,
        topologies,
        schedulers: algorithms.schedulers,
        selectors: algorithms.selectors,
        mappers: algorithms.mappers,
        routers: algorithms.routers,
        jobs,
        seed: raw.seed,
    })
}

/// Places a scenario's errors: serde's values carry no positions, so an error goes to
/// the first line that mentions what it is about.
struct Locator<'a> {
    text: &'a str,
    path: &'a str,
}

impl Locator<'_> {
    /// The error `message` at the first line containing `needle` (no line when none
    /// does, or the needle is empty).
    fn error(&self, needle: &str, message: String) -> LocatedError {
        let line = self
            .text
            .lines()
            .position(|l| !needle.is_empty() && l.contains(needle))
            .map(|i| i + 1);
        located(self.path, line, message)
    }
}

/// The scenario's folder, which relative paths inside it are resolved against.
struct Folder {
    base: PathBuf,
}

impl Folder {
    /// `p` as given when absolute, else joined to the scenario's folder.
    fn resolve(&self, p: &str) -> String {
        let candidate = Path::new(p);
        if candidate.is_absolute() {
            p.to_string()
        } else {
            self.base.join(candidate).to_string_lossy().into_owned()
        }
    }
}

/// The `algorithms:` lists mapped to orcs's algorithms, in the file's order.
struct Algorithms {
    schedulers: Vec<Scheduler>,
    selectors: Vec<Selector>,
    mappers: Vec<Mapper>,
    routers: Vec<PathRouter>,
}

impl Algorithms {
    /// Maps every listed name, PFSim's class paths or orcs's names; an unknown name is an
    /// error at its line that lists what is accepted.
    fn read(raw: RawAlgorithms, at: &Locator) -> Result<Algorithms, LocatedError> {
        Ok(Algorithms {
            schedulers: names(
                raw.scheduler,
                "scheduler (expected fcfs or pfsim.scheduler.FCFSScheduler)",
                at,
                |v| matches!(v, "FCFSScheduler" | "fcfs").then_some(Scheduler::Fcfs),
            )?,
            selectors: names(
                raw.host_selector,
                "host selector (expected linear, random, topology-aware or pfsim.host_selector.{Linear,Random}HostSelector)",
                at,
                |v| match v {
                    "LinearHostSelector" | "LinearNodeSelector" | "linear" => Some(Selector::Linear),
                    "RandomHostSelector" | "RandomNodeSelector" | "random" => Some(Selector::Random),
                    "topology-aware" => Some(Selector::TopologyAware),
                    _ => None,
                },
            )?,
            mappers: names(
                raw.process_mapper,
                "process mapper (expected block, cyclic, greedy or pfsim.process_mapper.{Linear,Cyclic}ProcessMapper)",
                at,
                |v| match v {
                    "LinearProcessMapper" | "block" | "linear" => Some(Mapper::Block),
                    "CyclicProcessMapper" | "cyclic" => Some(Mapper::Cyclic),
                    "greedy" => Some(Mapper::Greedy),
                    _ => None,
                },
            )?,
            routers: names(
                raw.router,
                "router (expected dmodk, smodk, pfsim-dmodk, greedy, greedy-max, random or pfsim.router.{DmodK,Greedy,Greedy2,Random}Router)",
                at,
                |v| match v {
                    // PFSim's class is its own single-modulus variant.
                    "DmodKRouter" | "pfsim-dmodk" => Some(PathRouter::PfsimDmodk),
                    "GreedyRouter" | "greedy" => Some(PathRouter::Greedy),
                    "GreedyRouter2" | "greedy-max" => Some(PathRouter::GreedyMax),
                    "RandomRouter" | "random" => Some(PathRouter::Random),
                    "dmodk" => Some(PathRouter::Dmodk),
                    "smodk" => Some(PathRouter::Smodk),
                    _ => None,
                },
            )?,
        })
    }
}

/// Maps each name of `values` (by its last dotted segment) with `map`; `what` is the noun
/// and, in parentheses, what is expected.
fn names<T>(
    values: OneOrMany<String>,
    what: &str,
    at: &Locator,
    map: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, LocatedError> {
    values
        .into_vec()
        .into_iter()
        .map(|v| {
            map(last_segment(&v)).ok_or_else(|| {
                let (noun, expected) = what.split_once(" (").unwrap_or((what, ""));
                at.error(&v, format!("unknown {noun} '{v}' ({expected}"))
            })
        })
        .collect()
}

/// `pfsim.router.DmodKRouter` → `DmodKRouter`; names without dots stay.
fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// `{k=v, …}`: a topology's parameters for its label in reports.
fn describe_params(params: &BTreeMap<String, serde_norway::Value>) -> String {
    let items: Vec<String> = params
        .iter()
        .map(|(k, v)| {
            let v = serde_norway::to_string(v).unwrap_or_default();
            format!("{k}={}", v.trim().replace('\n', " "))
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// The parameters of a topology or distribution.
type Params = BTreeMap<String, serde_norway::Value>;

/// How a parameter error becomes a located error (at the line of the entry it is in).
type Fail<'a> = dyn Fn(String) -> LocatedError + 'a;

/// Parameter `key` as a number, if given.
fn number(params: &Params, key: &str, fail: &Fail) -> Result<Option<f64>, LocatedError> {
    match params.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| fail(format!("parameter {key} must be a number"))),
    }
}

/// Parameter `key` as a positive whole number, if given.
fn whole(params: &Params, key: &str, fail: &Fail) -> Result<Option<u32>, LocatedError> {
    match params.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&x| x >= 1 && x <= u32::MAX as u64)
            .map(|x| Some(x as u32))
            .ok_or_else(|| fail(format!("parameter {key} must be a positive whole number"))),
    }
}

/// Parameter `key`, which must be given, as a list of positive whole numbers.
fn whole_list(params: &Params, key: &str, fail: &Fail) -> Result<Vec<u32>, LocatedError> {
    let v = params
        .get(key)
        .ok_or_else(|| fail(format!("parameter {key} is missing")))?;
    v.as_sequence()
        .and_then(|s| {
            s.iter()
                .map(|x| {
                    x.as_u64()
                        .filter(|&x| x >= 1 && x <= u32::MAX as u64)
                        .map(|x| x as u32)
                })
                .collect::<Option<Vec<u32>>>()
        })
        .ok_or_else(|| {
            fail(format!(
                "parameter {key} must be a list of positive whole numbers"
            ))
        })
}

/// A `kind:`/`params:` topology entry. A table of PFSim's three topology classes (and
/// orcs's names for them) plus `gen`, each checking its own parameters.
fn topology_spec(
    kind: &str,
    params: &Params,
    files: &Folder,
    fail: &Fail,
) -> Result<TopologySpec, LocatedError> {
    let allowed = |keys: &[&str]| -> Result<(), LocatedError> {
        match params.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(fail(format!(
                "{kind}: unknown parameter '{k}' (expected {})",
                keys.join(", ")
            ))),
            None => Ok(()),
        }
    };
    let positive = |x: Option<f64>, key: &str| -> Result<f64, LocatedError> {
        match x {
            None => Ok(1.0),
            Some(v) if v > 0.0 && v.is_finite() => Ok(v),
            Some(v) => Err(fail(format!("parameter {key} must be positive, got {v}"))),
        }
    };
    let text = |key: &str, needs: &str| -> Result<String, LocatedError> {
        params
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| fail(needs.to_string()))
    };
    match last_segment(kind) {
        "FileTopology" | "file" => {
            allowed(&["path"])?;
            let p = text("path", "FileTopology needs params: {path: FILE}")?;
            Ok(TopologySpec::File { path: files.resolve(&p) })
        }
        "XGFTTopology" | "xgft" => {
            allowed(&["h", "m", "w", "bw", "npe"])?;
            let h = whole(params, "h", fail)?.ok_or_else(|| fail("XGFTTopology needs h".to_string()))?;
            let (m, w) = (whole_list(params, "m", fail)?, whole_list(params, "w", fail)?);
            if m.len() != h as usize || w.len() != h as usize {
                return Err(fail(format!("XGFTTopology: m and w need h = {h} entries each")));
            }
            Ok(TopologySpec::Xgft {
                h,
                m,
                w,
                bw: positive(number(params, "bw", fail)?, "bw")?,
                npe: whole(params, "npe", fail)?.unwrap_or(1),
            })
        }
        "NDTorusTopology" | "torus" => {
            allowed(&["n", "dims", "bw", "npe"])?;
            let dims = whole_list(params, "dims", fail)?;
            if let Some(n) = whole(params, "n", fail)? {
                if n as usize != dims.len() {
                    return Err(fail(format!("NDTorusTopology: n = {n} but dims has {} entries", dims.len())));
                }
            }
            Ok(TopologySpec::Torus {
                dims,
                bw: positive(number(params, "bw", fail)?, "bw")?,
                npe: whole(params, "npe", fail)?.unwrap_or(1),
            })
        }
        "gen" => {
            allowed(&["spec"])?;
            let spec = text("spec", "gen needs params: {spec: SPEC} (an orcs gen specification)")?;
            Ok(TopologySpec::Gen { spec })
        }
        _ => Err(fail(format!(
            "unknown topology kind '{kind}' (expected pfsim.topology.{{File,XGFT,NDTorus}}Topology, file, xgft, torus or gen)"
        ))),
    }
}

/// A job's `submit:` (`is_submit`) or `duration:` value: a number, a list or a
/// distribution with its parameters.
fn time_dist(raw: RawTime, is_submit: bool, fail: &Fail) -> Result<TimeDist, LocatedError> {
    let what = if is_submit { "submit" } else { "duration" };
    match raw {
        RawTime::Number(x) if x >= 0.0 && x.is_finite() => {
            if is_submit && x == 0.0 {
                Err(fail(
                    "a constant inter-arrival time of 0 submits infinitely many jobs".to_string(),
                ))
            } else {
                Ok(TimeDist::Constant(x))
            }
        }
        RawTime::Number(x) => Err(fail(format!("{what} must not be negative, got {x}"))),
        RawTime::List(v) => {
            if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(fail(format!(
                    "{what} list values must be non-negative numbers"
                )));
            }
            if is_submit && v.windows(2).any(|w| w[1] < w[0]) {
                return Err(fail("submit times must not decrease".to_string()));
            }
            Ok(TimeDist::List(v))
        }
        RawTime::Dist {
            distribution,
            params,
        } => distribution_of(&distribution, &params, is_submit, fail),
    }
}

/// A named distribution of times: PFSim's exponential (by rate `lambd` or `mean`),
/// `constant` and `uniform`.
fn distribution_of(
    distribution: &str,
    params: &Params,
    is_submit: bool,
    fail: &Fail,
) -> Result<TimeDist, LocatedError> {
    let get = |key: &str| -> Result<f64, LocatedError> {
        number(params, key, fail)?
            .ok_or_else(|| fail(format!("{distribution} needs parameter {key}")))
    };
    match last_segment(distribution) {
        "ExponentialDistribution" | "exponential" => {
            let rate = match (params.get("lambd"), params.get("mean")) {
                (Some(_), _) => get("lambd")?,
                (None, Some(_)) => 1.0 / get("mean")?,
                _ => return Err(fail(format!("{distribution} needs lambd (a rate) or mean"))),
            };
            if rate > 0.0 && rate.is_finite() {
                Ok(TimeDist::Exponential { rate })
            } else {
                Err(fail(format!("{distribution}: the rate must be positive, got {rate}")))
            }
        }
        "constant" => time_dist(RawTime::Number(get("value")?), is_submit, fail),
        "uniform" => {
            let (low, high) = (get("low")?, get("high")?);
            if 0.0 <= low && low < high && high.is_finite() && (!is_submit || high > 0.0) {
                Ok(TimeDist::Uniform { low, high })
            } else {
                Err(fail(format!("uniform needs 0 <= low < high, got low {low}, high {high}")))
            }
        }
        _ => Err(fail(format!(
            "unknown distribution '{distribution}' (expected pfsim.math.ExponentialDistribution, exponential, constant or uniform)"
        ))),
    }
}
