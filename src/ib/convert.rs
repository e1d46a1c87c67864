//! From InfiniBand dumps to a routed fabric: LIDs to hosts, LFT rows to next hops.
//!
//! Every cabled port gives one directed edge per direction (`key` = the local port
//! number, so parallel cables stay apart). A host's destination LID is the base LID of
//! its first cabled port with a LID (or every LID of every port with
//! [`ConvertOptions::lmc_paths`]); a switch sends host h through the port its LFT gives
//! for that LID. Hosts send through their first cabled port (`comment="*"`).

use super::node_name_map::NodeNameMap;
use super::{IbTopology, Lfts, NodeKind};
use crate::fabric::dot::SymbolTable;
use crate::fabric::{EdgeComments, Fabric, LoadedFabric, NONE};
use crate::routing::{ForwardingTable, NO_PORT};
use std::collections::HashMap;

/// How to turn the dumps into a fabric.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Route every LID of every host port (all LMC paths) instead of the base LID of the
    /// host's first port. The host may then appear on several out-edges of a switch,
    /// which only `--orcs-compat` simulates (first edge wins).
    pub lmc_paths: bool,
    /// Readable names: GUID → name (hosts keep an `H` prefix).
    pub names: Option<NodeNameMap>,
    /// Accept several next hops for one (switch, host) pair (from `lmc_paths`), taking
    /// the first edge in ORCS order, as `--orcs-compat` does for dot files.
    pub orcs_compat: bool,
}

/// A problem that makes the dumps unusable together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The LFT dump names a switch the topology does not have.
    #[error("{lft_file}:{line}: the forwarding table of switch {guid:#018x} names no switch of the topology ({topo_file})")]
    UnknownSwitch {
        /// The LFT file.
        lft_file: String,
        /// Line of the table's header.
        line: u32,
        /// The switch GUID.
        guid: u64,
        /// The topology file.
        topo_file: String,
    },
    /// A switch of the topology has no forwarding table.
    #[error("{lft_file}: no forwarding table for switch {guid:#018x} ({description}, {topo_file}:{line}); is the dump truncated or from another fabric?")]
    MissingTable {
        /// The LFT file.
        lft_file: String,
        /// The switch GUID.
        guid: u64,
        /// Its description.
        description: String,
        /// The topology file.
        topo_file: String,
        /// Line of the switch's record in the topology.
        line: u32,
    },
    /// An LFT row sends a host's LID through a port the switch does not have.
    #[error("{lft_file}:{line}: switch {guid:#018x} sends LID {lid} through port {port}, but the switch has {num_ports} ports")]
    NoSuchPort {
        /// The LFT file.
        lft_file: String,
        /// Line of the table's header.
        line: u32,
        /// The switch GUID.
        guid: u64,
        /// The LID.
        lid: u32,
        /// The port.
        port: u8,
        /// The switch's port count.
        num_ports: u32,
    },
    /// With `lmc_paths`, switches use several ports for one host.
    #[error("{lft_file}: with --lmc-paths, {count} (switch, host) pairs use several ports; a destination-based fabric keeps one, so simulate it with --orcs-compat (the first edge in ORCS order wins) or drop --lmc-paths")]
    SeveralNextHops {
        /// The LFT file.
        lft_file: String,
        /// Pairs with several ports.
        count: u64,
    },
    /// The topology has no CA (host).
    #[error("{topo_file}: the topology has no channel adapters (hosts)")]
    NoHosts {
        /// The topology file.
        topo_file: String,
    },
}

/// File names for messages.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The topology file.
    pub topology: &'a str,
    /// The LFT file.
    pub lft: &'a str,
}

/// The default vertex name of a node: `H`/`S`/`R` and the 16-hex-digit node GUID (hosts
/// keep ORCS's rule "name starts with H", and ORCS's GUID order reads the hex back).
pub fn default_name(kind: NodeKind, guid: u64) -> String {
    let prefix = match kind {
        NodeKind::Ca => 'H',
        NodeKind::Switch => 'S',
        NodeKind::Router => 'R',
    };
    format!("{prefix}{guid:016x}")
}

/// Builds the routed fabric (spec §3 of the InfiniBand formats).
///
/// Node order: CAs, then switches, then routers, each by GUID. Edges: one per cabled port
/// and direction, keyed by the local port. Rows that route a host LID into a port without
/// a cable, to port 0, or not at all leave that destination unrouted at that switch (the
/// route check reports it); a port beyond the switch's port count is an error.
///
/// O(nodes log nodes + links + switches × hosts).
pub fn convert(
    topo: &IbTopology,
    lfts: &Lfts,
    options: &ConvertOptions,
    sources: Sources<'_>,
) -> Result<LoadedFabric, ConvertError> {
    let mut warnings = Vec::new();
    // Deterministic node order: CAs, switches, routers, each by GUID.
    let mut order: Vec<u32> = (0..topo.nodes.len() as u32).collect();
    order.sort_by_key(|&i| {
        let n = &topo.nodes[i as usize];
        (kind_rank(n.kind), n.guid)
    });
    let mut vertex_of = vec![NONE; topo.nodes.len()];
    for (v, &i) in order.iter().enumerate() {
        vertex_of[i as usize] = v as u32;
    }
    let names = vertex_names(topo, &order, options.names.as_ref(), &mut warnings);

    let mut fabric = Fabric {
        graph_id: Some("network".to_string()),
        node_names: names,
        node_lines: order.iter().map(|&i| topo.nodes[i as usize].line).collect(),
        node_attrs: vec![Vec::new(); order.len()],
        host_of_node: vec![NONE; order.len()],
        ..Fabric::default()
    };
    for (v, &i) in order.iter().enumerate() {
        if topo.nodes[i as usize].kind == NodeKind::Ca {
            fabric.host_of_node[v] = fabric.hosts.len() as u32;
            fabric.hosts.push(v as u32);
        }
    }
    if fabric.hosts.is_empty() {
        return Err(ConvertError::NoHosts {
            topo_file: sources.topology.to_string(),
        });
    }

    // Half-links (vertex, port, peer vertex, line), sorted into ORCS edge order.
    let mut half: Vec<(u32, u32, u32, u32)> = Vec::with_capacity(topo.links.len() * 2);
    for l in &topo.links {
        let (a, b) = (vertex_of[l.a.0 as usize], vertex_of[l.b.0 as usize]);
        half.push((a, l.a.1, b, l.line));
        half.push((b, l.b.1, a, l.line));
    }
    half.sort_by_key(|&(tail, port, head, _)| (tail, head, port));
    fabric.out_start = vec![0; order.len() + 1];
    // (vertex, port) → edge id.
    let mut edge_at: HashMap<(u32, u32), u32> = HashMap::with_capacity(half.len());
    for (e, &(tail, port, head, line)) in half.iter().enumerate() {
        fabric.out_start[tail as usize + 1] += 1;
        fabric.edge_tail.push(tail);
        fabric.edge_head.push(head);
        fabric.edge_lines.push(line);
        fabric.edge_keys.push(Some(port.to_string()));
        fabric.edge_attrs.push(Vec::new());
        edge_at.insert((tail, port), e as u32);
    }
    for v in 0..order.len() {
        fabric.out_start[v + 1] += fabric.out_start[v];
    }

    let dest_lids = destination_lids(topo, &vertex_of, &fabric, options.lmc_paths);
    let mut table = ForwardingTable::new(&fabric);
    // Hosts inject through their lowest-numbered cabled port.
    for &v in &fabric.hosts {
        if let Some(e) = host_uplink(&fabric, v) {
            table.set_uniform(v, e);
        }
    }

    // Switch rows from the LFTs.
    let mut seen_table = vec![false; topo.nodes.len()];
    // Per host: whether any table has an entry for one of its LIDs.
    let mut listed = vec![false; fabric.num_hosts()];
    let mut dead_rows = 0u64;
    let mut ambiguous = 0u64;
    for lft in &lfts.switches {
        let node = match topo
            .node_by_guid(lft.guid)
            .filter(|&n| topo.nodes[n as usize].kind == NodeKind::Switch)
        {
            Some(n) => n,
            None => {
                return Err(ConvertError::UnknownSwitch {
                    lft_file: sources.lft.to_string(),
                    line: lft.line,
                    guid: lft.guid,
                    topo_file: sources.topology.to_string(),
                })
            }
        };
        seen_table[node as usize] = true;
        let v = vertex_of[node as usize];
        let num_ports = topo.nodes[node as usize].num_ports;
        let base = fabric.out_start[v as usize];
        let row = table.row_mut(&fabric, v);
        for (h, lids) in dest_lids.iter().enumerate() {
            for &lid in lids {
                let Some(port) = lft.port(lid) else {
                    dead_rows += 1;
                    continue;
                };
                listed[h] = true;
                if num_ports > 0 && port as u32 > num_ports {
                    return Err(ConvertError::NoSuchPort {
                        lft_file: sources.lft.to_string(),
                        line: lft.line,
                        guid: lft.guid,
                        lid,
                        port,
                        num_ports,
                    });
                }
                match edge_at.get(&(v, port as u32)) {
                    Some(&e) => {
                        // Several paths (--lmc-paths): keep the first edge in ORCS
                        // order, as re-reading the written dot with --orcs-compat does.
                        let local = (e - base) as u16;
                        if row[h] != NO_PORT && row[h] != local {
                            ambiguous += 1;
                        }
                        row[h] = row[h].min(local);
                    }
                    None => dead_rows += 1,
                }
            }
        }
    }
    if let Some(i) =
        (0..topo.nodes.len()).find(|&i| topo.nodes[i].kind == NodeKind::Switch && !seen_table[i])
    {
        let n = &topo.nodes[i];
        return Err(ConvertError::MissingTable {
            lft_file: sources.lft.to_string(),
            guid: n.guid,
            description: n.description.clone(),
            topo_file: sources.topology.to_string(),
            line: n.line,
        });
    }
    let unlisted: Vec<usize> = (0..fabric.num_hosts())
        .filter(|&h| !listed[h] && !dest_lids[h].is_empty())
        .collect();
    if !unlisted.is_empty() {
        let shown: Vec<String> = unlisted
            .iter()
            .take(5)
            .map(|&h| format!("{} (LID {})", fabric.host_name(h as u32), dest_lids[h][0]))
            .collect();
        warnings.push(format!(
            "{}: no switch table has an entry for {} hosts, which are unreachable: {}{}              (infiniband-diags 44.0 ibroute/dump_fts drop the highest LID when the LID count              is a multiple of 64; OpenSM's opensm-lfts.dump or opensm.fdbs have it)",
            sources.lft,
            unlisted.len(),
            shown.join(", "),
            if unlisted.len() > 5 { ", ..." } else { "" }
        ));
    }
    if dead_rows > 0 {
        warnings.push(format!(
            "{}: {dead_rows} (switch, host LID) entries have no usable route (no entry, port 0, or a port without a cable)",
            sources.lft
        ));
    }
    if ambiguous > 0 && !options.orcs_compat {
        return Err(ConvertError::SeveralNextHops {
            lft_file: sources.lft.to_string(),
            count: ambiguous,
        });
    }
    if ambiguous > 0 {
        warnings.push(format!(
            "{}: with --lmc-paths, {ambiguous} (switch, host) pairs use several ports; only --orcs-compat simulates that (the first edge wins)",
            sources.lft
        ));
    }
    // Without --lmc-paths the comments are the table's own: writers derive them when
    // needed (LoadedFabric::fill_comments) instead of every load paying for them.
    if options.lmc_paths {
        fabric.edge_comments =
            all_path_comments(&fabric, &dest_lids, lfts, topo, &vertex_of, &edge_at);
    }
    Ok(LoadedFabric {
        warnings,
        ..LoadedFabric::new(fabric, table)
    })
}

fn kind_rank(kind: NodeKind) -> u8 {
    match kind {
        NodeKind::Ca => 0,
        NodeKind::Switch => 1,
        NodeKind::Router => 2,
    }
}

/// The edge a host sends through: its lowest-numbered cabled port.
fn host_uplink(fabric: &Fabric, host_node: u32) -> Option<u32> {
    fabric
        .out_edges(host_node)
        .min_by_key(|&e| fabric.edge_keys[e as usize].as_deref().map(port_number))
}

/// The port number in a `key` written by [`convert`].
fn port_number(key: &str) -> u32 {
    key.parse().unwrap_or(u32::MAX)
}

/// Vertex names in vertex order: GUID-based by default, or from the name map (CAs get an
/// `H` prefix when the mapped name lacks it); duplicates get the GUID appended.
fn vertex_names(
    topo: &IbTopology,
    order: &[u32],
    map: Option<&NodeNameMap>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut names: Vec<String> = order
        .iter()
        .map(|&i| {
            let n = &topo.nodes[i as usize];
            match map.and_then(|m| m.get(n.guid)) {
                Some(name) if n.kind == NodeKind::Ca && !name.starts_with('H') => {
                    format!("H{name}")
                }
                Some(name) if n.kind != NodeKind::Ca && name.starts_with('H') => {
                    // Only hosts may start with H (ORCS's host rule).
                    format!(
                        "{}{name}",
                        default_name(n.kind, n.guid).chars().next().unwrap_or('S')
                    )
                }
                Some(name) => name.to_string(),
                None => default_name(n.kind, n.guid),
            }
        })
        .collect();
    let mut count: HashMap<String, u32> = HashMap::new();
    for n in &names {
        *count.entry(n.clone()).or_default() += 1;
    }
    let mut renamed = 0;
    for (v, &i) in order.iter().enumerate() {
        if count[&names[v]] > 1 {
            names[v] = format!("{}_{:016x}", names[v], topo.nodes[i as usize].guid);
            renamed += 1;
        }
    }
    if renamed > 0 {
        warnings.push(format!(
            "{renamed} nodes share a mapped name; their GUID was appended to keep names unique"
        ));
    }
    names
}

/// Per host (in host order): the LIDs that identify it as a destination.
fn destination_lids(
    topo: &IbTopology,
    vertex_of: &[u32],
    fabric: &Fabric,
    all_paths: bool,
) -> Vec<Vec<u32>> {
    let mut ports: Vec<Vec<(u32, u32, u8)>> = vec![Vec::new(); fabric.num_hosts()];
    for p in &topo.port_lids {
        let v = vertex_of[p.node as usize];
        let h = fabric.host_of_node[v as usize];
        if h != NONE && p.base_lid != 0 {
            ports[h as usize].push((p.port, p.base_lid, p.lmc));
        }
    }
    ports
        .into_iter()
        .map(|mut list| {
            list.sort_unstable();
            if all_paths {
                list.iter()
                    .flat_map(|&(_, base, lmc)| base..base + (1u32 << lmc.min(7)))
                    .collect()
            } else {
                list.first()
                    .map(|&(_, base, _)| vec![base])
                    .unwrap_or_default()
            }
        })
        .collect()
}

/// With `--lmc-paths`: the comments list each host on every edge any of its LIDs uses
/// (so a host may appear on several out-edges of a switch); host uplinks get `*`.
fn all_path_comments(
    fabric: &Fabric,
    dest: &[Vec<u32>],
    lfts: &Lfts,
    topo: &IbTopology,
    vertex_of: &[u32],
    edge_at: &HashMap<(u32, u32), u32>,
) -> EdgeComments {
    let mut symbols = SymbolTable::new();
    let host_symbol: Vec<u32> = (0..fabric.num_hosts() as u32)
        .map(|h| symbols.intern(fabric.host_name(h)))
        .collect();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); fabric.num_edges()];
    for lft in &lfts.switches {
        let Some(node) = topo.node_by_guid(lft.guid) else {
            continue;
        };
        let v = vertex_of[node as usize];
        for (h, lids) in dest.iter().enumerate() {
            for &lid in lids {
                if let Some(&e) = lft.port(lid).and_then(|p| edge_at.get(&(v, p as u32))) {
                    let list = &mut lists[e as usize];
                    if list.last() != Some(&host_symbol[h]) {
                        list.push(host_symbol[h]);
                    }
                }
            }
        }
    }
    let mut is_uplink = vec![false; fabric.num_edges()];
    for &v in &fabric.hosts {
        if let Some(e) = host_uplink(fabric, v) {
            is_uplink[e as usize] = true;
        }
    }
    EdgeComments::from_lists(symbols, lists, &is_uplink)
}
