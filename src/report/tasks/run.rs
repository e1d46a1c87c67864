//! `orcs tasks run`: one simulated point as text, JSON or CSV, and its per-link table.

use super::{rate, significant, time};
use crate::report::csv_field;
use crate::tasks::sim::Scheduler;
use crate::tasks::study::TaskRun;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Links the text report lists.
const TOP_LINKS: usize = 10;

/// The point as text: model, network, load, completion times, utilisation and the
/// busiest links. O(links log links).
pub fn run_text(out: &mut dyn Write, run: &TaskRun) -> io::Result<()> {
    let d = &run.description;
    let c = &run.config;
    let r = &run.result;
    let scheduler = match c.scheduler {
        Scheduler::Central => "node 0 schedules".to_string(),
        Scheduler::Stealing { retry } => {
            format!("work stealing, retry after {}", time(retry))
        }
    };
    writeln!(
        out,
        "Task trees {} on {}{}: N = {} nodes ({scheduler}), B = {}, P = {} flop/ns, latency {}",
        d.spec,
        run.network,
        run.placement
            .as_deref()
            .map(|p| format!(" (placement {p})"))
            .unwrap_or_default(),
        c.nodes,
        rate(c.bandwidth),
        significant(c.power),
        time(c.latency)
    )?;
    writeln!(
        out,
        "Load: β = {} root tasks/s, ρ_x = {}, ρ_c = {} (F_x = {}, F_c = {} bits)",
        significant(d.loads.arrival_rate),
        significant(d.loads.computation),
        significant(d.loads.communication),
        time(d.footprint.computation),
        significant(d.footprint.communication)
    )?;
    writeln!(
        out,
        "Measured: {} replications × {} root tasks after {} warm-up, seed {}",
        c.replications, c.roots, c.warmup, c.seed
    )?;
    match &r.completion {
        Some(e) => writeln!(
            out,
            "Completion time: mean {} ± {} ({} % confidence)",
            time(e.mean),
            time(e.half_width),
            significant(c.confidence * 100.0)
        )?,
        None => writeln!(out, "Completion time: mean {}", time(r.mean))?,
    }
    let percentiles: Vec<String> = r
        .percentiles
        .iter()
        .map(|&(q, v)| {
            let name = if q == 1.0 {
                "max".to_string()
            } else {
                format!("p{}", significant(q * 100.0))
            };
            format!("{name} {}", time(v))
        })
        .collect();
    writeln!(out, "  {}", percentiles.join(", "))?;
    let first = run.first_computing_node();
    let (busiest_node, busiest_use) = r.node_utilisation[first..]
        .iter()
        .enumerate()
        .map(|(i, &u)| (i + first, u))
        .fold(
            (0, f64::NEG_INFINITY),
            |best, x| if x.1 > best.1 { x } else { best },
        );
    writeln!(
        out,
        "Computing nodes busy: mean {}, busiest {} ({})",
        significant(run.computing_utilisation()),
        significant(busiest_use),
        run.node_names[busiest_node]
    )?;
    writeln!(out, "Busiest links (utilisation, link):")?;
    for (l, u) in run.busiest_links(TOP_LINKS) {
        writeln!(out, "  {:>7}  {}", format!("{u:.4}"), run.link_names[l])?;
    }
    writeln!(
        out,
        "Tasks executed: {}; messages measured: {}",
        r.tasks, r.messages
    )?;
    Ok(())
}

/// The point's fields for JSON (without the per-node and per-link arrays): what a scan
/// records of a task cell.
pub fn summary(run: &TaskRun) -> Value {
    let d = &run.description;
    let r = &run.result;
    let busiest = run.busiest_link();
    json!({
        "network": run.network,
        "placement": run.placement,
        "tree": d.spec.to_string(),
        "scheduler": run.config.scheduler.name(),
        "steal_retry_s": match run.config.scheduler {
            Scheduler::Stealing { retry } => Some(retry),
            Scheduler::Central => None,
        },
        "nodes": run.config.nodes,
        "bandwidth_bits_per_s": run.config.bandwidth,
        "power_flop_per_ns": run.config.power,
        "latency_s": run.config.latency,
        "loads": {
            "arrival_rate_per_s": d.loads.arrival_rate,
            "computation": d.loads.computation,
            "communication": d.loads.communication,
        },
        "footprint": {
            "computation_s": d.footprint.computation,
            "communication_bits": d.footprint.communication,
        },
        "completion_s": {
            "mean": r.mean,
            "mean_of_replications": r.completion.map(|e| e.mean),
            "half_width": r.completion.map(|e| e.half_width),
            "confidence": run.config.confidence,
            "percentiles": r.percentiles.iter().map(|&(q, v)| json!({"q": q, "s": v})).collect::<Vec<_>>(),
        },
        "computing_utilisation": run.computing_utilisation(),
        "busiest_link": busiest.map(|(l, u)| json!({"link": run.link_names[l], "utilisation": u})),
        "replications": run.config.replications,
        "roots": run.config.roots,
        "warmup": run.config.warmup,
        "seed": run.config.seed,
        "tasks": r.tasks,
        "messages": r.messages,
    })
}

/// The point as one JSON document, with every node's and every used link's
/// utilisation. O(nodes + links).
pub fn run_json(out: &mut dyn Write, run: &TaskRun) -> io::Result<()> {
    let mut doc = summary(run);
    let r = &run.result;
    doc["schema"] = json!(crate::report::SCHEMA_VERSION);
    doc["node_utilisation"] = run
        .node_names
        .iter()
        .zip(&r.node_utilisation)
        .map(|(n, u)| json!({"node": n, "utilisation": u}))
        .collect();
    doc["link_utilisation"] = run
        .link_names
        .iter()
        .zip(&r.link_utilisation)
        .filter(|(_, &u)| u > 0.0)
        .map(|(l, u)| json!({"link": l, "utilisation": u}))
        .collect();
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// The CSV header of a point's row.
pub(super) const CSV_HEADER: &str = "network,tree,scheduler,nodes,arrival_rate_per_s,rho_x,rho_c,\
mean_s,half_width_s,p50_s,p90_s,p95_s,p99_s,max_s,computing_utilisation,\
busiest_link,busiest_link_utilisation,tasks,messages";

/// The point as one CSV row (no header).
pub(super) fn csv_row(out: &mut dyn Write, run: &TaskRun) -> io::Result<()> {
    let d = &run.description;
    let r = &run.result;
    let p: Vec<String> = r.percentiles.iter().map(|(_, v)| v.to_string()).collect();
    let (link, use_) = match run.busiest_link() {
        Some((l, u)) => (run.link_names[l].clone(), u.to_string()),
        None => (String::new(), String::new()),
    };
    writeln!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        csv_field(&run.network),
        csv_field(&d.spec.to_string()),
        run.config.scheduler.name(),
        run.config.nodes,
        d.loads.arrival_rate,
        d.loads.computation,
        d.loads.communication,
        r.mean,
        r.completion
            .map_or(String::new(), |e| e.half_width.to_string()),
        p.join(","),
        run.computing_utilisation(),
        format_args!("{},{}", csv_field(&link), use_),
        r.tasks,
        r.messages
    )
}

/// The point as CSV: a header and one row. O(links).
pub fn run_csv(out: &mut dyn Write, run: &TaskRun) -> io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    csv_row(out, run)
}

/// Every link's utilisation and carried rate: `link,utilisation,bits_per_s` rows in
/// link order. O(links).
pub fn run_links_csv(out: &mut dyn Write, run: &TaskRun) -> io::Result<()> {
    writeln!(out, "link,utilisation,bits_per_s")?;
    for (l, u) in run.result.link_utilisation.iter().enumerate() {
        // The carried rate: utilisation × the link's bandwidth.
        let capacity = run.link_capacities.get(l).copied().unwrap_or(1.0);
        writeln!(
            out,
            "{},{},{}",
            csv_field(&run.link_names[l]),
            u,
            u * run.config.bandwidth * capacity
        )?;
    }
    Ok(())
}
