//! OpenSM/ibdiagnet `.lst` link lists: `opensm-subnet.lst`, `ibdiagnet.lst` (v1) and
//! `ibdiagnet2.lst` (spec `infiniband-formats.md` §2.4).
//!
//! One line per link end, each link listed twice (once from each side):
//!
//! ```text
//! { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {sw-l0-000} LID:0002 PN:05 } { CA Ports:01 … {node001} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5
//! ```
//!
//! Each end is `{ <type> <Key>:<hex> … {<description>} LID:<hex> PN:<hex> }`: the type is
//! `SW`, `CA` or `Rt`, optionally with `-SM` (the SM's node); `Ports`, `LID` and `PN` are
//! hexadecimal; GUIDs are 16 hex digits without `0x`. Only `NodeGUID`, `LID` and `PN` are
//! required; `Ports` and `PortGUID` are used when present; other keys are ignored. The
//! description runs to the first `}` that is followed by another `Key:` field or the end's
//! closing `}`. After the two ends come `Key=value` link properties (`PHY`, `LOG`, `SPD`,
//! …), which are checked for shape only.
//!
//! A switch end's `LID` is the switch's (port 0) LID; a CA or router end's `LID` is the
//! base LID of the cabled port. The format has no LMC, so CA port LIDs get `lmc` 0.
//!
//! Complexity: linear reading with one reused line buffer (the only allocations are one
//! description per node), then `O(L log L)` pairing for `L` lines.

use std::collections::HashMap;
use std::io::BufRead;

use super::links::{pair_half_links, HalfLink, LinkSource};
use super::text::{excerpt, is_ws, parse_hex, perr, trim, Cur, LineReader};
use crate::error::LocatedError;
use crate::ib::{IbNode, IbPortLid, IbTopology, NodeKind};

/// An example link line, quoted in error messages.
const LINE_EXAMPLE: &str = "`{ SW Ports:08 SystemGUID:0000000000200000 \
NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 \
{sw-l0-000} LID:0002 PN:05 } { CA Ports:01 … NodeGUID:0000000000100000 \
PortGUID:0000000000100001 … {node001} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5`";

/// Parses an OpenSM/ibdiagnet `.lst` link list into an [`IbTopology`].
///
/// * Nodes are created at their first mention (in file order; [`IbNode::line`] is that
///   line) with the kind, `Ports` count and description of that mention; a switch's
///   [`IbNode::lid`] is its ends' `LID`.
/// * Every CA/router port yields one [`IbPortLid`] (port GUID from `PortGUID`, base LID
///   from `LID`, `lmc` 0), sorted by (node, port).
/// * Links are stored once (`a < b`), sorted, with the line of their first listing.
///
/// Blank lines and `#` comment lines are skipped. Errors (with the 1-based line): a
/// malformed or truncated link line; an unknown node type; a port number outside
/// `1..=255` or a LID above `0xffff`; a node whose kind or switch LID differs between
/// mentions; a CA port whose LID or port GUID differs between mentions; a link end listed
/// as the first end of two lines; a link not listed from both sides, or listed
/// inconsistently (the message names both ends and both lines); and, at line 0, an input
/// without any link line.
///
/// Never panics, whatever the input. Complexity: `O(n + L log L)` for `n` input bytes and
/// `L` lines.
pub fn parse_lst<R: BufRead>(reader: R) -> Result<IbTopology, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut state = State::default();
    while let Some((line, raw)) = lines.next_line()? {
        let text = trim(raw);
        if text.is_empty() || text.first() == Some(&b'#') {
            continue;
        }
        state.link_line(line, text)?;
    }
    state.finish()
}

/// One end of a link line.
#[derive(Debug, Clone, Copy)]
struct End<'a> {
    kind: NodeKind,
    num_ports: Option<u32>,
    guid: u64,
    port_guid: Option<u64>,
    desc: &'a [u8],
    lid: u32,
    port: u32,
}

/// Parser state across lines.
#[derive(Default)]
struct State {
    nodes: Vec<IbNode>,
    by_guid: HashMap<u64, u32>,
    halves: Vec<HalfLink>,
    port_lids: Vec<IbPortLid>,
    /// (node, port) → index into `port_lids`.
    lid_of_port: HashMap<(u32, u32), usize>,
}

/// "expected …, found …" for a link line.
fn expected(line: u32, what: &str, found: &[u8]) -> LocatedError {
    perr(
        line,
        format!(
            "link line: expected {what}, found {}; a link line looks like {LINE_EXAMPLE}",
            excerpt(found)
        ),
    )
}

/// Parses one `{ … }` end at the cursor.
fn parse_end<'a>(c: &mut Cur<'a>, line: u32, which: &str) -> Result<End<'a>, LocatedError> {
    if !c.eat(b'{') {
        return Err(expected(
            line,
            &format!("`{{` opening the {which} end"),
            c.rest(),
        ));
    }
    c.skip_ws();
    let at = c.rest();
    let type_token = c.take_while(|b| !is_ws(b) && b != b'}' && b != b'{');
    let base = type_token
        .strip_suffix(b"-SM")
        .or_else(|| type_token.strip_suffix(b"-sm"))
        .unwrap_or(type_token);
    let kind = if base.eq_ignore_ascii_case(b"SW") {
        NodeKind::Switch
    } else if base.eq_ignore_ascii_case(b"CA") {
        NodeKind::Ca
    } else if base.eq_ignore_ascii_case(b"RT") {
        NodeKind::Router
    } else {
        return Err(expected(
            line,
            &format!("the {which} end's node type (`SW`, `CA` or `Rt`, optionally with `-SM`)"),
            at,
        ));
    };
    let mut fields = EndFields::default();
    while !fields.next(c, line, which)? {}
    let missing = |field: &str| {
        perr(
            line,
            format!(
                "link line: the {which} end has no `{field}` field; a link line looks like \
                 {LINE_EXAMPLE}"
            ),
        )
    };
    let guid = fields.guid.ok_or_else(|| missing("NodeGUID:"))?;
    let lid = fields.lid.ok_or_else(|| missing("LID:"))?;
    let port = fields.port.ok_or_else(|| missing("PN:"))?;
    if port == 0 {
        return Err(perr(
            line,
            format!("link line: the {which} end has PN:0 (port 0 cannot be cabled)"),
        ));
    }
    Ok(End {
        kind,
        num_ports: fields.num_ports,
        guid,
        port_guid: fields.port_guid,
        desc: fields.desc.unwrap_or(&[]),
        lid,
        port,
    })
}

/// The fields of one end read so far.
#[derive(Default)]
struct EndFields<'a> {
    num_ports: Option<u32>,
    guid: Option<u64>,
    port_guid: Option<u64>,
    desc: Option<&'a [u8]>,
    lid: Option<u32>,
    port: Option<u32>,
}

impl<'a> EndFields<'a> {
    /// Reads the next field of the `which` end at the cursor: a `{description}`, a
    /// `Key:value`, or the closing `}` (then returns true).
    fn next(&mut self, c: &mut Cur<'a>, line: u32, which: &str) -> Result<bool, LocatedError> {
        c.skip_ws();
        match c.peek() {
            Some(b'}') => {
                c.advance(1);
                Ok(true)
            }
            Some(b'{') if self.desc.is_none() => {
                c.advance(1);
                let rest = c.rest();
                let Some(end) = desc_end(rest) else {
                    return Err(expected(
                        line,
                        &format!(
                            "the {which} end's description `{{…}}` closed by `}}` and followed by \
                             `LID:` and `PN:`"
                        ),
                        rest,
                    ));
                };
                self.desc = rest.get(..end);
                c.advance(end + 1);
                Ok(false)
            }
            None => Err(expected(
                line,
                &format!("more fields or `}}` closing the {which} end (the line is cut short)"),
                c.rest(),
            )),
            Some(_) => {
                self.key_value(c, line, which)?;
                Ok(false)
            }
        }
    }

    /// A `Key:value` field; only `NodeGUID`, `PortGUID`, `Ports`, `LID` and `PN` are
    /// kept, other keys need a value.
    fn key_value(&mut self, c: &mut Cur<'a>, line: u32, which: &str) -> Result<(), LocatedError> {
        let at = c.rest();
        let key = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        if key.is_empty() || !c.eat(b':') {
            return Err(expected(
                line,
                &format!("a `Key:value` field, a `{{description}}` or `}}` in the {which} end"),
                at,
            ));
        }
        let vat = c.rest();
        let value = c.take_while(|b| !is_ws(b) && b != b'}' && b != b'{');
        let hex = || {
            parse_hex(value).ok_or_else(|| {
                expected(
                    line,
                    &format!(
                        "a hex value (1 to 16 digits) after `{}:`",
                        String::from_utf8_lossy(key)
                    ),
                    vat,
                )
            })
        };
        let bounded = |max: u64, what: &str| -> Result<u32, LocatedError> {
            let v = hex()?;
            if v > max {
                return Err(perr(
                    line,
                    format!(
                        "link line: {what} 0x{v:x} in the {which} end is out of range \
                         (at most 0x{max:x})"
                    ),
                ));
            }
            Ok(v as u32)
        };
        match key {
            b"NodeGUID" => self.guid = Some(hex()?),
            b"PortGUID" => self.port_guid = Some(hex()?),
            b"Ports" => self.num_ports = Some(bounded(0xff, "Ports")?),
            b"LID" => self.lid = Some(bounded(0xffff, "LID")?),
            b"PN" => self.port = Some(bounded(0xff, "PN")?),
            _ if value.is_empty() => {
                return Err(expected(
                    line,
                    &format!("a value after `{}:`", String::from_utf8_lossy(key)),
                    vat,
                ))
            }
            _ => {}
        }
        Ok(())
    }
}

/// Where a description (just after its `{`) ends: the first `}` followed, after blanks,
/// by a `Key:` field or by the `}` closing the end. `None` if there is none.
fn desc_end(rest: &[u8]) -> Option<usize> {
    rest.iter().enumerate().find_map(|(i, &b)| {
        if b != b'}' {
            return None;
        }
        let after = rest.get(i + 1..).unwrap_or(&[]);
        let after = after
            .get(after.iter().take_while(|&&b| is_ws(b)).count()..)
            .unwrap_or(&[]);
        let key_len = after
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
            .count();
        let is_field = key_len > 0 && after.get(key_len) == Some(&b':');
        (is_field || after.first() == Some(&b'}')).then_some(i)
    })
}

impl State {
    /// Parses one link line and records its ends and half-link.
    fn link_line(&mut self, line: u32, text: &[u8]) -> Result<(), LocatedError> {
        let mut c = Cur::new(text);
        let a = parse_end(&mut c, line, "first")?;
        c.skip_ws();
        let b = parse_end(&mut c, line, "second")?;
        // Link properties: `Key=value` tokens.
        loop {
            let had_ws = c.skip_ws();
            if c.at_end() {
                break;
            }
            let at = c.rest();
            let token = c.take_while(|b| !is_ws(b));
            let well_formed = token
                .iter()
                .position(|&b| b == b'=')
                .is_some_and(|eq| eq > 0 && eq + 1 < token.len());
            if !had_ws || !well_formed {
                return Err(expected(
                    line,
                    "link properties such as `PHY=4x LOG=ACT SPD=2.5` after the second end",
                    at,
                ));
            }
        }
        let na = self.node(line, &a)?;
        self.node(line, &b)?;
        self.halves.push(HalfLink {
            node: na,
            port: a.port,
            own_port_guid: if a.kind == NodeKind::Switch {
                None
            } else {
                a.port_guid
            },
            peer_guid: b.guid,
            peer_kind: b.kind,
            peer_port: b.port,
            peer_port_guid: if b.kind == NodeKind::Switch {
                None
            } else {
                b.port_guid
            },
            line,
        });
        Ok(())
    }

    /// The node of an end, created at its first mention; checks later mentions agree.
    fn node(&mut self, line: u32, end: &End<'_>) -> Result<u32, LocatedError> {
        let index = match self.by_guid.get(&end.guid) {
            Some(&index) => {
                let Some(node) = self.nodes.get(index as usize) else {
                    return Err(perr(line, "internal error: node index out of range"));
                };
                if node.kind != end.kind {
                    return Err(perr(
                        line,
                        format!(
                            "node 0x{:016x} is a {} here but a {} on line {}",
                            end.guid, end.kind, node.kind, node.line
                        ),
                    ));
                }
                if end.kind == NodeKind::Switch && node.lid != Some(end.lid) {
                    return Err(perr(
                        line,
                        format!(
                            "switch 0x{:016x} has LID 0x{:x} here but 0x{:x} on line {}",
                            end.guid,
                            end.lid,
                            node.lid.unwrap_or(0),
                            node.line
                        ),
                    ));
                }
                index
            }
            None => {
                let index = self.nodes.len() as u32;
                self.by_guid.insert(end.guid, index);
                self.nodes.push(IbNode {
                    kind: end.kind,
                    guid: end.guid,
                    description: String::from_utf8_lossy(end.desc).into_owned(),
                    num_ports: end.num_ports.unwrap_or(0),
                    lid: (end.kind == NodeKind::Switch).then_some(end.lid),
                    line,
                });
                index
            }
        };
        if end.kind != NodeKind::Switch {
            self.port_lid(line, index, end)?;
        }
        Ok(index)
    }

    /// Records the LID of CA/router port `end` of node `index` at its first mention;
    /// later mentions must give the same LID and port GUID.
    fn port_lid(&mut self, line: u32, index: u32, end: &End<'_>) -> Result<(), LocatedError> {
        let Some(&i) = self.lid_of_port.get(&(index, end.port)) else {
            self.lid_of_port
                .insert((index, end.port), self.port_lids.len());
            self.port_lids.push(IbPortLid {
                node: index,
                port: end.port,
                guid: end.port_guid,
                base_lid: end.lid,
                lmc: 0,
                line,
            });
            return Ok(());
        };
        let Some(p) = self.port_lids.get(i) else {
            return Ok(());
        };
        let guid_differs = end.port_guid.is_some() && p.guid.is_some() && end.port_guid != p.guid;
        if p.base_lid != end.lid || guid_differs {
            return Err(perr(
                line,
                format!(
                    "port {} of {} 0x{:016x} has LID 0x{:x} and port GUID {} \
                     here but LID 0x{:x} and port GUID {} on line {}",
                    end.port,
                    end.kind,
                    end.guid,
                    end.lid,
                    fmt_guid(end.port_guid),
                    p.base_lid,
                    fmt_guid(p.guid),
                    p.line
                ),
            ));
        }
        Ok(())
    }

    /// Pairs the two listings of every link and builds the topology.
    fn finish(mut self) -> Result<IbTopology, LocatedError> {
        if self.nodes.is_empty() {
            return Err(perr(
                0,
                format!("no link lines found: expected a `.lst` link list with lines like {LINE_EXAMPLE}"),
            ));
        }
        let links = pair_half_links(&self.nodes, &self.by_guid, &self.halves, LinkSource::Lst)?;
        self.port_lids.sort_unstable_by_key(|p| (p.node, p.port));
        Ok(IbTopology {
            nodes: self.nodes,
            port_lids: self.port_lids,
            links,
        })
    }
}

/// `0x…` or "unknown".
fn fmt_guid(g: Option<u64>) -> String {
    g.map_or_else(|| "unknown".to_string(), |g| format!("0x{g:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::IbLink;

    fn parse(s: &str) -> Result<IbTopology, LocatedError> {
        parse_lst(s.as_bytes())
    }

    fn err(s: &str) -> LocatedError {
        match parse(s) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e,
        }
    }

    /// OpenSM's `opensm-subnet.lst` of the generated router + 2-port HCA fabric.
    const ROUTER: &str = "\
{ CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0003 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100002 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0005 PN:02 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:01 } { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02 } { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100002 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0005 PN:02 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:03 } { Rt Ports:02 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:00000000 DevID:0000 Rev:000000A1 {Router1} LID:0004 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:04 } { CA-SM Ports:01 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:00000000 DevID:0000 Rev:000000A1 {Hca2} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ Rt Ports:02 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:000000 DevID:0000 Rev:000000A1 {Router1} LID:0004 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:03 } PHY=4x LOG=ACT SPD=2.5
{ CA-SM Ports:01 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:000000 DevID:0000 Rev:000000A1 {Hca2} LID:0001 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:04 } PHY=4x LOG=ACT SPD=2.5
";

    fn line(n: usize) -> &'static str {
        ROUTER.lines().nth(n - 1).unwrap()
    }

    #[test]
    fn router_and_two_port_hca() {
        let t = parse(ROUTER).unwrap();
        type Summary<'a> = (NodeKind, u64, &'a str, u32, Option<u32>, u32);
        let summary: Vec<Summary<'_>> = t
            .nodes
            .iter()
            .map(|n| {
                (
                    n.kind,
                    n.guid,
                    n.description.as_str(),
                    n.num_ports,
                    n.lid,
                    n.line,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (NodeKind::Ca, 0x100000, "Hca1", 2, None, 1),
                (NodeKind::Switch, 0x200000, "Switch1", 8, Some(2), 1),
                (NodeKind::Router, 0x300000, "Router1", 2, None, 5),
                (NodeKind::Ca, 0x100003, "Hca2", 1, None, 6),
            ]
        );
        assert_eq!(
            t.links,
            vec![
                IbLink {
                    a: (0, 1),
                    b: (1, 1),
                    line: 1
                },
                IbLink {
                    a: (0, 2),
                    b: (1, 2),
                    line: 2
                },
                IbLink {
                    a: (1, 3),
                    b: (2, 1),
                    line: 5
                },
                IbLink {
                    a: (1, 4),
                    b: (3, 1),
                    line: 6
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
                (0, 1, Some(0x100001), 3, 0, 1),
                (0, 2, Some(0x100002), 5, 0, 2),
                (2, 1, Some(0x300001), 4, 0, 5),
                (3, 1, Some(0x100004), 1, 0, 6),
            ]
        );
    }

    #[test]
    fn hex_fields_comments_blank_lines_and_old_layout() {
        // ibdiagnet v1 style: no SPD, `PN:xx}` without a blank, a description with braces,
        // colons and `#`, hex LIDs above 9, blank and comment lines.
        let text = "# a comment\n\n\
{ SW Ports:24 NodeGUID:0002c90109fb0000 PortGUID:0002c90109fb0000 {MF0;sw:SX6036/U1 {x} # y} LID:001A PN:1f} { SW-SM Ports:08 NodeGUID:0002c90109fb0018 {b} LID:000C PN:04 } PHY=4x LOG=ACT\n\
\t{ SW-SM Ports:08 NodeGUID:0002c90109fb0018 {b} LID:000C PN:04 } { SW Ports:24 NodeGUID:0002c90109fb0000 {MF0;sw:SX6036/U1 {x} # y} LID:001A PN:1F }\n";
        let t = parse(text).unwrap();
        assert_eq!(t.nodes.len(), 2);
        assert_eq!(t.nodes[0].description, "MF0;sw:SX6036/U1 {x} # y");
        assert_eq!(t.nodes[0].num_ports, 0x24);
        assert_eq!(t.nodes[0].lid, Some(0x1a));
        assert_eq!(t.nodes[0].line, 3);
        assert_eq!(t.nodes[1].lid, Some(0xc));
        assert_eq!(
            t.links,
            vec![IbLink {
                a: (0, 0x1f),
                b: (1, 4),
                line: 3
            }]
        );
        assert!(t.port_lids.is_empty());
    }

    #[test]
    fn empty_input_is_an_error() {
        for text in ["", "\n", "# nothing\n"] {
            let e = err(text);
            assert_eq!(e.line, None);
            assert!(e.message.contains("no link lines"), "{}", e.message);
        }
    }

    #[test]
    fn every_inner_cut_of_a_link_line_is_an_error_at_that_line() {
        for (i, l) in ROUTER.lines().enumerate() {
            let start = ROUTER.find(l).unwrap();
            let close = l.rfind('}').unwrap();
            for cut in 1..=close {
                let e = err(&ROUTER[..start + cut]);
                assert_eq!(
                    e.line.unwrap_or(0),
                    i as u32 + 1,
                    "cut {:?}: {}",
                    &l[..cut],
                    e.message
                );
            }
        }
    }

    #[test]
    fn one_sided_link_is_an_error() {
        let text = ROUTER.replace(&format!("{}\n", line(7)), "");
        let e = err(&text);
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("must appear twice"), "{}", e.message);
    }

    #[test]
    fn inconsistent_ends_name_both_lines() {
        // Line 7 now says Router1[1] is cabled to Switch1[4] (line 5 says Switch1[3]).
        let bad = line(7).replacen("PN:03", "PN:04", 1);
        let text = ROUTER.replace(line(7), &bad);
        let e = err(&text);
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("disagree"), "{}", e.message);
        assert!(
            e.message.contains("(line 5)") && e.message.contains("(line 7)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn duplicate_first_end_is_an_error() {
        let text = format!("{ROUTER}{}\n", line(3));
        let e = err(&text);
        assert_eq!(e.line, Some(9));
        assert!(e.message.contains("lines 3 and 9"), "{}", e.message);
    }

    #[test]
    fn conflicting_mentions_are_errors() {
        let text = ROUTER.replacen("{Switch1} LID:0002 PN:02", "{Switch1} LID:0009 PN:02", 1);
        let e = err(&text);
        assert_eq!(e.line, Some(2));
        assert!(
            e.message.contains("has LID 0x9 here but 0x2 on line 1"),
            "{}",
            e.message
        );
        let text = ROUTER.replacen("{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02", "{ CA Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02", 1);
        let e = err(&text);
        assert_eq!(e.line, Some(2));
        assert!(
            e.message.contains("is a CA here but a switch on line 1"),
            "{}",
            e.message
        );
        let bad = line(3).replace("LID:0003", "LID:0007");
        let e = err(&ROUTER.replace(line(3), &bad));
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("LID 0x7"), "{}", e.message);
        let bad = line(3).replace("PortGUID:0000000000100001", "PortGUID:0000000000100009");
        let e = err(&ROUTER.replace(line(3), &bad));
        assert_eq!(e.line, Some(3));
        assert!(
            e.message.contains("port GUID 0x0000000000100009"),
            "{}",
            e.message
        );
    }

    #[test]
    fn malformed_lines() {
        let l1 = line(1);
        let cases = [
            (l1.replacen("{ CA", "{ XY", 1), "node type"),
            (l1.replacen("{ CA", "[ CA", 1), "`{` opening the first end"),
            (
                l1.replacen("LID:0003", "LID:10000", 1),
                "LID 0x10000 in the first end is out of range",
            ),
            (l1.replacen("PN:01", "PN:100", 1), "out of range"),
            (l1.replacen("PN:01", "PN:00", 1), "port 0"),
            (l1.replacen("PN:01", "PN:zz", 1), "hex value"),
            (l1.replacen(" PN:01", "", 1), "no `PN:` field"),
            (l1.replacen(" LID:0003", "", 1), "no `LID:` field"),
            (
                l1.replacen("NodeGUID:0000000000100000 ", "", 1),
                "no `NodeGUID:` field",
            ),
            (
                l1.replacen(
                    "NodeGUID:0000000000100000",
                    "NodeGUID:00000000001000000000000000000",
                    1,
                ),
                "hex value",
            ),
            (
                l1.replacen("VenID:000000", "VenID:", 1),
                "a value after `VenID:`",
            ),
            (
                l1.replacen("VenID:000000", "VenID 000000", 1),
                "`Key:value` field",
            ),
            (l1.replacen("{Hca1} LID", "{Hca1 LID", 1), "second end"),
            (
                l1.replacen(
                    "{Hca1} LID:0003 PN:01 } { SW",
                    "{Hca1 LID:0003 PN:01 } { SW",
                    1,
                )
                .replace("{Switch1}", "{Switch1"),
                "description",
            ),
            (l1.replacen("PHY=4x", "PHY", 1), "link properties"),
            (l1.replacen("PHY=4x", "=4x", 1), "link properties"),
            (l1.replacen(" PHY=4x", "PHY=4x", 1), "link properties"),
            (l1.replacen("} {", "} x {", 1), "`{` opening the second end"),
            ("garbage".to_string(), "`{` opening the first end"),
        ];
        for (text, needle) in cases {
            let e = err(&text);
            assert_eq!(e.line, Some(1), "{text}");
            assert!(e.message.contains(needle), "{text}: {}", e.message);
        }
    }

    #[test]
    fn description_end() {
        assert_eq!(desc_end(b"abc} LID:1 PN:1 }"), Some(3));
        assert_eq!(desc_end(b"a}b} LID:1"), Some(3));
        assert_eq!(desc_end(b"a} }"), Some(1));
        assert_eq!(desc_end(b"a}\tPN:1}"), Some(1));
        assert_eq!(desc_end(b"a} b"), None);
        assert_eq!(desc_end(b"abc"), None);
    }
}
