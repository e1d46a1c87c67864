//! Records: a cell's result as one checksummed JSON line (see [`crate::scan`] for the
//! format), the results files made of them, and merging records of several runs: only
//! records of one plan (each carries the plan's identity and cell count), each cell
//! once, conflicting duplicates refused, every line passed on byte for byte.

use super::{located, ScanError};
use crate::engine::stream::STREAM_VERSION;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// Seals a record: `object` (a JSON object without `crc`) in compact form with its
/// CRC-32 appended as the last member, and a newline.
pub fn seal(object: &Value) -> String {
    let text = object.to_string();
    let crc = crc32fast::hash(text.as_bytes());
    let mut line = text[..text.len() - 1].to_string();
    if line.len() > 1 {
        line.push(',');
    }
    let _ = writeln!(line, "\"crc\":\"{crc:08x}\"}}");
    line
}

/// Checks and parses one sealed line (without its newline). None when it is not a
/// sealed record (cut short, altered, or not JSON).
pub fn unseal(line: &str) -> Option<Value> {
    let at = line
        .rfind(",\"crc\":\"")
        .or_else(|| line.rfind("\"crc\":\""))?;
    let stated = line.get(at..)?;
    let hex = stated
        .trim_start_matches(',')
        .strip_prefix("\"crc\":\"")?
        .strip_suffix("\"}")?;
    let body = format!("{}}}", &line[..at]);
    // Exactly the text seal writes: 8 lowercase hex digits.
    if format!("{:08x}", crc32fast::hash(body.as_bytes())) != hex {
        return None;
    }
    let value: Value = serde_json::from_str(&body).ok()?;
    value.is_object().then_some(value)
}

/// A sealed record as read from a results file: the exact text written and its parsed
/// value. Merging passes the text on unchanged, so merged results are byte for byte the
/// lines the cells' runs wrote (re-printing parsed numbers could change their last digit).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line, newline included, exactly as read.
    pub text: String,
    /// The parsed object (without `crc`).
    pub value: Value,
    /// The results file it was read from.
    pub path: Arc<str>,
    /// Its 1-based line in that file.
    pub line: usize,
}

impl Record {
    /// The record's key (see [`Plan::key`](super::Plan::key)).
    pub fn key(&self) -> Option<&str> {
        record_key(&self.value)
    }

    /// The record's cell index.
    pub fn cell(&self) -> Option<u64> {
        self.value.get("cell").and_then(Value::as_u64)
    }

    /// The version of the random streams its numbers were drawn with (see
    /// [`STREAM_VERSION`]); 1 for a record without one, written before the version was
    /// recorded.
    pub fn streams(&self) -> u64 {
        self.value
            .get("streams")
            .map_or(1, |v| v.as_u64().unwrap_or(0))
    }

    /// The identity and cell count of the plan the record belongs to.
    pub fn plan(&self) -> Option<PlanRef<'_>> {
        Some(PlanRef {
            identity: self.value.get("plan")?.as_str()?,
            cells: self.value.get("plan_cells")?.as_u64()?,
        })
    }

    /// What two runs of the same cell must agree on: everything but the time taken and
    /// the version of orcs.
    fn outcome(&self) -> Value {
        let mut v = self.value.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("seconds");
            o.remove("orcs_version");
        }
        v
    }

    /// An error at this record's line.
    fn error(&self, message: impl Into<String>) -> ScanError {
        located(&self.path, Some(self.line), message)
    }

    /// The record, checked to be of `plan` (`what` names where that plan comes from).
    fn of_plan(&self, plan: PlanRef<'_>, what: &str) -> Result<u64, ScanError> {
        // Before the plan: a record of other draws also names another plan (the stream
        // version is part of the identity), and this says why.
        let streams = self.streams();
        if streams != u64::from(STREAM_VERSION) {
            return Err(self.error(format!(
                "a record drawn with random streams of version {streams}, not {STREAM_VERSION} as this orcs draws them (the same seed gives other numbers): run the scan again into a new results file"
            )));
        }
        let theirs = self.plan().ok_or_else(|| {
            self.error("a record without a plan identity (written by an older orcs): run the scan again into a new results file")
        })?;
        if theirs != plan {
            return Err(self.error(format!(
                "a record of plan {} ({} cells), not of plan {} ({} cells) as {what}: results of different plans do not mix",
                theirs.identity, theirs.cells, plan.identity, plan.cells
            )));
        }
        match (self.cell(), self.key()) {
            (Some(cell), Some(_)) if cell < plan.cells => Ok(cell),
            _ => Err(self.error(format!(
                "a record without a key and a cell index below the plan's {} cells",
                plan.cells
            ))),
        }
    }
}

/// A plan as records name it: its identity (see
/// [`Plan::identity_of`](super::Plan::identity_of)) and its number of cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanRef<'a> {
    /// The plan's identity.
    pub identity: &'a str,
    /// Its number of cells.
    pub cells: u64,
}

/// Whether `path` is a gzip file (false when it cannot be read).
pub fn is_gzip(path: &str) -> bool {
    use crate::output::GZIP_MAGIC;
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == GZIP_MAGIC)
}

/// The valid records of a results file, and the byte length of the valid prefix (a
/// resumed scan truncates the file there). A bad line that is not the last one is an
/// error: only a crash can damage a record, and only the last. A missing file is empty.
///
/// A gzip file (a merged scan compressed with `-o x.gz`) is read decompressed; its
/// length is then that of the decompressed text, which only a file being appended to
/// would need, and such a file may not be gzip ([`is_gzip`]).
pub fn read_results(path: &str) -> Result<(Vec<Record>, u64), ScanError> {
    let mut bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(located(path, None, format!("cannot read: {e}"))),
    };
    if bytes.starts_with(&crate::output::GZIP_MAGIC) {
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
            &mut text,
        )
        .map_err(|e| located(path, None, format!("cannot decompress: {e}")))?;
        bytes = text;
    }
    let name: Arc<str> = Arc::from(path);
    let mut records = Vec::new();
    let mut valid = 0usize;
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| start + i);
        let record = end.and_then(|end| {
            let text = std::str::from_utf8(&bytes[start..=end]).ok()?;
            let value = unseal(&text[..text.len() - 1])?;
            Some((text, value))
        });
        match (record, end) {
            (Some((text, value)), Some(end)) => {
                records.push(Record {
                    text: text.to_string(),
                    value,
                    path: Arc::clone(&name),
                    line: line_no,
                });
                start = end + 1;
                valid = start;
            }
            (_, end) => {
                // The damaged line must be the last one: no newline, or nothing after it.
                if end.is_some_and(|end| end + 1 < bytes.len()) {
                    return Err(located(
                        path,
                        Some(line_no),
                        "not a sealed orcs scan record (its checksum does not match); only the last line of a results file can be cut short by a crash",
                    ));
                }
                break;
            }
        }
    }
    Ok((records, valid as u64))
}

/// The key of a record (see [`Plan::key`](super::Plan::key)).
pub fn record_key(record: &Value) -> Option<&str> {
    record.get("key").and_then(Value::as_str)
}

/// One plan's records, one per cell, in cell order: what `--merge` and the fold of the
/// ranks of `mpirun` write.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The plan's identity.
    pub plan: String,
    /// The plan's number of cells.
    pub cells: u64,
    /// The records, one per cell present, by cell index.
    pub records: Vec<Record>,
}

impl Merged {
    /// The cells without a record, ascending. O(cells).
    pub fn missing(&self) -> Vec<u64> {
        let mut present = self.records.iter().filter_map(Record::cell).peekable();
        (0..self.cells)
            .filter(|&c| {
                if present.peek() == Some(&c) {
                    present.next();
                    false
                } else {
                    true
                }
            })
            .collect()
    }

    /// The results file: every record's line exactly as it was read.
    pub fn text(&self) -> String {
        self.records.iter().map(|r| r.text.as_str()).collect()
    }

    /// The parsed records, in cell order.
    pub fn values(&self) -> Vec<&Value> {
        self.records.iter().map(|r| &r.value).collect()
    }

    /// An error naming the missing cells, if any.
    pub fn require_complete(&self) -> Result<(), ScanError> {
        let missing = self.missing();
        if missing.is_empty() {
            return Ok(());
        }
        Err(ScanError::MissingCells {
            missing: missing.len() as u64,
            cells: self.cells,
            list: cell_ranges(&missing),
        })
    }
}

/// Cell indices as ranges (`1, 4-6, 9`), the first 20 ranges only.
pub(crate) fn cell_ranges(cells: &[u64]) -> String {
    const SHOWN: usize = 20;
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for &c in cells {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => ranges.push((c, c)),
        }
    }
    let mut text: Vec<String> = ranges
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if ranges.len() > SHOWN {
        text.push(format!("and {} more ranges", ranges.len() - SHOWN));
    }
    text.join(", ")
}

/// Merges records of one plan into one per cell, in cell order. The plan is `plan` when
/// given (the plan being run), else the first record's. Refuses a record of another plan
/// or without a plan identity, one whose cell index is not the plan's, and a second
/// record of a cell with a different outcome (anything but the seconds it took and the
/// orcs version); a second record with the same outcome is dropped (the first is kept).
/// Errors name the file and line. O(records × log records).
pub fn merge(records: Vec<Record>, plan: Option<PlanRef<'_>>) -> Result<Merged, ScanError> {
    let first = records.first();
    let (plan, what) = match (plan, first) {
        (Some(p), _) => (p, "the plan being run".to_string()),
        (None, Some(r)) => {
            let p = r.plan().ok_or_else(|| {
                r.error("a record without a plan identity (written by an older orcs): run the scan again into a new results file")
            })?;
            (p, format!("{}:{}", r.path, r.line))
        }
        (None, None) => return Err(ScanError::NothingToMerge),
    };
    let mut by_cell: BTreeMap<u64, Record> = BTreeMap::new();
    for record in &records {
        let cell = record.of_plan(plan, &what)?;
        match by_cell.get(&cell) {
            None => {
                by_cell.insert(cell, record.clone());
            }
            Some(kept) if kept.outcome() == record.outcome() => {}
            Some(kept) => {
                return Err(record.error(format!(
                    "cell {cell} ({}) has another result in {}:{}: conflicting records of one cell",
                    record.key().unwrap_or(""),
                    kept.path,
                    kept.line
                )))
            }
        }
    }
    Ok(Merged {
        plan: plan.identity.to_string(),
        cells: plan.cells,
        records: by_cell.into_values().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LocatedError;
    use proptest::prelude::*;

    #[test]
    fn a_missing_results_file_is_empty_but_an_unreadable_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.jsonl");
        let (records, len) = read_results(missing.to_str().unwrap()).unwrap();
        assert!(records.is_empty() && len == 0);
        // A folder cannot be read as a file: that must not pass for an empty scan.
        let folder = dir.path().to_str().unwrap();
        let e = read_results(folder).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("cannot read"), "{e}");
    }

    #[test]
    fn sealed_lines_are_json_objects_with_the_crc_last() {
        // Other tools (jq, pandas) read the results file as JSON lines: every sealed line
        // must be valid JSON by itself, the empty object too.
        for object in [
            serde_json::json!({}),
            serde_json::json!({"key": "a|b", "n": 3}),
        ] {
            let line = seal(&object);
            let parsed: Value = serde_json::from_str(line.trim_end())
                .unwrap_or_else(|e| panic!("{line:?} is not JSON: {e}"));
            let members = parsed.as_object().unwrap();
            assert_eq!(
                members.len(),
                object.as_object().unwrap().len() + 1,
                "{line}"
            );
            let crc = format!("{:08x}", crc32fast::hash(object.to_string().as_bytes()));
            assert!(line.ends_with(&format!("\"crc\":\"{crc}\"}}\n")), "{line}");
        }
        assert_eq!(
            seal(&serde_json::json!({})),
            format!("{{\"crc\":\"{:08x}\"}}\n", crc32fast::hash(b"{}"))
        );
    }

    fn located_error(e: ScanError) -> LocatedError {
        match e {
            ScanError::Input(e) => e,
            e => panic!("not an input error: {e}"),
        }
    }

    #[test]
    fn seal_round_trip_and_damage() {
        let v = serde_json::json!({"cell": 3, "key": "a|b", "x": [1.5, null]});
        let line = seal(&v);
        assert!(line.ends_with("\"}\n"));
        assert_eq!(unseal(line.trim_end()), Some(v));
        // Cut short, or one character altered: rejected.
        let t = line.trim_end();
        assert!(unseal(&t[..t.len() - 3]).is_none());
        assert!(unseal(&t.replace("a|b", "a|c")).is_none());
    }

    proptest! {
        #[test]
        fn damaged_lines_never_pass(cut in 0usize..200, flip in 0usize..200, bit in 0u8..8) {
            let v = serde_json::json!({"cell": 7, "key": "fabric|bisect||0|sum_max_cong|100|1",
                                       "result": {"stats": {"mean": 2.5}}});
            let line = seal(&v);
            let t = line.trim_end().as_bytes();
            let cut = cut % t.len();
            prop_assert!(std::str::from_utf8(&t[..cut]).ok().and_then(unseal).is_none());
            let mut altered = t.to_vec();
            let i = flip % altered.len();
            altered[i] ^= 1 << bit;
            if let Ok(s) = std::str::from_utf8(&altered) {
                // A flip inside the stated checksum's hex may still be a valid hex digit of
                // another value: it must then mismatch, so nothing passes.
                prop_assert!(unseal(s).is_none());
            }
        }
    }

    /// A record of cell `cell` of plan `plan` (of 4 cells) with result `mean`, as line
    /// `line` of `path`.
    fn record(path: &str, line: usize, plan: &str, cell: u64, mean: f64) -> Record {
        let value = serde_json::json!({"cell": cell, "key": format!("k{cell}"), "plan": plan,
            "plan_cells": 4, "streams": STREAM_VERSION, "result": {"mean": mean},
            "seconds": line as f64 / 10.0});
        Record {
            text: seal(&value),
            value,
            path: Arc::from(path),
            line,
        }
    }

    #[test]
    fn a_record_names_a_cell_below_its_plans_count() {
        let plan = PlanRef {
            identity: "p",
            cells: 4,
        };
        assert_eq!(
            record("r.jsonl", 1, "p", 3, 0.5)
                .of_plan(plan, "the plan file")
                .unwrap(),
            3
        );
        // Cell 4 of a plan of 4 cells, with the plan's identity and a valid seal.
        let e = record("r.jsonl", 2, "p", 4, 0.5)
            .of_plan(plan, "the plan file")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("r.jsonl:2:"), "{e}");
        assert!(e.contains("a cell index below the plan's 4 cells"), "{e}");
    }

    /// A record of other draws is refused before its plan is looked at, and says why; a
    /// record without `streams` was drawn with version 1.
    #[test]
    fn a_record_of_other_random_streams_is_refused() {
        let plan = PlanRef {
            identity: "p",
            cells: 4,
        };
        let current = record("r.jsonl", 1, "p", 3, 0.5);
        assert_eq!(current.streams(), 2);
        assert_eq!(current.of_plan(plan, "the plan file").unwrap(), 3);
        for (streams, shown) in [
            (None, 1),
            (Some(serde_json::json!(1)), 1),
            (Some(serde_json::json!(3)), 3),
        ] {
            let mut old = record("r.jsonl", 5, "q", 3, 0.5);
            let o = old.value.as_object_mut().unwrap();
            match streams {
                Some(v) => o.insert("streams".into(), v),
                None => o.remove("streams"),
            };
            let e = located_error(merge(vec![current.clone(), old], Some(plan)).unwrap_err());
            assert_eq!((e.path.as_str(), e.line), ("r.jsonl", Some(5)));
            assert!(
                e.message.contains(&format!(
                    "a record drawn with random streams of version {shown}, not 2"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn merge_keeps_one_record_per_cell_of_one_plan() {
        let a = record("a.jsonl", 1, "p", 2, 0.1);
        let b = record("b.jsonl", 1, "p", 0, 0.2);
        // The same cell run again (another time taken): the first record is kept.
        let again = record("b.jsonl", 2, "p", 2, 0.1);
        let merged = merge(vec![a.clone(), b.clone(), again], None).unwrap();
        assert_eq!(merged.records, [b.clone(), a.clone()]);
        assert_eq!(merged.text(), format!("{}{}", b.text, a.text));
        assert_eq!(merged.missing(), [1, 3]);
        assert_eq!(
            merged.require_complete().unwrap_err().to_string(),
            "2 of the plan's 4 cells have no record: cells 1, 3"
        );
        let plan = PlanRef {
            identity: "p",
            cells: 4,
        };
        assert_eq!(
            merge(Vec::new(), Some(plan)).unwrap().missing(),
            [0, 1, 2, 3]
        );
        assert!(matches!(
            merge(Vec::new(), None),
            Err(ScanError::NothingToMerge)
        ));
    }

    #[test]
    fn merge_refuses_foreign_conflicting_and_unplanned_records() {
        let a = record("a.jsonl", 1, "p", 2, 0.1);
        let foreign = record("b.jsonl", 3, "q", 1, 0.1);
        let e = located_error(merge(vec![a.clone(), foreign], None).unwrap_err());
        assert_eq!((e.path.as_str(), e.line), ("b.jsonl", Some(3)));
        assert!(
            e.message
                .contains("a record of plan q (4 cells), not of plan p (4 cells) as a.jsonl:1"),
            "{e}"
        );
        let conflict = record("b.jsonl", 7, "p", 2, 0.1000000000000001);
        let e = located_error(merge(vec![a.clone(), conflict], None).unwrap_err());
        assert_eq!(e.line, Some(7));
        assert!(
            e.message
                .contains("cell 2 (k2) has another result in a.jsonl:1"),
            "{e}"
        );
        let mut outside = record("b.jsonl", 2, "p", 9, 0.1);
        let e = located_error(merge(vec![a.clone(), outside.clone()], None).unwrap_err());
        assert!(
            e.message.contains("a cell index below the plan's 4 cells"),
            "{e}"
        );
        outside.value.as_object_mut().unwrap().remove("plan");
        let e = located_error(merge(vec![outside], None).unwrap_err());
        assert!(e.message.contains("without a plan identity"), "{e}");
        // The plan being run decides, whatever the first record says.
        let plan = PlanRef {
            identity: "q",
            cells: 4,
        };
        let e = located_error(merge(vec![a], Some(plan)).unwrap_err());
        assert!(
            e.message
                .contains("not of plan q (4 cells) as the plan being run"),
            "{e}"
        );
    }

    proptest! {
        /// A number written into a record reads back as the same number, so a summary
        /// computed from records read back prints the digits the record holds.
        #[test]
        fn floats_read_back_exactly(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let line = seal(&serde_json::json!({"cell": 0, "x": x}));
            let back = unseal(line.trim_end()).unwrap();
            prop_assert_eq!(back["x"].as_f64().map(f64::to_bits), Some(bits));
            prop_assert_eq!(seal(&back), line);
        }
    }

    #[test]
    fn results_keep_the_valid_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let a = seal(&serde_json::json!({"cell": 0, "key": "k0"}));
        let b = seal(&serde_json::json!({"cell": 1, "key": "k1"}));
        std::fs::write(&path, format!("{a}{}", &b[..b.len() / 2])).unwrap();
        let (records, valid) = read_results(path.to_str().unwrap()).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(valid, a.len() as u64);
        // Damage in the middle is an error naming the line.
        std::fs::write(&path, format!("{}{b}", a.replace("k0", "k9"))).unwrap();
        let e = located_error(read_results(path.to_str().unwrap()).unwrap_err());
        assert_eq!(e.line, Some(1));
    }
}
