//! `-p matrix`: the Monte Carlo engine on a traffic matrix, every metric in bytes.

use super::{load, pick_seed, show_hosts, simulation_error, warn_all};
use crate::cli::files::{LINKS, OUTPUT_FILE};
use crate::cli::sim::MatrixPlan;
use crate::cli::values::Format;
use crate::output::{create, Target};
use crate::progress::{busy, progress_bar};
use anyhow::{anyhow, Result};
use orcs::engine::metric::MetricKind;
use orcs::engine::ranks::Ranks;
use orcs::engine::request::read_ordering;
use orcs::engine::weighted::{
    lay_out_slots, SlotLayoutError, SlotTraffic, WeightedConfig, WeightedOutcome,
    WeightedSimulation,
};
use orcs::fabric::Fabric;
use orcs::report::matrix::{
    matrix_csv, matrix_header, matrix_json, matrix_links_csv, matrix_text, write_namelists,
    MatrixInfo,
};
use orcs::report::{self, RunInfo};
use orcs::workload::mapping::{LayoutSpec, RankLayout};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// Loads, lays out and runs the matrix, then writes the outputs (rank 0; the other ranks
/// of `mpirun` compute their share of the runs).
pub fn run(plan: &MatrixPlan, ranks: Ranks) -> Result<ExitCode> {
    // Only rank 0 prints.
    let quiet = plan.quiet || !ranks.is_root();
    let matrix = orcs::workload::matrix::read_traffic_with(&plan.matrix, &plan.trace_options)?;
    let mut loaded = load(&plan.input, quiet)?;
    if plan.metric == MetricKind::GetCableCong {
        loaded.fill_comments();
    }
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let capacity = fabric.edge_capacities(&plan.input_file)?;
    let traffic = SlotTraffic::new(&matrix, plan.ranks_per_host);
    // Every rank must use rank 0's choice.
    let seed = plan.seed.unwrap_or_else(|| ranks.chosen_by_root(pick_seed));
    let layout = layout(plan, ranks, fabric, &traffic, seed)?;
    let config = WeightedConfig {
        runs: plan.runs,
        seed,
        acc_band: plan.metric == MetricKind::HistAccBand,
        links: plan.links_file.is_some() || plan.metric == MetricKind::GetCableCong,
        memory: plan.memory,
    };
    let sim = busy("checking routes", quiet, || {
        let routes = loaded.routes.as_ref();
        WeightedSimulation::new(fabric, table, &layout, &traffic, &capacity, config, routes)
    })
    .map_err(|e| simulation_error(&plan.input_file, fabric, e))?;
    if !ranks.is_root() {
        ranks.run_weighted(&sim, plan.runs, &|_| {});
        return Ok(ExitCode::SUCCESS);
    }
    let mut target = Target::open(OUTPUT_FILE, &plan.output_file)?;
    let links_out = match &plan.links_file {
        Some(path) => Some(create(LINKS, path)?),
        None => None,
    };
    let bar = progress_bar(plan.runs, plan.quiet);
    let outcome = ranks
        .run_weighted(&sim, plan.runs, &|done| bar.inc(done))
        .expect("rank 0 gathers the outcome");
    bar.finish_and_clear();
    let info = run_info(plan, fabric, &traffic, &layout, seed);
    let minfo = MatrixInfo::new(&plan.matrix, &traffic, matrix.entries.len() as u64);
    if let (Some(mut file), Some(links)) = (links_out, &outcome.links) {
        file.write_all(matrix_links_csv(fabric, &capacity, plan.runs, links).as_bytes())?;
        file.commit()?;
    }
    let doc = match plan.format {
        Format::Json => Some(matrix_json(&info, &minfo, fabric, &capacity, &outcome)),
        Format::Csv if plan.metric == MetricKind::GetCableCong => {
            let links = (outcome.links.as_ref()).expect("collected for get_cable_cong");
            Some(matrix_links_csv(fabric, &capacity, plan.runs, links))
        }
        Format::Csv => Some(matrix_csv(&outcome)),
        Format::Text => None,
    };
    let shown = Shown {
        plan,
        info: &info,
        minfo: &minfo,
        fabric,
        sim: &sim,
        outcome: &outcome,
    };
    shown.write(doc, &mut target)?;
    target.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The hosts of the matrix's slots, chosen once; rank 0 prints the layout's warnings
/// (unless -q) and, with -v, the chosen hosts.
fn layout(
    plan: &MatrixPlan,
    ranks: Ranks,
    fabric: &Fabric,
    traffic: &SlotTraffic,
    seed: u64,
) -> Result<RankLayout> {
    let spec = LayoutSpec {
        commsize: traffic.slots as usize,
        subset: plan.subset,
        part: None,
        ordering: read_ordering(plan.node_ordering_file.as_deref())?,
        shuffle: plan.shuffle,
    };
    let (layout, warnings) = lay_out_slots(fabric, traffic, spec, seed).map_err(|e| match e {
        SlotLayoutError::TooFewHosts { .. } => {
            anyhow!("{}: {e} ({}); raise --ppn", plan.matrix, plan.input_file)
        }
        e => e.into(),
    })?;
    if !plan.quiet && ranks.is_root() {
        warn_all(&warnings);
    }
    if plan.verbose && ranks.is_root() {
        show_hosts(fabric, &layout);
    }
    Ok(layout)
}

/// The parameters as the header and the JSON show them.
fn run_info(
    plan: &MatrixPlan,
    fabric: &Fabric,
    traffic: &SlotTraffic,
    layout: &RankLayout,
    seed: u64,
) -> RunInfo {
    RunInfo {
        input_file: plan.input_file.clone(),
        output_file: plan.output_file.clone(),
        pattern_lines: vec!["Pattern: matrix".to_string()],
        pattern: "matrix".to_string(),
        commsize: traffic.slots as usize,
        part_commsize: 0,
        subset: plan.subset.name().to_string(),
        part_subset: "none".to_string(),
        level: -1,
        runs: plan.runs,
        metric: plan.metric,
        shuffle: plan.shuffle,
        seed,
        subset_hosts: layout.hosts().len(),
        fabric_hosts: fabric.num_hosts(),
        fabric_switches: fabric.num_switches(),
        fabric_edges: fabric.num_edges(),
        orcs_compat: false,
    }
}

/// What the metric output shows.
struct Shown<'a> {
    plan: &'a MatrixPlan,
    info: &'a RunInfo,
    minfo: &'a MatrixInfo,
    fabric: &'a Fabric,
    sim: &'a WeightedSimulation<'a>,
    outcome: &'a WeightedOutcome,
}

impl Shown<'_> {
    /// The metric on standard output or in `-o`: `doc` (JSON or CSV) whole, or the text
    /// layout; get_cable_cong's dot map.
    fn write(&self, doc: Option<String>, target: &mut Target) -> Result<()> {
        let (plan, fabric) = (self.plan, self.fabric);
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        let cable: Vec<u64> = (self.outcome.links.as_ref()).map_or(Vec::new(), |l| l.bytes.clone());
        let text = || matrix_text(plan.metric, self.outcome);
        match (doc, target) {
            (Some(doc), Target::Stdout) => out.write_all(doc.as_bytes())?,
            (Some(doc), Target::File(f)) => f.write_all(doc.as_bytes())?,
            (None, target) => {
                let cable_on_stdout =
                    plan.metric == MetricKind::GetCableCong && matches!(target, Target::Stdout);
                if !cable_on_stdout {
                    out.write_all(report::header(self.info).as_bytes())?;
                    out.write_all(matrix_header(self.minfo).as_bytes())?;
                    if plan.printnamelist {
                        write_namelists(&mut out, self.sim, fabric, plan.runs)?;
                    }
                }
                match target {
                    Target::Stdout if plan.metric == MetricKind::GetCableCong => {
                        report::write_cable_dot(&mut out, fabric, &cable)?;
                    }
                    Target::Stdout => out.write_all(text().as_bytes())?,
                    Target::File(f) if plan.metric == MetricKind::GetCableCong => {
                        report::write_cable_dot(f, fabric, &cable)?;
                        out.write_all(text().as_bytes())?;
                    }
                    Target::File(f) => {
                        f.write_all(report::echo_block(self.info).as_bytes())?;
                        f.write_all(matrix_header(self.minfo).as_bytes())?;
                        f.write_all(text().as_bytes())?;
                    }
                }
            }
        }
        out.flush()?;
        Ok(())
    }
}
