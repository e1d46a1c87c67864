//! The seeded `random` engine: uniform among the minimal-hop ports per switch and
//! destination.

use super::topo::{Topo, INF};
use crate::engine::stream::{stream_rng, Stream};
use crate::fabric::NONE;
use crate::routing::{RoutingError, NO_PORT};
use rand::RngExt;
use std::collections::VecDeque;

/// Uniform random choice among minimal-hop ports, one generator for the whole table,
/// destinations in host order; calls `progress` with the hosts of each group once they
/// are routed.
pub(super) fn random(
    topo: &Topo<'_>,
    seed: u64,
    progress: &dyn Fn(u64),
) -> Result<Vec<u16>, RoutingError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let mut rows = vec![NO_PORT; topo.switches.len() * hosts];
    let mut rng = stream_rng(seed, Stream::RoutingTable);
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
        let routed = range.len() as u64;
        for h in range {
            let d = topo.deliver[h];
            rows[ti * hosts + h] = (d - f.out_start[t as usize]) as u16;
            for &(i, a, b) in &spans {
                let e = cand[rng.random_range(a as usize..b as usize)];
                let s = topo.switches[i as usize];
                rows[i as usize * hosts + h] = (e - f.out_start[s as usize]) as u16;
            }
        }
        progress(routed);
    }
    Ok(rows)
}
