//! Jellyfish: switches joined by a seeded random regular graph that is always connected.

use super::builder::Builder;
use super::{bad, FabricSize, GenError};
use crate::fabric::Fabric;
use crate::gen::{Generated, Structure};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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
    let size = jellyfish_size(switches, ports_per_switch, hosts_per_switch)?;
    let r = ports_per_switch - hosts_per_switch;
    let hosts = size.hosts;
    let links = size.cables - hosts;

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6A65_6C6C_7966_6973); // "jellyfis"
    let Some(mut adj) = (0..16).find_map(|_| random_regular(switches, r, &mut rng)) else {
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
    Ok(Generated {
        fabric: layout(&adj, hosts_per_switch, links),
        structure: Structure::Irregular,
        description: format!(
            "jellyfish:switches={switches},ports={ports_per_switch},hosts={hosts_per_switch},seed={seed} \
             (Jellyfish: {hosts} hosts, {switches} switches, random {r}-regular switch graph)"
        ),
    })
}

/// The generator's name in errors.
const G: &str = "jellyfish";

/// The size of [`jellyfish`] with these parameters, or why it cannot be built.
pub(super) fn jellyfish_size(
    switches: u32,
    ports_per_switch: u32,
    hosts_per_switch: u32,
) -> Result<FabricSize, GenError> {
    let r = switch_degree(switches, ports_per_switch, hosts_per_switch)?;
    let hosts = switches as u128 * hosts_per_switch as u128;
    FabricSize {
        hosts,
        switches: switches as u128,
        cables: hosts + switches as u128 * r as u128 / 2,
        max_ports: ports_per_switch as u128,
    }
    .check(G)
}

/// Checks the parameters of [`jellyfish`] and returns the switch-to-switch degree
/// `r = ports_per_switch - hosts_per_switch`.
fn switch_degree(
    switches: u32,
    ports_per_switch: u32,
    hosts_per_switch: u32,
) -> Result<u32, GenError> {
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
    Ok(r)
}

/// The fabric of a switch graph (`adj`: sorted neighbour lists, `links` cables), with
/// hosts, names and ports as [`jellyfish`] documents them.
fn layout(adj: &[Vec<u32>], hosts_per_switch: u32, links: u128) -> Fabric {
    let switches = adj.len() as u32;
    let hosts = switches * hosts_per_switch;
    let mut b = Builder::new(
        (switches + hosts) as usize,
        (hosts as u128 + links) as usize,
    );
    b.hosts(hosts);
    let first = b.next_node();
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
    b.finish()
}

/// Adjacency lists and edge list of a simple graph under construction.
struct Rrg {
    adj: Vec<Vec<u32>>,
    edges: Vec<(u32, u32)>,
}

impl Rrg {
    /// True when `a` and `b` are joined (searches the shorter list).
    fn linked(&self, a: u32, b: u32) -> bool {
        let (x, y) = if self.adj[a as usize].len() <= self.adj[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.adj[x as usize].contains(&y)
    }

    /// Joins `a` and `b`.
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
            let i = rng.random_range(0..self.edges.len());
            let flip = rng.random::<bool>();
            if let Some(found) = check(i, flip).or_else(|| check(i, !flip)) {
                return Some(found);
            }
        }
        let all: Vec<(usize, u32, u32)> = (0..self.edges.len())
            .flat_map(|i| [check(i, false), check(i, true)])
            .flatten()
            .collect();
        (!all.is_empty()).then(|| all[rng.random_range(0..all.len())])
    }
}

/// The free ports of every node, and the nodes that still have some.
struct FreePorts {
    free: Vec<u32>,
    /// Nodes with free ports, in no particular order.
    open: Vec<u32>,
    /// Per node: its index in `open` while it is there, for O(1) removal.
    pos: Vec<usize>,
}

impl FreePorts {
    /// `n` nodes with `r` free ports each.
    fn new(n: u32, r: u32) -> Self {
        FreePorts {
            free: vec![r; n as usize],
            open: if r > 0 { (0..n).collect() } else { Vec::new() },
            pos: (0..n as usize).collect(),
        }
    }

    /// Uses `k` free ports of `v`; a node without free ports leaves `open`.
    fn take(&mut self, v: u32, k: u32) {
        self.free[v as usize] -= k;
        if self.free[v as usize] == 0 {
            let i = self.pos[v as usize];
            self.open.swap_remove(i);
            if let Some(&moved) = self.open.get(i) {
                self.pos[moved as usize] = i;
            }
        }
    }
}

/// A connected random `r`-regular simple graph on `n` nodes (see [`jellyfish`]), or
/// `None` if this attempt got stuck.
fn random_regular(n: u32, r: u32, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<Vec<u32>>> {
    let mut g = Rrg {
        adj: vec![Vec::with_capacity(r as usize); n as usize],
        edges: Vec::with_capacity((n as usize * r as usize) / 2),
    };
    let mut ports = FreePorts::new(n, r);
    while !ports.open.is_empty() {
        match free_pair(&g, &ports.open, rng) {
            Some((a, b)) => {
                g.link(a, b);
                ports.take(a, 1);
                ports.take(b, 1);
            }
            None => unstick(&mut g, &mut ports, rng)?,
        }
    }
    connect_components(g, rng)
}

/// A uniformly random pair of distinct, unlinked nodes among `open`: 64 random tries,
/// then a draw among all such pairs. `None` when there is none.
fn free_pair(g: &Rrg, open: &[u32], rng: &mut Xoshiro256PlusPlus) -> Option<(u32, u32)> {
    if open.len() < 2 {
        return None;
    }
    for _ in 0..64 {
        let a = open[rng.random_range(0..open.len())];
        let b = open[rng.random_range(0..open.len())];
        if a != b && !g.linked(a, b) {
            return Some((a, b));
        }
    }
    let mut eligible = Vec::new();
    for i in 0..open.len() {
        for j in i + 1..open.len() {
            if !g.linked(open[i], open[j]) {
                eligible.push((open[i], open[j]));
            }
        }
    }
    (!eligible.is_empty()).then(|| eligible[rng.random_range(0..eligible.len())])
}

/// Uses free ports when every pair of nodes with free ports is already linked: a node
/// with two or more free ports splits a random link and joins both ends; otherwise two
/// nodes with one free port each split a link and take one end each. `None` when no link
/// can be split.
fn unstick(g: &mut Rrg, ports: &mut FreePorts, rng: &mut Xoshiro256PlusPlus) -> Option<()> {
    let wide: Vec<u32> = ports
        .open
        .iter()
        .copied()
        .filter(|&v| ports.free[v as usize] >= 2)
        .collect();
    if !wide.is_empty() {
        let v = wide[rng.random_range(0..wide.len())];
        let (i, x, y) = g.pick_edge(rng, |x, y| {
            x != v && y != v && !g.linked(v, x) && !g.linked(v, y)
        })?;
        g.unlink(i);
        g.link(v, x);
        g.link(v, y);
        ports.take(v, 2);
    } else if ports.open.len() >= 2 {
        let a = ports.open[0];
        let b = ports.open[1];
        let (i, x, y) = g.pick_edge(rng, |x, y| {
            x != a && y != b && x != b && y != a && !g.linked(a, x) && !g.linked(b, y)
        })?;
        g.unlink(i);
        g.link(a, x);
        g.link(b, y);
        ports.take(a, 1);
        ports.take(b, 1);
    } else {
        return None; // an odd number of free ports: impossible by the checks
    }
    Some(())
}

/// Joins the components of `g` by degree-preserving swaps between two random
/// components; `None` when that does not succeed within `64 + 4n` swaps.
fn connect_components(mut g: Rrg, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<Vec<u32>>> {
    let n = g.adj.len();
    for _ in 0..(64 + 4 * n) {
        let comp = components(&g.adj);
        let count = comp.iter().copied().max().map_or(0, |c| c + 1);
        if count <= 1 {
            return Some(g.adj);
        }
        let c1 = comp[rng.random_range(0..n)];
        let mut c2 = comp[rng.random_range(0..n)];
        if c2 == c1 {
            c2 = (c1 + 1 + rng.random_range(0..count - 1)) % count;
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
        let i = e1[rng.random_range(0..e1.len())];
        let j = e2[rng.random_range(0..e2.len())];
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
