//! PFProf traces (spec `pfsim.md` §3.4, §7.2–7.4): one JSON file per rank in a tar
//! archive (gzip-compressed or not) or a directory, read in PFSim's member order into a
//! [`TrafficMatrix`] that keeps every pair with at least one message.

use super::{json_error, line_at, line_of_key, located, TrafficMatrix};
use crate::error::LocatedError;
use std::io::Read;
use std::path::Path;
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
fn parse_rank_file(text: &str, member: &str) -> Result<RankRow, LocatedError> {
    let file: RankFile = serde_json::from_str(text)
        .map_err(|e| json_error(member, &e, "expected a PFProf rank JSON object"))?;
    let rank_line = line_of_key(text, "rank");
    let rank = file.rank.ok_or_else(|| {
        located(
            member,
            None,
            "missing `rank` (expected the rank's MPI_COMM_WORLD rank)",
        )
    })?;
    let (tx_bytes, tx_messages) = match (file.tx_bytes, file.tx_messages, file.phases) {
        (Some(b), Some(m), _) => (b, m),
        (None, None, Some(phases)) => {
            let Some(first) = phases.into_iter().next() else {
                return Err(located(
                    member,
                    line_of_key(text, "phases"),
                    "`phases` is empty (expected phase 0 with `tx_bytes` and `tx_messages`)",
                ));
            };
            match (first.tx_bytes, first.tx_messages) {
                (Some(b), Some(m)) => (b, m),
                _ => {
                    return Err(located(
                        member,
                        line_of_key(text, "phases"),
                        "phase 0 lacks `tx_bytes` or `tx_messages`",
                    ))
                }
            }
        }
        (Some(_), None, _) => {
            return Err(located(
                member,
                line_of_key(text, "tx_bytes"),
                "missing `tx_messages` (expected both `tx_bytes` and `tx_messages`)",
            ))
        }
        (None, Some(_), _) => {
            return Err(located(
                member,
                line_of_key(text, "tx_messages"),
                "missing `tx_bytes` (expected both `tx_bytes` and `tx_messages`)",
            ))
        }
        (None, None, None) => {
            return Err(located(
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
fn assemble_trace(rows: Vec<RankRow>, container: &str) -> Result<TrafficMatrix, LocatedError> {
    if rows.is_empty() {
        return Err(located(
            container,
            None,
            "no `.json` rank files (expected one PFProf JSON file per rank)",
        ));
    }
    let n = rows.len();
    let ranks = u32::try_from(n)
        .map_err(|_| located(container, None, format!("{n} rank files: too many")))?;
    let mut seen: Vec<Option<usize>> = vec![None; n];
    for (i, row) in rows.iter().enumerate() {
        if row.rank >= n as u64 {
            return Err(located(
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
            return Err(located(
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
                return Err(located(
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
pub(super) fn read_trace_tar(data: &[u8], path: &str) -> Result<TrafficMatrix, LocatedError> {
    let mut archive = tar::Archive::new(data);
    let entries = archive
        .entries()
        .map_err(|e| located(path, None, format!("invalid tar archive: {e}")))?;
    let mut rows = Vec::new();
    for entry in entries {
        let mut entry =
            entry.map_err(|e| located(path, None, format!("invalid tar archive: {e}")))?;
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
            .map_err(|e| located(&member, None, format!("cannot read member: {e}")))?;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            located(
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
pub(super) fn read_trace_dir(path: &str) -> Result<TrafficMatrix, LocatedError> {
    let root = Path::new(path);
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    let mut stack = vec![(String::new(), root.to_path_buf())];
    while let Some((rel, dir)) = stack.pop() {
        let rd = std::fs::read_dir(&dir).map_err(|e| {
            located(
                &dir.to_string_lossy(),
                None,
                format!("cannot read directory: {e}"),
            )
        })?;
        for ent in rd {
            let ent = ent.map_err(|e| {
                located(
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
                located(
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
        let buf =
            std::fs::read(file).map_err(|e| located(&shown, None, format!("cannot read: {e}")))?;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            located(
                &shown,
                Some(line_at(&buf, e.valid_up_to())),
                "expected UTF-8 JSON text",
            )
        })?;
        rows.push(parse_rank_file(text, &shown)?);
    }
    assemble_trace(rows, path)
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use crate::test_support::shared;
    use std::io::Read;
    use std::path::Path;

    /// Where PFSim's data lies inside `../shared/`.
    const PFSIM: &str = "traces/pfsim";

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

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    }

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
        let Some(p) = shared(&format!("{PFSIM}/traces/cg-c-128.tar.gz")) else {
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
            let Some(p) = shared(&format!("{PFSIM}/{file}")) else {
                return;
            };
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
            ("a.tar.gz:oxton-result2.json", Some(rank_line as u32))
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
        assert_eq!(e.line, Some(line as u32), "{e}");
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
        assert_eq!(e.line, Some(line as u32), "{e}");

        // Not a tar and not text; empty archive.
        let e = err_of(traffic_from_bytes(&[0x1f, 0x8b, 1, 2, 3], "x.tar.gz"));
        assert!(e.message.contains("gzip"), "{e}");
        let e = err_of(traffic_from_bytes(&tar_bytes(&[], true), "e.tar.gz"));
        assert!(e.message.contains("no `.json` rank files"), "{e}");
    }
}
