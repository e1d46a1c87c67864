//! `orcs map`: a get_cable_cong result drawn as an image, by Graphviz or the built-in
//! renderer.

use crate::cli::files::OUTPUT;
use crate::cli::map::{MapPlan, Renderer};
use crate::output::write_whole;
use anyhow::{Context, Result};
use orcs::viz::graphviz::{find_program, graphviz_program, graphviz_source, render};
use orcs::viz::map::{render_map, MapOptions};
use orcs::viz::map_input::read_congestion_graph;
use std::path::Path;
use std::process::ExitCode;

/// Reads, draws and writes the map.
pub fn run(plan: &MapPlan) -> Result<ExitCode> {
    let mut graph = read_congestion_graph(&plan.result)?;
    if plan.per_level {
        graph = graph.per_level();
    }
    let suggested = MapOptions::suggested(&graph);
    let options = MapOptions {
        top_labels: plan.top,
        switches_only: plan.switches_only.unwrap_or(suggested.switches_only),
        legend: plan.legend,
        title: Some(plan.title.clone().unwrap_or_else(|| {
            format!(
                "congestion map of {}",
                Path::new(&plan.result)
                    .file_name()
                    .map_or(plan.result.clone(), |n| n.to_string_lossy().into_owned())
            )
        }))
        .filter(|title| !title.is_empty()),
        layout: plan.layout,
        colors: plan.colors,
    };
    let program = graphviz_program(&graph);
    let graphviz = match plan.renderer {
        Renderer::Builtin => None,
        Renderer::Auto => find_program(program),
        Renderer::Graphviz => Some(find_program(program).with_context(|| {
            format!("--renderer graphviz: Graphviz's `{program}` is not installed (Debian package graphviz); --renderer builtin needs nothing")
        })?),
    };
    let bytes = match graphviz {
        Some(path) => render(
            &path,
            &graphviz_source(&graph, &options, (plan.width, plan.height)),
            plan.format,
        )?,
        None => render_map(&graph, &options, plan.format, plan.width, plan.height)?,
    };
    write_whole(OUTPUT, &plan.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}
