//! The outputs of a byte-weighted simulation (`-p matrix`), one format per file: the
//! text header and statistics table ([`text`]), the JSON document ([`json`]), the CSV
//! of per-run values ([`csv`]) and the `--links` table ([`links`]). The simulation's
//! own header ([`crate::report::header`]) comes first in the text.
//!
//! What the outputs say about the matrix is the engine's [`MatrixInfo`]. It may use
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

pub use crate::engine::weighted::MatrixInfo;
