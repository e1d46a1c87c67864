//! Routing engines for any fabric: OpenSM's `minhop`, `updn`, `dnup` and `sssp`
//! reproduced on orcs's [`Fabric`], plus a seeded `random` minimal router.
//!
//! None of them needs to know the fabric's structure: they see switches, hosts and
//! directed links, and fill the same [`ForwardingTable`] that a routed dot file or an
//! InfiniBand dump fills. Every engine routes host destinations only (orcs simulates host
//! traffic); switches are never destinations.
//!
//! This module holds the engine choice and [`route`]; `topo` reads the fabric as OpenSM
//! does, `hop` holds minhop, updn and dnup, `sssp` and `random` the other two. Failures
//! are [`RoutingError`]s. May use: [`crate::fabric`] and the [`ForwardingTable`] it
//! fills. Nothing else of orcs.
//!
//! # Conventions shared by all engines
//!
//! * A node is a host when [`Fabric::host_of_node`] says so; every other node is a switch.
//!   Hosts never forward: a host sends everything through its *uplink*, its out-edge with
//!   the lowest port, and routes only ever pass through switches.
//! * The *port* of an edge is its `key` when every out-edge of its tail has a numeric key
//!   (fabrics converted from InfiniBand dumps and generated fabrics), else its position
//!   among the tail's out-edges, counted from 1. Port order is the order OpenSM scans a
//!   switch's ports in, and ties go to the lowest port.
//! * A host is delivered by its *attachment switch*, the head of its uplink, through the
//!   reverse of the uplink (the same cable) or, without one, the attachment switch's
//!   lowest-port edge to the host.
//! * The two directions of a cable are paired by port order among the parallel edges of
//!   the same two nodes (by the input line first where both directions share one, as
//!   fabrics converted from `ibnetdiscover` do).
//! * Switch GUIDs come from names of the form `S` + 16 hex digits (as
//!   [`crate::ib::convert`] names them). When every switch has one, OpenSM's switch order
//!   is reproduced: its switch table is a map keyed by the GUID in network byte order,
//!   which a little-endian host compares as the byte-swapped number. Without GUIDs the
//!   node order stands in for the GUID order.
//!
//! # OpenSM's destination order
//!
//! OpenSM fills the tables destination by destination (`ucast_mgr_build_lfts`,
//! `sort_ports_by_switch_load`): switches in GUID order, stably sorted by the number of
//! hosts (CA links) they have, most first; each switch's hosts in port order. The per-port
//! route counts that break ties depend on this order, so it is reproduced exactly.
//!
//! # The engines
//!
//! * [`Engine::Minhop`]: per destination switch a BFS gives every switch its hop count;
//!   each switch sends a destination through the minimal-hop port with the fewest host
//!   routes assigned so far on that switch, ties to the lowest port
//!   (`osm_switch_recommend_path`).
//! * [`Engine::Updn`] / [`Engine::Dnup`]: switches are ranked by BFS distance from the
//!   roots (updn: given, or detected like OpenSM's `updn_find_root_nodes_by_min_hop`;
//!   dnup: from the switches with hosts). The hop matrix is OpenSM's per-destination BFS
//!   that refuses a move against the up/down rule (`updn_bfs_by_node`, `dnup_bfs_by_node`),
//!   replayed step by step; then the same least-loaded port choice as minhop. updn goes
//!   up (towards lower rank; between equal ranks towards the smaller GUID) and then only
//!   down; dnup forbids turning from a move towards the leaves straight into one away from
//!   them.
//! * [`Engine::Sssp`]: OpenSM's `sssp` (the forwarding tables of `dfsssp` are the same;
//!   its virtual-lane assignment is not modelled). Per destination host, Dijkstra over the
//!   switch links from the destination outwards, with OpenSM's 4-ary heap
//!   (`complib/cl_heap.c`) and its tie-breaking, link weights `P²` (P = host ports +
//!   switches) plus, per route already on a link, the number of hosts (+1) of the route's
//!   source switch; the tree's next hops are written to all switches and its routes added
//!   to the weights (global balancing).
//! * [`Engine::Random`]: uniform among the minimal-hop ports per (switch, destination),
//!   from a seeded Xoshiro256++; the same seed gives the same table.
//!
//! OpenSM also routes the switches' own LIDs; for host destinations that changes nothing
//! (minhop does not count those routes, sssp computes them after all hosts), so orcs
//! leaves them out.
//!
//! # Fidelity
//!
//! Checked against OpenSM 3.3.23 (`tests/it/routing.rs`): identical forwarding tables for
//! minhop, updn (given and detected roots), dnup, sssp and dfsssp on the generated fat
//! trees and the 5×5 torus of `../shared/fabrics/ib/generated`, and, when ibsim and OpenSM
//! are installed, on random irregular fabrics with parallel cables and random GUIDs.
//!
//! OpenSM's up/down BFS marks a switch with the direction of the move that queued it; a
//! switch improved again after it left the queue is queued again with the new direction
//! but keeps its earlier hop count. On trees and tori this is harmless; on irregular
//! fabrics a few updn/dnup routes then break the up/down rule (and may deadlock). OpenSM
//! produces exactly these routes, and so does orcs; check such tables for deadlocks
//! (`orcs check --deadlock`).
//!
//! # Complexity
//!
//! With S switches, H hosts, E directed links and L switches that have hosts:
//! minhop, updn, dnup and random take O(L·(S + E) + H·C) time, C being the number of
//! minimal candidate ports summed over the switches (about S·k on a fat tree with k
//! up-ports); updn root detection adds O(L·(S + E)). sssp takes O(H·(S + E)·log S). All use
//! flat arrays: O(S·H) for the tables plus O(S + E) scratch; no hashing. On a 16-ary
//! 3-tree (4096 hosts, 768 switches) minhop, updn, dnup and random take under 0.1 s and
//! sssp about 0.4 s (release build); a random 1000-switch fabric with 2000 hosts about the
//! same.
//!
//! # Differences from OpenSM
//!
//! LMC 0 only (one destination per host; with LMC > 0 OpenSM routes the base LIDs first,
//! which orcs matches on the fat-tree sample). A host with several cabled ports is one
//! destination (its uplink's), so the routes OpenSM computes for its other ports are not
//! counted. Hop counts are not limited to 255. Routers are switches. Where OpenSM leaves a
//! pair without a route (updn/dnup on some irregular fabrics, updn without roots), orcs
//! returns an error instead of a partial table.

use crate::fabric::{Fabric, NONE};
use crate::routing::{ForwardingTable, RoutingError};
use std::fmt;

mod hop;
mod random;
mod sssp;
mod topo;

use hop::{hop_engine, HopRule};
use topo::Topo;

/// A routing engine, see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// OpenSM `minhop`: least-loaded minimal-hop port per (switch, destination).
    Minhop,
    /// OpenSM `updn`: minimal among up*/down* paths, ranks from the root switches.
    Updn {
        /// Root switches (node ids); `None` detects them as OpenSM does.
        roots: Option<Vec<u32>>,
    },
    /// OpenSM `dnup`: like updn with ranks counted from the switches that have hosts.
    Dnup,
    /// OpenSM `sssp` (and the forwarding tables of `dfsssp`): Dijkstra per destination
    /// with route-count link weights.
    Sssp,
    /// Uniform among the minimal-hop ports per (switch, destination), seeded.
    Random {
        /// Seed of the generator; the same seed gives the same table.
        seed: u64,
    },
}

impl Engine {
    /// The engine's name as [`parse_engine`] accepts it.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Minhop => "minhop",
            Engine::Updn { .. } => "updn",
            Engine::Dnup => "dnup",
            Engine::Sssp => "sssp",
            Engine::Random { .. } => "random",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The names [`parse_engine`] accepts (besides the alias `dfsssp` for `sssp`).
pub const ENGINE_NAMES: &[&str] = &["minhop", "updn", "dnup", "sssp", "random"];

/// The engine called `name` (case-insensitive): `minhop`, `updn` (roots detected as
/// OpenSM does; set [`Engine::Updn::roots`] to give them), `dnup`, `sssp` (alias
/// `dfsssp`: OpenSM's dfsssp has the same forwarding tables) or `random`, which uses
/// `seed` (ignored by the others). `None` for any other name.
pub fn parse_engine(name: &str, seed: u64) -> Option<Engine> {
    match name.to_ascii_lowercase().as_str() {
        "minhop" => Some(Engine::Minhop),
        "updn" => Some(Engine::Updn { roots: None }),
        "dnup" => Some(Engine::Dnup),
        "sssp" | "dfsssp" => Some(Engine::Sssp),
        "random" => Some(Engine::Random { seed }),
        _ => None,
    }
}

/// Routes every host of `fabric` with `engine`: hosts send through their uplink, switches
/// get one next hop per destination host. Errors: a disconnected fabric (naming a pair),
/// updn without roots, and pairs that an engine's rules leave without a route.
///
/// Complexity: see the module documentation.
pub fn route(fabric: &Fabric, engine: &Engine) -> Result<ForwardingTable, RoutingError> {
    route_with_progress(fabric, engine, &|_| {})
}

/// [`route`], calling `progress(n)` as the routes to n more destination hosts are set
/// (`fabric.num_hosts()` in all when routing succeeds), so that the routing of a big
/// fabric can show how far it is.
pub fn route_with_progress(
    fabric: &Fabric,
    engine: &Engine,
    progress: &dyn Fn(u64),
) -> Result<ForwardingTable, RoutingError> {
    let topo = Topo::new(fabric)?;
    let mut table = ForwardingTable::new(fabric);
    for (h, &v) in fabric.hosts.iter().enumerate() {
        if topo.uplink[h] != NONE {
            table.set_uniform(v, topo.uplink[h]);
        }
    }
    if !topo.check_connected()? {
        // Fewer than two hosts, or two hosts cabled to each other: nothing to route
        // beyond the uplinks.
        progress(fabric.num_hosts() as u64);
        return Ok(table);
    }
    let rows = match engine {
        Engine::Minhop => hop_engine(&topo, &HopRule::Minhop, progress)?,
        Engine::Updn { roots } => {
            let rank = hop::updn_ranks(&topo, roots.as_deref())?;
            hop_engine(&topo, &HopRule::Updn { rank }, progress)?
        }
        Engine::Dnup => {
            let rank = hop::dnup_ranks(&topo)?;
            hop_engine(&topo, &HopRule::Dnup { rank }, progress)?
        }
        Engine::Sssp => sssp::sssp(&topo, progress)?,
        Engine::Random { seed } => random::random(&topo, *seed, progress)?,
    };
    let hosts = fabric.num_hosts();
    for (i, &s) in topo.switches.iter().enumerate() {
        table
            .row_mut(fabric, s)
            .copy_from_slice(&rows[i * hosts..(i + 1) * hosts]);
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(parse_engine("MinHop", 0), Some(Engine::Minhop));
        assert_eq!(parse_engine("updn", 0), Some(Engine::Updn { roots: None }));
        assert_eq!(parse_engine("dfsssp", 0), Some(Engine::Sssp));
        assert_eq!(parse_engine("random", 7), Some(Engine::Random { seed: 7 }));
        assert_eq!(parse_engine("ftree", 0), None);
        for name in ENGINE_NAMES {
            assert_eq!(parse_engine(name, 0).map(|e| e.name()), Some(*name));
            // An engine displays as its name.
            assert_eq!(
                parse_engine(name, 0).map(|e| e.to_string()).as_deref(),
                Some(*name)
            );
        }
    }
}
