//! One set of model parameters ([`System`]): the hardware of the three networks, the
//! system's size and traffic, and the model's choices; their validation, and what they
//! imply before any queueing: the switches crossed, the service times, the arrival rate
//! of every queue and the rate at which the first of them saturates.

use super::error::invalid;
use super::{hops, Architecture, Centre, Ecn1Mode, QueueError, Service, Sources};

/// The hardware of one network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// Link bandwidth B in bytes per second.
    pub bandwidth: f64,
    /// End-to-end software and NIC latency t_o per message, in seconds.
    pub latency: f64,
    /// Latency of one switch t_sw, in seconds.
    pub switch_latency: f64,
    /// Ports per switch k (an even number ≥ 4); sets the closed-form switch counts.
    pub ports: u32,
    /// Fat tree or linear array.
    pub architecture: Architecture,
}

/// A complete set of model parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct System {
    /// Number of clusters C ≥ 1.
    pub clusters: u32,
    /// Processors per cluster N0 ≥ 1 (N = C·N0 ≥ 2).
    pub nodes_per_cluster: u32,
    /// Message rate λ per processor, messages per second.
    pub rate: f64,
    /// Message size M in bytes.
    pub message_size: f64,
    /// The ICN1, ECN1 and ICN2 hardware, indexed by [`Centre::index`].
    pub networks: [Network; 3],
    /// Service-time distribution.
    pub service: Service,
    /// ECN1 queueing.
    pub ecn1: Ecn1Mode,
    /// The effective-rate correction on or off.
    pub sources: Sources,
    /// Mean switches crossed per network, measured on a routed fabric
    /// ([`hops::FabricRoutes`]); `None` uses the closed forms of [`hops`].
    pub measured_hops: Option<[f64; 3]>,
}

/// Probability that a message leaves its cluster: `P = (C−1)N0 / (CN0 − 1)` (uniform
/// destinations among the other N − 1 processors). O(1).
pub fn remote_probability(clusters: u32, nodes_per_cluster: u32) -> f64 {
    let c = clusters as f64;
    let n0 = nodes_per_cluster as f64;
    (c - 1.0) * n0 / (c * n0 - 1.0)
}

/// Service time of one message of `message_size` bytes through `net` when it crosses
/// `switches` switches on average (see [`Architecture`]). O(1).
pub fn service_time(net: &Network, message_size: f64, switches: f64) -> f64 {
    let serialise = message_size / net.bandwidth;
    match net.architecture {
        Architecture::NonBlocking => net.latency + serialise + switches * net.switch_latency,
        Architecture::Blocking => {
            net.latency + switches.max(1.0) * serialise + switches * net.switch_latency
        }
    }
}

/// Per-centre constants of a validated system: copies, endpoints, switches, service time,
/// and the arrival rate of one queue per unit of the per-processor rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CentreSetup {
    /// Number of identical queues.
    pub copies: u32,
    /// Endpoints of the network.
    pub endpoints: u32,
    /// Mean switches crossed.
    pub switches: f64,
    /// Mean service time, seconds.
    pub service: f64,
    /// λ_x / λ_eff for one queue.
    pub rate_factor: f64,
}

impl System {
    /// Total processors N = C·N0.
    pub fn total_nodes(&self) -> u64 {
        self.clusters as u64 * self.nodes_per_cluster as u64
    }

    /// The network of `centre`.
    pub fn network(&self, centre: Centre) -> &Network {
        &self.networks[centre.index()]
    }

    /// Checks every parameter; errors name the parameter and the expected range.
    pub(crate) fn validate(&self) -> Result<(), QueueError> {
        if self.clusters == 0 {
            return Err(invalid("number of clusters C", "must be at least 1"));
        }
        if self.nodes_per_cluster == 0 {
            return Err(invalid("processors per cluster N0", "must be at least 1"));
        }
        if self.total_nodes() < 2 {
            return Err(invalid(
                "system size N = C·N0",
                "must be at least 2 processors, or no message has a destination",
            ));
        }
        if self.total_nodes() > u32::MAX as u64 {
            return Err(invalid(
                "system size N = C·N0",
                format!("must be at most {} processors", u32::MAX),
            ));
        }
        if !(self.rate.is_finite() && self.rate >= 0.0) {
            return Err(invalid(
                "message rate λ",
                format!("must be a finite number ≥ 0 messages/s, got {}", self.rate),
            ));
        }
        if !(self.message_size.is_finite() && self.message_size >= 0.0) {
            return Err(invalid(
                "message size M",
                format!(
                    "must be a finite number ≥ 0 bytes, got {}",
                    self.message_size
                ),
            ));
        }
        for centre in Centre::ALL {
            let net = self.network(centre);
            let name = |what: &str| format!("{what} of the {centre}");
            if !(net.bandwidth.is_finite() && net.bandwidth > 0.0) {
                return Err(invalid(
                    &name("bandwidth"),
                    format!("must be a finite number > 0 bytes/s, got {}", net.bandwidth),
                ));
            }
            if !(net.latency.is_finite() && net.latency >= 0.0) {
                return Err(invalid(
                    &name("latency"),
                    format!("must be a finite number ≥ 0 s, got {}", net.latency),
                ));
            }
            if !(net.switch_latency.is_finite() && net.switch_latency >= 0.0) {
                return Err(invalid(
                    &name("switch latency"),
                    format!("must be a finite number ≥ 0 s, got {}", net.switch_latency),
                ));
            }
            if self.measured_hops.is_none() && (net.ports < 4 || net.ports % 2 != 0) {
                return Err(invalid(
                    &name("switch port count"),
                    format!("must be an even number ≥ 4, got {}", net.ports),
                ));
            }
        }
        if let Some(h) = self.measured_hops {
            if let Some((i, v)) = h
                .iter()
                .enumerate()
                .find(|(_, v)| !(v.is_finite() && **v >= 0.0))
            {
                return Err(invalid(
                    &format!("measured switch count of the {}", Centre::ALL[i]),
                    format!("must be a finite number ≥ 0, got {v}"),
                ));
            }
        }
        Ok(())
    }

    /// Mean switches crossed in each network: measured, or the closed forms of [`hops`]
    /// for the network's architecture and endpoint count. O(log N) with closed forms.
    pub fn switches(&self) -> [f64; 3] {
        if let Some(h) = self.measured_hops {
            return h;
        }
        let n = [
            self.nodes_per_cluster,
            self.nodes_per_cluster,
            self.clusters,
        ];
        let mut out = [0.0; 3];
        for centre in Centre::ALL {
            let net = self.network(centre);
            let i = centre.index();
            out[i] = match net.architecture {
                Architecture::NonBlocking => hops::fat_tree_switches(n[i], net.ports),
                Architecture::Blocking => hops::linear_array_switches(n[i], net.ports),
            };
        }
        out
    }

    /// The per-centre constants (see [`CentreSetup`]); the system must be valid. O(log N).
    pub fn setup(&self) -> [CentreSetup; 3] {
        let p = remote_probability(self.clusters, self.nodes_per_cluster);
        let n0 = self.nodes_per_cluster as f64;
        let c = self.clusters as f64;
        let switches = self.switches();
        let (ecn1_copies, ecn1_factor) = match self.ecn1 {
            Ecn1Mode::Shared => (self.clusters, 2.0 * n0 * p),
            Ecn1Mode::Split => (2 * self.clusters, n0 * p),
        };
        let copies = [self.clusters, ecn1_copies, 1];
        let endpoints = [
            self.nodes_per_cluster,
            self.nodes_per_cluster,
            self.clusters,
        ];
        let factors = [n0 * (1.0 - p), ecn1_factor, c * n0 * p];
        let mut out = [CentreSetup {
            copies: 0,
            endpoints: 0,
            switches: 0.0,
            service: 0.0,
            rate_factor: 0.0,
        }; 3];
        for centre in Centre::ALL {
            let i = centre.index();
            out[i] = CentreSetup {
                copies: copies[i],
                endpoints: endpoints[i],
                switches: switches[i],
                service: service_time(self.network(centre), self.message_size, switches[i]),
                rate_factor: factors[i],
            };
        }
        out
    }

    /// P, the probability that a message leaves its cluster (see [`remote_probability`]).
    pub fn remote_probability(&self) -> f64 {
        remote_probability(self.clusters, self.nodes_per_cluster)
    }

    /// The offered rate λ per processor at which the first centre saturates (ρ = 1), and
    /// that centre: ∞ and the ICN2 when no centre carries traffic; of centres that saturate
    /// together, the first in [`Centre::ALL`]. The system must be valid. O(log N).
    pub fn saturation(&self) -> (f64, Centre) {
        saturation(&self.setup())
    }
}

/// [`System::saturation`] from the per-centre constants.
pub(crate) fn saturation(setup: &[CentreSetup; 3]) -> (f64, Centre) {
    let mut rate = f64::INFINITY;
    let mut bottleneck = Centre::Icn2;
    for centre in Centre::ALL {
        let s = &setup[centre.index()];
        let per_unit = s.rate_factor * s.service;
        if per_unit > 0.0 && 1.0 / per_unit < rate {
            rate = 1.0 / per_unit;
            bottleneck = centre;
        }
    }
    (rate, bottleneck)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_probability_matches_the_spec() {
        assert_eq!(remote_probability(1, 256), 0.0);
        for (c, p) in [
            (2, 0.50196),
            (4, 0.75294),
            (8, 0.87843),
            (16, 0.94118),
            (32, 0.97255),
        ] {
            let got = remote_probability(c, 256 / c);
            assert!((got - p).abs() < 5e-6, "C = {c}: {got}");
        }
        // Exact: (C−1)N0/(CN0−1) = 192/255 for C = 4, N0 = 64.
        assert_eq!(remote_probability(4, 64), 192.0 / 255.0);
    }
    #[test]
    fn saturation_is_the_solutions_and_ignores_the_offered_rate() {
        let net = Network {
            bandwidth: 125e6,
            latency: 50e-6,
            switch_latency: 2e-6,
            ports: 24,
            architecture: Architecture::NonBlocking,
        };
        let mut sys = System {
            clusters: 4,
            nodes_per_cluster: 64,
            rate: 20.0,
            message_size: 1024.0,
            networks: [net; 3],
            service: Service::Exponential,
            ecn1: Ecn1Mode::Shared,
            sources: Sources::Blocking,
            measured_hops: None,
        };
        let s = crate::queueing::solve(&sys).unwrap();
        assert_eq!(sys.saturation(), (s.saturation_rate, s.bottleneck));
        assert_eq!(sys.remote_probability(), s.remote_probability);
        sys.rate = 2.0 * s.saturation_rate;
        assert_eq!(sys.saturation(), (s.saturation_rate, Centre::Icn2));
        // Nothing sent anywhere: no centre saturates.
        sys.message_size = 0.0;
        sys.networks = [Network {
            latency: 0.0,
            switch_latency: 0.0,
            ..net
        }; 3];
        assert_eq!(sys.saturation(), (f64::INFINITY, Centre::Icn2));
    }
}
