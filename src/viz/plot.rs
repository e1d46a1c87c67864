//! Histogram plots of a run's metrics (`--plot`, `orcs plot`, HTML reports): the
//! distribution of each result, its mean and 95 % confidence interval, and further runs
//! overlaid as comparison series.

use crate::engine::metric::MetricKind;
use crate::report::results::ResultDoc;
use crate::viz::draw::{draw_err, render, Chart, Figure, ImageFormat, FONT};
use crate::viz::error::VizError;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One histogram bin `[low, high)` with a share in [0, 1] of its series' total.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Share of the series' values in the bin.
    pub share: f64,
}

/// One distribution to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Bins, increasing and not overlapping.
    pub bins: Vec<Bin>,
    /// Mean of the values, marked by a vertical line.
    pub mean: Option<f64>,
    /// 95 % confidence interval of the mean, shaded.
    pub ci95: Option<(f64, f64)>,
    /// Number of values behind the shares.
    pub total: u64,
}

/// A histogram figure: one or more series over common bins.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramPlot {
    /// Title above the plot.
    pub title: String,
    /// Label of the x axis (the metric).
    pub x_label: String,
    /// Label of the y axis (what the shares are shares of).
    pub y_label: String,
    /// The distributions; the first is the main one, the others comparisons.
    pub series: Vec<Series>,
}

/// Default image size of a plot, in pixels.
pub(crate) const PLOT_SIZE: (u32, u32) = (900, 540);

/// Series colors: the main series first, then comparisons (color-blind safe).
const PALETTE: [RGBColor; 4] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
];

/// Integer-valued metrics get one bin per value up to this many values, wider bins above.
const MAX_INTEGER_BINS: u64 = 60;
/// Number of bins for wide integer ranges and for scaled link congestion.
const WIDE_BINS: u64 = 40;

/// The histogram of `metric` for `docs` (the first the main run, the others overlaid),
/// or `None` when the documents lack the data (e.g. dep_max_delay not computed, or
/// get_cable_cong without per-edge counts). Integer metrics share one set of bins.
pub fn histogram(docs: &[&ResultDoc], metric: MetricKind) -> Option<HistogramPlot> {
    let series: Option<Vec<Series>> = match metric {
        MetricKind::HistMaxCong => docs.iter().map(|d| weight_series(d)).collect(),
        MetricKind::HistAccBand => docs.iter().map(|d| acc_band_series(d)).collect(),
        MetricKind::SumMaxCong | MetricKind::DepMaxDelay => {
            let values: Vec<&[u64]> = docs
                .iter()
                .map(|d| match metric {
                    MetricKind::SumMaxCong => d.per_run.sum_max_cong.as_slice(),
                    _ => d.per_run.dep_max_delay.as_slice(),
                })
                .collect();
            if values.iter().any(|v| v.is_empty()) {
                None
            } else {
                let bins = integer_bins(&values);
                Some(
                    docs.iter()
                        .zip(&values)
                        .map(|(d, v)| {
                            let summary = match metric {
                                MetricKind::SumMaxCong => d.summary.sum_max_cong,
                                _ => d.summary.dep_max_delay,
                            };
                            Series {
                                label: d.label(),
                                bins: fill_bins(&bins, v.iter().map(|&x| x as f64)),
                                mean: summary.map(|s| s.mean),
                                ci95: summary.map(|s| (s.ci95_low, s.ci95_high)),
                                total: v.len() as u64,
                            }
                        })
                        .collect(),
                )
            }
        }
        MetricKind::GetCableCong => docs.iter().map(|d| cable_series(d)).collect(),
    };
    let series = series.filter(|s| !s.is_empty())?;
    let (x_label, y_label) = match metric {
        MetricKind::HistMaxCong => ("congestion of the route's busiest link", "share of pairs"),
        MetricKind::HistAccBand => ("accumulated bandwidth per run", "share of runs"),
        MetricKind::SumMaxCong => ("sum of the levels' maximal congestion", "share of runs"),
        MetricKind::DepMaxDelay => ("longest dependency delay", "share of runs"),
        MetricKind::GetCableCong => ("scaled congestion of used links", "share of links"),
    };
    Some(HistogramPlot {
        title: format!("{metric}: {}", docs[0].label()),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
        series,
    })
}

/// Link weights of all pairs: one bin per weight; the mean weight with a normal
/// approximation of its interval (pairs of one run are not independent, so it is
/// narrower than a per-run interval would be).
fn weight_series(doc: &ResultDoc) -> Option<Series> {
    let h = &doc.hist_max_cong;
    let total: u64 = h.weights.iter().map(|w| w.count).sum();
    if total == 0 {
        return None;
    }
    let n = total as f64;
    let mean = h
        .weights
        .iter()
        .map(|w| w.weight as f64 * w.count as f64)
        .sum::<f64>()
        / n;
    let var = h
        .weights
        .iter()
        .map(|w| (w.weight as f64 - mean).powi(2) * w.count as f64)
        .sum::<f64>()
        / (n - 1.0).max(1.0);
    let half = 1.96 * (var / n).sqrt();
    Some(Series {
        label: doc.label(),
        bins: h
            .weights
            .iter()
            .map(|w| Bin {
                low: w.weight as f64 - 0.5,
                high: w.weight as f64 + 0.5,
                share: w.count as f64 / n,
            })
            .collect(),
        mean: Some(mean),
        ci95: Some((mean - half, mean + half)),
        total,
    })
}

/// ORCS's 20 accumulated-bandwidth bins.
fn acc_band_series(doc: &ResultDoc) -> Option<Series> {
    let total: u64 = doc.hist_acc_band.iter().map(|b| b.count).sum();
    if total == 0 {
        return None;
    }
    let s = doc.summary.acc_band;
    Some(Series {
        label: doc.label(),
        bins: doc
            .hist_acc_band
            .iter()
            .map(|b| Bin {
                low: b.low,
                high: b.high,
                share: b.count as f64 / total as f64,
            })
            .collect(),
        mean: s.map(|s| s.mean),
        ci95: s.map(|s| (s.ci95_low, s.ci95_high)),
        total,
    })
}

/// Scaled congestion of the links that carried traffic, in [`WIDE_BINS`] bins over (0, 1].
fn cable_series(doc: &ResultDoc) -> Option<Series> {
    let cables = doc.cable_congestion.as_ref()?;
    let used: Vec<f64> = cables
        .iter()
        .filter(|c| c.count > 0)
        .map(|c| c.congestion as f64)
        .collect();
    if used.is_empty() {
        return None;
    }
    let width = 1.0 / WIDE_BINS as f64;
    let bounds: Vec<(f64, f64)> = (0..WIDE_BINS)
        .map(|i| (i as f64 * width, (i + 1) as f64 * width))
        .collect();
    let mean = used.iter().sum::<f64>() / used.len() as f64;
    let summary = crate::engine::metric::Summary::of(&used);
    Some(Series {
        label: doc.label(),
        bins: fill_bins(&bounds, used.iter().copied()),
        mean: Some(mean),
        ci95: summary.map(|s| (s.ci95_low, s.ci95_high)),
        total: used.len() as u64,
    })
}

/// Common bins for integer values: one per value when the range is small, otherwise
/// [`WIDE_BINS`] equal bins with integer bounds.
fn integer_bins(values: &[&[u64]]) -> Vec<(f64, f64)> {
    let lo = values
        .iter()
        .flat_map(|v| v.iter())
        .min()
        .copied()
        .unwrap_or(0);
    let hi = values
        .iter()
        .flat_map(|v| v.iter())
        .max()
        .copied()
        .unwrap_or(0);
    let span = hi - lo + 1;
    let step = if span <= MAX_INTEGER_BINS {
        1
    } else {
        span.div_ceil(WIDE_BINS)
    };
    (0..span.div_ceil(step))
        .map(|i| {
            let start = lo + i * step;
            (start as f64 - 0.5, (start + step) as f64 - 0.5)
        })
        .collect()
}

/// Shares of `values` in `bounds` (the last bin includes its upper bound).
fn fill_bins(bounds: &[(f64, f64)], values: impl Iterator<Item = f64>) -> Vec<Bin> {
    let mut counts = vec![0u64; bounds.len()];
    let mut total = 0u64;
    for x in values {
        total += 1;
        let i = bounds.partition_point(|&(low, _)| low <= x);
        if i > 0 && (x < bounds[i - 1].1 || i == bounds.len()) {
            counts[i - 1] += 1;
        }
    }
    bounds
        .iter()
        .zip(counts)
        .map(|(&(low, high), c)| Bin {
            low,
            high,
            share: if total == 0 {
                0.0
            } else {
                c as f64 / total as f64
            },
        })
        .collect()
}

/// Renders `plot` as `format` bytes of [`PLOT_SIZE`].
pub fn render_plot(plot: &HistogramPlot, format: ImageFormat) -> Result<Vec<u8>, VizError> {
    render(plot, format, PLOT_SIZE.0, PLOT_SIZE.1)
}

impl Chart for HistogramPlot {
    fn title_mut(&mut self) -> &mut String {
        &mut self.title
    }
    fn natural_size(&self) -> (u32, u32) {
        PLOT_SIZE
    }
}

/// Shortest decimal text for a tick value: at most four decimals, no trailing zeros
/// (0.5, not 0.5000; 2, not 2.0000).
fn number(x: f64) -> String {
    if x == x.round() && x.abs() < 1e9 {
        format!("{}", x as i64)
    } else {
        let fixed = format!("{x:.4}");
        let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
        match trimmed {
            "-0" => "0".to_string(),
            t => t.to_string(),
        }
    }
}

impl Figure for HistogramPlot {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let bins = || self.series.iter().flat_map(|s| s.bins.iter());
        // The x range covers the populated bins (ORCS's acc_band bins span [0, 1] but a
        // run's values fill a few of them), widened by a tenth on each side.
        let used = || bins().filter(|b| b.share > 0.0);
        let x_lo = used().map(|b| b.low).fold(f64::INFINITY, f64::min);
        let x_hi = used().map(|b| b.high).fold(f64::NEG_INFINITY, f64::max);
        let (x_lo, x_hi) = if x_lo.is_finite() && x_hi > x_lo {
            let pad = (x_hi - x_lo) * 0.1;
            (x_lo - pad, x_hi + pad)
        } else {
            (0.0, 1.0)
        };
        let y_hi = bins().map(|b| b.share).fold(0.0, f64::max).max(1e-9) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(64)
            .build_cartesian_2d(x_lo..x_hi, 0.0..y_hi)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&|x| number(*x))
            .y_label_formatter(&|y| format!("{:.0} %", y * 100.0))
            .x_labels(10)
            .y_labels(8)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(230, 230, 230))
            .draw()
            .map_err(draw_err)?;
        let k = self.series.len() as f64;
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            // Confidence band and mean line under the bars of later series.
            if let Some((lo, hi)) = s.ci95 {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(lo.max(x_lo), 0.0), (hi.min(x_hi), y_hi)],
                        color.mix(0.15).filled(),
                    )))
                    .map_err(draw_err)?;
            }
            let shift = i as f64 / k;
            chart
                .draw_series(s.bins.iter().filter(|b| b.share > 0.0).map(|b| {
                    let w = (b.high - b.low) / k;
                    let x0 = b.low + shift * (b.high - b.low);
                    Rectangle::new([(x0, 0.0), (x0 + w, b.share)], color.mix(0.8).filled())
                }))
                .map_err(draw_err)?
                .label(legend_text(s))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.mix(0.8).filled())
                });
            if let Some(mean) = s.mean {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(mean, 0.0), (mean, y_hi)],
                        color.stroke_width(2),
                    )))
                    .map_err(draw_err)?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font((FONT, 13))
            .draw()
            .map_err(draw_err)?;
        Ok(())
    }
}

/// Legend entry: label, count, mean and interval.
fn legend_text(s: &Series) -> String {
    let mut text = format!("{} (n = {})", s.label, s.total);
    if let Some(mean) = s.mean {
        text.push_str(&format!("; mean {mean:.4}"));
        if let Some((lo, hi)) = s.ci95 {
            text.push_str(&format!(", 95 % CI [{lo:.4}, {hi:.4}]"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1.25), "1.25");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(0.123456), "0.1235");
        assert_eq!(number(-0.00001), "0");
        assert_eq!(number(-1.5), "-1.5");
    }

    #[test]
    fn integer_bins_are_per_value_or_wide() {
        let a = [3u64, 5, 5, 7];
        let bins = integer_bins(&[&a]);
        assert_eq!(bins.first(), Some(&(2.5, 3.5)));
        assert_eq!(bins.len(), 5);
        let shares = fill_bins(&bins, a.iter().map(|&x| x as f64));
        let got: Vec<f64> = shares.iter().map(|b| b.share).collect();
        assert_eq!(got, vec![0.25, 0.0, 0.5, 0.0, 0.25]);
        let wide: Vec<u64> = (0..1000).collect();
        let bins = integer_bins(&[&wide]);
        assert!(bins.len() as u64 <= WIDE_BINS);
        let shares = fill_bins(&bins, wide.iter().map(|&x| x as f64));
        let sum: f64 = shares.iter().map(|b| b.share).sum();
        assert!(
            (sum - 1.0).abs() < 1e-12,
            "every value lands in a bin: {sum}"
        );
    }

    #[test]
    fn legend_names_mean_and_interval() {
        let s = Series {
            label: "bisect".into(),
            bins: vec![],
            mean: Some(0.5),
            ci95: Some((0.25, 0.75)),
            total: 10,
        };
        assert_eq!(
            legend_text(&s),
            "bisect (n = 10); mean 0.5000, 95 % CI [0.2500, 0.7500]"
        );
    }
}
