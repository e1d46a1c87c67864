//! The TOML parameter file of `orcs queue`: its schema, the quantities and names it
//! accepts, and the errors that give the file, the line and what was expected.

use super::units::{parse_bandwidth, parse_rate, parse_size, parse_time};
use super::units::{RATE_FORMS, SIZE_FORMS, TIME_FORMS};
use super::{Config, NetworkSettings, Preset};
use crate::error::LocatedError;
use crate::queueing::{Architecture, Centre, Ecn1Mode, QueueError, Service, Sources};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt;
use std::str::FromStr;

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
    parse: fn(&str) -> Result<f64, QueueError>,
    bare_ok: bool,
    what: &'static str,
) -> Result<f64, D::Error> {
    struct V {
        parse: fn(&str) -> Result<f64, QueueError>,
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

impl FileConfig {
    /// The values the file gives.
    fn into_config(self) -> Config {
        let mut config = Config {
            clusters: self.clusters.map(OneOrMany::into_vec),
            nodes_per_cluster: self.nodes_per_cluster,
            total_nodes: self.total_nodes,
            rate: self
                .rate
                .map(|r| r.into_vec().into_iter().map(|r| r.0).collect()),
            message_size: self
                .message_size
                .map(|m| m.into_vec().into_iter().map(|m| m.0).collect()),
            service: self.service.map(|n| n.0),
            ecn1: self.ecn1.map(|n| n.0),
            sources: self.sources.map(|n| n.0),
            ..Config::default()
        };
        if let Some(n) = self.network {
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
        config
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
pub fn parse_config(text: &str, path: &str) -> Result<Config, QueueError> {
    let file: FileConfig = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        LocatedError::at(path, line.map(line_number), e.message().trim())
    })?;
    let config = file.into_config();
    check_values(&config, text, path)?;
    Ok(config)
}

/// The checks the schema cannot make: N and N0 are exclusive, and lists are not empty.
fn check_values(config: &Config, text: &str, path: &str) -> Result<(), LocatedError> {
    let at_key = |key: &str, message: String| {
        LocatedError::at(path, line_of(text, key).map(line_number), message)
    };
    if config.nodes_per_cluster.is_some() && config.total_nodes.is_some() {
        return Err(at_key(
            "total_nodes",
            "give either nodes_per_cluster or total_nodes, not both".to_string(),
        ));
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
            return Err(at_key(
                key,
                format!("{key} is an empty list; expected a value or a list of values"),
            ));
        }
    }
    Ok(())
}

/// A 1-based line for [`LocatedError`] (a file of more than 4 billion lines is not a
/// parameter file; its line saturates).
fn line_number(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
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
            let e = match parse_config(text, "p.toml") {
                Err(QueueError::File(e)) => e,
                other => panic!("{text:?}: {other:?}"),
            };
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
