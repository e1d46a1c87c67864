//! `orcs plot`: the distribution of a metric from JSON results.

use super::map::IMAGE_OUTPUT_HELP;
use super::shared::{ChartArgs, MetricArg, OutputArg, ResultsArg};
use super::values::{image_format, parse_metric};
use anyhow::Result;
use clap::Args;
use orcs::engine::metric::MetricKind;
use orcs::viz::draw::{ChartStyle, ImageFormat};

/// Flags of `orcs plot`.
#[derive(Debug, Args)]
#[command(
    mut_arg("results", |a| a.help("Results written with --format json; the first is the main series, the others are overlaid.")),
    mut_arg("output", |a| a.help(IMAGE_OUTPUT_HELP).required(true)),
    mut_arg("plot_title", |a| a.long("title")),
    mut_arg("plot_size", |a| a.long("size")),
    mut_arg("metric", |a| a.help("The metric to plot: sum_max_cong, hist_max_cong, hist_acc_band, dep_max_delay or get_cable_cong (default: the first result's metric)."))
)]
pub struct PlotArgs {
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub metric: MetricArg,
    #[command(flatten)]
    pub chart: ChartArgs,
}

/// A validated `orcs plot` request.
#[derive(Debug)]
pub struct PlotPlan {
    /// The results; the first is the main series.
    pub results: Vec<String>,
    /// The picture to write.
    pub output: String,
    /// Its format.
    pub format: ImageFormat,
    /// The metric, or None for the first result's.
    pub metric: Option<MetricKind>,
    /// Title and size.
    pub style: ChartStyle,
}

impl PlotArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<PlotPlan> {
        let metric = self
            .metric
            .metric
            .as_deref()
            .map(parse_metric)
            .transpose()?;
        let output = self.output.required();
        Ok(PlotPlan {
            format: image_format("-o/--output", &output)?,
            results: self.results.results,
            output,
            metric,
            style: self.chart.style("--size")?,
        })
    }
}
