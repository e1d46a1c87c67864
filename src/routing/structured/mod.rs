//! Routing engines that use the generator's structure: D-mod-K on fat trees
//! ([`dmodk`], and why [`smodk`] cannot be a forwarding table) and dimension-order
//! routing on meshes, tori, hypercubes and HyperX ([`dor`](mod@dor)).
//!
//! The engines read the [`Structure`] a generator recorded, check it against the
//! fabric's links (a mismatch is a [`RoutingError::Inconsistent`], never a panic or a
//! wrong table) and fill a [`ForwardingTable`]: every host sends everything through its
//! uplink (its lowest-port edge), and every switch gets a dense row with one port per
//! destination host. Edge ports are the numeric `key`s the generators write (or, for an
//! edge without one, its position among its tail's out-edges, from 1).
//!
//! Tables cost 2 bytes per switch and host (a dense row per switch), so the engines
//! refuse fabrics with more than [`MAX_TABLE_ENTRIES`] switch × host entries.
//!
//! This module holds what both families share (the checks, port order, the host
//! uplinks); `fat_tree` and `dor` hold the engines. Failures are [`RoutingError`]s. May
//! use: [`crate::fabric`], [`crate::gen`]'s structures and the [`ForwardingTable`] it
//! fills.

use crate::fabric::Fabric;
use crate::gen::Structure;
use crate::routing::{ForwardingTable, RoutingError};

mod dor;
mod fat_tree;

pub use dor::dor;
pub use fat_tree::{dmodk, smodk};

/// Largest forwarding table (switches × hosts entries, 2 bytes each) the engines build.
pub(crate) const MAX_TABLE_ENTRIES: u64 = 1 << 31;

/// How errors name the kind of fabric `s` is.
fn structure_name(s: &Structure) -> &'static str {
    match s {
        Structure::Tree { .. } => "a fat tree",
        Structure::Grid {
            all_to_all: true, ..
        } => "a HyperX",
        Structure::Grid { .. } => "a mesh, torus or hypercube",
        Structure::Dragonfly { .. } => "a dragonfly",
        Structure::Irregular => "an irregular fabric (no structure to exploit)",
    }
}

/// The port number of `edge`: its numeric key, else its position among its tail's
/// out-edges (from 1).
fn port_of(fabric: &Fabric, edge: u32) -> u64 {
    fabric.edge_keys[edge as usize]
        .as_deref()
        .and_then(|k| k.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            let tail = fabric.edge_tail[edge as usize];
            (edge - fabric.out_start[tail as usize]) as u64 + 1
        })
}

/// `node`'s out-edges sorted by port, as local indices.
fn edges_by_port(fabric: &Fabric, node: u32, keep: impl Fn(u32) -> bool) -> Vec<u16> {
    let start = fabric.out_start[node as usize];
    let mut edges: Vec<u32> = fabric.out_edges(node).filter(|&e| keep(e)).collect();
    edges.sort_by_key(|&e| (port_of(fabric, e), e));
    edges.into_iter().map(|e| (e - start) as u16).collect()
}

/// Refuses a fabric whose table would exceed [`MAX_TABLE_ENTRIES`].
fn check_table_size(engine: &'static str, fabric: &Fabric) -> Result<(), RoutingError> {
    let entries = fabric.num_switches() as u128 * fabric.num_hosts() as u128;
    if entries > MAX_TABLE_ENTRIES as u128 {
        return Err(RoutingError::TooLarge {
            engine,
            entries,
            limit: MAX_TABLE_ENTRIES,
        });
    }
    Ok(())
}

/// Checks what every engine needs of any fabric: u16 local ports, and hosts with an
/// uplink. Routes each host through its lowest-port edge.
fn route_hosts(
    engine: &'static str,
    fabric: &Fabric,
    table: &mut ForwardingTable,
) -> Result<(), RoutingError> {
    for v in 0..fabric.num_nodes() as u32 {
        if fabric.out_edges(v).len() >= u16::MAX as usize {
            return Err(RoutingError::Inconsistent {
                engine,
                message: format!(
                    "{} has more than 65 534 links",
                    fabric.node_names[v as usize]
                ),
            });
        }
    }
    for (h, &v) in fabric.hosts.iter().enumerate() {
        let Some(&local) = edges_by_port(fabric, v, |_| true).first() else {
            return Err(RoutingError::Inconsistent {
                engine,
                message: format!("host {} has no link", fabric.host_name(h as u32)),
            });
        };
        table.set_uniform(v, fabric.out_start[v as usize] + local as u32);
    }
    Ok(())
}

/// An engine checking a fabric against its structure: names nodes and words mismatches.
struct Check<'a> {
    engine: &'static str,
    fabric: &'a Fabric,
}

impl Check<'_> {
    /// The [`RoutingError::Inconsistent`] saying `message`.
    fn fail(&self, message: String) -> RoutingError {
        RoutingError::Inconsistent {
            engine: self.engine,
            message,
        }
    }

    /// The name of node `v`.
    fn name(&self, v: u32) -> &str {
        self.fabric.node_names[v as usize].as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;

    /// The generators number every port; a fabric built by hand may not. A leaf switch
    /// of the 2-ary 2-tree has four out-edges (local 0–3). With keys none, "7", "x" and
    /// " 2 ", their ports are 1 (position 0, from 1), 7, 3 (position 2: "x" is not a
    /// number) and 2 (the key trimmed), so by port they go 0, 3, 2, 1.
    #[test]
    fn an_edge_without_a_port_number_takes_its_position_from_one() {
        let mut fabric = generate("kary-ntree:k=2,n=2").unwrap().fabric;
        let leaf = (0..fabric.num_nodes() as u32)
            .find(|&v| {
                fabric.host_of_node[v as usize] == crate::fabric::NONE
                    && fabric.out_edges(v).len() == 4
            })
            .unwrap();
        let first = fabric.out_start[leaf as usize];
        assert!(first > 0, "a zero offset would hide a sign error");
        for (local, key) in [None, Some("7"), Some("x"), Some(" 2 ")]
            .into_iter()
            .enumerate()
        {
            fabric.edge_keys[first as usize + local] = key.map(str::to_owned);
        }
        let ports: Vec<u64> = fabric
            .out_edges(leaf)
            .map(|e| port_of(&fabric, e))
            .collect();
        assert_eq!(ports, [1, 7, 3, 2]);
        assert_eq!(edges_by_port(&fabric, leaf, |_| true), [0, 3, 2, 1]);
    }

    /// A fabric of `hosts` hosts and `switches` switches, nothing else: all the size
    /// check reads.
    fn counted(hosts: u32, switches: u32) -> Fabric {
        Fabric {
            node_names: vec![String::new(); (hosts + switches) as usize],
            hosts: (0..hosts).collect(),
            ..Fabric::default()
        }
    }

    /// 2¹⁶ hosts × 2¹⁵ switches is the largest table the engines build (2³¹ entries);
    /// one switch more is refused with its entry count and the limit.
    #[test]
    fn the_table_size_limit_is_two_to_the_thirty_one_entries() {
        assert!(check_table_size("dmodk", &counted(1 << 16, 1 << 15)).is_ok());
        match check_table_size("dmodk", &counted(1 << 16, (1 << 15) + 1)) {
            Err(RoutingError::TooLarge {
                engine,
                entries,
                limit,
            }) => assert_eq!(
                (engine, entries, limit),
                ("dmodk", (1 << 31) + (1 << 16), 1 << 31)
            ),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }
}
