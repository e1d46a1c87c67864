//! The `orcs` command: parse flags → validated plan → load → check routes → run → report.

mod cli;

use anyhow::{bail, Context, Result};
use clap::Parser;
use cli::{CheckPlan, Cli, Format, Plan, SimPlan};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orcs::fabric::{load_routed_fabric, LoadOptions, LoadedFabric};
use orcs::mapping::{parse_node_ordering, LayoutSpec, RankLayout};
use orcs::metric::MetricKind;
use orcs::pattern::{Levels, PatternContext};
use orcs::report::{self, RunInfo, Summaries};
use orcs::routing::{check_routes, route_quality};

use orcs::sim::{stream_rng, SimConfig, Simulation, Stream};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // Help and version are successes; every usage error exits 1 as in ORCS.
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    match cli.into_plan().and_then(run) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("orcs: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// A closed pipe on standard output (`orcs ... | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn run(plan: Plan) -> Result<ExitCode> {
    match plan {
        Plan::Check(check) => run_check(check),
        Plan::NumLevels(sim) => run_num_levels(&sim),
        Plan::Simulate(sim) => run_simulation(&sim),
        Plan::PatternHelp(usage) => {
            println!("{usage}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Sets the size of the global rayon pool.
fn init_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    Ok(())
}

fn load(path: &str, orcs_compat: bool, quiet: bool) -> Result<LoadedFabric> {
    let loaded = load_routed_fabric(path, LoadOptions { orcs_compat })?;
    if !quiet {
        for w in &loaded.warnings {
            eprintln!("orcs: warning: {w}");
        }
    }
    Ok(loaded)
}

fn run_check(plan: CheckPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    let LoadedFabric { fabric, table, .. } = load(&plan.input_file, plan.orcs_compat, false)?;
    let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
    let check = check_routes(&fabric, &table, &all_hosts);
    let mut out = io::stdout().lock();
    if !plan.routequal_only {
        write!(
            out,
            "{}",
            orcs::report::check_text(&plan.input_file, &fabric, &check)
        )?;
    }
    if plan.routequal {
        if !check.all_routed() {
            bail!("--routequal needs every host pair routed; run `orcs check` for the list");
        }
        let q = route_quality(&fabric, &table, &all_hosts);
        writeln!(out, "gmin: {}, gmax: {}", q.gmin, q.gmax)?;
        writeln!(out, "E: {:.2}, sigma: {:.2}", q.mean as f32, q.sigma as f32)?;
    }
    writeln!(out, "Completed")?;
    out.flush()?;
    Ok(if check.all_routed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// Sizes that depend on the fabric (spec §4.1), checked with ORCS's wording.
fn resolve_sizes(plan: &SimPlan, hosts: usize) -> Result<PatternContext> {
    if hosts < 4 {
        bail!(
            "{}: the fabric has {hosts} hosts (nodes whose name starts with `H`); the simulator needs at least four",
            plan.input_file
        );
    }
    let n = match plan.commsize {
        0 => hosts - hosts % 2,
        s if (4..=hosts as u64).contains(&s) => s as usize,
        s => {
            bail!("-s/--commsize must be between 4 and {hosts} (the hosts of the fabric), got {s}")
        }
    };
    let z = plan.part_commsize;
    if !(2..n as u64).contains(&z) {
        bail!(
            "-z/--part_commsize must be between 2 and {} (commsize - 1), got {z}",
            n - 1
        );
    }
    Ok(PatternContext {
        commsize: n as u32,
        part_commsize: z as u32,
        orcs_compat: plan.orcs_compat,
    })
}

fn run_num_levels(plan: &SimPlan) -> Result<ExitCode> {
    let loaded = load(&plan.input_file, plan.orcs_compat, plan.quiet)?;
    let ctx = resolve_sizes(plan, loaded.fabric.num_hosts())?;
    let levels = plan.pattern.num_levels(&ctx);
    println!("The given input configuration would result in a {levels}-level simulation.");
    Ok(if plan.orcs_compat {
        ExitCode::from((levels % 256) as u8)
    } else {
        ExitCode::SUCCESS
    })
}

/// Where the metric goes: standard output or a file opened before the simulation.
enum Target {
    Stdout,
    File(BufWriter<File>),
}

fn run_simulation(plan: &SimPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    // Open the output first so a bad path fails before a long run.
    let mut target = match plan.output_file.as_str() {
        "-" => Target::Stdout,
        path => Target::File(BufWriter::new(
            File::create(path).with_context(|| format!("cannot create output file '{path}'"))?,
        )),
    };
    let loaded = load(&plan.input_file, plan.orcs_compat, plan.quiet)?;
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let ctx = resolve_sizes(plan, fabric.num_hosts())?;
    if !plan.quiet {
        for notice in plan.pattern.notices(&ctx) {
            eprintln!("orcs: {notice}");
        }
    }
    let num_levels = plan.pattern.num_levels(&ctx);
    if let Some(l) = plan.level {
        if l >= num_levels {
            bail!(
                "-l/--ptrn_level {l} does not exist: pattern {} with commsize {} has {num_levels} levels (0..{})",
                plan.pattern.kind().name(),
                ctx.commsize,
                num_levels.saturating_sub(1)
            );
        }
    }
    let seed = match plan.seed {
        Some(seed) => seed,
        None => {
            let seed = rand::random::<u64>();
            if !plan.quiet {
                eprintln!("orcs: using --seed {seed}");
            }
            seed
        }
    };
    let ordering = match &plan.node_ordering_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read node ordering file '{path}'"))?;
            parse_node_ordering(&text, path)?
        }
        None => Vec::new(),
    };
    let spec = LayoutSpec {
        commsize: ctx.commsize as usize,
        subset: plan.subset,
        part: plan.part_subset.map(|m| (m, ctx.part_commsize as usize)),
        ordering,
        shuffle: plan.shuffle,
    };
    let (layout, warnings) =
        RankLayout::build(fabric, &spec, &mut stream_rng(seed, Stream::Subset))?;
    if !plan.quiet {
        for w in warnings {
            eprintln!("orcs: warning: {w}");
        }
    }
    if plan.verbose {
        let names: Vec<&str> = layout
            .hosts()
            .iter()
            .map(|&h| fabric.host_name(h))
            .collect();
        eprintln!(
            "orcs: NAMELIST ({} hosts, {} fixed by the node ordering file): {}",
            names.len(),
            layout.num_fixed(),
            names.join(",")
        );
        eprintln!("orcs: {num_levels} levels per run");
    }

    let config = SimConfig {
        runs: plan.runs,
        seed,
        level: plan.level,
        metric: plan.metric,
        orcs_compat: plan.orcs_compat,
        pattern_context: ctx,
    };
    let sim = Simulation::new(fabric, table, &layout, &plan.pattern, config).map_err(|check| {
        let mut msg = format!(
            "{}: {} of {} host pairs of the communicator are not routed:",
            plan.input_file,
            check.broken(),
            check.pairs_checked
        );
        for ex in &check.examples {
            msg.push_str(&format!("\n  {}", ex.describe(fabric)));
        }
        anyhow::anyhow!(msg)
    })?;
    let bar = progress_bar(plan.runs, plan.quiet);
    let started = Instant::now();
    let outcome = sim.run(&|done| bar.inc(done));
    bar.finish_and_clear();
    let elapsed = started.elapsed();

    let info = RunInfo {
        input_file: plan.input_file.clone(),
        output_file: plan.output_file.clone(),
        pattern_lines: plan.pattern.header_lines(),
        pattern: plan.pattern.kind().name().to_string(),
        commsize: ctx.commsize as usize,
        part_commsize: ctx.part_commsize as usize,
        subset: plan.subset.name().to_string(),
        part_subset: plan.part_subset.map_or("none", |m| m.name()).to_string(),
        level: plan.level.map_or(-1, |l| l as i64),
        runs: plan.runs,
        metric: plan.metric,
        shuffle: plan.shuffle,
        seed,
        subset_hosts: layout.hosts().len(),
        fabric_hosts: fabric.num_hosts(),
        fabric_switches: fabric.num_switches(),
        fabric_edges: fabric.num_edges(),
    };

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match plan.format {
        Format::Json | Format::Csv => {
            let doc = if plan.format == Format::Json {
                report::json_report(&info, fabric, &outcome)
            } else {
                report::csv_report(plan.metric, fabric, &outcome)
            };
            match &mut target {
                Target::Stdout => out.write_all(doc.as_bytes())?,
                Target::File(f) => f.write_all(doc.as_bytes())?,
            }
        }
        Format::Text => {
            let cable_dot = plan.metric == MetricKind::GetCableCong;
            // A plain dot map on standard output must not be mixed with the header.
            let pure_dot_on_stdout =
                cable_dot && !plan.orcs_compat && matches!(target, Target::Stdout);
            if !pure_dot_on_stdout {
                out.write_all(report::header(&info).as_bytes())?;
                if plan.printptrn || plan.printnamelist {
                    print_runs(&mut out, plan, &sim, fabric)?;
                }
            }
            match &mut target {
                Target::Stdout => {
                    if cable_dot {
                        report::write_cable_dot(&mut out, fabric, table, &outcome.cable)?;
                    } else {
                        out.write_all(metric_text(plan.metric, &outcome).as_bytes())?;
                    }
                }
                Target::File(f) => {
                    if cable_dot && !plan.orcs_compat {
                        report::write_cable_dot(f, fabric, table, &outcome.cable)?;
                    } else {
                        f.write_all(report::echo_block(&info).as_bytes())?;
                        let text = if cable_dot {
                            report::cable_table_text(&outcome.cable)
                        } else {
                            metric_text(plan.metric, &outcome)
                        };
                        f.write_all(text.as_bytes())?;
                    }
                }
            }
        }
    }
    out.flush()?;
    if let Target::File(f) = &mut target {
        f.flush()
            .with_context(|| format!("cannot write output file '{}'", plan.output_file))?;
    }
    if !plan.quiet {
        eprintln!("{}", summary_line(plan, &outcome, elapsed.as_secs_f64()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The ORCS text block of `metric`.
fn metric_text(metric: MetricKind, outcome: &orcs::sim::SimOutcome) -> String {
    match metric {
        MetricKind::HistMaxCong => report::hist_max_cong_text(&outcome.weight_hist),
        MetricKind::HistAccBand => report::hist_acc_band_text(&outcome.acc_band),
        MetricKind::SumMaxCong => report::integer_stats_text(metric, &outcome.sum_max_cong),
        MetricKind::DepMaxDelay => report::integer_stats_text(metric, &outcome.dep_max_delay),
        MetricKind::GetCableCong => report::cable_table_text(&outcome.cable),
    }
}

/// One line on standard error: the selected metric's mean with its 95 % confidence
/// interval, so users see whether `-n` is large enough.
fn summary_line(plan: &SimPlan, outcome: &orcs::sim::SimOutcome, secs: f64) -> String {
    let s = Summaries::of(outcome);
    let (name, summary) = match plan.metric {
        MetricKind::SumMaxCong => ("sum_max_cong", s.sum_max_cong),
        MetricKind::DepMaxDelay => ("dep_max_delay", s.dep_max_delay),
        _ => ("acc_band", s.acc_band),
    };
    let empty = outcome.acc_band.iter().filter(|v| v.is_nan()).count();
    let mut line = format!("orcs: {} runs in {secs:.2} s", outcome.runs);
    if let Some(m) = summary {
        line.push_str(&format!(
            "; {name} per run: mean {:.6} ± {:.6} (95% CI), sd {:.6}, min {:.6}, max {:.6}",
            m.mean,
            m.ci95_half_width(),
            m.sd,
            m.min,
            m.max
        ));
    }
    if empty > 0 {
        line.push_str(&format!("; {empty} runs had no traffic"));
    }
    line
}

/// `--printptrn` and `--printnamelist` (spec §8.4, §8.5), run by run, from the same
/// random streams the simulation used.
fn print_runs(
    out: &mut dyn Write,
    plan: &SimPlan,
    sim: &Simulation,
    fabric: &orcs::fabric::Fabric,
) -> Result<()> {
    let mut ranks = Vec::new();
    let mut levels = Levels::new();
    for run in 0..plan.runs {
        sim.materialize(run, &mut ranks, &mut levels);
        if plan.printnamelist {
            write!(
                out,
                "\n\nNamelist in node with rank 0: \n=================\n"
            )?;
            for &h in &ranks {
                writeln!(out, "{}", fabric.host_name(h))?;
            }
            write!(out, "\n===============\n\n")?;
        }
        if plan.printptrn {
            for l in sim.simulated_levels(&levels) {
                let pairs = levels.level(l);
                if pairs.is_empty() {
                    break;
                }
                write!(out, "\nUsed Pattern:\n=================\n")?;
                for &(s, d) in pairs {
                    writeln!(
                        out,
                        "{:>5} -> {:<5}   |   {} -> {}",
                        format!(" {s}"),
                        d,
                        fabric.host_name(ranks[s as usize]),
                        fabric.host_name(ranks[d as usize])
                    )?;
                }
                writeln!(out, "=================")?;
            }
        }
    }
    Ok(())
}

/// A progress bar with ETA on a terminal; hidden on a pipe or with `-q`.
fn progress_bar(runs: u64, quiet: bool) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} runs (ETA {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}
