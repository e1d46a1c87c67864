//! Traffic matrices (PFProf traces and plain matrices) and PFSim GraphML clusters.
//!
//! [`read_traffic`] reads what PFSim calls a trace: a tar archive (optionally gzip-compressed)
//! or a directory of per-rank PFProf JSON files, in PFSim's entry order (spec `pfsim.md`
//! §3.4, §7.2–7.4). It also reads plain matrices with no message counts: CSV (`src,dst,bytes`
//! rows or a dense square matrix), Matrix Market coordinate files and JSON matrices.
//! [`read_cluster_graphml`] reads PFSim's GraphML cluster schema (§3.1), and
//! [`read_cluster`] any fabric orcs reads as such a cluster.
//!
//! Every error is a [`TrafficError`] naming the file (for archives `archive:member`), the
//! 1-based line when it is known, and what was expected. No input makes these readers panic.

use flate2::read::MultiGzDecoder;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// A read or format error: the file, the 1-based line when known, and what was expected.
///
/// Displays as `path:line: message`, or `path: message` when the line is unknown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct TrafficError {
    /// The file; for archive members `archive.tar.gz:member.json`.
    pub path: String,
    /// 1-based line of the offending text, when known.
    pub line: Option<usize>,
    /// What was expected and what was found.
    pub message: String,
}

impl TrafficError {
    pub(crate) fn new(path: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        TrafficError {
            path: path.to_string(),
            line,
            message: message.into(),
        }
    }
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
///   then the largest index + 1) or a dense square array of arrays;
/// * otherwise a CSV matrix: `src,dst,bytes` rows (0-based ranks; optional header; n = largest
///   index + 1) or a dense square matrix of numbers (comma- or whitespace-separated; `#`
///   comment lines). A headerless file of exactly 3 rows of 3 numbers is read as a dense
///   3 × 3 matrix: add the header `src,dst,bytes` to read it as triples.
///
/// A gzip-compressed plain matrix is also accepted. Plain matrices keep entries with
/// bytes > 0; duplicate CSV / Matrix Market / JSON entries are summed. Byte counts must be
/// non-negative integers (`1e6` and `5.0` are accepted in plain matrices).
///
/// Time O(input size + E log E) for E entries; memory O(input size + E) (the decompressed
/// archive is held in memory).
pub fn read_traffic(path: &str) -> Result<TrafficMatrix, TrafficError> {
    let p = Path::new(path);
    let meta = std::fs::metadata(p)
        .map_err(|e| TrafficError::new(path, None, format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return read_trace_dir(path);
    }
    let bytes =
        std::fs::read(p).map_err(|e| TrafficError::new(path, None, format!("cannot read: {e}")))?;
    traffic_from_bytes(&bytes, path)
}

/// Format detection over the whole content of a file named `path`. O(input size).
fn traffic_from_bytes(bytes: &[u8], path: &str) -> Result<TrafficMatrix, TrafficError> {
    let lower = path.to_ascii_lowercase();
    let tar_name = lower.ends_with(".tar.gz") || lower.ends_with(".tgz") || lower.ends_with(".tar");
    let decompressed;
    let data: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| TrafficError::new(path, None, format!("invalid gzip data: {e}")))?;
        decompressed = out;
        &decompressed
    } else {
        bytes
    };
    if looks_like_tar(data) || (tar_name && !data.is_empty()) {
        return read_trace_tar(data, path);
    }
    let text = std::str::from_utf8(data).map_err(|e| {
        TrafficError::new(
            path,
            Some(line_at(data, e.valid_up_to())),
            "expected a tar archive or UTF-8 text (CSV, Matrix Market or JSON matrix)",
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let head = text.trim_start();
    if head.starts_with("%%MatrixMarket") {
        parse_matrix_market(text, path)
    } else if head.starts_with('{') || head.starts_with('[') {
        parse_json_matrix(text, path)
    } else {
        parse_csv_matrix(text, path)
    }
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

// ---------------------------------------------------------------------------------------
// PFProf traces
// ---------------------------------------------------------------------------------------

/// One PFProf rank file; unknown keys (rx_*, histograms, duration) are skipped.
#[derive(serde::Deserialize)]
struct RankFile {
    rank: Option<u64>,
    tx_bytes: Option<Vec<u64>>,
    tx_messages: Option<Vec<u64>>,
    phases: Option<Vec<Phase>>,
}

/// One phase of the multi-phase layout.
#[derive(serde::Deserialize)]
struct Phase {
    tx_bytes: Option<Vec<u64>>,
    tx_messages: Option<Vec<u64>>,
}

/// Converts a serde_json error into a [`TrafficError`] with its line (column in the message).
fn json_error(path: &str, e: &serde_json::Error, what: &str) -> TrafficError {
    let full = e.to_string();
    if e.line() == 0 {
        return TrafficError::new(path, None, format!("{what}: {full}"));
    }
    let msg = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => full.as_str(),
    };
    TrafficError::new(
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

/// A rank file parsed and checked against its own vectors (the rank count is checked later).
struct RankRow {
    member: String,
    rank: u64,
    rank_line: Option<usize>,
    tx_bytes: Vec<u64>,
    tx_messages: Vec<u64>,
    bytes_line: Option<usize>,
    messages_line: Option<usize>,
}

/// Parses one PFProf rank file named `member` (already `archive:member` for archives).
/// O(file size).
fn parse_rank_file(text: &str, member: &str) -> Result<RankRow, TrafficError> {
    let file: RankFile = serde_json::from_str(text)
        .map_err(|e| json_error(member, &e, "expected a PFProf rank JSON object"))?;
    let rank_line = line_of_key(text, "rank");
    let rank = file.rank.ok_or_else(|| {
        TrafficError::new(
            member,
            None,
            "missing `rank` (expected the rank's MPI_COMM_WORLD rank)",
        )
    })?;
    let (tx_bytes, tx_messages) = match (file.tx_bytes, file.tx_messages, file.phases) {
        (Some(b), Some(m), _) => (b, m),
        (None, None, Some(phases)) => {
            let Some(first) = phases.into_iter().next() else {
                return Err(TrafficError::new(
                    member,
                    line_of_key(text, "phases"),
                    "`phases` is empty (expected phase 0 with `tx_bytes` and `tx_messages`)",
                ));
            };
            match (first.tx_bytes, first.tx_messages) {
                (Some(b), Some(m)) => (b, m),
                _ => {
                    return Err(TrafficError::new(
                        member,
                        line_of_key(text, "phases"),
                        "phase 0 lacks `tx_bytes` or `tx_messages`",
                    ))
                }
            }
        }
        (Some(_), None, _) => {
            return Err(TrafficError::new(
                member,
                line_of_key(text, "tx_bytes"),
                "missing `tx_messages` (expected both `tx_bytes` and `tx_messages`)",
            ))
        }
        (None, Some(_), _) => {
            return Err(TrafficError::new(
                member,
                line_of_key(text, "tx_messages"),
                "missing `tx_bytes` (expected both `tx_bytes` and `tx_messages`)",
            ))
        }
        (None, None, None) => {
            return Err(TrafficError::new(
                member,
                None,
                "missing `tx_bytes` and `tx_messages` (expected them at the top level or in `phases[0]`)",
            ))
        }
    };
    Ok(RankRow {
        member: member.to_string(),
        rank,
        rank_line,
        tx_bytes,
        tx_messages,
        bytes_line: line_of_key(text, "tx_bytes"),
        messages_line: line_of_key(text, "tx_messages"),
    })
}

/// Builds the matrix from rank rows in member order, checking ranks and vector lengths.
/// O(n²) for n rank files.
fn assemble_trace(rows: Vec<RankRow>, container: &str) -> Result<TrafficMatrix, TrafficError> {
    if rows.is_empty() {
        return Err(TrafficError::new(
            container,
            None,
            "no `.json` rank files (expected one PFProf JSON file per rank)",
        ));
    }
    let n = rows.len();
    let ranks = u32::try_from(n)
        .map_err(|_| TrafficError::new(container, None, format!("{n} rank files: too many")))?;
    let mut seen: Vec<Option<usize>> = vec![None; n];
    for (i, row) in rows.iter().enumerate() {
        if row.rank >= n as u64 {
            return Err(TrafficError::new(
                &row.member,
                row.rank_line,
                format!(
                    "rank {} out of range (expected a rank below {n}, the number of rank files)",
                    row.rank
                ),
            ));
        }
        let r = row.rank as usize;
        if let Some(prev) = seen[r] {
            return Err(TrafficError::new(
                &row.member,
                row.rank_line,
                format!("duplicate rank {r} (also in {})", rows[prev].member),
            ));
        }
        seen[r] = Some(i);
        for (name, len, line) in [
            ("tx_messages", row.tx_messages.len(), row.messages_line),
            ("tx_bytes", row.tx_bytes.len(), row.bytes_line),
        ] {
            if len != n {
                return Err(TrafficError::new(
                    &row.member,
                    line,
                    format!("`{name}` has {len} values (expected {n}, one per rank file)"),
                ));
            }
        }
    }
    let mut entries = Vec::new();
    for row in &rows {
        let src = row.rank as u32;
        for (dst, (&m, &b)) in row.tx_messages.iter().zip(&row.tx_bytes).enumerate() {
            if m > 0 {
                entries.push((src, dst as u32, b));
            }
        }
    }
    Ok(TrafficMatrix { ranks, entries })
}

/// Reads a tar archive's `.json` regular-file members in archive order. O(archive size).
fn read_trace_tar(data: &[u8], path: &str) -> Result<TrafficMatrix, TrafficError> {
    let mut archive = tar::Archive::new(data);
    let entries = archive
        .entries()
        .map_err(|e| TrafficError::new(path, None, format!("invalid tar archive: {e}")))?;
    let mut rows = Vec::new();
    for entry in entries {
        let mut entry = entry
            .map_err(|e| TrafficError::new(path, None, format!("invalid tar archive: {e}")))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let member = format!("{path}:{name}");
        let mut buf = Vec::new();
        entry
            .read_to_end(&mut buf)
            .map_err(|e| TrafficError::new(&member, None, format!("cannot read member: {e}")))?;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            TrafficError::new(
                &member,
                Some(line_at(&buf, e.valid_up_to())),
                "expected UTF-8 JSON text",
            )
        })?;
        rows.push(parse_rank_file(text, &member)?);
    }
    assemble_trace(rows, path)
}

/// Reads every `*.json` file under a directory (recursively; symbolic links to directories
/// are not followed) in lexicographic order of relative path. O(total size).
fn read_trace_dir(path: &str) -> Result<TrafficMatrix, TrafficError> {
    let root = Path::new(path);
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    let mut stack = vec![(String::new(), root.to_path_buf())];
    while let Some((rel, dir)) = stack.pop() {
        let rd = std::fs::read_dir(&dir).map_err(|e| {
            TrafficError::new(
                &dir.to_string_lossy(),
                None,
                format!("cannot read directory: {e}"),
            )
        })?;
        for ent in rd {
            let ent = ent.map_err(|e| {
                TrafficError::new(
                    &dir.to_string_lossy(),
                    None,
                    format!("cannot read directory: {e}"),
                )
            })?;
            let name = ent.file_name().to_string_lossy().into_owned();
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let ft = ent.file_type().map_err(|e| {
                TrafficError::new(
                    &ent.path().to_string_lossy(),
                    None,
                    format!("cannot stat: {e}"),
                )
            })?;
            if ft.is_dir() {
                stack.push((child_rel, ent.path()));
            } else if name.ends_with(".json")
                && std::fs::metadata(ent.path()).is_ok_and(|m| m.is_file())
            {
                files.push((child_rel, ent.path()));
            }
        }
    }
    files.sort();
    let mut rows = Vec::with_capacity(files.len());
    for (_, file) in &files {
        let shown = file.to_string_lossy().into_owned();
        let buf = std::fs::read(file)
            .map_err(|e| TrafficError::new(&shown, None, format!("cannot read: {e}")))?;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            TrafficError::new(
                &shown,
                Some(line_at(&buf, e.valid_up_to())),
                "expected UTF-8 JSON text",
            )
        })?;
        rows.push(parse_rank_file(text, &shown)?);
    }
    assemble_trace(rows, path)
}

// ---------------------------------------------------------------------------------------
// Plain matrices
// ---------------------------------------------------------------------------------------

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
) -> Result<TrafficMatrix, TrafficError> {
    raw.sort_by_key(|&(s, d, _)| (s, d));
    let mut entries: Vec<(u32, u32, u64)> = Vec::with_capacity(raw.len());
    for (s, d, b) in raw {
        match entries.last_mut() {
            Some(last) if last.0 == s && last.1 == d => {
                last.2 = last.2.checked_add(b).ok_or_else(|| {
                    TrafficError::new(
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
fn rank_count(n: u64, path: &str, line: Option<usize>) -> Result<u32, TrafficError> {
    u32::try_from(n)
        .ok()
        .filter(|&v| v < u32::MAX)
        .ok_or_else(|| {
            TrafficError::new(
                path,
                line,
                format!("{n} ranks: too many (at most 2^32 - 2)"),
            )
        })
}

/// CSV: `src,dst,bytes` rows or a dense square matrix. O(input size + E log E).
fn parse_csv_matrix(text: &str, path: &str) -> Result<TrafficMatrix, TrafficError> {
    let mut header: Option<usize> = None;
    let mut rows: Vec<(usize, Vec<&str>)> = Vec::new();
    for (i, raw_line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw_line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = if line.contains(',') {
            line.split(',').map(str::trim).collect()
        } else if line.contains(';') {
            line.split(';').map(str::trim).collect()
        } else {
            line.split_whitespace().collect()
        };
        let numeric = fields.iter().all(|f| parse_bytes(f).is_some());
        if !numeric {
            // A header: the first content line, with no field that reads as a number.
            let is_header = rows.is_empty()
                && header.is_none()
                && fields
                    .iter()
                    .all(|f| !f.is_empty() && f.parse::<f64>().is_err());
            if is_header {
                header = Some(fields.len());
                continue;
            }
            let bad = fields
                .iter()
                .find(|f| parse_bytes(f).is_none())
                .copied()
                .unwrap_or("");
            return Err(TrafficError::new(
                path,
                Some(line_no),
                format!("expected a non-negative integer, found `{}`", show(bad)),
            ));
        }
        if let Some((first_line, first)) = rows.first() {
            if first.len() != fields.len() {
                return Err(TrafficError::new(
                    path,
                    Some(line_no),
                    format!(
                        "expected {} fields (as on line {first_line}), found {}",
                        first.len(),
                        fields.len()
                    ),
                ));
            }
        }
        rows.push((line_no, fields));
    }
    let Some((_, first)) = rows.first() else {
        return Err(TrafficError::new(
            path,
            None,
            "no data rows (expected `src,dst,bytes` rows or a square matrix)",
        ));
    };
    let width = first.len();
    if let Some(hw) = header {
        if hw != width {
            return Err(TrafficError::new(
                path,
                Some(rows[0].0),
                format!("the header has {hw} fields but the rows have {width}"),
            ));
        }
    }
    let triples = if header.is_some() {
        width == 3
    } else {
        rows.len() != width && width == 3
    };
    if triples {
        let mut raw = Vec::with_capacity(rows.len());
        let mut max_index = 0u64;
        for (line_no, f) in &rows {
            let (Some(s), Some(d)) = (parse_index(f[0]), parse_index(f[1])) else {
                return Err(TrafficError::new(
                    path,
                    Some(*line_no),
                    "expected integer ranks",
                ));
            };
            let b = parse_bytes(f[2]).unwrap_or(0);
            if s >= u32::MAX as u64 - 1 || d >= u32::MAX as u64 - 1 {
                return Err(TrafficError::new(
                    path,
                    Some(*line_no),
                    format!("rank {} out of range (at most 2^32 - 3)", s.max(d)),
                ));
            }
            max_index = max_index.max(s).max(d);
            raw.push((s as u32, d as u32, b));
        }
        let ranks = rank_count(max_index + 1, path, None)?;
        return finish_plain(raw, ranks, path);
    }
    if rows.len() != width {
        return Err(TrafficError::new(
            path,
            Some(rows.last().map_or(1, |r| r.0)),
            format!(
                "expected `src,dst,bytes` rows or a square matrix; found {} rows of {width} fields",
                rows.len()
            ),
        ));
    }
    let ranks = rank_count(width as u64, path, None)?;
    let mut raw = Vec::new();
    for (s, (_, f)) in rows.iter().enumerate() {
        for (d, tok) in f.iter().enumerate() {
            let b = parse_bytes(tok).unwrap_or(0);
            if b > 0 {
                raw.push((s as u32, d as u32, b));
            }
        }
    }
    finish_plain(raw, ranks, path)
}

/// Matrix Market coordinate (integer or real; general or symmetric), 1-based indices.
/// O(input size + E log E).
fn parse_matrix_market(text: &str, path: &str) -> Result<TrafficMatrix, TrafficError> {
    let mut lines = text.lines().enumerate();
    let (_, banner) = lines
        .next()
        .ok_or_else(|| TrafficError::new(path, Some(1), "empty Matrix Market file"))?;
    let words: Vec<String> = banner
        .trim_start_matches('\u{feff}')
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let ok_banner = words.len() == 5
        && words[0] == "%%matrixmarket"
        && words[1] == "matrix"
        && words[2] == "coordinate"
        && (words[3] == "integer" || words[3] == "real")
        && (words[4] == "general" || words[4] == "symmetric");
    if !ok_banner {
        return Err(TrafficError::new(
            path,
            Some(1),
            format!(
                "expected `%%MatrixMarket matrix coordinate integer|real general|symmetric`, found `{}`",
                show(banner.trim())
            ),
        ));
    }
    let symmetric = words[4] == "symmetric";
    let mut size: Option<(u64, u64)> = None;
    let mut raw = Vec::new();
    let mut count = 0u64;
    let mut last_line = 1;
    for (i, line) in lines {
        let line_no = i + 1;
        last_line = line_no;
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some((n, nnz)) = size else {
            let dims: Vec<Option<u64>> = f.iter().map(|t| t.parse::<u64>().ok()).collect();
            match dims.as_slice() {
                [Some(r), Some(c), Some(nnz)] if r == c => {
                    rank_count(*r, path, Some(line_no))?;
                    size = Some((*r, *nnz));
                }
                [Some(r), Some(c), Some(_)] => {
                    return Err(TrafficError::new(
                        path,
                        Some(line_no),
                        format!("expected a square matrix (ranks × ranks), found {r} × {c}"),
                    ))
                }
                _ => {
                    return Err(TrafficError::new(
                        path,
                        Some(line_no),
                        format!(
                            "expected the size line `rows cols entries`, found `{}`",
                            show(line)
                        ),
                    ))
                }
            }
            continue;
        };
        if f.len() != 3 {
            return Err(TrafficError::new(
                path,
                Some(line_no),
                format!("expected `row col bytes`, found `{}`", show(line)),
            ));
        }
        count += 1;
        if count > nnz {
            return Err(TrafficError::new(
                path,
                Some(line_no),
                format!("more entries than the {nnz} declared"),
            ));
        }
        let mut idx = [0u32; 2];
        for (k, tok) in f[..2].iter().enumerate() {
            match tok.parse::<u64>() {
                Ok(v) if v >= 1 && v <= n => idx[k] = (v - 1) as u32,
                _ => {
                    return Err(TrafficError::new(
                        path,
                        Some(line_no),
                        format!(
                            "index `{}` out of range (expected 1..={n}, 1-based)",
                            show(tok)
                        ),
                    ))
                }
            }
        }
        let b = parse_bytes(f[2]).ok_or_else(|| {
            TrafficError::new(
                path,
                Some(line_no),
                format!(
                    "expected a non-negative integer byte count, found `{}`",
                    show(f[2])
                ),
            )
        })?;
        raw.push((idx[0], idx[1], b));
        if symmetric && idx[0] != idx[1] {
            raw.push((idx[1], idx[0], b));
        }
    }
    let Some((n, nnz)) = size else {
        return Err(TrafficError::new(
            path,
            Some(last_line),
            "missing the size line `rows cols entries`",
        ));
    };
    if count != nnz {
        return Err(TrafficError::new(
            path,
            Some(last_line),
            format!("expected {nnz} entries, found {count}"),
        ));
    }
    finish_plain(raw, n as u32, path)
}

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
}

/// JSON matrix: `{"ranks": n, "entries": [[s, d, b], ...]}` or a dense array of arrays.
/// O(input size + E log E).
fn parse_json_matrix(text: &str, path: &str) -> Result<TrafficMatrix, TrafficError> {
    if text.trim_start().starts_with('{') {
        if line_of_key(text, "tx_messages").is_some() || line_of_key(text, "phases").is_some() {
            return Err(TrafficError::new(
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
        let n = m.ranks.unwrap_or(max);
        let ranks = rank_count(n, path, line_of_key(text, "ranks"))?;
        let mut raw = Vec::with_capacity(m.entries.len());
        for (i, &(s, d, JsonBytes(b))) in m.entries.iter().enumerate() {
            if s >= n || d >= n {
                return Err(TrafficError::new(
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
        return Err(TrafficError::new(
            path,
            None,
            "empty matrix (expected at least one row)",
        ));
    }
    if let Some((i, row)) = dense.iter().enumerate().find(|(_, r)| r.len() != n) {
        return Err(TrafficError::new(
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
    use super::*;
    use std::io::Write;

    /// A file of PFSim's data in `../shared/traces/pfsim/`, or None with a visible note.
    #[track_caller]
    fn shared(rel: &str) -> Option<String> {
        crate::test_support::shared(&format!("traces/pfsim/{rel}"))
    }

    fn rank_json(rank: u32, bytes: &[u64], msgs: &[u64]) -> String {
        let v = serde_json::json!({
            "description": "Generated by Oxton v0.2.0", "n_events": 7, "n_procs": bytes.len(),
            "processor_name": "milk01", "rank": rank,
            "rx_bytes": bytes, "rx_messages": msgs,
            "tx_bytes": bytes, "tx_messages": msgs,
            "tx_message_sizes": [{"frequency": 1, "message_size": 4}], "rx_message_sizes": []
        });
        serde_json::to_string_pretty(&v).unwrap()
    }

    /// Three rank files: rank 2 sends zero bytes in one message to rank 0 (a flow).
    fn three_ranks() -> Vec<(String, String)> {
        vec![
            (
                "oxton-result0.json".into(),
                rank_json(0, &[5, 10, 0], &[1, 2, 0]),
            ),
            (
                "oxton-result1.json".into(),
                rank_json(1, &[0, 0, 30], &[0, 0, 3]),
            ),
            (
                "oxton-result2.json".into(),
                rank_json(2, &[0, 7, 9], &[1, 0, 4]),
            ),
        ]
    }

    fn expected_three() -> TrafficMatrix {
        TrafficMatrix {
            ranks: 3,
            entries: vec![(0, 0, 5), (0, 1, 10), (1, 2, 30), (2, 0, 0), (2, 2, 9)],
        }
    }

    fn tar_bytes(members: &[(String, String)], gzip: bool) -> Vec<u8> {
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

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    }

    fn err_of(r: Result<TrafficMatrix, TrafficError>) -> TrafficError {
        r.expect_err("expected an error")
    }

    // ---- PFProf traces ---------------------------------------------------------------

    /// Independent recomputation: tar crate + serde_json::Value walk, in archive order.
    /// Returns (row rank per member, pairs with messages, zero-byte pairs, total bytes, self bytes).
    fn recompute(path: &str) -> (Vec<u64>, usize, usize, u128, u128) {
        let f = std::fs::File::open(path).unwrap();
        let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
        let (mut order, mut pairs, mut zero, mut total, mut own) = (Vec::new(), 0, 0, 0u128, 0u128);
        for ent in ar.entries().unwrap() {
            let mut ent = ent.unwrap();
            let name = ent.path().unwrap().to_string_lossy().into_owned();
            if !ent.header().entry_type().is_file() || !name.ends_with(".json") {
                continue;
            }
            let mut s = String::new();
            ent.read_to_string(&mut s).unwrap();
            let v: serde_json::Value = serde_json::from_str(&s).unwrap();
            let rank = v["rank"].as_u64().unwrap();
            order.push(rank);
            let m = v["tx_messages"].as_array().unwrap();
            let b = v["tx_bytes"].as_array().unwrap();
            for j in 0..m.len() {
                if m[j].as_u64().unwrap() > 0 {
                    let bytes = b[j].as_u64().unwrap() as u128;
                    pairs += 1;
                    zero += usize::from(bytes == 0);
                    total += bytes;
                    if j as u64 == rank {
                        own += bytes;
                    }
                }
            }
        }
        (order, pairs, zero, total, own)
    }

    #[test]
    fn cg_c_128_trace() {
        let Some(p) = shared("traces/cg-c-128.tar.gz") else {
            return;
        };
        let t = read_traffic(&p).unwrap();
        assert_eq!(t.ranks, 128);
        assert_eq!(t.entries.len(), 1024);
        assert_eq!(t.entries.iter().filter(|e| e.2 == 0).count(), 265);
        let (order, pairs, zero, total, own) = recompute(&p);
        assert_eq!((pairs, zero), (1024, 265));
        assert_eq!(t.total_bytes() as u128, total);
        assert!(
            (t.total_bytes() as f64 / 9.485e10 - 1.0).abs() < 5e-4,
            "{}",
            t.total_bytes()
        );
        let self_bytes: u64 = t.entries.iter().filter(|e| e.0 == e.1).map(|e| e.2).sum();
        assert_eq!(self_bytes as u128, own);
        assert!(
            (self_bytes as f64 / 2.37e9 - 1.0).abs() < 5e-3,
            "{self_bytes}"
        );
        // Rows follow member order: result0, result1, result10, result100, ...
        assert_eq!(&order[..4], &[0, 1, 10, 100]);
        let mut rows: Vec<u32> = t.entries.iter().map(|e| e.0).collect();
        rows.dedup();
        assert_eq!(rows.iter().map(|&r| r as u64).collect::<Vec<_>>(), order);
        // Within a row, dst ascending.
        assert!(t
            .entries
            .windows(2)
            .all(|w| w[0].0 != w[1].0 || w[0].1 < w[1].1));
    }

    #[test]
    fn sample_trace_table() {
        // (file, ranks, pairs, total bytes / 1e10 as in spec §7.3)
        let table: [(&str, u32, usize, f64); 9] = [
            ("traces/milc-128.tar.gz", 128, 1154, 8.203),
            ("traces/ft-c-128.tar.gz", 128, 16256, 4.688),
            ("traces/openfoam-cavity-160.tar.gz", 160, 2310, 16.18),
            ("traces/openfoam-dambreak-160.tar.gz", 160, 2089, 101.2),
            ("traces-historical/gromacs-64.tar.gz", 64, 1119, 2.132),
            ("traces-historical/dambreak-64.tar.gz", 64, 701, 16.62),
            ("traces-historical/dambreak-128.tar.gz", 128, 1622, 0.5258),
            ("traces-historical/ft-d-128.tar.gz", 128, 16256, 92.05),
            ("traces/cg-c-128.tar.gz", 128, 1024, 9.485),
        ];
        for (file, ranks, pairs, total) in table {
            let Some(p) = shared(file) else { return };
            let t = read_traffic(&p).unwrap();
            let zero = t.entries.iter().filter(|e| e.2 == 0).count();
            eprintln!(
                "{file}: {} ranks, {} entries ({zero} zero-byte), {} bytes",
                t.ranks,
                t.entries.len(),
                t.total_bytes()
            );
            assert_eq!((t.ranks, t.entries.len()), (ranks, pairs), "{file}");
            let (_, want_pairs, _, want_total, _) = recompute(&p);
            assert_eq!(
                (t.entries.len(), t.total_bytes() as u128),
                (want_pairs, want_total),
                "{file}"
            );
            let rel = t.total_bytes() as f64 / (total * 1e10) - 1.0;
            assert!(
                rel.abs() < 1e-3,
                "{file}: {} vs {total}e10",
                t.total_bytes()
            );
        }
    }

    #[test]
    fn directory_equals_tar_gz_and_tar() {
        let dir = tempfile::tempdir().unwrap();
        let members = three_ranks();
        let ranks_dir = dir.path().join("ranks");
        // Written in reverse: the reader sorts by name, not by creation order.
        for (name, text) in members.iter().rev() {
            write(&ranks_dir, &format!("sub/{name}"), text.as_bytes());
        }
        write(&ranks_dir, "README.txt", b"not a rank file");
        let from_dir = read_traffic(&ranks_dir.to_string_lossy()).unwrap();
        assert_eq!(from_dir, expected_three());
        let tgz = write(dir.path(), "t.tar.gz", &tar_bytes(&members, true));
        assert_eq!(read_traffic(&tgz).unwrap(), from_dir);
        let tar_plain = write(dir.path(), "t.tar", &tar_bytes(&members, false));
        assert_eq!(read_traffic(&tar_plain).unwrap(), from_dir);
        // Member order decides the entry order: 10 before 2.
        let mut many: Vec<(String, String)> = (0..11)
            .map(|r| {
                let mut b = vec![0u64; 11];
                b[0] = r as u64 + 1;
                let mut m = vec![0u64; 11];
                m[0] = 1;
                (format!("oxton-result{r}.json"), rank_json(r, &b, &m))
            })
            .collect();
        many.sort();
        let t = traffic_from_bytes(&tar_bytes(&many, true), "m.tgz").unwrap();
        let rows: Vec<u32> = t.entries.iter().map(|e| e.0).collect();
        assert_eq!(rows, [0, 1, 10, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(t.total_bytes(), 66);
    }

    #[test]
    fn multi_phase_reads_phase_zero() {
        let phase = |b: &[u64], m: &[u64]| {
            serde_json::json!({"n_events": 1, "tx_bytes": b, "tx_messages": m,
                "rx_bytes": b, "rx_messages": m, "tx_message_sizes": [], "rx_message_sizes": []})
        };
        let file = |rank: u32, p0: (&[u64], &[u64]), p1: (&[u64], &[u64])| {
            serde_json::json!({"rank": rank, "n_procs": 2, "processor_name": "x",
                "description": "d", "n_phases": 2, "phases": [phase(p0.0, p0.1), phase(p1.0, p1.1)]})
            .to_string()
        };
        let members = vec![
            (
                "a/oxton-result0.json".to_string(),
                file(0, (&[0, 8], &[0, 2]), (&[0, 3], &[0, 1])),
            ),
            (
                "a/oxton-result1.json".to_string(),
                file(1, (&[4, 0], &[1, 0]), (&[9, 9], &[1, 1])),
            ),
        ];
        let t = traffic_from_bytes(&tar_bytes(&members, true), "p.tar.gz").unwrap();
        assert_eq!(
            t,
            TrafficMatrix {
                ranks: 2,
                entries: vec![(0, 1, 8), (1, 0, 4)]
            }
        );
    }

    #[test]
    fn trace_errors_name_member_and_line() {
        let mut members = three_ranks();
        // Truncated member.
        let cut = members[1].1[..members[1].1.len() / 2].to_string();
        let mut bad = members.clone();
        bad[1].1 = cut;
        let e = err_of(traffic_from_bytes(&tar_bytes(&bad, true), "a.tar.gz"));
        assert_eq!(e.path, "a.tar.gz:oxton-result1.json");
        assert!(e.line.is_some(), "{e}");
        assert!(
            e.to_string().starts_with("a.tar.gz:oxton-result1.json:"),
            "{e}"
        );
        assert!(e.message.contains("EOF"), "{e}");

        // Rank out of range: line of "rank".
        let mut bad = members.clone();
        bad[2].1 = rank_json(3, &[0, 0, 0], &[0, 0, 0]);
        let e = err_of(traffic_from_bytes(&tar_bytes(&bad, true), "a.tar.gz"));
        let rank_line = bad[2]
            .1
            .lines()
            .position(|l| l.contains("\"rank\""))
            .unwrap()
            + 1;
        assert_eq!(
            (e.path.as_str(), e.line),
            ("a.tar.gz:oxton-result2.json", Some(rank_line))
        );
        assert!(e.message.contains("rank 3 out of range"), "{e}");

        // Duplicate rank.
        let mut bad = members.clone();
        bad[2].1 = rank_json(0, &[0, 0, 0], &[0, 0, 0]);
        let e = err_of(traffic_from_bytes(&tar_bytes(&bad, true), "a.tar.gz"));
        assert!(e.message.contains("duplicate rank 0"), "{e}");

        // Vector length mismatch: line of "tx_bytes".
        let mut bad = members.clone();
        bad[0].1 = bad[0]
            .1
            .replace("\"tx_bytes\": [\n    5,", "\"tx_bytes\": [");
        let e = err_of(traffic_from_bytes(&tar_bytes(&bad, true), "a.tar.gz"));
        let line = bad[0]
            .1
            .lines()
            .position(|l| l.contains("\"tx_bytes\""))
            .unwrap()
            + 1;
        assert_eq!(e.line, Some(line), "{e}");
        assert!(
            e.message.contains("`tx_bytes` has 2 values (expected 3"),
            "{e}"
        );

        // Negative byte count: serde's exact line.
        members[1].1 = members[1].1.replace("    30\n", "    -30\n");
        let e = err_of(traffic_from_bytes(&tar_bytes(&members, true), "a.tar.gz"));
        // rx_bytes holds -30 too but is skipped; the error is in tx_bytes (the last one).
        let line = members[1]
            .1
            .lines()
            .collect::<Vec<_>>()
            .iter()
            .rposition(|l| l.contains("-30"))
            .unwrap()
            + 1;
        assert_eq!(e.line, Some(line), "{e}");

        // Not a tar and not text; empty archive.
        let e = err_of(traffic_from_bytes(&[0x1f, 0x8b, 1, 2, 3], "x.tar.gz"));
        assert!(e.message.contains("gzip"), "{e}");
        let e = err_of(traffic_from_bytes(&tar_bytes(&[], true), "e.tar.gz"));
        assert!(e.message.contains("no `.json` rank files"), "{e}");
    }

    #[test]
    fn error_display_format() {
        let e = TrafficError::new("a.csv", Some(3), "bad");
        assert_eq!(e.to_string(), "a.csv:3: bad");
        let e = TrafficError::new("a.csv", None, "bad");
        assert_eq!(e.to_string(), "a.csv: bad");
    }

    // ---- plain matrices --------------------------------------------------------------

    fn sample() -> TrafficMatrix {
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

    fn to_csv(t: &TrafficMatrix) -> String {
        let mut s = String::from("src,dst,bytes\n");
        for (a, b, c) in &t.entries {
            s += &format!("{a},{b},{c}\n");
        }
        s
    }

    fn to_dense(t: &TrafficMatrix) -> Vec<Vec<u64>> {
        let n = t.ranks as usize;
        let mut m = vec![vec![0u64; n]; n];
        for &(a, b, c) in &t.entries {
            m[a as usize][b as usize] += c;
        }
        m
    }

    fn to_mm(t: &TrafficMatrix) -> String {
        let mut s = format!(
            "%%MatrixMarket matrix coordinate integer general\n% comment\n{0} {0} {1}\n",
            t.ranks,
            t.entries.len()
        );
        for (a, b, c) in &t.entries {
            s += &format!("{} {} {c}\n", a + 1, b + 1);
        }
        s
    }

    #[test]
    fn csv_round_trips() {
        let t = sample();
        assert_eq!(parse_csv_matrix(&to_csv(&t), "t.csv").unwrap(), t);
        let dense: String = to_dense(&t)
            .iter()
            .map(|r| r.iter().map(u64::to_string).collect::<Vec<_>>().join(",") + "\n")
            .collect();
        assert_eq!(traffic_from_bytes(dense.as_bytes(), "d.csv").unwrap(), t);
        let ws = dense.replace(',', " ");
        assert_eq!(traffic_from_bytes(ws.as_bytes(), "d.txt").unwrap(), t);
        // Duplicates summed, zero rows dropped, exponent form, comments, no header.
        let dup = "# c\n0,1,60\n0,1,40\n0,3,7\n1,1,5\n2,0,1099511627776\n3,2,1e0\n3,3,0\n";
        assert_eq!(parse_csv_matrix(dup, "t.csv").unwrap(), t);
        // 3 rows of 3 with a header are triples; without, a dense 3 x 3 matrix.
        let tri = "src,dst,bytes\n0,1,5\n1,2,6\n2,0,7\n";
        let m = parse_csv_matrix(tri, "t.csv").unwrap();
        assert_eq!(m.entries, [(0, 1, 5), (1, 2, 6), (2, 0, 7)]);
        let m = parse_csv_matrix(&tri[14..], "t.csv").unwrap();
        assert_eq!(m.entries.len(), 7);
    }

    #[test]
    fn csv_errors() {
        let e = parse_csv_matrix("src,dst,bytes\n0,1,5\n1,2,-6\n", "t.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:3: expected a non-negative integer, found `-6`"
        );
        let e = parse_csv_matrix("0,1,5\n1,2\n", "t.csv").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse_csv_matrix("0,1,2.5\n1,2,3\n", "t.csv").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = parse_csv_matrix("1,2,3,4\n5,6,7,8\n", "t.csv").unwrap_err();
        assert!(e.message.contains("square"), "{e}");
        assert!(parse_csv_matrix("# only\n\n", "t.csv").is_err());
    }

    #[test]
    fn matrix_market_round_trip() {
        let t = sample();
        assert_eq!(
            traffic_from_bytes(to_mm(&t).as_bytes(), "t.mtx").unwrap(),
            t
        );
        let real =
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 4.0e2\n3 3 1\n3 3 2\n";
        let e = parse_matrix_market(real, "t.mtx").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (Some(5), "more entries than the 2 declared")
        );
        let sym =
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 4.0e2\n3 3 1\n3 3 2\n";
        let m = parse_matrix_market(sym, "t.mtx").unwrap();
        assert_eq!(
            m,
            TrafficMatrix {
                ranks: 3,
                entries: vec![(0, 1, 400), (1, 0, 400), (2, 2, 3)]
            }
        );
    }

    #[test]
    fn matrix_market_errors() {
        let zero = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n0 1 5\n";
        let e = parse_matrix_market(zero, "z.mtx").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("z.mtx:3: index `0` out of range (expected 1..=2"),
            "{e}"
        );
        let e = parse_matrix_market(&zero.replace("0 1 5", "1 1 0.5"), "z.mtx").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse_matrix_market(&zero.replace("2 2 1", "2 3 1"), "z.mtx").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse_matrix_market(&zero.replace("0 1 5\n", ""), "z.mtx").unwrap_err();
        assert!(e.message.contains("expected 1 entries, found 0"), "{e}");
        let e = parse_matrix_market(&zero.replace("general", "hermitian"), "z.mtx").unwrap_err();
        assert_eq!(e.line, Some(1));
    }

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

    fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
        let mut v = base.to_vec();
        for &(pos, byte, kind) in edits {
            let i = if v.is_empty() { 0 } else { pos % (v.len() + 1) };
            match kind % 3 {
                0 if i < v.len() => v[i] = byte,
                1 => v.insert(i, byte),
                _ if i < v.len() => {
                    v.remove(i);
                }
                _ => v.push(byte),
            }
        }
        v
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
                let _ = traffic_from_bytes(&mutate(base, &edits), name);
            }
            let rank = rank_json(0, &[5, 0], &[1, 0]);
            let r = mutate(rank.as_bytes(), &edits);
            let members = vec![
                ("r0.json".to_string(), String::from_utf8_lossy(&r).into_owned()),
                ("r1.json".to_string(), rank_json(1, &[0, 2], &[0, 1])),
            ];
            let _ = traffic_from_bytes(&tar_bytes(&members, true), "m.tar.gz");
            let _ = traffic_from_bytes(&mutate(&tar_bytes(&members, false), &edits), "m.tar");
        }
    }
}
