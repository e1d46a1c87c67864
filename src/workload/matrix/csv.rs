//! CSV matrices: `src,dst,bytes` rows (0-based ranks) under a header line, or a dense
//! square matrix, comma-, semicolon- or whitespace-separated, with `#` comment lines.
//!
//! The header decides the form, never the row count: a three-field header (`src,dst,bytes`
//! or any other names) announces triples, and so does a four-field header whose last
//! field is `messages` (`src,dst,bytes,messages`, as `orcs trace matrix` writes: the
//! message counts are checked to be integers and not kept); no header, or a header of another width
//! (column labels), a dense matrix, which must then have as many rows as columns. So a
//! dense 3 × 3 matrix that lost a row is an error, not a list of triples.
//!
//! Every field is parsed once, as the rows are checked, into one flat array of values:
//! no allocation per row (`cargo bench --bench matrix` sets this reader beside the `csv`
//! crate).

use super::{finish_plain, located, parse_bytes, rank_count, show, TrafficMatrix};
use crate::error::LocatedError;

/// The data rows, flat: row `i` holds `values[i * width..(i + 1) * width]` and was read
/// from the 1-based line `lines[i]`.
struct Rows {
    width: usize,
    lines: Vec<usize>,
    values: Vec<u64>,
}

impl Rows {
    fn len(&self) -> usize {
        self.lines.len()
    }

    fn row(&self, i: usize) -> &[u64] {
        &self.values[i * self.width..(i + 1) * self.width]
    }
}

/// CSV: `src,dst,bytes` rows under a header, or a dense square matrix (see the module
/// documentation). O(input size + E log E).
pub(super) fn parse_csv_matrix(text: &str, path: &str) -> Result<TrafficMatrix, LocatedError> {
    let (header, counts_messages, rows) = read_rows(text, path)?;
    let Some(&first_line) = rows.lines.first() else {
        return Err(located(
            path,
            None,
            "no data rows (expected `src,dst,bytes` rows under that header, or a square matrix)",
        ));
    };
    let width = rows.width;
    if let Some(hw) = header {
        if hw != width {
            return Err(located(
                path,
                Some(first_line),
                format!("the header has {hw} fields but the rows have {width}"),
            ));
        }
    }
    if header == Some(3) || (header == Some(4) && counts_messages) {
        read_triples(&rows, path)
    } else {
        read_dense(&rows, path)
    }
}

/// The width of the header, if there is one, whether its last field is `messages`, and
/// the data rows (all numeric, all as wide as the first), skipping blank and `#` lines.
fn read_rows(text: &str, path: &str) -> Result<(Option<usize>, bool, Rows), LocatedError> {
    let mut header: Option<usize> = None;
    let mut counts_messages = false;
    let mut rows = Rows {
        width: 0,
        lines: Vec::new(),
        values: Vec::new(),
    };
    // The fields of one line, its storage reused line after line.
    let mut fields: Vec<&str> = Vec::new();
    for (i, raw_line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw_line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        fields.clear();
        let bytes = line.as_bytes();
        if bytes.contains(&b',') {
            split_trimmed(line, b',', &mut fields);
        } else if bytes.contains(&b';') {
            split_trimmed(line, b';', &mut fields);
        } else {
            fields.extend(line.split_whitespace());
        }
        let before = rows.values.len();
        let numeric = fields.iter().all(|f| match parse_bytes(f) {
            Some(v) => {
                rows.values.push(v);
                true
            }
            None => false,
        });
        if !numeric {
            rows.values.truncate(before);
            // A header: the first content line, with no field that reads as a number.
            let is_header = rows.len() == 0
                && header.is_none()
                && fields
                    .iter()
                    .all(|f| !f.is_empty() && f.parse::<f64>().is_err());
            if is_header {
                header = Some(fields.len());
                counts_messages = fields
                    .last()
                    .is_some_and(|f| f.eq_ignore_ascii_case("messages"));
                continue;
            }
            let bad = fields
                .iter()
                .find(|f| parse_bytes(f).is_none())
                .copied()
                .unwrap_or("");
            return Err(located(
                path,
                Some(line_no),
                format!("expected a non-negative integer, found `{}`", show(bad)),
            ));
        }
        match rows.lines.first() {
            Some(&first_line) if rows.width != fields.len() => {
                return Err(located(
                    path,
                    Some(line_no),
                    format!(
                        "expected {} fields (as on line {first_line}), found {}",
                        rows.width,
                        fields.len()
                    ),
                ));
            }
            Some(_) => {}
            None => rows.width = fields.len(),
        }
        rows.lines.push(line_no);
    }
    Ok((header, counts_messages, rows))
}

/// Appends the fields of `line` between the ASCII separator `sep`, each trimmed of
/// white space as [`str::trim`] does. A byte loop: lines are short, and a string
/// search per field cost a third of the reading (`perf record` on `cargo bench
/// --bench matrix`).
fn split_trimmed<'a>(line: &'a str, sep: u8, fields: &mut Vec<&'a str>) {
    let mut start = 0;
    for (i, &b) in line.as_bytes().iter().enumerate() {
        if b == sep {
            // An ASCII separator lies on a character boundary.
            fields.push(trim(&line[start..i]));
            start = i + 1;
        }
    }
    fields.push(trim(&line[start..]));
}

/// [`str::trim`], without its search when both ends are visible ASCII (most fields).
fn trim(field: &str) -> &str {
    match field.as_bytes() {
        [first, .., last] if first.is_ascii_graphic() && last.is_ascii_graphic() => field,
        [only] if only.is_ascii_graphic() => field,
        _ => field.trim(),
    }
}

/// `src,dst,bytes` rows; the rank count is the largest index + 1.
fn read_triples(rows: &Rows, path: &str) -> Result<TrafficMatrix, LocatedError> {
    let mut raw = Vec::with_capacity(rows.len());
    let mut max_index = 0u64;
    for (i, &line_no) in rows.lines.iter().enumerate() {
        // Triples are 3 or 4 fields wide (the header said so, and every row is as wide).
        let row = rows.row(i);
        let (s, d, b) = (row[0], row[1], row[2]);
        if s >= u32::MAX as u64 - 1 || d >= u32::MAX as u64 - 1 {
            return Err(located(
                path,
                Some(line_no),
                format!("rank {} out of range (at most 2^32 - 3)", s.max(d)),
            ));
        }
        max_index = max_index.max(s).max(d);
        raw.push((s as u32, d as u32, b));
    }
    let ranks = rank_count(max_index + 1, path, None)?;
    finish_plain(raw, ranks, path)
}

/// A dense square matrix: row = source rank, column = destination rank. A row count
/// other than the column count is an error at the first row too many, or at the last
/// row when rows are missing.
fn read_dense(rows: &Rows, path: &str) -> Result<TrafficMatrix, LocatedError> {
    let width = rows.width;
    if rows.len() != width {
        let (line, found) = match rows.lines.get(width) {
            Some(&line) => (line, format!("row {} is one too many", width + 1)),
            None => (
                rows.lines[rows.len() - 1],
                format!("the matrix ends after {} rows", rows.len()),
            ),
        };
        let triples = if width == 3 {
            "; a list of `src,dst,bytes` triples needs the header line `src,dst,bytes`"
        } else {
            ""
        };
        return Err(located(
            path,
            Some(line),
            format!(
                "a dense matrix of {width} columns needs {width} rows (one per rank); {found}{triples}"
            ),
        ));
    }
    let ranks = rank_count(width as u64, path, None)?;
    let mut raw = Vec::new();
    for s in 0..rows.len() {
        for (d, &b) in rows.row(s).iter().enumerate() {
            if b > 0 {
                raw.push((s as u32, d as u32, b));
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

    proptest::proptest! {
        /// The byte splitter gives the fields `str::split` and `str::trim` give, with
        /// Unicode white space and characters of several bytes about.
        #[test]
        fn splitting_at_a_byte_is_splitting_at_the_character_then_trimming(
            line in "[ ,;\t\u{a0}\u{2003}a-c0-9é]{0,40}"
        ) {
            for sep in [b',', b';'] {
                let mut fields = Vec::new();
                split_trimmed(&line, sep, &mut fields);
                let want: Vec<&str> = line.split(char::from(sep)).map(str::trim).collect();
                proptest::prop_assert_eq!(fields, want);
            }
        }
    }

    fn to_csv(t: &TrafficMatrix) -> String {
        let mut s = String::from("src,dst,bytes\n");
        for (a, b, c) in &t.entries {
            s += &format!("{a},{b},{c}\n");
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
        // Duplicates summed, zero rows dropped, exponent form, comments, another header.
        let dup =
            "# c\nfrom;to;size\n0;1;60\n0;1;40\n0;3;7\n1;1;5\n2;0;1099511627776\n3;2;1e0\n3;3;0\n";
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
        assert_eq!(
            e.to_string(),
            "t.csv:2: a dense matrix of 4 columns needs 4 rows (one per rank); the matrix ends after 2 rows"
        );
        assert!(parse_csv_matrix("# only\n\n", "t.csv").is_err());
    }

    #[test]
    fn a_dense_matrix_missing_a_row_is_not_read_as_triples() {
        // A 3 × 3 matrix without its last row: two rows of three numbers, valid triples
        // too, but without the header that announces them.
        let e = parse_csv_matrix("# dense\n0,1,2\n\n1,0,3\n", "d.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "d.csv:4: a dense matrix of 3 columns needs 3 rows (one per rank); the matrix ends after 2 rows; a list of `src,dst,bytes` triples needs the header line `src,dst,bytes`"
        );
        // One row too many is named where it starts, whatever the width.
        let e = parse_csv_matrix("0 1\n1 0\n5 5\n", "d.txt").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("row 3 is one too many"), "{e}");
        let e = parse_csv_matrix("a,b\n0,1\n", "d.csv").unwrap_err();
        assert!(e.message.contains("needs 2 rows"), "{e}");
        // With the header the same rows are triples.
        let m = parse_csv_matrix("src,dst,bytes\n0,1,2\n1,0,3\n", "t.csv").unwrap();
        assert_eq!((m.ranks, m.entries), (2, vec![(0, 1, 2), (1, 0, 3)]));
    }
}
