//! OpenSM's `guid2lid` cache (spec `infiniband-formats.md` §2.5): the LID range OpenSM
//! gave every port, written to `--cache-dir`/`OSM_CACHE_DIR` (and kept across restarts).
//!
//! ```text
//! 0x0000000000100004 0x0001 0x0001
//!
//! 0x0000000000200000 0x0002 0x0002
//! ```
//!
//! One entry per line: the port GUID, then the lowest and highest LID of the port's range
//! (`max − min + 1 = 2^LMC`; a switch has one LID, that of port 0, keyed by its node GUID
//! = port 0 GUID). OpenSM separates entries by blank lines. Numbers are read as OpenSM
//! reads them (`strtoull`/`strtoul` with base 0): `0x…` hex, a leading `0` octal, else
//! decimal. Blank lines and `#` lines are skipped.
//!
//! This file supplies the LIDs an ibsim net topology lacks
//! ([`super::ibsim_net::parse_ibsim_net`]): join its entries with the topology's port
//! GUIDs ([`crate::ib::IbPortLid::guid`]) and switch node GUIDs.
//!
//! Complexity: linear, with one reused line buffer and a hash set for duplicate GUIDs.

use std::collections::HashMap;
use std::io::BufRead;

use super::text::{c_integer, excerpt, is_ws, perr, trim, CNumberError, LineReader};
use crate::error::LocatedError;

/// The first multicast LID: unicast LIDs are `1..0xc000` (OpenSM refuses larger ones).
const FIRST_MULTICAST_LID: u64 = 0xc000;

/// Parses an OpenSM `guid2lid` file into `(port GUID, min LID, max LID)` entries, in file
/// order.
///
/// Each non-blank line that does not start with `#` must be three numbers separated by
/// blanks: a GUID (up to 64 bits) and two unicast LIDs (`1..=0xbfff`) with
/// `min <= max`.
///
/// Errors (with the 1-based line): a missing, malformed or extra field; a GUID that does
/// not fit in 64 bits; a LID of 0 or `>= 0xc000`; `min > max`; a GUID listed twice (the
/// message gives both lines). An input without entries is not an error (OpenSM writes an
/// empty file before its first sweep).
///
/// Never panics, whatever the input. Complexity: `O(n)` for `n` input bytes.
pub fn parse_guid2lid<R: BufRead>(reader: R) -> Result<Vec<(u64, u32, u32)>, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut out = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    while let Some((line, raw)) = lines.next_line()? {
        let text = trim(raw);
        if text.is_empty() || text.first() == Some(&b'#') {
            continue;
        }
        let fields: Vec<&[u8]> = text
            .split(|&b| is_ws(b))
            .filter(|f| !f.is_empty())
            .collect();
        let [guid, min, max] = fields[..] else {
            return Err(perr(
                line,
                format!(
                    "guid2lid line: expected `<port GUID> <min LID> <max LID>` such as \
                     `0x0000000000100004 0x0001 0x0001`, found {} ({} fields)",
                    excerpt(text),
                    fields.len()
                ),
            ));
        };
        let number = |field: &[u8], what: &str| -> Result<u64, LocatedError> {
            match c_integer(field) {
                Ok((v, used)) if used == field.len() => Ok(v),
                Ok(_) | Err(CNumberError::NoDigits) => Err(perr(
                    line,
                    format!(
                        "guid2lid line: the {what} {} is not a number (`0x…` hex or decimal)",
                        excerpt(field)
                    ),
                )),
                Err(CNumberError::Overflow) => Err(perr(
                    line,
                    format!(
                        "guid2lid line: the {what} {} does not fit in 64 bits",
                        excerpt(field)
                    ),
                )),
            }
        };
        let guid = number(guid, "port GUID")?;
        let lid = |field: &[u8], what: &str| -> Result<u32, LocatedError> {
            let v = number(field, what)?;
            if v == 0 || v >= FIRST_MULTICAST_LID {
                return Err(perr(
                    line,
                    format!("guid2lid line: the {what} {v:#x} is not a unicast LID (1 to 0xbfff)"),
                ));
            }
            Ok(v as u32)
        };
        let (min, max) = (lid(min, "min LID")?, lid(max, "max LID")?);
        if min > max {
            return Err(perr(
                line,
                format!("guid2lid line: the min LID {min:#x} is above the max LID {max:#x}"),
            ));
        }
        if let Some(first) = seen.insert(guid, line) {
            return Err(perr(
                line,
                format!("port GUID 0x{guid:016x} is listed twice (lines {first} and {line})"),
            ));
        }
        out.push((guid, min, max));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<(u64, u32, u32)>, LocatedError> {
        parse_guid2lid(s.as_bytes())
    }

    #[test]
    fn opensm_layout() {
        let text = "0x0000000000100004 0x0001 0x0001\n\n0x0000000000200000 0x0002 0x0002\n\n\
                    0x0000000000100001 0x0004 0x0007\n\n";
        assert_eq!(
            parse(text).unwrap(),
            vec![(0x100004, 1, 1), (0x200000, 2, 2), (0x100001, 4, 7)]
        );
    }

    #[test]
    fn lenient_blanks_comments_and_number_forms() {
        let text = "# cache\r\n  0x10\t12 014  \r\n\n";
        assert_eq!(parse(text).unwrap(), vec![(0x10, 12, 12)]);
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(parse("\n\n").unwrap(), vec![]);
    }

    #[test]
    fn errors_name_the_line() {
        let cases: [(&str, u32, &str); 9] = [
            ("0x1 0x1\n", 1, "2 fields"),
            ("\n0x1 0x1 0x1 0x1\n", 2, "4 fields"),
            ("0xg 0x1 0x1\n", 1, "port GUID `0xg` is not a number"),
            ("0x1 1x 0x1\n", 1, "min LID `1x` is not a number"),
            ("0x10000000000000000 1 1\n", 1, "64 bits"),
            ("0x1 0 1\n", 1, "not a unicast LID"),
            ("0x1 1 0xc000\n", 1, "not a unicast LID"),
            ("0x1 5 4\n", 1, "above the max"),
            ("0x1 1 1\n\n0x1 2 2\n", 3, "lines 1 and 3"),
        ];
        for (text, line, needle) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line.unwrap_or(0), line, "{text:?}: {}", e.message);
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
    }
}
