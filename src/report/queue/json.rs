//! The JSON document of `orcs queue`: the parameters, the series labels, and every point
//! with its parameters, solution, per-centre results and simulation. Times in seconds.

use super::Context;
use crate::queueing::des::{DesResult, Estimate};
use crate::queueing::sweep::Point;
use crate::queueing::{Centre, CentreResult, QueueError};
use serde::Serialize;

/// Layout version of the JSON document.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema_version: u32,
    orcs_version: &'static str,
    parameters: JsonParameters<'a>,
    series: &'a [String],
    points: Vec<JsonPoint<'a>>,
}

#[derive(Serialize)]
struct JsonParameters<'a> {
    service: &'static str,
    ecn1: &'static str,
    sources: &'static str,
    axis: Option<&'static str>,
    fabric: Option<&'a str>,
    networks: Vec<JsonNetwork>,
}

#[derive(Serialize)]
struct JsonNetwork {
    network: &'static str,
    label: String,
    bandwidth_bytes_per_s: f64,
    latency_s: f64,
    switch_latency_s: f64,
    ports: u32,
    architecture: &'static str,
}

#[derive(Serialize)]
struct JsonPoint<'a> {
    series: usize,
    label: &'a str,
    x: f64,
    clusters: u32,
    nodes_per_cluster: u32,
    total_nodes: u64,
    rate: f64,
    message_size: f64,
    architectures: [&'static str; 3],
    switches: [f64; 3],
    fabric_switches: Option<JsonFabric>,
    saturated: Option<JsonSaturated>,
    remote_probability: f64,
    lambda_eff: Option<f64>,
    iterations: Option<u32>,
    population: Option<f64>,
    latency_s: Option<f64>,
    waiting_s: Option<f64>,
    transfer_s: Option<f64>,
    saturation_rate: f64,
    bottleneck: &'static str,
    centres: Vec<JsonCentre>,
    simulated: Option<JsonSimulation>,
}

#[derive(Serialize)]
struct JsonFabric {
    intra: f64,
    inter: f64,
    ecn1: f64,
    icn2: f64,
}

#[derive(Serialize)]
struct JsonSaturated {
    centre: &'static str,
    utilisation: f64,
    limit_rate: f64,
}

#[derive(Serialize)]
struct JsonCentre {
    centre: &'static str,
    copies: u32,
    endpoints: u32,
    switches: f64,
    arrival_rate: f64,
    service_s: f64,
    utilisation: f64,
    waiting_s: f64,
    transfer_s: f64,
    sojourn_s: f64,
    population: f64,
}

#[derive(Serialize)]
struct JsonEstimate {
    mean: f64,
    half_width: f64,
}

impl JsonEstimate {
    /// The estimate, or `None` (null) when nothing was measured.
    fn of(e: &Estimate) -> Option<JsonEstimate> {
        e.measured().map(|e| JsonEstimate {
            mean: e.mean,
            half_width: e.half_width,
        })
    }
}

#[derive(Serialize)]
struct JsonSimulation {
    sources: &'static str,
    rate: f64,
    replications: u32,
    messages_per_replication: u64,
    warmup: f64,
    seed: u64,
    confidence: f64,
    messages: u64,
    events: u64,
    latency_s: Option<JsonEstimate>,
    waiting_s: Option<JsonEstimate>,
    transfer_s: Option<JsonEstimate>,
    throughput: Option<JsonEstimate>,
    centres: Vec<JsonSimCentre>,
}

#[derive(Serialize)]
struct JsonSimCentre {
    centre: &'static str,
    visits: u64,
    sojourn_s: Option<JsonEstimate>,
    waiting_s: Option<JsonEstimate>,
    utilisation: Option<JsonEstimate>,
}

/// One JSON document (schema [`SCHEMA_VERSION`]): the parameters, the series labels, and
/// per point its parameters, the solution (null fields when saturated, with `saturated`
/// naming the centre), per-centre results and the simulation if any.
pub fn json(ctx: &Context, points: &[Point]) -> String {
    let doc = JsonDoc {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: json_parameters(ctx, points),
        series: &ctx.grid.series,
        points: points.iter().map(|p| json_point(ctx, p)).collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}

/// The settings shared by the points: model choices, the axis, the fabric, the networks.
fn json_parameters<'a>(ctx: &Context<'a>, points: &[Point]) -> JsonParameters<'a> {
    let sys0 = points.first().map(|p| &p.spec.system);
    let networks = ctx.scenario.networks_with(None);
    JsonParameters {
        service: sys0.map_or(ctx.scenario.service, |s| s.service).name(),
        ecn1: ctx.scenario.ecn1.name(),
        sources: ctx.scenario.sources.name(),
        axis: ctx.grid.axis.map(|a| a.name()),
        fabric: ctx.fabric,
        networks: Centre::ALL
            .iter()
            .map(|&c| {
                let n = &networks[c.index()];
                JsonNetwork {
                    network: c.name(),
                    label: ctx.scenario.networks[c.index()].label(),
                    bandwidth_bytes_per_s: n.bandwidth,
                    latency_s: n.latency,
                    switch_latency_s: n.switch_latency,
                    ports: n.ports,
                    architecture: n.architecture.name(),
                }
            })
            .collect(),
    }
}

/// One point: its parameters, its solution (`None` fields when saturated) and its
/// simulation.
fn json_point<'a>(ctx: &Context<'a>, p: &Point) -> JsonPoint<'a> {
    let sys = &p.spec.system;
    let s = p.solution.as_ref().ok();
    let (saturation_rate, bottleneck) = p.saturation();
    JsonPoint {
        series: p.spec.series,
        label: &ctx.grid.series[p.spec.series],
        x: p.spec.x,
        clusters: sys.clusters,
        nodes_per_cluster: sys.nodes_per_cluster,
        total_nodes: sys.total_nodes(),
        rate: sys.rate,
        message_size: sys.message_size,
        architectures: sys.networks.map(|n| n.architecture.name()),
        switches: sys.switches(),
        fabric_switches: p.fabric.map(|h| JsonFabric {
            intra: h.intra,
            inter: h.inter,
            ecn1: h.ecn1,
            icn2: h.icn2,
        }),
        saturated: match &p.solution {
            Err(QueueError::Saturated {
                centre,
                utilisation,
                limit,
                ..
            }) => Some(JsonSaturated {
                centre: centre.name(),
                utilisation: *utilisation,
                limit_rate: *limit,
            }),
            _ => None,
        },
        remote_probability: sys.remote_probability(),
        lambda_eff: s.map(|s| s.lambda_eff),
        iterations: s.map(|s| s.iterations),
        population: s.map(|s| s.population),
        latency_s: s.map(|s| s.latency),
        waiting_s: s.map(|s| s.waiting),
        transfer_s: s.map(|s| s.transfer),
        saturation_rate,
        bottleneck: bottleneck.name(),
        centres: s
            .map(|s| s.centres.iter().map(json_centre).collect())
            .unwrap_or_default(),
        simulated: p.simulated.as_ref().map(json_simulation),
    }
}

/// The analytical results of one centre.
fn json_centre(r: &CentreResult) -> JsonCentre {
    JsonCentre {
        centre: r.centre.name(),
        copies: r.copies,
        endpoints: r.endpoints,
        switches: r.switches,
        arrival_rate: r.arrival_rate,
        service_s: r.service,
        utilisation: r.utilisation,
        waiting_s: r.waiting,
        transfer_s: r.transfer,
        sojourn_s: r.sojourn,
        population: r.population,
    }
}

/// A simulation: its settings, its end-to-end estimates and those of every centre.
fn json_simulation(d: &DesResult) -> JsonSimulation {
    JsonSimulation {
        sources: d.config.sources.name(),
        rate: d.rate,
        replications: d.config.replications,
        messages_per_replication: d.config.messages,
        warmup: d.config.warmup,
        seed: d.config.seed,
        confidence: d.config.confidence,
        messages: d.messages,
        events: d.events,
        latency_s: JsonEstimate::of(&d.latency),
        waiting_s: JsonEstimate::of(&d.waiting),
        transfer_s: JsonEstimate::of(&d.transfer),
        throughput: JsonEstimate::of(&d.throughput),
        centres: d
            .centres
            .iter()
            .map(|c| JsonSimCentre {
                centre: c.centre.name(),
                visits: c.visits,
                sojourn_s: c.sojourn.as_ref().and_then(JsonEstimate::of),
                waiting_s: c.waiting.as_ref().and_then(JsonEstimate::of),
                utilisation: c.utilisation.as_ref().and_then(JsonEstimate::of),
            })
            .collect(),
    }
}
