//! The values given for a run, from a file or from flags ([`Config`]), and how the layers
//! combine: flags over the file, one network's settings over all networks'.

use super::NetworkSettings;
use crate::queueing::{Architecture, Ecn1Mode, Service, Sources};

/// The values given for a run by a parameter file or by flags; everything is optional
/// (what is left open takes the defaults of
/// [`Scenario::from_config`](crate::queueing::sweep::Scenario::from_config)).
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
    /// Settings of one network (`[network.icn1]` …), by
    /// [`Centre::index`](crate::queueing::Centre::index).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queueing::params::{parse_config, Preset};

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
}
