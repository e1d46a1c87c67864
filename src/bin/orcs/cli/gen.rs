//! `orcs gen`: a generated, routed topology.

use super::convert::{CHECK_THREADS_HELP, FABRIC_OUTPUT_HELP};
use super::shared::{MaxMemoryArg, OutputArg, RoutingArgs, SeedArg, ThreadsArg, ToArg};
use super::values::{fabric_format, FabricFormat};
use anyhow::Result;
use clap::Args;
use orcs::limits::MemoryLimit;

/// Flags of `orcs gen`.
#[derive(Debug, Args)]
#[command(
    mut_arg("seed", |a| a.help("Seed of the random routing engine.").default_value("0")),
    mut_arg("output", |a| a.help(FABRIC_OUTPUT_HELP).required(true)),
    mut_arg("threads", |a| a.help(CHECK_THREADS_HELP))
)]
pub struct GenArgs {
    /// The topology, e.g. kary-ntree:k=4,n=3, xgft:m=4x4,w=1x4, torus:dims=4x4x4, hypercube:d=6, hyperx:dims=4x4, dragonfly:a=4,p=2,h=2, jellyfish:switches=32,ports=8,hosts=4,seed=1, slimmed:leaf_hosts=16,leaves=8,uplinks=4 (the README lists every generator and key).
    #[arg(verbatim_doc_comment, value_name = "SPEC")]
    pub spec: String,
    #[command(flatten)]
    pub routing: RoutingArgs,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub output: OutputArg,
    #[command(flatten)]
    pub to: ToArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub max_memory: MaxMemoryArg,
}

/// A validated `orcs gen` request.
#[derive(Debug)]
pub struct GenPlan {
    /// The generator specification.
    pub spec: String,
    /// The routing engine (None: the generator's default).
    pub routing: Option<String>,
    /// Root switches for updn.
    pub roots: Option<Vec<String>>,
    /// Seed of the random routing engine.
    pub seed: u64,
    /// The file to write (`-`: standard output).
    pub output: String,
    /// Its format.
    pub format: FabricFormat,
    /// The memory the run may use.
    pub memory: MemoryLimit,
}

impl GenArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<GenPlan> {
        let output = self.output.required();
        Ok(GenPlan {
            format: fabric_format(&output, self.to.to.as_deref())?,
            spec: self.spec,
            roots: self.routing.root_names(),
            routing: self.routing.routing,
            seed: self.seed.seed.unwrap_or(0),
            output,
            memory: self.max_memory.get(),
        })
    }
}
