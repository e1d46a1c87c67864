//! orcs: an oblivious routing congestion simulator for HPC interconnects.
//!
//! The library core behind the `orcs` command: load a routed fabric ([`fabric`]), compile
//! and check its forwarding tables ([`routing`]), choose hosts and ranks ([`mapping`]),
//! generate communication patterns ([`pattern`]), run the Monte Carlo engine ([`sim`]),
//! and turn the results into metrics ([`metric`]) and bytes ([`report`]). The semantics
//! follow the original ORCS simulator; where orcs deliberately differs, the item says so.

#![warn(missing_docs)]

pub mod appsim;
pub mod deadlock;
pub mod draw;
pub mod engines;
pub mod fabric;
pub mod gen;
pub mod html;
pub mod ib;
pub mod input;
pub mod jobs;
pub mod map;
pub mod mapping;
pub mod metric;
pub mod pattern;
pub mod plot;
pub mod queueing;
pub mod report;
pub mod results;
pub mod routing;
pub mod scan;
pub mod sim;
#[cfg(test)]
mod test_support;
pub mod traffic;
pub mod weighted;
