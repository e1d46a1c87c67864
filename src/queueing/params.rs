//! Model parameters from outside: network presets, quantities with units, names of the
//! model's choices, and the TOML parameter file.

use super::{Architecture, Centre, Ecn1Mode, Network, Service, Sources};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt;
use std::str::FromStr;

/// A network preset: link bandwidth, end-to-end latency, switch size and switch latency.
///
/// The values are placeholders until the sources the model was published with are known
/// (see the README): Gigabit Ethernet's 1 Gb/s and 50 µs, 10 Gigabit Ethernet's 10 Gb/s
/// and 5 µs and InfiniBand QDR's 32 Gb/s and 1.3 µs are the interconnect settings of the
/// trace-replay study of Tong, Pakin, Lang and Yuan (IPDPS 2016) as reported; Fast
/// Ethernet's 80 µs, the Ethernet switches (24 ports, 2 µs) and InfiniBand HDR's 1 µs
/// are assumptions; the InfiniBand switch sizes and latencies are data-sheet values of
/// typical switches (36 ports and 100 ns for QDR, 40 ports and 130 ns for HDR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Fast Ethernet: 12.5 MB/s, 80 µs; 24-port switches, 2 µs.
    FastEthernet,
    /// Gigabit Ethernet: 125 MB/s, 50 µs; 24-port switches, 2 µs (the default).
    GigabitEthernet,
    /// 10 Gigabit Ethernet: 1.25 GB/s, 5 µs; 24-port switches, 2 µs.
    TenGigabitEthernet,
    /// InfiniBand 4x QDR: 4 GB/s (32 Gb/s of data), 1.3 µs; 36-port switches, 100 ns.
    InfinibandQdr,
    /// InfiniBand 4x HDR: 24.24 GB/s (200 Gb/s at 64b/66b), 1 µs; 40-port switches, 130 ns.
    InfinibandHdr,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 5] = [
        Preset::FastEthernet,
        Preset::GigabitEthernet,
        Preset::TenGigabitEthernet,
        Preset::InfinibandQdr,
        Preset::InfinibandHdr,
    ];

    /// The preset's name in flags and files.
    pub fn name(self) -> &'static str {
        match self {
            Preset::FastEthernet => "fast-ethernet",
            Preset::GigabitEthernet => "gigabit-ethernet",
            Preset::TenGigabitEthernet => "10g-ethernet",
            Preset::InfinibandQdr => "infiniband-qdr",
            Preset::InfinibandHdr => "infiniband-hdr",
        }
    }

    /// Short spellings accepted besides the name.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Preset::FastEthernet => &["fe", "100m-ethernet"],
            Preset::GigabitEthernet => &["ge", "gbe", "1g-ethernet", "1gbe"],
            Preset::TenGigabitEthernet => &["10ge", "10gbe", "10-gigabit-ethernet"],
            Preset::InfinibandQdr => &["qdr", "ib-qdr"],
            Preset::InfinibandHdr => &["hdr", "ib-hdr"],
        }
    }

    /// The preset's hardware, as a non-blocking network.
    pub fn network(self) -> Network {
        let (bandwidth, latency, ports, switch_latency) = match self {
            Preset::FastEthernet => (12.5e6, 80e-6, 24, 2e-6),
            Preset::GigabitEthernet => (125e6, 50e-6, 24, 2e-6),
            Preset::TenGigabitEthernet => (1.25e9, 5e-6, 24, 2e-6),
            Preset::InfinibandQdr => (4e9, 1.3e-6, 36, 100e-9),
            Preset::InfinibandHdr => (200e9 / 8.0 * 64.0 / 66.0, 1e-6, 40, 130e-9),
        };
        Network {
            bandwidth,
            latency,
            switch_latency,
            ports,
            architecture: Architecture::NonBlocking,
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} '{given}': expected {}", .expected.join(", "))]
pub struct UnknownName {
    /// What was being named.
    pub kind: &'static str,
    /// The text given.
    pub given: String,
    /// The accepted names.
    pub expected: Vec<&'static str>,
}

/// Lower case without separators, so `Non-Blocking`, `non_blocking` and `nonblocking`
/// (and `M/M/1` and `mm1`) compare equal.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The choice whose name or alias is `text` (see [`normalise`]).
fn by_name<T: Copy>(
    kind: &'static str,
    text: &str,
    choices: &[(T, &'static str, &[&'static str])],
) -> Result<T, UnknownName> {
    let key = normalise(text);
    choices
        .iter()
        .find(|(_, name, aliases)| {
            normalise(name) == key || aliases.iter().any(|a| normalise(a) == key)
        })
        .map(|(t, _, _)| *t)
        .ok_or_else(|| UnknownName {
            kind,
            given: text.to_string(),
            expected: choices.iter().map(|(_, n, _)| *n).collect(),
        })
}

impl FromStr for Preset {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        let choices: Vec<_> = Preset::ALL
            .iter()
            .map(|p| (*p, p.name(), p.aliases()))
            .collect();
        by_name("network preset", s, &choices)
    }
}

impl FromStr for Architecture {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(
            "architecture",
            s,
            &[
                (
                    Architecture::NonBlocking,
                    "non-blocking",
                    &["fat-tree", "nb"],
                ),
                (Architecture::Blocking, "blocking", &["linear-array", "b"]),
            ],
        )
    }
}

impl FromStr for Service {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(
            "service model",
            s,
            &[
                (
                    Service::Exponential,
                    "exponential",
                    &["M/M/1", "mm1", "exp"],
                ),
                (
                    Service::Deterministic,
                    "deterministic",
                    &["M/D/1", "md1", "det"],
                ),
            ],
        )
    }
}

impl FromStr for Ecn1Mode {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(
            "ECN1 mode",
            s,
            &[
                (Ecn1Mode::Shared, "shared", &[]),
                (Ecn1Mode::Split, "split", &[]),
            ],
        )
    }
}

impl FromStr for Sources {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(
            "kind of sources",
            s,
            &[
                (Sources::Blocking, "blocking", &["closed"]),
                (Sources::Open, "open", &[]),
            ],
        )
    }
}

impl FromStr for Centre {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(
            "network",
            s,
            &[
                (Centre::Icn1, "icn1", &[]),
                (Centre::Ecn1, "ecn1", &[]),
                (Centre::Icn2, "icn2", &[]),
            ],
        )
    }
}

/// A number with an optional unit that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read '{given}' as {what}: expected {expected}")]
pub struct BadQuantity {
    /// The text given.
    pub given: String,
    /// What it should be.
    pub what: &'static str,
    /// The accepted forms.
    pub expected: &'static str,
}

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

const TIME_FORMS: &str = "a number with a unit: s, ms, us (or µs) or ns, e.g. 50us";
const RATE_FORMS: &str =
    "bytes per second, e.g. 125e6, 125MB/s, 1.25GB/s, 4GiB/s, or bits per second, e.g. 10Gb/s or 100Mbit/s";
const SIZE_FORMS: &str = "a number of bytes, e.g. 1024, 1KiB, 4kB or 1MiB";

/// A time: a number with a unit (`s`, `ms`, `us`/`µs`, `ns`), in seconds. A bare number is
/// refused, so that 50 is never read as 50 seconds when 50 µs was meant.
pub fn parse_time(text: &str) -> Result<f64, BadQuantity> {
    let bad = || BadQuantity {
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
pub fn parse_bandwidth(text: &str) -> Result<f64, BadQuantity> {
    let bad = || BadQuantity {
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
pub fn parse_size(text: &str) -> Result<f64, BadQuantity> {
    let bad = || BadQuantity {
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

/// A list that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// An item is not a valid value.
    #[error(transparent)]
    Item(#[from] BadQuantity),
    /// A range is malformed or too long.
    #[error("bad range '{given}': {reason}")]
    Range {
        /// The range as given.
        given: String,
        /// What is wrong.
        reason: String,
    },
}

/// Most values one list may expand to.
pub const MAX_LIST: usize = 10_000;

/// A comma-separated list of values read by `parse`, where an item may be a range
/// `FIRST:LAST` (step 1), `FIRST:LAST:STEP` or `FIRST:LAST:xFACTOR` (geometric), LAST
/// included: `1,2,4`, `10:100:10`, `1:64:x2`, `512:4KiB:x2`. O(values).
pub fn parse_list(
    text: &str,
    parse: fn(&str) -> Result<f64, BadQuantity>,
) -> Result<Vec<f64>, ListError> {
    let mut out = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let parts: Vec<&str> = item.split(':').collect();
        let range_error = |reason: &str| ListError::Range {
            given: item.to_string(),
            reason: reason.to_string(),
        };
        match parts.as_slice() {
            [one] => out.push(parse(one)?),
            [first, last] | [first, last, _] => {
                let (a, b) = (parse(first)?, parse(last)?);
                if b < a {
                    return Err(range_error("the last value is below the first"));
                }
                let step = parts.get(2).map(|s| s.trim());
                let geometric = step.and_then(|s| s.strip_prefix(['x', '*']));
                let mut values = Vec::new();
                match (step, geometric) {
                    (_, Some(factor)) => {
                        let f: f64 = factor
                            .trim()
                            .parse()
                            .ok()
                            .filter(|f: &f64| f.is_finite() && *f > 1.0)
                            .ok_or_else(|| {
                                range_error("the factor after x must be a number > 1")
                            })?;
                        if a <= 0.0 {
                            return Err(range_error("a geometric range must start above 0"));
                        }
                        let mut v = a;
                        while v <= b * (1.0 + 1e-12) && values.len() <= MAX_LIST {
                            values.push(v);
                            v *= f;
                        }
                    }
                    (step, None) => {
                        let d = match step {
                            Some(s) => parse(s)?,
                            None => 1.0,
                        };
                        if d.is_nan() || d <= 0.0 {
                            return Err(range_error("the step must be above 0"));
                        }
                        let count = ((b - a) / d * (1.0 + 1e-12)).floor();
                        if count >= MAX_LIST as f64 {
                            return Err(range_error(&format!("more than {MAX_LIST} values")));
                        }
                        values.extend((0..=count as usize).map(|i| a + i as f64 * d));
                    }
                }
                if values.len() > MAX_LIST {
                    return Err(range_error(&format!("more than {MAX_LIST} values")));
                }
                out.extend(values);
            }
            _ => {
                return Err(range_error(
                    "expected FIRST:LAST, FIRST:LAST:STEP or FIRST:LAST:xFACTOR",
                ))
            }
        }
        if out.len() > MAX_LIST {
            return Err(range_error(&format!("more than {MAX_LIST} values in all")));
        }
    }
    Ok(out)
}

/// A count (of clusters or processors): a whole number ≥ 1.
pub fn parse_count(text: &str) -> Result<f64, BadQuantity> {
    let t = text.trim();
    match t.parse::<u32>() {
        Ok(v) if v >= 1 => Ok(v as f64),
        _ => Err(BadQuantity {
            given: text.to_string(),
            what: "a count",
            expected: "a whole number ≥ 1",
        }),
    }
}

fn finite_non_negative(v: f64) -> Option<f64> {
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Values given for one network (a preset and individual settings over it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetworkSettings {
    /// The preset the other values start from.
    pub preset: Option<Preset>,
    /// Link bandwidth, bytes/s.
    pub bandwidth: Option<f64>,
    /// End-to-end latency, s.
    pub latency: Option<f64>,
    /// Switch latency, s.
    pub switch_latency: Option<f64>,
    /// Switch ports.
    pub ports: Option<u32>,
    /// Fat tree or linear array.
    pub architecture: Option<Architecture>,
}

impl NetworkSettings {
    /// `self` with the values `over` gives replacing its own; a preset in `over` replaces
    /// the preset and every value `self` gave.
    pub fn overlay(&self, over: &NetworkSettings) -> NetworkSettings {
        if over.preset.is_some() {
            return NetworkSettings {
                architecture: over.architecture.or(self.architecture),
                ..over.clone()
            };
        }
        NetworkSettings {
            preset: self.preset,
            bandwidth: over.bandwidth.or(self.bandwidth),
            latency: over.latency.or(self.latency),
            switch_latency: over.switch_latency.or(self.switch_latency),
            ports: over.ports.or(self.ports),
            architecture: over.architecture.or(self.architecture),
        }
    }

    /// The network these settings describe, starting from Gigabit Ethernet.
    pub fn network(&self) -> Network {
        let base = self.preset.unwrap_or(Preset::GigabitEthernet).network();
        Network {
            bandwidth: self.bandwidth.unwrap_or(base.bandwidth),
            latency: self.latency.unwrap_or(base.latency),
            switch_latency: self.switch_latency.unwrap_or(base.switch_latency),
            ports: self.ports.unwrap_or(base.ports),
            architecture: self.architecture.unwrap_or(base.architecture),
        }
    }

    /// A short description: the preset's name (Gigabit Ethernet's when none was given),
    /// "(modified)" when some of its values were changed, "custom" when all were.
    pub fn label(&self) -> String {
        let preset = self.preset.unwrap_or(Preset::GigabitEthernet);
        let base = preset.network();
        let changed = [
            self.bandwidth.is_some_and(|v| v != base.bandwidth),
            self.latency.is_some_and(|v| v != base.latency),
            self.switch_latency
                .is_some_and(|v| v != base.switch_latency),
            self.ports.is_some_and(|v| v != base.ports),
        ];
        if changed.iter().all(|&c| c) {
            "custom".to_string()
        } else if changed.iter().any(|&c| c) {
            format!("{} (modified)", preset.name())
        } else {
            preset.name().to_string()
        }
    }
}

/// The contents of a TOML parameter file; everything is optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// Numbers of clusters (several: a sweep).
    pub clusters: Option<Vec<u32>>,
    /// Processors per cluster.
    pub nodes_per_cluster: Option<u32>,
    /// Total processors.
    pub total_nodes: Option<u32>,
    /// Message rates per processor (several: a sweep).
    pub rate: Option<Vec<f64>>,
    /// Message sizes in bytes (several: a sweep).
    pub message_size: Option<Vec<f64>>,
    /// Service model.
    pub service: Option<Service>,
    /// ECN1 queueing.
    pub ecn1: Option<Ecn1Mode>,
    /// Effective-rate correction.
    pub sources: Option<Sources>,
    /// Architectures for all three networks, one series each (the `--arch` flag; the file
    /// sets architectures per network instead).
    pub architectures: Option<Vec<Architecture>>,
    /// Settings of all three networks (`[network]`).
    pub all_networks: NetworkSettings,
    /// Settings of one network (`[network.icn1]` …), by [`Centre::index`].
    pub networks: [NetworkSettings; 3],
}

impl Config {
    /// `self` with every value `over` gives replacing its own (N and N0 replace each
    /// other; network settings are layered by [`NetworkSettings::overlay`], so a flag
    /// for all networks overrides a file's setting for one).
    pub fn overlay(&self, over: &Config) -> Config {
        let sizes_given = over.nodes_per_cluster.is_some() || over.total_nodes.is_some();
        let mut networks = self.networks.clone();
        for (i, n) in networks.iter_mut().enumerate() {
            *n = self
                .all_networks
                .overlay(n)
                .overlay(&over.all_networks)
                .overlay(&over.networks[i]);
        }
        Config {
            clusters: over.clusters.clone().or_else(|| self.clusters.clone()),
            nodes_per_cluster: if sizes_given {
                over.nodes_per_cluster
            } else {
                self.nodes_per_cluster
            },
            total_nodes: if sizes_given {
                over.total_nodes
            } else {
                self.total_nodes
            },
            rate: over.rate.clone().or_else(|| self.rate.clone()),
            message_size: over
                .message_size
                .clone()
                .or_else(|| self.message_size.clone()),
            service: over.service.or(self.service),
            ecn1: over.ecn1.or(self.ecn1),
            sources: over.sources.or(self.sources),
            architectures: over
                .architectures
                .clone()
                .or_else(|| self.architectures.clone()),
            all_networks: NetworkSettings::default(),
            networks,
        }
    }
}

/// A parameter file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConfigError {
    /// The file as named by the user.
    pub path: String,
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

// The file's schema. Unknown keys are errors that list the known ones.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    clusters: Option<OneOrMany<u32>>,
    nodes_per_cluster: Option<u32>,
    total_nodes: Option<u32>,
    rate: Option<OneOrMany<Rate>>,
    message_size: Option<OneOrMany<Size>>,
    service: Option<Named<Service>>,
    ecn1: Option<Named<Ecn1Mode>>,
    sources: Option<Named<Sources>>,
    network: Option<FileNetworks>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNetworks {
    preset: Option<Named<Preset>>,
    bandwidth: Option<Bandwidth>,
    latency: Option<Time>,
    switch_latency: Option<Time>,
    ports: Option<u32>,
    architecture: Option<Named<Architecture>>,
    icn1: Option<FileNetwork>,
    ecn1: Option<FileNetwork>,
    icn2: Option<FileNetwork>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNetwork {
    preset: Option<Named<Preset>>,
    bandwidth: Option<Bandwidth>,
    latency: Option<Time>,
    switch_latency: Option<Time>,
    ports: Option<u32>,
    architecture: Option<Named<Architecture>>,
}

/// One value or a list of values; errors are those of the value that is wrong.
struct OneOrMany<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IntoDeserializer;
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value or a list of values")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(out)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<T>, E> {
                T::deserialize(v.into_deserializer()).map(|t| vec![t])
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<T>, E> {
                T::deserialize(v.into_deserializer()).map(|t| vec![t])
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec<T>, E> {
                T::deserialize(v.into_deserializer()).map(|t| vec![t])
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<T>, E> {
                T::deserialize(v.into_deserializer()).map(|t| vec![t])
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
            .map(OneOrMany)
    }
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        self.0
    }
}

/// A value given as a string and read by `FromStr`, with the parse error as message.
struct Named<T>(T);

impl<'de, T> Deserialize<'de> for Named<T>
where
    T: FromStr,
    T::Err: fmt::Display,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map(Named).map_err(de::Error::custom)
    }
}

/// A quantity given as a string with a unit, or as a bare number.
fn quantity<'de, D: Deserializer<'de>>(
    d: D,
    parse: fn(&str) -> Result<f64, BadQuantity>,
    bare_ok: bool,
    what: &'static str,
) -> Result<f64, D::Error> {
    struct V {
        parse: fn(&str) -> Result<f64, BadQuantity>,
        bare_ok: bool,
        what: &'static str,
    }
    impl de::Visitor<'_> for V {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{}", self.what)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            (self.parse)(v).map_err(E::custom)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            if self.bare_ok {
                (self.parse)(&v.to_string()).map_err(E::custom)
            } else {
                Err(E::custom(format!(
                    "{v} has no unit; expected {}",
                    self.what
                )))
            }
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }
    }
    d.deserialize_any(V {
        parse,
        bare_ok,
        what,
    })
}

struct Time(f64);
impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(d, parse_time, false, TIME_FORMS).map(Time)
    }
}

struct Bandwidth(f64);
impl<'de> Deserialize<'de> for Bandwidth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(d, parse_bandwidth, true, RATE_FORMS).map(Bandwidth)
    }
}

struct Size(f64);
impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(d, parse_size, true, SIZE_FORMS).map(Size)
    }
}

struct Rate(f64);
impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(
            d,
            parse_rate,
            true,
            "a message rate per processor in messages per second, e.g. 20 or 2.5",
        )
        .map(Rate)
    }
}

/// A message rate per processor, messages per second: a bare non-negative number
/// (`/s` may follow).
pub fn parse_rate(text: &str) -> Result<f64, BadQuantity> {
    let bad = || BadQuantity {
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

impl FileNetwork {
    fn settings(self) -> NetworkSettings {
        NetworkSettings {
            preset: self.preset.map(|n| n.0),
            bandwidth: self.bandwidth.map(|b| b.0),
            latency: self.latency.map(|t| t.0),
            switch_latency: self.switch_latency.map(|t| t.0),
            ports: self.ports,
            architecture: self.architecture.map(|a| a.0),
        }
    }
}

/// Reads a TOML parameter file's text; `path` names it in errors, which give the line
/// and what was expected. O(length of the text).
///
/// ```toml
/// clusters = [1, 2, 4, 8, 16, 32]   # or one number
/// total_nodes = 256                 # or nodes_per_cluster = 64
/// rate = 20                         # messages/s per processor
/// message_size = [512, 1024]        # bytes, or "1KiB"
/// service = "exponential"           # or "deterministic"
/// ecn1 = "shared"                   # or "split"
/// sources = "blocking"              # or "open"
///
/// [network]                         # all three networks
/// preset = "gigabit-ethernet"
/// switch_latency = "2us"
/// ports = 24
/// architecture = "non-blocking"     # or "blocking"
///
/// [network.icn2]                    # one network
/// preset = "infiniband-qdr"
/// ```
pub fn parse_config(text: &str, path: &str) -> Result<Config, ConfigError> {
    let file: FileConfig = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        ConfigError {
            path: path.to_string(),
            line,
            message: e.message().trim().to_string(),
        }
    })?;
    let mut config = Config {
        clusters: file.clusters.map(OneOrMany::into_vec),
        nodes_per_cluster: file.nodes_per_cluster,
        total_nodes: file.total_nodes,
        rate: file
            .rate
            .map(|r| r.into_vec().into_iter().map(|r| r.0).collect()),
        message_size: file
            .message_size
            .map(|m| m.into_vec().into_iter().map(|m| m.0).collect()),
        service: file.service.map(|n| n.0),
        ecn1: file.ecn1.map(|n| n.0),
        sources: file.sources.map(|n| n.0),
        ..Config::default()
    };
    if config.nodes_per_cluster.is_some() && config.total_nodes.is_some() {
        return Err(ConfigError {
            path: path.to_string(),
            line: line_of(text, "total_nodes"),
            message: "give either nodes_per_cluster or total_nodes, not both".to_string(),
        });
    }
    for (key, empty) in [
        (
            "clusters",
            config.clusters.as_ref().is_some_and(Vec::is_empty),
        ),
        ("rate", config.rate.as_ref().is_some_and(Vec::is_empty)),
        (
            "message_size",
            config.message_size.as_ref().is_some_and(Vec::is_empty),
        ),
    ] {
        if empty {
            return Err(ConfigError {
                path: path.to_string(),
                line: line_of(text, key),
                message: format!("{key} is an empty list; expected a value or a list of values"),
            });
        }
    }
    if let Some(n) = file.network {
        config.all_networks = NetworkSettings {
            preset: n.preset.map(|p| p.0),
            bandwidth: n.bandwidth.map(|b| b.0),
            latency: n.latency.map(|t| t.0),
            switch_latency: n.switch_latency.map(|t| t.0),
            ports: n.ports,
            architecture: n.architecture.map(|a| a.0),
        };
        for (centre, section) in [
            (Centre::Icn1, n.icn1),
            (Centre::Ecn1, n.ecn1),
            (Centre::Icn2, n.icn2),
        ] {
            if let Some(s) = section {
                config.networks[centre.index()] = s.settings();
            }
        }
    }
    Ok(config)
}

/// The first line that starts with `key` (for errors found after parsing).
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().starts_with(key))
        .map(|i| i + 1)
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

    #[test]
    fn later_layers_win_and_a_flag_for_all_networks_beats_a_file_for_one() {
        let file = parse_config(
            "total_nodes = 128\nrate = 5\n[network.icn2]\npreset = \"qdr\"\n[network]\nports = 8\n",
            "f",
        )
        .unwrap();
        let flags = Config {
            nodes_per_cluster: Some(16),
            all_networks: NetworkSettings {
                preset: Some(Preset::FastEthernet),
                ..Default::default()
            },
            ..Config::default()
        };
        let merged = file.overlay(&flags);
        assert_eq!(
            (merged.total_nodes, merged.nodes_per_cluster),
            (None, Some(16))
        );
        assert_eq!(merged.rate, Some(vec![5.0]));
        for n in &merged.networks {
            assert_eq!(n.network(), Preset::FastEthernet.network());
        }
        let kept = file.overlay(&Config::default());
        // The section of one network is more specific than [network]: its preset wins.
        assert_eq!(kept.networks[2].network(), Preset::InfinibandQdr.network());
        assert_eq!(kept.networks[0].network().ports, 8);
        assert_eq!(kept.networks[0].label(), "gigabit-ethernet (modified)");
        // Values equal to the preset's change nothing.
        let same = NetworkSettings {
            preset: Some(Preset::InfinibandQdr),
            bandwidth: Some(4e9),
            latency: Some(1.3e-6),
            switch_latency: Some(100e-9),
            ports: Some(36),
            architecture: None,
        };
        assert_eq!(same.label(), "infiniband-qdr");
        let all = NetworkSettings {
            bandwidth: Some(1e9),
            latency: Some(1e-6),
            switch_latency: Some(2e-7),
            ports: Some(8),
            ..same
        };
        assert_eq!(all.label(), "custom");
    }

    #[test]
    fn names_accept_spellings_and_list_the_choices() {
        assert_eq!("NonBlocking".parse(), Ok(Architecture::NonBlocking));
        assert_eq!("linear-array".parse(), Ok(Architecture::Blocking));
        assert_eq!("M/D/1".parse(), Ok(Service::Deterministic));
        assert_eq!("10GbE".parse(), Ok(Preset::TenGigabitEthernet));
        assert_eq!("InfiniBand_QDR".parse(), Ok(Preset::InfinibandQdr));
        let e = "myrinet".parse::<Preset>().unwrap_err().to_string();
        assert!(
            e.contains("'myrinet'") && e.contains("infiniband-hdr"),
            "{e}"
        );
    }

    #[test]
    fn presets_follow_the_spec() {
        let ge = Preset::GigabitEthernet.network();
        assert_eq!(
            (ge.bandwidth, ge.latency, ge.ports, ge.switch_latency),
            (125e6, 50e-6, 24, 2e-6)
        );
        let fe = Preset::FastEthernet.network();
        assert_eq!((fe.bandwidth, fe.latency), (12.5e6, 80e-6));
        let qdr = Preset::InfinibandQdr.network();
        assert_eq!((qdr.bandwidth, qdr.latency), (4e9, 1.3e-6));
        assert_eq!(Preset::TenGigabitEthernet.network().bandwidth, 1.25e9);
    }

    #[test]
    fn config_file_is_read() {
        let text = r#"
clusters = [1, 2, 4]
total_nodes = 256
rate = 20
message_size = ["512", "1KiB"]
service = "M/D/1"
ecn1 = "split"

[network]
preset = "fast-ethernet"
switch_latency = "3us"

[network.icn2]
preset = "infiniband-qdr"
architecture = "blocking"
"#;
        let c = parse_config(text, "p.toml").unwrap();
        assert_eq!(c.clusters, Some(vec![1, 2, 4]));
        assert_eq!(c.total_nodes, Some(256));
        assert_eq!(c.rate, Some(vec![20.0]));
        assert_eq!(c.message_size, Some(vec![512.0, 1024.0]));
        assert_eq!(c.service, Some(Service::Deterministic));
        assert_eq!(c.ecn1, Some(Ecn1Mode::Split));
        assert_eq!(c.all_networks.preset, Some(Preset::FastEthernet));
        assert_eq!(c.all_networks.switch_latency, Some(3e-6));
        let icn2 = c.all_networks.overlay(&c.networks[2]).network();
        assert_eq!(icn2.bandwidth, 4e9);
        assert_eq!(icn2.architecture, Architecture::Blocking);
        let icn1 = c.all_networks.overlay(&c.networks[0]).network();
        assert_eq!((icn1.bandwidth, icn1.switch_latency), (12.5e6, 3e-6));
    }

    #[test]
    fn config_errors_name_file_line_and_expectation() {
        let cases = [
            (
                "clusters = 4\nbandwith = 5\n",
                2,
                "unknown field `bandwith`",
            ),
            ("[network]\nlatency = 50\n", 2, "has no unit"),
            ("[network]\nlatency = \"50 parsecs\"\n", 2, "us"),
            ("rate = 1\n[network.icn3]\nports = 4\n", 2, "icn2"),
            ("service = \"poisson\"\n", 1, "exponential, deterministic"),
            ("clusters = \"four\"\n", 1, ""),
            ("clusters = [\n", 1, ""),
            ("nodes_per_cluster = 4\ntotal_nodes = 8\n", 2, "not both"),
            ("rate = []\n", 1, "empty list"),
            ("rate = -3\n", 1, "messages per second"),
            ("message_size = [512, \"1 parsec\"]\n", 1, "'1 parsec'"),
            ("clusters = -3\n", 1, "u32"),
        ];
        for (text, line, needle) in cases {
            let e = parse_config(text, "p.toml").unwrap_err();
            assert_eq!(e.path, "p.toml");
            assert!(e.line.is_some(), "{text:?}: {e}");
            if text != "clusters = [\n" {
                assert_eq!(e.line, Some(line), "{text:?}: {e}");
            }
            assert!(e.to_string().starts_with("p.toml:"), "{e}");
            assert!(e.message.contains(needle), "{text:?}: {e}");
        }
    }
}
