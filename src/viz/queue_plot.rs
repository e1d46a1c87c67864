//! The sweep plot of `orcs queue --plot`: mean message latency against the swept
//! parameter, one line per series (dashed for blocking networks), simulated means with
//! their confidence intervals as crosses with error bars.

use crate::queueing::sweep::{short_number, Axis, Point};
use crate::queueing::Architecture;
use crate::report::queue::Context;
use crate::viz::draw::{draw_err, render, Chart, Figure, ImageFormat, FONT};
use crate::viz::error::VizError;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// Default image size of the plot, in pixels.
pub(crate) const PLOT_SIZE: (u32, u32) = (900, 560);

/// One line of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencySeries {
    /// Legend text.
    pub label: String,
    /// Drawn dashed (blocking networks).
    pub dashed: bool,
    /// Index into the palette; series that differ only in architecture share it.
    pub color: usize,
    /// (x, mean latency in µs) of the points that are not saturated.
    pub analytic: Vec<(f64, f64)>,
    /// (x, simulated mean in µs, half width of its interval in µs).
    pub simulated: Vec<(f64, f64, f64)>,
}

/// Latency against one parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyPlot {
    /// Title above the plot.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// The x values are powers of two, drawn on a log₂ scale.
    pub log2_x: bool,
    /// Confidence level of the simulated intervals, when there are any.
    pub confidence: Option<f64>,
    /// The lines.
    pub series: Vec<LatencySeries>,
}

/// Colors of the series (Okabe–Ito, color-blind safe).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The plot of a sweep, or `None` when no parameter is swept. O(points).
pub fn latency_plot(ctx: &Context, points: &[Point]) -> Option<LatencyPlot> {
    let axis = ctx.grid.axis?;
    let log2_x = axis == Axis::Clusters && {
        let xs: Vec<f64> = points.iter().map(|p| p.spec.x).collect();
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(0.0, f64::max);
        xs.iter().all(|&x| x >= 1.0 && (x as u64).is_power_of_two()) && hi >= 4.0 * lo
    };
    let per_arch = (ctx.grid.series.len() / ctx.scenario.architectures.len().max(1)).max(1);
    let mut series: Vec<LatencySeries> = ctx
        .grid
        .series
        .iter()
        .enumerate()
        .map(|(i, label)| LatencySeries {
            label: label.clone(),
            dashed: false,
            color: i % per_arch,
            analytic: Vec::new(),
            simulated: Vec::new(),
        })
        .collect();
    let mut confidence = None;
    for p in points {
        let s = &mut series[p.spec.series];
        s.dashed = p
            .spec
            .system
            .networks
            .iter()
            .all(|n| n.architecture == Architecture::Blocking);
        let x = if log2_x { p.spec.x.log2() } else { p.spec.x };
        if let Ok(solution) = &p.solution {
            s.analytic.push((x, solution.latency * 1e6));
        }
        if let Some(sim) = &p.simulated {
            if !sim.latency.mean.is_nan() {
                s.simulated
                    .push((x, sim.latency.mean * 1e6, sim.latency.half_width * 1e6));
                confidence = Some(sim.config.confidence);
            }
        }
    }
    let sys = &points.first()?.spec.system;
    let mut fixed = vec![format!("{} centres", sys.service.kendall())];
    if axis != Axis::Clusters && ctx.scenario.clusters.len() == 1 {
        fixed.push(format!("C = {}", sys.clusters));
    }
    fixed.push(format!("N = {}", sys.total_nodes()));
    if axis != Axis::Rate && ctx.scenario.rates.len() == 1 {
        fixed.push(format!("λ = {}/s", short_number(sys.rate)));
    }
    if axis != Axis::MessageSize && ctx.scenario.message_sizes.len() == 1 {
        fixed.push(format!("M = {} B", short_number(sys.message_size)));
    }
    fixed.push(ctx.scenario.hardware_label());
    Some(LatencyPlot {
        title: format!("Mean message latency ({})", fixed.join(", ")),
        x_label: axis.label().to_string(),
        y_label: "mean message latency T_C (µs)".to_string(),
        log2_x,
        confidence,
        series,
    })
}

/// Renders `plot` as `format` bytes of [`PLOT_SIZE`].
pub fn render_latency_plot(plot: &LatencyPlot, format: ImageFormat) -> Result<Vec<u8>, VizError> {
    render(plot, format, PLOT_SIZE.0, PLOT_SIZE.1)
}

impl Chart for LatencyPlot {
    fn title_mut(&mut self) -> &mut String {
        &mut self.title
    }
    fn natural_size(&self) -> (u32, u32) {
        PLOT_SIZE
    }
}

/// The chart of a [`LatencyPlot`] on any backend.
type Axes<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

impl LatencyPlot {
    /// The x and y ranges of the chart: every point and interval, padded; y from 0 at the
    /// lowest.
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let xs = || {
            self.series.iter().flat_map(|s| {
                s.analytic
                    .iter()
                    .map(|p| p.0)
                    .chain(s.simulated.iter().map(|p| p.0))
            })
        };
        let ys = || {
            self.series.iter().flat_map(|s| {
                s.analytic
                    .iter()
                    .map(|p| p.1)
                    .chain(s.simulated.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2]))
            })
        };
        let x_lo = xs().fold(f64::INFINITY, f64::min);
        let x_hi = xs().fold(f64::NEG_INFINITY, f64::max);
        let x = if x_lo.is_finite() && x_hi > x_lo {
            let pad = (x_hi - x_lo) * 0.04;
            (x_lo - pad, x_hi + pad)
        } else if x_lo.is_finite() {
            (x_lo - 1.0, x_lo + 1.0)
        } else {
            (0.0, 1.0)
        };
        let y_lo = ys().fold(f64::INFINITY, f64::min);
        let y_hi = ys().fold(f64::NEG_INFINITY, f64::max);
        let y = if y_lo.is_finite() && y_hi > y_lo {
            let pad = (y_hi - y_lo) * 0.08;
            ((y_lo - pad).max(0.0), y_hi + pad)
        } else if y_lo.is_finite() {
            ((y_lo * 0.9).max(0.0), y_lo * 1.1 + 1e-9)
        } else {
            (0.0, 1.0)
        };
        (x, y)
    }

    /// The grid, the axes and their labels (powers of two on a log₂ x axis).
    fn draw_mesh<'a, DB: DrawingBackend + 'a>(
        &self,
        chart: &mut Axes<'a, DB>,
        x_range: (f64, f64),
    ) -> Result<(), VizError> {
        let log2 = self.log2_x;
        let x_format = move |x: &f64| {
            if log2 {
                if (x - x.round()).abs() < 1e-9 && *x >= 0.0 {
                    format!("{}", 1u64 << (x.round() as u32).min(62))
                } else {
                    String::new()
                }
            } else {
                short_tick(*x)
            }
        };
        let x_labels = if log2 {
            ((x_range.1 - x_range.0).round() as usize + 1).max(2)
        } else {
            10
        };
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&x_format)
            .y_label_formatter(&|y| short_tick(*y))
            .x_labels(x_labels)
            .y_labels(8)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(230, 230, 230))
            .draw()
            .map_err(draw_err)
    }

    /// The legend: every series, and the mark of the simulated means when there are any.
    fn draw_legend<'a, DB: DrawingBackend + 'a>(
        &self,
        chart: &mut Axes<'a, DB>,
    ) -> Result<(), VizError> {
        if let Some(conf) = self.confidence {
            let bar = BLACK.stroke_width(2);
            chart
                .draw_series(std::iter::empty::<Cross<(f64, f64), i32>>())
                .map_err(draw_err)?
                .label(format!(
                    "simulated mean, {} % confidence interval",
                    short_number(conf * 100.0)
                ))
                .legend(move |(x, y)| Cross::new((x + 12, y), 5, bar));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font((FONT, 13))
            .draw()
            .map_err(draw_err)
    }
}

impl Figure for LatencyPlot {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), VizError> {
        let ((x_lo, x_hi), (y_lo, y_hi)) = self.ranges();
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 17))
            .margin(14)
            .x_label_area_size(46)
            .y_label_area_size(64)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(draw_err)?;
        self.draw_mesh(&mut chart, (x_lo, x_hi))?;
        for s in &self.series {
            draw_series(&mut chart, s)?;
        }
        self.draw_legend(&mut chart)
    }
}

/// One series: its analytical line (dashed for blocking networks) with a dot per point,
/// and its simulated means as crosses with their intervals as error bars.
fn draw_series<'a, DB: DrawingBackend + 'a>(
    chart: &mut Axes<'a, DB>,
    s: &LatencySeries,
) -> Result<(), VizError> {
    let color = PALETTE[s.color % PALETTE.len()];
    let style = color.stroke_width(2);
    if s.dashed {
        chart
            .draw_series(DashedLineSeries::new(
                s.analytic.iter().copied(),
                8,
                5,
                style,
            ))
            .map_err(draw_err)?
            .label(s.label.clone())
            .legend(move |(x, y)| DashedPathElement::new(vec![(x, y), (x + 24, y)], 7, 4, style));
    } else {
        chart
            .draw_series(LineSeries::new(s.analytic.iter().copied(), style))
            .map_err(draw_err)?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    }
    chart
        .draw_series(
            s.analytic
                .iter()
                .map(|&p| Circle::new(p, 3, color.filled())),
        )
        .map_err(draw_err)?;
    let bar = BLACK.stroke_width(1);
    for &(x, mean, half) in &s.simulated {
        chart
            .draw_series([PathElement::new(
                vec![(x, mean - half), (x, mean + half)],
                bar,
            )])
            .map_err(draw_err)?;
        chart
            .draw_series(
                [(mean - half), (mean + half)].map(|y| {
                    EmptyElement::at((x, y)) + PathElement::new(vec![(-4, 0), (4, 0)], bar)
                }),
            )
            .map_err(draw_err)?;
        chart
            .draw_series([Cross::new((x, mean), 5, color.stroke_width(2))])
            .map_err(draw_err)?;
    }
    Ok(())
}

/// A tick label: integers without decimals, others with up to four significant digits.
fn short_tick(x: f64) -> String {
    if x == x.round() && x.abs() < 1e12 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}
