//! Fabrics that do not exist yet: the topology generators (fat trees, XGFTs, meshes and
//! tori, hypercubes, HyperX, dragonflies, Jellyfish). Routing them is [`crate::routing`]'s
//! job; a generator only says which [`Structure`] it built so that routing can use it.
//!
//! A generator returns a [`Generated`] fabric: the topology as a [`Fabric`] whose edge
//! keys are port numbers (1-based per node, as an ibsim net file would number them), with
//! no routing yet, plus the [`Structure`] it was built from.
//!
//! May use: [`crate::fabric`] (the model it builds) and [`crate::limits`] (the memory a
//! fabric needs is checked before it is built). Never routing, the workload, an
//! engine or any output.

use crate::fabric::Fabric;

pub mod topology;

/// The shape a generator built, for routing engines that exploit it.
#[derive(Debug, Clone, PartialEq)]
pub enum Structure {
    /// A tree of switch levels (k-ary n-trees, XGFTs, slimmed two-level trees).
    Tree {
        /// Number of switch levels (hosts are below level 0 of the switches).
        levels: u32,
        /// Per node: 0 for hosts, 1 + switch level for switches (1 = leaf switches).
        level: Vec<u32>,
        /// Per node: index within its level (hosts: host index).
        index: Vec<u32>,
        /// XGFT children per switch at each level, bottom up (m1..mh).
        m: Vec<u32>,
        /// XGFT parents per node at each level, bottom up (w1..wh).
        w: Vec<u32>,
    },
    /// A mesh, torus, hypercube or HyperX of switches with hosts attached.
    Grid {
        /// Radix of each dimension.
        dims: Vec<u32>,
        /// Whether each dimension wraps around (torus).
        wrap: Vec<bool>,
        /// Per node: the coordinates of the node's switch (hosts: of their switch).
        coords: Vec<Vec<u32>>,
        /// True for HyperX: every switch links to every other switch of the same row in
        /// each dimension.
        all_to_all: bool,
    },
    /// A dragonfly: groups of routers, all-to-all inside a group, global links between.
    Dragonfly {
        /// Routers per group (a).
        routers_per_group: u32,
        /// Hosts per router (p).
        hosts_per_router: u32,
        /// Global links per router (h).
        global_links: u32,
        /// Per node: the group (hosts: of their router).
        group: Vec<u32>,
    },
    /// No exploitable structure (random regular graphs).
    Irregular,
}

/// A generated fabric: topology without routing, and how it was built.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The topology; edge keys are port numbers; no routing yet.
    pub fabric: Fabric,
    /// The structure behind it.
    pub structure: Structure,
    /// A one-line description with all parameters (for headers and file comments).
    pub description: String,
}
