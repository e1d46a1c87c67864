//! Grids of switches: meshes and tori, hypercubes and HyperX, all recorded as a
//! [`Structure::Grid`] with every node's switch coordinates.

use super::builder::{coord_name, join_x, Builder};
use super::{bad, product, FabricSize, GenError, MAX_DIMENSIONS};
use crate::gen::{Generated, Structure};

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
    let first = b.next_node();
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
    let size = grid_size(dims, wrap, hosts_per_switch)?;
    let (switches, hosts) = (size.switches, size.hosts);
    let wraps: Vec<bool> = dims.iter().map(|&d| wrap && d >= 3).collect();
    let (mut b, first, coords) = grid_nodes(dims, hosts_per_switch, size.cables);
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
    let size = hypercube_size(dimension, hosts_per_switch)?;
    let (switches, hosts) = (size.switches, size.hosts);
    let dims = vec![2u32; dimension as usize];
    let (mut b, first, coords) = grid_nodes(&dims, hosts_per_switch, size.cables);
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
    let size = hyperx_size(dims, hosts_per_switch)?;
    let (switches, hosts) = (size.switches, size.hosts);
    let (mut b, first, coords) = grid_nodes(dims, hosts_per_switch, size.cables);
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

/// The size of [`grid`]`(dims, wrap, hosts_per_switch)`, or why it cannot be built.
pub(super) fn grid_size(
    dims: &[u32],
    wrap: bool,
    hosts_per_switch: u32,
) -> Result<FabricSize, GenError> {
    let generator = if wrap { "torus" } else { "mesh" };
    check_dims(generator, dims, hosts_per_switch)?;
    let switches = product(dims.iter().map(|&d| d as u128));
    let hosts = switches.saturating_mul(hosts_per_switch as u128);
    let links = dims.iter().fold(0u128, |a, &d| {
        let per_dim = if wrap && d >= 3 {
            switches
        } else {
            switches / d as u128 * (d as u128 - 1)
        };
        a.saturating_add(per_dim)
    });
    FabricSize {
        hosts,
        switches,
        cables: hosts.saturating_add(links),
        max_ports: hosts_per_switch as u128 + 2 * dims.len() as u128,
    }
    .check(generator)
}

/// The size of [`hypercube`]`(dimension, hosts_per_switch)`, or why it cannot be built.
pub(super) fn hypercube_size(
    dimension: u32,
    hosts_per_switch: u32,
) -> Result<FabricSize, GenError> {
    const G: &str = "hypercube";
    if !(1..=24).contains(&dimension) {
        return Err(bad(G, "d", dimension, "the dimension must be in 1..=24"));
    }
    if hosts_per_switch == 0 {
        return Err(bad(G, "hosts", 0, "hosts per switch must be at least 1"));
    }
    let switches = 1u128 << dimension;
    let hosts = switches * hosts_per_switch as u128;
    FabricSize {
        hosts,
        switches,
        cables: hosts + switches / 2 * dimension as u128,
        max_ports: hosts_per_switch as u128 + dimension as u128,
    }
    .check(G)
}

/// The size of [`hyperx`]`(dims, hosts_per_switch)`, or why it cannot be built.
pub(super) fn hyperx_size(dims: &[u32], hosts_per_switch: u32) -> Result<FabricSize, GenError> {
    const G: &str = "hyperx";
    check_dims(G, dims, hosts_per_switch)?;
    let switches = product(dims.iter().map(|&d| d as u128));
    let hosts = switches.saturating_mul(hosts_per_switch as u128);
    let links = dims.iter().fold(0u128, |a, &d| {
        a.saturating_add(switches.saturating_mul(d as u128 - 1) / 2)
    });
    let degree: u128 = dims.iter().map(|&d| d as u128 - 1).sum();
    FabricSize {
        hosts,
        switches,
        cables: hosts.saturating_add(links),
        max_ports: hosts_per_switch as u128 + degree,
    }
    .check(G)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::structured::dor;

    /// Two switches of a 2-switch mesh joined by three parallel cables, cabled in an
    /// order that is not their ports' order, and a host with a second cable.
    ///
    /// - S0 (coordinate 0) reaches S1 through its ports 5, 3 and 6; S1 reaches S0 through
    ///   its ports 7, 6 and 2. Dimension-order routing takes the lowest port of parallel
    ///   links: 3 from S0, 2 from S1.
    /// - H0 hangs from S1 by its port 1 and has a second cable, on its port 2, to S0
    ///   (a lower node id, so that edge comes first in H0's edge list). H0's switch is
    ///   the one on its lowest port: S1, whose coordinate H0 has.
    /// - H1 hangs from S0 by its port 1.
    #[test]
    fn dor_takes_the_lowest_of_parallel_ports_and_a_hosts_lowest_port() {
        let mut b = Builder::new(4, 6);
        b.hosts(2);
        let s0 = b.switch("S0".into());
        let s1 = b.switch("S1".into());
        b.cable(0, 1, s1, 1);
        b.cable(0, 2, s0, 4);
        b.cable(1, 1, s0, 1);
        for (p0, p1) in [(5, 7), (3, 6), (6, 2)] {
            b.cable(s0, p0, s1, p1);
        }
        let g = Generated {
            fabric: b.finish(),
            structure: Structure::Grid {
                dims: vec![2],
                wrap: vec![false],
                coords: vec![vec![1], vec![0], vec![0], vec![1]],
                all_to_all: false,
            },
            description: "two switches, three parallel cables".into(),
        };
        let f = &g.fabric;
        let port = |v: u32, dst: u32| {
            let e = dor(&g, false).unwrap().next_edge(f, v, dst).unwrap();
            let e = e as usize;
            (
                f.edge_keys[e].clone(),
                f.node_names[f.edge_head[e] as usize].clone(),
            )
        };
        let expect = |p: &str, head: &str| (Some(p.to_owned()), head.to_owned());
        assert_eq!(port(s0, 0), expect("3", "S1"));
        assert_eq!(port(s1, 1), expect("2", "S0"));
        assert_eq!(port(s1, 0), expect("1", "H00000"));
        assert_eq!(port(s0, 1), expect("1", "H00001"));
        assert_eq!(port(0, 1), expect("1", "S1"));
    }
}
