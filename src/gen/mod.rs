//! Fabrics that do not exist yet: topology generators, and the routing engines that use
//! their structure (D-mod-K on fat trees, dimension order on grids).
//!
//! A generator returns a [`Generated`] fabric: the topology as a [`Fabric`] whose edge
//! keys are port numbers (1-based per node, as an ibsim net file would number them), with
//! no routing yet, plus the [`Structure`] it was built from.

use crate::fabric::Fabric;

pub mod structured;
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

/// Errors of [`route_generated`].
#[derive(Debug, thiserror::Error)]
pub enum RoutingChoiceError {
    /// The name is no routing engine.
    #[error("unknown --routing '{0}': expected dmodk, smodk, dor, dor-dateline, minhop, updn, dnup, sssp or random")]
    Unknown(String),
    /// Roots given for an engine that takes none.
    #[error("--roots applies to --routing updn")]
    RootsWithoutUpdn,
    /// A root name that names no node.
    #[error("--roots: no node named '{0}'")]
    NoSuchRoot(String),
    /// A structure-based engine failed.
    #[error(transparent)]
    Structured(#[from] structured::RouteError),
    /// A generic engine failed.
    #[error(transparent)]
    Engine(#[from] crate::engines::EngineError),
}

/// The routing engine a structure gets by default: D-mod-K on trees, dimension order on
/// grids, minhop otherwise.
pub fn default_routing(structure: &Structure) -> &'static str {
    match structure {
        Structure::Tree { .. } => "dmodk",
        Structure::Grid { .. } => "dor",
        _ => "minhop",
    }
}

/// Routes a generated fabric with the engine called `name` (case-insensitive; `None`:
/// [`default_routing`]): the structured `dmodk`, `smodk`, `dor`, `dor-dateline`, or any
/// engine of [`crate::engines`] (`roots` names updn's root switches, `seed` drives
/// `random`). Returns the table and the engine's name.
pub fn route_generated(
    generated: &Generated,
    name: Option<&str>,
    roots: Option<&[String]>,
    seed: u64,
) -> Result<(crate::routing::ForwardingTable, String), RoutingChoiceError> {
    use crate::engines::{parse_engine, route, Engine};
    let name = name
        .unwrap_or(default_routing(&generated.structure))
        .to_ascii_lowercase();
    if roots.is_some() && name != "updn" {
        return Err(RoutingChoiceError::RootsWithoutUpdn);
    }
    let table = match name.as_str() {
        "dmodk" => structured::dmodk(generated)?,
        "smodk" => structured::smodk(generated)?,
        "dor" => structured::dor(generated, false)?,
        "dor-dateline" | "dor-datelines" => structured::dor(generated, true)?,
        other => {
            let mut engine = parse_engine(other, seed)
                .ok_or_else(|| RoutingChoiceError::Unknown(other.to_string()))?;
            if let (Engine::Updn { roots: slot }, Some(names)) = (&mut engine, roots) {
                let fabric = &generated.fabric;
                let ids = names
                    .iter()
                    .map(|n| {
                        fabric
                            .node_names
                            .iter()
                            .position(|x| x == n)
                            .map(|v| v as u32)
                            .ok_or_else(|| RoutingChoiceError::NoSuchRoot(n.clone()))
                    })
                    .collect::<Result<Vec<u32>, _>>()?;
                *slot = Some(ids);
            }
            route(&generated.fabric, &engine)?
        }
    };
    Ok((table, name))
}
