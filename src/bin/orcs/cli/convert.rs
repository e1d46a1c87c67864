//! `orcs convert`: a fabric in another format.

use super::shared::{InputArgs, OrcsCompatArg, OutputArg, ThreadsArg, ToArg};
use super::values::{fabric_format, FabricFormat};
use anyhow::Result;
use clap::Args;
use orcs::fabric::input::InputSpec;

/// The help of `-o` for commands that write a fabric.
pub const FABRIC_OUTPUT_HELP: &str = "Output file; its format follows the extension (.dot/.gv routed dot, .orcsfab binary cache, .net ibsim net, .graphml GraphML) unless --to is given (\"-\" writes dot to standard output).";

/// The help of `-j` for commands whose only parallel work is the route check.
pub const CHECK_THREADS_HELP: &str =
    "Number of worker threads for the route check (default: all cores).";

/// Flags of `orcs convert`.
#[derive(Debug, Args)]
#[command(
    mut_arg("output", |a| a.help(FABRIC_OUTPUT_HELP).required(true).visible_alias("output_file")),
    mut_arg("orcs_compat", |a| a.help("Behave like the original ORCS where it differs (ambiguous next hops in dot input take the first matching edge).")),
    mut_arg("threads", |a| a.help(CHECK_THREADS_HELP))
)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub to: ToArg,
    #[command(flatten)]
    pub orcs_compat: OrcsCompatArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

/// A validated conversion request.
#[derive(Debug)]
pub struct ConvertPlan {
    /// The fabric.
    pub input: InputSpec,
    /// The file to write (`-`: standard output).
    pub output: String,
    /// Its format.
    pub format: FabricFormat,
}

impl ConvertArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<ConvertPlan> {
        let output = self.output.required();
        let format = fabric_format(&output, self.to.to.as_deref())?;
        Ok(ConvertPlan {
            input: self.input.spec(self.orcs_compat.orcs_compat),
            output,
            format,
        })
    }
}
