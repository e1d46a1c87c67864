//! `orcs trace dump`: every rank file of a trace (or one) decoded and printed, one after
//! the other, streamed to the output.

use crate::cli::files::OUTPUT;
use crate::cli::trace::{DumpPlan, TracePlan};
use crate::output::create;
use anyhow::{bail, Result};
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::Trace;
use std::path::Path;
use std::process::ExitCode;

/// Runs a trace request.
pub fn run(plan: &TracePlan) -> Result<ExitCode> {
    match plan {
        TracePlan::Dump(p) => dump(p),
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
