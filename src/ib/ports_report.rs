//! `ibnetdiscover -p` ports reports (spec `infiniband-formats.md` §1.4; written by
//! `dump_ports_report` in infiniband-diags' `ibnetdiscover.c`).
//!
//! One line per port of every node (highest port first), the local end, then the peer:
//!
//! ```text
//! CA    80  1 0x000000000010001f 4x SDR - SW    16  4 0x0000000000200003 ( 'node016' - 'sw-l0-003' )
//! SW     2  8 0x0000000000200000 4x SDR                                    'Switch1'
//! ```
//!
//! An end is `<type> <lid> <port> 0x<16 hex port GUID>`, with type `SW`, `CA` or `RT`; the
//! LID column is the switch's (port 0) LID for switches and the port's **base** LID for CAs
//! and routers (the LMC is not shown, so CA port LIDs get `lmc` 0). After the local end
//! come the link width and speed (`4x SDR`), then either ` - <peer end> ( '<local
//! description>' - '<peer description>' )` or, for an unconnected port, blanks and
//! `'<local description>'`. Every link appears twice, once from each end.
//!
//! **Node identity.** The report shows port GUIDs only, while the other `ibnetdiscover`
//! outputs key nodes by node GUID:
//!
//! * a switch's node GUID is taken to be its port GUID (all ports of a switch share it;
//!   it is port 0's GUID, which equals the node GUID on ibsim and, as far as known, on
//!   real switches — `ibnetdiscover`'s `switchguid=0x<node>(<port 0>)` lines show both);
//! * a CA's or router's node GUID is derived as **port GUID − port number**, the
//!   allocation of ibsim, Mellanox/NVIDIA adapters and the 2007 man-page example, which
//!   makes the nodes (and their `H-…` ids) those of the default `ibnetdiscover` output,
//!   with a 2-port HCA as one node. The derivation is checked on the structure of the
//!   whole file: if some derived GUID would be 0, a switch's GUID or some port's GUID
//!   (which the rule never produces), or would join ports of different types, the
//!   derivation is not used and **every CA or router port becomes a node of its own,
//!   keyed by its port GUID**. Ports joined into one node must have the same description
//!   (a node has one NodeDescription), else the line is an error. CA and router
//!   [`IbNode::num_ports`] is 0 (unknown); a switch's is its highest port listed (the
//!   report lists every switch port).
//!
//! Lines whose first word is not `SW`, `CA` or `RT` (and not a cut-off start of one) are
//! skipped, like `-s` progress lines; blank lines too. Descriptions are arbitrary bytes:
//! the description pair is split at `' - '`; when a description itself contains `' - '`,
//! the split that agrees with the other end's line is used. Non-UTF-8 bytes are replaced.
//!
//! Complexity: linear reading (one allocation per line for its descriptions), then
//! `O(P log P)` pairing for `P` port lines, with hash maps from GUIDs to nodes.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use super::ibnetdiscover::{SPEEDS, WIDTHS};
use super::links::{pair_half_links, HalfLink, LinkSource};
use super::text::{excerpt, is_ws, parse_hex, perr, trim, Cur, LineReader};
use crate::error::LocatedError;
use crate::ib::{IbNode, IbPortLid, IbTopology, NodeKind};

/// An example connected port line, quoted in error messages.
const LINE_EXAMPLE: &str = "`CA    80  1 0x000000000010001f 4x SDR - SW    16  4 \
0x0000000000200003 ( 'node016' - 'sw-l0-003' )`";

/// Parses an `ibnetdiscover -p` ports report into an [`IbTopology`].
///
/// * Nodes keep the order of their first line; [`IbNode::line`] is that line and
///   [`IbNode::description`] the local description of the node's lines. Node GUIDs are
///   derived from port GUIDs as the module documentation describes. A switch's
///   [`IbNode::lid`] is the LID its lines give.
/// * Every connected CA or router port yields one [`IbPortLid`] (its port GUID, its base
///   LID from its own line, `lmc` 0), sorted by (node, port).
/// * Links are stored once (`a < b`), sorted, with the line of their first listing.
///
/// Errors (with the 1-based line): a malformed or truncated port line (including one cut
/// to a bare `S`, `C` or `R`); an unknown type; a LID above 65535, a port outside
/// `1..=255` or a GUID that is not `0x` and 16 hex digits; an unknown width or speed; a
/// port listed twice; a port GUID used by two ports or also a switch's GUID; ports of one
/// node with different descriptions; a switch whose lines disagree on its LID; a node without any connected port in a report of
/// several nodes (discovery reaches every node through a cable); a peer without a line of
/// its own, or whose own line says it is unconnected,
/// or gives another LID, type or peer (the message names both lines); a port cabled to
/// itself; and, at line 0, an input without any port line.
///
/// Never panics, whatever the input. Complexity: `O(n + P log P)` for `n` input bytes and
/// `P` port lines.
pub fn parse_ports_report<R: BufRead>(reader: R) -> Result<IbTopology, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut parsed = Vec::new();
    while let Some((line, raw)) = lines.next_line()? {
        if let Some(p) = parse_line(line, raw)? {
            parsed.push(p);
        }
    }
    build(&parsed)
}

/// One end of a line: `<type> <lid> <port> 0x<port GUID>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct End {
    kind: NodeKind,
    lid: u32,
    port: u32,
    guid: u64,
}

/// One port line.
#[derive(Debug, Clone)]
struct PortLine {
    local: End,
    peer: Option<End>,
    /// The local description (unconnected) or the `A' - 'B` description pair.
    descs: Vec<u8>,
    line: u32,
}

/// The type word of an end, if it is one.
fn kind_of(word: &[u8]) -> Option<NodeKind> {
    match word {
        b"SW" => Some(NodeKind::Switch),
        b"CA" => Some(NodeKind::Ca),
        b"RT" => Some(NodeKind::Router),
        _ => None,
    }
}

/// The two-letter type word of a kind.
fn word_of(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Switch => "SW",
        NodeKind::Ca => "CA",
        NodeKind::Router => "RT",
    }
}

/// An end for messages: `CA 0x0000000000100001[1]`.
fn show(e: &End) -> String {
    format!("{} 0x{:016x}[{}]", word_of(e.kind), e.guid, e.port)
}

/// Error context of one line.
struct Ctx {
    line: u32,
}

impl Ctx {
    /// "ports report line: expected …, found …; a line looks like …".
    fn expected(&self, expected: &str, found: &[u8]) -> LocatedError {
        perr(
            self.line,
            format!(
                "ports report line: expected {expected}, found {}; a line looks like \
                 {LINE_EXAMPLE}",
                excerpt(found)
            ),
        )
    }

    /// At least one blank.
    fn ws1(&self, c: &mut Cur<'_>, before: &str) -> Result<(), LocatedError> {
        if c.skip_ws() {
            Ok(())
        } else {
            Err(self.expected(&format!("a blank before {before}"), c.rest()))
        }
    }

    /// A decimal number no larger than `max`.
    fn dec(&self, c: &mut Cur<'_>, what: &str, max: u64) -> Result<u32, LocatedError> {
        let at = c.rest();
        match c.dec() {
            Some(v) if v <= max => Ok(v as u32),
            Some(v) => Err(perr(
                self.line,
                format!("ports report line: {what} {v} is out of range (at most {max})"),
            )),
            None => Err(self.expected(&format!("{what} (a decimal number)"), at)),
        }
    }

    /// `<type> <lid> <port> 0x<16 hex>`.
    fn end(&self, c: &mut Cur<'_>, which: &str) -> Result<End, LocatedError> {
        let at = c.rest();
        let word = c.take_while(|b| !is_ws(b));
        let Some(kind) = kind_of(word) else {
            return Err(self.expected(&format!("the {which} type `SW`, `CA` or `RT`"), at));
        };
        self.ws1(c, "the LID")?;
        let lid = self.dec(c, &format!("the {which} LID"), 0xffff)?;
        self.ws1(c, "the port number")?;
        let port = self.dec(c, &format!("the {which} port number"), 255)?;
        if port == 0 {
            return Err(perr(
                self.line,
                format!("ports report line: the {which} port number is 0 (ports start at 1)"),
            ));
        }
        self.ws1(c, "the port GUID")?;
        let at = c.rest();
        let bad = || self.expected(&format!("the {which} port GUID `0x` and 16 hex digits"), at);
        if !c.eat_lit(b"0x") {
            return Err(bad());
        }
        let digits = c.take_while(|b| b.is_ascii_hexdigit());
        if digits.len() != 16 || !c.peek().is_none_or(is_ws) {
            return Err(bad());
        }
        let guid = parse_hex(digits).ok_or_else(bad)?;
        Ok(End {
            kind,
            lid,
            port,
            guid,
        })
    }
}

/// Parses one line; `None` for lines that are not port lines (skipped).
fn parse_line(line: u32, raw: &[u8]) -> Result<Option<PortLine>, LocatedError> {
    let text = trim(raw);
    let first = text.iter().position(|&b| is_ws(b)).unwrap_or(text.len());
    let word = text.get(..first).unwrap_or(&[]);
    if kind_of(word).is_none() {
        let cut = !word.is_empty()
            && first == text.len()
            && [&b"SW"[..], b"CA", b"RT"]
                .iter()
                .any(|w| w.starts_with(word));
        if cut {
            return Err(perr(
                line,
                format!(
                    "line cut short: {} is the start of a port line's type (`SW`, `CA`, `RT`) \
                     but nothing follows; is the file truncated?",
                    excerpt(text)
                ),
            ));
        }
        return Ok(None);
    }
    let ctx = Ctx { line };
    let mut c = Cur::new(text);
    let local = ctx.end(&mut c, "port's")?;
    ctx.rate(&mut c)?;
    let had_ws = c.skip_ws();
    if c.eat(b'-') {
        let (peer, descs) = ctx.connected(&mut c)?;
        return Ok(Some(PortLine {
            local,
            peer: Some(peer),
            descs: descs.to_vec(),
            line,
        }));
    }
    let rest = c.rest();
    let desc = rest
        .strip_prefix(b"'")
        .and_then(|r| r.strip_suffix(b"'"))
        .filter(|_| had_ws && rest.len() >= 2);
    let Some(desc) = desc else {
        return Err(ctx.expected(
            "` - <peer>` or, for an unconnected port, blanks and `'<description>'`",
            rest,
        ));
    };
    Ok(Some(PortLine {
        local,
        peer: None,
        descs: desc.to_vec(),
        line,
    }))
}

impl Ctx {
    /// ` <width> <speed>`, such as ` 4x SDR`.
    fn rate(&self, c: &mut Cur<'_>) -> Result<(), LocatedError> {
        self.ws1(c, "the link width")?;
        let at = c.rest();
        let width = c.take_while(|b| !is_ws(b));
        if !WIDTHS.contains(&width) {
            return Err(self.expected(
                "a link width (1x 2x 4x 8x 12x ??) and speed such as `4x SDR`",
                at,
            ));
        }
        self.ws1(c, "the link speed")?;
        let at = c.rest();
        let speed = c.take_while(|b| !is_ws(b));
        if !SPEEDS.contains(&speed) {
            return Err(self.expected(
                "a link speed (SDR DDR QDR FDR10 FDR EDR HDR NDR XDR ???)",
                at,
            ));
        }
        Ok(())
    }

    /// The rest of a connected port's line after its ` -`: the peer end and the
    /// `( '<description>' - '<peer description>' )` pair (returned without its outer
    /// quotes and parentheses).
    fn connected<'a>(&self, c: &mut Cur<'a>) -> Result<(End, &'a [u8]), LocatedError> {
        self.ws1(c, "the peer's type")?;
        let peer = self.end(c, "peer's")?;
        self.ws1(c, "`( '`")?;
        if !c.eat_lit(b"(") {
            return Err(self.expected("`( '<description>' - '<peer description>' )`", c.rest()));
        }
        c.skip_ws();
        let rest = c.rest();
        let inner = rest
            .strip_prefix(b"'")
            .and_then(|r| r.strip_suffix(b")"))
            .map(trim)
            .and_then(|r| r.strip_suffix(b"'"));
        match inner.filter(|d| split_points(d).next().is_some()) {
            Some(descs) => Ok((peer, descs)),
            None => Err(self.expected(
                "`'<description>' - '<peer description>' )` up to the end of the line",
                rest,
            )),
        }
    }
}

/// Offsets of `' - '` in a description pair (candidate splits), in order.
fn split_points(descs: &[u8]) -> impl Iterator<Item = usize> + '_ {
    descs
        .windows(5)
        .enumerate()
        .filter(|(_, w)| *w == b"' - '")
        .map(|(i, _)| i)
}

/// The local description of a line: the whole text for an unconnected port; for a
/// connected one, the part before the `' - '` split that agrees with the peer's own line
/// `reverse` (which reads `B' - 'A` for this line's `A' - 'B`), else before the first.
fn local_description<'a>(p: &'a PortLine, reverse: Option<&PortLine>) -> &'a [u8] {
    if p.peer.is_none() {
        return &p.descs;
    }
    let d = &p.descs;
    let mut splits = split_points(d);
    let first = splits.next().unwrap_or(d.len());
    let Some(second) = splits.next() else {
        return d.get(..first).unwrap_or(d);
    };
    let agrees = |i: usize| {
        let (a, b) = (d.get(..i).unwrap_or(&[]), d.get(i + 5..).unwrap_or(&[]));
        reverse.is_some_and(|r| {
            r.descs.len() == d.len()
                && r.descs.starts_with(b)
                && r.descs.ends_with(a)
                && r.descs.get(b.len()..b.len() + 5) == Some(&b"' - '"[..])
        })
    };
    [first, second]
        .into_iter()
        .chain(splits)
        .find(|&i| agrees(i))
        .and_then(|i| d.get(..i))
        .unwrap_or_else(|| d.get(..first).unwrap_or(d))
}

/// The node GUID of a CA/router end under the port-GUID − port derivation.
fn derived(e: &End) -> Option<u64> {
    e.guid.checked_sub(u64::from(e.port)).filter(|&g| g != 0)
}

/// Builds the topology from the parsed lines.
fn build(lines: &[PortLine]) -> Result<IbTopology, LocatedError> {
    if lines.is_empty() {
        return Err(perr(
            0,
            "no port lines found: expected an `ibnetdiscover -p` ports report with lines such \
             as "
            .to_string()
                + LINE_EXAMPLE,
        ));
    }
    let report = Report::index(lines)?;
    let descs: Vec<&[u8]> = lines
        .iter()
        .map(|p| local_description(p, report.reverse_of(p)))
        .collect();
    let (nodes, by_guid) = report.nodes(&descs)?;
    let mut halves = Vec::with_capacity(lines.len());
    let mut port_lids = Vec::new();
    for p in lines {
        let Some(peer) = p.peer else { continue };
        let e = &p.local;
        let node = report
            .key(e)
            .and_then(|g| by_guid.get(&g).copied())
            .unwrap_or(0);
        halves.push(report.half_link(p, node, &peer)?);
        if e.kind != NodeKind::Switch {
            port_lids.push(IbPortLid {
                node,
                port: e.port,
                guid: Some(e.guid),
                base_lid: e.lid,
                lmc: 0,
                line: p.line,
            });
        }
    }
    let links = pair_half_links(&nodes, &by_guid, &halves, LinkSource::Lst)?;
    all_cabled(&nodes, &halves)?;
    port_lids.sort_unstable_by_key(|p| (p.node, p.port));
    Ok(IbTopology {
        nodes,
        port_lids,
        links,
    })
}

/// The port lines indexed by their own port, and how node GUIDs follow from port GUIDs.
struct Report<'a> {
    lines: &'a [PortLine],
    /// Each port's own line: (kind, port GUID, port) → index.
    own: HashMap<(NodeKind, u64, u32), usize>,
    /// Whether CA/router node GUIDs are derived as port GUID − port.
    derive: bool,
}

impl<'a> Report<'a> {
    /// Indexes every port's own line. A port listed twice, a CA/router port GUID used by
    /// two ports or also a switch's GUID, is an error.
    fn index(lines: &'a [PortLine]) -> Result<Self, LocatedError> {
        let mut own: HashMap<(NodeKind, u64, u32), usize> = HashMap::with_capacity(lines.len());
        let mut ca_port_guid: HashMap<u64, usize> = HashMap::new();
        let switch_guids: HashSet<u64> = lines
            .iter()
            .filter(|p| p.local.kind == NodeKind::Switch)
            .map(|p| p.local.guid)
            .collect();
        for (i, p) in lines.iter().enumerate() {
            let e = &p.local;
            if let Some(&j) = own.get(&(e.kind, e.guid, e.port)) {
                return Err(perr(
                    p.line,
                    format!(
                        "port {} is listed twice (lines {} and {})",
                        show(e),
                        lines.get(j).map_or(0, |q| q.line),
                        p.line
                    ),
                ));
            }
            if e.kind != NodeKind::Switch {
                if let Some(&j) = ca_port_guid.get(&e.guid) {
                    let other = lines.get(j).map(|q| q.local);
                    return Err(perr(
                        p.line,
                        format!(
                            "port GUID 0x{:016x} is used by {} and by {} (line {})",
                            e.guid,
                            show(e),
                            other.map_or_else(String::new, |o| show(&o)),
                            lines.get(j).map_or(0, |q| q.line)
                        ),
                    ));
                }
                ca_port_guid.insert(e.guid, i);
            }
            own.insert((e.kind, e.guid, e.port), i);
        }
        if let Some(p) = lines
            .iter()
            .find(|p| p.local.kind != NodeKind::Switch && switch_guids.contains(&p.local.guid))
        {
            return Err(perr(
                p.line,
                format!(
                    "port GUID 0x{:016x} of {} is also a switch's GUID",
                    p.local.guid,
                    show(&p.local)
                ),
            ));
        }
        Ok(Report {
            lines,
            own,
            derive: derivable(lines, &switch_guids, &ca_port_guid),
        })
    }

    /// The own line of the port `p` is cabled to, if any.
    fn reverse_of(&self, p: &PortLine) -> Option<&'a PortLine> {
        let peer = p.peer?;
        self.own
            .get(&(peer.kind, peer.guid, peer.port))
            .and_then(|&j| self.lines.get(j))
    }

    /// The node GUID of an end.
    fn key(&self, e: &End) -> Option<u64> {
        match e.kind {
            NodeKind::Switch => Some(e.guid),
            _ if self.derive => derived(e),
            _ => Some(e.guid),
        }
    }

    /// The nodes, in order of their first line (`descs`: each line's local description),
    /// and node GUID → index. Lines of one node must agree on its kind, description and
    /// (switches) LID.
    fn nodes(&self, descs: &[&[u8]]) -> Result<(Vec<IbNode>, HashMap<u64, u32>), LocatedError> {
        let mut nodes: Vec<IbNode> = Vec::new();
        let mut by_guid: HashMap<u64, u32> = HashMap::new();
        for (p, &d) in self.lines.iter().zip(descs) {
            let e = &p.local;
            let guid = self.key(e).unwrap_or(e.guid);
            match by_guid.get(&guid).and_then(|&i| nodes.get_mut(i as usize)) {
                Some(n) => same_node(n, p, guid, d)?,
                None => {
                    by_guid.insert(guid, nodes.len() as u32);
                    let is_switch = e.kind == NodeKind::Switch;
                    nodes.push(IbNode {
                        kind: e.kind,
                        guid,
                        description: String::from_utf8_lossy(d).into_owned(),
                        num_ports: if is_switch { e.port } else { 0 },
                        lid: is_switch.then_some(e.lid),
                        line: p.line,
                    });
                }
            }
        }
        Ok((nodes, by_guid))
    }

    /// Line `p` (of node `node`, cabled to `peer`) as a half-link, checked against the
    /// peer's own line first (for precise messages).
    fn half_link(&self, p: &PortLine, node: u32, peer: &End) -> Result<HalfLink, LocatedError> {
        let e = &p.local;
        let fail = |message: String| Err(perr(p.line, message));
        let Some(back) = self.reverse_of(p) else {
            return fail(format!(
                "{} is cabled to {}, but no line lists that port as its own (each link must \
                 appear twice, once from each end)",
                show(e),
                show(peer)
            ));
        };
        if back.local.lid != peer.lid {
            return fail(format!(
                "{} is cabled to {} with LID {}, but that port's own line (line {}) gives LID {}",
                show(e),
                show(peer),
                peer.lid,
                back.line,
                back.local.lid
            ));
        }
        match back.peer {
            None => {
                return fail(format!(
                    "{} is cabled to {}, but that port's own line (line {}) lists it as \
                     unconnected",
                    show(e),
                    show(peer),
                    back.line
                ))
            }
            Some(bp) if bp != *e => {
                return fail(format!(
                    "the two ends of a link disagree: {} (line {}) says it is cabled to {}, but \
                     {} (line {}) says it is cabled to {}{}",
                    show(e),
                    p.line,
                    show(peer),
                    show(peer),
                    back.line,
                    show(&bp),
                    if (bp.kind, bp.guid, bp.port) == (e.kind, e.guid, e.port) {
                        format!(" with LID {} (this line gives LID {})", bp.lid, e.lid)
                    } else {
                        String::new()
                    }
                ))
            }
            Some(_) => {}
        }
        let Some(peer_guid) = self.key(peer) else {
            return fail(format!("{} has no node GUID", show(peer)));
        };
        let port_guid = |e: &End| (e.kind != NodeKind::Switch).then_some(e.guid);
        Ok(HalfLink {
            node,
            port: e.port,
            own_port_guid: port_guid(e),
            peer_guid,
            peer_kind: peer.kind,
            peer_port: peer.port,
            peer_port_guid: port_guid(peer),
            line: p.line,
        })
    }
}

/// Whether CA/router node GUIDs can be derived as port GUID − port. Only the structure
/// decides (descriptions are not cross-checked, so an edited one must not change every
/// node's identity): no derived GUID may be 0, a switch's GUID or a port GUID (under the
/// rule node and port GUIDs never meet), and the ports joined into one node must have one
/// type.
fn derivable(
    lines: &[PortLine],
    switch_guids: &HashSet<u64>,
    ca_port_guid: &HashMap<u64, usize>,
) -> bool {
    let mut groups: HashMap<u64, NodeKind> = HashMap::new();
    lines.iter().all(|p| {
        let e = &p.local;
        if e.kind == NodeKind::Switch {
            return true;
        }
        let Some(g) = derived(e) else { return false };
        if switch_guids.contains(&g) || ca_port_guid.contains_key(&g) {
            return false;
        }
        *groups.entry(g).or_insert(e.kind) == e.kind
    })
}

/// Checks that line `p` (local description `d`) fits node `n` (GUID `guid`) that an
/// earlier line created, and counts a switch's ports.
fn same_node(n: &mut IbNode, p: &PortLine, guid: u64, d: &[u8]) -> Result<(), LocatedError> {
    let e = &p.local;
    if n.kind != e.kind {
        return Err(perr(
            p.line,
            format!(
                "GUID 0x{guid:016x} is a {} here but a {} on line {}",
                e.kind, n.kind, n.line
            ),
        ));
    }
    if n.description.as_bytes() != d && String::from_utf8_lossy(d) != n.description.as_str() {
        return Err(perr(
            p.line,
            format!(
                "{} 0x{guid:016x}: this port's description `{}` differs from line \
                 {}'s `{}`, but all ports of a node share its NodeDescription{}",
                e.kind,
                d.escape_ascii(),
                n.line,
                n.description.escape_default(),
                if e.kind == NodeKind::Switch {
                    ""
                } else {
                    " (CA and router node GUIDs are derived as port GUID − port \
                     number; if these adapters number their ports otherwise, the \
                     derivation is wrong here)"
                }
            ),
        ));
    }
    if n.kind == NodeKind::Switch {
        if n.lid != Some(e.lid) {
            return Err(perr(
                p.line,
                format!(
                    "switch 0x{guid:016x} has LID {} here but LID {} on line {} (a \
                     switch has one LID, that of port 0)",
                    e.lid,
                    n.lid.unwrap_or(0),
                    n.line
                ),
            ));
        }
        n.num_ports = n.num_ports.max(e.port);
    }
    Ok(())
}

/// Discovery reaches every node through a cable, so in a report of several nodes a node
/// without a connected port comes from a damaged line (e.g. an edited GUID).
fn all_cabled(nodes: &[IbNode], halves: &[HalfLink]) -> Result<(), LocatedError> {
    if nodes.len() <= 1 {
        return Ok(());
    }
    let mut cabled = vec![false; nodes.len()];
    for h in halves {
        if let Some(c) = cabled.get_mut(h.node as usize) {
            *c = true;
        }
    }
    match nodes.iter().zip(&cabled).find(|(_, &c)| !c) {
        Some((n, _)) => Err(perr(
            n.line,
            format!(
                "{} 0x{:016x} has no connected port, but `ibnetdiscover` reaches every node \
                 of a fabric through a cable; is a GUID on this line wrong?",
                n.kind, n.guid
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<IbTopology, LocatedError> {
        parse_ports_report(s.as_bytes())
    }

    fn err(s: &str) -> LocatedError {
        match parse(s) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e,
        }
    }

    /// The generated router + 2-port HCA fabric (`ibnetdiscover -p`, infiniband-diags 44.0).
    const ROUTER: &str = "\
RT     4  1 0x0000000000300001 4x SDR - SW     2  3 0x0000000000200000 ( 'Router1' - 'Switch1' )
CA     5  2 0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'Hca1' - 'Switch1' )
CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'Hca1' - 'Switch1' )
SW     2  8 0x0000000000200000 4x SDR                                    'Switch1'
SW     2  7 0x0000000000200000 4x SDR                                    'Switch1'
SW     2  6 0x0000000000200000 4x SDR                                    'Switch1'
SW     2  5 0x0000000000200000 4x SDR                                    'Switch1'
SW     2  4 0x0000000000200000 4x SDR - CA     1  1 0x0000000000100004 ( 'Switch1' - 'Hca2' )
SW     2  3 0x0000000000200000 4x SDR - RT     4  1 0x0000000000300001 ( 'Switch1' - 'Router1' )
SW     2  2 0x0000000000200000 4x SDR - CA     5  2 0x0000000000100002 ( 'Switch1' - 'Hca1' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 'Switch1' - 'Hca1' )
CA     1  1 0x0000000000100004 4x SDR - SW     2  4 0x0000000000200000 ( 'Hca2' - 'Switch1' )
";

    /// (guid, kind, description, num_ports, lid, line) per node.
    #[allow(clippy::type_complexity)] // a compact tuple view for assertions
    fn nodes(t: &IbTopology) -> Vec<(u64, NodeKind, &str, u32, Option<u32>, u32)> {
        t.nodes
            .iter()
            .map(|n| {
                (
                    n.guid,
                    n.kind,
                    n.description.as_str(),
                    n.num_ports,
                    n.lid,
                    n.line,
                )
            })
            .collect()
    }

    #[test]
    fn router_and_two_port_hca() {
        let t = parse(ROUTER).unwrap();
        assert_eq!(
            nodes(&t),
            vec![
                (0x300000, NodeKind::Router, "Router1", 0, None, 1),
                (0x100000, NodeKind::Ca, "Hca1", 0, None, 2),
                (0x200000, NodeKind::Switch, "Switch1", 8, Some(2), 4),
                (0x100003, NodeKind::Ca, "Hca2", 0, None, 12),
            ]
        );
        #[allow(clippy::type_complexity)]
        let links: Vec<((u32, u32), (u32, u32), u32)> =
            t.links.iter().map(|l| (l.a, l.b, l.line)).collect();
        assert_eq!(
            links,
            vec![
                ((0, 1), (2, 3), 1),
                ((1, 1), (2, 1), 3),
                ((1, 2), (2, 2), 2),
                ((2, 4), (3, 1), 8),
            ]
        );
        let lids: Vec<(u32, u32, Option<u64>, u32, u8, u32)> = t
            .port_lids
            .iter()
            .map(|p| (p.node, p.port, p.guid, p.base_lid, p.lmc, p.line))
            .collect();
        assert_eq!(
            lids,
            vec![
                (0, 1, Some(0x300001), 4, 0, 1),
                (1, 1, Some(0x100001), 3, 0, 3),
                (1, 2, Some(0x100002), 5, 0, 2),
                (3, 1, Some(0x100004), 1, 0, 12),
            ]
        );
    }

    #[test]
    fn inconsistent_derivation_falls_back_to_port_guids() {
        // Two ports of one derived node: one 2-port node.
        let text = "\
CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' )
CA     5  2 0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'a' - 's' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 's' - 'a' )
SW     2  2 0x0000000000200000 4x SDR - CA     5  2 0x0000000000100002 ( 's' - 'a' )
";
        let t = parse(text).unwrap();
        let g: Vec<u64> = t.nodes.iter().map(|n| n.guid).collect();
        assert_eq!(g, vec![0x100000, 0x200000]);
        assert_eq!(t.links.len(), 2);
        // Different descriptions on the ports of one node: an error naming both lines.
        let e = err(&text.replace(
            "0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'a'",
            "0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'b'",
        ));
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("line 1's `a`"), "{}", e.message);
        // A derived GUID equal to a port GUID (adapters with node GUID = port GUID, such as
        // QLogic's, with consecutive GUIDs): every CA port is its own node.
        let qlogic = "\
CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' )
CA     5  1 0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'b' - 's' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 's' - 'a' )
SW     2  2 0x0000000000200000 4x SDR - CA     5  1 0x0000000000100002 ( 's' - 'b' )
";
        let t = parse(qlogic).unwrap();
        let g: Vec<u64> = t.nodes.iter().map(|n| n.guid).collect();
        assert_eq!(g, vec![0x100001, 0x100002, 0x200000]);
        // A node without a connected port (here: a changed GUID on an unconnected line).
        let phantom = format!(
            "{text}SW     2  8 0x0000000000200001 4x SDR                                    's'\n"
        );
        let e = err(&phantom);
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("no connected port"), "{}", e.message);
        // A derived GUID equal to a switch GUID also disables the derivation.
        let clash = "\
CA     3  1 0x0000000000200001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000200001 ( 's' - 'a' )
";
        let t = parse(clash).unwrap();
        assert_eq!(t.nodes[0].guid, 0x200001);
    }

    #[test]
    fn descriptions_with_separators() {
        let text = "\
CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'x' - 'y' - 's' - 'z' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 's' - 'z' - 'x' - 'y' )
SW     2  2 0x0000000000200000 4x SDR                                    's' - 'z'
";
        let t = parse(text).unwrap();
        assert_eq!(t.nodes[0].description, "x' - 'y");
        assert_eq!(t.nodes[1].description, "s' - 'z");
        assert_eq!(t.nodes[1].num_ports, 2);
        // Quotes inside an unconnected port's description are kept.
        let t = parse("SW     2  2 0x0000000000200000 4x SDR       'it''s - '\n").unwrap();
        assert_eq!(t.nodes[0].description, "it''s - ");
        assert!(t.links.is_empty());
    }

    #[test]
    fn skipped_and_cut_lines() {
        let noisy = format!("DR path slid 0; dlid 0; 0 -> new Switch\n\n{ROUTER}");
        let t = parse(&noisy).unwrap();
        assert_eq!(t.nodes[0].line, 3);
        for cut in ["S", "C", "R", "SW", "CA     5"] {
            let e = err(&format!("{ROUTER}{cut}\n"));
            assert_eq!(e.line, Some(13), "{cut}: {}", e.message);
        }
        let e = err("");
        assert_eq!(e.line, None);
        assert!(e.message.contains("no port lines"), "{}", e.message);
    }

    #[test]
    fn malformed_lines() {
        let good =
            "CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' )";
        let cases: [(&str, &str); 14] = [
            ("CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' ", "up to the end"),
            ("CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'a' 's' )", "up to the end"),
            ("CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 'a' - 's' )", "`( '"),
            ("CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x000000000020000 ( 'a' - 's' )", "16 hex"),
            ("CA     3  1 0x0000000000100001 4x SDR - XX     2  1 0x0000000000200000 ( 'a' - 's' )", "peer's type"),
            ("CA     3  1 0x0000000000100001 4x SDR - SW     2  0 0x0000000000200000 ( 'a' - 's' )", "port number is 0"),
            ("CA     3  1 0x0000000000100001 4x SDR - SW 70000  1 0x0000000000200000 ( 'a' - 's' )", "out of range"),
            ("CA     3  1 0x0000000000100001 4x SDRx - SW     2  1 0x0000000000200000 ( 'a' - 's' )", "link speed"),
            ("CA     3  1 0x0000000000100001 5x SDR - SW     2  1 0x0000000000200000 ( 'a' - 's' )", "link width"),
            ("CA     3  1 0x0000000000100001 4x SDR + SW     2  1 0x0000000000200000 ( 'a' - 's' )", "unconnected"),
            ("CA     3  1 0x0000000000100001 4x SDR 'a", "unconnected"),
            ("CA     3  1 0x0000000000100001", "blank before the link width"),
            ("CA     3 256 0x0000000000100001 4x SDR 'a'", "out of range"),
            ("CA     x  1 0x0000000000100001 4x SDR 'a'", "LID"),
        ];
        for (line, needle) in cases {
            let e = err(&format!("{line}\n"));
            assert_eq!(e.line, Some(1), "{line}");
            assert!(e.message.contains(needle), "{line}: {}", e.message);
        }
        // The good line alone fails only for the missing other end.
        let e = err(&format!("{good}\n"));
        assert!(
            e.message.contains("no line lists that port"),
            "{}",
            e.message
        );
    }

    #[test]
    fn cross_checks() {
        let lines: Vec<&str> = ROUTER.lines().collect();
        let with = |i: usize, new: &str| {
            let mut v = lines.clone();
            v[i] = new;
            v.join("\n") + "\n"
        };
        // The peer's LID differs from its own line.
        let e = err(&with(
            0,
            "RT     4  1 0x0000000000300001 4x SDR - SW     9  3 0x0000000000200000 ( 'Router1' - 'Switch1' )",
        ));
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("gives LID 2"), "{}", e.message);
        // A switch whose lines disagree on the LID.
        let e = err(&with(
            4,
            "SW     3  7 0x0000000000200000 4x SDR                                    'Switch1'",
        ));
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("one LID"), "{}", e.message);
        // The peer says it is unconnected.
        let e = err(&with(
            8,
            "SW     2  3 0x0000000000200000 4x SDR                                    'Switch1'",
        ));
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("unconnected"), "{}", e.message);
        // The peer points elsewhere.
        let e = err(&with(
            8,
            "SW     2  3 0x0000000000200000 4x SDR - CA     1  1 0x0000000000100004 ( 'Switch1' - 'Hca2' )",
        ));
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("disagree"), "{}", e.message);
        // The peer's own line gives this port another LID.
        let e = err(&with(
            8,
            "SW     2  3 0x0000000000200000 4x SDR - RT     7  1 0x0000000000300001 ( 'Switch1' - 'Router1' )",
        ));
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("with LID 7"), "{}", e.message);
        // A port listed twice; a port GUID on two ports; a kind clash.
        let e = err(&format!("{ROUTER}{}\n", lines[11]));
        assert_eq!(e.line, Some(13));
        assert!(e.message.contains("listed twice"), "{}", e.message);
        let e = err(&format!(
            "{ROUTER}CA     9  2 0x0000000000100004 4x SDR                                    'x'\n"
        ));
        assert_eq!(e.line, Some(13));
        assert!(e.message.contains("used by"), "{}", e.message);
        let e = err(&format!(
            "{ROUTER}CA     9  1 0x0000000000200000 4x SDR                                    'x'\n"
        ));
        assert_eq!(e.line, Some(13));
        assert!(e.message.contains("also a switch's GUID"), "{}", e.message);
        // Cabled to itself.
        let e = err(
            "SW     2  1 0x0000000000200000 4x SDR - SW     2  1 0x0000000000200000 ( 's' - 's' )\n",
        );
        assert!(e.message.contains("itself"), "{}", e.message);
    }
}
