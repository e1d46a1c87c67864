//! The hop-walk limit: what walking a run's routes costs when nothing else is done, to
//! set the engine's per-run time against.
//!
//! A run's pairs (the pattern's levels on a random permutation of the hosts, as in the
//! engine) are walked level by level, all pairs of a level together, one hop of each per
//! pass, counting every edge's routes. The table is laid out for this walk alone: one
//! dense row of local port indices per switch, one byte each when every port fits (two
//! otherwise), padded so that a 4-byte read of the last entry stays inside; hosts leave
//! through their one uplink, taken before the first pass. A pass first finds every
//! route's next edge (the port and the edge's first index: the loads that miss the
//! cache, in a loop with nothing else in it) and then follows the edges (the edge's
//! head, the count, and packing the routes still walking to the front). Nothing is
//! stored for the weighing that the engine does after each level, and nothing is
//! checked, so the engine cannot reach this floor; the ratio says how far from it it is.
//! Two kernels: a portable scalar one, and on x86-64 with AVX2 (detected at run time) one
//! that gathers eight routes' loads at once and packs with one permutation.

use orcs::fabric::{Fabric, NONE};
use orcs::routing::ForwardingTable;

/// The flat arrays one hop reads.
pub struct LimitTable {
    hosts: usize,
    /// Per node: its switch row (u32::MAX for a host).
    row: Vec<u32>,
    /// Per host node: its uplink edge.
    uplink: Vec<u32>,
    /// Bytes per port entry: 1 or 2.
    width: usize,
    /// Per switch row and destination host: the local port, `width` bytes little-endian,
    /// then four bytes of padding.
    ports: Vec<u8>,
    /// Per node: the index of its first out-edge.
    out_start: Vec<u32>,
    /// Per edge: the node it enters.
    head: Vec<u32>,
    /// Per host: its node.
    host_node: Vec<u32>,
}

impl LimitTable {
    /// The table of `table`'s routes on `fabric` (every route must be valid).
    pub fn new(fabric: &Fabric, table: &ForwardingTable) -> LimitTable {
        let hosts = fabric.num_hosts();
        let nodes = fabric.num_nodes();
        let mut row = vec![u32::MAX; nodes];
        let mut uplink = vec![u32::MAX; nodes];
        let mut entries: Vec<u16> = Vec::new();
        let mut rows = 0u32;
        for n in 0..nodes as u32 {
            let host = fabric.host_of_node[n as usize];
            if host != NONE {
                // A host sends every other host through the same edge.
                let other = (host + 1) % hosts as u32;
                uplink[n as usize] = table.next_edge(fabric, n, other).expect("host uplink");
                continue;
            }
            row[n as usize] = rows;
            rows += 1;
            let first = fabric.out_start[n as usize];
            for d in 0..hosts as u32 {
                let port = table
                    .next_edge(fabric, n, d)
                    .map_or(u16::MAX, |e| (e - first) as u16);
                entries.push(port);
            }
        }
        let width = if entries.iter().all(|&p| p <= u8::MAX as u16) {
            1
        } else {
            2
        };
        let mut ports: Vec<u8> = entries
            .iter()
            .flat_map(|p| p.to_le_bytes().into_iter().take(width))
            .collect();
        ports.extend([0; 4]);
        LimitTable {
            hosts,
            row,
            uplink,
            width,
            ports,
            out_start: fabric.out_start.clone(),
            head: fabric.edge_head.clone(),
            host_node: fabric.hosts.clone(),
        }
    }

    /// The number of edges (the size of a load array).
    pub fn edges(&self) -> usize {
        self.head.len()
    }

    /// The local port of switch row `row` towards host `dst`.
    #[inline(always)]
    fn port(&self, row: usize, dst: usize) -> u32 {
        let at = (row * self.hosts + dst) * self.width;
        if self.width == 1 {
            u32::from(self.ports[at])
        } else {
            u32::from(u16::from_le_bytes([self.ports[at], self.ports[at + 1]]))
        }
    }
}

/// One level's pairs in flight: the switch each route is at, its destination host, that
/// host's node, and the edge it takes next once found.
#[derive(Default)]
pub struct InFlight {
    cur: Vec<u32>,
    dst: Vec<u32>,
    target: Vec<u32>,
    edge: Vec<u32>,
}

/// A walking kernel: takes the level's routes past their first hop in `f` to their
/// ends, adding every edge to `load`; returns the hops walked.
pub type Kernel = fn(&LimitTable, &mut InFlight, &mut [u32]) -> u64;

/// Walks the host pairs `pairs` (one level) with `kernel`, counting edges in `load`
/// (left for the caller to clear); returns the hops walked.
pub fn walk_level(
    t: &LimitTable,
    pairs: &[(u32, u32)],
    f: &mut InFlight,
    load: &mut [u32],
    kernel: Kernel,
) -> u64 {
    f.cur.clear();
    f.dst.clear();
    f.target.clear();
    let mut hops = 0;
    for &(s, d) in pairs {
        if s == d {
            continue;
        }
        let src = t.host_node[s as usize];
        let e = t.uplink[src as usize];
        load[e as usize] += 1;
        hops += 1;
        let next = t.head[e as usize];
        let target = t.host_node[d as usize];
        if next != target {
            f.cur.push(next);
            f.dst.push(d);
            f.target.push(target);
        }
    }
    f.edge.resize(f.cur.len(), 0);
    hops + kernel(t, f, load)
}

/// Scalar passes: find every route's next edge, then follow them; the routes that
/// arrive drop out.
pub fn scalar(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
    let mut hops = 0u64;
    let mut live = f.cur.len();
    while live > 0 {
        hops += live as u64;
        for i in 0..live {
            let n = f.cur[i] as usize;
            f.edge[i] = t.out_start[n] + t.port(t.row[n] as usize, f.dst[i] as usize);
        }
        let mut kept = 0;
        for i in 0..live {
            kept = follow(t, f, load, i, kept);
        }
        live = kept;
    }
    hops
}

/// Takes route `i` over `f.edge[i]` and moves it to `kept` (≤ `i`: the routes still
/// walking are compacted in place); returns the next free place, `kept` again if it
/// arrived.
#[inline(always)]
fn follow(t: &LimitTable, f: &mut InFlight, load: &mut [u32], i: usize, kept: usize) -> usize {
    let e = f.edge[i];
    load[e as usize] += 1;
    let next = t.head[e as usize];
    let target = f.target[i];
    f.cur[kept] = next;
    f.dst[kept] = f.dst[i];
    f.target[kept] = target;
    kept + usize::from(next != target)
}

/// The AVX2 kernel when this processor has AVX2, else None.
pub fn simd() -> Option<(&'static str, Kernel)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return Some(("avx2", avx2::kernel));
    }
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{follow, InFlight, LimitTable};
    use std::arch::x86_64::*;

    pub fn kernel(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
        // SAFETY: `simd` hands this kernel out only after detecting AVX2.
        unsafe { walk(t, f, load) }
    }

    /// For every set of lanes (bit j: lane j), the lanes in order, then zeros.
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

    /// Eight routes per step: the row, the port and the edge's first index are gathered
    /// in the first loop, the edge's head in the second, which packs the routes still
    /// walking with one permutation; the increments stay scalar (two routes may share
    /// an edge).
    #[target_feature(enable = "avx2")]
    // The eight lanes are compacted in place, as `follow` does.
    #[allow(clippy::needless_range_loop)]
    unsafe fn walk(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
        let mut hops = 0u64;
        let mut live = f.cur.len();
        let hosts = _mm256_set1_epi32(t.hosts as i32);
        let port_mask = _mm256_set1_epi32(if t.width == 1 { 0xff } else { 0xffff });
        let mut edges = [0u32; 8];
        while live > 0 {
            hops += live as u64;
            let whole = live - live % 8;
            for i in (0..whole).step_by(8) {
                let cur = _mm256_loadu_si256(f.cur.as_ptr().add(i).cast());
                let dst = _mm256_loadu_si256(f.dst.as_ptr().add(i).cast());
                let row = _mm256_i32gather_epi32::<4>(t.row.as_ptr().cast(), cur);
                // Entry index row · hosts + dst; fits in 31 bits for any table whose
                // offsets fit in memory below 2 GiB.
                let entry = _mm256_add_epi32(_mm256_mullo_epi32(row, hosts), dst);
                let port = if t.width == 1 {
                    _mm256_i32gather_epi32::<1>(t.ports.as_ptr().cast(), entry)
                } else {
                    _mm256_i32gather_epi32::<2>(t.ports.as_ptr().cast(), entry)
                };
                let first = _mm256_i32gather_epi32::<4>(t.out_start.as_ptr().cast(), cur);
                let edge = _mm256_add_epi32(first, _mm256_and_si256(port, port_mask));
                _mm256_storeu_si256(f.edge.as_mut_ptr().add(i).cast(), edge);
            }
            for i in whole..live {
                let n = f.cur[i] as usize;
                f.edge[i] = t.out_start[n] + t.port(t.row[n] as usize, f.dst[i] as usize);
            }
            let mut kept = 0;
            for i in (0..whole).step_by(8) {
                let edge = _mm256_loadu_si256(f.edge.as_ptr().add(i).cast());
                let head = _mm256_i32gather_epi32::<4>(t.head.as_ptr().cast(), edge);
                let dst = _mm256_loadu_si256(f.dst.as_ptr().add(i).cast());
                let target = _mm256_loadu_si256(f.target.as_ptr().add(i).cast());
                _mm256_storeu_si256(edges.as_mut_ptr().cast(), edge);
                for j in 0..8 {
                    load[edges[j] as usize] += 1;
                }
                let arrived = _mm256_cmpeq_epi32(head, target);
                let walking = !_mm256_movemask_ps(_mm256_castsi256_ps(arrived)) as usize & 0xff;
                let pack = _mm256_loadu_si256(PACK[walking].as_ptr().cast());
                // kept ≤ i: the eight places written were all read already.
                for (to, v) in [
                    (&mut f.cur, head),
                    (&mut f.dst, dst),
                    (&mut f.target, target),
                ] {
                    let packed = _mm256_permutevar8x32_epi32(v, pack);
                    _mm256_storeu_si256(to.as_mut_ptr().add(kept).cast(), packed);
                }
                kept += walking.count_ones() as usize;
            }
            for i in whole..live {
                kept = follow(t, f, load, i, kept);
            }
            live = kept;
        }
        hops
    }
}
