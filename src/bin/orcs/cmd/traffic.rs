//! `orcs traffic`: one job's matrix placed and routed for every combination asked for;
//! one table row per combination, printed as it is done, with the maximum relative to
//! the first row.

use crate::cli::files::LINKS;
use crate::cli::traffic::TrafficPlan;
use crate::output::create;
use anyhow::Result;
use orcs::cluster::evaluate::{combinations, evaluate};
use orcs::cluster::ClusterError;
use orcs::report::traffic::{
    traffic_header, traffic_links_rows, traffic_row, TRAFFIC_LINKS_HEADER,
};
use std::io::{self, Write};
use std::process::ExitCode;

/// Evaluates every combination and prints the table (and the per-link CSV).
pub fn run(plan: &TrafficPlan) -> Result<ExitCode> {
    let cluster = orcs::cluster::read_cluster(&plan.cluster)?;
    let matrix = orcs::workload::matrix::read_traffic_with(&plan.matrix, &plan.trace_options)?;
    let mut links_out = match &plan.links {
        Some(path) => {
            let mut f = create(LINKS, path)?;
            f.write_all(TRAFFIC_LINKS_HEADER.as_bytes())?;
            Some(f)
        }
        None => None,
    };
    let mut out = io::stdout().lock();
    out.write_all(traffic_header(&plan.cluster, &cluster, &plan.matrix, &matrix).as_bytes())?;
    let mut first: Option<f64> = None;
    for combination in combinations(&plan.selectors, &plan.mappers, &plan.routers) {
        let e = evaluate(&cluster, &matrix, combination, plan.seed).map_err(|e| {
            // Only the selection fails for size; anything else is the routing's.
            let context = match e {
                ClusterError::TooLarge { .. } => {
                    format!("{}: cannot place {} on it", plan.cluster, plan.matrix)
                }
                _ => format!("{}: cannot route {}", plan.cluster, combination.router),
            };
            anyhow::Error::new(e).context(context)
        })?;
        let base = *first.get_or_insert(e.stats.max);
        out.write_all(traffic_row(&cluster, &e, base).as_bytes())?;
        if let Some(f) = &mut links_out {
            f.write_all(traffic_links_rows(&cluster, &e).as_bytes())?;
        }
    }
    if let Some(f) = links_out {
        f.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}
