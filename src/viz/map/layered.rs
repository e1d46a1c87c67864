//! The layered placement for indirect networks (fat trees, XGFTs, Clos): hosts at the
//! bottom, each switch level above the previous, the order within a level chosen by
//! barycenter sweeps so that few cables cross.

use crate::viz::map::layout::levels;
use crate::viz::map::CongestionGraph;

/// The layered placement (before normalization); hidden nodes are left out of the
/// spreading so the visible levels use the full width.
pub(crate) fn layered(
    graph: &CongestionGraph,
    adj: &[Vec<u32>],
    hidden: &dyn Fn(usize) -> bool,
) -> Vec<Option<(f64, f64)>> {
    let level = levels(graph, adj);
    let top = level.iter().copied().max().unwrap_or(0) as usize;
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); top + 1];
    for (v, &l) in level.iter().enumerate() {
        rows[l as usize].push(v as u32);
    }
    // Position within the level, scaled to (0, 1) so levels of any width compare.
    let mut pos = vec![0.0f64; adj.len()];
    let place = |row: &[u32], pos: &mut [f64]| {
        for (i, &v) in row.iter().enumerate() {
            pos[v as usize] = (i as f64 + 0.5) / row.len() as f64;
        }
    };
    rows.iter().for_each(|row| place(row, &mut pos));
    let up = (1..=top).map(|l| (l, l - 1));
    let sweep: Vec<(usize, usize)> = up.chain((0..top).rev().map(|l| (l, l + 1))).collect();
    for &(l, reference) in sweep.iter().cycle().take(4 * sweep.len()) {
        let key = |v: u32| {
            let near = adj[v as usize]
                .iter()
                .filter(|&&w| level[w as usize] as usize == reference);
            let (sum, count) = near.fold((0.0, 0), |(s, c), &w| (s + pos[w as usize], c + 1));
            if count == 0 {
                pos[v as usize]
            } else {
                sum / count as f64
            }
        };
        let mut keyed: Vec<(f64, f64, u32)> = rows[l]
            .iter()
            .map(|&v| (key(v), pos[v as usize], v))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        rows[l] = keyed.into_iter().map(|k| k.2).collect();
        place(&rows[l], &mut pos);
    }
    let mut points = vec![None; adj.len()];
    for (l, row) in rows.iter().enumerate() {
        let shown: Vec<u32> = row
            .iter()
            .copied()
            .filter(|&v| !hidden(v as usize))
            .collect();
        for (i, &v) in shown.iter().enumerate() {
            points[v as usize] = Some(((i as f64 + 0.5) / shown.len() as f64, l as f64));
        }
    }
    points
}
