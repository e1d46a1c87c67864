//! `orcs queue`: the multi-cluster queueing model over the requested grid, optionally
//! simulated, as text, JSON or CSV, and plotted.

use super::load;
use crate::cli::files::{OUTPUT, PLOT};
use crate::cli::queue::QueuePlan;
use crate::cli::values::Format;
use crate::output::create;
use crate::progress::busy;
use anyhow::{bail, Context, Result};
use orcs::queueing::hops::FabricRoutes;
use orcs::queueing::sweep::{self, Point};
use orcs::queueing::{params, QueueError};
use orcs::report::queue as report;
use orcs::viz::draw::render_chart;
use orcs::viz::queue_plot as plot;
use std::io::Write;
use std::process::ExitCode;

/// Evaluates (and simulates) the model and writes its results.
pub fn run(plan: &QueuePlan) -> Result<ExitCode> {
    let file = match &plan.config_file {
        Some(path) => {
            let text = orcs::fabric::read_text(path)
                .with_context(|| format!("cannot read parameter file '{path}'"))?;
            params::parse_config(&text, path)?
        }
        None => params::Config::default(),
    };
    let config = file.overlay(&plan.flags);
    let loaded = match &plan.fabric {
        Some(spec) => Some(load(spec, false)?),
        None => None,
    };
    let default_total = match &loaded {
        Some(l) => u32::try_from(l.fabric.num_hosts()).unwrap_or(u32::MAX),
        None => 256,
    };
    let scenario = sweep::Scenario::from_config(&config, default_total);
    let grid = scenario.grid(plan.axis)?;
    if plan.plot.is_some() && grid.axis.is_none() {
        bail!("--plot draws the latency against a swept parameter: give several values to --clusters, --rate or --size, or name one with --sweep");
    }
    // Create the output files before the work, so that a bad path fails at once.
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    let plot_out = match &plan.plot {
        Some(request) => Some((create(PLOT, &request.path)?, request)),
        None => None,
    };
    let routes = loaded
        .as_ref()
        .map(|l| FabricRoutes::new(&l.fabric, &l.table));
    let fabric_name = plan.fabric.as_ref().map(|f| f.path.as_str());
    let mut points = evaluate(&grid, routes.as_ref(), fabric_name)?;
    if let Some(sim) = &plan.simulate {
        let seed = match plan.seed {
            Some(seed) => seed,
            None => super::pick_seed(),
        };
        let config = orcs::queueing::des::DesConfig { seed, ..*sim };
        busy("simulating", false, || {
            sweep::simulate(&mut points, &config)
        })?;
    }
    let ctx = report::Context {
        scenario: &scenario,
        grid: &grid,
        fabric: fabric_name,
    };
    let bytes = match plan.format {
        Format::Text => report::text(&ctx, &points),
        Format::Json => report::json(&ctx, &points),
        Format::Csv => report::csv(&ctx, &points),
    };
    if let Some((mut file, request)) = plot_out {
        let mut figure = plot::latency_plot(&ctx, &points)
            .context("--plot: there is no swept parameter to plot")?;
        file.write_all(&render_chart(&mut figure, request.format, &request.style)?)?;
        file.commit()?;
    }
    out.write_all(bytes.as_bytes())?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The model at every point of `grid`; an error when every point is saturated, a
/// warning when some are.
fn evaluate(
    grid: &sweep::Grid,
    routes: Option<&FabricRoutes>,
    fabric_name: Option<&str>,
) -> Result<Vec<Point>> {
    let what = if routes.is_some() {
        "measuring routes"
    } else {
        "solving"
    };
    let points = busy(what, false, || sweep::evaluate(grid, routes)).map_err(|e| {
        match (e, fabric_name) {
            (QueueError::Fabric(msg), Some(path)) => anyhow::anyhow!("--fabric {path}: {msg}"),
            (e, _) => e.into(),
        }
    })?;
    let saturated = points.iter().filter(|p| p.solution.is_err()).count();
    if saturated == points.len() {
        let first = points[0].solution.clone().err();
        let what = if points.len() == 1 {
            String::new()
        } else {
            format!(" (and every other of the {} points)", points.len())
        };
        match first {
            Some(e) => bail!("{e}{what}"),
            None => bail!("nothing to evaluate"),
        }
    }
    if saturated > 0 {
        eprintln!(
            "orcs: warning: {saturated} of {} points are saturated; they are marked and have no latency",
            points.len()
        );
    }
    Ok(points)
}
