//! The field grammar of ibnetdiscover record lines: node headers and port lines read
//! field by field with a cursor, each failure saying what was expected, what was found,
//! and what such a line looks like.

use super::{SPEEDS, WIDTHS};
use crate::error::LocatedError;
use crate::ib::text::{excerpt, is_ws, node_id, parse_hex, perr, Cur};
use crate::ib::NodeKind;

/// Error context: what kind of line is being parsed (and an example of one).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx {
    /// 1-based line being read.
    pub(super) line: u32,
    /// What kind of line it is, as messages name it (`switch header`, …).
    pub(super) what: &'static str,
    /// An example of such a line, quoted in messages.
    pub(super) example: &'static str,
}

impl Ctx {
    /// `<what>: expected <expected>, found <rest>; a <what> looks like <example>`.
    pub(super) fn expected(&self, expected: &str, found: &[u8]) -> LocatedError {
        perr(
            self.line,
            format!(
                "{}: expected {expected}, found {}; a {} looks like {}",
                self.what,
                excerpt(found),
                self.what,
                self.example
            ),
        )
    }

    /// Expects `lit` at the cursor.
    pub(super) fn lit(
        &self,
        c: &mut Cur<'_>,
        lit: &[u8],
        expected: &str,
    ) -> Result<(), LocatedError> {
        if c.eat_lit(lit) {
            Ok(())
        } else {
            Err(self.expected(expected, c.rest()))
        }
    }

    /// Expects at least one blank.
    fn ws1(&self, c: &mut Cur<'_>, before: &str) -> Result<(), LocatedError> {
        if c.skip_ws() {
            Ok(())
        } else {
            Err(self.expected(&format!("a blank before {before}"), c.rest()))
        }
    }

    /// Expects a decimal number no larger than `max`.
    fn dec(&self, c: &mut Cur<'_>, what: &str, max: u64) -> Result<u32, LocatedError> {
        let at = c.rest();
        match c.dec() {
            Some(v) if v <= max => Ok(v as u32),
            Some(v) => Err(perr(
                self.line,
                format!("{}: {what} {v} is out of range (at most {max})", self.what),
            )),
            None => Err(self.expected(&format!("{what} (a decimal number)"), at)),
        }
    }

    /// Expects `blank+ <word> blank+ <decimal ≤ max>` (messages are only formatted on
    /// failure: this runs several times per line).
    fn word_dec(&self, c: &mut Cur<'_>, word: &str, max: u64) -> Result<u32, LocatedError> {
        if !c.skip_ws() {
            return Err(self.expected(&format!("a blank before `{word}`"), c.rest()));
        }
        if !c.eat_lit(word.as_bytes()) {
            return Err(self.expected(&format!("`{word}`"), c.rest()));
        }
        if !c.skip_ws() {
            return Err(self.expected(&format!("a blank before the {word} value"), c.rest()));
        }
        let at = c.rest();
        match c.dec() {
            Some(v) if v <= max => Ok(v as u32),
            Some(v) => Err(perr(
                self.line,
                format!(
                    "{}: {word} value {v} is out of range (at most {max})",
                    self.what
                ),
            )),
            None => Err(self.expected(&format!("a {word} value (a decimal number)"), at)),
        }
    }

    /// Expects 1 to 16 hex digits.
    pub(super) fn hex(&self, c: &mut Cur<'_>, what: &str) -> Result<u64, LocatedError> {
        let at = c.rest();
        c.hex()
            .ok_or_else(|| self.expected(&format!("{what} (1 to 16 hex digits)"), at))
    }

    /// Expects a quoted node id `"<letter>-<16 hex>"`; returns (kind, GUID).
    fn node_id(&self, c: &mut Cur<'_>, what: &str) -> Result<(NodeKind, u64), LocatedError> {
        let at = c.rest();
        let bad = || {
            self.expected(
                &format!("{what} like `\"S-0000000000200000\"` (S, H or R, then 16 hex digits)"),
                at,
            )
        };
        if !c.eat(b'"') {
            return Err(bad());
        }
        let kind = match c.peek() {
            Some(b'S') => NodeKind::Switch,
            Some(b'H') => NodeKind::Ca,
            Some(b'R') => NodeKind::Router,
            _ => return Err(bad()),
        };
        c.advance(1);
        if !c.eat(b'-') {
            return Err(bad());
        }
        let digits = c.take_while(|b| b.is_ascii_hexdigit());
        if digits.len() != 16 || !c.eat(b'"') {
            return Err(bad());
        }
        let guid = parse_hex(digits).ok_or_else(bad)?;
        Ok((kind, guid))
    }

    /// Expects a quoted description and returns its bytes: from the `"` at the cursor to
    /// the last `"` of the line (greedy, so quotes and `#` inside are kept).
    fn desc<'a>(&self, c: &mut Cur<'a>) -> Result<&'a [u8], LocatedError> {
        if !c.eat(b'"') {
            return Err(self.expected("a quoted node description `\"…\"`", c.rest()));
        }
        let rest = c.rest();
        let Some(end) = rest.iter().rposition(|&b| b == b'"') else {
            return Err(self.expected(
                "a closing `\"` after the node description",
                b"the end of the line (unterminated description)",
            ));
        };
        let desc = rest.get(..end).unwrap_or(&[]);
        c.advance(end + 1);
        Ok(desc)
    }

    /// Expects an optional `[ext N]` (chassis external port, `-g`).
    fn opt_ext(&self, c: &mut Cur<'_>) -> Result<(), LocatedError> {
        if c.eat_lit(b"[ext") {
            self.ws1(c, "the external port number")?;
            self.dec(c, "an external port number", u64::from(u32::MAX))?;
            self.lit(c, b"]", "`]` closing `[ext N]`")?;
        }
        Ok(())
    }

    /// Expects `<width><speed>` (e.g. `4xQDR`), then the optional `-f` fields
    /// (` s=N w=N v=N`) and Xsigo suffixes (` slot N`, ` (scp)`), then the end. Returns
    /// whether the `-f` fields were there.
    fn link_tail(&self, c: &mut Cur<'_>) -> Result<bool, LocatedError> {
        let at = c.rest();
        let rate = c.take_while(|b| !is_ws(b));
        let valid = WIDTHS.iter().any(|w| {
            rate.strip_prefix(*w)
                .is_some_and(|speed| SPEEDS.contains(&speed))
        });
        if !valid {
            return Err(self.expected(
                "a link width and speed such as `4xQDR` (width 1x 2x 4x 8x 12x ??, speed SDR \
                 DDR QDR FDR10 FDR EDR HDR NDR XDR ???)",
                at,
            ));
        }
        let (mut full, mut xsigo) = (false, false);
        loop {
            let had_ws = c.skip_ws();
            if c.at_end() {
                return Ok(full);
            }
            let at = c.rest();
            if !had_ws {
                return Err(self.expected("a blank or the end of the line", at));
            }
            if !full && c.eat_lit(b"s=") {
                full = true;
                self.dec(c, "the `s=` speed code", 255)?;
                self.ws1(c, "`w=`")?;
                self.lit(c, b"w=", "`w=` (the `-f` fields are ` s=N w=N v=N`)")?;
                self.dec(c, "the `w=` width code", 255)?;
                self.ws1(c, "`v=`")?;
                self.lit(c, b"v=", "`v=` (the `-f` fields are ` s=N w=N v=N`)")?;
                self.dec(c, "the `v=` VL code", 255)?;
            } else if !xsigo && c.eat_lit(b"slot") {
                xsigo = true;
                self.ws1(c, "the slot number")?;
                self.dec(c, "a slot number", u64::from(u32::MAX))?;
            } else if !xsigo && c.eat_lit(b"(scp)") {
                xsigo = true;
            } else {
                return Err(self.expected(
                    "the end of the line, ` s=N w=N v=N` (`-f`), ` slot N` or ` (scp)`",
                    at,
                ));
            }
        }
    }

    /// The rest of a node header after its keyword: `<ports> "<id>" # "<description>"`,
    /// for switches `base|enhanced port 0 lid <lid> lmc <lmc>`, up to the end of the line.
    pub(super) fn header_fields<'a>(
        &self,
        c: &mut Cur<'a>,
        kind: NodeKind,
    ) -> Result<HeaderFields<'a>, LocatedError> {
        let what = self.what;
        if !c.skip_ws() || !c.peek().is_some_and(|b| b.is_ascii_digit()) {
            let hint = if c.peek() == Some(b':') {
                " (this looks like an `ibnetdiscover -l`/`ibswitches`/`ibhosts` node list, \
                 which has no links; use the default `ibnetdiscover` output)"
            } else {
                ""
            };
            return Err(perr(
                self.line,
                format!(
                    "{what}: expected the port count after the keyword, found {}{hint}; a \
                     {what} looks like {}",
                    excerpt(c.rest()),
                    self.example
                ),
            ));
        }
        let num_ports = self.dec(c, "the port count", 255)?;
        self.ws1(c, "the node id")?;
        let (id_kind, guid) = self.node_id(c, "a node id")?;
        if id_kind != kind {
            return Err(perr(
                self.line,
                format!(
                    "{what}: the id {} names a {id_kind}, but the header is a {kind} header",
                    node_id(id_kind, guid)
                ),
            ));
        }
        c.skip_ws();
        self.lit(c, b"#", "`#` and the quoted node description")?;
        c.skip_ws();
        let desc = self.desc(c)?;
        let lid = if kind == NodeKind::Switch {
            Some(self.switch_port0(c)?)
        } else {
            if c.skip_ws() {
                c.eat_lit(b"(scp)");
            }
            None
        };
        c.skip_ws();
        if !c.at_end() {
            return Err(self.expected("the end of the line", c.rest()));
        }
        Ok(HeaderFields {
            num_ports,
            guid,
            desc,
            lid,
        })
    }

    /// A switch header's ` base|enhanced port 0 lid <lid> lmc <lmc>`; returns the LID.
    fn switch_port0(&self, c: &mut Cur<'_>) -> Result<u32, LocatedError> {
        self.ws1(c, "`base port 0` or `enhanced port 0`")?;
        if !c.eat_lit(b"base") && !c.eat_lit(b"enhanced") {
            return Err(self.expected("`base` or `enhanced` (port 0)", c.rest()));
        }
        self.word_dec(c, "port", 0)?;
        let lid = self.word_dec(c, "lid", 0xffff)?;
        self.word_dec(c, "lmc", 7)?;
        Ok(lid)
    }

    /// The rest of a port line after its `[`: `<port>][ext N](<port GUID>)
    /// "<peer id>"[<peer port>][ext N](<peer port GUID>) # …`, up to the end of the line.
    pub(super) fn port_fields(
        &self,
        c: &mut Cur<'_>,
        is_switch: bool,
    ) -> Result<PortFields, LocatedError> {
        let port = self.dec(c, "the port number", 255)?;
        self.lit(c, b"]", "`]` after the port number")?;
        self.opt_ext(c)?;
        let own_port_guid = if c.eat(b'(') {
            let g = self.hex(c, "the port GUID")?;
            self.lit(c, b")", "`)` after the port GUID")?;
            Some(g)
        } else {
            None
        };
        c.skip_ws();
        let (peer_kind, peer_guid) = self.node_id(c, "the peer's node id")?;
        self.lit(c, b"[", "`[` and the peer's port number")?;
        let peer_port = self.dec(c, "the peer's port number", 255)?;
        self.lit(c, b"]", "`]` after the peer's port number")?;
        self.opt_ext(c)?;
        c.skip_ws();
        let peer_port_guid = if c.eat(b'(') {
            let g = self.hex(c, "the peer's port GUID")?;
            self.lit(c, b")", "`)` after the peer's port GUID")?;
            c.skip_ws();
            Some(g)
        } else {
            None
        };
        self.lit(c, b"#", "`#` and the link comment")?;
        c.skip_ws();
        let own_lid = if is_switch {
            None
        } else {
            Some(self.own_lids(c)?)
        };
        self.desc(c)?;
        self.word_dec(c, "lid", 0xffff)?;
        self.ws1(c, "the link width and speed")?;
        let full = self.link_tail(c)?;
        Ok(PortFields {
            port,
            own_port_guid,
            peer_kind,
            peer_guid,
            peer_port,
            peer_port_guid,
            own_lid,
            full,
        })
    }

    /// A CA/router port line's `lid <base lid> lmc <lmc>` and the blank after it.
    fn own_lids(&self, c: &mut Cur<'_>) -> Result<(u32, u8), LocatedError> {
        self.lit(c, b"lid", "`lid <base lid> lmc <lmc>` (this port's LIDs)")?;
        self.ws1(c, "the base LID")?;
        let base = self.dec(c, "the port's base LID", 0xffff)?;
        let lmc = self.word_dec(c, "lmc", 7)?;
        self.ws1(c, "the peer's quoted description")?;
        Ok((base, lmc as u8))
    }
}

/// What a node header line states.
pub(super) struct HeaderFields<'a> {
    pub(super) num_ports: u32,
    pub(super) guid: u64,
    pub(super) desc: &'a [u8],
    /// Switches: the LID of port 0.
    pub(super) lid: Option<u32>,
}

/// What a port line states.
pub(super) struct PortFields {
    pub(super) port: u32,
    pub(super) own_port_guid: Option<u64>,
    pub(super) peer_kind: NodeKind,
    pub(super) peer_guid: u64,
    pub(super) peer_port: u32,
    pub(super) peer_port_guid: Option<u64>,
    /// CA/router ports: base LID and LMC.
    pub(super) own_lid: Option<(u32, u8)>,
    /// Whether the `-f` fields were there.
    pub(super) full: bool,
}
