//! The `orcs` command: parse flags → validated plan → load → check routes → run → report.

mod cli;
mod distributed;

use anyhow::{bail, Context, Result};
use clap::Parser;
use cli::{
    CheckPlan, Cli, ConvertPlan, FabricFormat, Format, GenPlan, JobsPlan, MapPlan, MatrixPlan,
    Plan, PlotPlan, QueuePlan, Renderer, ReportPlan, ScanPlan, SimPlan, TrafficPlan,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orcs::engine::metric::MetricKind;
use orcs::fabric::input::{load_input, InputSpec};
use orcs::fabric::{cache, write, LoadedFabric};
use orcs::report::{self, RunInfo, Summaries};
use orcs::routing::deadlock::check_deadlock;
use orcs::routing::{check_routes, route_quality, RouteSummary};
use orcs::workload::mapping::{parse_node_ordering, LayoutSpec, RankLayout};
use orcs::workload::pattern::{communicator_size, Levels, PatternContext, PatternKind, SizeError};

use orcs::engine::stream::{stream_rng, Stream};
use orcs::engine::unit::{SimConfig, Simulation};
use std::fs::File;
use std::io::{self, BufRead, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Instant;

/// This process's rank under `mpirun` (rank 0 of 1 otherwise).
static RANKS: std::sync::OnceLock<distributed::Ranks> = std::sync::OnceLock::new();

fn ranks() -> distributed::Ranks {
    *RANKS.get().expect("set at the start of main")
}

fn main() -> ExitCode {
    // Finalises MPI (when in use) after the command, at the end of main.
    let (ranks, _mpi) = distributed::init();
    let _ = RANKS.set(ranks);
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
    // Under mpirun only simulations and scans are shared out; other commands run once.
    if !ranks().is_root() && !matches!(plan, Plan::Simulate(_) | Plan::Scan(_)) {
        return Ok(ExitCode::SUCCESS);
    }
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
        Plan::Matrix(matrix) => run_matrix(&matrix),
        Plan::Jobs(jobs) => run_jobs(&jobs),
        Plan::Scan(scan) => run_scan(&scan),
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
    let (table, routing) = orcs::routing::route_generated(
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
    let suggested = orcs::viz::map::MapOptions::suggested(&graph);
    let options = orcs::viz::map::MapOptions {
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
    let program = orcs::viz::map::graphviz_program(&graph);
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
            &orcs::viz::map::graphviz_source(&graph, &options),
            plan.format,
        )?,
        None => orcs::viz::map::render_map(&graph, &options, plan.format, plan.width, plan.height)?,
    };
    write_whole(&plan.output, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// The congestion graph of a JSON result or of a dot map written by get_cable_cong
/// (whose edges carry the scaled value, kept to six decimals as the count).
fn read_congestion_graph(path: &str) -> Result<orcs::viz::map::CongestionGraph> {
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
        let doc = orcs::report::results::parse_result(&text, path)?;
        return orcs::viz::html::graph_of(&doc).with_context(|| {
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
        edges.push(orcs::viz::map::MapEdge {
            tail: fabric.edge_tail[e],
            head: fabric.edge_head[e],
            count: (scaled * 1e6).round() as u64,
            label: fabric.edge_keys[e].clone(),
        });
    }
    Ok(orcs::viz::map::CongestionGraph {
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
    format: orcs::viz::draw::ImageFormat,
) -> Result<Vec<u8>> {
    use std::process::{Command, Stdio};
    let kind = match format {
        orcs::viz::draw::ImageFormat::Svg => "-Tsvg",
        orcs::viz::draw::ImageFormat::Png => "-Tpng",
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
    use orcs::cluster::application::{
        host_pairs, link_stats, map_ranks, route_job, select_hosts, LinkLoads,
    };
    use rand::SeedableRng;
    let cluster = orcs::cluster::read_cluster(&plan.cluster)?;
    let matrix = orcs::workload::matrix::read_traffic(&plan.matrix)?;
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
                        if !orcs::cluster::application::is_network_link(&cluster, e as u32) {
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

/// `-p matrix`: the Monte Carlo engine on a traffic matrix, every metric in bytes.
fn run_matrix(plan: &MatrixPlan) -> Result<ExitCode> {
    use orcs::engine::weighted::{SlotTraffic, WeightedConfig, WeightedSimulation};
    use orcs::report::matrix::{
        matrix_csv, matrix_header, matrix_json, matrix_links_csv, matrix_text, MatrixInfo,
    };
    init_threads(plan.threads)?;
    let matrix = orcs::workload::matrix::read_traffic(&plan.matrix)?;
    let mut loaded = load(&plan.input, plan.quiet)?;
    if plan.metric == MetricKind::GetCableCong {
        loaded.fill_comments();
    }
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let capacity = fabric
        .edge_capacities()
        .map_err(|(line, message)| anyhow::anyhow!("{}:{line}: {message}", plan.input_file))?;
    let traffic = SlotTraffic::new(&matrix, plan.ranks_per_host);
    if traffic.slots as usize > fabric.num_hosts() {
        bail!(
            "{}: {} ranks at {} per host need {} hosts, but {} has {}; raise --ppn",
            plan.matrix,
            traffic.ranks,
            traffic.ranks_per_host,
            traffic.slots,
            plan.input_file,
            fabric.num_hosts()
        );
    }
    let seed = plan.seed.unwrap_or_else(pick_seed);
    let layout = build_layout(
        fabric,
        LayoutSpec {
            commsize: traffic.slots as usize,
            subset: plan.subset,
            part: None,
            ordering: read_ordering(plan.node_ordering_file.as_deref())?,
            shuffle: plan.shuffle,
        },
        seed,
        plan.quiet,
        plan.verbose,
    )?;
    let config = WeightedConfig {
        runs: plan.runs,
        seed,
        acc_band: plan.metric == MetricKind::HistAccBand,
        links: plan.links_file.is_some() || plan.metric == MetricKind::GetCableCong,
    };
    let sim = busy("checking routes", plan.quiet, || {
        WeightedSimulation::new(
            fabric,
            table,
            &layout,
            &traffic,
            &capacity,
            config,
            loaded.routes.as_ref(),
        )
    })
    .map_err(|check| unrouted(&plan.input_file, fabric, &check))?;
    let mut target = open_target(&plan.output_file, &plan.input_file)?;
    let links_out = match &plan.links_file {
        Some(path) => Some(create_file(path, "--links")?),
        None => None,
    };
    let bar = progress_bar(plan.runs, plan.quiet);
    let outcome = sim.run(&|done| bar.inc(done));
    bar.finish_and_clear();

    let info = RunInfo {
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
    };
    let minfo = MatrixInfo::new(&plan.matrix, &traffic, matrix.entries.len() as u64);
    if let (Some(mut file), Some(links)) = (links_out, &outcome.links) {
        file.write_all(matrix_links_csv(fabric, &capacity, plan.runs, links).as_bytes())?;
        file.flush()?;
    }
    let cable: Vec<u64> = outcome
        .links
        .as_ref()
        .map_or(Vec::new(), |l| l.bytes.clone());
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let doc = match plan.format {
        Format::Json => Some(matrix_json(&info, &minfo, fabric, &capacity, &outcome)),
        Format::Csv if plan.metric == MetricKind::GetCableCong => {
            let links = outcome
                .links
                .as_ref()
                .expect("collected for get_cable_cong");
            Some(matrix_links_csv(fabric, &capacity, plan.runs, links))
        }
        Format::Csv => Some(matrix_csv(&outcome)),
        Format::Text => None,
    };
    match (doc, &mut target) {
        (Some(doc), Target::Stdout) => out.write_all(doc.as_bytes())?,
        (Some(doc), Target::File(f)) => f.write_all(doc.as_bytes())?,
        (None, target) => {
            let cable_on_stdout =
                plan.metric == MetricKind::GetCableCong && matches!(target, Target::Stdout);
            if !cable_on_stdout {
                out.write_all(report::header(&info).as_bytes())?;
                out.write_all(matrix_header(&minfo).as_bytes())?;
                if plan.printnamelist {
                    let mut hosts = Vec::new();
                    for run in 0..plan.runs {
                        sim.materialize(run, &mut hosts);
                        let names: Vec<&str> = hosts.iter().map(|&h| fabric.host_name(h)).collect();
                        writeln!(out, "Run {run}: {}", names.join(","))?;
                    }
                    writeln!(out)?;
                }
            }
            match target {
                Target::Stdout if plan.metric == MetricKind::GetCableCong => {
                    report::write_cable_dot(&mut out, fabric, &cable)?;
                }
                Target::Stdout => out.write_all(matrix_text(plan.metric, &outcome).as_bytes())?,
                Target::File(f) if plan.metric == MetricKind::GetCableCong => {
                    report::write_cable_dot(f, fabric, &cable)?;
                    out.write_all(matrix_text(plan.metric, &outcome).as_bytes())?;
                }
                Target::File(f) => {
                    f.write_all(report::echo_block(&info).as_bytes())?;
                    f.write_all(matrix_header(&minfo).as_bytes())?;
                    f.write_all(matrix_text(plan.metric, &outcome).as_bytes())?;
                }
            }
        }
    }
    if let Target::File(f) = &mut target {
        f.flush()?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `orcs scan`: run the plan's missing cells (appending each record whole and synced),
/// or merge results files; then the CSV summary.
fn run_scan(plan: &ScanPlan) -> Result<ExitCode> {
    use orcs::scan::{merge, read_plan, read_results, record_key, run_cell, seal, summary_csv};
    use rayon::prelude::*;
    use std::sync::Mutex;
    init_threads(plan.threads)?;
    let write_whole = |path: &str, text: &str| -> Result<()> {
        let partial = format!("{path}.partial");
        std::fs::write(&partial, text).with_context(|| format!("cannot write '{partial}'"))?;
        std::fs::rename(&partial, path).with_context(|| format!("cannot write '{path}'"))?;
        Ok(())
    };
    if !plan.merge.is_empty() {
        let mut all = Vec::new();
        for path in &plan.merge {
            let (records, valid) = read_results(path)?;
            let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            if valid < len && !plan.quiet {
                eprintln!("orcs: warning: {path}: its last line is cut short (an interrupted scan); left out");
            }
            all.extend(records);
        }
        let merged = merge(all);
        let text: String = merged.iter().map(seal).collect();
        write_whole(&plan.output, &text)?;
        write_whole(&plan.csv, &summary_csv(&merged))?;
        if !plan.quiet {
            eprintln!(
                "orcs: {} records from {} files into {} and {}",
                merged.len(),
                plan.merge.len(),
                plan.output,
                plan.csv
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let plan_path = plan
        .plan
        .as_deref()
        .expect("validated: a plan without --merge");
    let scan = read_plan(plan_path)?;
    let cells: Vec<&orcs::scan::Cell> = match plan.shard {
        Some((i, n)) => scan.shard(i, n),
        None => scan.cells.iter().collect(),
    };
    // Under mpirun each rank appends to a part file of its own, merged at the end; parts
    // left by an interrupted run count as done.
    let ranks = ranks();
    let quiet = plan.quiet || !ranks.is_root();
    let parts: Vec<String> = glob::glob(&format!("{}.rank*", glob::Pattern::escape(&plan.output)))
        .map(|paths| {
            paths
                .filter_map(Result::ok)
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|p| !p.ends_with(".partial"))
                .collect()
        })
        .unwrap_or_default();
    let own = if ranks.size() > 1 {
        format!("{}.rank{}", plan.output, ranks.rank())
    } else {
        plan.output.clone()
    };
    let mut done = std::collections::HashSet::new();
    let mut valid = 0;
    for path in std::iter::once(&plan.output).chain(&parts) {
        let (records, len) = read_results(path)?;
        if *path == own {
            valid = len;
        }
        done.extend(
            records
                .iter()
                .filter_map(|r| record_key(r).map(str::to_string)),
        );
    }
    let pending: Vec<&orcs::scan::Cell> = cells
        .iter()
        .copied()
        .filter(|c| !done.contains(&scan.key(c)))
        .enumerate()
        .filter(|(i, _)| i % ranks.size() == ranks.rank())
        .map(|(_, c)| c)
        .collect();
    // Every rank must share out the same pending list: none writes before all have read.
    ranks.barrier();
    // Fabrics are loaded once, and only those a pending cell needs.
    let mut needed: Vec<usize> = pending.iter().map(|c| c.fabric).collect();
    needed.sort_unstable();
    needed.dedup();
    let cache_dir = format!(
        "{}.cache",
        plan.output.strip_suffix(".jsonl").unwrap_or(&plan.output)
    );
    let mut fabrics: Vec<Option<LoadedFabric>> = (0..scan.fabrics.len()).map(|_| None).collect();
    for &f in &needed {
        fabrics[f] = Some(load_scan_fabric(&scan.fabrics[f], &cache_dir, quiet)?);
    }
    if plan.dry_run {
        if !ranks.is_root() {
            return Ok(ExitCode::SUCCESS);
        }
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "{:>5}  {:<40} {:<12} {:<10} {:>8} {:<14} {:>6} {:>12}",
            "cell", "fabric", "pattern", "arg", "commsize", "metric", "done", "estimate s"
        )?;
        let mut total = 0.0;
        for c in &cells {
            let is_done = done.contains(&scan.key(c));
            // Time a few runs of the cell and scale to the plan's run count.
            let estimate = if is_done {
                0.0
            } else {
                let sample = orcs::scan::Plan {
                    runs: scan.runs.min(8),
                    ..scan.clone()
                };
                let loaded = fabrics[c.fabric].as_ref().expect("loaded above");
                let started = Instant::now();
                let _ = run_cell(&sample, c, loaded, &|_| {});
                started.elapsed().as_secs_f64() * scan.runs as f64 / sample.runs as f64
            };
            total += estimate;
            writeln!(
                out,
                "{:>5}  {:<40} {:<12} {:<10} {:>8} {:<14} {:>6} {:>12.2}",
                c.index,
                scan.fabrics[c.fabric].label(),
                c.pattern,
                c.arg.as_deref().unwrap_or("-"),
                c.commsize,
                c.metric.name(),
                if is_done { "yes" } else { "no" },
                estimate
            )?;
        }
        writeln!(
            out,
            "{} cells, {} done, {} to run; estimated {:.1} s on {} threads",
            cells.len(),
            cells.len() - pending.len(),
            pending.len(),
            total,
            rayon::current_num_threads()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    // Drop a record cut short by a crash, then append.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&own)
        .with_context(|| format!("cannot open results file '{own}'"))?;
    file.set_len(valid)
        .with_context(|| format!("cannot truncate '{own}'"))?;
    let file = Mutex::new(file);
    let bar = progress_bar(pending.len() as u64 * scan.runs, quiet);
    pending.par_iter().try_for_each(|cell| -> Result<()> {
        let loaded = fabrics[cell.fabric].as_ref().expect("loaded above");
        let record = run_cell(&scan, cell, loaded, &|n| bar.inc(n));
        let line = seal(&record);
        let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .with_context(|| format!("cannot append to '{own}'"))
    })?;
    bar.finish_and_clear();
    if ranks.size() > 1 {
        ranks.barrier();
        if !ranks.is_root() {
            return Ok(ExitCode::SUCCESS);
        }
        // Every part is complete: fold them into the results file, then remove them.
        let mut all = read_results(&plan.output)?.0;
        let parts: Vec<String> = (0..ranks.size())
            .map(|r| format!("{}.rank{r}", plan.output))
            .chain(parts)
            .collect();
        for part in &parts {
            all.extend(read_results(part)?.0);
        }
        let text: String = merge(all).iter().map(seal).collect();
        write_whole(&plan.output, &text)?;
        for part in &parts {
            let _ = std::fs::remove_file(part);
        }
    }
    let (records, _) = read_results(&plan.output)?;
    let errors = records.iter().filter(|r| r.get("error").is_some()).count();
    write_whole(&plan.csv, &summary_csv(&merge(records)))?;
    if !plan.quiet {
        eprintln!(
            "orcs: {} cells run, {} were done already; results in {}, summary in {}",
            pending.len(),
            cells.len() - pending.len(),
            plan.output,
            plan.csv
        );
    }
    if errors > 0 {
        eprintln!("orcs: warning: {errors} cells could not run; their records carry the error");
    }
    Ok(ExitCode::SUCCESS)
}

/// A scan's fabric, kept as a binary cache in `cache_dir` so a resumed scan neither
/// parses a dot file nor routes a generated fabric again: files as `-i` reads them (the
/// cache is tied to the file's size and modification time, so an edited file is read
/// again; `.orcsfab` files are used as they are), generated fabrics routed once.
fn load_scan_fabric(
    source: &orcs::scan::FabricSource,
    cache_dir: &str,
    quiet: bool,
) -> Result<LoadedFabric> {
    use orcs::scan::FabricSource;
    let identity = match source {
        FabricSource::File(path) => {
            let meta = std::fs::metadata(path).with_context(|| format!("cannot read '{path}'"))?;
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}|{}|{modified}", source.label(), meta.len())
        }
        FabricSource::Gen { .. } => source.label(),
    };
    let cached = format!(
        "{cache_dir}/{:08x}.orcsfab",
        crc32fast::hash(identity.as_bytes())
    );
    if let Ok(f) = File::open(&cached) {
        if let Ok(loaded) = cache::read_cache(&mut std::io::BufReader::new(f)) {
            return Ok(loaded);
        }
    }
    let mut loaded = match source {
        FabricSource::File(path) => {
            let loaded = load(
                &InputSpec {
                    path: path.clone(),
                    ..Default::default()
                },
                quiet,
            )?;
            if loaded.routes.is_some() {
                return Ok(loaded); // a binary cache already
            }
            loaded
        }
        FabricSource::Gen { spec, routing } => {
            let generated = orcs::gen::topology::generate(spec)?;
            let (table, _) =
                orcs::routing::route_generated(&generated, routing.as_deref(), None, 0)?;
            let mut loaded = LoadedFabric::new(generated.fabric, table);
            loaded.fabric.edge_comments = orcs::fabric::EdgeComments::default();
            loaded
        }
    };
    let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
    let check = check_routes(&loaded.fabric, &loaded.table, &hosts);
    loaded.routes = Some(RouteSummary::of(&check));
    std::fs::create_dir_all(cache_dir).with_context(|| format!("cannot create '{cache_dir}'"))?;
    // Ranks of one scan may cache the same fabric at once: partial names differ.
    let partial = format!("{cached}.{}.partial", std::process::id());
    let mut out = BufWriter::new(
        File::create(&partial).with_context(|| format!("cannot create '{partial}'"))?,
    );
    cache::write_cache(&mut out, &loaded)?;
    out.flush()?;
    drop(out);
    std::fs::rename(&partial, &cached)?;
    Ok(loaded)
}

/// `orcs jobs`: every run of a scenario, in parallel; the summary, and the run folders.
fn run_jobs(plan: &JobsPlan) -> Result<ExitCode> {
    use orcs::cluster::jobs::{build_topology, read_scenario, simulate_run, JobsConfig};
    use orcs::report::jobs::{jobs_csv, jobs_json, jobs_text, run_files, RunReport};
    use rayon::prelude::*;
    init_threads(plan.threads)?;
    let scenario = read_scenario(&plan.scenario)?;
    let config = JobsConfig {
        seed: plan.seed.or(scenario.seed).unwrap_or(0),
        pfsim_compat: plan.pfsim_compat,
    };
    let clusters = scenario
        .topologies
        .iter()
        .map(|(label, spec)| {
            build_topology(spec)
                .map_err(|e| anyhow::anyhow!("{}: topology {label}: {e}", plan.scenario))
        })
        .collect::<Result<Vec<_>>>()?;
    // Each trace is read once, whatever the number of streams and runs naming it.
    let mut read: Vec<(String, orcs::workload::matrix::TrafficMatrix)> = Vec::new();
    for job in &scenario.jobs {
        if !read.iter().any(|(p, _)| *p == job.trace) {
            read.push((
                job.trace.clone(),
                orcs::workload::matrix::read_traffic(&job.trace)?,
            ));
        }
    }
    let matrices: Vec<&orcs::workload::matrix::TrafficMatrix> = scenario
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
        std::fs::create_dir_all(dir).with_context(|| format!("--output: cannot create '{dir}'"))?;
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
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("cannot create '{}'", folder.display()))?;
            for (name, text) in run_files(&scenario, r, config.pfsim_compat) {
                let path = folder.join(name);
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write '{}'", path.display()))?;
            }
        }
    }
    let doc = match plan.format {
        Format::Text => jobs_text(&scenario, config.seed, &reports),
        Format::Json => jobs_json(&scenario, config.seed, config.pfsim_compat, &reports),
        Format::Csv => jobs_csv(&scenario, &reports),
    };
    let mut out = io::stdout().lock();
    out.write_all(doc.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `orcs queue`: the multi-cluster queueing model over the requested grid, optionally
/// simulated, as text, JSON or CSV, and plotted.
fn run_queue(plan: &QueuePlan) -> Result<ExitCode> {
    use orcs::queueing::{hops::FabricRoutes, params, sweep, QueueError};
    use orcs::report::queue as report;
    use orcs::viz::queue_plot as plot;
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

/// A fresh seed, printed even with -q: without it the run cannot be reproduced.
fn pick_seed() -> u64 {
    let seed = rand::random::<u64>();
    eprintln!("orcs: using --seed {seed}");
    seed
}

/// The GUIDs of a node ordering file (`--node_ordering_file`), or none.
fn read_ordering(path: Option<&str>) -> Result<Vec<u64>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read node ordering file '{path}'"))?;
    Ok(parse_node_ordering(&text, path)?)
}

/// Chooses the hosts of `spec` from the subset stream of `seed`; prints the layout's
/// warnings (unless `quiet`) and, with `verbose`, the chosen hosts.
fn build_layout(
    fabric: &orcs::fabric::Fabric,
    spec: LayoutSpec,
    seed: u64,
    quiet: bool,
    verbose: bool,
) -> Result<RankLayout> {
    let (layout, warnings) =
        RankLayout::build(fabric, &spec, &mut stream_rng(seed, Stream::Subset))?;
    if !quiet {
        for w in warnings {
            eprintln!("orcs: warning: {w}");
        }
    }
    if verbose {
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
    }
    Ok(layout)
}

/// The error for a communicator with broken routes: the count and the first examples.
fn unrouted(
    input_file: &str,
    fabric: &orcs::fabric::Fabric,
    check: &orcs::routing::RouteCheck,
) -> anyhow::Error {
    let mut msg = format!(
        "{input_file}: {} of {} host pairs of the communicator are not routed:",
        check.broken(),
        check.pairs_checked
    );
    for ex in &check.examples {
        msg.push_str(&format!("\n  {}", ex.describe(fabric)));
    }
    anyhow::anyhow!(msg)
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
            orcs::engine::metric::MetricKind::ALL
                .into_iter()
                .find(|m| m.name() == name)
                .with_context(|| format!("{}: unknown metric '{name}'", plan.results[0]))?
        }
    };
    let refs: Vec<&orcs::report::results::ResultDoc> = docs.iter().collect();
    let figure = orcs::viz::plot::histogram(&refs, metric).with_context(|| {
        format!("the results have no distribution of {metric} to draw (run the simulations with --metric {metric})")
    })?;
    write_whole(
        &plan.output,
        &orcs::viz::plot::render_plot(&figure, plan.format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `orcs report`: the HTML page of one or more JSON results.
fn run_report(plan: &ReportPlan) -> Result<ExitCode> {
    let inputs = plan
        .results
        .iter()
        .map(|path| {
            Ok(orcs::viz::html::ReportInput {
                path: path.clone(),
                doc: read_result(path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let page = orcs::viz::html::html_report(&inputs)?;
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
    let n = match communicator_size(hosts, plan.commsize) {
        Ok(n) => n,
        Err(e @ SizeError::TooFewHosts(_)) => bail!("{}: {e}", plan.input_file),
        Err(e) => bail!("-s/--{e}"),
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
fn open_target(output_file: &str, input_file: &str) -> Result<Target> {
    let path = output_file;
    if path == "-" {
        return Ok(Target::Stdout);
    }
    let same = |a: &str, b: &str| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if input_file != "-" && same(path, input_file) {
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
fn read_result(path: &str) -> Result<orcs::report::results::ResultDoc> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{path}'"))?;
    Ok(orcs::report::results::parse_result(&text, path)?)
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
    let ranks = ranks();
    // Only rank 0 prints; the others compute their share of the runs.
    let quiet = plan.quiet || !ranks.is_root();
    let mut loaded = load(&plan.input, quiet)?;
    if plan.metric == MetricKind::GetCableCong {
        // The congestion map rewrites the input graph, routing comments included.
        loaded.fill_comments();
    }
    let (fabric, table) = (&loaded.fabric, &loaded.table);
    let ctx = resolve_sizes(plan, fabric.num_hosts())?;
    let num_levels = plan.pattern.num_levels(&ctx);
    check_pattern_fits(plan, &ctx, num_levels)?;
    if !quiet {
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
    // Every rank must use rank 0's choice.
    let seed = plan.seed.unwrap_or_else(|| ranks.chosen_by_root(pick_seed));
    let layout = build_layout(
        fabric,
        LayoutSpec {
            commsize: ctx.commsize as usize,
            subset: plan.subset,
            part: plan.part_subset.map(|m| (m, ctx.part_commsize as usize)),
            ordering: read_ordering(plan.node_ordering_file.as_deref())?,
            shuffle: plan.shuffle,
        },
        seed,
        quiet,
        plan.verbose && ranks.is_root(),
    )?;
    if plan.verbose && ranks.is_root() {
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
    let sim = busy("checking routes", quiet, || {
        Simulation::new(
            fabric,
            table,
            &layout,
            &plan.pattern,
            config,
            loaded.routes.as_ref(),
        )
    })
    .map_err(|check| unrouted(&plan.input_file, fabric, &check))?;
    if !ranks.is_root() {
        ranks.run(&sim, plan.runs, &|_| {});
        return Ok(ExitCode::SUCCESS);
    }
    let mut target = open_target(&plan.output_file, &plan.input_file)?;
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
    let bar = progress_bar(plan.runs, quiet);
    let started = Instant::now();
    let outcome = ranks
        .run(&sim, plan.runs, &|done| bar.inc(done))
        .expect("rank 0 gathers the outcome");
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let empty_runs = outcome.pairs.iter().filter(|&&p| p == 0).count();
    if empty_runs as u64 == plan.runs && plan.metric.needs_traffic() {
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
        let check = busy("counting all-pairs routes per link", quiet, || {
            check_routes(fabric, table, &all_hosts)
        });
        file.write_all(report::links_csv(fabric, &check.link_routes, links).as_bytes())?;
        file.flush()?;
    }
    if let Some((mut file, format)) = plot_out {
        let doc = orcs::report::results::parse_result(
            &report::json_report(&info, fabric, &outcome),
            &plan.output_file,
        )?;
        let mut docs = vec![&doc];
        docs.extend(compare.iter());
        match orcs::viz::plot::histogram(&docs, plan.metric) {
            Some(figure) => file.write_all(&orcs::viz::plot::render_plot(&figure, format)?)?,
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
    if !quiet {
        eprintln!("{}", summary_line(plan, &outcome, elapsed.as_secs_f64()));
    }
    Ok(ExitCode::SUCCESS)
}

/// Metrics that have nothing to report without traffic (spec §5.3).
/// Errors for a level that does not exist and for a pattern without any traffic.
fn check_pattern_fits(plan: &SimPlan, ctx: &PatternContext, num_levels: usize) -> Result<()> {
    if num_levels == 0 && plan.metric.needs_traffic() {
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
fn metric_text(metric: MetricKind, outcome: &orcs::engine::unit::SimOutcome) -> String {
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
fn summary_line(plan: &SimPlan, outcome: &orcs::engine::unit::SimOutcome, secs: f64) -> String {
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
