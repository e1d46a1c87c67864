//! Running one cell: the simulation `orcs -i` would run for it, and its record, a
//! result or the reason it cannot run (not yet sealed, see [`super::seal`]).

use super::tasks::simulate_task_cell;
use super::traffic::simulate_traffic_cell;
use super::{Cell, CellError, CellWorkload, LoadedTraffic, Plan};
use crate::engine::metric::{
    acc_band, acc_band_bins, hottest_edges, weight_counts, MetricKind, Summaries,
};
use crate::engine::request::{PrepareError, SimRequest};
use crate::engine::stream::STREAM_VERSION;
use crate::engine::unit::SimOutcome;
use crate::fabric::{Fabric, LoadedFabric};
use crate::limits::{LimitError, MemoryLimit};
use crate::workload::pattern::Pattern;
use serde_json::Value;

/// Most congested links a get_cable_cong record lists.
const HOT_LINKS: usize = 10;

/// Runs one cell on its loaded fabric (and, for a traffic cell, its loaded `traffic`)
/// within `memory` and returns its record (not yet sealed), an `error` record when the
/// cell cannot run (too few hosts, a size out of range, broken routes, a pattern without
/// traffic for a metric that needs some, a traffic matrix at a size or metric `-p
/// matrix` refuses): those are as final as results, since the same cell fails the same
/// way again. A cell that needs more than `memory` is an error instead: that depends on
/// the machine, not on the cell, so it must stay pending. `progress` receives the runs
/// done. O(runs × pairs × hops), like `orcs -i`.
///
/// # Panics
/// When a traffic cell is given no `traffic`.
pub fn run_cell(
    plan: &Plan,
    cell: &Cell,
    loaded: &LoadedFabric,
    traffic: Option<&LoadedTraffic>,
    memory: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Value, LimitError> {
    let started = std::time::Instant::now();
    let mut record = serde_json::json!({
        "cell": cell.index,
        "key": plan.key(cell),
        "plan": plan.identity,
        "plan_cells": plan.cells.len(),
        "fabric": plan.fabrics[cell.fabric].label(),
        "pattern": cell.pattern,
        "arg": cell.arg,
        "commsize": cell.commsize,
        "metric": cell.metric().map(MetricKind::name),
        // A task cell measures root tasks: its result says how many.
        "runs": cell.metric().map(|_| plan.runs),
        "seed": plan.seed,
        "streams": STREAM_VERSION,
        "orcs_version": env!("CARGO_PKG_VERSION"),
        "command": plan.command(cell),
    });
    let obj = record.as_object_mut().expect("an object");
    let result = match cell.workload {
        CellWorkload::Pattern(ref pattern, metric) => {
            simulate_cell(plan, cell, pattern, metric, loaded, memory, progress)
        }
        CellWorkload::Traffic(t, metric) => {
            let source = &plan.traffic[t];
            obj.insert("traffic".into(), source.path.clone().into());
            obj.insert("trace_options".into(), source.flags_text().into());
            let traffic = traffic.expect("a traffic cell runs with its traffic");
            simulate_traffic_cell(plan, cell, metric, loaded, traffic, memory, progress)
        }
        CellWorkload::Tasks(t) => {
            // The progress counts runs: a task cell is as many when it is done.
            let label = plan.fabrics[cell.fabric].label();
            let done = simulate_task_cell(&plan.tasks[t], &label, loaded, plan.seed, &|_| {});
            progress(plan.runs);
            done
        }
    };
    match result {
        Ok((hosts, result)) => {
            obj.insert("hosts".into(), hosts.into());
            obj.insert("result".into(), result);
        }
        Err(CellError::Memory(e)) => return Err(e),
        Err(e) => {
            obj.insert("error".into(), e.to_string().into());
        }
    }
    obj.insert(
        "seconds".into(),
        ((started.elapsed().as_secs_f64() * 1e3).round() / 1e3).into(),
    );
    Ok(record)
}

/// The simulation of a pattern cell: (communicator size used, result object). The cell is
/// sized, checked and laid out as `orcs -i` does it ([`SimRequest`]), with ORCS's
/// defaults for everything the plan does not set.
fn simulate_cell(
    plan: &Plan,
    cell: &Cell,
    pattern: &Pattern,
    metric: MetricKind,
    loaded: &LoadedFabric,
    memory: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(u64, Value), CellError> {
    let fabric = &loaded.fabric;
    let request = SimRequest {
        commsize: cell.commsize,
        ..SimRequest::new(pattern.clone(), metric, plan.runs)
    };
    let shape = request.shape(fabric.num_hosts()).map_err(|e| match e {
        PrepareError::NoTraffic { commsize, .. } => CellError::NoTraffic {
            pattern: cell.pattern.clone(),
            commsize,
        },
        e => e.into(),
    })?;
    let prepared = request.prepare(fabric, shape, plan.seed, memory)?;
    let sim = prepared.simulation(fabric, &loaded.table, &request, loaded.routes.as_ref())?;
    let outcome = sim.run(progress);
    Ok((
        shape.context.commsize as u64,
        cell_result(metric, fabric, &outcome),
    ))
}

/// The `result` object of a cell's record: the metric's per-run statistics (for
/// hist_max_cong, of the per-run bandwidth; for get_cable_cong, of sum_max_cong), its
/// aggregate where it has one (hist_max_cong's weights and `bw`, hist_acc_band's 20
/// bins, get_cable_cong's most congested links), and the pairs per run.
fn cell_result(metric: MetricKind, fabric: &Fabric, o: &SimOutcome) -> Value {
    let summaries = Summaries::of(o);
    let mut result = serde_json::Map::new();
    let stats = match metric {
        MetricKind::SumMaxCong | MetricKind::GetCableCong => summaries.sum_max_cong,
        MetricKind::DepMaxDelay => summaries.dep_max_delay,
        MetricKind::HistAccBand | MetricKind::HistMaxCong => summaries.acc_band,
    };
    result.insert(
        "stats".into(),
        serde_json::to_value(stats).unwrap_or(Value::Null),
    );
    match metric {
        MetricKind::HistMaxCong => {
            result.insert("bw".into(), acc_band(&o.weight_hist).into());
            let weights: Vec<Value> = weight_counts(&o.weight_hist)
                .iter()
                .map(|w| serde_json::json!([w.weight, w.count]))
                .collect();
            result.insert("weights".into(), weights.into());
        }
        MetricKind::HistAccBand => {
            result.insert("bins".into(), acc_band_bins(&o.acc_band).to_vec().into());
        }
        MetricKind::GetCableCong => {
            result.insert("hot_links".into(), hot_links(fabric, &o.cable));
        }
        MetricKind::SumMaxCong | MetricKind::DepMaxDelay => {}
    }
    result.insert(
        "pairs".into(),
        serde_json::to_value(summaries.pairs_per_run).unwrap_or(Value::Null),
    );
    Value::Object(result)
}

/// The [`HOT_LINKS`] most loaded links of `loads` (one per directed edge of `fabric`),
/// as `[tail, head, load]` rows, most loaded first.
pub(super) fn hot_links(fabric: &Fabric, loads: &[u64]) -> Value {
    hottest_edges(loads, HOT_LINKS)
        .into_iter()
        .map(|e| {
            serde_json::json!([
                fabric.node_names[fabric.edge_tail[e] as usize],
                fabric.node_names[fabric.edge_head[e] as usize],
                loads[e]
            ])
        })
        .collect::<Vec<Value>>()
        .into()
}
