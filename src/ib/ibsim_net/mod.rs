//! ibsim `net` files: the fabric description the InfiniBand simulator reads with
//! `ibsim -s <netfile>` (spec `infiniband-formats.md` §5.1; ibsim's parser is
//! `ibsim/sim_net.c`).
//!
//! ```text
//! Switch    8 "sw-l0-000"
//! [1]    "node001"[1]
//! [5]    "sw-l1-000"[1]
//!
//! Hca    1 "node001"
//! [1]    "sw-l0-000"[1]
//! ```
//!
//! (Fields are separated by tabs or spaces.)
//!
//! The reader follows ibsim 0.10 line by line, because the result must be the fabric ibsim
//! simulates — in particular its **GUIDs**, which OpenSM's forwarding-table dumps of the
//! simulation are keyed by:
//!
//! * Keywords count only at the very start of a line, matched as prefixes in ibsim's
//!   order: `Switch`; `Hca` or `Ca`; `Rt` (node headers); `switchguid`; `hcaguids` or
//!   `caguid`; `rtguid` (GUID bases); `module` (node id prefix); `include`; and the
//!   keywords this parser ignores because they do not change the cabling or the GUIDs:
//!   `vendid`, `devid`, `sysimgguid`, `width`, `speed`, `extspeed`, `pdebug` and `do`
//!   (console commands are not executed). Every other line is ignored, as ibsim does.
//! * A record is a header line and the lines after it that start with `[` (one cabled
//!   port each) or `#` (comments, skipped). It ends after as many port lines as the header
//!   has ports, or at the first other line, which ibsim **consumes**: a header or GUID
//!   line right after a record (without a blank line between) would be lost, so it is an
//!   error here.
//! * Header: `Switch|Hca|Ca|Rt <nports> "<id>" [# "<description>"] …`. The id is any
//!   string without `#` and `@`; the description is the quoted string after the first `#`
//!   (or, unquoted, the text up to ` enhanced port `, ` base port `, ` lid ` or ` lmc `);
//!   without one the description is the id (with its `module` prefix). As in ibsim, ids
//!   are cut to 64 bytes and descriptions to 63 (the NodeDescription field). LIDs, LMCs
//!   and `base`/`enhanced port 0` on headers are not read (see below).
//! * Port line: `[<port>] … "<remote id>"[<remote port>] …`: the remote id is the first
//!   quoted string of the line; the remote port must follow its closing quote directly and
//!   defaults to **1** when no `[` follows it. Link options (`w=`, `s=`, `e=`) and an
//!   ibnetdiscover-style `# …` comment are ignored (they set link width and speed, and
//!   initial LIDs).
//! * GUIDs are **assigned**, not read from the ids: switches get consecutive node GUIDs
//!   from `0x200000` (port GUIDs equal the node GUID); CAs get node GUIDs from `0x100000`,
//!   advancing by `nports + 1` per CA, with port `p` at node GUID + `p`; routers likewise
//!   from 0 (ibsim 0.10 has no router base, so a router needs an `rtguid=` line). A line
//!   `switchguid=V` / `caguid=V` / `hcaguids=V` / `rtguid=V` sets the next GUID of that
//!   kind to `V`; `…+V` sets it to the last `=` value (or the default base) plus `V`. The
//!   value is read like C's `strtoull(…, 0)`: `0x…` hex, a leading `0` octal, else decimal;
//!   text after it is ignored (so ibnetdiscover's `switchguid=0x…(…)` lines work, and
//!   ibnetdiscover output read as a net file keeps its real GUIDs).
//! * Every link must be listed from both ends, consistently, as ibsim checks.
//!
//! **LIDs**: a net file has none (OpenSM assigns them when it sweeps the simulated
//! fabric), so the topology has no switch LIDs ([`IbNode::lid`] is `None`) and its
//! [`IbPortLid`](crate::ib::IbPortLid)s — one per cabled CA or router port, carrying the port GUID — have
//! `base_lid` 0 ("unassigned"). To map forwarding-table rows to hosts, take the LIDs from
//! OpenSM's `guid2lid` file of the same run ([`super::guid2lid::parse_guid2lid`], keyed by
//! these port GUIDs and the switches' node GUIDs).
//!
//! Not supported, with a clear error: `include` (a reader cannot open other files; paste
//! the included file in place of the line) and port aliases (`@` lines, `"…@alias"`
//! peers). Differences from ibsim, all on inputs ibsim rejects or misreads: a header that
//! would be swallowed by the record before it, a port line outside a record, an indented
//! keyword line, a blank between a remote id and its `[port]`, an empty id, a port count
//! above 255, a GUID value without digits, and a node that would get GUID 0 are errors;
//! lines are not cut at ibsim's 255-byte line buffer.
//!
//! Complexity: linear reading with one reused line buffer (per node one id and one
//! description are allocated, per port line one remote id), then `O(P log P)` pairing for
//! `P` port lines, with hash maps from ids and GUIDs to nodes.
//!
//! This folder holds the line dispatch, records and GUID assignment; `syntax.rs` the
//! lexical pieces of a line, `resolve.rs` the second pass over the port lines. It may use
//! the model of [`crate::ib`], its line reading (`ib/text.rs`) and half-link pairing
//! (`ib/links.rs`), and [`crate::error`].

use std::collections::HashMap;
use std::io::BufRead;

mod resolve;
mod syntax;

use super::text::{c_integer, excerpt, is_ws, perr, trim, CNumberError, LineReader};
use crate::error::LocatedError;
use crate::ib::{IbNode, IbTopology, NodeKind};
use syntax::{
    alias_error, bracket_number, description, indented, keyword, matters, quoted, show, skip_ws,
    Keyword,
};

/// ibsim's first switch node GUID (`absguids[SWITCH_NODE]`).
pub(crate) const IBSIM_SWITCH_GUID_BASE: u64 = 0x20_0000;
/// ibsim's first CA node GUID (`absguids[HCA_NODE]`).
pub(crate) const IBSIM_CA_GUID_BASE: u64 = 0x10_0000;
/// ibsim 0.10's first router node GUID: none is set, so it is 0 unless `rtguid=` is given.
pub(crate) const IBSIM_ROUTER_GUID_BASE: u64 = 0;

/// ibsim's `NODEIDLEN - 1`: node ids are cut to this many bytes.
const MAX_ID_LEN: usize = 64;
/// ibsim's `sizeof(nodedesc) - 1`: descriptions are cut to this many bytes.
const MAX_DESC_LEN: usize = 63;
/// ibsim's `NODEPREFIX`: the longest `module` prefix.
const MAX_PREFIX_LEN: usize = 20;

/// An example switch header, quoted in error messages.
const HEADER_EXAMPLE: &str =
    "`Switch\\t8 \"sw-l0-000\"` or `Hca\\t1 \"node001\" # \"node001 HCA-1\"`";
/// An example port line, quoted in error messages.
const PORT_EXAMPLE: &str = "`[1]\\t\"node001\"[1]`";

/// Parses an ibsim net file into an [`IbTopology`] with the GUIDs ibsim 0.10 assigns.
///
/// * Nodes keep file order; [`IbNode::description`] is the header's `# "…"` part or else
///   the node id; [`IbNode::num_ports`] is the header's port count; [`IbNode::lid`] is
///   `None` (a net file has no LIDs).
/// * Every port line of a CA or router record yields one [`IbPortLid`](crate::ib::IbPortLid) with the port's
///   GUID and `base_lid` 0 (unassigned), sorted by (node, port).
/// * Links are stored once (`a < b`), sorted, with the line of their first port line.
///
/// Errors (with the 1-based line of the offending line): a malformed header (no port
/// count, a count of 0 or above 255, no quoted id, an empty id or one with `#` or `@`); a
/// second node with the same id; a node whose assigned GUID is 0 or already taken (ibsim
/// refuses both); a malformed port line (no `]`, a port outside `1..=nports`, no quoted
/// remote id, a remote port of 0 or without `]`, or a blank between the remote id and its
/// `[port]`); a port listed twice in a record; a port line outside a record; a header,
/// GUID, `module` or `include` line that directly follows a record (ibsim would swallow
/// it); an indented header, port or GUID line (ibsim would ignore it); a GUID line
/// without `=`/`+` or without a number; a malformed `module` line; any `include` line;
/// port aliases; a remote id without a node; a remote port above the remote's port count;
/// a link not listed back by its other end, or listed back to another port (the message
/// names both lines); a port cabled to itself; and, at line 0, an input without any node.
///
/// Never panics, whatever the input. Complexity: `O(n + P log P)` for `n` input bytes and
/// `P` port lines.
pub fn parse_ibsim_net<R: BufRead>(reader: R) -> Result<IbTopology, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut state = State::new();
    while let Some((line, raw)) = lines.next_line()? {
        state.line(line, raw)?;
    }
    state.finish()
}

// ---------------------------------------------------------------------------------------
// The parser.

/// Index of a node kind in the GUID counters.
fn slot(kind: NodeKind) -> usize {
    match kind {
        NodeKind::Switch => 0,
        NodeKind::Ca => 1,
        NodeKind::Router => 2,
    }
}

/// The open record.
#[derive(Debug, Clone, Copy)]
struct Record {
    node: u32,
    /// Port lines still allowed (ibsim closes the record when this reaches 0).
    remaining: u32,
}

/// One port line: `(node, port)` is cabled to `remote[remote_port]`.
#[derive(Debug, Clone)]
struct PortLine {
    node: u32,
    port: u32,
    remote: Vec<u8>,
    remote_port: u32,
    line: u32,
}

/// Parser state across lines.
struct State {
    nodes: Vec<IbNode>,
    /// Node ids (with the `module` prefix), by node index.
    ids: Vec<Vec<u8>>,
    by_id: HashMap<Vec<u8>, u32>,
    by_guid: HashMap<u64, u32>,
    ports: Vec<PortLine>,
    /// (node, port) → index into `ports`.
    port_at: HashMap<(u32, u32), usize>,
    /// Next GUID per kind (switch, CA, router), and the last absolute base per kind.
    next_guid: [u64; 3],
    base_guid: [u64; 3],
    /// The `module` prefix (empty: none).
    prefix: Vec<u8>,
    record: Option<Record>,
    /// The node whose record was closed because all its ports were listed, and the line
    /// of its last port line, while no other line came after it (for a clearer error on
    /// one port line too many).
    closed_full: Option<(u32, u32)>,
}

impl State {
    fn new() -> Self {
        let bases = [
            IBSIM_SWITCH_GUID_BASE,
            IBSIM_CA_GUID_BASE,
            IBSIM_ROUTER_GUID_BASE,
        ];
        State {
            nodes: Vec::new(),
            ids: Vec::new(),
            by_id: HashMap::new(),
            by_guid: HashMap::new(),
            ports: Vec::new(),
            port_at: HashMap::new(),
            next_guid: bases,
            base_guid: bases,
            prefix: Vec::new(),
            record: None,
            closed_full: None,
        }
    }

    /// The id of node `i` for messages.
    fn id(&self, i: u32) -> String {
        self.ids
            .get(i as usize)
            .map_or_else(String::new, |id| show(id))
    }

    /// Handles one raw line (without its newline).
    fn line(&mut self, line: u32, text: &[u8]) -> Result<(), LocatedError> {
        if let Some(rec) = self.record {
            match text.first() {
                Some(b'#') => return Ok(()),
                Some(b'[') => return self.port_line(line, text, rec),
                Some(b'@') => return Err(alias_error(line)),
                _ => {
                    self.record = None;
                    if matters(keyword(text)) {
                        return Err(perr(
                            line,
                            format!(
                                "this line directly follows the record of {} (line {}): ibsim \
                                 ends a record at the first line that does not start with `[` \
                                 and drops that line, so it would never read it; put a blank \
                                 line before it",
                                self.id(rec.node),
                                self.nodes.get(rec.node as usize).map_or(0, |n| n.line)
                            ),
                        ));
                    }
                    return indented(line, text).map_or(Ok(()), Err);
                }
            }
        }
        let after_full = self.closed_full.take();
        match keyword(text) {
            Keyword::Header(kind, len) => self.header(line, text, kind, len),
            Keyword::GuidBase(kind) => self.guid_base(line, text, kind),
            Keyword::Module => self.module(line, text),
            Keyword::Include => Err(perr(
                line,
                "`include` is not supported: this parser reads a single stream and cannot \
                 open the included file; paste that file's lines in place of this line",
            )),
            Keyword::Ignored => Ok(()),
            Keyword::Other => match text.first() {
                Some(b'[') => Err(match after_full {
                    Some((node, last)) => perr(
                        line,
                        format!(
                            "port line after the last port of {}: its header gives {} ports and \
                             lines up to {last} listed them all (ibsim reads no more port lines \
                             for it)",
                            self.id(node),
                            self.nodes.get(node as usize).map_or(0, |n| n.num_ports)
                        ),
                    ),
                    None => perr(
                        line,
                        format!(
                            "port line outside a node record: expected a `Switch`, `Hca`, `Ca` \
                             or `Rt` header before it, without a blank line between, found {}",
                            excerpt(text)
                        ),
                    ),
                }),
                Some(b'@') => Err(alias_error(line)),
                _ => indented(line, text).map_or(Ok(()), Err),
            },
        }
    }

    /// A node header; opens a record.
    fn header(
        &mut self,
        line: u32,
        text: &[u8],
        kind: NodeKind,
        keyword_len: usize,
    ) -> Result<(), LocatedError> {
        let what = match kind {
            NodeKind::Switch => "switch header",
            NodeKind::Ca => "CA header",
            NodeKind::Router => "router header",
        };
        let bad = |expected: &str, found: &[u8]| {
            perr(
                line,
                format!(
                    "{what}: expected {expected}, found {}; a header looks like {HEADER_EXAMPLE}",
                    excerpt(found)
                ),
            )
        };
        let rest = text.get(keyword_len..).unwrap_or(&[]);
        let (num_ports, after_count) = port_count(line, what, rest)?;
        let (id, rest) = quoted(after_count.get(skip_ws(after_count)..).unwrap_or(&[]))
            .ok_or_else(|| bad("a blank and the quoted node id `\"…\"`", after_count))?;
        if id.is_empty() {
            return Err(perr(line, format!("{what}: the node id `\"\"` is empty")));
        }
        if id.iter().any(|&b| b == b'#' || b == b'@') {
            return Err(perr(
                line,
                format!(
                    "{what}: the node id {} contains `#` or `@`, which ibsim reserves",
                    show(id)
                ),
            ));
        }
        let mut full_id = Vec::with_capacity(self.prefix.len() + 1 + id.len());
        if !self.prefix.is_empty() {
            full_id.extend_from_slice(&self.prefix);
            full_id.push(b'#');
        }
        full_id.extend_from_slice(id);
        full_id.truncate(MAX_ID_LEN);
        if let Some(&other) = self.by_id.get(&full_id) {
            return Err(perr(
                line,
                format!(
                    "node id {} is already used by the record on line {}",
                    show(&full_id),
                    self.nodes.get(other as usize).map_or(0, |n| n.line)
                ),
            ));
        }
        let guid = self.assign_guid(line, what, kind, &full_id, num_ports)?;
        let mut description: Vec<u8> = match description(rest) {
            Some(d) if !d.is_empty() => d.to_vec(),
            _ => full_id.clone(),
        };
        description.truncate(MAX_DESC_LEN);
        let index = self.nodes.len() as u32;
        self.by_id.insert(full_id.clone(), index);
        self.by_guid.insert(guid, index);
        self.ids.push(full_id);
        self.nodes.push(IbNode {
            kind,
            guid,
            description: String::from_utf8_lossy(&description).into_owned(),
            num_ports,
            lid: None,
            line,
        });
        self.record = Some(Record {
            node: index,
            remaining: num_ports,
        });
        Ok(())
    }

    /// The node GUID ibsim gives the next node of `kind` (named `id`, with `num_ports`
    /// ports), advancing the counter; 0 and a GUID already given are errors, as ibsim
    /// refuses such nodes.
    fn assign_guid(
        &mut self,
        line: u32,
        what: &str,
        kind: NodeKind,
        id: &[u8],
        num_ports: u32,
    ) -> Result<u64, LocatedError> {
        let slot = slot(kind);
        let guid = self.next_guid[slot];
        if guid == 0 {
            return Err(perr(
                line,
                format!(
                    "{what}: node {} would get node GUID 0{}, which OpenSM rejects; set a GUID \
                     base before it, such as `{}=0x300000`",
                    show(id),
                    if kind == NodeKind::Router {
                        " (ibsim 0.10 has no default router GUID base)"
                    } else {
                        ""
                    },
                    match kind {
                        NodeKind::Switch => "switchguid",
                        NodeKind::Ca => "caguid",
                        NodeKind::Router => "rtguid",
                    }
                ),
            ));
        }
        if let Some(&other) = self.by_guid.get(&guid) {
            return Err(perr(
                line,
                format!(
                    "{what}: node {} would get node GUID 0x{guid:016x}, which ibsim already \
                     gave to {} (line {}); ibsim refuses the node (check the \
                     `switchguid=`/`caguid=`/`rtguid=` lines)",
                    show(id),
                    self.id(other),
                    self.nodes.get(other as usize).map_or(0, |n| n.line)
                ),
            ));
        }
        self.next_guid[slot] = if kind == NodeKind::Switch {
            guid.wrapping_add(1)
        } else {
            guid.wrapping_add(u64::from(num_ports) + 1)
        };
        Ok(guid)
    }

    /// A port line of the open record.
    fn port_line(&mut self, line: u32, text: &[u8], rec: Record) -> Result<(), LocatedError> {
        let num_ports = self.nodes.get(rec.node as usize).map_or(0, |n| n.num_ports);
        let body = text.get(1..).unwrap_or(&[]);
        let (port, used) =
            bracket_number(body).ok_or_else(|| port_line_error(line, "`[<port>]`", text))?;
        if port == 0 || port > u64::from(num_ports) {
            return Err(perr(
                line,
                format!(
                    "port line: port {port} of {} is out of range (1 to the header's {num_ports} \
                     ports)",
                    self.id(rec.node)
                ),
            ));
        }
        let port = port as u32;
        let (remote, remote_port) = remote_end(line, body.get(used..).unwrap_or(&[]))?;
        let mut full = Vec::with_capacity(self.prefix.len() + 1 + remote.len());
        if !self.prefix.is_empty() && !remote.contains(&b'#') {
            full.extend_from_slice(&self.prefix);
            full.push(b'#');
        }
        full.extend_from_slice(remote);
        full.truncate(MAX_ID_LEN);
        if let Some(&first) = self.port_at.get(&(rec.node, port)) {
            return Err(perr(
                line,
                format!(
                    "port {port} of {} is listed twice in its record (lines {} and {line})",
                    self.id(rec.node),
                    self.ports.get(first).map_or(0, |p| p.line)
                ),
            ));
        }
        self.port_at.insert((rec.node, port), self.ports.len());
        self.ports.push(PortLine {
            node: rec.node,
            port,
            remote: full,
            remote_port,
            line,
        });
        let remaining = rec.remaining.saturating_sub(1);
        if remaining == 0 {
            self.record = None;
            self.closed_full = Some((rec.node, line));
        } else {
            self.record = Some(Record { remaining, ..rec });
        }
        Ok(())
    }

    /// `switchguid=…`, `caguid=…`, `hcaguids=…`, `rtguid=…` (`=` absolute, `+` relative).
    fn guid_base(&mut self, line: u32, text: &[u8], kind: NodeKind) -> Result<(), LocatedError> {
        let Some(sign) = text
            .iter()
            .position(|&b| b == b'=')
            .or_else(|| text.iter().position(|&b| b == b'+'))
        else {
            return Err(perr(
                line,
                format!(
                    "GUID line {}: expected `=` (absolute) or `+` (relative) and a value, such \
                     as `switchguid=0x200000`",
                    excerpt(text)
                ),
            ));
        };
        let relative = text.get(sign) == Some(&b'+');
        let value_text = text.get(sign + 1..).unwrap_or(&[]);
        let value = match c_integer(value_text) {
            Ok((v, _)) => v,
            Err(e) => {
                return Err(perr(
                    line,
                    format!(
                        "GUID line: {} after `{}`, found {}",
                        match e {
                            CNumberError::NoDigits =>
                                "expected a number (`0x…` hex, `0…` octal or decimal)",
                            CNumberError::Overflow => "the value does not fit in 64 bits",
                        },
                        char::from(text.get(sign).copied().unwrap_or(b'=')),
                        excerpt(value_text)
                    ),
                ))
            }
        };
        let slot = slot(kind);
        if relative {
            self.next_guid[slot] = self.base_guid[slot].wrapping_add(value);
        } else {
            self.base_guid[slot] = value;
            self.next_guid[slot] = value;
        }
        Ok(())
    }

    /// `module="<prefix>"`: node ids of later records get `<prefix>#`.
    fn module(&mut self, line: u32, text: &[u8]) -> Result<(), LocatedError> {
        let value = text
            .iter()
            .position(|&b| b == b'=')
            .and_then(|eq| text.get(eq + 1..))
            .and_then(|rest| {
                let open = rest.iter().position(|&b| b == b'"')?;
                quoted(rest.get(open..)?)
            });
        let Some((prefix, _)) = value else {
            return Err(perr(
                line,
                format!(
                    "module line {}: expected `module=\"<prefix>\"`",
                    excerpt(text)
                ),
            ));
        };
        if prefix.len() > MAX_PREFIX_LEN {
            return Err(perr(
                line,
                format!(
                    "module line: the prefix {} is longer than ibsim's {MAX_PREFIX_LEN} bytes",
                    show(prefix)
                ),
            ));
        }
        self.prefix = prefix.to_vec();
        Ok(())
    }
}

/// A header's port count after its keyword (`rest`): blanks, then a number from 1 to 255
/// as C's `strtoull` reads it. Returns it and the text after it.
fn port_count<'a>(line: u32, what: &str, rest: &'a [u8]) -> Result<(u32, &'a [u8]), LocatedError> {
    let blanks = rest.iter().take_while(|&&b| is_ws(b)).count();
    let after = rest.get(blanks..).unwrap_or(&[]);
    let bad = |expected: &str, found: &[u8]| {
        perr(
            line,
            format!(
                "{what}: expected {expected}, found {}; a header looks like {HEADER_EXAMPLE}",
                excerpt(found)
            ),
        )
    };
    if !after.first().is_some_and(u8::is_ascii_digit) || blanks == 0 {
        if after.first() == Some(&b':') {
            return Err(perr(
                line,
                format!(
                    "{what}: expected the port count, found {} (this looks like an \
                     `ibnetdiscover -l`/`ibswitches`/`ibhosts` node list, which has no \
                     links)",
                    excerpt(after)
                ),
            ));
        }
        return Err(bad("a blank and the port count after the keyword", rest));
    }
    match c_integer(after) {
        Ok((v, used)) if (1..=255).contains(&v) => Ok((v as u32, after.get(used..).unwrap_or(&[]))),
        Ok((v, _)) => Err(perr(
            line,
            format!("{what}: the port count {v} is out of range (1 to 255)"),
        )),
        Err(_) => Err(bad("the port count (a number from 1 to 255)", after)),
    }
}

/// "port line: expected …, found …; a port line looks like …".
fn port_line_error(line: u32, expected: &str, found: &[u8]) -> LocatedError {
    perr(
        line,
        format!(
            "port line: expected {expected}, found {}; a port line looks like {PORT_EXAMPLE}",
            excerpt(found)
        ),
    )
}

/// The far end of a port line, from the text after its `[<port>]`: the first quoted id
/// and the `[<port>]` right after its closing quote (port 1 without one).
fn remote_end(line: u32, after_port: &[u8]) -> Result<(&[u8], u32), LocatedError> {
    let open = after_port
        .iter()
        .position(|&b| b == b'"')
        .ok_or_else(|| port_line_error(line, "the quoted remote node id `\"…\"`", after_port))?;
    let (remote, rest) = quoted(after_port.get(open..).unwrap_or(&[])).ok_or_else(|| {
        port_line_error(line, "a closing `\"` after the remote node id", after_port)
    })?;
    if remote.is_empty() {
        return Err(perr(line, "port line: the remote node id `\"\"` is empty"));
    }
    if remote.contains(&b'@') {
        return Err(alias_error(line));
    }
    if rest.first() == Some(&b'[') {
        let (p, _) = bracket_number(rest.get(1..).unwrap_or(&[])).ok_or_else(|| {
            port_line_error(line, "the remote port `[<port>]` after the remote id", rest)
        })?;
        if p == 0 || p > 255 {
            return Err(perr(
                line,
                format!("port line: remote port {p} is out of range (1 to 255)"),
            ));
        }
        return Ok((remote, p as u32));
    }
    let t = trim(rest);
    if t.first() == Some(&b'[') {
        return Err(perr(
            line,
            format!(
                "port line: a blank separates the remote id {} from {}; ibsim reads the \
                 remote port only when `[` follows the closing quote directly (else it \
                 takes port 1); remove the blank",
                show(remote),
                excerpt(t)
            ),
        ));
    }
    Ok((remote, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<IbTopology, LocatedError> {
        parse_ibsim_net(s.as_bytes())
    }

    fn err(s: &str) -> LocatedError {
        match parse(s) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e,
        }
    }

    /// (guid, kind, description, num_ports) per node, in file order.
    fn nodes(t: &IbTopology) -> Vec<(u64, NodeKind, &str, u32)> {
        t.nodes
            .iter()
            .map(|n| (n.guid, n.kind, n.description.as_str(), n.num_ports))
            .collect()
    }

    /// Links as ((guid, port), (guid, port)).
    fn links(t: &IbTopology) -> Vec<((u64, u32), (u64, u32))> {
        let g = |i: u32| t.nodes[i as usize].guid;
        let mut v: Vec<_> = t
            .links
            .iter()
            .map(|l| {
                let (a, b) = ((g(l.a.0), l.a.1), (g(l.b.0), l.b.1));
                (a.min(b), a.max(b))
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// ibsim's `net.2sw2path4hca` example (2-port HCAs, parallel switch links, a header
    /// with a space before the tab, `Switch 8` with a space).
    const NET4: &str = "# Net configuration file example
#
Switch\t8 \"Switch1\"
[1]\t\"Hca1\"[1]
[2]\t\"Hca3\"[1]
[3]\t\"Switch2\"[3]
[5]\t\"Switch2\"[5]

Switch 8 \"Switch2\"
[1]\t\"Hca2\"[1]
[2]\t\"Hca4\"[1]
[3]\t\"Switch1\"[3]
[5]\t\"Switch1\"[5]

Hca\t2 \"Hca1\"
[1]\t\"Switch1\"[1]

Hca\t2 \"Hca2\"
[1]\t\"Switch2\"[1]

Hca\t2 \"Hca3\"
[1]\t\"Switch1\"[2]

Hca \t2 \"Hca4\"
[1]\t\"Switch2\"[2]
";

    #[test]
    fn default_guid_assignment() {
        let t = parse(NET4).unwrap();
        assert_eq!(
            nodes(&t),
            vec![
                (0x200000, NodeKind::Switch, "Switch1", 8),
                (0x200001, NodeKind::Switch, "Switch2", 8),
                (0x100000, NodeKind::Ca, "Hca1", 2),
                (0x100003, NodeKind::Ca, "Hca2", 2),
                (0x100006, NodeKind::Ca, "Hca3", 2),
                (0x100009, NodeKind::Ca, "Hca4", 2),
            ]
        );
        assert_eq!(t.links.len(), 6);
        assert!(links(&t).contains(&((0x100009, 1), (0x200001, 2))));
        assert!(links(&t).contains(&((0x200000, 5), (0x200001, 5))));
        assert_eq!(t.links[0].line, 4);
        assert_eq!(t.nodes[1].line, 9);
        assert!(t.nodes.iter().all(|n| n.lid.is_none()));
        let lids: Vec<(u32, u32, Option<u64>, u32)> = t
            .port_lids
            .iter()
            .map(|p| (p.node, p.port, p.guid, p.base_lid))
            .collect();
        assert_eq!(
            lids,
            vec![
                (2, 1, Some(0x100001), 0),
                (3, 1, Some(0x100004), 0),
                (4, 1, Some(0x100007), 0),
                (5, 1, Some(0x10000a), 0),
            ]
        );
    }

    #[test]
    fn guid_lines_absolute_and_relative() {
        let net = "switchguid=0x1000
Switch 2 \"a\"
[1] \"h\"[1]
[2] \"r\"[1]

caguid=0x5000
Hca 2 \"h\"
[1] \"a\"[1]

rtguid=0300
Rt 1 \"r\"
[1] \"a\"[2]

switchguid+5
Switch 1 \"b\"

hcaguids+0x10
Ca 1 \"c\"

Switch 1 \"d\"
";
        let t = parse(net).unwrap();
        let guids: Vec<u64> = t.nodes.iter().map(|n| n.guid).collect();
        // `+5` is relative to the last absolute base (0x1000), not to the next GUID.
        assert_eq!(guids, vec![0x1000, 0x5000, 0o300, 0x1005, 0x5010, 0x1006]);
        let p: Vec<Option<u64>> = t.port_lids.iter().map(|p| p.guid).collect();
        assert_eq!(p, vec![Some(0x5001), Some(0o300 + 1)]);
        assert_eq!(t.links.len(), 2);
    }

    #[test]
    fn ca_guids_advance_by_port_count_plus_one() {
        let t = parse("Hca 4 \"a\"\n\nCa 1 \"b\"\n\nRt 2 \"r\"\n").unwrap_err();
        // The router has no GUID base in ibsim 0.10: GUID 0 is refused.
        assert_eq!(t.line, Some(5));
        assert!(t.message.contains("GUID 0"), "{}", t.message);
        assert!(t.message.contains("rtguid=0x300000"), "{}", t.message);
        let t = parse("Hca 4 \"a\"\n\nCa 1 \"b\"\n\nrtguid=0x300000\nRt 2 \"r\"\n\nRt 1 \"s\"\n")
            .unwrap();
        let guids: Vec<u64> = t.nodes.iter().map(|n| n.guid).collect();
        assert_eq!(guids, vec![0x100000, 0x100005, 0x300000, 0x300003]);
    }

    #[test]
    fn descriptions_ids_and_truncation() {
        let long_id = "x".repeat(70);
        let net = format!(
            "Switch\t8 \"S-0000000000200000\"\t\t# \"Voltaire # 4036\" base port 0 lid 2 lmc 0
[1]\t\"H-1\"[1]\t\t# \"h\" lid 3 4xQDR

Hca 1 \"H-1\" # plain words lid 7
[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 3 lmc 0 \"sw\" lid 2 4xSDR

Hca 1 \"{long_id}\" #   \"\"

Hca 1 \"u\" # \"unterminated
"
        );
        let t = parse(&net).unwrap();
        assert_eq!(t.nodes[0].description, "Voltaire # 4036");
        assert_eq!(t.nodes[1].description, "plain words");
        // An empty description falls back to the id, cut to 63 bytes.
        assert_eq!(t.nodes[2].description, "x".repeat(63));
        assert_eq!(t.nodes[3].description, "unterminated");
        assert_eq!(t.links.len(), 1);
        // Ids are cut to 64 bytes on both sides, as ibsim does.
        let cut = format!(
            "Hca 1 \"{long_id}\"\n[1] \"sw\"[1]\n\nSwitch 1 \"sw\"\n[1] \"{}\"[1]\n",
            "x".repeat(64)
        );
        assert_eq!(parse(&cut).unwrap().links.len(), 1);
        assert_eq!(description(b" # x enhanced port 0 lid 2"), Some(&b"x"[..]));
        assert_eq!(description(b" # x lmc 1 lid 2"), Some(&b"x lmc 1"[..]));
        assert_eq!(description(b" no hash"), None);
    }

    #[test]
    fn remote_port_defaults_to_one() {
        let t = parse("Switch 4 \"s\"\n[3] \"h\"\tw=4\n\nHca 1 \"h\"\n[1] \"s\"[3]\n").unwrap();
        assert_eq!(links(&t), vec![((0x100000, 1), (0x200000, 3))]);
        // The default is 1, so the other end must be port 1.
        let e = err("Switch 4 \"s\"\n[3] \"h\"\n\nHca 2 \"h\"\n[2] \"s\"[3]\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("does not list port 1"), "{}", e.message);
        // A blank before `[port]` would silently mean port 1 in ibsim: an error here.
        let e = err("Switch 4 \"s\"\n[3] \"h\" [1]\n\nHca 1 \"h\"\n[1] \"s\"[3]\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("remove the blank"), "{}", e.message);
    }

    #[test]
    fn ibnetdiscover_output_keeps_its_guids() {
        let ibn = "#
# Topology file: generated on Sun Nov 22 10:30:09 2026
#
vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0
[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 3 4xSDR
[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 5 4xSDR
[3]\t\"R-0000000000300000\"[1](300001) \t\t# \"Router1\" lid 4 4xSDR

vendid=0x0
caguid=0x100000
Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"
[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 3 lmc 0 \"Switch1\" lid 2 4xSDR
[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 2 4xSDR

rtguid=0x300000
Rt\t2 \"R-0000000000300000\"\t\t# \"Router1\"
[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR
";
        let t = parse(ibn).unwrap();
        assert_eq!(
            nodes(&t),
            vec![
                (0x200000, NodeKind::Switch, "Switch1", 8),
                (0x100000, NodeKind::Ca, "Hca1", 2),
                (0x300000, NodeKind::Router, "Router1", 2),
            ]
        );
        assert_eq!(
            links(&t),
            vec![
                ((0x100000, 1), (0x200000, 1)),
                ((0x100000, 2), (0x200000, 2)),
                ((0x200000, 3), (0x300000, 1)),
            ]
        );
        let g: Vec<Option<u64>> = t.port_lids.iter().map(|p| p.guid).collect();
        assert_eq!(g, vec![Some(0x100001), Some(0x100002), Some(0x300001)]);
        assert!(t.port_lids.iter().all(|p| p.base_lid == 0));
    }

    #[test]
    fn module_prefix() {
        let net = "module=\"m1\"
Switch 2 \"s\"
[1] \"h\"[1]
[2] \"m2#x\"[1]

Hca 1 \"h\"
[1] \"s\"[1]

module=\"m2\"
Hca 1 \"x\"
[1] \"m1#s\"[2]
";
        let t = parse(net).unwrap();
        let d: Vec<&str> = t.nodes.iter().map(|n| n.description.as_str()).collect();
        assert_eq!(d, vec!["m1#s", "m1#h", "m2#x"]);
        assert_eq!(t.links.len(), 2);
        let e = err("module=m1\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("module=\"<prefix>\""), "{}", e.message);
        let e = err(&format!("module=\"{}\"\n", "p".repeat(21)));
        assert!(e.message.contains("longer than"), "{}", e.message);
    }

    #[test]
    fn record_ends_and_swallowed_lines() {
        // A header right after a record is dropped by ibsim: an error here.
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\nHca 1 \"h\"\n[1] \"s\"[1]\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("blank line"), "{}", e.message);
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\ncaguid=0x10\n");
        assert_eq!(e.line, Some(3));
        // Comments inside a record keep it open; other text ends it harmlessly.
        let t =
            parse("Switch 2 \"s\"\n# c\n[1] \"h\"[1]\nfoo\n\nHca 1 \"h\"\n[1] \"s\"[1]\n").unwrap();
        assert_eq!(t.links.len(), 1);
        // After nports port lines the record is closed.
        let e = err("Hca 1 \"h\"\n[1] \"s\"[1]\n[1] \"s\"[2]\n\nSwitch 2 \"s\"\n[1] \"h\"[1]\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("after the last port"), "{}", e.message);
        // A header immediately after a full record is read by ibsim (no line is lost).
        let t = parse("Hca 1 \"h\"\n[1] \"s\"[1]\nSwitch 2 \"s\"\n[1] \"h\"[1]\n").unwrap();
        assert_eq!(t.links.len(), 1);
        // A port line after a blank line is outside any record.
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\n\n[2] \"h\"[1]\n");
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("outside a node record"), "{}", e.message);
    }

    #[test]
    fn ignored_keywords_and_unsupported_ones() {
        let t = parse(
            "vendid=0x2c9\ndevid=0x1\nsysimgguid=0x5\nwidth=3\nspeed=1\nextspeed=0\npdebug=1\n\
             do echo hi\nsome text\nSwitch 1 \"s\"\n",
        )
        .unwrap();
        assert_eq!(t.nodes.len(), 1);
        let e = err("Switch 1 \"s\"\n\ninclude \"other.net\"\n");
        assert_eq!(e.line, Some(3));
        assert!(
            e.message.contains("`include` is not supported"),
            "{}",
            e.message
        );
        let e = err("Switch 1 \"s\"\n@[1] \"alias\"\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("aliases"), "{}", e.message);
        let e = err("Switch 1 \"s\"\n[1] \"h@x\"\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("aliases"), "{}", e.message);
        let e = err("Switch 1 \"s\"\n\n  Hca 1 \"h\"\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("indented"), "{}", e.message);
        // Indented text that is not a keyword is ignored, as by ibsim.
        assert!(parse("  hello\nSwitch 1 \"s\"\n").is_ok());
    }

    #[test]
    fn header_errors() {
        let cases: [(&str, &str); 10] = [
            ("Switch \"s\"\n", "port count"),
            ("Switch\t0 \"s\"\n", "out of range"),
            ("Switch\t256 \"s\"\n", "out of range"),
            ("Switch\t8\n", "quoted node id"),
            ("Switch\t8 \"s\n", "quoted node id"),
            ("Hca\t1 \"\"\n", "empty"),
            ("Hca\t1 \"a#b\"\n", "reserves"),
            ("Switches\n", "port count"),
            ("Switch\t: 0x0000000000200000 ports 8 \"sw\"\n", "node list"),
            ("Switch 1 \"s\"\n\nSwitch 1 \"s\"\n", "already used"),
        ];
        for (text, needle) in cases {
            let e = err(text);
            assert!(e.line >= Some(1), "{text:?}");
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
        assert_eq!(err("Switch 1 \"s\"\n\nSwitch 1 \"s\"\n").line, Some(3));
        // The hex form of the count is C's `strtoul(…, 0)`.
        assert_eq!(parse("Switch 0x10 \"s\"\n").unwrap().nodes[0].num_ports, 16);
    }

    #[test]
    fn duplicate_guids_are_refused() {
        let e = err("switchguid=0x100000\nSwitch 1 \"s\"\n\nHca 1 \"h\"\n");
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("already gave"), "{}", e.message);
        let e = err("switchguid=0\nSwitch 1 \"s\"\n");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn guid_line_errors() {
        let e = err("switchguid 0x5\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("`=`"), "{}", e.message);
        let e = err("\ncaguid=zz\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("expected a number"), "{}", e.message);
        let e = err("rtguid=0x1ffffffffffffffff\n");
        assert!(e.message.contains("64 bits"), "{}", e.message);
    }

    #[test]
    fn port_line_errors() {
        let cases: [(&str, u32, &str); 8] = [
            ("Switch 2 \"s\"\n[3] \"h\"[1]\n", 2, "out of range"),
            ("Switch 2 \"s\"\n[0] \"h\"[1]\n", 2, "out of range"),
            ("Switch 2 \"s\"\n[1 \"h\"[1]\n", 2, "`[<port>]`"),
            ("Switch 2 \"s\"\n[1]\n", 2, "remote node id"),
            ("Switch 2 \"s\"\n[1] \"h\n", 2, "closing"),
            ("Switch 2 \"s\"\n[1] \"h\"[0]\n", 2, "out of range"),
            ("Switch 2 \"s\"\n[1] \"h\"[2\n", 2, "remote port"),
            ("Switch 2 \"s\"\n[1] \"\"[1]\n", 2, "empty"),
        ];
        for (text, line, needle) in cases {
            let e = err(text);
            assert_eq!(e.line.unwrap_or(0), line, "{text:?}: {}", e.message);
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\n[1] \"h\"[2]\n\nHca 2 \"h\"\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("listed twice"), "{}", e.message);
    }

    #[test]
    fn link_consistency_errors() {
        // Unknown remote (with a hint when a description matches).
        let e = err("Switch 2 \"s\" # \"sw\"\n[1] \"h\"[1]\n\nHca 1 \"x\" # \"h\"\n[1] \"s\"[1]\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("no node with id \"h\""), "{}", e.message);
        assert!(e.message.contains("its id is \"x\""), "{}", e.message);
        // Remote port above the remote's port count.
        let e = err("Switch 2 \"s\"\n[1] \"h\"[2]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("only 1 ports"), "{}", e.message);
        // Not listed back.
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("does not list port 1"), "{}", e.message);
        // Listed back to another port.
        let e = err("Switch 2 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[2]\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("disagree"), "{}", e.message);
        assert!(e.message.contains("line 5"), "{}", e.message);
        // Cabled to itself; a loopback cable between two ports is fine.
        let e = err("Switch 2 \"s\"\n[1] \"s\"[1]\n");
        assert!(e.message.contains("itself"), "{}", e.message);
        let t = parse("Switch 2 \"s\"\n[1] \"s\"[2]\n[2] \"s\"[1]\n").unwrap();
        assert_eq!(t.links.len(), 1);
        // No nodes at all.
        let e = err("# nothing\n\n");
        assert_eq!(e.line, None);
        assert!(e.message.contains("no node records"), "{}", e.message);
    }

    #[test]
    fn crlf_and_non_utf8() {
        let t =
            parse("Switch 1 \"s\" # \"d\"\r\n[1] \"h\"[1]\r\n\r\nHca 1 \"h\"\r\n[1] \"s\"[1]\r\n")
                .unwrap();
        assert_eq!(t.nodes[0].description, "d");
        assert_eq!(t.links.len(), 1);
        let bytes = b"Switch 1 \"s\" # \"a\xffb\"\n";
        let t = parse_ibsim_net(&bytes[..]).unwrap();
        assert_eq!(t.nodes[0].description, "a\u{fffd}b");
    }

    #[test]
    fn c_integers() {
        assert_eq!(c_integer(b"0x1fZ"), Ok((0x1f, 4)));
        assert_eq!(c_integer(b"  +017"), Ok((0o17, 6)));
        assert_eq!(c_integer(b"0"), Ok((0, 1)));
        assert_eq!(c_integer(b"0x"), Ok((0, 1)));
        assert_eq!(c_integer(b"42(3)"), Ok((42, 2)));
        assert_eq!(c_integer(b"x"), Err(CNumberError::NoDigits));
        assert_eq!(c_integer(b""), Err(CNumberError::NoDigits));
        assert_eq!(c_integer(b"-1"), Err(CNumberError::NoDigits));
        assert_eq!(c_integer(b"0xffffffffffffffff"), Ok((u64::MAX, 18)));
        assert_eq!(
            c_integer(b"18446744073709551616"),
            Err(CNumberError::Overflow)
        );
    }
}
