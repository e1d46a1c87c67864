//! The choices of the model: the three kinds of network (centres), how a network's
//! switches are arranged, the service-time distribution, how the ECN1 is queued and how
//! the processors send. Their names in flags and files are read by [`super::params`].

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
    pub(crate) fn kendall(self) -> &'static str {
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
