//! minhop, updn and dnup: per destination switch a hop matrix (plain BFS, or OpenSM's
//! up/down BFS over switch ranks), then the least-loaded minimal port per switch and
//! destination host. Also updn's root detection and the ranks both up/down engines use.

use super::topo::{Topo, INF};
use crate::fabric::Fabric;
use crate::routing::{RoutingError, NO_PORT};
use std::collections::VecDeque;

/// updn's switch ranks: BFS distance from `roots` (node ids), or from the roots
/// [`detect_roots`] finds when none are given. Errors: a root that is no switch, an
/// empty root list, no detected root.
pub(super) fn updn_ranks(topo: &Topo<'_>, roots: Option<&[u32]>) -> Result<Vec<u32>, RoutingError> {
    let f = topo.f;
    let Some(list) = roots else {
        let found = detect_roots(topo);
        if found.is_empty() {
            return Err(RoutingError::NoRoots(
                "were detected (no switch sees more than 90% of the hosts at one distance and under 5% at any other)",
            ));
        }
        return Ok(bfs_ranks(topo, &found));
    };
    for &r in list {
        if r as usize >= f.num_nodes() || !topo.is_switch[r as usize] {
            return Err(RoutingError::BadRoot {
                node: r,
                name: f
                    .node_names
                    .get(r as usize)
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default(),
            });
        }
    }
    if list.is_empty() {
        return Err(RoutingError::NoRoots("were given"));
    }
    Ok(bfs_ranks(topo, list))
}

/// dnup's switch ranks: BFS distance from the switches that have hosts attached.
pub(super) fn dnup_ranks(topo: &Topo<'_>) -> Result<Vec<u32>, RoutingError> {
    let f = topo.f;
    let leaves: Vec<u32> = topo
        .switches
        .iter()
        .copied()
        .filter(|&s| {
            f.out_edges(s)
                .any(|e| !topo.is_switch[f.edge_head[e as usize] as usize])
        })
        .collect();
    if leaves.is_empty() {
        return Err(RoutingError::NoLeafSwitches);
    }
    Ok(bfs_ranks(topo, &leaves))
}

/// Multi-source BFS ranks over switch links (OpenSM's `updn_subn_rank`): sources 0.
fn bfs_ranks(topo: &Topo<'_>, sources: &[u32]) -> Vec<u32> {
    let f = topo.f;
    let mut rank = vec![INF; f.num_nodes()];
    let mut queue = VecDeque::new();
    for &s in sources {
        if rank[s as usize] != 0 {
            rank[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &e in topo.ports(u) {
            let x = f.edge_head[e as usize];
            if topo.is_switch[x as usize] && rank[x as usize] > rank[u as usize] + 1 {
                rank[x as usize] = rank[u as usize] + 1;
                queue.push_back(x);
            }
        }
    }
    rank
}

/// OpenSM's `updn_find_root_nodes_by_min_hop`: a switch is a root when one hop count
/// covers more than 90 % of the host ports and no other covers more than 5 %.
fn detect_roots(topo: &Topo<'_>) -> Vec<u32> {
    const HOPS_MAX: usize = 64; // IB_SUBNET_PATH_HOPS_MAX
    let f = topo.f;
    let mut cas = vec![0u64; f.num_nodes()];
    let mut total = 0u64;
    for &v in &f.hosts {
        for e in f.out_edges(v) {
            let t = f.edge_head[e as usize];
            if topo.is_switch[t as usize] {
                cas[t as usize] += 1;
                total += 1;
            }
        }
    }
    let s_count = topo.switches.len();
    let mut hist = vec![0u64; s_count * HOPS_MAX];
    let mut dist = vec![INF; f.num_nodes()];
    let mut queue = VecDeque::new();
    for &t in &topo.switches {
        if cas[t as usize] == 0 {
            continue;
        }
        topo.hops_to(t, &mut dist, &mut queue);
        for (i, &s) in topo.switches.iter().enumerate() {
            let d = dist[s as usize] as usize;
            if d < HOPS_MAX {
                hist[i * HOPS_MAX + d] += cas[t as usize];
            }
        }
    }
    let (thd1, thd2) = (total as f64 * 0.9, total as f64 * 0.05);
    topo.switches
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            let bars = &hist[i * HOPS_MAX..(i + 1) * HOPS_MAX];
            let over1 = bars.iter().filter(|&&b| b as f64 > thd1).count();
            let over2 = bars.iter().filter(|&&b| b as f64 > thd2).count();
            over1 == 1 && over2 == 1
        })
        .map(|(_, &s)| s)
        .collect()
}

/// How the hop matrix of a [`hop_engine`] is built.
pub(super) enum HopRule {
    /// Plain BFS.
    Minhop,
    /// OpenSM's updn BFS with these ranks.
    Updn { rank: Vec<u32> },
    /// OpenSM's dnup BFS with these ranks.
    Dnup { rank: Vec<u32> },
}

impl HopRule {
    fn engine(&self) -> &'static str {
        match self {
            HopRule::Minhop => "minhop",
            HopRule::Updn { .. } => "updn",
            HopRule::Dnup { .. } => "dnup",
        }
    }
}

/// Directions of OpenSM's up/down BFS (`updn_switch_dir_t`, `dnup_switch_dir_t`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Up,
    Down,
    Equal,
}

/// Scratch of the per-destination hop matrix: `hop[e]` is the hop count through edge
/// `e` (switch to switch), `least[v]` the minimum over `v`'s ports.
struct Hops {
    hop: Vec<u32>,
    least: Vec<u32>,
    dir: Vec<Dir>,
    queued: Vec<bool>,
    queue: VecDeque<u32>,
}

impl Hops {
    fn new(f: &Fabric) -> Self {
        Hops {
            hop: vec![INF; f.num_edges()],
            least: vec![INF; f.num_nodes()],
            dir: vec![Dir::Up; f.num_nodes()],
            queued: vec![false; f.num_nodes()],
            queue: VecDeque::new(),
        }
    }

    /// Fills the matrix for destination switch `t` under `rule`.
    fn compute(&mut self, topo: &Topo<'_>, rule: &HopRule, t: u32) {
        let f = topo.f;
        match rule {
            HopRule::Minhop => {
                topo.hops_to(t, &mut self.least, &mut self.queue);
                for &s in &topo.switches {
                    for &e in topo.ports(s) {
                        let y = f.edge_head[e as usize];
                        self.hop[e as usize] = match self.least[y as usize] {
                            d if d == INF || !topo.is_switch[y as usize] || y == s => INF,
                            d => d + 1,
                        };
                    }
                }
            }
            HopRule::Updn { rank } | HopRule::Dnup { rank } => {
                let updn = matches!(rule, HopRule::Updn { .. });
                self.hop.iter_mut().for_each(|h| *h = INF);
                self.least.iter_mut().for_each(|h| *h = INF);
                self.least[t as usize] = 0;
                self.dir[t as usize] = if updn { Dir::Up } else { Dir::Down };
                self.queue.clear();
                self.queue.push_back(t);
                while let Some(u) = self.queue.pop_front() {
                    self.queued[u as usize] = false;
                    let current = self.dir[u as usize];
                    let ru = rank[u as usize];
                    for &e in topo.ins(u) {
                        let x = f.edge_tail[e as usize];
                        let rx = rank[x as usize];
                        let next = if updn {
                            updn_dir(ru, rx, topo.id[u as usize], topo.id[x as usize])
                        } else {
                            dnup_dir(ru, rx)
                        };
                        let illegal = if updn {
                            current == Dir::Down && next == Dir::Up
                        } else {
                            current == Dir::Up && next == Dir::Down
                        };
                        if illegal {
                            continue;
                        }
                        let h = self.least[u as usize] + 1;
                        if h < self.hop[e as usize] {
                            self.hop[e as usize] = h;
                            if h < self.least[x as usize] {
                                self.least[x as usize] = h;
                            }
                            if !self.queued[x as usize] {
                                self.dir[x as usize] = next;
                                self.queued[x as usize] = true;
                                self.queue.push_back(x);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// OpenSM's `updn_get_dir` for a move from `cur` to `rem` in the BFS from a destination.
fn updn_dir(cur_rank: u32, rem_rank: u32, cur_id: u64, rem_id: u64) -> Dir {
    if cur_rank == 0 && rem_rank == 0 {
        Dir::Up
    } else if cur_rank < rem_rank {
        Dir::Down
    } else if cur_rank > rem_rank || cur_id > rem_id {
        Dir::Up
    } else {
        Dir::Down
    }
}

/// OpenSM's `dnup_get_dir`.
fn dnup_dir(cur_rank: u32, rem_rank: u32) -> Dir {
    if cur_rank < rem_rank {
        Dir::Down
    } else if cur_rank > rem_rank {
        Dir::Up
    } else {
        Dir::Equal
    }
}

/// minhop, updn and dnup: hop matrix per destination switch, then per switch and
/// destination host (in OpenSM's order) the least-loaded port with minimal hops.
/// Returns the dense rows (switch index × host); calls `progress` with the hosts of each
/// destination switch once they are routed.
pub(super) fn hop_engine(
    topo: &Topo<'_>,
    rule: &HopRule,
    progress: &dyn Fn(u64),
) -> Result<Vec<u16>, RoutingError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let mut rows = vec![NO_PORT; topo.switches.len() * hosts];
    let mut count = vec![0u32; f.num_edges()];
    let mut hops = Hops::new(f);
    let sources = topo.source_switches();
    let dests = topo.destination_order();
    // Candidates of the current destination switch: (switch index, range in `cand`).
    let mut cand: Vec<u32> = Vec::new();
    let mut spans: Vec<(u32, u32, u32)> = Vec::new();
    for (t, range) in topo.groups(&dests) {
        hops.compute(topo, rule, t);
        cand.clear();
        spans.clear();
        for (i, &s) in topo.switches.iter().enumerate() {
            if s == t {
                continue;
            }
            let least = hops.least[s as usize];
            let start = cand.len() as u32;
            if least != INF {
                cand.extend(
                    topo.ports(s)
                        .iter()
                        .copied()
                        .filter(|&e| hops.hop[e as usize] == least),
                );
            }
            if cand.len() as u32 == start {
                if sources[i] {
                    return Err(topo.unroutable(rule.engine(), s, dests[range.start]));
                }
                continue;
            }
            spans.push((i as u32, start, cand.len() as u32));
        }
        let ti = topo.sw_index[t as usize] as usize;
        let routed = range.len() as u64;
        for &h in &dests[range] {
            let d = topo.deliver[h as usize];
            count[d as usize] += 1;
            rows[ti * hosts + h as usize] = (d - f.out_start[t as usize]) as u16;
            for &(i, a, b) in &spans {
                // The first port with the fewest routes (strictly fewer replaces).
                let mut best = cand[a as usize];
                for &e in &cand[a as usize + 1..b as usize] {
                    if count[e as usize] < count[best as usize] {
                        best = e;
                    }
                }
                count[best as usize] += 1;
                let s = topo.switches[i as usize];
                rows[i as usize * hosts + h as usize] = (best - f.out_start[s as usize]) as u16;
            }
        }
        progress(routed);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updn_directions_follow_opensm() {
        assert!(updn_dir(0, 0, 1, 2) == Dir::Up);
        assert!(updn_dir(1, 2, 0, 0) == Dir::Down);
        assert!(updn_dir(2, 1, 0, 0) == Dir::Up);
        assert!(updn_dir(2, 2, 5, 3) == Dir::Up);
        assert!(updn_dir(2, 2, 3, 5) == Dir::Down);
        // Only a move between two roots is up by the root rule: away from one is down.
        assert!(updn_dir(0, 1, 5, 3) == Dir::Down);
        assert!(updn_dir(1, 0, 3, 5) == Dir::Up);
        assert!(dnup_dir(0, 0) == Dir::Equal);
    }

    /// Switches `S0`, `S1`, … (node ids from 0) carrying `hosts[i]` hosts each (node ids
    /// after the switches, in switch order), cabled both ways by `links` (pairs of switch
    /// indices).
    fn fabric(hosts: &[usize], links: &[(u32, u32)]) -> Fabric {
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); hosts.len()];
        let mut names: Vec<String> = (0..hosts.len()).map(|i| format!("S{i}")).collect();
        for &(a, b) in links {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut host_nodes = Vec::new();
        for (i, &n) in hosts.iter().enumerate() {
            for _ in 0..n {
                let v = adj.len() as u32;
                adj[i].push(v);
                adj.push(vec![i as u32]);
                names.push(format!("H{}", host_nodes.len()));
                host_nodes.push(v);
            }
        }
        let mut host_of_node = vec![crate::fabric::NONE; adj.len()];
        for (h, &v) in host_nodes.iter().enumerate() {
            host_of_node[v as usize] = h as u32;
        }
        let (mut out_start, mut edge_tail, mut edge_head) = (vec![0], Vec::new(), Vec::new());
        for (v, heads) in adj.iter().enumerate() {
            for &x in heads {
                edge_tail.push(v as u32);
                edge_head.push(x);
            }
            out_start.push(edge_head.len() as u32);
        }
        let edges = edge_head.len();
        Fabric {
            node_lines: vec![0; names.len()],
            node_names: names,
            hosts: host_nodes,
            host_of_node,
            out_start,
            edge_tail,
            edge_head,
            edge_lines: vec![0; edges],
            edge_keys: vec![None; edges],
            ..Fabric::default()
        }
    }

    /// Roots need a bar strictly over 90 % of the host ports and no other strictly over
    /// 5 %. S0 (1 host) is cabled to S1 (18 hosts) and S2 (1 host): of the 20 host ports,
    /// S0 sees 1 at distance 0 and 19 at 1; S1 sees 18, 1, 1 and S2 1, 1, 18, bars that
    /// equal the thresholds (18 and 1) exactly and so make no root.
    #[test]
    fn roots_are_the_switches_past_both_thresholds() {
        let f = fabric(&[1, 18, 1], &[(0, 1), (0, 2)]);
        let topo = Topo::new(&f).unwrap();
        assert_eq!(detect_roots(&topo), vec![0]);
        assert_eq!(updn_ranks(&topo, None).unwrap()[..3], [0, 1, 1]);
        // Without a host no switch is a root, and updn says so.
        let f = fabric(&[0, 0], &[(0, 1)]);
        let topo = Topo::new(&f).unwrap();
        assert!(detect_roots(&topo).is_empty());
        assert!(matches!(
            updn_ranks(&topo, None),
            Err(RoutingError::NoRoots(_))
        ));
    }

    /// A line of 65 switches with a host at each end: only the middle switch sees both
    /// hosts at one distance (32). The end switches are 64 hops apart, one past the
    /// histogram's last bar (OpenSM's `IB_SUBNET_PATH_HOPS_MAX`), and are not counted.
    #[test]
    fn roots_of_a_long_line_are_its_middle() {
        let mut hosts = vec![0; 65];
        hosts[0] = 1;
        hosts[64] = 1;
        let links: Vec<(u32, u32)> = (0..64).map(|i| (i, i + 1)).collect();
        let f = fabric(&hosts, &links);
        let topo = Topo::new(&f).unwrap();
        assert_eq!(detect_roots(&topo), vec![32]);
    }

    /// Two roots joined only through a switch below them: a route from one to the other
    /// would go down then up, which updn forbids, and the error names updn, and as the
    /// source the host on the switch without a next hop (H2: not H1, the first host
    /// that is not the destination, nor H0, the destination on another switch).
    #[test]
    fn updn_refuses_a_route_down_then_up_and_names_itself() {
        let f = fabric(&[2, 0, 1], &[(0, 1), (1, 2)]);
        let topo = Topo::new(&f).unwrap();
        let rank = updn_ranks(&topo, Some(&[0, 2])).unwrap();
        assert_eq!(rank[..3], [0, 1, 0]);
        match hop_engine(&topo, &HopRule::Updn { rank }, &|_| {}) {
            // S0's hosts are routed to first: S2 has no legal next hop towards H0.
            Err(RoutingError::Unroutable {
                engine,
                src,
                dst,
                at,
            }) => {
                assert_eq!(
                    (engine, src.as_str(), dst.as_str(), at.as_str()),
                    ("updn", "H2", "H0", "S2")
                );
            }
            other => panic!("{other:?}"),
        }
        // With S1 as the only root both hosts route through it, and minhop routes too.
        let rank = updn_ranks(&topo, Some(&[1])).unwrap();
        let rows = hop_engine(&topo, &HopRule::Updn { rank }, &|_| {}).unwrap();
        let minhop = hop_engine(&topo, &HopRule::Minhop, &|_| {}).unwrap();
        assert_eq!(rows, minhop);
        assert!(rows.iter().all(|&p| p != NO_PORT));
    }
}
