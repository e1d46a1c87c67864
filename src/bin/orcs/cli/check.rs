//! `orcs check`: verify a fabric's routes.

use super::shared::{InputArgs, OrcsCompatArg, RoutequalArg, ThreadsArg};
use clap::Args;
use orcs::fabric::input::InputSpec;

/// Flags of `orcs check`.
#[derive(Debug, Args)]
#[command(
    mut_arg("routequal", |a| a.help("Also print ORCS's --routequal figures (all-to-all load on inner links).")),
    mut_arg("orcs_compat", |a| a.help("Behave like the original ORCS where it differs (ambiguous next hops take the first matching edge instead of failing)."))
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
}

impl CheckArgs {
    /// The validated request.
    pub fn into_plan(self) -> CheckPlan {
        CheckPlan {
            input: self.input.spec(self.orcs_compat.orcs_compat),
            routequal: self.routequal.routequal,
            deadlock: self.deadlock,
        }
    }
}
