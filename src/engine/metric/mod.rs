//! The metrics of a simulation and their arithmetic, in one place: which metrics exist
//! ([`MetricKind`]), the accumulated bandwidth and ORCS's 20-bin histogram of it
//! ([`bandwidth`]), per-run summaries with confidence intervals ([`summary`]) and the
//! per-edge congestion of get_cable_cong ([`congestion`]) (spec §7). Every exporter of
//! [`crate::report`], the scans of [`crate::scan`] and the plots of [`crate::viz`] take
//! these values from here and never compute them again, so a number means the same in
//! every output.
//!
//! May use: the outcomes of [`crate::engine::unit`] and [`crate::engine::weighted`] (the
//! per-run values it summarises) and `statrs` (Student's t). No output format.

mod bandwidth;
mod congestion;
mod summary;

pub use bandwidth::{
    acc_band, acc_band_bin, acc_band_bin_edges, acc_band_bins, acc_band_histogram,
    runs_without_traffic, weight_counts, AccBandBin, WeightCount, ACC_BAND_BINS,
};
pub use congestion::{hottest_edges, scaled_congestion};
pub use summary::{MatrixSummaries, Summaries, Summary};

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

/// Written as its option value, in JSON parameters and scan records alike.
impl serde::Serialize for MetricKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
