//! Analytical mean message latency of multi-cluster systems: each network a queueing
//! centre of an open Jackson network, closed by the effective-rate fixed point
//! (Javadi, Abawajy, Akbari, "Performance Analysis of Interconnection Networks for
//! Multi-cluster Systems", ICCS 2005).
//!
//! The system has C clusters of N0 processors. Every cluster has an intra-cluster network
//! ICN1 and an inter-cluster network ECN1 (its gateway to the others); one global ICN2
//! connects the clusters. Each processor sends messages of M bytes as a Poisson stream of
//! rate λ to destinations chosen uniformly among the N − 1 others, so a message leaves its
//! cluster with probability `P = (C−1)N0 / (CN0 − 1)`. A local message crosses its ICN1;
//! a remote one its ECN1, the ICN2 and the destination's ECN1.
//!
//! Every network is a single-server FIFO centre whose service time S is the time to move
//! one message through it: software/NIC latency, serialisation at the link bandwidth and
//! the switches crossed, either cut-through through a non-blocking fat tree or
//! store-and-forward along a blocking linear array of switches ([`hops`]). With
//! exponential service (M/M/1, the default) the centres form a Jackson network and
//! `T = S/(1−ρ)` is exact; with deterministic service (M/D/1, fixed M) the
//! Pollaczek–Khinchine waiting time `ρS/(2(1−ρ))` is used per centre. Processors that wait
//! for a message cannot send, so the rate is corrected to `λ_eff = λ(N−L)/N` with L the
//! messages in flight, solved as a fixed point ([`solve`]). [`des`] simulates the same
//! network event by event to check the formulas and [`sweep`] evaluates parameter grids;
//! [`crate::report::queue`] turns results into text, JSON and CSV and
//! [`crate::viz::queue_plot`] draws them.

pub mod des;
pub mod hops;
pub mod params;
pub mod sweep;

use std::fmt;

/// One kind of network of the multi-cluster system, a queueing centre of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Centre {
    /// ICN1: the intra-cluster network of one cluster (C copies).
    Icn1,
    /// ECN1: the inter-cluster network (gateway) of one cluster (C copies, or 2C directional
    /// queues with [`Ecn1Mode::Split`]).
    Ecn1,
    /// ICN2: the global network between the clusters (one copy).
    Icn2,
}

impl Centre {
    /// The three centres in the order of every per-centre array.
    pub const ALL: [Centre; 3] = [Centre::Icn1, Centre::Ecn1, Centre::Icn2];

    /// The centre's name: `ICN1`, `ECN1` or `ICN2`.
    pub fn name(self) -> &'static str {
        match self {
            Centre::Icn1 => "ICN1",
            Centre::Ecn1 => "ECN1",
            Centre::Icn2 => "ICN2",
        }
    }

    /// Lower-case key used in files and column names: `icn1`, `ecn1`, `icn2`.
    pub fn key(self) -> &'static str {
        match self {
            Centre::Icn1 => "icn1",
            Centre::Ecn1 => "ecn1",
            Centre::Icn2 => "icn2",
        }
    }

    /// Index into per-centre arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Centre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the switches of one network are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Architecture {
    /// Non-blocking multistage fat tree (m-port n-tree), cut-through:
    /// `S = t_o + M/B + h̄·t_sw`.
    NonBlocking,
    /// Blocking linear array of switches, store-and-forward at every switch:
    /// `S = t_o + h̄·(M/B + t_sw)` (the message is serialised at least once when a
    /// measured h̄ is below 1).
    Blocking,
}

impl Architecture {
    /// Both architectures.
    pub const ALL: [Architecture; 2] = [Architecture::NonBlocking, Architecture::Blocking];

    /// The name used in flags and files: `non-blocking` or `blocking`.
    pub fn name(self) -> &'static str {
        match self {
            Architecture::NonBlocking => "non-blocking",
            Architecture::Blocking => "blocking",
        }
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The service-time distribution of every centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Service {
    /// Exponential service (M/M/1): the Jackson network, `T_W = ρS/(1−ρ)`.
    Exponential,
    /// Deterministic service for a fixed message size (M/D/1):
    /// `T_W = ρS/(2(1−ρ))` (Pollaczek–Khinchine).
    Deterministic,
}

impl Service {
    /// Both service models.
    pub const ALL: [Service; 2] = [Service::Exponential, Service::Deterministic];

    /// The name used in flags and files: `exponential` or `deterministic`.
    pub fn name(self) -> &'static str {
        match self {
            Service::Exponential => "exponential",
            Service::Deterministic => "deterministic",
        }
    }

    /// Kendall notation of one centre: `M/M/1` or `M/D/1`.
    pub fn kendall(self) -> &'static str {
        match self {
            Service::Exponential => "M/M/1",
            Service::Deterministic => "M/D/1",
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the ECN1 of a cluster is queued (the paper's `2·L_E1` term; see the spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ecn1Mode {
    /// One queue per cluster for outgoing and incoming messages, fed at `2N0Pλ`;
    /// population `L = C(L_I1 + L_E1) + L_I2`.
    Shared,
    /// Two directional queues per cluster, each fed at `N0Pλ`; population
    /// `L = C(L_I1 + 2·L_E1) + L_I2` (the paper's `2·L_E1` read literally).
    Split,
}

impl Ecn1Mode {
    /// Both modes.
    pub const ALL: [Ecn1Mode; 2] = [Ecn1Mode::Shared, Ecn1Mode::Split];

    /// The name used in flags and files: `shared` or `split`.
    pub fn name(self) -> &'static str {
        match self {
            Ecn1Mode::Shared => "shared",
            Ecn1Mode::Split => "split",
        }
    }
}

impl fmt::Display for Ecn1Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether processors keep sending while their messages are in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sources {
    /// A processor waiting for its message cannot send: the rate is corrected to
    /// `λ_eff = λ(N−L)/N` at the fixed point (the paper's model).
    Blocking,
    /// Every processor sends at λ regardless (an open network, `λ_eff = λ`).
    Open,
}

impl Sources {
    /// Both kinds.
    pub const ALL: [Sources; 2] = [Sources::Blocking, Sources::Open];

    /// The name used in flags and files: `blocking` or `open`.
    pub fn name(self) -> &'static str {
        match self {
            Sources::Blocking => "blocking",
            Sources::Open => "open",
        }
    }
}

impl fmt::Display for Sources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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

/// Why the model cannot be evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueueError {
    /// A parameter is out of range.
    #[error("invalid {name}: {reason}")]
    InvalidParameter {
        /// The parameter, as the user knows it.
        name: String,
        /// What is wrong and what was expected.
        reason: String,
    },
    /// The offered load reaches the capacity of a centre, so its queue has no steady state.
    #[error(
        "the {centre} is saturated: at λ = {rate} messages/s per processor its utilisation is {utilisation:.4} (≥ 1); it sustains λ < {} messages/s per processor",
        rate_text(*limit)
    )]
    Saturated {
        /// The centre with the largest utilisation.
        centre: Centre,
        /// Its utilisation at the offered rate.
        utilisation: f64,
        /// The offered rate λ.
        rate: f64,
        /// The largest rate the centre sustains.
        limit: f64,
    },
    /// The effective-rate fixed point was not found (not expected: the safeguarded
    /// iteration always converges).
    #[error("the effective rate did not converge after {iterations} iterations (last change {change:e})")]
    NoConvergence {
        /// Iterations made.
        iterations: u32,
        /// Last relative change.
        change: f64,
    },
    /// Switch counts could not be taken from the fabric.
    #[error("{0}")]
    Fabric(String),
}

/// A rate for people: six significant digits, in scientific notation when small.
pub fn rate_text(rate: f64) -> String {
    if rate == 0.0 || (1e-2..1e9).contains(&rate.abs()) {
        let digits = (5 - rate.abs().log10().floor().max(0.0) as i32).max(0) as usize;
        format!("{rate:.digits$}")
    } else {
        format!("{rate:.5e}")
    }
}

fn invalid(name: &str, reason: impl Into<String>) -> QueueError {
    QueueError::InvalidParameter {
        name: name.to_string(),
        reason: reason.into(),
    }
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

/// Mean waiting time in a single-server FIFO centre with Poisson arrivals, service time
/// (mean) `s` and utilisation `rho` < 1. O(1).
pub fn waiting_time(service: Service, rho: f64, s: f64) -> f64 {
    match service {
        Service::Exponential => rho * s / (1.0 - rho),
        Service::Deterministic => rho * s / (2.0 * (1.0 - rho)),
    }
}

/// The results for one centre (one copy of it; all copies are alike).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CentreResult {
    /// Which centre.
    pub centre: Centre,
    /// Number of identical queues of this kind in the system.
    pub copies: u32,
    /// Endpoints of the network (N0 for ICN1 and ECN1, C for ICN2).
    pub endpoints: u32,
    /// Mean number of switches a message crosses, h̄.
    pub switches: f64,
    /// Arrival rate λ_x of one queue, messages per second (computed with λ_eff).
    pub arrival_rate: f64,
    /// Mean service time S_x, seconds.
    pub service: f64,
    /// Utilisation ρ_x = λ_x·S_x.
    pub utilisation: f64,
    /// Mean waiting time T_W, seconds.
    pub waiting: f64,
    /// Mean transfer (service) time T_B = S_x, seconds.
    pub transfer: f64,
    /// Mean sojourn time T = T_W + T_B, seconds.
    pub sojourn: f64,
    /// Mean number of messages in one queue, L_x = λ_x·T (Little).
    pub population: f64,
}

/// The solved model.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// P, the probability that a message leaves its cluster.
    pub remote_probability: f64,
    /// The effective rate λ_eff per processor (λ itself with [`Sources::Open`]).
    pub lambda_eff: f64,
    /// Fixed-point iterations made (0 when no correction was needed).
    pub iterations: u32,
    /// Per centre, indexed by [`Centre::index`].
    pub centres: [CentreResult; 3],
    /// L, the mean number of messages in flight in the whole system.
    pub population: f64,
    /// Mean message latency T_C = (1−P)·T_I1 + P·(2·T_E1 + T_I2), seconds.
    pub latency: f64,
    /// The waiting part of T_C, seconds.
    pub waiting: f64,
    /// The transfer part of T_C (the no-load latency), seconds.
    pub transfer: f64,
    /// The offered rate λ at which the first centre saturates (∞ when nothing is sent).
    pub saturation_rate: f64,
    /// The centre that saturates first.
    pub bottleneck: Centre,
}

impl Solution {
    /// The centre with the largest utilisation and that utilisation.
    pub fn busiest(&self) -> (Centre, f64) {
        self.centres
            .iter()
            .fold((Centre::Icn1, f64::NEG_INFINITY), |(c, u), r| {
                if r.utilisation > u {
                    (r.centre, r.utilisation)
                } else {
                    (c, u)
                }
            })
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
    pub fn validate(&self) -> Result<(), QueueError> {
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
}

/// Relative change at which the fixed-point iteration stops.
pub const FIXED_POINT_TOLERANCE: f64 = 1e-12;
/// Iterations after which the fixed point is given up (never reached in practice).
const MAX_ITERATIONS: u32 = 10_000;

/// Total population L at per-processor rate `x` (∞ when a centre is saturated).
fn population_at(setup: &[CentreSetup; 3], service: Service, x: f64) -> f64 {
    setup
        .iter()
        .map(|s| {
            let lambda = s.rate_factor * x;
            let rho = lambda * s.service;
            if rho >= 1.0 {
                return f64::INFINITY;
            }
            let t = s.service + waiting_time(service, rho, s.service);
            s.copies as f64 * lambda * t
        })
        .sum()
}

/// Solves the model: checks the parameters and the offered load, finds λ_eff, and
/// evaluates every centre and the end-to-end latency.
///
/// Saturation is judged on the offered load, every processor sending at λ: if some
/// centre's `ρ_x = λ_x·S_x ≥ 1` there, its queue has no steady state and the error names
/// the centre with the largest utilisation. Otherwise `g(x) = λ(N − L(x))/N − x` is
/// continuous and strictly decreasing on [0, λ] with `g(0) ≥ 0 ≥ g(λ)`, so the fixed point
/// is unique. It is found by the plain iteration `x ← λ(N − L(x))/N` from `x = λ`,
/// safeguarded by a bracket that falls back to bisection whenever an iterate leaves it,
/// until the relative change is below [`FIXED_POINT_TOLERANCE`]. Each iteration is O(1);
/// the plain iteration converges geometrically (a few dozen steps even near saturation),
/// bisection in at most ~60 steps.
pub fn solve(system: &System) -> Result<Solution, QueueError> {
    system.validate()?;
    let setup = system.setup();
    let lambda = system.rate;
    let n = system.total_nodes() as f64;
    // Offered-load saturation.
    let mut saturation_rate = f64::INFINITY;
    let mut bottleneck = Centre::Icn2;
    let mut worst: Option<(Centre, f64)> = None;
    for centre in Centre::ALL {
        let s = &setup[centre.index()];
        let per_unit = s.rate_factor * s.service;
        if per_unit > 0.0 && 1.0 / per_unit < saturation_rate {
            saturation_rate = 1.0 / per_unit;
            bottleneck = centre;
        }
        let rho = per_unit * lambda;
        if rho >= 1.0 && !matches!(worst, Some((_, r)) if r >= rho) {
            worst = Some((centre, rho));
        }
    }
    if let Some((centre, utilisation)) = worst {
        let s = &setup[centre.index()];
        return Err(QueueError::Saturated {
            centre,
            utilisation,
            rate: lambda,
            limit: 1.0 / (s.rate_factor * s.service),
        });
    }
    let (lambda_eff, iterations) = match system.sources {
        Sources::Open => (lambda, 0),
        Sources::Blocking => fixed_point(lambda, n, |x| population_at(&setup, system.service, x))?,
    };
    let p = remote_probability(system.clusters, system.nodes_per_cluster);
    let mut centres = [CentreResult {
        centre: Centre::Icn1,
        copies: 0,
        endpoints: 0,
        switches: 0.0,
        arrival_rate: 0.0,
        service: 0.0,
        utilisation: 0.0,
        waiting: 0.0,
        transfer: 0.0,
        sojourn: 0.0,
        population: 0.0,
    }; 3];
    let mut population = 0.0;
    for centre in Centre::ALL {
        let s = &setup[centre.index()];
        let arrival_rate = s.rate_factor * lambda_eff;
        let utilisation = arrival_rate * s.service;
        let waiting = waiting_time(system.service, utilisation, s.service);
        let sojourn = waiting + s.service;
        let r = CentreResult {
            centre,
            copies: s.copies,
            endpoints: s.endpoints,
            switches: s.switches,
            arrival_rate,
            service: s.service,
            utilisation,
            waiting,
            transfer: s.service,
            sojourn,
            population: arrival_rate * sojourn,
        };
        population += s.copies as f64 * r.population;
        centres[centre.index()] = r;
    }
    let path = |f: fn(&CentreResult) -> f64| {
        let [i1, e1, i2] = &centres;
        (1.0 - p) * f(i1) + p * (2.0 * f(e1) + f(i2))
    };
    Ok(Solution {
        remote_probability: p,
        lambda_eff,
        iterations,
        population,
        latency: path(|r| r.sojourn),
        waiting: path(|r| r.waiting),
        transfer: path(|r| r.transfer),
        centres,
        saturation_rate,
        bottleneck,
    })
}

/// The root of `x = λ(N − L(x))/N` in [0, λ] for a non-decreasing L with L(0) = 0,
/// and the number of iterations (see [`solve`]).
fn fixed_point(
    lambda: f64,
    n: f64,
    population: impl Fn(f64) -> f64,
) -> Result<(f64, u32), QueueError> {
    if lambda == 0.0 {
        return Ok((0.0, 0));
    }
    let f = |x: f64| lambda * (n - population(x)) / n;
    // g(lo) ≥ 0 ≥ g(hi) with g(x) = f(x) − x.
    let (mut lo, mut hi) = (0.0f64, lambda);
    let mut x = lambda;
    let mut change = f64::INFINITY;
    for k in 1..=MAX_ITERATIONS {
        let fx = f(x);
        if fx >= x {
            lo = x;
        }
        if fx <= x {
            hi = x;
        }
        let next = if fx > lo && fx < hi {
            fx
        } else {
            0.5 * (lo + hi)
        };
        change = (next - x).abs() / next.abs().max(f64::MIN_POSITIVE);
        x = next;
        if change < FIXED_POINT_TOLERANCE || lo == hi {
            return Ok((x, k));
        }
    }
    Err(QueueError::NoConvergence {
        iterations: MAX_ITERATIONS,
        change,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's regression setting (§8): Gigabit Ethernet, k = 24, t_sw = 2 µs.
    pub(crate) fn regression_system(clusters: u32, arch: Architecture, size: f64) -> System {
        let net = Network {
            bandwidth: 125e6,
            latency: 50e-6,
            switch_latency: 2e-6,
            ports: 24,
            architecture: arch,
        };
        System {
            clusters,
            nodes_per_cluster: 256 / clusters,
            rate: 20.0,
            message_size: size,
            networks: [net; 3],
            service: Service::Exponential,
            ecn1: Ecn1Mode::Shared,
            sources: Sources::Blocking,
            measured_hops: None,
        }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

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
    fn regression_table_c4_detail() {
        let s = solve(&regression_system(4, Architecture::NonBlocking, 1024.0)).unwrap();
        let rho: Vec<f64> = s.centres.iter().map(|c| c.utilisation).collect();
        for (got, want) in rho.iter().zip([0.020005, 0.121937, 0.231194]) {
            assert!((got - want).abs() < 5e-7, "{rho:?}");
        }
        assert!((s.population - 0.937856).abs() < 5e-7, "{}", s.population);
        assert!((s.lambda_eff - 19.92673).abs() < 5e-6, "{}", s.lambda_eff);
        assert!((s.centres[0].service * 1e6 - 63.4936).abs() < 5e-5);
    }

    #[test]
    fn latency_is_population_over_throughput_in_both_ecn1_modes() {
        for ecn1 in Ecn1Mode::ALL {
            for service in Service::ALL {
                for c in [2, 4, 8, 32] {
                    let mut sys = regression_system(c, Architecture::Blocking, 1024.0);
                    sys.ecn1 = ecn1;
                    sys.service = service;
                    sys.rate = 60.0;
                    let s = solve(&sys).unwrap();
                    let n = sys.total_nodes() as f64;
                    let little = s.population / (n * s.lambda_eff);
                    assert!(close(s.latency, little, 1e-12), "{ecn1} {service} C={c}");
                    assert!(close(s.latency, s.waiting + s.transfer, 1e-12));
                }
            }
        }
    }

    #[test]
    fn fixed_point_holds_at_the_solution() {
        let mut sys = regression_system(8, Architecture::NonBlocking, 1024.0);
        sys.rate = 70.0;
        let s = solve(&sys).unwrap();
        let n = sys.total_nodes() as f64;
        let again = sys.rate * (n - s.population) / n;
        assert!(
            close(s.lambda_eff, again, 1e-11),
            "{} {again}",
            s.lambda_eff
        );
        assert!(s.lambda_eff < sys.rate);
    }

    #[test]
    fn fixed_point_survives_a_population_above_n_at_the_offered_rate() {
        // Close to saturation L(λ) exceeds N, where the plain iteration would give a
        // negative rate; the bracket keeps it in (0, λ).
        let mut sys = regression_system(4, Architecture::NonBlocking, 1024.0);
        let limit = solve(&sys).unwrap().saturation_rate;
        sys.rate = limit * (1.0 - 1e-6);
        let setup = sys.setup();
        assert!(population_at(&setup, sys.service, sys.rate) > 256.0);
        let s = solve(&sys).unwrap();
        let n = 256.0;
        assert!(s.population < n);
        assert!(close(
            s.lambda_eff,
            sys.rate * (n - s.population) / n,
            1e-11
        ));
    }

    #[test]
    fn saturation_names_the_busiest_centre_exactly_at_rho_one() {
        let sys = regression_system(4, Architecture::NonBlocking, 1024.0);
        let limit = solve(&sys).unwrap().saturation_rate;
        let setup = sys.setup();
        let icn2 = &setup[Centre::Icn2.index()];
        assert_eq!(limit, 1.0 / (icn2.rate_factor * icn2.service));
        let mut over = sys.clone();
        over.rate = limit * 1.000001;
        match solve(&over) {
            Err(QueueError::Saturated {
                centre,
                utilisation,
                ..
            }) => {
                assert_eq!(centre, Centre::Icn2);
                assert!(utilisation >= 1.0);
            }
            other => panic!("{other:?}"),
        }
        let mut under = sys;
        under.rate = limit * 0.999999;
        assert!(solve(&under).is_ok());
    }

    #[test]
    fn rates_read_well() {
        assert_eq!(rate_text(86.190661238), "86.1907");
        assert_eq!(rate_text(4.3253771), "4.32538");
        assert_eq!(rate_text(1234.5678), "1234.57");
        assert_eq!(rate_text(0.0), "0.00000");
        assert_eq!(rate_text(1.5e-5), "1.50000e-5");
    }

    #[test]
    fn invalid_parameters_are_named() {
        let mut sys = regression_system(4, Architecture::NonBlocking, 1024.0);
        sys.networks[2].ports = 7;
        let e = solve(&sys).unwrap_err().to_string();
        assert!(
            e.contains("port count of the ICN2") && e.contains("even"),
            "{e}"
        );
        let mut sys = regression_system(4, Architecture::NonBlocking, 1024.0);
        sys.clusters = 1;
        sys.nodes_per_cluster = 1;
        assert!(solve(&sys).unwrap_err().to_string().contains("at least 2"));
        let mut sys = regression_system(4, Architecture::NonBlocking, 1024.0);
        sys.rate = f64::NAN;
        assert!(solve(&sys).unwrap_err().to_string().contains("rate"));
    }
}
