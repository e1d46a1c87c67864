//! `orcs plot`: one metric of one or more JSON results as an image.

use super::read_result;
use crate::cli::files::OUTPUT;
use crate::cli::plot::PlotPlan;
use crate::output::write_whole;
use anyhow::{Context, Result};
use orcs::engine::metric::MetricKind;
use orcs::report::results::ResultDoc;
use orcs::viz::draw::render_chart;
use orcs::viz::plot::histogram;
use std::process::ExitCode;

/// Reads, plots and writes.
pub fn run(plan: &PlotPlan) -> Result<ExitCode> {
    let docs = plan
        .results
        .iter()
        .map(|p| read_result(p))
        .collect::<Result<Vec<_>>>()?;
    let metric = match plan.metric {
        Some(m) => m,
        None => {
            let name = docs[0].parameter("metric");
            MetricKind::ALL
                .into_iter()
                .find(|m| m.name() == name)
                .with_context(|| format!("{}: unknown metric '{name}'", plan.results[0]))?
        }
    };
    let refs: Vec<&ResultDoc> = docs.iter().collect();
    let mut figure = histogram(&refs, metric).with_context(|| {
        format!("the results have no distribution of {metric} to draw (run the simulations with --metric {metric})")
    })?;
    let bytes = render_chart(&mut figure, plan.format, &plan.style)?;
    write_whole(OUTPUT, &plan.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}
