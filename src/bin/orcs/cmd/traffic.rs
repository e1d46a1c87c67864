//! `orcs traffic`: one job's matrix placed and routed for every combination asked for;
//! one table row per combination (text and CSV rows written as each is done), with the
//! maximum relative to the first row, or one JSON document at the end.

use crate::cli::files::{LINKS, OUTPUT};
use crate::cli::traffic::TrafficPlan;
use crate::cli::values::Format;
use crate::output::create;
use anyhow::Result;
use orcs::cluster::evaluate::{combinations, evaluate};
use orcs::cluster::ClusterError;
use orcs::report::traffic::{
    traffic_csv_row, traffic_header, traffic_json, traffic_links_rows, traffic_row,
    TRAFFIC_CSV_HEADER, TRAFFIC_LINKS_HEADER,
};
use std::io::Write;
use std::process::ExitCode;

/// Evaluates every combination and writes the table (and the per-link CSV).
pub fn run(plan: &TrafficPlan) -> Result<ExitCode> {
    let cluster = orcs::cluster::read_cluster(&plan.cluster)?;
    let matrix = orcs::workload::matrix::read_traffic_with(&plan.matrix, &plan.trace_options)?;
    let mut out = create(OUTPUT, &plan.output)?;
    let mut links_out = match &plan.links {
        Some(path) => {
            let mut f = create(LINKS, path)?;
            f.write_all(TRAFFIC_LINKS_HEADER.as_bytes())?;
            Some(f)
        }
        None => None,
    };
    match plan.format {
        Format::Text => out
            .write_all(traffic_header(&plan.cluster, &cluster, &plan.matrix, &matrix).as_bytes())?,
        Format::Csv => out.write_all(TRAFFIC_CSV_HEADER.as_bytes())?,
        Format::Json => {}
    }
    let mut first: Option<f64> = None;
    let mut evaluations = Vec::new();
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
        match plan.format {
            Format::Text => out.write_all(traffic_row(&cluster, &e, base).as_bytes())?,
            Format::Csv => out.write_all(traffic_csv_row(&cluster, &e, base).as_bytes())?,
            Format::Json => {}
        }
        if let Some(f) = &mut links_out {
            f.write_all(traffic_links_rows(&cluster, &e).as_bytes())?;
        }
        if plan.format == Format::Json {
            evaluations.push(e);
        }
    }
    if plan.format == Format::Json {
        let doc = traffic_json(&plan.cluster, &cluster, &plan.matrix, &matrix, &evaluations);
        out.write_all(doc.as_bytes())?;
    }
    out.commit()?;
    if let Some(f) = links_out {
        f.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}
