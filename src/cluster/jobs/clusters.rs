//! The clusters a scenario names: files, PFSim's XGFT and torus generators, and any
//! `orcs gen` topology.

use super::scenario::TopologySpec;
use crate::cluster::{read_cluster, Cluster, ClusterError};

/// Builds the cluster of `spec`: a file that cannot be read is a
/// [`ClusterError::Input`] (the file and line), a generator specification that is
/// invalid a [`ClusterError::Generate`]. O(nodes + edges).
pub fn build_topology(spec: &TopologySpec) -> Result<Cluster, ClusterError> {
    match spec {
        TopologySpec::File { path } => Ok(read_cluster(path)?),
        TopologySpec::Xgft { m, w, bw, npe, .. } => Ok(pfsim_xgft(m, w, *bw, *npe)),
        TopologySpec::Torus { dims, bw, npe } => Ok(torus(dims, *bw, *npe)),
        TopologySpec::Gen { spec } => {
            let generated = crate::gen::topology::generate(spec)?;
            Ok(Cluster::from_fabric(&generated.fabric, spec)?)
        }
    }
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
/// left to right. O(switches × children).
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
/// dimension slowest). O(nodes × dimensions).
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
    fn torus_links() {
        // 4 × 5: every node has 4 neighbours, 20 × 4 directed edges. 2 × 3: dimension 0
        // has one link per pair, dimension 1 a ring: 6 × 3 directed edges.
        assert_eq!(torus(&[4, 5], 1.0, 1).edges.len(), 80);
        let small = torus(&[2, 3], 1.0, 1);
        assert_eq!(small.edges.len(), 18);
        assert!(small.edges.iter().all(|&(u, v, _)| u != v));
    }
}
