//! The binary fabric cache (`.orcsfab`): a routed fabric saved as little-endian arrays,
//! so that large fabrics load without re-parsing text or re-checking routes.
//!
//! Layout (format version 2): the magic `ORCSFAB\n`, a u32 format version, then the
//! sections in a fixed order: names, host list, CSR edges, keys and attributes, routing
//! comments, forwarding table, route summary; then a CRC-32 of every byte before it.
//! Arrays are a u64 length followed by their elements.
//!
//! Three choices keep a 100k-host fabric (a billion table entries) loadable in a fraction
//! of a second:
//! * comments that are just the table's own (`*` on host uplinks, the routed hosts in host
//!   order on every other edge) are not stored: they would be twice the table's size, and
//!   only writers need them ([`LoadedFabric::fill_comments`] rebuilds them);
//! * the table is stored with one byte per entry when every switch has fewer than 255
//!   ports (as [`ForwardingTable::compact`] keeps it in memory), read with one system call
//!   into memory faulted in by all threads, and validated in parallel;
//! * the result of the all-pairs route check is stored ([`RouteSummary`]), so loading
//!   does not repeat an O(hosts²) walk; the checksum guarantees it belongs to this table.
//!
//! Loading checks every length and index and the checksum, so a damaged file gives an
//! error rather than a wrong fabric.

use super::dot::{Comment, SymbolTable};
use super::{EdgeComments, Fabric, LoadedFabric, NONE};
use crate::error::LocatedError;
use crate::routing::{comments_match_table, ForwardingTable, PortRows, RouteSummary, NO_PORT};
use crc32fast::Hasher;
use rayon::prelude::*;
use std::io::{self, Read, Write};

/// The first bytes of every cache file.
pub(crate) const MAGIC: &[u8; 8] = b"ORCSFAB\n";
/// The layout version this build reads and writes.
pub(crate) const VERSION: u32 = 2;

/// Arrays larger than this are checksummed in parallel pieces of this size.
const PIECE: usize = 8 << 20;

/// True if `head` (the first bytes of a file) starts like a fabric cache.
pub(crate) fn is_cache(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// The CRC-32 of `bytes`, computed in parallel pieces and combined (equal to the
/// sequential CRC). O(len / threads).
fn crc_of(bytes: &[u8]) -> Hasher {
    bytes
        .par_chunks(PIECE)
        .map(|piece| {
            let mut h = Hasher::new();
            h.update(piece);
            h
        })
        .reduce(Hasher::new, |mut a, b| {
            a.combine(&b);
            a
        })
}

/// Little-endian bytes of a slice of u32 (a copy on big-endian machines only).
fn u32_bytes(v: &[u32]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        std::borrow::Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}

/// The writing side: every byte goes through the running checksum.
struct Out<'a> {
    w: &'a mut dyn Write,
    crc: Hasher,
}

impl Out<'_> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()> {
        if b.len() > PIECE {
            self.crc.combine(&crc_of(b));
        } else {
            self.crc.update(b);
        }
        self.w.write_all(b)
    }
    fn len(&mut self, n: usize) -> io::Result<()> {
        self.raw(&(n as u64).to_le_bytes())
    }
    fn u8(&mut self, x: u8) -> io::Result<()> {
        self.raw(&[x])
    }
    fn u32s(&mut self, v: &[u32]) -> io::Result<()> {
        self.len(v.len())?;
        self.raw(&u32_bytes(v))
    }
    fn u64s(&mut self, v: &[u64]) -> io::Result<()> {
        self.len(v.len())?;
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.raw(&bytes)
    }
    fn str(&mut self, s: &str) -> io::Result<()> {
        self.len(s.len())?;
        self.raw(s.as_bytes())
    }
    fn opt_str(&mut self, s: Option<&str>) -> io::Result<()> {
        match s {
            Some(s) => {
                self.u8(1)?;
                self.str(s)
            }
            None => self.u8(0),
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

/// Writes `loaded` (fabric, forwarding table and, if present, the route summary, which
/// must come from checking this table) as a cache file. O(size of the fabric); the table
/// is converted and checksummed in parallel.
pub fn write_cache(out: &mut dyn Write, loaded: &LoadedFabric) -> io::Result<()> {
    let f = &loaded.fabric;
    let mut o = Out {
        w: out,
        crc: Hasher::new(),
    };
    o.raw(MAGIC)?;
    o.raw(&VERSION.to_le_bytes())?;
    o.fabric(f)?;
    o.comments(f, &loaded.table)?;
    o.table(&loaded.table)?;
    // Route summary: 0 = none, 1 = a check of every host pair of this table.
    match loaded
        .routes
        .as_ref()
        .filter(|r| r.num_hosts == f.num_hosts())
    {
        None => o.u8(0)?,
        Some(r) => {
            o.u8(1)?;
            o.len(r.num_hosts)?;
            o.raw(&r.pairs_checked.to_le_bytes())?;
            o.raw(&r.broken.to_le_bytes())?;
            o.u64s(&r.path_lengths)?;
        }
    }
    let crc = o.crc.clone().finalize();
    o.w.write_all(&crc.to_le_bytes())?;
    o.w.flush()
}

impl Out<'_> {
    /// The topology sections: names, nodes, hosts, CSR edges, keys and attributes.
    fn fabric(&mut self, f: &Fabric) -> io::Result<()> {
        self.opt_str(f.graph_id.as_deref())?;
        self.attrs(std::slice::from_ref(&f.graph_attrs))?;
        self.strs(f.node_names.iter().map(String::as_str))?;
        self.u32s(&f.node_lines)?;
        self.attrs(&f.node_attrs)?;
        self.u32s(&f.hosts)?;
        self.u32s(&f.out_start)?;
        self.u32s(&f.edge_tail)?;
        self.u32s(&f.edge_head)?;
        self.u32s(&f.edge_lines)?;
        self.len(f.edge_keys.len())?;
        for k in &f.edge_keys {
            self.opt_str(k.as_deref())?;
        }
        self.attrs(&f.edge_attrs)
    }

    /// Comments: 0 = the table's own (derived when needed), 1 = stored: kind per edge
    /// (0 absent, 1 all, 2 tokens) with token ranges, then tokens, then names.
    fn comments(&mut self, f: &Fabric, table: &ForwardingTable) -> io::Result<()> {
        let derived =
            f.edge_comments.kinds.len() != f.num_edges() || comments_match_table(f, table);
        if derived {
            return self.u8(0);
        }
        self.u8(1)?;
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
        self.u32s(&kinds)?;
        self.u32s(&c.tokens)?;
        self.strs((0..c.symbols.len() as u32).map(|i| c.symbols.name(i)))
    }

    /// Table: hosts per row, row index and uniform edge per node, entry width (1 or 2
    /// bytes), then the entries.
    fn table(&mut self, table: &ForwardingTable) -> io::Result<()> {
        let (num_hosts, rows, uniform, ports) = table.raw_parts();
        self.len(num_hosts)?;
        self.u32s(rows)?;
        self.u32s(uniform)?;
        // A table that was not compacted is stored narrow all the same when it fits.
        let narrowed = match ports {
            PortRows::Wide(wide)
                if wide.par_iter().all(|&p| p == NO_PORT || p < u8::MAX as u16) =>
            {
                Some(PortRows::Narrow(
                    wide.par_iter()
                        .map(|&p| if p == NO_PORT { u8::MAX } else { p as u8 })
                        .collect(),
                ))
            }
            _ => None,
        };
        match narrowed.as_ref().unwrap_or(ports) {
            PortRows::Narrow(bytes) => {
                self.u8(1)?;
                self.len(bytes.len())?;
                self.raw(bytes)
            }
            PortRows::Wide(ports) => {
                self.u8(2)?;
                self.len(ports.len())?;
                if cfg!(target_endian = "little") {
                    self.raw(bytemuck::cast_slice(ports))
                } else {
                    let bytes: Vec<u8> = ports.iter().flat_map(|p| p.to_le_bytes()).collect();
                    self.raw(&bytes)
                }
            }
        }
    }
}

/// The reading side: a stream with a running checksum and a byte position for errors.
/// Lengths are not trusted for allocation: small sections grow as bytes arrive, and the
/// table's size is bounded by the node and host counts read before it.
struct In<'a> {
    r: &'a mut dyn Read,
    crc: Hasher,
    pos: u64,
}

/// A damaged or foreign cache: what is wrong (byte offsets are part of the message); the
/// caller names the file.
fn damaged(message: impl Into<String>) -> LocatedError {
    LocatedError::new("", message)
}

impl In<'_> {
    /// Fills `buf` from the stream, adding it to the checksum.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), LocatedError> {
        self.r.read_exact(buf).map_err(|e| {
            damaged(match e.kind() {
                io::ErrorKind::UnexpectedEof => format!(
                    "truncated: the section at byte {} needs {} bytes",
                    self.pos,
                    buf.len()
                ),
                _ => format!("cannot read: {e}"),
            })
        })?;
        if buf.len() > PIECE {
            self.crc.combine(&crc_of(buf));
        } else {
            self.crc.update(buf);
        }
        self.pos += buf.len() as u64;
        Ok(())
    }
    /// `n` bytes, allocated as they arrive (a damaged length cannot exhaust memory).
    fn bytes(&mut self, n: u64) -> Result<Vec<u8>, LocatedError> {
        let mut buf = Vec::new();
        let mut left = n;
        while left > 0 {
            let piece = left.min(PIECE as u64) as usize;
            let start = buf.len();
            buf.resize(start + piece, 0);
            self.fill(&mut buf[start..])?;
            left -= piece as u64;
        }
        Ok(buf)
    }

    /// `n` bytes of the forwarding table, whose size the caller has bounded: allocated
    /// at once, faulted in by all threads, and read with one call.
    fn table_bytes(&mut self, n: u64) -> Result<Vec<u8>, LocatedError> {
        let mut buf = zeroed::<u8>(n)?;
        prefault(&mut buf);
        self.fill(&mut buf)?;
        Ok(buf)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], LocatedError> {
        let mut b = [0; N];
        self.fill(&mut b)?;
        Ok(b)
    }
    fn u8(&mut self) -> Result<u8, LocatedError> {
        Ok(self.array::<1>()?[0])
    }
    fn u64(&mut self) -> Result<u64, LocatedError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn len(&mut self) -> Result<usize, LocatedError> {
        let at = self.pos;
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n < 1 << 48)
            .ok_or_else(|| damaged(format!("length {n} at byte {at} is not plausible")))
    }
    fn u32s(&mut self) -> Result<Vec<u32>, LocatedError> {
        let n = self.len()?;
        let bytes = self.bytes(n as u64 * 4)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    fn u64s(&mut self) -> Result<Vec<u64>, LocatedError> {
        let n = self.len()?;
        let bytes = self.bytes(n as u64 * 8)?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }
    fn str(&mut self) -> Result<String, LocatedError> {
        let n = self.len()?;
        let at = self.pos;
        let b = self.bytes(n as u64)?;
        String::from_utf8(b)
            .map_err(|_| damaged(format!("invalid UTF-8 in the string at byte {at}")))
    }
    fn opt_str(&mut self) -> Result<Option<String>, LocatedError> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.str().map(Some),
            t => Err(self.bad_tag("option", t)),
        }
    }
    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, LocatedError>,
    ) -> Result<Vec<T>, LocatedError> {
        let n = self.len()?;
        let mut v = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            v.push(item(self)?);
        }
        Ok(v)
    }
    fn attrs(&mut self) -> Result<Vec<Vec<(String, String)>>, LocatedError> {
        self.list(|r| r.list(|r| Ok((r.str()?, r.str()?))))
    }
    /// An unknown tag `t` of a `what` section, just read.
    fn bad_tag(&self, what: &str, t: u8) -> LocatedError {
        damaged(format!("bad {what} tag {t} at byte {}", self.pos - 1))
    }
}

/// A zero-filled vector of `n` items, or an error when that much memory cannot be had
/// (instead of aborting the process on a damaged or oversized file).
fn zeroed<T: Clone + Default>(n: u64) -> Result<Vec<T>, LocatedError> {
    let n = usize::try_from(n).map_err(|_| damaged(format!("{n} items cannot be addressed")))?;
    // Reserving first turns an impossible size into an error; the zeroed allocation
    // afterwards is lazy (untouched pages cost nothing).
    let mut probe: Vec<T> = Vec::new();
    probe.try_reserve_exact(n).map_err(|_| {
        damaged(format!(
            "cannot allocate {} bytes",
            n.saturating_mul(std::mem::size_of::<T>())
        ))
    })?;
    drop(probe);
    Ok(vec![T::default(); n])
}

/// Touches every page of `buf` from all threads. Fresh memory is zeroed by the kernel
/// on first touch; left to the single reading thread that costs more than the read
/// itself on a billion-entry table.
fn prefault(buf: &mut [u8]) {
    const PAGE: usize = 4096;
    buf.par_chunks_mut(PIECE).for_each(|piece| {
        for i in (0..piece.len()).step_by(PAGE) {
            // Volatile: the compiler knows the memory is zero and would drop a plain store.
            // SAFETY: `i` is in bounds of `piece`, and u8 has no alignment requirement.
            unsafe { std::ptr::write_volatile(piece.as_mut_ptr().add(i), 0) };
        }
    });
}

/// The comments section as stored: kind triples, tokens and symbol names.
type StoredComments = (Vec<u32>, Vec<u32>, Vec<String>);

/// The forwarding table as stored: hosts per row, row index and uniform edge per node,
/// and the entries.
struct StoredTable {
    num_hosts: usize,
    row_of_node: Vec<u32>,
    uniform_edge: Vec<u32>,
    ports: PortRows,
}

/// Reads a cache file written by [`write_cache`]. Every size, index and the checksum
/// are checked; errors say what is wrong, as a [`LocatedError`] without a file name (the
/// caller names the file). O(file size), with the table read in one call and widened,
/// checksummed and validated in parallel.
pub fn read_cache(reader: &mut dyn Read) -> Result<LoadedFabric, LocatedError> {
    // Small sections are read a few bytes at a time: buffer them (large reads pass
    // straight through the buffer).
    let mut buffered = io::BufReader::with_capacity(1 << 16, reader);
    let mut r = In {
        r: &mut buffered,
        crc: Hasher::new(),
        pos: 0,
    };
    r.header()?;
    let mut fabric = r.fabric()?;
    let stored_comments = match r.u8()? {
        0 => None,
        1 => Some((r.u32s()?, r.u32s()?, r.list(In::str)?)),
        t => return Err(r.bad_tag("comment", t)),
    };
    let stored = r.table(&fabric)?;
    let routes = r.routes()?;
    r.trailer()?;

    // Structural checks: everything the engine indexes must be in range.
    fabric.host_of_node = check_structure(&fabric)?;
    if let Some(stored) = stored_comments {
        fabric.edge_comments = comments(stored, fabric.num_edges())?;
    }
    if let Some(summary) = &routes {
        let longest_possible = fabric.num_nodes().saturating_sub(1);
        if summary.num_hosts != fabric.num_hosts() || summary.max_route_len() > longest_possible {
            return Err(damaged("the stored route check does not fit the fabric"));
        }
    }
    let table = ForwardingTable::from_raw_parts(
        &fabric,
        stored.num_hosts,
        stored.row_of_node,
        stored.uniform_edge,
        stored.ports,
    )
    .map_err(|e| damaged(e.to_string()))?;
    Ok(LoadedFabric {
        fabric,
        table,
        warnings: Vec::new(),
        routes,
    })
}

impl In<'_> {
    /// The magic bytes and the format version.
    fn header(&mut self) -> Result<(), LocatedError> {
        const FOREIGN: &str = "not an orcs fabric cache (no ORCSFAB header)";
        let magic: [u8; 8] = self.array().map_err(|_| damaged(FOREIGN))?;
        if !is_cache(&magic) {
            return Err(damaged(FOREIGN));
        }
        let version = u32::from_le_bytes(self.array()?);
        if version != VERSION {
            return Err(damaged(format!(
                "cache format version {version}, but this orcs reads version {VERSION}; convert the fabric again"
            )));
        }
        Ok(())
    }

    /// The topology sections, as [`Out::fabric`] writes them (not yet checked; no host
    /// index and no comments).
    fn fabric(&mut self) -> Result<Fabric, LocatedError> {
        Ok(Fabric {
            graph_id: self.opt_str()?,
            graph_attrs: self.attrs()?.into_iter().next().unwrap_or_default(),
            node_names: self.list(In::str)?,
            node_lines: self.u32s()?,
            node_attrs: self.attrs()?,
            hosts: self.u32s()?,
            host_of_node: Vec::new(),
            out_start: self.u32s()?,
            edge_tail: self.u32s()?,
            edge_head: self.u32s()?,
            edge_lines: self.u32s()?,
            edge_keys: self.list(In::opt_str)?,
            edge_attrs: self.attrs()?,
            edge_comments: EdgeComments::default(),
        })
    }

    /// The forwarding table, its size bounded by `fabric`'s nodes and hosts before it is
    /// allocated.
    fn table(&mut self, fabric: &Fabric) -> Result<StoredTable, LocatedError> {
        let num_hosts = self.len()?;
        let row_of_node = self.u32s()?;
        let uniform_edge = self.u32s()?;
        let width = self.u8()?;
        let at = self.pos;
        let entries = self.len()?;
        // A valid table has at most one row per node: bound the allocation by that.
        let (hosts, nodes) = (fabric.num_hosts(), fabric.num_nodes());
        if num_hosts != hosts
            || entries % num_hosts.max(1) != 0
            || entries / num_hosts.max(1) > nodes
        {
            return Err(damaged(format!(
                "the forwarding table at byte {at} ({entries} entries) does not fit {hosts} hosts and {nodes} nodes"
            )));
        }
        let ports = match width {
            1 => PortRows::Narrow(self.table_bytes(entries as u64)?),
            2 => {
                let mut ports = zeroed::<u16>(entries as u64)?;
                prefault(bytemuck::cast_slice_mut(&mut ports));
                self.fill(bytemuck::cast_slice_mut(&mut ports))?;
                if cfg!(target_endian = "big") {
                    ports.par_iter_mut().for_each(|p| *p = u16::from_le(*p));
                }
                PortRows::Wide(ports)
            }
            w => {
                return Err(damaged(format!(
                    "bad table entry width {w} at byte {}",
                    at - 1
                )))
            }
        };
        Ok(StoredTable {
            num_hosts,
            row_of_node,
            uniform_edge,
            ports,
        })
    }

    /// The route summary: 0 = none, 1 = a check of every host pair of the table.
    fn routes(&mut self) -> Result<Option<RouteSummary>, LocatedError> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(RouteSummary {
                num_hosts: self.len()?,
                pairs_checked: self.u64()?,
                broken: self.u64()?,
                path_lengths: self.u64s()?,
            })),
            t => Err(self.bad_tag("route summary", t)),
        }
    }

    /// The checksum of everything before it, and nothing after it.
    fn trailer(&mut self) -> Result<(), LocatedError> {
        let computed = self.crc.clone().finalize();
        let mut stored = [0u8; 4];
        self.r.read_exact(&mut stored).map_err(|_| {
            damaged(format!(
                "truncated: the checksum at byte {} is missing",
                self.pos
            ))
        })?;
        if u32::from_le_bytes(stored) != computed {
            return Err(damaged(format!(
                "checksum mismatch (stored {:08x}, computed {computed:08x}): the file is damaged",
                u32::from_le_bytes(stored)
            )));
        }
        let mut extra = [0u8; 1];
        if self
            .r
            .read(&mut extra)
            .map_err(|e| damaged(format!("cannot read: {e}")))?
            != 0
        {
            return Err(damaged(format!(
                "unexpected bytes after the checksum at byte {}",
                self.pos + 4
            )));
        }
        Ok(())
    }
}

/// Checks that every array the engine indexes has its size and stays in range; returns
/// node → host index.
fn check_structure(f: &Fabric) -> Result<Vec<u32>, LocatedError> {
    let (nodes, edges) = (f.node_names.len(), f.edge_head.len());
    let sizes_ok = f.node_lines.len() == nodes
        && f.node_attrs.len() == nodes
        && f.out_start.len() == nodes + 1
        && f.edge_tail.len() == edges
        && f.edge_lines.len() == edges
        && f.edge_keys.len() == edges
        && f.edge_attrs.len() == edges;
    if !sizes_ok {
        return Err(damaged("section sizes do not agree"));
    }
    let out_start = &f.out_start;
    if out_start[0] != 0
        || out_start.windows(2).any(|w| w[0] > w[1])
        || out_start[nodes] as usize != edges
    {
        return Err(damaged("edge offsets are not a valid CSR index"));
    }
    for v in 0..nodes {
        for e in out_start[v]..out_start[v + 1] {
            if f.edge_tail[e as usize] as usize != v || f.edge_head[e as usize] as usize >= nodes {
                return Err(damaged(format!("edge {e} does not match its node")));
            }
        }
    }
    let mut host_of_node = vec![NONE; nodes];
    for (h, &v) in f.hosts.iter().enumerate() {
        match host_of_node.get_mut(v as usize) {
            Some(slot) if *slot == NONE => *slot = h as u32,
            _ => {
                return Err(damaged(format!(
                    "host {h} names node {v}, which is invalid or taken"
                )))
            }
        }
    }
    Ok(host_of_node)
}

/// The stored comments of `edges` edges, checked.
fn comments(
    (kinds_raw, tokens, symbol_names): StoredComments,
    edges: usize,
) -> Result<EdgeComments, LocatedError> {
    if kinds_raw.len() != edges * 3 {
        return Err(damaged("section sizes do not agree"));
    }
    let mut symbols = SymbolTable::new();
    for name in &symbol_names {
        symbols.intern(name);
    }
    if symbols.len() != symbol_names.len() {
        return Err(damaged("comment names repeat"));
    }
    if tokens.iter().any(|&t| t as usize >= symbol_names.len()) {
        return Err(damaged("a comment token names no symbol"));
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
            _ => Err(damaged("bad comment entry")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(EdgeComments {
        kinds,
        tokens,
        symbols,
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

    fn cache_of(text: &str, summary: bool) -> (LoadedFabric, Vec<u8>) {
        let mut loaded =
            load_routed_fabric_from(text.as_bytes(), "t", LoadOptions::default()).unwrap();
        if summary {
            let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
            loaded.routes = Some(RouteSummary::of(&check_routes(
                &loaded.fabric,
                &loaded.table,
                &hosts,
            )));
        }
        let mut bytes = Vec::new();
        write_cache(&mut bytes, &loaded).unwrap();
        (loaded, bytes)
    }

    fn cache_bytes() -> (LoadedFabric, Vec<u8>) {
        cache_of(FABRIC, true)
    }

    /// Recomputes the trailing checksum, so that damage reaches the structural checks.
    fn reseal(bytes: &mut Vec<u8>) {
        if bytes.len() >= 4 {
            bytes.truncate(bytes.len() - 4);
        }
        let crc = crc32fast::hash(bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
    }

    /// Asserts that `a` and `b` describe the same fabric, comments and table.
    fn assert_same(a: &LoadedFabric, b: &LoadedFabric) {
        let (fa, fb) = (&a.fabric, &b.fabric);
        assert_eq!(fa.node_names, fb.node_names);
        assert_eq!(fa.edge_head, fb.edge_head);
        assert_eq!(fa.edge_keys, fb.edge_keys);
        assert_eq!(fa.edge_attrs, fb.edge_attrs);
        for e in 0..fa.num_edges() as u32 {
            assert_eq!(
                fa.edge_comments.text(e),
                fb.edge_comments.text(e),
                "edge {e}"
            );
        }
        for v in 0..fa.num_nodes() as u32 {
            for h in 0..fa.num_hosts() as u32 {
                assert_eq!(a.table.next_edge(fa, v, h), b.table.next_edge(fb, v, h));
            }
        }
    }

    #[test]
    fn comments_of_the_table_are_derived_not_stored() {
        let (loaded, bytes) = cache_bytes();
        let mut back = read_cache(&mut bytes.as_slice()).unwrap();
        assert!(back.fabric.edge_comments.kinds.is_empty());
        back.fill_comments();
        assert_same(&loaded, &back);
        assert_eq!(back.routes, loaded.routes);
        assert_eq!(back.routes.as_ref().unwrap().pairs_checked, 12);
    }

    #[test]
    fn other_comments_are_stored_verbatim() {
        // Hosts out of host order, and a name that is not a host: kept as written.
        let text = FABRIC
            .replace("comment=\"H2, H3\"", "comment=\"H3, H2\"")
            .replace("comment=H0]", "comment=\"H0, X9\"]");
        let (loaded, bytes) = cache_of(&text, false);
        let back = read_cache(&mut bytes.as_slice()).unwrap();
        assert_eq!(
            back.fabric.edge_comments.kinds.len(),
            back.fabric.num_edges()
        );
        assert_same(&loaded, &back);
        assert_eq!(back.routes, None);
    }

    #[test]
    fn wide_ports_round_trip() {
        // 300 hosts on one switch: local port numbers above 255 need two bytes.
        let mut text = String::from("digraph w { S0; ");
        for h in 0..300 {
            text.push_str(&format!(
                "H{h} -> S0 [comment=\"*\"]; S0 -> H{h} [comment=H{h}]; "
            ));
        }
        text.push('}');
        let (loaded, bytes) = cache_of(&text, true);
        let mut back = read_cache(&mut bytes.as_slice()).unwrap();
        back.fill_comments();
        assert_same(&loaded, &back);
        // The narrow layout of the two-switch fabric is one byte per entry.
        let (small, small_bytes) = cache_bytes();
        assert!(small_bytes.len() < bytes.len());
        assert!(read_cache(&mut small_bytes.as_slice()).is_ok(), "{small:?}");
    }

    #[test]
    fn damage_is_caught_by_the_checksum() {
        let (_, mut bytes) = cache_bytes();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x10;
        let err = read_cache(&mut bytes.as_slice()).err().unwrap();
        assert!(err.message.contains("checksum mismatch"), "{err}");
        let (_, mut bytes) = cache_bytes();
        bytes.push(0);
        let err = read_cache(&mut bytes.as_slice()).err().unwrap();
        assert!(err.message.contains("after the checksum"), "{err}");
        let (_, mut bytes) = cache_bytes();
        bytes.truncate(bytes.len() - 2);
        let err = read_cache(&mut bytes.as_slice()).err().unwrap();
        assert!(err.message.contains("truncated"), "{err}");
    }

    #[test]
    fn round_trip_keeps_everything() {
        let (loaded, bytes) = cache_bytes();
        let mut back = read_cache(&mut bytes.as_slice()).unwrap();
        back.fill_comments();
        assert_same(&loaded, &back);
        assert_eq!(back.fabric.graph_id, loaded.fabric.graph_id);
        assert_eq!(back.fabric.node_attrs, loaded.fabric.node_attrs);
        assert_eq!(back.fabric.edge_lines, loaded.fabric.edge_lines);
    }

    #[test]
    fn wrong_version_and_magic_are_named() {
        let (_, mut bytes) = cache_bytes();
        bytes[8] = 9;
        let err = read_cache(&mut bytes.as_slice()).err().unwrap();
        assert!(err.message.contains("version 9"), "{err}");
        let err = read_cache(&mut &b"digraph {}"[..]).err().unwrap();
        assert!(err.message.contains("not an orcs fabric cache"), "{err}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Damaged caches load as errors or as fabrics the route checker handles.
        #[test]
        fn damaged_caches_never_panic(
            cut in 0usize..2000,
            flips in proptest::collection::vec((0usize..2000, any::<u8>()), 0..4),
            resealed in any::<bool>(),
        ) {
            let (_, mut bytes) = cache_bytes();
            for (at, value) in flips {
                let at = at % bytes.len();
                bytes[at] = value;
            }
            bytes.truncate(cut.min(bytes.len()));
            if resealed {
                reseal(&mut bytes);
            }
            if let Ok(loaded) = read_cache(&mut bytes.as_slice()) {
                let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
                let _ = check_routes(&loaded.fabric, &loaded.table, &hosts);
            }
        }
    }
}
