//! The interner of the dot reader: node names and comment tokens as dense `u32` symbols,
//! so that a host named in a comment and the host node share one id.

use rustc_hash::FxHashMap;

/// An interner mapping strings to dense `u32` ids (`0, 1, 2, …` in order of first use).
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    map: FxHashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
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
        if let Some(&id) = self.map.get(s) {
            return Some(id);
        }
        let id = u32::try_from(self.names.len())
            .ok()
            .filter(|&id| id != u32::MAX)?;
        let name: Box<str> = s.into();
        self.names.push(name.clone());
        self.map.insert(name, id);
        Some(id)
    }

    /// The id of `s`, if it has been interned.
    pub fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
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
