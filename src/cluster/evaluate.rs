//! One application's traffic matrix placed and routed on a cluster for every
//! combination of node selection, process placement and path routing asked for
//! (`orcs traffic`). Each combination starts from the same seed on an empty cluster, so
//! combinations differ only by their algorithms.

use crate::cluster::loads::{network_load_stats, LinkLoads, NetworkLoadStats};
use crate::cluster::paths::{route_job, PathRouter};
use crate::cluster::placement::{host_pairs, map_ranks, Mapper};
use crate::cluster::selection::{select_hosts, Selector};
use crate::cluster::{Cluster, ClusterError};
use crate::workload::matrix::TrafficMatrix;
use rand::SeedableRng;

/// One combination of algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Combination {
    /// Node selection.
    pub selector: Selector,
    /// Process placement.
    pub mapper: Mapper,
    /// Path routing.
    pub router: PathRouter,
}

/// What one combination did: the hosts chosen and the loads of every link.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The algorithms.
    pub combination: Combination,
    /// The chosen hosts (indices into [`Cluster::hosts`]), in the selector's order.
    pub hosts: Vec<u32>,
    /// Bytes and flows per directed edge.
    pub loads: LinkLoads,
    /// Statistics over the network links.
    pub stats: NetworkLoadStats,
}

/// Every combination of the lists, selectors outermost and routers innermost.
pub fn combinations(
    selectors: &[Selector],
    mappers: &[Mapper],
    routers: &[PathRouter],
) -> Vec<Combination> {
    let mut all = Vec::with_capacity(selectors.len() * mappers.len() * routers.len());
    for &selector in selectors {
        for &mapper in mappers {
            for &router in routers {
                all.push(Combination {
                    selector,
                    mapper,
                    router,
                });
            }
        }
    }
    all
}

/// Places `matrix` on an empty `cluster` with `combination` and routes it, drawing every
/// random choice from `seed`. Fails with [`ClusterError::TooLarge`] when the job does not
/// fit the cluster (the selection failed) and [`ClusterError::Disconnected`] when two of
/// its hosts are not connected (the routing failed). O(select + map + route), see their
/// functions.
pub fn evaluate(
    cluster: &Cluster,
    matrix: &TrafficMatrix,
    combination: Combination,
    seed: u64,
) -> Result<Evaluation, ClusterError> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let free = vec![false; cluster.hosts.len()];
    let hosts = select_hosts(
        cluster,
        &free,
        matrix.ranks as u64,
        combination.selector,
        &mut rng,
    )?;
    let placement = map_ranks(cluster, &hosts, matrix.ranks, combination.mapper, matrix);
    let pairs = host_pairs(matrix, &placement);
    let mut loads = LinkLoads::default();
    route_job(cluster, &pairs, combination.router, &mut loads, &mut rng)?;
    let stats = network_load_stats(cluster, &loads);
    Ok(Evaluation {
        combination,
        hosts,
        loads,
        stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_vary_the_router_fastest() {
        let all = combinations(
            &[Selector::Linear, Selector::Random],
            &[Mapper::Block],
            &[PathRouter::Dmodk, PathRouter::Greedy],
        );
        let routers: Vec<_> = all.iter().map(|c| (c.selector, c.router)).collect();
        assert_eq!(
            routers,
            [
                (Selector::Linear, PathRouter::Dmodk),
                (Selector::Linear, PathRouter::Greedy),
                (Selector::Random, PathRouter::Dmodk),
                (Selector::Random, PathRouter::Greedy),
            ]
        );
    }
}
