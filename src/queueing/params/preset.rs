//! Network presets (named hardware with the sources of its values) and the settings
//! given for one network over a preset.

use crate::queueing::{Architecture, Network};
use std::fmt;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
