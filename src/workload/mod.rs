//! What the hosts send: ORCS's communication patterns with their level structure, the
//! choice of hosts and the rank-to-host mapping of every run, and traffic matrices with
//! their readers (PFProf traces, CSV, Matrix Market, JSON).
//!
//! Errors: the readers (traffic matrices, the node ordering file) report a
//! [`LocatedError`](crate::error::LocatedError); [`pattern::PatternError`] (pattern names
//! and arguments, including the `-a help` request the command line picks out by type),
//! [`pattern::SizeError`] (a communicator that does not fit the fabric) and
//! [`mapping::MappingError`] (too few hosts for a subset) each belong to one entry point,
//! so callers match only what that step can fail with.
//!
//! May use: [`crate::fabric`] (host names, GUIDs and order) and [`crate::error`]. Never
//! routing or an engine.

pub mod mapping;
pub mod matrix;
pub mod pattern;

pub use matrix::{read_traffic, TrafficMatrix};
pub use pattern::{Pattern, PatternKind};
