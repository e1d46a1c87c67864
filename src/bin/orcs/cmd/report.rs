//! `orcs report`: the HTML page of one or more JSON results.

use super::read_result;
use crate::cli::files::OUTPUT;
use crate::cli::report::ReportPlan;
use crate::output::write_whole;
use anyhow::Result;
use orcs::viz::html::{html_report, ReportInput};
use std::process::ExitCode;

/// Reads the results and writes the page.
pub fn run(plan: &ReportPlan) -> Result<ExitCode> {
    let inputs = plan
        .results
        .iter()
        .map(|path| {
            Ok(ReportInput {
                path: path.clone(),
                doc: read_result(path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let page = html_report(&inputs)?;
    write_whole(OUTPUT, &plan.output, page.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
