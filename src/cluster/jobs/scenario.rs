//! Scenario files: PFSim's YAML schema read strictly, class names mapped to orcs's
//! algorithms, and the cartesian product of the list-valued settings in PFSim's order.

use crate::cluster::application::{Mapper, PathRouter, Selector};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A scenario error: the file, the 1-based line when known, what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ScenarioError {
    /// The scenario file.
    pub path: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What was expected and what was found.
    pub message: String,
}

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
pub fn read_scenario(path: &str) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        path: path.to_string(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
    parse_scenario(&text, path)
}

/// Parses scenario `text`; `path` names the file in errors and anchors relative paths.
pub fn parse_scenario(text: &str, path: &str) -> Result<Scenario, ScenarioError> {
    let raw: RawScenario = serde_norway::from_str(text).map_err(|e| ScenarioError {
        path: path.to_string(),
        line: e.location().map(|l| l.line()),
        message: format!("{e}; expected PFSim's scenario keys duration, topology, algorithms (scheduler, host_selector, process_mapper, router), jobs"),
    })?;
    let _ = raw.output;
    let err = |needle: &str, message: String| ScenarioError {
        path: path.to_string(),
        line: text
            .lines()
            .position(|l| !needle.is_empty() && l.contains(needle))
            .map(|i| i + 1),
        message,
    };
    if !(raw.duration > 0.0 && raw.duration.is_finite()) {
        return Err(err(
            "duration",
            format!("duration must be a positive number, got {}", raw.duration),
        ));
    }
    let base: PathBuf = Path::new(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let resolve = |p: &str| -> String {
        let candidate = Path::new(p);
        if candidate.is_absolute() {
            p.to_string()
        } else {
            base.join(candidate).to_string_lossy().into_owned()
        }
    };
    let mut topologies = Vec::new();
    for t in raw.topology.into_vec() {
        topologies.push(match t {
            RawTopology::Path(p) => (p.clone(), TopologySpec::File { path: resolve(&p) }),
            RawTopology::Kind { kind, params } => {
                let label = format!("{kind} {}", describe_params(&params));
                (
                    label,
                    topology_spec(&kind, &params, &resolve).map_err(|m| err(&kind, m))?,
                )
            }
        });
    }
    let a = raw.algorithms;
    fn list<T>(
        values: OneOrMany<String>,
        what: &str,
        err: &dyn Fn(&str, String) -> ScenarioError,
        map: &dyn Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, ScenarioError> {
        values
            .into_vec()
            .into_iter()
            .map(|v| {
                map(&v).ok_or_else(|| {
                    let (noun, expected) = what.split_once(" (").unwrap_or((what, ""));
                    err(&v, format!("unknown {noun} '{v}' ({expected}"))
                })
            })
            .collect()
    }
    let schedulers = list(
        a.scheduler,
        "scheduler (expected fcfs or pfsim.scheduler.FCFSScheduler)",
        &err,
        &|v| matches!(last_segment(v), "FCFSScheduler" | "fcfs").then_some(Scheduler::Fcfs),
    )?;
    let selectors = list(
        a.host_selector,
        "host selector (expected linear, random, topology-aware or pfsim.host_selector.{Linear,Random}HostSelector)",
        &err,
        &|v| match last_segment(v) {
            "LinearHostSelector" | "LinearNodeSelector" | "linear" => Some(Selector::Linear),
            "RandomHostSelector" | "RandomNodeSelector" | "random" => Some(Selector::Random),
            "topology-aware" => Some(Selector::TopologyAware),
            _ => None,
        },
    )?;
    let mappers = list(
        a.process_mapper,
        "process mapper (expected block, cyclic, greedy or pfsim.process_mapper.{Linear,Cyclic}ProcessMapper)",
        &err,
        &|v| match last_segment(v) {
            "LinearProcessMapper" | "block" | "linear" => Some(Mapper::Block),
            "CyclicProcessMapper" | "cyclic" => Some(Mapper::Cyclic),
            "greedy" => Some(Mapper::Greedy),
            _ => None,
        },
    )?;
    let routers = list(
        a.router,
        "router (expected dmodk, smodk, pfsim-dmodk, greedy, greedy-max, random or pfsim.router.{DmodK,Greedy,Greedy2,Random}Router)",
        &err,
        &|v| match last_segment(v) {
            // PFSim's class is its own single-modulus variant.
            "DmodKRouter" | "pfsim-dmodk" => Some(PathRouter::PfsimDmodk),
            "GreedyRouter" | "greedy" => Some(PathRouter::Greedy),
            "GreedyRouter2" | "greedy-max" => Some(PathRouter::GreedyMax),
            "RandomRouter" | "random" => Some(PathRouter::Random),
            "dmodk" => Some(PathRouter::Dmodk),
            "smodk" => Some(PathRouter::Smodk),
            _ => None,
        },
    )?;
    for (what, empty) in [
        ("topology", topologies.is_empty()),
        ("algorithms.scheduler", schedulers.is_empty()),
        ("algorithms.host_selector", selectors.is_empty()),
        ("algorithms.process_mapper", mappers.is_empty()),
        ("algorithms.router", routers.is_empty()),
        ("jobs", raw.jobs.is_empty()),
    ] {
        if empty {
            return Err(err(
                what.rsplit('.').next().unwrap_or(what),
                format!("{what} lists nothing"),
            ));
        }
    }
    let mut jobs = Vec::new();
    for j in raw.jobs {
        let submit = time_dist(j.submit, true).map_err(|m| err("submit", m))?;
        let duration = time_dist(j.duration, false).map_err(|m| err("duration:", m))?;
        jobs.push(JobSpec {
            submit,
            duration,
            trace: resolve(&j.trace),
        });
    }
    Ok(Scenario {
        path: path.to_string(),
        duration: raw.duration,
        topologies,
        schedulers,
        selectors,
        mappers,
        routers,
        jobs,
        seed: raw.seed,
    })
}

/// `pfsim.router.DmodKRouter` → `DmodKRouter`; names without dots stay.
fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

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

fn number(
    params: &BTreeMap<String, serde_norway::Value>,
    key: &str,
) -> Result<Option<f64>, String> {
    match params.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("parameter {key} must be a number")),
    }
}

fn whole(params: &BTreeMap<String, serde_norway::Value>, key: &str) -> Result<Option<u32>, String> {
    match params.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&x| x >= 1 && x <= u32::MAX as u64)
            .map(|x| Some(x as u32))
            .ok_or_else(|| format!("parameter {key} must be a positive whole number")),
    }
}

fn whole_list(
    params: &BTreeMap<String, serde_norway::Value>,
    key: &str,
) -> Result<Vec<u32>, String> {
    let v = params
        .get(key)
        .ok_or_else(|| format!("parameter {key} is missing"))?;
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
        .ok_or_else(|| format!("parameter {key} must be a list of positive whole numbers"))
}

fn topology_spec(
    kind: &str,
    params: &BTreeMap<String, serde_norway::Value>,
    resolve: &dyn Fn(&str) -> String,
) -> Result<TopologySpec, String> {
    let allowed = |keys: &[&str]| -> Result<(), String> {
        match params.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(format!(
                "{kind}: unknown parameter '{k}' (expected {})",
                keys.join(", ")
            )),
            None => Ok(()),
        }
    };
    let positive = |x: Option<f64>, key: &str| -> Result<f64, String> {
        match x {
            None => Ok(1.0),
            Some(v) if v > 0.0 && v.is_finite() => Ok(v),
            Some(v) => Err(format!("parameter {key} must be positive, got {v}")),
        }
    };
    match last_segment(kind) {
        "FileTopology" | "file" => {
            allowed(&["path"])?;
            let p = params
                .get("path")
                .and_then(|v| v.as_str())
                .ok_or("FileTopology needs params: {path: FILE}")?;
            Ok(TopologySpec::File { path: resolve(p) })
        }
        "XGFTTopology" | "xgft" => {
            allowed(&["h", "m", "w", "bw", "npe"])?;
            let h = whole(params, "h")?.ok_or("XGFTTopology needs h")?;
            let (m, w) = (whole_list(params, "m")?, whole_list(params, "w")?);
            if m.len() != h as usize || w.len() != h as usize {
                return Err(format!("XGFTTopology: m and w need h = {h} entries each"));
            }
            Ok(TopologySpec::Xgft {
                h,
                m,
                w,
                bw: positive(number(params, "bw")?, "bw")?,
                npe: whole(params, "npe")?.unwrap_or(1),
            })
        }
        "NDTorusTopology" | "torus" => {
            allowed(&["n", "dims", "bw", "npe"])?;
            let dims = whole_list(params, "dims")?;
            if let Some(n) = whole(params, "n")? {
                if n as usize != dims.len() {
                    return Err(format!("NDTorusTopology: n = {n} but dims has {} entries", dims.len()));
                }
            }
            Ok(TopologySpec::Torus {
                dims,
                bw: positive(number(params, "bw")?, "bw")?,
                npe: whole(params, "npe")?.unwrap_or(1),
            })
        }
        "gen" => {
            allowed(&["spec"])?;
            let spec = params
                .get("spec")
                .and_then(|v| v.as_str())
                .ok_or("gen needs params: {spec: SPEC} (an orcs gen specification)")?;
            Ok(TopologySpec::Gen { spec: spec.to_string() })
        }
        _ => Err(format!(
            "unknown topology kind '{kind}' (expected pfsim.topology.{{File,XGFT,NDTorus}}Topology, file, xgft, torus or gen)"
        )),
    }
}

fn time_dist(raw: RawTime, is_submit: bool) -> Result<TimeDist, String> {
    let what = if is_submit { "submit" } else { "duration" };
    match raw {
        RawTime::Number(x) if x >= 0.0 && x.is_finite() => {
            if is_submit && x == 0.0 {
                Err("a constant inter-arrival time of 0 submits infinitely many jobs".to_string())
            } else {
                Ok(TimeDist::Constant(x))
            }
        }
        RawTime::Number(x) => Err(format!("{what} must not be negative, got {x}")),
        RawTime::List(v) => {
            if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(format!("{what} list values must be non-negative numbers"));
            }
            if is_submit && v.windows(2).any(|w| w[1] < w[0]) {
                return Err("submit times must not decrease".to_string());
            }
            Ok(TimeDist::List(v))
        }
        RawTime::Dist {
            distribution,
            params,
        } => {
            let get = |key: &str| -> Result<f64, String> {
                number(&params, key)?.ok_or_else(|| format!("{distribution} needs parameter {key}"))
            };
            match last_segment(&distribution) {
                "ExponentialDistribution" | "exponential" => {
                    let rate = match (params.get("lambd"), params.get("mean")) {
                        (Some(_), _) => get("lambd")?,
                        (None, Some(_)) => 1.0 / get("mean")?,
                        _ => return Err(format!("{distribution} needs lambd (a rate) or mean")),
                    };
                    if rate > 0.0 && rate.is_finite() {
                        Ok(TimeDist::Exponential { rate })
                    } else {
                        Err(format!("{distribution}: the rate must be positive, got {rate}"))
                    }
                }
                "constant" => time_dist(RawTime::Number(get("value")?), is_submit),
                "uniform" => {
                    let (low, high) = (get("low")?, get("high")?);
                    if 0.0 <= low && low < high && high.is_finite() && (!is_submit || high > 0.0) {
                        Ok(TimeDist::Uniform { low, high })
                    } else {
                        Err(format!("uniform needs 0 <= low < high, got low {low}, high {high}"))
                    }
                }
                _ => Err(format!(
                    "unknown distribution '{distribution}' (expected pfsim.math.ExponentialDistribution, exponential, constant or uniform)"
                )),
            }
        }
    }
}
