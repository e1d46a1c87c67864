//! Result documents read back: the JSON that `--format json` writes, as owned data, for
//! plots, congestion maps, HTML reports and comparisons between runs; a result just
//! simulated becomes the same document in memory ([`ResultDoc::of`]).

use crate::engine::metric::{acc_band, acc_band_bin_edges, Summary};
use crate::engine::unit::SimOutcome;
use crate::fabric::Fabric;
use crate::report::{acc_band_bins, scaled_congestion, RunInfo, Summaries};
use serde::Deserialize;
use std::fmt;

/// A simulation result as written by [`crate::report::json_report`].
#[derive(Debug, Clone, Deserialize)]
pub struct ResultDoc {
    /// Layout version of the document.
    pub schema_version: u32,
    /// The orcs version that wrote it.
    pub orcs_version: String,
    /// The run's parameters (kept as written, for display).
    pub parameters: serde_json::Map<String, serde_json::Value>,
    /// Summary statistics of the per-run metrics.
    pub summary: SummaryDoc,
    /// Link weights of all pairs over all runs.
    pub hist_max_cong: HistMaxCongDoc,
    /// ORCS's 20-bin histogram of per-run accumulated bandwidth.
    pub hist_acc_band: Vec<BinDoc>,
    /// Per-run values.
    pub per_run: PerRunDoc,
    /// Per directed edge, with get_cable_cong.
    #[serde(default)]
    pub cable_congestion: Option<Vec<CableDoc>>,
}

/// The `summary` object: one [`Summary`] per metric, absent when not computed.
#[derive(Debug, Clone, Deserialize)]
pub struct SummaryDoc {
    /// Per-run accumulated bandwidth.
    pub acc_band: Option<Summary>,
    /// Per-run sum of the levels' maximal congestion.
    pub sum_max_cong: Option<Summary>,
    /// Per-run longest dependency delay.
    pub dep_max_delay: Option<Summary>,
    /// Pairs per run.
    pub pairs_per_run: Option<Summary>,
}

/// The `hist_max_cong` object.
#[derive(Debug, Clone, Deserialize)]
pub struct HistMaxCongDoc {
    /// Pairs over all runs and levels.
    pub total_pairs: u64,
    /// Mean of 1 / weight over all pairs.
    pub bw: Option<f64>,
    /// Pairs per weight (weights with no pair left out).
    pub weights: Vec<WeightDoc>,
}

/// One weight of `hist_max_cong`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct WeightDoc {
    /// The weight (congestion of the route's most shared link).
    pub weight: u64,
    /// Pairs with that weight.
    pub count: u64,
}

/// One histogram bin `[low, high)`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct BinDoc {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Values in the bin.
    pub count: u64,
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

/// Why a result document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultError {
    /// The file.
    pub path: String,
    /// Line of the problem, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for ResultError {}

/// The schema versions this build reads.
pub const READABLE_SCHEMA: u32 = crate::report::SCHEMA_VERSION;

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

/// Parses the JSON result in `text` (read from `path`, for messages).
pub fn parse_result(text: &str, path: &str) -> Result<ResultDoc, ResultError> {
    let error = |line: Option<usize>, message: String| ResultError {
        path: path.to_string(),
        line,
        message,
    };
    // The version first, so an old or future document gets a message about that.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        error(
            Some(e.line()),
            format!("not a JSON document ({e}); expected the output of `orcs --format json`"),
        )
    })?;
    match value.get("schema_version").and_then(|v| v.as_u64()) {
        Some(v) if v == READABLE_SCHEMA as u64 => {}
        Some(v) => {
            return Err(error(
                None,
                format!("schema_version {v}, but this orcs reads {READABLE_SCHEMA}"),
            ))
        }
        None => {
            return Err(error(
                None,
                "no schema_version: expected the output of `orcs --format json`".into(),
            ))
        }
    }
    serde_json::from_value(value).map_err(|e| {
        error(
            None,
            format!("not an orcs result ({e}); expected the output of `orcs --format json`"),
        )
    })
}

impl ResultDoc {
    /// The document [`crate::report::json_report`] writes for this result, built in
    /// memory for plots of a result that was just simulated: what reading that JSON
    /// back gives, without the text in between (so its floats are the computed values,
    /// where reading the text may round a last digit).
    pub fn of(info: &RunInfo, fabric: &Fabric, outcome: &SimOutcome) -> ResultDoc {
        let edges = acc_band_bin_edges();
        let bins = acc_band_bins(&outcome.acc_band);
        let s = Summaries::of(outcome);
        let parameters = match serde_json::to_value(info) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        ResultDoc {
            schema_version: crate::report::SCHEMA_VERSION,
            orcs_version: env!("CARGO_PKG_VERSION").to_string(),
            parameters,
            summary: SummaryDoc {
                acc_band: s.acc_band,
                sum_max_cong: s.sum_max_cong,
                dep_max_delay: s.dep_max_delay,
                pairs_per_run: s.pairs_per_run,
            },
            hist_max_cong: HistMaxCongDoc {
                total_pairs: outcome.total_pairs(),
                bw: acc_band(&outcome.weight_hist),
                weights: (outcome.weight_hist.iter().enumerate())
                    .filter(|(_, &count)| count > 0)
                    .map(|(weight, &count)| WeightDoc {
                        weight: weight as u64,
                        count,
                    })
                    .collect(),
            },
            hist_acc_band: (bins.iter().enumerate())
                .map(|(i, &count)| BinDoc {
                    low: edges[i],
                    high: edges[i + 1],
                    count,
                })
                .collect(),
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
            let prepared = request.prepare(&fabric, shape, 5).unwrap();
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
            assert_close(&format!("{built:?}"), &format!("{read:?}"));
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

    /// The same text but for the last digits of numbers: reading JSON rounds some
    /// floats one unit in the last place away from the value that was written.
    fn assert_close(a: &str, b: &str) {
        let tokens = |s: &str| -> Vec<String> {
            s.split(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect()
        };
        let (a, b) = (tokens(a), tokens(b));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(u), Ok(v)) => assert!((u - v).abs() <= 1e-12 * u.abs().max(1.0), "{x} vs {y}"),
                _ => assert_eq!(x, y),
            }
        }
    }
}
