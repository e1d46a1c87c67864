//! The binary fabric cache (`.orcsfab`): a routed fabric saved as little-endian arrays,
//! so that large fabrics load without re-parsing text or re-checking routes.
//!
//! Layout (format version 3): the magic `ORCSFAB\n`, a u32 format version, then the
//! sections in a fixed order: names, host list, CSR edges, keys and attributes, routing
//! comments, forwarding table, route summary; then the seal, a 32-byte keyed BLAKE3 hash
//! of every byte before it; then a CRC-32 of every byte before the CRC. Arrays are a u64
//! length followed by their elements. Caches of older versions are refused with the
//! command that makes them again (`orcs convert` or `orcs gen` with `-o FILE.orcsfab`;
//! a scan rebuilds its own caches).
//!
//! Three choices keep a 100k-host fabric (a billion table entries) loadable in a fraction
//! of a second:
//! * comments that are just the table's own (`*` on host uplinks, the routed hosts in host
//!   order on every other edge) are not stored: they would be twice the table's size, and
//!   only writers need them
//!   ([`fill_comments`](super::LoadedFabric::fill_comments) rebuilds them);
//! * the table is stored with one byte per entry when every switch has fewer than 255
//!   ports (as [`ForwardingTable::compact`](crate::routing::ForwardingTable) keeps it in
//!   memory), read with one system call into memory faulted in by all threads, and
//!   hashed and validated in parallel;
//! * the result of the all-pairs route check is stored
//!   ([`RouteSummary`](crate::routing::RouteSummary)), so loading does not repeat an
//!   O(hosts²) walk.
//!
//! # What a loaded cache is trusted with
//!
//! A cache is an input like any other: it may have been edited, and the CRC recomputed
//! after the edit. The CRC only tells accidental damage apart. So loading validates the
//! structure whatever the CRC says: every count against the others, every node, host and
//! edge id in range, the CSR offsets non-decreasing and ending at the edge count, the host
//! list in node order and equal to the nodes named as hosts, every node's table row
//! present and every entry of it "no route" or a port of that node. A violation is an error naming the
//! byte offset of the bad element and what was expected. A fabric that passes can be
//! route-checked, walked by the checker and written without any index going astray.
//!
//! The route summary is what lets a simulation skip the route check, and a walk over a
//! table with a loop or a dead end would never end or would index past the edges. It is
//! therefore believed only when the seal matches: a keyed hash of the whole content
//! (fabric, table and summary) under a key derived from the format, which a CRC
//! recomputation does not reproduce. When the seal does not match, the summary is dropped
//! with a warning and every consumer checks the routes it uses, exactly as for a dot file.
//! Dropping rather than refusing: the rest of the file has passed every structural
//! check, so the fabric is as usable as a text input, and someone who patched a table on
//! purpose gets their run (with the check the cache would have saved) instead of an
//! error. The key is public (it is in this source), so the seal guards against edits and
//! repairs, not against someone who forges it on purpose; the structural checks hold
//! either way.

mod read;
mod validate;
mod write;

#[cfg(test)]
mod tests;

pub use read::read_cache;
pub use write::write_cache;

use rayon::prelude::*;

/// The first bytes of every cache file.
pub(crate) const MAGIC: &[u8; 8] = b"ORCSFAB\n";
/// The layout version this build reads and writes.
pub(crate) const VERSION: u32 = 3;

/// Arrays larger than this are checksummed in parallel pieces of this size.
const PIECE: usize = 8 << 20;

/// Length of the seal (a BLAKE3 hash).
const SEAL_LEN: usize = 32;

/// True if `head` (the first bytes of a file) starts like a fabric cache.
pub(crate) fn is_cache(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// The key of the seal: derived from the format (magic and version), so that a cache of
/// another format never matches and the key changes with the layout.
fn seal_key() -> [u8; 32] {
    let mut material = MAGIC.to_vec();
    material.extend_from_slice(&VERSION.to_le_bytes());
    blake3::derive_key(
        "orcs fabric cache: seal of the stored route check",
        &material,
    )
}

/// The CRC-32 of `bytes`, computed in parallel pieces and combined (equal to the
/// sequential CRC). O(len / threads).
fn crc_of(bytes: &[u8]) -> crc32fast::Hasher {
    bytes
        .par_chunks(PIECE)
        .map(|piece| {
            let mut h = crc32fast::Hasher::new();
            h.update(piece);
            h
        })
        .reduce(crc32fast::Hasher::new, |mut a, b| {
            a.combine(&b);
            a
        })
}

/// The running checksum and seal of the bytes written or read so far.
#[derive(Clone)]
struct Digest {
    crc: crc32fast::Hasher,
    seal: blake3::Hasher,
}

impl Digest {
    fn new() -> Self {
        Digest {
            crc: crc32fast::Hasher::new(),
            seal: blake3::Hasher::new_keyed(&seal_key()),
        }
    }

    /// Adds `bytes` to both; large arrays (the table) are hashed by all threads.
    fn update(&mut self, bytes: &[u8]) {
        if bytes.len() > PIECE {
            self.crc.combine(&crc_of(bytes));
            self.seal.update_rayon(bytes);
        } else {
            self.crc.update(bytes);
            self.seal.update(bytes);
        }
    }

    /// The seal of the bytes so far.
    fn seal(&self) -> [u8; SEAL_LEN] {
        *self.seal.finalize().as_bytes()
    }
}
