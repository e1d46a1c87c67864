//! Deadlock analysis: the channel dependency graph of a routed fabric, and a cycle in it.
//!
//! Channels are the directed edges. A route that enters node v through channel a and
//! leaves through channel b makes b wait for a: dependency a → b. With one virtual lane,
//! wormhole or virtual cut-through routing can deadlock exactly when this graph has a
//! cycle (Dally and Seitz); an acyclic graph proves the routing deadlock-free.

use crate::fabric::Fabric;
use crate::routing::ForwardingTable;

/// The dependencies of every channel, as a bitset over the out-edges of its head node
/// (a channel can only lead to an edge leaving the node it enters).
#[derive(Debug, Clone)]
pub(crate) struct DependencyGraph {
    /// Words per channel (the largest out-degree, in 64-bit words).
    words: usize,
    /// `bits[c * words ..]`: bit i set when channel c leads to the i-th out-edge of its head.
    bits: Vec<u64>,
    /// Number of dependencies (set bits).
    pub dependencies: u64,
}

/// Result of [`check_deadlock`].
#[derive(Debug, Clone)]
pub struct DeadlockReport {
    /// Channels (directed edges) of the fabric.
    pub channels: usize,
    /// Distinct channel dependencies.
    pub dependencies: u64,
    /// A cycle of channels in dependency order, if there is one.
    pub cycle: Option<Vec<u32>>,
}

impl DependencyGraph {
    /// Builds the dependencies of every route between any two hosts (routes must have
    /// been validated by [`crate::routing::check_routes`]).
    ///
    /// O(hosts × nodes) time, O(edges × max degree / 64) memory.
    pub fn build(fabric: &Fabric, table: &ForwardingTable) -> Self {
        let max_degree = (0..fabric.num_nodes() as u32)
            .map(|v| fabric.out_edges(v).len())
            .max()
            .unwrap_or(0);
        let words = max_degree.div_ceil(64).max(1);
        let mut bits = vec![0u64; fabric.num_edges() * words];
        // Per destination the routes form an in-tree: a walk can stop at the first node
        // already walked for this destination, after recording the dependency there.
        let mut visited = vec![false; fabric.num_nodes()];
        let mut touched: Vec<u32> = Vec::new();
        for dst in 0..fabric.num_hosts() as u32 {
            let target = fabric.hosts[dst as usize];
            for src in (0..fabric.num_hosts() as u32).filter(|&s| s != dst) {
                let mut cur = fabric.hosts[src as usize];
                let mut prev: Option<u32> = None;
                while cur != target {
                    let Some(e) = table.next_edge(fabric, cur, dst) else {
                        break; // broken route: the route check reports it
                    };
                    if let Some(a) = prev {
                        let local = (e - fabric.out_start[cur as usize]) as usize;
                        bits[a as usize * words + local / 64] |= 1 << (local % 64);
                    }
                    if visited[cur as usize] {
                        break;
                    }
                    visited[cur as usize] = true;
                    touched.push(cur);
                    prev = Some(e);
                    cur = fabric.edge_head[e as usize];
                }
            }
            for &v in &touched {
                visited[v as usize] = false;
            }
            touched.clear();
        }
        let dependencies = bits.iter().map(|w| w.count_ones() as u64).sum();
        DependencyGraph {
            words,
            bits,
            dependencies,
        }
    }

    /// The channels that channel `c` leads to.
    fn successors<'a>(&'a self, fabric: &'a Fabric, c: u32) -> impl Iterator<Item = u32> + 'a {
        let head = fabric.edge_head[c as usize];
        let base = fabric.out_start[head as usize];
        let degree = fabric.out_edges(head).len();
        let row = &self.bits[c as usize * self.words..(c as usize + 1) * self.words];
        (0..degree)
            .filter(move |&i| row[i / 64] & (1 << (i % 64)) != 0)
            .map(move |i| base + i as u32)
    }

    /// A cycle of channels, if any (iterative depth-first search). O(channels +
    /// dependencies).
    pub(crate) fn find_cycle(&self, fabric: &Fabric) -> Option<Vec<u32>> {
        const WHITE: u8 = 0;
        const GREY: u8 = 1;
        const BLACK: u8 = 2;
        let n = fabric.num_edges();
        let mut color = vec![WHITE; n];
        let mut parent = vec![u32::MAX; n];
        for start in 0..n as u32 {
            if color[start as usize] != WHITE {
                continue;
            }
            // Stack of (channel, successors not yet explored).
            let mut stack: Vec<(u32, Vec<u32>)> =
                vec![(start, self.successors(fabric, start).collect())];
            color[start as usize] = GREY;
            while let Some((c, pending)) = stack.last_mut() {
                let c = *c;
                match pending.pop() {
                    Some(next) => match color[next as usize] {
                        WHITE => {
                            color[next as usize] = GREY;
                            parent[next as usize] = c;
                            let succ = self.successors(fabric, next).collect();
                            stack.push((next, succ));
                        }
                        GREY => {
                            // Back edge c → next closes a cycle next → ... → c.
                            let mut cycle = vec![c];
                            let mut x = c;
                            while x != next {
                                x = parent[x as usize];
                                cycle.push(x);
                            }
                            cycle.reverse();
                            return Some(cycle);
                        }
                        _ => {}
                    },
                    None => {
                        color[c as usize] = BLACK;
                        stack.pop();
                    }
                }
            }
        }
        None
    }
}

/// Builds the channel dependency graph of validated routes and looks for a cycle.
pub fn check_deadlock(fabric: &Fabric, table: &ForwardingTable) -> DeadlockReport {
    let graph = DependencyGraph::build(fabric, table);
    DeadlockReport {
        channels: fabric.num_edges(),
        dependencies: graph.dependencies,
        cycle: graph.find_cycle(fabric),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{load_routed_fabric_from, LoadOptions};
    use crate::routing::check_routes;

    fn load(text: &str) -> crate::fabric::LoadedFabric {
        load_routed_fabric_from(text.as_bytes(), "t", LoadOptions::default()).unwrap()
    }

    /// A unidirectional ring of four switches, one host each, every packet going clockwise:
    /// the four ring channels wait for each other.
    const RING: &str = "digraph ring { S0; S1; S2; S3; H0; H1; H2; H3;
        H0 -> S0 [comment=\"*\"]; H1 -> S1 [comment=\"*\"]; H2 -> S2 [comment=\"*\"]; H3 -> S3 [comment=\"*\"];
        S0 -> H0 [comment=H0]; S1 -> H1 [comment=H1]; S2 -> H2 [comment=H2]; S3 -> H3 [comment=H3];
        S0 -> S1 [comment=\"H1,H2,H3\"]; S1 -> S2 [comment=\"H2,H3,H0\"];
        S2 -> S3 [comment=\"H3,H0,H1\"]; S3 -> S0 [comment=\"H0,H1,H2\"]; }";

    #[test]
    fn clockwise_ring_deadlocks() {
        let f = load(RING);
        let hosts: Vec<u32> = (0..4).collect();
        assert!(check_routes(&f.fabric, &f.table, &hosts).all_routed());
        let report = check_deadlock(&f.fabric, &f.table);
        let cycle = report.cycle.expect("a cycle");
        let names: Vec<String> = cycle
            .iter()
            .map(|&c| {
                let fab = &f.fabric;
                format!(
                    "{}>{}",
                    fab.node_names[fab.edge_tail[c as usize] as usize],
                    fab.node_names[fab.edge_head[c as usize] as usize]
                )
            })
            .collect();
        assert_eq!(names.len(), 4, "{names:?}");
        for (a, b) in cycle.iter().zip(cycle.iter().cycle().skip(1)) {
            // Consecutive channels meet at a node.
            assert_eq!(
                f.fabric.edge_head[*a as usize],
                f.fabric.edge_tail[*b as usize]
            );
        }
        // By hand: injection H_i>S_i leads to S_i>S_i+1 (4); ring S_i-1>S_i leads on to
        // S_i>S_i+1 (4) and to the ejection S_i>H_i (4).
        assert_eq!(report.dependencies, 12);
    }

    #[test]
    fn trees_are_deadlock_free() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/topologies/ft4-2.ftree.dot"
        ))
        .unwrap();
        let f = load(&text);
        let report = check_deadlock(&f.fabric, &f.table);
        assert!(report.cycle.is_none());
        assert!(report.dependencies > 0);
    }

    /// A switch of 70 ports keeps its channels' dependencies in two 64-bit words each:
    /// every host's injection channel leads to the 69 ejections to the other hosts,
    /// those on ports 65 to 70 in the second word, and to nothing else.
    #[test]
    fn a_switch_wider_than_a_word_keeps_each_channels_dependencies_apart() {
        let g = crate::gen::topology::generate("kary-ntree:k=70,n=1").expect("fabric");
        let (table, _) = crate::routing::route_generated(&g, None, None, 0).expect("routes");
        let fabric = &g.fabric;
        let graph = DependencyGraph::build(fabric, &table);
        assert_eq!(graph.words, 2);
        assert_eq!(graph.dependencies, 70 * 69);
        for (x, &host) in fabric.hosts.iter().enumerate() {
            let injection = fabric.out_start[host as usize];
            let mut reached: Vec<u32> = graph
                .successors(fabric, injection)
                .map(|c| fabric.edge_head[c as usize])
                .collect();
            reached.sort_unstable();
            let mut others: Vec<u32> = fabric.hosts.clone();
            others.remove(x);
            others.sort_unstable();
            assert_eq!(reached, others, "host {x}");
        }
        assert!(check_deadlock(fabric, &table).cycle.is_none());
    }
}
