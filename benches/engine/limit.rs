//! The hop-walk limit: what walking a run's routes costs when nothing else is done, to
//! set the engine's per-run time against.
//!
//! A run's pairs (the pattern's levels on a random permutation of the hosts, as in the
//! engine) are walked level by level, all pairs of a level together, one hop of each per
//! pass, counting every edge's routes. The table is laid out for this walk alone: one
//! dense row of 16-bit local port indices per switch (hosts leave through their one
//! uplink, taken before the first pass), so a hop is three dependent loads (the port,
//! the edge's first index, the edge's head) and an increment. Nothing is stored for the
//! weighing that the engine does after each level, so the engine cannot reach this
//! floor; the ratio says how far from it it is. Two kernels: a portable scalar one, and
//! on x86-64 with AVX2 (detected at run time) one that gathers eight pairs' hops at once.

use orcs::fabric::{Fabric, NONE};
use orcs::routing::ForwardingTable;

/// The flat arrays one hop reads.
pub struct LimitTable {
    hosts: usize,
    /// Per node: its switch row (u32::MAX for a host).
    row: Vec<u32>,
    /// Per host node: its uplink edge.
    uplink: Vec<u32>,
    /// Per switch row and destination host: the local port, then two bytes of padding
    /// so that a 32-bit gather of the last entry stays inside.
    ports: Vec<u16>,
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
        let mut ports = Vec::new();
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
                ports.push(port);
            }
        }
        ports.extend([0, 0]);
        LimitTable {
            hosts,
            row,
            uplink,
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
}

/// One level's pairs in flight: the switch each route is at, its destination host and
/// that host's node.
#[derive(Default)]
pub struct InFlight {
    cur: Vec<u32>,
    dst: Vec<u32>,
    target: Vec<u32>,
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
    hops + kernel(t, f, load)
}

/// One hop per pass over all routes, scalar; the routes that arrive drop out.
pub fn scalar(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
    let mut hops = 0u64;
    let mut live = f.cur.len();
    while live > 0 {
        hops += live as u64;
        let mut kept = 0;
        for i in 0..live {
            kept = hop(t, f, load, i, kept);
        }
        live = kept;
    }
    hops
}

/// Takes route `i` one hop and moves it to `kept` (≤ `i`: the routes still walking are
/// compacted in place); returns the next free place, `kept` again if it arrived.
#[inline(always)]
fn hop(t: &LimitTable, f: &mut InFlight, load: &mut [u32], i: usize, kept: usize) -> usize {
    let n = f.cur[i] as usize;
    let row = t.row[n] as usize;
    let e = t.out_start[n] + u32::from(t.ports[row * t.hosts + f.dst[i] as usize]);
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
    use super::{InFlight, LimitTable};
    use std::arch::x86_64::*;

    pub fn kernel(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
        // SAFETY: `simd` hands this kernel out only after detecting AVX2.
        unsafe { walk(t, f, load) }
    }

    /// Eight routes per step: the row, the port, the edge and its head are gathered;
    /// the increments stay scalar (two routes may share an edge).
    #[target_feature(enable = "avx2")]
    // The eight lanes are compacted in place, as `hop` does.
    #[allow(clippy::needless_range_loop)]
    unsafe fn walk(t: &LimitTable, f: &mut InFlight, load: &mut [u32]) -> u64 {
        let mut hops = 0u64;
        let mut live = f.cur.len();
        let hosts = _mm256_set1_epi32(t.hosts as i32);
        let low16 = _mm256_set1_epi32(0xffff);
        let mut edges = [0u32; 8];
        let mut heads = [0u32; 8];
        while live > 0 {
            hops += live as u64;
            let mut kept = 0;
            let whole = live - live % 8;
            let mut i = 0;
            while i < whole {
                let cur = _mm256_loadu_si256(f.cur.as_ptr().add(i).cast());
                let dst = _mm256_loadu_si256(f.dst.as_ptr().add(i).cast());
                let row = _mm256_i32gather_epi32::<4>(t.row.as_ptr().cast(), cur);
                // Entry index row · hosts + dst; fits in 31 bits for any table that
                // fits in memory as 16-bit entries below 4 GiB.
                let entry = _mm256_add_epi32(_mm256_mullo_epi32(row, hosts), dst);
                let port = _mm256_and_si256(
                    _mm256_i32gather_epi32::<2>(t.ports.as_ptr().cast(), entry),
                    low16,
                );
                let first = _mm256_i32gather_epi32::<4>(t.out_start.as_ptr().cast(), cur);
                let edge = _mm256_add_epi32(first, port);
                let head = _mm256_i32gather_epi32::<4>(t.head.as_ptr().cast(), edge);
                _mm256_storeu_si256(edges.as_mut_ptr().cast(), edge);
                _mm256_storeu_si256(heads.as_mut_ptr().cast(), head);
                for j in 0..8 {
                    load[edges[j] as usize] += 1;
                    let target = f.target[i + j];
                    f.cur[kept] = heads[j];
                    f.dst[kept] = f.dst[i + j];
                    f.target[kept] = target;
                    kept += usize::from(heads[j] != target);
                }
                i += 8;
            }
            for i in whole..live {
                kept = super::hop(t, f, load, i, kept);
            }
            live = kept;
        }
        hops
    }
}
