//! Discrete-event simulation of the multi-cluster queueing network, message by message,
//! to check the analytical model: independent replications with Student-t confidence
//! intervals, reproducible from one seed whatever the number of threads.
//!
//! Every queue of the system is simulated: C ICN1s, C ECN1s (2C directional ones with
//! [`Ecn1Mode::Split`]) and the ICN2, each a single FIFO server whose service times are
//! drawn independently at every visit (exponential with mean S, or exactly S). A message
//! goes from a uniformly chosen processor to a uniformly chosen other processor: through
//! its cluster's ICN1, or through its cluster's ECN1, the ICN2 and the destination
//! cluster's ECN1.
//!
//! With [`Sources::Open`] the processors send Poisson streams at the model's λ_eff: for
//! exponential service this is a Kelly (multi-class Jackson) network, so the analytical
//! per-centre sojourn `S/(1−ρ)` is exact and the simulated means must agree with it
//! within their confidence intervals; for deterministic service the Pollaczek–Khinchine
//! formula is exact at the ICN1 (fed by Poisson streams) and an approximation at the
//! centres fed by other centres. With [`Sources::Blocking`] every processor waits for its
//! message to arrive before it draws the time to its next one (exponential with mean
//! 1/λ), the system the effective-rate fixed point approximates.

use super::{Centre, Ecn1Mode, QueueError, Service, Solution, Sources, System};
use crate::engine::stream::{stream_rng, Stream};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// How to run the simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DesConfig {
    /// Open Poisson sources at λ_eff, or processors that wait for their messages.
    pub sources: Sources,
    /// Messages measured per replication, on average: the measurement window lasts
    /// `messages / (N·λ_eff)` seconds.
    pub messages: u64,
    /// Length of the warm-up before the window, as a fraction of the window (the system
    /// starts empty; messages created during the warm-up are not measured).
    pub warmup: f64,
    /// Independent replications (≥ 2), run in parallel.
    pub replications: u32,
    /// Seed of every random stream; replication i draws from the stream (seed, i).
    pub seed: u64,
    /// Confidence level of the intervals, in (0, 1).
    pub confidence: f64,
}

impl Default for DesConfig {
    fn default() -> Self {
        DesConfig {
            sources: Sources::Open,
            messages: 100_000,
            warmup: 0.1,
            replications: 20,
            seed: 1,
            confidence: 0.99,
        }
    }
}

/// A mean over replications with its confidence interval (Student's t, R − 1 degrees of
/// freedom).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Mean of the replications' means.
    pub mean: f64,
    /// Half width of the confidence interval.
    pub half_width: f64,
}

impl Estimate {
    /// The estimate from per-replication values at `confidence`; `None` for fewer than
    /// two values. O(values).
    pub fn of(values: &[f64], confidence: f64) -> Option<Estimate> {
        let r = values.len();
        if r < 2 {
            return None;
        }
        let n = r as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let t = StudentsT::new(0.0, 1.0, n - 1.0)
            .map(|d| d.inverse_cdf(0.5 + confidence / 2.0))
            .unwrap_or(f64::NAN);
        Some(Estimate {
            mean,
            half_width: t * (var / n).sqrt(),
        })
    }

    /// True if `x` lies in the interval (widened by rounding error, 1e−12 of the mean, so
    /// that a constant such as a deterministic service time matches itself).
    pub fn contains(&self, x: f64) -> bool {
        (x - self.mean).abs() <= self.half_width + 1e-12 * self.mean.abs()
    }

    /// The estimate, or `None` when nothing was measured (an end-to-end estimate of
    /// replications that delivered no message has a NaN mean).
    pub fn measured(&self) -> Option<&Estimate> {
        (!self.mean.is_nan()).then_some(self)
    }

    /// The distance of `x` from the mean in half widths (0 inside the middle, 1 at the
    /// edge of the interval).
    pub(crate) fn deviation(&self, x: f64) -> f64 {
        (x - self.mean).abs() / self.half_width
    }
}

/// How an analytical value relates to the simulated quantity it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Theory {
    /// The formula is exact for the simulated system: the simulated mean must agree with
    /// it within its confidence interval.
    Exact,
    /// The formula approximates the simulated system.
    Approximate,
}

impl Theory {
    /// The sojourn and waiting times of `centre` (`None`: end to end) under `service`,
    /// simulated with `sources`: exact with open sources for exponential service (a Kelly
    /// network) and at the ICN1 for deterministic service (fed by Poisson streams).
    pub(crate) fn of_times(service: Service, sources: Sources, centre: Option<Centre>) -> Theory {
        let open = sources == Sources::Open;
        if open && (service == Service::Exponential || centre == Some(Centre::Icn1)) {
            Theory::Exact
        } else {
            Theory::Approximate
        }
    }

    /// The utilisations `ρ = λ_x·S_x`, simulated with `sources`: exact with open sources,
    /// whatever the service.
    pub(crate) fn of_utilisation(sources: Sources) -> Theory {
        match sources {
            Sources::Open => Theory::Exact,
            Sources::Blocking => Theory::Approximate,
        }
    }
}

/// Simulated statistics of one kind of centre, pooled over its copies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CentreEstimate {
    /// Which centre.
    pub centre: Centre,
    /// Measured visits over all replications.
    pub visits: u64,
    /// Mean sojourn time per visit, seconds (`None` without visits).
    pub sojourn: Option<Estimate>,
    /// Mean waiting time per visit, seconds.
    pub waiting: Option<Estimate>,
    /// Utilisation: the busy share of the window, averaged over the copies.
    pub utilisation: Option<Estimate>,
}

/// What the simulation measured.
#[derive(Debug, Clone, PartialEq)]
pub struct DesResult {
    /// The settings it ran with.
    pub config: DesConfig,
    /// The per-processor rate that drove it: λ_eff (open) or λ (blocking), messages/s.
    pub rate: f64,
    /// Messages measured over all replications.
    pub messages: u64,
    /// Events processed over all replications.
    pub events: u64,
    /// Per centre, indexed by [`Centre::index`].
    pub centres: [CentreEstimate; 3],
    /// End-to-end latency per message, seconds.
    pub latency: Estimate,
    /// Its waiting part.
    pub waiting: Estimate,
    /// Its transfer part.
    pub transfer: Estimate,
    /// Messages sent per second per processor (λ_eff for blocking sources).
    pub throughput: Estimate,
}

/// Checks `config` for `system`'s solution and runs the replications in parallel on the
/// current rayon pool; the result depends only on the arguments.
///
/// Cost: O(R × (messages + warm-up) × (visits per message) × log(queue events pending))
/// time; O(N + messages in flight) memory per replication.
pub fn simulate(
    system: &System,
    solution: &Solution,
    config: &DesConfig,
) -> Result<DesResult, QueueError> {
    let bad = |name: &str, reason: &str| QueueError::InvalidParameter {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if config.replications < 2 {
        return Err(bad(
            "number of replications",
            "must be at least 2 for a confidence interval",
        ));
    }
    if config.messages == 0 {
        return Err(bad("messages per replication", "must be at least 1"));
    }
    if !(config.warmup.is_finite() && (0.0..=10.0).contains(&config.warmup)) {
        return Err(bad(
            "warm-up fraction",
            "must be between 0 and 10 (a share of the measurement window)",
        ));
    }
    if !(config.confidence > 0.0 && config.confidence < 1.0) {
        return Err(bad("confidence level", "must lie strictly between 0 and 1"));
    }
    if config.sources == Sources::Blocking && system.sources == Sources::Open {
        return Err(bad(
            "simulated sources",
            "blocking processors check the effective-rate correction, which open sources turn off",
        ));
    }
    if solution.lambda_eff <= 0.0 {
        return Err(bad(
            "message rate λ",
            "must be positive for a simulation (no message is ever sent at 0)",
        ));
    }
    let net = Net::new(system, solution, config);
    let reps: Vec<Replication> = (0..config.replications)
        .into_par_iter()
        .map(|i| net.run(&mut stream_rng(config.seed, Stream::Run(i as u64))))
        .collect();
    Ok(summarise(config, &net, &reps))
}

/// The simulated system, shared by the replications.
struct Net {
    sources: Sources,
    service: Service,
    processors: u32,
    per_cluster: u32,
    clusters: u32,
    /// Per queue: the centre it belongs to.
    kind: Vec<u8>,
    /// Mean service time per centre.
    mean_service: [f64; 3],
    copies: [u32; 3],
    ecn1: Ecn1Mode,
    /// Per-processor rate of the sources.
    rate: f64,
    window: (f64, f64),
}

impl Net {
    fn new(system: &System, solution: &Solution, config: &DesConfig) -> Net {
        let setup = system.setup();
        let c = system.clusters;
        let ecn1_queues = match system.ecn1 {
            Ecn1Mode::Shared => c,
            Ecn1Mode::Split => 2 * c,
        };
        let mut kind = vec![0u8; c as usize];
        kind.extend(std::iter::repeat_n(1u8, ecn1_queues as usize));
        kind.push(2);
        let n = system.total_nodes() as f64;
        let length = config.messages as f64 / (n * solution.lambda_eff);
        let start = config.warmup * length;
        Net {
            sources: config.sources,
            service: system.service,
            processors: system.total_nodes() as u32,
            per_cluster: system.nodes_per_cluster,
            clusters: c,
            kind,
            mean_service: [setup[0].service, setup[1].service, setup[2].service],
            copies: [setup[0].copies, setup[1].copies, setup[2].copies],
            ecn1: system.ecn1,
            rate: match config.sources {
                Sources::Open => solution.lambda_eff,
                Sources::Blocking => system.rate,
            },
            window: (start, start + length),
        }
    }

    /// The queues a message from processor `src` to processor `dst` visits.
    fn route(&self, src: u32, dst: u32) -> ([u32; 3], u8) {
        let (a, b) = (src / self.per_cluster, dst / self.per_cluster);
        let c = self.clusters;
        if a == b {
            return ([a, 0, 0], 1);
        }
        let icn2 = self.kind.len() as u32 - 1;
        match self.ecn1 {
            Ecn1Mode::Shared => ([c + a, icn2, c + b], 3),
            Ecn1Mode::Split => ([c + a, icn2, 2 * c + b], 3),
        }
    }

    fn draw_service(&self, centre: usize, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let mean = self.mean_service[centre];
        match self.service {
            Service::Exponential => exponential(mean, rng),
            Service::Deterministic => mean,
        }
    }

    /// One replication from an empty system: events in time order until the window has
    /// closed and every message created in it has arrived.
    fn run(&self, rng: &mut Xoshiro256PlusPlus) -> Replication {
        let mut state = Replica::new(self, rng);
        state.start();
        while let Some(ev) = state.events.pop() {
            state.rep.events += 1;
            match ev.what {
                What::Generate(p) => {
                    if ev.time >= self.window.1 && state.outstanding == 0 {
                        break;
                    }
                    state.generate(ev.time, p);
                }
                What::Arrive(id) => state.arrive(ev.time, id),
            }
        }
        state.rep
    }
}

/// The state of one replication: the queues, the messages in flight (with the slots of
/// delivered ones for reuse, so that the loop allocates only while the system grows), the
/// pending events and the sums measured so far.
struct Replica<'a> {
    net: &'a Net,
    rng: &'a mut Xoshiro256PlusPlus,
    /// Per queue: when its server finishes the work it has been given.
    free_at: Vec<f64>,
    messages: Vec<Message>,
    /// Slots of `messages` free for reuse.
    spare: Vec<u32>,
    events: BinaryHeap<Event>,
    /// Events scheduled so far, to order those at the same time.
    seq: u64,
    /// Messages created in the window and not yet delivered.
    outstanding: u64,
    rep: Replication,
}

impl<'a> Replica<'a> {
    fn new(net: &'a Net, rng: &'a mut Xoshiro256PlusPlus) -> Self {
        Replica {
            net,
            rng,
            free_at: vec![0.0f64; net.kind.len()],
            messages: Vec::new(),
            spare: Vec::new(),
            events: BinaryHeap::new(),
            seq: 0,
            outstanding: 0,
            rep: Replication::default(),
        }
    }

    fn schedule(&mut self, time: f64, what: What) {
        self.seq += 1;
        self.events.push(Event {
            time,
            seq: self.seq,
            what,
        });
    }

    /// The first message of the open stream, or of every blocking processor.
    fn start(&mut self) {
        let net = self.net;
        let n = net.processors;
        match net.sources {
            Sources::Open => {
                let t = exponential(1.0 / (net.rate * n as f64), self.rng);
                self.schedule(t, What::Generate(u32::MAX));
            }
            Sources::Blocking => {
                for p in 0..n {
                    let t = exponential(1.0 / net.rate, self.rng);
                    self.schedule(t, What::Generate(p));
                }
            }
        }
    }

    /// Processor `p` (open sources: a random one, after scheduling the stream's next
    /// message) creates a message to a random other processor at `now`.
    fn generate(&mut self, now: f64, p: u32) {
        let net = self.net;
        let n = net.processors;
        let src = match net.sources {
            Sources::Open => {
                let next = now + exponential(1.0 / (net.rate * n as f64), self.rng);
                self.schedule(next, What::Generate(u32::MAX));
                self.rng.random_range(0..n)
            }
            Sources::Blocking => p,
        };
        let r = self.rng.random_range(0..n - 1);
        let dst = r + u32::from(r >= src);
        let (route, len) = net.route(src, dst);
        let (t0, t1) = net.window;
        let tagged = now >= t0 && now < t1;
        if tagged {
            self.rep.created += 1;
            self.outstanding += 1;
        }
        let m = Message {
            created: now,
            src,
            route,
            len,
            hop: 0,
            tagged,
            waiting: 0.0,
            transfer: 0.0,
        };
        let id = match self.spare.pop() {
            Some(id) => {
                self.messages[id as usize] = m;
                id
            }
            None => {
                self.messages.push(m);
                self.messages.len() as u32 - 1
            }
        };
        self.schedule(now, What::Arrive(id));
    }

    /// Message `id` reaches the next queue of its route at `now`: it is served in FIFO
    /// order, then goes on to the next queue or is delivered.
    fn arrive(&mut self, now: f64, id: u32) {
        let net = self.net;
        let (t0, t1) = net.window;
        let m = &mut self.messages[id as usize];
        let q = m.route[m.hop as usize] as usize;
        let centre = net.kind[q] as usize;
        let s = net.draw_service(centre, self.rng);
        let start = now.max(self.free_at[q]);
        let done = start + s;
        self.free_at[q] = done;
        let rep = &mut self.rep;
        let busy = done.min(t1) - start.max(t0);
        if busy > 0.0 {
            rep.busy[centre] += busy;
        }
        if m.tagged {
            let w = start - now;
            rep.visits[centre] += 1;
            rep.sojourn[centre] += w + s;
            rep.waiting[centre] += w;
            m.waiting += w;
            m.transfer += s;
        }
        m.hop += 1;
        if m.hop < m.len {
            self.schedule(done, What::Arrive(id));
            return;
        }
        if m.tagged {
            rep.delivered += 1;
            rep.latency += done - m.created;
            rep.path_waiting += m.waiting;
            rep.path_transfer += m.transfer;
            self.outstanding -= 1;
        }
        if net.sources == Sources::Blocking {
            let next = done + exponential(1.0 / net.rate, self.rng);
            let src = m.src;
            self.schedule(next, What::Generate(src));
        }
        self.spare.push(id);
    }
}

/// An exponential variate with the given mean.
fn exponential(mean: f64, rng: &mut Xoshiro256PlusPlus) -> f64 {
    // 1 − U lies in (0, 1], so the logarithm is finite.
    -mean * (1.0 - rng.random::<f64>()).ln()
}

#[derive(Debug, Clone, Copy)]
struct Message {
    created: f64,
    src: u32,
    route: [u32; 3],
    len: u8,
    hop: u8,
    tagged: bool,
    waiting: f64,
    transfer: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum What {
    /// A processor creates a message (open sources: any processor, `u32::MAX`).
    Generate(u32),
    /// A message reaches the next queue of its route.
    Arrive(u32),
}

/// A pending event; the heap pops the earliest, ties in order of scheduling.
#[derive(Debug, Clone, Copy)]
struct Event {
    time: f64,
    seq: u64,
    what: What,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Event {}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        other
            .time
            .total_cmp(&self.time)
            .then(other.seq.cmp(&self.seq))
    }
}

/// Sums of one replication over the measured messages.
#[derive(Debug, Clone, Default)]
struct Replication {
    events: u64,
    created: u64,
    delivered: u64,
    latency: f64,
    path_waiting: f64,
    path_transfer: f64,
    visits: [u64; 3],
    sojourn: [f64; 3],
    waiting: [f64; 3],
    busy: [f64; 3],
}

fn summarise(config: &DesConfig, net: &Net, reps: &[Replication]) -> DesResult {
    let conf = config.confidence;
    let estimate = |f: &dyn Fn(&Replication) -> Option<f64>| -> Option<Estimate> {
        let values: Option<Vec<f64>> = reps.iter().map(f).collect();
        Estimate::of(&values?, conf)
    };
    let none = Estimate {
        mean: f64::NAN,
        half_width: f64::NAN,
    };
    let per_message = |sum: fn(&Replication) -> f64| {
        estimate(&|r: &Replication| (r.delivered > 0).then(|| sum(r) / r.delivered as f64))
            .unwrap_or(none)
    };
    let n = net.processors as f64;
    let length = net.window.1 - net.window.0;
    let centres = Centre::ALL.map(|centre| {
        let i = centre.index();
        let copies = net.copies[i] as f64;
        CentreEstimate {
            centre,
            visits: reps.iter().map(|r| r.visits[i]).sum(),
            sojourn: estimate(&|r: &Replication| {
                (r.visits[i] > 0).then(|| r.sojourn[i] / r.visits[i] as f64)
            }),
            waiting: estimate(&|r: &Replication| {
                (r.visits[i] > 0).then(|| r.waiting[i] / r.visits[i] as f64)
            }),
            utilisation: estimate(&|r: &Replication| Some(r.busy[i] / (copies * length))),
        }
    });
    DesResult {
        config: *config,
        rate: net.rate,
        messages: reps.iter().map(|r| r.delivered).sum(),
        events: reps.iter().map(|r| r.events).sum(),
        centres,
        latency: per_message(|r| r.latency),
        waiting: per_message(|r| r.path_waiting),
        transfer: per_message(|r| r.path_transfer),
        throughput: estimate(&|r: &Replication| Some(r.created as f64 / (n * length)))
            .unwrap_or(none),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theory_is_exact_only_where_the_formulas_are() {
        use Theory::{Approximate, Exact};
        let (exp, det) = (Service::Exponential, Service::Deterministic);
        let (open, blocking) = (Sources::Open, Sources::Blocking);
        for centre in [
            None,
            Some(Centre::Icn1),
            Some(Centre::Ecn1),
            Some(Centre::Icn2),
        ] {
            assert_eq!(Theory::of_times(exp, open, centre), Exact);
            assert_eq!(Theory::of_times(exp, blocking, centre), Approximate);
            assert_eq!(Theory::of_times(det, blocking, centre), Approximate);
        }
        assert_eq!(Theory::of_times(det, open, Some(Centre::Icn1)), Exact);
        assert_eq!(Theory::of_times(det, open, Some(Centre::Ecn1)), Approximate);
        assert_eq!(Theory::of_times(det, open, None), Approximate);
        assert_eq!(Theory::of_utilisation(open), Exact);
        assert_eq!(Theory::of_utilisation(blocking), Approximate);
    }

    #[test]
    fn an_estimate_without_messages_is_not_measured() {
        let nan = Estimate {
            mean: f64::NAN,
            half_width: f64::NAN,
        };
        assert!(nan.measured().is_none());
        let e = Estimate::of(&[1.0, 3.0], 0.99).unwrap();
        assert_eq!(e.measured(), Some(&e));
    }
}
