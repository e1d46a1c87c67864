//! `orcs trace dump`: every rank file of a trace (or one) decoded and printed, one after
//! the other, streamed to the output. `orcs trace matrix`: the trace's traffic, written
//! in the format asked for.

use crate::cli::files::OUTPUT;
use crate::cli::trace::{DumpPlan, MatrixFormat, MatrixPlan, TracePlan};
use crate::output::create;
use anyhow::{bail, Result};
use orcs::report::trace::matrix::{write_csv, write_json, write_market, write_pfprof};
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::Trace;
use orcs::trace::traffic::{trace_traffic, Notes};
use std::path::Path;
use std::process::ExitCode;

/// Runs a trace request.
pub fn run(plan: &TracePlan) -> Result<ExitCode> {
    match plan {
        TracePlan::Dump(p) => dump(p),
        TracePlan::Matrix(p) => matrix(p),
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
            "note: {} messages to MPI_PROC_NULL left out",
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
