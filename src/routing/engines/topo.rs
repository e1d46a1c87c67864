//! The fabric as OpenSM sees it ([`Topo`]): switches in GUID order, ports, cables paired
//! into their two directions, hosts with their uplinks and attachment switches, and the
//! walks every engine shares (hop counts to a switch, OpenSM's destination order, the
//! connectivity check). The conventions are the parent module's.

use crate::fabric::{Fabric, NONE};
use crate::routing::{RoutingError, NO_PORT};
use std::collections::VecDeque;

/// "Unreachable" in hop counts and distances.
pub(super) const INF: u32 = u32::MAX;

/// The fabric seen as OpenSM sees it: switches, ports, cables, GUID order.
pub(super) struct Topo<'a> {
    pub(super) f: &'a Fabric,
    /// Per node: not a host.
    pub(super) is_switch: Vec<bool>,
    /// Switch node ids in OpenSM's switch-table order (GUID order).
    pub(super) switches: Vec<u32>,
    /// Per node: index in `switches`, or NONE for hosts.
    pub(super) sw_index: Vec<u32>,
    /// Per node: the number updn compares between switches of equal rank (the GUID).
    pub(super) id: Vec<u64>,
    /// Out-edges of each node in port order (same CSR offsets as the fabric).
    by_port: Vec<u32>,
    /// Per edge: the other direction of its cable, or NONE.
    pub(super) rev: Vec<u32>,
    /// Per switch (CSR by node, offsets `in_start`): the switch-to-switch edges into it,
    /// in the port order of their reverse (unpaired ones last).
    in_start: Vec<u32>,
    in_edges: Vec<u32>,
    /// Per host: the uplink (lowest-port out-edge), or NONE.
    pub(super) uplink: Vec<u32>,
    /// Per host: the attachment switch and the edge that delivers to the host, or NONE.
    pub(super) attach: Vec<u32>,
    pub(super) deliver: Vec<u32>,
}

impl<'a> Topo<'a> {
    /// Reads `f` as OpenSM would. Fails only when a node has more out-edges than a
    /// forwarding-table row addresses. O(E log E + S log S).
    pub(super) fn new(f: &'a Fabric) -> Result<Self, RoutingError> {
        let n = f.num_nodes();
        for v in 0..n as u32 {
            let deg = f.out_edges(v).len();
            if deg >= NO_PORT as usize {
                return Err(RoutingError::TooManyEdges {
                    name: f.node_names[v as usize].clone(),
                    edges: deg,
                });
            }
        }
        let is_switch: Vec<bool> = f.host_of_node.iter().map(|&h| h == NONE).collect();
        let port = port_numbers(f);
        let mut by_port: Vec<u32> = (0..f.num_edges() as u32).collect();
        for v in 0..n as u32 {
            let r = f.out_edges(v);
            by_port[r.start as usize..r.end as usize].sort_by_key(|&e| (port[e as usize], e));
        }
        let rev = pair_cables(f, &port);
        let (in_start, in_edges) = switch_in_edges(f, &is_switch, &by_port, &rev);
        let (switches, id) = guid_order(f, &is_switch);
        let mut sw_index = vec![NONE; n];
        for (i, &s) in switches.iter().enumerate() {
            sw_index[s as usize] = i as u32;
        }
        let mut topo = Topo {
            f,
            is_switch,
            switches,
            sw_index,
            id,
            by_port,
            rev,
            in_start,
            in_edges,
            uplink: Vec::new(),
            attach: Vec::new(),
            deliver: Vec::new(),
        };
        topo.attach_hosts();
        Ok(topo)
    }

    /// Fills every host's uplink, attachment switch and delivery edge.
    fn attach_hosts(&mut self) {
        let f = self.f;
        let hosts = f.num_hosts();
        let mut uplink = vec![NONE; hosts];
        let mut attach = vec![NONE; hosts];
        let mut deliver = vec![NONE; hosts];
        for (h, &v) in f.hosts.iter().enumerate() {
            let Some(&up) = self
                .ports(v)
                .iter()
                .find(|&&e| f.edge_head[e as usize] != v)
            else {
                continue;
            };
            uplink[h] = up;
            let t = f.edge_head[up as usize];
            if !self.is_switch[t as usize] {
                continue;
            }
            let d = if self.rev[up as usize] != NONE {
                self.rev[up as usize]
            } else {
                self.ports(t)
                    .iter()
                    .copied()
                    .find(|&e| f.edge_head[e as usize] == v)
                    .unwrap_or(NONE)
            };
            if d != NONE {
                attach[h] = t;
                deliver[h] = d;
            }
        }
        self.uplink = uplink;
        self.attach = attach;
        self.deliver = deliver;
    }

    /// Out-edges of `v` in port order.
    pub(super) fn ports(&self, v: u32) -> &[u32] {
        let r = self.f.out_edges(v);
        &self.by_port[r.start as usize..r.end as usize]
    }

    /// Switch-to-switch edges into switch `v`, in the order of `v`'s ports.
    pub(super) fn ins(&self, v: u32) -> &[u32] {
        &self.in_edges[self.in_start[v as usize] as usize..self.in_start[v as usize + 1] as usize]
    }

    pub(super) fn name(&self, v: u32) -> String {
        self.f.node_names[v as usize].clone()
    }

    pub(super) fn host(&self, h: u32) -> String {
        self.f.host_name(h).to_string()
    }

    /// Checks that every host can reach every other through switches. `Ok(false)` when
    /// there is nothing for switches to route: fewer than two hosts, or just two hosts
    /// cabled to each other.
    pub(super) fn check_connected(&self) -> Result<bool, RoutingError> {
        let hosts = self.f.num_hosts() as u32;
        if hosts < 2 {
            return Ok(false);
        }
        for h in 0..hosts {
            if !self.check_attached(h)? {
                return Ok(false);
            }
        }
        // Every attachment switch must reach, and be reached from, the first one.
        let mut seen = vec![false; self.f.num_nodes()];
        for forward in [true, false] {
            self.switches_linked_to(self.attach[0], forward, &mut seen);
            if let Some(h) = (0..hosts).find(|&h| !seen[self.attach[h as usize] as usize]) {
                let (src, dst) = if forward { (0, h) } else { (h, 0) };
                return Err(RoutingError::Disconnected {
                    src: self.host(src),
                    dst: self.host(dst),
                    reason: format!(
                        "no switch path from {} to {}",
                        self.name(self.attach[src as usize]),
                        self.name(self.attach[dst as usize])
                    ),
                });
            }
        }
        Ok(true)
    }

    /// Checks that host `h` (of at least two) has an uplink to a switch that links back
    /// to it. `Ok(false)` when the fabric is just two hosts cabled to each other.
    fn check_attached(&self, h: u32) -> Result<bool, RoutingError> {
        let f = self.f;
        let hosts = f.num_hosts() as u32;
        let other = if h == 0 { 1 } else { 0 };
        let up = self.uplink[h as usize];
        if up == NONE {
            return Err(RoutingError::Disconnected {
                src: self.host(h),
                dst: self.host(other),
                reason: format!("{} has no link", self.host(h)),
            });
        }
        let head = f.edge_head[up as usize];
        if !self.is_switch[head as usize] {
            let peer = f.host_of_node[head as usize];
            let peer_up = self.uplink[peer as usize];
            if hosts == 2 && peer_up != NONE && f.edge_head[peer_up as usize] == f.hosts[h as usize]
            {
                return Ok(false);
            }
            let dst = (0..hosts).find(|&d| d != h && d != peer).unwrap_or(peer);
            return Err(RoutingError::Disconnected {
                src: self.host(h),
                dst: self.host(dst),
                reason: format!(
                    "{} is cabled to host {}, and hosts do not forward",
                    self.host(h),
                    self.name(head)
                ),
            });
        }
        if self.attach[h as usize] == NONE {
            return Err(RoutingError::Disconnected {
                src: self.host(other),
                dst: self.host(h),
                reason: format!("switch {} has no link to {}", self.name(head), self.host(h)),
            });
        }
        Ok(true)
    }

    /// Marks in `seen` (cleared first) the switches that switch `t` reaches
    /// (`forward`) or that reach it, over switch-to-switch links.
    fn switches_linked_to(&self, t: u32, forward: bool, seen: &mut [bool]) {
        let f = self.f;
        seen.iter_mut().for_each(|s| *s = false);
        let mut queue = VecDeque::from([t]);
        seen[t as usize] = true;
        while let Some(u) = queue.pop_front() {
            let mut visit = |x: u32| {
                if self.is_switch[x as usize] && !seen[x as usize] {
                    seen[x as usize] = true;
                    queue.push_back(x);
                }
            };
            if forward {
                f.out_edges(u).for_each(|e| visit(f.edge_head[e as usize]));
            } else {
                self.ins(u)
                    .iter()
                    .for_each(|&e| visit(f.edge_tail[e as usize]));
            }
        }
    }

    /// OpenSM's destination order, see the module documentation.
    pub(super) fn destination_order(&self) -> Vec<u32> {
        let f = self.f;
        let hosts_on = |s: u32| {
            f.out_edges(s)
                .filter(|&e| !self.is_switch[f.edge_head[e as usize] as usize])
                .count()
        };
        let mut order = self.switches.clone();
        // Stable, like glibc's merge-sort qsort that OpenSM's compar_sw_load runs under.
        order.sort_by_key(|&s| std::cmp::Reverse(hosts_on(s)));
        let mut placed = vec![false; f.num_hosts()];
        let mut dests = Vec::with_capacity(f.num_hosts());
        for s in order {
            for &e in self.ports(s) {
                let v = f.edge_head[e as usize];
                let h = f.host_of_node[v as usize];
                if h != NONE && !placed[h as usize] && self.deliver[h as usize] == e {
                    placed[h as usize] = true;
                    dests.push(h);
                }
            }
        }
        dests.extend((0..f.num_hosts() as u32).filter(|&h| !placed[h as usize]));
        dests
    }

    /// Consecutive runs of `dests` with the same attachment switch.
    pub(super) fn groups(&self, dests: &[u32]) -> Vec<(u32, std::ops::Range<usize>)> {
        let mut groups: Vec<(u32, std::ops::Range<usize>)> = Vec::new();
        for (i, &h) in dests.iter().enumerate() {
            let t = self.attach[h as usize];
            match groups.last_mut() {
                Some((last, r)) if *last == t => r.end = i + 1,
                _ => groups.push((t, i..i + 1)),
            }
        }
        groups
    }

    /// BFS hop counts from every switch to switch `t` (INF when unreachable).
    pub(super) fn hops_to(&self, t: u32, dist: &mut [u32], queue: &mut VecDeque<u32>) {
        dist.iter_mut().for_each(|d| *d = INF);
        dist[t as usize] = 0;
        queue.clear();
        queue.push_back(t);
        while let Some(u) = queue.pop_front() {
            let du = dist[u as usize];
            for &e in self.ins(u) {
                let x = self.f.edge_tail[e as usize];
                if dist[x as usize] == INF {
                    dist[x as usize] = du + 1;
                    queue.push_back(x);
                }
            }
        }
    }

    /// The error for switch `at` lacking a route to host `dst`: names a host on `at`
    /// (or any source whose route crosses it).
    pub(super) fn unroutable(&self, engine: &'static str, at: u32, dst: u32) -> RoutingError {
        let src = (0..self.f.num_hosts() as u32)
            .find(|&h| self.attach[h as usize] == at && h != dst)
            .unwrap_or(0);
        RoutingError::Unroutable {
            engine,
            src: self.host(src),
            dst: self.host(dst),
            at: self.name(at),
        }
    }

    /// Per switch index: whether some host sends from it.
    pub(super) fn source_switches(&self) -> Vec<bool> {
        let mut has = vec![false; self.switches.len()];
        for &t in &self.attach {
            if t != NONE {
                has[self.sw_index[t as usize] as usize] = true;
            }
        }
        has
    }
}

/// Per edge: its port, the numeric key when every out-edge of its tail has one, else
/// its position among the tail's out-edges, from 1.
fn port_numbers(f: &Fabric) -> Vec<u32> {
    let mut port = vec![0u32; f.num_edges()];
    for v in 0..f.num_nodes() as u32 {
        let range = f.out_edges(v);
        let keys: Option<Vec<u32>> = range
            .clone()
            .map(|e| {
                f.edge_keys[e as usize]
                    .as_deref()?
                    .trim()
                    .parse::<u32>()
                    .ok()
            })
            .collect();
        match keys {
            Some(k) => {
                for (e, p) in range.zip(k) {
                    port[e as usize] = p;
                }
            }
            None => {
                for (i, e) in range.enumerate() {
                    port[e as usize] = i as u32 + 1;
                }
            }
        }
    }
    port
}

/// Per edge: the other direction of its cable, or NONE. Parallel edges of one node pair
/// pair up in (line, port) order when the lines of both directions match up, else in
/// port order.
fn pair_cables(f: &Fabric, port: &[u32]) -> Vec<u32> {
    let e_count = f.num_edges();
    let mut half: Vec<(u32, u32, u32)> = (0..e_count as u32)
        .filter(|&e| f.edge_tail[e as usize] != f.edge_head[e as usize])
        .map(|e| {
            let (t, h) = (f.edge_tail[e as usize], f.edge_head[e as usize]);
            (t.min(h), t.max(h), e)
        })
        .collect();
    half.sort_unstable();
    let mut rev = vec![NONE; e_count];
    for pair in half.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        let a = pair[0].0;
        let (mut fwd, mut back): (Vec<u32>, Vec<u32>) = pair
            .iter()
            .map(|&(_, _, e)| e)
            .partition(|&e| f.edge_tail[e as usize] == a);
        let line = |e: &u32| f.edge_lines[*e as usize];
        let mut lf: Vec<u32> = fwd.iter().map(line).collect();
        let mut lb: Vec<u32> = back.iter().map(line).collect();
        lf.sort_unstable();
        lb.sort_unstable();
        let by_line = lf == lb && lf.iter().all(|&l| l > 0);
        let key = |e: &u32| {
            let l = if by_line { line(e) } else { 0 };
            (l, port[*e as usize], *e)
        };
        fwd.sort_by_key(key);
        back.sort_by_key(key);
        for (&x, &y) in fwd.iter().zip(&back) {
            rev[x as usize] = y;
            rev[y as usize] = x;
        }
    }
    rev
}

/// Per switch, as a CSR by node (offsets, edges): the switch-to-switch edges into it, in
/// the port order of their reverse, the unpaired ones last.
fn switch_in_edges(
    f: &Fabric,
    is_switch: &[bool],
    by_port: &[u32],
    rev: &[u32],
) -> (Vec<u32>, Vec<u32>) {
    let n = f.num_nodes();
    let mut in_start = vec![0u32; n + 1];
    let mut in_edges = Vec::new();
    let mut unpaired: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (e, &r) in rev.iter().enumerate() {
        let (t, h) = (f.edge_tail[e], f.edge_head[e]);
        if t != h && is_switch[t as usize] && is_switch[h as usize] && r == NONE {
            unpaired[h as usize].push(e as u32);
        }
    }
    for v in 0..n {
        if is_switch[v] {
            let r = f.out_edges(v as u32);
            for &e in &by_port[r.start as usize..r.end as usize] {
                let h = f.edge_head[e as usize];
                if h as usize != v && is_switch[h as usize] && rev[e as usize] != NONE {
                    in_edges.push(rev[e as usize]);
                }
            }
            in_edges.extend_from_slice(&unpaired[v]);
        }
        in_start[v + 1] = in_edges.len() as u32;
    }
    (in_start, in_edges)
}

/// The switches in OpenSM's switch-table order, and per node the number updn compares
/// between switches of equal rank: the GUID when every switch has one in its name
/// (then the order is by the byte-swapped GUID), else the node id (node order).
fn guid_order(f: &Fabric, is_switch: &[bool]) -> (Vec<u32>, Vec<u64>) {
    let n = f.num_nodes();
    let all_guids = (0..n)
        .filter(|&v| is_switch[v])
        .all(|v| guid_of_name(&f.node_names[v]).is_some());
    let mut switches: Vec<u32> = (0..n as u32).filter(|&v| is_switch[v as usize]).collect();
    let mut id: Vec<u64> = (0..n as u64).collect();
    if all_guids {
        for &s in &switches {
            id[s as usize] = guid_of_name(&f.node_names[s as usize]).unwrap_or(s as u64);
        }
        switches.sort_by_key(|&s| (id[s as usize].swap_bytes(), s));
    }
    (switches, id)
}

/// `S`/`H`/`R` followed by exactly 16 hex digits, as converted fabrics name nodes.
fn guid_of_name(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(['S', 'H', 'R'])?;
    if rest.len() != 16 || !rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(rest, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_names() {
        assert_eq!(guid_of_name("S0000000000200004"), Some(0x200004));
        assert_eq!(guid_of_name("S000000000020000"), None);
        assert_eq!(guid_of_name("X0000000000200004"), None);
        assert_eq!(guid_of_name("S1_12"), None);
    }

    #[test]
    fn switches_follow_opensms_guid_map_order() {
        // OpenSM's switch map is keyed by the GUID in network byte order, compared as a
        // little-endian u64: the lowest byte decides first.
        let names = [
            "S0000000000000100",
            "S0000000000000001",
            "S0000000000000201",
        ];
        let f = Fabric {
            node_names: names.iter().map(|n| n.to_string()).collect(),
            host_of_node: vec![NONE; 3],
            out_start: vec![0; 4],
            ..Fabric::default()
        };
        let topo = Topo::new(&f).unwrap();
        assert_eq!(topo.switches, vec![0, 1, 2]);
        assert_eq!(topo.id, vec![0x100, 0x1, 0x201]);
        // Without GUID names, node order.
        let f = Fabric {
            node_names: vec!["S1_0".into(), "S0_0".into()],
            host_of_node: vec![NONE; 2],
            out_start: vec![0; 3],
            ..Fabric::default()
        };
        assert_eq!(Topo::new(&f).unwrap().switches, vec![0, 1]);
    }

    /// A fabric of the nodes `names` (those in `hosts` are hosts, in that order) and the
    /// edges `(tail, head, port, input line)`, given grouped by tail.
    fn fabric(names: &[&str], hosts: &[u32], edges: &[(u32, u32, u32, u32)]) -> Fabric {
        let mut host_of_node = vec![NONE; names.len()];
        for (h, &v) in hosts.iter().enumerate() {
            host_of_node[v as usize] = h as u32;
        }
        let mut out_start = vec![0u32; names.len() + 1];
        for &(t, ..) in edges {
            out_start[t as usize + 1] += 1;
        }
        for v in 0..names.len() {
            out_start[v + 1] += out_start[v];
        }
        Fabric {
            node_names: names.iter().map(|n| n.to_string()).collect(),
            node_lines: vec![0; names.len()],
            hosts: hosts.to_vec(),
            host_of_node,
            out_start,
            edge_tail: edges.iter().map(|e| e.0).collect(),
            edge_head: edges.iter().map(|e| e.1).collect(),
            edge_keys: edges.iter().map(|e| Some(e.2.to_string())).collect(),
            edge_lines: edges.iter().map(|e| e.3).collect(),
            ..Fabric::default()
        }
    }

    /// A host delivers through the other direction of its uplink's cable: with two
    /// cables to one switch, paired by input line, that is the switch's port 2 here,
    /// not its first port towards the host.
    #[test]
    fn a_host_is_delivered_through_its_uplinks_cable() {
        // Edges 0, 1: H (ports 1, 2, lines 10, 11); edges 2, 3: S (ports 1, 2, lines
        // 11, 10).
        let f = fabric(
            &["H", "S"],
            &[0],
            &[(0, 1, 1, 10), (0, 1, 2, 11), (1, 0, 1, 11), (1, 0, 2, 10)],
        );
        let topo = Topo::new(&f).unwrap();
        assert_eq!(topo.rev, vec![3, 2, 1, 0]);
        assert_eq!((topo.uplink[0], topo.attach[0], topo.deliver[0]), (0, 1, 3));
    }

    /// Parallel cables pair up in port order unless the lines of both directions match
    /// up and are all known (above 0): edges given on lines of their own, or with a
    /// line unknown, say nothing of which two directions are one cable.
    #[test]
    fn parallel_cables_pair_by_line_only_when_both_directions_share_known_lines() {
        // A's port 2 is written first, B's port 1: by line, edge 0 would pair with
        // edge 2; by port A's port 1 (edge 1) pairs with B's port 1 (edge 2).
        let by_port = vec![3, 2, 1, 0];
        let cables = |lines: [u32; 4]| {
            let f = fabric(
                &["A", "B"],
                &[],
                &[
                    (0, 1, 2, lines[0]),
                    (0, 1, 1, lines[1]),
                    (1, 0, 1, lines[2]),
                    (1, 0, 2, lines[3]),
                ],
            );
            Topo::new(&f).unwrap().rev
        };
        // Each direction on lines of its own.
        assert_eq!(cables([10, 11, 20, 21]), by_port);
        // The same lines on both sides, one of them unknown.
        assert_eq!(cables([0, 5, 0, 5]), by_port);
        // The same known lines on both sides: one cable per line.
        assert_eq!(cables([10, 11, 10, 11]), vec![2, 3, 0, 1]);
    }

    /// A switch's in-edges are the other directions of its cables to switches, in its
    /// port order, then the switch-to-switch edges into it that have no other
    /// direction; never a host's edge, a loop from the switch to itself, or an edge
    /// twice.
    #[test]
    fn a_switchs_in_edges_are_its_cables_from_switches_then_one_way_edges() {
        // A: edge 0 to B (port 1), 1 a loop (port 2), 2 to H (port 3); B: 3 to A;
        // C: 4 to A, with no edge back; H: 5 to A.
        let f = fabric(
            &["A", "B", "C", "H"],
            &[3],
            &[
                (0, 1, 1, 1),
                (0, 0, 2, 2),
                (0, 3, 3, 3),
                (1, 0, 1, 1),
                (2, 0, 1, 4),
                (3, 0, 1, 3),
            ],
        );
        let topo = Topo::new(&f).unwrap();
        let ins: Vec<&[u32]> = (0..3).map(|v| topo.ins(v)).collect();
        assert_eq!(ins, [&[3, 4][..], &[0][..], &[][..]]);
    }

    /// A host whose switch has no edge back to it is not attached, even when the switch
    /// has edges to other hosts.
    #[test]
    fn a_host_without_an_edge_back_is_not_attached() {
        // H0 -> S only; H1 <-> S.
        let f = fabric(
            &["H0", "H1", "S"],
            &[0, 1],
            &[(0, 2, 1, 1), (1, 2, 1, 2), (2, 1, 1, 3)],
        );
        let topo = Topo::new(&f).unwrap();
        assert_eq!(
            (topo.uplink[0], topo.attach[0], topo.deliver[0]),
            (0, NONE, NONE)
        );
        assert_eq!((topo.uplink[1], topo.attach[1], topo.deliver[1]), (1, 2, 2));
    }

    /// The unconnected host's error names it and another host: the first host other
    /// than itself, and past a host it is cabled to directly.
    #[test]
    fn a_host_off_the_switches_is_named_with_another_host() {
        let disconnected = |f: &Fabric| match Topo::new(f).unwrap().check_connected() {
            Err(RoutingError::Disconnected { src, dst, reason }) => (src, dst, reason),
            other => panic!("{other:?}"),
        };
        // H0 has no link at all; H1 hangs on S.
        let f = fabric(&["H0", "H1", "S"], &[0, 1], &[(1, 2, 1, 1), (2, 1, 1, 2)]);
        let (src, dst, reason) = disconnected(&f);
        assert_eq!((src.as_str(), dst.as_str()), ("H0", "H1"), "{reason}");
        // H0 and H1 cabled to each other, H2 on S: not two hosts alone, so an error,
        // towards H2 (H1 would be reached by the cable itself).
        let f = fabric(
            &["H0", "H1", "H2", "S"],
            &[0, 1, 2],
            &[(0, 1, 1, 1), (1, 0, 1, 2), (2, 3, 1, 3), (3, 2, 1, 4)],
        );
        let (src, dst, reason) = disconnected(&f);
        assert_eq!((src.as_str(), dst.as_str()), ("H0", "H2"), "{reason}");
        assert!(reason.contains("cabled to host H1"), "{reason}");
    }
}
