//! The default command: the Monte Carlo simulation of a pattern on a routed fabric, its
//! metric in ORCS's text layout, JSON or CSV, and the `--links` table and `--plot`
//! picture beside it. Under `mpirun` every rank runs its share of the runs and rank 0
//! alone writes.

use super::{load, pick_seed, read_result, show_hosts, simulation_error, warn_all};
use crate::cli::files::{LINKS, OUTPUT_FILE, PLOT};
use crate::cli::shared::PlotRequest;
use crate::cli::sim::SimPlan;
use crate::cli::values::Format;
use crate::output::{create, Target};
use crate::progress::{busy, checking_routes, progress_bar};
use anyhow::{bail, Result};
use orcs::engine::metric::MetricKind;
use orcs::engine::ranks::Ranks;
use orcs::engine::request::{PrepareError, Prepared, Shape};
use orcs::engine::unit::{SimOutcome, Simulation};
use orcs::fabric::{Fabric, LoadedFabric};
use orcs::output::Output;
use orcs::report::results::ResultDoc;
use orcs::report::{self, RunInfo};
use orcs::viz::draw::render_chart;
use orcs::workload::pattern::PatternKind;
use orcs::workload::WorkloadError;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

/// `-g`: prints the number of levels; with --orcs-compat it is also the exit status, as
/// in ORCS.
pub fn num_levels(plan: &SimPlan) -> Result<ExitCode> {
    let loaded = load(&plan.input, plan.quiet)?;
    let ctx = (plan.request)
        .context(loaded.fabric.num_hosts())
        .map_err(|e| prepare_error(plan, e))?;
    let levels = plan.request.pattern.num_levels(&ctx);
    println!("The given input configuration would result in a {levels}-level simulation.");
    Ok(if plan.request.orcs_compat {
        ExitCode::from((levels % 256) as u8)
    } else {
        ExitCode::SUCCESS
    })
}

/// Loads, prepares and runs the simulation, then writes its outputs (rank 0).
pub fn run(plan: &SimPlan, ranks: Ranks) -> Result<ExitCode> {
    // Only rank 0 prints; the others compute their share of the runs.
    let quiet = plan.quiet || !ranks.is_root();
    let mut loaded = load(&plan.input, quiet)?;
    if plan.request.metric == MetricKind::GetCableCong {
        // The congestion map rewrites the input graph, routing comments included.
        loaded.fill_comments();
    }
    let fabric = &loaded.fabric;
    let shape = (plan.request)
        .shape(fabric.num_hosts())
        .map_err(|e| prepare_error(plan, e))?;
    if !quiet {
        notices(plan, &shape);
    }
    if cable_dot_on_stdout(plan)
        && !plan.request.orcs_compat
        && (plan.printptrn || plan.printnamelist)
    {
        bail!("--printptrn and --printnamelist cannot be mixed into the get_cable_cong dot graph on standard output; add -o FILE for the metric");
    }
    // Every rank must use rank 0's choice.
    let seed = plan.seed.unwrap_or_else(|| ranks.chosen_by_root(pick_seed));
    let prepared = (plan.request)
        .prepare(fabric, shape, seed, plan.memory)
        .map_err(|e| prepare_error(plan, e))?;
    if !quiet {
        warn_all(&prepared.warnings);
    }
    if plan.verbose && ranks.is_root() {
        show_hosts(fabric, &prepared.layout);
        eprintln!("orcs: {} levels per run", shape.num_levels);
    }
    let sim = busy("checking routes", quiet, || {
        prepared.simulation(fabric, &loaded.table, &plan.request, loaded.routes.as_ref())
    })
    .map_err(|e| simulation_error(&plan.input_file, fabric, e))?;
    if !ranks.is_root() {
        ranks.run(&sim, plan.request.runs, &|_| {});
        return Ok(ExitCode::SUCCESS);
    }
    finish(plan, ranks, &loaded, &prepared, &sim)
}

/// Rank 0: opens the outputs, runs (gathering the other ranks' runs), writes.
fn finish(
    plan: &SimPlan,
    ranks: Ranks,
    loaded: &LoadedFabric,
    prepared: &Prepared,
    sim: &Simulation,
) -> Result<ExitCode> {
    let outputs = Outputs::open(plan)?;
    let runs = plan.request.runs;
    let bar = progress_bar(runs, plan.quiet);
    let started = Instant::now();
    let outcome = ranks
        .run(sim, runs, &|done| bar.inc(done))
        .expect("rank 0 gathers the outcome");
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let empty_runs = outcome.pairs.iter().filter(|&&p| p == 0).count();
    if empty_runs as u64 == runs && plan.request.metric.needs_traffic() {
        bail!(
            "no run produced any traffic, so --metric {} has nothing to measure",
            plan.request.metric
        );
    }
    if empty_runs > 0 {
        // Shown even with -q: such runs are missing from the per-run statistics.
        eprintln!(
            "orcs: warning: {empty_runs} of {runs} runs had no traffic (every sender idle); they are left out of the per-run statistics"
        );
    }
    let info = run_info(plan, prepared, &loaded.fabric);
    outputs.write(plan, &info, loaded, sim, &outcome)?;
    if !plan.quiet {
        eprintln!(
            "{}",
            report::summary_line(plan.request.metric, &outcome, elapsed.as_secs_f64())
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The request's error in the words of its flags.
fn prepare_error(plan: &SimPlan, e: PrepareError) -> anyhow::Error {
    match e {
        PrepareError::Workload(e @ WorkloadError::TooFewHosts(_)) => {
            anyhow::anyhow!("{}: {e}", plan.input_file)
        }
        PrepareError::Workload(e @ WorkloadError::Commsize { .. }) => anyhow::anyhow!("-s/--{e}"),
        e @ PrepareError::PartCommsize { .. } => anyhow::anyhow!("-z/--{e}"),
        PrepareError::NoTraffic { commsize, metric, .. } => anyhow::anyhow!(
            "pattern {} with commsize {commsize} has no traffic, so --metric {metric} has nothing to measure (sum_max_cong and dep_max_delay report 0)",
            plan.pattern_lines.join(" ").trim_start_matches("Pattern: "),
        ),
        e @ PrepareError::NoSuchLevel { .. } => anyhow::anyhow!("-l/--{e}"),
        e => e.into(),
    }
}

/// The pattern's notices, and -z's lack of effect on dep_max_delay outside compat mode.
fn notices(plan: &SimPlan, shape: &Shape) {
    let request = &plan.request;
    for notice in request.pattern.notices(&shape.context) {
        eprintln!("orcs: {notice}");
    }
    let ordinary = request.pattern.kind() != PatternKind::PtrnVsPtrn;
    if request.metric == MetricKind::DepMaxDelay
        && ordinary
        && plan.part_commsize_given
        && !request.orcs_compat
    {
        eprintln!(
            "orcs: warning: -z does not restrict dep_max_delay for {}: all ranks count (ORCS's model, ranks below -z only, needs --orcs-compat)",
            request.pattern.name()
        );
    }
}

/// Whether the metric is get_cable_cong's plain dot map on standard output.
fn cable_dot_on_stdout(plan: &SimPlan) -> bool {
    plan.request.metric == MetricKind::GetCableCong
        && plan.output_file == "-"
        && plan.format == Format::Text
}

/// The parameters as the header and the JSON show them.
fn run_info(plan: &SimPlan, prepared: &Prepared, fabric: &Fabric) -> RunInfo {
    let request = &plan.request;
    let ctx = &prepared.shape.context;
    RunInfo {
        input_file: plan.input_file.clone(),
        output_file: plan.output_file.clone(),
        pattern_lines: plan.pattern_lines.clone(),
        pattern: request.pattern.kind().name().to_string(),
        commsize: ctx.commsize as usize,
        part_commsize: ctx.part_commsize as usize,
        subset: request.subset.name().to_string(),
        part_subset: request.part_subset.map_or("none", |m| m.name()).to_string(),
        level: request.level.map_or(-1, |l| l as i64),
        runs: request.runs,
        metric: request.metric,
        shuffle: request.shuffle,
        seed: prepared.config.seed,
        subset_hosts: prepared.layout.hosts().len(),
        fabric_hosts: fabric.num_hosts(),
        fabric_switches: fabric.num_switches(),
        fabric_edges: fabric.num_edges(),
        orcs_compat: request.orcs_compat,
    }
}

/// The host name for ORCS's "Unique hosts participating" header line.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// The outputs of a simulation, opened before it runs so that a bad path fails early.
struct Outputs {
    target: Target,
    links: Option<Output>,
    compare: Vec<ResultDoc>,
    plot: Option<(Output, PlotRequest)>,
}

impl Outputs {
    /// Opens `-o`, `--links` and `--plot` and reads the `--compare` results.
    fn open(plan: &SimPlan) -> Result<Outputs> {
        let target = Target::open(OUTPUT_FILE, &plan.output_file)?;
        let links = match &plan.links_file {
            Some(path) => Some(create(LINKS, path)?),
            None => None,
        };
        let compare = (plan.compare.iter())
            .map(|path| read_result(path))
            .collect::<Result<Vec<_>>>()?;
        let plot = match &plan.plot {
            Some(request) => Some((create(PLOT, &request.path)?, request.clone())),
            None => None,
        };
        Ok(Outputs {
            target,
            links,
            compare,
            plot,
        })
    }

    /// Writes the per-link table, the plot and the metric.
    fn write(
        self,
        plan: &SimPlan,
        info: &RunInfo,
        loaded: &LoadedFabric,
        sim: &Simulation,
        outcome: &SimOutcome,
    ) -> Result<()> {
        let fabric = &loaded.fabric;
        if let (Some(mut file), Some(links)) = (self.links, &outcome.links) {
            let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
            let check = checking_routes(
                "counting all-pairs routes per link",
                fabric,
                &loaded.table,
                &all_hosts,
                plan.quiet,
            );
            file.write_all(report::links_csv(fabric, &check.link_routes, links).as_bytes())?;
            file.commit()?;
        }
        if let Some((mut file, request)) = self.plot {
            let doc = ResultDoc::of(info, fabric, outcome);
            let mut docs = vec![&doc];
            docs.extend(self.compare.iter());
            match orcs::viz::plot::histogram(&docs, plan.request.metric) {
                Some(mut figure) => {
                    file.write_all(&render_chart(&mut figure, request.format, &request.style)?)?
                }
                None => bail!(
                    "--plot: the results have no distribution of {} to draw",
                    plan.request.metric
                ),
            }
            file.commit()?;
        }
        let mut target = self.target;
        write_metric(plan, info, fabric, sim, outcome, &mut target)?;
        target.finish()
    }
}

/// The metric on standard output or in `-o`: JSON or CSV whole, or ORCS's text layout
/// (header, the --printnamelist/--printptrn listing, the metric's block; get_cable_cong's
/// dot map).
fn write_metric(
    plan: &SimPlan,
    info: &RunInfo,
    fabric: &Fabric,
    sim: &Simulation,
    outcome: &SimOutcome,
    target: &mut Target,
) -> Result<()> {
    let metric = plan.request.metric;
    let compat = plan.request.orcs_compat;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let doc = match plan.format {
        Format::Json => Some(report::json_report(info, fabric, outcome)),
        Format::Csv => Some(report::csv_report(metric, fabric, outcome)),
        Format::Text => None,
    };
    match (doc, target) {
        (Some(doc), Target::Stdout) => out.write_all(doc.as_bytes())?,
        (Some(doc), Target::File(f)) => f.write_all(doc.as_bytes())?,
        (None, target) => {
            // The plain dot map on standard output is not mixed with the header (ORCS
            // printed the header before it; compat keeps that).
            if !cable_dot_on_stdout(plan) || compat {
                if compat {
                    out.write_all(report::compat_preamble(&host_name()).as_bytes())?;
                }
                out.write_all(report::header(info).as_bytes())?;
                if plan.printptrn || plan.printnamelist {
                    let runs = plan.request.runs;
                    report::write_runs(
                        &mut out,
                        sim,
                        fabric,
                        runs,
                        plan.printnamelist,
                        plan.printptrn,
                    )?;
                }
            }
            match target {
                Target::Stdout if metric == MetricKind::GetCableCong => {
                    report::write_cable_dot(&mut out, fabric, &outcome.cable)?;
                }
                Target::Stdout => out.write_all(report::metric_text(metric, outcome).as_bytes())?,
                // The congestion map goes to -o as a pure dot file; ORCS wrote its
                // edge table there (compat keeps that).
                Target::File(f) if metric == MetricKind::GetCableCong && !compat => {
                    report::write_cable_dot(f, fabric, &outcome.cable)?;
                }
                Target::File(f) => {
                    f.write_all(report::echo_block(info).as_bytes())?;
                    f.write_all(report::metric_text(metric, outcome).as_bytes())?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
