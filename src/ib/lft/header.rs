//! Switch headers of forwarding-table dumps: `Unicast lids [<lo>-<hi>] of switch … guid
//! 0x… (…):` (ibroute, dump_fts, opensm-lfts.dump, told apart by the range's base and the
//! description's quotes) and `…dump_ucast_routes: Switch 0x…` (`.fdbs`).

use super::{dec_u32, find, hex_u32, split_digits, words, MAX_UNICAST_LID};
use crate::error::LocatedError;
use crate::ib::LftLayout;

/// A parsed switch header.
#[derive(Debug)]
pub(super) struct Header {
    /// The layout the header belongs to.
    pub(super) layout: LftLayout,
    /// The switch's node GUID.
    pub(super) guid: u64,
    /// The switch LID, when the header states it reliably.
    pub(super) lid: Option<u32>,
    /// The LID range of a `Unicast lids` header.
    pub(super) range: Option<(u32, u32)>,
}

/// Parses a switch header: `Ok(None)` when the line is no header at all, `Err` when it
/// starts like one but is malformed (cut short, for instance).
pub(super) fn parse_header(line: &[u8]) -> Result<Option<Header>, LocatedError> {
    if let Some(rest) = line.strip_prefix(b"Unicast lids [") {
        parse_unicast_header(rest).map(Some)
    } else if words(line)
        .next()
        .is_some_and(|w| w.ends_with(b"dump_ucast_routes:"))
    {
        parse_fdbs_header(line).map(Some)
    } else {
        Ok(None)
    }
}

/// The 16 hex digits of a GUID at the start of `s`, and the rest.
fn guid_prefix(s: &[u8]) -> Result<(u64, &[u8]), LocatedError> {
    let (digits, rest) = split_digits(s, true);
    if digits.len() != 16 {
        return Err(malformed!(
            "the switch GUID has {} hex digits, expected 16",
            digits.len()
        ));
    }
    let guid = digits.iter().fold(0u64, |acc, &b| {
        (acc << 4) | u64::from((b as char).to_digit(16).unwrap_or(0))
    });
    Ok((guid, rest))
}

/// `Unicast lids [` has been stripped from `rest`.
fn parse_unicast_header(rest: &[u8]) -> Result<Header, LocatedError> {
    const SHAPE: &str = "expected `Unicast lids [<lo>-<hi>] of switch <Lid N | DR path …> \
                         guid 0x<16 hex> (<description>):`";
    let close = rest
        .iter()
        .position(|&b| b == b']')
        .ok_or_else(|| malformed!("malformed switch header (no `]`): {SHAPE}"))?;
    let range = &rest[..close];
    let dash = range
        .iter()
        .position(|&b| b == b'-')
        .ok_or_else(|| malformed!("malformed LID range (no `-`): {SHAPE}"))?;
    let (lo, lo_hex) = range_bound(&range[..dash])?;
    let (hi, hi_hex) = range_bound(&range[dash + 1..])?;
    if lo_hex != hi_hex {
        return Err(malformed!(
            "the LID range mixes hexadecimal and decimal bounds"
        ));
    }
    if lo > hi {
        return Err(malformed!("the LID range {lo}-{hi} is empty"));
    }
    if hi > MAX_UNICAST_LID {
        return Err(malformed!(
            "the LID range ends at {hi:#x}, beyond the highest unicast LID {MAX_UNICAST_LID:#x}"
        ));
    }
    let rest = rest[close + 1..]
        .strip_prefix(b" of switch ")
        .ok_or_else(|| malformed!("malformed switch header (no ` of switch `): {SHAPE}"))?;
    let at = find(rest, b" guid 0x")
        .ok_or_else(|| malformed!("malformed switch header (no ` guid 0x`): {SHAPE}"))?;
    let port_id = &rest[..at];
    let (guid, rest) = guid_prefix(&rest[at + 8..])?;
    let desc = rest
        .strip_prefix(b" (")
        .and_then(|r| r.strip_suffix(b"):"))
        .ok_or_else(|| {
            malformed!("malformed switch header (no ` (<description>):` at its end): {SHAPE}")
        })?;
    let quoted = desc.len() >= 2 && desc.starts_with(b"'") && desc.ends_with(b"'");
    let layout = if !lo_hex || quoted {
        LftLayout::OpensmLftsDump
    } else {
        LftLayout::Ibroute
    };
    // Old OpenSM (hex range, quoted description) printed the LID byte-swapped.
    let old_opensm = lo_hex && layout == LftLayout::OpensmLftsDump;
    let lid = match port_id.strip_prefix(b"Lid ") {
        Some(n) if !old_opensm => match dec_u32(n) {
            Some(0) => None,
            Some(lid) if lid <= MAX_UNICAST_LID => Some(lid),
            Some(lid) => {
                return Err(malformed!(
                    "the switch LID {lid} is not a unicast LID (at most {MAX_UNICAST_LID})"
                ))
            }
            None => return Err(malformed!("malformed switch LID `Lid {}`", lossy(n))),
        },
        _ => None,
    };
    Ok(Header {
        layout,
        guid,
        lid,
        range: Some((lo, hi)),
    })
}

fn lossy(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

/// One bound of a `Unicast lids` range: its value and whether it was hexadecimal.
fn range_bound(s: &[u8]) -> Result<(u32, bool), LocatedError> {
    let value = match s.strip_prefix(b"0x") {
        Some(hex) => hex_u32(hex).map(|v| (v, true)),
        None => dec_u32(s).map(|v| (v, false)),
    };
    value.ok_or_else(|| malformed!("malformed LID range bound `{}`", lossy(s)))
}

/// `<prefix>dump_ucast_routes: Switch 0x<16 hex> [anything]`.
fn parse_fdbs_header(line: &[u8]) -> Result<Header, LocatedError> {
    const SHAPE: &str = "expected `dump_ucast_routes: Switch 0x<16 hex>`";
    let mut w = words(line).skip(1);
    if w.next() != Some(b"Switch".as_slice()) {
        return Err(malformed!("malformed switch header: {SHAPE}"));
    }
    let hex = w
        .next()
        .and_then(|g| g.strip_prefix(b"0x").or_else(|| g.strip_prefix(b"0X")))
        .ok_or_else(|| malformed!("malformed switch header (no `0x` GUID): {SHAPE}"))?;
    let (guid, rest) = guid_prefix(hex)?;
    if !rest.is_empty() {
        return Err(malformed!("malformed switch GUID `0x{}`", lossy(hex)));
    }
    Ok(Header {
        layout: LftLayout::Fdbs,
        guid,
        lid: None,
        range: None,
    })
}
