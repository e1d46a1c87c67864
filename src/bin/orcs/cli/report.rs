//! `orcs report`: one HTML page of JSON results.

use super::shared::{OutputArg, ResultsArg};
use clap::Args;

/// Flags of `orcs report`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.help("The HTML file to write.").required(true)))]
pub struct ReportArgs {
    #[command(flatten)]
    pub results: ResultsArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// A validated `orcs report` request.
#[derive(Debug)]
pub struct ReportPlan {
    /// The results.
    pub results: Vec<String>,
    /// The page to write.
    pub output: String,
}

impl ReportArgs {
    /// The validated request.
    pub fn into_plan(self) -> ReportPlan {
        ReportPlan {
            results: self.results.results,
            output: self.output.required(),
        }
    }
}
