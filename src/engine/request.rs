//! A simulation request prepared for one fabric: the communicator sized to the fabric's
//! hosts, the pattern checked to have the traffic the metric needs and the level asked
//! for, and the hosts laid out from the seed's subset stream.
//!
//! `orcs -i` and every cell of `orcs scan` go through [`SimRequest`], so both size and
//! check a simulation in one way. Preparing happens in two steps because a caller may
//! have to act in between: [`SimRequest::shape`] needs only the host count (a caller
//! prints the pattern's notices and picks a random seed after it), and
//! [`SimRequest::prepare`] lays the hosts out for that seed.

use crate::engine::metric::MetricKind;
use crate::engine::stream::{stream_rng, Stream};
use crate::engine::unit::{SimConfig, Simulation, SimulationError};
use crate::error::LocatedError;
use crate::fabric::Fabric;
use crate::limits::MemoryLimit;
use crate::routing::{ForwardingTable, RouteSummary};
use crate::workload::mapping::{parse_node_ordering, LayoutSpec, RankLayout, SubsetMethod};
use crate::workload::pattern::{communicator_size, Pattern, PatternContext};
use crate::workload::WorkloadError;

/// What to simulate on a fabric, everything but the seed: the workload and the options.
#[derive(Debug, Clone, PartialEq)]
pub struct SimRequest {
    /// The communication pattern.
    pub pattern: Pattern,
    /// Communicator size (`-s`; 0: all hosts, rounded down to even).
    pub commsize: u64,
    /// Size of ptrnvsptrn's first communicator (`-z`), between 2 and commsize − 1.
    pub part_commsize: u64,
    /// Simulate only this level (`-l`), or all levels.
    pub level: Option<usize>,
    /// The metric.
    pub metric: MetricKind,
    /// Number of Monte Carlo runs (≥ 1).
    pub runs: u64,
    /// How the communicator's hosts are chosen.
    pub subset: SubsetMethod,
    /// How ptrnvsptrn's first communicator is chosen from the subset, if at all.
    pub part_subset: Option<SubsetMethod>,
    /// File of host GUIDs placed at ranks 0, 1, … in every run.
    pub ordering_file: Option<String>,
    /// Reshuffle the ranks in every run.
    pub shuffle: bool,
    /// ORCS's models where orcs deliberately differs.
    pub orcs_compat: bool,
    /// Collect per-link statistics whatever the metric (`--links`).
    pub links: bool,
}

/// Why a request does not fit a fabric. The messages name the parameters without the
/// flags that set them: a command line prefixes its flag (`-s/--`, `-z/--`, `-l/--`).
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The communicator does not fit the fabric's hosts
    /// ([`WorkloadError::TooFewHosts`], [`WorkloadError::Commsize`]), or its hosts cannot
    /// be chosen ([`WorkloadError::BfsTooFewHosts`]).
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// ptrnvsptrn's first communicator is not smaller than the communicator.
    #[error("part_commsize must be between 2 and {max} (commsize - 1), got {got}")]
    PartCommsize {
        /// The largest size allowed.
        max: usize,
        /// The size asked for.
        got: u64,
    },
    /// The pattern has no traffic at this size and the metric needs some.
    #[error("pattern {pattern} with commsize {commsize} has no traffic, so metric {metric} has nothing to measure")]
    NoTraffic {
        /// The pattern's name.
        pattern: &'static str,
        /// The communicator size.
        commsize: u32,
        /// The metric asked for.
        metric: MetricKind,
    },
    /// The level asked for does not exist.
    #[error("ptrn_level {level} does not exist: pattern {pattern} with commsize {commsize} has {}", levels_text(*levels))]
    NoSuchLevel {
        /// The level asked for.
        level: usize,
        /// The levels the pattern has.
        levels: usize,
        /// The pattern's name.
        pattern: &'static str,
        /// The communicator size.
        commsize: u32,
    },
    /// The node ordering file cannot be read.
    #[error("cannot read node ordering file '{path}'")]
    OrderingFile {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The node ordering file is not a list of GUIDs: where, and what was expected.
    #[error(transparent)]
    Ordering(#[from] LocatedError),
}

fn levels_text(levels: usize) -> String {
    match levels {
        0 => "no levels".to_string(),
        k => format!("{k} levels (0..{})", k - 1),
    }
}

/// A request sized for a fabric: its pattern context and level count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Communicator sizes and compat mode, as the pattern sees them.
    pub context: PatternContext,
    /// Levels of one run of the pattern.
    pub num_levels: usize,
}

/// A request ready to run: its shape, the chosen hosts and the engine's configuration.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The sizes.
    pub shape: Shape,
    /// The hosts of the communicator and how they are reshuffled.
    pub layout: RankLayout,
    /// Warnings of the layout (ordering entries that were dropped).
    pub warnings: Vec<String>,
    /// The engine's configuration.
    pub config: SimConfig,
}

impl SimRequest {
    /// A request with ORCS's defaults for everything but the pattern, metric and runs:
    /// all hosts, `-z 2`, all levels, random subset, shuffled ranks.
    pub fn new(pattern: Pattern, metric: MetricKind, runs: u64) -> Self {
        SimRequest {
            pattern,
            commsize: 0,
            part_commsize: 2,
            level: None,
            metric,
            runs,
            subset: SubsetMethod::Rand,
            part_subset: None,
            ordering_file: None,
            shuffle: true,
            orcs_compat: false,
            links: false,
        }
    }

    /// The pattern context on a fabric of `hosts` hosts (spec §4.1): the communicator and
    /// part sizes checked against the hosts.
    pub fn context(&self, hosts: usize) -> Result<PatternContext, PrepareError> {
        let n = communicator_size(hosts, self.commsize)?;
        let z = self.part_commsize;
        if !(2..n as u64).contains(&z) {
            return Err(PrepareError::PartCommsize { max: n - 1, got: z });
        }
        Ok(PatternContext {
            commsize: n as u32,
            part_commsize: z as u32,
            orcs_compat: self.orcs_compat,
        })
    }

    /// The context and level count on a fabric of `hosts` hosts, with the checks that
    /// the metric has traffic to measure and the level asked for exists.
    pub fn shape(&self, hosts: usize) -> Result<Shape, PrepareError> {
        let context = self.context(hosts)?;
        let num_levels = self.pattern.num_levels(&context);
        if num_levels == 0 && self.metric.needs_traffic() {
            return Err(PrepareError::NoTraffic {
                pattern: self.pattern.name(),
                commsize: context.commsize,
                metric: self.metric,
            });
        }
        if let Some(level) = self.level.filter(|&l| l >= num_levels) {
            return Err(PrepareError::NoSuchLevel {
                level,
                levels: num_levels,
                pattern: self.pattern.name(),
                commsize: context.commsize,
            });
        }
        Ok(Shape {
            context,
            num_levels,
        })
    }

    /// Lays the communicator out on `fabric` from the subset stream of `seed`; the
    /// simulation may use `memory` (checked when it is built, see
    /// [`Prepared::simulation`]). O(hosts log hosts + edges).
    pub fn prepare(
        &self,
        fabric: &Fabric,
        shape: Shape,
        seed: u64,
        memory: MemoryLimit,
    ) -> Result<Prepared, PrepareError> {
        let spec = LayoutSpec {
            commsize: shape.context.commsize as usize,
            subset: self.subset,
            part: self
                .part_subset
                .map(|m| (m, shape.context.part_commsize as usize)),
            ordering: read_ordering(self.ordering_file.as_deref())?,
            shuffle: self.shuffle,
        };
        let (layout, warnings) = lay_out(fabric, &spec, seed)?;
        let config = SimConfig {
            runs: self.runs,
            seed,
            level: self.level,
            metric: self.metric,
            orcs_compat: self.orcs_compat,
            pattern_context: shape.context,
            links: self.links,
            memory,
        };
        Ok(Prepared {
            shape,
            layout,
            warnings,
            config,
        })
    }
}

impl Prepared {
    /// The engine for this request on `fabric`/`table` (see [`Simulation::new`]: the
    /// routes between the chosen hosts are checked unless `known` proves them, and a
    /// simulation that needs more memory than the request's limit is refused before
    /// anything is allocated for it).
    pub fn simulation<'a>(
        &'a self,
        fabric: &'a Fabric,
        table: &'a ForwardingTable,
        request: &'a SimRequest,
        known: Option<&RouteSummary>,
    ) -> Result<Simulation<'a>, SimulationError> {
        Simulation::new(
            fabric,
            table,
            &self.layout,
            &request.pattern,
            self.config.clone(),
            known,
        )
    }
}

/// Chooses the hosts of `spec` once, from the subset stream of `seed` (so the choice does
/// not depend on anything else drawn from the seed). Returns the layout and its warnings.
pub fn lay_out(
    fabric: &Fabric,
    spec: &LayoutSpec,
    seed: u64,
) -> Result<(RankLayout, Vec<String>), WorkloadError> {
    RankLayout::build(fabric, spec, &mut stream_rng(seed, Stream::Subset))
}

/// The GUIDs of a node ordering file (`--node_ordering_file`), or none.
pub fn read_ordering(path: Option<&str>) -> Result<Vec<u64>, PrepareError> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path).map_err(|source| PrepareError::OrderingFile {
        path: path.to_string(),
        source,
    })?;
    Ok(parse_node_ordering(&text, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(pattern: &str, metric: MetricKind) -> SimRequest {
        SimRequest::new(Pattern::parse(pattern, None).unwrap(), metric, 1)
    }

    #[test]
    fn sizes_follow_the_fabric() {
        let r = request("bisect", MetricKind::SumMaxCong);
        let shape = r.shape(17).unwrap();
        assert_eq!(shape.context.commsize, 16);
        assert_eq!(shape.context.part_commsize, 2);
        assert!(matches!(
            r.shape(3),
            Err(PrepareError::Workload(WorkloadError::TooFewHosts(3)))
        ));
        let z = SimRequest {
            part_commsize: 16,
            ..r.clone()
        };
        assert_eq!(
            z.context(16).unwrap_err().to_string(),
            "part_commsize must be between 2 and 15 (commsize - 1), got 16"
        );
    }

    #[test]
    fn levels_and_traffic_are_checked() {
        let null = request("null", MetricKind::HistMaxCong);
        assert!(matches!(
            null.shape(16),
            Err(PrepareError::NoTraffic { commsize: 16, .. })
        ));
        assert!(request("null", MetricKind::SumMaxCong).shape(16).is_ok());
        let level = SimRequest {
            level: Some(9),
            ..request("bruck", MetricKind::SumMaxCong)
        };
        assert_eq!(
            level.shape(16).unwrap_err().to_string(),
            "ptrn_level 9 does not exist: pattern bruck with commsize 16 has 4 levels (0..3)"
        );
    }
}
