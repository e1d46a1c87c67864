//! ibnetdiscover topology files: the default text output of `ibnetdiscover` (any
//! infiniband-diags version since 2007), with or without `-s` progress lines, and with
//! the `-g`, `-f`, `-m` and `--node-name-map` variants (spec
//! `infiniband-formats.md` §1).
//!
//! The parser dispatches on the first token of every line:
//!
//! * `vendid=`, `devid=`, `sysimgguid=`, `switchguid=`, `caguid=`, `rtguid=`: the ids
//!   block that precedes a node header (the GUID lines are cross-checked against the
//!   header's id);
//! * `Switch`, `Ca`, `Hca` (ibsim's spelling) and `Rt`: node headers, which open a record;
//! * `[`: a port line of the open record (one cabled port, i.e. one half of a link);
//! * `#` comments and blank lines close the record;
//! * every other line (`-s` progress lines, `-g` section titles such as
//!   `Non-Chassis Nodes`) is skipped.
//!
//! Record lines are parsed strictly (every field the tools print is required, nothing
//! unknown may follow, the link rate must be one `ibnetdiscover` prints, and the `-f`
//! fields ` s=N w=N v=N` must be on every port line or on none), so a line cut short by a
//! truncated file is an error rather than a silently shorter fabric. Blanks are lenient:
//! any run of spaces and tabs stands for the tool's separators (the man page's example uses
//! spaces), and CRLF line ends are accepted. Node descriptions are arbitrary bytes: inside a line the
//! description is the quoted string right after `#`, up to the *last* `"` of the line
//! (so `"Voltaire 4036 # 4036-8C5C"` stays whole); non-UTF-8 bytes are replaced.
//!
//! After the whole file is read, the half-links are paired: every cabled port must be
//! listed from both ends, consistently (see [`parse_ibnetdiscover`]).
//!
//! Complexity: reading is linear in the input size with one reused line buffer (the only
//! per-line allocations are the descriptions of node headers); pairing sorts the
//! half-links once, `O(P log P)` for `P` port lines, and uses a hash map from node GUID to
//! node index.
//!
//! This folder holds the line dispatch and record state; `fields.rs` reads the fields of
//! headers and port lines. It may use the model of [`crate::ib`], its line reading
//! (`ib/text.rs`) and half-link pairing (`ib/links.rs`), and [`crate::error`].

use std::collections::HashMap;
use std::io::BufRead;

mod fields;

use super::links::{pair_half_links, HalfLink, LinkSource};
use super::text::{excerpt, is_ws, node_id, perr, trim, Cur, LineReader};
use crate::error::LocatedError;
use crate::ib::{IbNode, IbPortLid, IbTopology, NodeKind};
use fields::Ctx;

/// An example switch port line, quoted in error messages.
const SWITCH_PORT_EXAMPLE: &str =
    "`[1]\\t\"S-0000000000200000\"[3]\\t\\t# \"sw-l1-000\" lid 7 4xSDR`";
/// An example CA/router port line, quoted in error messages.
const CA_PORT_EXAMPLE: &str =
    "`[1](100001) \\t\"S-0000000000200000\"[1]\\t\\t# lid 3 lmc 0 \"Switch1\" lid 2 4xSDR`";
/// An example switch header, quoted in error messages.
const SWITCH_HEADER_EXAMPLE: &str =
    "`Switch\\t8 \"S-0000000000200000\"\\t\\t# \"Switch1\" base port 0 lid 2 lmc 0`";
/// An example CA header, quoted in error messages.
const CA_HEADER_EXAMPLE: &str = "`Ca\\t2 \"H-0000000000100000\"\\t\\t# \"Hca1\"`";
/// An example router header, quoted in error messages.
const RT_HEADER_EXAMPLE: &str = "`Rt\\t2 \"R-0000000000300000\"\\t\\t# \"Router1\"`";

/// Link widths `ibnetdiscover` prints (`get_linkwidth_str`).
pub(super) const WIDTHS: [&[u8]; 6] = [b"12x", b"1x", b"2x", b"4x", b"8x", b"??"];
/// Link speeds `ibnetdiscover` prints (`get_linkspeed_str` and the extended speeds).
pub(super) const SPEEDS: [&[u8]; 10] = [
    b"SDR", b"DDR", b"QDR", b"FDR10", b"FDR", b"EDR", b"HDR", b"NDR", b"XDR", b"???",
];

/// Node header keywords (ibsim writes `Hca` for `Ca`).
pub(super) const HEADER_KEYWORDS: [&[u8]; 4] = [b"Switch", b"Ca", b"Hca", b"Rt"];

/// Keywords of the id lines before a node header.
pub(super) const ID_KEYWORDS: [&[u8]; 6] = [
    b"vendid=",
    b"devid=",
    b"sysimgguid=",
    b"switchguid=",
    b"caguid=",
    b"rtguid=",
];

/// Keywords that start a record line; a line that is a strict prefix of one of them is a
/// line cut short (a truncated file), not noise.
fn record_keywords() -> impl Iterator<Item = &'static [u8]> {
    HEADER_KEYWORDS.into_iter().chain(ID_KEYWORDS)
}

/// Parses `ibnetdiscover` output into an [`IbTopology`].
///
/// * Nodes are keyed by the node GUID of their `"S-…"`/`"H-…"`/`"R-…"` id (16 hex
///   digits); a preceding `switchguid=`/`caguid=`/`rtguid=` line must agree with it.
///   Nodes keep file order; a switch's [`IbNode::lid`] is the `port 0 lid` of its header.
/// * Every port line of a CA or router record yields one [`IbPortLid`] from its
///   `# lid <base> lmc <lmc>` comment (so a 2-port HCA with both ports cabled has two);
///   they are sorted by (node, port).
/// * Links are stored once (`a < b`), sorted, with the line of their first port line.
///
/// Errors (with the 1-based line of the offending line): a malformed or truncated record
/// line (including a line that is only the start of a keyword, such as `Swi`); a port
/// line without the `-f` fields in a file whose first port line has them, or the other way
/// round; a port line outside a record; an ids block not followed by a header; two records
/// for one GUID; a port listed twice in one record; a port number outside `1..=255` or
/// above the header's port count; a LID above 65535 or an LMC above 7; a peer GUID
/// without a record; a peer port GUID that differs from the one the peer's own line
/// states; a peer whose record does not list the port back, or lists it as cabled
/// elsewhere (the message names both ends and both lines); a port cabled to itself; a
/// peer id whose type letter contradicts the peer's record; and, at line 0, an input
/// without any node record.
///
/// Never panics, whatever the input. Complexity: `O(n + P log P)` for `n` input bytes and
/// `P` port lines.
pub fn parse_ibnetdiscover<R: BufRead>(reader: R) -> Result<IbTopology, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut state = State::default();
    while let Some((line, raw)) = lines.next_line()? {
        state.line(line, raw)?;
    }
    state.finish()
}

// ---------------------------------------------------------------------------------------
// The ibnetdiscover parser proper.

/// What a (trimmed) line is, from its first token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Empty or blanks only.
    Blank,
    /// Starts with `#`.
    Comment,
    /// Starts with `[`.
    Port,
    /// `Switch`, `Ca`, `Hca` or `Rt` followed by a blank or the end.
    Header(NodeKind),
    /// `vendid=` and friends.
    Ids(IdsKey),
    /// A strict prefix of a record keyword: a line cut short.
    CutKeyword,
    /// Anything else (progress lines, section titles): skipped.
    Other,
}

/// The ids lines before a node header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdsKey {
    /// `vendid=0x…`
    VendId,
    /// `devid=0x…`
    DevId,
    /// `sysimgguid=0x…`
    SysImgGuid,
    /// `switchguid=0x…(…)`, `caguid=0x…`, `rtguid=0x…`: the node GUID.
    Guid(NodeKind),
}

impl IdsKey {
    /// The keyword, with its `=`.
    fn keyword(self) -> &'static str {
        match self {
            IdsKey::VendId => "vendid=",
            IdsKey::DevId => "devid=",
            IdsKey::SysImgGuid => "sysimgguid=",
            IdsKey::Guid(NodeKind::Switch) => "switchguid=",
            IdsKey::Guid(NodeKind::Ca) => "caguid=",
            IdsKey::Guid(NodeKind::Router) => "rtguid=",
        }
    }
}

/// Classifies a trimmed line. `O(1)` apart from the prefix comparisons.
fn classify(text: &[u8]) -> LineKind {
    let Some(&first) = text.first() else {
        return LineKind::Blank;
    };
    match first {
        b'#' => return LineKind::Comment,
        b'[' => return LineKind::Port,
        _ => {}
    }
    let keyword_then_blank =
        |kw: &[u8]| text.starts_with(kw) && text.get(kw.len()).is_none_or(|&b| is_ws(b));
    if keyword_then_blank(b"Switch") {
        return LineKind::Header(NodeKind::Switch);
    }
    if keyword_then_blank(b"Ca") || keyword_then_blank(b"Hca") {
        return LineKind::Header(NodeKind::Ca);
    }
    if keyword_then_blank(b"Rt") {
        return LineKind::Header(NodeKind::Router);
    }
    let ids = [
        IdsKey::VendId,
        IdsKey::DevId,
        IdsKey::SysImgGuid,
        IdsKey::Guid(NodeKind::Switch),
        IdsKey::Guid(NodeKind::Ca),
        IdsKey::Guid(NodeKind::Router),
    ];
    for key in ids {
        if text.starts_with(key.keyword().as_bytes()) {
            return LineKind::Ids(key);
        }
    }
    if record_keywords().any(|kw| kw.len() > text.len() && kw.starts_with(text)) {
        return LineKind::CutKeyword;
    }
    LineKind::Other
}

/// The open record: port lines are attached to it.
#[derive(Debug, Clone, Copy)]
struct Record {
    node: u32,
    kind: NodeKind,
    num_ports: u32,
    line: u32,
}

/// An ids block (`vendid=` … `switchguid=`) waiting for its node header.
#[derive(Debug, Clone, Copy)]
struct Pending {
    last_line: u32,
    last_key: IdsKey,
    guid: Option<(u64, NodeKind, u32)>,
}

/// Parser state across lines.
#[derive(Default)]
struct State {
    nodes: Vec<IbNode>,
    by_guid: HashMap<u64, u32>,
    halves: Vec<HalfLink>,
    port_lids: Vec<IbPortLid>,
    current: Option<Record>,
    pending: Option<Pending>,
    /// Whether the first port line had the `-f` fields, and its line: `ibnetdiscover -f`
    /// prints them on every port line, so a line without them in a `-f` file was cut.
    full_fields: Option<(bool, u32)>,
}

impl State {
    /// Handles one raw line (without its newline).
    fn line(&mut self, line: u32, raw: &[u8]) -> Result<(), LocatedError> {
        let text = trim(raw);
        let kind = classify(text);
        if kind == LineKind::CutKeyword {
            return Err(perr(
                line,
                format!(
                    "line cut short: {} is the start of a record keyword (`Switch`, `Ca`, \
                     `Rt`, `vendid=`, …) but nothing follows; is the file truncated?",
                    excerpt(text)
                ),
            ));
        }
        if let Some(p) = self.pending {
            if !matches!(kind, LineKind::Ids(_) | LineKind::Header(_)) {
                return Err(perr(
                    p.last_line,
                    format!(
                        "the `{}` line is not followed by a node header (`Switch`, `Ca` or \
                         `Rt` line); the next line (line {line}) is {}",
                        p.last_key.keyword(),
                        if text.is_empty() {
                            "blank".to_string()
                        } else {
                            excerpt(text)
                        }
                    ),
                ));
            }
        }
        match kind {
            LineKind::Blank | LineKind::Comment | LineKind::Other => {
                self.current = None;
                Ok(())
            }
            LineKind::CutKeyword => Ok(()), // reported above
            LineKind::Port => match self.current {
                Some(rec) => self.port_line(line, text, rec),
                None => Err(perr(
                    line,
                    format!(
                        "port line outside a node record: expected a `Switch`, `Ca` or `Rt` \
                         header before it, found {}",
                        excerpt(text)
                    ),
                )),
            },
            LineKind::Ids(key) => {
                self.current = None;
                self.ids_line(line, text, key)
            }
            LineKind::Header(kind) => {
                let rec = self.header(line, text, kind)?;
                self.current = Some(rec);
                Ok(())
            }
        }
    }

    /// `vendid=0x…`, `devid=0x…`, `sysimgguid=0x…`, `switchguid=0x…(…)`, `caguid=0x…`,
    /// `rtguid=0x…`, each optionally followed by a `# …` comment (`-g`).
    fn ids_line(&mut self, line: u32, text: &[u8], key: IdsKey) -> Result<(), LocatedError> {
        let ctx = Ctx {
            line,
            what: "ids line",
            example: "`switchguid=0x200000(200000)` or `caguid=0x100000`",
        };
        let mut c = Cur::new(text);
        c.advance(key.keyword().len());
        ctx.lit(&mut c, b"0x", "`0x` and a hex value")?;
        let value = ctx.hex(&mut c, "a hex value")?;
        if key == IdsKey::Guid(NodeKind::Switch) && c.eat(b'(') {
            ctx.hex(&mut c, "the port 0 GUID")?;
            ctx.lit(&mut c, b")", "`)` after the port 0 GUID")?;
        }
        c.skip_ws();
        if !c.at_end() && c.peek() != Some(b'#') {
            return Err(ctx.expected("the end of the line or a `#` comment", c.rest()));
        }
        let mut pending = self.pending.unwrap_or(Pending {
            last_line: line,
            last_key: key,
            guid: None,
        });
        pending.last_line = line;
        pending.last_key = key;
        if let IdsKey::Guid(kind) = key {
            pending.guid = Some((value, kind, line));
        }
        self.pending = Some(pending);
        Ok(())
    }

    /// A node header; opens a record.
    fn header(&mut self, line: u32, text: &[u8], kind: NodeKind) -> Result<Record, LocatedError> {
        let (keyword_len, example, what) = match kind {
            NodeKind::Switch => (6, SWITCH_HEADER_EXAMPLE, "switch header"),
            NodeKind::Ca if text.starts_with(b"Hca") => (3, CA_HEADER_EXAMPLE, "CA header"),
            NodeKind::Ca => (2, CA_HEADER_EXAMPLE, "CA header"),
            NodeKind::Router => (2, RT_HEADER_EXAMPLE, "router header"),
        };
        let ctx = Ctx {
            line,
            what,
            example,
        };
        let mut c = Cur::new(text);
        c.advance(keyword_len);
        let h = ctx.header_fields(&mut c, kind)?;
        if let Some((g, gkind, gline)) = self.pending.and_then(|p| p.guid) {
            if gkind != kind || g != h.guid {
                return Err(perr(
                    line,
                    format!(
                        "{what}: the id {} does not match the `{}0x{g:x}` line (line {gline}) \
                         before it",
                        node_id(kind, h.guid),
                        IdsKey::Guid(gkind).keyword()
                    ),
                ));
            }
        }
        self.pending = None;
        let index = self.nodes.len() as u32;
        if let Some(&other) = self.by_guid.get(&h.guid) {
            let other_line = self.nodes.get(other as usize).map_or(0, |n| n.line);
            return Err(perr(
                line,
                format!(
                    "node {} has a second record (the first is on line {other_line})",
                    node_id(kind, h.guid)
                ),
            ));
        }
        self.by_guid.insert(h.guid, index);
        self.nodes.push(IbNode {
            kind,
            guid: h.guid,
            description: String::from_utf8_lossy(h.desc).into_owned(),
            num_ports: h.num_ports,
            lid: h.lid,
            line,
        });
        Ok(Record {
            node: index,
            kind,
            num_ports: h.num_ports,
            line,
        })
    }

    /// A port line of the open record.
    fn port_line(&mut self, line: u32, text: &[u8], rec: Record) -> Result<(), LocatedError> {
        let is_switch = rec.kind == NodeKind::Switch;
        let ctx = Ctx {
            line,
            what: if is_switch {
                "switch port line"
            } else {
                "CA/router port line"
            },
            example: if is_switch {
                SWITCH_PORT_EXAMPLE
            } else {
                CA_PORT_EXAMPLE
            },
        };
        let mut c = Cur::new(text);
        c.advance(1); // `[`
        let p = ctx.port_fields(&mut c, is_switch)?;
        self.same_fields_as_first(&ctx, p.full)?;
        if p.port == 0 || p.peer_port == 0 {
            return Err(perr(
                line,
                format!(
                    "{}: port 0 cannot be cabled (port numbers start at 1)",
                    ctx.what
                ),
            ));
        }
        if rec.num_ports > 0 && p.port > rec.num_ports {
            return Err(perr(
                line,
                format!(
                    "{}: port {} is above the {} ports of the node's header (line {})",
                    ctx.what, p.port, rec.num_ports, rec.line
                ),
            ));
        }
        self.halves.push(HalfLink {
            node: rec.node,
            port: p.port,
            own_port_guid: p.own_port_guid,
            peer_guid: p.peer_guid,
            peer_kind: p.peer_kind,
            peer_port: p.peer_port,
            peer_port_guid: p.peer_port_guid,
            line,
        });
        if let Some((base_lid, lmc)) = p.own_lid {
            self.port_lids.push(IbPortLid {
                node: rec.node,
                port: p.port,
                guid: p.own_port_guid,
                base_lid,
                lmc,
                line,
            });
        }
        Ok(())
    }

    /// Checks that a port line has the `-f` fields exactly when the file's first port
    /// line has them (`full`: whether this one has).
    fn same_fields_as_first(&mut self, ctx: &Ctx, full: bool) -> Result<(), LocatedError> {
        match self.full_fields {
            None => self.full_fields = Some((full, ctx.line)),
            Some((first, first_line)) if first != full => {
                return Err(perr(
                    ctx.line,
                    if full {
                        format!(
                            "{}: the ` s=N w=N v=N` fields of `ibnetdiscover -f` are here but \
                             not on the first port line (line {first_line}); one file has them \
                             on every port line or on none",
                            ctx.what
                        )
                    } else {
                        format!(
                            "{}: the ` s=N w=N v=N` fields of `ibnetdiscover -f` are missing \
                             although the first port line (line {first_line}) has them; is the \
                             line cut short?",
                            ctx.what
                        )
                    },
                ));
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// Checks the end of input, pairs the half-links and builds the topology.
    fn finish(mut self) -> Result<IbTopology, LocatedError> {
        if let Some(p) = self.pending {
            return Err(perr(
                p.last_line,
                format!(
                    "the input ends after the `{}` line without the node header that must \
                     follow it (is the file truncated?)",
                    p.last_key.keyword()
                ),
            ));
        }
        if self.nodes.is_empty() {
            return Err(perr(
                0,
                "no node records found: expected ibnetdiscover output with `Switch`, `Ca` or \
                 `Rt` records such as "
                    .to_string()
                    + SWITCH_HEADER_EXAMPLE,
            ));
        }
        let links = pair_half_links(
            &self.nodes,
            &self.by_guid,
            &self.halves,
            LinkSource::Ibnetdiscover,
        )?;
        // Ports are unique per node (checked by the pairing), so this order is total.
        self.port_lids.sort_unstable_by_key(|p| (p.node, p.port));
        Ok(IbTopology {
            nodes: self.nodes,
            port_lids: self.port_lids,
            links,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::IbLink;

    fn parse(s: &str) -> Result<IbTopology, LocatedError> {
        parse_ibnetdiscover(s.as_bytes())
    }

    fn err(s: &str) -> LocatedError {
        match parse(s) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e,
        }
    }

    /// The generated router + 2-port HCA fabric (ibsim + OpenSM + ibnetdiscover 44.0).
    const ROUTER: &str = "#
# Topology file: generated on Sun Nov 22 10:30:09 2026
#
# Initiated from node 0000000000100003 port 0000000000100004

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0
[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 3 4xSDR
[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 5 4xSDR
[3]\t\"R-0000000000300000\"[1](300001) \t\t# \"Router1\" lid 4 4xSDR
[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100000
caguid=0x100000
Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"
[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 3 lmc 0 \"Switch1\" lid 2 4xSDR
[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 2 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100003
caguid=0x100003
Ca\t1 \"H-0000000000100003\"\t\t# \"Hca2\"
[1](100004) \t\"S-0000000000200000\"[4]\t\t# lid 1 lmc 0 \"Switch1\" lid 2 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x300000
rtguid=0x300000
Rt\t2 \"R-0000000000300000\"\t\t# \"Router1\"
[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR
";

    /// Two switches joined by a cable, one CA on each (small building block for tests).
    fn two_switches(extra_a: &str, extra_b: &str) -> String {
        format!(
            "switchguid=0xa(a)
Switch\t8 \"S-000000000000000a\"\t\t# \"A\" base port 0 lid 1 lmc 0
[1]\t\"S-000000000000000b\"[2]\t\t# \"B\" lid 2 4xQDR
{extra_a}
Switch\t8 \"S-000000000000000b\"\t\t# \"B\" enhanced port 0 lid 2 lmc 0
[2]\t\"S-000000000000000a\"[1]\t\t# \"A\" lid 1 4xQDR
{extra_b}
"
        )
    }

    #[test]
    fn router_and_two_port_hca() {
        let t = parse(ROUTER).unwrap();
        assert_eq!(t.nodes.len(), 4);
        let kinds: Vec<NodeKind> = t.nodes.iter().map(|n| n.kind).collect();
        assert_eq!(
            kinds,
            [
                NodeKind::Switch,
                NodeKind::Ca,
                NodeKind::Ca,
                NodeKind::Router
            ]
        );
        let sw = &t.nodes[0];
        assert_eq!(sw.guid, 0x200000);
        assert_eq!(sw.description, "Switch1");
        assert_eq!(sw.num_ports, 8);
        assert_eq!(sw.lid, Some(2));
        assert_eq!(sw.line, 10);
        assert_eq!(t.nodes[1].lid, None);
        assert_eq!(t.nodes[1].num_ports, 2);
        assert_eq!(t.nodes[3].guid, 0x300000);
        assert_eq!(t.nodes[3].description, "Router1");
        assert_eq!(
            t.links,
            vec![
                IbLink {
                    a: (0, 1),
                    b: (1, 1),
                    line: 11
                },
                IbLink {
                    a: (0, 2),
                    b: (1, 2),
                    line: 12
                },
                IbLink {
                    a: (0, 3),
                    b: (3, 1),
                    line: 13
                },
                IbLink {
                    a: (0, 4),
                    b: (2, 1),
                    line: 14
                },
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
                (1, 1, Some(0x100001), 3, 0, 21),
                (1, 2, Some(0x100002), 5, 0, 22),
                (2, 1, Some(0x100004), 1, 0, 29),
                (3, 1, Some(0x300001), 4, 0, 36),
            ]
        );
        assert_eq!(t.node_by_guid(0x100003), Some(2));
    }

    #[test]
    fn old_format_spaces_lmc_reverse_port_order_and_hash_in_description() {
        // 2007 man-page style: spaces instead of tabs, ports in reverse order, lmc 1,
        // `Non-Chassis Nodes`, `# Max of N hops`, a switch without sysimgguid, and a
        // description containing `#` and quotes.
        let text = "#
# Topology file: generated on Tue Jun  5 14:15:10 2007
#
# Max of 3 hops discovered
# Initiated from node 0008f10403960558 port 0008f10403960559

Non-Chassis Nodes

vendid=0x8f1
devid=0x5a05
switchguid=0x8f10400410015(8f10400410015)
Switch  8 \"S-0008f10400410015\"          # \"Voltaire 4036 # 4036-8C5C\" base port 0 lid 3 lmc 0
[3]     \"H-0008f10403960558\"[1](8f10403960559)         # \"MT23108 \"quoted\" # x\" lid 10 1xSDR
[1]     \"H-0008f10403960558\"[2](8f1040396055a)         # \"MT23108\" lid 14 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x8f10403960558
Ca      2 \"H-0008f10403960558\"          # \"MT23108 \"quoted\" # x\"
[2](8f1040396055a)     \"S-0008f10400410015\"[1]         # lid 14 lmc 1 \"Voltaire 4036 # 4036-8C5C\" lid 3 4xSDR
[1](8f10403960559)     \"S-0008f10400410015\"[3]                # lid 10 lmc 1 \"Voltaire 4036 # 4036-8C5C\" lid 3 1xSDR
";
        let t = parse(text).unwrap();
        assert_eq!(t.nodes[0].description, "Voltaire 4036 # 4036-8C5C");
        assert_eq!(t.nodes[1].description, "MT23108 \"quoted\" # x");
        assert_eq!(t.links.len(), 2);
        assert_eq!(t.links[0].a, (0, 1));
        assert_eq!(t.links[0].b, (1, 2));
        assert_eq!(t.links[0].line, 14);
        let lids: Vec<(u32, u32, u8)> = t
            .port_lids
            .iter()
            .map(|p| (p.port, p.base_lid, p.lmc))
            .collect();
        assert_eq!(lids, vec![(1, 10, 1), (2, 14, 1)]);
    }

    #[test]
    fn progress_lines_and_section_titles_are_skipped() {
        let noisy = format!(
            "DR path slid 0; dlid 0; 0 -> new Channel Adapter {{0000000000100000}} portnum 1 \
             lid 0-0 \"\"\n\
             DR path slid 0; dlid 0; 0,1 -> known Switch {{0000000000200000}} portnum 0 lid \
             1-1 \"Switch1\"\n\
             0,1,2 -> new remote Switch {{0000000000200000}} portnum 0 lid 0-0\"x\"\n\
             Chassis 1 (guid 0x5442ba00003000)\n# Spine Nodes\nNon-Chassis Nodes\n{ROUTER}"
        );
        let plain = parse(ROUTER).unwrap();
        let t = parse(&noisy).unwrap();
        assert_eq!(t.nodes.len(), plain.nodes.len());
        assert_eq!(t.links.len(), plain.links.len());
        assert_eq!(t.nodes[0].line, plain.nodes[0].line + 6);
    }

    #[test]
    fn full_grouping_and_max_hops_variants() {
        let text = "#
# Reported max hops discovered: 4
# Total MADs used: 162
vendid=0x8f1
devid=0x5a5a
sysimgguid=0x8f10500200b51\t\t# Chassis 1
switchguid=0xa(a)\t# Spine 1
Switch\t8 \"S-000000000000000a\"\t\t# \"A\" base port 0 lid 1 lmc 0
[1][ext 7]\t\"S-000000000000000b\"[2][ext 3]\t\t# \"B\" lid 2 4xQDR s=4 w=2 v=4
[2]\t\"H-000000000000000c\"[1](d) \t\t# \"xsigo\" lid 5 4xSDR s=1 w=2 v=4 (scp)
[3]\t\"H-000000000000000e\"[1](f) \t\t# \"xsigo2\" lid 6 ????? s=0 w=0 v=0  slot 3

Switch\t8 \"S-000000000000000b\"\t\t# \"B\" base port 0 lid 2 lmc 0
[2]\t\"S-000000000000000a\"[1]\t\t# \"A\" lid 1 4xQDR s=4 w=2 v=4

caguid=0xc
Ca\t1 \"H-000000000000000c\"\t\t# \"xsigo\" (scp)
[1](d) \t\"S-000000000000000a\"[2][ext 9] \t\t# lid 5 lmc 0 \"A\" lid 1 12xFDR10 s=1 w=2 v=4

Hca\t1 \"H-000000000000000e\"\t\t# \"xsigo2\"
[1](F) \t\"S-000000000000000a\"[3]\t\t# lid 6 lmc 2 \"A\" lid 1 2xNDR s=1 w=2 v=4
";
        let t = parse(text).unwrap();
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.links.len(), 3);
        assert_eq!(t.nodes[3].kind, NodeKind::Ca);
        assert_eq!(t.port_lids[1].guid, Some(0xf));
        assert_eq!(t.port_lids[1].lmc, 2);
    }

    #[test]
    fn full_fields_must_be_on_every_port_line_or_none() {
        let e = err(&ROUTER.replacen(" lid 5 4xSDR\n", " lid 5 4xSDR s=1 w=2 v=4\n", 1));
        assert_eq!(e.line, Some(12));
        assert!(
            e.message.contains("not on the first port line (line 11)"),
            "{}",
            e.message
        );
        let full = ROUTER.replace(" 4xSDR\n", " 4xSDR s=1 w=2 v=4\n");
        assert!(parse(&full).is_ok());
        let cut = full.replacen(" lid 1 4xSDR s=1 w=2 v=4\n", " lid 1 4xSDR\n", 1);
        let e = err(&cut);
        assert_eq!(e.line, Some(14));
        assert!(e.message.contains("cut short"), "{}", e.message);
    }

    #[test]
    fn uppercase_hex_is_accepted() {
        let text = two_switches("", "").replace("000000000000000a", "000000000000000A");
        let t = parse(&text).unwrap();
        assert_eq!(t.nodes[0].guid, 0xa);
    }

    #[test]
    fn crlf_line_ends() {
        let text = ROUTER.replace('\n', "\r\n");
        assert_eq!(parse(&text).unwrap(), parse(ROUTER).unwrap());
    }

    #[test]
    fn empty_or_nodeless_input_is_an_error() {
        for text in ["", "\n\n", "#\n# Topology file\n#\n", "DR path slid 0\n"] {
            let e = err(text);
            assert_eq!(e.line, None, "{text:?}");
            assert!(e.message.contains("no node records"), "{}", e.message);
        }
    }

    #[test]
    fn node_list_output_gets_a_hint() {
        let e = err("Ca\t : 0x000000000010001e ports 1 devid 0x0 vendid 0x0 \"node016\"\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("ibnetdiscover -l"), "{}", e.message);
    }

    #[test]
    fn truncated_record_lines_are_errors_at_their_line() {
        let full = ROUTER;
        // Cut every record line (header or port line) at every inner position.
        let mut start = 0;
        for (i, line) in full.lines().enumerate() {
            let line_no = i as u32 + 1;
            let record = line.starts_with('[')
                || line.starts_with("Switch")
                || line.starts_with("Ca")
                || line.starts_with("Rt");
            if record {
                for cut in 1..line.len() {
                    let text = &full[..start + cut];
                    let e = err(text);
                    assert_eq!(e.line.unwrap_or(0), line_no, "cut {text:?}: {}", e.message);
                }
            }
            start += line.len() + 1;
        }
    }

    #[test]
    fn truncated_ids_lines_and_dangling_ids_blocks() {
        let e = err("switchguid=0x200000(2000");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("`)`"), "{}", e.message);
        let e = err(&format!("{ROUTER}\nvendid=0x0\ndevid=0x0\n"));
        assert_eq!(e.line, Some(39));
        assert!(e.message.contains("truncated"), "{}", e.message);
        let e = err(
            "vendid=0x0\n\nSwitch\t8 \"S-0000000000000001\"\t\t# \"x\" base port 0 lid 1 lmc 0\n",
        );
        assert_eq!(e.line, Some(1));
        assert!(
            e.message.contains("not followed by a node header"),
            "{}",
            e.message
        );
        let e = err("vendid=0x\n");
        assert!(e.message.contains("hex"), "{}", e.message);
        let e = err("devid=0x12 junk\n");
        assert!(e.message.contains("end of the line"), "{}", e.message);
    }

    #[test]
    fn cut_keywords_are_errors() {
        for cut in [
            "S",
            "Swit",
            "H",
            "Hc",
            "C",
            "R",
            "vend",
            "switchguid",
            "caguid",
        ] {
            let e = err(&format!("{ROUTER}\n{cut}"));
            assert_eq!(e.line, Some(38), "{cut}");
            assert!(e.message.contains("cut short"), "{}", e.message);
        }
    }

    #[test]
    fn guid_line_must_match_header() {
        let text = ROUTER.replace("caguid=0x100003", "caguid=0x100004");
        let e = err(&text);
        assert_eq!(e.line, Some(28));
        assert!(e.message.contains("does not match"), "{}", e.message);
        assert!(e.message.contains("(line 27)"), "{}", e.message);
        let text = ROUTER.replace("caguid=0x100003", "rtguid=0x100003");
        assert_eq!(err(&text).line, Some(28));
    }

    #[test]
    fn id_letter_must_match_header_kind() {
        let text = ROUTER
            .replace("Rt\t2 \"R-", "Rt\t2 \"H-")
            .replace("rtguid", "caguid");
        let e = err(&text);
        assert_eq!(e.line, Some(35));
        assert!(e.message.contains("names a CA"), "{}", e.message);
    }

    #[test]
    fn bad_ids_are_errors() {
        for bad in [
            "\"S-00000000002000\"",
            "\"X-0000000000200000\"",
            "S-0000000000200000",
        ] {
            let text = ROUTER.replace("[3]\t\"R-0000000000300000\"", &format!("[3]\t{bad}"));
            let e = err(&text);
            assert_eq!(e.line, Some(13), "{bad}");
            assert!(
                e.message.contains("like `\"S-0000000000200000\"`"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn duplicate_records_and_ports() {
        let e = err(&format!(
            "{ROUTER}\nRt\t2 \"R-0000000000300000\"\t\t# \"again\"\n"
        ));
        assert_eq!(e.line, Some(38));
        assert!(e.message.contains("second record"), "{}", e.message);
        assert!(e.message.contains("line 35"), "{}", e.message);
        let text = ROUTER.replace(
            "[4]\t\"H-0000000000100003\"[1](100004)",
            "[2]\t\"H-0000000000100003\"[1](100004)",
        );
        let e = err(&text);
        assert_eq!(e.line, Some(14));
        assert!(e.message.contains("listed twice"), "{}", e.message);
        assert!(e.message.contains("lines 12 and 14"), "{}", e.message);
    }

    #[test]
    fn disagreeing_ends_name_both_lines() {
        // A[1] says B[2]; B[2] says A[3].
        let text = two_switches("", "").replace(
            "[2]\t\"S-000000000000000a\"[1]",
            "[2]\t\"S-000000000000000a\"[3]",
        );
        let e = err(&text);
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("disagree"), "{}", e.message);
        assert!(e.message.contains("(line 3)"), "{}", e.message);
        assert!(e.message.contains("(line 6)"), "{}", e.message);
        assert!(
            e.message.contains("\"S-000000000000000a\"[3]"),
            "{}",
            e.message
        );
    }

    #[test]
    fn one_sided_links_are_errors() {
        let text = two_switches("[5]\t\"S-000000000000000b\"[6]\t\t# \"B\" lid 2 4xQDR", "");
        let e = err(&text);
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("does not list port 6"), "{}", e.message);
    }

    #[test]
    fn unknown_peer_is_an_error() {
        let text = two_switches("[5]\t\"S-000000000000000c\"[6]\t\t# \"C\" lid 3 4xQDR", "");
        let e = err(&text);
        assert_eq!(e.line, Some(4));
        assert!(
            e.message.contains("no record for node 0x000000000000000c"),
            "{}",
            e.message
        );
    }

    #[test]
    fn peer_kind_must_match() {
        let text = two_switches("", "")
            .replace("[1]\t\"S-000000000000000b\"", "[1]\t\"H-000000000000000b\"");
        let e = err(&text);
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("is a switch"), "{}", e.message);
    }

    #[test]
    fn self_cabled_port_is_an_error_but_loopback_cable_is_fine() {
        let text = two_switches("[4]\t\"S-000000000000000a\"[4]\t\t# \"A\" lid 1 4xQDR", "");
        assert!(err(&text).message.contains("cabled to itself"));
        let text = two_switches(
            "[4]\t\"S-000000000000000a\"[5]\t\t# \"A\" lid 1 4xQDR\n[5]\t\"S-000000000000000a\"[4]\t\t# \"A\" lid 1 4xQDR",
            "",
        );
        let t = parse(&text).unwrap();
        assert!(t.links.contains(&IbLink {
            a: (0, 4),
            b: (0, 5),
            line: 4
        }));
    }

    #[test]
    fn port_guid_mismatch_is_an_error() {
        let text = ROUTER.replace(
            "[4]\t\"H-0000000000100003\"[1](100004)",
            "[4]\t\"H-0000000000100003\"[1](100005)",
        );
        let e = err(&text);
        assert_eq!(e.line, Some(14));
        assert!(e.message.contains("port GUID"), "{}", e.message);
    }

    #[test]
    fn port_numbers_are_range_checked() {
        let text = ROUTER.replace("[4]\t\"H-", "[9]\t\"H-");
        assert!(err(&text).message.contains("above the 8 ports"));
        let text = ROUTER.replace("[4]\t\"H-", "[0]\t\"H-");
        assert!(err(&text).message.contains("port 0"));
        let text = ROUTER.replace("[4]\t\"H-", "[256]\t\"H-");
        assert!(err(&text).message.contains("out of range"));
        let text = ROUTER.replace("[4]\t\"H-", "[99999999999999999999999]\t\"H-");
        assert!(err(&text).message.contains("port number"));
    }

    #[test]
    fn lid_and_lmc_are_range_checked() {
        let text = ROUTER.replace("# lid 1 lmc 0", "# lid 1 lmc 8");
        assert!(err(&text).message.contains("lmc value 8 is out of range"));
        let text = ROUTER.replace("lid 2 lmc 0", "lid 65536 lmc 0");
        assert!(err(&text).message.contains("out of range"));
    }

    #[test]
    fn port_line_outside_record() {
        let e = err("[1]\t\"S-0000000000200000\"[3]\t\t# \"x\" lid 2 4xSDR\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("outside a node record"), "{}", e.message);
        // A blank line closes the record, so a port line after it is an orphan.
        let text = ROUTER.replace(
            "\"Hca2\" lid 1 4xSDR\n",
            "\"Hca2\" lid 1 4xSDR\n\n[5]\t\"S-0000000000200000\"[3]\t\t# \"x\" lid 2 4xSDR\n",
        );
        let e = err(&text);
        assert_eq!(e.line, Some(16));
        assert!(e.message.contains("outside a node record"), "{}", e.message);
    }

    #[test]
    fn malformed_port_lines() {
        const SW: &str = "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR";
        const RT: &str =
            "[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR";
        let cases = [
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR extra",
                "end of the line",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 5xSDR",
                "link width",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR s=1 w=2",
                "`v=`",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDRs=1",
                "link width",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" 4xSDR",
                "`lid`",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# Hca2 lid 1 4xSDR",
                "quoted node description",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2 lid 1 4xSDR",
                "closing",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](100004) \t\t \"Hca2\" lid 1 4xSDR",
                "`#`",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"1](100004) \t\t# \"Hca2\" lid 1 4xSDR",
                "`[`",
            ),
            (
                SW,
                "[4\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR",
                "`]`",
            ),
            (
                SW,
                "[4][ext ]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR",
                "external port",
            ),
            (
                SW,
                "[4]\t\"H-0000000000100003\"[1](1000g4) \t\t# \"Hca2\" lid 1 4xSDR",
                "`)`",
            ),
            (
                RT,
                "[1](300001 \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR",
                "`)`",
            ),
            (
                RT,
                "[1]() \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR",
                "port GUID",
            ),
            (
                RT,
                "[1](300001) \t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 2 4xSDR",
                "`lid <base lid>",
            ),
            (
                RT,
                "[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 \"Switch1\" lid 2 4xSDR",
                "`lmc`",
            ),
            (
                RT,
                "[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2",
                "blank before the link width",
            ),
        ];
        for (from, to, needle) in cases {
            assert!(ROUTER.contains(from), "{from}");
            let e = err(&ROUTER.replacen(from, to, 1));
            assert!(e.message.contains(needle), "{to}: {}", e.message);
            assert!(e.message.contains("looks like"), "{}", e.message);
            let line = if from == SW { 14 } else { 36 };
            assert_eq!(e.line.unwrap_or(0), line, "{to}");
        }
    }

    #[test]
    fn malformed_headers() {
        let cases = [
            ("Switch\t8 \"S", "Switch\t\"S", "port count"),
            ("Switch\t8 \"S", "Switch\t300 \"S", "out of range"),
            (
                "\"Switch1\" base port 0",
                "\"Switch1\" bass port 0",
                "`base` or `enhanced`",
            ),
            ("base port 0 lid 2 lmc 0", "base port 0 lid 2", "`lmc`"),
            (
                "base port 0 lid 2 lmc 0",
                "base port 1 lid 2 lmc 0",
                "out of range",
            ),
            ("\t\t# \"Hca1\"\n", "\t\t\"Hca1\"\n", "`#`"),
            (
                "\t\t# \"Hca1\"\n",
                "\t\t# \"Hca1\" (scp) x\n",
                "end of the line",
            ),
            ("Ca\t1 \"H", "Ca\t1\"H", "blank before the node id"),
        ];
        for (from, to, needle) in cases {
            assert!(ROUTER.contains(from), "{from}");
            let e = err(&ROUTER.replacen(from, to, 1));
            assert!(e.message.contains(needle), "{to}: {}", e.message);
        }
    }

    #[test]
    fn non_utf8_descriptions_are_replaced() {
        let mut bytes = ROUTER.as_bytes().to_vec();
        let at = ROUTER.find("\"Router1\"\n").unwrap() + 1;
        bytes[at] = 0xff;
        let t = parse_ibnetdiscover(&bytes[..]).unwrap();
        assert_eq!(t.nodes[3].description, "\u{fffd}outer1");
    }

    #[test]
    fn line_kinds() {
        assert_eq!(classify(b"Switch"), LineKind::Header(NodeKind::Switch));
        assert_eq!(classify(b"Switches: 3"), LineKind::Other);
        assert_eq!(classify(b"Chassis 1"), LineKind::Other);
        assert_eq!(classify(b"Swi"), LineKind::CutKeyword);
    }
}
