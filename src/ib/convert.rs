//! From InfiniBand dumps to a routed fabric: LIDs to hosts, LFT rows to next hops.
//!
//! Every cabled port gives one directed edge per direction (`key` = the local port
//! number, so parallel cables stay apart). A host's destination LID is the base LID of
//! its first cabled port with a LID (or every LID of every port with
//! [`ConvertOptions::lmc_paths`]); a switch sends host h through the port its LFT gives
//! for that LID. Hosts send through their first cabled port (`comment="*"`).

use super::node_name_map::NodeNameMap;
use super::{IbError, IbTopology, Lfts, NodeKind, SwitchLft};
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
pub(crate) fn default_name(kind: NodeKind, guid: u64) -> String {
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
) -> Result<LoadedFabric, IbError> {
    let mut warnings = Vec::new();
    let order = node_order(topo);
    let names = vertex_names(topo, &order, options.names.as_ref(), &mut warnings);
    let (mut fabric, vertex_of, edge_at) = cabled_fabric(topo, &order, names, sources.topology)?;
    let dest_lids = destination_lids(topo, &vertex_of, &fabric, options.lmc_paths);
    let mut table = ForwardingTable::new(&fabric);
    // Hosts inject through their lowest-numbered cabled port.
    for &v in &fabric.hosts {
        if let Some(e) = host_uplink(&fabric, v) {
            table.set_uniform(v, e);
        }
    }
    let rows = SwitchRows {
        topo,
        fabric: &fabric,
        vertex_of: &vertex_of,
        edge_at: &edge_at,
        dest_lids: &dest_lids,
    }
    .fill(lfts, &mut table, sources)?;
    if let Some(i) = (0..topo.nodes.len())
        .find(|&i| topo.nodes[i].kind == NodeKind::Switch && !rows.seen_table[i])
    {
        let n = &topo.nodes[i];
        return Err(IbError::MissingTable {
            lft_file: sources.lft.to_string(),
            guid: n.guid,
            description: n.description.clone(),
            topo_file: sources.topology.to_string(),
            line: n.line,
        });
    }
    warnings.extend(rows.warnings(&fabric, &dest_lids, sources.lft));
    if rows.ambiguous > 0 && !options.orcs_compat {
        return Err(IbError::SeveralNextHops {
            lft_file: sources.lft.to_string(),
            count: rows.ambiguous,
        });
    }
    if rows.ambiguous > 0 {
        warnings.push(format!(
            "{}: with --lmc-paths, {} (switch, host) pairs use several ports; only --orcs-compat simulates that (the first edge wins)",
            sources.lft, rows.ambiguous
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

/// A topology dump's cables without forwarding tables, for a routing engine to route.
#[derive(Debug, Clone)]
pub struct Cabling {
    /// The nodes and cables as [`convert`] builds them, every node under its default
    /// name (`H`/`S`/`R` and its GUID): the routing engines read the switches' GUIDs
    /// from these names, to take them in OpenSM's order.
    pub fabric: Fabric,
    /// The names the nodes take once routed: the node name map's, or the default ones.
    pub names: Vec<String>,
    /// What the user should know (names made unique).
    pub warnings: Vec<String>,
}

/// The cables of a topology dump (ibnetdiscover, `.lst`, ibsim net), as [`convert`]
/// lays them out, for a routing engine instead of forwarding tables: no LIDs are
/// needed. `options.names` gives [`Cabling::names`]; its other fields do not apply.
///
/// O(nodes log nodes + links).
pub fn cabling(
    topo: &IbTopology,
    options: &ConvertOptions,
    topo_file: &str,
) -> Result<Cabling, IbError> {
    let mut warnings = Vec::new();
    let order = node_order(topo);
    let defaults = vertex_names(topo, &order, None, &mut warnings);
    let names = match &options.names {
        Some(map) => vertex_names(topo, &order, Some(map), &mut warnings),
        None => defaults.clone(),
    };
    let (fabric, _, _) = cabled_fabric(topo, &order, defaults, topo_file)?;
    Ok(Cabling {
        fabric,
        names,
        warnings,
    })
}

/// The deterministic node order: CAs, switches, routers, each by GUID.
fn node_order(topo: &IbTopology) -> Vec<u32> {
    let mut order: Vec<u32> = (0..topo.nodes.len() as u32).collect();
    order.sort_by_key(|&i| {
        let n = &topo.nodes[i as usize];
        (kind_rank(n.kind), n.guid)
    });
    order
}

/// The edge of each (vertex, local port).
type EdgeAt = HashMap<(u32, u32), u32>;

/// The fabric of the nodes in `order`, named `names`, with its cables; also the vertex
/// of each topology node and the edge of each (vertex, port).
fn cabled_fabric(
    topo: &IbTopology,
    order: &[u32],
    names: Vec<String>,
    topo_file: &str,
) -> Result<(Fabric, Vec<u32>, EdgeAt), IbError> {
    let mut vertex_of = vec![NONE; topo.nodes.len()];
    for (v, &i) in order.iter().enumerate() {
        vertex_of[i as usize] = v as u32;
    }
    let mut fabric = fabric_nodes(topo, order, names);
    if fabric.hosts.is_empty() {
        return Err(IbError::NoHosts {
            topo_file: topo_file.to_string(),
        });
    }
    let edge_at = add_cables(topo, &vertex_of, &mut fabric);
    Ok((fabric, vertex_of, edge_at))
}

/// The fabric's nodes in vertex `order`, named `names`, with the CAs as hosts; no edges
/// yet.
fn fabric_nodes(topo: &IbTopology, order: &[u32], names: Vec<String>) -> Fabric {
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
    fabric
}

/// Adds one edge per cable and direction, in ORCS edge order (by tail, head, then local
/// port), keyed by the local port; returns (vertex, port) → edge id.
fn add_cables(
    topo: &IbTopology,
    vertex_of: &[u32],
    fabric: &mut Fabric,
) -> HashMap<(u32, u32), u32> {
    // Half-links (vertex, port, peer vertex, line), sorted into ORCS edge order.
    let mut half: Vec<(u32, u32, u32, u32)> = Vec::with_capacity(topo.links.len() * 2);
    for l in &topo.links {
        let (a, b) = (vertex_of[l.a.0 as usize], vertex_of[l.b.0 as usize]);
        half.push((a, l.a.1, b, l.line));
        half.push((b, l.b.1, a, l.line));
    }
    half.sort_by_key(|&(tail, port, head, _)| (tail, head, port));
    let num_nodes = fabric.num_nodes();
    fabric.out_start = vec![0; num_nodes + 1];
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
    for v in 0..num_nodes {
        fabric.out_start[v + 1] += fabric.out_start[v];
    }
    edge_at
}

/// What the switch rows are read against.
struct SwitchRows<'a> {
    topo: &'a IbTopology,
    fabric: &'a Fabric,
    vertex_of: &'a [u32],
    edge_at: &'a HashMap<(u32, u32), u32>,
    dest_lids: &'a [Vec<u32>],
}

/// What reading the switch rows found besides the table.
struct RowStats {
    /// Per topology node: whether the dump has its table.
    seen_table: Vec<bool>,
    /// Per host: whether any table has an entry for one of its LIDs.
    listed: Vec<bool>,
    /// (switch, host LID) entries without a usable route.
    dead_rows: u64,
    /// (switch, host) pairs with several next hops (from `--lmc-paths`).
    ambiguous: u64,
}

impl SwitchRows<'_> {
    /// Fills the switch rows of `table` from the LFTs.
    fn fill(
        &self,
        lfts: &Lfts,
        table: &mut ForwardingTable,
        sources: Sources<'_>,
    ) -> Result<RowStats, IbError> {
        let mut stats = RowStats {
            seen_table: vec![false; self.topo.nodes.len()],
            listed: vec![false; self.fabric.num_hosts()],
            dead_rows: 0,
            ambiguous: 0,
        };
        for lft in &lfts.switches {
            let Some(node) = self
                .topo
                .node_by_guid(lft.guid)
                .filter(|&n| self.topo.nodes[n as usize].kind == NodeKind::Switch)
            else {
                return Err(IbError::UnknownSwitch {
                    lft_file: sources.lft.to_string(),
                    line: lft.line,
                    guid: lft.guid,
                    topo_file: sources.topology.to_string(),
                });
            };
            stats.seen_table[node as usize] = true;
            self.fill_row(lft, node, table, &mut stats, sources)?;
        }
        Ok(stats)
    }

    /// The row of switch `node` from its table `lft`.
    fn fill_row(
        &self,
        lft: &SwitchLft,
        node: u32,
        table: &mut ForwardingTable,
        stats: &mut RowStats,
        sources: Sources<'_>,
    ) -> Result<(), IbError> {
        let v = self.vertex_of[node as usize];
        let num_ports = self.topo.nodes[node as usize].num_ports;
        let base = self.fabric.out_start[v as usize];
        let row = table.row_mut(self.fabric, v);
        for (h, lids) in self.dest_lids.iter().enumerate() {
            for &lid in lids {
                let Some(port) = lft.port(lid) else {
                    stats.dead_rows += 1;
                    continue;
                };
                stats.listed[h] = true;
                if num_ports > 0 && port as u32 > num_ports {
                    return Err(IbError::NoSuchPort {
                        lft_file: sources.lft.to_string(),
                        line: lft.line,
                        guid: lft.guid,
                        lid,
                        port,
                        num_ports,
                    });
                }
                match self.edge_at.get(&(v, port as u32)) {
                    Some(&e) => {
                        // Several paths (--lmc-paths): keep the first edge in ORCS
                        // order, as re-reading the written dot with --orcs-compat does.
                        let local = (e - base) as u16;
                        if row[h] != NO_PORT && row[h] != local {
                            stats.ambiguous += 1;
                        }
                        row[h] = row[h].min(local);
                    }
                    None => stats.dead_rows += 1,
                }
            }
        }
        Ok(())
    }
}

impl RowStats {
    /// Warnings about hosts no table lists and entries without a usable route.
    fn warnings(&self, fabric: &Fabric, dest_lids: &[Vec<u32>], lft_file: &str) -> Vec<String> {
        let mut warnings = Vec::new();
        let unlisted: Vec<usize> = (0..fabric.num_hosts())
            .filter(|&h| !self.listed[h] && !dest_lids[h].is_empty())
            .collect();
        if !unlisted.is_empty() {
            let shown: Vec<String> = unlisted
                .iter()
                .take(5)
                .map(|&h| format!("{} (LID {})", fabric.host_name(h as u32), dest_lids[h][0]))
                .collect();
            warnings.push(format!(
                "{}: no switch table has an entry for {} hosts, which are unreachable: {}{}              (infiniband-diags 44.0 ibroute/dump_fts drop the highest LID when the LID count              is a multiple of 64; OpenSM's opensm-lfts.dump or opensm.fdbs have it)",
                lft_file,
                unlisted.len(),
                shown.join(", "),
                if unlisted.len() > 5 { ", ..." } else { "" }
            ));
        }
        if self.dead_rows > 0 {
            warnings.push(format!(
                "{lft_file}: {} (switch, host LID) entries have no usable route (no entry, port 0, or a port without a cable)",
                self.dead_rows
            ));
        }
        warnings
    }
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
