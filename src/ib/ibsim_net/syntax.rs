//! The lexical pieces of ibsim net lines, read the way ibsim 0.10's `sim_net.c` reads
//! them: the keyword dispatch at column 0, quoted ids, `[<port>]` numbers, header
//! descriptions, and the errors for lines ibsim would skip or misread.

use crate::error::LocatedError;
use crate::ib::text::{excerpt, is_ws, perr, trim};
use crate::ib::NodeKind;

/// What a line starting at column 0 is, from ibsim's prefix dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keyword {
    /// `Switch`, `Hca`/`Ca`, `Rt`, with the keyword's length.
    Header(NodeKind, usize),
    /// `switchguid`, `hcaguids`/`caguid`, `rtguid`.
    GuidBase(NodeKind),
    /// `module`.
    Module,
    /// `include`.
    Include,
    /// `vendid`, `devid`, `sysimgguid`, `width`, `speed`, `extspeed`, `pdebug`, `do`.
    Ignored,
    /// Anything else (ibsim ignores it too).
    Other,
}

/// ibsim's `parse_netconf` dispatch, in its order (prefix matches at column 0).
pub(super) fn keyword(text: &[u8]) -> Keyword {
    const TABLE: [(&[u8], Keyword); 19] = [
        (b"Switch", Keyword::Header(NodeKind::Switch, 6)),
        (b"Hca", Keyword::Header(NodeKind::Ca, 3)),
        (b"Ca", Keyword::Header(NodeKind::Ca, 2)),
        (b"Rt", Keyword::Header(NodeKind::Router, 2)),
        (b"switchguid", Keyword::GuidBase(NodeKind::Switch)),
        (b"hcaguids", Keyword::GuidBase(NodeKind::Ca)),
        (b"caguid", Keyword::GuidBase(NodeKind::Ca)),
        (b"rtguid", Keyword::GuidBase(NodeKind::Router)),
        (b"vendid", Keyword::Ignored),
        (b"devid", Keyword::Ignored),
        (b"sysimgguid", Keyword::Ignored),
        (b"width", Keyword::Ignored),
        (b"speed", Keyword::Ignored),
        (b"extspeed", Keyword::Ignored),
        (b"module", Keyword::Module),
        (b"include", Keyword::Include),
        (b"pdebug", Keyword::Ignored),
        (b"do", Keyword::Ignored),
        (b"", Keyword::Other),
    ];
    TABLE
        .iter()
        .find(|(prefix, _)| text.starts_with(prefix))
        .map_or(Keyword::Other, |&(_, k)| k)
}

/// Whether a keyword changes what this parser builds (so losing the line matters).
pub(super) fn matters(k: Keyword) -> bool {
    matches!(
        k,
        Keyword::Header(..) | Keyword::GuidBase(_) | Keyword::Module | Keyword::Include
    )
}

/// A quoted id for messages: `"sw-l0-000"`.
pub(super) fn show(id: &[u8]) -> String {
    format!("\"{}\"", id.escape_ascii())
}

/// The error for an indented port, header or GUID line (ibsim reads them only at the
/// start of a line, so it would ignore or misread this one); `None` for other lines.
pub(super) fn indented(line: u32, text: &[u8]) -> Option<LocatedError> {
    if !text.first().is_some_and(|&b| is_ws(b)) {
        return None;
    }
    let t = trim(text);
    let meaningful = t.first() == Some(&b'[')
        || matches!(keyword(t), Keyword::Header(..) | Keyword::GuidBase(_));
    meaningful.then(|| {
        perr(
            line,
            format!(
                "indented line {}: ibsim reads keywords and port lines only at the start of a \
                 line and would skip this one; remove the leading blanks",
                excerpt(t)
            ),
        )
    })
}

/// The error for port aliases.
pub(super) fn alias_error(line: u32) -> LocatedError {
    perr(
        line,
        "port aliases (`@` port lines and `\"…@alias\"` remote ids) are not supported; list \
         the link from both ends instead",
    )
}

/// The number of leading blanks.
pub(super) fn skip_ws(s: &[u8]) -> usize {
    s.iter().take_while(|&&b| is_ws(b)).count()
}

/// `"<text>"` at the start of `s`: the text up to the next `"`, and what follows the
/// closing quote; `None` without both quotes.
pub(super) fn quoted(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let inner = s.strip_prefix(b"\"")?;
    let close = inner.iter().position(|&b| b == b'"')?;
    Some((inner.get(..close)?, inner.get(close + 1..)?))
}

/// `<blanks><decimal>]` at the start of `s` (the text after a `[`, read like C's `atoi`
/// but requiring the `]`): the number and the bytes read including the `]`.
pub(super) fn bracket_number(s: &[u8]) -> Option<(u64, usize)> {
    let ws = skip_ws(s);
    let digits = s
        .get(ws..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let value = s.get(ws..ws + digits)?.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    (s.get(ws + digits) == Some(&b']')).then_some((value, ws + digits + 1))
}

/// ibsim's `parse_node_desc` on the text after a header's id: after the first `#` and
/// blanks, a quoted string up to the next `"` (or the end), or else the text up to
/// ` enhanced port `, ` base port `, ` lid ` or ` lmc ` (the first of these, in that
/// order, that occurs), or the whole rest. `None` without a `#`.
pub(super) fn description(rest: &[u8]) -> Option<&[u8]> {
    let hash = rest.iter().position(|&b| b == b'#')?;
    let after = rest.get(hash + 1..)?;
    let start = after
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(after.len());
    let s = after.get(start..)?;
    if let Some(inner) = s.strip_prefix(b"\"") {
        let end = inner.iter().position(|&b| b == b'"').unwrap_or(inner.len());
        return inner.get(..end);
    }
    for pat in [&b" enhanced port "[..], b" base port ", b" lid ", b" lmc "] {
        if let Some(at) = s.windows(pat.len()).position(|w| w == pat) {
            return s.get(..at);
        }
    }
    Some(s)
}
