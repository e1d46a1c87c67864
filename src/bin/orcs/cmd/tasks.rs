//! `orcs tasks describe`: a model's counts, footprints and loads. `orcs tasks run` and
//! `orcs tasks sweep`: the model simulated on a crossbar or on fabrics (each loaded and
//! placed once), point by point, with a progress bar over the measured root tasks.

use crate::cli::files::{LINKS, OUTPUT, PLOT};
use crate::cli::shared::PlacementPlan;
use crate::cli::tasks::{DescribePlan, NetworkPlan, SimulatePlan, TasksPlan};
use crate::cli::values::Format;
use crate::output::create;
use crate::progress::progress_bar_of;
use anyhow::{Context, Result};
use orcs::engine::ranks::Ranks;
use orcs::fabric::input::InputSpec;
use orcs::fabric::LoadedFabric;
use orcs::flow::RankRoutes;
use orcs::report::tasks;
use orcs::report::trace::matrix::{write_csv, write_json, write_market, write_pfprof};
use orcs::tasks::model::{CostSpec, Description, TreeSpec};
use orcs::tasks::sim::{
    check, replicate, result_of, Interconnect, Scheduler, SimConfig, TaskModel,
};
use orcs::tasks::study::{TaskRun, TaskSweep};
use orcs::tasks::{LoadTarget, Machine};
use orcs::viz::draw::render_chart;
use orcs::viz::tasks_plot;
use rayon::prelude::*;
use std::io::Write as _;
use std::process::ExitCode;

/// Nodes on the crossbar when --nodes is not given.
const DEFAULT_NODES: u32 = 100;

/// Runs a task-model request; `run` and `sweep` share their replications over the ranks
/// of `mpirun`.
pub fn run(plan: &TasksPlan, ranks: Ranks) -> Result<ExitCode> {
    match plan {
        TasksPlan::Describe(p) => describe(p),
        TasksPlan::Run(p) => run_point(p, ranks),
        TasksPlan::Sweep(p) => sweep(p, ranks),
    }
}

fn machine(nodes: u32, bandwidth: f64, power: f64, scheduler: Scheduler) -> Machine {
    Machine {
        nodes,
        power,
        bandwidth,
        scheduler: scheduler.kind(),
    }
}

fn describe(plan: &DescribePlan) -> Result<ExitCode> {
    let m = &plan.machine;
    let tree = &plan.model.trees[0];
    // Only random trees are drawn, `samples` times: big ones take minutes.
    let draws = match tree {
        TreeSpec::Preferential { .. } => u64::from(plan.model.samples.max(2)),
        TreeSpec::Layered(_) => 0,
    };
    let bar = progress_bar_of(draws, "trees", draws == 0);
    bar.set_message("counting random trees");
    let d = Description::new(
        tree,
        &plan.model.costs[0],
        plan.model.counts,
        machine(
            m.nodes.unwrap_or(DEFAULT_NODES),
            m.bandwidth,
            m.power,
            m.schedulers[0],
        ),
        plan.load,
        plan.model.samples,
        plan.seed,
        &|n| bar.inc(n),
    )?;
    bar.finish_and_clear();
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    match plan.format {
        Format::Json => tasks::describe_json(&mut out, &d)?,
        _ => tasks::describe_text(&mut out, &d)?,
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// A network ready to simulate on: its nodes' hosts and the names of its links.
struct Placed {
    name: String,
    placement: Option<String>,
    nodes: u32,
    node_names: Vec<String>,
    link_names: Vec<String>,
    capacities: Vec<f64>,
    fabric: Option<(LoadedFabric, Vec<u32>)>,
}

impl Placed {
    fn interconnect(&self) -> Interconnect<'_> {
        match &self.fabric {
            None => Interconnect::Crossbar,
            Some((loaded, hosts)) => Interconnect::Fabric(
                RankRoutes::new(&loaded.fabric, &loaded.table, hosts)
                    .with_capacities(&self.capacities),
            ),
        }
    }
}

/// Loads and places `network`: every host (or --nodes of them) on a fabric; warns
/// unless `quiet`.
fn place(network: &NetworkPlan, plan: &SimulatePlan, seed: u64, quiet: bool) -> Result<Placed> {
    match network {
        NetworkPlan::Crossbar => {
            let nodes = plan.machine.nodes.unwrap_or(DEFAULT_NODES);
            Ok(Placed {
                name: "crossbar".to_string(),
                placement: None,
                nodes,
                node_names: (0..nodes).map(|i| format!("node{i}")).collect(),
                link_names: (0..nodes)
                    .flat_map(|i| [format!("node{i} up"), format!("node{i} down")])
                    .collect(),
                capacities: vec![1.0; 2 * nodes as usize],
                fabric: None,
            })
        }
        NetworkPlan::Fabric(path) => {
            let loaded = super::load(
                &InputSpec {
                    path: path.clone(),
                    ..InputSpec::default()
                },
                quiet,
            )?;
            let nodes = match plan.machine.nodes {
                Some(n) => n,
                None => u32::try_from(loaded.fabric.num_hosts())
                    .with_context(|| format!("{path}: too many hosts"))?,
            };
            let placement = PlacementPlan {
                input: InputSpec {
                    path: path.clone(),
                    ..InputSpec::default()
                },
                method: plan.placement,
                per_host: 1,
            };
            let (hosts, about) = super::place(
                &placement,
                Some(seed),
                &loaded,
                nodes as usize,
                "the task model's nodes",
            )?;
            let capacities = loaded.fabric.edge_capacities(path)?;
            let link_names = (0..loaded.fabric.num_edges() as u32)
                .map(|e| loaded.fabric.edge_label(e).to_string())
                .collect();
            Ok(Placed {
                name: path.clone(),
                placement: Some(about.placement),
                nodes,
                node_names: about.hosts,
                link_names,
                capacities,
                fabric: Some((loaded, hosts)),
            })
        }
    }
}

/// One point to simulate.
struct Point<'a> {
    scheduler: Scheduler,
    tree: &'a TreeSpec,
    costs: &'a CostSpec,
    load: LoadTarget,
}

/// Simulates every tree × load on `placed`, each point reporting its measured roots to
/// `progress`. The replications of all points are shared over `ranks` and computed in
/// parallel; rank 0 returns the runs, the other ranks None.
fn simulate_on(
    placed: &Placed,
    points: &[Point<'_>],
    plan: &SimulatePlan,
    seed: u64,
    ranks: Ranks,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<TaskRun>>> {
    let s = &plan.simulation;
    let interconnect = placed.interconnect();
    // Every rank describes every point: the description fixes the point's arrival rate.
    let prepared: Vec<(Description, TaskModel, SimConfig)> = points
        .par_iter()
        .map(|point| {
            let description = Description::new(
                point.tree,
                point.costs,
                plan.model.counts,
                machine(
                    placed.nodes,
                    plan.machine.bandwidth,
                    plan.machine.power,
                    point.scheduler,
                ),
                point.load,
                plan.model.samples,
                seed,
                &|_| {},
            )?;
            let model = TaskModel {
                tree: point.tree.tree_model()?,
                costs: description.costs,
                times: s.times,
            };
            let config = SimConfig {
                scheduler: point.scheduler,
                nodes: placed.nodes,
                power: plan.machine.power,
                bandwidth: plan.machine.bandwidth,
                latency: s.latency,
                arrival_rate: description.loads.arrival_rate,
                roots: s.roots,
                warmup: s.warmup,
                replications: s.replications,
                seed,
                confidence: s.confidence,
                record_traffic: plan.matrix_out.is_some(),
            };
            check(&interconnect, &config)?;
            Ok((description, model, config))
        })
        .collect::<Result<_>>()?;
    // Job j is replication j mod R of point j div R.
    let per_point = u64::from(s.replications);
    let replications = ranks.run_replications(points.len() as u64 * per_point, |jobs| {
        jobs.into_par_iter()
            .map(|j| {
                let (_, model, config) = &prepared[(j / per_point) as usize];
                replicate(
                    model,
                    &interconnect,
                    config,
                    (j % per_point) as u32,
                    progress,
                )
            })
            .collect()
    });
    let Some(replications) = replications else {
        return Ok(None);
    };
    let mut replications = replications.into_iter();
    let runs = prepared
        .into_iter()
        .map(|(description, _, config)| {
            let mine = replications.by_ref().take(per_point as usize).collect();
            TaskRun {
                description,
                network: placed.name.clone(),
                placement: placed.placement.clone(),
                node_names: placed.node_names.clone(),
                link_names: placed.link_names.clone(),
                link_capacities: placed.capacities.clone(),
                result: result_of(mine, &interconnect, &config),
                config,
            }
        })
        .collect();
    Ok(Some(runs))
}

/// Simulates every network × scheduler × tree × costs × load of `plan`, networks in
/// turn; rank 0 returns the runs, the other ranks of `mpirun` None after doing their
/// share.
fn simulate_all(plan: &SimulatePlan, ranks: Ranks) -> Result<Option<Vec<TaskRun>>> {
    // Every rank must use rank 0's choice.
    let seed = plan
        .seed
        .unwrap_or_else(|| ranks.chosen_by_root(super::pick_seed));
    let mut points: Vec<Point<'_>> = Vec::new();
    for &scheduler in &plan.machine.schedulers {
        for tree in &plan.model.trees {
            for costs in &plan.model.costs {
                for &load in &plan.loads {
                    points.push(Point {
                        scheduler,
                        tree,
                        costs,
                        load,
                    });
                }
            }
        }
    }
    let s = &plan.simulation;
    let total = (plan.networks.len() * points.len()) as u64 * s.roots * u64::from(s.replications);
    // Only rank 0 shows progress and warnings.
    let quiet = !ranks.is_root();
    let bar = progress_bar_of(total, "root tasks", quiet);
    let mut runs = Vec::new();
    for network in &plan.networks {
        let placed = place(network, plan, seed, quiet)?;
        let done = simulate_on(&placed, &points, plan, seed, ranks, &|done| bar.inc(done))?;
        runs.extend(done.into_iter().flatten());
    }
    bar.finish_and_clear();
    Ok(ranks.is_root().then_some(runs))
}

fn run_point(plan: &SimulatePlan, ranks: Ranks) -> Result<ExitCode> {
    if !ranks.is_root() {
        simulate_all(plan, ranks)?;
        return Ok(ExitCode::SUCCESS);
    }
    // Outputs first, so that a bad path fails before the work.
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    let mut links = plan
        .links
        .as_deref()
        .map(|p| create(LINKS, p))
        .transpose()?;
    let mut matrix = plan
        .matrix_out
        .as_deref()
        .map(|p| create("--matrix-out", p))
        .transpose()?;
    let run = (simulate_all(plan, ranks)?)
        .expect("rank 0 gathers the runs")
        .remove(0);
    if let (Some(file), Some(path)) = (&mut matrix, &plan.matrix_out) {
        let traffic = run.traffic().expect("recorded when --matrix-out is given");
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".mtx") {
            write_market(file, &traffic)?;
        } else if lower.ends_with(".json") {
            write_json(file, &traffic)?;
        } else if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            write_pfprof(file, &traffic)?;
        } else {
            write_csv(file, &traffic)?;
        }
    }
    if let Some(file) = &mut links {
        tasks::run_links_csv(file, &run)?;
    }
    match plan.format {
        Format::Text => tasks::run_text(&mut out, &run)?,
        Format::Json => tasks::run_json(&mut out, &run)?,
        Format::Csv => tasks::run_csv(&mut out, &run)?,
    }
    for file in [matrix, links].into_iter().flatten() {
        file.commit()?;
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn sweep(plan: &SimulatePlan, ranks: Ranks) -> Result<ExitCode> {
    if !ranks.is_root() {
        simulate_all(plan, ranks)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    let mut plot = plan
        .plot
        .as_ref()
        .map(|request| Ok::<_, anyhow::Error>((create(PLOT, &request.path)?, request)))
        .transpose()?;
    let sweep = TaskSweep {
        points: simulate_all(plan, ranks)?.expect("rank 0 gathers the runs"),
    };
    if let Some((file, request)) = &mut plot {
        let mut figure = tasks_plot::completion_plot(&sweep);
        file.write_all(&render_chart(&mut figure, request.format, &request.style)?)?;
    }
    match plan.format {
        Format::Text => tasks::sweep_text(&mut out, &sweep)?,
        Format::Json => tasks::sweep_json(&mut out, &sweep)?,
        Format::Csv => tasks::sweep_csv(&mut out, &sweep)?,
    }
    if let Some((file, _)) = plot {
        file.commit()?;
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
