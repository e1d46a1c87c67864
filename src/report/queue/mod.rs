//! The results of `orcs queue` as bytes: a readable text report (one point in detail, or
//! a table of a sweep), JSON and CSV, one format per file. Times are µs in text, seconds
//! in JSON and CSV.
//!
//! This folder owns the [`Context`] every format describes and the number formats they
//! share. It may use [`crate::queueing`] (the points, their solutions and simulations, and
//! the model's own methods for every derived value) and `serde_json`; it computes nothing
//! the model does not: every value it prints is a field or a method of the model's types.

mod csv;
mod json;
mod text;

pub use self::csv::csv;
pub use json::{json, SCHEMA_VERSION};
pub use text::text;

use crate::queueing::sweep::{Grid, Scenario};
use crate::report::significant;

/// What the report describes besides the points.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The scenario the points come from.
    pub scenario: &'a Scenario,
    /// Its grid.
    pub grid: &'a Grid,
    /// The fabric the switch counts were measured on, if any.
    pub fabric: Option<&'a str>,
}

/// A time in the most readable unit: `50 µs`, `1.3 µs`, `130 ns`, `2.5 ms`.
pub(crate) fn time_text(seconds: f64) -> String {
    let (value, unit) = if seconds == 0.0 {
        (0.0, "s")
    } else if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    format!("{} {unit}", significant(value))
}

/// A bandwidth in the most readable decimal unit: `125 MB/s`, `24.24 GB/s`.
pub(crate) fn bandwidth_text(bytes_per_second: f64) -> String {
    let (value, unit) = if bytes_per_second >= 1e9 {
        (bytes_per_second / 1e9, "GB/s")
    } else if bytes_per_second >= 1e6 {
        (bytes_per_second / 1e6, "MB/s")
    } else if bytes_per_second >= 1e3 {
        (bytes_per_second / 1e3, "kB/s")
    } else {
        (bytes_per_second, "B/s")
    };
    format!("{} {unit}", significant(value))
}

/// Seconds in µs, the unit of the text report.
fn us(seconds: f64) -> f64 {
    seconds * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_well() {
        assert_eq!(time_text(50e-6), "50 µs");
        assert_eq!(time_text(1.3e-6), "1.3 µs");
        assert_eq!(time_text(130e-9), "130 ns");
        assert_eq!(time_text(2.5e-3), "2.5 ms");
        assert_eq!(bandwidth_text(125e6), "125 MB/s");
        assert_eq!(bandwidth_text(12.5e6), "12.5 MB/s");
        assert_eq!(bandwidth_text(200e9 / 8.0 * 64.0 / 66.0), "24.24 GB/s");
    }
}
