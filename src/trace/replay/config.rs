//! The networks a trace is replayed on: latency/bandwidth configurations grouped into
//! interconnect families, the default grid, grids from flags and from TOML files.

use super::ReplayError;
use crate::error::LocatedError;
use crate::queueing::params::{parse_bandwidth, parse_time};
use serde::Deserialize;

/// One network: the Hockney parameters of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The interconnect family it belongs to (one bar chart each).
    pub family: String,
    /// Its name in tables (`QDR`, `QDR lat×2`, …).
    pub name: String,
    /// Time of one message, s (α).
    pub latency: f64,
    /// Bytes per second (1/β); infinite for a network with no bandwidth cost.
    pub bandwidth: f64,
}

impl Config {
    /// Seconds per byte, β.
    pub fn seconds_per_byte(&self) -> f64 {
        1.0 / self.bandwidth
    }
}

/// An interconnect family's nominal parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nominal {
    /// The family's name.
    pub name: &'static str,
    /// MPI latency, s.
    pub latency: f64,
    /// Link bandwidth, bytes per second.
    pub bandwidth: f64,
}

/// The families of the default grid: MPI ping-pong latencies and link data rates as
/// commonly quoted (Gigabit and 10-Gigabit Ethernet with TCP, InfiniBand QDR, EDR, HDR
/// 4x links).
pub const FAMILIES: [Nominal; 5] = [
    Nominal {
        name: "1GbE",
        latency: 50e-6,
        bandwidth: 125e6,
    },
    Nominal {
        name: "10GbE",
        latency: 5e-6,
        bandwidth: 1.25e9,
    },
    Nominal {
        name: "QDR",
        latency: 1.3e-6,
        bandwidth: 4e9,
    },
    Nominal {
        name: "EDR",
        latency: 1.0e-6,
        bandwidth: 12.5e9,
    },
    Nominal {
        name: "HDR",
        latency: 0.7e-6,
        bandwidth: 25e9,
    },
];

/// The factors a family's 21 configurations scale its nominal latency or bandwidth by,
/// besides the nominal one: 1/32 … 1/2 and 2 … 32.
pub const STEPS: [i32; 10] = [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5];

/// The 21 configurations of a family: the nominal one, then its latency times 2^s and
/// its bandwidth times 2^s for s in [`STEPS`] (each axis alone, the other nominal).
pub fn around(family: &str, latency: f64, bandwidth: f64) -> Vec<Config> {
    let mut out = vec![Config {
        family: family.to_string(),
        name: family.to_string(),
        latency,
        bandwidth,
    }];
    for s in STEPS {
        out.push(Config {
            family: family.to_string(),
            name: format!("{family} lat×{}", factor(s)),
            latency: latency * 2f64.powi(s),
            bandwidth,
        });
    }
    for s in STEPS {
        out.push(Config {
            family: family.to_string(),
            name: format!("{family} bw×{}", factor(s)),
            latency,
            bandwidth: bandwidth * 2f64.powi(s),
        });
    }
    out
}

/// 2^s as text: `4`, `1/8`.
fn factor(s: i32) -> String {
    if s >= 0 {
        format!("{}", 1u64 << s)
    } else {
        format!("1/{}", 1u64 << -s)
    }
}

/// The default grid: 21 configurations around each of [`FAMILIES`] (105 in all).
pub fn default_grid() -> Vec<Config> {
    FAMILIES
        .iter()
        .flat_map(|f| around(f.name, f.latency, f.bandwidth))
        .collect()
}

/// The grid of every latency with every bandwidth (family `grid`), as flags give them:
/// times with units (`1.3us`), bandwidths with units (`32Gb/s`) or `inf`.
pub fn product(latencies: &[String], bandwidths: &[String]) -> Result<Vec<Config>, ReplayError> {
    let mut out = Vec::new();
    for l in latencies {
        let latency = parse_time(l).map_err(|e| ReplayError::Config(e.to_string()))?;
        for b in bandwidths {
            let bandwidth = bandwidth(b).map_err(ReplayError::Config)?;
            out.push(Config {
                family: "grid".to_string(),
                name: format!("{} {}", l.trim(), b.trim()),
                latency,
                bandwidth,
            });
        }
    }
    Ok(out)
}

/// A bandwidth with its unit, or `inf`.
fn bandwidth(text: &str) -> Result<f64, String> {
    if matches!(text.trim(), "inf" | "infinite") {
        return Ok(f64::INFINITY);
    }
    let b = parse_bandwidth(text).map_err(|e| e.to_string())?;
    if b > 0.0 {
        Ok(b)
    } else {
        Err(format!("bandwidth '{text}' is not positive"))
    }
}

/// A grid file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    #[serde(default)]
    family: Vec<FamilyEntry>,
    #[serde(default)]
    config: Vec<ConfigEntry>,
}

/// `[[family]]`: 21 configurations around a nominal point.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyEntry {
    name: String,
    latency: String,
    bandwidth: String,
}

/// `[[config]]`: one configuration.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigEntry {
    family: String,
    name: Option<String>,
    latency: String,
    bandwidth: String,
}

/// Reads a grid file `path` with content `text`:
///
/// ```toml
/// [[family]]            # 21 configurations around these values
/// name = "NDR"
/// latency = "0.6us"
/// bandwidth = "400Gb/s"
///
/// [[config]]            # one configuration
/// family = "ideal"
/// name = "no network"   # optional
/// latency = "0s"
/// bandwidth = "inf"
/// ```
///
/// Families first, then single configurations, each in file order. Errors name the
/// file and line.
pub fn parse_grid(path: &str, text: &str) -> Result<Vec<Config>, ReplayError> {
    let file: GridFile = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() as u32 + 1);
        ReplayError::Input(LocatedError::at(path, line, e.message().to_string()))
    })?;
    let located = |key: &str, message: String| {
        ReplayError::Input(LocatedError::new(path, format!("{key}: {message}")))
    };
    let mut out = Vec::new();
    for f in &file.family {
        let latency = parse_time(&f.latency).map_err(|e| located(&f.name, e.to_string()))?;
        let bandwidth = bandwidth(&f.bandwidth).map_err(|e| located(&f.name, e))?;
        out.extend(around(&f.name, latency, bandwidth));
    }
    for c in &file.config {
        let name = c
            .name
            .clone()
            .unwrap_or_else(|| format!("{} {} {}", c.family, c.latency, c.bandwidth));
        let latency = parse_time(&c.latency).map_err(|e| located(&name, e.to_string()))?;
        let bandwidth = bandwidth(&c.bandwidth).map_err(|e| located(&name, e))?;
        out.push(Config {
            family: c.family.clone(),
            name,
            latency,
            bandwidth,
        });
    }
    if out.is_empty() {
        return Err(ReplayError::Input(LocatedError::new(
            path,
            "no configuration: expected [[family]] or [[config]] entries",
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_has_21_configurations_per_family_around_the_nominal_one() {
        let grid = default_grid();
        assert_eq!(grid.len(), 105);
        let qdr: Vec<&Config> = grid.iter().filter(|c| c.family == "QDR").collect();
        assert_eq!(qdr.len(), 21);
        assert_eq!((qdr[0].latency, qdr[0].bandwidth), (1.3e-6, 4e9));
        assert_eq!(qdr[0].seconds_per_byte(), 0.25e-9);
        assert_eq!(qdr[1].name, "QDR lat×1/32");
        assert!((qdr[1].latency - 1.3e-6 / 32.0).abs() < 1e-18);
        assert_eq!(qdr[10].name, "QDR lat×32");
        assert_eq!(qdr[11].name, "QDR bw×1/32");
        assert_eq!(qdr[20].bandwidth, 128e9);
        assert_eq!(grid[0].seconds_per_byte(), 8e-9);
    }

    #[test]
    fn flags_give_the_product_of_latencies_and_bandwidths() {
        let l = ["1us".to_string(), "0s".to_string()];
        let b = ["10Gb/s".to_string(), "inf".to_string()];
        let grid = product(&l, &b).unwrap();
        assert_eq!(grid.len(), 4);
        assert_eq!((grid[0].latency, grid[0].bandwidth), (1e-6, 1.25e9));
        assert_eq!(grid[3].seconds_per_byte(), 0.0);
        assert!(product(&["5".to_string()], &b).is_err());
        assert!(product(&l, &["0Gb/s".to_string()]).is_err());
    }

    #[test]
    fn a_grid_file_gives_families_then_configurations() {
        let text = "[[config]]\nfamily = \"x\"\nlatency = \"2us\"\nbandwidth = \"1GB/s\"\n\n[[family]]\nname = \"NDR\"\nlatency = \"0.6us\"\nbandwidth = \"400Gb/s\"\n";
        let grid = parse_grid("g.toml", text).unwrap();
        assert_eq!(grid.len(), 22);
        assert_eq!(grid[0].name, "NDR");
        assert_eq!(grid[21].name, "x 2us 1GB/s");
        assert_eq!(grid[21].bandwidth, 1e9);
        let bad = parse_grid("g.toml", "[[config]]\nfamily = \"x\"\nlatency = 3\n").unwrap_err();
        assert!(bad.to_string().contains("g.toml:3"), "{bad}");
        let bad = parse_grid(
            "g.toml",
            "[[family]]\nname = \"a\"\nlatency = \"1\"\nbandwidth = \"1GB/s\"\n",
        )
        .unwrap_err();
        assert!(
            bad.to_string().contains("g.toml") && bad.to_string().contains("a:"),
            "{bad}"
        );
        assert!(parse_grid("g.toml", "").is_err());
    }
}
