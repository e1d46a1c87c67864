//! The structure-free routing engines of `orcs::routing::engines` (minhop, updn, dnup, sssp,
//! random) against real OpenSM tables and against their own invariants.
//!
//! * OpenSM oracles: `../shared/fabrics/ib/generated/*/{minhop,updn,updn-auto,dnup,sssp,
//!   dfsssp}/` hold matched ibnetdiscover + LFT dumps of OpenSM 3.3.23 runs. We load the
//!   fabric, route the same fabric ourselves and require the identical table (every
//!   switch × destination host → the same edge). Every run is reproduced exactly, so no
//!   comparison falls back to per-link route counts.
//! * When ibsim + OpenSM are installed, random irregular fabrics (parallel cables, random
//!   GUIDs, uneven host counts) are routed live by OpenSM and compared the same way.
//! * Invariants: every pair routed on every fabric, up*/down* legality of updn/dnup,
//!   seeded minimal random routing, clear errors for disconnected fabrics, speed on a
//!   4096-host fat tree.
//!
//! Tests that need `../shared` print a `skipped:` note and pass when it is missing (fail
//! under `ORCS_REQUIRE_SHARED=1`).

use crate::support::{opensm_tools_present, repo, shared};

use orcs::fabric::input::{load_input, InputSpec};
use orcs::fabric::{Fabric, LoadedFabric, NONE};
use orcs::routing::engines::{parse_engine, route, Engine};
use orcs::routing::{check_routes, ForwardingTable, RoutingError};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// OpenSM's fabric and table of one run directory.
fn load_run(run: &Path) -> LoadedFabric {
    load_input(&InputSpec {
        path: run.join("ibnetdiscover.txt").to_str().unwrap().into(),
        lft: Some(run.join("opensm.fdbs").to_str().unwrap().into()),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{}: {e}", run.display()))
}

/// The node called `S<guid16>` (converted fabrics name switches so).
fn switch_by_guid(fabric: &Fabric, guid: u64) -> u32 {
    let name = format!("S{guid:016x}");
    fabric
        .node_names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no switch {name}")) as u32
}

/// Root switches from a file of GUIDs (one per line, `0x…`), as OpenSM's `-a` reads it.
fn read_roots(fabric: &Fabric, file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            switch_by_guid(
                fabric,
                u64::from_str_radix(l.trim_start_matches("0x"), 16).unwrap(),
            )
        })
        .collect()
}

fn is_switch(f: &Fabric, v: u32) -> bool {
    f.host_of_node[v as usize] == NONE
}

fn all_hosts(f: &Fabric) -> Vec<u32> {
    (0..f.num_hosts() as u32).collect()
}

/// (switch, host) entries where the tables disagree.
fn table_diff(f: &Fabric, a: &ForwardingTable, b: &ForwardingTable) -> Vec<(u32, u32)> {
    let mut diff = Vec::new();
    for v in (0..f.num_nodes() as u32).filter(|&v| is_switch(f, v)) {
        for h in 0..f.num_hosts() as u32 {
            if a.next_edge(f, v, h) != b.next_edge(f, v, h) {
                diff.push((v, h));
            }
        }
    }
    diff
}

/// Min and max route counts over the switch-to-switch links, all host pairs.
fn switch_link_counts(f: &Fabric, t: &ForwardingTable) -> (u64, u64) {
    let check = check_routes(f, t, &all_hosts(f));
    let counts = (0..f.num_edges())
        .filter(|&e| is_switch(f, f.edge_tail[e]) && is_switch(f, f.edge_head[e]))
        .map(|e| check.link_routes[e]);
    (counts.clone().min().unwrap_or(0), counts.max().unwrap_or(0))
}

/// Asserts that `ours` is OpenSM's table; on failure shows where and how much differs.
#[track_caller]
fn assert_same_table(what: &str, f: &Fabric, ours: &ForwardingTable, theirs: &ForwardingTable) {
    let diff = table_diff(f, ours, theirs);
    if diff.is_empty() {
        return;
    }
    let show: Vec<String> = diff
        .iter()
        .take(8)
        .map(|&(s, h)| {
            let edge = |t: &ForwardingTable| {
                t.next_edge(f, s, h)
                    .map(|e| f.edge_label(e).to_string())
                    .unwrap_or_else(|| "none".into())
            };
            format!(
                "  {} -> {}: ours {}, OpenSM {}",
                f.node_names[s as usize],
                f.host_name(h),
                edge(ours),
                edge(theirs)
            )
        })
        .collect();
    panic!(
        "{what}: {} of {} entries differ from OpenSM (switch-link route counts min/max: ours {:?}, OpenSM {:?})\n{}",
        diff.len(),
        f.num_switches() * f.num_hosts(),
        switch_link_counts(f, ours),
        switch_link_counts(f, theirs),
        show.join("\n")
    );
}

#[track_caller]
fn assert_all_routed(what: &str, f: &Fabric, t: &ForwardingTable) {
    let check = check_routes(f, t, &all_hosts(f));
    assert!(
        check.all_routed(),
        "{what}: {} of {} pairs broken, e.g. {}",
        check.broken(),
        check.pairs_checked,
        check
            .examples
            .first()
            .map(|b| b.describe(f).to_string())
            .unwrap_or_default()
    );
}

/// BFS ranks over switch-to-switch links from `sources` (rank 0); `u32::MAX` unreached.
fn ranks(f: &Fabric, sources: &[u32]) -> Vec<u32> {
    let mut rank = vec![u32::MAX; f.num_nodes()];
    let mut queue = VecDeque::new();
    for &s in sources {
        rank[s as usize] = 0;
        queue.push_back(s);
    }
    while let Some(u) = queue.pop_front() {
        for e in f.out_edges(u) {
            let v = f.edge_head[e as usize];
            if is_switch(f, v) && rank[v as usize] == u32::MAX {
                rank[v as usize] = rank[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    rank
}

/// Hop counts from every switch to switch `t` over switch links (`u32::MAX` unreached).
fn hops_to(f: &Fabric, t: u32) -> Vec<u32> {
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); f.num_nodes()];
    for e in 0..f.num_edges() {
        into[f.edge_head[e] as usize].push(f.edge_tail[e]);
    }
    let mut dist = vec![u32::MAX; f.num_nodes()];
    dist[t as usize] = 0;
    let mut queue = VecDeque::from([t]);
    while let Some(u) = queue.pop_front() {
        for &x in &into[u as usize] {
            if is_switch(f, x) && dist[x as usize] == u32::MAX {
                dist[x as usize] = dist[u as usize] + 1;
                queue.push_back(x);
            }
        }
    }
    dist
}

/// The updn tie-break id of a node: its GUID when named `S<guid16>`, else its index
/// (the engine's rule).
fn updn_ids(f: &Fabric) -> Vec<u64> {
    let guid = |n: &str| {
        let hex = n.strip_prefix('S')?;
        (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok())?
    };
    let all: Option<Vec<u64>> = (0..f.num_nodes())
        .filter(|&v| is_switch(f, v as u32))
        .map(|v| guid(&f.node_names[v]))
        .collect();
    (0..f.num_nodes())
        .map(|v| match all {
            Some(_) if is_switch(f, v as u32) => guid(&f.node_names[v]).unwrap_or(v as u64),
            _ => v as u64,
        })
        .collect()
}

/// The switches of the route from `src` to `dst`.
fn switch_path(f: &Fabric, t: &ForwardingTable, src: u32, dst: u32) -> Vec<u32> {
    let mut path = Vec::new();
    t.router(f).walk(src, dst, |e| {
        let v = f.edge_head[e as usize];
        if is_switch(f, v) {
            path.push(v);
        }
    });
    path
}

/// `src -> dst: S1 (rank 2) S4 (rank 1) ...` for messages.
fn describe_route(f: &Fabric, src: u32, dst: u32, path: &[u32], rank: &[u32]) -> String {
    let hops: Vec<String> = path
        .iter()
        .map(|&v| format!("{} (rank {})", f.node_names[v as usize], rank[v as usize]))
        .collect();
    format!(
        "{} -> {}: {}",
        f.host_name(src),
        f.host_name(dst),
        hops.join(" ")
    )
}

/// updn legality (OpenSM's rule, seen from the packet): a move a→b goes *down* when b
/// has a higher rank, or the same rank and a larger GUID, or both are roots; otherwise
/// *up*. No up move may follow a down move. Returns the first illegal route.
fn updn_violation(f: &Fabric, t: &ForwardingTable, rank: &[u32], id: &[u64]) -> Option<String> {
    for s in 0..f.num_hosts() as u32 {
        for d in 0..f.num_hosts() as u32 {
            let path = switch_path(f, t, s, d);
            let mut went_down = false;
            for w in path.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let down =
                    rank[b] > rank[a] || (rank[b] == rank[a] && (rank[a] == 0 || id[b] > id[a]));
                if !down && went_down {
                    return Some(describe_route(f, s, d, &path, rank));
                }
                went_down |= down;
            }
        }
    }
    None
}

/// dnup legality (OpenSM's rule): ranks count from the switches with hosts; a route may
/// not move towards the leaves (rank falls) and then immediately away from them (rank
/// rises). An equal-rank move in between resets the rule, as in OpenSM.
fn dnup_violation(f: &Fabric, t: &ForwardingTable, rank: &[u32]) -> Option<String> {
    for s in 0..f.num_hosts() as u32 {
        for d in 0..f.num_hosts() as u32 {
            let path = switch_path(f, t, s, d);
            for w in path.windows(3) {
                let (a, b, c) = (
                    rank[w[0] as usize],
                    rank[w[1] as usize],
                    rank[w[2] as usize],
                );
                if b < a && c > b {
                    return Some(describe_route(f, s, d, &path, rank));
                }
            }
        }
    }
    None
}

/// Switches with a host link (dnup's leaves).
fn leaf_switches(f: &Fabric) -> Vec<u32> {
    (0..f.num_nodes() as u32)
        .filter(|&v| {
            is_switch(f, v)
                && f.out_edges(v)
                    .any(|e| !is_switch(f, f.edge_head[e as usize]))
        })
        .collect()
}

/// Routes `f` with every engine and checks the invariants: all pairs routed and, when
/// `legal`, updn/dnup routes obey their up/down rule. `roots` for updn (None: detection
/// must succeed).
fn check_all_engines(what: &str, f: &Fabric, roots: Option<Vec<u32>>, legal: bool) {
    for engine in [
        Engine::Minhop,
        Engine::Updn { roots },
        Engine::Dnup,
        Engine::Sssp,
        Engine::Random { seed: 7 },
    ] {
        let label = format!("{what} {engine}");
        let table = route(f, &engine).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_all_routed(&label, f, &table);
        if !legal {
            continue;
        }
        match &engine {
            Engine::Updn { roots: Some(r) } => {
                let rank = ranks(f, r);
                if let Some(bad) = updn_violation(f, &table, &rank, &updn_ids(f)) {
                    panic!("{label}: route {bad} goes up after going down");
                }
            }
            Engine::Dnup => {
                let rank = ranks(f, &leaf_switches(f));
                if let Some(bad) = dnup_violation(f, &table, &rank) {
                    panic!("{label}: route {bad} turns from down to up");
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Synthetic fabrics
// ---------------------------------------------------------------------------------------

/// Builds fabrics the way converted ones look: port-number keys, one line per cable.
#[derive(Default)]
struct Builder {
    names: Vec<String>,
    host: Vec<bool>,
    next_port: Vec<u32>,
    /// (tail, head, port, line)
    edges: Vec<(u32, u32, u32, u32)>,
}

impl Builder {
    fn node(&mut self, name: String, host: bool) -> u32 {
        self.names.push(name);
        self.host.push(host);
        self.next_port.push(1);
        self.names.len() as u32 - 1
    }

    fn cable(&mut self, a: u32, b: u32) {
        let line = self.edges.len() as u32 / 2 + 1;
        let (pa, pb) = (self.next_port[a as usize], self.next_port[b as usize]);
        self.next_port[a as usize] += 1;
        self.next_port[b as usize] += 1;
        self.edges.push((a, b, pa, line));
        self.edges.push((b, a, pb, line));
    }

    fn build(self) -> Fabric {
        let n = self.names.len();
        let mut f = Fabric {
            node_names: self.names,
            node_lines: vec![0; n],
            node_attrs: vec![Vec::new(); n],
            host_of_node: vec![NONE; n],
            ..Fabric::default()
        };
        for v in 0..n {
            if self.host[v] {
                f.host_of_node[v] = f.hosts.len() as u32;
                f.hosts.push(v as u32);
            }
        }
        // ORCS edge order: by tail, then head, then creation.
        let mut order: Vec<usize> = (0..self.edges.len()).collect();
        order.sort_by_key(|&i| (self.edges[i].0, self.edges[i].1, i));
        f.out_start = vec![0; n + 1];
        for &i in &order {
            let (t, h, port, line) = self.edges[i];
            f.out_start[t as usize + 1] += 1;
            f.edge_tail.push(t);
            f.edge_head.push(h);
            f.edge_lines.push(line);
            f.edge_keys.push(Some(port.to_string()));
            f.edge_attrs.push(Vec::new());
        }
        for v in 0..n {
            f.out_start[v + 1] += f.out_start[v];
        }
        f
    }
}

/// A k-ary n-tree: k^n hosts, n levels of k^(n-1) switches; switch (w, l) links to
/// (w', l+1) when w and w' differ at most in digit l. Returns the fabric and the top
/// level's switches.
fn fat_tree(k: u32, n: u32) -> (Fabric, Vec<u32>) {
    let mut b = Builder::default();
    let per_level = k.pow(n - 1);
    let mut sw = vec![vec![0u32; per_level as usize]; n as usize];
    for (l, level) in sw.iter_mut().enumerate() {
        for (w, s) in level.iter_mut().enumerate() {
            *s = b.node(format!("S{l}_{w}"), false);
        }
    }
    for w in 0..per_level {
        for i in 0..k {
            let h = b.node(format!("H{}", w * k + i), true);
            b.cable(h, sw[0][w as usize]);
        }
    }
    for l in 0..n - 1 {
        let step = k.pow(l);
        for w in 0..per_level {
            let digit = (w / step) % k;
            for d in 0..k {
                let w2 = w - digit * step + d * step;
                b.cable(sw[l as usize][w as usize], sw[l as usize + 1][w2 as usize]);
            }
        }
    }
    let top = sw[n as usize - 1].clone();
    (b.build(), top)
}

/// A random connected switch graph with extra and parallel cables and 0–4 hosts per
/// switch (at least 2 hosts in all). Switch 0 is a good single updn root.
fn random_fabric(seed: u64, switches: u32) -> Fabric {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut b = Builder::default();
    let sw: Vec<u32> = (0..switches)
        .map(|i| b.node(format!("S{i}"), false))
        .collect();
    for i in 1..switches {
        let j = rng.random_range(0..i);
        b.cable(sw[i as usize], sw[j as usize]);
    }
    for _ in 0..switches {
        let (x, y) = (rng.random_range(0..switches), rng.random_range(0..switches));
        if x != y {
            b.cable(sw[x as usize], sw[y as usize]);
        }
    }
    for _ in 0..3 {
        let x = rng.random_range(1..switches);
        b.cable(sw[x as usize], sw[x as usize - 1]); // parallel to nothing or to the tree
    }
    let mut hosts = 0;
    for &s in &sw {
        let count = if hosts < 2 { 2 } else { rng.random_range(0..5) };
        for _ in 0..count {
            let h = b.node(format!("H{hosts}"), true);
            hosts += 1;
            b.cable(h, s);
        }
    }
    b.build()
}

// ---------------------------------------------------------------------------------------
// OpenSM oracles from ../shared
// ---------------------------------------------------------------------------------------

const TOPOLOGIES: [&str; 4] = ["ft-4ary2", "ft-2ary3", "ft-4ary3", "torus5x5"];

#[test]
fn minhop_reproduces_opensm_exactly() {
    let Some(gen) = shared("fabrics/ib/generated") else {
        return;
    };
    for topo in TOPOLOGIES {
        let run = gen.join(topo).join("minhop");
        let loaded = load_run(&run);
        let ours = route(&loaded.fabric, &Engine::Minhop).unwrap();
        assert_same_table(
            &format!("{topo}/minhop"),
            &loaded.fabric,
            &ours,
            &loaded.table,
        );
    }
    // With LMC 2 OpenSM routes the base LIDs (the destinations orcs keeps) first, and on
    // this tree picks the same ports as with LMC 0.
    let loaded = load_run(&gen.join("ft-4ary2/minhop-lmc2"));
    let ours = route(&loaded.fabric, &Engine::Minhop).unwrap();
    assert_same_table("ft-4ary2/minhop-lmc2", &loaded.fabric, &ours, &loaded.table);
}

#[test]
fn updn_reproduces_opensm_exactly() {
    let Some(gen) = shared("fabrics/ib/generated") else {
        return;
    };
    for topo in ["ft-4ary2", "ft-2ary3", "ft-4ary3"] {
        let loaded = load_run(&gen.join(topo).join("updn"));
        let f = &loaded.fabric;
        let roots = read_roots(f, &gen.join(topo).join("root_guids.txt"));
        assert!(!roots.is_empty());
        let ours = route(f, &Engine::Updn { roots: Some(roots) }).unwrap();
        assert_same_table(&format!("{topo}/updn"), f, &ours, &loaded.table);
    }
    // Root detection (OpenSM's hop histogram) finds the spines.
    let loaded = load_run(&gen.join("ft-4ary2/updn-auto"));
    let ours = route(&loaded.fabric, &Engine::Updn { roots: None }).unwrap();
    assert_same_table("ft-4ary2/updn-auto", &loaded.fabric, &ours, &loaded.table);

    // On the torus OpenSM detected no roots and silently fell back to minhop: we say so.
    let loaded = load_run(&gen.join("torus5x5/updn"));
    let f = &loaded.fabric;
    match route(f, &Engine::Updn { roots: None }) {
        Err(e @ RoutingError::NoRoots(_)) => {
            assert!(e.to_string().contains("fall back to minhop"), "{e}");
        }
        other => panic!("torus5x5/updn: expected the no-roots error, got {other:?}"),
    }
    let minhop = route(f, &Engine::Minhop).unwrap();
    assert_same_table(
        "torus5x5/updn (OpenSM's minhop fallback)",
        f,
        &minhop,
        &loaded.table,
    );
}

#[test]
fn dnup_reproduces_opensm_exactly() {
    let Some(gen) = shared("fabrics/ib/generated") else {
        return;
    };
    let loaded = load_run(&gen.join("ft-4ary2/dnup"));
    let ours = route(&loaded.fabric, &Engine::Dnup).unwrap();
    assert_same_table("ft-4ary2/dnup", &loaded.fabric, &ours, &loaded.table);
}

#[test]
fn sssp_reproduces_opensm_exactly() {
    let Some(gen) = shared("fabrics/ib/generated") else {
        return;
    };
    // dfsssp computes the same forwarding tables as sssp (it only adds virtual lanes).
    for run in [
        "ft-4ary2/sssp",
        "ft-4ary2/dfsssp",
        "ft-4ary3/dfsssp",
        "torus5x5/dfsssp",
    ] {
        let loaded = load_run(&gen.join(run));
        let ours = route(&loaded.fabric, &Engine::Sssp).unwrap();
        assert_same_table(run, &loaded.fabric, &ours, &loaded.table);
        // Global balancing at work: the same per-link extremes, of course.
        assert_eq!(
            switch_link_counts(&loaded.fabric, &ours),
            switch_link_counts(&loaded.fabric, &loaded.table)
        );
    }
}

// ---------------------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------------------

#[test]
fn every_engine_routes_every_generated_fabric() {
    let Some(gen) = shared("fabrics/ib/generated") else {
        return;
    };
    for topo in TOPOLOGIES {
        let loaded = load_run(&gen.join(topo).join("minhop"));
        let f = &loaded.fabric;
        let mut roots = read_roots(f, &gen.join(topo).join("root_guids.txt"));
        if roots.is_empty() {
            // The torus has no natural roots (OpenSM detects none): take one switch.
            roots.push(
                (0..f.num_nodes() as u32)
                    .find(|&v| is_switch(f, v))
                    .unwrap(),
            );
        }
        check_all_engines(topo, f, Some(roots), true);
        if topo.starts_with("ft-") {
            let auto = route(f, &Engine::Updn { roots: None }).unwrap();
            assert_all_routed(&format!("{topo} updn (detected roots)"), f, &auto);
        }
    }
}

#[test]
fn every_engine_routes_irregular_fabrics() {
    // Legality is not asserted here: see `updn_and_dnup_keep_opensms_bfs_quirk`.
    for seed in 0..6 {
        let f = random_fabric(seed, 6 + 4 * seed as u32);
        let root = (0..f.num_nodes() as u32)
            .find(|&v| is_switch(&f, v))
            .unwrap();
        check_all_engines(
            &format!("random fabric {seed}"),
            &f,
            Some(vec![root]),
            false,
        );
    }
}

/// A ring of `n` switches with one host each.
fn ring(n: u32) -> Fabric {
    let mut b = Builder::default();
    let sw: Vec<u32> = (0..n).map(|i| b.node(format!("S{i}"), false)).collect();
    for i in 0..n {
        b.cable(sw[i as usize], sw[((i + 1) % n) as usize]);
    }
    for (i, &s) in sw.iter().enumerate() {
        let h = b.node(format!("H{i}"), true);
        b.cable(h, s);
    }
    b.build()
}

#[test]
fn up_down_checks_can_fail() {
    // On a ring of 6 rooted at S0, minhop sends S2 -> S4 over S3, the switch farthest
    // from the root: down, then up. updn must go round through the root instead.
    let f = ring(6);
    let rank = ranks(&f, &[0]);
    let minhop = route(&f, &Engine::Minhop).unwrap();
    assert!(updn_violation(&f, &minhop, &rank, &updn_ids(&f)).is_some());
    let updn = route(
        &f,
        &Engine::Updn {
            roots: Some(vec![0]),
        },
    )
    .unwrap();
    assert_all_routed("updn on a ring", &f, &updn);
    assert!(updn_violation(&f, &updn, &rank, &updn_ids(&f)).is_none());
    // dnup: hosts on A, L and B. The short way A-X-L-Y-B dips into the leaf L between
    // X and Y (ranks 1, 0, 1), which dnup forbids; the long way A-Z1-Z2-Z3-Z4-B does not.
    let mut b = Builder::default();
    let names = ["A", "X", "L", "Y", "B", "Z1", "Z2", "Z3", "Z4"];
    let sw: Vec<u32> = names
        .iter()
        .map(|n| b.node(format!("S{n}"), false))
        .collect();
    for (x, y) in [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (0, 5),
        (5, 6),
        (6, 7),
        (7, 8),
        (8, 4),
    ] {
        b.cable(sw[x], sw[y]);
    }
    for (i, at) in [0, 2, 4].into_iter().enumerate() {
        let h = b.node(format!("H{i}"), true);
        b.cable(h, sw[at]);
    }
    let f = b.build();
    let rank = ranks(&f, &leaf_switches(&f));
    let minhop = route(&f, &Engine::Minhop).unwrap();
    assert!(dnup_violation(&f, &minhop, &rank).is_some());
    let dnup = route(&f, &Engine::Dnup).unwrap();
    assert_all_routed("dnup", &f, &dnup);
    assert!(dnup_violation(&f, &dnup, &rank).is_none());
}

#[test]
fn updn_and_dnup_keep_opensms_bfs_quirk() {
    // OpenSM's up/down hop BFS marks each switch with the direction of the move that
    // queued it; a switch reached again after leaving the queue is queued again with the
    // new direction but keeps its old hop count. On irregular fabrics a few routes then
    // turn up after going down. OpenSM 3.3.23 routes these two fabrics exactly like this
    // (with GUIDs in node order; `live_opensm_agrees_on_irregular_fabrics` shows it when
    // OpenSM is installed), so orcs reproduces the turns rather than "fixing" them.
    let f = random_fabric(1, 22);
    let updn = route(
        &f,
        &Engine::Updn {
            roots: Some(vec![0]),
        },
    )
    .unwrap();
    assert_all_routed("updn", &f, &updn);
    let bad = updn_violation(&f, &updn, &ranks(&f, &[0]), &updn_ids(&f));
    assert!(
        bad.is_some(),
        "updn on random fabric 1 no longer has OpenSM's quirk"
    );
    let f = random_fabric(6, 30);
    let dnup = route(&f, &Engine::Dnup).unwrap();
    assert_all_routed("dnup", &f, &dnup);
    let bad = dnup_violation(&f, &dnup, &ranks(&f, &leaf_switches(&f)));
    assert!(
        bad.is_some(),
        "dnup on random fabric 6 no longer has OpenSM's quirk"
    );
}

#[test]
fn random_engine_is_seeded_and_minimal() {
    let mut fabrics = vec![("4-ary 3-tree", fat_tree(4, 3).0)];
    fabrics.push(("random fabric", random_fabric(11, 30)));
    if let Some(run) = shared("fabrics/ib/generated/torus5x5/minhop") {
        fabrics.push(("torus5x5", load_run(&run).fabric));
    }
    for (what, f) in &fabrics {
        let a = route(f, &Engine::Random { seed: 1 }).unwrap();
        let b = route(f, &Engine::Random { seed: 1 }).unwrap();
        let c = route(f, &Engine::Random { seed: 2 }).unwrap();
        assert!(
            table_diff(f, &a, &b).is_empty(),
            "{what}: same seed, different tables"
        );
        assert!(
            !table_diff(f, &a, &c).is_empty(),
            "{what}: seeds 1 and 2 gave the same table"
        );
        assert_all_routed(what, f, &a);
        // Every choice is minimal: each next hop is one hop closer to the destination's
        // switch (or is the destination's own link).
        for h in 0..f.num_hosts() as u32 {
            let v = f.hosts[h as usize];
            let up = f.out_edges(v).next().unwrap();
            let t = f.edge_head[up as usize];
            let dist = hops_to(f, t);
            for s in (0..f.num_nodes() as u32).filter(|&s| is_switch(f, s)) {
                let e = a.next_edge(f, s, h).unwrap();
                let next = f.edge_head[e as usize];
                if s == t {
                    assert_eq!(
                        next, v,
                        "{what}: {} does not deliver",
                        f.node_names[s as usize]
                    );
                } else {
                    assert_eq!(
                        dist[next as usize] + 1,
                        dist[s as usize],
                        "{what}: {} -> {} is not minimal",
                        f.node_names[s as usize],
                        f.host_name(h)
                    );
                }
            }
        }
    }
    // Every bit of the seed matters: seeds one bit apart give different tables (a seed
    // folded in with `|` instead of `^` would give seed and seed | bit the same).
    let (f, _) = fat_tree(4, 3);
    let base = route(&f, &Engine::Random { seed: 1 }).unwrap();
    for bit in 1..64 {
        let seed = 1 ^ 1u64 << bit;
        let other = route(&f, &Engine::Random { seed }).unwrap();
        assert!(
            !table_diff(&f, &base, &other).is_empty(),
            "seeds 1 and {seed:#x} gave the same table"
        );
    }
    // Minimal choices are spread: on the 4-ary 3-tree a leaf uses all its up-ports.
    let leaf = (0..f.num_nodes() as u32)
        .find(|&v| f.node_names[v as usize] == "S0_0")
        .unwrap();
    let used: std::collections::BTreeSet<u32> = (4..f.num_hosts() as u32)
        .filter_map(|h| base.next_edge(&f, leaf, h))
        .collect();
    assert_eq!(used.len(), 4, "random routing used only {used:?}");
}

#[test]
fn disconnected_fabrics_are_refused_with_a_named_pair() {
    // Two switches without a cable between them, two hosts each.
    let mut b = Builder::default();
    let s0 = b.node("Sleft".into(), false);
    let s1 = b.node("Sright".into(), false);
    for (i, s) in [s0, s0, s1, s1].into_iter().enumerate() {
        let h = b.node(format!("H{i}"), true);
        b.cable(h, s);
    }
    let f = b.build();
    for engine in [
        Engine::Minhop,
        Engine::Updn {
            roots: Some(vec![s0]),
        },
        Engine::Updn { roots: None },
        Engine::Dnup,
        Engine::Sssp,
        Engine::Random { seed: 3 },
    ] {
        match route(&f, &engine) {
            Err(e @ RoutingError::Disconnected { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("disconnected"), "{engine}: {msg}");
                assert!(msg.contains("H0") && msg.contains("H2"), "{engine}: {msg}");
            }
            other => panic!("{engine}: expected a disconnection error, got {other:?}"),
        }
    }
    // A host without any link.
    let mut b = Builder::default();
    let s = b.node("S".into(), false);
    for i in 0..2 {
        let h = b.node(format!("H{i}"), true);
        b.cable(h, s);
    }
    b.node("Hlonely".into(), true);
    let f = b.build();
    let err = route(&f, &Engine::Minhop).unwrap_err();
    assert!(matches!(err, RoutingError::Disconnected { .. }), "{err}");
    assert!(err.to_string().contains("Hlonely has no link"), "{err}");
}

#[test]
fn degenerate_fabrics() {
    // Two hosts cabled to each other: their uplinks are the whole routing.
    let mut b = Builder::default();
    let (h0, h1) = (b.node("H0".into(), true), b.node("H1".into(), true));
    b.cable(h0, h1);
    let f = b.build();
    for engine in [Engine::Minhop, Engine::Sssp, Engine::Updn { roots: None }] {
        let table = route(&f, &engine).unwrap();
        assert_all_routed("two hosts", &f, &table);
    }
    // A third host elsewhere cannot be reached through them.
    let mut b = Builder::default();
    let (h0, h1) = (b.node("H0".into(), true), b.node("H1".into(), true));
    b.cable(h0, h1);
    let s = b.node("S".into(), false);
    let h2 = b.node("H2".into(), true);
    b.cable(h2, s);
    let err = route(&b.build(), &Engine::Minhop).unwrap_err();
    assert!(err.to_string().contains("hosts do not forward"), "{err}");
    // Two switches without hosts, cabled only to each other: no route starts or ends
    // there, so the hosts are routed as if they were not there (SSSP's balancing must
    // skip switches it never reached: they have no link to weigh).
    let mut b = Builder::default();
    let s = b.node("S".into(), false);
    for i in 0..2 {
        let h = b.node(format!("H{i}"), true);
        b.cable(h, s);
    }
    let (a, c) = (b.node("Sa".into(), false), b.node("Sc".into(), false));
    b.cable(a, c);
    let f = b.build();
    for engine in [
        Engine::Minhop,
        Engine::Sssp,
        Engine::Updn { roots: None },
        Engine::Dnup,
        Engine::Random { seed: 1 },
    ] {
        let table = route(&f, &engine).unwrap();
        assert_all_routed("two lone switches", &f, &table);
    }
    // One switch, one host: nothing to route, nothing to refuse.
    let mut b = Builder::default();
    let s = b.node("S".into(), false);
    let h = b.node("H0".into(), true);
    b.cable(h, s);
    assert!(route(&b.build(), &Engine::Dnup).is_ok());
}

#[test]
fn bad_updn_roots_are_refused() {
    let (f, _) = fat_tree(2, 2);
    let host = f.hosts[0];
    let err = route(
        &f,
        &Engine::Updn {
            roots: Some(vec![host]),
        },
    )
    .unwrap_err();
    assert!(matches!(err, RoutingError::BadRoot { .. }), "{err}");
    let err = route(
        &f,
        &Engine::Updn {
            roots: Some(vec![u32::MAX]),
        },
    )
    .unwrap_err();
    assert!(matches!(err, RoutingError::BadRoot { .. }), "{err}");
    let err = route(
        &f,
        &Engine::Updn {
            roots: Some(Vec::new()),
        },
    )
    .unwrap_err();
    assert!(matches!(err, RoutingError::NoRoots(_)), "{err}");
}

#[test]
fn engine_names_parse() {
    for (name, engine) in [
        ("minhop", Engine::Minhop),
        ("updn", Engine::Updn { roots: None }),
        ("dnup", Engine::Dnup),
        ("sssp", Engine::Sssp),
        ("dfsssp", Engine::Sssp),
        ("random", Engine::Random { seed: 9 }),
    ] {
        assert_eq!(parse_engine(name, 9), Some(engine));
    }
    assert_eq!(parse_engine("ftree", 0), None);
}

#[test]
fn large_fat_tree_routes_quickly() {
    // 4096 hosts and 768 switches in release builds (the size the engines are made for);
    // a 512-host tree in debug builds.
    let (k, n) = if cfg!(debug_assertions) {
        (8, 3)
    } else {
        (16, 3)
    };
    let (f, top) = fat_tree(k, n);
    let mut report = Vec::new();
    for engine in [
        Engine::Minhop,
        Engine::Updn {
            roots: Some(top.clone()),
        },
        Engine::Updn { roots: None },
        Engine::Dnup,
        Engine::Sssp,
        Engine::Random { seed: 5 },
    ] {
        let start = Instant::now();
        let table = route(&f, &engine).unwrap_or_else(|e| panic!("{engine}: {e}"));
        let took = start.elapsed();
        let label = match &engine {
            Engine::Updn { roots: None } => "updn (detected roots)".to_string(),
            other => other.to_string(),
        };
        report.push(format!("{label} {:.3} s", took.as_secs_f64()));
        assert_all_routed(&format!("{k}-ary {n}-tree {engine}"), &f, &table);
        if let Engine::Updn { roots: None } = engine {
            // Detection finds exactly the top level: same table as with the top given.
            let given = route(
                &f,
                &Engine::Updn {
                    roots: Some(top.clone()),
                },
            )
            .unwrap();
            assert!(table_diff(&f, &table, &given).is_empty());
        }
    }
    eprintln!(
        "{k}-ary {n}-tree ({} hosts, {} switches): {}",
        f.num_hosts(),
        f.num_switches(),
        report.join(", ")
    );
}

// ---------------------------------------------------------------------------------------
// Live OpenSM oracle (optional)
// ---------------------------------------------------------------------------------------

/// Writes an ibsim net file for `f` and returns the GUID given to each node: random
/// GUIDs from `guid_seed` (so that OpenSM's GUID orders matter), else GUIDs in node order
/// (so that OpenSM's updn tie-breaks by GUID like ours by node index).
fn write_net(f: &Fabric, guid_seed: Option<u64>, path: &Path) -> Vec<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(guid_seed.unwrap_or(0));
    let guids: Vec<u64> = (0..f.num_nodes() as u32)
        .map(|v| {
            let (base, random) = if is_switch(f, v) {
                (0x0002_c900_0000_0000u64, rng.random_range(0..1u64 << 40))
            } else {
                (
                    0x0008_f100_0000_0000u64,
                    rng.random_range(0..1u64 << 36) << 4,
                )
            };
            base | if guid_seed.is_some() {
                random
            } else {
                v as u64 * 16
            }
        })
        .collect();
    let port_of = |e: u32| f.edge_keys[e as usize].as_deref().unwrap().to_string();
    // The cable partner of each edge: same line, other direction.
    let partner = |e: u32| {
        let (t, h) = (f.edge_tail[e as usize], f.edge_head[e as usize]);
        f.out_edges(h)
            .find(|&r| {
                f.edge_head[r as usize] == t && f.edge_lines[r as usize] == f.edge_lines[e as usize]
            })
            .unwrap()
    };
    // Hosts first: OpenSM attaches to the first node.
    let mut order: Vec<u32> = f.hosts.clone();
    order.extend((0..f.num_nodes() as u32).filter(|&v| is_switch(f, v)));
    let mut out = String::new();
    for v in order {
        let name = &f.node_names[v as usize];
        let ports = f.out_edges(v).len().max(1);
        let guid = guids[v as usize];
        if is_switch(f, v) {
            out += &format!("switchguid={guid:#018x}\nSwitch\t{ports} \"{name}\"\n");
        } else {
            out += &format!("caguid={guid:#018x}\nHca\t{ports} \"{name}\"\n");
        }
        for e in f.out_edges(v) {
            out += &format!(
                "[{}]\t\"{}\"[{}]\n",
                port_of(e),
                f.node_names[f.edge_head[e as usize] as usize],
                port_of(partner(e))
            );
        }
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
    guids
}

#[test]
fn live_opensm_agrees_on_irregular_fabrics() {
    if !opensm_tools_present() {
        return;
    }
    let tool = repo("tools/opensm-route");
    let dir = tempfile::tempdir().unwrap();
    // (fabric seed, switches, GUID seed, engines). The last two are the fabrics of
    // `updn_and_dnup_keep_opensms_bfs_quirk`: OpenSM's own tables break the up/down rule.
    let cases: [(u64, u32, Option<u64>, &[&str]); 3] = [
        (21, 14, Some(5), &["minhop", "dnup", "sssp", "updn"]),
        (1, 22, None, &["updn"]),
        (6, 30, None, &["dnup"]),
    ];
    for (seed, switches, guid_seed, engines) in cases {
        let fabric = random_fabric(seed, switches);
        let net = dir.path().join(format!("r{seed}.net"));
        let guids = write_net(&fabric, guid_seed, &net);
        // updn with one root: switch S0 (node 0).
        let roots_file = dir.path().join(format!("r{seed}-roots"));
        std::fs::write(&roots_file, format!("{:#x}\n", guids[0])).unwrap();
        for &engine in engines {
            let out = dir.path().join(format!("r{seed}-{engine}"));
            let mut cmd = Command::new(&tool);
            cmd.args(["-R", engine]);
            if engine == "updn" {
                cmd.arg("-a").arg(&roots_file);
            }
            let result = cmd.arg(&net).arg(&out).output().unwrap();
            assert!(
                result.status.success(),
                "opensm-route -R {engine} failed:\n{}\n{}",
                String::from_utf8_lossy(&result.stdout),
                String::from_utf8_lossy(&result.stderr)
            );
            let loaded = load_run(&out);
            let f = &loaded.fabric;
            let what = format!("random fabric {seed} {engine}");
            let ours = match engine {
                "updn" => route(
                    f,
                    &Engine::Updn {
                        roots: Some(read_roots(f, &roots_file)),
                    },
                ),
                _ => route(f, &parse_engine(engine, 0).unwrap()),
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_same_table(&what, f, &ours, &loaded.table);
            if guid_seed.is_none() {
                let bad = match engine {
                    "updn" => {
                        let rank = ranks(f, &read_roots(f, &roots_file));
                        updn_violation(f, &loaded.table, &rank, &updn_ids(f))
                    }
                    _ => dnup_violation(f, &loaded.table, &ranks(f, &leaf_switches(f))),
                };
                assert!(
                    bad.is_some(),
                    "{what}: OpenSM's table keeps the up/down rule here"
                );
            }
        }
    }
}
