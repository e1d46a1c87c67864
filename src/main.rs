//! The `orcs` command: parse flags → validated plan → load → check routes → run → report.

mod cli;

use anyhow::{bail, Context, Result};
use clap::Parser;
use cli::{
    CheckPlan, Cli, ConvertPlan, FabricFormat, Format, GenPlan, MapPlan, Plan, PlotPlan, QueuePlan,
    Renderer, ReportPlan, SimPlan, TrafficPlan,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orcs::deadlock::check_deadlock;
use orcs::fabric::{cache, write, LoadedFabric};
use orcs::input::{load_input, InputSpec};
use orcs::mapping::{parse_node_ordering, LayoutSpec, RankLayout};
use orcs::metric::MetricKind;
use orcs::pattern::{Levels, PatternContext, PatternKind};
use orcs::report::{self, RunInfo, Summaries};
use orcs::routing::{check_routes, route_quality, RouteSummary};

use orcs::sim::{stream_rng, SimConfig, Simulation, Stream};
use std::fs::File;
use std::io::{self, BufRead, BufWriter, IsTerminal, Read, Write};
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
        Plan::Convert(convert) => run_convert(&convert),
        Plan::Gen(gen) => run_gen(&gen),
        Plan::Map(map) => run_map(&map),
        Plan::Plot(plot) => run_plot(&plot),
        Plan::Report(report) => run_report(&report),
        Plan::Traffic(traffic) => run_traffic(&traffic),
        Plan::Queue(queue) => run_queue(&queue),
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

fn load(input: &InputSpec, quiet: bool) -> Result<LoadedFabric> {
    let loaded = busy(&format!("loading {}", input.path), quiet, || {
        load_input(input)
    })?;
    if !quiet {
        for w in &loaded.warnings {
            eprintln!("orcs: warning: {w}");
        }
    }
    Ok(loaded)
}

fn run_check(plan: CheckPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    let LoadedFabric { fabric, table, .. } = load(&plan.input, false)?;
    let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
    let check = busy("checking routes", false, || {
        check_routes(&fabric, &table, &all_hosts)
    });
    let mut out = io::stdout().lock();
    write!(
        out,
        "{}",
        report::check_text(&plan.input.path, &fabric, &check)
    )?;
    if plan.routequal {
        if !check.all_routed() {
            bail!("--routequal needs every host pair routed; run `orcs check` for the list");
        }
        let q = route_quality(&fabric, &table, &all_hosts, &check);
        writeln!(out)?;
        writeln!(out, "gmin: {}, gmax: {}", q.gmin, q.gmax)?;
        writeln!(out, "E: {:.2}, sigma: {:.2}", q.mean as f32, q.sigma as f32)?;
    }
    let mut deadlock_free = true;
    if plan.deadlock {
        if !check.all_routed() {
            bail!("--deadlock needs every host pair routed; see the report above");
        }
        let report = check_deadlock(&fabric, &table);
        writeln!(
            out,
            "\nChannel dependency graph: {} channels, {} dependencies",
            report.channels, report.dependencies
        )?;
        match &report.cycle {
            None => writeln!(
                out,
                "  no cycle: the routing is deadlock-free with one virtual lane"
            )?,
            Some(cycle) => {
                deadlock_free = false;
                writeln!(
                    out,
                    "  cycle of {} channels: the routing can deadlock with one virtual lane",
                    cycle.len()
                )?;
                for &c in cycle {
                    writeln!(out, "    {}", fabric.edge_label(c))?;
                }
            }
        }
    }
    writeln!(out, "Completed")?;
    out.flush()?;
    Ok(if check.all_routed() && deadlock_free {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// `orcs convert`: load any input, check its routes, write the requested format. The
/// output is written even when some routes are broken (exit status 2 then), so the
/// result can be inspected.
fn run_convert(plan: &ConvertPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    // Converting only rewrites the fabric: several next hops (--lmc-paths, or an
    // ambiguous dot) are kept in the output with a warning instead of stopping here.
    let input = InputSpec {
        orcs_compat: true,
        ..plan.input.clone()
    };
    let mut loaded = load(&input, false)?;
    write_fabric(&mut loaded, plan.format, &plan.output, &plan.input.path)
}

/// `orcs gen`: build the topology, route it with the chosen engine, write it.
fn run_gen(plan: &GenPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    let generated = orcs::gen::topology::generate(&plan.spec)?;
    let (table, routing) = orcs::gen::route_generated(
        &generated,
        plan.routing.as_deref(),
        plan.roots.as_deref(),
        plan.seed,
    )?;
    let mut fabric = generated.fabric;
    // No comments: the writers derive them from the table (LoadedFabric::fill_comments).
    fabric.edge_comments = orcs::fabric::EdgeComments::default();
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

/// Checks a routed fabric's routes, then writes it in `format` to `output` (`-`:
/// standard output): exit status 2 (output still written) when some pair is not routed.
/// A file appears complete or not at all: it is written beside its final name and
/// renamed.
fn write_fabric(
    loaded: &mut LoadedFabric,
    format: FabricFormat,
    output: &str,
    name: &str,
) -> Result<ExitCode> {
    // Create the file before the long check, so a bad path fails at once.
    let partial = (output != "-").then(|| partial_name(output));
    let file = match &partial {
        Some(p) => {
            Some(File::create(p).with_context(|| format!("cannot create output file '{output}'"))?)
        }
        None => None,
    };
    let all_hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
    let check = busy("checking routes", false, || {
        check_routes(&loaded.fabric, &loaded.table, &all_hosts)
    });
    loaded.routes = Some(RouteSummary::of(&check));
    if matches!(format, FabricFormat::Dot | FabricFormat::Graphml) {
        loaded.fill_comments();
    }
    let written = busy(&format!("writing {output}"), false, || -> Result<()> {
        let mut out: BufWriter<Box<dyn Write>> = BufWriter::with_capacity(
            1 << 20,
            match file {
                Some(f) => Box::new(f),
                None => Box::new(io::stdout().lock()),
            },
        );
        let fabric = &loaded.fabric;
        match format {
            FabricFormat::Dot => write::write_dot(&mut out, fabric, &|_| Vec::new())?,
            FabricFormat::Orcsfab => cache::write_cache(&mut out, loaded)?,
            FabricFormat::Net => write::write_ibsim_net(&mut out, fabric)
                .with_context(|| format!("cannot write '{output}' as an ibsim net file"))?,
            FabricFormat::Graphml => write::write_graphml(&mut out, fabric)?,
        }
        out.flush()?;
        Ok(())
    });
    if let Some(p) = &partial {
        match written {
            Ok(()) => std::fs::rename(p, output)
                .with_context(|| format!("cannot write output file '{output}'"))?,
            Err(e) => {
                let _ = std::fs::remove_file(p);
                return Err(e.context(format!("cannot write output file '{output}'")));
            }
        }
    } else {
        written?;
    }
    let fabric = &loaded.fabric;
    eprintln!(
        "orcs: {name}: {} hosts, {} switches, {} directed edges",
        fabric.num_hosts(),
        fabric.num_switches(),
        fabric.num_edges()
    );
    if check.all_routed() {
        eprintln!(
            "orcs: all {} ordered host pairs are routed",
            check.pairs_checked
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprint!("{}", report::check_text(name, fabric, &check));
        eprintln!(
            "orcs: the fabric was written, but {} host pairs are not routed",
            check.broken()
        );
        Ok(ExitCode::from(2))
    }
}

/// `orcs map`: a get_cable_cong result drawn as an image.
fn run_map(plan: &MapPlan) -> Result<ExitCode> {
    let graph = read_congestion_graph(&plan.result)?;
    let suggested = orcs::map::MapOptions::suggested(&graph);
    let options = orcs::map::MapOptions {
        top_labels: plan.top,
        switches_only: plan.switches_only.unwrap_or(suggested.switches_only),
        legend: plan.legend,
        title: Some(format!(
            "congestion map of {}",
            std::path::Path::new(&plan.result)
                .file_name()
                .map_or(plan.result.clone(), |n| n.to_string_lossy().into_owned())
        )),
        layout: plan.layout,
    };
    let program = orcs::map::graphviz_program(&graph);
    let graphviz = match plan.renderer {
        Renderer::Builtin => None,
        Renderer::Auto => find_program(program),
        Renderer::Graphviz => Some(find_program(program).with_context(|| {
            format!("--renderer graphviz: Graphviz's `{program}` is not installed (Debian package graphviz); --renderer builtin needs nothing")
        })?),
    };
    let bytes = match graphviz {
        Some(path) => run_graphviz(
            &path,
            &orcs::map::graphviz_source(&graph, &options),
            plan.format,
        )?,
        None => orcs::map::render_map(&graph, &options, plan.format, plan.width, plan.height)?,
    };
    write_whole(&plan.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// The congestion graph of a JSON result or of a dot map written by get_cable_cong
/// (whose edges carry the scaled value, kept to six decimals as the count).
fn read_congestion_graph(path: &str) -> Result<orcs::map::CongestionGraph> {
    let mut input = orcs::fabric::read_input(path)?;
    // JSON or dot, told by the first character that is not white space.
    let starts_json = loop {
        let buf = input
            .fill_buf()
            .with_context(|| format!("cannot read '{path}'"))?;
        if buf.starts_with(b"Input File:") {
            bail!("{path}:1: this is ORCS's edge table (-o with --orcs-compat); give `orcs map` the dot map of --metric get_cable_cong (-o map.dot) or a --format json result");
        }
        match buf.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(&b) => break b == b'{',
            None if buf.is_empty() => break false,
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    if starts_json {
        let mut text = String::new();
        input
            .read_to_string(&mut text)
            .with_context(|| format!("cannot read '{path}'"))?;
        let doc = orcs::results::parse_result(&text, path)?;
        return orcs::html::graph_of(&doc).with_context(|| {
            format!("{path}: the result has no per-link congestion; run the simulation with --metric get_cable_cong")
        });
    }
    let loaded = orcs::fabric::load_routed_fabric_from(input, path, Default::default())?;
    let fabric = &loaded.fabric;
    let mut edges = Vec::with_capacity(fabric.num_edges());
    for e in 0..fabric.num_edges() {
        let value = fabric.edge_attrs[e]
            .iter()
            .find(|(k, _)| k == "congestion")
            .map(|(_, v)| v.parse::<f64>());
        let scaled = match value {
            Some(Ok(v)) if (0.0..=1.0).contains(&v) => v,
            _ => bail!(
                "{path}:{}: edge {} has no congestion value in [0, 1]; expected the dot map of --metric get_cable_cong",
                fabric.edge_lines[e],
                fabric.edge_label(e as u32)
            ),
        };
        edges.push(orcs::map::MapEdge {
            tail: fabric.edge_tail[e],
            head: fabric.edge_head[e],
            count: (scaled * 1e6).round() as u64,
            label: fabric.edge_keys[e].clone(),
        });
    }
    Ok(orcs::map::CongestionGraph {
        names: fabric.node_names.clone(),
        is_host: (0..fabric.num_nodes())
            .map(|v| fabric.host_of_node[v] != orcs::fabric::NONE)
            .collect(),
        edges,
    })
}

/// The first executable called `name` on the PATH.
fn find_program(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Lays out and draws `source` with Graphviz.
fn run_graphviz(
    program: &std::path::Path,
    source: &str,
    format: orcs::draw::ImageFormat,
) -> Result<Vec<u8>> {
    use std::process::{Command, Stdio};
    let kind = match format {
        orcs::draw::ImageFormat::Svg => "-Tsvg",
        orcs::draw::ImageFormat::Png => "-Tpng",
    };
    let mut child = Command::new(program)
        .arg(kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let mut stdin = child.stdin.take().context("Graphviz input")?;
    let text = source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let output = child.wait_with_output()?;
    let _ = writer.join();
    if !output.status.success() {
        bail!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(output.stdout)
}

/// `orcs traffic`: one job's matrix placed and routed for every combination asked for;
/// one table row per combination, with the maximum relative to the first row.
fn run_traffic(plan: &TrafficPlan) -> Result<ExitCode> {
    use orcs::appsim::{host_pairs, link_stats, map_ranks, route_job, select_hosts, LinkLoads};
    use rand::SeedableRng;
    let cluster = orcs::traffic::read_cluster_graphml(&plan.cluster)?;
    let matrix = orcs::traffic::read_traffic(&plan.matrix)?;
    let mut links_out = match &plan.links {
        Some(path) => {
            let mut f = create_file(path, "--links")?;
            writeln!(
                f,
                "selector,mapper,router,src,dst,traffic_bytes,flows,capacity"
            )?;
            Some(f)
        }
        None => None,
    };
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "cluster {}: {} hosts, {} processing elements; matrix {}: {} ranks, {} pairs, {} bytes",
        plan.cluster,
        cluster.hosts.len(),
        cluster.host_pes.iter().map(|&p| p as u64).sum::<u64>(),
        plan.matrix,
        matrix.ranks,
        matrix.entries.len(),
        matrix.total_bytes()
    )?;
    writeln!(
        out,
        "{:<15} {:<7} {:<12} {:>18} {:>10} {:>18} {:>10}  hosts",
        "selector", "mapper", "router", "max bytes/cap", "relative", "mean bytes/cap", "max flows"
    )?;
    let mut first: Option<f64> = None;
    for &selector in &plan.selectors {
        for &mapper in &plan.mappers {
            for &router in &plan.routers {
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(plan.seed);
                let free = vec![false; cluster.hosts.len()];
                let hosts = select_hosts(&cluster, &free, matrix.ranks as u64, selector, &mut rng)
                    .with_context(|| {
                        format!("{}: cannot place {} on it", plan.cluster, plan.matrix)
                    })?;
                let placement = map_ranks(&cluster, &hosts, matrix.ranks, mapper, &matrix);
                let pairs = host_pairs(&matrix, &placement);
                let mut loads = LinkLoads::default();
                route_job(&cluster, &pairs, router, &mut loads, &mut rng)
                    .with_context(|| format!("{}: cannot route {router}", plan.cluster))?;
                let s = link_stats(&cluster, &loads);
                let base = *first.get_or_insert(s.max);
                let names: Vec<&str> = hosts
                    .iter()
                    .map(|&h| cluster.names[cluster.hosts[h as usize] as usize].as_str())
                    .collect();
                writeln!(
                    out,
                    "{:<15} {:<7} {:<12} {:>18.1} {:>10.9} {:>18.1} {:>10}  {}",
                    selector.to_string(),
                    mapper.to_string(),
                    router.to_string(),
                    s.max,
                    if base > 0.0 { s.max / base } else { 0.0 },
                    s.mean,
                    s.max_flows,
                    names.join(",")
                )?;
                if let Some(f) = &mut links_out {
                    for (e, &(u, v, cap)) in cluster.edges.iter().enumerate() {
                        if cluster.is_host[u as usize] || cluster.is_host[v as usize] {
                            continue;
                        }
                        writeln!(
                            f,
                            "{selector},{mapper},{router},{},{},{},{},{cap}",
                            cluster.names[u as usize],
                            cluster.names[v as usize],
                            loads.bytes[e],
                            loads.flows[e]
                        )?;
                    }
                }
            }
        }
    }
    if let Some(mut f) = links_out {
        f.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `orcs queue`: the multi-cluster queueing model over the requested grid, optionally
/// simulated, as text, JSON or CSV, and plotted.
fn run_queue(plan: &QueuePlan) -> Result<ExitCode> {
    use orcs::queueing::{hops::FabricRoutes, params, plot, report, sweep, QueueError};
    init_threads(plan.threads)?;
    let file = match &plan.config_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
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
    let plot_out = match &plan.plot {
        Some((path, format)) => Some((create_file(path, "--plot")?, *format)),
        None => None,
    };
    let routes = loaded
        .as_ref()
        .map(|l| FabricRoutes::new(&l.fabric, &l.table));
    let fabric_name = plan.fabric.as_ref().map(|f| f.path.as_str());
    let mut points = busy(
        if routes.is_some() {
            "measuring routes"
        } else {
            "solving"
        },
        false,
        || sweep::evaluate(&grid, routes.as_ref()),
    )
    .map_err(|e| match (e, fabric_name) {
        (QueueError::Fabric(msg), Some(path)) => anyhow::anyhow!("--fabric {path}: {msg}"),
        (e, _) => e.into(),
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
    if let Some(sim) = &plan.simulate {
        let seed = match plan.seed {
            Some(seed) => seed,
            None => {
                let seed = rand::random::<u64>();
                eprintln!("orcs: using --seed {seed}");
                seed
            }
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
    if let Some((mut file, format)) = plot_out {
        let figure = plot::latency_plot(&ctx, &points)
            .context("--plot: there is no swept parameter to plot")?;
        file.write_all(&plot::render_latency_plot(&figure, format)?)?;
        file.flush()?;
    }
    write_whole(plan.output.as_deref().unwrap_or("-"), bytes.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `orcs plot`: one metric of one or more JSON results as an image.
fn run_plot(plan: &PlotPlan) -> Result<ExitCode> {
    let docs = plan
        .results
        .iter()
        .map(|p| read_result(p))
        .collect::<Result<Vec<_>>>()?;
    let metric = match plan.metric {
        Some(m) => m,
        None => {
            let name = docs[0].parameter("metric");
            orcs::metric::MetricKind::ALL
                .into_iter()
                .find(|m| m.name() == name)
                .with_context(|| format!("{}: unknown metric '{name}'", plan.results[0]))?
        }
    };
    let refs: Vec<&orcs::results::ResultDoc> = docs.iter().collect();
    let figure = orcs::plot::histogram(&refs, metric).with_context(|| {
        format!("the results have no distribution of {metric} to draw (run the simulations with --metric {metric})")
    })?;
    write_whole(
        &plan.output,
        &orcs::plot::render_plot(&figure, plan.format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `orcs report`: the HTML page of one or more JSON results.
fn run_report(plan: &ReportPlan) -> Result<ExitCode> {
    let inputs = plan
        .results
        .iter()
        .map(|path| {
            Ok(orcs::html::ReportInput {
                path: path.clone(),
                doc: read_result(path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let page = orcs::html::html_report(&inputs)?;
    write_whole(&plan.output, page.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `bytes` to `output` (`-`: standard output) beside the final name, then renames.
fn write_whole(output: &str, bytes: &[u8]) -> Result<()> {
    if output == "-" {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    let partial = partial_name(output);
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, output))
        .with_context(|| format!("cannot write output file '{output}'"))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&partial);
        })
}

/// The name a file is written under before it is complete: hidden, beside `output`.
fn partial_name(output: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(output);
    let file = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{file}.partial"))
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
    let loaded = load(&plan.input, plan.quiet)?;
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

/// Opens `-o` (after every check, so a failed run leaves an existing file alone, but
/// before the simulation, so a bad path fails before a long run). Refuses the input file.
fn open_target(plan: &SimPlan) -> Result<Target> {
    let path = plan.output_file.as_str();
    if path == "-" {
        return Ok(Target::Stdout);
    }
    let same = |a: &str, b: &str| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if plan.input_file != "-" && same(path, &plan.input_file) {
        bail!("-o/--output_file '{path}' is the input file; choose another name");
    }
    let file = File::create(path).with_context(|| format!("cannot create output file '{path}'"))?;
    Ok(Target::File(BufWriter::new(file)))
}

/// Creates an output file named by `flag`, before a long run so a bad path fails early.
fn create_file(path: &str, flag: &str) -> Result<BufWriter<File>> {
    let file = File::create(path).with_context(|| format!("{flag}: cannot create '{path}'"))?;
    Ok(BufWriter::new(file))
}

/// Reads a result written with `--format json`.
fn read_result(path: &str) -> Result<orcs::results::ResultDoc> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{path}'"))?;
    Ok(orcs::results::parse_result(&text, path)?)
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

fn run_simulation(plan: &SimPlan) -> Result<ExitCode> {
    init_threads(plan.threads)?;
    let mut loaded = load(&plan.input, plan.quiet)?;
    if plan.metric == MetricKind::GetCableCong {
        // The congestion map rewrites the input graph, routing comments included.
        loaded.fill_comments();
    }
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let ctx = resolve_sizes(plan, fabric.num_hosts())?;
    let num_levels = plan.pattern.num_levels(&ctx);
    check_pattern_fits(plan, &ctx, num_levels)?;
    if !plan.quiet {
        for notice in plan.pattern.notices(&ctx) {
            eprintln!("orcs: {notice}");
        }
        let ordinary = plan.pattern.kind() != PatternKind::PtrnVsPtrn;
        if plan.metric == MetricKind::DepMaxDelay
            && ordinary
            && plan.part_commsize_given
            && !plan.orcs_compat
        {
            eprintln!(
                "orcs: warning: -z does not restrict dep_max_delay for {}: all ranks count (ORCS's model, ranks below -z only, needs --orcs-compat)",
                plan.pattern.name()
            );
        }
    }
    let cable_dot_on_stdout = plan.metric == MetricKind::GetCableCong
        && plan.output_file == "-"
        && plan.format == Format::Text;
    if cable_dot_on_stdout && !plan.orcs_compat && (plan.printptrn || plan.printnamelist) {
        bail!("--printptrn and --printnamelist cannot be mixed into the get_cable_cong dot graph on standard output; add -o FILE for the metric");
    }
    let seed = match plan.seed {
        Some(seed) => seed,
        None => {
            // Shown even with -q: without it the run cannot be reproduced.
            let seed = rand::random::<u64>();
            eprintln!("orcs: using --seed {seed}");
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
        links: plan.links_file.is_some(),
    };
    let sim = busy("checking routes", plan.quiet, || {
        Simulation::new(
            fabric,
            table,
            &layout,
            &plan.pattern,
            config,
            loaded.routes.as_ref(),
        )
    })
    .map_err(|check| {
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
    let mut target = open_target(plan)?;
    let links_out = match &plan.links_file {
        Some(path) => Some(create_file(path, "--links")?),
        None => None,
    };
    let compare = plan
        .compare
        .iter()
        .map(|path| read_result(path))
        .collect::<Result<Vec<_>>>()?;
    let plot_out = match &plan.plot {
        Some((path, format)) => Some((create_file(path, "--plot")?, *format)),
        None => None,
    };
    let bar = progress_bar(plan.runs, plan.quiet);
    let started = Instant::now();
    let outcome = sim.run(&|done| bar.inc(done));
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let empty_runs = outcome.pairs.iter().filter(|&&p| p == 0).count();
    if empty_runs as u64 == plan.runs && needs_traffic(plan.metric) {
        bail!(
            "no run produced any traffic, so --metric {} has nothing to measure",
            plan.metric
        );
    }
    if empty_runs > 0 {
        // Shown even with -q: such runs are missing from the per-run statistics.
        eprintln!(
            "orcs: warning: {empty_runs} of {} runs had no traffic (every sender idle); they are left out of the per-run statistics",
            plan.runs
        );
    }

    let info = RunInfo {
        input_file: plan.input_file.clone(),
        output_file: plan.output_file.clone(),
        pattern_lines: plan.pattern_lines.clone(),
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
        orcs_compat: plan.orcs_compat,
    };

    if let (Some(mut file), Some(links)) = (links_out, &outcome.links) {
        let all_hosts: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
        let check = busy("counting all-pairs routes per link", plan.quiet, || {
            check_routes(fabric, table, &all_hosts)
        });
        file.write_all(report::links_csv(fabric, &check.link_routes, links).as_bytes())?;
        file.flush()?;
    }
    if let Some((mut file, format)) = plot_out {
        let doc = orcs::results::parse_result(
            &report::json_report(&info, fabric, &outcome),
            &plan.output_file,
        )?;
        let mut docs = vec![&doc];
        docs.extend(compare.iter());
        match orcs::plot::histogram(&docs, plan.metric) {
            Some(figure) => file.write_all(&orcs::plot::render_plot(&figure, format)?)?,
            None => bail!(
                "--plot: the results have no distribution of {} to draw",
                plan.metric
            ),
        }
        file.flush()?;
    }
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
            // The plain dot map on standard output is not mixed with the header (ORCS
            // printed the header before it; compat keeps that).
            if !cable_dot_on_stdout || plan.orcs_compat {
                if plan.orcs_compat {
                    write!(
                        out,
                        "Total MPI threads participating in the simulation: '1'\nUnique hosts participating:\n    {}\n\n",
                        host_name()
                    )?;
                }
                out.write_all(report::header(&info).as_bytes())?;
                if plan.printptrn || plan.printnamelist {
                    print_runs(&mut out, plan, &sim, fabric)?;
                }
            }
            match &mut target {
                Target::Stdout if plan.metric == MetricKind::GetCableCong => {
                    report::write_cable_dot(&mut out, fabric, &outcome.cable)?;
                }
                Target::Stdout => out.write_all(metric_text(plan.metric, &outcome).as_bytes())?,
                // The congestion map goes to -o as a pure dot file; ORCS wrote its
                // edge table there (compat keeps that).
                Target::File(f) if plan.metric == MetricKind::GetCableCong && !plan.orcs_compat => {
                    report::write_cable_dot(f, fabric, &outcome.cable)?;
                }
                Target::File(f) => {
                    f.write_all(report::echo_block(&info).as_bytes())?;
                    f.write_all(metric_text(plan.metric, &outcome).as_bytes())?;
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

/// Metrics that have nothing to report without traffic (spec §5.3).
fn needs_traffic(metric: MetricKind) -> bool {
    matches!(
        metric,
        MetricKind::HistMaxCong | MetricKind::HistAccBand | MetricKind::GetCableCong
    )
}

/// Errors for a level that does not exist and for a pattern without any traffic.
fn check_pattern_fits(plan: &SimPlan, ctx: &PatternContext, num_levels: usize) -> Result<()> {
    if num_levels == 0 && needs_traffic(plan.metric) {
        bail!(
            "pattern {} with commsize {} has no traffic, so --metric {} has nothing to measure (sum_max_cong and dep_max_delay report 0)",
            plan.pattern_lines.join(" ").trim_start_matches("Pattern: "),
            ctx.commsize,
            plan.metric
        );
    }
    if let Some(l) = plan.level {
        if l >= num_levels {
            let levels = match num_levels {
                0 => "no levels".to_string(),
                k => format!("{k} levels (0..{})", k - 1),
            };
            bail!(
                "-l/--ptrn_level {l} does not exist: pattern {} with commsize {} has {levels}",
                plan.pattern.name(),
                ctx.commsize,
            );
        }
    }
    Ok(())
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

/// Runs `work` with a spinner saying `what` on a terminal (nothing on a pipe or with
/// `-q`), so that long loads and route checks of big fabrics do not look hung.
fn busy<T>(what: &str, quiet: bool, work: impl FnOnce() -> T) -> T {
    if quiet || !io::stderr().is_terminal() {
        return work();
    }
    let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
        spinner.set_style(style);
    }
    spinner.set_message(what.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let result = work();
    spinner.finish_and_clear();
    result
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
