//! Walking many routes at once: all routes of a level advance together, one hop of each
//! per pass over them, so that their table lookups overlap in the memory system instead
//! of waiting for each other (on large tables a hop is a cache miss). Where the processor
//! has AVX2 (detected at run time), eight hops are gathered at once; elsewhere a portable
//! scalar pass does the same.
//!
//! Every route is at the same hop in a pass, so hop `h` of route `i` lands at
//! `edges[i * stride + h]` without any per-route cursor; routes that arrive drop out and
//! the ones still walking are compacted in place.

use super::table::{PortIndex, Router};

/// The routes still walking, reused from level to level so that walking allocates
/// nothing once the level size has been seen.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    /// The node each route is at.
    cur: Vec<u32>,
    /// Its destination host.
    dst: Vec<u32>,
    /// Its destination host's node.
    target: Vec<u32>,
    /// Its index among the level's routes (where its edges go).
    slot: Vec<u32>,
    /// The edge it takes next, once found, and the node that edge enters.
    edge: Vec<u32>,
    head: Vec<u32>,
}

impl InFlight {
    fn clear(&mut self) {
        self.cur.clear();
        self.dst.clear();
        self.target.clear();
        self.slot.clear();
    }
}

/// Where a level's walked routes go: route i's edges are `edges[i * stride..]`, its
/// length `lens[i]`, and every edge's count of routes is raised in `load`.
pub(crate) struct WalkOutput<'a> {
    /// The routes' edges, `stride` slots per route.
    pub edges: &'a mut [u32],
    /// Slots per route: at least the longest route walked.
    pub stride: usize,
    /// Per route: its number of edges.
    pub lens: &'a mut [u32],
    /// Per edge: routes through it (added to, never cleared here).
    pub load: &'a mut [u32],
}

/// The two steps of a pass, as one implementation provides them.
#[derive(Clone, Copy)]
struct Kernel<P: PortIndex> {
    /// The implementation's name, for tests and messages.
    #[cfg_attr(not(test), allow(dead_code))]
    name: &'static str,
    /// Finds the next edge of each of the first `live` routes and its head, into
    /// `f.edge` and `f.head`.
    find: fn(&Router<'_, P>, &mut InFlight, usize),
    /// Takes the first `live` routes over the edges found (hop `hop`): records
    /// and counts each, and compacts the routes that have not arrived to the front;
    /// returns how many they are.
    follow: fn(&mut InFlight, usize, usize, &mut WalkOutput<'_>) -> usize,
}

impl<P: PortIndex> Router<'_, P> {
    /// Walks the routes between the host pairs `pairs` (pair i → route i), all of them
    /// one hop per pass, into `out`. The routes must have been validated (no dead end,
    /// no loop) and be at most `out.stride` long; on a table that breaks this the walk
    /// panics or writes wrong routes, as [`Router::walk`] does, but never reads out of
    /// bounds. Returns the number of hops walked, the sum of the route lengths.
    /// O(pairs × hops); allocates only while `f` grows.
    pub(crate) fn walk_all(
        &self,
        pairs: impl Iterator<Item = (u32, u32)>,
        f: &mut InFlight,
        out: &mut WalkOutput<'_>,
    ) -> usize {
        self.walk_with(pairs, f, out, self.best_kernel(out.edges.len()))
    }

    /// [`Router::walk_all`] with a chosen kernel.
    fn walk_with(
        &self,
        pairs: impl Iterator<Item = (u32, u32)>,
        f: &mut InFlight,
        out: &mut WalkOutput<'_>,
        kernel: Kernel<P>,
    ) -> usize {
        f.clear();
        for (i, (s, d)) in pairs.enumerate() {
            let (src, target) = (self.host_node[s as usize], self.host_node[d as usize]);
            if src == target {
                out.lens[i] = 0;
                continue;
            }
            f.cur.push(src);
            f.dst.push(d);
            f.target.push(target);
            f.slot.push(i as u32);
        }
        // A pass first finds every route's next edge, a loop of independent table
        // lookups that the processor overlaps, and only then follows the edges.
        let mut live = f.cur.len();
        f.edge.resize(live, 0);
        f.head.resize(live, 0);
        let (mut hop, mut hops) = (0, 0);
        while live > 0 {
            (kernel.find)(self, f, live);
            hops += live;
            live = (kernel.follow)(f, live, hop, out);
            hop += 1;
        }
        hops
    }

    /// The fastest kernel this processor, table and `route_slots` (the length of the
    /// walk's [`WalkOutput::edges`]) allow.
    fn best_kernel(&self, route_slots: usize) -> Kernel<P> {
        #[cfg(target_arch = "x86_64")]
        if let Some(kernel) = avx2::kernel(self, route_slots) {
            return kernel;
        }
        scalar_kernel()
    }
}

/// The portable kernel, one route at a time.
fn scalar_kernel<P: PortIndex>() -> Kernel<P> {
    Kernel {
        name: "scalar",
        find: find_edges_scalar::<P>,
        follow: follow_edges_scalar,
    }
}

/// The next edges of the first `live` routes, one at a time.
fn find_edges_scalar<P: PortIndex>(r: &Router<'_, P>, f: &mut InFlight, live: usize) {
    for i in 0..live {
        find_one(r, f, i);
    }
}

/// Finds route `i`'s next edge and its head.
#[inline(always)]
fn find_one<P: PortIndex>(r: &Router<'_, P>, f: &mut InFlight, i: usize) {
    let edge = r.next_edge_of(f.cur[i] as usize, f.dst[i] as usize);
    f.edge[i] = edge;
    f.head[i] = r.edge_head[edge as usize];
}

/// Follows the first `live` routes' edges one at a time (see [`Kernel::follow`]).
fn follow_edges_scalar(
    f: &mut InFlight,
    live: usize,
    hop: usize,
    out: &mut WalkOutput<'_>,
) -> usize {
    let mut kept = 0;
    for i in 0..live {
        kept = follow_one(f, i, kept, hop, out);
    }
    kept
}

/// Takes route `i` over `f.edge[i]` (hop `hop`) and moves it to `kept` (≤ `i`) unless
/// it arrived; returns the next free place.
#[inline(always)]
fn follow_one(
    f: &mut InFlight,
    i: usize,
    kept: usize,
    hop: usize,
    out: &mut WalkOutput<'_>,
) -> usize {
    let (edge, head) = (f.edge[i], f.head[i]);
    out.load[edge as usize] += 1;
    let slot = f.slot[i] as usize;
    out.edges[slot * out.stride + hop] = edge;
    let target = f.target[i];
    if head == target {
        out.lens[slot] = hop as u32 + 1;
        return kept;
    }
    f.cur[kept] = head;
    f.dst[kept] = f.dst[i];
    f.target[kept] = target;
    f.slot[kept] = slot as u32;
    kept + 1
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The AVX2 kernel: the row, the port, the edge's first index and the edge's head
    //! of eight routes are gathered at once, and the routes still walking are packed to
    //! the front eight at a time. The counts and the routes' edges are stored one by one
    //! (two routes may share an edge).

    use super::{find_one, follow_one, InFlight, Kernel, PortIndex, Router, WalkOutput};
    use crate::fabric::NONE;
    use std::arch::x86_64::*;

    /// The AVX2 kernel, if this processor has AVX2 and the 32-bit lanes reach every
    /// item of `r`'s arrays and each of `route_slots` route slots.
    pub(super) fn kernel<P: PortIndex>(r: &Router<'_, P>, route_slots: usize) -> Option<Kernel<P>> {
        kernel_if(std::arch::is_x86_feature_detected!("avx2"), r, route_slots)
    }

    /// [`kernel`] on a processor that has AVX2 or not (`has_avx2`).
    pub(super) fn kernel_if<P: PortIndex>(
        has_avx2: bool,
        r: &Router<'_, P>,
        route_slots: usize,
    ) -> Option<Kernel<P>> {
        let usable = has_avx2
            && gathers_reach(
                r.ports.len(),
                P::WIDTH,
                r.row_of_node.len(),
                r.out_start.len(),
                r.edge_head.len(),
            )
            && slots_fit_lanes(route_slots);
        usable.then_some(Kernel {
            name: "avx2",
            find: find_edges::<P>,
            follow: follow_edges,
        })
    }

    /// Whether a gather's signed 32-bit offsets reach every item of a router with
    /// `ports` row entries of `width` bytes (read four bytes at a time) and
    /// `row_of_node`, `out_start` and `edge_head` arrays (of four-byte items) this long.
    pub(super) fn gathers_reach(
        ports: usize,
        width: usize,
        row_of_node: usize,
        out_start: usize,
        edge_head: usize,
    ) -> bool {
        let fits = |len: usize| len <= i32::MAX as usize / 4;
        fits(ports * width) && fits(row_of_node) && fits(out_start) && fits(edge_head)
    }

    /// Whether the index of every one of `route_slots` route slots fits a signed 32-bit
    /// lane, where the follow loop computes them.
    pub(super) fn slots_fit_lanes(route_slots: usize) -> bool {
        route_slots <= i32::MAX as usize
    }

    fn find_edges<P: PortIndex>(r: &Router<'_, P>, f: &mut InFlight, live: usize) {
        // SAFETY: `kernel` hands this out only after detecting AVX2.
        unsafe { find_gathered(r, f, live) }
    }

    fn follow_edges(f: &mut InFlight, live: usize, hop: usize, out: &mut WalkOutput<'_>) -> usize {
        // SAFETY: `kernel` hands this out only after detecting AVX2 (and only for route
        // slots whose indices fit the lanes, so that the places computed are right).
        unsafe { follow_packed(f, live, hop, out) }
    }

    /// How many entries of `width` bytes, from the first, a gather of four bytes at each
    /// can read inside rows of `bytes` bytes.
    pub(super) fn gatherable_entries(bytes: usize, width: usize) -> usize {
        match bytes.checked_sub(4) {
            Some(last_start) => last_start / width + 1,
            None => 0,
        }
    }

    /// Whether every lane of `v` lies in 0..`len`.
    #[inline(always)]
    unsafe fn all_below(v: __m256i, len: __m256i) -> bool {
        let ok = _mm256_andnot_si256(
            _mm256_cmpgt_epi32(_mm256_setzero_si256(), v),
            _mm256_cmpgt_epi32(len, v),
        );
        _mm256_movemask_epi8(ok) == -1
    }

    /// Gathers eight routes' next edges and their heads at a time. A group of eight in
    /// which any index would leave its array (a node past the last, a node without a
    /// dense row, an entry whose 4-byte gather would pass the end of the rows, an edge
    /// past the last) is found by the scalar lookup, so every gather reads inside its
    /// slice. Hosts have no row, so the first hops take that path.
    #[target_feature(enable = "avx2")]
    unsafe fn find_gathered<P: PortIndex>(r: &Router<'_, P>, f: &mut InFlight, live: usize) {
        let nodes = _mm256_set1_epi32(r.row_of_node.len() as i32);
        let gatherable = gatherable_entries(r.ports.len() * P::WIDTH, P::WIDTH) as i32;
        let gatherable = _mm256_set1_epi32(gatherable);
        let hosts = _mm256_set1_epi32(r.num_hosts as i32);
        let none = _mm256_set1_epi32(NONE as i32);
        let port_mask = _mm256_set1_epi32(if P::WIDTH == 1 { 0xff } else { 0xffff });
        let rows = r.row_of_node.as_ptr().cast::<i32>();
        let ports = r.ports.as_ptr().cast::<i32>();
        let firsts = r.out_start.as_ptr().cast::<i32>();
        let edges_len = _mm256_set1_epi32(r.edge_head.len() as i32);
        let heads = r.edge_head.as_ptr().cast::<i32>();
        let whole = live - live % 8;
        for i in (0..whole).step_by(8) {
            let cur = _mm256_loadu_si256(f.cur[i..i + 8].as_ptr().cast());
            let dst = _mm256_loadu_si256(f.dst[i..i + 8].as_ptr().cast());
            // Nodes come from the fabric's edge heads and host nodes, so they are in
            // range; checked anyway, because the gathers trust it.
            if all_below(cur, nodes) {
                let row = _mm256_i32gather_epi32::<4>(rows, cur);
                // Rows and destinations are in range (the table's own invariant), so
                // the entry index does not wrap.
                let entry = _mm256_add_epi32(_mm256_mullo_epi32(row, hosts), dst);
                let no_row = _mm256_movemask_epi8(_mm256_cmpeq_epi32(row, none)) != 0;
                if !no_row && all_below(entry, gatherable) {
                    let port = if P::WIDTH == 1 {
                        _mm256_i32gather_epi32::<1>(ports, entry)
                    } else {
                        _mm256_i32gather_epi32::<2>(ports, entry)
                    };
                    let first = _mm256_i32gather_epi32::<4>(firsts, cur);
                    let edge = _mm256_add_epi32(first, _mm256_and_si256(port, port_mask));
                    if all_below(edge, edges_len) {
                        let head = _mm256_i32gather_epi32::<4>(heads, edge);
                        _mm256_storeu_si256(f.edge[i..i + 8].as_mut_ptr().cast(), edge);
                        _mm256_storeu_si256(f.head[i..i + 8].as_mut_ptr().cast(), head);
                        continue;
                    }
                }
            }
            for j in i..i + 8 {
                find_one(r, f, j);
            }
        }
        for j in whole..live {
            find_one(r, f, j);
        }
    }

    /// For every set of lanes (bit j: lane j), the lanes in order, then zeros: the
    /// permutation that packs those lanes to the front.
    const PACK: [[u32; 8]; 256] = {
        let mut table = [[0u32; 8]; 256];
        let mut set = 0;
        while set < 256 {
            let (mut lane, mut to) = (0, 0);
            while lane < 8 {
                if set >> lane & 1 == 1 {
                    table[set][to] = lane as u32;
                    to += 1;
                }
                lane += 1;
            }
            set += 1;
        }
        table
    };

    /// Follows eight routes at a time: their heads are compared with their targets in
    /// one step, and the ones still walking are packed to `kept` with one permutation
    /// per array (the stores may write past the packed lanes, into places that were
    /// read already: `kept` ≤ `i`).
    #[target_feature(enable = "avx2")]
    unsafe fn follow_packed(
        f: &mut InFlight,
        live: usize,
        hop: usize,
        out: &mut WalkOutput<'_>,
    ) -> usize {
        let stride = _mm256_set1_epi32(out.stride as i32);
        let hop_v = _mm256_set1_epi32(hop as i32);
        let mut edge = [0u32; 8];
        let mut at = [0u32; 8];
        let mut kept = 0;
        let whole = live - live % 8;
        for i in (0..whole).step_by(8) {
            let e = _mm256_loadu_si256(f.edge[i..i + 8].as_ptr().cast());
            let head = _mm256_loadu_si256(f.head[i..i + 8].as_ptr().cast());
            let target = _mm256_loadu_si256(f.target[i..i + 8].as_ptr().cast());
            let slot = _mm256_loadu_si256(f.slot[i..i + 8].as_ptr().cast());
            let dst = _mm256_loadu_si256(f.dst[i..i + 8].as_ptr().cast());
            // Slot · stride + hop stays below the routes' length, which fits in i32.
            let place = _mm256_add_epi32(_mm256_mullo_epi32(slot, stride), hop_v);
            _mm256_storeu_si256(edge.as_mut_ptr().cast(), e);
            _mm256_storeu_si256(at.as_mut_ptr().cast(), place);
            for j in 0..8 {
                out.load[edge[j] as usize] += 1;
                out.edges[at[j] as usize] = edge[j];
            }
            let arrived = _mm256_cmpeq_epi32(head, target);
            let arrived = _mm256_movemask_ps(_mm256_castsi256_ps(arrived)) as usize;
            let mut done = arrived;
            while done != 0 {
                let j = done.trailing_zeros() as usize;
                out.lens[f.slot[i + j] as usize] = hop as u32 + 1;
                done &= done - 1;
            }
            let walking = !arrived & 0xff;
            let pack = _mm256_loadu_si256(PACK[walking].as_ptr().cast());
            for (to, v) in [
                (&mut f.cur, head),
                (&mut f.dst, dst),
                (&mut f.target, target),
                (&mut f.slot, slot),
            ] {
                let packed = _mm256_permutevar8x32_epi32(v, pack);
                _mm256_storeu_si256(to[kept..kept + 8].as_mut_ptr().cast(), packed);
            }
            kept += walking.count_ones() as usize;
        }
        for j in whole..live {
            kept = follow_one(f, j, kept, hop, out);
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::generate;
    use crate::routing::{route_generated, AnyRouter, ForwardingTable};

    /// Every kernel this machine can run on `r` and `route_slots` route slots.
    fn kernels<P: PortIndex>(r: &Router<'_, P>, route_slots: usize) -> Vec<Kernel<P>> {
        let mut all = vec![scalar_kernel()];
        #[cfg(target_arch = "x86_64")]
        all.extend(avx2::kernel(r, route_slots));
        all
    }

    /// Walks `pairs` with every finder and checks each route, length and edge count
    /// against one [`Router::walk`] per pair.
    fn check_walks<P: PortIndex>(r: &Router<'_, P>, edges: usize, pairs: &[(u32, u32)]) {
        let mut expected = Vec::new();
        let mut expected_load = vec![0u32; edges];
        for &(s, d) in pairs {
            let mut route = Vec::new();
            r.walk(s, d, |e| {
                route.push(e);
                expected_load[e as usize] += 1;
            });
            expected.push(route);
        }
        let stride = expected.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut f = InFlight::default();
        for kernel in kernels(r, pairs.len() * stride) {
            let name = kernel.name;
            // Stale values everywhere, to see that the walk sets every length it owns.
            let mut route_edges = vec![u32::MAX; pairs.len() * stride];
            let mut lens = vec![u32::MAX; pairs.len()];
            let mut load = vec![0u32; edges];
            let mut out = WalkOutput {
                edges: &mut route_edges,
                stride,
                lens: &mut lens,
                load: &mut load,
            };
            let hops = r.walk_with(pairs.iter().copied(), &mut f, &mut out, kernel);
            for (i, route) in expected.iter().enumerate() {
                let got = &route_edges[i * stride..][..lens[i] as usize];
                assert_eq!(got, &route[..], "{name}: route {i} {:?}", pairs[i]);
            }
            let expected_hops: usize = expected.iter().map(Vec::len).sum();
            assert_eq!(hops, expected_hops, "{name}: hops walked");
            assert_eq!(load, expected_load, "{name}: edge counts");
        }
    }

    fn all_pairs(hosts: u32) -> Vec<(u32, u32)> {
        (0..hosts)
            .flat_map(|s| (0..hosts).map(move |d| (s, d)))
            .collect()
    }

    #[test]
    fn every_kernel_walks_the_routes_one_by_one_walking_gives() {
        let generated = generate("kary-ntree:k=4,n=3").expect("fabric");
        let fabric = &generated.fabric;
        let (table, _) = route_generated(&generated, Some("dmodk"), None, 0).expect("routes");
        let pairs = all_pairs(fabric.num_hosts() as u32);
        let mut narrow = table.clone();
        narrow.compact();
        let AnyRouter::Narrow(r) = narrow.router(fabric) else {
            panic!("a 4-ary tree's rows fit in one byte");
        };
        check_walks(&r, fabric.num_edges(), &pairs);
        // Two-byte rows, first with hosts that send everything through their uplink,
        // then with a dense row for every host too, so that first hops are gathered.
        let mut wide = table.clone();
        for with_host_rows in [false, true] {
            if with_host_rows {
                for h in 0..fabric.num_hosts() {
                    wide.row_mut(fabric, fabric.hosts[h]);
                }
            }
            let AnyRouter::Wide(r) = wide.router(fabric) else {
                panic!("routing makes two-byte rows");
            };
            check_walks(&r, fabric.num_edges(), &pairs);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Random fabrics (routes of every length, rows of either width) and random pairs
        /// (repeated, from and to the same host, counts not a multiple of eight).
        #[test]
        fn random_fabrics_walk_as_route_by_route(
            half_switches in 4u32..10,
            ports in 4u32..9,
            hosts in 1u32..3,
            seed in 0u64..1000,
            draws in proptest::collection::vec((0u32..1000, 0u32..1000), 0..300),
        ) {
            // An even number of switches, more than their degree: always a valid draw.
            let switches = 2 * half_switches;
            let spec = format!("jellyfish:switches={switches},ports={ports},hosts={hosts},seed={seed}");
            let generated = generate(&spec).expect("a valid jellyfish");
            let fabric = &generated.fabric;
            let Ok((table, _)) = route_generated(&generated, Some("minhop"), None, seed) else {
                return Ok(()); // a disconnected draw
            };
            let n = fabric.num_hosts() as u32;
            let all: Vec<u32> = (0..n).collect();
            if !crate::routing::check_routes(fabric, &table, &all).all_routed() {
                return Ok(());
            }
            let pairs: Vec<(u32, u32)> = draws.iter().map(|&(s, d)| (s % n, d % n)).collect();
            let mut narrow = table.clone();
            narrow.compact();
            for t in [&table, &narrow] {
                match t.router(fabric) {
                    AnyRouter::Narrow(r) => check_walks(&r, fabric.num_edges(), &pairs),
                    AnyRouter::Wide(r) => check_walks(&r, fabric.num_edges(), &pairs),
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn gathers_of_four_bytes_stop_where_they_would_pass_the_end() {
        use avx2::gatherable_entries;
        // One-byte entries: the gather at entry i reads bytes i..i + 4.
        assert_eq!(gatherable_entries(0, 1), 0);
        assert_eq!(gatherable_entries(3, 1), 0);
        assert_eq!(gatherable_entries(4, 1), 1);
        assert_eq!(gatherable_entries(10, 1), 7);
        // Two-byte entries: entry i reads bytes 2i..2i + 4.
        assert_eq!(gatherable_entries(2, 2), 0);
        assert_eq!(gatherable_entries(4, 2), 1);
        assert_eq!(gatherable_entries(8, 2), 3);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_kernel_is_chosen_wherever_the_processor_has_avx2() {
        // Falling back to the portable kernel gives the same routes, only slower, so
        // nothing but the choice itself shows it.
        let generated = generate("kary-ntree:k=4,n=2").expect("fabric");
        let (table, _) = route_generated(&generated, None, None, 0).expect("routes");
        let AnyRouter::Wide(r) = table.router(&generated.fabric) else {
            panic!("routing makes two-byte rows");
        };
        let has_avx2 = std::arch::is_x86_feature_detected!("avx2");
        let name = |k: Option<Kernel<u16>>| k.map(|k| k.name);
        let slots = 1000;
        assert_eq!(name(avx2::kernel(&r, slots)), has_avx2.then_some("avx2"));
        let best = r.best_kernel(slots).name;
        assert_eq!(best, if has_avx2 { "avx2" } else { "scalar" });
        assert_eq!(name(avx2::kernel_if(true, &r, slots)), Some("avx2"));
        assert_eq!(name(avx2::kernel_if(false, &r, slots)), None);
        let too_many = i32::MAX as usize + 1;
        assert_eq!(name(avx2::kernel_if(true, &r, too_many)), None);
        assert!(avx2::slots_fit_lanes(i32::MAX as usize));
        // Offsets are i32 bytes, so 4-byte items up to 2^29 - 1 of them, each array
        // on its own.
        let most = (1 << 29) - 1;
        assert!(avx2::gathers_reach(most, 1, most, most, most));
        assert!(avx2::gathers_reach(0, 2, 0, 0, 0));
        for too_long in 0..4 {
            let mut lens = [most; 4];
            lens[too_long] += 1;
            let [ports, rows, starts, heads] = lens;
            assert!(
                !avx2::gathers_reach(ports, 1, rows, starts, heads),
                "{lens:?}"
            );
        }
        // Two-byte entries: half as many.
        assert!(!avx2::gathers_reach(1 << 28, 2, 0, 0, 0));
        assert!(avx2::gathers_reach((1 << 28) - 1, 2, 0, 0, 0));
    }

    #[test]
    fn a_table_too_short_to_gather_from_is_walked_one_route_at_a_time() {
        // One switch and two hosts: two entries per row, fewer than one gather reads,
        // so every group of eight falls back to the scalar lookup. Seventeen routes: two
        // whole groups and a tail.
        let generated = generate("kary-ntree:k=2,n=1").expect("fabric");
        let fabric = &generated.fabric;
        let (table, _) = route_generated(&generated, None, None, 0).expect("routes");
        let pairs: Vec<(u32, u32)> = (0..17).map(|i| (i % 2, (i + 1) % 2)).collect();
        let mut compact = ForwardingTable::clone(&table);
        compact.compact();
        match compact.router(fabric) {
            AnyRouter::Narrow(r) => check_walks(&r, fabric.num_edges(), &pairs),
            AnyRouter::Wide(r) => check_walks(&r, fabric.num_edges(), &pairs),
        }
    }
}
