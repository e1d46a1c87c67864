//! Topology generators: fat trees (k-ary n-trees, XGFTs, slimmed two-level trees),
//! meshes and tori, hypercubes, HyperX, dragonflies and Jellyfish random regular graphs.
//!
//! Every generator returns a [`Generated`] fabric without routing. The conventions are
//! the same everywhere:
//!
//! * **Node order:** all hosts first (host `i` is node `i`), then the switches in the
//!   order the generator's documentation gives (level by level for trees, by index
//!   otherwise).
//! * **Names:** hosts are `H` plus the zero-padded decimal host index, five digits wide
//!   (`H00000`, `H00001`, ...; wider when there are 100 000 hosts or more). ORCS reads a
//!   host name's GUID as hex, and fixed-width decimal digits sort the same way as numbers
//!   and as hex, so GUID order is host order. Switches are `S<level>_<index>` in trees
//!   (level 0 = leaves), `S<c0>_<c1>_...` (their coordinates) in meshes, tori, hypercubes
//!   and HyperX, `R<group>_<router>` in dragonflies and `S<i>` in Jellyfish. No switch
//!   name starts with `H`.
//! * **Ports:** every cable joins one port at each end; ports are numbered from 1 per
//!   node, hosts have a single port (1), and a switch's host ports come first
//!   (`1..=hosts_per_switch`). Each cable becomes two directed edges whose `key` is the
//!   port number at the edge's tail, as in an ibsim net file or an `ibnetdiscover` dump.
//!   Edges are numbered the ORCS way (by tail, then head node, then creation order), so
//!   parallel cables between two switches appear in port order.
//! * **Limits:** at most [`MAX_NODES`] nodes, [`MAX_EDGES`] directed edges and
//!   [`MAX_PORTS`] ports per node; larger requests fail with [`GenError::TooLarge`] before
//!   anything is allocated. Impossible parameters fail with [`GenError::Parameter`],
//!   naming the parameter (as [`generate`] spells it) and its valid range. No parameter
//!   makes a generator panic.
//!
//! Building a fabric costs O(nodes + edges) time and memory, plus a sort of the edges
//! (O(edges log edges)); Jellyfish adds its randomised construction (see [`jellyfish`]).

use super::{Generated, Structure};
use crate::fabric::dot::Comment;
use crate::fabric::{EdgeComments, Fabric, NONE};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt;
use std::str::FromStr;

/// Largest number of nodes (hosts and switches) a generator builds.
pub const MAX_NODES: u64 = 1 << 24;

/// Largest number of directed edges (two per cable) a generator builds.
pub const MAX_EDGES: u64 = 1 << 26;

/// Largest number of ports on one node. Forwarding tables store a switch's ports as
/// 16-bit local indices, so a node may have at most 65 534 links.
pub const MAX_PORTS: u64 = 65_534;

/// Most dimensions of a mesh, torus, hypercube or HyperX, and most levels of a tree.
pub const MAX_DIMENSIONS: usize = 32;

/// Why a generator could not build a fabric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenError {
    /// A parameter outside its valid range.
    #[error("{generator}: {parameter} = {value} is invalid: {valid}")]
    Parameter {
        /// The generator, as [`generate`] names it (`kary-ntree`, `torus`, ...).
        generator: &'static str,
        /// The parameter, as [`generate`] spells it (`k`, `dims`, `hosts`, ...).
        parameter: &'static str,
        /// The value given.
        value: String,
        /// The valid range or rule.
        valid: String,
    },
    /// The fabric would exceed one of the size limits.
    #[error("{generator}: the fabric would have {count} {what}, more than the limit of {limit}")]
    TooLarge {
        /// The generator.
        generator: &'static str,
        /// What is too many (`nodes`, `directed edges`, `ports on one node`).
        what: &'static str,
        /// How many there would be (saturated at `u128::MAX`).
        count: u128,
        /// The limit.
        limit: u64,
    },
    /// A generator spec that cannot be parsed (see [`generate`]).
    #[error("generator spec {spec:?}: {message}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong, with what is accepted.
        message: String,
    },
    /// A randomised construction that did not succeed.
    #[error("{generator}: {message}")]
    Construction {
        /// The generator.
        generator: &'static str,
        /// What failed.
        message: String,
    },
}

fn bad(
    generator: &'static str,
    parameter: &'static str,
    value: impl fmt::Display,
    valid: &str,
) -> GenError {
    GenError::Parameter {
        generator,
        parameter,
        value: value.to_string(),
        valid: valid.to_string(),
    }
}

/// Product of `values` in u128, saturating.
fn product(values: impl IntoIterator<Item = u128>) -> u128 {
    values.into_iter().fold(1u128, |a, b| a.saturating_mul(b))
}

/// Checks the size limits for a fabric with `nodes` nodes, `cables` cables and at most
/// `ports` ports on one node.
fn check_size(
    generator: &'static str,
    nodes: u128,
    cables: u128,
    ports: u128,
) -> Result<(), GenError> {
    let too_large = |what, count, limit| GenError::TooLarge {
        generator,
        what,
        count,
        limit,
    };
    if nodes > MAX_NODES as u128 {
        return Err(too_large("nodes", nodes, MAX_NODES));
    }
    let edges = cables.saturating_mul(2);
    if edges > MAX_EDGES as u128 {
        return Err(too_large("directed edges", edges, MAX_EDGES));
    }
    if ports > MAX_PORTS as u128 {
        return Err(too_large("ports on one node", ports, MAX_PORTS));
    }
    Ok(())
}

/// Collects nodes and cables, then lays them out as a [`Fabric`].
struct Builder {
    names: Vec<String>,
    is_host: Vec<bool>,
    /// Directed edges: (tail, head, port at the tail), in creation order.
    edges: Vec<(u32, u32, u32)>,
}

impl Builder {
    fn new(nodes: usize, cables: usize) -> Self {
        Builder {
            names: Vec::with_capacity(nodes),
            is_host: Vec::with_capacity(nodes),
            edges: Vec::with_capacity(2 * cables),
        }
    }

    /// Adds `count` hosts named `H` + zero-padded decimal index (nodes `0..count` when
    /// called first).
    fn hosts(&mut self, count: u32) {
        let width = host_name_width(count);
        for i in 0..count {
            self.names.push(format!("H{i:0width$}"));
            self.is_host.push(true);
        }
    }

    /// Adds a switch and returns its node id.
    fn switch(&mut self, name: String) -> u32 {
        self.names.push(name);
        self.is_host.push(false);
        (self.names.len() - 1) as u32
    }

    /// Adds a cable between port `port_a` of `a` and port `port_b` of `b`.
    fn cable(&mut self, a: u32, port_a: u32, b: u32, port_b: u32) {
        self.edges.push((a, b, port_a));
        self.edges.push((b, a, port_b));
    }

    /// The fabric: edges sorted by (tail, head) with creation order kept among parallel
    /// edges (a stable sort), keys = ports, no routing comments.
    fn finish(mut self) -> Fabric {
        let n = self.names.len();
        self.edges.sort_by_key(|&(tail, head, _)| (tail, head));
        let mut out_start = vec![0u32; n + 1];
        for &(tail, _, _) in &self.edges {
            out_start[tail as usize + 1] += 1;
        }
        for v in 0..n {
            out_start[v + 1] += out_start[v];
        }
        let mut hosts = Vec::new();
        let mut host_of_node = vec![NONE; n];
        for (v, &h) in self.is_host.iter().enumerate() {
            if h {
                host_of_node[v] = hosts.len() as u32;
                hosts.push(v as u32);
            }
        }
        let m = self.edges.len();
        Fabric {
            graph_id: None,
            graph_attrs: Vec::new(),
            node_lines: vec![0; n],
            node_attrs: vec![Vec::new(); n],
            node_names: self.names,
            hosts,
            host_of_node,
            out_start,
            edge_tail: self.edges.iter().map(|e| e.0).collect(),
            edge_head: self.edges.iter().map(|e| e.1).collect(),
            edge_lines: vec![0; m],
            edge_keys: self.edges.iter().map(|e| Some(e.2.to_string())).collect(),
            edge_attrs: vec![Vec::new(); m],
            edge_comments: EdgeComments {
                kinds: vec![Comment::Absent; m],
                ..EdgeComments::default()
            },
        }
    }
}

/// Digits in a host name: 5, or more when the largest index needs them.
fn host_name_width(hosts: u32) -> usize {
    let last = hosts.saturating_sub(1);
    (last.checked_ilog10().unwrap_or(0) as usize + 1).max(5)
}

/// `S<c0>_<c1>_...`
fn coord_name(coords: &[u32]) -> String {
    let parts: Vec<String> = coords.iter().map(u32::to_string).collect();
    format!("S{}", parts.join("_"))
}

fn join_x(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

// ---------------------------------------------------------------------------------------
// Fat trees
// ---------------------------------------------------------------------------------------

/// A k-ary n-tree: `k^n` hosts, `n` levels of `k^(n-1)` switches with `2k` ports.
///
/// The layout is exactly the one of the reference fabrics in
/// `../shared/fabrics/orcs/` (their PROVENANCE.md, step 1): switch `(l, j)` is named
/// `S<l>_<j>` (level 0 = leaves, `j` in `0..k^(n-1)`); host `h` is on `S0_<h div k>` port
/// `h mod k + 1`; up-port `k + 1 + u` of switch `(l, j)` leads to switch `(l + 1, j')`,
/// where `j'` is `j` with its base-k digit `l` replaced by `u`, arriving at down-port
/// (digit `l` of `j`) + 1. The top level's up-ports are unused. Node order: hosts, then
/// the switches level by level in index order.
///
/// It is [`xgft`] with `m = (k, ..., k)` and `w = (1, k, ..., k)`, the same fabric.
/// `k ≥ 2`, `n ≥ 1`. O(n k^n).
pub fn kary_ntree(k: u32, n: u32) -> Result<Generated, GenError> {
    const G: &str = "kary-ntree";
    if k < 2 {
        return Err(bad(G, "k", k, "k must be at least 2"));
    }
    if n < 1 || n as usize > MAX_DIMENSIONS {
        return Err(bad(
            G,
            "n",
            n,
            &format!("n must be in 1..={MAX_DIMENSIONS}"),
        ));
    }
    let m = vec![k; n as usize];
    let mut w = vec![k; n as usize];
    w[0] = 1;
    let mut g = build_xgft(G, &m, &w)?;
    g.description = format!(
        "kary-ntree:k={k},n={n} ({k}-ary {n}-tree: {} hosts, {} switches of {} ports)",
        g.fabric.num_hosts(),
        g.fabric.num_switches(),
        2 * k as u64
    );
    Ok(g)
}

/// An extended generalized fat tree XGFT(h; m1..mh; w1..wh) (Öhring et al.): `h = m.len()`
/// switch levels, `prod(m)` hosts; a node at level `l` (hosts are level 0) has `m[l]`
/// children and `w[l]` parents (`m[i]`, `w[i]` 0-based). `w[0]` must be 1: hosts have one
/// port. All `m[i]`, `w[i]` ≥ 1, `1 ≤ h ≤ 32`.
///
/// Layout (it generalises [`kary_ntree`]): switch level `l` (0 = leaves) has
/// `w[1]⋯w[l] · m[l+1]⋯m[h-1]` switches `S<l>_<j>`. The index `j` is a mixed-radix number
/// with `h - 1` digits, least significant first: digit `p` has radix `w[p+1]` below
/// position `l` (which copy of the subtree) and `m[p+1]` from position `l` on (which
/// subtree). Host `x` is on leaf `x div m[0]`, port `x mod m[0] + 1`. A level-`l` switch
/// has down-ports `1..=m[l]` and up-ports `m[l] + 1 + u` for `u < w[l+1]`; up-port `u`
/// leads to the level-`l+1` switch whose index has digit `l` replaced by `u` (the radix
/// of that digit changes from `m[l+1]` to `w[l+1]`), arriving at its down-port
/// (digit `l` of `j`) + 1. Every switch of level `l` sees the hosts
/// `A·M .. (A+1)·M - 1` below it, with `M = m[0]⋯m[l]` and `A = j div (w[1]⋯w[l])`.
/// O(nodes + edges).
pub fn xgft(m: &[u32], w: &[u32]) -> Result<Generated, GenError> {
    const G: &str = "xgft";
    let list = |v: &[u32]| join_x(v);
    if m.is_empty() || m.len() > MAX_DIMENSIONS {
        return Err(bad(
            G,
            "m",
            list(m),
            &format!("give 1..={MAX_DIMENSIONS} values (one per level)"),
        ));
    }
    if w.len() != m.len() {
        return Err(bad(
            G,
            "w",
            list(w),
            &format!("give as many values as m has ({})", m.len()),
        ));
    }
    if m.contains(&0) {
        return Err(bad(G, "m", list(m), "every m must be at least 1"));
    }
    if w.contains(&0) {
        return Err(bad(G, "w", list(w), "every w must be at least 1"));
    }
    if w[0] != 1 {
        return Err(bad(
            G,
            "w",
            list(w),
            "w1 must be 1 (hosts have a single port)",
        ));
    }
    let mut g = build_xgft(G, m, w)?;
    let max_ports = (0..m.len())
        .map(|l| m[l] as u64 + w.get(l + 1).copied().unwrap_or(0) as u64)
        .max()
        .unwrap_or(0);
    g.description = format!(
        "xgft:m={},w={} (XGFT({}; {}; {}): {} hosts, {} switches, up to {} ports)",
        list(m),
        list(w),
        m.len(),
        m.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
        w.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
        g.fabric.num_hosts(),
        g.fabric.num_switches(),
        max_ports
    );
    Ok(g)
}

/// Builds a validated XGFT (see [`xgft`]).
fn build_xgft(generator: &'static str, m: &[u32], w: &[u32]) -> Result<Generated, GenError> {
    let h = m.len();
    let hosts = product(m.iter().map(|&x| x as u128));
    // Switches per level.
    let count: Vec<u128> = (0..h)
        .map(|l| product(w[..=l].iter().chain(&m[l + 1..]).map(|&x| x as u128)))
        .collect();
    let switches: u128 = count.iter().fold(0u128, |a, &b| a.saturating_add(b));
    let cables = (0..h.saturating_sub(1)).fold(hosts, |a, l| {
        a.saturating_add(count[l].saturating_mul(w[l + 1] as u128))
    });
    let ports = (0..h)
        .map(|l| m[l] as u128 + w.get(l + 1).copied().unwrap_or(0) as u128)
        .max()
        .unwrap_or(0);
    check_size(generator, hosts.saturating_add(switches), cables, ports)?;
    let count: Vec<u32> = count.iter().map(|&c| c as u32).collect();
    let n_hosts = hosts as u32;

    let mut b = Builder::new((hosts + switches) as usize, cables as usize);
    b.hosts(n_hosts);
    let mut base = Vec::with_capacity(h);
    let mut level = vec![0u32; n_hosts as usize];
    let mut index: Vec<u32> = (0..n_hosts).collect();
    for (l, &c) in count.iter().enumerate() {
        base.push(b.names.len() as u32);
        for j in 0..c {
            b.switch(format!("S{l}_{j}"));
            level.push(l as u32 + 1);
            index.push(j);
        }
    }
    for x in 0..n_hosts {
        b.cable(x, 1, base[0] + x / m[0], x % m[0] + 1);
    }
    for l in 0..h.saturating_sub(1) {
        // Place value of digit l (the product of the copy radices below it).
        let low_radix: u32 = w[1..=l].iter().product();
        for j in 0..count[l] {
            let low = j % low_radix;
            let digit = (j / low_radix) % m[l + 1];
            let high = j / low_radix / m[l + 1];
            for u in 0..w[l + 1] {
                let parent = low + low_radix * (u + w[l + 1] * high);
                b.cable(base[l] + j, m[l] + 1 + u, base[l + 1] + parent, digit + 1);
            }
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Tree {
            levels: h as u32,
            level,
            index,
            m: m.to_vec(),
            w: w.to_vec(),
        },
        description: String::new(),
    })
}

/// A slimmed (oversubscribed) two-level fat tree in the Nienaber/Yuan sense: `leaves`
/// leaf switches with `hosts_per_leaf` hosts and `uplinks` uplinks each, spread over
/// `spines` spine switches.
///
/// Uplink `t` (0-based) of leaf `i` goes to spine `t mod spines`; `uplinks` must be a
/// multiple of `spines`, so every leaf reaches every spine through
/// `c = uplinks / spines` parallel cables. Leaf `i` is `S0_<i>` with host ports
/// `1..=hosts_per_leaf` (host `x` on leaf `x div hosts_per_leaf`, port
/// `x mod hosts_per_leaf + 1`) and uplink `t` on port `hosts_per_leaf + 1 + t`; spine `s`
/// is `S1_<s>` with `leaves · c` ports, its cable from uplink `t` of leaf `i` on port
/// `1 + i·c + t div spines`. The oversubscription is `hosts_per_leaf : uplinks`.
/// With `spines = uplinks` this is XGFT(2; hosts_per_leaf, leaves; 1, uplinks), the very
/// fabric [`xgft`] builds; the [`Structure::Tree`] records `m = (hosts_per_leaf, leaves)`
/// and `w = (1, uplinks)` in every case. All parameters ≥ 1. O(nodes + edges).
pub fn slimmed_two_level(
    hosts_per_leaf: u32,
    leaves: u32,
    uplinks: u32,
    spines: u32,
) -> Result<Generated, GenError> {
    const G: &str = "slimmed";
    for (name, v) in [
        ("leaf_hosts", hosts_per_leaf),
        ("leaves", leaves),
        ("uplinks", uplinks),
        ("spines", spines),
    ] {
        if v == 0 {
            return Err(bad(G, name, v, &format!("{name} must be at least 1")));
        }
    }
    if uplinks % spines != 0 {
        return Err(bad(
            G,
            "spines",
            spines,
            &format!("uplinks ({uplinks}) must be a multiple of spines, so that every leaf reaches every spine"),
        ));
    }
    let c = uplinks / spines;
    let hosts = hosts_per_leaf as u128 * leaves as u128;
    let cables = hosts + leaves as u128 * uplinks as u128;
    let ports = (hosts_per_leaf as u128 + uplinks as u128).max(leaves as u128 * c as u128);
    check_size(G, hosts + leaves as u128 + spines as u128, cables, ports)?;

    let mut b = Builder::new(
        (hosts + leaves as u128 + spines as u128) as usize,
        cables as usize,
    );
    b.hosts(hosts as u32);
    let leaf0 = b.names.len() as u32;
    let mut level = vec![0u32; hosts as usize];
    let mut index: Vec<u32> = (0..hosts as u32).collect();
    for i in 0..leaves {
        b.switch(format!("S0_{i}"));
        level.push(1);
        index.push(i);
    }
    let spine0 = b.names.len() as u32;
    for s in 0..spines {
        b.switch(format!("S1_{s}"));
        level.push(2);
        index.push(s);
    }
    for x in 0..hosts as u32 {
        b.cable(x, 1, leaf0 + x / hosts_per_leaf, x % hosts_per_leaf + 1);
    }
    for i in 0..leaves {
        for t in 0..uplinks {
            b.cable(
                leaf0 + i,
                hosts_per_leaf + 1 + t,
                spine0 + t % spines,
                1 + i * c + t / spines,
            );
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Tree {
            levels: 2,
            level,
            index,
            m: vec![hosts_per_leaf, leaves],
            w: vec![1, uplinks],
        },
        description: format!(
            "slimmed:leaf_hosts={hosts_per_leaf},leaves={leaves},uplinks={uplinks},spines={spines} \
             (slimmed two-level fat tree: {hosts} hosts, {leaves} leaves, {spines} spines, \
             {c} cable(s) per leaf and spine, oversubscription {hosts_per_leaf}:{uplinks})"
        ),
    })
}

// ---------------------------------------------------------------------------------------
// Meshes, tori, hypercubes, HyperX
// ---------------------------------------------------------------------------------------

/// Coordinates of switch `s` (dimension 0 varies fastest).
fn coords_of(mut s: u32, dims: &[u32]) -> Vec<u32> {
    dims.iter()
        .map(|&d| {
            let c = s % d;
            s /= d;
            c
        })
        .collect()
}

fn check_dims(
    generator: &'static str,
    dims: &[u32],
    hosts_per_switch: u32,
) -> Result<(), GenError> {
    if dims.is_empty() || dims.len() > MAX_DIMENSIONS {
        return Err(bad(
            generator,
            "dims",
            join_x(dims),
            &format!("give 1..={MAX_DIMENSIONS} dimensions"),
        ));
    }
    if dims.contains(&0) {
        return Err(bad(
            generator,
            "dims",
            join_x(dims),
            "every dimension must be at least 1",
        ));
    }
    if hosts_per_switch == 0 {
        return Err(bad(
            generator,
            "hosts",
            0,
            "hosts per switch must be at least 1",
        ));
    }
    Ok(())
}

/// Builds the switches and hosts of a grid (shared by mesh/torus, hypercube, HyperX);
/// returns the builder, the switches' first node id and the per-node coordinates.
fn grid_nodes(dims: &[u32], hosts_per_switch: u32, cables: u128) -> (Builder, u32, Vec<Vec<u32>>) {
    let switches: u32 = dims.iter().product();
    let hosts = switches * hosts_per_switch;
    let mut b = Builder::new((switches + hosts) as usize, cables as usize);
    b.hosts(hosts);
    let first = b.names.len() as u32;
    let mut coords = Vec::with_capacity((switches + hosts) as usize);
    for x in 0..hosts {
        coords.push(coords_of(x / hosts_per_switch, dims));
    }
    for s in 0..switches {
        let c = coords_of(s, dims);
        b.switch(coord_name(&c));
        coords.push(c);
    }
    for x in 0..hosts {
        b.cable(x, 1, first + x / hosts_per_switch, x % hosts_per_switch + 1);
    }
    (b, first, coords)
}

/// An n-dimensional mesh (`wrap = false`) or torus (`wrap = true`) of switches with
/// `hosts_per_switch` hosts each; `dims` gives the radix of each dimension (1 to 32
/// dimensions, each ≥ 1).
///
/// Switch `s` has coordinates `c` with `s = c0 + d0·(c1 + d1·(c2 + ...))` (dimension 0
/// varies fastest) and is named `S<c0>_<c1>_...`; switches follow hosts in index order.
/// Host `x` is on switch `x div hosts_per_switch`, port `x mod hosts_per_switch + 1`.
/// In dimension `i` a switch links its `+` port `hosts_per_switch + 2i + 2` to the `-`
/// port `hosts_per_switch + 2i + 1` of its neighbour with `c_i + 1`; in a torus the
/// switch with `c_i = d_i - 1` links its `+` port to the `-` port of the switch with
/// `c_i = 0`. A torus dimension of radix 1 or 2 has no wraparound cable (with radix 2 it
/// would duplicate the mesh cable), so it is a mesh dimension, and the structure's
/// `wrap` flag says so. Ports of missing neighbours (mesh borders) stay unused.
/// O(nodes + edges).
pub fn grid(dims: &[u32], wrap: bool, hosts_per_switch: u32) -> Result<Generated, GenError> {
    let generator = if wrap { "torus" } else { "mesh" };
    check_dims(generator, dims, hosts_per_switch)?;
    let switches = product(dims.iter().map(|&d| d as u128));
    let hosts = switches.saturating_mul(hosts_per_switch as u128);
    let wraps: Vec<bool> = dims.iter().map(|&d| wrap && d >= 3).collect();
    let links = dims.iter().zip(&wraps).fold(0u128, |a, (&d, &wr)| {
        let per_dim = if wr {
            switches
        } else {
            switches / d as u128 * (d as u128 - 1)
        };
        a.saturating_add(per_dim)
    });
    let ports = hosts_per_switch as u128 + 2 * dims.len() as u128;
    check_size(
        generator,
        switches.saturating_add(hosts),
        hosts.saturating_add(links),
        ports,
    )?;

    let (mut b, first, coords) = grid_nodes(dims, hosts_per_switch, hosts + links);
    let mut stride = 1u32;
    let mut strides = Vec::with_capacity(dims.len());
    for &d in dims {
        strides.push(stride);
        stride *= d;
    }
    for s in 0..switches as u32 {
        let c = &coords[(first + s) as usize];
        for (i, &d) in dims.iter().enumerate() {
            let plus = hosts_per_switch + 2 * i as u32 + 2;
            let minus = plus - 1;
            if c[i] + 1 < d {
                b.cable(first + s, plus, first + s + strides[i], minus);
            } else if wraps[i] {
                b.cable(first + s, plus, first + s - (d - 1) * strides[i], minus);
            }
        }
    }
    let kind = if wrap { "torus" } else { "mesh" };
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Grid {
            dims: dims.to_vec(),
            wrap: wraps,
            coords,
            all_to_all: false,
        },
        description: format!(
            "{kind}:dims={},hosts={hosts_per_switch} ({} {kind}: {hosts} hosts, {switches} switches)",
            join_x(dims),
            join_x(dims),
        ),
    })
}

/// A hypercube of `2^dimension` switches (1 ≤ dimension ≤ 24) with `hosts_per_switch`
/// hosts each.
///
/// Switch `s` has coordinates = the bits of `s` (bit 0 first) and is named
/// `S<b0>_<b1>_...`; hosts are attached as in [`grid`]. Port
/// `hosts_per_switch + 1 + i` links to the switch that differs in bit `i`. The structure
/// is a [`Structure::Grid`] with every radix 2 and no wraparound. O(nodes + edges).
pub fn hypercube(dimension: u32, hosts_per_switch: u32) -> Result<Generated, GenError> {
    const G: &str = "hypercube";
    if !(1..=24).contains(&dimension) {
        return Err(bad(G, "d", dimension, "the dimension must be in 1..=24"));
    }
    if hosts_per_switch == 0 {
        return Err(bad(G, "hosts", 0, "hosts per switch must be at least 1"));
    }
    let dims = vec![2u32; dimension as usize];
    let switches = 1u128 << dimension;
    let hosts = switches * hosts_per_switch as u128;
    let links = switches / 2 * dimension as u128;
    check_size(
        G,
        switches + hosts,
        hosts + links,
        hosts_per_switch as u128 + dimension as u128,
    )?;
    let (mut b, first, coords) = grid_nodes(&dims, hosts_per_switch, hosts + links);
    for s in 0..switches as u32 {
        for i in 0..dimension {
            if s & (1 << i) == 0 {
                let port = hosts_per_switch + 1 + i;
                b.cable(first + s, port, first + (s | (1 << i)), port);
            }
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Grid {
            wrap: vec![false; dims.len()],
            dims,
            coords,
            all_to_all: false,
        },
        description: format!(
            "hypercube:d={dimension},hosts={hosts_per_switch} ({dimension}-dimensional hypercube: {hosts} hosts, {switches} switches)"
        ),
    })
}

/// A HyperX: switches on a grid of radices `dims` (1 to 32 dimensions, each ≥ 1), every
/// switch linked to every other switch that differs in exactly one coordinate, with
/// `hosts_per_switch` hosts each.
///
/// Switches are numbered and named as in [`grid`]. In dimension `i` a switch with
/// coordinate `c_i` reaches the switch with coordinate `v ≠ c_i` through port
/// `hosts_per_switch + 1 + o_i + (v if v < c_i else v - 1)`, where
/// `o_i = (d_0 - 1) + ... + (d_{i-1} - 1)`. O(nodes + edges).
pub fn hyperx(dims: &[u32], hosts_per_switch: u32) -> Result<Generated, GenError> {
    const G: &str = "hyperx";
    check_dims(G, dims, hosts_per_switch)?;
    let switches = product(dims.iter().map(|&d| d as u128));
    let hosts = switches.saturating_mul(hosts_per_switch as u128);
    let links = dims.iter().fold(0u128, |a, &d| {
        a.saturating_add(switches.saturating_mul(d as u128 - 1) / 2)
    });
    let degree: u128 = dims.iter().map(|&d| d as u128 - 1).sum();
    check_size(
        G,
        switches.saturating_add(hosts),
        hosts.saturating_add(links),
        hosts_per_switch as u128 + degree,
    )?;
    let (mut b, first, coords) = grid_nodes(dims, hosts_per_switch, hosts + links);
    let mut offsets = Vec::with_capacity(dims.len());
    let mut strides = Vec::with_capacity(dims.len());
    let (mut offset, mut stride) = (0u32, 1u32);
    for &d in dims {
        offsets.push(offset);
        strides.push(stride);
        offset += d - 1;
        stride *= d;
    }
    let port = |i: usize, own: u32, other: u32| {
        hosts_per_switch + 1 + offsets[i] + if other < own { other } else { other - 1 }
    };
    for s in 0..switches as u32 {
        let c = coords[(first + s) as usize].clone();
        for (i, &d) in dims.iter().enumerate() {
            for v in c[i] + 1..d {
                let t = s + (v - c[i]) * strides[i];
                b.cable(first + s, port(i, c[i], v), first + t, port(i, v, c[i]));
            }
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Grid {
            dims: dims.to_vec(),
            wrap: vec![false; dims.len()],
            coords,
            all_to_all: true,
        },
        description: format!(
            "hyperx:dims={},hosts={hosts_per_switch} ({} HyperX: {hosts} hosts, {switches} switches)",
            join_x(dims),
            join_x(dims)
        ),
    })
}

// ---------------------------------------------------------------------------------------
// Dragonfly
// ---------------------------------------------------------------------------------------

/// How a dragonfly's global links are arranged.
///
/// Each of the `g = a·h + 1` groups has `a·h` global ports, numbered `gp = r·h + k` for
/// the `k`-th global port of router `r`; every pair of groups is joined by exactly one
/// global cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalArrangement {
    /// Also called "consecutive": global port `gp` of group `G` leads to group `gp` if
    /// `gp < G`, else `gp + 1` (the other groups in increasing order).
    Absolute,
    /// Global port `gp` of group `G` leads to group `(G + gp + 1) mod g`; it arrives at
    /// global port `g - 2 - gp` there.
    Relative,
    /// Global ports pair up around the circle: even `gp` leads to group
    /// `(G + gp/2 + 1) mod g` and arrives at its port `gp + 1`; odd `gp` leads to group
    /// `(G - (gp-1)/2 - 1) mod g` and arrives at its port `gp - 1`. Needs `a·h` even.
    Circulant,
}

impl GlobalArrangement {
    /// The name [`generate`] uses (`absolute`, `relative`, `circulant`).
    pub fn name(self) -> &'static str {
        match self {
            GlobalArrangement::Absolute => "absolute",
            GlobalArrangement::Relative => "relative",
            GlobalArrangement::Circulant => "circulant",
        }
    }

    /// Group and global port at the far end of global port `gp` of group `group`, with
    /// `groups` groups.
    fn peer(self, group: u32, gp: u32, groups: u32) -> (u32, u32) {
        match self {
            GlobalArrangement::Absolute => {
                let t = if gp < group { gp } else { gp + 1 };
                (t, if group < t { group } else { group - 1 })
            }
            GlobalArrangement::Relative => {
                let t = (group + gp + 1) % groups;
                (t, (group + groups - t - 1) % groups)
            }
            GlobalArrangement::Circulant => {
                let o = gp / 2 + 1;
                if gp % 2 == 0 {
                    ((group + o) % groups, gp + 1)
                } else {
                    ((group + groups - o) % groups, gp - 1)
                }
            }
        }
    }
}

impl fmt::Display for GlobalArrangement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GlobalArrangement {
    type Err = String;

    /// Accepts `absolute` (or `consecutive`), `relative` and `circulant`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "absolute" | "consecutive" => Ok(GlobalArrangement::Absolute),
            "relative" => Ok(GlobalArrangement::Relative),
            "circulant" => Ok(GlobalArrangement::Circulant),
            _ => Err(format!(
                "unknown arrangement {s:?}; accepted: absolute (alias consecutive), relative, circulant"
            )),
        }
    }
}

/// A canonical dragonfly (Kim et al. 2008): `g = a·h + 1` groups of `a` routers, each
/// router with `p` hosts, links to the `a - 1` other routers of its group, and `h`
/// global links; `a, p, h ≥ 1`.
///
/// Router `r` of group `G` is `R<G>_<r>` (node order: hosts, then routers by
/// `G·a + r`); host `x` is on router `x div p`, port `x mod p + 1`. Router `r` reaches
/// router `r'` of its group through port `p + 1 + (r' if r' < r else r' - 1)`, and its
/// `k`-th global link is port `p + a + k` (global port `gp = r·h + k` of the group,
/// connected as `arrangement` says). Every pair of groups is joined by exactly one
/// cable. O(nodes + edges).
pub fn dragonfly(
    a: u32,
    p: u32,
    h: u32,
    arrangement: GlobalArrangement,
) -> Result<Generated, GenError> {
    const G: &str = "dragonfly";
    for (name, v) in [("a", a), ("p", p), ("h", h)] {
        if v == 0 {
            return Err(bad(G, name, v, &format!("{name} must be at least 1")));
        }
    }
    let groups = a as u128 * h as u128 + 1;
    if arrangement == GlobalArrangement::Circulant && (groups - 1) % 2 != 0 {
        return Err(bad(
            G,
            "arrangement",
            "circulant",
            &format!(
                "the circulant arrangement needs a·h even (a·h = {})",
                groups - 1
            ),
        ));
    }
    let routers = groups.saturating_mul(a as u128);
    let hosts = routers.saturating_mul(p as u128);
    let local = routers.saturating_mul(a as u128 - 1) / 2;
    let global = groups.saturating_mul(groups - 1) / 2;
    let ports = p as u128 + a as u128 - 1 + h as u128;
    check_size(
        G,
        routers.saturating_add(hosts),
        hosts.saturating_add(local).saturating_add(global),
        ports,
    )?;
    let (groups, routers, hosts) = (groups as u32, routers as u32, hosts as u32);
    let mut b = Builder::new(
        (routers + hosts) as usize,
        (hosts as u128 + local + global) as usize,
    );
    b.hosts(hosts);
    let first = b.names.len() as u32;
    let mut group_of = Vec::with_capacity((routers + hosts) as usize);
    for x in 0..hosts {
        group_of.push(x / p / a);
    }
    for gr in 0..groups {
        for r in 0..a {
            b.switch(format!("R{gr}_{r}"));
            group_of.push(gr);
        }
    }
    for x in 0..hosts {
        b.cable(x, 1, first + x / p, x % p + 1);
    }
    let local_port = |own: u32, other: u32| p + 1 + if other < own { other } else { other - 1 };
    for gr in 0..groups {
        for r in 0..a {
            for r2 in r + 1..a {
                b.cable(
                    first + gr * a + r,
                    local_port(r, r2),
                    first + gr * a + r2,
                    local_port(r2, r),
                );
            }
        }
        for gp in 0..a * h {
            let (t, tp) = arrangement.peer(gr, gp, groups);
            if gr < t {
                b.cable(
                    first + gr * a + gp / h,
                    p + a + gp % h,
                    first + t * a + tp / h,
                    p + a + tp % h,
                );
            }
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Dragonfly {
            routers_per_group: a,
            hosts_per_router: p,
            global_links: h,
            group: group_of,
        },
        description: format!(
            "dragonfly:a={a},p={p},h={h},arrangement={arrangement} (dragonfly: {groups} groups \
             of {a} routers, {hosts} hosts, {arrangement} global links)"
        ),
    })
}

// ---------------------------------------------------------------------------------------
// Jellyfish
// ---------------------------------------------------------------------------------------

/// A Jellyfish fabric (Singla et al. 2012): `switches` switches with `ports_per_switch`
/// ports, `hosts_per_switch` of them for hosts and the other
/// `r = ports_per_switch - hosts_per_switch` forming a random `r`-regular graph, which is
/// always connected. The same seed gives the same fabric.
///
/// Needs `switches ≥ 1`, `hosts_per_switch ≥ 1`, `r ≤ switches - 1`, `switches · r` even,
/// and a connected result: `r = 0` for one switch, `r = 1` for two, `r ≥ 2` beyond.
///
/// Construction, with a Xoshiro256++ generator seeded from `seed`: join uniformly random
/// pairs of switches that have free ports and are not yet linked; when no such pair is
/// left, a switch with two or more free ports breaks a random link `(x, y)` (neither end
/// linked to it) and links to both ends, and two switches with one free port each that
/// are already linked to each other break a random link `(x, y)` and take one end each.
/// A disconnected result is repaired by degree-preserving swaps between components
/// (links `(a, b)` and `(c, d)` become `(a, c)` and `(b, d)`); a construction that gets
/// stuck starts over with the same generator (at most 16 times). Switch `i` is `S<i>`;
/// host `x` is on switch `x div hosts_per_switch`, port `x mod hosts_per_switch + 1`; a
/// switch's neighbours, in increasing order, get ports `hosts_per_switch + 1 ...`.
///
/// Expected O(switches · r²) time for the pairing (plus rare repairs), O(switches · r)
/// memory.
pub fn jellyfish(
    switches: u32,
    ports_per_switch: u32,
    hosts_per_switch: u32,
    seed: u64,
) -> Result<Generated, GenError> {
    const G: &str = "jellyfish";
    if switches == 0 {
        return Err(bad(G, "switches", 0, "at least 1 switch"));
    }
    if hosts_per_switch == 0 {
        return Err(bad(G, "hosts", 0, "hosts per switch must be at least 1"));
    }
    if ports_per_switch < hosts_per_switch {
        return Err(bad(
            G,
            "ports",
            ports_per_switch,
            &format!("ports must be at least hosts ({hosts_per_switch})"),
        ));
    }
    let r = ports_per_switch - hosts_per_switch;
    let need = match switches {
        1 => "0",
        2 => "1",
        _ => "2..",
    };
    let r_ok = match switches {
        1 => r == 0,
        2 => r == 1,
        _ => r >= 2 && r < switches,
    };
    if !r_ok {
        return Err(bad(
            G,
            "ports",
            ports_per_switch,
            &format!(
                "the switch-to-switch degree ports - hosts = {r} must be {need}{} for a connected \
                 random regular graph of {switches} switches",
                if switches > 2 {
                    format!("{}", switches - 1)
                } else {
                    String::new()
                }
            ),
        ));
    }
    if (switches as u64 * r as u64) % 2 != 0 {
        return Err(bad(
            G,
            "ports",
            ports_per_switch,
            &format!("switches · (ports - hosts) = {switches} · {r} must be even"),
        ));
    }
    let hosts = switches as u128 * hosts_per_switch as u128;
    let links = switches as u128 * r as u128 / 2;
    check_size(
        G,
        switches as u128 + hosts,
        hosts + links,
        ports_per_switch as u128,
    )?;

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6A65_6C6C_7966_6973); // "jellyfis"
    let mut adjacency = None;
    for _ in 0..16 {
        if let Some(adj) = random_regular(switches, r, &mut rng) {
            adjacency = Some(adj);
            break;
        }
    }
    let Some(mut adj) = adjacency else {
        return Err(GenError::Construction {
            generator: G,
            message: format!(
                "could not build a connected {r}-regular graph on {switches} switches in 16 attempts (seed {seed})"
            ),
        });
    };
    for list in &mut adj {
        list.sort_unstable();
    }
    let hosts = hosts as u32;
    let mut b = Builder::new(
        (switches + hosts) as usize,
        (hosts as u128 + links) as usize,
    );
    b.hosts(hosts);
    let first = b.names.len() as u32;
    for i in 0..switches {
        b.switch(format!("S{i}"));
    }
    for x in 0..hosts {
        b.cable(x, 1, first + x / hosts_per_switch, x % hosts_per_switch + 1);
    }
    for u in 0..switches {
        for (pos_u, &v) in adj[u as usize].iter().enumerate() {
            if u < v {
                let pos_v = adj[v as usize].binary_search(&u).unwrap_or(0);
                b.cable(
                    first + u,
                    hosts_per_switch + 1 + pos_u as u32,
                    first + v,
                    hosts_per_switch + 1 + pos_v as u32,
                );
            }
        }
    }
    Ok(Generated {
        fabric: b.finish(),
        structure: Structure::Irregular,
        description: format!(
            "jellyfish:switches={switches},ports={ports_per_switch},hosts={hosts_per_switch},seed={seed} \
             (Jellyfish: {hosts} hosts, {switches} switches, random {r}-regular switch graph)"
        ),
    })
}

/// Adjacency lists and edge list of a simple graph under construction.
struct Rrg {
    adj: Vec<Vec<u32>>,
    edges: Vec<(u32, u32)>,
}

impl Rrg {
    fn linked(&self, a: u32, b: u32) -> bool {
        let (x, y) = if self.adj[a as usize].len() <= self.adj[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.adj[x as usize].contains(&y)
    }

    fn link(&mut self, a: u32, b: u32) {
        self.adj[a as usize].push(b);
        self.adj[b as usize].push(a);
        self.edges.push((a, b));
    }

    /// Removes edge number `i` and returns its ends.
    fn unlink(&mut self, i: usize) -> (u32, u32) {
        let (a, b) = self.edges.swap_remove(i);
        for (x, y) in [(a, b), (b, a)] {
            let list = &mut self.adj[x as usize];
            if let Some(pos) = list.iter().position(|&z| z == y) {
                list.swap_remove(pos);
            }
        }
        (a, b)
    }

    /// A random edge index satisfying `ok(x, y)` for its ends in some orientation; returns
    /// the index and the ends in the accepted orientation.
    fn pick_edge(
        &self,
        rng: &mut Xoshiro256PlusPlus,
        ok: impl Fn(u32, u32) -> bool,
    ) -> Option<(usize, u32, u32)> {
        if self.edges.is_empty() {
            return None;
        }
        let check = |i: usize, flip: bool| {
            let (x, y) = self.edges[i];
            let (x, y) = if flip { (y, x) } else { (x, y) };
            ok(x, y).then_some((i, x, y))
        };
        for _ in 0..64 {
            let i = rng.gen_range(0..self.edges.len());
            let flip = rng.gen::<bool>();
            if let Some(found) = check(i, flip).or_else(|| check(i, !flip)) {
                return Some(found);
            }
        }
        let all: Vec<(usize, u32, u32)> = (0..self.edges.len())
            .flat_map(|i| [check(i, false), check(i, true)])
            .flatten()
            .collect();
        (!all.is_empty()).then(|| all[rng.gen_range(0..all.len())])
    }
}

/// A connected random `r`-regular simple graph on `n` nodes (see [`jellyfish`]), or
/// `None` if this attempt got stuck.
fn random_regular(n: u32, r: u32, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<Vec<u32>>> {
    let mut g = Rrg {
        adj: vec![Vec::with_capacity(r as usize); n as usize],
        edges: Vec::with_capacity((n as usize * r as usize) / 2),
    };
    let mut free = vec![r; n as usize];
    // Nodes with free ports, with their positions for O(1) removal.
    let mut open: Vec<u32> = if r > 0 { (0..n).collect() } else { Vec::new() };
    let mut pos: Vec<usize> = (0..n as usize).collect();
    /// Uses `k` free ports of `v`; a node without free ports leaves `open`.
    fn take(free: &mut [u32], open: &mut Vec<u32>, pos: &mut [usize], v: u32, k: u32) {
        free[v as usize] -= k;
        if free[v as usize] == 0 {
            let i = pos[v as usize];
            open.swap_remove(i);
            if let Some(&moved) = open.get(i) {
                pos[moved as usize] = i;
            }
        }
    }
    while !open.is_empty() {
        let mut pair = None;
        if open.len() >= 2 {
            for _ in 0..64 {
                let a = open[rng.gen_range(0..open.len())];
                let b = open[rng.gen_range(0..open.len())];
                if a != b && !g.linked(a, b) {
                    pair = Some((a, b));
                    break;
                }
            }
            if pair.is_none() {
                let mut eligible = Vec::new();
                for i in 0..open.len() {
                    for j in i + 1..open.len() {
                        if !g.linked(open[i], open[j]) {
                            eligible.push((open[i], open[j]));
                        }
                    }
                }
                if !eligible.is_empty() {
                    pair = Some(eligible[rng.gen_range(0..eligible.len())]);
                }
            }
        }
        if let Some((a, b)) = pair {
            g.link(a, b);
            take(&mut free, &mut open, &mut pos, a, 1);
            take(&mut free, &mut open, &mut pos, b, 1);
            continue;
        }
        // Stuck: every pair of switches with free ports is already linked.
        let wide: Vec<u32> = open
            .iter()
            .copied()
            .filter(|&v| free[v as usize] >= 2)
            .collect();
        if !wide.is_empty() {
            let v = wide[rng.gen_range(0..wide.len())];
            let (i, x, y) = g.pick_edge(rng, |x, y| {
                x != v && y != v && !g.linked(v, x) && !g.linked(v, y)
            })?;
            g.unlink(i);
            g.link(v, x);
            g.link(v, y);
            take(&mut free, &mut open, &mut pos, v, 2);
        } else if open.len() >= 2 {
            let a = open[0];
            let b = open[1];
            let (i, x, y) = g.pick_edge(rng, |x, y| {
                x != a && y != b && x != b && y != a && !g.linked(a, x) && !g.linked(b, y)
            })?;
            g.unlink(i);
            g.link(a, x);
            g.link(b, y);
            take(&mut free, &mut open, &mut pos, a, 1);
            take(&mut free, &mut open, &mut pos, b, 1);
        } else {
            return None; // an odd number of free ports: impossible by the checks
        }
    }
    // Connect the components by degree-preserving swaps.
    for _ in 0..(64 + 4 * n as usize) {
        let comp = components(&g.adj);
        let count = comp.iter().copied().max().map_or(0, |c| c + 1);
        if count <= 1 {
            return Some(g.adj);
        }
        let c1 = comp[rng.gen_range(0..n as usize)];
        let mut c2 = comp[rng.gen_range(0..n as usize)];
        if c2 == c1 {
            c2 = (c1 + 1 + rng.gen_range(0..count - 1)) % count;
        }
        let in_comp = |c: u32| -> Vec<usize> {
            (0..g.edges.len())
                .filter(|&i| comp[g.edges[i].0 as usize] == c)
                .collect()
        };
        let (e1, e2) = (in_comp(c1), in_comp(c2));
        if e1.is_empty() || e2.is_empty() {
            return None;
        }
        let i = e1[rng.gen_range(0..e1.len())];
        let j = e2[rng.gen_range(0..e2.len())];
        let (a, b) = g.edges[i];
        let (c, d) = g.edges[j];
        // Remove the higher index first so that the other stays valid.
        let (hi, lo) = if i > j { (i, j) } else { (j, i) };
        g.unlink(hi);
        g.unlink(lo);
        g.link(a, c);
        g.link(b, d);
    }
    None
}

/// Component number of every node (numbered from 0 in order of their smallest node).
fn components(adj: &[Vec<u32>]) -> Vec<u32> {
    let mut comp = vec![u32::MAX; adj.len()];
    let mut next = 0;
    let mut stack = Vec::new();
    for s in 0..adj.len() {
        if comp[s] != u32::MAX {
            continue;
        }
        comp[s] = next;
        stack.push(s as u32);
        while let Some(v) = stack.pop() {
            for &u in &adj[v as usize] {
                if comp[u as usize] == u32::MAX {
                    comp[u as usize] = next;
                    stack.push(u);
                }
            }
        }
        next += 1;
    }
    comp
}

// ---------------------------------------------------------------------------------------
// Specs
// ---------------------------------------------------------------------------------------

/// The generators [`generate`] knows, with their parameters.
const SPECS: &[(&str, &str)] = &[
    ("kary-ntree", "k=K,n=N"),
    ("xgft", "m=M1xM2x...,w=W1xW2x..."),
    ("slimmed", "leaf_hosts=H,leaves=L,uplinks=U[,spines=S]"),
    ("mesh", "dims=D1xD2x...[,hosts=H]"),
    ("torus", "dims=D1xD2x...[,hosts=H]"),
    ("hypercube", "d=D[,hosts=H]"),
    ("hyperx", "dims=D1xD2x...[,hosts=H]"),
    (
        "dragonfly",
        "a=A,p=P,h=H[,arrangement=absolute|relative|circulant]",
    ),
    ("jellyfish", "switches=S,ports=P,hosts=H[,seed=N]"),
];

/// Parameters of one spec: key → list items, in order of appearance.
struct Params<'a> {
    spec: &'a str,
    generator: &'static str,
    entries: Vec<(String, Vec<String>)>,
}

impl Params<'_> {
    fn error(&self, message: String) -> GenError {
        GenError::Spec {
            spec: self.spec.to_string(),
            message,
        }
    }

    /// Fails on keys outside `required` and `optional`, and on missing required keys.
    fn expect(&self, required: &[&str], optional: &[&str]) -> Result<(), GenError> {
        let usage = SPECS
            .iter()
            .find(|(n, _)| *n == self.generator)
            .map_or("", |(_, u)| *u);
        for (key, _) in &self.entries {
            if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
                let mut all: Vec<&str> = required.to_vec();
                all.extend_from_slice(optional);
                return Err(self.error(format!(
                    "{} has no parameter {key:?}; accepted: {} (usage: {}:{usage})",
                    self.generator,
                    all.join(", "),
                    self.generator
                )));
            }
        }
        for key in required {
            if !self.entries.iter().any(|(k, _)| k == key) {
                return Err(self.error(format!(
                    "{} needs the parameter {key} (usage: {}:{usage})",
                    self.generator, self.generator
                )));
            }
        }
        Ok(())
    }

    fn items(&self, key: &str) -> Option<&[String]> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    fn text(&self, key: &str) -> Result<Option<&str>, GenError> {
        match self.items(key) {
            None => Ok(None),
            Some([one]) => Ok(Some(one.as_str())),
            Some(_) => Err(self.error(format!("{key} takes a single value"))),
        }
    }

    fn number<T: FromStr>(&self, key: &str, item: &str) -> Result<T, GenError> {
        item.parse::<T>().map_err(|_| {
            self.error(format!(
                "{key} = {item:?} is not a non-negative integer in range"
            ))
        })
    }

    fn u32(&self, key: &str, default: Option<u32>) -> Result<u32, GenError> {
        match (self.text(key)?, default) {
            (Some(v), _) => self.number(key, v),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(self.error(format!("{key} is missing"))),
        }
    }

    fn u64(&self, key: &str, default: u64) -> Result<u64, GenError> {
        match self.text(key)? {
            Some(v) => self.number(key, v),
            None => Ok(default),
        }
    }

    fn list(&self, key: &str) -> Result<Vec<u32>, GenError> {
        let items = self
            .items(key)
            .ok_or_else(|| self.error(format!("{key} is missing")))?;
        items.iter().map(|i| self.number(key, i)).collect()
    }
}

/// Builds a fabric from a generator spec, the way `orcs gen` takes it.
///
/// # Syntax
///
/// `NAME:KEY=VALUE,KEY=VALUE,...` — parameters are separated by `,` or `;`, white space
/// around names, keys and values is ignored, and a generator name may use `_` for `-`.
/// A list value separates its items by `x` (`dims=4x4x4`); an item without `=` after a
/// list continues it, so `m=4,4;w=1,4` is the same as `m=4x4,w=1x4`. Numbers are
/// decimal. Keys in brackets are optional (defaults after the table):
///
/// | spec | fabric |
/// |---|---|
/// | `kary-ntree:k=K,n=N` | [`kary_ntree`]: K-ary N-tree |
/// | `xgft:m=M1xM2x...,w=W1xW2x...` | [`xgft`]: XGFT(h; M1..Mh; W1..Wh), W1 = 1 |
/// | `slimmed:leaf_hosts=H,leaves=L,uplinks=U[,spines=S]` | [`slimmed_two_level`] |
/// | `mesh:dims=D1xD2x...[,hosts=H]` | [`grid`] without wraparound |
/// | `torus:dims=D1xD2x...[,hosts=H]` | [`grid`] with wraparound |
/// | `hypercube:d=D[,hosts=H]` | [`hypercube`] of dimension D |
/// | `hyperx:dims=D1xD2x...[,hosts=H]` | [`hyperx`] |
/// | `dragonfly:a=A,p=P,h=H[,arrangement=ARR]` | [`dragonfly`]; ARR = `absolute` (alias `consecutive`), `relative` or `circulant` |
/// | `jellyfish:switches=S,ports=P,hosts=H[,seed=N]` | [`jellyfish`] |
///
/// Defaults: `hosts=1` (hosts per switch) for mesh, torus, hypercube and HyperX;
/// `spines=U` (one cable from each leaf to each spine); `arrangement=absolute`;
/// `seed=0`.
///
/// Examples: `kary-ntree:k=4,n=2`, `xgft:m=4,4;w=1,4`, `torus:dims=4x4x4,hosts=1`,
/// `hypercube:d=6`, `hyperx:dims=4x4`, `dragonfly:a=4,p=2,h=2,arrangement=relative`,
/// `jellyfish:switches=32,ports=8,hosts=4,seed=1`,
/// `slimmed:leaf_hosts=16,leaves=8,uplinks=4,spines=4`.
///
/// Every [`Generated::description`] starts with the canonical spec of the fabric (up to
/// the first space), which this function accepts and turns into the same fabric.
/// Unknown names and keys, missing or repeated keys and malformed numbers give a
/// [`GenError::Spec`] that lists what is accepted; parameter values out of range give the
/// generator's [`GenError::Parameter`].
pub fn generate(spec: &str) -> Result<Generated, GenError> {
    let spec_error = |message: String| GenError::Spec {
        spec: spec.to_string(),
        message,
    };
    let (name, rest) = match spec.split_once(':') {
        Some((n, r)) => (n, Some(r)),
        None => (spec, None),
    };
    let name = name.trim().to_ascii_lowercase().replace('_', "-");
    let accepted = || {
        SPECS
            .iter()
            .map(|(n, u)| format!("{n}:{u}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let Some(&(generator, _)) = SPECS.iter().find(|(n, _)| *n == name) else {
        return Err(spec_error(format!(
            "unknown topology {name:?}; accepted: {}",
            accepted()
        )));
    };
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(rest) = rest {
        for token in rest.split([',', ';']) {
            let token = token.trim();
            if token.is_empty() {
                return Err(spec_error(
                    "empty parameter (two separators in a row?)".into(),
                ));
            }
            match token.split_once('=') {
                Some((key, value)) => {
                    let key = key.trim().to_string();
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(spec_error(format!("{key} is given twice")));
                    }
                    let items: Vec<String> =
                        value.split('x').map(|s| s.trim().to_string()).collect();
                    entries.push((key, items));
                }
                None => match entries.last_mut() {
                    Some((_, items)) => {
                        items.extend(token.split('x').map(|s| s.trim().to_string()))
                    }
                    None => {
                        return Err(spec_error(format!(
                            "{token:?} has no key; write KEY=VALUE (usage: {})",
                            accepted()
                        )))
                    }
                },
            }
        }
    }
    let p = Params {
        spec,
        generator,
        entries,
    };
    match generator {
        "kary-ntree" => {
            p.expect(&["k", "n"], &[])?;
            kary_ntree(p.u32("k", None)?, p.u32("n", None)?)
        }
        "xgft" => {
            p.expect(&["m", "w"], &[])?;
            xgft(&p.list("m")?, &p.list("w")?)
        }
        "slimmed" => {
            p.expect(&["leaf_hosts", "leaves", "uplinks"], &["spines"])?;
            let uplinks = p.u32("uplinks", None)?;
            slimmed_two_level(
                p.u32("leaf_hosts", None)?,
                p.u32("leaves", None)?,
                uplinks,
                p.u32("spines", Some(uplinks))?,
            )
        }
        "mesh" | "torus" => {
            p.expect(&["dims"], &["hosts"])?;
            grid(
                &p.list("dims")?,
                generator == "torus",
                p.u32("hosts", Some(1))?,
            )
        }
        "hypercube" => {
            p.expect(&["d"], &["hosts"])?;
            hypercube(p.u32("d", None)?, p.u32("hosts", Some(1))?)
        }
        "hyperx" => {
            p.expect(&["dims"], &["hosts"])?;
            hyperx(&p.list("dims")?, p.u32("hosts", Some(1))?)
        }
        "dragonfly" => {
            p.expect(&["a", "p", "h"], &["arrangement"])?;
            let arrangement = match p.text("arrangement")? {
                None => GlobalArrangement::Absolute,
                Some(s) => s.parse().map_err(|e: String| p.error(e))?,
            };
            dragonfly(
                p.u32("a", None)?,
                p.u32("p", None)?,
                p.u32("h", None)?,
                arrangement,
            )
        }
        _ => {
            p.expect(&["switches", "ports", "hosts"], &["seed"])?;
            jellyfish(
                p.u32("switches", None)?,
                p.u32("ports", None)?,
                p.u32("hosts", None)?,
                p.u64("seed", 0)?,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_fixed_width_decimal() {
        assert_eq!(host_name_width(1), 5);
        assert_eq!(host_name_width(100_000), 5);
        assert_eq!(host_name_width(100_001), 6);
        let g = kary_ntree(2, 2).unwrap();
        assert_eq!(g.fabric.host_name(3), "H00003");
    }

    #[test]
    fn arrangements_are_involutions() {
        for arr in [
            GlobalArrangement::Absolute,
            GlobalArrangement::Relative,
            GlobalArrangement::Circulant,
        ] {
            let groups = 9; // a·h = 8
            for g in 0..groups {
                let mut seen = vec![false; groups as usize];
                for gp in 0..groups - 1 {
                    let (t, tp) = arr.peer(g, gp, groups);
                    assert_ne!(t, g, "{arr}: group {g} port {gp} loops");
                    assert!(!seen[t as usize], "{arr}: group {g} reaches {t} twice");
                    seen[t as usize] = true;
                    assert_eq!(arr.peer(t, tp, groups), (g, gp), "{arr}: {g}/{gp}");
                }
            }
        }
    }
}
