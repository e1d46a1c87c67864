//! The outputs of `orcs traffic`, one format per file: the table with one row per
//! combination ([`text`]) and the per-link CSV ([`csv`]).
//!
//! It may use the evaluations of [`crate::cluster::evaluate`], the cluster they were
//! made on and the traffic matrix placed on it.

mod csv;
mod text;

pub use self::csv::{traffic_links_rows, TRAFFIC_LINKS_HEADER};
pub use text::{traffic_header, traffic_row};
