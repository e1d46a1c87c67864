//! Forwarding-table dumps: parsers for the linear forwarding tables (LFTs) printed by
//! `ibroute` / `dump_lfts.sh` / `dump_fts` (infiniband-diags), by OpenSM as
//! `opensm-lfts.dump`, and in the `.fdbs` layout (OpenSM `opensm.fdbs`, ibdiagnet v1
//! `ibdiagnet.fdbs`, ibdiagnet2 `ibdiagnet2.fdbs`), into [`Lfts`]
//! (`../shared/spec/infiniband-formats.md` §2.1–2.3).
//!
//! [`parse_lfts`] detects the layout from the first switch header ([`detect_lft_layout`])
//! and then reads every table of that layout:
//!
//! | layout | switch header | rows | footer |
//! |---|---|---|---|
//! | [`LftLayout::Ibroute`] | `Unicast lids [0x0-0x18] of switch Lid 2 guid 0x…16 hex… (desc):` (or `… of switch DR path slid 0; dlid 0; 0,1 guid …`) + the two column lines | `0x0001 001 : (…)`, `0x0001 001` (`-n`), `0x0000 255 : (… illegal port)` (`-a`) | `24 valid lids dumped` / `25 lids dumped` (`-a`) |
//! | [`LftLayout::OpensmLftsDump`] | `Unicast lids [0-24] of switch Lid 2 guid 0x… ('desc'):` | `0x0001 001 # …` | `24 lids dumped` |
//! | [`LftLayout::Fdbs`] | `dump_ucast_routes: Switch 0x…` (any `\S*` prefix: `osm_ucast_mgr_`, `__osm_ucast_mgr_`) + `LID : Port : Hops : Optimal` | `0x000A : 005  : 02   : yes`, `… : No 1 hop path possible via port 3!`, `… : HOPS UNKNOWN`, `0x0021 : UNREACHABLE` | none |
//!
//! LIDs are hexadecimal (either case), ports decimal. Port 255, an `illegal port`
//! destination (`ibroute -a`: the port exceeds the switch's port count) and
//! `UNREACHABLE` mean [`NO_ROUTE`](crate::ib::NO_ROUTE); LIDs without a row have no route either. A table's
//! [`SwitchLft::ports`](crate::ib::SwitchLft::ports) covers LIDs `0 ..= max(header range end, highest listed LID)`.
//!
//! # Switch LIDs
//!
//! [`SwitchLft::lid`](crate::ib::SwitchLft::lid) is the `Lid N` of the header. Headers without it (`dump_fts` DR
//! paths, `.fdbs`) take the one LID (≠ 0) that the table routes to port 0, if exactly one
//! does; otherwise the LID stays unknown. Old OpenSM (≈ 2007) `opensm-lfts.dump` files,
//! recognised by a hexadecimal range with a quoted description, printed the LID in
//! network byte order, so their `Lid N` is ignored the same way.
//!
//! # Checks
//!
//! The parser is strict inside tables, so that truncated or corrupted files fail with
//! the line at fault instead of silently losing routes:
//!
//! * rows must be complete: a 3-digit port followed by nothing, ` : (…)` or ` # …` in
//!   the `Unicast lids` layouts (the destination's end is not checked: ibroute cuts it
//!   at 199 bytes), and in `.fdbs` the full `Port : Hops : Optimal` columns;
//! * ports above 254 other than 255 and LIDs above `0xBFFF` (multicast) are rejected,
//!   as are LIDs outside the range the header announces;
//! * the same LID twice in one table with different ports, and the same switch GUID in
//!   two tables, are errors naming both lines;
//! * `ibroute` and `opensm-lfts.dump` tables must end with their footer, and the footer
//!   must agree with the table (`ibroute`: the number of rows; `opensm-lfts.dump`: the
//!   header's highest LID); a missing footer is reported at the line where the next
//!   header or the end of the input appears;
//! * anything else inside a table is an error; blank lines are ignored everywhere, `#`
//!   comments between `Unicast lids` tables and inside `.fdbs` tables, `PLFT_NUM:` lines
//!   in `.fdbs`, and any text before the first header (except table rows).
//!
//! `.fdbs` has no footer, so a file cut exactly at a line end cannot be told from a
//! complete one.
//!
//! # Complexity
//!
//! Time is linear in the input size: every line is scanned once, and the description
//! text of a row is never looked at beyond its first and last bytes. No regular
//! expressions and no per-row allocation: a `Unicast lids` table allocates its port
//! vector once from the header's range, a `.fdbs` table grows its vector amortised; a
//! line is copied only when it straddles the reader's buffer. Memory is the result
//! (one byte per LID and switch) plus a fixed 192 KiB duplicate-detection table and
//! one line (at most 1 MiB). A 230 MB `opensm-lfts.dump` (4096 hosts) takes a fraction
//! of a second.
//!
//! This folder holds the entry points, the line splitting and the byte helpers shared by
//! its files; `header.rs` reads switch headers, `rows.rs` rows and footers, `tables.rs`
//! the state machine over the lines. It may use the model of [`crate::ib`], its
//! [`LocatedError`] helper (`ib/text.rs`) and [`crate::error`].

use std::io::{BufRead, ErrorKind};

use crate::error::LocatedError;
use crate::ib::text::perr;
use crate::ib::{LftLayout, Lfts};

/// What is wrong with one line, as a [`LocatedError`] without a position yet: the table
/// reader adds the line number and quotes the line (`format!` arguments).
macro_rules! malformed {
    ($($arg:tt)*) => {
        LocatedError::new("", format!($($arg)*))
    };
}

mod header;
mod rows;
mod tables;

use header::parse_header;
use tables::Parser;

/// The highest unicast LID; higher LIDs are multicast (or the permissive LID).
const MAX_UNICAST_LID: u32 = 0xBFFF;

/// The longest line accepted (real lines are below 200 bytes).
const MAX_LINE: usize = 1 << 20;

/// Detects the layout of a forwarding-table dump from one of its switch header lines.
///
/// Returns `None` for anything that is not a complete, well-formed switch header. A
/// `Unicast lids [0x…-0x…] … (desc):` header is [`LftLayout::Ibroute`]; a decimal range
/// `[0-24]` (or a hexadecimal range with a quoted `('desc')`, as old OpenSM wrote) is
/// [`LftLayout::OpensmLftsDump`]; `…dump_ucast_routes: Switch 0x…` is [`LftLayout::Fdbs`].
/// A trailing line end (`\n`, `\r\n`) is allowed. O(line length).
pub fn detect_lft_layout(line: &str) -> Option<LftLayout> {
    match parse_header(trim_end(line.as_bytes())) {
        Ok(Some(h)) => Some(h.layout),
        _ => None,
    }
}

/// Parses a forwarding-table dump in any of the three layouts.
///
/// The layout is detected from the first switch header (see [`detect_lft_layout`]);
/// every table must then have that layout. Switches are returned in file order. Lines
/// may end in `\n` or `\r\n`, and need not be UTF-8.
///
/// # Errors
///
/// A [`LocatedError`] with the 1-based line at fault (0 when the input as a whole is
/// wrong: empty, or without any switch table) for read errors, malformed headers, rows
/// or footers, out-of-range LIDs or ports, conflicting duplicate rows, duplicate
/// switches, missing or disagreeing footers, mixed layouts, and unexpected lines inside
/// tables. A missing footer is reported at the line of the next header, or at the end
/// of the input (the line after the last newline).
///
/// # Complexity
///
/// O(input bytes) time; memory O(result) plus a fixed 192 KiB scratch table.
pub fn parse_lfts<R: BufRead>(mut reader: R) -> Result<Lfts, LocatedError> {
    let mut parser = Parser::new();
    // A line straddling the reader's buffer is assembled here; other lines are parsed
    // in place.
    let mut pending: Vec<u8> = Vec::new();
    let mut line_no: u32 = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(perr(line_no.saturating_add(1), format!("read error: {e}")));
            }
        };
        if chunk.is_empty() {
            break;
        }
        let mut start = 0;
        while let Some(off) = chunk[start..].iter().position(|&b| b == b'\n') {
            let end = start + off;
            line_no = line_no.saturating_add(1);
            if pending.is_empty() {
                parser.line(&chunk[start..end], line_no)?;
            } else {
                pending.extend_from_slice(&chunk[start..end]);
                check_line_length(pending.len(), line_no)?;
                parser.line(&pending, line_no)?;
                pending.clear();
            }
            start = end + 1;
        }
        pending.extend_from_slice(&chunk[start..]);
        check_line_length(pending.len(), line_no.saturating_add(1))?;
        let used = chunk.len();
        reader.consume(used);
    }
    let eof_line = if pending.is_empty() {
        line_no.saturating_add(1)
    } else {
        line_no = line_no.saturating_add(1);
        parser.line(&pending, line_no)?;
        line_no
    };
    parser.finish(eof_line)
}

/// Rejects absurdly long lines (binary input) before they exhaust memory.
fn check_line_length(len: usize, line: u32) -> Result<(), LocatedError> {
    if len > MAX_LINE {
        Err(perr(
            line,
            format!("line longer than {MAX_LINE} bytes: not a forwarding-table dump"),
        ))
    } else {
        Ok(())
    }
}

/// A line for an error message: lossy UTF-8, at most 60 characters.
fn show(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut out: String = text.chars().take(60).collect();
    if text.chars().nth(60).is_some() {
        out.push('…');
    }
    format!("`{out}`")
}

/// Strips trailing spaces, tabs and carriage returns (and a `\n`, for the public API).
fn trim_end(mut s: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t' | b'\r' | b'\n'] = s {
        s = rest;
    }
    s
}

fn trim_start(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    s
}

/// Splits a leading run of ASCII digits (`hex`: hexadecimal digits) off `s`.
fn split_digits(s: &[u8], hex: bool) -> (&[u8], &[u8]) {
    let n = s
        .iter()
        .take_while(|b| {
            if hex {
                b.is_ascii_hexdigit()
            } else {
                b.is_ascii_digit()
            }
        })
        .count();
    s.split_at(n)
}

/// The value of 1 to 8 hexadecimal digits (`None` for other inputs).
fn hex_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &b| {
        let d = (b as char).to_digit(16)?;
        Some((acc << 4) | d)
    })
}

/// The value of 1 to 9 decimal digits (`None` for other inputs).
fn dec_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    digits.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whitespace-separated words of a line.
fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t')
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::NO_ROUTE;

    fn parse(text: &str) -> Result<Lfts, LocatedError> {
        parse_lfts(text.as_bytes())
    }

    fn fail(text: &str) -> LocatedError {
        match parse(text) {
            Ok(l) => panic!("expected an error, got {l:?}"),
            Err(e) => e,
        }
    }

    /// Asserts an error at `line` whose message contains `needle`.
    fn fails_at(text: &str, line: u32, needle: &str) {
        let e = fail(text);
        assert_eq!(e.line.unwrap_or(0), line, "{e}");
        assert!(e.message.contains(needle), "{e:?} lacks {needle:?}");
    }

    const IBROUTE: &str = "\
Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (sw-l0-000):
  Lid  Out   Destination
       Port     Info 
0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'node001')
0x0002 000 : (Switch portguid 0x0000000000200000: 'sw-l0-000')
0x0005 002 : (Channel Adapter portguid 0x0000000000100003: 'node002')
3 valid lids dumped 
Unicast lids [0x0-0x5] of switch Lid 3 guid 0x0000000000200001 (sw (odd); name: x):
  Lid  Out   Destination
       Port     Info 
0x0001 005 : (Channel Adapter portguid 0x0000000000100001: 'node001')
0x0003 000 : (Switch portguid 0x0000000000200001: 'sw (odd); name: x')
2 valid lids dumped 
";

    fn lft(ports: &[(usize, u8)], len: usize) -> Vec<u8> {
        let mut v = vec![NO_ROUTE; len];
        for &(l, p) in ports {
            v[l] = p;
        }
        v
    }

    #[test]
    fn ibroute_basic() {
        let l = parse(IBROUTE).unwrap();
        assert_eq!(l.layout, LftLayout::Ibroute);
        assert_eq!(l.switches.len(), 2);
        let s = &l.switches[0];
        assert_eq!((s.guid, s.lid, s.line), (0x200000, Some(2), 1));
        assert_eq!(s.ports, lft(&[(1, 1), (2, 0), (5, 2)], 6));
        assert_eq!(s.port(5), Some(2));
        assert_eq!(s.port(3), None);
        let s = &l.switches[1];
        assert_eq!((s.guid, s.lid, s.line), (0x200001, Some(3), 8));
        assert_eq!(s.ports, lft(&[(1, 5), (3, 0)], 6));
    }

    #[test]
    fn ibroute_dr_path_header_infers_lid() {
        let text = "\
Unicast lids [0x0-0x3] of switch DR path slid 0; dlid 0; 0,1,19,32 guid 0xf4521403001d5d40 (MF0;sw-ib-c2f14-14-01:SX6036/U1):
  Lid  Out   Destination
       Port     Info 
0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'n')
0x0003 000 : (Switch portguid 0xf4521403001d5d40: 'MF0;sw-ib-c2f14-14-01:SX6036/U1')
2 valid lids dumped 
";
        let l = parse(text).unwrap();
        assert_eq!(l.layout, LftLayout::Ibroute);
        assert_eq!(l.switches[0].guid, 0xf452_1403_001d_5d40);
        assert_eq!(l.switches[0].lid, Some(3));
    }

    #[test]
    fn ibroute_all_and_brief_and_path_rows() {
        let text = "\
Unicast lids [0x0-0x7] of switch Lid 2 guid 0x0000000000200000 (s):
  Lid  Out   Destination
       Port     Info 
0x0000 255 : (path #0 - illegal port)
0x0001 009 : (illegal port)
0x0002 000 : (unknown node and type)
0x0004 001 : (Channel Adapter portguid 0x0000000000100001: 'node001')
0x0005 001 : (path #2 out of 4: portguid 0x0000000000100001)
0x0006 001 : (path #3 out of 4)
0x0007 003 
7 lids dumped 
";
        let l = parse(text).unwrap();
        let s = &l.switches[0];
        assert_eq!(
            s.ports,
            lft(&[(2, 0), (4, 1), (5, 1), (6, 1), (7, 3)], 8),
            "255 and `illegal port` rows are no route"
        );
        assert_eq!(s.lid, Some(2));
    }

    #[test]
    fn ibroute_destination_cut_at_199_bytes_is_accepted() {
        // dump_fts prints the destination through a 200-byte buffer.
        let name = "n".repeat(300);
        let dest = format!(": (Channel Adapter portguid 0x0000000000100001: '{name}')");
        let text = format!(
            "Unicast lids [0x0-0x1] of switch Lid 1 guid 0x0000000000000001 (s):\n\
             0x0001 004 {}\n1 valid lids dumped \n",
            &dest[..199]
        );
        assert_eq!(parse(&text).unwrap().switches[0].port(1), Some(4));
    }

    #[test]
    fn ibroute_without_column_lines_and_blank_lines() {
        let text = "\n\nUnicast lids [0x0-0x1] of switch Lid 1 guid 0x0000000000000001 (s):\r\n\
0x0001 000 : (Switch portguid 0x0000000000000001: 's')\r\n\r\n1 valid lids dumped\r\n\r\n";
        let l = parse(text).unwrap();
        assert_eq!(l.switches[0].ports, vec![NO_ROUTE, 0]);
    }

    const OPENSM: &str = "\
Unicast lids [0-5] of switch Lid 2 guid 0x0000000000200000 ('sw-l0-000'):
0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'node001'
0x0002 000 # Switch portguid 0x0000000000200000: 'sw-l0-000'
0x0004 007 # unknown node and type
5 lids dumped
Unicast lids [0-5] of switch Lid 3 guid 0x0000000000200001 ('it''s (x):'):
0x0003 000 # Switch portguid 0x0000000000200001: 'x'
5 lids dumped
";

    #[test]
    fn opensm_lfts_dump() {
        let l = parse(OPENSM).unwrap();
        assert_eq!(l.layout, LftLayout::OpensmLftsDump);
        assert_eq!(l.switches.len(), 2);
        assert_eq!(l.switches[0].ports, lft(&[(1, 1), (2, 0), (4, 7)], 6));
        assert_eq!(l.switches[0].lid, Some(2));
        assert_eq!(l.switches[1].line, 6);
        assert_eq!(l.switches[1].lid, Some(3));
    }

    #[test]
    fn old_opensm_lfts_dump_ignores_byte_swapped_lid() {
        // OpenSM ≈ 2007: hex range, quoted description, LID in network byte order.
        let text = "\
Unicast lids [0x0-0x3] of switch Lid 512 guid 0x0000000000200000 ('sw'):
0x0001 001 # Channel Adapter portguid 0x0160000000000100001: 'node001'
0x0002 000 # Switch portguid 0x0160000000000200000: 'sw'
3 lids dumped
";
        let l = parse(text).unwrap();
        assert_eq!(l.layout, LftLayout::OpensmLftsDump);
        assert_eq!(
            l.switches[0].lid,
            Some(2),
            "from the port-0 row, not `Lid 512`"
        );
        assert_eq!(l.switches[0].ports, lft(&[(1, 1), (2, 0)], 4));
    }

    const FDBS: &str = "\
# written by hand
dump_ucast_routes: Switch 0x0000000000200000
LID    : Port : Hops : Optimal
0x0001 : 001  : 01   : yes
0x0002 : 000  : 00   : yes
0x000A : 005  : 02   : No 1 hop path possible via port 3!
0x000b : 006  : HOPS UNKNOWN
0x000C : UNREACHABLE
PLFT_NUM: 0

osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000200001
LID    : Port : Hops : Optimal
0x0001 : 003  : 00   : yes
0x0002 : 000  : 00   : yes
0x0003 : 000  : 00   : yes
__osm_ucast_mgr_dump_ucast_routes: Switch 0x00000000002000Ff
LID    : Port : Hops : Optimal
";

    #[test]
    fn fdbs_all_variants() {
        let l = parse(FDBS).unwrap();
        assert_eq!(l.layout, LftLayout::Fdbs);
        assert_eq!(l.switches.len(), 3);
        let s = &l.switches[0];
        assert_eq!((s.guid, s.line), (0x200000, 2));
        assert_eq!(s.ports, lft(&[(1, 1), (2, 0), (0xa, 5), (0xb, 6)], 13));
        assert_eq!(s.lid, Some(2), "the single port-0 row");
        let s = &l.switches[1];
        assert_eq!(s.lid, None, "two port-0 rows: ambiguous");
        assert_eq!(s.ports, lft(&[(1, 3), (2, 0), (3, 0)], 4));
        let s = &l.switches[2];
        assert_eq!((s.guid, s.lid, s.ports.len()), (0x2000ff, None, 0));
    }

    #[test]
    fn detection() {
        use LftLayout::*;
        let cases: &[(&str, Option<LftLayout>)] = &[
            ("Unicast lids [0x0-0x18] of switch Lid 2 guid 0x0000000000200000 (sw-l0-000):", Some(Ibroute)),
            ("Unicast lids [0x0-0x18] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (a (b) guid 0x1):\n", Some(Ibroute)),
            ("Unicast lids [0-24] of switch Lid 2 guid 0x0000000000200000 ('sw-l0-000'):", Some(OpensmLftsDump)),
            ("Unicast lids [0x0-0x18] of switch Lid 2 guid 0x0000000000200000 ('sw'):", Some(OpensmLftsDump)),
            ("dump_ucast_routes: Switch 0x0000000000200000", Some(Fdbs)),
            ("osm_ucast_mgr_dump_ucast_routes: Switch 0x0002C90109FB0000\r\n", Some(Fdbs)),
            ("__osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000200000", Some(Fdbs)),
            ("Unicast lids [0x0-0x18] of switch Lid 2 guid 0x0000000000200000 (sw", None),
            ("Unicast lids [0x0-18] of switch Lid 2 guid 0x0000000000200000 (sw):", None),
            ("dump_ucast_routes: Switch 0x00000000002000", None),
            ("Switch 0x0000000000200000", None),
            ("0x0001 001 : (x)", None),
            ("", None),
        ];
        for (line, want) in cases {
            assert_eq!(detect_lft_layout(line), *want, "{line}");
        }
    }

    #[test]
    fn preamble_is_skipped_but_rows_before_a_header_fail() {
        let text = format!("ibroute output of Monday\n# note\n{IBROUTE}");
        assert_eq!(parse(&text).unwrap().switches.len(), 2);
        fails_at(
            "some text\n0x0001 001 : (x)\n",
            2,
            "before any switch header",
        );
    }

    #[test]
    fn empty_and_tableless_inputs() {
        fails_at("", 0, "empty");
        fails_at("\n \n\r\n", 0, "empty");
        fails_at("hello\nworld\n", 0, "no forwarding table");
    }

    #[test]
    fn truncated_rows() {
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        for (row, needle) in [
            ("0x00", "3-digit port"),
            ("0x0005 00", "2 digits"),
            ("0x0005 0", "1 digits"),
            ("0x0005", "3-digit port"),
            ("0x0005 0012 : (x)", "4 digits"),
            ("0x0005 001x", "space after"),
            ("0x0005 001 junk", "after the port"),
            ("0x", "malformed LID"),
            ("0xg001 001", "malformed LID"),
        ] {
            fails_at(&format!("{head}{row}\n1 valid lids dumped\n"), 2, needle);
        }
        let head = "dump_ucast_routes: Switch 0x0000000000200000\n";
        for (row, needle) in [
            ("0x00", "`:` after the LID"),
            ("0x0005 :", "port or `UNREACHABLE`"),
            ("0x0005 : UNREACHAB", "port or `UNREACHABLE`"),
            ("0x0005 : 00", "after the port"),
            ("0x0005 : 005  :", "HOPS UNKNOWN"),
            ("0x0005 : 005  : 0", "HOPS UNKNOWN"),
            ("0x0005 : 005  : 01   :", "Optimal"),
            ("0x0005 : 005  : 01   : ye", "Optimal"),
            (
                "0x0005 : 005  : 01   : No 1 hop path possible via",
                "Optimal",
            ),
            ("0x0005 : 005  : HOPS UNKN", "HOPS UNKNOWN"),
        ] {
            fails_at(&format!("{head}{row}\n0x0006 : UNREACHABLE\n"), 2, needle);
        }
    }

    #[test]
    fn out_of_range_values() {
        let head = "Unicast lids [0x0-0xc000] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(head, 1, "beyond the highest unicast LID");
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(
            &format!("{head}0x0001 256 : (x)\n"),
            2,
            "port 256 is out of range",
        );
        fails_at(&format!("{head}0x0001 999\n"), 2, "port 999");
        fails_at(
            &format!("{head}0x0006 001\n"),
            2,
            "outside the range 0x0-0x5",
        );
        let fdbs = "dump_ucast_routes: Switch 0x0000000000200000\n";
        fails_at(
            &format!("{fdbs}0xC000 : 001  : 01   : yes\n"),
            2,
            "not a unicast LID",
        );
        fails_at(
            &format!("{fdbs}0x123456789 : 001  : 01   : yes\n"),
            2,
            "malformed LID",
        );
        fails_at(
            &format!("{fdbs}0x0001 : 300  : 01   : yes\n"),
            2,
            "port 300",
        );
        // 255 is accepted as "no route".
        let l = parse(&format!("{fdbs}0x0001 : 255  : 01   : yes\n")).unwrap();
        assert_eq!(l.switches[0].ports, vec![NO_ROUTE, NO_ROUTE]);
        fails_at(
            "Unicast lids [0x0-0x5] of switch Lid 49152 guid 0x0000000000200000 (s):\n",
            1,
            "not a unicast LID",
        );
        fails_at(
            "Unicast lids [0x5-0x1] of switch Lid 2 guid 0x0000000000200000 (s):\n",
            1,
            "empty",
        );
    }

    #[test]
    fn duplicates() {
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        // Same port twice is harmless (and counted by the footer).
        let l = parse(&format!(
            "{head}0x0001 001\n0x0001 001\n2 valid lids dumped\n"
        ))
        .unwrap();
        assert_eq!(l.switches[0].port(1), Some(1));
        let e = fail(&format!("{head}0x0001 001\n0x0003 001\n0x0001 002\n"));
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("port 1 at line 2, port 2 here"), "{e}");
        let e = fail(&format!(
            "{head}0x0000 255 : (path #0 - illegal port)\n0x0000 004 : (x)\n"
        ));
        assert!(e.message.contains("no route at line 2, port 4 here"), "{e}");
        // The same LID in another switch is fine; the same switch twice is not.
        let e = fail(&format!(
            "{head}0x0001 001\n1 valid lids dumped\n{head}0x0001 002\n1 valid lids dumped\n"
        ));
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("first starts at line 1"), "{e}");
        let fdbs = "dump_ucast_routes: Switch 0x0000000000200000\n0x0001 : UNREACHABLE\n";
        fails_at(&format!("{fdbs}{fdbs}"), 3, "first starts at line 1");
        fails_at(
            &format!("{fdbs}0x0001 : 001  : 01   : yes\n"),
            3,
            "no route at line 2, port 1 here",
        );
    }

    #[test]
    fn duplicate_detection_is_per_table() {
        let l = parse(IBROUTE).unwrap();
        // LID 1 appears in both tables with different ports.
        assert_eq!(l.switches[0].port(1), Some(1));
        assert_eq!(l.switches[1].port(1), Some(5));
    }

    #[test]
    fn missing_footers() {
        // At end of input (after the final newline: line 4)...
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(
            &format!("{head}0x0001 001\n0x0002 000\n"),
            4,
            "switch 0x0000000000200000 table (line 1) ends at the end of the input without \
             its `N valid lids dumped` footer: is the file truncated?",
        );
        // ... on the last line when it has no newline ...
        fails_at(
            &format!("{head}0x0001 001\n0x0002 000"),
            3,
            "end of the input",
        );
        fails_at(head.trim_end(), 1, "end of the input");
        // ... or at the next header.
        let next = "Unicast lids [0x0-0x5] of switch Lid 3 guid 0x0000000000200001 (t):\n";
        fails_at(
            &format!("{head}0x0001 001\n{next}0x0001 002\n1 valid lids dumped\n"),
            3,
            "(line 1) ends at the next switch header without",
        );
        let head = "Unicast lids [0-5] of switch Lid 2 guid 0x0000000000200000 ('s'):\n";
        fails_at(
            &format!("{head}0x0001 001 # x\n"),
            3,
            "without its `N lids dumped` footer",
        );
    }

    #[test]
    fn footer_must_agree() {
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(
            &format!("{head}0x0001 001\n0x0002 000\n3 valid lids dumped\n"),
            4,
            "counts 3 LIDs but the table of switch 0x0000000000200000 (line 1) has 2 rows",
        );
        let head = "Unicast lids [0-5] of switch Lid 2 guid 0x0000000000200000 ('s'):\n";
        fails_at(
            &format!("{head}0x0001 001 # x\n4 lids dumped\n"),
            3,
            "says the table ends at LID 5",
        );
        // Cut footers are unexpected lines.
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(
            &format!("{head}0x0001 001\n1 valid lids dum\n"),
            3,
            "unexpected line",
        );
        fails_at(&format!("{head}0x0001 001\n1\n"), 3, "unexpected line");
    }

    #[test]
    fn garbage_inside_and_between_tables() {
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(
            &format!("{head}0x0001 001\nhello\n1 valid lids dumped\n"),
            3,
            "unexpected line `hello` inside the table of switch 0x0000000000200000 (line 1)",
        );
        // Column lines only before the first row.
        fails_at(
            &format!("{head}0x0001 001\n  Lid  Out   Destination\n"),
            3,
            "unexpected line",
        );
        fails_at(&format!("{head}# c\n"), 2, "unexpected line");
        fails_at(
            &format!("{head}0x0001 001\n1 valid lids dumped\nhello\n"),
            4,
            "between tables",
        );
        fails_at(
            &format!("{head}0x0001 001\n1 valid lids dumped\n0x0002 001\n"),
            4,
            "after the table's footer",
        );
        let l = parse(&format!("{head}0x0001 001\n1 valid lids dumped\n# end\n\n")).unwrap();
        assert_eq!(l.switches.len(), 1);
        let fdbs = "dump_ucast_routes: Switch 0x0000000000200000\n";
        fails_at(
            &format!("{fdbs}0x0001 : UNREACHABLE\nbogus line\n"),
            3,
            "inside the table",
        );
        fails_at(&format!("{fdbs}LID    : Port : Ho\n"), 2, "unexpected line");
    }

    #[test]
    fn malformed_headers() {
        fails_at(
            "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x00000000002000 (s):\n",
            1,
            "14 hex digits, expected 16",
        );
        fails_at(
            "x\nUnicast lids [0x0-0x5] of switch Lid 2 gu\n",
            2,
            "no ` guid 0x`",
        );
        fails_at(
            "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s)\n",
            1,
            "description",
        );
        fails_at("Unicast lids [0x0-", 1, "no `]`");
        fails_at("dump_ucast_routes: Sw\n", 1, "malformed switch header");
        fails_at(
            "dump_ucast_routes: Switch 0x0000000000200000x\n",
            1,
            "malformed switch GUID",
        );
        fails_at(
            "dump_ucast_routes: Switch 0x0000000000200000\n0x0001 : UNREACHABLE\n\
             dump_ucast_routes: Switch 0x00000000\n",
            3,
            "8 hex digits",
        );
    }

    #[test]
    fn mixed_layouts() {
        let fdbs = "dump_ucast_routes: Switch 0x0000000000200001\n";
        fails_at(
            &format!("{IBROUTE}{fdbs}"),
            14,
            "a .fdbs switch header in a file whose first table (line 1) is ibroute/dump_fts",
        );
        fails_at(
            &format!("{fdbs}{OPENSM}"),
            2,
            "opensm-lfts.dump switch header in a file whose first table (line 1) is .fdbs",
        );
        // An unfinished ibroute table is reported first.
        let head = "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000200000 (s):\n";
        fails_at(&format!("{head}{fdbs}"), 2, "without its");
    }

    #[test]
    fn binary_and_long_lines_do_not_panic() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        assert!(parse_lfts(bytes.as_slice()).is_err());
        let long = vec![b'a'; MAX_LINE + 10];
        let e = parse_lfts(long.as_slice()).unwrap_err();
        assert!(e.message.contains("longer than"), "{e}");
        let mut v =
            b"dump_ucast_routes: Switch 0x0000000000200000\n0x0001 : 001  : 01   : yes\n".to_vec();
        v.extend_from_slice(&[0xff, 0xfe, b'\n']);
        let e = parse_lfts(v.as_slice()).unwrap_err();
        assert_eq!(e.line, Some(3));
    }

    use crate::test_support::Trickle;

    #[test]
    fn buffer_boundaries_do_not_matter() {
        for text in [IBROUTE, OPENSM, FDBS] {
            let whole = parse(text).unwrap();
            let reader = std::io::BufReader::with_capacity(1, Trickle(text.as_bytes()));
            assert_eq!(parse_lfts(reader).unwrap(), whole);
            let reader = std::io::BufReader::with_capacity(7, text.as_bytes());
            assert_eq!(parse_lfts(reader).unwrap(), whole);
        }
    }

    #[test]
    fn read_errors_are_reported() {
        struct Failing;
        impl std::io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        let e = parse_lfts(std::io::BufReader::new(Failing)).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("disk on fire"));
    }
}
