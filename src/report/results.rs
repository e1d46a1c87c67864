//! Result documents read back: the JSON that `--format json` writes, as owned data, for
//! plots, congestion maps, HTML reports and comparisons between runs; a result just
//! simulated becomes the same document in memory ([`ResultDoc::of`]). This file owns the
//! schema of that document as it is read; [`crate::report::json_report`] writes it.

use crate::engine::metric::{
    acc_band, acc_band_histogram, scaled_congestion, weight_counts, AccBandBin, Summaries,
    WeightCount,
};
use crate::engine::unit::SimOutcome;
use crate::error::LocatedError;
use crate::fabric::Fabric;
use crate::report::{RunInfo, SCHEMA_VERSION};
use serde::Deserialize;

/// A simulation result as written by [`crate::report::json_report`].
#[derive(Debug, Clone, Deserialize)]
pub struct ResultDoc {
    /// Layout version of the document.
    pub schema_version: u32,
    /// The orcs version that wrote it.
    pub orcs_version: String,
    /// The run's parameters (kept as written, for display).
    pub parameters: serde_json::Map<String, serde_json::Value>,
    /// Summary statistics of the per-run metrics, absent where not computed.
    pub summary: Summaries,
    /// Link weights of all pairs over all runs.
    pub hist_max_cong: HistMaxCongDoc,
    /// ORCS's 20-bin histogram of per-run accumulated bandwidth.
    pub hist_acc_band: Vec<AccBandBin>,
    /// Per-run values.
    pub per_run: PerRunDoc,
    /// Per directed edge, with get_cable_cong.
    #[serde(default)]
    pub cable_congestion: Option<Vec<CableDoc>>,
}

/// The `hist_max_cong` object.
#[derive(Debug, Clone, Deserialize)]
pub struct HistMaxCongDoc {
    /// Pairs over all runs and levels.
    pub total_pairs: u64,
    /// Mean of 1 / weight over all pairs.
    pub bw: Option<f64>,
    /// Pairs per weight (weights with no pair left out).
    pub weights: Vec<WeightCount>,
}

/// The `per_run` object.
#[derive(Debug, Clone, Deserialize)]
pub struct PerRunDoc {
    /// Accumulated bandwidth (`None` for a run without traffic).
    pub acc_band: Vec<Option<f64>>,
    /// Sum of the levels' maximal congestion.
    pub sum_max_cong: Vec<u64>,
    /// Pairs simulated.
    pub pairs: Vec<u64>,
    /// Longest dependency delay, when computed.
    #[serde(default)]
    pub dep_max_delay: Vec<u64>,
}

/// One directed edge of `cable_congestion`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct CableDoc {
    /// Edge id in ORCS order.
    pub edge_id: u64,
    /// Tail node name.
    pub tail: String,
    /// Head node name.
    pub head: String,
    /// Port key, if any.
    pub key: Option<String>,
    /// Summed congestion.
    pub count: u64,
    /// Count divided by the largest count.
    pub congestion: f32,
}

/// The schema versions this build reads.
pub(crate) const READABLE_SCHEMA: u32 = SCHEMA_VERSION;

/// The `cable_congestion` entries of per-edge counts `cable`.
fn cable_docs(fabric: &Fabric, cable: &[u64]) -> Vec<CableDoc> {
    let scaled = scaled_congestion(cable);
    (cable.iter().enumerate())
        .map(|(e, &count)| CableDoc {
            edge_id: e as u64,
            tail: fabric.node_names[fabric.edge_tail[e] as usize].clone(),
            head: fabric.node_names[fabric.edge_head[e] as usize].clone(),
            key: fabric.edge_keys[e].clone(),
            count,
            congestion: scaled[e],
        })
        .collect()
}

/// Parses the JSON result in `text` (read from `path`, for messages). A document that is
/// not JSON is reported at its line; one of another schema version, or not an orcs
/// result, as a whole.
pub fn parse_result(text: &str, path: &str) -> Result<ResultDoc, LocatedError> {
    // The version first, so an old or future document gets a message about that.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        LocatedError::at_line(
            path,
            u32::try_from(e.line()).unwrap_or(u32::MAX),
            format!("not a JSON document ({e}); expected the output of `orcs --format json`"),
        )
    })?;
    match value.get("schema_version").and_then(|v| v.as_u64()) {
        Some(v) if v == READABLE_SCHEMA as u64 => {}
        Some(v) => {
            return Err(LocatedError::new(
                path,
                format!("schema_version {v}, but this orcs reads {READABLE_SCHEMA}"),
            ))
        }
        None => {
            return Err(LocatedError::new(
                path,
                "no schema_version: expected the output of `orcs --format json`",
            ))
        }
    }
    serde_json::from_value(value).map_err(|e| {
        LocatedError::new(
            path,
            format!("not an orcs result ({e}); expected the output of `orcs --format json`"),
        )
    })
}

impl ResultDoc {
    /// The document [`crate::report::json_report`] writes for this result, built in
    /// memory for plots of a result that was just simulated: what reading that JSON
    /// back gives (floats are written shortest-exact and read with correct rounding, so
    /// the two are equal to the last bit), without the text in between.
    pub fn of(info: &RunInfo, fabric: &Fabric, outcome: &SimOutcome) -> ResultDoc {
        let parameters = match serde_json::to_value(info) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        ResultDoc {
            schema_version: SCHEMA_VERSION,
            orcs_version: env!("CARGO_PKG_VERSION").to_string(),
            parameters,
            summary: Summaries::of(outcome),
            hist_max_cong: HistMaxCongDoc {
                total_pairs: outcome.total_pairs(),
                bw: acc_band(&outcome.weight_hist),
                weights: weight_counts(&outcome.weight_hist),
            },
            hist_acc_band: acc_band_histogram(&outcome.acc_band).to_vec(),
            per_run: PerRunDoc {
                // JSON has no NaN: a run without traffic is written as null.
                acc_band: (outcome.acc_band.iter())
                    .map(|&v| v.is_finite().then_some(v))
                    .collect(),
                sum_max_cong: outcome.sum_max_cong.clone(),
                pairs: outcome.pairs.clone(),
                dep_max_delay: outcome.dep_max_delay.clone(),
            },
            cable_congestion: (!outcome.cable.is_empty())
                .then(|| cable_docs(fabric, &outcome.cable)),
        }
    }

    /// A parameter as text (strings unquoted), or `""` when absent.
    pub fn parameter(&self, name: &str) -> String {
        match self.parameters.get(name) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    }

    /// A short description of the run for legends: pattern, communicator size, input.
    pub fn label(&self) -> String {
        let input = self.parameter("input_file");
        let input = input.rsplit('/').next().unwrap_or(&input).to_string();
        format!(
            "{} (s={}) on {input}",
            self.parameter("pattern"),
            self.parameter("commsize")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::metric::MetricKind;
    use crate::engine::request::SimRequest;
    use crate::viz::draw::ImageFormat;
    use crate::workload::pattern::Pattern;

    /// A result built in memory is the document its JSON reads back as, and draws the
    /// same pictures.
    #[test]
    fn built_in_memory_as_read_back() {
        let generated = crate::gen::topology::generate("kary-ntree:k=2,n=3").unwrap();
        let (table, _) = crate::routing::route_generated(&generated, None, None, 0).unwrap();
        let fabric = generated.fabric;
        for (pattern, metric) in [
            ("rand", MetricKind::GetCableCong),
            ("bruck", MetricKind::DepMaxDelay),
        ] {
            let request = SimRequest::new(Pattern::parse(pattern, None).unwrap(), metric, 17);
            let shape = request.shape(fabric.num_hosts()).unwrap();
            let prepared = request
                .prepare(&fabric, shape, 5, crate::limits::MemoryLimit::unlimited())
                .unwrap();
            let sim = prepared
                .simulation(&fabric, &table, &request, None)
                .unwrap();
            let outcome = sim.run(&|_| {});
            let info = RunInfo {
                input_file: "dir/f.dot".into(),
                output_file: "-".into(),
                pattern_lines: vec![format!("Pattern: {pattern}")],
                pattern: pattern.into(),
                commsize: 8,
                part_commsize: 2,
                subset: "rand".into(),
                part_subset: "none".into(),
                level: -1,
                runs: 17,
                metric,
                shuffle: true,
                seed: 5,
                subset_hosts: 8,
                fabric_hosts: fabric.num_hosts(),
                fabric_switches: fabric.num_switches(),
                fabric_edges: fabric.num_edges(),
                orcs_compat: false,
            };
            let json = crate::report::json_report(&info, &fabric, &outcome);
            let read = parse_result(&json, "r.json").unwrap();
            let built = ResultDoc::of(&info, &fabric, &outcome);
            assert_eq!(format!("{built:?}"), format!("{read:?}"));
            // The pictures drawn from either are the same bytes.
            for metric in MetricKind::ALL {
                let svg = |doc: &ResultDoc| {
                    crate::viz::plot::histogram(&[doc], metric).map(|figure| {
                        crate::viz::plot::render_plot(&figure, ImageFormat::Svg).unwrap()
                    })
                };
                assert_eq!(svg(&built), svg(&read), "{pattern} {metric}");
            }
        }
    }

    fn info(metric: MetricKind, input: String, runs: u64) -> RunInfo {
        RunInfo {
            input_file: input,
            output_file: "-".into(),
            pattern_lines: vec!["Pattern: bruck".into()],
            pattern: "bruck".into(),
            commsize: 8,
            part_commsize: 2,
            subset: "rand".into(),
            part_subset: "none".into(),
            level: -1,
            runs,
            metric,
            shuffle: true,
            seed: 5,
            subset_hosts: 8,
            fabric_hosts: 8,
            fabric_switches: 12,
            fabric_edges: 48,
            orcs_compat: false,
        }
    }

    /// Per-run values of `runs` runs: acc_band in (0, 1] or undefined (a run without
    /// pairs), counts of any size.
    fn outcome_strategy() -> impl proptest::strategy::Strategy<Value = SimOutcome> {
        use proptest::prelude::*;
        (1usize..12).prop_flat_map(|runs| {
            (
                proptest::collection::vec(0u64..1 << 40, 0..9),
                proptest::collection::vec(prop_oneof![Just(f64::NAN), 1e-9f64..=1.0], runs),
                proptest::collection::vec(any::<u64>(), runs),
                proptest::collection::vec(0u64..1 << 50, runs),
                proptest::option::of(proptest::collection::vec(any::<u64>(), runs)),
                any::<bool>(),
                proptest::collection::vec(0u64..1 << 20, 48),
            )
                .prop_map(move |(hist, acc, sum, pairs, delay, cable, counts)| {
                    SimOutcome {
                        runs: runs as u64,
                        weight_hist: hist,
                        acc_band: acc,
                        sum_max_cong: sum,
                        pairs,
                        dep_max_delay: delay.unwrap_or_default(),
                        cable: if cable { counts } else { Vec::new() },
                        links: None,
                    }
                })
        })
    }

    proptest::proptest! {
        /// Whatever the values, the JSON written for a result reads back as the
        /// document built in memory, to the last bit of every float.
        #[test]
        fn written_json_reads_back_as_built(
            outcome in outcome_strategy(),
            input in "[a-zA-Z0-9 _./\"\\\\é-]{0,24}",
        ) {
            let generated = crate::gen::topology::generate("kary-ntree:k=2,n=3").unwrap();
            let fabric = generated.fabric;
            let info = info(MetricKind::HistAccBand, input, outcome.runs);
            let json = crate::report::json_report(&info, &fabric, &outcome);
            let read = parse_result(&json, "r.json").unwrap();
            let built = ResultDoc::of(&info, &fabric, &outcome);
            proptest::prop_assert_eq!(format!("{built:?}"), format!("{read:?}"));
        }

        /// A damaged document is an error at worst, never a panic, and whatever reads
        /// has the schema version this build reads.
        #[test]
        fn mutated_json_never_panics(
            outcome in outcome_strategy(),
            edits in proptest::collection::vec(
                (0usize..4000, proptest::prelude::any::<u8>(), 0u8..3), 0..6),
        ) {
            let generated = crate::gen::topology::generate("kary-ntree:k=2,n=3").unwrap();
            let info = info(MetricKind::HistAccBand, "f.dot".into(), outcome.runs);
            let json = crate::report::json_report(&info, &generated.fabric, &outcome);
            let bytes = crate::test_support::mutate(json.as_bytes(), &edits);
            if let Ok(doc) = parse_result(&String::from_utf8_lossy(&bytes), "r.json") {
                proptest::prop_assert_eq!(doc.schema_version, READABLE_SCHEMA);
            }
        }
    }
}
