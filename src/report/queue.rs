//! The results of `orcs queue` as bytes: a readable text report (one point in detail, or
//! a table of a sweep), JSON and CSV. Times are µs in text, seconds in JSON and CSV.

use crate::queueing::des::{DesResult, Estimate};
use crate::queueing::hops::FabricHops;
use crate::queueing::sweep::{short_number, Grid, Point, Scenario};
use crate::queueing::{Architecture, Centre, QueueError, Service, Solution, Sources};
use serde::Serialize;
use std::fmt::Write;

/// Layout version of the JSON document.
pub const SCHEMA_VERSION: u32 = 1;

/// What the report describes besides the points.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The scenario the points come from.
    pub scenario: &'a Scenario,
    /// Its grid.
    pub grid: &'a Grid,
    /// The fabric the switch counts were measured on, if any.
    pub fabric: Option<&'a str>,
}

/// A time in the most readable unit: `50 µs`, `1.3 µs`, `130 ns`, `2.5 ms`.
pub fn time_text(seconds: f64) -> String {
    let (value, unit) = if seconds == 0.0 {
        (0.0, "s")
    } else if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    format!("{} {unit}", significant(value))
}

/// A bandwidth in the most readable decimal unit: `125 MB/s`, `24.24 GB/s`.
pub fn bandwidth_text(bytes_per_second: f64) -> String {
    let (value, unit) = if bytes_per_second >= 1e9 {
        (bytes_per_second / 1e9, "GB/s")
    } else if bytes_per_second >= 1e6 {
        (bytes_per_second / 1e6, "MB/s")
    } else if bytes_per_second >= 1e3 {
        (bytes_per_second / 1e3, "kB/s")
    } else {
        (bytes_per_second, "B/s")
    };
    format!("{} {unit}", significant(value))
}

/// Up to four significant digits, without trailing zeros.
fn significant(x: f64) -> String {
    let digits = if x.abs() >= 1000.0 {
        0
    } else if x.abs() >= 100.0 {
        1
    } else if x.abs() >= 10.0 {
        2
    } else {
        3
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn us(seconds: f64) -> f64 {
    seconds * 1e6
}

/// Where a network's switch count comes from.
fn switch_source(point: &Point, centre: Centre) -> &'static str {
    if point.fabric.is_some() {
        return "fabric";
    }
    match point.spec.system.network(centre).architecture {
        Architecture::NonBlocking => "fat tree",
        Architecture::Blocking => "linear array",
    }
}

/// The text report: one point in detail, or a table with one row per point.
pub fn text(ctx: &Context, points: &[Point]) -> String {
    match points {
        [one] => detail_text(ctx, one),
        _ => table_text(ctx, points),
    }
}

/// "within" or "outside (k half widths)", and whether the theory is exact there.
fn verdict(e: &Estimate, analytic: f64) -> String {
    if e.contains(analytic) {
        "within".to_string()
    } else {
        format!("outside ({:.1} half widths)", e.deviation(analytic))
    }
}

fn detail_text(ctx: &Context, point: &Point) -> String {
    let sys = &point.spec.system;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "C = {} clusters × N0 = {} processors (N = {}); λ = {} messages/s per processor; M = {} B",
        sys.clusters,
        sys.nodes_per_cluster,
        sys.total_nodes(),
        short_number(sys.rate),
        short_number(sys.message_size)
    );
    let _ = writeln!(
        out,
        "{} centres, ECN1 {}, {} sources",
        sys.service.kendall(),
        sys.ecn1,
        sys.sources
    );
    let _ = writeln!(out);
    let labels: Vec<String> = ctx.scenario.networks.iter().map(|n| n.label()).collect();
    let width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    let _ = writeln!(
        out,
        "network  {:<width$}  architecture  bandwidth   latency   ports  switch    switches h̄",
        "hardware"
    );
    for centre in Centre::ALL {
        let net = sys.network(centre);
        let h = sys.switches()[centre.index()];
        // The port count only matters to the closed-form switch counts.
        let ports = if point.fabric.is_some() {
            "–".to_string()
        } else {
            net.ports.to_string()
        };
        let _ = writeln!(
            out,
            "{:<8} {:<width$}  {:<13} {:<11} {:<9} {:>5}  {:<9} {:.6} ({})",
            centre.name(),
            labels[centre.index()],
            net.architecture.name(),
            bandwidth_text(net.bandwidth),
            time_text(net.latency),
            ports,
            time_text(net.switch_latency),
            h,
            switch_source(point, centre)
        );
    }
    if let (Some(h), Some(path)) = (&point.fabric, ctx.fabric) {
        let _ = writeln!(out, "{}", fabric_text(h, path));
    }
    let _ = writeln!(out);
    match &point.solution {
        Err(e) => {
            let _ = writeln!(out, "{e}");
        }
        Ok(s) => {
            let _ = writeln!(
                out,
                "P = {:.6} (a message leaves its cluster); λ_eff = {:.6} messages/s per processor{}",
                s.remote_probability,
                s.lambda_eff,
                match sys.sources {
                    Sources::Blocking => format!(" (fixed point, {} iterations)", s.iterations),
                    Sources::Open => " (open: no correction)".to_string(),
                }
            );
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "centre  queues  arrivals/s    S (µs)         ρ   T_W (µs)   T_B (µs)     T (µs)          L"
            );
            for r in &s.centres {
                let _ = writeln!(
                    out,
                    "{:<6} {:>7} {:>11.4} {:>9.3} {:>9.6} {:>10.3} {:>10.3} {:>10.3} {:>10.6}",
                    r.centre.name(),
                    r.copies,
                    r.arrival_rate,
                    us(r.service),
                    r.utilisation,
                    us(r.waiting),
                    us(r.transfer),
                    us(r.sojourn),
                    r.population
                );
            }
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "mean message latency T_C = {:.3} µs = {:.3} µs waiting (T_W) + {:.3} µs transfer (T_B)",
                us(s.latency),
                us(s.waiting),
                us(s.transfer)
            );
            if s.lambda_eff > 0.0 {
                let _ = writeln!(
                    out,
                    "messages in flight L = {:.6}; L/(N·λ_eff) = {:.3} µs",
                    s.population,
                    us(s.population / (sys.total_nodes() as f64 * s.lambda_eff))
                );
            } else {
                let _ = writeln!(out, "no messages in flight: nothing is sent");
            }
            let _ = writeln!(out, "{}", saturation_text(s));
            if let Some(sim) = &point.simulated {
                let _ = writeln!(out);
                out.push_str(&simulation_text(sys.service, sys.sources, s, sim));
            }
        }
    }
    out
}

fn saturation_text(s: &Solution) -> String {
    if s.saturation_rate.is_finite() {
        format!(
            "the offered load saturates the {} at λ = {} messages/s per processor",
            s.bottleneck,
            crate::queueing::rate_text(s.saturation_rate)
        )
    } else {
        "no centre carries traffic".to_string()
    }
}

fn fabric_text(h: &FabricHops, path: &str) -> String {
    format!(
        "switches measured on {path} (hosts in blocks of {}): {:.6} within a cluster, {:.6} between clusters = 2 × {:.6} at the ends (ECN1) + {:.6} between them (ICN2)",
        h.nodes_per_cluster, h.intra, h.inter, h.ecn1, h.icn2
    )
}

/// The comparison of a simulation with the analytical values.
fn simulation_text(service: Service, model: Sources, s: &Solution, sim: &DesResult) -> String {
    let mut out = String::new();
    let c = &sim.config;
    let _ = writeln!(
        out,
        "simulation: {} replications of about {} messages after a {} % warm-up, seed {}, {} sources at {} = {:.6} messages/s; {} % confidence intervals",
        c.replications,
        c.messages,
        short_number(c.warmup * 100.0),
        c.seed,
        c.sources,
        match c.sources {
            Sources::Open => "λ_eff",
            Sources::Blocking => "λ",
        },
        sim.rate,
        short_number(c.confidence * 100.0)
    );
    let open = c.sources == Sources::Open;
    let exact_at = |centre: Option<Centre>| -> &'static str {
        let exact = open && (service == Service::Exponential || centre == Some(Centre::Icn1));
        if exact {
            "exact"
        } else {
            "approx."
        }
    };
    let _ = writeln!(
        out,
        "quantity           analytic       simulated                       theory   agreement"
    );
    // Times in µs with 3 decimals, utilisations and rates with 6.
    let mut row = |name: String, analytic: f64, e: Option<&Estimate>, theory: &str, scale: f64| {
        let digits = if scale == 1.0 { 6 } else { 3 };
        let (sim_text, agreement) = match e {
            Some(e) => (
                format!(
                    "{:.digits$} ± {:.digits$}",
                    e.mean * scale,
                    e.half_width * scale
                ),
                verdict(e, analytic),
            ),
            None => ("–".to_string(), "no visits".to_string()),
        };
        let _ = writeln!(
            out,
            "{name:<18} {:<14.digits$} {sim_text:<31} {theory:<8} {agreement}",
            analytic * scale
        );
    };
    for r in &s.centres {
        let e = &sim.centres[r.centre.index()];
        let theory = exact_at(Some(r.centre));
        row(
            format!("{} T (µs)", r.centre),
            r.sojourn,
            e.sojourn.as_ref(),
            theory,
            1e6,
        );
        row(
            format!("{} T_W (µs)", r.centre),
            r.waiting,
            e.waiting.as_ref(),
            theory,
            1e6,
        );
        row(
            format!("{} ρ", r.centre),
            r.utilisation,
            e.utilisation.as_ref(),
            if open { "exact" } else { "approx." },
            1.0,
        );
    }
    let theory = exact_at(None);
    let valid = |e: &Estimate| (!e.mean.is_nan()).then_some(*e);
    row(
        "T_C (µs)".to_string(),
        s.latency,
        valid(&sim.latency).as_ref(),
        theory,
        1e6,
    );
    row(
        "T_W (µs)".to_string(),
        s.waiting,
        valid(&sim.waiting).as_ref(),
        theory,
        1e6,
    );
    if model == Sources::Blocking && !open {
        row(
            "λ_eff (1/s)".to_string(),
            s.lambda_eff,
            valid(&sim.throughput).as_ref(),
            "approx.",
            1.0,
        );
    }
    out
}

fn table_text(ctx: &Context, points: &[Point]) -> String {
    let mut out = String::new();
    let sys0 = &points[0].spec.system;
    let labels: Vec<String> = ctx.scenario.networks.iter().map(|n| n.label()).collect();
    let networks = if labels.iter().all(|l| *l == labels[0]) {
        labels[0].clone()
    } else {
        format!("ICN1 {}, ECN1 {}, ICN2 {}", labels[0], labels[1], labels[2])
    };
    let _ = writeln!(
        out,
        "{} centres, ECN1 {}, {} sources; networks: {networks}{}",
        sys0.service.kendall(),
        sys0.ecn1,
        sys0.sources,
        match ctx.fabric {
            Some(f) => format!("; switch counts measured on {f}"),
            None => String::new(),
        }
    );
    let width = ctx
        .grid
        .series
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let simulated = points.iter().any(|p| p.simulated.is_some());
    let confidence = points
        .iter()
        .find_map(|p| p.simulated.as_ref())
        .map_or(0.99, |s| s.config.confidence);
    let _ = write!(
        out,
        "{:<width$} {:>6} {:>6} {:>10} {:>8} {:>11} {:>10} {:>10} {:>10}  busiest ρ",
        "series", "C", "N0", "λ (1/s)", "M (B)", "λ_eff (1/s)", "T_W (µs)", "T_B (µs)", "T_C (µs)",
    );
    if simulated {
        let _ = write!(
            out,
            "     {:>12} {:>12}  agreement",
            "sim T_C (µs)",
            format!("± {} % CI", short_number(confidence * 100.0))
        );
    }
    out.push('\n');
    for p in points {
        let sys = &p.spec.system;
        let label = &ctx.grid.series[p.spec.series];
        let pad = width - label.chars().count();
        let _ = write!(
            out,
            "{label}{:pad$} {:>6} {:>6} {:>10} {:>8}",
            "",
            sys.clusters,
            sys.nodes_per_cluster,
            short_number(sys.rate),
            short_number(sys.message_size),
        );
        match &p.solution {
            Ok(s) => {
                let (centre, rho) = s.busiest();
                let busiest = format!("{centre} {rho:.4}");
                let _ = write!(
                    out,
                    " {:>11.4} {:>10.3} {:>10.3} {:>10.3}  {busiest}",
                    s.lambda_eff,
                    us(s.waiting),
                    us(s.transfer),
                    us(s.latency),
                );
                if let Some(sim) = &p.simulated {
                    let e = &sim.latency;
                    // Keep the simulated columns aligned after the busiest centre.
                    let pad = 13usize.saturating_sub(busiest.chars().count());
                    let _ = write!(out, "{:pad$}", "");
                    let _ = write!(
                        out,
                        " {:>12.3} {:>12.3}  {}",
                        us(e.mean),
                        us(e.half_width),
                        verdict(e, s.latency)
                    );
                }
            }
            Err(QueueError::Saturated {
                centre,
                utilisation,
                limit,
                ..
            }) => {
                let _ = write!(
                    out,
                    " saturated: {centre} at ρ = {utilisation:.4} (it sustains λ < {}/s)",
                    crate::queueing::rate_text(*limit)
                );
            }
            Err(e) => {
                let _ = write!(out, " {e}");
            }
        }
        out.push('\n');
    }
    out
}

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
    fn of(e: &Estimate) -> Option<JsonEstimate> {
        (!e.mean.is_nan()).then_some(JsonEstimate {
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

fn json_point<'a>(ctx: &'a Context, p: &Point) -> JsonPoint<'a> {
    let sys = &p.spec.system;
    let s = p.solution.as_ref().ok();
    let setup = sys.setup();
    let (saturation_rate, bottleneck) = match s {
        Some(s) => (s.saturation_rate, s.bottleneck.name()),
        None => {
            let (i, best) = setup
                .iter()
                .enumerate()
                .map(|(i, c)| (i, c.rate_factor * c.service))
                .fold((2, 0.0), |a, b| if b.1 > a.1 { b } else { a });
            (1.0 / best, Centre::ALL[i].name())
        }
    };
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
        remote_probability: crate::queueing::remote_probability(
            sys.clusters,
            sys.nodes_per_cluster,
        ),
        lambda_eff: s.map(|s| s.lambda_eff),
        iterations: s.map(|s| s.iterations),
        population: s.map(|s| s.population),
        latency_s: s.map(|s| s.latency),
        waiting_s: s.map(|s| s.waiting),
        transfer_s: s.map(|s| s.transfer),
        saturation_rate,
        bottleneck,
        centres: s
            .map(|s| {
                s.centres
                    .iter()
                    .map(|r| JsonCentre {
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
                    })
                    .collect()
            })
            .unwrap_or_default(),
        simulated: p.simulated.as_ref().map(|d| JsonSimulation {
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
        }),
    }
}

/// One JSON document (schema [`SCHEMA_VERSION`]): the parameters, the series labels, and
/// per point its parameters, the solution (null fields when saturated, with `saturated`
/// naming the centre), per-centre results and the simulation if any.
pub fn json(ctx: &Context, points: &[Point]) -> String {
    let sys0 = points.first().map(|p| &p.spec.system);
    let networks = ctx.scenario.networks_with(None);
    let doc = JsonDoc {
        schema_version: SCHEMA_VERSION,
        orcs_version: env!("CARGO_PKG_VERSION"),
        parameters: JsonParameters {
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
        },
        series: &ctx.grid.series,
        points: points.iter().map(|p| json_point(ctx, p)).collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{e}"));
    s.push('\n');
    s
}

/// A CSV field, quoted when it holds a comma or a quote.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}

/// One CSV row per point: parameters, the solution (empty when saturated), per-centre
/// utilisation, waiting and sojourn times, and the simulated latency when simulated.
pub fn csv(ctx: &Context, points: &[Point]) -> String {
    let mut out = String::from(
        "series,label,clusters,nodes_per_cluster,total_nodes,rate,message_size,saturated,remote_probability,lambda_eff,population,latency_s,waiting_s,transfer_s,saturation_rate,bottleneck",
    );
    for c in Centre::ALL {
        let k = c.key();
        let _ = write!(
            out,
            ",{k}_switches,{k}_utilisation,{k}_waiting_s,{k}_sojourn_s"
        );
    }
    out.push_str(
        ",sim_latency_s,sim_latency_half_width_s,sim_throughput,sim_throughput_half_width\n",
    );
    for p in points {
        let j = json_point(ctx, p);
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            j.series,
            field(j.label),
            j.clusters,
            j.nodes_per_cluster,
            j.total_nodes,
            j.rate,
            j.message_size,
            j.saturated.as_ref().map_or("", |s| s.centre),
            j.remote_probability,
            opt(j.lambda_eff),
            opt(j.population),
            opt(j.latency_s),
            opt(j.waiting_s),
            opt(j.transfer_s),
            j.saturation_rate,
            j.bottleneck
        );
        for c in Centre::ALL {
            let r = j.centres.get(c.index());
            let _ = write!(
                out,
                ",{},{},{},{}",
                j.switches[c.index()],
                opt(r.map(|r| r.utilisation)),
                opt(r.map(|r| r.waiting_s)),
                opt(r.map(|r| r.sojourn_s))
            );
        }
        let sim = p.simulated.as_ref();
        let e = |f: fn(&DesResult) -> &Estimate, half: bool| {
            opt(sim.map(f).filter(|e| !e.mean.is_nan()).map(|e| {
                if half {
                    e.half_width
                } else {
                    e.mean
                }
            }))
        };
        let _ = writeln!(
            out,
            ",{},{},{},{}",
            e(|d| &d.latency, false),
            e(|d| &d.latency, true),
            e(|d| &d.throughput, false),
            e(|d| &d.throughput, true)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_well() {
        assert_eq!(time_text(50e-6), "50 µs");
        assert_eq!(time_text(1.3e-6), "1.3 µs");
        assert_eq!(time_text(130e-9), "130 ns");
        assert_eq!(time_text(2.5e-3), "2.5 ms");
        assert_eq!(bandwidth_text(125e6), "125 MB/s");
        assert_eq!(bandwidth_text(12.5e6), "12.5 MB/s");
        assert_eq!(bandwidth_text(200e9 / 8.0 * 64.0 / 66.0), "24.24 GB/s");
        assert_eq!(field("a, b"), "\"a, b\"");
    }
}
