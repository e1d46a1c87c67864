//! What `-i` names: a routed dot file, a binary fabric cache, or an InfiniBand topology
//! dump combined with a forwarding-table dump (`--lft`). Formats are told apart by
//! content, never by file name. Every failure is a [`LocatedError`] naming the file at
//! fault.

use crate::error::LocatedError;
use crate::fabric::{self, cache, load_routed_fabric_from, LoadOptions, LoadedFabric};
use crate::ib::convert::{cabling, convert, Cabling, ConvertOptions, Sources};
use crate::ib::detect::{parse_topology, TopologyFormat};
use crate::ib::guid2lid::parse_guid2lid;
use crate::ib::lft::parse_lfts;
use crate::ib::node_name_map::parse_node_name_map;
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

/// Loads the fabric `spec` names. O(input size), plus the conversion's
/// O(switches × hosts) for dumps.
pub fn load_input(spec: &InputSpec) -> Result<LoadedFabric, LocatedError> {
    if let Some(lft) = &spec.lft {
        return load_dumps(spec, lft);
    }
    if spec.node_name_map.is_some() || spec.lmc_paths || spec.guid2lid.is_some() {
        return Err(LocatedError::new(
            &spec.path,
            "--node-name-map, --guid2lid and --lmc-paths apply to InfiniBand dumps: give the forwarding tables with --lft (orcs convert also takes a --routing engine instead)",
        ));
    }
    let mut reader = fabric::read_input(&spec.path)?;
    if cache::is_cache(peek(&mut reader, &spec.path)?) {
        return cache::read_cache(&mut reader, &spec.path);
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

/// The cables of `spec`'s fabric without routes, for a routing engine: an InfiniBand
/// topology dump (ibnetdiscover, `.lst`, ibsim net; no LIDs needed, and
/// `spec.node_name_map` names the nodes once routed), or a dot file or fabric cache
/// whose own routes are dropped. `spec.lft`, `spec.guid2lid` and `spec.lmc_paths`
/// concern forwarding tables read from dumps and are refused.
///
/// O(input size), plus O(nodes log nodes) for a dump.
pub fn load_cabling(spec: &InputSpec) -> Result<Cabling, LocatedError> {
    if spec.lft.is_some() || spec.guid2lid.is_some() || spec.lmc_paths {
        return Err(LocatedError::new(
            &spec.path,
            "--lft, --guid2lid and --lmc-paths read the forwarding tables of a dump; with a routing engine the tables are computed: give one or the other",
        ));
    }
    let mut reader = fabric::read_input(&spec.path)?;
    let head = peek(&mut reader, &spec.path)?;
    let is_cache = cache::is_cache(head);
    if is_cache || starts_like_dot(head) {
        if spec.node_name_map.is_some() {
            return Err(LocatedError::new(
                &spec.path,
                "--node-name-map names the nodes of InfiniBand dumps; this is a dot file or a fabric cache",
            ));
        }
        let loaded = if is_cache {
            cache::read_cache(&mut reader, &spec.path)?
        } else {
            load_routed_fabric_from(
                reader,
                &spec.path,
                LoadOptions {
                    orcs_compat: true,
                    topology_only: true,
                },
            )?
        };
        let mut fabric = loaded.fabric;
        // The routes described in the comments are the ones being replaced.
        fabric.edge_comments = Default::default();
        let names = fabric.node_names.clone();
        return Ok(Cabling {
            fabric,
            names,
            warnings: loaded.warnings,
        });
    }
    let (topo, _) = parse_topology(reader).map_err(|e| e.in_file(&spec.path))?;
    let names = match &spec.node_name_map {
        Some(p) => Some(parse_node_name_map(fabric::read_input(p)?).map_err(|e| e.in_file(p))?),
        None => None,
    };
    let options = ConvertOptions {
        names,
        ..ConvertOptions::default()
    };
    Ok(cabling(&topo, &options, &spec.path)?)
}

/// The start of the input `reader` reads from `path`, without consuming it (standard
/// input cannot be opened twice, so the same reader parses it afterwards).
fn peek<'r>(reader: &'r mut Box<dyn BufRead + Send>, path: &str) -> Result<&'r [u8], LocatedError> {
    reader
        .fill_buf()
        .map_err(|e| LocatedError::new(path, format!("cannot read: {e}")))
}

/// Whether the start of a file reads as Graphviz dot: after blank lines and comments
/// (`//`, `/* */`, and lines starting with `#`, which dot skips as preprocessor output),
/// the first word is `digraph`, `graph` or `strict`. InfiniBand dumps start with `#`
/// comments too, then a word of their own (`vendid=`, `Switch`, `{`).
fn starts_like_dot(head: &[u8]) -> bool {
    let mut rest = head;
    loop {
        rest = rest.trim_ascii_start();
        if rest.starts_with(b"#") || rest.starts_with(b"//") {
            match rest.iter().position(|&b| b == b'\n') {
                Some(end) => rest = &rest[end + 1..],
                None => return false,
            }
        } else if rest.starts_with(b"/*") {
            match rest.windows(2).position(|w| w == b"*/") {
                Some(end) => rest = &rest[end + 2..],
                None => return false,
            }
        } else {
            let word_end = rest
                .iter()
                .position(|b| !b.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            let word = rest[..word_end].to_ascii_lowercase();
            return matches!(word.as_slice(), b"digraph" | b"graph" | b"strict");
        }
    }
}

/// Sets every CA/router port's LIDs from OpenSM's guid2lid entries (joined by port
/// GUID; the LMC follows from the LID range). A port without an entry is an error.
fn apply_guid2lid(
    topo: &mut IbTopology,
    lids: &[(u64, u32, u32)],
    path: &str,
) -> Result<(), LocatedError> {
    let by_guid: std::collections::HashMap<u64, (u32, u32)> =
        lids.iter().map(|&(g, lo, hi)| (g, (lo, hi))).collect();
    for p in &mut topo.port_lids {
        let guid = p.guid.unwrap_or(0);
        let Some(&(lo, hi)) = by_guid.get(&guid) else {
            let node = topo.nodes[p.node as usize].guid;
            return Err(LocatedError::new(
                path,
                format!(
                    "no LIDs for port {} of node {node:#018x} (port GUID {guid:#018x}); is this guid2lid from the same fabric?",
                    p.port
                ),
            ));
        };
        let count = hi - lo + 1;
        if !count.is_power_of_two() {
            return Err(LocatedError::new(
                path,
                format!("port GUID {guid:#018x} has {count} LIDs ({lo}..{hi}), not a power of two"),
            ));
        }
        p.base_lid = lo;
        p.lmc = count.trailing_zeros() as u8;
    }
    Ok(())
}

/// Topology dump + LFT dump → routed fabric.
fn load_dumps(spec: &InputSpec, lft_path: &str) -> Result<LoadedFabric, LocatedError> {
    let (mut topo, format) =
        parse_topology(fabric::read_input(&spec.path)?).map_err(|e| e.in_file(&spec.path))?;
    match &spec.guid2lid {
        Some(path) => {
            let lids = parse_guid2lid(fabric::read_input(path)?).map_err(|e| e.in_file(path))?;
            apply_guid2lid(&mut topo, &lids, path)?;
        }
        None if format == TopologyFormat::IbsimNet => {
            return Err(LocatedError::new(
                &spec.path,
                "an ibsim net file has no LIDs; give OpenSM's guid2lid file of the same run with --guid2lid",
            ))
        }
        None => {}
    }
    let lfts = parse_lfts(fabric::read_input(lft_path)?).map_err(|e| e.in_file(lft_path))?;
    let names = match &spec.node_name_map {
        Some(p) => Some(parse_node_name_map(fabric::read_input(p)?).map_err(|e| e.in_file(p))?),
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
    Ok(convert(&topo, &lfts, &options, sources)?)
}

#[cfg(test)]
mod tests {
    use super::starts_like_dot;

    #[test]
    fn dot_is_told_from_infiniband_dumps_by_its_first_word() {
        for dot in [
            "digraph network {",
            "  strict digraph g {",
            "# preprocessor line\n// comment\n/* block\n comment */ Digraph g {",
            "graph g {",
        ] {
            assert!(starts_like_dot(dot.as_bytes()), "{dot:?}");
        }
        for dump in [
            "#\n# Topology file: generated on Mon\n#\nvendid=0x2c9\n",
            "# generated ibsim net file\n\nSwitch\t8 \"sw\"\n",
            "{ CA Ports:1 SystemGUID:0x1 }",
            "digraphs",
            "# only a comment",
            "/* unterminated",
            "",
        ] {
            assert!(!starts_like_dot(dump.as_bytes()), "{dump:?}");
        }
    }
}
