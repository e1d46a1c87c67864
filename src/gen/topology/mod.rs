//! Topology generators: fat trees (k-ary n-trees, XGFTs, slimmed two-level trees),
//! meshes and tori, hypercubes, HyperX, dragonflies and Jellyfish random regular graphs.
//!
//! Every generator returns a [`Generated`] fabric without routing. The conventions are
//! the same everywhere:
//!
//! * **Node order:** all hosts first (host `i` is node `i`), then the switches in the
//!   order the generator's documentation gives (level by level for trees, by index
//!   otherwise).
//! * **Names:** hosts are `H` plus the zero-padded decimal host index, five digits wide
//!   (`H00000`, `H00001`, ...; wider when there are 100 000 hosts or more). ORCS reads a
//!   host name's GUID as hex, and fixed-width decimal digits sort the same way as numbers
//!   and as hex, so GUID order is host order. Switches are `S<level>_<index>` in trees
//!   (level 0 = leaves), `S<c0>_<c1>_...` (their coordinates) in meshes, tori, hypercubes
//!   and HyperX, `R<group>_<router>` in dragonflies and `S<i>` in Jellyfish. No switch
//!   name starts with `H`.
//! * **Ports:** every cable joins one port at each end; ports are numbered from 1 per
//!   node, hosts have a single port (1), and a switch's host ports come first
//!   (`1..=hosts_per_switch`). Each cable becomes two directed edges whose `key` is the
//!   port number at the edge's tail, as in an ibsim net file or an `ibnetdiscover` dump.
//!   Edges are numbered the ORCS way (by tail, then head node, then creation order), so
//!   parallel cables between two switches appear in port order.
//! * **Limits:** at most [`MAX_NODES`] nodes, [`MAX_EDGES`] directed edges and
//!   [`MAX_PORTS`] ports per node; larger requests fail with [`GenError::TooLarge`] before
//!   anything is allocated. [`size_of`] tells a spec's size without building it, and
//!   [`generate_within`] refuses a fabric that would not fit in the memory a run may use
//!   ([`GenError::Memory`]). Impossible parameters fail with [`GenError::Parameter`],
//!   naming the parameter (as [`generate`] spells it) and its valid range. No parameter
//!   makes a generator panic.
//!
//! Building a fabric costs O(nodes + edges) time and memory, plus a sort of the edges
//! (O(edges log edges)); Jellyfish adds its randomised construction (see [`jellyfish`](fn@jellyfish)).
//!
//! One file per family (fat trees: [`kary_ntree`], [`xgft`], [`slimmed_two_level`];
//! grids: [`grid`](fn@grid), [`hypercube`], [`hyperx`]; [`dragonfly`](fn@dragonfly); [`jellyfish`](fn@jellyfish)), one for the
//! fabric builder they share and one for the spec parser behind [`generate`]. This module
//! holds what all of them share: the size limits and [`GenError`].
//!
//! May use: [`crate::fabric`] (the model it builds), [`crate::gen`]'s `Structure`
//! and `Generated`, and [`crate::limits`]. Nothing else of orcs.

use crate::gen::Generated;
use crate::limits::{Estimate, LimitError, MemoryLimit};
use std::fmt;

mod builder;
mod dragonfly;
mod fat_tree;
mod grid;
mod jellyfish;
mod spec;

pub use dragonfly::{dragonfly, GlobalArrangement};
pub use fat_tree::{kary_ntree, slimmed_two_level, xgft};
pub use grid::{grid, hypercube, hyperx};
pub use jellyfish::jellyfish;
pub use spec::{generate, size_of};

/// Largest number of nodes (hosts and switches) a generator builds.
pub(crate) const MAX_NODES: u64 = 1 << 24;

/// Largest number of directed edges (two per cable) a generator builds.
pub(crate) const MAX_EDGES: u64 = 1 << 26;

/// Largest number of ports on one node. Forwarding tables store a switch's ports as
/// 16-bit local indices, so a node may have at most 65 534 links.
pub(crate) const MAX_PORTS: u64 = 65_534;

/// Most dimensions of a mesh, torus, hypercube or HyperX, and most levels of a tree.
pub(crate) const MAX_DIMENSIONS: usize = 32;

/// Why a generator could not build a fabric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenError {
    /// A parameter outside its valid range.
    #[error("{generator}: {parameter} = {value} is invalid: {valid}")]
    Parameter {
        /// The generator, as [`generate`] names it (`kary-ntree`, `torus`, ...).
        generator: &'static str,
        /// The parameter, as [`generate`] spells it (`k`, `dims`, `hosts`, ...).
        parameter: &'static str,
        /// The value given.
        value: String,
        /// The valid range or rule.
        valid: String,
    },
    /// The fabric would exceed one of the size limits.
    #[error("{generator}: the fabric would have {count} {what}, more than the limit of {limit}")]
    TooLarge {
        /// The generator.
        generator: &'static str,
        /// What is too many (`nodes`, `directed edges`, `ports on one node`).
        what: &'static str,
        /// How many there would be (saturated at `u128::MAX`).
        count: u128,
        /// The limit.
        limit: u64,
    },
    /// A generator spec that cannot be parsed (see [`generate`]).
    #[error("generator spec {spec:?}: {message}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong, with what is accepted.
        message: String,
    },
    /// A dragonfly arrangement name that is none of [`GlobalArrangement`]'s.
    #[error(
        "unknown arrangement {name:?}; accepted: absolute (alias consecutive), relative, circulant"
    )]
    UnknownArrangement {
        /// The name as given.
        name: String,
    },
    /// A randomised construction that did not succeed.
    #[error("{generator}: {message}")]
    Construction {
        /// The generator.
        generator: &'static str,
        /// What failed.
        message: String,
    },
    /// The fabric, routed, would need more memory than the run may use.
    #[error(transparent)]
    Memory(#[from] LimitError),
}

/// [`generate`], after checking that the fabric, routed, fits in `memory`: a spec whose
/// fabric would not is refused before anything is built.
pub fn generate_within(spec: &str, memory: MemoryLimit) -> Result<Generated, GenError> {
    let size = size_of(spec)?;
    memory.check(&size.estimate(format!(
        "{spec} ({} hosts, {} switches, {} cables)",
        size.hosts, size.switches, size.cables
    )))?;
    generate(spec)
}

/// The [`GenError::Parameter`] for `parameter` = `value` of `generator`, which must
/// satisfy `valid`.
fn bad(
    generator: &'static str,
    parameter: &'static str,
    value: impl fmt::Display,
    valid: &str,
) -> GenError {
    GenError::Parameter {
        generator,
        parameter,
        value: value.to_string(),
        valid: valid.to_string(),
    }
}

/// Product of `values` in u128, saturating.
fn product(values: impl IntoIterator<Item = u128>) -> u128 {
    values.into_iter().fold(1u128, |a, b| a.saturating_mul(b))
}

/// The size of the fabric a generator builds, known from its parameters before anything
/// is built ([`size_of`] for a spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FabricSize {
    /// Hosts.
    pub hosts: u128,
    /// Switches.
    pub switches: u128,
    /// Cables; each is two directed edges.
    pub cables: u128,
    /// Most ports on one node.
    pub max_ports: u128,
}

impl FabricSize {
    /// Nodes: hosts and switches.
    pub fn nodes(&self) -> u128 {
        self.hosts.saturating_add(self.switches)
    }

    /// Checks the size limits ([`MAX_NODES`], [`MAX_EDGES`], [`MAX_PORTS`]).
    pub(crate) fn check(self, generator: &'static str) -> Result<Self, GenError> {
        let too_large = |what, count, limit| GenError::TooLarge {
            generator,
            what,
            count,
            limit,
        };
        if self.nodes() > MAX_NODES as u128 {
            return Err(too_large("nodes", self.nodes(), MAX_NODES));
        }
        let edges = self.cables.saturating_mul(2);
        if edges > MAX_EDGES as u128 {
            return Err(too_large("directed edges", edges, MAX_EDGES));
        }
        if self.max_ports > MAX_PORTS as u128 {
            return Err(too_large("ports on one node", self.max_ports, MAX_PORTS));
        }
        Ok(self)
    }

    /// What the fabric holds once built and routed, named `subject` in errors: per node
    /// its name and attributes, per directed edge its ends, port key and attributes, and
    /// a dense forwarding table (switches × hosts entries) with the routes that a routed
    /// dot file writes beside the links.
    pub fn estimate(&self, subject: impl Into<String>) -> Estimate {
        Estimate::new(subject)
            .add(self.nodes(), "nodes", 96)
            .add(self.cables.saturating_mul(2), "directed edges", 112)
            .add(
                self.switches.saturating_mul(self.hosts),
                "forwarding table entries",
                8,
            )
    }
}
