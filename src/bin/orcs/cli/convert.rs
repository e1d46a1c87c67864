//! `orcs convert`: a fabric in another format.

use super::shared::{InputArgs, OrcsCompatArg, OutputArg, RoutingArgs, SeedArg, ThreadsArg, ToArg};
use super::values::{fabric_format, FabricFormat};
use anyhow::{bail, Result};
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
    mut_arg("threads", |a| a.help(CHECK_THREADS_HELP)),
    mut_arg("routing", |a| a.help("Route the fabric with this engine instead of reading its forwarding tables: minhop, updn, dnup, sssp (dfsssp) or random, as OpenSM's engines route it. The input is then a topology dump alone (ibnetdiscover, .lst or ibsim net, without --lft), or a dot file or fabric cache whose routes are replaced.")),
    mut_arg("seed", |a| a.help("Seed of the random routing engine.").default_value("0"))
)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub routing: RoutingArgs,
    #[command(flatten)]
    pub seed: SeedArg,
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
    /// The engine that routes the fabric, when its tables are computed rather than read.
    pub routing: Option<Routing>,
}

/// A routing engine asked for with `--routing`.
#[derive(Debug, Clone)]
pub struct Routing {
    /// The engine's name.
    pub engine: String,
    /// updn's root switches, by name.
    pub roots: Option<Vec<String>>,
    /// The random engine's seed.
    pub seed: u64,
}

impl ConvertArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<ConvertPlan> {
        let output = self.output.required();
        let format = fabric_format(&output, self.to.to.as_deref())?;
        let roots = self.routing.root_names();
        let routing = match self.routing.routing {
            Some(engine) => Some(Routing {
                engine,
                roots,
                seed: self.seed.seed.unwrap_or(0),
            }),
            None if roots.is_some() => bail!("--roots applies to --routing updn"),
            None => None,
        };
        Ok(ConvertPlan {
            input: self.input.spec(self.orcs_compat.orcs_compat),
            output,
            format,
            routing,
        })
    }
}
