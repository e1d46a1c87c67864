//! Matrix Market coordinate files (`integer` or `real`, `general` or `symmetric`,
//! 1-based indices) as traffic matrices.

use super::{finish_plain, located, parse_bytes, rank_count, show, TrafficMatrix};
use crate::error::LocatedError;
/// Matrix Market coordinate (integer or real; general or symmetric), 1-based indices.
/// O(input size + E log E).
pub(super) fn parse_matrix_market(text: &str, path: &str) -> Result<TrafficMatrix, LocatedError> {
    let mut lines = text.lines().enumerate();
    let (_, banner) = lines
        .next()
        .ok_or_else(|| located(path, Some(1), "empty Matrix Market file"))?;
    let symmetric = read_banner(banner, path)?;
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
        let at = |message: String| located(path, Some(line_no), message);
        let Some((n, nnz)) = size else {
            size = Some(read_size(line, path, line_no)?);
            continue;
        };
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 3 {
            return Err(at(format!(
                "expected `row col bytes`, found `{}`",
                show(line)
            )));
        }
        count += 1;
        if count > nnz {
            return Err(at(format!("more entries than the {nnz} declared")));
        }
        let (s, d, b) = read_entry(&f, n, at)?;
        raw.push((s, d, b));
        if symmetric && s != d {
            raw.push((d, s, b));
        }
    }
    let Some((n, nnz)) = size else {
        return Err(located(
            path,
            Some(last_line),
            "missing the size line `rows cols entries`",
        ));
    };
    if count != nnz {
        return Err(located(
            path,
            Some(last_line),
            format!("expected {nnz} entries, found {count}"),
        ));
    }
    finish_plain(raw, n as u32, path)
}

/// Checks the banner line; true for a symmetric matrix.
fn read_banner(banner: &str, path: &str) -> Result<bool, LocatedError> {
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
        return Err(located(
            path,
            Some(1),
            format!(
                "expected `%%MatrixMarket matrix coordinate integer|real general|symmetric`, found `{}`",
                show(banner.trim())
            ),
        ));
    }
    Ok(words[4] == "symmetric")
}

/// The size line `rows cols entries` of a square matrix: (ranks, entries).
fn read_size(line: &str, path: &str, line_no: usize) -> Result<(u64, u64), LocatedError> {
    let dims: Vec<Option<u64>> = line
        .split_whitespace()
        .map(|t| t.parse::<u64>().ok())
        .collect();
    match dims.as_slice() {
        [Some(r), Some(c), Some(nnz)] if r == c => {
            rank_count(*r, path, Some(line_no))?;
            Ok((*r, *nnz))
        }
        [Some(r), Some(c), Some(_)] => Err(located(
            path,
            Some(line_no),
            format!("expected a square matrix (ranks × ranks), found {r} × {c}"),
        )),
        _ => Err(located(
            path,
            Some(line_no),
            format!(
                "expected the size line `rows cols entries`, found `{}`",
                show(line)
            ),
        )),
    }
}

/// The fields `row col bytes` of an entry of an `n` × `n` matrix, as 0-based (src, dst,
/// bytes); `at` places an error message on the entry's line.
fn read_entry(
    f: &[&str],
    n: u64,
    at: impl Fn(String) -> LocatedError,
) -> Result<(u32, u32, u64), LocatedError> {
    let mut idx = [0u32; 2];
    for (k, tok) in f[..2].iter().enumerate() {
        match tok.parse::<u64>() {
            Ok(v) if v >= 1 && v <= n => idx[k] = (v - 1) as u32,
            _ => {
                return Err(at(format!(
                    "index `{}` out of range (expected 1..={n}, 1-based)",
                    show(tok)
                )))
            }
        }
    }
    let b = parse_bytes(f[2]).ok_or_else(|| {
        at(format!(
            "expected a non-negative integer byte count, found `{}`",
            show(f[2])
        ))
    })?;
    Ok((idx[0], idx[1], b))
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use super::*;

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
}
