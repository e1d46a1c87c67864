//! `orcs scan`: run the plan's missing cells (each record appended whole and synced),
//! or merge results files; then the CSV summary.

use super::warn_all;
use crate::cli::files::{CSV, OUTPUT};
use crate::cli::scan::ScanPlan;
use crate::output::write_whole;
use crate::progress::{busy, progress_bar};
use anyhow::{bail, Result};
use orcs::engine::ranks::Ranks;
use orcs::report::scan::{dry_run_text, summary_csv};
use orcs::scan::read_plan;
use orcs::scan::run::{merge_files, ScanRun};
use std::io::{self, Write};
use std::process::ExitCode;

/// Runs, resumes or merges.
pub fn run(plan: &ScanPlan, ranks: Ranks) -> Result<ExitCode> {
    if !plan.merge.is_empty() {
        return merge_results(plan);
    }
    let plan_path = plan
        .plan
        .as_deref()
        .expect("validated: a plan without --merge");
    let mut scan = ScanRun::open(
        read_plan(plan_path)?,
        plan.shard,
        &plan.output,
        ranks,
        plan.memory,
    )?;
    // Under mpirun only rank 0 prints.
    let quiet = plan.quiet || !ranks.is_root();
    let inputs = match scan.plan().traffic.is_empty() {
        true => "loading the fabrics",
        false => "loading the fabrics and traffic files",
    };
    busy(inputs, quiet, || {
        scan.load_inputs(&mut |loaded| {
            if !quiet {
                warn_all(&loaded.warnings);
            }
        })
    })?;
    if plan.dry_run {
        if ranks.is_root() {
            let estimates = scan.dry_run();
            let text = dry_run_text(&scan, &estimates, rayon::current_num_threads());
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let bar = progress_bar(scan.num_pending() as u64 * scan.plan().runs, quiet);
    scan.execute(&|n| bar.inc(n))?;
    bar.finish_and_clear();
    let Some(merged) = scan.finish()? else {
        return Ok(ExitCode::SUCCESS);
    };
    let records = merged.values();
    let errors = records.iter().filter(|r| r.get("error").is_some()).count();
    write_whole(CSV, &plan.csv, summary_csv(&records).as_bytes())?;
    if !plan.quiet {
        eprintln!(
            "orcs: {} cells run, {} were done already; results in {}, summary in {}",
            scan.num_pending(),
            scan.num_cells() - scan.num_pending(),
            plan.output,
            plan.csv
        );
    }
    if errors > 0 {
        eprintln!("orcs: warning: {errors} cells could not run; their records carry the error");
    }
    Ok(ExitCode::SUCCESS)
}

/// `--merge`: the records of every file into the results file and its summary, each
/// record's line unchanged. Cells without a record are an error unless --allow-partial.
fn merge_results(plan: &ScanPlan) -> Result<ExitCode> {
    let files = merge_files(&plan.merge)?;
    for path in &files.cut_short {
        eprintln!(
            "orcs: warning: {path}: its last line is cut short (an interrupted scan); left out"
        );
    }
    for path in &files.absent {
        eprintln!("orcs: warning: {path}: no such file");
    }
    let merged = &files.merged;
    if let Err(missing) = merged.require_complete() {
        if !plan.allow_partial {
            bail!("{missing}; merge again once they are done, or pass --allow-partial to write the results without them");
        }
        eprintln!("orcs: warning: {missing}; written without them (--allow-partial)");
    }
    write_whole(OUTPUT, &plan.output, merged.text().as_bytes())?;
    write_whole(CSV, &plan.csv, summary_csv(&merged.values()).as_bytes())?;
    if !plan.quiet {
        eprintln!(
            "orcs: {} records from {} files into {} and {}",
            merged.records.len(),
            plan.merge.len(),
            plan.output,
            plan.csv
        );
    }
    Ok(ExitCode::SUCCESS)
}
