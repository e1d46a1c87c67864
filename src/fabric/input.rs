//! What `-i` names: a routed dot file, a binary fabric cache, or an InfiniBand topology
//! dump combined with a forwarding-table dump (`--lft`). Formats are told apart by
//! content, never by file name.

use crate::fabric::{self, cache, load_routed_fabric_from, LoadError, LoadOptions, LoadedFabric};
use crate::ib::convert::{convert, ConvertOptions, Sources};
use crate::ib::guid2lid::parse_guid2lid;
use crate::ib::lft::parse_lfts;
use crate::ib::node_name_map::parse_node_name_map;
use crate::ib::topology::{parse_topology, TopologyFormat};
use crate::ib::IbTopology;
use std::io::BufRead;

/// Everything that says where a routed fabric comes from.
#[derive(Debug, Clone, Default)]
pub struct InputSpec {
    /// Routed dot, fabric cache, or (with `lft`) an ibnetdiscover / `.lst` topology;
    /// `-` reads standard input.
    pub path: String,
    /// Forwarding tables (ibroute / dump_fts, opensm-lfts.dump, or .fdbs).
    pub lft: Option<String>,
    /// GUID → name map for readable names of converted fabrics.
    pub node_name_map: Option<String>,
    /// OpenSM `guid2lid` file: port LIDs for topologies without them (ibsim net files).
    pub guid2lid: Option<String>,
    /// Route every LMC path of converted hosts.
    pub lmc_paths: bool,
    /// ORCS's tie-break for ambiguous next hops in dot files.
    pub orcs_compat: bool,
    /// Accept a dot file without routing comments (see [`LoadOptions::topology_only`]).
    pub topology_only: bool,
}

fn error(path: &str, line: u32, message: impl Into<String>) -> LoadError {
    LoadError {
        path: path.to_string(),
        line: (line > 0).then_some(line),
        message: message.into(),
    }
}

/// Loads the fabric `spec` names. O(input size), plus the conversion's
/// O(switches × hosts) for dumps.
pub fn load_input(spec: &InputSpec) -> Result<LoadedFabric, LoadError> {
    if let Some(lft) = &spec.lft {
        return load_dumps(spec, lft);
    }
    if spec.node_name_map.is_some() || spec.lmc_paths || spec.guid2lid.is_some() {
        return Err(error(
            &spec.path,
            0,
            "--node-name-map, --guid2lid and --lmc-paths apply to InfiniBand dumps: give the forwarding tables with --lft",
        ));
    }
    let mut reader = fabric::read_input(&spec.path)?;
    let head = reader
        .fill_buf()
        .map_err(|e| error(&spec.path, 0, format!("cannot read: {e}")))?;
    if cache::is_cache(head) {
        return cache::read_cache(&mut reader).map_err(|m| error(&spec.path, 0, m));
    }
    // The same reader: standard input cannot be opened twice.
    load_routed_fabric_from(
        reader,
        &spec.path,
        LoadOptions {
            orcs_compat: spec.orcs_compat,
            topology_only: spec.topology_only,
        },
    )
}

/// Sets every CA/router port's LIDs from OpenSM's guid2lid entries (joined by port
/// GUID; the LMC follows from the LID range). A port without an entry is an error.
fn apply_guid2lid(
    topo: &mut IbTopology,
    lids: &[(u64, u32, u32)],
    path: &str,
) -> Result<(), LoadError> {
    let by_guid: std::collections::HashMap<u64, (u32, u32)> =
        lids.iter().map(|&(g, lo, hi)| (g, (lo, hi))).collect();
    for p in &mut topo.port_lids {
        let guid = p.guid.unwrap_or(0);
        let Some(&(lo, hi)) = by_guid.get(&guid) else {
            let node = topo.nodes[p.node as usize].guid;
            return Err(error(
                path,
                0,
                format!(
                    "no LIDs for port {} of node {node:#018x} (port GUID {guid:#018x}); is this guid2lid from the same fabric?",
                    p.port
                ),
            ));
        };
        let count = hi - lo + 1;
        if !count.is_power_of_two() {
            return Err(error(
                path,
                0,
                format!("port GUID {guid:#018x} has {count} LIDs ({lo}..{hi}), not a power of two"),
            ));
        }
        p.base_lid = lo;
        p.lmc = count.trailing_zeros() as u8;
    }
    Ok(())
}

/// Topology dump + LFT dump → routed fabric.
fn load_dumps(spec: &InputSpec, lft_path: &str) -> Result<LoadedFabric, LoadError> {
    let (mut topo, format) = parse_topology(fabric::read_input(&spec.path)?)
        .map_err(|e| error(&spec.path, e.line, e.message))?;
    match &spec.guid2lid {
        Some(path) => {
            let lids = parse_guid2lid(fabric::read_input(path)?)
                .map_err(|e| error(path, e.line, e.message))?;
            apply_guid2lid(&mut topo, &lids, path)?;
        }
        None if format == TopologyFormat::IbsimNet => {
            return Err(error(
                &spec.path,
                0,
                "an ibsim net file has no LIDs; give OpenSM's guid2lid file of the same run with --guid2lid",
            ))
        }
        None => {}
    }
    let lfts = parse_lfts(fabric::read_input(lft_path)?)
        .map_err(|e| error(lft_path, e.line, e.message))?;
    let names = match &spec.node_name_map {
        Some(p) => Some(
            parse_node_name_map(fabric::read_input(p)?).map_err(|e| error(p, e.line, e.message))?,
        ),
        None => None,
    };
    let options = ConvertOptions {
        lmc_paths: spec.lmc_paths,
        names,
        orcs_compat: spec.orcs_compat,
    };
    let sources = Sources {
        topology: &spec.path,
        lft: lft_path,
    };
    convert(&topo, &lfts, &options, sources).map_err(|e| LoadError {
        path: String::new(),
        line: None,
        message: e.to_string(),
    })
}
