//! `orcs jobs`: every run of a scenario, in parallel; the summary, and the run folders.

use crate::cli::files::OUTPUT;
use crate::cli::jobs::JobsPlan;
use crate::cli::values::Format;
use crate::output::{create_dir, write_files, write_whole};
use crate::progress::progress_bar;
use anyhow::{Context, Result};
use orcs::cluster::jobs::{
    build_topology, check_memory, read_scenario, simulate_run, JobsConfig, Scenario,
};
use orcs::report::jobs::{jobs_csv, jobs_json, jobs_text, run_files, RunReport};
use orcs::workload::matrix::{read_traffic, TrafficMatrix};
use rayon::prelude::*;
use std::process::ExitCode;

/// Runs the scenario and writes its reports.
pub fn run(plan: &JobsPlan) -> Result<ExitCode> {
    let scenario = read_scenario(&plan.scenario)?;
    check_memory(&scenario, plan.memory, rayon::current_num_threads())?;
    let config = JobsConfig {
        seed: plan.seed.or(scenario.seed).unwrap_or(0),
        pfsim_compat: plan.pfsim_compat,
    };
    let clusters = scenario
        .topologies
        .iter()
        .map(|(label, spec)| {
            build_topology(spec, plan.memory)
                .map_err(|e| anyhow::anyhow!("{}: topology {label}: {e}", plan.scenario))
        })
        .collect::<Result<Vec<_>>>()?;
    let read = read_traces(&scenario)?;
    let matrices: Vec<&TrafficMatrix> = scenario
        .jobs
        .iter()
        .map(|j| {
            &read
                .iter()
                .find(|(p, _)| *p == j.trace)
                .expect("read above")
                .1
        })
        .collect();
    if let Some(dir) = &plan.output {
        create_dir(dir, OUTPUT)?;
    }
    let runs = scenario.runs();
    let bar = progress_bar(runs.len() as u64, plan.quiet);
    let results = runs
        .par_iter()
        .map(|run| {
            let r = simulate_run(&scenario, run, &clusters[run.topology], &matrices, config)
                .with_context(|| {
                    format!(
                        "{}: run {} ({}, {}, {}, {})",
                        plan.scenario,
                        run.id,
                        scenario.topologies[run.topology].0,
                        run.selector,
                        run.mapper,
                        run.router
                    )
                });
            bar.inc(1);
            r
        })
        .collect::<Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let reports: Vec<RunReport> = runs
        .iter()
        .zip(&results)
        .map(|(spec, result)| RunReport::new(spec, result, scenario.duration, config.pfsim_compat))
        .collect();
    if let Some(dir) = &plan.output {
        for r in &reports {
            let folder = std::path::Path::new(dir).join(r.spec.id.to_string());
            write_files(
                OUTPUT,
                &folder,
                run_files(&scenario, r, config.pfsim_compat),
            )?;
        }
    }
    let doc = match plan.format {
        Format::Text => jobs_text(&scenario, config.seed, &reports),
        Format::Json => jobs_json(&scenario, config.seed, config.pfsim_compat, &reports),
        Format::Csv => jobs_csv(&scenario, &reports),
    };
    write_whole("standard output", "-", doc.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Each trace of the scenario read once, whatever the number of streams and runs
/// naming it.
fn read_traces(scenario: &Scenario) -> Result<Vec<(String, TrafficMatrix)>> {
    let mut read: Vec<(String, TrafficMatrix)> = Vec::new();
    for job in &scenario.jobs {
        if !read.iter().any(|(p, _)| *p == job.trace) {
            read.push((job.trace.clone(), read_traffic(&job.trace)?));
        }
    }
    Ok(read)
}
