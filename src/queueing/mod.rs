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
//!
//! The folder owns the model and everything about it that is not formatting: its choices
//! ([`Centre`], [`Architecture`], [`Service`], [`Ecn1Mode`], [`Sources`]), one set of
//! parameters ([`System`]) and its [`Solution`], the switch counts ([`hops`]), the
//! simulation ([`des`]), parameter grids ([`sweep`]), reading parameters from flags and
//! files ([`params`]), and its one error type ([`QueueError`]).
//!
//! It may use [`crate::fabric`] and [`crate::routing`] (switch counts measured on a routed
//! fabric), [`crate::engine::stream`] (the seeded random streams of every simulation) and
//! [`crate::error`]; never the exporters or the figures, which use it.

mod choices;
pub mod des;
mod error;
pub mod hops;
pub mod params;
mod solution;
pub mod sweep;
mod system;

pub use choices::{Architecture, Centre, Ecn1Mode, Service, Sources};
pub use error::{rate_text, QueueError};
pub use solution::{solve, waiting_time, CentreResult, Solution, FIXED_POINT_TOLERANCE};
pub use system::{remote_probability, service_time, CentreSetup, Network, System};
