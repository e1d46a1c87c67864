//! Forwarding tables and everything that makes or judges them: the compiled
//! destination-based [`ForwardingTable`] and its walkers, the route check, the routing
//! engines for any fabric (OpenSM's minhop, updn, dnup, sssp, and random) and those that
//! use a generated fabric's structure (D-mod-K, dimension order), and deadlock analysis.
//!
//! Errors: one [`RoutingError`] for the whole folder (in `error`): the engine choice of
//! [`route_generated`], the engines of both families and stored tables that do not fit a
//! fabric all fail into it, with variants that tests and callers tell apart.
//!
//! May use: [`crate::fabric`] (the graph) and [`crate::gen`] (a generated fabric's
//! structure). Never the workload, the engine or any output.

pub mod check;
pub mod deadlock;
pub mod engines;
mod error;
pub mod structured;
pub mod table;
mod walk;

pub use check::{
    check_routes, check_routes_with_progress, route_quality, BrokenRoute, RouteCheck, RouteFault,
    RouteQuality, RouteSummary,
};
pub use error::RoutingError;
pub use table::{
    comments_from_table, comments_match_table, AnyRouter, ForwardingTable, PortIndex, PortRows,
    Router, NO_PORT,
};
pub(crate) use walk::{InFlight, WalkOutput};

use crate::gen::{Generated, Structure};

/// The routing engine a structure gets by default: D-mod-K on trees, dimension order on
/// grids, minhop otherwise.
pub(crate) fn default_routing(structure: &Structure) -> &'static str {
    match structure {
        Structure::Tree { .. } => "dmodk",
        Structure::Grid { .. } => "dor",
        _ => "minhop",
    }
}

/// Routes a generated fabric with the engine called `name` (case-insensitive; `None`:
/// [`default_routing`]): the structured `dmodk`, `smodk`, `dor`, `dor-dateline`, or any
/// engine of [`engines`] (`roots` names updn's root switches, `seed` drives
/// `random`). Returns the table and the engine's name.
pub fn route_generated(
    generated: &Generated,
    name: Option<&str>,
    roots: Option<&[String]>,
    seed: u64,
) -> Result<(ForwardingTable, String), RoutingError> {
    let name = name
        .unwrap_or(default_routing(&generated.structure))
        .to_ascii_lowercase();
    let table = match name.as_str() {
        "dmodk" | "smodk" | "dor" | "dor-dateline" | "dor-datelines" if roots.is_some() => {
            return Err(RoutingError::RootsWithoutUpdn)
        }
        "dmodk" => structured::dmodk(generated)?,
        "smodk" => structured::smodk(generated)?,
        "dor" => structured::dor(generated, false)?,
        "dor-dateline" | "dor-datelines" => structured::dor(generated, true)?,
        other => route_with(&generated.fabric, other, roots, seed)?,
    };
    Ok((table, name))
}

/// Routes any fabric (a cabling dump, a fabric whose routes are replaced) with the
/// engine of [`engines`] called `name` (case-insensitive): minhop, updn (`roots` names
/// its root switches), dnup, sssp (or dfsssp) or random (from `seed`). The structured
/// engines need a generated fabric's structure and are refused here.
pub fn route_fabric(
    fabric: &crate::fabric::Fabric,
    name: &str,
    roots: Option<&[String]>,
    seed: u64,
) -> Result<ForwardingTable, RoutingError> {
    match name.to_ascii_lowercase().as_str() {
        structured @ ("dmodk" | "smodk" | "dor" | "dor-dateline" | "dor-datelines") => {
            Err(RoutingError::NeedsStructure(structured.to_string()))
        }
        other => route_with(fabric, other, roots, seed).map_err(|e| match e {
            RoutingError::Unknown(name) => RoutingError::UnknownForCabling(name),
            e => e,
        }),
    }
}

/// Routes `fabric` with the engine of [`engines`] called `name` (lower case).
fn route_with(
    fabric: &crate::fabric::Fabric,
    name: &str,
    roots: Option<&[String]>,
    seed: u64,
) -> Result<ForwardingTable, RoutingError> {
    use engines::{parse_engine, route, Engine};
    let mut engine =
        parse_engine(name, seed).ok_or_else(|| RoutingError::Unknown(name.to_string()))?;
    match (&mut engine, roots) {
        (Engine::Updn { roots: slot }, Some(names)) => {
            let ids = names
                .iter()
                .map(|n| {
                    fabric
                        .node_names
                        .iter()
                        .position(|x| x == n)
                        .map(|v| v as u32)
                        .ok_or_else(|| RoutingError::NoSuchRoot(n.clone()))
                })
                .collect::<Result<Vec<u32>, _>>()?;
            *slot = Some(ids);
        }
        (_, None) => {}
        (_, Some(_)) => return Err(RoutingError::RootsWithoutUpdn),
    }
    route(fabric, &engine)
}
