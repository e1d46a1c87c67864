//! Jobs over time (`orcs jobs`): PFSim-style scenarios in which applications arrive,
//! queue, run on a share of the cluster and leave, and the link loads they add up to
//! are followed through time.
//!
//! The model is PFSim's (spec pfsim.md §4–§6): each job's whole-run traffic matrix is
//! placed and routed when it starts ([`crate::cluster::application`]) and removed when it ends; the
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

use crate::cluster::application::{
    host_pairs, link_stats, map_ranks, select_hosts, unroute_job, HostPairs, LinkLoads, PathFinder,
    PlacementError, Routes,
};
use crate::cluster::Cluster;
use crate::engine::stream::{stream_rng, Stream};
use crate::workload::matrix::TrafficMatrix;
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

/// The cluster side of one run: hosts, link loads, routing, and the jobs so far.
struct ClusterState<'a> {
    run: &'a RunSpec,
    cluster: &'a Cluster,
    matrices: &'a [&'a TrafficMatrix],
    jobs: Vec<Job>,
    allocated: Vec<bool>,
    finder: PathFinder<'a>,
    loads: LinkLoads,
    select_rng: Xoshiro256PlusPlus,
    route_rng: Xoshiro256PlusPlus,
    /// Per stream: the hosts of its last start and their host pairs (the same hosts give
    /// the same placement, always so with the linear selector on a quiet cluster).
    last: Vec<Option<(Vec<u32>, HostPairs)>>,
}

impl ClusterState<'_> {
    /// Starts job `k` at `now` if its hosts can be selected: place, route, load. False
    /// when it does not fit now.
    fn try_start(&mut self, k: usize, now: f64) -> Result<bool, PlacementError> {
        let stream = self.jobs[k].stream;
        let matrix = self.matrices[stream];
        let hosts = match select_hosts(
            self.cluster,
            &self.allocated,
            matrix.ranks as u64,
            self.run.selector,
            &mut self.select_rng,
        ) {
            Ok(h) => h,
            Err(PlacementError::TooLarge { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        for &h in &hosts {
            self.allocated[h as usize] = true;
        }
        let pairs = match &self.last[stream] {
            Some((h, p)) if *h == hosts => p.clone(),
            _ => {
                let placement =
                    map_ranks(self.cluster, &hosts, matrix.ranks, self.run.mapper, matrix);
                let p = host_pairs(matrix, &placement);
                self.last[stream] = Some((hosts.clone(), p.clone()));
                p
            }
        };
        let routes = self.finder.route_job(
            &pairs,
            self.run.router,
            &mut self.loads,
            &mut self.route_rng,
        )?;
        let job = &mut self.jobs[k];
        job.started = now;
        job.hosts = hosts;
        job.pairs = pairs;
        job.routes = routes;
        Ok(true)
    }

    /// Ends job `k`: its traffic leaves the links and its hosts are freed.
    fn finish(&mut self, k: usize) {
        let job = &mut self.jobs[k];
        unroute_job(self.cluster, &job.pairs, &job.routes, &mut self.loads);
        for &h in &job.hosts {
            self.allocated[h as usize] = false;
        }
        job.routes = Routes::default();
        job.pairs.pairs = Vec::new();
    }

    /// Records the link series at `t`: largest load ÷ capacity, its spread, most flows.
    fn record_links(&self, result: &mut RunResult, t: f64) {
        let stats = link_stats(self.cluster, &self.loads);
        result.series[0].record(t, stats.max);
        result.series[1].record(t, stats.variance.sqrt());
        result.series[2].record(t, stats.max_flows as f64);
    }
}

/// The event queue: earliest time first, equal times in the order scheduled.
#[derive(Default)]
struct Events {
    heap: BinaryHeap<std::cmp::Reverse<(Time, u64, Event)>>,
    scheduled: u64,
}

impl Events {
    fn push(&mut self, t: f64, e: Event) {
        self.heap
            .push(std::cmp::Reverse((Time(t), self.scheduled, e)));
        self.scheduled += 1;
    }

    fn pop(&mut self) -> Option<(f64, Event)> {
        self.heap
            .pop()
            .map(|std::cmp::Reverse((Time(t), _, e))| (t, e))
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
    let mut state = ClusterState {
        run,
        cluster,
        matrices,
        jobs: Vec::new(),
        allocated: vec![false; cluster.hosts.len()],
        finder: PathFinder::new(cluster),
        loads: LinkLoads {
            bytes: vec![0; cluster.edges.len()],
            flows: vec![0; cluster.edges.len()],
        },
        select_rng: stream_rng(
            config.seed,
            Stream::Selection(((run.topology as u64) << 32) | run.selector_index as u64),
        ),
        route_rng: stream_rng(config.seed, Stream::Routing(run.id as u64)),
        last: vec![None; scenario.jobs.len()],
    };
    let mut events = Events::default();
    for (j, s) in streams.iter_mut().enumerate() {
        if let Some(t) = s.next_submit() {
            events.push(t, Event::Submit(j));
        }
    }
    let mut result = RunResult {
        series: vec![TimeSeries::default(); SERIES.len()],
        samples: vec![Vec::new(); SAMPLES.len()],
        ..RunResult::default()
    };
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut running = 0u64;
    while let Some((now, event)) = events.pop() {
        if now > scenario.duration {
            break;
        }
        // Jobs that may start now: the new one if nobody waits, else the queue's head
        // (and the next heads while they fit, unless PFSim's one per end).
        let mut candidates: Option<usize> = None;
        match event {
            Event::Submit(j) => {
                result.submitted += 1;
                let run_time = streams[j].next_duration();
                state.jobs.push(Job {
                    stream: j,
                    submitted: now,
                    started: f64::NAN,
                    run_time,
                    hosts: Vec::new(),
                    pairs: HostPairs { pairs: Vec::new() },
                    routes: Routes::default(),
                });
                if let Some(t) = streams[j].next_submit() {
                    events.push(t, Event::Submit(j));
                }
                queue.push_back(state.jobs.len() - 1);
                if queue.len() == 1 {
                    candidates = Some(1);
                }
            }
            Event::Finish(k) => {
                state.finish(k);
                running -= 1;
                result.finished += 1;
                let job = &state.jobs[k];
                result.samples[0].push(job.started - job.submitted);
                result.samples[1].push(now - job.submitted);
                state.record_links(&mut result, now);
                candidates = Some(if config.pfsim_compat { 1 } else { usize::MAX });
            }
        }
        for _ in 0..candidates.unwrap_or(0) {
            let Some(&head) = queue.front() else { break };
            if !state.try_start(head, now)? {
                break;
            }
            queue.pop_front();
            running += 1;
            result.started += 1;
            events.push(now + state.jobs[head].run_time, Event::Finish(head));
            state.record_links(&mut result, now);
        }
        let waiting = queue.len() as f64;
        result.series[3].record(now, waiting);
        result.series[4].record(now, running as f64);
        result.series[5].record(now, result.finished as f64);
        result.series[6].record(now, waiting + running as f64);
    }
    Ok(result)
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
