//! The text report of `orcs queue`: one point in detail (its parameters, networks,
//! per-centre results and the comparison with its simulation), or a table with one row
//! per point of a sweep.

use super::{bandwidth_text, time_text, us, Context};
use crate::queueing::des::{DesResult, Estimate, Theory};
use crate::queueing::hops::FabricHops;
use crate::queueing::sweep::{short_number, Point};
use crate::queueing::{rate_text, Architecture, Centre, QueueError, Solution, Sources, System};
use std::fmt::Write;

/// The text report: one point in detail, or a table with one row per point.
pub fn text(ctx: &Context, points: &[Point]) -> String {
    match points {
        [one] => detail_text(ctx, one),
        _ => table_text(ctx, points),
    }
}

/// "within" or "outside (k half widths)": whether `analytic` lies in the interval of `e`.
fn verdict(e: &Estimate, analytic: f64) -> String {
    if e.contains(analytic) {
        "within".to_string()
    } else {
        format!("outside ({:.1} half widths)", e.deviation(analytic))
    }
}

/// The word of the comparison table for `theory`.
fn theory_text(theory: Theory) -> &'static str {
    match theory {
        Theory::Exact => "exact",
        Theory::Approximate => "approx.",
    }
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

/// One point: its parameters, its networks, and its solution (or why it has none).
fn detail_text(ctx: &Context, point: &Point) -> String {
    let sys = &point.spec.system;
    let mut out = system_heading(sys);
    out.push_str(&network_table(ctx, point));
    let _ = writeln!(out);
    match &point.solution {
        Err(e) => {
            let _ = writeln!(out, "{e}");
        }
        Ok(s) => {
            out.push_str(&solution_text(sys, s));
            if let Some(sim) = &point.simulated {
                let _ = writeln!(out);
                out.push_str(&simulation_text(sys, s, sim));
            }
        }
    }
    out
}

/// The size, traffic and model choices of one point, and an empty line.
fn system_heading(sys: &System) -> String {
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
    out
}

/// The hardware and switch counts of the three networks, and where the counts come from.
fn network_table(ctx: &Context, point: &Point) -> String {
    let sys = &point.spec.system;
    let mut out = String::new();
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
    let switches = sys.switches();
    for centre in Centre::ALL {
        let net = sys.network(centre);
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
            switches[centre.index()],
            switch_source(point, centre)
        );
    }
    if let (Some(h), Some(path)) = (&point.fabric, ctx.fabric) {
        let _ = writeln!(out, "{}", fabric_text(h, path));
    }
    out
}

/// The solution of one point: P and λ_eff, the per-centre table, the latency and its
/// check by Little's law, and the saturation rate.
fn solution_text(sys: &System, s: &Solution) -> String {
    let mut out = String::new();
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
    match s.little_latency(sys.total_nodes()) {
        Some(little) => {
            let _ = writeln!(
                out,
                "messages in flight L = {:.6}; L/(N·λ_eff) = {:.3} µs",
                s.population,
                us(little)
            );
        }
        None => {
            let _ = writeln!(out, "no messages in flight: nothing is sent");
        }
    }
    let _ = writeln!(out, "{}", saturation_text(s));
    out
}

/// The rate at which the first centre saturates.
fn saturation_text(s: &Solution) -> String {
    if s.saturation_rate.is_finite() {
        format!(
            "the offered load saturates the {} at λ = {} messages/s per processor",
            s.bottleneck,
            rate_text(s.saturation_rate)
        )
    } else {
        "no centre carries traffic".to_string()
    }
}

/// The switch counts measured on the fabric at `path`.
fn fabric_text(h: &FabricHops, path: &str) -> String {
    format!(
        "switches measured on {path} (hosts in blocks of {}): {:.6} within a cluster, {:.6} between clusters = 2 × {:.6} at the ends (ECN1) + {:.6} between them (ICN2)",
        h.nodes_per_cluster, h.intra, h.inter, h.ecn1, h.icn2
    )
}

/// The comparison of a simulation with the analytical values of `sys`'s solution `s`.
fn simulation_text(sys: &System, s: &Solution, sim: &DesResult) -> String {
    let mut out = simulation_heading(sim);
    let c = &sim.config;
    let _ = writeln!(
        out,
        "quantity           analytic       simulated                       theory   agreement"
    );
    for r in &s.centres {
        let e = &sim.centres[r.centre.index()];
        let theory = Theory::of_times(sys.service, c.sources, Some(r.centre));
        let name = |what: &str| format!("{} {what}", r.centre);
        let rows = [
            (name("T (µs)"), r.sojourn, e.sojourn.as_ref(), theory, 1e6),
            (name("T_W (µs)"), r.waiting, e.waiting.as_ref(), theory, 1e6),
            (
                name("ρ"),
                r.utilisation,
                e.utilisation.as_ref(),
                Theory::of_utilisation(c.sources),
                1.0,
            ),
        ];
        for (name, analytic, e, theory, scale) in rows {
            comparison_row(&mut out, &name, analytic, e, theory, scale);
        }
    }
    let theory = Theory::of_times(sys.service, c.sources, None);
    let latency = sim.latency.measured();
    comparison_row(&mut out, "T_C (µs)", s.latency, latency, theory, 1e6);
    let waiting = sim.waiting.measured();
    comparison_row(&mut out, "T_W (µs)", s.waiting, waiting, theory, 1e6);
    if sys.sources == Sources::Blocking && c.sources == Sources::Blocking {
        let throughput = sim.throughput.measured();
        let approx = Theory::Approximate;
        comparison_row(
            &mut out,
            "λ_eff (1/s)",
            s.lambda_eff,
            throughput,
            approx,
            1.0,
        );
    }
    out
}

/// The settings of a simulation, on one line.
fn simulation_heading(sim: &DesResult) -> String {
    let c = &sim.config;
    format!(
        "simulation: {} replications of about {} messages after a {} % warm-up, seed {}, {} sources at {} = {:.6} messages/s; {} % confidence intervals\n",
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
    )
}

/// One row of the comparison: the analytical value, the simulated mean and interval (or
/// "–" without visits) and their agreement. Times (`scale` 1e6, µs) get 3 decimals,
/// utilisations and rates (`scale` 1) 6.
fn comparison_row(
    out: &mut String,
    name: &str,
    analytic: f64,
    e: Option<&Estimate>,
    theory: Theory,
    scale: f64,
) {
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
        "{name:<18} {:<14.digits$} {sim_text:<31} {:<8} {agreement}",
        analytic * scale,
        theory_text(theory)
    );
}

/// A sweep: the settings shared by its points, then one row per point.
fn table_text(ctx: &Context, points: &[Point]) -> String {
    let mut out = table_heading(ctx, &points[0].spec.system);
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
        out.push_str(&table_row(ctx, p, width));
    }
    out
}

/// The model choices and networks shared by the points of a sweep (those of `sys`, the
/// first point), on one line.
fn table_heading(ctx: &Context, sys: &System) -> String {
    format!(
        "{} centres, ECN1 {}, {} sources; networks: {}{}\n",
        sys.service.kendall(),
        sys.ecn1,
        sys.sources,
        ctx.scenario.hardware_label(),
        match ctx.fabric {
            Some(f) => format!("; switch counts measured on {f}"),
            None => String::new(),
        }
    )
}

/// One point of a sweep: its parameters, then its latency (and its simulation) or why it
/// has none; the series label is padded to `width`.
fn table_row(ctx: &Context, p: &Point, width: usize) -> String {
    let mut out = String::new();
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
                rate_text(*limit)
            );
        }
        Err(e) => {
            let _ = write!(out, " {e}");
        }
    }
    out.push('\n');
    out
}
