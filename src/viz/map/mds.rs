//! Classical multidimensional scaling of hop distances: a placement of a graph's nodes in
//! the plane whose distances follow the hop counts, the start of the force-directed
//! placement.

use crate::fabric::NONE;
use crate::viz::map::layout::bfs;
use std::collections::VecDeque;

/// Classical multidimensional scaling of the hop distances (unreachable pairs at the
/// largest distance + 1): the top two eigenvectors of the double-centered squared
/// distances by 80 rounds of block power iteration. O(n·(n + m) + 80 n²) time, n² floats.
/// `None` when it degenerates (n < 3, no spread).
pub(crate) fn mds(adj: &[Vec<u32>]) -> Option<Vec<(f64, f64)>> {
    let n = adj.len();
    if n < 3 {
        return None;
    }
    let mut hops = vec![NONE; n * n];
    let mut queue = VecDeque::new();
    for (v, row) in hops.chunks_mut(n).enumerate() {
        row[v] = 0;
        queue.push_back(v as u32);
        bfs(adj, row, &mut queue);
    }
    let far = hops
        .iter()
        .filter(|&&x| x != NONE)
        .max()
        .map_or(1.0, |&x| x as f32 + 1.0);
    let d: Vec<f32> = (hops.into_iter())
        .map(|x| if x == NONE { far * far } else { (x * x) as f32 })
        .collect();
    let r: Vec<f64> = (0..n)
        .map(|i| d[i * n..(i + 1) * n].iter().map(|&x| x as f64).sum::<f64>() / n as f64)
        .collect();
    let g = r.iter().sum::<f64>() / n as f64;
    // B v with B = -1/2 (D² - r 1ᵀ - 1 rᵀ + g 11ᵀ).
    let apply = |v: &[f64]| -> Vec<f64> {
        let (sv, rv) = (
            v.iter().sum::<f64>(),
            r.iter().zip(v).map(|(a, b)| a * b).sum::<f64>(),
        );
        (0..n)
            .map(|i| {
                let dv: f64 = d[i * n..(i + 1) * n]
                    .iter()
                    .zip(v)
                    .map(|(&a, b)| a as f64 * b)
                    .sum();
                -0.5 * (dv - r[i] * sv - rv + g * sv)
            })
            .collect()
    };
    let unit = |v: &mut Vec<f64>| {
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm.max(1e-300));
        norm
    };
    // Deterministic pseudo-random start vectors (a Weyl sequence).
    let mut v1: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.618_034).fract() - 0.5)
        .collect();
    let mut v2: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.414_214 + 0.3).fract() - 0.5)
        .collect();
    let (mut l1, mut l2) = (0.0, 0.0);
    for _ in 0..80 {
        v1 = apply(&v1);
        l1 = unit(&mut v1);
        v2 = apply(&v2);
        let dot: f64 = v1.iter().zip(&v2).map(|(a, b)| a * b).sum();
        v2.iter_mut().zip(&v1).for_each(|(b, a)| *b -= dot * a);
        l2 = unit(&mut v2);
    }
    if l1.is_nan() || l1 <= 1e-9 || !l2.is_finite() {
        return None;
    }
    let (s1, s2) = (l1.sqrt(), l2.max(0.0).sqrt());
    Some((0..n).map(|i| (v1[i] * s1, v2[i] * s2)).collect())
}
