//! `orcs gen`: build the topology, route it with the chosen engine, write it.

use super::convert::write_fabric;
use crate::cli::gen::GenPlan;
use crate::progress::{busy, over_destinations};
use anyhow::Result;
use orcs::fabric::{EdgeComments, LoadedFabric};
use std::process::ExitCode;

/// Generates, routes and writes.
pub fn run(plan: &GenPlan) -> Result<ExitCode> {
    let generated = busy(&format!("generating {}", plan.spec), false, || {
        orcs::gen::topology::generate_within(&plan.spec, plan.memory)
    })?;
    let hosts = generated.fabric.num_hosts();
    let (table, routing) = over_destinations("routing", hosts, false, |progress| {
        orcs::routing::route_generated_with_progress(
            &generated,
            plan.routing.as_deref(),
            plan.roots.as_deref(),
            plan.seed,
            progress,
        )
    })?;
    let mut fabric = generated.fabric;
    // No comments: the writers derive them from the table (LoadedFabric::fill_comments).
    fabric.edge_comments = EdgeComments::default();
    fabric.graph_id = Some("network".to_string());
    fabric.graph_attrs.push((
        "comment".to_string(),
        format!("orcs gen {} --routing {routing}", generated.description),
    ));
    write_fabric(
        &mut LoadedFabric::new(fabric, table),
        plan.format,
        &plan.output,
        &plan.spec,
    )
}
