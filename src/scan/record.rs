//! Records: a cell's result as one checksummed JSON line (see [`crate::scan`] for the
//! format), the results files made of them, and merging records of several runs.

use super::{located, ScanError};
use serde_json::Value;
use std::fmt::Write as _;

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

/// The valid records of a results file, and the byte length of the valid prefix (a
/// resumed scan truncates the file there). A bad line that is not the last one is an
/// error: only a crash can damage a record, and only the last. A missing file is empty.
pub fn read_results(path: &str) -> Result<(Vec<Value>, u64), ScanError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(located(path, None, format!("cannot read: {e}"))),
    };
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
            std::str::from_utf8(&bytes[start..end])
                .ok()
                .and_then(unseal)
        });
        match (record, end) {
            (Some(r), Some(end)) => {
                records.push(r);
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

/// Merges records: the first record of each key wins, ordered by cell index then key.
pub fn merge(records: Vec<Value>) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<Value> = records
        .into_iter()
        .filter(|r| record_key(r).is_some_and(|k| seen.insert(k.to_string())))
        .collect();
    kept.sort_by(|a, b| {
        let idx = |r: &Value| r.get("cell").and_then(Value::as_u64).unwrap_or(u64::MAX);
        idx(a)
            .cmp(&idx(b))
            .then_with(|| record_key(a).cmp(&record_key(b)))
    });
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LocatedError;
    use proptest::prelude::*;

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
