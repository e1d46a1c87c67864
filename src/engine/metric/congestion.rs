//! get_cable_cong's per-edge congestion: the counts scaled to [0, 1] as ORCS scales them
//! for its colored dot graph (spec §7.5), and the most congested edges.

/// Per-edge congestion scaled to [0, 1] by the largest value, in single precision as
/// ORCS computes it (spec §7.5).
pub fn scaled_congestion(cable: &[u64]) -> Vec<f32> {
    let max = cable.iter().copied().max().unwrap_or(0);
    cable
        .iter()
        .map(|&c| if max == 0 { 0.0 } else { c as f32 / max as f32 })
        .collect()
}

/// The (at most) `n` edges with the largest non-zero counts, most congested first; ties
/// in edge order. O(edges log edges).
pub fn hottest_edges(cable: &[u64], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cable.len()).collect();
    order.sort_by_key(|&e| (std::cmp::Reverse(cable[e]), e));
    order
        .into_iter()
        .take(n)
        .filter(|&e| cable[e] > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_by_the_largest_count() {
        assert_eq!(scaled_congestion(&[0, 2, 4]), [0.0, 0.5, 1.0]);
        assert_eq!(scaled_congestion(&[0, 0]), [0.0, 0.0]);
    }

    #[test]
    fn hottest_first_ties_in_edge_order() {
        assert_eq!(hottest_edges(&[1, 3, 0, 3, 2], 3), [1, 3, 4]);
        assert_eq!(hottest_edges(&[0, 1, 0], 10), [1]);
    }
}
