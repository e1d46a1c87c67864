//! What `-i` names: a routed dot file, a binary fabric cache, or an InfiniBand topology
//! dump combined with a forwarding-table dump (`--lft`). Formats are told apart by
//! content, never by file name.

use crate::fabric::{self, cache, load_routed_fabric_from, LoadError, LoadOptions, LoadedFabric};
use crate::ib::convert::{convert, ConvertOptions, Sources};
use crate::ib::lft::parse_lfts;
use crate::ib::node_name_map::parse_node_name_map;
use crate::ib::topology::parse_topology;
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
    /// Route every LMC path of converted hosts.
    pub lmc_paths: bool,
    /// ORCS's tie-break for ambiguous next hops in dot files.
    pub orcs_compat: bool,
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
    if spec.node_name_map.is_some() || spec.lmc_paths {
        return Err(error(
            &spec.path,
            0,
            "--node-name-map and --lmc-paths apply to InfiniBand dumps: give the forwarding tables with --lft",
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
        },
    )
}

/// Topology dump + LFT dump → routed fabric.
fn load_dumps(spec: &InputSpec, lft_path: &str) -> Result<LoadedFabric, LoadError> {
    let (topo, _) = parse_topology(fabric::read_input(&spec.path)?)
        .map_err(|e| error(&spec.path, e.line, e.message))?;
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
