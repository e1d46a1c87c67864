//! The interner of the dot reader: node names and comment tokens as dense `u32` symbols,
//! so that a host named in a comment and the host node share one id.

use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// An interner mapping strings to dense `u32` ids (`0, 1, 2, …` in order of first use).
///
/// Names of up to [`SHORT`] bytes, which is nearly every host and switch name, are
/// looked up by their bytes and length packed into one `u128`: hashing it is one
/// multiplication and comparing it one integer comparison. Interning comment tokens was
/// half of the time to parse a routed fat tree, most of it hashing and `memcmp` of short
/// strings (`perf record`, `cargo bench --bench engine -- parse/dot`).
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    /// Names of up to [`SHORT`] bytes, by [`pack`].
    short: HashMap<u128, u32, BuildHasherDefault<PackedHasher>>,
    /// Longer names.
    long: FxHashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

/// The hash of a [`pack`]ed name: its two halves multiplied into 128 bits, folded, so
/// that every bit of the name reaches the low bits the hash table indexes by.
#[derive(Default, Clone, Copy)]
struct PackedHasher(u64);

impl Hasher for PackedHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Only `u128` keys are hashed here; any other input still hashes well.
        for chunk in bytes.chunks(16) {
            let mut word = [0u8; 16];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u128(u128::from_le_bytes(word) ^ u128::from(self.0));
        }
    }

    #[inline]
    fn write_u128(&mut self, v: u128) {
        // The high half holds the length (at most 15) in its top byte, so it never
        // equals the second constant (top byte 0x13) and the product is never 0.
        let (lo, hi) = (v as u64, (v >> 64) as u64);
        let product =
            u128::from(lo ^ 0x243f_6a88_85a3_08d3) * u128::from(hi ^ 0x1319_8a2e_0370_7344);
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The longest name kept in [`SymbolTable::short`]: the sixteenth byte holds the length.
const SHORT: usize = 15;

/// `s`'s bytes and its length in one integer, if it has at most [`SHORT`] bytes: two
/// different strings never pack to the same value (the length tells trailing zero bytes
/// from padding).
///
/// The bytes are read with a few overlapping unaligned loads straight from `s`: copying
/// them into a zeroed array and loading that back stalled every lookup on store
/// forwarding (a quarter of the parse of a fat tree on an AMD EPYC, `perf annotate`).
#[inline]
fn pack(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    let len = b.len();
    if len > SHORT {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            b[at..at + 4].try_into().expect("4 bytes"),
        ))
    };
    let (lo, hi) = match len {
        0 => (0, 0),
        1..=3 => {
            let (mid, last) = (len / 2, len - 1);
            let lo =
                u64::from(b[0]) | u64::from(b[mid]) << (8 * mid) | u64::from(b[last]) << (8 * last);
            (lo, 0)
        }
        // The two loads overlap where len < 8; the overlapping bytes are the same.
        4..=7 => (half(0) | half(len - 4) << (8 * (len - 4)), 0),
        8 => (word(0), 0),
        // The last eight bytes, shifted so that bytes 8.. of `s` start at the bottom.
        _ => (word(0), word(len - 8) >> (8 * (16 - len))),
    };
    Some(u128::from(lo) | u128::from(hi | (len as u64) << 56) << 64)
}

/// [`pack`] of the name held in the first `len` bytes of `window` (`len` at most
/// [`SHORT`]): the name and the bytes after it read with one load, and masked.
#[inline]
pub(super) fn pack_window(window: &[u8; 16], len: usize) -> u128 {
    debug_assert!(len <= SHORT);
    // A mask from a table, not a variable 128-bit shift (a dozen instructions, and this
    // runs once per comment token).
    const LOW_BYTES: [u128; 16] = {
        let mut masks = [0; 16];
        let mut k = 0;
        while k < 16 {
            masks[k] = (1 << (8 * k)) - 1;
            k += 1;
        }
        masks
    };
    let bytes = u128::from_le_bytes(*window) & LOW_BYTES[len & SHORT];
    bytes | (len as u128) << 120
}

impl SymbolTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it if it is new. Allocates only when `s` is new.
    ///
    /// # Panics
    /// If the table would hold more than `u32::MAX` symbols.
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        match self.try_intern(s) {
            Some(id) => id,
            None => panic!("symbol table overflow: more than u32::MAX symbols"),
        }
    }

    /// Like [`SymbolTable::intern`], but `None` instead of a panic on overflow.
    pub(super) fn try_intern(&mut self, s: &str) -> Option<u32> {
        let packed = pack(s);
        let known = match packed {
            Some(key) => self.short.get(&key),
            None => self.long.get(s),
        };
        if let Some(&id) = known {
            return Some(id);
        }
        let id = u32::try_from(self.names.len())
            .ok()
            .filter(|&id| id != u32::MAX)?;
        let name: Box<str> = s.into();
        match packed {
            Some(key) => {
                self.short.insert(key, id);
            }
            None => {
                self.long.insert(name.clone(), id);
            }
        }
        self.names.push(name);
        Some(id)
    }

    /// The id of a name packed by [`pack_window`] as `key`, if it has been interned.
    #[inline]
    pub(super) fn get_packed(&self, key: u128) -> Option<u32> {
        self.short.get(&key).copied()
    }

    /// The id of `s`, if it has been interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        match pack(s) {
            Some(key) => self.short.get(&key),
            None => self.long.get(s),
        }
        .copied()
    }

    /// The string with id `id`.
    ///
    /// # Panics
    /// If `id` was not returned by this table.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Number of distinct symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True if no symbol has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_short_and_long_get_dense_ids_in_first_use_order() {
        let mut table = SymbolTable::new();
        // Around the packed length: 15 bytes packs, 16 does not; a trailing NUL and
        // the empty name are distinct from padding.
        let names = [
            "H00001",
            "a_fifteen_bytes",
            "a_sixteen_bytes_",
            "",
            "H00001\0",
            "H0000",
            "é_unicode",
        ];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(table.try_intern(name), Some(i as u32), "{name:?}");
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(table.try_intern(name), Some(i as u32), "{name:?} again");
            assert_eq!(table.get(name), Some(i as u32));
            assert_eq!(table.name(i as u32), *name);
        }
        assert_eq!(table.len(), names.len());
        assert_eq!(table.get("H00002"), None);
        assert_eq!(table.get("a_sixteen_bytes!"), None);
    }

    /// What [`pack`] must give: the bytes in a zeroed array, the length in the last byte.
    fn packed_by_copy(s: &str) -> Option<u128> {
        let b = s.as_bytes();
        (b.len() <= SHORT).then(|| {
            let mut packed = [0u8; 16];
            packed[..b.len()].copy_from_slice(b);
            packed[SHORT] = b.len() as u8;
            u128::from_le_bytes(packed)
        })
    }

    #[test]
    fn packing_a_window_ignores_the_bytes_past_the_name() {
        let window = *b"H00047, H00175, ";
        for len in 0..=SHORT {
            let name = std::str::from_utf8(&window[..len]).unwrap();
            assert_eq!(
                Some(pack_window(&window, len)),
                packed_by_copy(name),
                "{len}"
            );
        }
    }

    #[test]
    fn packing_reads_every_byte_at_every_length() {
        let text = "abcdefghijklmnopqrstu\0\u{ff}xyz";
        for start in 0..4 {
            for end in start..text.len() {
                let Some(s) = text.get(start..end) else {
                    continue;
                };
                assert_eq!(pack(s), packed_by_copy(s), "{s:?}");
            }
        }
    }
}
