//! Routing engines that use the generator's structure: D-mod-K on fat trees
//! ([`dmodk`], and why [`smodk`] cannot be a forwarding table) and dimension-order
//! routing on meshes, tori, hypercubes and HyperX ([`dor`]).
//!
//! The engines read the [`Structure`] a generator recorded, check it against the
//! fabric's links (a mismatch is a [`RouteError::Inconsistent`], never a panic or a
//! wrong table) and fill a [`ForwardingTable`]: every host sends everything through its
//! uplink (its lowest-port edge), and every switch gets a dense row with one port per
//! destination host. Edge ports are the numeric `key`s the generators write (or, for an
//! edge without one, its position among its tail's out-edges, from 1).
//!
//! Tables cost 2 bytes per switch and host (a dense row per switch), so the engines
//! refuse fabrics with more than [`MAX_TABLE_ENTRIES`] switch × host entries.

use super::{Generated, Structure};
use crate::fabric::Fabric;
use crate::routing::ForwardingTable;

/// Largest forwarding table (switches × hosts entries, 2 bytes each) the engines build.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 31;

/// Why a structured engine cannot route a fabric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// The engine does not apply to this kind of fabric (e.g. "dmodk needs a fat tree").
    #[error("{engine} needs {needs}; this fabric is {found}")]
    WrongStructure {
        /// The engine (`dmodk`, `smodk`, `dor`).
        engine: &'static str,
        /// What it needs.
        needs: &'static str,
        /// What the fabric is.
        found: &'static str,
    },
    /// The routing cannot be written as destination-based forwarding tables.
    #[error("{engine} cannot be expressed as destination-based forwarding tables: {reason}")]
    NotDestinationBased {
        /// The engine.
        engine: &'static str,
        /// Why, and what to use instead.
        reason: String,
    },
    /// The fabric's links do not match the structure recorded with it.
    #[error("{engine}: the fabric does not match its structure: {message}")]
    Inconsistent {
        /// The engine.
        engine: &'static str,
        /// The first mismatch found.
        message: String,
    },
    /// The table would be larger than [`MAX_TABLE_ENTRIES`].
    #[error(
        "{engine}: the forwarding tables would have {entries} entries (switches × hosts), \
         more than the limit of {limit}"
    )]
    TooLarge {
        /// The engine.
        engine: &'static str,
        /// Switches × hosts.
        entries: u128,
        /// [`MAX_TABLE_ENTRIES`].
        limit: u64,
    },
}

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

fn check_table_size(engine: &'static str, fabric: &Fabric) -> Result<(), RouteError> {
    let entries = fabric.num_switches() as u128 * fabric.num_hosts() as u128;
    if entries > MAX_TABLE_ENTRIES as u128 {
        return Err(RouteError::TooLarge {
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
) -> Result<(), RouteError> {
    for v in 0..fabric.num_nodes() as u32 {
        if fabric.out_edges(v).len() >= u16::MAX as usize {
            return Err(RouteError::Inconsistent {
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
            return Err(RouteError::Inconsistent {
                engine,
                message: format!("host {} has no link", fabric.host_name(h as u32)),
            });
        };
        table.set_uniform(v, fabric.out_start[v as usize] + local as u32);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Fat trees
// ---------------------------------------------------------------------------------------

/// A validated fat tree: per switch level `l` (0 = leaves), the arithmetic of
/// [`super::topology::xgft`]'s layout, checked link by link against the fabric.
struct Tree {
    /// Hosts below one switch of level l: m[0]⋯m[l].
    below: Vec<u64>,
    /// Children per switch of level l (m[l]).
    children: Vec<u64>,
    /// Up-links per switch of level l (0 at the top).
    up: Vec<u64>,
    /// Place value of level l's up-port digit: up[0]⋯up[l-1].
    place: Vec<u64>,
    /// Switches of level l that share one subtree (copies).
    copies: Vec<u64>,
    /// Parallel cables from a switch of level l to each child.
    parallel: Vec<u64>,
    /// Switch nodes with (level, index).
    switches: Vec<(u32, usize, u64)>,
    /// Per node: down-edges (local indices) in port order.
    down_edges: Vec<Vec<u16>>,
    /// Per node: up-edges (local indices) in port order.
    up_edges: Vec<Vec<u16>>,
}

impl Tree {
    /// Reads and checks a [`Structure::Tree`]. O(nodes + edges log degree).
    fn new(engine: &'static str, generated: &Generated) -> Result<Tree, RouteError> {
        let fabric = &generated.fabric;
        let Structure::Tree {
            levels,
            level,
            index,
            m,
            w: _,
        } = &generated.structure
        else {
            return Err(RouteError::WrongStructure {
                engine,
                needs: "a fat tree (k-ary n-tree, XGFT or slimmed two-level tree)",
                found: structure_name(&generated.structure),
            });
        };
        let fail = |message: String| RouteError::Inconsistent { engine, message };
        let name = |v: u32| fabric.node_names[v as usize].as_str();
        let h = *levels as usize;
        let nodes = fabric.num_nodes();
        if h == 0 || m.len() != h || level.len() != nodes || index.len() != nodes {
            return Err(fail(format!(
                "{levels} levels, {} values of m, {} level and {} index entries for {nodes} nodes",
                m.len(),
                level.len(),
                index.len()
            )));
        }
        if m.contains(&0) {
            return Err(fail(format!("m = {m:?} has a zero")));
        }
        check_table_size(engine, fabric)?;
        let hosts = fabric.num_hosts() as u64;
        let mut below = Vec::with_capacity(h);
        let mut prod: u128 = 1;
        for &x in m {
            prod = prod.saturating_mul(x as u128);
            below.push(prod.min(u64::MAX as u128) as u64);
        }
        if prod != hosts as u128 {
            return Err(fail(format!(
                "m multiplies to {prod} hosts, the fabric has {hosts}"
            )));
        }
        let mut tree = Tree {
            below,
            children: m.iter().map(|&x| x as u64).collect(),
            up: vec![u64::MAX; h],
            place: vec![1; h],
            copies: vec![0; h],
            parallel: vec![1; h],
            switches: Vec::new(),
            down_edges: vec![Vec::new(); nodes],
            up_edges: vec![Vec::new(); nodes],
        };
        let mut count = vec![0u64; h];
        let mut down_count = vec![u64::MAX; h];
        for v in 0..nodes as u32 {
            let lv = level[v as usize];
            let is_host = fabric.host_of_node[v as usize] != crate::fabric::NONE;
            if is_host != (lv == 0) || lv as usize > h {
                return Err(fail(format!("{} has level {lv}", name(v))));
            }
            if is_host {
                continue;
            }
            let l = lv as usize - 1;
            for e in fabric.out_edges(v) {
                if level[fabric.edge_head[e as usize] as usize] == lv {
                    return Err(fail(format!(
                        "{} links to a switch of its own level",
                        name(v)
                    )));
                }
            }
            let heads = |e: u32| level[fabric.edge_head[e as usize] as usize];
            let down = edges_by_port(fabric, v, |e| heads(e) < lv);
            let up = edges_by_port(fabric, v, |e| heads(e) > lv);
            for (have, want, what) in [
                (&mut tree.up[l], up.len() as u64, "up-links"),
                (&mut down_count[l], down.len() as u64, "down-links"),
            ] {
                if *have == u64::MAX {
                    *have = want;
                } else if *have != want {
                    return Err(fail(format!(
                        "{} has {want} {what}, other switches of level {l} have {}",
                        name(v),
                        *have
                    )));
                }
            }
            count[l] += 1;
            tree.switches.push((v, l, index[v as usize] as u64));
            tree.down_edges[v as usize] = down;
            tree.up_edges[v as usize] = up;
        }
        for l in 0..h {
            let subtrees = hosts / tree.below[l].max(1);
            if count[l] == 0 || subtrees == 0 || count[l] % subtrees != 0 {
                return Err(fail(format!(
                    "level {l} has {} switches for {subtrees} subtrees",
                    count[l]
                )));
            }
            tree.copies[l] = count[l] / subtrees;
            if l > 0 {
                tree.place[l] = tree.place[l - 1].saturating_mul(tree.up[l - 1]);
            }
            let top = l + 1 == h;
            if top != (tree.up[l] == 0) {
                return Err(fail(format!(
                    "switches of level {l} have {} up-links{}",
                    tree.up[l],
                    if top { " at the top" } else { "" }
                )));
            }
            if !top && tree.copies[l] != tree.place[l] {
                return Err(fail(format!(
                    "level {l} has {} copies of each subtree, its up-links make {}",
                    tree.copies[l], tree.place[l]
                )));
            }
            let d = down_count[l];
            if d == 0 || d % tree.children[l] != 0 || (l == 0 && d != tree.children[0]) {
                return Err(fail(format!(
                    "switches of level {l} have {d} down-links for {} children",
                    tree.children[l]
                )));
            }
            tree.parallel[l] = d / tree.children[l];
        }
        // Every link must lead where the arithmetic says.
        let subtree = |v: u32| -> u64 {
            let lv = level[v as usize] as usize;
            if lv == 0 {
                index[v as usize] as u64
            } else {
                index[v as usize] as u64 / tree.copies[lv - 1]
            }
        };
        for &(v, l, j) in &tree.switches {
            if j >= count[l] {
                return Err(fail(format!(
                    "{} has index {j}, level {l} has {} switches",
                    name(v),
                    count[l]
                )));
            }
            let a = j / tree.copies[l];
            let start = fabric.out_start[v as usize];
            for (q, &local) in tree.down_edges[v as usize].iter().enumerate() {
                let head = fabric.edge_head[(start + local as u32) as usize];
                let want = a * tree.children[l] + q as u64 / tree.parallel[l];
                if level[head as usize] as usize != l || subtree(head) != want {
                    return Err(fail(format!(
                        "down-link {} of {} leads to {}, expected a node of subtree {want} one level down",
                        q + 1,
                        name(v),
                        name(head)
                    )));
                }
            }
            for &local in &tree.up_edges[v as usize] {
                let head = fabric.edge_head[(start + local as u32) as usize];
                let want = a / tree.children[l + 1];
                if level[head as usize] as usize != l + 2 || subtree(head) != want {
                    return Err(fail(format!(
                        "{} has an up-link to {}, expected a switch of subtree {want} one level up",
                        name(v),
                        name(head)
                    )));
                }
            }
        }
        for (x, &v) in fabric.hosts.iter().enumerate() {
            let up = edges_by_port(fabric, v, |_| true);
            let Some(&first) = up.first() else {
                return Err(fail(format!("host {} has no link", name(v))));
            };
            let head = fabric.edge_head[(fabric.out_start[v as usize] + first as u32) as usize];
            if index[v as usize] as usize != x
                || level[head as usize] != 1
                || subtree(head) != x as u64 / tree.children[0]
            {
                return Err(fail(format!(
                    "host {} (index {x}) is attached to {}",
                    name(v),
                    name(head)
                )));
            }
        }
        Ok(tree)
    }

    /// The D-mod-K table (see [`dmodk`]).
    fn route(
        &self,
        engine: &'static str,
        generated: &Generated,
    ) -> Result<ForwardingTable, RouteError> {
        let fabric = &generated.fabric;
        let mut table = ForwardingTable::new(fabric);
        route_hosts(engine, fabric, &mut table)?;
        let hosts = fabric.num_hosts() as u64;
        for &(v, l, j) in &self.switches {
            let a = j / self.copies[l];
            let copy = j % self.copies[l];
            let down = &self.down_edges[v as usize];
            let up = &self.up_edges[v as usize];
            let row = table.row_mut(fabric, v);
            for d in 0..hosts {
                row[d as usize] = if d / self.below[l] == a {
                    let q = if l == 0 {
                        d % self.children[0]
                    } else {
                        let group = (d / self.below[l - 1]) % self.children[l];
                        let c = self.parallel[l];
                        let i = if c == 1 {
                            0
                        } else {
                            // Parallel cables i = 0..c to the child end at its up-ports
                            // copy + spread·i. Take the one whose up-port is the first at
                            // or after d's own D-mod-K up-port t (wrapping to the first):
                            // on d's routes that is t itself, so routes come down the way
                            // they would go up; elsewhere it is OpenSM's choice.
                            let t = (d / self.place[l - 1]) % self.up[l - 1];
                            let spread = (self.up[l - 1] / c).max(1);
                            let first = copy % spread;
                            let i = if t <= first {
                                0
                            } else {
                                (t - first).div_ceil(spread)
                            };
                            if i < c {
                                i
                            } else {
                                0
                            }
                        };
                        group * c + i
                    };
                    down[q as usize]
                } else {
                    let w = self.place[l];
                    up[(((d + w - 1 - copy) / w) % self.up[l]) as usize]
                };
            }
        }
        Ok(table)
    }
}

/// D-mod-K routing on a fat tree ([`Structure::Tree`]: k-ary n-trees, XGFTs, slimmed
/// two-level trees), in the classical digit-wise form (Zahavi et al.; Rodriguez et al.).
///
/// With switch levels `l` (0 = leaves), `W_l` = the product of the up-link counts of
/// levels `0..l` (`k^l` in a k-ary n-tree) and `U_l` the up-links of a level-`l` switch:
///
/// * a switch that has destination host `d` below it sends `d` down: the leaf through
///   `d`'s port, a higher switch to the child whose subtree holds `d` (with parallel
///   cables, as in slimmed trees whose uplinks exceed the spines, the cable whose lower
///   end is the up-port that D-mod-K uses towards `d` there, so routes come down the way
///   they would go up);
/// * any other switch sends `d` up through up-port `⌊d / W_l⌋ mod U_l` (in a k-ary
///   n-tree: `⌊d / k^l⌋ mod k`, base-k digit `l` of `d`) — on every switch that a route
///   towards `d` can reach.
///
/// Up-port choices for switches that no route towards `d` reaches are free (they never
/// carry traffic to `d`). They are filled as OpenSM's `ftree` fills them, so that the
/// tables of a full k-ary n-tree are identical to OpenSM's entry for entry: a switch of
/// level `l` whose up-port digits so far are `p` (its index mod `W_l`) uses the up-port
/// that D-mod-K gives the next destination at or after `d` whose routes do reach it,
/// `⌊(d + W_l − 1 − p) / W_l⌋ mod U_l`. For `p = d mod W_l` (the switches on `d`'s
/// routes) this is the classical `⌊d / W_l⌋ mod U_l`. Likewise a spine that is not on
/// `d`'s routes picks, among its parallel cables to `d`'s leaf, the one whose leaf-side
/// up-port comes first at or after `d`'s own, cyclically. (OpenSM fills these entries
/// from its per-port route counters; on these trees the least-loaded port is exactly
/// that one.) Checked against OpenSM 3.3 `ftree` entry for entry on the k-ary n-trees
/// (4,2), (8,3), (12,3), (16,3), (3,4), (4,4), (2,5), (2,6), on XGFT(3; 2,3,4; 1,2,3)
/// and XGFT(3; 4,4,4; 1,2,2), and on a slimmed tree with two cables per leaf and spine.
///
/// Hosts are numbered by index, which for the generators is GUID order. O(switches ×
/// hosts) time and table memory, O(nodes + edges) to check the structure.
pub fn dmodk(generated: &Generated) -> Result<ForwardingTable, RouteError> {
    Tree::new("dmodk", generated)?.route("dmodk", generated)
}

/// S-mod-K (up-port at level `l` = `⌊s / W_l⌋ mod U_l` from the *source* `s`) cannot be
/// written as a forwarding table, and this function says so unless the tree offers no
/// choice of up-port at all.
///
/// A forwarding table holds one port per switch and destination, whatever the source.
/// Under S-mod-K, two hosts on the same leaf switch that send to the same destination
/// must leave the leaf through different up-ports (their own digits), so no
/// destination-based table (InfiniBand LFT, ORCS dot) expresses it. Spreading by the
/// switch's own position instead would send all of a leaf's traffic to a destination
/// through one up-port, which is not S-mod-K either. On a full k-ary n-tree the S-mod-K
/// route from `s` to `d` is the D-mod-K route from `d` to `s` reversed, so its congestion
/// on a pattern equals [`dmodk`]'s on the reversed pattern.
///
/// Returns [`RouteError::WrongStructure`] for a fabric that is not a fat tree,
/// [`RouteError::NotDestinationBased`] for a tree in which some switch has two or more
/// up-links, and otherwise (every switch has at most one up-link, so S-mod-K and D-mod-K
/// coincide) the [`dmodk`] table.
pub fn smodk(generated: &Generated) -> Result<ForwardingTable, RouteError> {
    let tree = Tree::new("smodk", generated)?;
    if tree.up.iter().all(|&u| u <= 1) {
        return tree.route("smodk", generated);
    }
    Err(RouteError::NotDestinationBased {
        engine: "smodk",
        reason: "S-mod-K picks the up-port from the source's digits, so two hosts on one leaf \
                 switch that send to the same destination need different up-ports, and a \
                 forwarding table has one port per switch and destination; use dmodk (on a \
                 full k-ary n-tree, S-mod-K's route from s to d is D-mod-K's route from d to \
                 s reversed)"
            .to_string(),
    })
}

// ---------------------------------------------------------------------------------------
// Dimension order
// ---------------------------------------------------------------------------------------

/// Dimension-order routing on a [`Structure::Grid`] (mesh, torus, hypercube, HyperX).
///
/// A switch sends a destination host on another switch along the lowest dimension in
/// which their coordinates differ: in a HyperX straight to the destination's coordinate;
/// in a mesh (and a hypercube) one step towards it; in a torus dimension one step in the
/// shorter direction around the ring, the `+` direction on a tie. The destination's
/// switch delivers it through its own link to the host. Parallel links to one neighbour:
/// the lowest port.
///
/// `datelines`: a forwarding table has no virtual lanes, so a dateline cannot switch
/// lanes; with `datelines = true` every ring of a torus is cut at its dateline, the
/// wraparound link between coordinates `d - 1` and `0`, and routes never cross it (they
/// go the other way round, as in the mesh). The channel dependency graph is then acyclic
/// (deadlock-free on one virtual lane) at the price of non-minimal routes and idle
/// wraparound links. With `datelines = false` routes are minimal, and a torus with a ring
/// of 3 or more switches has dependency cycles. Meshes, hypercubes and HyperX are
/// unaffected.
///
/// O(switches × hosts × dimensions) time, O(switches × hosts) table memory.
pub fn dor(generated: &Generated, datelines: bool) -> Result<ForwardingTable, RouteError> {
    const ENGINE: &str = "dor";
    let fabric = &generated.fabric;
    let Structure::Grid {
        dims,
        wrap,
        coords,
        all_to_all,
    } = &generated.structure
    else {
        return Err(RouteError::WrongStructure {
            engine: ENGINE,
            needs: "a mesh, torus, hypercube or HyperX",
            found: structure_name(&generated.structure),
        });
    };
    let fail = |message: String| RouteError::Inconsistent {
        engine: ENGINE,
        message,
    };
    let name = |v: u32| fabric.node_names[v as usize].as_str();
    let n = dims.len();
    let nodes = fabric.num_nodes();
    if n == 0 || wrap.len() != n || coords.len() != nodes || dims.contains(&0) {
        return Err(fail(format!(
            "{n} dimensions, {} wrap flags, coordinates for {} of {nodes} nodes",
            wrap.len(),
            coords.len()
        )));
    }
    check_table_size(ENGINE, fabric)?;
    for (v, c) in coords.iter().enumerate() {
        if c.len() != n || c.iter().zip(dims).any(|(&x, &d)| x >= d) {
            return Err(fail(format!(
                "{} has coordinates {c:?} outside {dims:?}",
                name(v as u32)
            )));
        }
    }
    let mut table = ForwardingTable::new(fabric);
    route_hosts(ENGINE, fabric, &mut table)?;
    let is_host = |v: u32| fabric.host_of_node[v as usize] != crate::fabric::NONE;
    let switches: Vec<u32> = (0..nodes as u32).filter(|&v| !is_host(v)).collect();
    // Each host's switch, as a position in `switches`.
    let mut position = vec![u32::MAX; nodes];
    for (i, &v) in switches.iter().enumerate() {
        position[v as usize] = i as u32;
    }
    let mut host_switch = Vec::with_capacity(fabric.num_hosts());
    for &x in &fabric.hosts {
        let first = edges_by_port(fabric, x, |_| true)[0];
        let head = fabric.edge_head[(fabric.out_start[x as usize] + first as u32) as usize];
        if is_host(head) || coords[head as usize] != coords[x as usize] {
            return Err(fail(format!(
                "host {} is attached to {}",
                name(x),
                name(head)
            )));
        }
        host_switch.push(position[head as usize]);
    }
    // Flat switch coordinates.
    let flat: Vec<u32> = switches
        .iter()
        .flat_map(|&v| coords[v as usize].iter().copied())
        .collect();
    for &v in &switches {
        let c = &coords[v as usize];
        let start = fabric.out_start[v as usize];
        // (dimension, coordinate) -> local edge, lowest port first.
        let mut links: Vec<(usize, u32, u16)> = Vec::new();
        let mut deliver = Vec::new();
        for local in edges_by_port(fabric, v, |_| true) {
            let head = fabric.edge_head[(start + local as u32) as usize];
            if is_host(head) {
                deliver.push((fabric.host_of_node[head as usize], local));
                continue;
            }
            let hc = &coords[head as usize];
            let differ: Vec<usize> = (0..n).filter(|&i| hc[i] != c[i]).collect();
            match differ.as_slice() {
                [i] => links.push((*i, hc[*i], local)),
                _ => {
                    return Err(fail(format!(
                        "the link from {} to {} does not change exactly one coordinate",
                        name(v),
                        name(head)
                    )))
                }
            }
        }
        // Stable sort: the lowest port of parallel links comes first.
        links.sort_by_key(|&(i, x, _)| (i, x));
        deliver.sort_by_key(|&(host, _)| host);
        let row = table.row_mut(fabric, v);
        let own = position[v as usize];
        for (d, &s) in host_switch.iter().enumerate() {
            if s == own {
                match deliver.binary_search_by_key(&(d as u32), |&(host, _)| host) {
                    Ok(i) => row[d] = deliver[i].1,
                    Err(_) => {
                        return Err(fail(format!(
                            "{} has no link to its host {}",
                            name(v),
                            fabric.host_name(d as u32)
                        )))
                    }
                }
                continue;
            }
            let t = &flat[s as usize * n..(s as usize + 1) * n];
            let Some(i) = (0..n).find(|&i| t[i] != c[i]) else {
                return Err(fail(format!(
                    "two switches share the coordinates of {}",
                    name(v)
                )));
            };
            let (x, k) = (c[i], dims[i]);
            let next = if *all_to_all {
                t[i]
            } else if wrap[i] && !datelines {
                let plus = (t[i] + k - x) % k;
                let minus = (x + k - t[i]) % k;
                if plus <= minus {
                    (x + 1) % k
                } else {
                    (x + k - 1) % k
                }
            } else if t[i] > x {
                x + 1
            } else {
                x - 1
            };
            match links.binary_search_by_key(&(i, next), |&(j, y, _)| (j, y)) {
                Ok(mut p) => {
                    while p > 0 && links[p - 1].0 == i && links[p - 1].1 == next {
                        p -= 1;
                    }
                    row[d] = links[p].2;
                }
                Err(_) => {
                    return Err(fail(format!(
                        "{} has no link to coordinate {next} in dimension {i}",
                        name(v)
                    )))
                }
            }
        }
    }
    Ok(table)
}
