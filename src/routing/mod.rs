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
    route_generated_with_progress(generated, name, roots, seed, &|_| {})
}

/// [`route_generated`], calling `progress(n)` as the routes to n more destination hosts
/// are set (every host in all when routing succeeds; the structured engines, which take
/// no time to speak of, report them all at the end).
pub fn route_generated_with_progress(
    generated: &Generated,
    name: Option<&str>,
    roots: Option<&[String]>,
    seed: u64,
    progress: &dyn Fn(u64),
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
        other => {
            return Ok((
                route_with(&generated.fabric, other, roots, seed, progress)?,
                name,
            ))
        }
    };
    progress(generated.fabric.num_hosts() as u64);
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
    route_fabric_with_progress(fabric, name, roots, seed, &|_| {})
}

/// [`route_fabric`], calling `progress(n)` as the routes to n more destination hosts are
/// set (every host in all when routing succeeds).
pub fn route_fabric_with_progress(
    fabric: &crate::fabric::Fabric,
    name: &str,
    roots: Option<&[String]>,
    seed: u64,
    progress: &dyn Fn(u64),
) -> Result<ForwardingTable, RoutingError> {
    match name.to_ascii_lowercase().as_str() {
        structured @ ("dmodk" | "smodk" | "dor" | "dor-dateline" | "dor-datelines") => {
            Err(RoutingError::NeedsStructure(structured.to_string()))
        }
        other => route_with(fabric, other, roots, seed, progress).map_err(|e| match e {
            RoutingError::Unknown(name) => RoutingError::UnknownForCabling(name),
            e => e,
        }),
    }
}

/// Routes `fabric` with the engine of [`engines`] called `name` (lower case), calling
/// `progress` as in [`engines::route_with_progress`].
fn route_with(
    fabric: &crate::fabric::Fabric,
    name: &str,
    roots: Option<&[String]>,
    seed: u64,
    progress: &dyn Fn(u64),
) -> Result<ForwardingTable, RoutingError> {
    use engines::{parse_engine, route_with_progress, Engine};
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
    route_with_progress(fabric, &engine, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;
    use std::cell::RefCell;

    /// Every (node, destination host) entry of `table`.
    fn entries(fabric: &crate::fabric::Fabric, table: &ForwardingTable) -> Vec<Option<u32>> {
        let hosts = fabric.num_hosts() as u32;
        (0..fabric.num_nodes() as u32)
            .flat_map(|v| (0..hosts).map(move |d| (v, d)))
            .map(|(v, d)| table.next_edge(fabric, v, d))
            .collect()
    }

    #[test]
    fn routing_reports_each_destination_once_as_it_is_routed() {
        // A 4-ary 2-tree: 16 hosts, 4 on each of 4 leaf switches. The hop engines and
        // random route the hosts of one leaf together (4 steps of 4), sssp one host at a
        // time, the structured engines all at the end. A 3 × 3 torus with one host per
        // switch: 9 steps of 1 for minhop, one of 9 for dor.
        let tree = [
            ("dmodk", vec![16]),
            ("minhop", vec![4; 4]),
            ("updn", vec![4; 4]),
            ("dnup", vec![4; 4]),
            ("random", vec![4; 4]),
            ("sssp", vec![1; 16]),
        ];
        let torus = [("dor", vec![9]), ("minhop", vec![1; 9])];
        for (spec, cases) in [
            ("kary-ntree:k=4,n=2", &tree[..]),
            ("torus:dims=3x3,hosts=1", &torus[..]),
        ] {
            let generated = generate(spec).expect("fabric");
            let fabric = &generated.fabric;
            for (engine, expected) in cases {
                let steps = RefCell::new(Vec::new());
                let (table, _) =
                    route_generated_with_progress(&generated, Some(engine), None, 3, &|n| {
                        steps.borrow_mut().push(n)
                    })
                    .expect("routes");
                assert_eq!(&steps.into_inner(), expected, "{spec} {engine}");
                // Reporting changes nothing in the table.
                let (plain, _) =
                    route_generated(&generated, Some(engine), None, 3).expect("routes");
                assert_eq!(
                    entries(fabric, &table),
                    entries(fabric, &plain),
                    "{spec} {engine}"
                );
            }
        }
        let generated = generate("kary-ntree:k=4,n=2").expect("fabric");
        let steps = RefCell::new(Vec::new());
        route_fabric_with_progress(&generated.fabric, "updn", None, 0, &|n| {
            steps.borrow_mut().push(n)
        })
        .expect("routes");
        assert_eq!(steps.into_inner(), [4; 4]);
    }

    /// Routing a cabling alone gives the generated fabric's table for the engines that
    /// need no structure, and refuses the others, and unknown names, by name.
    #[test]
    fn a_cabling_routes_as_its_generated_fabric_and_refuses_structured_engines() {
        let generated = generate("kary-ntree:k=4,n=2").expect("fabric");
        let fabric = &generated.fabric;
        for engine in ["minhop", "UpDn", "sssp", "random"] {
            let table = route_fabric(fabric, engine, None, 5).expect("routes");
            let (expected, _) = route_generated(&generated, Some(engine), None, 5).expect("routes");
            assert_eq!(
                entries(fabric, &table),
                entries(fabric, &expected),
                "{engine}"
            );
        }
        for engine in ["dmodk", "DOR"] {
            match route_fabric(fabric, engine, None, 0) {
                Err(RoutingError::NeedsStructure(name)) => {
                    assert_eq!(name, engine.to_ascii_lowercase())
                }
                other => panic!("{engine}: {other:?}"),
            }
        }
        match route_fabric(fabric, "ftree", None, 0) {
            Err(RoutingError::UnknownForCabling(name)) => assert_eq!(name, "ftree"),
            other => panic!("ftree: {other:?}"),
        }
    }
}
