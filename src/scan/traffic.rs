//! Traffic-matrix cells: each traffic file of a plan read once per scan, and a cell's
//! simulation as `orcs -i FABRIC -p matrix --traffic FILE [trace flags]` runs it, with
//! the `result` of its record.

use super::{located, Cell, CellError, Plan, ScanError, TrafficSource};
use crate::engine::metric::{acc_band_bins, MatrixSummaries, MetricKind};
use crate::engine::weighted::{
    lay_out_slots, MatrixInfo, SlotTraffic, WeightedConfig, WeightedOutcome, WeightedSimulation,
};
use crate::fabric::{Fabric, LoadedFabric};
use crate::limits::MemoryLimit;
use crate::workload::mapping::{LayoutSpec, SubsetMethod};
use crate::workload::matrix::read_traffic_with;
use serde_json::Value;

/// A traffic file of the plan, read: its matrix summed per host slot (one rank per
/// host, as `-p matrix` places them without `--ppn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedTraffic {
    /// The file, as the plan's path leads to it.
    pub path: String,
    /// The matrix summed per slot.
    pub traffic: SlotTraffic,
    /// Rank pairs of the matrix.
    pub rank_pairs: u64,
}

/// Reads the traffic of `source` as `orcs -p matrix --traffic` does. A file that cannot
/// be read is an error at the line of `plan`'s entry that names it, with the file's own
/// error (its name, and its line or byte when known). O(file size).
pub fn load_traffic(plan: &Plan, source: &TrafficSource) -> Result<LoadedTraffic, ScanError> {
    let matrix = read_traffic_with(&source.path, &source.options).map_err(|e| {
        let message = if e.path.is_empty() {
            format!("traffic '{}': {e}", source.path)
        } else {
            format!("cannot read the traffic: {e}")
        };
        located(&plan.path, source.line, message)
    })?;
    Ok(LoadedTraffic {
        path: source.path.clone(),
        traffic: SlotTraffic::new(&matrix, 1),
        rank_pairs: matrix.entries.len() as u64,
    })
}

/// The simulation of a traffic cell: (hosts used, result object). Checked, laid out and
/// run as `orcs -i … -p matrix` does it with the defaults for everything the plan does
/// not set: one rank per host, hosts chosen at random and reshuffled every run.
pub(crate) fn simulate_traffic_cell(
    plan: &Plan,
    cell: &Cell,
    metric: MetricKind,
    loaded: &LoadedFabric,
    traffic: &LoadedTraffic,
    memory: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(u64, Value), CellError> {
    if cell.commsize != 0 {
        return Err(CellError::MatrixCommsize {
            commsize: cell.commsize,
        });
    }
    if matches!(metric, MetricKind::HistMaxCong | MetricKind::DepMaxDelay) {
        return Err(CellError::MatrixMetric { metric });
    }
    let fabric = &loaded.fabric;
    let capacity = fabric.edge_capacities(&plan.fabrics[cell.fabric].label())?;
    let spec = LayoutSpec {
        commsize: traffic.traffic.slots as usize,
        subset: SubsetMethod::Rand,
        part: None,
        ordering: Vec::new(),
        shuffle: true,
    };
    let (layout, _) = lay_out_slots(fabric, &traffic.traffic, spec, plan.seed)?;
    let config = WeightedConfig {
        runs: plan.runs,
        seed: plan.seed,
        acc_band: metric == MetricKind::HistAccBand,
        links: metric == MetricKind::GetCableCong,
        memory,
    };
    let routes = loaded.routes.as_ref();
    let sim = WeightedSimulation::new(
        fabric,
        &loaded.table,
        &layout,
        &traffic.traffic,
        &capacity,
        config,
        routes,
    )?;
    let outcome = sim.run(progress);
    let info = MatrixInfo::new(&traffic.path, &traffic.traffic, traffic.rank_pairs);
    Ok((
        traffic.traffic.slots as u64,
        traffic_result(metric, fabric, &info, &outcome),
    ))
}

/// The `result` object of a traffic cell's record: the metric's per-run statistics
/// (hist_acc_band: of the byte-weighted bandwidth fraction; sum_max_cong and
/// get_cable_cong: of the largest link load in bytes), every summary `-p matrix` gives,
/// the matrix's facts, and the metric's aggregate (hist_acc_band's 20 bins,
/// get_cable_cong's links with the most bytes).
fn traffic_result(
    metric: MetricKind,
    fabric: &Fabric,
    info: &MatrixInfo,
    o: &WeightedOutcome,
) -> Value {
    let summary = MatrixSummaries::of(o);
    let stats = match metric {
        MetricKind::HistAccBand => summary.acc_band,
        _ => summary.max_load,
    };
    let mut result = serde_json::Map::new();
    result.insert(
        "stats".into(),
        serde_json::to_value(stats).unwrap_or(Value::Null),
    );
    result.insert(
        "summary".into(),
        serde_json::to_value(&summary).unwrap_or(Value::Null),
    );
    result.insert(
        "matrix".into(),
        serde_json::to_value(info).unwrap_or(Value::Null),
    );
    match (metric, &o.links) {
        (MetricKind::HistAccBand, _) => {
            result.insert("bins".into(), acc_band_bins(&o.acc_band).to_vec().into());
        }
        (MetricKind::GetCableCong, Some(links)) => {
            result.insert(
                "hot_links".into(),
                super::cell::hot_links(fabric, &links.bytes),
            );
        }
        _ => {}
    }
    Value::Object(result)
}
