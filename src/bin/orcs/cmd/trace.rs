//! `orcs trace dump`: every rank file of a trace (or one) decoded and printed, one after
//! the other, streamed to the output. `orcs trace stats`: the ranks summarised in
//! parallel, handed in rank order to the chosen format. `orcs trace matrix`: the
//! trace's traffic, written in the format asked for. `orcs trace classify`: the trace
//! replayed on every configuration, classified, written as a table.

use crate::cli::files::{OUTPUT, PLOT};
use crate::cli::trace::{
    ClassifyPlan, DumpPlan, GridSpec, MatrixFormat, MatrixPlan, StatsPlan, TracePlan,
};
use crate::cli::values::Format;
use crate::output::create;
use crate::progress::{busy, progress_bar_of};
use anyhow::{bail, Context, Result};
use orcs::engine::ranks::Ranks;
use orcs::flow::RankRoutes;
use orcs::report::trace::classify;
use orcs::report::trace::matrix::{write_csv, write_json, write_market, write_pfprof};
use orcs::report::trace::stats::{CsvStats, JsonStats, StatsWriter, TextStats};
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::Trace;
use orcs::trace::replay::classify::{Rules, DEFAULT_RULES};
use orcs::trace::replay::{
    config, replay_trace_part, OnFabric, Replay, ReplayNotes, ReplayOptions,
};
use orcs::trace::summary::{for_each_rank, RankSummary};
use orcs::trace::traffic::{trace_traffic, Notes};
use orcs::viz::draw::render_chart;
use orcs::viz::replay_plot;
use orcs::workload::mapping::SubsetMethod;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs a trace request; `classify` shares its configurations over the ranks of
/// `mpirun`, the others run on rank 0.
pub fn run(plan: &TracePlan, ranks: Ranks) -> Result<ExitCode> {
    match plan {
        TracePlan::Dump(p) => dump(p),
        TracePlan::Matrix(p) => matrix(p),
        TracePlan::Stats(p) => stats(p),
        TracePlan::Classify(p) => classify(p, ranks),
        TracePlan::Rules(p) => {
            let mut out = create(OUTPUT, p.output.as_deref().unwrap_or("-"))?;
            out.write_all(DEFAULT_RULES.as_bytes())?;
            out.commit()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Replays the trace on every configuration and writes the table and the plot. Under
/// `mpirun` every rank replays a slice of the configurations and rank 0 alone writes
/// and prints, the bytes of one process.
fn classify(plan: &ClassifyPlan, ranks: Ranks) -> Result<ExitCode> {
    let quiet = !ranks.is_root();
    let options = replay_options(plan)?;
    let trace = Trace::open(Path::new(&plan.trace))?;
    let fabric = match &plan.placement {
        Some(placement) => Some((placement, super::load(&placement.input, quiet)?)),
        None => None,
    };
    // Every rank must place the ranks as rank 0 does.
    let seed = match (&plan.placement, plan.seed) {
        (Some(placement), None) if placement.method == SubsetMethod::Rand => {
            Some(ranks.chosen_by_root(super::pick_seed))
        }
        (_, seed) => seed,
    };
    // Rank 0 creates the output files before the work, so that a bad path fails at once.
    let outputs = if ranks.is_root() {
        let out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
        let plot_out = match &plan.plot {
            Some(request) => Some((create(PLOT, &request.path)?, request)),
            None => None,
        };
        Some((out, plot_out))
    } else {
        None
    };
    let placed = match &fabric {
        Some((placement, loaded)) => Some((
            super::place(
                placement,
                seed,
                loaded,
                trace.ranks.len(),
                "the trace's ranks",
            )?,
            loaded.fabric.edge_capacities(&placement.input.path)?,
        )),
        None => None,
    };
    let on = match (&fabric, &placed) {
        (Some((_, loaded)), Some(((hosts, about), capacities))) => Some(OnFabric {
            routes: RankRoutes::new(&loaded.fabric, &loaded.table, hosts)
                .with_capacities(capacities),
            about: about.clone(),
        }),
        _ => None,
    };
    let part = ranks.run_replay(options.configs.len(), |mine| match &on {
        Some(on) => {
            let bar = progress_bar_of(mine.len() as u64, "configurations", quiet);
            let part = replay_trace_part(&trace, &options, Some(on), mine, &|done| bar.inc(done));
            bar.finish_and_clear();
            part
        }
        None => busy(&format!("replaying {}", plan.trace), quiet, || {
            replay_trace_part(&trace, &options, None, mine, &|_| {})
        }),
    })?;
    let (Some(part), Some((mut out, plot_out))) = (part, outputs) else {
        return Ok(ExitCode::SUCCESS);
    };
    let replay = Replay::new(trace.ranks.len() as u32, &options, on.as_ref(), part);
    if let Some((mut file, request)) = plot_out {
        let mut figure = replay_plot::replay_plot(&plan.trace, &replay);
        file.write_all(&render_chart(&mut figure, request.format, &request.style)?)?;
        file.commit()?;
    }
    match plan.format {
        Format::Text => classify::write_text(&mut out, &plan.trace, &replay)?,
        Format::Json => classify::write_json(&mut out, &plan.trace, &replay)?,
        Format::Csv => classify::write_csv(&mut out, &replay)?,
    }
    out.commit()?;
    warn_replay_notes(&replay.notes);
    Ok(ExitCode::SUCCESS)
}

/// The configurations, rules and replay settings of `plan`, their files read.
fn replay_options(plan: &ClassifyPlan) -> Result<ReplayOptions> {
    let read =
        |path: &str| orcs::fabric::read_text(path).with_context(|| format!("cannot read '{path}'"));
    let configs = match &plan.grid {
        GridSpec::Default => config::default_grid(),
        GridSpec::Product {
            latencies,
            bandwidths,
        } => config::product(latencies, bandwidths).context("--latency, --bandwidth")?,
        GridSpec::File(path) => config::parse_grid(path, &read(path)?)?,
    };
    let rules = match &plan.rules {
        Some(path) => Rules::parse(path, &read(path)?)?,
        None => Rules::default(),
    };
    Ok(ReplayOptions {
        configs,
        eager_limit: plan.eager_limit,
        algorithms: plan.algorithms.clone(),
        rules,
    })
}

/// Tells on standard error what was replayed with care or left out.
fn warn_replay_notes(notes: &ReplayNotes) {
    warn_notes(&Notes {
        unsized_messages: notes.unsized_messages,
        null_peer_messages: notes.null_peer_messages,
        intercomm_collectives: notes.intercomm_collectives,
    });
    if notes.rendezvous_buffered > 0 {
        eprintln!(
            "note: {} rendezvous sends completed as if buffered: every rank was waiting, and the traced run did not deadlock",
            notes.rendezvous_buffered
        );
    }
    if notes.unreceived_messages > 0 {
        eprintln!(
            "warning: {} messages were sent and never received",
            notes.unreceived_messages
        );
    }
    if notes.rendezvous_unposted > 0 {
        eprintln!(
            "warning: {} rendezvous messages were larger than the receive that took them, or synchronous where the footers count no synchronous send: their transfers start when they match, not when the receive was posted",
            notes.rendezvous_unposted
        );
    }
}

fn matrix(plan: &MatrixPlan) -> Result<ExitCode> {
    let trace = Trace::open(Path::new(&plan.trace))?;
    let traffic = trace_traffic(&trace, &plan.options)?;
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    match plan.format {
        MatrixFormat::Csv => write_csv(&mut out, &traffic)?,
        MatrixFormat::Market => write_market(&mut out, &traffic)?,
        MatrixFormat::Json => write_json(&mut out, &traffic)?,
        MatrixFormat::Pfprof => write_pfprof(&mut out, &traffic)?,
    }
    out.commit()?;
    warn_notes(&traffic.notes);
    Ok(ExitCode::SUCCESS)
}

/// Tells on standard error what was counted with care or left out.
fn warn_notes(notes: &Notes) {
    if notes.unsized_messages > 0 {
        eprintln!(
            "warning: {} messages or collective calls use datatypes of unknown size; they count as 0 bytes",
            notes.unsized_messages
        );
    }
    if notes.null_peer_messages > 0 {
        eprintln!(
            "note: {} messages to or from MPI_PROC_NULL left out",
            notes.null_peer_messages
        );
    }
    if notes.intercomm_collectives > 0 {
        eprintln!(
            "warning: {} collective calls on intercommunicators left out (the remote group's order is not in the trace)",
            notes.intercomm_collectives
        );
    }
}

fn stats(plan: &StatsPlan) -> Result<ExitCode> {
    let trace = Trace::open(Path::new(&plan.trace))?;
    let files = selected(&trace, plan.rank)?;
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    let mut writer: Box<dyn StatsWriter> = match plan.format {
        Format::Text => Box::new(TextStats::new(&plan.trace)),
        Format::Json => Box::new(JsonStats::new(&plan.trace)),
        Format::Csv => Box::new(CsvStats::new()),
    };
    writer.begin(&mut out)?;
    let mut total = RankSummary::default();
    for_each_rank::<anyhow::Error>(&trace, files, |k, summary| {
        writer.rank(&mut out, trace.first_rank + k as u32, &summary)?;
        total.merge(&summary);
        Ok(())
    })?;
    writer.finish(&mut out, &total)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn dump(plan: &DumpPlan) -> Result<ExitCode> {
    let trace = Trace::open(Path::new(&plan.trace))?;
    let ranks = selected(&trace, plan.rank)?;
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    for k in ranks {
        let file = trace.rank_file(k)?;
        dump_rank(&file, &mut out)?;
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The indices of the rank files to print.
fn selected(trace: &Trace, rank: Option<u32>) -> Result<std::ops::Range<usize>> {
    let n = trace.ranks.len();
    let Some(rank) = rank else { return Ok(0..n) };
    let first = trace.first_rank;
    let last = first as u64 + n as u64 - 1;
    if rank < first || u64::from(rank) > last {
        if n == 1 {
            bail!(
                "--rank {rank}: {} holds rank {first} only",
                trace.ranks[0].display()
            );
        }
        bail!("--rank {rank}: the trace has ranks {first} to {last}");
    }
    let k = (rank - first) as usize;
    Ok(k..k + 1)
}
