//! Topology input: format detection from the content, then the matching parser
//! ([`super::ibnetdiscover`] or [`super::lst`]).
//!
//! The format is decided by the first *decisive* line, skipping blank lines and anything
//! unknown (such as the `-s` progress lines of old `ibnetdiscover` versions, or `-g`
//! section titles):
//!
//! * a line starting with `{` means an OpenSM/ibdiagnet `.lst` link list;
//! * a line starting with `#`, `[`, `vendid=`, `devid=`, `sysimgguid=`, `switchguid=`,
//!   `caguid=`, `rtguid=`, `Switch`, `Ca`, `Hca` or `Rt` (followed by a blank), or
//!   `DR path ` (an `ibnetdiscover -s` progress line) means `ibnetdiscover` output.
//!
//! Complexity: detection reads only up to the first decisive line (the lines before it
//! are kept in memory and handed on to the parser, so line numbers stay right); parsing is
//! then as in the chosen parser.

use std::fmt;
use std::io::{BufRead, Cursor, Read};

use super::ibnetdiscover::{HEADER_KEYWORDS, ID_KEYWORDS};
use crate::ib::{IbTopology, ParseError};

/// The text layouts a topology can be given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopologyFormat {
    /// `ibnetdiscover` output (any version, with or without `-s`, `-g`, `-f`, `-m`).
    Ibnetdiscover,
    /// An OpenSM `opensm-subnet.lst` or ibdiagnet `.lst` link list.
    Lst,
}

impl fmt::Display for TopologyFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TopologyFormat::Ibnetdiscover => "ibnetdiscover output",
            TopologyFormat::Lst => ".lst link list",
        })
    }
}

/// Detects the topology format from the first bytes of an input (any amount; a cut last
/// line is judged by what it has). `None` if no line in `first_bytes` is decisive — empty
/// input, unknown text, or only `-s` noise so far. `O(first_bytes.len())`.
pub fn detect_topology_format(first_bytes: &[u8]) -> Option<TopologyFormat> {
    first_bytes.split(|&b| b == b'\n').find_map(classify_line)
}

/// Detects the format of `reader` (see [`detect_topology_format`]) and parses it with
/// [`super::ibnetdiscover::parse_ibnetdiscover`] or [`super::lst::parse_lst`].
///
/// Errors: the parser's errors; an input with no decisive line is an error at the line of
/// its first non-blank line (line 0 when the input is empty or blank), saying which
/// formats are accepted. Never panics. Complexity: that of the chosen parser.
pub fn parse_topology<R: BufRead>(
    mut reader: R,
) -> Result<(IbTopology, TopologyFormat), ParseError> {
    let mut head = Vec::new();
    let mut line: u32 = 0;
    let mut first_text: Option<(u32, Vec<u8>)> = None;
    let format = loop {
        let start = head.len();
        let n = reader
            .read_until(b'\n', &mut head)
            .map_err(|e| ParseError {
                line: line.saturating_add(1),
                message: format!("cannot read the input: {e}"),
            })?;
        if n == 0 {
            break None;
        }
        line = line.saturating_add(1);
        let text = head.get(start..).unwrap_or(&[]);
        if let Some(format) = classify_line(text) {
            break Some(format);
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
    };
    Ok((topology, format))
}

/// The error for an input without a decisive line.
fn unrecognized(first_text: Option<(u32, Vec<u8>)>) -> ParseError {
    const ACCEPTED: &str = "expected ibnetdiscover output (a `#` header, then `vendid=`, \
        `Switch`/`Ca`/`Rt` and `[port]` lines) or an OpenSM/ibdiagnet `.lst` link list \
        (lines like `{ SW Ports:08 … LID:0002 PN:05 } { … } PHY=4x LOG=ACT`)";
    let Some((line, text)) = first_text else {
        return ParseError {
            line: 0,
            message: format!("the topology input is empty: {ACCEPTED}"),
        };
    };
    let ports_report = matches!(text.get(..2), Some(b"CA" | b"SW" | b"RT"))
        && text.get(2).is_some_and(|&b| b == b' ')
        && trim(text.get(2..).unwrap_or(&[]))
            .first()
            .is_some_and(u8::is_ascii_digit);
    let hint = if ports_report {
        " (this looks like an `ibnetdiscover -p` ports report, which has no node records; \
         use the default `ibnetdiscover` output)"
    } else {
        ""
    };
    let shown: &[u8] = text.get(..60).unwrap_or(&text);
    ParseError {
        line,
        message: format!(
            "unrecognized topology format: {ACCEPTED}; found `{}`{}{hint}",
            shown.escape_ascii(),
            if text.len() > 60 { "…" } else { "" }
        ),
    }
}

/// `s` without blanks (and a `\r`) at either end.
fn trim(s: &[u8]) -> &[u8] {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = s.iter().position(|b| !ws(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !ws(b)).map_or(start, |i| i + 1);
    s.get(start..end).unwrap_or(&[])
}

/// The format a single line decides, if any.
fn classify_line(line: &[u8]) -> Option<TopologyFormat> {
    let t = trim(line);
    let first = *t.first()?;
    match first {
        b'{' => return Some(TopologyFormat::Lst),
        b'#' | b'[' => return Some(TopologyFormat::Ibnetdiscover),
        _ => {}
    }
    let header = HEADER_KEYWORDS
        .iter()
        .any(|kw| t.starts_with(kw) && t.get(kw.len()).map_or(true, |&b| b == b' ' || b == b'\t'));
    if header || t.starts_with(b"DR path ") || ID_KEYWORDS.iter().any(|kw| t.starts_with(kw)) {
        return Some(TopologyFormat::Ibnetdiscover);
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
        use TopologyFormat::{Ibnetdiscover as I, Lst as L};
        let cases: [(&[u8], Option<TopologyFormat>); 16] = [
            (b"", None),
            (b"\n\n  \n", None),
            (b"hello\nworld\n", None),
            (b"#\n# Topology file", Some(I)),
            (b"\r\nvendid=0x0\n", Some(I)),
            (b"switchguid=0x1(1)", Some(I)),
            (b"Switch\t8 \"S-", Some(I)),
            (b"Hca 1 \"x\"", Some(I)),
            (b"Rt", Some(I)),
            (b"[1]\t\"S-", Some(I)),
            (b"DR path slid 0; dlid 0; 0 -> new Switch", Some(I)),
            (b"Non-Chassis Nodes\n\nvendid=0x8f1", Some(I)),
            (b"Switches\n", None),
            (b"{ SW Ports:08", Some(L)),
            (b"\n  { CA", Some(L)),
            (b"CA    80  1 0x000000000010001f 4x SDR - SW", None),
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

    #[test]
    fn parses_both_formats() {
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
    }

    #[test]
    fn undecided_lines_before_the_first_decisive_one_keep_line_numbers() {
        let noisy = format!("progress 1\nprogress 2\n\n{IBN}");
        let (t, _) = parse_topology(noisy.as_bytes()).unwrap();
        assert_eq!(t.nodes[0].line, 4);
        // An error after the noise is reported at the right line.
        let broken = noisy.replace("lid 1 4xSDR\n", "lid 1 4xSD\n");
        let e = parse_topology(broken.as_bytes()).unwrap_err();
        assert_eq!(e.line, 5, "{}", e.message);
    }

    #[test]
    fn unrecognized_input() {
        let e = parse_topology(&b""[..]).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.message.contains("empty"), "{}", e.message);
        let e = parse_topology(&b"\n\nhello world\nmore\n"[..]).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.contains("unrecognized topology format"),
            "{}",
            e.message
        );
        assert!(e.message.contains("`hello world`"), "{}", e.message);
        let e = parse_topology(
            &b"CA    80  1 0x000000000010001f 4x SDR - SW    16  4 0x0000000000200003 ( 'a' - 'b' )\n"[..],
        )
        .unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("ibnetdiscover -p"), "{}", e.message);
    }

    #[test]
    fn parser_errors_pass_through() {
        let e = parse_topology(&b"{ SW\n"[..]).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("link line"), "{}", e.message);
        let e = parse_topology(&b"#\n#\n"[..]).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.message.contains("no node records"), "{}", e.message);
    }
}
