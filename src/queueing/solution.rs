//! Solving the model: the waiting time of one centre, the effective-rate fixed point, and
//! the per-centre and end-to-end results ([`Solution`]) of a [`System`].

use super::system::{saturation, CentreSetup};
use super::{Centre, QueueError, Service, Sources, System};

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
    /// The mean latency by Little's law, `L/(N·λ_eff)` for `total_nodes` processors: equal
    /// to [`Solution::latency`], so a check of the solution. `None` when nothing is sent.
    pub(crate) fn little_latency(&self, total_nodes: u64) -> Option<f64> {
        (self.lambda_eff > 0.0).then(|| self.population / (total_nodes as f64 * self.lambda_eff))
    }

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
    check_offered_load(&setup, lambda)?;
    let (saturation_rate, bottleneck) = saturation(&setup);
    let n = system.total_nodes() as f64;
    let (lambda_eff, iterations) = match system.sources {
        Sources::Open => (lambda, 0),
        Sources::Blocking => fixed_point(lambda, n, |x| population_at(&setup, system.service, x))?,
    };
    let centres = evaluate_centres(&setup, system.service, lambda_eff);
    let population = centres
        .iter()
        .fold(0.0, |sum, r| sum + r.copies as f64 * r.population);
    let p = system.remote_probability();
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

/// The [`QueueError::Saturated`] of the centre with the largest utilisation when every
/// processor sends at `lambda` and some centre's utilisation reaches 1.
fn check_offered_load(setup: &[CentreSetup; 3], lambda: f64) -> Result<(), QueueError> {
    let mut worst: Option<(Centre, f64)> = None;
    for centre in Centre::ALL {
        let s = &setup[centre.index()];
        let rho = s.rate_factor * s.service * lambda;
        if rho >= 1.0 && !matches!(worst, Some((_, r)) if r >= rho) {
            worst = Some((centre, rho));
        }
    }
    match worst {
        None => Ok(()),
        Some((centre, utilisation)) => {
            let s = &setup[centre.index()];
            Err(QueueError::Saturated {
                centre,
                utilisation,
                rate: lambda,
                limit: 1.0 / (s.rate_factor * s.service),
            })
        }
    }
}

/// Every centre at the per-processor rate `lambda_eff`.
fn evaluate_centres(
    setup: &[CentreSetup; 3],
    service: Service,
    lambda_eff: f64,
) -> [CentreResult; 3] {
    Centre::ALL.map(|centre| {
        let s = &setup[centre.index()];
        let arrival_rate = s.rate_factor * lambda_eff;
        let utilisation = arrival_rate * s.service;
        let waiting = waiting_time(service, utilisation, s.service);
        let sojourn = waiting + s.service;
        CentreResult {
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
        }
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
    use crate::queueing::{Architecture, Ecn1Mode, Network};

    /// The spec's regression setting (§8): Gigabit Ethernet, k = 24, t_sw = 2 µs.
    fn regression_system(clusters: u32, arch: Architecture, size: f64) -> System {
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
                    let little = s.little_latency(sys.total_nodes()).unwrap();
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
