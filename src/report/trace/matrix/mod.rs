//! A trace's traffic ([`crate::trace::traffic::TraceTraffic`]) as bytes, one format per
//! file, each read back by [`crate::workload::matrix::read_traffic`]: CSV rows
//! ([`csv`]), a Matrix Market coordinate file ([`market`]), a sparse JSON matrix
//! ([`json`]) and a PFProf trace of per-rank JSON files in a gzip-compressed tar
//! archive ([`pfprof`]).

mod csv;
mod json;
mod market;
mod pfprof;

pub use self::csv::write_csv;
pub use json::write_json;
pub use market::write_market;
pub use pfprof::write_pfprof;
