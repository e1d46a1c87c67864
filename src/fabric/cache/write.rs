//! Writing a cache: every section in the order of the layout (see [`super`]), each byte
//! through the running checksum and seal.

use super::{Digest, MAGIC, VERSION};
use crate::fabric::dot::Comment;
use crate::fabric::{Fabric, LoadedFabric};
use crate::routing::{comments_match_table, ForwardingTable, PortRows, NO_PORT};
use rayon::prelude::*;
use std::io::{self, Write};

/// Little-endian bytes of a slice of u32 (a copy on big-endian machines only).
fn u32_bytes(v: &[u32]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        std::borrow::Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}

/// The writing side: every byte goes through the running checksum and seal.
struct Out<'a> {
    w: &'a mut dyn Write,
    digest: Digest,
}

impl Out<'_> {
    fn raw(&mut self, b: &[u8]) -> io::Result<()> {
        self.digest.update(b);
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
/// must come from checking this table) as a cache file, sealed so that the summary is
/// believed only with this content. O(size of the fabric); the table is converted,
/// checksummed and hashed in parallel.
pub fn write_cache(out: &mut dyn Write, loaded: &LoadedFabric) -> io::Result<()> {
    let f = &loaded.fabric;
    let mut o = Out {
        w: out,
        digest: Digest::new(),
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
    let seal = o.digest.seal();
    o.raw(&seal)?;
    let crc = o.digest.crc.clone().finalize();
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
