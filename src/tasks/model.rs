//! A task model as a user gives it: which trees (a layered vector z, or preferential
//! attachment with n and s), the counts its footprints use (the generator's, or LWSim's
//! formulas), and its costs (given, or derived from imposed footprints).

use super::fits;
use super::footprint::{costs_for, Footprint, TaskCosts, TreeCounts};
use super::sim::TreeModel;
use super::tree::{layered_delegating_lwsim, TaskTree, TreeError};
use crate::engine::stream::{stream_rng, Stream};
use std::fmt;

/// Which trees the root tasks have.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeSpec {
    /// The layered tree of z: every task on layer i − 1 has z_i children.
    Layered(Vec<u32>),
    /// A preferential-attachment tree of n tasks and exponent s per root task.
    Preferential {
        /// Tasks n.
        tasks: u32,
        /// Exponent s.
        exponent: f64,
    },
}

/// Most tasks a tree may have (ids are 32-bit; a layered tree is built whole).
pub const MAX_TASKS: u64 = 1 << 26;

impl TreeSpec {
    /// Reads `z=4,3` (a layered tree; `z=` alone is the single task) or `n=100,s=0.5`
    /// (preferential attachment). The error says what was expected.
    pub fn parse(text: &str) -> Result<TreeSpec, String> {
        let text = text.trim();
        let expected = "expected z=Z1,Z2,… (a layered tree, e.g. z=4,3) or n=N,s=S \
                        (preferential attachment, e.g. n=100,s=0.5)";
        if let Some(z) = text.strip_prefix("z=") {
            let z: Vec<u32> = if z.trim().is_empty() {
                Vec::new()
            } else {
                z.split(',')
                    .map(|v| v.trim().parse::<u32>().ok().filter(|&v| v >= 1))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("'{text}': every z_i must be a whole number ≥ 1"))?
            };
            match super::tree::layered_size(&z) {
                Some(n) if n <= MAX_TASKS => Ok(TreeSpec::Layered(z)),
                _ => Err(format!(
                    "'{text}': the tree has more than {MAX_TASKS} tasks"
                )),
            }
        } else if let Some(rest) = text.strip_prefix("n=") {
            let (n, s) = rest
                .split_once(",s=")
                .ok_or_else(|| format!("'{text}': {expected}"))?;
            let tasks = n
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1 && u64::from(n) <= MAX_TASKS)
                .ok_or_else(|| format!("'{text}': n must be a whole number in 1..={MAX_TASKS}"))?;
            let exponent = s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && s.abs() <= 100.0)
                .ok_or_else(|| format!("'{text}': s must be a number in [-100, 100]"))?;
            Ok(TreeSpec::Preferential { tasks, exponent })
        } else {
            Err(format!("'{text}': {expected}"))
        }
    }

    /// The trees the simulation executes.
    pub fn tree_model(&self) -> Result<TreeModel, TreeError> {
        Ok(match self {
            TreeSpec::Layered(z) => TreeModel::Fixed(TaskTree::layered(z)?),
            &TreeSpec::Preferential { tasks, exponent } => {
                TreeModel::Preferential { tasks, exponent }
            }
        })
    }
}

impl fmt::Display for TreeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeSpec::Layered(z) => {
                let z: Vec<String> = z.iter().map(u32::to_string).collect();
                write!(f, "z={}", z.join(","))
            }
            TreeSpec::Preferential { tasks, exponent } => write!(f, "n={tasks},s={exponent}"),
        }
    }
}

/// Where the footprints' counts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountSource {
    /// The trees themselves: exact for a layered tree (d_true), the Monte Carlo mean of
    /// the generator for preferential attachment.
    Generator,
    /// LWSim's formulas: d_code for a layered tree, the piecewise fits of L and d for
    /// preferential attachment (compatibility).
    Lwsim,
}

/// A tree model's counts: the generator's (exact, or a Monte Carlo mean with its
/// standard errors) and LWSim's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelCounts {
    /// The generator's counts (exact for a layered tree, means for a random one).
    pub generator: TreeCounts,
    /// Standard errors of the leaves and delegating tasks (0 for a layered tree).
    pub standard_errors: (f64, f64),
    /// Trees drawn for the means (1 for a layered tree).
    pub samples: u32,
    /// Depth of the layered tree, or the mean depth of the random ones.
    pub depth: f64,
    /// Tasks with exactly one child (mean for random trees).
    pub single_child: f64,
    /// LWSim's counts.
    pub lwsim: TreeCounts,
}

impl ModelCounts {
    /// The counts of `spec`; random trees are drawn `samples` times (≥ 2) from the
    /// stream of `seed`. O(samples · n log n).
    pub fn of(spec: &TreeSpec, samples: u32, seed: u64) -> Result<ModelCounts, TreeError> {
        Self::of_with_progress(spec, samples, seed, &|_| {})
    }

    /// [`ModelCounts::of`], calling `progress(1)` after each random tree drawn, so that
    /// the many draws of big trees can show how far they are.
    pub fn of_with_progress(
        spec: &TreeSpec,
        samples: u32,
        seed: u64,
        progress: &dyn Fn(u64),
    ) -> Result<ModelCounts, TreeError> {
        match spec {
            TreeSpec::Layered(z) => {
                let tree = TaskTree::layered(z)?;
                let generator = counts_of(&tree);
                Ok(ModelCounts {
                    generator,
                    standard_errors: (0.0, 0.0),
                    samples: 1,
                    depth: tree.depth() as f64,
                    single_child: tree.single_child() as f64,
                    lwsim: TreeCounts {
                        delegating: layered_delegating_lwsim(z) as f64,
                        ..generator
                    },
                })
            }
            &TreeSpec::Preferential { tasks, exponent } => {
                let samples = samples.max(2);
                let mut rng = stream_rng(seed, Stream::Tasks(u64::MAX));
                let mut sums = [0.0f64; 6];
                for _ in 0..samples {
                    let tree = TaskTree::preferential(tasks, exponent, &mut rng);
                    let (l, d) = (tree.leaves() as f64, tree.delegating() as f64);
                    sums[0] += l;
                    sums[1] += l * l;
                    sums[2] += d;
                    sums[3] += d * d;
                    sums[4] += tree.depth() as f64;
                    sums[5] += tree.single_child() as f64;
                    progress(1);
                }
                let k = f64::from(samples);
                let se = |sum: f64, squares: f64| {
                    let mean = sum / k;
                    ((squares / k - mean * mean).max(0.0) / (k - 1.0)).sqrt()
                };
                let n = f64::from(tasks);
                Ok(ModelCounts {
                    generator: TreeCounts {
                        tasks: n,
                        leaves: sums[0] / k,
                        delegating: sums[2] / k,
                    },
                    standard_errors: (se(sums[0], sums[1]), se(sums[2], sums[3])),
                    samples,
                    depth: sums[4] / k,
                    single_child: sums[5] / k,
                    lwsim: TreeCounts {
                        tasks: n,
                        leaves: fits::leaves(n, exponent),
                        delegating: fits::delegating(n, exponent),
                    },
                })
            }
        }
    }

    /// The counts from `source`.
    pub fn from(&self, source: CountSource) -> TreeCounts {
        match source {
            CountSource::Generator => self.generator,
            CountSource::Lwsim => self.lwsim,
        }
    }
}

fn counts_of(tree: &TaskTree) -> TreeCounts {
    TreeCounts {
        tasks: tree.len() as f64,
        leaves: tree.leaves() as f64,
        delegating: tree.delegating() as f64,
    }
}

/// How the costs are given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CostSpec {
    /// Every time and payload as given.
    Given(TaskCosts),
    /// Footprints imposed: F_x (s) and F_c (bits); the costs are derived in the ratios
    /// of the base costs.
    Footprints {
        /// The base costs giving the ratios t_i : t_a and s_s : s_r, and ε.
        base: TaskCosts,
        /// F_x, s.
        computation: f64,
        /// F_c, bits.
        communication: f64,
    },
}

impl CostSpec {
    /// The costs for a tree with `counts`; None when imposed footprints do not fit
    /// ([`costs_for`]).
    pub fn resolve(&self, counts: TreeCounts) -> Option<TaskCosts> {
        match *self {
            CostSpec::Given(costs) => Some(costs),
            CostSpec::Footprints {
                base,
                computation,
                communication,
            } => costs_for(counts, computation, communication, &base),
        }
    }
}

/// The footprints of a model: its counts from `source` under its resolved costs.
pub fn footprint(counts: &ModelCounts, source: CountSource, costs: &TaskCosts) -> Footprint {
    Footprint::of(counts.from(source), costs)
}

/// Everything `orcs tasks describe` tells about a model on a machine at a load.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// The trees.
    pub spec: TreeSpec,
    /// Their counts, the generator's and LWSim's.
    pub counts: ModelCounts,
    /// The counts the footprints use.
    pub source: CountSource,
    /// The costs (derived when footprints were imposed).
    pub costs: TaskCosts,
    /// The footprints of one root task.
    pub footprint: Footprint,
    /// The machine.
    pub machine: super::Machine,
    /// The loads at the target.
    pub loads: super::Loads,
}

/// Why a model cannot be described or run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The tree cannot be built.
    #[error(transparent)]
    Tree(#[from] TreeError),
    /// Imposed footprints that no sizes give.
    #[error(
        "no task sizes give F_c = {communication} bits with {leaves} leaves and {delegating} \
         delegating tasks: F_c must cover the control messages, (L − 1)·ε + ε(2 + 2d), and the \
         tree must have 2 leaves or more"
    )]
    Footprints {
        /// The imposed F_c, bits.
        communication: f64,
        /// L.
        leaves: f64,
        /// d.
        delegating: f64,
    },
}

impl Description {
    /// Describes `spec` with costs `costs` on `machine` at `target`, random trees
    /// counted over `samples` draws from `seed`, calling `progress(1)` after each
    /// ([`ModelCounts::of_with_progress`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        spec: &TreeSpec,
        costs: &CostSpec,
        source: CountSource,
        machine: super::Machine,
        target: super::LoadTarget,
        samples: u32,
        seed: u64,
        progress: &dyn Fn(u64),
    ) -> Result<Description, ModelError> {
        let counts = ModelCounts::of_with_progress(spec, samples, seed, progress)?;
        let used = counts.from(source);
        let resolved = costs.resolve(used).ok_or(ModelError::Footprints {
            communication: match costs {
                CostSpec::Footprints { communication, .. } => *communication,
                CostSpec::Given(_) => f64::NAN,
            },
            leaves: used.leaves,
            delegating: used.delegating,
        })?;
        let footprint = Footprint::of(used, &resolved);
        let loads = super::Loads::new(&footprint, &machine, target);
        Ok(Description {
            spec: spec.clone(),
            counts,
            source,
            costs: resolved,
            footprint,
            machine,
            loads,
        })
    }
}
