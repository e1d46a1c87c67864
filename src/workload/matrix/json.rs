//! JSON matrices: the sparse `{"ranks": n, "entries": [[src, dst, bytes], ...]}` or a
//! dense square array of arrays of byte counts.

use super::{
    finish_plain, json_error, line_of_key, located, parse_bytes, rank_count, TrafficMatrix,
};
use crate::error::LocatedError;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;
/// A byte count in a JSON matrix: a non-negative integer (integral floats accepted).
struct JsonBytes(u64);

impl<'de> Deserialize<'de> for JsonBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = JsonBytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-negative integer")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<JsonBytes, E> {
                Ok(JsonBytes(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<JsonBytes, E> {
                u64::try_from(v)
                    .map(JsonBytes)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<JsonBytes, E> {
                parse_bytes(&v.to_string())
                    .filter(|_| v.fract() == 0.0)
                    .map(JsonBytes)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

/// The sparse JSON matrix layout.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SparseJson {
    ranks: Option<u64>,
    entries: Vec<(u64, u64, JsonBytes)>,
    /// Message counts, one per entry (as `orcs trace matrix` writes them); checked,
    /// not kept.
    messages: Option<Vec<u64>>,
}

/// JSON matrix: `{"ranks": n, "entries": [[s, d, b], ...]}` or a dense array of arrays.
/// O(input size + E log E).
pub(super) fn parse_json_matrix(text: &str, path: &str) -> Result<TrafficMatrix, LocatedError> {
    if text.trim_start().starts_with('{') {
        if line_of_key(text, "tx_messages").is_some() || line_of_key(text, "phases").is_some() {
            return Err(located(
                path,
                None,
                "this is a single PFProf rank file; give the archive or directory of all rank files",
            ));
        }
        let m: SparseJson = serde_json::from_str(text).map_err(|e| {
            json_error(
                path,
                &e,
                r#"expected {"ranks": n, "entries": [[src, dst, bytes], ...]}"#,
            )
        })?;
        let max = m
            .entries
            .iter()
            .map(|e| e.0.max(e.1).saturating_add(1))
            .max()
            .unwrap_or(0);
        if let Some(messages) = &m.messages {
            if messages.len() != m.entries.len() {
                return Err(located(
                    path,
                    line_of_key(text, "messages"),
                    format!(
                        "{} message counts for {} entries (expected one per entry)",
                        messages.len(),
                        m.entries.len()
                    ),
                ));
            }
        }
        let n = m.ranks.unwrap_or(max);
        let ranks = rank_count(n, path, line_of_key(text, "ranks"))?;
        let mut raw = Vec::with_capacity(m.entries.len());
        for (i, &(s, d, JsonBytes(b))) in m.entries.iter().enumerate() {
            if s >= n || d >= n {
                return Err(located(
                    path,
                    line_of_key(text, "entries"),
                    format!(
                        "entries[{i}]: rank {} out of range (expected 0..{n})",
                        s.max(d)
                    ),
                ));
            }
            raw.push((s as u32, d as u32, b));
        }
        return finish_plain(raw, ranks, path);
    }
    let dense: Vec<Vec<JsonBytes>> = serde_json::from_str(text).map_err(|e| {
        json_error(
            path,
            &e,
            "expected a dense square array of arrays of byte counts",
        )
    })?;
    let n = dense.len();
    if n == 0 {
        return Err(located(
            path,
            None,
            "empty matrix (expected at least one row)",
        ));
    }
    if let Some((i, row)) = dense.iter().enumerate().find(|(_, r)| r.len() != n) {
        return Err(located(
            path,
            None,
            format!(
                "row {i} has {} values (expected {n}: the matrix must be square)",
                row.len()
            ),
        ));
    }
    let ranks = rank_count(n as u64, path, None)?;
    let mut raw = Vec::new();
    for (s, row) in dense.iter().enumerate() {
        for (d, b) in row.iter().enumerate() {
            if b.0 > 0 {
                raw.push((s as u32, d as u32, b.0));
            }
        }
    }
    finish_plain(raw, ranks, path)
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use super::*;

    #[test]
    fn json_round_trips() {
        let t = sample();
        let sparse = serde_json::json!({"ranks": t.ranks, "entries": t.entries}).to_string();
        assert_eq!(traffic_from_bytes(sparse.as_bytes(), "t.json").unwrap(), t);
        let dense = serde_json::to_string_pretty(&to_dense(&t)).unwrap();
        assert_eq!(traffic_from_bytes(dense.as_bytes(), "t.json").unwrap(), t);
        // Missing `ranks`: largest index + 1; duplicates summed; integral floats accepted.
        let m = parse_json_matrix(
            r#"{"entries": [[0, 2, 1.0], [0, 2, 2], [1, 1, 0]]}"#,
            "t.json",
        )
        .unwrap();
        assert_eq!(
            m,
            TrafficMatrix {
                ranks: 3,
                entries: vec![(0, 2, 3)]
            }
        );
    }

    #[test]
    fn json_matrix_errors() {
        let e =
            parse_json_matrix("{\"ranks\": 2,\n \"entries\": [[0, 1, -5]]}", "t.json").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        let e =
            parse_json_matrix("{\"ranks\": 2,\n \"entries\": [[0, 2, 5]]}", "t.json").unwrap_err();
        assert!(e.message.contains("entries[0]: rank 2 out of range"), "{e}");
        let e = parse_json_matrix("[[1, 2],\n [3, 4.5]]", "t.json").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        let e = parse_json_matrix("[[1, 2], [3]]", "t.json").unwrap_err();
        assert!(e.message.contains("square"), "{e}");
        let e = parse_json_matrix(&rank_json(0, &[1], &[1]), "r.json").unwrap_err();
        assert!(e.message.contains("single PFProf rank file"), "{e}");
    }
}
