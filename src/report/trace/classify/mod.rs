//! The outputs of `orcs trace classify`: per configuration the predicted run time, its
//! split into computation, load imbalance, latency and bandwidth, and the class with
//! the rule that named it, as a text table ([`text`]), JSON ([`json`]) or CSV
//! ([`csv`]).

mod csv;
mod json;
mod text;

pub use self::csv::write_csv;
pub use json::write_json;
pub use text::write_text;

/// A latency for people: `50 µs`, `1.3 µs`, `800 ns`.
pub(crate) fn latency_text(seconds: f64) -> String {
    if seconds == 0.0 {
        "0 s".to_string()
    } else if seconds >= 1e-3 {
        format!("{} ms", trim(seconds * 1e3))
    } else if seconds >= 1e-6 {
        format!("{} µs", trim(seconds * 1e6))
    } else {
        format!("{} ns", trim(seconds * 1e9))
    }
}

/// A bandwidth for people, in bits per second: `1 Gb/s`, `32 Gb/s`, `inf`.
pub(crate) fn bandwidth_text(bytes_per_second: f64) -> String {
    if bytes_per_second.is_infinite() {
        return "inf".to_string();
    }
    let bits = bytes_per_second * 8.0;
    if bits >= 1e12 {
        format!("{} Tb/s", trim(bits / 1e12))
    } else if bits >= 1e9 {
        format!("{} Gb/s", trim(bits / 1e9))
    } else {
        format!("{} Mb/s", trim(bits / 1e6))
    }
}

/// Up to four significant decimals, trailing zeros dropped.
fn trim(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_people_write_them() {
        assert_eq!(latency_text(50e-6), "50 µs");
        assert_eq!(latency_text(1.3e-6), "1.3 µs");
        assert_eq!(latency_text(1.3e-6 / 32.0), "40.625 ns");
        assert_eq!(latency_text(2e-3), "2 ms");
        assert_eq!(latency_text(0.0), "0 s");
        assert_eq!(bandwidth_text(125e6), "1 Gb/s");
        assert_eq!(bandwidth_text(4e9), "32 Gb/s");
        assert_eq!(bandwidth_text(125e6 / 32.0), "31.25 Mb/s");
        assert_eq!(bandwidth_text(f64::INFINITY), "inf");
        assert_eq!(bandwidth_text(400e9), "3.2 Tb/s");
    }
}
