//! The force-directed placement for direct networks (tori, meshes, hypercubes,
//! dragonflies): the switches started from their MDS placement ([`super::mds`]) and
//! relaxed by Fruchterman–Reingold, each host on a small circle around its switch.

use crate::viz::map::layout::normalize;
use crate::viz::map::mds::mds;
use crate::viz::map::CongestionGraph;

/// Most switches the force-directed layout places; larger direct networks are placed on
/// a grid in node order (O(n)) instead of the O(iterations × n²) simulation.
pub(crate) const FORCE_LIMIT: usize = 2000;

/// The force-directed placement (before normalization).
pub(crate) fn force(graph: &CongestionGraph, adj: &[Vec<u32>]) -> Vec<Option<(f64, f64)>> {
    let n = adj.len();
    // A host's anchor: its lowest-numbered switch neighbour; hosts without one are placed
    // like switches.
    let anchor: Vec<Option<u32>> = (0..n)
        .map(|v| {
            let host = graph.host(v as u32);
            host.then(|| adj[v].iter().copied().find(|&w| !graph.host(w)))
                .flatten()
        })
        .collect();
    let core: Vec<usize> = (0..n).filter(|&v| anchor[v].is_none()).collect();
    let mut index = vec![usize::MAX; n];
    core.iter().enumerate().for_each(|(i, &v)| index[v] = i);
    let core_adj: Vec<Vec<u32>> = (core.iter())
        .map(|&v| (adj[v].iter()).map(|&w| index[w as usize] as u32))
        .map(|list| list.filter(|&i| i != u32::MAX).collect())
        .collect();
    let mut p = if core.len() > FORCE_LIMIT {
        let cols = (core.len() as f64).sqrt().ceil() as usize;
        (0..core.len())
            .map(|i| ((i % cols) as f64, -((i / cols) as f64)))
            .collect()
    } else {
        let mut p = mds(&core_adj).unwrap_or_else(|| circle(core.len()));
        fruchterman_reingold(&mut p, &core_adj);
        p
    };
    let mut unit: Vec<Option<(f64, f64)>> = p.drain(..).map(Some).collect();
    normalize(&mut unit, false);
    let mut lengths: Vec<f64> = Vec::new();
    for (i, list) in core_adj.iter().enumerate() {
        for j in list.iter().map(|&j| j as usize).filter(|&j| j > i) {
            let (a, b) = (unit[i].unwrap_or_default(), unit[j].unwrap_or_default());
            lengths.push((a.0 - b.0).hypot(a.1 - b.1));
        }
    }
    lengths.sort_by(f64::total_cmp);
    let typical = lengths.get(lengths.len() / 2).copied().unwrap_or(0.2);
    let radius = (0.3 * typical).clamp(0.005, 0.08);
    let mut points = vec![None; n];
    core.iter().zip(&unit).for_each(|(&v, &p)| points[v] = p);
    let (mut seen, mut total) = (vec![0usize; n], vec![0usize; n]);
    anchor
        .iter()
        .flatten()
        .for_each(|&a| total[a as usize] += 1);
    for v in 0..n {
        if let Some(a) = anchor[v] {
            let a = a as usize;
            let angle = std::f64::consts::TAU * seen[a] as f64 / total[a] as f64 - 1.2;
            seen[a] += 1;
            let (cx, cy) = unit[index[a]].unwrap_or_default();
            points[v] = Some((cx + radius * angle.cos(), cy + radius * angle.sin()));
        }
    }
    points
}

/// `n` points on the unit circle, in order.
fn circle(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n.max(1) as f64;
            (a.cos(), a.sin())
        })
        .collect()
}

/// Fruchterman–Reingold in the unit square (k = √(1/n)), temperature cooling linearly
/// from 0.1; `clamp(1.5·10⁸ / n², 30, 300)` iterations, each O(n² + m).
fn fruchterman_reingold(p: &mut [(f64, f64)], adj: &[Vec<u32>]) {
    let n = p.len();
    if n < 2 {
        return;
    }
    let mut unit: Vec<Option<(f64, f64)>> = p.iter().copied().map(Some).collect();
    normalize(&mut unit, false);
    for (q, u) in p.iter_mut().zip(unit) {
        *q = u.unwrap_or((0.5, 0.5));
    }
    let k2 = 1.0 / n as f64;
    let k = k2.sqrt();
    let iterations = (1.5e8 / (n * n) as f64).clamp(30.0, 300.0) as usize;
    let mut disp = vec![(0.0f64, 0.0f64); n];
    for it in 0..iterations {
        let t = 0.1 * (1.0 - it as f64 / iterations as f64) + 1e-4;
        disp.iter_mut().for_each(|d| *d = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (mut dx, mut dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                let mut d2 = dx * dx + dy * dy;
                if d2 < 1e-12 {
                    // Coincident nodes: push apart along a direction fixed by the ids.
                    let a = (i * 7 + j * 13) as f64;
                    (dx, dy, d2) = (1e-6 * a.cos(), 1e-6 * a.sin(), 1e-12);
                }
                let f = k2 / d2;
                disp[i] = (disp[i].0 + dx * f, disp[i].1 + dy * f);
                disp[j] = (disp[j].0 - dx * f, disp[j].1 - dy * f);
            }
        }
        for (i, list) in adj.iter().enumerate() {
            for j in list.iter().map(|&j| j as usize).filter(|&j| j > i) {
                let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                let f = (dx * dx + dy * dy).sqrt() / k;
                disp[i] = (disp[i].0 - dx * f, disp[i].1 - dy * f);
                disp[j] = (disp[j].0 + dx * f, disp[j].1 + dy * f);
            }
        }
        for (q, d) in p.iter_mut().zip(&disp) {
            let len = d.0.hypot(d.1);
            if len > 0.0 && len.is_finite() {
                let s = len.min(t) / len;
                *q = (q.0 + d.0 * s, q.1 + d.1 * s);
            }
        }
    }
}
