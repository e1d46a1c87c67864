//! `orcs trace dump`: every rank file of a trace (or one) decoded and printed, one after
//! the other, streamed to the output. `orcs trace stats`: the ranks summarised in
//! parallel, handed in rank order to the chosen format.

use crate::cli::files::OUTPUT;
use crate::cli::trace::{DumpPlan, StatsPlan, TracePlan};
use crate::cli::values::Format;
use crate::output::create;
use anyhow::{bail, Result};
use orcs::report::trace::{CsvStats, JsonStats, StatsWriter, TextStats};
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::Trace;
use orcs::trace::summary::{for_each_rank, RankSummary};
use std::path::Path;
use std::process::ExitCode;

/// Runs a trace request.
pub fn run(plan: &TracePlan) -> Result<ExitCode> {
    match plan {
        TracePlan::Dump(p) => dump(p),
        TracePlan::Stats(p) => stats(p),
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
