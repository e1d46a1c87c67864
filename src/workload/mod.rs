//! What the hosts send: ORCS's communication patterns with their level structure, the
//! choice of hosts and the rank-to-host mapping of every run, and traffic matrices with
//! their readers (PFProf traces, CSV, Matrix Market, JSON).
//!
//! May use: [`crate::fabric`] (host names, GUIDs and order). Never routing or an engine.

pub mod mapping;
pub mod matrix;
pub mod pattern;

pub use matrix::{read_traffic, TrafficError, TrafficMatrix};
pub use pattern::{Pattern, PatternKind};
