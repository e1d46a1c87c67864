//! The bytes and flows each link of a cluster carries, and their statistics over the
//! network links.
//!
//! Network links are loaded: switch-to-switch links, and host-to-host links of direct
//! networks. Host-to-switch links are not (they carry every byte of their host whatever
//! the routing, so they would only hide the differences).

use crate::cluster::paths::Routes;
use crate::cluster::placement::HostPairs;
use crate::cluster::Cluster;

/// Bytes and flows on every directed edge of a cluster (indexed like `Cluster::edges`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkLoads {
    /// Bytes routed over each edge.
    pub bytes: Vec<u64>,
    /// Rank pairs routed over each edge.
    pub flows: Vec<u64>,
}

impl LinkLoads {
    /// Zero loads on every edge of `cluster`.
    pub fn new(cluster: &Cluster) -> Self {
        LinkLoads {
            bytes: vec![0; cluster.edges.len()],
            flows: vec![0; cluster.edges.len()],
        }
    }

    /// Adds `bytes` and `flows` to the network links of `path` (edge indices).
    pub(crate) fn add(&mut self, cluster: &Cluster, path: &[u32], bytes: u64, flows: u64) {
        for &e in path {
            if is_network_link(cluster, e) {
                self.bytes[e as usize] += bytes;
                self.flows[e as usize] += flows;
            }
        }
    }

    /// Takes back what [`LinkLoads::add`] added.
    fn remove(&mut self, cluster: &Cluster, path: &[u32], bytes: u64, flows: u64) {
        for &e in path {
            if is_network_link(cluster, e) {
                self.bytes[e as usize] -= bytes;
                self.flows[e as usize] -= flows;
            }
        }
    }
}

/// Whether edge `e` is a network link (switch–switch, or host–host in a direct network)
/// rather than a host's link to its switch. O(1).
pub(crate) fn is_network_link(cluster: &Cluster, e: u32) -> bool {
    let (u, v, _) = cluster.edges[e as usize];
    cluster.is_host[u as usize] == cluster.is_host[v as usize]
}

/// Removes a finished job's traffic: `routes` and `pairs` as
/// [`route_job`](crate::cluster::paths::route_job) returned and took them.
/// O(Σ route lengths).
pub(crate) fn unroute_job(
    cluster: &Cluster,
    pairs: &HostPairs,
    routes: &Routes,
    loads: &mut LinkLoads,
) {
    for (i, &(_, _, bytes, flows)) in pairs.pairs.iter().enumerate() {
        loads.remove(cluster, routes.path(i), bytes, flows);
    }
}

/// The load of the network links relative to their capacity (switch–switch, and
/// host–host in direct networks), as PFSim reports it for switch–switch links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetworkLoadStats {
    /// Network links.
    pub links: usize,
    /// Largest bytes ÷ capacity.
    pub max: f64,
    /// Smallest bytes ÷ capacity.
    pub min: f64,
    /// Mean bytes ÷ capacity.
    pub mean: f64,
    /// Sample variance (n − 1) of bytes ÷ capacity.
    pub variance: f64,
    /// Largest number of rank pairs on one link.
    pub max_flows: u64,
}

/// Statistics of `loads` over the network links of `cluster`. O(edges), no allocation
/// (the jobs simulation takes them at every event).
pub fn network_load_stats(cluster: &Cluster, loads: &LinkLoads) -> NetworkLoadStats {
    // (bytes ÷ capacity, flows) per network link, in edge order.
    let network = || {
        cluster
            .edges
            .iter()
            .enumerate()
            .filter(|&(e, _)| is_network_link(cluster, e as u32))
            .map(|(e, &(_, _, cap))| (loads.bytes[e] as f64 / cap, loads.flows[e]))
    };
    let (links, max, min, max_flows) = network().fold(
        (0usize, 0.0f64, f64::INFINITY, 0u64),
        |(links, max, min, flows), (ratio, f)| {
            (links + 1, max.max(ratio), min.min(ratio), flows.max(f))
        },
    );
    let n = links as f64;
    let mean = network().map(|v| v.0).sum::<f64>() / n.max(1.0);
    let variance = if links > 1 {
        network().map(|v| (v.0 - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    NetworkLoadStats {
        links,
        max,
        min,
        mean,
        variance,
        max_flows,
    }
}
