//! The CSV table of `orcs queue`: one row per point with its parameters, its solution
//! (empty fields when saturated), per-centre results and the simulated latency. Times in
//! seconds.

use super::Context;
use crate::queueing::des::{DesResult, Estimate};
use crate::queueing::sweep::Point;
use crate::queueing::{Centre, QueueError, Solution};
use crate::report::csv_field;
use std::fmt::Write;

/// The header row: the columns of [`csv`].
fn header() -> String {
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
    out
}

/// One CSV row per point: parameters, the solution (empty when saturated), per-centre
/// utilisation, waiting and sojourn times, and the simulated latency when simulated.
pub fn csv(ctx: &Context, points: &[Point]) -> String {
    let mut out = header();
    for p in points {
        out.push_str(&row(ctx, p));
    }
    out
}

/// The row of one point.
fn row(ctx: &Context, p: &Point) -> String {
    let sys = &p.spec.system;
    let s = p.solution.as_ref().ok();
    let solved = |f: fn(&Solution) -> f64| opt(s.map(f));
    let saturated = match &p.solution {
        Err(QueueError::Saturated { centre, .. }) => centre.name(),
        _ => "",
    };
    let (saturation_rate, bottleneck) = p.saturation();
    let mut out = String::new();
    let _ = write!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        p.spec.series,
        csv_field(&ctx.grid.series[p.spec.series]),
        sys.clusters,
        sys.nodes_per_cluster,
        sys.total_nodes(),
        sys.rate,
        sys.message_size,
        saturated,
        sys.remote_probability(),
        solved(|s| s.lambda_eff),
        solved(|s| s.population),
        solved(|s| s.latency),
        solved(|s| s.waiting),
        solved(|s| s.transfer),
        saturation_rate,
        bottleneck.name()
    );
    let switches = sys.switches();
    for c in Centre::ALL {
        let r = s.map(|s| &s.centres[c.index()]);
        let _ = write!(
            out,
            ",{},{},{},{}",
            switches[c.index()],
            opt(r.map(|r| r.utilisation)),
            opt(r.map(|r| r.waiting)),
            opt(r.map(|r| r.sojourn))
        );
    }
    let sim = p.simulated.as_ref();
    let e =
        |f: fn(&DesResult) -> &Estimate, half: bool| {
            opt(sim.map(f).and_then(Estimate::measured).map(|e| {
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
    out
}

/// A number, or an empty field.
fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}
