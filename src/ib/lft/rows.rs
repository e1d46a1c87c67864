//! Rows and footers of forwarding-table dumps: `0x<lid> <port> …` rows of the
//! `Unicast lids` layouts, `0x<lid> : <port> : <hops> : <optimal>` rows of `.fdbs`, and the
//! `N [valid] lids dumped` footers. Each reader checks one trimmed line and says what is
//! wrong with it; the table reader adds where.

use super::{dec_u32, hex_u32, split_digits, trim_start, words, MAX_UNICAST_LID};
use crate::error::LocatedError;
use crate::ib::NO_ROUTE;

/// `0x` and the LID's hex digits, checked to be a unicast LID.
fn row_lid(line: &[u8]) -> Result<(u32, &[u8]), LocatedError> {
    let (digits, rest) = split_digits(&line[2..], true);
    let lid = hex_u32(digits)
        .ok_or_else(|| malformed!("malformed LID (expected `0x` and hex digits)"))?;
    if lid > MAX_UNICAST_LID {
        return Err(malformed!(
            "LID {lid:#x} is not a unicast LID (at most {MAX_UNICAST_LID:#x})"
        ));
    }
    Ok((lid, rest))
}

/// A port number: 0-254, or 255 = no route.
fn row_port(digits: &[u8]) -> Result<u8, LocatedError> {
    match dec_u32(digits) {
        Some(p) if p <= 255 => Ok(p as u8),
        Some(p) => Err(malformed!(
            "port {p} is out of range (0-254, 255 = no route)"
        )),
        None => Err(malformed!("malformed port")),
    }
}

/// `0x%04x %03u` + optional ` : (…)` / ` # …` (line trimmed at its end).
pub(super) fn parse_unicast_row(line: &[u8]) -> Result<(u32, u8), LocatedError> {
    let (lid, rest) = row_lid(line)?;
    let after = trim_start(rest);
    if after.len() == rest.len() {
        return Err(malformed!(
            "malformed row: expected a space and a 3-digit port after the LID"
        ));
    }
    let (digits, rest) = split_digits(after, false);
    if digits.len() != 3 {
        return Err(malformed!(
            "malformed row: the port has {} digits, expected 3 (is the row cut short?)",
            digits.len()
        ));
    }
    let mut port = row_port(digits)?;
    let tail = trim_start(rest);
    if tail.len() == rest.len() && !rest.is_empty() {
        return Err(malformed!(
            "malformed row: expected a space after the 3-digit port"
        ));
    }
    match tail.first() {
        None | Some(b'#') => {}
        Some(b':') => {
            // The end of the destination is not checked: ibroute cuts it at 199 bytes
            // (long node-name-map names), so a missing `)` proves nothing. `ibroute -a`
            // marks ports above the switch's port count as illegal.
            if tail.ends_with(b"illegal port)") {
                port = NO_ROUTE;
            }
        }
        Some(_) => {
            return Err(malformed!(
                "malformed row: expected ` : (<destination>)`, ` # <destination>` or nothing \
                 after the port"
            ))
        }
    }
    Ok((lid, port))
}

/// Strips `ws* : ws*`.
fn colon(s: &[u8]) -> Option<&[u8]> {
    trim_start(s).strip_prefix(b":").map(trim_start)
}

/// `0x<hex> : <port> : <hops> : yes|No … !`, `… : <port> : HOPS UNKNOWN`,
/// `0x<hex> : UNREACHABLE` (line trimmed at its end).
pub(super) fn parse_fdbs_row(line: &[u8]) -> Result<(u32, u8), LocatedError> {
    const CUT: &str = "(is the row cut short?)";
    let (lid, rest) = row_lid(line)?;
    let rest =
        colon(rest).ok_or_else(|| malformed!("malformed row: expected `:` after the LID"))?;
    if rest == b"UNREACHABLE" {
        return Ok((lid, NO_ROUTE));
    }
    let (digits, rest) = split_digits(rest, false);
    if digits.is_empty() {
        return Err(malformed!(
            "malformed row: expected a decimal port or `UNREACHABLE` after the LID {CUT}"
        ));
    }
    let port = row_port(digits)?;
    let rest = colon(rest).ok_or_else(|| {
        malformed!("malformed row: expected `: <hops> : <optimal>` after the port {CUT}")
    })?;
    if rest == b"HOPS UNKNOWN" {
        return Ok((lid, port));
    }
    let (hops, rest) = split_digits(rest, false);
    let optimal = colon(rest).filter(|_| !hops.is_empty()).ok_or_else(|| {
        malformed!(
            "malformed row: expected `<hops> : <optimal>` or `HOPS UNKNOWN` after the port {CUT}"
        )
    })?;
    let known = optimal.eq_ignore_ascii_case(b"yes")
        || (optimal.starts_with(b"No ") && optimal.ends_with(b"!"));
    if !known {
        return Err(malformed!(
            "malformed row: the Optimal column is neither `yes` nor `No … path possible via \
             port …!` {CUT}"
        ));
    }
    Ok((lid, port))
}

/// `<n> lids dumped` or `<n> valid lids dumped`.
pub(super) fn parse_footer(line: &[u8]) -> Option<u32> {
    let mut w = words(line);
    let n = dec_u32(w.next()?)?;
    let mut next = w.next()?;
    if next == b"valid" {
        next = w.next()?;
    }
    (next == b"lids" && w.next()? == b"dumped" && w.next().is_none()).then_some(n)
}
