//! The binary fabric cache (`.orcsfab`): a routed fabric saved as little-endian arrays,
//! so that large fabrics load without re-parsing text.
//!
//! Layout: the magic `ORCSFAB\n`, a u32 format version, then the sections in a fixed
//! order (names, host list, CSR edges, keys and attributes, comments, forwarding table),
//! each array as a u64 length followed by its elements. Loading checks every length and
//! index, so a damaged file gives an error rather than a wrong fabric.

use super::dot::{Comment, SymbolTable};
use super::{EdgeComments, Fabric, LoadedFabric, NONE};
use crate::routing::ForwardingTable;
use std::io::{self, Read, Write};

/// The first bytes of every cache file.
pub const MAGIC: &[u8; 8] = b"ORCSFAB\n";
/// The layout version this build reads and writes.
pub const VERSION: u32 = 1;

/// True if `head` (the first bytes of a file) starts like a fabric cache.
pub fn is_cache(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

struct Out<'a> {
    w: &'a mut dyn Write,
}

impl Out<'_> {
    fn u32s(&mut self, v: &[u32]) -> io::Result<()> {
        self.len(v.len())?;
        let mut buf = Vec::with_capacity(v.len() * 4);
        for x in v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        self.w.write_all(&buf)
    }
    fn u16s(&mut self, v: &[u16]) -> io::Result<()> {
        self.len(v.len())?;
        let mut buf = Vec::with_capacity(v.len() * 2);
        for x in v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        self.w.write_all(&buf)
    }
    fn len(&mut self, n: usize) -> io::Result<()> {
        self.w.write_all(&(n as u64).to_le_bytes())
    }
    fn str(&mut self, s: &str) -> io::Result<()> {
        self.len(s.len())?;
        self.w.write_all(s.as_bytes())
    }
    fn opt_str(&mut self, s: Option<&str>) -> io::Result<()> {
        match s {
            Some(s) => {
                self.w.write_all(&[1])?;
                self.str(s)
            }
            None => self.w.write_all(&[0]),
        }
    }
    fn strs<'s>(&mut self, v: impl ExactSizeIterator<Item = &'s str>) -> io::Result<()> {
        self.len(v.len())?;
        v.into_iter().try_for_each(|s| self.str(s))
    }
    fn attrs(&mut self, v: &[Vec<(String, String)>]) -> io::Result<()> {
        self.len(v.len())?;
        for list in v {
            self.len(list.len())?;
            for (k, val) in list {
                self.str(k)?;
                self.str(val)?;
            }
        }
        Ok(())
    }
}

/// Writes `loaded` (fabric and forwarding table) as a cache file. O(size of the fabric).
pub fn write_cache(out: &mut dyn Write, loaded: &LoadedFabric) -> io::Result<()> {
    let f = &loaded.fabric;
    let mut o = Out { w: out };
    o.w.write_all(MAGIC)?;
    o.w.write_all(&VERSION.to_le_bytes())?;
    o.opt_str(f.graph_id.as_deref())?;
    o.attrs(std::slice::from_ref(&f.graph_attrs))?;
    o.strs(f.node_names.iter().map(String::as_str))?;
    o.u32s(&f.node_lines)?;
    o.attrs(&f.node_attrs)?;
    o.u32s(&f.hosts)?;
    o.u32s(&f.out_start)?;
    o.u32s(&f.edge_tail)?;
    o.u32s(&f.edge_head)?;
    o.u32s(&f.edge_lines)?;
    o.len(f.edge_keys.len())?;
    for k in &f.edge_keys {
        o.opt_str(k.as_deref())?;
    }
    o.attrs(&f.edge_attrs)?;
    // Comments: kind per edge (0 absent, 1 all, 2 tokens) with ranges, tokens, names.
    let c = &f.edge_comments;
    let mut kinds = Vec::with_capacity(c.kinds.len() * 3);
    for k in &c.kinds {
        let (tag, a, b) = match *k {
            Comment::Absent => (0, 0, 0),
            Comment::All => (1, 0, 0),
            Comment::Tokens { start, end } => (2, start, end),
        };
        kinds.extend_from_slice(&[tag, a, b]);
    }
    o.u32s(&kinds)?;
    o.u32s(&c.tokens)?;
    o.strs((0..c.symbols.len() as u32).map(|i| c.symbols.name(i)))?;
    let (num_hosts, rows, uniform, ports) = loaded.table.raw_parts();
    o.len(num_hosts)?;
    o.u32s(rows)?;
    o.u32s(uniform)?;
    o.u16s(ports)?;
    o.w.flush()
}

/// Reads from a byte buffer with bounds checks.
struct In<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| format!("truncated at byte {} (needed {n} more)", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn len(&mut self) -> Result<usize, String> {
        let b = self.take(8)?;
        let n = u64::from_le_bytes(b.try_into().map_err(|_| "bad length")?);
        // No section can hold more items than bytes remain.
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(format!(
                "length {n} at byte {} exceeds the file",
                self.pos - 8
            ));
        }
        Ok(n as usize)
    }
    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        let n = self.len()?;
        let b = self.take(n.checked_mul(4).ok_or("length overflow")?)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    fn u16s(&mut self) -> Result<Vec<u16>, String> {
        let n = self.len()?;
        let b = self.take(n.checked_mul(2).ok_or("length overflow")?)?;
        Ok(b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
    fn str(&mut self) -> Result<String, String> {
        let n = self.len()?;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("invalid UTF-8 before byte {}", self.pos))
    }
    fn opt_str(&mut self) -> Result<Option<String>, String> {
        match self.take(1)?[0] {
            0 => Ok(None),
            1 => self.str().map(Some),
            t => Err(format!("bad option tag {t} at byte {}", self.pos - 1)),
        }
    }
    fn strs(&mut self) -> Result<Vec<String>, String> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }
    fn attrs(&mut self) -> Result<Vec<Vec<(String, String)>>, String> {
        let n = self.len()?;
        (0..n)
            .map(|_| {
                let m = self.len()?;
                (0..m).map(|_| Ok((self.str()?, self.str()?))).collect()
            })
            .collect()
    }
}

/// Reads a cache file written by [`write_cache`]. Every size and index is checked;
/// errors say what is wrong (the caller adds the file name). O(file size).
pub fn read_cache(reader: &mut dyn Read) -> Result<LoadedFabric, String> {
    let mut buf = Vec::new();
    reader
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read: {e}"))?;
    if !is_cache(&buf) {
        return Err("not an orcs fabric cache (no ORCSFAB header)".into());
    }
    let mut r = In {
        buf: &buf,
        pos: MAGIC.len(),
    };
    let version = u32::from_le_bytes(r.take(4)?.try_into().map_err(|_| "bad version")?);
    if version != VERSION {
        return Err(format!(
            "cache format version {version}, but this orcs reads version {VERSION}; convert the fabric again"
        ));
    }
    let graph_id = r.opt_str()?;
    let graph_attrs = r.attrs()?.into_iter().next().unwrap_or_default();
    let node_names = r.strs()?;
    let nodes = node_names.len();
    let node_lines = r.u32s()?;
    let node_attrs = r.attrs()?;
    let hosts = r.u32s()?;
    let out_start = r.u32s()?;
    let edge_tail = r.u32s()?;
    let edge_head = r.u32s()?;
    let edges = edge_head.len();
    let edge_lines = r.u32s()?;
    let num_keys = r.len()?;
    let edge_keys = (0..num_keys)
        .map(|_| r.opt_str())
        .collect::<Result<Vec<_>, _>>()?;
    let edge_attrs = r.attrs()?;
    let kinds_raw = r.u32s()?;
    let tokens = r.u32s()?;
    let symbol_names = r.strs()?;
    let num_hosts = r.len()?;
    let row_of_node = r.u32s()?;
    let uniform_edge = r.u32s()?;
    let ports = r.u16s()?;
    if r.pos != buf.len() {
        return Err(format!(
            "{} unexpected bytes after the forwarding table",
            buf.len() - r.pos
        ));
    }

    // Structural checks: everything the engine indexes must be in range.
    let sizes_ok = node_lines.len() == nodes
        && node_attrs.len() == nodes
        && out_start.len() == nodes + 1
        && edge_tail.len() == edges
        && edge_lines.len() == edges
        && edge_keys.len() == edges
        && edge_attrs.len() == edges
        && kinds_raw.len() == edges * 3;
    if !sizes_ok {
        return Err("section sizes do not agree".into());
    }
    if out_start[0] != 0
        || out_start.windows(2).any(|w| w[0] > w[1])
        || out_start[nodes] as usize != edges
    {
        return Err("edge offsets are not a valid CSR index".into());
    }
    for v in 0..nodes {
        for e in out_start[v]..out_start[v + 1] {
            if edge_tail[e as usize] as usize != v || edge_head[e as usize] as usize >= nodes {
                return Err(format!("edge {e} does not match its node"));
            }
        }
    }
    let mut host_of_node = vec![NONE; nodes];
    for (h, &v) in hosts.iter().enumerate() {
        match host_of_node.get_mut(v as usize) {
            Some(slot) if *slot == NONE => *slot = h as u32,
            _ => {
                return Err(format!(
                    "host {h} names node {v}, which is invalid or taken"
                ))
            }
        }
    }
    let mut symbols = SymbolTable::new();
    for name in &symbol_names {
        symbols.intern(name);
    }
    if symbols.len() != symbol_names.len() {
        return Err("comment names repeat".into());
    }
    if tokens.iter().any(|&t| t as usize >= symbol_names.len()) {
        return Err("a comment token names no symbol".into());
    }
    let kinds = kinds_raw
        .chunks_exact(3)
        .map(|k| match k[0] {
            0 => Ok(Comment::Absent),
            1 => Ok(Comment::All),
            2 if k[1] <= k[2] && k[2] as usize <= tokens.len() => Ok(Comment::Tokens {
                start: k[1],
                end: k[2],
            }),
            _ => Err("bad comment entry".to_string()),
        })
        .collect::<Result<Vec<_>, _>>()?;

    let fabric = Fabric {
        graph_id,
        graph_attrs,
        node_names,
        node_lines,
        node_attrs,
        hosts,
        host_of_node,
        out_start,
        edge_tail,
        edge_head,
        edge_lines,
        edge_keys,
        edge_attrs,
        edge_comments: EdgeComments {
            kinds,
            tokens,
            symbols,
        },
    };
    let table =
        ForwardingTable::from_raw_parts(&fabric, num_hosts, row_of_node, uniform_edge, ports)?;
    Ok(LoadedFabric {
        fabric,
        table,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{load_routed_fabric_from, LoadOptions};
    use crate::routing::check_routes;
    use proptest::prelude::*;

    const FABRIC: &str = "digraph t { SA; SB; H0; H1; H2; H3;
        H0 -> SA [comment=\"*\", key=1]; H1 -> SA [comment=\"*\"]; H2 -> SB [comment=\"*\"];
        H3 -> SB [comment=\"*\"]; SA -> H0 [comment=H0]; SA -> H1 [comment=H1, color=red];
        SA -> SB [comment=\"H2, H3\"]; SB -> H2 [comment=H2]; SB -> H3 [comment=H3];
        SB -> SA [comment=\"H0,H1\"]; }";

    fn cache_bytes() -> (LoadedFabric, Vec<u8>) {
        let loaded =
            load_routed_fabric_from(FABRIC.as_bytes(), "t", LoadOptions::default()).unwrap();
        let mut bytes = Vec::new();
        write_cache(&mut bytes, &loaded).unwrap();
        (loaded, bytes)
    }

    #[test]
    fn round_trip_keeps_everything() {
        let (loaded, bytes) = cache_bytes();
        let back = read_cache(&mut bytes.as_slice()).unwrap();
        let (a, b) = (&loaded.fabric, &back.fabric);
        assert_eq!(a.node_names, b.node_names);
        assert_eq!(a.edge_head, b.edge_head);
        assert_eq!(a.edge_keys, b.edge_keys);
        assert_eq!(a.edge_attrs, b.edge_attrs);
        for e in 0..a.num_edges() as u32 {
            assert_eq!(a.edge_comments.text(e), b.edge_comments.text(e));
        }
        for v in 0..a.num_nodes() as u32 {
            for h in 0..a.num_hosts() as u32 {
                assert_eq!(
                    loaded.table.next_edge(a, v, h),
                    back.table.next_edge(b, v, h)
                );
            }
        }
    }

    #[test]
    fn wrong_version_and_magic_are_named() {
        let (_, mut bytes) = cache_bytes();
        bytes[8] = 9;
        let err = read_cache(&mut bytes.as_slice()).err().unwrap();
        assert!(err.contains("version 9"), "{err}");
        let err = read_cache(&mut &b"digraph {}"[..]).err().unwrap();
        assert!(err.contains("not an orcs fabric cache"), "{err}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Damaged caches load as errors or as fabrics the route checker handles.
        #[test]
        fn damaged_caches_never_panic(
            cut in 0usize..2000,
            flips in proptest::collection::vec((0usize..2000, any::<u8>()), 0..4),
        ) {
            let (_, mut bytes) = cache_bytes();
            for (at, value) in flips {
                let at = at % bytes.len();
                bytes[at] = value;
            }
            bytes.truncate(cut.min(bytes.len()));
            if let Ok(loaded) = read_cache(&mut bytes.as_slice()) {
                let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
                let _ = check_routes(&loaded.fabric, &loaded.table, &hosts);
            }
        }
    }
}
