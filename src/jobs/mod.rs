//! Jobs over time (`orcs jobs`): PFSim-style scenarios in which applications arrive,
//! queue, run on a share of the cluster and leave, and the link loads they add up to
//! are followed through time.
//!
//! The model is PFSim's (spec pfsim.md §4–§6): each job's whole-run traffic matrix is
//! placed and routed when it starts ([`crate::appsim`]) and removed when it ends; the
//! greedy routers see the traffic of the jobs already running. What differs, on purpose:
//!
//! * FCFS starts every queued job that fits, head first, when a job ends (PFSim starts at
//!   most one per end); nothing overtakes the head (no backfilling).
//! * A time series keeps its last value up to the horizon, and its mean and variance are
//!   taken over [0, horizon] (value 0 before the first sample); PFSim drops the last
//!   sample. [`JobsConfig::pfsim_compat`] restores both PFSim behaviours.
//! * Randomness is seeded: the arrivals and run times of job stream j come from
//!   (seed, j) only, so every run of a scenario sees the same jobs; host selections come
//!   from (seed, topology, selector), so runs that differ only in mapping or routing see
//!   the same placements (paired comparisons); random routing from (seed, run).
//! * Events at the same time are handled in the order they were scheduled.

pub mod scenario;
mod topology;

pub use scenario::{parse_scenario, read_scenario, RunSpec, Scenario, ScenarioError, TimeDist};
pub use topology::{build_topology, pfsim_xgft, torus};

use crate::appsim::{
    host_pairs, is_network_link, map_ranks, select_hosts, unroute_job, HostPairs, LinkLoads,
    PathFinder, PlacementError, Routes,
};
use crate::sim::{stream_rng, Stream};
use crate::traffic::{Cluster, TrafficMatrix};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// How scenario runs behave beyond the scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobsConfig {
    /// Seed of every random stream.
    pub seed: u64,
    /// PFSim's quirks: at most one queued job starts per job end, and the last sample
    /// of every time series is dropped (as are its time-weighted statistics past it).
    pub pfsim_compat: bool,
}

/// The time series a run records (PFSim's metric names).
pub const SERIES: [&str; 7] = [
    "Maximum Congestion",
    "Congestion StdDev",
    "Maximum Number of Flows",
    "Number of Waiting Jobs",
    "Number of Running Jobs",
    "Number of Finished Jobs",
    "Number of Jobs in System",
];

/// The plain samples a run records, one per finished job.
pub const SAMPLES: [&str; 2] = ["Job Wait Time", "Job Response Time"];

/// A piecewise-constant time series: each value holds from its time to the next one's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSeries {
    /// Sample times, strictly increasing.
    pub times: Vec<f64>,
    /// Values.
    pub values: Vec<f64>,
}

impl TimeSeries {
    /// Records `value` at `time` (≥ the last time); a value at the same time replaces it.
    pub fn record(&mut self, time: f64, value: f64) {
        if self.times.last() == Some(&time) {
            *self.values.last_mut().expect("same length") = value;
        } else {
            self.times.push(time);
            self.values.push(value);
        }
    }
}

/// Max, min, mean, count and variance of a series or of samples.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Largest value.
    pub max: f64,
    /// Smallest value.
    pub min: f64,
    /// Mean (time-weighted for series).
    pub mean: f64,
    /// Number of values.
    pub count: u64,
    /// Variance (time-weighted for series; n − 1 for samples).
    pub variance: f64,
}

impl Stats {
    /// Statistics of a series over [0, `horizon`]: the value is 0 before the first
    /// sample and the last one holds until the horizon. With `drop_last` (PFSim) the
    /// last sample is left out and the horizon is the last sample's time. None without
    /// values. O(samples).
    pub fn of_series(series: &TimeSeries, horizon: f64, drop_last: bool) -> Option<Stats> {
        let n = series.values.len() - usize::from(drop_last && !series.values.is_empty());
        if n == 0 {
            return None;
        }
        let end = if drop_last { series.times[n] } else { horizon };
        if end <= 0.0 {
            return None;
        }
        let span = |i: usize| {
            let next = if i + 1 < n { series.times[i + 1] } else { end };
            (next - series.times[i]).max(0.0)
        };
        let values = &series.values[..n];
        let mean = values
            .iter()
            .enumerate()
            .map(|(i, v)| v * span(i))
            .sum::<f64>()
            / end;
        let lead = series.times[0];
        let variance = (lead * mean * mean
            + values
                .iter()
                .enumerate()
                .map(|(i, v)| (v - mean).powi(2) * span(i))
                .sum::<f64>())
            / end;
        Some(Stats {
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean,
            count: n as u64,
            variance,
        })
    }

    /// Statistics of plain samples (Welford; n − 1 variance, 0 for one sample).
    pub fn of_samples(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let (mut mean, mut m2) = (0.0f64, 0.0f64);
        for (i, &x) in values.iter().enumerate() {
            let d = x - mean;
            mean += d / (i + 1) as f64;
            m2 += d * (x - mean);
        }
        Some(Stats {
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean,
            count: values.len() as u64,
            variance: if values.len() > 1 {
                m2 / (values.len() - 1) as f64
            } else {
                0.0
            },
        })
    }
}

/// What one run recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunResult {
    /// The series of [`SERIES`], in that order.
    pub series: Vec<TimeSeries>,
    /// The samples of [`SAMPLES`], in that order.
    pub samples: Vec<Vec<f64>>,
    /// Jobs submitted, started and finished within the horizon.
    pub submitted: u64,
    /// See `submitted`.
    pub started: u64,
    /// See `submitted`.
    pub finished: u64,
}

/// An event time with a total order (times are finite by construction).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);

impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The next job of stream j arrives.
    Submit(usize),
    /// Job k ends.
    Finish(usize),
}

struct Job {
    stream: usize,
    submitted: f64,
    started: f64,
    run_time: f64,
    hosts: Vec<u32>,
    pairs: HostPairs,
    routes: Routes,
}

/// The times of one stream: arrivals from one generator, run times from another.
struct JobStream {
    spec_submit: TimeDist,
    spec_duration: TimeDist,
    arrivals: Xoshiro256PlusPlus,
    durations: Xoshiro256PlusPlus,
    next_arrival: usize,
    next_duration: usize,
    last_submit: f64,
}

impl JobStream {
    /// The next submit time, or None when a list has run out.
    fn next_submit(&mut self) -> Option<f64> {
        let t = match &self.spec_submit {
            TimeDist::List(v) => *v.get(self.next_arrival)?,
            d => self.last_submit + draw(d, &mut self.arrivals),
        };
        self.next_arrival += 1;
        self.last_submit = t;
        Some(t)
    }

    fn next_duration(&mut self) -> f64 {
        let t = match &self.spec_duration {
            TimeDist::List(v) => v[self.next_duration % v.len()],
            d => draw(d, &mut self.durations),
        };
        self.next_duration += 1;
        t
    }
}

/// One draw of a distribution (lists are handled by the caller).
fn draw(d: &TimeDist, rng: &mut Xoshiro256PlusPlus) -> f64 {
    match *d {
        // Inversion; 1 − U is in (0, 1], so the logarithm is finite.
        TimeDist::Exponential { rate } => -(1.0 - rng.gen::<f64>()).ln() / rate,
        TimeDist::Constant(x) => x,
        TimeDist::Uniform { low, high } => low + (high - low) * rng.gen::<f64>(),
        TimeDist::List(ref v) => v.first().copied().unwrap_or(0.0),
    }
}

/// Runs one cell of a scenario on `cluster` with the matrices of the job streams (in
/// `scenario.jobs` order). Errors when a job can never fit the cluster or two of its
/// hosts are not connected.
///
/// O(events × (edges + job start)), a job start costing O(entries + host pairs ×
/// (nodes + edges)).
pub fn simulate_run(
    scenario: &Scenario,
    run: &RunSpec,
    cluster: &Cluster,
    matrices: &[&TrafficMatrix],
    config: JobsConfig,
) -> Result<RunResult, PlacementError> {
    let total_pes: u64 = cluster.host_pes.iter().map(|&p| p as u64).sum();
    for m in matrices {
        if m.ranks as u64 > total_pes {
            return Err(PlacementError::TooLarge {
                needed: m.ranks as u64,
                free: total_pes,
            });
        }
    }
    let horizon = scenario.duration;
    let mut streams: Vec<JobStream> = scenario
        .jobs
        .iter()
        .enumerate()
        .map(|(j, spec)| JobStream {
            spec_submit: spec.submit.clone(),
            spec_duration: spec.duration.clone(),
            arrivals: stream_rng(config.seed, Stream::Jobs(2 * j as u64)),
            durations: stream_rng(config.seed, Stream::Jobs(2 * j as u64 + 1)),
            next_arrival: 0,
            next_duration: 0,
            last_submit: 0.0,
        })
        .collect();
    let mut select_rng = stream_rng(
        config.seed,
        Stream::Selection(((run.topology as u64) << 32) | run.selector_index as u64),
    );
    let mut route_rng = stream_rng(config.seed, Stream::Routing(run.id as u64));
    let mut finder = PathFinder::new(cluster);
    let mut loads = LinkLoads {
        bytes: vec![0; cluster.edges.len()],
        flows: vec![0; cluster.edges.len()],
    };
    let mut allocated = vec![false; cluster.hosts.len()];
    let mut jobs: Vec<Job> = Vec::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut events: BinaryHeap<std::cmp::Reverse<(Time, u64, Event)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |events: &mut BinaryHeap<_>, t: f64, e: Event| {
        events.push(std::cmp::Reverse((Time(t), seq, e)));
        seq += 1;
    };
    for (j, s) in streams.iter_mut().enumerate() {
        if let Some(t) = s.next_submit() {
            push(&mut events, t, Event::Submit(j));
        }
    }
    let mut result = RunResult {
        series: vec![TimeSeries::default(); SERIES.len()],
        samples: vec![Vec::new(); SAMPLES.len()],
        ..RunResult::default()
    };
    let network: Vec<u32> = (0..cluster.edges.len() as u32)
        .filter(|&e| is_network_link(cluster, e))
        .collect();
    let record_links = |result: &mut RunResult, loads: &LinkLoads, t: f64| {
        let (mut max, mut sum, mut sum_sq, mut flows) = (0.0f64, 0.0f64, 0.0f64, 0u64);
        for &e in &network {
            let x = loads.bytes[e as usize] as f64 / cluster.edges[e as usize].2;
            max = max.max(x);
            sum += x;
            sum_sq += x * x;
            flows = flows.max(loads.flows[e as usize]);
        }
        let n = network.len() as f64;
        let sd = if network.len() > 1 {
            ((sum_sq - sum * sum / n) / (n - 1.0)).max(0.0).sqrt()
        } else {
            0.0
        };
        result.series[0].record(t, max);
        result.series[1].record(t, sd);
        result.series[2].record(t, flows as f64);
    };
    let record_counts = |result: &mut RunResult, waiting: usize, running: u64, t: f64| {
        result.series[3].record(t, waiting as f64);
        result.series[4].record(t, running as f64);
        result.series[5].record(t, result.finished as f64);
        result.series[6].record(t, waiting as f64 + running as f64);
    };
    let mut last: Vec<Option<(Vec<u32>, HostPairs)>> = vec![None; scenario.jobs.len()];
    let mut running = 0u64;
    while let Some(std::cmp::Reverse((Time(now), _, event))) = events.pop() {
        if now > horizon {
            break;
        }
        match event {
            Event::Submit(j) => {
                result.submitted += 1;
                let run_time = streams[j].next_duration();
                jobs.push(Job {
                    stream: j,
                    submitted: now,
                    started: f64::NAN,
                    run_time,
                    hosts: Vec::new(),
                    pairs: HostPairs { pairs: Vec::new() },
                    routes: Routes::default(),
                });
                if let Some(t) = streams[j].next_submit() {
                    push(&mut events, t, Event::Submit(j));
                }
                let k = jobs.len() - 1;
                let started = queue.is_empty()
                    && try_start(
                        k,
                        now,
                        run,
                        cluster,
                        matrices,
                        &mut jobs,
                        &mut allocated,
                        &mut finder,
                        &mut loads,
                        &mut select_rng,
                        &mut route_rng,
                        &mut last,
                    )?;
                if started {
                    running += 1;
                    result.started += 1;
                    push(&mut events, now + jobs[k].run_time, Event::Finish(k));
                    record_links(&mut result, &loads, now);
                } else {
                    queue.push_back(k);
                }
                record_counts(&mut result, queue.len(), running, now);
            }
            Event::Finish(k) => {
                let job = &mut jobs[k];
                unroute_job(cluster, &job.pairs, &job.routes, &mut loads);
                for &h in &job.hosts {
                    allocated[h as usize] = false;
                }
                job.routes = Routes::default();
                job.pairs.pairs = Vec::new();
                running -= 1;
                result.finished += 1;
                result.samples[0].push(job.started - job.submitted);
                result.samples[1].push(now - job.submitted);
                record_links(&mut result, &loads, now);
                while let Some(&head) = queue.front() {
                    if !try_start(
                        head,
                        now,
                        run,
                        cluster,
                        matrices,
                        &mut jobs,
                        &mut allocated,
                        &mut finder,
                        &mut loads,
                        &mut select_rng,
                        &mut route_rng,
                        &mut last,
                    )? {
                        break;
                    }
                    queue.pop_front();
                    running += 1;
                    result.started += 1;
                    push(&mut events, now + jobs[head].run_time, Event::Finish(head));
                    record_links(&mut result, &loads, now);
                    if config.pfsim_compat {
                        break;
                    }
                }
                record_counts(&mut result, queue.len(), running, now);
            }
        }
    }
    Ok(result)
}

/// Starts job `k` at `now` if its hosts can be selected: place, route, load. False when
/// it does not fit now.
#[allow(clippy::too_many_arguments)]
fn try_start(
    k: usize,
    now: f64,
    run: &RunSpec,
    cluster: &Cluster,
    matrices: &[&TrafficMatrix],
    jobs: &mut [Job],
    allocated: &mut [bool],
    finder: &mut PathFinder<'_>,
    loads: &mut LinkLoads,
    select_rng: &mut Xoshiro256PlusPlus,
    route_rng: &mut Xoshiro256PlusPlus,
    last: &mut [Option<(Vec<u32>, HostPairs)>],
) -> Result<bool, PlacementError> {
    let matrix = matrices[jobs[k].stream];
    let hosts = match select_hosts(
        cluster,
        allocated,
        matrix.ranks as u64,
        run.selector,
        select_rng,
    ) {
        Ok(h) => h,
        Err(PlacementError::TooLarge { .. }) => return Ok(false),
        Err(e) => return Err(e),
    };
    for &h in &hosts {
        allocated[h as usize] = true;
    }
    // The same hosts give the same placement and host pairs as last time (always so with
    // the linear selector on a quiet cluster).
    let stream = jobs[k].stream;
    let pairs = match &last[stream] {
        Some((h, p)) if *h == hosts => p.clone(),
        _ => {
            let placement = map_ranks(cluster, &hosts, matrix.ranks, run.mapper, matrix);
            let p = host_pairs(matrix, &placement);
            last[stream] = Some((hosts.clone(), p.clone()));
            p
        }
    };
    let routes = finder.route_job(&pairs, run.router, loads, route_rng)?;
    let job = &mut jobs[k];
    job.started = now;
    job.hosts = hosts;
    job.pairs = pairs;
    job.routes = routes;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_statistics_by_hand() {
        // 0 until t = 2, then 4 until 5, then 1 until the horizon 10:
        // mean = (4·3 + 1·5) / 10 = 1.7; variance = (2·1.7² + 3·2.3² + 5·0.7²) / 10.
        let mut s = TimeSeries::default();
        s.record(2.0, 9.0);
        s.record(2.0, 4.0); // same time: replaces
        s.record(5.0, 1.0);
        let st = Stats::of_series(&s, 10.0, false).unwrap();
        assert_eq!((st.max, st.min, st.count), (4.0, 1.0, 2));
        assert!((st.mean - 1.7).abs() < 1e-12);
        let var = (2.0 * 1.7f64.powi(2) + 3.0 * 2.3f64.powi(2) + 5.0 * 0.7f64.powi(2)) / 10.0;
        assert!((st.variance - var).abs() < 1e-12);
        // PFSim: the last sample is dropped, the horizon is its time (5): mean 12 / 5.
        let compat = Stats::of_series(&s, 10.0, true).unwrap();
        assert_eq!((compat.count, compat.max, compat.min), (1, 4.0, 4.0));
        assert!((compat.mean - 2.4).abs() < 1e-12);
    }

    #[test]
    fn sample_statistics_by_hand() {
        let st = Stats::of_samples(&[1.0, 2.0, 6.0]).unwrap();
        assert_eq!((st.max, st.min, st.count, st.mean), (6.0, 1.0, 3, 3.0));
        assert!((st.variance - 7.0).abs() < 1e-12);
        assert!(Stats::of_samples(&[]).is_none());
    }
}
