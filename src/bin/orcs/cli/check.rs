//! `orcs check`: verify a fabric's routes.

use super::files::OUTPUT;
use super::shared::{FormatArg, InputArgs, OrcsCompatArg, OutputArg, RoutequalArg, ThreadsArg};
use super::values::Format;
use anyhow::Result;
use clap::Args;
use orcs::fabric::input::InputSpec;

/// Flags of `orcs check`.
#[derive(Debug, Args)]
#[command(
    mut_arg("routequal", |a| a.help("Also print ORCS's --routequal figures (all-to-all load on inner links).")),
    mut_arg("orcs_compat", |a| a.help("Behave like the original ORCS where it differs (ambiguous next hops take the first matching edge instead of failing).")),
    mut_arg("format", |a| a.help("Output format: text (the report), json (one document) or csv (one row per figure: section,item,value)."))
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Also build the channel dependency graph and report whether the routing is deadlock-free on one virtual lane (with a cycle if not).
    #[arg(verbatim_doc_comment, long = "deadlock")]
    pub deadlock: bool,
    #[command(flatten)]
    pub routequal: RoutequalArg,
    #[command(flatten)]
    pub orcs_compat: OrcsCompatArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// A validated check request (also `--checkinputfile` and `--routequal` of a simulation).
#[derive(Debug)]
pub struct CheckPlan {
    /// The fabric.
    pub input: InputSpec,
    /// Add ORCS's route quality figures.
    pub routequal: bool,
    /// Add the deadlock analysis.
    pub deadlock: bool,
    /// The report's format.
    pub format: Format,
    /// Where the report goes (`-`: standard output), and the flag that named it.
    pub output: (&'static str, String),
}

impl CheckArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<CheckPlan> {
        Ok(CheckPlan {
            input: self.input.spec(self.orcs_compat.orcs_compat),
            routequal: self.routequal.routequal,
            deadlock: self.deadlock,
            format: self.format.get()?,
            output: (OUTPUT, self.output.output.unwrap_or_else(|| "-".into())),
        })
    }
}
