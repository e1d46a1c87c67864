//! Node name maps (`0x<guid> "<name>"` per line), the files that `ibnetdiscover
//! --node-name-map`, OpenSM and the other infiniband-diags tools read to give nodes
//! readable names (rdma-core `util/node_name_map.c`).
//!
//! Syntax, line by line: blank lines and lines starting with `#` are skipped; otherwise
//! the line is a GUID (`0x` hexadecimal, or decimal / `0`-prefixed octal as C's
//! `strtoull(…, 0)` reads it), blanks, and a name. The name is either quoted (`"compute-001
//! HCA-1"`, up to the next `"`) or unquoted (the rest of the line up to a `#` or `"`, blanks
//! trimmed). A `#` comment may follow. As in rdma-core, the first name given for a GUID
//! wins.
//!
//! Differences from rdma-core, which silently ignores such lines: a GUID without a name,
//! an empty name, an unterminated quote and text after a quoted name are errors here.
//!
//! Complexity: linear in the input, one reused line buffer, one allocation per name.

use std::collections::HashMap;
use std::io::BufRead;

use super::text::{excerpt, is_ws, perr, trim, LineReader};
use crate::error::LocatedError;
use crate::ib::IbTopology;

/// A node name map: node GUID → name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeNameMap {
    names: HashMap<u64, String>,
}

impl NodeNameMap {
    /// The name mapped to `guid`, if any. `O(1)`.
    pub fn get(&self, guid: u64) -> Option<&str> {
        self.names.get(&guid).map(String::as_str)
    }

    /// Number of mapped GUIDs.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no GUID is mapped.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The (GUID, name) pairs, sorted by GUID. `O(m log m)`.
    pub fn entries(&self) -> Vec<(u64, &str)> {
        let mut v: Vec<(u64, &str)> = self.names.iter().map(|(&g, n)| (g, n.as_str())).collect();
        v.sort_unstable();
        v
    }

    /// Replaces the description of every node of `topology` whose GUID is mapped, as
    /// `ibnetdiscover --node-name-map` does for switches, and returns how many were
    /// replaced. (ibnetdiscover itself keeps the NodeDescription in CA and router
    /// headers; applying a map here renames every kind of node.) `O(nodes)`.
    pub fn apply(&self, topology: &mut IbTopology) -> usize {
        let mut replaced = 0;
        for node in &mut topology.nodes {
            if let Some(name) = self.names.get(&node.guid) {
                node.description.clone_from(name);
                replaced += 1;
            }
        }
        replaced
    }
}

/// Parses a node name map. Errors carry the 1-based line: a line that does not start with
/// a GUID, a GUID not followed by a blank or `#`, a GUID above 64 bits, a missing or empty
/// name, an unterminated quoted name, or text after a quoted name. An input with only
/// comments is an empty map, not an error.
///
/// Never panics, whatever the input. Complexity: `O(n)` for `n` input bytes.
pub fn parse_node_name_map<R: BufRead>(reader: R) -> Result<NodeNameMap, LocatedError> {
    let mut lines = LineReader::new(reader);
    let mut names = HashMap::new();
    while let Some((line, raw)) = lines.next_line()? {
        let text = trim(raw);
        if text.is_empty() || text.first() == Some(&b'#') {
            continue;
        }
        let (guid, name) = parse_entry(line, text)?;
        names
            .entry(guid)
            .or_insert_with(|| String::from_utf8_lossy(name).into_owned());
    }
    Ok(NodeNameMap { names })
}

/// An example map line, quoted in error messages.
const EXAMPLE: &str = "`0x0002c90300001234 \"compute-001 HCA-1\"`";

/// Parses one non-comment line (already trimmed) into (GUID, name bytes).
fn parse_entry(line: u32, text: &[u8]) -> Result<(u64, &[u8]), LocatedError> {
    let expected = |what: &str, found: &[u8]| {
        perr(
            line,
            format!(
                "node name map: expected {what}, found {}; a line looks like {EXAMPLE}",
                excerpt(found)
            ),
        )
    };
    let (radix, digits_start) = match text {
        [b'0', b'x' | b'X', ..] => (16, 2),
        [b'0', b'0'..=b'9', ..] => (8, 0),
        _ => (10, 0),
    };
    let rest = text.get(digits_start..).unwrap_or(&[]);
    let len = rest
        .iter()
        .take_while(|&&b| char::from(b).is_digit(radix))
        .count();
    let digits = rest.get(..len).unwrap_or(&[]);
    if digits.is_empty() {
        return Err(expected("a GUID such as `0x0002c90300001234`", text));
    }
    let guid = digits.iter().try_fold(0u64, |acc, &d| {
        let v = char::from(d).to_digit(radix)?;
        acc.checked_mul(u64::from(radix))?.checked_add(u64::from(v))
    });
    let Some(guid) = guid else {
        return Err(perr(
            line,
            format!(
                "node name map: the GUID {} does not fit in 64 bits",
                excerpt(text.get(..digits_start + len).unwrap_or(text))
            ),
        ));
    };
    let after = rest.get(len..).unwrap_or(&[]);
    match after.first() {
        Some(&b) if is_ws(b) => {}
        _ => return Err(expected("a blank and a name after the GUID", after)),
    }
    let body = trim(after);
    let name = match body.first() {
        None | Some(b'#') => return Err(expected("a name after the GUID", body)),
        Some(b'"') => {
            let inner = body.get(1..).unwrap_or(&[]);
            let Some(close) = inner.iter().position(|&b| b == b'"') else {
                return Err(expected(
                    "a closing `\"` after the quoted name",
                    b"the end of the line",
                ));
            };
            let tail = trim(inner.get(close + 1..).unwrap_or(&[]));
            if !tail.is_empty() && tail.first() != Some(&b'#') {
                return Err(expected(
                    "the end of the line or a `#` comment after the quoted name",
                    tail,
                ));
            }
            inner.get(..close).unwrap_or(&[])
        }
        Some(_) => {
            let end = body
                .iter()
                .position(|&b| b == b'#' || b == b'"')
                .unwrap_or(body.len());
            trim(body.get(..end).unwrap_or(&[]))
        }
    };
    if name.is_empty() {
        return Err(perr(
            line,
            format!("node name map: empty name for GUID 0x{guid:016x}"),
        ));
    }
    Ok((guid, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::{IbNode, NodeKind};

    fn parse(s: &str) -> Result<NodeNameMap, LocatedError> {
        parse_node_name_map(s.as_bytes())
    }

    #[test]
    fn quoted_unquoted_comments_and_blank_lines() {
        let map = parse(
            "# node name map: <guid> \"<name>\"\n\
             0x0000000000200000 \"leaf-A\"\n\
             \n\
             \t0x0000000000100000\t\"compute-001 HCA-1\"   # trailing comment\n\
             0X200004 spine-A\n\
             0x200005 two words  # comment\n\
             42 decimal\n\
             010 octal\n\
             0xFFFFFFFFFFFFFFFF max\r\n",
        )
        .unwrap();
        assert_eq!(map.len(), 7);
        assert!(!map.is_empty());
        assert_eq!(map.get(0x200000), Some("leaf-A"));
        assert_eq!(map.get(0x100000), Some("compute-001 HCA-1"));
        assert_eq!(map.get(0x200004), Some("spine-A"));
        assert_eq!(map.get(0x200005), Some("two words"));
        assert_eq!(map.get(42), Some("decimal"));
        assert_eq!(map.get(8), Some("octal"));
        assert_eq!(map.get(u64::MAX), Some("max"));
        assert_eq!(map.get(0x1), None);
        assert_eq!(map.entries().first(), Some(&(8, "octal")));
    }

    #[test]
    fn first_name_wins() {
        let map = parse("0x1 first\n0x1 second\n").unwrap();
        assert_eq!(map.get(1), Some("first"));
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn empty_input_is_an_empty_map() {
        for text in ["", "\n", "# only a comment\n"] {
            assert!(parse(text).unwrap().is_empty());
        }
    }

    #[test]
    fn errors_carry_line_numbers() {
        let cases = [
            ("0x1 a\nleaf-A 0x2\n", 2, "expected a GUID"),
            ("0x1 a\n\n0x2\n", 3, "a blank and a name"),
            ("0x2 # no name\n", 1, "a name after the GUID"),
            ("0x2\"quoted\"\n", 1, "a blank and a name"),
            ("0x2 \"unterminated\n", 1, "closing"),
            ("0x2 \"a\" b\n", 1, "after the quoted name"),
            ("0x2 \"\"\n", 1, "empty name"),
            ("0x2 \"name\n", 1, "closing"),
            ("0x10000000000000000 big\n", 1, "64 bits"),
            ("0x zero\n", 1, "expected a GUID"),
            ("-1 neg\n", 1, "expected a GUID"),
            ("09 bad-octal\n", 1, "a blank and a name"),
        ];
        for (text, line, needle) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line.unwrap_or(0), line, "{text:?}");
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn apply_renames_mapped_nodes() {
        let node = |guid, desc: &str| IbNode {
            kind: NodeKind::Switch,
            guid,
            description: desc.to_string(),
            num_ports: 8,
            lid: Some(1),
            line: 1,
        };
        let mut topo = IbTopology {
            nodes: vec![node(1, "sw-1"), node(2, "sw-2")],
            ..IbTopology::default()
        };
        let map = parse("0x2 spine\n0x3 absent\n").unwrap();
        assert_eq!(map.apply(&mut topo), 1);
        assert_eq!(topo.nodes[0].description, "sw-1");
        assert_eq!(topo.nodes[1].description, "spine");
    }
}
