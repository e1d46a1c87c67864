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
use orcs::flow::RankRoutes;
use orcs::report::trace::classify;
use orcs::report::trace::matrix::{write_csv, write_json, write_market, write_pfprof};
use orcs::report::trace::stats::{CsvStats, JsonStats, StatsWriter, TextStats};
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::Trace;
use orcs::trace::replay::classify::{Rules, DEFAULT_RULES};
use orcs::trace::replay::{
    config, replay_trace, replay_trace_on, OnFabric, ReplayNotes, ReplayOptions,
};
use orcs::trace::summary::{for_each_rank, RankSummary};
use orcs::trace::traffic::{trace_traffic, Notes};
use orcs::viz::draw::render_chart;
use orcs::viz::replay_plot;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs a trace request.
pub fn run(plan: &TracePlan) -> Result<ExitCode> {
    match plan {
        TracePlan::Dump(p) => dump(p),
        TracePlan::Matrix(p) => matrix(p),
        TracePlan::Stats(p) => stats(p),
        TracePlan::Classify(p) => classify(p),
        TracePlan::Rules(p) => {
            let mut out = create(OUTPUT, p.output.as_deref().unwrap_or("-"))?;
            out.write_all(DEFAULT_RULES.as_bytes())?;
            out.commit()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn classify(plan: &ClassifyPlan) -> Result<ExitCode> {
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
    let options = ReplayOptions {
        configs,
        eager_limit: plan.eager_limit,
        algorithms: plan.algorithms.clone(),
        rules,
    };
    let trace = Trace::open(Path::new(&plan.trace))?;
    let fabric = match &plan.placement {
        Some(placement) => Some((placement, super::load(&placement.input, false)?)),
        None => None,
    };
    // Create the output files before the work, so that a bad path fails at once.
    let mut out = create(OUTPUT, plan.output.as_deref().unwrap_or("-"))?;
    let plot_out = match &plan.plot {
        Some(request) => Some((create(PLOT, &request.path)?, request)),
        None => None,
    };
    let replay = match &fabric {
        Some((placement, loaded)) => {
            let (hosts, about) = super::place(
                placement,
                plan.seed,
                loaded,
                trace.ranks.len(),
                "the trace's ranks",
            )?;
            let capacities = loaded.fabric.edge_capacities(&placement.input.path)?;
            let on = OnFabric {
                routes: RankRoutes::new(&loaded.fabric, &loaded.table, &hosts)
                    .with_capacities(&capacities),
                about,
            };
            let bar = progress_bar_of(options.configs.len() as u64, "configurations", false);
            let replay = replay_trace_on(&trace, &options, &on, &|done| bar.inc(done));
            bar.finish_and_clear();
            replay?
        }
        None => busy(&format!("replaying {}", plan.trace), false, || {
            replay_trace(&trace, &options)
        })?,
    };
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
