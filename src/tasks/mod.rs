//! The synthetic task model of Rumley et al.: task trees, their footprints and loads,
//! and the execution of root tasks under a scheduler on a crossbar or a routed
//! fabric.
//!
//! * [`tree`]: the layered tree of a vector z and the preferential-attachment tree of
//!   (n, s), as flat arrays, with n, L and d;
//! * [`fits`]: LWSim's analytic fits of L and d for the stochastic trees;
//! * [`footprint`]: task costs, the footprints F_x and F_c, their inverse, and loads;
//! * [`model`]: a model as a user gives it (trees, where the counts come from, costs);
//! * [`sim`]: the discrete-event simulation of the central work-sharing scheduler and
//!   of work stealing;
//! * [`study`]: a simulated point or sweep as the outputs show it.

pub mod fits;
pub mod footprint;
pub mod model;
pub mod sim;
pub mod study;
pub mod tree;

pub use footprint::{Footprint, LoadTarget, Loads, Machine, SchedulerKind, TaskCosts, TreeCounts};
pub use tree::{TaskTree, TreeError};

#[cfg(test)]
mod tests;
