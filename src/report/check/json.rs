//! The JSON document of `orcs check`: the fabric's counts, the route check (broken
//! examples, path lengths, routes per link), and the `--routequal` and `--deadlock`
//! results when asked for.

use super::{fault_kind, mean_path_length, CheckReport, LinkRoutes};
use crate::report::json_text;
use serde::Serialize;

/// Layout version of the JSON document.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    input: &'a str,
    hosts: usize,
    switches: usize,
    edges: usize,
    pairs_checked: u64,
    routed: u64,
    dead_ends: u64,
    loops: u64,
    all_routed: bool,
    broken_examples: Vec<JsonBroken<'a>>,
    path_lengths: Vec<JsonPathLength>,
    mean_path_length: Option<f64>,
    link_routes: Option<JsonLinkRoutes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    routequal: Option<JsonQuality>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlock: Option<JsonDeadlock>,
}

#[derive(Serialize)]
struct JsonBroken<'a> {
    source: &'a str,
    destination: &'a str,
    fault: &'static str,
    description: String,
}

#[derive(Serialize)]
struct JsonPathLength {
    edges: usize,
    pairs: u64,
}

#[derive(Serialize)]
struct JsonLinkRoutes {
    links: usize,
    min: u64,
    mean: f64,
    max: u64,
    unused: usize,
}

#[derive(Serialize)]
struct JsonQuality {
    gmin: u64,
    gmax: u64,
    mean: f64,
    sigma: f64,
}

#[derive(Serialize)]
struct JsonDeadlock {
    channels: usize,
    dependencies: u64,
    deadlock_free: bool,
    cycle: Vec<String>,
}

/// One JSON document (schema [`SCHEMA_VERSION`]): counts, the check (at most
/// [`crate::routing::RouteCheck`]'s examples of broken pairs, the routed pairs per path
/// length, the spread of routes over the directed links), and `routequal` and
/// `deadlock` objects when `report` has them.
pub fn check_json(report: &CheckReport) -> String {
    let (fabric, check) = (report.fabric, report.check);
    let doc = JsonDoc {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        input: report.input,
        hosts: fabric.num_hosts(),
        switches: fabric.num_switches(),
        edges: fabric.num_edges(),
        pairs_checked: check.pairs_checked,
        routed: check.pairs_checked - check.broken(),
        dead_ends: check.dead_ends,
        loops: check.loops,
        all_routed: check.all_routed(),
        broken_examples: (check.examples.iter())
            .map(|b| JsonBroken {
                source: fabric.host_name(b.src),
                destination: fabric.host_name(b.dst),
                fault: fault_kind(&b.fault),
                description: b.describe(fabric).to_string(),
            })
            .collect(),
        path_lengths: (check.path_lengths.iter().enumerate())
            .filter(|(_, &pairs)| pairs > 0)
            .map(|(edges, &pairs)| JsonPathLength { edges, pairs })
            .collect(),
        mean_path_length: mean_path_length(&check.path_lengths),
        link_routes: LinkRoutes::of(&check.link_routes).map(|l| JsonLinkRoutes {
            links: l.links,
            min: l.min,
            mean: l.mean,
            max: l.max,
            unused: l.unused,
        }),
        routequal: report.quality.map(|q| JsonQuality {
            gmin: q.gmin,
            gmax: q.gmax,
            mean: q.mean,
            sigma: q.sigma,
        }),
        deadlock: report.deadlock.map(|d| JsonDeadlock {
            channels: d.channels,
            dependencies: d.dependencies,
            deadlock_free: d.cycle.is_none(),
            cycle: (d.cycle.iter().flatten())
                .map(|&c| fabric.edge_label(c).to_string())
                .collect(),
        }),
    };
    json_text(&doc)
}
