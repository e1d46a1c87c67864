//! `orcs convert`: load any input (or its cables, routed by an engine), check its routes,
//! write the requested format. Also writes `orcs gen`'s fabrics ([`write_fabric`]).

use super::{load, warn_all};
use crate::cli::convert::{ConvertPlan, Routing};
use crate::cli::files::OUTPUT;
use crate::cli::values::FabricFormat;
use crate::output::create;
use crate::progress::{busy, checking_routes, over_destinations};
use anyhow::{Context, Result};
use orcs::fabric::input::{load_cabling, InputSpec};
use orcs::fabric::{cache, write, LoadedFabric};
use orcs::report;
use orcs::routing::{route_fabric_with_progress, RouteSummary};
use std::io::Write;
use std::process::ExitCode;

/// Converts. The output is written even when some routes are broken (exit status 2
/// then), so the result can be inspected.
pub fn run(plan: &ConvertPlan) -> Result<ExitCode> {
    // Converting only rewrites the fabric: several next hops (--lmc-paths, or an
    // ambiguous dot) are kept in the output with a warning instead of stopping here.
    let input = InputSpec {
        orcs_compat: true,
        ..plan.input.clone()
    };
    let mut loaded = match &plan.routing {
        Some(routing) => reroute(&input, routing)?,
        None => load(&input, false)?,
    };
    write_fabric(&mut loaded, plan.format, &plan.output, &plan.input.path)
}

/// The fabric of `input`'s cables, routed by `routing`'s engine.
fn reroute(input: &InputSpec, routing: &Routing) -> Result<LoadedFabric> {
    let cabling = busy(&format!("loading {}", input.path), false, || {
        load_cabling(input)
    })?;
    warn_all(&cabling.warnings);
    let what = format!("routing with {}", routing.engine);
    let hosts = cabling.fabric.num_hosts();
    let table = over_destinations(&what, hosts, false, |progress| {
        route_fabric_with_progress(
            &cabling.fabric,
            &routing.engine,
            routing.roots.as_deref(),
            routing.seed,
            progress,
        )
    })
    .with_context(|| format!("cannot route {}", input.path))?;
    let mut fabric = cabling.fabric;
    // Routed under the dump's GUID names, the nodes now take their final names.
    fabric.node_names = cabling.names;
    fabric.graph_attrs.retain(|(key, _)| key != "comment");
    fabric.graph_attrs.push((
        "comment".to_string(),
        format!(
            "orcs convert -i {} --routing {}",
            input.path,
            routing.engine.to_ascii_lowercase()
        ),
    ));
    Ok(LoadedFabric::new(fabric, table))
}

/// Checks a routed fabric's routes, then writes it in `format` to `output` (`-`:
/// standard output): exit status 2 (output still written) when some pair is not routed.
pub fn write_fabric(
    loaded: &mut LoadedFabric,
    format: FabricFormat,
    output: &str,
    name: &str,
) -> Result<ExitCode> {
    // Create the file before the long check, so a bad path fails at once.
    let mut file = create(OUTPUT, output)?;
    let all_hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
    let check = checking_routes(
        "checking routes",
        &loaded.fabric,
        &loaded.table,
        &all_hosts,
        false,
    );
    loaded.routes = Some(RouteSummary::of(&check));
    if matches!(format, FabricFormat::Dot | FabricFormat::Graphml) {
        loaded.fill_comments();
    }
    let loaded = &*loaded;
    busy(&format!("writing {output}"), false, || -> Result<()> {
        let fabric = &loaded.fabric;
        let out: &mut dyn Write = &mut file;
        match format {
            FabricFormat::Dot => write::write_dot(out, fabric, &|_| Vec::new())?,
            FabricFormat::Orcsfab => cache::write_cache(out, loaded)?,
            FabricFormat::Net => write::write_ibsim_net(out, fabric)
                .with_context(|| format!("cannot write '{output}' as an ibsim net file"))?,
            FabricFormat::Graphml => write::write_graphml(out, fabric)?,
        }
        Ok(file.commit()?)
    })?;
    let fabric = &loaded.fabric;
    eprintln!(
        "orcs: {name}: {} hosts, {} switches, {} directed edges",
        fabric.num_hosts(),
        fabric.num_switches(),
        fabric.num_edges()
    );
    if check.all_routed() {
        eprintln!(
            "orcs: all {} ordered host pairs are routed",
            check.pairs_checked
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprint!("{}", report::check_text(name, fabric, &check));
        eprintln!(
            "orcs: the fabric was written, but {} host pairs are not routed",
            check.broken()
        );
        Ok(ExitCode::from(2))
    }
}
