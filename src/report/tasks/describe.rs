//! `orcs tasks describe`: a model's trees, counts, costs, footprints and loads.

use super::{rate, significant, size, time};
use crate::tasks::model::{CountSource, Description, TreeSpec};
use crate::tasks::SchedulerKind;
use serde_json::json;
use std::io::{self, Write};

/// The description as aligned text. O(1).
pub fn describe_text(out: &mut dyn Write, d: &Description) -> io::Result<()> {
    let c = &d.counts;
    match &d.spec {
        TreeSpec::Layered(_) => writeln!(out, "Task trees: layered, {}", d.spec)?,
        TreeSpec::Preferential { .. } => writeln!(
            out,
            "Task trees: preferential attachment, {} (generator: mean ± standard error of {} trees)",
            d.spec, c.samples
        )?,
    }
    let random = matches!(d.spec, TreeSpec::Preferential { .. });
    let with_error = |value: f64, error: f64| {
        if random {
            format!("{} ± {}", significant(value), significant(error))
        } else {
            significant(value)
        }
    };
    writeln!(out, "  {:<34} {:>16} {:>12}", "", "generator", "LWSim")?;
    writeln!(
        out,
        "  {:<34} {:>16} {:>12}",
        "tasks n",
        significant(c.generator.tasks),
        significant(c.lwsim.tasks)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16} {:>12}",
        "leaves L",
        with_error(c.generator.leaves, c.standard_errors.0),
        significant(c.lwsim.leaves)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16} {:>12}",
        "delegating tasks d (≥ 2 children)",
        with_error(c.generator.delegating, c.standard_errors.1),
        significant(c.lwsim.delegating)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16}",
        "tasks with one child",
        significant(c.single_child)
    )?;
    writeln!(out, "  {:<34} {:>16}", "depth", significant(c.depth))?;
    writeln!(
        out,
        "  footprints use the {} counts",
        match d.source {
            CountSource::Generator => "generator's",
            CountSource::Lwsim => "LWSim",
        }
    )?;
    let k = &d.costs;
    writeln!(
        out,
        "Costs per task: t_i {}, t_a {}, s_s {}, s_r {}, control messages ε {}",
        time(k.init),
        time(k.aggregate),
        size(k.schedule_bits),
        size(k.result_bits),
        size(k.control_bits)
    )?;
    let f = &d.footprint;
    writeln!(out, "Footprints of one root task:")?;
    writeln!(
        out,
        "  {:<34} {:>16}",
        "F_x computation",
        time(f.computation)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16}   ({} bits)",
        "F_c communication",
        size(f.communication),
        significant(f.communication)
    )?;
    writeln!(out, "  {:<34} {:>16}", "F = F_c / F_x", rate(f.intensity()))?;
    let m = &d.machine;
    writeln!(
        out,
        "Machine: N = {} nodes ({} computing, {}), B = {} per node, P = {} flop/ns",
        m.nodes,
        m.computing_nodes(),
        match m.scheduler {
            SchedulerKind::Central => "one central scheduler",
            SchedulerKind::Stealing => "work stealing",
        },
        rate(m.bandwidth),
        significant(m.power)
    )?;
    let l = &d.loads;
    writeln!(out, "Loads:")?;
    writeln!(
        out,
        "  {:<34} {:>16}",
        "β root tasks per second",
        significant(l.arrival_rate)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16}",
        "ρ_x computation load",
        significant(l.computation)
    )?;
    writeln!(
        out,
        "  {:<34} {:>16}",
        "ρ_c communication load",
        significant(l.communication)
    )?;
    writeln!(out, "  {:<34} {:>16}", "ζ = ρ_x / ρ_c", significant(l.zeta))?;
    writeln!(out, "  {:<34} {:>16}", "F = B / ζ", rate(l.f))?;
    writeln!(out, "  {:<34} {:>16}", "ξ = ζ / P", significant(l.xi))?;
    Ok(())
}

/// The description as one JSON document (SI units: seconds, bits, bits/s). O(1).
pub fn describe_json(out: &mut dyn Write, d: &Description) -> io::Result<()> {
    let counts = |c: &crate::tasks::TreeCounts| json!({"tasks": c.tasks, "leaves": c.leaves, "delegating": c.delegating});
    let c = &d.counts;
    let doc = json!({
        "schema": crate::report::SCHEMA_VERSION,
        "tree": d.spec.to_string(),
        "counts": {
            "generator": counts(&c.generator),
            "standard_errors": {"leaves": c.standard_errors.0, "delegating": c.standard_errors.1},
            "samples": c.samples,
            "single_child": c.single_child,
            "depth": c.depth,
            "lwsim": counts(&c.lwsim),
            "used": match d.source { CountSource::Generator => "generator", CountSource::Lwsim => "lwsim" },
        },
        "costs": {
            "init_s": d.costs.init,
            "aggregate_s": d.costs.aggregate,
            "schedule_bits": d.costs.schedule_bits,
            "result_bits": d.costs.result_bits,
            "control_bits": d.costs.control_bits,
        },
        "footprint": {
            "computation_s": d.footprint.computation,
            "communication_bits": d.footprint.communication,
            "intensity_bits_per_s": d.footprint.intensity(),
        },
        "machine": {
            "nodes": d.machine.nodes,
            "computing_nodes": d.machine.computing_nodes(),
            "bandwidth_bits_per_s": d.machine.bandwidth,
            "power_flop_per_ns": d.machine.power,
        },
        "loads": {
            "arrival_rate_per_s": d.loads.arrival_rate,
            "computation": d.loads.computation,
            "communication": d.loads.communication,
            "zeta": d.loads.zeta,
            "f_bits_per_s": d.loads.f,
            "xi": d.loads.xi,
        },
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
