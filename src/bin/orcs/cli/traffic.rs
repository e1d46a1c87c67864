//! `orcs traffic`: one application's traffic placed and routed on a cluster.

use super::shared::{
    trace_flags_need_a_trace, FormatArg, LinksArg, MatrixArg, OutputArg, SeedArg, TraceTrafficArgs,
};
use super::values::{list_of, Format};
use anyhow::Result;
use clap::Args;
use orcs::cluster::paths::PathRouter;
use orcs::cluster::placement::Mapper;
use orcs::cluster::selection::Selector;

/// Flags of `orcs traffic`.
#[derive(Debug, Args)]
#[command(
    mut_arg("matrix", |a| a.help("The traffic matrix: a PFProf trace (.tar.gz or folder of per-rank JSON), CSV, Matrix Market, JSON, or a DUMPI trace (its .meta file).").required(true)),
    mut_arg("seed", |a| a.help("Seed of the random selector and router (default 0).").default_value("0")),
    mut_arg("links", |a| a.help("Also write every network link's bytes and flows per combination as CSV to FILE (switch-to-switch links, and host-to-host links of direct networks).")),
    mut_arg("format", |a| a.help("Output format: text (the table), json (one document) or csv (one row per combination)."))
)]
pub struct TrafficArgs {
    /// The cluster: PFSim GraphML (`typ` host/switch, host `capacity` = cores, edge `capacity`), or any fabric -i reads (dot, .orcsfab; its routing is ignored, `capacity` attributes are read).
    #[arg(verbatim_doc_comment, long = "cluster", value_name = "FILE")]
    pub cluster: String,
    #[command(flatten)]
    pub matrix: MatrixArg,
    #[command(flatten)]
    pub trace_traffic: TraceTrafficArgs,
    /// Node selection, a comma-separated list of: linear, random, topology-aware.
    #[arg(
        verbatim_doc_comment,
        long = "selector",
        value_name = "LIST",
        default_value = "linear"
    )]
    pub selector: String,
    /// Process placement, a comma-separated list of: block, cyclic, greedy (heaviest-talking ranks on the same host).
    #[arg(
        verbatim_doc_comment,
        long = "mapper",
        value_name = "LIST",
        default_value = "block"
    )]
    pub mapper: String,
    /// Routing over the minimal paths, a comma-separated list of: dmodk (classical, digit-wise), smodk, pfsim-dmodk (PFSim's single-modulus variant), greedy, greedy-max, random.
    #[arg(
        verbatim_doc_comment,
        long = "router",
        value_name = "LIST",
        default_value = "dmodk,greedy,greedy-max"
    )]
    pub router: String,
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub links: LinksArg,
    #[command(flatten)]
    pub format: FormatArg,
    #[command(flatten)]
    pub output: OutputArg,
}

/// A validated `orcs traffic` request.
#[derive(Debug)]
pub struct TrafficPlan {
    /// The cluster file.
    pub cluster: String,
    /// The traffic matrix file.
    pub matrix: String,
    /// What of a DUMPI trace counts.
    pub trace_options: orcs::trace::traffic::TrafficOptions,
    /// Node selections to try.
    pub selectors: Vec<Selector>,
    /// Process placements to try.
    pub mappers: Vec<Mapper>,
    /// Path routings to try.
    pub routers: Vec<PathRouter>,
    /// Seed of every combination.
    pub seed: u64,
    /// The per-link CSV file.
    pub links: Option<String>,
    /// The format of the table.
    pub format: Format,
    /// Where the table goes (`-`: standard output).
    pub output: String,
}

impl TrafficArgs {
    /// The validated request.
    pub fn into_plan(self) -> Result<TrafficPlan> {
        let matrix = self.matrix.matrix.expect("clap requires --matrix");
        trace_flags_need_a_trace(&self.trace_traffic, &matrix)?;
        Ok(TrafficPlan {
            trace_options: self.trace_traffic.options()?,
            selectors: list_of("--selector", &self.selector, &Selector::ALL)?,
            mappers: list_of("--mapper", &self.mapper, &Mapper::ALL)?,
            routers: list_of("--router", &self.router, &PathRouter::ALL)?,
            cluster: self.cluster,
            matrix,
            seed: self.seed.seed.unwrap_or(0),
            links: self.links.links,
            format: self.format.get()?,
            output: self.output.output.unwrap_or_else(|| "-".into()),
        })
    }
}
