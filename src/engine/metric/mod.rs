//! Metric definitions and the arithmetic behind them: accumulated bandwidth, ORCS's
//! histogram binning, and summary statistics with confidence intervals (spec §7).

use statrs::distribution::{ContinuousCDF, StudentsT};
use std::fmt;

/// The metric a simulation reports (`--metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Per run: sum over levels of the level's largest pair weight.
    SumMaxCong,
    /// Histogram of pair weights over all pairs, levels and runs, and the mean of 1/weight.
    HistMaxCong,
    /// Per run: mean of 1/weight over the run's pairs; printed as a 20-bin histogram.
    HistAccBand,
    /// Per run: longest weighted path through the pattern's level dependencies.
    DepMaxDelay,
    /// Per edge: how often routes used it, written as a colored dot graph.
    GetCableCong,
}

impl MetricKind {
    /// Every metric, in ORCS's option order.
    pub const ALL: [MetricKind; 5] = [
        MetricKind::SumMaxCong,
        MetricKind::HistMaxCong,
        MetricKind::HistAccBand,
        MetricKind::DepMaxDelay,
        MetricKind::GetCableCong,
    ];

    /// The option value.
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::SumMaxCong => "sum_max_cong",
            MetricKind::HistMaxCong => "hist_max_cong",
            MetricKind::HistAccBand => "hist_acc_band",
            MetricKind::DepMaxDelay => "dep_max_delay",
            MetricKind::GetCableCong => "get_cable_cong",
        }
    }

    /// Whether the metric has nothing to report without traffic (sum_max_cong and
    /// dep_max_delay report 0).
    pub fn needs_traffic(self) -> bool {
        matches!(
            self,
            MetricKind::HistMaxCong | MetricKind::HistAccBand | MetricKind::GetCableCong
        )
    }
}

impl fmt::Display for MetricKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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

/// The bin of `x` (edges[i] ≤ x < edges[i+1]), or `None` outside the histogram range.
pub fn acc_band_bin(edges: &[f64; ACC_BAND_BINS + 1], x: f64) -> Option<usize> {
    if !(x >= edges[0] && x < edges[ACC_BAND_BINS]) {
        return None;
    }
    // Last edge ≤ x; edges are increasing.
    Some(edges.partition_point(|&e| e <= x) - 1)
}

/// Mean, spread and a 95 % confidence interval of the mean of per-run values.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of values.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one value).
    pub sd: f64,
    /// Population variance (n in the denominator), as ORCS prints it.
    pub population_variance: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Lower end of the 95 % confidence interval of the mean (Student's t).
    pub ci95_low: f64,
    /// Upper end of the 95 % confidence interval of the mean.
    pub ci95_high: f64,
}

impl Summary {
    /// Summarises `values` (accumulated in the given order, so the result is
    /// reproducible). `None` for an empty slice.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let ss = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
        let sd = if values.len() > 1 {
            (ss / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        let half = if values.len() > 1 {
            let t = StudentsT::new(0.0, 1.0, n - 1.0)
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::NAN);
            t * sd / n.sqrt()
        } else {
            0.0
        };
        Some(Summary {
            n: values.len() as u64,
            mean,
            sd,
            population_variance: ss / n,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ci95_low: mean - half,
            ci95_high: mean + half,
        })
    }

    /// [`Summary::of`] integer counts.
    pub fn of_counts(values: &[u64]) -> Option<Summary> {
        Summary::of(&values.iter().map(|&x| x as f64).collect::<Vec<_>>())
    }

    /// Half-width of the 95 % confidence interval.
    pub fn ci95_half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acc_band_is_mean_of_reciprocal_weights() {
        // 2 pairs of weight 1, 1 of weight 2, 1 of weight 4: (1 + 1 + 0.5 + 0.25) / 4.
        assert_eq!(acc_band(&[0, 2, 1, 0, 1]), Some(0.6875));
        assert_eq!(acc_band(&[0, 0]), None);
        assert_eq!(acc_band(&[]), None);
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
    fn summary_matches_hand_computation() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.population_variance, 1.25);
        // t(0.975, 3) = 3.182446305...
        let half = 3.182_446_305_284_263 * s.sd / 2.0;
        assert!((s.ci95_half_width() - half).abs() < 1e-9);
        assert_eq!((s.min, s.max), (1.0, 4.0));
        let one = Summary::of(&[0.5]).unwrap();
        assert_eq!((one.sd, one.ci95_low, one.ci95_high), (0.0, 0.5, 0.5));
    }
}
