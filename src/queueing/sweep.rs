//! Parameter grids: the values of C, λ and M to evaluate, one of them the x axis and the
//! others (with the architectures) split into series; evaluating and simulating them.

use super::des::{self, DesConfig, DesResult};
use super::hops::{FabricHops, FabricRoutes};
use super::params::{Config, NetworkSettings};
use super::{
    solve, Architecture, Centre, Ecn1Mode, QueueError, Service, Solution, Sources, System,
};
use std::collections::HashMap;
use std::fmt;

/// The parameter along the x axis of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Number of clusters C.
    Clusters,
    /// Message rate λ per processor.
    Rate,
    /// Message size M.
    MessageSize,
}

impl Axis {
    /// Every axis, in the order in which one is picked when none is named.
    pub const ALL: [Axis; 3] = [Axis::Clusters, Axis::Rate, Axis::MessageSize];

    /// The name used in flags and files: `clusters`, `rate` or `size`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::Clusters => "clusters",
            Axis::Rate => "rate",
            Axis::MessageSize => "size",
        }
    }

    /// The axis label of a plot.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Clusters => "number of clusters C",
            Axis::Rate => "message rate λ per processor (messages/s)",
            Axis::MessageSize => "message size M (bytes)",
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How big the system is when the number of clusters changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Population {
    /// N processors in all, N0 = N/C (C must divide N).
    Total(u32),
    /// N0 processors per cluster, N = C·N0.
    PerCluster(u32),
}

/// Everything to evaluate: lists of values (several values sweep or split into series)
/// and the settings shared by all points.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Numbers of clusters.
    pub clusters: Vec<u32>,
    /// System size.
    pub population: Population,
    /// Message rates per processor, messages/s.
    pub rates: Vec<f64>,
    /// Message sizes, bytes.
    pub message_sizes: Vec<f64>,
    /// Architectures applied to all three networks, one series each; `None` keeps each
    /// network's own.
    pub architectures: Vec<Option<Architecture>>,
    /// The settings of ICN1, ECN1 and ICN2 ([`Centre::index`]).
    pub networks: [NetworkSettings; 3],
    /// Service model.
    pub service: Service,
    /// ECN1 queueing.
    pub ecn1: Ecn1Mode,
    /// Effective-rate correction.
    pub sources: Sources,
}

impl Default for Scenario {
    /// The spec's regression setting at C = 4: N = 256 processors, λ = 20 messages/s,
    /// M = 1024 B, Gigabit Ethernet everywhere, M/M/1, shared ECN1, blocking sources.
    fn default() -> Self {
        Scenario {
            clusters: vec![4],
            population: Population::Total(256),
            rates: vec![20.0],
            message_sizes: vec![1024.0],
            architectures: vec![None],
            networks: Default::default(),
            service: Service::Exponential,
            ecn1: Ecn1Mode::Shared,
            sources: Sources::Blocking,
        }
    }
}

/// One point to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// Index into [`Grid::series`].
    pub series: usize,
    /// The value on the x axis (C, λ or M; the point's index without an axis).
    pub x: f64,
    /// The complete parameters.
    pub system: System,
}

/// The points of a scenario, grouped into series.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The x axis, if a parameter is swept.
    pub axis: Option<Axis>,
    /// Series labels, e.g. "blocking, M = 512 B".
    pub series: Vec<String>,
    /// Every point, series by series, in the order of the x values given.
    pub points: Vec<PointSpec>,
}

/// A number as short as it can be written exactly (for labels).
pub(crate) fn short_number(x: f64) -> String {
    if x == x.round() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

impl Scenario {
    /// The scenario of a (merged) configuration; what it leaves open takes the
    /// [`Default`] values, with `default_total` processors when it gives neither N nor N0.
    pub fn from_config(config: &Config, default_total: u32) -> Scenario {
        let d = Scenario::default();
        Scenario {
            clusters: config.clusters.clone().unwrap_or(d.clusters),
            population: match (config.total_nodes, config.nodes_per_cluster) {
                (_, Some(n0)) => Population::PerCluster(n0),
                (Some(n), None) => Population::Total(n),
                (None, None) => Population::Total(default_total),
            },
            rates: config.rate.clone().unwrap_or(d.rates),
            message_sizes: config.message_size.clone().unwrap_or(d.message_sizes),
            architectures: match &config.architectures {
                Some(list) => list.iter().map(|&a| Some(a)).collect(),
                None => d.architectures,
            },
            networks: config
                .networks
                .clone()
                .map(|n| config.all_networks.overlay(&n)),
            service: config.service.unwrap_or(d.service),
            ecn1: config.ecn1.unwrap_or(d.ecn1),
            sources: config.sources.unwrap_or(d.sources),
        }
    }

    /// The x axis: `requested`, or else the first of C, λ, M with several values (none
    /// when every list has one value).
    pub fn axis(&self, requested: Option<Axis>) -> Option<Axis> {
        requested.or_else(|| Axis::ALL.into_iter().find(|&a| self.values(a).len() > 1))
    }

    fn values(&self, axis: Axis) -> Vec<f64> {
        match axis {
            Axis::Clusters => self.clusters.iter().map(|&c| c as f64).collect(),
            Axis::Rate => self.rates.clone(),
            Axis::MessageSize => self.message_sizes.clone(),
        }
    }

    /// The networks as configured, with `arch` (if any) for all three.
    pub(crate) fn networks_with(&self, arch: Option<Architecture>) -> [super::Network; 3] {
        self.networks.clone().map(|s| {
            let mut n = s.network();
            if let Some(a) = arch {
                n.architecture = a;
            }
            n
        })
    }

    /// The hardware of the three networks for people: one label when they are alike,
    /// else `ICN1 …, ECN1 …, ICN2 …` (see [`NetworkSettings::label`]).
    pub(crate) fn hardware_label(&self) -> String {
        let labels = self.networks.clone().map(|n| n.label());
        if labels.iter().all(|l| *l == labels[0]) {
            labels[0].clone()
        } else {
            format!("ICN1 {}, ECN1 {}, ICN2 {}", labels[0], labels[1], labels[2])
        }
    }

    /// Expands the scenario into points: the axis's values along x, every combination of
    /// the other lists (architectures outermost, then M, λ, C) as a series. Fails when a
    /// list is empty or C does not divide N. O(points).
    pub fn grid(&self, requested: Option<Axis>) -> Result<Grid, QueueError> {
        for (name, empty) in [
            ("list of cluster counts", self.clusters.is_empty()),
            ("list of rates", self.rates.is_empty()),
            ("list of message sizes", self.message_sizes.is_empty()),
            ("list of architectures", self.architectures.is_empty()),
        ] {
            if empty {
                return Err(QueueError::InvalidParameter {
                    name: name.to_string(),
                    reason: "needs at least one value".to_string(),
                });
            }
        }
        let axis = self.axis(requested);
        let along = |a: Axis, values: Vec<f64>| -> Vec<Option<f64>> {
            if axis == Some(a) {
                vec![None]
            } else {
                values.into_iter().map(Some).collect()
            }
        };
        let xs: Vec<f64> = match axis {
            Some(a) => self.values(a),
            None => vec![0.0],
        };
        let sizes = along(Axis::MessageSize, self.message_sizes.clone());
        let rates = along(Axis::Rate, self.values(Axis::Rate));
        let clusters = along(Axis::Clusters, self.values(Axis::Clusters));
        let mut grid = Grid {
            axis,
            series: Vec::new(),
            points: Vec::new(),
        };
        for &arch in &self.architectures {
            let networks = self.networks_with(arch);
            for &m in &sizes {
                for &rate in &rates {
                    for &c in &clusters {
                        let series = grid.series.len();
                        let mut label = vec![architecture_label(&networks)];
                        if sizes.len() > 1 {
                            label.push(format!("M = {} B", short_number(m.unwrap_or(0.0))));
                        }
                        if rates.len() > 1 {
                            label.push(format!("λ = {}/s", short_number(rate.unwrap_or(0.0))));
                        }
                        if clusters.len() > 1 {
                            label.push(format!("C = {}", short_number(c.unwrap_or(0.0))));
                        }
                        grid.series.push(label.join(", "));
                        for (i, &x) in xs.iter().enumerate() {
                            let pick = |fixed: Option<f64>, a: Axis| {
                                fixed.unwrap_or(if axis == Some(a) { x } else { 0.0 })
                            };
                            let clusters_here = pick(c, Axis::Clusters) as u32;
                            let system = System {
                                clusters: clusters_here,
                                nodes_per_cluster: self.nodes_per_cluster(clusters_here)?,
                                rate: pick(rate, Axis::Rate),
                                message_size: pick(m, Axis::MessageSize),
                                networks,
                                service: self.service,
                                ecn1: self.ecn1,
                                sources: self.sources,
                                measured_hops: None,
                            };
                            grid.points.push(PointSpec {
                                series,
                                x: if axis.is_some() { x } else { i as f64 },
                                system,
                            });
                        }
                    }
                }
            }
        }
        Ok(grid)
    }

    /// N0 for `clusters` clusters.
    fn nodes_per_cluster(&self, clusters: u32) -> Result<u32, QueueError> {
        match self.population {
            Population::PerCluster(n0) => Ok(n0),
            Population::Total(_) if clusters == 0 => Err(QueueError::InvalidParameter {
                name: "number of clusters C".to_string(),
                reason: "must be at least 1".to_string(),
            }),
            Population::Total(n) if n % clusters == 0 => Ok(n / clusters),
            Population::Total(n) => Err(QueueError::InvalidParameter {
                name: "number of clusters C".to_string(),
                reason: format!(
                    "{n} processors cannot be split into {clusters} clusters of equal size; choose a C that divides N, or fix the cluster size N0 instead of N"
                ),
            }),
        }
    }
}

/// "non-blocking", "blocking", or the three architectures when they differ.
pub(crate) fn architecture_label(networks: &[super::Network; 3]) -> String {
    let a = networks[0].architecture;
    if networks.iter().all(|n| n.architecture == a) {
        a.name().to_string()
    } else {
        Centre::ALL
            .iter()
            .map(|c| format!("{} {}", c.name(), networks[c.index()].architecture))
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// One evaluated point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// What was evaluated (with the measured switch counts, if any).
    pub spec: PointSpec,
    /// The switch counts measured on the fabric.
    pub fabric: Option<FabricHops>,
    /// The solution, or why there is none (saturation).
    pub solution: Result<Solution, QueueError>,
    /// The simulation, when asked for and the point is not saturated.
    pub simulated: Option<DesResult>,
}

impl Point {
    /// The offered rate λ at which the point's first centre saturates, and that centre:
    /// the solution's, or for a saturated point the system's (the same values).
    pub fn saturation(&self) -> (f64, Centre) {
        match &self.solution {
            Ok(s) => (s.saturation_rate, s.bottleneck),
            Err(_) => self.spec.system.saturation(),
        }
    }
}

/// Solves every point of `grid`, with switch counts from `fabric` when given (measured
/// once per partition). Saturated points keep their error; invalid parameters and fabric
/// problems stop the evaluation. O(points) plus the fabric measurements.
pub fn evaluate(grid: &Grid, fabric: Option<&FabricRoutes>) -> Result<Vec<Point>, QueueError> {
    let mut measured: HashMap<(u32, u32), FabricHops> = HashMap::new();
    let mut points = Vec::with_capacity(grid.points.len());
    for spec in &grid.points {
        let mut spec = spec.clone();
        let hops = match fabric {
            Some(routes) => {
                let key = (spec.system.clusters, spec.system.nodes_per_cluster);
                let h = match measured.get(&key) {
                    Some(h) => *h,
                    None => {
                        let h = routes.hops(key.0, key.1)?;
                        measured.insert(key, h);
                        h
                    }
                };
                spec.system.measured_hops = Some(h.switches());
                Some(h)
            }
            None => None,
        };
        spec.system.validate()?;
        let solution = solve(&spec.system);
        if let Err(e @ (QueueError::InvalidParameter { .. } | QueueError::NoConvergence { .. })) =
            &solution
        {
            return Err(e.clone());
        }
        points.push(Point {
            spec,
            fabric: hops,
            solution,
            simulated: None,
        });
    }
    Ok(points)
}

/// Simulates every point that has a solution (see [`des::simulate`]).
pub fn simulate(points: &mut [Point], config: &DesConfig) -> Result<(), QueueError> {
    for p in points.iter_mut() {
        if let Ok(solution) = &p.solution {
            p.simulated = Some(des::simulate(&p.spec.system, solution, config)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_list_is_the_axis_and_the_others_make_series() {
        let s = Scenario {
            clusters: vec![1, 2, 4],
            message_sizes: vec![512.0, 1024.0],
            architectures: vec![
                Some(Architecture::NonBlocking),
                Some(Architecture::Blocking),
            ],
            ..Scenario::default()
        };
        let g = s.grid(None).unwrap();
        assert_eq!(g.axis, Some(Axis::Clusters));
        assert_eq!(
            g.series,
            [
                "non-blocking, M = 512 B",
                "non-blocking, M = 1024 B",
                "blocking, M = 512 B",
                "blocking, M = 1024 B"
            ]
        );
        assert_eq!(g.points.len(), 12);
        let p = &g.points[4];
        assert_eq!((p.series, p.x), (1, 2.0));
        assert_eq!(p.system.clusters, 2);
        assert_eq!(p.system.nodes_per_cluster, 128);
        assert_eq!(p.system.message_size, 1024.0);
        assert_eq!(p.system.networks[2].architecture, Architecture::NonBlocking);
        // Naming the axis turns the cluster list into series.
        let g = s.grid(Some(Axis::MessageSize)).unwrap();
        assert_eq!(g.series.len(), 6);
        assert_eq!(g.series[0], "non-blocking, C = 1");
    }

    #[test]
    fn clusters_must_divide_a_fixed_total() {
        let s = Scenario {
            clusters: vec![3],
            ..Scenario::default()
        };
        let e = s.grid(None).unwrap_err().to_string();
        assert!(
            e.contains("256 processors cannot be split into 3 clusters"),
            "{e}"
        );
        let s = Scenario {
            clusters: vec![3],
            population: Population::PerCluster(10),
            ..Scenario::default()
        };
        assert_eq!(s.grid(None).unwrap().points[0].system.nodes_per_cluster, 10);
    }

    #[test]
    fn saturated_points_are_kept_and_the_rest_solved() {
        let s = Scenario {
            rates: vec![20.0, 1000.0],
            ..Scenario::default()
        };
        let points = evaluate(&s.grid(None).unwrap(), None).unwrap();
        assert!(points[0].solution.is_ok());
        assert!(matches!(
            points[1].solution,
            Err(QueueError::Saturated {
                centre: Centre::Icn2,
                ..
            })
        ));
        // The saturation rate does not depend on the offered rate.
        assert_eq!(points[1].saturation(), points[0].saturation());
        assert_eq!(points[1].saturation().1, Centre::Icn2);
    }
    #[test]
    fn hardware_reads_as_one_label_when_the_networks_are_alike() {
        use crate::queueing::params::Preset;
        let mut s = Scenario::default();
        assert_eq!(s.hardware_label(), "gigabit-ethernet");
        s.networks[2].preset = Some(Preset::InfinibandQdr);
        assert_eq!(
            s.hardware_label(),
            "ICN1 gigabit-ethernet, ECN1 gigabit-ethernet, ICN2 infiniband-qdr"
        );
    }
}
