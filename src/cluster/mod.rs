//! Application traffic on a cluster as PFSim models it: the cluster ([`graph`]), node
//! selection, process placement and per-host-pair routing over minimal paths
//! ([`application`]), one application evaluated under every combination of those
//! ([`evaluate`]), and PFSim-style scenarios of jobs arriving, queueing, running and
//! leaving over time ([`jobs`]).
//!
//! May use: [`crate::fabric`] (a fabric read as a cluster), [`crate::gen`] (generated
//! clusters), [`crate::workload`] (traffic matrices) and [`crate::engine`]'s seeded
//! streams. Never the forwarding tables: clusters are routed per host pair.

pub mod application;
pub mod evaluate;
pub mod graph;
pub mod jobs;

pub use graph::{read_cluster, Cluster};
