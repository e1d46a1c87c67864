//! Quantities with units (times, bandwidths, message sizes, rates, counts) and lists of
//! them with ranges, as given in flags and files.

use crate::queueing::QueueError;

/// Splits "12.5 MB/s" into (12.5, "MB/s"); the unit may be empty.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    // The longest prefix that is a number (inputs are short).
    let end = (1..=t.len())
        .rev()
        .filter(|&i| t.is_char_boundary(i))
        .find(|&i| t[..i].parse::<f64>().is_ok())?;
    let value: f64 = t[..end].parse().ok()?;
    Some((value, t[end..].trim()))
}

/// The accepted forms of a time, for error messages.
pub(super) const TIME_FORMS: &str = "a number with a unit: s, ms, us (or µs) or ns, e.g. 50us";
/// The accepted forms of a bandwidth, for error messages.
pub(super) const RATE_FORMS: &str =
    "bytes per second, e.g. 125e6, 125MB/s, 1.25GB/s, 4GiB/s, or bits per second, e.g. 10Gb/s or 100Mbit/s";
/// The accepted forms of a message size, for error messages.
pub(super) const SIZE_FORMS: &str = "a number of bytes, e.g. 1024, 1KiB, 4kB or 1MiB";

/// A time: a number with a unit (`s`, `ms`, `us`/`µs`, `ns`), in seconds. A bare number is
/// refused, so that 50 is never read as 50 seconds when 50 µs was meant.
pub fn parse_time(text: &str) -> Result<f64, QueueError> {
    let bad = || QueueError::BadQuantity {
        given: text.to_string(),
        what: "a time",
        expected: TIME_FORMS,
    };
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    // Dividing keeps round values exact (50 µs is 5e-5, not 50 × 1e-6).
    let divisor = match unit {
        "s" => 1.0,
        "ms" => 1e3,
        "us" | "µs" | "μs" => 1e6,
        "ns" => 1e9,
        _ => return Err(bad()),
    };
    finite_non_negative(value / divisor).ok_or_else(bad)
}

/// A bandwidth in bytes per second: a bare number (bytes/s), or with a unit `B/s`,
/// `kB/s`, `MB/s`, `GB/s`, `KiB/s`, `MiB/s`, `GiB/s`, or bits `b/s`, `kb/s`, `Mb/s`,
/// `Gb/s` (also `bit/s`, `kbit/s`, `Mbit/s`, `Gbit/s`, `bps`, `Gbps`).
pub fn parse_bandwidth(text: &str) -> Result<f64, QueueError> {
    let bad = || QueueError::BadQuantity {
        given: text.to_string(),
        what: "a bandwidth",
        expected: RATE_FORMS,
    };
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let scale = match unit {
        "" | "B/s" => 1.0,
        "kB/s" | "KB/s" => 1e3,
        "MB/s" => 1e6,
        "GB/s" => 1e9,
        "KiB/s" => 1024.0,
        "MiB/s" => 1024.0 * 1024.0,
        "GiB/s" => 1024.0 * 1024.0 * 1024.0,
        "b/s" | "bit/s" | "bps" => 1.0 / 8.0,
        "kb/s" | "kbit/s" | "kbps" => 1e3 / 8.0,
        "Mb/s" | "Mbit/s" | "Mbps" => 1e6 / 8.0,
        "Gb/s" | "Gbit/s" | "Gbps" => 1e9 / 8.0,
        _ => return Err(bad()),
    };
    finite_non_negative(value * scale)
        .filter(|&v| v > 0.0)
        .ok_or_else(bad)
}

/// A message size in bytes: a bare number, or with a unit `B`, `kB`, `KiB`, `MB`, `MiB`.
pub fn parse_size(text: &str) -> Result<f64, QueueError> {
    let bad = || QueueError::BadQuantity {
        given: text.to_string(),
        what: "a message size",
        expected: SIZE_FORMS,
    };
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let scale = match unit {
        "" | "B" => 1.0,
        "kB" | "KB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    finite_non_negative(value * scale).ok_or_else(bad)
}

/// Most values one list may expand to.
pub const MAX_LIST: usize = 10_000;

/// A comma-separated list of values read by `parse`, where an item may be a range
/// `FIRST:LAST` (step 1), `FIRST:LAST:STEP` or `FIRST:LAST:xFACTOR` (geometric), LAST
/// included: `1,2,4`, `10:100:10`, `1:64:x2`, `512:4KiB:x2`. O(values).
pub fn parse_list(
    text: &str,
    parse: fn(&str) -> Result<f64, QueueError>,
) -> Result<Vec<f64>, QueueError> {
    let mut out = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let parts: Vec<&str> = item.split(':').collect();
        match parts.as_slice() {
            [one] => out.push(parse(one)?),
            [first, last] => out.extend(expand_range(item, first, last, None, parse)?),
            [first, last, step] => {
                out.extend(expand_range(item, first, last, Some(step.trim()), parse)?)
            }
            _ => {
                return Err(range_error(
                    item,
                    "expected FIRST:LAST, FIRST:LAST:STEP or FIRST:LAST:xFACTOR",
                ))
            }
        }
        if out.len() > MAX_LIST {
            return Err(range_error(
                item,
                &format!("more than {MAX_LIST} values in all"),
            ));
        }
    }
    Ok(out)
}

/// The values of the range `item`, from `first` to `last` (included) by `step`: an
/// arithmetic step read by `parse` (1 when absent) or a factor after `x` or `*`.
fn expand_range(
    item: &str,
    first: &str,
    last: &str,
    step: Option<&str>,
    parse: fn(&str) -> Result<f64, QueueError>,
) -> Result<Vec<f64>, QueueError> {
    let (a, b) = (parse(first)?, parse(last)?);
    if b < a {
        return Err(range_error(item, "the last value is below the first"));
    }
    let mut values = Vec::new();
    match step.and_then(|s| s.strip_prefix(['x', '*'])) {
        Some(factor) => {
            let f: f64 = factor
                .trim()
                .parse()
                .ok()
                .filter(|f: &f64| f.is_finite() && *f > 1.0)
                .ok_or_else(|| range_error(item, "the factor after x must be a number > 1"))?;
            if a <= 0.0 {
                return Err(range_error(item, "a geometric range must start above 0"));
            }
            let mut v = a;
            // One value past the limit is enough to know the range is too long.
            while v <= b * (1.0 + 1e-12) && values.len() <= MAX_LIST {
                values.push(v);
                v *= f;
            }
        }
        None => {
            let d = match step {
                Some(s) => parse(s)?,
                None => 1.0,
            };
            if d.is_nan() || d <= 0.0 {
                return Err(range_error(item, "the step must be above 0"));
            }
            let count = ((b - a) / d * (1.0 + 1e-12)).floor();
            if count >= MAX_LIST as f64 {
                return Err(range_error(item, &format!("more than {MAX_LIST} values")));
            }
            values.extend((0..=count as usize).map(|i| a + i as f64 * d));
        }
    }
    if values.len() > MAX_LIST {
        return Err(range_error(item, &format!("more than {MAX_LIST} values")));
    }
    Ok(values)
}

/// The [`QueueError::BadRange`] of `item`.
fn range_error(item: &str, reason: &str) -> QueueError {
    QueueError::BadRange {
        given: item.to_string(),
        reason: reason.to_string(),
    }
}

/// A count (of clusters or processors): a whole number ≥ 1.
pub fn parse_count(text: &str) -> Result<f64, QueueError> {
    let t = text.trim();
    match t.parse::<u32>() {
        Ok(v) if v >= 1 => Ok(v as f64),
        _ => Err(QueueError::BadQuantity {
            given: text.to_string(),
            what: "a count",
            expected: "a whole number ≥ 1",
        }),
    }
}

fn finite_non_negative(v: f64) -> Option<f64> {
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// A message rate per processor, messages per second: a bare non-negative number
/// (`/s` may follow).
pub fn parse_rate(text: &str) -> Result<f64, QueueError> {
    let bad = || QueueError::BadQuantity {
        given: text.to_string(),
        what: "a message rate",
        expected: "messages per second per processor, a number ≥ 0 such as 20 or 2.5e3",
    };
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    if !matches!(unit, "" | "/s") {
        return Err(bad());
    }
    finite_non_negative(value).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_read() {
        assert_eq!(parse_time("50us").unwrap(), 50e-6);
        assert_eq!(parse_time("50 µs").unwrap(), 50e-6);
        assert_eq!(parse_time("2.5ms").unwrap(), 2.5e-3);
        assert_eq!(parse_time("130ns").unwrap(), 130e-9);
        assert_eq!(parse_time("1e-3 s").unwrap(), 1e-3);
        assert!(parse_time("50").is_err(), "a bare time is refused");
        assert!(parse_time("-1us").is_err());
        assert_eq!(parse_bandwidth("125e6").unwrap(), 125e6);
        assert_eq!(parse_bandwidth("125MB/s").unwrap(), 125e6);
        assert_eq!(parse_bandwidth("1Gb/s").unwrap(), 125e6);
        assert_eq!(parse_bandwidth("32 Gbit/s").unwrap(), 4e9);
        assert_eq!(parse_bandwidth("1KiB/s").unwrap(), 1024.0);
        assert!(parse_bandwidth("0").is_err());
        assert!(parse_bandwidth("12 furlongs").is_err());
        assert_eq!(parse_size("1KiB").unwrap(), 1024.0);
        assert_eq!(parse_size("512").unwrap(), 512.0);
        assert_eq!(parse_size("4 kB").unwrap(), 4000.0);
        assert_eq!(parse_rate("2.5e3").unwrap(), 2500.0);
        assert!(parse_rate("-1").is_err());
        let e = parse_time("5 weeks").unwrap_err().to_string();
        assert!(e.contains("'5 weeks'") && e.contains("us"), "{e}");
    }

    #[test]
    fn lists_and_ranges_expand() {
        assert_eq!(parse_list("1,2,4", parse_count).unwrap(), [1.0, 2.0, 4.0]);
        assert_eq!(
            parse_list("1:64:x2", parse_count).unwrap(),
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
        );
        assert_eq!(
            parse_list("10:50:20, 7", parse_rate).unwrap(),
            [10.0, 30.0, 50.0, 7.0]
        );
        assert_eq!(parse_list("0.1:0.3:0.1", parse_rate).unwrap().len(), 3);
        assert_eq!(
            parse_list("512:2KiB:x2", parse_size).unwrap(),
            [512.0, 1024.0, 2048.0]
        );
        assert!(parse_list("5:1", parse_count).is_err());
        assert!(parse_list("1:10:0", parse_rate).is_err());
        assert!(parse_list("1:10:x1", parse_rate).is_err());
        assert!(parse_list("1:1e9", parse_rate).is_err());
        assert!(parse_list("1:2:3:4", parse_rate).is_err());
        assert!(parse_list("0", parse_count).is_err());
        assert!(parse_list("2.5", parse_count).is_err());
    }
}
