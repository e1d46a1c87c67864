//! The clusters a scenario names: files, PFSim's XGFT and torus generators, and any
//! `orcs gen` topology.

use super::scenario::TopologySpec;
use crate::cluster::{read_cluster, Cluster, ClusterError};
use crate::gen::topology::{generate_within, FabricSize, GenError};
use crate::limits::{Estimate, MemoryLimit};

/// Most levels of a PFSim XGFT and dimensions of a torus (the generators' limit).
const MAX_LEVELS: usize = 32;

/// Builds the cluster of `spec` within `memory`: a file that cannot be read is a
/// [`ClusterError::Input`] (the file and line), a generator specification that is
/// invalid or beyond the generators' size limits a [`ClusterError::Generate`], and one
/// whose cluster needs more than `memory` a [`ClusterError::Limit`], before anything is
/// built. O(nodes + edges).
pub fn build_topology(spec: &TopologySpec, memory: MemoryLimit) -> Result<Cluster, ClusterError> {
    match spec {
        TopologySpec::File { path } => Ok(read_cluster(path)?),
        TopologySpec::Xgft { m, w, bw, npe, .. } => {
            let size = pfsim_xgft_size(m, w)?;
            memory.check(&cluster_estimate("xgft", &size))?;
            Ok(pfsim_xgft(m, w, *bw, *npe))
        }
        TopologySpec::Torus { dims, bw, npe } => {
            let size = torus_size(dims)?;
            memory.check(&cluster_estimate("torus", &size))?;
            Ok(torus(dims, *bw, *npe))
        }
        TopologySpec::Gen { spec } => {
            let generated = generate_within(spec, memory)?;
            Ok(Cluster::from_fabric(&generated.fabric, spec)?)
        }
    }
}

/// What a cluster of `size` holds while jobs run on it: per node its name, adjacency
/// and the path finder's state, per directed edge its ends, capacity and loads.
fn cluster_estimate(kind: &str, size: &FabricSize) -> Estimate {
    Estimate::new(format!(
        "the {kind} cluster ({} hosts, {} switches, {} links)",
        size.hosts, size.switches, size.cables
    ))
    .add(size.nodes(), "nodes", 128)
    .add(size.cables.saturating_mul(2), "directed edges", 40)
}

/// The size of [`pfsim_xgft`]`(m, w, ..)`, within the generators' size limits. A level-l
/// block (hosts are level 0) is one of `m[l]⋯m[h-1]`, and its `w[0]⋯w[l-1]` switches
/// each link to every top node of its `m[l-1]` children.
pub fn pfsim_xgft_size(m: &[u32], w: &[u32]) -> Result<FabricSize, GenError> {
    const G: &str = "xgft";
    if m.len() > MAX_LEVELS || m.len() != w.len() {
        return Err(GenError::Parameter {
            generator: G,
            parameter: "h",
            value: m.len().to_string(),
            valid: format!("h must be at most {MAX_LEVELS}, with h entries in m and in w"),
        });
    }
    let product = |v: &[u32]| v.iter().fold(1u128, |a, &x| a.saturating_mul(x as u128));
    let hosts = product(m);
    let (mut switches, mut links) = (0u128, 0u128);
    for level in 1..=m.len() {
        let blocks = product(&m[level..]);
        let per_block = product(&w[..level]);
        let tops = if level == 1 {
            1
        } else {
            product(&w[..level - 1])
        };
        let level_switches = blocks.saturating_mul(per_block);
        switches = switches.saturating_add(level_switches);
        links = links.saturating_add(
            level_switches
                .saturating_mul(m[level - 1] as u128)
                .saturating_mul(tops),
        );
    }
    FabricSize {
        hosts,
        switches,
        cables: links,
        max_ports: 0,
    }
    .check(G)
}

/// The size of [`torus`]`(dims, ..)`, within the generators' size limits.
pub fn torus_size(dims: &[u32]) -> Result<FabricSize, GenError> {
    const G: &str = "torus";
    if dims.len() > MAX_LEVELS {
        return Err(GenError::Parameter {
            generator: G,
            parameter: "dims",
            value: dims.len().to_string(),
            valid: format!("give at most {MAX_LEVELS} dimensions"),
        });
    }
    let nodes = dims.iter().fold(1u128, |a, &d| a.saturating_mul(d as u128));
    let links = dims.iter().fold(0u128, |a, &d| {
        a.saturating_add(match d {
            0 | 1 => 0,
            2 => nodes / 2,
            _ => nodes,
        })
    });
    FabricSize {
        hosts: nodes,
        switches: 0,
        cables: links,
        max_ports: 0,
    }
    .check(G)
}

/// A cluster under construction: nodes named by their ids, links added in both
/// directions.
struct Builder {
    c: Cluster,
}

impl Builder {
    fn node(&mut self, host: Option<u32>) -> u32 {
        let id = self.c.names.len() as u32;
        self.c.names.push(id.to_string());
        self.c.is_host.push(host.is_some());
        self.c.out_edges.push(Vec::new());
        if let Some(pes) = host {
            self.c.hosts.push(id);
            self.c.host_pes.push(pes);
        }
        id
    }

    fn link(&mut self, a: u32, b: u32, capacity: f64) {
        for (u, v) in [(a, b), (b, a)] {
            self.c.out_edges[u as usize].push(self.c.edges.len() as u32);
            self.c.edges.push((u, v, capacity));
        }
    }
}

/// PFSim's XGFT(h; m; w) (spec pfsim.md §3.2): a level-l block holds m[l−1] level-(l−1)
/// blocks and `w[0]·…·w[l−1]` switches, each linked in both directions to every top
/// switch of every child block (a complete bipartite level, denser than the textbook
/// XGFT); level-0 blocks are hosts with `npe` processing elements. Node ids are integers
/// in creation order, children before their parents' switches, so hosts are numbered
/// left to right. O(switches × children); the recursion is h deep, and the sizes must be
/// within [`pfsim_xgft_size`]'s limits ([`build_topology`] checks them).
pub fn pfsim_xgft(m: &[u32], w: &[u32], bw: f64, npe: u32) -> Cluster {
    fn block(b: &mut Builder, level: usize, m: &[u32], w: &[u32], bw: f64, npe: u32) -> Vec<u32> {
        if level == 0 {
            return vec![b.node(Some(npe))];
        }
        let children: Vec<Vec<u32>> = (0..m[level - 1])
            .map(|_| block(b, level - 1, m, w, bw, npe))
            .collect();
        let count: u32 = w[..level].iter().product();
        let switches: Vec<u32> = (0..count).map(|_| b.node(None)).collect();
        for &s in &switches {
            for child in &children {
                for &t in child {
                    b.link(t, s, bw);
                }
            }
        }
        switches
    }
    let mut b = Builder {
        c: Cluster {
            name: Some(format!("xgft-{}", m.len())),
            ..Cluster::default()
        },
    };
    block(&mut b, m.len(), m, w, bw, npe);
    b.c
}

/// PFSim's n-dimensional torus: every node is a host with `npe` processing elements,
/// linked in both directions to its +1 neighbour in every dimension of size ≥ 2 (with
/// wraparound; a dimension of size 2 has one link). Ids in row-major order (first
/// dimension slowest). O(nodes × dimensions); the sizes must be within
/// [`torus_size`]'s limits ([`build_topology`] checks them).
pub fn torus(dims: &[u32], bw: f64, npe: u32) -> Cluster {
    let mut b = Builder {
        c: Cluster {
            name: Some("torus".to_string()),
            ..Cluster::default()
        },
    };
    let total: u32 = dims.iter().product();
    for _ in 0..total {
        b.node(Some(npe));
    }
    // Stride of each dimension in row-major order.
    let mut stride = vec![1u32; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        stride[d] = stride[d + 1] * dims[d + 1];
    }
    for v in 0..total {
        for d in 0..dims.len() {
            let size = dims[d];
            if size < 2 {
                continue;
            }
            let coord = (v / stride[d]) % size;
            if size == 2 && coord == 1 {
                continue; // the single link is added from coordinate 0
            }
            let next = v - coord * stride[d] + ((coord + 1) % size) * stride[d];
            b.link(v, next, bw);
        }
    }
    b.c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pfsim_xgft_counts_match_the_spec() {
        // xgft-cg.yml: h = 3, m = [4, 4, 3], w = [1, 2, 2]: 48 hosts, 22 switches, 192
        // directed edges, 16 minimal paths between the first and the last host.
        let c = pfsim_xgft(&[4, 4, 3], &[1, 2, 2], 1.0, 8);
        assert_eq!(c.hosts.len(), 48);
        assert_eq!(c.names.len() - c.hosts.len(), 22);
        assert_eq!(c.edges.len(), 192);
        assert!(c.host_pes.iter().all(|&p| p == 8));
        let (first, last) = (c.hosts[0], *c.hosts.last().unwrap());
        assert_eq!(
            crate::cluster::paths::shortest_paths(&c, first, last).len(),
            16
        );
    }

    #[test]
    fn sizes_are_known_before_building() {
        for (m, w) in [
            (vec![4, 4, 3], vec![1, 2, 2]),
            (vec![3, 2], vec![1, 3]),
            (vec![5], vec![1]),
        ] {
            let c = pfsim_xgft(&m, &w, 1.0, 1);
            let size = pfsim_xgft_size(&m, &w).unwrap();
            assert_eq!(size.hosts as usize, c.hosts.len());
            assert_eq!(size.nodes() as usize, c.names.len());
            assert_eq!(2 * size.cables as usize, c.edges.len());
        }
        for dims in [vec![4, 5], vec![2, 3], vec![1, 7], vec![3, 3, 2]] {
            let c = torus(&dims, 1.0, 1);
            let size = torus_size(&dims).unwrap();
            assert_eq!(size.nodes() as usize, c.names.len());
            assert_eq!(2 * size.cables as usize, c.edges.len());
        }
        assert!(pfsim_xgft_size(&[1000, 1000, 1000], &[1, 1, 1]).is_err());
        assert!(pfsim_xgft_size(&[1; 33], &[1; 33]).is_err());
        assert!(torus_size(&[100_000, 100_000]).is_err());
        let huge = TopologySpec::Torus {
            dims: vec![4000, 4000],
            bw: 1.0,
            npe: 1,
        };
        assert!(matches!(
            build_topology(&huge, MemoryLimit::given(1 << 30)),
            Err(ClusterError::Limit(_))
        ));
    }

    #[test]
    fn torus_links() {
        // 4 × 5: every node has 4 neighbours, 20 × 4 directed edges. 2 × 3: dimension 0
        // has one link per pair, dimension 1 a ring: 6 × 3 directed edges.
        assert_eq!(torus(&[4, 5], 1.0, 1).edges.len(), 80);
        let small = torus(&[2, 3], 1.0, 1);
        assert_eq!(small.edges.len(), 18);
        assert!(small.edges.iter().all(|&(u, v, _)| u != v));
    }
}
