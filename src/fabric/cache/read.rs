//! Reading a cache: the sections as stored, each with the byte offset it starts at, the
//! seal compared and the checksum checked; [`super::validate`] then checks what they say.
//!
//! Lengths are not trusted for allocation: small sections grow as bytes arrive, and the
//! table's size is bounded by the node and host counts read before it.

use super::{validate, Digest, MAGIC, PIECE, SEAL_LEN, VERSION};
use crate::error::LocatedError;
use crate::fabric::LoadedFabric;
use crate::routing::{PortRows, RouteSummary};
use rayon::prelude::*;
use std::io::{self, Read};

/// A section as read: its items and the byte offset of its u64 length.
pub(super) struct Section<T> {
    /// Offset of the section's length; the items follow it.
    pub(super) at: u64,
    /// The items.
    pub(super) items: Vec<T>,
}

impl Section<u32> {
    /// Offset of item `i`.
    pub(super) fn item_at(&self, i: usize) -> u64 {
        self.at + 8 + 4 * i as u64
    }
}

/// The comments section as stored: kind triples, tokens and symbol names.
pub(super) struct StoredComments {
    pub(super) kinds: Section<u32>,
    pub(super) tokens: Section<u32>,
    pub(super) symbols: Section<String>,
}

/// The forwarding table as stored.
pub(super) struct StoredTable {
    /// Offset of the hosts-per-row count.
    pub(super) hosts_at: u64,
    /// Hosts per row.
    pub(super) num_hosts: usize,
    /// Per node: its row, or none.
    pub(super) row_of_node: Section<u32>,
    /// Per node: the edge of every destination when it has no row.
    pub(super) uniform_edge: Section<u32>,
    /// Offset of the first entry.
    pub(super) entries_at: u64,
    /// The entries.
    pub(super) ports: PortRows,
}

impl StoredTable {
    /// Offset of entry `i`.
    pub(super) fn entry_at(&self, i: usize) -> u64 {
        let width = match self.ports {
            PortRows::Narrow(_) => 1,
            PortRows::Wide(_) => 2,
        };
        self.entries_at + width * i as u64
    }
}

/// The route summary as stored, with the offset of its first field.
pub(super) struct StoredRoutes {
    pub(super) at: u64,
    pub(super) summary: RouteSummary,
}

/// Every section of a cache file, not yet checked against each other.
pub(super) struct Stored {
    pub(super) graph_id: Option<String>,
    pub(super) graph_attrs: Vec<(String, String)>,
    pub(super) node_names: Section<String>,
    pub(super) node_lines: Section<u32>,
    pub(super) node_attrs: Section<Vec<(String, String)>>,
    pub(super) hosts: Section<u32>,
    pub(super) out_start: Section<u32>,
    pub(super) edge_tail: Section<u32>,
    pub(super) edge_head: Section<u32>,
    pub(super) edge_lines: Section<u32>,
    pub(super) edge_keys: Section<Option<String>>,
    pub(super) edge_attrs: Section<Vec<(String, String)>>,
    /// None: the comments are the table's own.
    pub(super) comments: Option<StoredComments>,
    pub(super) table: StoredTable,
    pub(super) routes: Option<StoredRoutes>,
    /// Whether the seal matches the content: only then is the route summary believed.
    pub(super) sealed: bool,
}

/// Reads a cache file written by [`write_cache`](super::write_cache), named `path` in
/// errors. Every size, id and table entry is checked whatever the checksum says, and the
/// route summary is kept only when the seal proves it belongs to this content (see the
/// module documentation); errors name the byte offset of what is wrong. O(file size),
/// with the table read in one call and widened, checksummed, hashed and validated in
/// parallel.
pub fn read_cache(reader: &mut dyn Read, path: &str) -> Result<LoadedFabric, LocatedError> {
    // Small sections are read a few bytes at a time: buffer them (large reads pass
    // straight through the buffer).
    let mut buffered = io::BufReader::with_capacity(1 << 16, reader);
    let mut r = In {
        r: &mut buffered,
        digest: Digest::new(),
        pos: 0,
        path,
    };
    r.header()?;
    let stored = r.sections()?;
    r.trailer()?;
    validate::validate(stored, path)
}

/// The reading side: a stream with a running checksum and seal, and a byte position for
/// errors.
pub(super) struct In<'a> {
    r: &'a mut dyn Read,
    digest: Digest,
    pos: u64,
    path: &'a str,
}

impl In<'_> {
    /// The error at byte `at`.
    fn error(&self, at: u64, message: impl Into<String>) -> LocatedError {
        LocatedError::at_byte(self.path, at, message)
    }

    /// Fills `buf` from the stream, adding it to the checksum and seal.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), LocatedError> {
        self.r.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => self.error(
                self.pos,
                format!(
                    "truncated: the file ends inside a section that needs {} more bytes",
                    buf.len()
                ),
            ),
            _ => LocatedError::new(self.path, format!("cannot read: {e}")),
        })?;
        self.digest.update(buf);
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
            .ok_or_else(|| self.error(at, format!("length {n} is not plausible")))
    }
    fn u32s(&mut self) -> Result<Section<u32>, LocatedError> {
        let at = self.pos;
        let n = self.len()?;
        let bytes = self.bytes(n as u64 * 4)?;
        let items = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Section { at, items })
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
        String::from_utf8(b).map_err(|_| self.error(at, "invalid UTF-8 in a string"))
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
    ) -> Result<Section<T>, LocatedError> {
        let at = self.pos;
        let n = self.len()?;
        let mut items = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            items.push(item(self)?);
        }
        Ok(Section { at, items })
    }
    fn attrs(&mut self) -> Result<Section<Vec<(String, String)>>, LocatedError> {
        self.list(|r| Ok(r.list(|r| Ok((r.str()?, r.str()?)))?.items))
    }
    /// An unknown tag `t` of a `what` section, just read.
    fn bad_tag(&self, what: &str, t: u8) -> LocatedError {
        self.error(self.pos - 1, format!("bad {what} tag {t}"))
    }
}

/// A zero-filled vector of `n` items, or None when that much memory cannot be had
/// (instead of aborting the process on a damaged or oversized file).
fn zeroed<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
    // Reserving first turns an impossible size into an error; the zeroed allocation
    // afterwards is lazy (untouched pages cost nothing).
    let mut probe: Vec<T> = Vec::new();
    probe.try_reserve_exact(n).ok()?;
    drop(probe);
    Some(vec![T::default(); n])
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

impl In<'_> {
    /// The magic bytes and the format version.
    fn header(&mut self) -> Result<(), LocatedError> {
        const FOREIGN: &str = "not an orcs fabric cache (no ORCSFAB header)";
        let magic: [u8; 8] = self.array().map_err(|_| self.error(0, FOREIGN))?;
        if &magic != MAGIC {
            return Err(self.error(0, FOREIGN));
        }
        let version = u32::from_le_bytes(self.array()?);
        if version != VERSION {
            let age = if version < VERSION {
                "an older"
            } else {
                "a newer"
            };
            return Err(self.error(
                8,
                format!(
                    "cache format version {version} is {age} format than this orcs reads (version {VERSION}); make the cache again from its source with `orcs convert -i SOURCE -o {0}` (or `orcs gen SPEC -o {0}` for a generated fabric)",
                    if self.path.is_empty() { "FILE.orcsfab" } else { self.path }
                ),
            ));
        }
        Ok(())
    }

    /// Every section after the header, and whether the seal matches them.
    fn sections(&mut self) -> Result<Stored, LocatedError> {
        let graph_id = self.opt_str()?;
        let graph_attrs = self.attrs()?.items.into_iter().next().unwrap_or_default();
        let node_names = self.list(In::str)?;
        let node_lines = self.u32s()?;
        let node_attrs = self.attrs()?;
        let hosts = self.u32s()?;
        let out_start = self.u32s()?;
        let edge_tail = self.u32s()?;
        let edge_head = self.u32s()?;
        let edge_lines = self.u32s()?;
        let edge_keys = self.list(In::opt_str)?;
        let edge_attrs = self.attrs()?;
        let comments = match self.u8()? {
            0 => None,
            1 => Some(StoredComments {
                kinds: self.u32s()?,
                tokens: self.u32s()?,
                symbols: self.list(In::str)?,
            }),
            t => return Err(self.bad_tag("comment", t)),
        };
        let table = self.table(hosts.items.len(), node_names.items.len())?;
        let routes = self.routes()?;
        let expected = self.digest.seal();
        let sealed = self.array::<SEAL_LEN>()? == expected;
        Ok(Stored {
            graph_id,
            graph_attrs,
            node_names,
            node_lines,
            node_attrs,
            hosts,
            out_start,
            edge_tail,
            edge_head,
            edge_lines,
            edge_keys,
            edge_attrs,
            comments,
            table,
            routes,
            sealed,
        })
    }

    /// The forwarding table, its size bounded by the fabric's `hosts` and `nodes` before
    /// it is allocated: a valid table has at most one row of `hosts` entries per node.
    fn table(&mut self, hosts: usize, nodes: usize) -> Result<StoredTable, LocatedError> {
        let hosts_at = self.pos;
        let num_hosts = self.len()?;
        if num_hosts != hosts {
            return Err(self.error(
                hosts_at,
                format!("the forwarding table has rows of {num_hosts} hosts; expected one entry per host ({hosts})"),
            ));
        }
        let row_of_node = self.u32s()?;
        let uniform_edge = self.u32s()?;
        let width = self.u8()?;
        let entries_count_at = self.pos;
        let entries = self.len()?;
        let whole_rows = if hosts == 0 {
            entries == 0
        } else {
            entries % hosts == 0 && entries / hosts <= nodes
        };
        if !whole_rows {
            return Err(self.error(
                entries_count_at,
                format!("the forwarding table has {entries} entries; expected whole rows of {hosts} entries (one per host), at most one row per node ({nodes})"),
            ));
        }
        let entries_at = self.pos;
        let too_big = || {
            LocatedError::at_byte(
                self.path,
                entries_count_at,
                format!("cannot allocate the {entries} entries of the forwarding table"),
            )
        };
        let ports = match width {
            1 => {
                let mut buf = zeroed::<u8>(entries).ok_or_else(too_big)?;
                prefault(&mut buf);
                self.fill(&mut buf)?;
                PortRows::Narrow(buf)
            }
            2 => {
                let mut ports = zeroed::<u16>(entries).ok_or_else(too_big)?;
                prefault(bytemuck::cast_slice_mut(&mut ports));
                self.fill(bytemuck::cast_slice_mut(&mut ports))?;
                if cfg!(target_endian = "big") {
                    ports.par_iter_mut().for_each(|p| *p = u16::from_le(*p));
                }
                PortRows::Wide(ports)
            }
            w => {
                return Err(self.error(
                    entries_count_at - 1,
                    format!("bad table entry width {w}; expected 1 or 2 bytes"),
                ))
            }
        };
        Ok(StoredTable {
            hosts_at,
            num_hosts,
            row_of_node,
            uniform_edge,
            entries_at,
            ports,
        })
    }

    /// The route summary: 0 = none, 1 = a check of every host pair of the table.
    fn routes(&mut self) -> Result<Option<StoredRoutes>, LocatedError> {
        match self.u8()? {
            0 => Ok(None),
            1 => {
                let at = self.pos;
                let summary = RouteSummary {
                    num_hosts: self.len()?,
                    pairs_checked: self.u64()?,
                    broken: self.u64()?,
                    path_lengths: self.u64s()?,
                };
                Ok(Some(StoredRoutes { at, summary }))
            }
            t => Err(self.bad_tag("route summary", t)),
        }
    }

    /// The checksum of everything before it, and nothing after it.
    fn trailer(&mut self) -> Result<(), LocatedError> {
        let computed = self.digest.crc.clone().finalize();
        let mut stored = [0u8; 4];
        self.r.read_exact(&mut stored).map_err(|_| {
            self.error(
                self.pos,
                "truncated: the checksum at the end of the file is missing",
            )
        })?;
        let stored = u32::from_le_bytes(stored);
        if stored != computed {
            return Err(self.error(
                self.pos,
                format!("checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is damaged"),
            ));
        }
        let mut extra = [0u8; 1];
        let more = self
            .r
            .read(&mut extra)
            .map_err(|e| LocatedError::new(self.path, format!("cannot read: {e}")))?;
        if more != 0 {
            return Err(self.error(
                self.pos + 4,
                "unexpected bytes after the checksum (the end of the cache)",
            ));
        }
        Ok(())
    }
}

/// The sections of a valid cache in `bytes`, for tests that edit one element and need
/// its offset.
#[cfg(test)]
pub(super) fn sections_of(mut bytes: &[u8]) -> Stored {
    let mut r = In {
        r: &mut bytes,
        digest: Digest::new(),
        pos: 0,
        path: "t.orcsfab",
    };
    r.header().expect("a cache");
    r.sections().expect("a cache")
}
