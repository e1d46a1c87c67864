//! Traffic matrices: the [`TrafficMatrix`] model and its readers, PFProf traces and plain
//! matrices.
//!
//! [`read_traffic`] reads what PFSim calls a trace: a tar archive (optionally gzip-compressed)
//! or a directory of per-rank PFProf JSON files, in PFSim's entry order (spec `pfsim.md`
//! §3.4, §7.2–7.4). It also reads plain matrices with no message counts: CSV (`src,dst,bytes`
//! rows or a dense square matrix), Matrix Market coordinate files and JSON matrices.
//!
//! Every error is a [`LocatedError`] naming the file (for archives `archive:member`), the
//! 1-based line when it is known, and what was expected. No input makes these readers panic.
//!
//! This module holds the model, the format detection and what the readers share (byte
//! counts, rank counts, summing duplicates); one file per format: `pfprof` (traces),
//! `csv`, `market` (Matrix Market) and `json`. An MPI trace's `.meta` file is read by
//! [`crate::trace::traffic`]. May use: nothing else of orcs but [`crate::error`] and
//! [`crate::trace`].

use crate::error::LocatedError;
use flate2::read::MultiGzDecoder;
use std::io::Read;
use std::path::Path;

mod csv;
mod json;
mod market;
mod pfprof;

/// The [`LocatedError`] at the 1-based `line` of `path`, when the line is known.
pub(crate) fn located(path: &str, line: Option<usize>, message: impl Into<String>) -> LocatedError {
    LocatedError::at(
        path,
        line.map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
        message,
    )
}

/// A traffic matrix: bytes each rank sends to each other rank over a whole run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrafficMatrix {
    /// Number of ranks (processes); every rank index in `entries` is below it.
    pub ranks: u32,
    /// (src rank, dst rank, bytes) for every pair with at least one message (zero-byte pairs
    /// kept: they count as flows), in PFSim's order: rank files in archive-member order
    /// (lexicographic by member name: oxton-result0, 1, 10, 100, ...), then dst ascending.
    /// Self pairs kept. Plain matrices (CSV, Matrix Market, JSON) have no message counts, so
    /// they keep the pairs with bytes > 0, ordered by src then dst.
    pub entries: Vec<(u32, u32, u64)>,
}

impl TrafficMatrix {
    /// Sum of the bytes of all entries, self pairs included; saturates at `u64::MAX`.
    /// O(entries).
    pub fn total_bytes(&self) -> u64 {
        self.entries
            .iter()
            .fold(0u64, |acc, &(_, _, b)| acc.saturating_add(b))
    }
}

/// Reads a traffic matrix, telling the format from the content (and the extension only for
/// tar archives without a `ustar` magic):
///
/// * a tar archive, gzip-compressed or not (`.tar.gz`, `.tgz`, `.tar`; gzip is detected by
///   its magic bytes), or a directory, holding one PFProf JSON file per rank (members ending
///   in `.json`, possibly in a sub-folder). As in PFSim, n = number of JSON files, the `rank`
///   field is the row, and `tx_bytes[j]` is kept where `tx_messages[j] > 0`. The multi-phase
///   layout (`phases[]`) is read as phase 0 (the whole run). Archive members are taken in
///   archive order; directory files in lexicographic order of their relative paths;
/// * a Matrix Market coordinate file (`%%MatrixMarket matrix coordinate integer|real
///   general|symmetric`, 1-based indices);
/// * a JSON matrix: `{"ranks": n, "entries": [[src, dst, bytes], ...]}` (`ranks` optional:
///   then the largest index + 1; an optional `messages` array of one count per entry) or
///   a dense square array of arrays;
/// * otherwise a CSV matrix: `src,dst,bytes` rows under a three-field header line, or
///   `src,dst,bytes,messages` rows (0-based ranks; n = largest index + 1), or a dense square matrix of numbers (comma-,
///   semicolon- or whitespace-separated; optionally under a header of column labels; `#`
///   comment lines). The header decides, not the row count: without one the file is a
///   dense matrix, and a row count other than its column count is an error at the line
///   where the matrix ends (or the first row too many).
///
/// A DUMPI trace's `.meta` file gives the trace's traffic
/// ([`crate::trace::traffic::trace_traffic`] with its default options: collectives
/// expanded by MPICH's algorithm choice); a DUMPI rank file alone is refused.
///
/// A gzip-compressed plain matrix is also accepted. Plain matrices keep entries with
/// bytes > 0; duplicate CSV / Matrix Market / JSON entries are summed. Byte counts must be
/// non-negative integers (`1e6` and `5.0` are accepted in plain matrices).
///
/// Time O(input size + E log E) for E entries; memory O(input size + E) (the decompressed
/// archive is held in memory).
pub fn read_traffic(path: &str) -> Result<TrafficMatrix, LocatedError> {
    read_traffic_with(path, &crate::trace::traffic::TrafficOptions::default())
}

/// [`read_traffic`], with `trace` saying what of a DUMPI trace counts (collectives
/// expanded or left out, a time window, a phase); other formats ignore it.
pub fn read_traffic_with(
    path: &str,
    trace: &crate::trace::traffic::TrafficOptions,
) -> Result<TrafficMatrix, LocatedError> {
    let p = Path::new(path);
    let meta =
        std::fs::metadata(p).map_err(|e| located(path, None, format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return pfprof::read_trace_dir(path);
    }
    if path.ends_with(".meta") {
        return read_mpi_trace(path, trace);
    }
    let bytes = std::fs::read(p).map_err(|e| located(path, None, format!("cannot read: {e}")))?;
    traffic_from_bytes(&bytes, path)
}

/// [`read_traffic`] on a file's content already in memory: the format is detected from
/// the bytes, and from `path`'s extension for tar archives. O(input size).
pub fn traffic_from_bytes(bytes: &[u8], path: &str) -> Result<TrafficMatrix, LocatedError> {
    let lower = path.to_ascii_lowercase();
    let tar_name = lower.ends_with(".tar.gz") || lower.ends_with(".tgz") || lower.ends_with(".tar");
    let decompressed;
    let data: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| located(path, None, format!("invalid gzip data: {e}")))?;
        decompressed = out;
        &decompressed
    } else {
        bytes
    };
    if data.starts_with(&crate::trace::dumpi::HEAD_MAGIC.to_be_bytes()) {
        return Err(located(
            path,
            None,
            "a DUMPI rank file: name the trace's .meta file, which gives every rank",
        ));
    }
    if looks_like_tar(data) || (tar_name && !data.is_empty()) {
        return pfprof::read_trace_tar(data, path);
    }
    let text = std::str::from_utf8(data).map_err(|e| {
        located(
            path,
            Some(line_at(data, e.valid_up_to())),
            "expected a tar archive or UTF-8 text (CSV, Matrix Market or JSON matrix)",
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let head = text.trim_start();
    if head.starts_with("%%MatrixMarket") {
        market::parse_matrix_market(text, path)
    } else if head.starts_with('{') || head.starts_with('[') {
        json::parse_json_matrix(text, path)
    } else {
        csv::parse_csv_matrix(text, path)
    }
}

/// The traffic of the DUMPI trace whose `.meta` file is `path`.
fn read_mpi_trace(
    path: &str,
    options: &crate::trace::traffic::TrafficOptions,
) -> Result<TrafficMatrix, LocatedError> {
    use crate::trace::dumpi::{DumpiError, Trace};
    use crate::trace::traffic::{trace_traffic, TrafficError};
    let to_located = |e: TrafficError| match e {
        TrafficError::Input(l) | TrafficError::Dumpi(DumpiError::Input(l)) => l,
        TrafficError::Dumpi(DumpiError::Io { path, source }) => {
            LocatedError::new(path, format!("cannot read: {source}"))
        }
        other => LocatedError::new("", other.to_string()),
    };
    let trace = Trace::open(Path::new(path)).map_err(|e| to_located(e.into()))?;
    let traffic = trace_traffic(&trace, options).map_err(to_located)?;
    Ok(traffic.to_matrix())
}

/// A POSIX / GNU tar header has "ustar" at offset 257.
fn looks_like_tar(data: &[u8]) -> bool {
    data.len() >= 512 && &data[257..262] == b"ustar"
}

/// 1-based line of byte offset `pos` (clamped to the input).
fn line_at(data: &[u8], pos: usize) -> usize {
    let pos = pos.min(data.len());
    data[..pos].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Shortens a token for an error message (at most 40 characters).
pub(crate) fn show(token: &str) -> String {
    let mut s: String = token.chars().take(40).collect();
    if token.chars().count() > 40 {
        s.push('…');
    }
    s
}

/// Converts a serde_json error into a [`LocatedError`] with its line (column in the message).
fn json_error(path: &str, e: &serde_json::Error, what: &str) -> LocatedError {
    let full = e.to_string();
    if e.line() == 0 {
        return located(path, None, format!("{what}: {full}"));
    }
    let msg = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => full.as_str(),
    };
    located(
        path,
        Some(e.line()),
        format!("{what}: {msg} (column {})", e.column()),
    )
}

/// 1-based line of the first `"key"` followed by `:` in a JSON text, if any.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted).find_map(|(i, _)| {
        let rest = text[i + quoted.len()..].trim_start();
        rest.starts_with(':').then(|| line_at(text.as_bytes(), i))
    })
}

/// Parses a non-negative integer byte count; integral decimal / exponent forms are accepted.
fn parse_bytes(token: &str) -> Option<u64> {
    if let Ok(v) = token.parse::<u64>() {
        return Some(v);
    }
    let f: f64 = token.parse().ok()?;
    // 2^64 as f64; values at or above it do not fit.
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 18_446_744_073_709_551_616.0)
        .then_some(f as u64)
}

/// Parses a rank index (integral forms accepted).
pub(crate) fn parse_index(token: &str) -> Option<u64> {
    parse_bytes(token)
}

/// Sorts (src, dst, bytes) triples, sums duplicates and drops zero-byte pairs.
/// O(E log E).
fn finish_plain(
    mut raw: Vec<(u32, u32, u64)>,
    ranks: u32,
    path: &str,
) -> Result<TrafficMatrix, LocatedError> {
    // Duplicates are summed, so their order does not matter: an unstable sort on one
    // packed key.
    raw.sort_unstable_by_key(|&(s, d, _)| (u64::from(s) << 32) | u64::from(d));
    let mut entries: Vec<(u32, u32, u64)> = Vec::with_capacity(raw.len());
    for (s, d, b) in raw {
        match entries.last_mut() {
            Some(last) if last.0 == s && last.1 == d => {
                last.2 = last.2.checked_add(b).ok_or_else(|| {
                    located(
                        path,
                        None,
                        format!("bytes of pair ({s}, {d}) overflow 64 bits"),
                    )
                })?;
            }
            _ => entries.push((s, d, b)),
        }
    }
    entries.retain(|e| e.2 > 0);
    Ok(TrafficMatrix { ranks, entries })
}

/// Converts a rank count (largest index + 1 or a declared size) to u32.
fn rank_count(n: u64, path: &str, line: Option<usize>) -> Result<u32, LocatedError> {
    u32::try_from(n)
        .ok()
        .filter(|&v| v < u32::MAX)
        .ok_or_else(|| {
            located(
                path,
                line,
                format!("{n} ranks: too many (at most 2^32 - 2)"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::mutate;
    use std::io::Write;

    pub(super) fn rank_json(rank: u32, bytes: &[u64], msgs: &[u64]) -> String {
        let v = serde_json::json!({
            "description": "Generated by Oxton v0.2.0", "n_events": 7, "n_procs": bytes.len(),
            "processor_name": "milk01", "rank": rank,
            "rx_bytes": bytes, "rx_messages": msgs,
            "tx_bytes": bytes, "tx_messages": msgs,
            "tx_message_sizes": [{"frequency": 1, "message_size": 4}], "rx_message_sizes": []
        });
        serde_json::to_string_pretty(&v).unwrap()
    }

    pub(super) fn tar_bytes(members: &[(String, String)], gzip: bool) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, text) in members {
            let mut h = tar::Header::new_gnu();
            h.set_size(text.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            builder.append_data(&mut h, name, text.as_bytes()).unwrap();
        }
        let raw = builder.into_inner().unwrap();
        if !gzip {
            return raw;
        }
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&raw).unwrap();
        enc.finish().unwrap()
    }

    pub(super) fn err_of(r: Result<TrafficMatrix, LocatedError>) -> LocatedError {
        r.expect_err("expected an error")
    }

    pub(super) fn sample() -> TrafficMatrix {
        TrafficMatrix {
            ranks: 4,
            entries: vec![
                (0, 1, 100),
                (0, 3, 7),
                (1, 1, 5),
                (2, 0, 1 << 40),
                (3, 2, 1),
            ],
        }
    }

    pub(super) fn to_dense(t: &TrafficMatrix) -> Vec<Vec<u64>> {
        let n = t.ranks as usize;
        let mut m = vec![vec![0u64; n]; n];
        for &(a, b, c) in &t.entries {
            m[a as usize][b as usize] += c;
        }
        m
    }

    #[test]
    fn error_display_format() {
        let e = located("a.csv", Some(3), "bad");
        assert_eq!(e.to_string(), "a.csv:3: bad");
        let e = located("a.csv", None, "bad");
        assert_eq!(e.to_string(), "a.csv: bad");
    }

    proptest::proptest! {
        #[test]
        fn mutated_inputs_never_panic(
            edits in proptest::collection::vec((0usize..10_000, proptest::prelude::any::<u8>(), 0u8..3), 0..12)
        ) {
            for (base, name) in [
                (&b"src,dst,bytes\n0,1,5\n1,0,7\n2,2,0\n"[..], "m.csv"),
                (&b"1 0 3\n0 0 4\n5 6 0\n"[..], "d.csv"),
                (&b"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n3 1 7\n"[..], "m.mtx"),
                (&b"{\"ranks\": 3, \"entries\": [[0, 1, 5], [2, 0, 7]]}"[..], "m.json"),
            ] {
                if let Ok(m) = traffic_from_bytes(&mutate(base, &edits), name) {
                    plain_matrix_invariants(&m)?;
                }
            }
            let rank = rank_json(0, &[5, 0], &[1, 0]);
            let r = mutate(rank.as_bytes(), &edits);
            let members = vec![
                ("r0.json".to_string(), String::from_utf8_lossy(&r).into_owned()),
                ("r1.json".to_string(), rank_json(1, &[0, 2], &[0, 1])),
            ];
            for m in [
                traffic_from_bytes(&tar_bytes(&members, true), "m.tar.gz"),
                traffic_from_bytes(&mutate(&tar_bytes(&members, false), &edits), "m.tar"),
            ]
            .into_iter()
            .flatten()
            {
                for &(s, d, _) in &m.entries {
                    proptest::prop_assert!(s < m.ranks && d < m.ranks, "{m:?}");
                }
            }
        }
    }

    /// What every plain matrix (CSV, Matrix Market, JSON) that reads must satisfy: ranks
    /// in range, pairs in (src, dst) order without repeats, no zero-byte pair.
    fn plain_matrix_invariants(
        m: &TrafficMatrix,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        for &(s, d, b) in &m.entries {
            proptest::prop_assert!(s < m.ranks && d < m.ranks, "{m:?}");
            proptest::prop_assert!(b > 0, "{m:?}");
        }
        for w in m.entries.windows(2) {
            proptest::prop_assert!((w[0].0, w[0].1) < (w[1].0, w[1].1), "{m:?}");
        }
        Ok(())
    }

    #[test]
    fn unmutated_bases_read_as_written() {
        let read = |bytes: &[u8], name| traffic_from_bytes(bytes, name).unwrap();
        let m = read(b"src,dst,bytes\n0,1,5\n1,0,7\n2,2,0\n", "m.csv");
        assert_eq!((m.ranks, m.entries), (3, vec![(0, 1, 5), (1, 0, 7)]));
        let m = read(b"1 0 3\n0 0 4\n5 6 0\n", "d.csv");
        assert_eq!(
            (m.ranks, m.entries),
            (
                3,
                vec![(0, 0, 1), (0, 2, 3), (1, 2, 4), (2, 0, 5), (2, 1, 6)]
            )
        );
        let mtx = b"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n3 1 7\n";
        let m = read(mtx, "m.mtx");
        assert_eq!((m.ranks, m.entries), (3, vec![(0, 1, 5), (2, 0, 7)]));
        let m = read(
            b"{\"ranks\": 3, \"entries\": [[0, 1, 5], [2, 0, 7]]}",
            "m.json",
        );
        assert_eq!((m.ranks, m.entries), (3, vec![(0, 1, 5), (2, 0, 7)]));
        for (gzip, name) in [(true, "m.tar.gz"), (false, "m.tar")] {
            let members = vec![
                ("r0.json".to_string(), rank_json(0, &[5, 0], &[1, 0])),
                ("r1.json".to_string(), rank_json(1, &[0, 2], &[0, 1])),
            ];
            let m = read(&tar_bytes(&members, gzip), name);
            assert_eq!(
                (m.ranks, m.entries),
                (2, vec![(0, 0, 5), (1, 1, 2)]),
                "{name}"
            );
        }
    }
}
