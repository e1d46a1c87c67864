//! The outputs of `orcs traffic`, one format per file: the table with one row per
//! combination ([`text`]), one JSON document ([`json`]), and the CSV tables of the
//! combinations and of the links ([`csv`]).
//!
//! It may use the evaluations of [`crate::cluster::evaluate`], the cluster they were
//! made on and the traffic matrix placed on it.

mod csv;
mod json;
mod text;

pub use self::csv::{
    traffic_csv_row, traffic_links_rows, TRAFFIC_CSV_HEADER, TRAFFIC_LINKS_HEADER,
};
pub use json::traffic_json;
pub use text::{traffic_header, traffic_row};

/// A combination's largest load over the first one's (0 when that is 0).
fn relative(max: f64, base: f64) -> f64 {
    if base > 0.0 {
        max / base
    } else {
        0.0
    }
}
