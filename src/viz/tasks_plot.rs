//! The plot of `orcs tasks sweep --plot`: mean completion time against the computation
//! load ρ_x, one line per network, scheduler and tree, each point with its confidence interval.

use crate::tasks::study::TaskSweep;
use crate::viz::draw::ImageFormat;
use crate::viz::error::VizError;
use crate::viz::queue_plot::{render_latency_plot, LatencyPlot, LatencySeries};

/// The figure of a sweep: its points grouped by (network, scheduler, tree) in the
/// order they appear; a label names the scheduler and the tree when the sweep has
/// several.
pub fn completion_plot(sweep: &TaskSweep) -> LatencyPlot {
    let mut series: Vec<LatencySeries> = Vec::new();
    let mut keys: Vec<(String, &str, String)> = Vec::new();
    let trees: std::collections::BTreeSet<String> = sweep
        .points
        .iter()
        .map(|p| p.description.spec.to_string())
        .collect();
    let schedulers: std::collections::BTreeSet<&str> = sweep
        .points
        .iter()
        .map(|p| p.config.scheduler.name())
        .collect();
    for p in &sweep.points {
        let key = (
            p.network.clone(),
            p.config.scheduler.name(),
            p.description.spec.to_string(),
        );
        let i = match keys.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                let mut label = key.0.clone();
                if schedulers.len() > 1 {
                    label = format!("{label}, {}", key.1);
                }
                if trees.len() > 1 {
                    label = format!("{label}, {}", key.2);
                }
                keys.push(key);
                series.push(LatencySeries {
                    label,
                    dashed: false,
                    color: series.len(),
                    analytic: Vec::new(),
                    simulated: Vec::new(),
                });
                series.len() - 1
            }
        };
        let x = p.description.loads.computation;
        let mean = p.result.completion.map_or(p.result.mean, |e| e.mean) * 1e6;
        let half = p.result.completion.map_or(0.0, |e| e.half_width) * 1e6;
        series[i].analytic.push((x, mean));
        series[i].simulated.push((x, mean, half));
    }
    let first = sweep.points.first();
    LatencyPlot {
        title: match first {
            Some(p) if trees.len() == 1 => format!(
                "Task trees {} on {} nodes: completion time against load",
                p.description.spec, p.config.nodes
            ),
            _ => "Task completion time against load".to_string(),
        },
        x_label: "computation load ρ_x".to_string(),
        y_label: "mean completion time (µs)".to_string(),
        log2_x: false,
        confidence: first
            .map(|p| p.config.confidence)
            .filter(|_| first.is_some_and(|p| p.config.replications > 1)),
        series,
    }
}

/// Renders the figure as `format` bytes.
pub fn render_completion_plot(
    plot: &LatencyPlot,
    format: ImageFormat,
) -> Result<Vec<u8>, VizError> {
    render_latency_plot(plot, format)
}
