//! Result documents read back: the JSON that `--format json` writes, as owned data, for
//! plots, congestion maps, HTML reports and comparisons between runs.

use crate::engine::metric::Summary;
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
