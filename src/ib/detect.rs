//! Which dump a topology file is, told from its content, and its parser
//! ([`super::ibnetdiscover`], [`super::lst`], [`super::ibsim_net`] or
//! [`super::ports_report`]).
//!
//! The format is decided by the first *decisive* line, skipping blank lines and anything
//! unknown (such as the `-s` progress lines of old `ibnetdiscover` versions, or `-g`
//! section titles):
//!
//! * a line starting with `{` means an OpenSM/ibdiagnet `.lst` link list;
//! * a line whose first word is `SW`, `CA` or `RT` followed by a number means an
//!   `ibnetdiscover -p` ports report;
//! * `# Topology file`, `# Initiated from node` or `DR path ` (an `ibnetdiscover -s`
//!   progress line) means `ibnetdiscover` output;
//! * a node header (`Switch`, `Ca`, `Hca` or `Rt`, a blank, the port count) means
//!   `ibnetdiscover` output when its id is ibnetdiscover's `"S-…"`/`"H-…"`/`"R-…"` with 16
//!   hex digits followed by a `#` comment, and an ibsim net file otherwise (ibsim names
//!   nodes freely; ibsim also reads ibnetdiscover output, which is then parsed as such,
//!   keeping its LIDs); a header followed by `:` is an `ibnetdiscover -l`/`ibswitches`/
//!   `ibhosts` node list, handed to the ibnetdiscover parser for its error;
//! * a port line `[N]` means `ibnetdiscover` output when it has a `(port GUID)` or a `#`
//!   comment, and an ibsim net file otherwise;
//! * ibsim's own keywords (`include`, `do`, `module=`, `hcaguids`, `width=`, `speed=`,
//!   `extspeed=`, `pdebug=`, a GUID line with `+`) mean an ibsim net file.
//!
//! Other `#` lines, the ids lines (`vendid=`, `switchguid=`, …), a header without a port
//! count and a port line whose peer is a cut-off `"S-…"` id are *weak*: they stand for
//! `ibnetdiscover` output only when no decisive line follows (an input of comments only
//! is then reported as ibnetdiscover output without node records).
//!
//! Complexity: detection reads only up to the first decisive line (the lines before it
//! are kept in memory and handed on to the parser, so line numbers stay right); parsing is
//! then as in the chosen parser.

use std::fmt;
use std::io::{BufRead, Cursor, Read};

use super::ibnetdiscover::{HEADER_KEYWORDS, ID_KEYWORDS};
use super::text::perr;
use crate::error::LocatedError;
use crate::ib::IbTopology;

/// The text layouts a topology can be given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopologyFormat {
    /// `ibnetdiscover` output (any version, with or without `-s`, `-g`, `-f`, `-m`).
    Ibnetdiscover,
    /// An OpenSM `opensm-subnet.lst` or ibdiagnet `.lst` link list.
    Lst,
    /// An ibsim net file ([`super::ibsim_net`]): GUIDs as ibsim assigns them, **no LIDs**
    /// (take them from OpenSM's `guid2lid` file of the simulation,
    /// [`super::guid2lid::parse_guid2lid`]).
    IbsimNet,
    /// An `ibnetdiscover -p` ports report ([`super::ports_report`]).
    PortsReport,
}

impl fmt::Display for TopologyFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TopologyFormat::Ibnetdiscover => "ibnetdiscover output",
            TopologyFormat::Lst => ".lst link list",
            TopologyFormat::IbsimNet => "ibsim net file",
            TopologyFormat::PortsReport => "ibnetdiscover -p ports report",
        })
    }
}

/// How strongly a line points at a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The line settles the format.
    Decisive(TopologyFormat),
    /// The format, unless a later line decides otherwise.
    Weak(TopologyFormat),
}

/// Detects the topology format from the first bytes of an input (any amount; a cut last
/// line is judged by what it has): the first decisive line's format, else the first weak
/// line's (see the module documentation). `None` if no line in `first_bytes` says
/// anything — empty input, unknown text, or only `-s` noise so far.
/// `O(first_bytes.len())`.
pub fn detect_topology_format(first_bytes: &[u8]) -> Option<TopologyFormat> {
    let mut weak = None;
    for line in first_bytes.split(|&b| b == b'\n') {
        match classify_line(line) {
            Some(Verdict::Decisive(f)) => return Some(f),
            Some(Verdict::Weak(f)) => {
                weak.get_or_insert(f);
            }
            None => {}
        }
    }
    weak
}

/// Detects the format of `reader` (see [`detect_topology_format`]) and parses it with
/// [`super::ibnetdiscover::parse_ibnetdiscover`], [`super::lst::parse_lst`],
/// [`super::ibsim_net::parse_ibsim_net`] or [`super::ports_report::parse_ports_report`].
///
/// An ibsim net file gives a topology without LIDs: no switch LIDs, and CA/router
/// [`crate::ib::IbPortLid`]s with their port GUIDs but `base_lid` 0; its LIDs must come
/// from elsewhere (OpenSM's `guid2lid` file of the same simulation,
/// [`super::guid2lid::parse_guid2lid`]).
///
/// Errors: the parser's errors; an input with no decisive or weak line is an error at the
/// line of its first non-blank line (line 0 when the input is empty or blank), saying
/// which formats are accepted. Never panics. Complexity: that of the chosen parser; lines
/// before the first decisive one are buffered.
pub fn parse_topology<R: BufRead>(
    mut reader: R,
) -> Result<(IbTopology, TopologyFormat), LocatedError> {
    let mut head = Vec::new();
    let mut line: u32 = 0;
    let mut first_text: Option<(u32, Vec<u8>)> = None;
    let mut weak = None;
    let format = loop {
        let start = head.len();
        let n = reader.read_until(b'\n', &mut head).map_err(|e| {
            perr(
                line.saturating_add(1),
                format!("cannot read the input: {e}"),
            )
        })?;
        if n == 0 {
            break weak;
        }
        line = line.saturating_add(1);
        let text = head.get(start..).unwrap_or(&[]);
        match classify_line(text) {
            Some(Verdict::Decisive(format)) => break Some(format),
            Some(Verdict::Weak(format)) => {
                weak.get_or_insert(format);
            }
            None => {}
        }
        if first_text.is_none() && !trim(text).is_empty() {
            first_text = Some((line, trim(text).to_vec()));
        }
    };
    let Some(format) = format else {
        return Err(unrecognized(first_text));
    };
    let chained = Cursor::new(head).chain(reader);
    let topology = match format {
        TopologyFormat::Ibnetdiscover => super::ibnetdiscover::parse_ibnetdiscover(chained)?,
        TopologyFormat::Lst => super::lst::parse_lst(chained)?,
        TopologyFormat::IbsimNet => super::ibsim_net::parse_ibsim_net(chained)?,
        TopologyFormat::PortsReport => super::ports_report::parse_ports_report(chained)?,
    };
    Ok((topology, format))
}

/// The error for an input without a decisive line.
fn unrecognized(first_text: Option<(u32, Vec<u8>)>) -> LocatedError {
    const ACCEPTED: &str = "expected ibnetdiscover output (a `#` header, then `vendid=`, \
        `Switch`/`Ca`/`Rt` and `[port]` lines), an OpenSM/ibdiagnet `.lst` link list \
        (lines like `{ SW Ports:08 … LID:0002 PN:05 } { … } PHY=4x LOG=ACT`), an ibsim net \
        file (`Switch\t8 \"sw1\"` then `[1]\t\"node1\"[1]` lines) or an `ibnetdiscover -p` \
        ports report (lines like `CA    80  1 0x000000000010001f 4x SDR - SW    16  4 …`)";
    let Some((line, text)) = first_text else {
        return perr(0, format!("the topology input is empty: {ACCEPTED}"));
    };
    let words: Vec<&[u8]> = text
        .split(|b| matches!(b, b' ' | b'\t'))
        .filter(|w| !w.is_empty())
        .collect();
    let guid2lid = words.len() == 3 && words.iter().all(|w| w.starts_with(b"0x"));
    let hint = if guid2lid {
        " (this looks like an OpenSM `guid2lid` file, which maps port GUIDs to LIDs and has \
         no links)"
    } else {
        ""
    };
    let shown: &[u8] = text.get(..60).unwrap_or(&text);
    perr(
        line,
        format!(
            "unrecognized topology format: {ACCEPTED}; found `{}`{}{hint}",
            shown.escape_ascii(),
            if text.len() > 60 { "…" } else { "" }
        ),
    )
}

/// `s` without blanks (and a `\r`) at either end.
fn trim(s: &[u8]) -> &[u8] {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = s.iter().position(|b| !ws(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !ws(b)).map_or(start, |i| i + 1);
    s.get(start..end).unwrap_or(&[])
}

/// `s` without leading blanks.
fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    s.get(n..).unwrap_or(&[])
}

/// What the id at the start of `s` (a header's id or a port line's peer) looks like:
/// `Some(true)` for a complete ibnetdiscover id `"S-<16 hex>"` (or `H`, `R`), `Some(false)`
/// for the cut-off start of one (the line ends inside it), `None` for anything else.
fn ibnetdiscover_id(s: &[u8]) -> Option<bool> {
    let rest = s.strip_prefix(b"\"")?;
    if rest.is_empty() {
        return Some(false);
    }
    if !matches!(rest.first(), Some(b'S' | b'H' | b'R')) {
        return None;
    }
    let Some(rest) = rest.get(1..).and_then(|r| r.strip_prefix(b"-")) else {
        return (rest.len() == 1).then_some(false);
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    match rest.get(digits) {
        None if digits <= 16 => Some(false),
        Some(b'"') if digits == 16 => Some(true),
        _ => None,
    }
}

/// The verdict of a node header line `t` (trimmed, starting with a header keyword of
/// length `len` followed by a blank or the end).
fn classify_header(t: &[u8], len: usize) -> Verdict {
    use TopologyFormat::{Ibnetdiscover as I, IbsimNet as N};
    let rest = skip_blanks(t.get(len..).unwrap_or(&[]));
    match rest.first() {
        Some(b':') => return Verdict::Decisive(I),
        Some(b) if b.is_ascii_digit() => {}
        _ => return Verdict::Weak(I),
    }
    let digits = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let after = rest.get(digits..).unwrap_or(&[]);
    let id = skip_blanks(after);
    if after.len() == id.len() && !id.is_empty() {
        // No blank after the count: not ibnetdiscover's layout.
        return Verdict::Decisive(N);
    }
    match ibnetdiscover_id(id) {
        Some(false) => Verdict::Weak(I),
        Some(true) => {
            let tail = skip_blanks(id.get(20..).unwrap_or(&[]));
            if tail.is_empty() {
                // A complete id and nothing more: a valid ibsim header, or ibnetdiscover
                // output cut after the id; ibsim names are the likelier reading.
                Verdict::Decisive(N)
            } else if tail.first() == Some(&b'#') {
                Verdict::Decisive(I)
            } else {
                Verdict::Decisive(N)
            }
        }
        None if id.is_empty() => Verdict::Weak(I),
        None => Verdict::Decisive(N),
    }
}

/// The verdict of a port line `t` (trimmed, starting with `[`).
fn classify_port(t: &[u8]) -> Verdict {
    use TopologyFormat::{Ibnetdiscover as I, IbsimNet as N};
    if t.contains(&b'#') || t.contains(&b'(') {
        return Verdict::Decisive(I);
    }
    let peer = t
        .iter()
        .position(|&b| b == b'"')
        .and_then(|i| t.get(i..))
        .unwrap_or(&[]);
    match ibnetdiscover_id(peer) {
        // Ibnetdiscover output cut before its comment, or an empty tail.
        _ if peer.is_empty() => Verdict::Weak(I),
        Some(_) => Verdict::Weak(I),
        None => Verdict::Decisive(N),
    }
}

/// Whether `t` starts a ports report line: `SW`, `CA` or `RT`, blanks, a digit.
fn is_ports_report_line(t: &[u8]) -> bool {
    matches!(t.get(..2), Some(b"SW" | b"CA" | b"RT"))
        && t.get(2).is_some_and(|&b| b == b' ' || b == b'\t')
        && skip_blanks(t.get(2..).unwrap_or(&[]))
            .first()
            .is_some_and(u8::is_ascii_digit)
}

/// The verdict of a single line, if any.
fn classify_line(line: &[u8]) -> Option<Verdict> {
    use TopologyFormat::{Ibnetdiscover as I, IbsimNet as N, Lst as L, PortsReport as P};
    let t = trim(line);
    let first = *t.first()?;
    match first {
        b'{' => return Some(Verdict::Decisive(L)),
        b'#' => {
            let header = [&b"# Topology file"[..], b"# Initiated from node"]
                .iter()
                .any(|p| t.starts_with(p));
            return Some(if header {
                Verdict::Decisive(I)
            } else {
                Verdict::Weak(I)
            });
        }
        b'[' => return Some(classify_port(t)),
        _ => {}
    }
    if t.starts_with(b"DR path ") {
        return Some(Verdict::Decisive(I));
    }
    if is_ports_report_line(t) {
        return Some(Verdict::Decisive(P));
    }
    if let Some(kw) = HEADER_KEYWORDS
        .iter()
        .find(|kw| t.starts_with(kw) && t.get(kw.len()).is_none_or(|&b| b == b' ' || b == b'\t'))
    {
        return Some(classify_header(t, kw.len()));
    }
    let word_then = |kw: &[u8], after: &[u8]| {
        t.strip_prefix(kw)
            .is_some_and(|r| r.first().is_some_and(|b| after.contains(b)))
    };
    let ibsim_keyword = word_then(b"include", b" \t\"")
        || word_then(b"do", b" \t")
        || [
            &b"module"[..],
            b"hcaguids",
            b"width",
            b"speed",
            b"extspeed",
            b"pdebug",
        ]
        .iter()
        .any(|kw| word_then(kw, b"= \t"))
        || [&b"switchguid"[..], b"caguid", b"rtguid"]
            .iter()
            .any(|kw| word_then(kw, b"+"));
    if ibsim_keyword {
        return Some(Verdict::Decisive(N));
    }
    if ID_KEYWORDS.iter().any(|kw| t.starts_with(kw)) {
        return Some(Verdict::Weak(I));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const IBN: &str = "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0
[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR

Ca\t1 \"H-0000000000100003\"\t\t# \"Hca2\"
[1](100004) \t\"S-0000000000200000\"[4]\t\t# lid 1 lmc 0 \"Switch1\" lid 2 4xSDR
";

    const LST: &str = "{ SW Ports:08 NodeGUID:0000000000200000 {Switch1} LID:0002 PN:04 } \
{ CA Ports:01 NodeGUID:0000000000100003 PortGUID:0000000000100004 {Hca2} LID:0001 PN:01 } PHY=4x
{ CA Ports:01 NodeGUID:0000000000100003 PortGUID:0000000000100004 {Hca2} LID:0001 PN:01 } \
{ SW Ports:08 NodeGUID:0000000000200000 {Switch1} LID:0002 PN:04 } PHY=4x
";

    #[test]
    fn detection() {
        use TopologyFormat::{Ibnetdiscover as I, IbsimNet as N, Lst as L, PortsReport as P};
        let cases: [(&[u8], Option<TopologyFormat>); 34] = [
            (b"", None),
            (b"\n\n  \n", None),
            (b"hello\nworld\n", None),
            (b"#\n# Topology file", Some(I)),
            (b"# just a comment\n", Some(I)),
            (b"\r\nvendid=0x0\n", Some(I)),
            (b"switchguid=0x1(1)", Some(I)),
            (b"Switch\t8 \"S-", Some(I)),
            (
                b"Switch\t8 \"S-0000000000200000\"\t\t# \"s\" base port 0 lid 2 lmc 0",
                Some(I),
            ),
            (b"Hca\t1 \"H-000000000000000e\"\t\t# \"xsigo2\"", Some(I)),
            (b"Hca 1 \"x\"", Some(N)),
            (b"Switch\t8 \"sw-l0-000\"", Some(N)),
            (b"Switch\t8 \"S-0000000000200000\"", Some(N)),
            (b"Switch 8 \"S-1\"", Some(N)),
            (
                b"# Net configuration file example\n#\n\nSwitch\t8 \"Switch1\"\n",
                Some(N),
            ),
            (b"switchguid=0x200000\nSwitch 8 \"a\"", Some(N)),
            (b"Rt", Some(I)),
            (b"Ca\t : 0x000000000010001e ports 1", Some(I)),
            (b"Switch\t: 0x0000000000200003 ports 8", Some(I)),
            (b"[1]\t\"S-", Some(I)),
            (b"[1](100001) \t\"S-0000000000200000\"[1]", Some(I)),
            (
                b"[1]\t\"S-0000000000200000\"[3]\t\t# \"x\" lid 7 4xSDR",
                Some(I),
            ),
            (b"[1]\t\"node001\"[1]", Some(N)),
            (b"include \"other.net\"", Some(N)),
            (b"do echo\n", Some(N)),
            (b"caguid+5\n", Some(N)),
            (b"module=\"m\"\n", Some(N)),
            (b"DR path slid 0; dlid 0; 0 -> new Switch", Some(I)),
            (b"Non-Chassis Nodes\n\nvendid=0x8f1", Some(I)),
            (b"Switches\n", None),
            (b"{ SW Ports:08", Some(L)),
            (b"\n  { CA", Some(L)),
            (b"CA    80  1 0x000000000010001f 4x SDR - SW", Some(P)),
            (b"SW     2  8 0x0000000000200000 4x SDR", Some(P)),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                detect_topology_format(bytes),
                want,
                "{}",
                bytes.escape_ascii()
            );
        }
    }

    const NET: &str = "# comment\nSwitch\t8 \"Switch1\"\n[4]\t\"Hca2\"[1]\n\ncaguid=0x100003\nHca\t1 \"Hca2\"\n[1]\t\"Switch1\"[4]\n";

    const PORTS: &str = "\
SW     2  4 0x0000000000200000 4x SDR - CA     1  1 0x0000000000100004 ( 'Switch1' - 'Hca2' )
CA     1  1 0x0000000000100004 4x SDR - SW     2  4 0x0000000000200000 ( 'Hca2' - 'Switch1' )
";

    #[test]
    fn parses_all_formats() {
        let (t, f) = parse_topology(IBN.as_bytes()).unwrap();
        assert_eq!(f, TopologyFormat::Ibnetdiscover);
        assert_eq!((t.nodes.len(), t.links.len()), (2, 1));
        let (u, f) = parse_topology(LST.as_bytes()).unwrap();
        assert_eq!(f, TopologyFormat::Lst);
        assert_eq!((u.nodes.len(), u.links.len()), (2, 1));
        assert_eq!(f.to_string(), ".lst link list");
        assert_eq!(
            TopologyFormat::Ibnetdiscover.to_string(),
            "ibnetdiscover output"
        );
        let (n, f) = parse_topology(NET.as_bytes()).unwrap();
        assert_eq!(f, TopologyFormat::IbsimNet);
        assert_eq!(f.to_string(), "ibsim net file");
        let (p, f) = parse_topology(PORTS.as_bytes()).unwrap();
        assert_eq!(f, TopologyFormat::PortsReport);
        assert_eq!(f.to_string(), "ibnetdiscover -p ports report");
        // The same fabric in all four layouts: same GUIDs and links.
        let guid_links = |x: &IbTopology| -> Vec<((u64, u32), (u64, u32))> {
            x.links
                .iter()
                .map(|l| {
                    let g = |i: u32| x.nodes[i as usize].guid;
                    ((g(l.a.0), l.a.1), (g(l.b.0), l.b.1))
                })
                .collect()
        };
        let mut want = guid_links(&t);
        want.sort_unstable();
        for other in [&u, &n, &p] {
            let mut got = guid_links(other);
            got.sort_unstable();
            assert_eq!(got, want);
        }
        // The net file has no LIDs; the ports report has the CA's base LID.
        assert!(n.nodes.iter().all(|x| x.lid.is_none()));
        assert_eq!(n.port_lids[0].base_lid, 0);
        assert_eq!(n.port_lids[0].guid, Some(0x100004));
        assert_eq!(p.port_lids[0].base_lid, 1);
    }

    #[test]
    fn undecided_lines_before_the_first_decisive_one_keep_line_numbers() {
        let noisy = format!("progress 1\nprogress 2\n\n{IBN}");
        let (t, _) = parse_topology(noisy.as_bytes()).unwrap();
        assert_eq!(t.nodes[0].line, 4);
        // An error after the noise is reported at the right line.
        let broken = noisy.replace("lid 1 4xSDR\n", "lid 1 4xSD\n");
        let e = parse_topology(broken.as_bytes()).unwrap_err();
        assert_eq!(e.line, Some(5), "{}", e.message);
    }

    #[test]
    fn unrecognized_input() {
        let e = parse_topology(&b""[..]).unwrap_err();
        assert_eq!(e.line, None);
        assert!(e.message.contains("empty"), "{}", e.message);
        let e = parse_topology(&b"\n\nhello world\nmore\n"[..]).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(
            e.message.contains("unrecognized topology format"),
            "{}",
            e.message
        );
        assert!(e.message.contains("`hello world`"), "{}", e.message);
        let e = parse_topology(&b"\n0x0000000000100004 0x0001 0x0001\n\n"[..]).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("guid2lid"), "{}", e.message);
    }

    #[test]
    fn parser_errors_pass_through() {
        let e = parse_topology(&b"{ SW\n"[..]).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("link line"), "{}", e.message);
        let e = parse_topology(&b"#\n#\n"[..]).unwrap_err();
        assert_eq!(e.line, None);
        assert!(e.message.contains("no node records"), "{}", e.message);
        let e = parse_topology(&b"Switch 1 \"a\"\n\ninclude \"b\"\n"[..]).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("include"), "{}", e.message);
        let e = parse_topology(&b"SW     2  4 0x0000000000200000 4x SDR - CA\n"[..]).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("ports report line"), "{}", e.message);
    }
}
