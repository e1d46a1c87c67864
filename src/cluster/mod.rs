//! Application traffic on a cluster as PFSim models it: the cluster ([`graph`], read from
//! PFSim's GraphML by [`graphml`]), node selection ([`selection`]), process placement
//! ([`placement`]), per-host-pair routing over minimal paths ([`paths`]) and the bytes
//! each link carries ([`loads`]); one application evaluated under every combination of
//! those ([`evaluate`]), and PFSim-style scenarios of jobs arriving, queueing, running
//! and leaving over time ([`jobs`]).
//!
//! The model is PFSim's (spec pfsim.md §4–§5): a job's whole-run traffic matrix is summed
//! per ordered host pair and added, heaviest pair first, onto the links of one minimal
//! path per pair. The order of the cluster file decides everything PFSim leaves to
//! networkx: host order, adjacency order and thus path enumeration and tie-breaks, which
//! is why a cluster keeps its own edge order rather than a [`crate::fabric::Fabric`]'s.
//!
//! Failures are [`ClusterError`]s; the readers of cluster and scenario files report a bad
//! input as a [`LocatedError`].
//!
//! May use: [`crate::error`], [`crate::fabric`] (a fabric read as a cluster),
//! [`crate::gen`] (generated clusters), [`crate::workload`] (traffic matrices and their
//! error helpers), [`crate::engine::stream`]'s seeded streams and [`crate::limits`]
//! (nesting depth, the memory of clusters and scenarios). Never the forwarding
//! tables: clusters are routed per host pair.

pub mod evaluate;
pub mod graph;
pub mod graphml;
pub mod jobs;
pub mod loads;
pub mod paths;
pub mod placement;
pub mod selection;

pub use graph::{read_cluster, Cluster};

use crate::error::LocatedError;
use crate::gen::topology::GenError;

/// Why a cluster cannot be built, or a job cannot be placed or routed on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// A cluster file is unreadable or malformed (the file, the line, what was expected).
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// A generated cluster's specification is invalid.
    #[error(transparent)]
    Generate(#[from] GenError),
    /// Not enough free processing elements for the job.
    #[error("the job needs {needed} processing elements but only {free} are free")]
    TooLarge {
        /// Ranks of the job.
        needed: u64,
        /// Free processing elements.
        free: u64,
    },
    /// Two hosts of the job are not connected.
    #[error("no path from {from} to {to}")]
    Disconnected {
        /// Source host name.
        from: String,
        /// Destination host name.
        to: String,
    },
    /// A cluster or scenario needs more memory than the run may use.
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
}
