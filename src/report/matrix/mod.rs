//! The outputs of a byte-weighted simulation (`-p matrix`), one format per file: the
//! text header and statistics table ([`text`]), the JSON document ([`json`]), the CSV
//! of per-run values ([`csv`]) and the `--links` table ([`links`]). The simulation's
//! own header ([`crate::report::header`]) comes first in the text.
//!
//! This folder owns [`MatrixInfo`], what the outputs say about the matrix. It may use
//! the weighted outcome ([`crate::engine::weighted`]), the metrics' arithmetic
//! ([`crate::engine::metric`]), the simulation's [`RunInfo`](crate::report::RunInfo)
//! and histogram block, and the fabric.

mod csv;
mod json;
mod links;
mod text;

pub use self::csv::matrix_csv;
pub use json::matrix_json;
pub use links::matrix_links_csv;
pub use text::{matrix_header, matrix_text, write_namelists};

use crate::engine::weighted::SlotTraffic;
use serde::Serialize;

/// What the header says about the matrix.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixInfo {
    /// The matrix file as given.
    pub file: String,
    /// Ranks of the matrix.
    pub ranks: u32,
    /// Ranks per host (`--ppn`).
    pub ranks_per_host: u32,
    /// Hosts the ranks occupy.
    pub hosts: u32,
    /// Rank pairs with at least one message.
    pub rank_pairs: u64,
    /// Ordered host pairs with traffic between different hosts.
    pub host_pairs: u64,
    /// Bytes of the whole matrix.
    pub total_bytes: u64,
    /// Bytes between ranks of one host (never on a link).
    pub local_bytes: u64,
}

impl MatrixInfo {
    /// The header facts of `traffic` read from `file` with `rank_pairs` entries.
    pub fn new(file: &str, traffic: &SlotTraffic, rank_pairs: u64) -> Self {
        MatrixInfo {
            file: file.to_string(),
            ranks: traffic.ranks,
            ranks_per_host: traffic.ranks_per_host,
            hosts: traffic.slots,
            rank_pairs,
            host_pairs: traffic.pairs.len() as u64,
            total_bytes: traffic.total_bytes,
            local_bytes: traffic.local_bytes,
        }
    }
}
