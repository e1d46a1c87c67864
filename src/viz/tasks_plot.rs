//! The plot of `orcs tasks sweep --plot`: mean completion time against the computation
//! load ρ_x, one line per network, scheduler, tree and communication footprint, each point with its confidence interval.

use crate::report::significant;
use crate::tasks::study::{TaskRun, TaskSweep};
use crate::viz::draw::ImageFormat;
use crate::viz::error::VizError;
use crate::viz::queue_plot::{render_latency_plot, LatencyPlot, LatencySeries};

/// The figure of a sweep: its points grouped by (network, scheduler, tree, F_c) in the
/// order they appear; a label names the scheduler, the tree and F_c when the sweep has
/// several.
pub fn completion_plot(sweep: &TaskSweep) -> LatencyPlot {
    let mut series: Vec<LatencySeries> = Vec::new();
    let mut keys: Vec<(String, &str, String, u64)> = Vec::new();
    let distinct = |f: &dyn Fn(&TaskRun) -> String| {
        (sweep.points.iter())
            .map(f)
            .collect::<std::collections::BTreeSet<String>>()
            .len()
    };
    let trees = distinct(&|p| p.description.spec.to_string());
    let schedulers = distinct(&|p| p.config.scheduler.name().to_string());
    let footprints = distinct(&|p| p.description.footprint.communication.to_bits().to_string());
    for p in &sweep.points {
        let communication = p.description.footprint.communication;
        let key = (
            p.network.clone(),
            p.config.scheduler.name(),
            p.description.spec.to_string(),
            communication.to_bits(),
        );
        let i = match keys.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                let mut label = key.0.clone();
                if schedulers > 1 {
                    label = format!("{label}, {}", key.1);
                }
                if trees > 1 {
                    label = format!("{label}, {}", key.2);
                }
                if footprints > 1 {
                    label = format!("{label}, F_c {} kB", significant(communication / 8e3));
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
            Some(p) if trees == 1 => format!(
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
