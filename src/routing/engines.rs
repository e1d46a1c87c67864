//! Routing engines for any fabric: OpenSM's `minhop`, `updn`, `dnup` and `sssp`
//! reproduced on orcs's [`Fabric`], plus a seeded `random` minimal router.
//!
//! None of them needs to know the fabric's structure: they see switches, hosts and
//! directed links, and fill the same [`ForwardingTable`] that a routed dot file or an
//! InfiniBand dump fills. Every engine routes host destinations only (orcs simulates host
//! traffic); switches are never destinations.
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
//! Checked against OpenSM 3.3.23 (`tests/engines.rs`): identical forwarding tables for
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
use crate::routing::{ForwardingTable, NO_PORT};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;
use std::fmt;

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

/// Why an engine cannot route a fabric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// Two hosts are not connected through switches at all.
    #[error("the fabric is disconnected: no path from host {src} to host {dst} ({reason})")]
    Disconnected {
        /// Source host name.
        src: String,
        /// Destination host name.
        dst: String,
        /// What is missing.
        reason: String,
    },
    /// The engine's rules leave a pair of connected hosts without a route.
    #[error("{engine}: no legal route from host {src} to host {dst} (switch {at} has no {engine} path to it)")]
    Unroutable {
        /// The engine's name.
        engine: &'static str,
        /// Source host name.
        src: String,
        /// Destination host name.
        dst: String,
        /// The switch without a next hop.
        at: String,
    },
    /// updn was given no roots, or detected none.
    #[error("updn: no root switches {0}; OpenSM would fall back to minhop here (use minhop, or give the roots)")]
    NoRoots(&'static str),
    /// A root given to updn is not a switch of the fabric.
    #[error("updn: root {node} is not a switch of the fabric{name}")]
    BadRoot {
        /// The node id given.
        node: u32,
        /// `" (name)"` when the id exists, else empty.
        name: String,
    },
    /// dnup needs switches with hosts to rank from.
    #[error("dnup: no switch has a host attached, so there are no leaf switches to rank from")]
    NoLeafSwitches,
    /// A node has more out-edges than a forwarding-table row can address.
    #[error("node {name} has {edges} out-edges; forwarding tables address at most 65534")]
    TooManyEdges {
        /// The node's name.
        name: String,
        /// Its out-degree.
        edges: usize,
    },
}

/// Routes every host of `fabric` with `engine`: hosts send through their uplink, switches
/// get one next hop per destination host. Errors: a disconnected fabric (naming a pair),
/// updn without roots, and pairs that an engine's rules leave without a route.
///
/// Complexity: see the module documentation.
pub fn route(fabric: &Fabric, engine: &Engine) -> Result<ForwardingTable, EngineError> {
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
        return Ok(table);
    }
    let rows = match engine {
        Engine::Minhop => hop_engine(&topo, &HopRule::Minhop)?,
        Engine::Updn { roots } => {
            let roots = match roots {
                Some(list) => {
                    for &r in list {
                        if r as usize >= fabric.num_nodes() || !topo.is_switch[r as usize] {
                            return Err(EngineError::BadRoot {
                                node: r,
                                name: fabric
                                    .node_names
                                    .get(r as usize)
                                    .map(|n| format!(" ({n})"))
                                    .unwrap_or_default(),
                            });
                        }
                    }
                    if list.is_empty() {
                        return Err(EngineError::NoRoots("were given"));
                    }
                    list.clone()
                }
                None => {
                    let found = detect_roots(&topo);
                    if found.is_empty() {
                        return Err(EngineError::NoRoots(
                            "were detected (no switch sees more than 90% of the hosts at one distance and under 5% at any other)",
                        ));
                    }
                    found
                }
            };
            let rank = bfs_ranks(&topo, &roots);
            hop_engine(&topo, &HopRule::Updn { rank })?
        }
        Engine::Dnup => {
            let leaves: Vec<u32> = topo
                .switches
                .iter()
                .copied()
                .filter(|&s| {
                    fabric
                        .out_edges(s)
                        .any(|e| !topo.is_switch[fabric.edge_head[e as usize] as usize])
                })
                .collect();
            if leaves.is_empty() {
                return Err(EngineError::NoLeafSwitches);
            }
            let rank = bfs_ranks(&topo, &leaves);
            hop_engine(&topo, &HopRule::Dnup { rank })?
        }
        Engine::Sssp => sssp(&topo)?,
        Engine::Random { seed } => random(&topo, *seed)?,
    };
    let hosts = fabric.num_hosts();
    for (i, &s) in topo.switches.iter().enumerate() {
        table
            .row_mut(fabric, s)
            .copy_from_slice(&rows[i * hosts..(i + 1) * hosts]);
    }
    Ok(table)
}

/// "Unreachable" in hop counts and distances.
const INF: u32 = u32::MAX;

/// The fabric seen as OpenSM sees it: switches, ports, cables, GUID order.
struct Topo<'a> {
    f: &'a Fabric,
    /// Per node: not a host.
    is_switch: Vec<bool>,
    /// Switch node ids in OpenSM's switch-table order (GUID order).
    switches: Vec<u32>,
    /// Per node: index in `switches`, or NONE for hosts.
    sw_index: Vec<u32>,
    /// Per node: the number updn compares between switches of equal rank (the GUID).
    id: Vec<u64>,
    /// Out-edges of each node in port order (same CSR offsets as the fabric).
    by_port: Vec<u32>,
    /// Per edge: the other direction of its cable, or NONE.
    rev: Vec<u32>,
    /// Per switch (CSR by node, offsets `in_start`): the switch-to-switch edges into it,
    /// in the port order of their reverse (unpaired ones last).
    in_start: Vec<u32>,
    in_edges: Vec<u32>,
    /// Per host: the uplink (lowest-port out-edge), or NONE.
    uplink: Vec<u32>,
    /// Per host: the attachment switch and the edge that delivers to the host, or NONE.
    attach: Vec<u32>,
    deliver: Vec<u32>,
}

impl<'a> Topo<'a> {
    fn new(f: &'a Fabric) -> Result<Self, EngineError> {
        let n = f.num_nodes();
        let e_count = f.num_edges();
        for v in 0..n as u32 {
            let deg = f.out_edges(v).len();
            if deg >= NO_PORT as usize {
                return Err(EngineError::TooManyEdges {
                    name: f.node_names[v as usize].clone(),
                    edges: deg,
                });
            }
        }
        let is_switch: Vec<bool> = f.host_of_node.iter().map(|&h| h == NONE).collect();

        // Ports: numeric keys when the whole node has them, else positions from 1.
        let mut port = vec![0u32; e_count];
        for v in 0..n as u32 {
            let range = f.out_edges(v);
            let keys: Option<Vec<u32>> = range
                .clone()
                .map(|e| {
                    f.edge_keys[e as usize]
                        .as_deref()?
                        .trim()
                        .parse::<u32>()
                        .ok()
                })
                .collect();
            match keys {
                Some(k) => {
                    for (e, p) in range.zip(k) {
                        port[e as usize] = p;
                    }
                }
                None => {
                    for (i, e) in range.enumerate() {
                        port[e as usize] = i as u32 + 1;
                    }
                }
            }
        }
        let mut by_port: Vec<u32> = (0..e_count as u32).collect();
        for v in 0..n as u32 {
            let r = f.out_edges(v);
            by_port[r.start as usize..r.end as usize].sort_by_key(|&e| (port[e as usize], e));
        }

        // Cable pairing: parallel edges of one node pair, each direction in (line, port)
        // order when the lines match up, else in port order.
        let mut half: Vec<(u32, u32, u32)> = (0..e_count as u32)
            .filter(|&e| f.edge_tail[e as usize] != f.edge_head[e as usize])
            .map(|e| {
                let (t, h) = (f.edge_tail[e as usize], f.edge_head[e as usize]);
                (t.min(h), t.max(h), e)
            })
            .collect();
        half.sort_unstable();
        let mut rev = vec![NONE; e_count];
        let mut i = 0;
        while i < half.len() {
            let mut j = i;
            while j < half.len() && half[j].0 == half[i].0 && half[j].1 == half[i].1 {
                j += 1;
            }
            let a = half[i].0;
            let mut fwd: Vec<u32> = Vec::new();
            let mut back: Vec<u32> = Vec::new();
            for &(_, _, e) in &half[i..j] {
                if f.edge_tail[e as usize] == a {
                    fwd.push(e);
                } else {
                    back.push(e);
                }
            }
            let line = |e: &u32| f.edge_lines[*e as usize];
            let mut lf: Vec<u32> = fwd.iter().map(line).collect();
            let mut lb: Vec<u32> = back.iter().map(line).collect();
            lf.sort_unstable();
            lb.sort_unstable();
            let by_line = lf == lb && lf.iter().all(|&l| l > 0);
            let key = |e: &u32| {
                let l = if by_line { line(e) } else { 0 };
                (l, port[*e as usize], *e)
            };
            fwd.sort_by_key(key);
            back.sort_by_key(key);
            for (&x, &y) in fwd.iter().zip(&back) {
                rev[x as usize] = y;
                rev[y as usize] = x;
            }
            i = j;
        }

        // Switch-to-switch in-edges in the port order of their reverse.
        let mut in_start = vec![0u32; n + 1];
        let mut in_edges = Vec::new();
        let mut unpaired: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (e, &r) in rev.iter().enumerate() {
            let (t, h) = (f.edge_tail[e], f.edge_head[e]);
            if t != h && is_switch[t as usize] && is_switch[h as usize] && r == NONE {
                unpaired[h as usize].push(e as u32);
            }
        }
        for v in 0..n {
            if is_switch[v] {
                let r = f.out_edges(v as u32);
                for &e in &by_port[r.start as usize..r.end as usize] {
                    let h = f.edge_head[e as usize];
                    if h as usize != v && is_switch[h as usize] && rev[e as usize] != NONE {
                        in_edges.push(rev[e as usize]);
                    }
                }
                in_edges.extend_from_slice(&unpaired[v]);
            }
            in_start[v + 1] = in_edges.len() as u32;
        }

        // GUIDs and OpenSM's switch order.
        let guids: Option<Vec<u64>> = (0..n)
            .filter(|&v| is_switch[v])
            .map(|v| guid_of_name(&f.node_names[v]))
            .collect();
        let mut switches: Vec<u32> = (0..n as u32).filter(|&v| is_switch[v as usize]).collect();
        let mut id: Vec<u64> = (0..n as u64).collect();
        if guids.is_some() {
            for &s in &switches {
                id[s as usize] = guid_of_name(&f.node_names[s as usize]).unwrap_or(s as u64);
            }
            switches.sort_by_key(|&s| (id[s as usize].swap_bytes(), s));
        }
        let mut sw_index = vec![NONE; n];
        for (i, &s) in switches.iter().enumerate() {
            sw_index[s as usize] = i as u32;
        }

        // Hosts: uplink, attachment switch, delivery edge.
        let hosts = f.num_hosts();
        let mut uplink = vec![NONE; hosts];
        let mut attach = vec![NONE; hosts];
        let mut deliver = vec![NONE; hosts];
        for (h, &v) in f.hosts.iter().enumerate() {
            let r = f.out_edges(v);
            let Some(&up) = by_port[r.start as usize..r.end as usize]
                .iter()
                .find(|&&e| f.edge_head[e as usize] != v)
            else {
                continue;
            };
            uplink[h] = up;
            let t = f.edge_head[up as usize];
            if !is_switch[t as usize] {
                continue;
            }
            let d = if rev[up as usize] != NONE {
                rev[up as usize]
            } else {
                let r = f.out_edges(t);
                by_port[r.start as usize..r.end as usize]
                    .iter()
                    .copied()
                    .find(|&e| f.edge_head[e as usize] == v)
                    .unwrap_or(NONE)
            };
            if d != NONE {
                attach[h] = t;
                deliver[h] = d;
            }
        }
        Ok(Topo {
            f,
            is_switch,
            switches,
            sw_index,
            id,
            by_port,
            rev,
            in_start,
            in_edges,
            uplink,
            attach,
            deliver,
        })
    }

    /// Out-edges of `v` in port order.
    fn ports(&self, v: u32) -> &[u32] {
        let r = self.f.out_edges(v);
        &self.by_port[r.start as usize..r.end as usize]
    }

    /// Switch-to-switch edges into switch `v`, in the order of `v`'s ports.
    fn ins(&self, v: u32) -> &[u32] {
        &self.in_edges[self.in_start[v as usize] as usize..self.in_start[v as usize + 1] as usize]
    }

    fn name(&self, v: u32) -> String {
        self.f.node_names[v as usize].clone()
    }

    fn host(&self, h: u32) -> String {
        self.f.host_name(h).to_string()
    }

    /// Checks that every host can reach every other through switches. `Ok(false)` when
    /// there is nothing for switches to route: fewer than two hosts, or just two hosts
    /// cabled to each other.
    fn check_connected(&self) -> Result<bool, EngineError> {
        let f = self.f;
        let hosts = f.num_hosts() as u32;
        if hosts < 2 {
            return Ok(false);
        }
        for h in 0..hosts {
            let other = if h == 0 { 1 } else { 0 };
            let up = self.uplink[h as usize];
            if up == NONE {
                return Err(EngineError::Disconnected {
                    src: self.host(h),
                    dst: self.host(other),
                    reason: format!("{} has no link", self.host(h)),
                });
            }
            let head = f.edge_head[up as usize];
            if !self.is_switch[head as usize] {
                let peer = f.host_of_node[head as usize];
                let peer_up = self.uplink[peer as usize];
                if hosts == 2
                    && peer_up != NONE
                    && f.edge_head[peer_up as usize] == f.hosts[h as usize]
                {
                    return Ok(false);
                }
                let dst = (0..hosts).find(|&d| d != h && d != peer).unwrap_or(peer);
                return Err(EngineError::Disconnected {
                    src: self.host(h),
                    dst: self.host(dst),
                    reason: format!(
                        "{} is cabled to host {}, and hosts do not forward",
                        self.host(h),
                        self.name(head)
                    ),
                });
            }
            if self.attach[h as usize] == NONE {
                return Err(EngineError::Disconnected {
                    src: self.host(other),
                    dst: self.host(h),
                    reason: format!("switch {} has no link to {}", self.name(head), self.host(h)),
                });
            }
        }
        // Every attachment switch must reach, and be reached from, the first one.
        let t0 = self.attach[0];
        let mut seen = vec![false; f.num_nodes()];
        for forward in [true, false] {
            seen.iter_mut().for_each(|s| *s = false);
            let mut queue = VecDeque::from([t0]);
            seen[t0 as usize] = true;
            while let Some(u) = queue.pop_front() {
                let mut visit = |x: u32| {
                    if self.is_switch[x as usize] && !seen[x as usize] {
                        seen[x as usize] = true;
                        queue.push_back(x);
                    }
                };
                if forward {
                    f.out_edges(u).for_each(|e| visit(f.edge_head[e as usize]));
                } else {
                    self.ins(u)
                        .iter()
                        .for_each(|&e| visit(f.edge_tail[e as usize]));
                }
            }
            if let Some(h) = (0..hosts).find(|&h| !seen[self.attach[h as usize] as usize]) {
                let (src, dst) = if forward { (0, h) } else { (h, 0) };
                return Err(EngineError::Disconnected {
                    src: self.host(src),
                    dst: self.host(dst),
                    reason: format!(
                        "no switch path from {} to {}",
                        self.name(self.attach[src as usize]),
                        self.name(self.attach[dst as usize])
                    ),
                });
            }
        }
        Ok(true)
    }

    /// OpenSM's destination order, see the module documentation.
    fn destination_order(&self) -> Vec<u32> {
        let f = self.f;
        let hosts_on = |s: u32| {
            f.out_edges(s)
                .filter(|&e| !self.is_switch[f.edge_head[e as usize] as usize])
                .count()
        };
        let mut order = self.switches.clone();
        // Stable, like glibc's merge-sort qsort that OpenSM's compar_sw_load runs under.
        order.sort_by_key(|&s| std::cmp::Reverse(hosts_on(s)));
        let mut placed = vec![false; f.num_hosts()];
        let mut dests = Vec::with_capacity(f.num_hosts());
        for s in order {
            for &e in self.ports(s) {
                let v = f.edge_head[e as usize];
                let h = f.host_of_node[v as usize];
                if h != NONE && !placed[h as usize] && self.deliver[h as usize] == e {
                    placed[h as usize] = true;
                    dests.push(h);
                }
            }
        }
        dests.extend((0..f.num_hosts() as u32).filter(|&h| !placed[h as usize]));
        dests
    }

    /// Consecutive runs of `dests` with the same attachment switch.
    fn groups(&self, dests: &[u32]) -> Vec<(u32, std::ops::Range<usize>)> {
        let mut groups: Vec<(u32, std::ops::Range<usize>)> = Vec::new();
        for (i, &h) in dests.iter().enumerate() {
            let t = self.attach[h as usize];
            match groups.last_mut() {
                Some((last, r)) if *last == t => r.end = i + 1,
                _ => groups.push((t, i..i + 1)),
            }
        }
        groups
    }

    /// BFS hop counts from every switch to switch `t` (INF when unreachable).
    fn hops_to(&self, t: u32, dist: &mut [u32], queue: &mut VecDeque<u32>) {
        dist.iter_mut().for_each(|d| *d = INF);
        dist[t as usize] = 0;
        queue.clear();
        queue.push_back(t);
        while let Some(u) = queue.pop_front() {
            let du = dist[u as usize];
            for &e in self.ins(u) {
                let x = self.f.edge_tail[e as usize];
                if dist[x as usize] == INF {
                    dist[x as usize] = du + 1;
                    queue.push_back(x);
                }
            }
        }
    }

    /// The error for switch `at` lacking a route to host `dst`: names a host on `at`
    /// (or any source whose route crosses it).
    fn unroutable(&self, engine: &'static str, at: u32, dst: u32) -> EngineError {
        let src = (0..self.f.num_hosts() as u32)
            .find(|&h| self.attach[h as usize] == at && h != dst)
            .unwrap_or(0);
        EngineError::Unroutable {
            engine,
            src: self.host(src),
            dst: self.host(dst),
            at: self.name(at),
        }
    }

    /// Per switch index: whether some host sends from it.
    fn source_switches(&self) -> Vec<bool> {
        let mut has = vec![false; self.switches.len()];
        for &t in &self.attach {
            if t != NONE {
                has[self.sw_index[t as usize] as usize] = true;
            }
        }
        has
    }
}

/// `S`/`H`/`R` followed by exactly 16 hex digits, as converted fabrics name nodes.
fn guid_of_name(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(['S', 'H', 'R'])?;
    if rest.len() != 16 || !rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(rest, 16).ok()
}

/// Multi-source BFS ranks over switch links (OpenSM's `updn_subn_rank`): sources 0.
fn bfs_ranks(topo: &Topo<'_>, sources: &[u32]) -> Vec<u32> {
    let f = topo.f;
    let mut rank = vec![INF; f.num_nodes()];
    let mut queue = VecDeque::new();
    for &s in sources {
        if rank[s as usize] != 0 {
            rank[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &e in topo.ports(u) {
            let x = f.edge_head[e as usize];
            if topo.is_switch[x as usize] && rank[x as usize] > rank[u as usize] + 1 {
                rank[x as usize] = rank[u as usize] + 1;
                queue.push_back(x);
            }
        }
    }
    rank
}

/// OpenSM's `updn_find_root_nodes_by_min_hop`: a switch is a root when one hop count
/// covers more than 90 % of the host ports and no other covers more than 5 %.
fn detect_roots(topo: &Topo<'_>) -> Vec<u32> {
    const HOPS_MAX: usize = 64; // IB_SUBNET_PATH_HOPS_MAX
    let f = topo.f;
    let mut cas = vec![0u64; f.num_nodes()];
    let mut total = 0u64;
    for &v in &f.hosts {
        for e in f.out_edges(v) {
            let t = f.edge_head[e as usize];
            if topo.is_switch[t as usize] {
                cas[t as usize] += 1;
                total += 1;
            }
        }
    }
    let s_count = topo.switches.len();
    let mut hist = vec![0u64; s_count * HOPS_MAX];
    let mut dist = vec![INF; f.num_nodes()];
    let mut queue = VecDeque::new();
    for &t in &topo.switches {
        if cas[t as usize] == 0 {
            continue;
        }
        topo.hops_to(t, &mut dist, &mut queue);
        for (i, &s) in topo.switches.iter().enumerate() {
            let d = dist[s as usize] as usize;
            if d < HOPS_MAX {
                hist[i * HOPS_MAX + d] += cas[t as usize];
            }
        }
    }
    let (thd1, thd2) = (total as f64 * 0.9, total as f64 * 0.05);
    topo.switches
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            let bars = &hist[i * HOPS_MAX..(i + 1) * HOPS_MAX];
            let over1 = bars.iter().filter(|&&b| b as f64 > thd1).count();
            let over2 = bars.iter().filter(|&&b| b as f64 > thd2).count();
            over1 == 1 && over2 == 1
        })
        .map(|(_, &s)| s)
        .collect()
}

/// How the hop matrix of a [`hop_engine`] is built.
enum HopRule {
    /// Plain BFS.
    Minhop,
    /// OpenSM's updn BFS with these ranks.
    Updn { rank: Vec<u32> },
    /// OpenSM's dnup BFS with these ranks.
    Dnup { rank: Vec<u32> },
}

impl HopRule {
    fn engine(&self) -> &'static str {
        match self {
            HopRule::Minhop => "minhop",
            HopRule::Updn { .. } => "updn",
            HopRule::Dnup { .. } => "dnup",
        }
    }
}

/// Directions of OpenSM's up/down BFS (`updn_switch_dir_t`, `dnup_switch_dir_t`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Up,
    Down,
    Equal,
}

/// Scratch of the per-destination hop matrix: `hop[e]` is the hop count through edge
/// `e` (switch to switch), `least[v]` the minimum over `v`'s ports.
struct Hops {
    hop: Vec<u32>,
    least: Vec<u32>,
    dir: Vec<Dir>,
    queued: Vec<bool>,
    queue: VecDeque<u32>,
}

impl Hops {
    fn new(f: &Fabric) -> Self {
        Hops {
            hop: vec![INF; f.num_edges()],
            least: vec![INF; f.num_nodes()],
            dir: vec![Dir::Up; f.num_nodes()],
            queued: vec![false; f.num_nodes()],
            queue: VecDeque::new(),
        }
    }

    /// Fills the matrix for destination switch `t` under `rule`.
    fn compute(&mut self, topo: &Topo<'_>, rule: &HopRule, t: u32) {
        let f = topo.f;
        match rule {
            HopRule::Minhop => {
                topo.hops_to(t, &mut self.least, &mut self.queue);
                for &s in &topo.switches {
                    for &e in topo.ports(s) {
                        let y = f.edge_head[e as usize];
                        self.hop[e as usize] = match self.least[y as usize] {
                            d if d == INF || !topo.is_switch[y as usize] || y == s => INF,
                            d => d + 1,
                        };
                    }
                }
            }
            HopRule::Updn { rank } | HopRule::Dnup { rank } => {
                let updn = matches!(rule, HopRule::Updn { .. });
                self.hop.iter_mut().for_each(|h| *h = INF);
                self.least.iter_mut().for_each(|h| *h = INF);
                self.least[t as usize] = 0;
                self.dir[t as usize] = if updn { Dir::Up } else { Dir::Down };
                self.queue.clear();
                self.queue.push_back(t);
                while let Some(u) = self.queue.pop_front() {
                    self.queued[u as usize] = false;
                    let current = self.dir[u as usize];
                    let ru = rank[u as usize];
                    for &e in topo.ins(u) {
                        let x = f.edge_tail[e as usize];
                        let rx = rank[x as usize];
                        let next = if updn {
                            updn_dir(ru, rx, topo.id[u as usize], topo.id[x as usize])
                        } else {
                            dnup_dir(ru, rx)
                        };
                        let illegal = if updn {
                            current == Dir::Down && next == Dir::Up
                        } else {
                            current == Dir::Up && next == Dir::Down
                        };
                        if illegal {
                            continue;
                        }
                        let h = self.least[u as usize] + 1;
                        if h < self.hop[e as usize] {
                            self.hop[e as usize] = h;
                            if h < self.least[x as usize] {
                                self.least[x as usize] = h;
                            }
                            if !self.queued[x as usize] {
                                self.dir[x as usize] = next;
                                self.queued[x as usize] = true;
                                self.queue.push_back(x);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// OpenSM's `updn_get_dir` for a move from `cur` to `rem` in the BFS from a destination.
fn updn_dir(cur_rank: u32, rem_rank: u32, cur_id: u64, rem_id: u64) -> Dir {
    if cur_rank == 0 && rem_rank == 0 {
        Dir::Up
    } else if cur_rank < rem_rank {
        Dir::Down
    } else if cur_rank > rem_rank || cur_id > rem_id {
        Dir::Up
    } else {
        Dir::Down
    }
}

/// OpenSM's `dnup_get_dir`.
fn dnup_dir(cur_rank: u32, rem_rank: u32) -> Dir {
    if cur_rank < rem_rank {
        Dir::Down
    } else if cur_rank > rem_rank {
        Dir::Up
    } else {
        Dir::Equal
    }
}

/// minhop, updn and dnup: hop matrix per destination switch, then per switch and
/// destination host (in OpenSM's order) the least-loaded port with minimal hops.
/// Returns the dense rows (switch index × host).
fn hop_engine(topo: &Topo<'_>, rule: &HopRule) -> Result<Vec<u16>, EngineError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let mut rows = vec![NO_PORT; topo.switches.len() * hosts];
    let mut count = vec![0u32; f.num_edges()];
    let mut hops = Hops::new(f);
    let sources = topo.source_switches();
    let dests = topo.destination_order();
    // Candidates of the current destination switch: (switch index, range in `cand`).
    let mut cand: Vec<u32> = Vec::new();
    let mut spans: Vec<(u32, u32, u32)> = Vec::new();
    for (t, range) in topo.groups(&dests) {
        hops.compute(topo, rule, t);
        cand.clear();
        spans.clear();
        for (i, &s) in topo.switches.iter().enumerate() {
            if s == t {
                continue;
            }
            let least = hops.least[s as usize];
            let start = cand.len() as u32;
            if least != INF {
                cand.extend(
                    topo.ports(s)
                        .iter()
                        .copied()
                        .filter(|&e| hops.hop[e as usize] == least),
                );
            }
            if cand.len() as u32 == start {
                if sources[i] {
                    return Err(topo.unroutable(rule.engine(), s, dests[range.start]));
                }
                continue;
            }
            spans.push((i as u32, start, cand.len() as u32));
        }
        let ti = topo.sw_index[t as usize] as usize;
        for &h in &dests[range] {
            let d = topo.deliver[h as usize];
            count[d as usize] += 1;
            rows[ti * hosts + h as usize] = (d - f.out_start[t as usize]) as u16;
            for &(i, a, b) in &spans {
                // The first port with the fewest routes (strictly fewer replaces).
                let mut best = cand[a as usize];
                for &e in &cand[a as usize + 1..b as usize] {
                    if count[e as usize] < count[best as usize] {
                        best = e;
                    }
                }
                count[best as usize] += 1;
                let s = topo.switches[i as usize];
                rows[i as usize * hosts + h as usize] = (best - f.out_start[s as usize]) as u16;
            }
        }
    }
    Ok(rows)
}

/// Uniform random choice among minimal-hop ports, one generator for the whole table,
/// destinations in host order.
fn random(topo: &Topo<'_>, seed: u64) -> Result<Vec<u16>, EngineError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let mut rows = vec![NO_PORT; topo.switches.len() * hosts];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix64(
        seed ^ 0x5241_4E44_4F4D_5254u64.wrapping_mul(0xD6E8_FEB8_6659_FD93),
    ));
    let mut dist = vec![INF; f.num_nodes()];
    let mut queue = VecDeque::new();
    let sources = topo.source_switches();
    let dests: Vec<u32> = (0..hosts as u32).collect();
    let mut cand: Vec<u32> = Vec::new();
    let mut spans: Vec<(u32, u32, u32)> = Vec::new();
    let mut groups = topo.groups(&dests);
    // Hosts of one switch need not be adjacent in host order: group by switch.
    groups.sort_by_key(|(t, r)| (topo.sw_index[*t as usize], r.start));
    let mut last_t = NONE;
    for (t, range) in groups {
        if t != last_t {
            last_t = t;
            topo.hops_to(t, &mut dist, &mut queue);
            cand.clear();
            spans.clear();
            for (i, &s) in topo.switches.iter().enumerate() {
                if s == t {
                    continue;
                }
                let start = cand.len() as u32;
                let ds = dist[s as usize];
                if ds != INF {
                    cand.extend(topo.ports(s).iter().copied().filter(|&e| {
                        let y = f.edge_head[e as usize];
                        topo.is_switch[y as usize] && dist[y as usize].wrapping_add(1) == ds
                    }));
                }
                if cand.len() as u32 == start {
                    if sources[i] {
                        return Err(topo.unroutable("random", s, dests[range.start]));
                    }
                    continue;
                }
                spans.push((i as u32, start, cand.len() as u32));
            }
        }
        let ti = topo.sw_index[t as usize] as usize;
        for h in range {
            let d = topo.deliver[h];
            rows[ti * hosts + h] = (d - f.out_start[t as usize]) as u16;
            for &(i, a, b) in &spans {
                let e = cand[rng.gen_range(a as usize..b as usize)];
                let s = topo.switches[i as usize];
                rows[i as usize * hosts + h] = (e - f.out_start[s as usize]) as u16;
            }
        }
    }
    Ok(rows)
}

/// The SplitMix64 finaliser, to spread a user seed over the generator's state.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// OpenSM's "infinite" sssp distance (`INF` in `osm_ucast_dfsssp.c`).
const FAR: u64 = 0x7FEF_EFEF_EFEF_EFE0;

/// OpenSM's complib d-ary heap (`cl_heap.c`) with d = 4, as its sssp uses it: keys are
/// distances, items vertex numbers. Replayed exactly because its handling of equal keys
/// (the last of equal children moves up, the root is replaced by the last element)
/// decides which of several equally short paths a switch gets.
struct Heap {
    keys: Vec<u64>,
    items: Vec<u32>,
    /// Per vertex: its index in the arrays.
    pos: Vec<u32>,
    size: usize,
}

impl Heap {
    const D: usize = 4;

    fn new(n: usize) -> Self {
        Heap {
            keys: vec![0; n],
            items: vec![0; n],
            pos: vec![0; n],
            size: 0,
        }
    }

    fn place(&mut self, at: usize, key: u64, item: u32) {
        self.keys[at] = key;
        self.items[at] = item;
        self.pos[item as usize] = at as u32;
    }

    /// `heap_down`.
    fn down(&mut self, index: usize) {
        let (key, item) = (self.keys[index], self.items[index]);
        let mut parent = index;
        let mut swapped = false;
        while parent * Self::D + 1 < self.size {
            let first = parent * Self::D + 1;
            let mut swap = first;
            for child in first + 1..(first + Self::D).min(self.size) {
                if self.keys[child] <= self.keys[swap] {
                    swap = child;
                }
            }
            if key > self.keys[swap] {
                self.place(parent, self.keys[swap], self.items[swap]);
                parent = swap;
                swapped = true;
            } else {
                break;
            }
        }
        if swapped {
            self.place(parent, key, item);
        }
    }

    /// `heap_up`.
    fn up(&mut self, index: usize) {
        if index == 0 {
            return;
        }
        let (key, item) = (self.keys[index], self.items[index]);
        let mut parent = index;
        let mut target = 0;
        let mut swapped = false;
        loop {
            let child = parent;
            parent = (child - 1) / Self::D;
            if key < self.keys[parent] {
                self.place(child, self.keys[parent], self.items[parent]);
                target = parent;
                swapped = true;
            } else {
                break;
            }
            if parent == 0 {
                break;
            }
        }
        if swapped {
            self.place(target, key, item);
        }
    }

    /// `cl_heap_insert`.
    fn insert(&mut self, key: u64, item: u32) {
        let at = self.size;
        self.place(at, key, item);
        self.size += 1;
        self.up(at);
    }

    /// `cl_heap_modify_key` of `item`.
    fn modify(&mut self, item: u32, key: u64) {
        let index = self.pos[item as usize] as usize;
        let old = self.keys[index];
        self.keys[index] = key;
        if key < old {
            self.up(index);
        } else if key > old {
            self.down(index);
        }
    }

    /// `cl_heap_extract_root`: the last element replaces the root, which sinks.
    fn pop(&mut self) -> Option<u32> {
        match self.size {
            0 => None,
            1 => {
                self.size = 0;
                Some(self.items[0])
            }
            _ => {
                self.size -= 1;
                let last = self.size;
                let (key, item) = (self.keys[last], self.items[last]);
                let (root_key, root) = (self.keys[0], self.items[0]);
                self.place(last, root_key, root);
                self.place(0, key, item);
                self.down(0);
                Some(root)
            }
        }
    }
}

/// OpenSM's sssp, see the module documentation. Vertex 0 is the destination host,
/// vertices 1..=S the switches in GUID order; links are the switch-to-switch edges
/// leaving each switch in port order, each carrying the weight of its reverse (the
/// direction the routes it forms travel).
fn sssp(topo: &Topo<'_>) -> Result<Vec<u16>, EngineError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let nsw = topo.switches.len();
    let nv = nsw + 1;
    // Links: CSR by vertex; (to vertex, traffic edge = LFT entry at `to`).
    let mut link_start = vec![0u32; nv + 1];
    let mut link_to: Vec<u32> = Vec::new();
    let mut link_edge: Vec<u32> = Vec::new();
    // Hosts (+1 for the switch itself) per vertex: the weight a route from it adds.
    let mut num_hca = vec![0u64; nv];
    for (i, &s) in topo.switches.iter().enumerate() {
        num_hca[i + 1] = 1;
        for &e in topo.ports(s) {
            let y = f.edge_head[e as usize];
            if y == s {
                continue;
            }
            if !topo.is_switch[y as usize] {
                num_hca[i + 1] += 1;
            } else if topo.rev[e as usize] != NONE {
                link_to.push(topo.sw_index[y as usize] + 1);
                link_edge.push(topo.rev[e as usize]);
            }
        }
        link_start[i + 2] = link_to.len() as u32;
    }
    let host_ports: u64 = f.hosts.iter().map(|&v| f.out_edges(v).len() as u64).sum();
    let p = host_ports + nsw as u64;
    let mut weight = vec![p * p; link_to.len()];
    let sources = topo.source_switches();

    let mut rows = vec![NO_PORT; nsw * hosts];
    let mut dist = vec![FAR; nv];
    let mut done = vec![false; nv];
    // Per vertex: the link it was reached through, NONE, or HOST_LINK.
    let mut used = vec![NONE; nv];
    const HOST_LINK: u32 = u32::MAX - 1;
    let mut pop_order: Vec<u32> = Vec::with_capacity(nv);
    let mut acc = vec![0u64; nv];
    let mut heap = Heap::new(nv);
    for h in topo.destination_order() {
        let t = topo.attach[h as usize];
        let tv = topo.sw_index[t as usize] + 1;
        dist.iter_mut().for_each(|d| *d = FAR);
        done.iter_mut().for_each(|d| *d = false);
        used.iter_mut().for_each(|u| *u = NONE);
        heap.size = 0;
        for v in 1..nv as u32 {
            heap.insert(FAR, v);
        }
        heap.insert(FAR, 0);
        dist[0] = 0;
        done[0] = true;
        heap.modify(0, 0);
        pop_order.clear();
        while let Some(cur) = heap.pop() {
            done[cur as usize] = true;
            pop_order.push(cur);
            let dc = dist[cur as usize];
            if cur == 0 {
                // The host's link to its switch, weight 1.
                if !done[tv as usize] && dc + 1 < dist[tv as usize] {
                    used[tv as usize] = HOST_LINK;
                    dist[tv as usize] = dc + 1;
                    heap.modify(tv, dc + 1);
                }
                continue;
            }
            for l in link_start[cur as usize]..link_start[cur as usize + 1] {
                let to = link_to[l as usize];
                let nd = dc.saturating_add(weight[l as usize]);
                if !done[to as usize] && nd < dist[to as usize] {
                    used[to as usize] = l;
                    dist[to as usize] = nd;
                    heap.modify(to, nd);
                }
            }
        }
        // Next hops: the reverse of the link each switch was reached through.
        for i in 0..nsw {
            let l = used[i + 1];
            let s = topo.switches[i];
            let e = match l {
                NONE => {
                    if sources[i] {
                        return Err(topo.unroutable("sssp", s, h));
                    }
                    continue;
                }
                HOST_LINK => topo.deliver[h as usize],
                l => link_edge[l as usize],
            };
            rows[i * hosts + h as usize] = (e - f.out_start[s as usize]) as u16;
        }
        // Weights: every link gets the hosts (+1) of all switches routed across it.
        acc.iter_mut().for_each(|a| *a = 0);
        for &v in pop_order.iter().rev() {
            let l = used[v as usize];
            if l == NONE || v == 0 {
                continue;
            }
            acc[v as usize] += num_hca[v as usize];
            if l == HOST_LINK {
                continue;
            }
            weight[l as usize] += acc[v as usize];
            let from = link_from(&link_start, l);
            acc[from as usize] += acc[v as usize];
        }
    }
    Ok(rows)
}

/// The vertex a link leaves (binary search in the link CSR).
fn link_from(link_start: &[u32], l: u32) -> u32 {
    (link_start.partition_point(|&s| s <= l) - 1) as u32
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
        }
    }

    #[test]
    fn guid_names() {
        assert_eq!(guid_of_name("S0000000000200004"), Some(0x200004));
        assert_eq!(guid_of_name("S000000000020000"), None);
        assert_eq!(guid_of_name("X0000000000200004"), None);
        assert_eq!(guid_of_name("S1_12"), None);
    }

    #[test]
    fn switches_follow_opensms_guid_map_order() {
        // OpenSM's switch map is keyed by the GUID in network byte order, compared as a
        // little-endian u64: the lowest byte decides first.
        let names = [
            "S0000000000000100",
            "S0000000000000001",
            "S0000000000000201",
        ];
        let f = Fabric {
            node_names: names.iter().map(|n| n.to_string()).collect(),
            host_of_node: vec![NONE; 3],
            out_start: vec![0; 4],
            ..Fabric::default()
        };
        let topo = Topo::new(&f).unwrap();
        assert_eq!(topo.switches, vec![0, 1, 2]);
        assert_eq!(topo.id, vec![0x100, 0x1, 0x201]);
        // Without GUID names, node order.
        let f = Fabric {
            node_names: vec!["S1_0".into(), "S0_0".into()],
            host_of_node: vec![NONE; 2],
            out_start: vec![0; 3],
            ..Fabric::default()
        };
        assert_eq!(Topo::new(&f).unwrap().switches, vec![0, 1]);
    }

    #[test]
    fn updn_directions_follow_opensm() {
        assert!(updn_dir(0, 0, 1, 2) == Dir::Up);
        assert!(updn_dir(1, 2, 0, 0) == Dir::Down);
        assert!(updn_dir(2, 1, 0, 0) == Dir::Up);
        assert!(updn_dir(2, 2, 5, 3) == Dir::Up);
        assert!(updn_dir(2, 2, 3, 5) == Dir::Down);
        assert!(dnup_dir(0, 0) == Dir::Equal);
    }
}
