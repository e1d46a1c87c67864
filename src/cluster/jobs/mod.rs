//! Jobs over time (`orcs jobs`): PFSim-style scenarios in which applications arrive,
//! queue, run on a share of the cluster and leave, and the link loads they add up to
//! are followed through time.
//!
//! The model is PFSim's (spec pfsim.md §4–§6): each job's whole-run traffic matrix is
//! placed and routed when it starts (by [`crate::cluster::selection`],
//! [`crate::cluster::placement`] and [`crate::cluster::paths`]) and removed when it ends;
//! the greedy routers see the traffic of the jobs already running. What differs, on
//! purpose:
//!
//! * FCFS starts every queued job that fits, head first, when a job ends (PFSim starts at
//!   most one per end); nothing overtakes the head (no backfilling).
//! * A time series keeps its last value up to the horizon, and its mean and variance are
//!   taken over [0, horizon] (value 0 before the first sample); PFSim drops the last
//!   sample. [`JobsConfig::pfsim_compat`] restores both PFSim behaviours.
//! * The greedy routers route each job's pairs afresh. PFSim caches routes, and the
//!   return routes it caches are never dropped, so a later job can take a route chosen
//!   for loads long gone; [`JobsConfig::pfsim_compat`] reproduces that too.
//! * Randomness is seeded: the arrivals and run times of job stream j come from
//!   (seed, j) only, so every run of a scenario sees the same jobs; host selections come
//!   from (seed, topology, selector), so runs that differ only in mapping or routing see
//!   the same placements (paired comparisons); random routing from (seed, run).
//! * Events at the same time are handled in the order they were scheduled.
//!
//! This module runs one cell of a scenario ([`simulate_run`]); [`scenario`] reads the
//! scenario files, `clusters` builds the clusters they name and `series` holds what a
//! run records. May use the rest of [`crate::cluster`], [`crate::gen`] (generated
//! clusters), [`crate::workload::matrix`], [`crate::engine::stream`]'s seeded streams and
//! [`crate::limits`] ([`check_memory`] refuses a scenario whose jobs cannot fit).

mod clusters;
pub mod scenario;
mod series;

pub use clusters::{build_topology, pfsim_xgft, pfsim_xgft_size, torus, torus_size};
pub use scenario::{parse_scenario, read_scenario, RunSpec, Scenario, TimeDist};
pub use series::{Stats, TimeSeries};

use crate::cluster::loads::{network_load_stats, unroute_job, LinkLoads};
use crate::cluster::paths::{PathFinder, PathRouter, Routes};
use crate::cluster::placement::{host_pairs, map_ranks, HostPairs};
use crate::cluster::selection::select_hosts;
use crate::cluster::{Cluster, ClusterError};
use crate::engine::stream::{stream_rng, Stream};
use crate::limits::{Estimate, LimitError, MemoryLimit};
use crate::workload::matrix::TrafficMatrix;
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use scenario::JobSpec;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::Rc;

/// How scenario runs behave beyond the scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobsConfig {
    /// Seed of every random stream.
    pub seed: u64,
    /// PFSim's quirks: at most one queued job starts per job end, the last sample of
    /// every time series is dropped (as are its time-weighted statistics past it), and
    /// the greedy routers keep PFSim's route cache ([`RouteCache`]), stale return routes
    /// included.
    pub pfsim_compat: bool,
}

/// The time series a run records (PFSim's metric names).
pub(crate) const SERIES: [&str; 7] = [
    "Maximum Congestion",
    "Congestion StdDev",
    "Maximum Number of Flows",
    "Number of Waiting Jobs",
    "Number of Running Jobs",
    "Number of Finished Jobs",
    "Number of Jobs in System",
];

/// The plain samples a run records, one per finished job.
pub(crate) const SAMPLES: [&str; 2] = ["Job Wait Time", "Job Response Time"];

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

/// One submitted job: when, and where it runs once started.
struct Job {
    stream: usize,
    submitted: f64,
    started: f64,
    run_time: f64,
    hosts: Vec<u32>,
    /// Shared with the stream's last placement (see [`ClusterState::last`]).
    pairs: Rc<HostPairs>,
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
    /// Stream `j` of a scenario: its generators come from (seed, j) only.
    fn new(spec: &JobSpec, j: usize, seed: u64) -> Self {
        JobStream {
            spec_submit: spec.submit.clone(),
            spec_duration: spec.duration.clone(),
            arrivals: stream_rng(seed, Stream::Jobs(2 * j as u64)),
            durations: stream_rng(seed, Stream::Jobs(2 * j as u64 + 1)),
            next_arrival: 0,
            next_duration: 0,
            last_submit: 0.0,
        }
    }

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

/// Jobs a stream is expected to submit within `horizon`: the arrival rate times the
/// horizon (a list: its length). Infinite when the rate or the horizon is beyond `f64`.
pub fn expected_jobs(submit: &TimeDist, horizon: f64) -> f64 {
    match submit {
        TimeDist::Exponential { rate } => rate * horizon,
        TimeDist::Constant(gap) => horizon / gap,
        TimeDist::Uniform { low, high } => horizon / ((low + high) / 2.0),
        TimeDist::List(times) => times.len() as f64,
    }
}

/// Refuses a scenario whose runs would not fit in `memory` with `workers` of them at a
/// time, before any is built: every run keeps the samples and series of each of its
/// jobs until the reports are written, and a run in progress holds its jobs.
pub fn check_memory(
    scenario: &Scenario,
    memory: MemoryLimit,
    workers: usize,
) -> Result<(), LimitError> {
    let jobs: f64 = (scenario.jobs.iter())
        .map(|j| expected_jobs(&j.submit, scenario.duration))
        .sum();
    // Saturating: a rate of 1e300 asks for more jobs than any count holds.
    let jobs = jobs.ceil() as u128;
    let runs = (scenario.topologies.len() as u128)
        .saturating_mul(scenario.schedulers.len() as u128)
        .saturating_mul(scenario.selectors.len() as u128)
        .saturating_mul(scenario.mappers.len() as u128)
        .saturating_mul(scenario.routers.len() as u128);
    let at_once = runs.min(workers.max(1) as u128);
    let runs_text = match runs {
        1 => "1 run".to_string(),
        n => format!("{n} runs"),
    };
    let estimate = Estimate::new(format!(
        "{}: {runs_text} of about {} jobs each (the submit rates × duration {})",
        scenario.path,
        crate::limits::count_text(jobs),
        scenario.duration
    ))
    .add(runs.saturating_mul(jobs), "jobs' recorded samples", 256)
    .add(at_once.saturating_mul(jobs), "jobs in running runs", 128);
    memory.check(&estimate)
}

/// One draw of a distribution (lists are handled by the caller).
fn draw(d: &TimeDist, rng: &mut Xoshiro256PlusPlus) -> f64 {
    match *d {
        // Inversion; 1 − U is in (0, 1], so the logarithm is finite.
        TimeDist::Exponential { rate } => -(1.0 - rng.random::<f64>()).ln() / rate,
        TimeDist::Constant(x) => x,
        TimeDist::Uniform { low, high } => low + (high - low) * rng.random::<f64>(),
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
    last: Vec<Option<(Vec<u32>, Rc<HostPairs>)>>,
    /// PFSim's route cache of the greedy routers, with `--pfsim-compat` only.
    cache: Option<RouteCache>,
}

/// PFSim's route cache of its greedy routers (spec pfsim.md §4.6), reproduced by
/// `--pfsim-compat`: a host pair already in the cache takes the cached route instead of
/// a new greedy choice; a new route is cached with its job as owner and dropped when the
/// job ends. After a job's pairs are routed, the reverse of each of them that is not
/// cached is routed on the loads of that moment (adding nothing to them) and cached
/// without an owner, so it is never dropped: a later job's pair can take that stale
/// route. orcs's own mode routes every job's pairs afresh.
#[derive(Default)]
struct RouteCache {
    /// (source host, destination host) → its cached route.
    routes: FxHashMap<(u32, u32), CachedRoute>,
}

/// A route of [`RouteCache`]: its edges and the job that owns it (None: never dropped).
type CachedRoute = (Box<[u32]>, Option<usize>);

impl RouteCache {
    /// Routes job `job`'s `pairs` (heaviest first) through the cache, adding their loads;
    /// then caches the reverse routes. O(pairs × a greedy choice).
    fn route_job(
        &mut self,
        finder: &mut PathFinder<'_>,
        pairs: &HostPairs,
        router: PathRouter,
        loads: &mut LinkLoads,
        rng: &mut Xoshiro256PlusPlus,
        job: usize,
    ) -> Result<Routes, ClusterError> {
        let cluster = finder.cluster();
        let mut routes = Routes::default();
        for &(hs, hd, bytes, flows) in &pairs.pairs {
            if hs == hd {
                routes.push(&[]);
                continue;
            }
            let path = match self.routes.get(&(hs, hd)) {
                Some((path, _)) => path.clone(),
                None => {
                    let path: Box<[u32]> = finder.route(hs, hd, router, &loads.bytes, rng)?.into();
                    self.routes.insert((hs, hd), (path.clone(), Some(job)));
                    path
                }
            };
            loads.add(cluster, &path, bytes, flows);
            routes.push(&path);
        }
        for &(hs, hd, _, _) in &pairs.pairs {
            if hs != hd && !self.routes.contains_key(&(hd, hs)) {
                let path = finder.route(hd, hs, router, &loads.bytes, rng)?;
                self.routes.insert((hd, hs), (path.into(), None));
            }
        }
        Ok(routes)
    }

    /// Job `job` has ended: the routes it owns leave the cache.
    fn drop_owned(&mut self, job: usize) {
        self.routes.retain(|_, (_, owner)| *owner != Some(job));
    }
}

impl<'a> ClusterState<'a> {
    /// An empty cluster for `run`: host selections drawn from (seed, topology,
    /// selector), random routing from (seed, run).
    fn new(
        run: &'a RunSpec,
        cluster: &'a Cluster,
        matrices: &'a [&'a TrafficMatrix],
        seed: u64,
        pfsim_compat: bool,
    ) -> Self {
        ClusterState {
            cache: (pfsim_compat && run.router.is_greedy()).then(RouteCache::default),
            run,
            cluster,
            matrices,
            jobs: Vec::new(),
            allocated: vec![false; cluster.hosts.len()],
            finder: PathFinder::new(cluster),
            loads: LinkLoads::new(cluster),
            select_rng: stream_rng(
                seed,
                Stream::Selection(((run.topology as u64) << 32) | run.selector_index as u64),
            ),
            route_rng: stream_rng(seed, Stream::Routing(run.id as u64)),
            last: vec![None; matrices.len()],
        }
    }

    /// Starts job `k` at `now` if its hosts can be selected: place, route, load. False
    /// when it does not fit now.
    fn try_start(&mut self, k: usize, now: f64) -> Result<bool, ClusterError> {
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
            Err(ClusterError::TooLarge { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        for &h in &hosts {
            self.allocated[h as usize] = true;
        }
        let pairs = match &self.last[stream] {
            Some((h, p)) if *h == hosts => Rc::clone(p),
            _ => {
                let placement =
                    map_ranks(self.cluster, &hosts, matrix.ranks, self.run.mapper, matrix);
                let p = Rc::new(host_pairs(matrix, &placement));
                self.last[stream] = Some((hosts.clone(), Rc::clone(&p)));
                p
            }
        };
        let routes = match &mut self.cache {
            Some(cache) => cache.route_job(
                &mut self.finder,
                &pairs,
                self.run.router,
                &mut self.loads,
                &mut self.route_rng,
                k,
            )?,
            None => self.finder.route_job(
                &pairs,
                self.run.router,
                &mut self.loads,
                &mut self.route_rng,
            )?,
        };
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
        if let Some(cache) = &mut self.cache {
            cache.drop_owned(k);
        }
        for &h in &job.hosts {
            self.allocated[h as usize] = false;
        }
        job.routes = Routes::default();
        job.pairs = Rc::default();
    }

    /// Records the link series at `t`: largest load ÷ capacity, its spread, most flows.
    fn record_links(&self, result: &mut RunResult, t: f64) {
        let stats = network_load_stats(self.cluster, &self.loads);
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

/// The time side of one run: the job streams, the events, the FCFS queue and what is
/// recorded.
struct Timeline<'a> {
    config: JobsConfig,
    streams: Vec<JobStream>,
    state: ClusterState<'a>,
    events: Events,
    /// Submitted jobs not started yet, in submission order.
    queue: VecDeque<usize>,
    running: u64,
    result: RunResult,
}

impl Timeline<'_> {
    /// The next job of stream `j` arrives at `now`: it joins the queue and the stream's
    /// next arrival is scheduled. Returns how many queued jobs may start: one
    /// (this one) when nobody else waits, else none.
    fn submit(&mut self, j: usize, now: f64) -> usize {
        self.result.submitted += 1;
        let run_time = self.streams[j].next_duration();
        self.state.jobs.push(Job {
            stream: j,
            submitted: now,
            started: f64::NAN,
            run_time,
            hosts: Vec::new(),
            pairs: Rc::default(),
            routes: Routes::default(),
        });
        if let Some(t) = self.streams[j].next_submit() {
            self.events.push(t, Event::Submit(j));
        }
        self.queue.push_back(self.state.jobs.len() - 1);
        usize::from(self.queue.len() == 1)
    }

    /// Job `k` ends at `now`: its wait and response times are sampled. Returns how many
    /// queued jobs may start: every one that fits, or one with PFSim's quirk.
    fn finish(&mut self, k: usize, now: f64) -> usize {
        self.state.finish(k);
        self.running -= 1;
        self.result.finished += 1;
        let job = &self.state.jobs[k];
        self.result.samples[0].push(job.started - job.submitted);
        self.result.samples[1].push(now - job.submitted);
        self.state.record_links(&mut self.result, now);
        if self.config.pfsim_compat {
            1
        } else {
            usize::MAX
        }
    }

    /// Starts up to `candidates` jobs from the head of the queue, stopping at the first
    /// that does not fit (nothing overtakes the head).
    fn start_queued(&mut self, now: f64, candidates: usize) -> Result<(), ClusterError> {
        for _ in 0..candidates {
            let Some(&head) = self.queue.front() else {
                break;
            };
            if !self.state.try_start(head, now)? {
                break;
            }
            self.queue.pop_front();
            self.running += 1;
            self.result.started += 1;
            self.events
                .push(now + self.state.jobs[head].run_time, Event::Finish(head));
            self.state.record_links(&mut self.result, now);
        }
        Ok(())
    }

    /// Records the job counts at `now`.
    fn record_counts(&mut self, now: f64) {
        let waiting = self.queue.len() as f64;
        let series = &mut self.result.series;
        series[3].record(now, waiting);
        series[4].record(now, self.running as f64);
        series[5].record(now, self.result.finished as f64);
        series[6].record(now, waiting + self.running as f64);
    }
}

/// Runs one cell of a scenario on `cluster` with the matrices of the job streams (in
/// `scenario.jobs` order). Errors when a job can never fit the cluster
/// ([`ClusterError::TooLarge`]) or two of its hosts are not connected
/// ([`ClusterError::Disconnected`]).
///
/// O(events × (edges + job start)), a job start costing O(entries + host pairs ×
/// (nodes + edges)).
pub fn simulate_run(
    scenario: &Scenario,
    run: &RunSpec,
    cluster: &Cluster,
    matrices: &[&TrafficMatrix],
    config: JobsConfig,
) -> Result<RunResult, ClusterError> {
    let total_pes: u64 = cluster.host_pes.iter().map(|&p| p as u64).sum();
    if let Some(m) = matrices.iter().find(|m| m.ranks as u64 > total_pes) {
        return Err(ClusterError::TooLarge {
            needed: m.ranks as u64,
            free: total_pes,
        });
    }
    let mut timeline = Timeline {
        config,
        streams: (scenario.jobs.iter().enumerate())
            .map(|(j, spec)| JobStream::new(spec, j, config.seed))
            .collect(),
        state: ClusterState::new(run, cluster, matrices, config.seed, config.pfsim_compat),
        events: Events::default(),
        queue: VecDeque::new(),
        running: 0,
        result: RunResult {
            series: vec![TimeSeries::default(); SERIES.len()],
            samples: vec![Vec::new(); SAMPLES.len()],
            ..RunResult::default()
        },
    };
    for (j, s) in timeline.streams.iter_mut().enumerate() {
        if let Some(t) = s.next_submit() {
            timeline.events.push(t, Event::Submit(j));
        }
    }
    while let Some((now, event)) = timeline.events.pop() {
        if now > scenario.duration {
            break;
        }
        // Jobs that may start now: the new one if nobody waits, else the queue's head
        // (and the next heads while they fit, unless PFSim's one per end).
        let candidates = match event {
            Event::Submit(j) => timeline.submit(j, now),
            Event::Finish(k) => timeline.finish(k, now),
        };
        timeline.start_queued(now, candidates)?;
        timeline.record_counts(now);
    }
    Ok(timeline.result)
}
