//! One file per command: its validated plan → library calls → exporters → the output
//! writer ([`crate::output`]). This file dispatches and holds what several commands share.

mod check;
mod convert;
mod gen;
mod jobs;
mod map;
mod matrix;
mod plot;
mod profile;
mod queue;
mod report;
mod scan;
mod sim;
mod tasks;
mod trace;
mod traffic;

use crate::cli::shared::PlacementPlan;
use crate::cli::Request;
use crate::progress::busy;
use anyhow::{Context, Result};
use orcs::engine::ranks::Ranks;
use orcs::engine::stream::{stream_rng, Stream};
use orcs::engine::unit::SimulationError;
use orcs::fabric::input::{load_input, InputSpec};
use orcs::fabric::{Fabric, LoadedFabric};
use orcs::report::results::ResultDoc;
use orcs::routing::check_routes;
use orcs::routing::RouteCheck;
use orcs::trace::replay::FabricUse;
use orcs::workload::mapping::{place_ranks, RankLayout, SubsetMethod};
use std::process::ExitCode;

/// Runs `request` on this rank.
pub fn run(request: Request, ranks: Ranks) -> Result<ExitCode> {
    match request {
        Request::Check(plan) => check::run(&plan),
        Request::NumLevels(plan) => sim::num_levels(&plan),
        Request::Simulate(plan) => sim::run(&plan, ranks),
        Request::PatternHelp(usage) => {
            println!("{usage}");
            Ok(ExitCode::SUCCESS)
        }
        Request::Matrix(plan) => matrix::run(&plan, ranks),
        Request::Convert(plan) => convert::run(&plan),
        Request::Gen(plan) => gen::run(&plan),
        Request::Map(plan) => map::run(&plan),
        Request::Plot(plan) => plot::run(&plan),
        Request::Report(plan) => report::run(&plan),
        Request::Traffic(plan) => traffic::run(&plan),
        Request::Jobs(plan) => jobs::run(&plan),
        Request::Scan(plan) => scan::run(&plan, ranks),
        Request::Queue(plan) => queue::run(&plan),
        Request::Trace(plan) => trace::run(&plan, ranks),
        Request::Tasks(plan) => tasks::run(&plan, ranks),
        Request::Profile(plan) => profile::run(&plan),
        Request::Print(bytes) => {
            crate::output::write_whole("standard output", "-", &bytes)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Loads a fabric with a spinner, and shows its warnings unless `quiet`.
fn load(input: &InputSpec, quiet: bool) -> Result<LoadedFabric> {
    let loaded = busy(&format!("loading {}", input.path), quiet, || {
        load_input(input)
    })?;
    if !quiet {
        warn_all(&loaded.warnings);
    }
    Ok(loaded)
}

/// Prints warnings on standard error.
fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("orcs: warning: {w}");
    }
}

/// `-v`: the hosts chosen for the ranks, on standard error.
fn show_hosts(fabric: &Fabric, layout: &RankLayout) {
    let names: Vec<&str> = (layout.hosts().iter())
        .map(|&h| fabric.host_name(h))
        .collect();
    eprintln!(
        "orcs: NAMELIST ({} hosts, {} fixed by the node ordering file): {}",
        names.len(),
        layout.num_fixed(),
        names.join(",")
    );
}

/// A fresh seed, printed even with -q: without it the run cannot be reproduced.
fn pick_seed() -> u64 {
    let seed = rand::random::<u64>();
    eprintln!("orcs: using --seed {seed}");
    seed
}

/// The error for a communicator with broken routes: the count and the first examples.
fn unrouted(input_file: &str, fabric: &Fabric, check: &RouteCheck) -> anyhow::Error {
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

/// A simulation that cannot be built: its broken routes, or the memory it would need.
fn simulation_error(input_file: &str, fabric: &Fabric, e: SimulationError) -> anyhow::Error {
    match e {
        SimulationError::Unrouted(check) => unrouted(input_file, fabric, &check),
        SimulationError::Memory(e) => e.into(),
    }
}

/// Places `ranks` ranks on `loaded` as `placement` says and checks the routes between
/// their hosts: each rank's host, and how the output describes them.
pub(crate) fn place(
    placement: &PlacementPlan,
    seed: Option<u64>,
    loaded: &LoadedFabric,
    ranks: usize,
    what: &str,
) -> Result<(Vec<u32>, FabricUse)> {
    let fabric = &loaded.fabric;
    let path = &placement.input.path;
    let mut described = placement.method.to_string();
    let seed = match (placement.method, seed) {
        (SubsetMethod::Rand, None) => pick_seed(),
        (_, seed) => seed.unwrap_or(0),
    };
    if placement.method == SubsetMethod::Rand {
        described.push_str(&format!(", seed {seed}"));
    }
    if placement.per_host > 1 {
        described.push_str(&format!(", {} ranks per host", placement.per_host));
    }
    let mut rng = stream_rng(seed, Stream::Subset);
    let hosts = place_ranks(
        fabric,
        ranks,
        placement.per_host,
        placement.method,
        &mut rng,
    )
    .with_context(|| format!("cannot place {what} on {path}"))?;
    let mut distinct = hosts.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let check = check_routes(fabric, &loaded.table, &distinct);
    if check.broken() > 0 {
        return Err(unrouted(path, fabric, &check));
    }
    let about = FabricUse {
        fabric: path.clone(),
        placement: described,
        hosts: hosts
            .iter()
            .map(|&h| fabric.host_name(h).to_string())
            .collect(),
    };
    Ok((hosts, about))
}

/// Reads a result written with `--format json`.
fn read_result(path: &str) -> Result<ResultDoc> {
    let text = orcs::fabric::read_text(path)?;
    Ok(orcs::report::results::parse_result(&text, path)?)
}
