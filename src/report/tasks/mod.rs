//! The outputs of `orcs tasks`: a model's description (text, JSON), a simulation's
//! result (text, JSON, CSV, the per-link table) and a sweep's table (text, JSON, CSV).
//! This file holds the units every format prints.

mod describe;
mod run;
mod sweep;

pub use describe::{describe_json, describe_text};
pub use run::{run_csv, run_json, run_links_csv, run_text, summary as run_summary};
pub use sweep::{sweep_csv, sweep_json, sweep_text};

use crate::report::significant;

/// Seconds in the unit that suits them (ns, µs, ms, s).
fn time(seconds: f64) -> String {
    let (v, unit) = if seconds.abs() >= 1.0 || seconds == 0.0 {
        (seconds, "s")
    } else if seconds.abs() >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds.abs() >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    format!("{} {unit}", significant(v))
}

/// Bits as bytes with a decimal unit (kB = 1000 B, as the model's published sizes).
fn size(bits: f64) -> String {
    let bytes = bits / 8.0;
    let (v, unit) = if bytes.abs() >= 1e9 {
        (bytes / 1e9, "GB")
    } else if bytes.abs() >= 1e6 {
        (bytes / 1e6, "MB")
    } else if bytes.abs() >= 1e3 {
        (bytes / 1e3, "kB")
    } else {
        (bytes, "B")
    };
    format!("{} {unit}", significant(v))
}

/// Bits per second with a decimal unit.
fn rate(bits_per_second: f64) -> String {
    let (v, unit) = if bits_per_second.abs() >= 1e9 {
        (bits_per_second / 1e9, "Gb/s")
    } else if bits_per_second.abs() >= 1e6 {
        (bits_per_second / 1e6, "Mb/s")
    } else if bits_per_second.abs() >= 1e3 {
        (bits_per_second / 1e3, "kb/s")
    } else {
        (bits_per_second, "b/s")
    };
    format!("{} {unit}", significant(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(time(340e-6), "340 µs");
        assert_eq!(time(1.5e-3), "1.5 ms");
        assert_eq!(time(32e-9), "32 ns");
        assert_eq!(size(5_287_360.0), "660.9 kB");
        assert_eq!(size(320.0), "40 B");
        assert_eq!(rate(15.551e9), "15.55 Gb/s");
        assert_eq!(significant(29_117.647), "29118");
    }
}
