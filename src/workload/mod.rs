//! What the hosts send: ORCS's communication patterns with their level structure, the
//! choice of hosts and the rank-to-host mapping of every run, and traffic matrices with
//! their readers (PFProf traces, CSV, Matrix Market, JSON).
//!
//! Errors: the readers (traffic matrices, the node ordering file) report a
//! [`LocatedError`](crate::error::LocatedError); everything else fails into the one
//! [`WorkloadError`] (in `error`): pattern names and arguments (including the `-a help`
//! request the command line picks out by variant), a communicator that does not fit the
//! fabric, and too few hosts for a subset.
//!
//! May use: [`crate::fabric`] (host names, GUIDs and order) and [`crate::error`]. Never
//! routing or an engine.

mod error;
pub mod mapping;
pub mod matrix;
pub mod pattern;

pub use error::WorkloadError;
pub use matrix::{read_traffic, TrafficMatrix};
pub use pattern::{Pattern, PatternKind};
