//! OpenSM's `sssp` (and dfsssp's forwarding tables): Dijkstra per destination host over
//! the switch links with route-count weights, on a replay of OpenSM's 4-ary heap so that
//! ties between equally short paths go the same way.

use super::topo::Topo;
use crate::fabric::NONE;
use crate::routing::{RoutingError, NO_PORT};

/// OpenSM's "infinite" sssp distance (`INF` in `osm_ucast_dfsssp.c`).
const FAR: u64 = 0x7FEF_EFEF_EFEF_EFE0;

/// OpenSM's complib d-ary heap (`cl_heap.c`) with d = 4, as its sssp uses it: keys are
/// distances, items vertex numbers. Replayed exactly because its handling of equal keys
/// (the last of equal children moves up, the root is replaced by the last element)
/// decides which of several equally short paths a switch gets.
struct Heap {
    keys: Vec<u64>,
    items: Vec<u32>,
    /// Per vertex: its index in the arrays.
    pos: Vec<u32>,
    size: usize,
}

impl Heap {
    const D: usize = 4;

    fn new(n: usize) -> Self {
        Heap {
            keys: vec![0; n],
            items: vec![0; n],
            pos: vec![0; n],
            size: 0,
        }
    }

    fn place(&mut self, at: usize, key: u64, item: u32) {
        self.keys[at] = key;
        self.items[at] = item;
        self.pos[item as usize] = at as u32;
    }

    /// `heap_down`.
    fn down(&mut self, index: usize) {
        let (key, item) = (self.keys[index], self.items[index]);
        let mut parent = index;
        let mut swapped = false;
        while parent * Self::D + 1 < self.size {
            let first = parent * Self::D + 1;
            let mut swap = first;
            for child in first + 1..(first + Self::D).min(self.size) {
                if self.keys[child] <= self.keys[swap] {
                    swap = child;
                }
            }
            if key > self.keys[swap] {
                self.place(parent, self.keys[swap], self.items[swap]);
                parent = swap;
                swapped = true;
            } else {
                break;
            }
        }
        if swapped {
            self.place(parent, key, item);
        }
    }

    /// `heap_up`.
    fn up(&mut self, index: usize) {
        if index == 0 {
            return;
        }
        let (key, item) = (self.keys[index], self.items[index]);
        let mut parent = index;
        let mut target = 0;
        let mut swapped = false;
        loop {
            let child = parent;
            parent = (child - 1) / Self::D;
            if key < self.keys[parent] {
                self.place(child, self.keys[parent], self.items[parent]);
                target = parent;
                swapped = true;
            } else {
                break;
            }
            if parent == 0 {
                break;
            }
        }
        if swapped {
            self.place(target, key, item);
        }
    }

    /// `cl_heap_insert`.
    fn insert(&mut self, key: u64, item: u32) {
        let at = self.size;
        self.place(at, key, item);
        self.size += 1;
        self.up(at);
    }

    /// `cl_heap_modify_key` of `item`.
    fn modify(&mut self, item: u32, key: u64) {
        let index = self.pos[item as usize] as usize;
        let old = self.keys[index];
        self.keys[index] = key;
        if key < old {
            self.up(index);
        } else if key > old {
            self.down(index);
        }
    }

    /// `cl_heap_extract_root`: the last element replaces the root, which sinks.
    fn pop(&mut self) -> Option<u32> {
        match self.size {
            0 => None,
            1 => {
                self.size = 0;
                Some(self.items[0])
            }
            _ => {
                self.size -= 1;
                let last = self.size;
                let (key, item) = (self.keys[last], self.items[last]);
                let (root_key, root) = (self.keys[0], self.items[0]);
                self.place(last, root_key, root);
                self.place(0, key, item);
                self.down(0);
                Some(root)
            }
        }
    }
}

/// OpenSM's sssp, see the module documentation. Vertex 0 is the destination host,
/// vertices 1..=S the switches in GUID order; links are the switch-to-switch edges
/// leaving each switch in port order, each carrying the weight of its reverse (the
/// direction the routes it forms travel). Calls `progress(1)` as each destination is
/// routed.
pub(super) fn sssp(topo: &Topo<'_>, progress: &dyn Fn(u64)) -> Result<Vec<u16>, RoutingError> {
    let f = topo.f;
    let hosts = f.num_hosts();
    let nsw = topo.switches.len();
    let mut links = Links::new(topo);
    let sources = topo.source_switches();
    let mut rows = vec![NO_PORT; nsw * hosts];
    let mut tree = Tree::new(nsw + 1);
    for h in topo.destination_order() {
        let t = topo.attach[h as usize];
        tree.grow(&links, topo.sw_index[t as usize] + 1);
        // Next hops: the reverse of the link each switch was reached through.
        for i in 0..nsw {
            let s = topo.switches[i];
            let e = match tree.used[i + 1] {
                NONE => {
                    if sources[i] {
                        return Err(topo.unroutable("sssp", s, h));
                    }
                    continue;
                }
                HOST_LINK => topo.deliver[h as usize],
                l => links.edge[l as usize],
            };
            rows[i * hosts + h as usize] = (e - f.out_start[s as usize]) as u16;
        }
        tree.add_weights(&mut links);
        progress(1);
    }
    Ok(rows)
}

/// The switch links as a CSR by vertex, with their weights.
struct Links {
    /// Per vertex: the first of its links (`nv + 1` offsets).
    start: Vec<u32>,
    /// Per link: the vertex it leads to.
    to: Vec<u32>,
    /// Per link: the traffic edge, the LFT entry at `to`.
    edge: Vec<u32>,
    /// Per link: its weight, `P²` plus what the routes across it added.
    weight: Vec<u64>,
    /// Per vertex: hosts (+1 for the switch itself), the weight a route from it adds.
    num_hca: Vec<u64>,
}

impl Links {
    /// The links of `topo`'s switches with their initial weights.
    fn new(topo: &Topo<'_>) -> Self {
        let f = topo.f;
        let nsw = topo.switches.len();
        let nv = nsw + 1;
        let mut start = vec![0u32; nv + 1];
        let mut to: Vec<u32> = Vec::new();
        let mut edge: Vec<u32> = Vec::new();
        let mut num_hca = vec![0u64; nv];
        for (i, &s) in topo.switches.iter().enumerate() {
            num_hca[i + 1] = 1;
            for &e in topo.ports(s) {
                let y = f.edge_head[e as usize];
                if y == s {
                    continue;
                }
                if !topo.is_switch[y as usize] {
                    num_hca[i + 1] += 1;
                } else if topo.rev[e as usize] != NONE {
                    to.push(topo.sw_index[y as usize] + 1);
                    edge.push(topo.rev[e as usize]);
                }
            }
            start[i + 2] = to.len() as u32;
        }
        let host_ports: u64 = f.hosts.iter().map(|&v| f.out_edges(v).len() as u64).sum();
        let p = host_ports + nsw as u64;
        Links {
            weight: vec![p * p; to.len()],
            start,
            to,
            edge,
            num_hca,
        }
    }

    /// The vertex link `l` leaves (binary search in the CSR).
    fn from(&self, l: u32) -> u32 {
        (self.start.partition_point(|&s| s <= l) - 1) as u32
    }
}

/// `Tree::used` of the switch the destination host hangs on.
const HOST_LINK: u32 = u32::MAX - 1;

/// The shortest-path tree towards one destination, and the scratch that builds it
/// (reused for every destination).
struct Tree {
    dist: Vec<u64>,
    done: Vec<bool>,
    /// Per vertex: the link it was reached through, NONE, or HOST_LINK.
    used: Vec<u32>,
    /// Vertices in the order Dijkstra settled them.
    pop_order: Vec<u32>,
    /// Per vertex: the weight its subtree's routes add to its link.
    acc: Vec<u64>,
    heap: Heap,
}

impl Tree {
    /// Scratch for `nv` vertices.
    fn new(nv: usize) -> Self {
        Tree {
            dist: vec![FAR; nv],
            done: vec![false; nv],
            used: vec![NONE; nv],
            pop_order: Vec::with_capacity(nv),
            acc: vec![0; nv],
            heap: Heap::new(nv),
        }
    }

    /// Dijkstra from the destination host (vertex 0), whose link of weight 1 leads to
    /// vertex `tv`, with OpenSM's heap and insertion order.
    fn grow(&mut self, links: &Links, tv: u32) {
        let nv = self.dist.len();
        self.dist.iter_mut().for_each(|d| *d = FAR);
        self.done.iter_mut().for_each(|d| *d = false);
        self.used.iter_mut().for_each(|u| *u = NONE);
        let heap = &mut self.heap;
        heap.size = 0;
        for v in 1..nv as u32 {
            heap.insert(FAR, v);
        }
        heap.insert(FAR, 0);
        self.dist[0] = 0;
        self.done[0] = true;
        heap.modify(0, 0);
        self.pop_order.clear();
        while let Some(cur) = heap.pop() {
            self.done[cur as usize] = true;
            self.pop_order.push(cur);
            let dc = self.dist[cur as usize];
            if cur == 0 {
                // The host's link to its switch, weight 1. The host is popped first,
                // alone at distance 0, so the switch is neither done nor reached yet:
                // OpenSM's test before relaxing a link always holds here.
                self.used[tv as usize] = HOST_LINK;
                self.dist[tv as usize] = 1;
                heap.modify(tv, 1);
                continue;
            }
            for l in links.start[cur as usize]..links.start[cur as usize + 1] {
                let to = links.to[l as usize];
                let nd = dc.saturating_add(links.weight[l as usize]);
                if !self.done[to as usize] && nd < self.dist[to as usize] {
                    self.used[to as usize] = l;
                    self.dist[to as usize] = nd;
                    heap.modify(to, nd);
                }
            }
        }
    }

    /// Global balancing: every link of the tree gets the hosts (+1) of all switches
    /// routed across it.
    fn add_weights(&mut self, links: &mut Links) {
        self.acc.iter_mut().for_each(|a| *a = 0);
        for &v in self.pop_order.iter().rev() {
            let l = self.used[v as usize];
            if l == NONE || v == 0 {
                continue;
            }
            self.acc[v as usize] += links.num_hca[v as usize];
            if l == HOST_LINK {
                continue;
            }
            links.weight[l as usize] += self.acc[v as usize];
            let from = links.from(l);
            self.acc[from as usize] += self.acc[v as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Heap;

    /// Keys from a small linear congruential sequence, with many ties.
    fn keys(seed: u64, n: usize) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % 17
            })
            .collect()
    }

    /// Pops every item, checking that the keys come out in order; returns the items.
    fn drain(heap: &mut Heap, key_of: &[u64]) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some(item) = heap.pop() {
            if let Some(&last) = out.last() {
                assert!(
                    key_of[last as usize] <= key_of[item as usize],
                    "{item} (key {}) after {last} (key {})",
                    key_of[item as usize],
                    key_of[last as usize]
                );
            }
            out.push(item);
        }
        out
    }

    #[test]
    fn the_heap_pops_in_key_order_after_inserts_and_key_changes() {
        for (seed, n) in [(1, 2), (2, 5), (3, 6), (4, 21), (5, 22), (6, 100), (7, 341)] {
            let mut key_of = keys(seed, n);
            let mut heap = Heap::new(n);
            for (item, &key) in key_of.iter().enumerate() {
                heap.insert(key, item as u32);
            }
            // Lower every third key, raise every fifth.
            for item in (0..n).step_by(3) {
                key_of[item] /= 2;
                heap.modify(item as u32, key_of[item]);
            }
            for item in (0..n).step_by(5) {
                key_of[item] += 7;
                heap.modify(item as u32, key_of[item]);
            }
            let mut items = drain(&mut heap, &key_of);
            items.sort_unstable();
            assert_eq!(items, (0..n as u32).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn among_equal_keys_the_heap_keeps_opensms_order() {
        // cl_heap with d = 4 by hand: inserting five equal keys leaves items 0 to 4 in
        // place (none is smaller than its parent). Each extraction returns the root
        // and moves the last element to the root, where it stays (it is not larger
        // than any child): 0, then 4, 3, 2, 1, not the order of insertion.
        let mut heap = Heap::new(5);
        for item in 0..5 {
            heap.insert(1, item);
        }
        let order: Vec<u32> = std::iter::from_fn(|| heap.pop()).collect();
        assert_eq!(order, [0, 4, 3, 2, 1]);
    }
}
