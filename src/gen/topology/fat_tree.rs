//! Fat trees: k-ary n-trees, extended generalized fat trees (XGFTs) and slimmed
//! (oversubscribed) two-level trees, all recorded as a [`Structure::Tree`].

use super::builder::{join_x, Builder};
use super::{bad, product, FabricSize, GenError, MAX_DIMENSIONS};
use crate::gen::{Generated, Structure};

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
    kary_ntree_size(k, n)?;
    let m = vec![k; n as usize];
    let mut w = vec![k; n as usize];
    w[0] = 1;
    let mut g = build_xgft(KARY, &m, &w)?;
    g.description = format!(
        "kary-ntree:k={k},n={n} ({k}-ary {n}-tree: {} hosts, {} switches of {} ports)",
        g.fabric.num_hosts(),
        g.fabric.num_switches(),
        2 * k as u64
    );
    Ok(g)
}

/// The name of [`kary_ntree`] in errors.
const KARY: &str = "kary-ntree";

/// The size of [`kary_ntree`]`(k, n)`, or why it cannot be built.
pub(super) fn kary_ntree_size(k: u32, n: u32) -> Result<FabricSize, GenError> {
    const G: &str = KARY;
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
    Ok(xgft_counts(G, &m, &w)?.0)
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
    xgft_size(m, w)?;
    let list = |v: &[u32]| join_x(v);
    let mut g = build_xgft("xgft", m, w)?;
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

/// The size of [`xgft`]`(m, w)`, or why it cannot be built.
pub(super) fn xgft_size(m: &[u32], w: &[u32]) -> Result<FabricSize, GenError> {
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
    Ok(xgft_counts(G, m, w)?.0)
}

/// The size of a validated XGFT (see [`xgft`]) and its switches per level, within the
/// size limits.
fn xgft_counts(
    generator: &'static str,
    m: &[u32],
    w: &[u32],
) -> Result<(FabricSize, Vec<u128>), GenError> {
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
    let size = FabricSize {
        hosts,
        switches,
        cables,
        max_ports: ports,
    }
    .check(generator)?;
    Ok((size, count))
}

/// Builds a validated XGFT (see [`xgft`]).
fn build_xgft(generator: &'static str, m: &[u32], w: &[u32]) -> Result<Generated, GenError> {
    let h = m.len();
    let (size, count) = xgft_counts(generator, m, w)?;
    let (hosts, switches, cables) = (size.hosts, size.switches, size.cables);
    let count: Vec<u32> = count.iter().map(|&c| c as u32).collect();
    let n_hosts = hosts as u32;

    let mut b = Builder::new((hosts + switches) as usize, cables as usize);
    b.hosts(n_hosts);
    let mut base = Vec::with_capacity(h);
    let mut level = vec![0u32; n_hosts as usize];
    let mut index: Vec<u32> = (0..n_hosts).collect();
    for (l, &c) in count.iter().enumerate() {
        base.push(b.next_node());
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
    let size = slimmed_two_level_size(hosts_per_leaf, leaves, uplinks, spines)?;
    let c = uplinks / spines;
    let hosts = size.hosts;
    let mut b = Builder::new(size.nodes() as usize, size.cables as usize);
    b.hosts(hosts as u32);
    let leaf0 = b.next_node();

    let mut level = vec![0u32; hosts as usize];
    let mut index: Vec<u32> = (0..hosts as u32).collect();
    for i in 0..leaves {
        b.switch(format!("S0_{i}"));
        level.push(1);
        index.push(i);
    }
    let spine0 = b.next_node();
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

/// The size of [`slimmed_two_level`] with these parameters, or why it cannot be built.
pub(super) fn slimmed_two_level_size(
    hosts_per_leaf: u32,
    leaves: u32,
    uplinks: u32,
    spines: u32,
) -> Result<FabricSize, GenError> {
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
    FabricSize {
        hosts,
        switches: leaves as u128 + spines as u128,
        cables: hosts + leaves as u128 * uplinks as u128,
        max_ports: (hosts_per_leaf as u128 + uplinks as u128).max(leaves as u128 * c as u128),
    }
    .check(G)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::structured::dmodk;

    /// The 4-ary 2-tree built cable by cable as [`build_xgft`] lays it out, plus
    /// `extra` more cables, each from spine s (port 5) to leaf s (port 9).
    fn four_ary_two_tree(extra: u32) -> Generated {
        four_ary_two_tree_with(extra, |x| x)
    }

    /// [`four_ary_two_tree`] with host x cabled where host `place(x)` would be.
    fn four_ary_two_tree_with(extra: u32, place: impl Fn(u32) -> u32) -> Generated {
        four_ary_two_tree_cabled(extra, place, |_| {})
    }

    /// [`four_ary_two_tree_with`], then `more` adds its own cables.
    fn four_ary_two_tree_cabled(
        extra: u32,
        place: impl Fn(u32) -> u32,
        more: impl FnOnce(&mut Builder),
    ) -> Generated {
        let mut g = kary_ntree(4, 2).unwrap();
        let mut b = Builder::new(24, 32 + extra as usize);
        b.hosts(16);
        for l in 0..2 {
            for j in 0..4 {
                b.switch(format!("S{l}_{j}"));
            }
        }
        for x in 0..16 {
            let p = place(x);
            b.cable(x, 1, 16 + p / 4, p % 4 + 1);
        }
        for leaf in 0..4 {
            for u in 0..4 {
                b.cable(16 + leaf, 5 + u, 20 + u, leaf + 1);
            }
        }
        for s in 0..extra {
            b.cable(20 + s, 5, 16 + s, 9);
        }
        more(&mut b);
        g.fabric = b.finish();
        g
    }

    /// D-mod-K checks each level's down-links against m: spines with a fifth cable
    /// down (each to another leaf, so that every leaf still has as many up-links as
    /// the others) have 5 down-links for m's 4 children, and the tree is refused by
    /// that count.
    #[test]
    fn dmodk_refuses_spines_whose_down_links_do_not_fit_m() {
        assert!(dmodk(&four_ary_two_tree(0)).is_ok());
        let e = dmodk(&four_ary_two_tree(4)).unwrap_err();
        assert!(
            e.to_string()
                .contains("switches of level 1 have 5 down-links for 4 children"),
            "{e}"
        );
    }

    /// Hosts 0 and 1 swap their leaf ports, and the structure their indices: the leaf's
    /// down-links still fit, but a host's index must be its place among the hosts.
    #[test]
    fn dmodk_refuses_hosts_whose_index_is_not_their_place() {
        let mut g = four_ary_two_tree_with(0, |x| match x {
            0 => 1,
            1 => 0,
            x => x,
        });
        if let Structure::Tree { index, .. } = &mut g.structure {
            index.swap(0, 1);
        }
        let e = dmodk(&g).unwrap_err();
        assert!(
            e.to_string()
                .contains("host H00000 (index 0) is attached to S0_0"),
            "{e}"
        );
    }

    /// Hosts 0 and 1 also cabled to each other, each on its port 2. That edge comes
    /// first in each host's edge list (a host's node id is below its leaf's), but a host
    /// hangs from the switch on its lowest port: the tree is accepted, and routed as
    /// without the cable.
    #[test]
    fn dmodk_finds_a_hosts_leaf_on_its_lowest_port() {
        let plain = four_ary_two_tree(0);
        let g = four_ary_two_tree_cabled(0, |x| x, |b| b.cable(0, 2, 1, 2));
        let (f, t, u) = (&g.fabric, dmodk(&g).unwrap(), dmodk(&plain).unwrap());
        assert_eq!(f.num_edges(), plain.fabric.num_edges() + 2);
        let head = |f: &crate::fabric::Fabric, e: Option<u32>| {
            f.node_names[f.edge_head[e.unwrap() as usize] as usize].clone()
        };
        for v in 0..f.num_nodes() as u32 {
            for d in 0..16 {
                assert_eq!(
                    head(f, t.next_edge(f, v, d)),
                    head(&plain.fabric, u.next_edge(&plain.fabric, v, d)),
                    "node {v}, destination {d}"
                );
            }
        }
        assert_eq!(head(f, t.next_edge(f, 0, 1)), "S0_0");
    }
}
