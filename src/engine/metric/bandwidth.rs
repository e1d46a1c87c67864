//! Accumulated bandwidth: the mean of 1/weight over pairs (hist_max_cong's `BW`, and
//! hist_acc_band's per-run value), the histogram of pair weights it comes from, and
//! ORCS's 20-bin histogram of the per-run values with GSL's exact bin edges (spec §7.1,
//! §7.2).

use serde::{Deserialize, Serialize};

/// Mean of 1/w over a weight histogram (`count[w]` pairs of weight w), summed in
/// ascending w as ORCS does; `None` when there are no pairs of positive weight.
pub fn acc_band(count: &[u64]) -> Option<f64> {
    let mut sum = 0.0f64;
    let mut total = 0u64;
    for (w, &c) in count.iter().enumerate().skip(1) {
        if c > 0 {
            sum += c as f64 / w as f64;
            total += c;
        }
    }
    (total > 0).then(|| sum / total as f64)
}

/// Runs without traffic among per-run acc_band values (a run without pairs has NaN).
pub fn runs_without_traffic(per_run: &[f64]) -> usize {
    per_run.iter().filter(|v| v.is_nan()).count()
}

/// One weight of the hist_max_cong histogram: how many pairs had it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightCount {
    /// The weight (congestion of the route's most shared link).
    pub weight: u64,
    /// Pairs with that weight.
    pub count: u64,
}

/// The weights of a weight histogram that some pair had, in ascending order.
pub fn weight_counts(count: &[u64]) -> Vec<WeightCount> {
    (count.iter().enumerate())
        .filter(|(_, &c)| c > 0)
        .map(|(w, &c)| WeightCount {
            weight: w as u64,
            count: c,
        })
        .collect()
}

/// Number of bins of the hist_acc_band histogram.
pub const ACC_BAND_BINS: usize = 20;

/// The bin boundaries of ORCS's GSL histogram: 20 uniform bins over
/// [0, 1.000000000000001), `r_i = (i / 20) × 1.000000000000001` in double precision, so a
/// value exactly i/20 falls into the lower bin (spec §7.2).
pub fn acc_band_bin_edges() -> [f64; ACC_BAND_BINS + 1] {
    const XMAX: f64 = 1.000000000000001;
    let mut edges = [0.0; ACC_BAND_BINS + 1];
    for (i, e) in edges.iter_mut().enumerate() {
        *e = (i as f64 / ACC_BAND_BINS as f64) * XMAX;
    }
    edges
}

/// The bin of `x` (`edges[i] ≤ x < edges[i+1]`), or `None` outside the histogram range.
pub fn acc_band_bin(edges: &[f64; ACC_BAND_BINS + 1], x: f64) -> Option<usize> {
    if !(x >= edges[0] && x < edges[ACC_BAND_BINS]) {
        return None;
    }
    // Last edge ≤ x; edges are increasing.
    Some(edges.partition_point(|&e| e <= x) - 1)
}

/// Counts of per-run acc_band values in ORCS's 20 bins; values outside [0, 1] (runs
/// without pairs) are not counted.
pub fn acc_band_bins(values: &[f64]) -> [u64; ACC_BAND_BINS] {
    let edges = acc_band_bin_edges();
    let mut counts = [0u64; ACC_BAND_BINS];
    for &v in values {
        if let Some(b) = acc_band_bin(&edges, v) {
            counts[b] += 1;
        }
    }
    counts
}

/// One bin `[low, high)` of the hist_acc_band histogram and the runs that fell in it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AccBandBin {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Values in the bin.
    pub count: u64,
}

/// ORCS's 20-bin histogram of per-run acc_band values, every bin with its edges.
pub fn acc_band_histogram(values: &[f64]) -> [AccBandBin; ACC_BAND_BINS] {
    let edges = acc_band_bin_edges();
    let counts = acc_band_bins(values);
    std::array::from_fn(|i| AccBandBin {
        low: edges[i],
        high: edges[i + 1],
        count: counts[i],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_counts_list_the_weights_some_pair_had_in_order() {
        // The histogram [0, 2, 1, 0, 1]: two pairs of weight 1, one of 2, one of 4.
        let w = |weight, count| WeightCount { weight, count };
        assert_eq!(weight_counts(&[0, 2, 1, 0, 1]), [w(1, 2), w(2, 1), w(4, 1)]);
        assert_eq!(weight_counts(&[5]), [w(0, 5)]);
        assert!(weight_counts(&[0, 0]).is_empty());
    }

    #[test]
    fn acc_band_is_mean_of_reciprocal_weights() {
        // 2 pairs of weight 1, 1 of weight 2, 1 of weight 4: (1 + 1 + 0.5 + 0.25) / 4.
        assert_eq!(acc_band(&[0, 2, 1, 0, 1]), Some(0.6875));
        assert_eq!(acc_band(&[0, 0]), None);
        assert_eq!(acc_band(&[]), None);
    }

    #[test]
    fn weights_without_pairs_are_left_out() {
        let w = weight_counts(&[0, 2, 0, 1]);
        assert_eq!(
            w,
            [
                WeightCount {
                    weight: 1,
                    count: 2
                },
                WeightCount {
                    weight: 3,
                    count: 1
                }
            ]
        );
    }

    #[test]
    fn bins_put_exact_twentieths_in_the_lower_bin() {
        let edges = acc_band_bin_edges();
        assert_eq!(acc_band_bin(&edges, 0.5), Some(9));
        assert_eq!(acc_band_bin(&edges, 0.75), Some(14));
        assert_eq!(acc_band_bin(&edges, 1.0), Some(19));
        assert_eq!(acc_band_bin(&edges, 0.0), Some(0));
        assert_eq!(acc_band_bin(&edges, 0.7248), Some(14));
        assert_eq!(acc_band_bin(&edges, 0.05), Some(0));
        assert_eq!(acc_band_bin(&edges, 0.0500001), Some(1));
        assert_eq!(acc_band_bin(&edges, -1.0), None);
        assert_eq!(acc_band_bin(&edges, f64::NAN), None);
        assert_eq!(acc_band_bin(&edges, 1.01), None);
        // Printed edges are the plain twentieths.
        assert_eq!(format!("{:12.8}", edges[1]), "  0.05000000");
    }

    #[test]
    fn histogram_counts_runs_with_traffic_in_their_bins() {
        let h = acc_band_histogram(&[0.5, 0.75, 0.75, 1.0, f64::NAN]);
        assert_eq!((h[9].count, h[14].count, h[19].count), (1, 2, 1));
        assert_eq!(h.iter().map(|b| b.count).sum::<u64>(), 4);
        assert_eq!((h[0].low, h[19].high), (0.0, 1.000000000000001));
        assert_eq!(runs_without_traffic(&[0.5, f64::NAN]), 1);
    }
}
