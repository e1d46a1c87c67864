//! Flag values that name one of a few choices (an exact name or an unambiguous prefix,
//! as ORCS accepted them), the output formats they select, and decimal integers.

use anyhow::{bail, Result};
use orcs::engine::metric::MetricKind;
use orcs::viz::draw::ImageFormat;
use orcs::workload::mapping::SubsetMethod;

/// Output formats of the commands that print results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text (ORCS's layout for simulations).
    Text,
    /// One JSON document.
    Json,
    /// One CSV table.
    Csv,
}

/// Output formats of a routed fabric (`orcs convert`, `orcs gen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FabricFormat {
    /// Routed ORCS dot.
    Dot,
    /// Binary fabric cache.
    Orcsfab,
    /// ibsim net file.
    Net,
    /// GraphML (PFSim/Gephi schema).
    Graphml,
}

/// Resolves an enumerated value: an exact name, or an unambiguous prefix of one.
pub fn resolve<'a>(flag: &str, value: &str, names: &[&'a str]) -> Result<&'a str> {
    if let Some(exact) = names.iter().find(|n| **n == value) {
        return Ok(exact);
    }
    let matches: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with(value))
        .collect();
    match matches.as_slice() {
        [one] if !value.is_empty() => Ok(one),
        [] | [_] => bail!(
            "invalid value '{value}' for {flag}: expected one of {}",
            names.join(", ")
        ),
        many => bail!(
            "ambiguous value '{value}' for {flag}: could be {}",
            many.join(", ")
        ),
    }
}

/// Each item of a comma-separated list resolved against the names (`Display`) of
/// `choices` (unambiguous prefixes allowed).
pub fn list_of<T: Copy + std::fmt::Display>(
    flag: &str,
    value: &str,
    choices: &[T],
) -> Result<Vec<T>> {
    let names: Vec<String> = choices.iter().map(T::to_string).collect();
    let keys: Vec<&str> = names.iter().map(String::as_str).collect();
    value
        .split(',')
        .map(|item| {
            let name = resolve(flag, item.trim(), &keys)?;
            let i = keys.iter().position(|k| *k == name).expect("resolved");
            Ok(choices[i])
        })
        .collect()
}

/// A --metric value: a metric name or an unambiguous prefix of one.
pub fn parse_metric(value: &str) -> Result<MetricKind> {
    let names: Vec<&str> = MetricKind::ALL.iter().map(|m| m.name()).collect();
    let name = resolve("--metric", value, &names)?;
    Ok(MetricKind::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .unwrap_or(MetricKind::HistMaxCong))
}

/// A subset method named by `flag`.
pub fn subset_method(flag: &str, value: &str) -> Result<SubsetMethod> {
    let names: Vec<&str> = SubsetMethod::ALL.iter().map(|m| m.name()).collect();
    let name = resolve(flag, value, &names)?;
    Ok(SubsetMethod::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .unwrap_or(SubsetMethod::Rand))
}

/// The value of a `--format` flag: text, json or csv.
pub fn report_format(value: &str) -> Result<Format> {
    Ok(
        match resolve("--format", value, &["text", "json", "csv"])? {
            "json" => Format::Json,
            "csv" => Format::Csv,
            _ => Format::Text,
        },
    )
}

/// The image format of `path`, named by `flag` in the error.
pub fn image_format(flag: &str, path: &str) -> Result<ImageFormat> {
    match ImageFormat::from_path(path) {
        Some(f) => Ok(f),
        None => bail!("{flag} '{path}': the file name must end in .svg, .png or .pdf (or .svg.gz)"),
    }
}

/// A picture size `WIDTHxHEIGHT` (pixels, each 16 to 20000), named by `flag` in the error.
pub fn picture_size(flag: &str, text: &str) -> Result<(u32, u32)> {
    let side = |part: &str| {
        part.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (16..=20000).contains(n))
    };
    match text.split_once(['x', 'X', '×']) {
        Some((w, h)) => match (side(w), side(h)) {
            (Some(w), Some(h)) => Ok((w, h)),
            _ => bail!("{flag} '{text}': width and height must be whole numbers of pixels from 16 to 20000"),
        },
        None => bail!("{flag} '{text}': expected WIDTHxHEIGHT in pixels, e.g. 1200x800"),
    }
}

/// The fabric format from --to, or else from the output file's extension.
pub fn fabric_format(output: &str, to: Option<&str>) -> Result<FabricFormat> {
    if let Some(name) = to {
        return Ok(
            match resolve("--to", name, &["dot", "orcsfab", "net", "graphml"])? {
                "orcsfab" => FabricFormat::Orcsfab,
                "net" => FabricFormat::Net,
                "graphml" => FabricFormat::Graphml,
                _ => FabricFormat::Dot,
            },
        );
    }
    let lower = output.to_ascii_lowercase();
    let ext = lower
        .trim_end_matches(".gz")
        .rsplit('.')
        .next()
        .unwrap_or("");
    Ok(match (output, ext) {
        ("-", _) | (_, "dot") | (_, "gv") => FabricFormat::Dot,
        (_, "orcsfab") => FabricFormat::Orcsfab,
        (_, "net") => FabricFormat::Net,
        (_, "graphml") => FabricFormat::Graphml,
        _ => bail!(
            "cannot tell the output format from '{output}': use a .dot, .orcsfab, .net or .graphml name, or --to"
        ),
    })
}

/// Parses a decimal integer. ORCS read `010` as octal 8 and `0x10` as 16; orcs reads
/// decimal only and refuses those spellings rather than silently reading another number.
pub fn decimal(text: &str) -> Result<i64, String> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(format!(
            "'{text}' has a leading zero; orcs reads integers as decimal only (ORCS read it as octal or hexadecimal), so write the decimal value"
        ));
    }
    text.parse::<i64>()
        .map_err(|_| format!("'{text}' is not a decimal integer"))
}

/// Parses a count that must be positive (a worker pool's size, say), so that `-5` is
/// refused with what is expected instead of clap's "unexpected argument".
pub fn positive(text: &str) -> Result<u64, String> {
    if text.trim().starts_with('-') {
        return Err(format!(
            "expected a positive whole number, got {}",
            text.trim()
        ));
    }
    match whole::<u64>(text)? {
        0 => Err(format!("expected a positive whole number, got {text}")),
        n => Ok(n),
    }
}

/// Parses a whole number of 0 or more that fits `T`; a negative number or one too large
/// is refused with the range.
pub fn whole<T: TryFrom<u64> + num_bound::Bounded>(text: &str) -> Result<T, String> {
    let t = text.trim();
    if t.starts_with('-') && t[1..].bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!("expected a whole number of 0 or more, got {t}"));
    }
    t.parse::<u64>()
        .ok()
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            format!(
                "expected a whole number from 0 to {}, got '{text}'",
                T::max_value()
            )
        })
}

/// Parses a memory size (`--max-memory`): 512M, 8G, 1.5T (powers of 1024) or bytes.
pub fn byte_size(text: &str) -> Result<u64, String> {
    orcs::limits::parse_size(text)
}

/// The largest value of the integer types [`whole`] parses into.
pub mod num_bound {
    /// An integer type's largest value.
    pub trait Bounded {
        /// The largest value.
        fn max_value() -> u64;
    }
    impl Bounded for u32 {
        fn max_value() -> u64 {
            u32::MAX as u64
        }
    }
    impl Bounded for u64 {
        fn max_value() -> u64 {
            u64::MAX
        }
    }
    impl Bounded for usize {
        fn max_value() -> u64 {
            usize::MAX as u64
        }
    }
}
