//! The Monte Carlo engine for unit messages (communication patterns): maps the pattern
//! onto hosts run after run, walks every route through the forwarding tables and counts
//! per-link congestion per level (spec §1, §6). It owns the simulation's configuration
//! ([`SimConfig`]), its results ([`SimOutcome`], with [`LinkCongestionTotals`] for
//! `--links`) and the walk itself ([`Simulation`]).
//!
//! The walk is the program's hot loop: it runs on flat per-worker scratch arrays that
//! are sized once (a level's routes are one array with a fixed slot per pair) and
//! neither allocates, logs nor fails once they have grown.
//!
//! Runs are independent: run i draws its randomness only from (seed, i), and every
//! result is either an integer sum or stored per run, so the output does not depend on
//! how rayon splits the runs over threads.

use crate::engine::metric::{acc_band, MetricKind};
use crate::engine::stream::{stream_rng, Stream};
use crate::fabric::Fabric;
use crate::limits::{Estimate, LimitError, MemoryLimit};
use crate::routing::{
    check_routes, AnyRouter, ForwardingTable, InFlight, RouteCheck, RouteSummary, WalkOutput,
};
use crate::workload::mapping::RankLayout;
use crate::workload::pattern::{Levels, Pattern, PatternContext};
use rayon::prelude::*;

/// How the simulation runs; everything is validated by the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Number of Monte Carlo runs (≥ 1).
    pub runs: u64,
    /// Seed of every random stream.
    pub seed: u64,
    /// Simulate only this level (`-l`), or all levels.
    pub level: Option<usize>,
    /// The metric to compute; decides which optional results are collected.
    pub metric: MetricKind,
    /// ORCS's dep_max_delay model and get_cable_cong counting (spec §11.1, §11.2).
    pub orcs_compat: bool,
    /// Pattern parameters (commsize, part commsize).
    pub pattern_context: PatternContext,
    /// Collect per-link statistics ([`LinkCongestionTotals`]) whatever the metric.
    pub links: bool,
    /// The memory the simulation may use; [`Simulation::new`] refuses one that needs
    /// more.
    pub memory: MemoryLimit,
}

/// Why a simulation cannot be prepared.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// Some routes between the chosen hosts are broken: the check that found them.
    #[error("{} of {} host pairs are not routed", .0.broken(), .0.pairs_checked)]
    Unrouted(Box<RouteCheck>),
    /// The simulation needs more memory than it may use.
    #[error(transparent)]
    Memory(#[from] LimitError),
}

/// Per directed edge congestion totals over all runs (`--links`): the routes each edge
/// carried, its largest congestion, and how often it was a run's bottleneck.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkCongestionTotals {
    /// Routes simulated over the edge, summed over levels and runs (each route once).
    pub messages: Vec<u64>,
    /// Largest number of routes sharing the edge in one level of one run.
    pub max_congestion: Vec<u32>,
    /// Runs in which the edge carried the run's largest congestion (in some level).
    pub bottleneck_runs: Vec<u64>,
    /// Runs that had traffic (the denominator of the bottleneck share).
    pub runs_with_traffic: u64,
}

impl LinkCongestionTotals {
    /// All zero for `num_edges` edges.
    fn new(num_edges: usize) -> Self {
        LinkCongestionTotals {
            messages: vec![0; num_edges],
            max_congestion: vec![0; num_edges],
            bottleneck_runs: vec![0; num_edges],
            runs_with_traffic: 0,
        }
    }

    /// Adds the totals of other runs: counts summed, maxima kept.
    fn add(&mut self, other: &LinkCongestionTotals) {
        add_into(&mut self.messages, &other.messages);
        add_into(&mut self.bottleneck_runs, &other.bottleneck_runs);
        for (m, &n) in self.max_congestion.iter_mut().zip(&other.max_congestion) {
            *m = (*m).max(n);
        }
        self.runs_with_traffic += other.runs_with_traffic;
    }

    /// Counts one route of a level whose edge loads are `load`.
    #[inline]
    fn add_route(&mut self, route: &[u32], load: &[u32]) {
        for &e in route {
            let e = e as usize;
            self.messages[e] += 1;
            self.max_congestion[e] = self.max_congestion[e].max(load[e]);
        }
    }
}

/// What a simulation produced, run by run and in total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimOutcome {
    /// Number of runs.
    pub runs: u64,
    /// `weight_hist[w]` = pairs of weight w over all pairs, levels and runs.
    pub weight_hist: Vec<u64>,
    /// Per run: mean of 1/weight over the run's pairs (NaN for a run without pairs).
    pub acc_band: Vec<f64>,
    /// Per run: sum over the simulated levels of the level's largest weight.
    pub sum_max_cong: Vec<u64>,
    /// Per run: pairs simulated.
    pub pairs: Vec<u64>,
    /// Per run, with dep_max_delay: the longest weighted dependency path.
    pub dep_max_delay: Vec<u64>,
    /// Per edge, with get_cable_cong: the summed route count (ORCS-inflated in compat).
    pub cable: Vec<u64>,
    /// Per-link statistics, when asked for.
    pub links: Option<LinkCongestionTotals>,
}

impl SimOutcome {
    /// Total pairs over all runs.
    pub fn total_pairs(&self) -> u64 {
        self.weight_hist.iter().sum()
    }

    // Only MPI ranks exchange outcomes as bytes.
    #[cfg(any(feature = "mpi", test))]
    /// Joins slices of one simulation given in run order (see
    /// [`Simulation::run_range`]): per-run values concatenated, totals summed.
    pub(crate) fn combine(parts: Vec<SimOutcome>) -> SimOutcome {
        let mut out = SimOutcome::default();
        for p in parts {
            out.runs += p.runs;
            add_into(&mut out.weight_hist, &p.weight_hist);
            out.acc_band.extend(p.acc_band);
            out.sum_max_cong.extend(p.sum_max_cong);
            out.pairs.extend(p.pairs);
            out.dep_max_delay.extend(p.dep_max_delay);
            add_into(&mut out.cable, &p.cable);
            out.links = match (out.links.take(), p.links) {
                (None, l) | (l, None) => l,
                (Some(mut x), Some(y)) => {
                    x.add(&y);
                    Some(x)
                }
            };
        }
        out
    }
}

/// One prepared simulation. Build it once, then [`Simulation::run`].
pub struct Simulation<'a> {
    router: AnyRouter<'a>,
    /// Longest route (edges) between the layout's hosts: the slot size per pair.
    max_route_len: usize,
    num_edges: usize,
    layout: &'a RankLayout,
    pattern: &'a Pattern,
    config: SimConfig,
    /// Levels of a deterministic pattern, generated once.
    fixed_levels: Option<Levels>,
    /// dep_max_delay considers pairs with both ranks below this bound.
    dep_rank_bound: u32,
}

/// Per-thread scratch space, reused across runs: nothing is allocated in the loop once
/// the buffers have grown to size.
struct Scratch {
    ranks: Vec<u32>,
    levels: Levels,
    /// Per edge: routes of the current level using it (all 0 between levels).
    load: Vec<u32>,
    /// The current level's routes.
    routes: LevelRoutes,
    /// The routes of the level being walked that have not arrived yet.
    in_flight: InFlight,
    /// Weights of the current level's pairs.
    weights: Vec<u32>,
    /// Weight histogram of the current run.
    run_hist: Vec<u64>,
    /// dep_max_delay: per rank, finish time of its receives in the previous level, and
    /// in the current one.
    prev_finish: Vec<u64>,
    cur_finish: Vec<u64>,
    /// dep_max_delay (compat): whether a rank already sent / received in this level.
    sent: Vec<bool>,
    received: Vec<bool>,
    /// --links: the edges that carry the run's largest congestion.
    bottlenecks: Bottlenecks,
}

/// The edges of one level's routes, flat: pair i's route is
/// `edges[i * stride..][..lens[i]]`, with `stride` the longest route of the simulation,
/// so a level's routes need no allocation per pair.
struct LevelRoutes {
    stride: usize,
    edges: Vec<u32>,
    lens: Vec<u32>,
}

impl LevelRoutes {
    fn new(stride: usize) -> Self {
        LevelRoutes {
            stride,
            edges: Vec::new(),
            lens: Vec::new(),
        }
    }

    /// Grows the buffers to hold `pairs` routes; they never shrink, so once a run has
    /// seen its largest level nothing is allocated.
    #[inline]
    fn reserve(&mut self, pairs: usize) {
        if self.edges.len() < pairs * self.stride {
            self.edges.resize(pairs * self.stride, 0);
        }
        if self.lens.len() < pairs {
            self.lens.resize(pairs, 0);
        }
    }

    /// The edges of pair `i`'s route.
    #[inline]
    fn route(&self, i: usize) -> &[u32] {
        let start = i * self.stride;
        &self.edges[start..start + self.lens[i] as usize]
    }
}

/// --links: the current run's bottleneck edges (those carrying `run_max`), deduplicated
/// by `mark[e] == generation`; the generation changes whenever the list restarts, so the
/// marks never need clearing.
struct Bottlenecks {
    edges: Vec<u32>,
    run_max: u32,
    mark: Vec<u64>,
    generation: u64,
}

impl Bottlenecks {
    /// Empty, with marks for `num_edges` edges (none when per-link statistics are off).
    fn new(num_edges: usize) -> Self {
        Bottlenecks {
            edges: Vec::new(),
            run_max: 0,
            mark: vec![0; num_edges],
            generation: 0,
        }
    }

    /// Forgets the previous run. (The marks need no new generation here: the run's
    /// first level with any congestion exceeds `run_max` = 0 and starts one.)
    fn start_run(&mut self) {
        self.run_max = 0;
        self.edges.clear();
    }

    /// Records the edges at `level_max` when the level reaches the run's largest
    /// congestion so far (restarting the list when it exceeds it). The edges at the
    /// maximum lie on the routes of maximal weight, so only those are scanned.
    #[inline]
    fn note_level(&mut self, level_max: u32, weights: &[u32], routes: &LevelRoutes, load: &[u32]) {
        if level_max == 0 || level_max < self.run_max {
            return;
        }
        if level_max > self.run_max {
            self.run_max = level_max;
            self.edges.clear();
            self.generation += 1;
        }
        for (i, &w) in weights.iter().enumerate() {
            if w != level_max {
                continue;
            }
            for &e in routes.route(i) {
                if load[e as usize] == level_max && self.mark[e as usize] != self.generation {
                    self.mark[e as usize] = self.generation;
                    self.edges.push(e);
                }
            }
        }
    }
}

/// Totals of one chunk of runs.
struct ChunkTotals {
    weight_hist: Vec<u64>,
    cable: Vec<u64>,
    links: Option<LinkCongestionTotals>,
}

/// Values of one run.
struct RunValues {
    acc_band: f64,
    sum_max_cong: u64,
    pairs: u64,
    dep_max_delay: u64,
}

impl<'a> Simulation<'a> {
    /// Prepares a simulation of `pattern` on `fabric`/`table` with the ranks of `layout`.
    ///
    /// Every route between the layout's hosts is checked first (the engine walks routes
    /// without checks); when any is broken, the check is returned as the error. A
    /// `known` summary of an earlier check of every host pair of this table (from a
    /// fabric cache) that found nothing broken replaces the check.
    pub fn new(
        fabric: &'a Fabric,
        table: &'a ForwardingTable,
        layout: &'a RankLayout,
        pattern: &'a Pattern,
        config: SimConfig,
        known: Option<&RouteSummary>,
    ) -> Result<Self, SimulationError> {
        let longest = match known.filter(|k| k.proves_all_routed(fabric)) {
            Some(summary) => summary.max_route_len(),
            None => {
                let check = check_routes(fabric, table, layout.hosts());
                if !check.all_routed() {
                    return Err(SimulationError::Unrouted(Box::new(check)));
                }
                check.path_lengths.len().saturating_sub(1)
            }
        };
        let max_route_len = longest.max(1);
        let workers = rayon::current_num_threads().min(config.runs.max(1) as usize);
        let estimate =
            memory_estimate(&config, pattern, fabric.num_edges(), max_route_len, workers);
        config.memory.check(&estimate)?;
        let fixed_levels = (!pattern.is_random()).then(|| {
            let mut levels = Levels::new();
            // Deterministic patterns ignore the generator.
            let mut rng = stream_rng(config.seed, Stream::Subset);
            pattern.generate(&config.pattern_context, &mut rng, &mut levels);
            levels
        });
        let ctx = &config.pattern_context;
        let dep_rank_bound = if config.orcs_compat || matches!(pattern, Pattern::PtrnVsPtrn { .. })
        {
            ctx.part_commsize
        } else {
            ctx.commsize
        };
        Ok(Simulation {
            router: table.router(fabric),
            max_route_len,
            num_edges: fabric.num_edges(),
            layout,
            pattern,
            config,
            fixed_levels,
            dep_rank_bound,
        })
    }

    /// Performs every run in parallel on the current rayon pool, calling `progress` with
    /// the number of runs finished after each chunk. The result is independent of the
    /// number of threads: per-run values are written to their run's slot, and the totals
    /// are integer sums.
    ///
    /// Memory: O(runs) for the per-run values, plus one scratch space and one set of
    /// totals (O(edges)) per worker.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> SimOutcome {
        self.run_range(0..self.config.runs, progress)
    }

    /// Performs runs `range` only (a slice of the simulation for one of several
    /// processes): per-run values for those runs, totals over them. Slices combined in
    /// order with [`SimOutcome::combine`] equal [`Simulation::run`] bit for bit.
    pub(crate) fn run_range(
        &self,
        range: std::ops::Range<u64>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> SimOutcome {
        let first = range.start;
        let runs = range.end.saturating_sub(range.start) as usize;
        let chunk = super::runs_per_chunk(runs);
        let cable_on = self.config.metric == MetricKind::GetCableCong;
        let want_delay = self.config.metric == MetricKind::DepMaxDelay;
        let mut out = SimOutcome {
            runs: runs as u64,
            acc_band: vec![0.0; runs],
            sum_max_cong: vec![0; runs],
            pairs: vec![0; runs],
            dep_max_delay: vec![0; if want_delay { runs } else { 0 }],
            ..SimOutcome::default()
        };
        let new_totals = || ChunkTotals {
            weight_hist: Vec::new(),
            cable: vec![0; if cable_on { self.num_edges } else { 0 }],
            links: (self.config.links).then(|| LinkCongestionTotals::new(self.num_edges)),
        };
        // Slots of one chunk of runs in each per-run array.
        let delay_chunks: Vec<&mut [u64]> = if want_delay {
            out.dep_max_delay.chunks_mut(chunk).collect()
        } else {
            (0..runs.div_ceil(chunk))
                .map(|_| Default::default())
                .collect()
        };
        let totals = out
            .acc_band
            .par_chunks_mut(chunk)
            .zip(out.sum_max_cong.par_chunks_mut(chunk))
            .zip(out.pairs.par_chunks_mut(chunk))
            .zip(delay_chunks)
            .enumerate()
            .fold(
                || (self.new_scratch(), new_totals()),
                |(mut scratch, mut totals), (c, (((acc, sum), pairs), delay))| {
                    let start = first + (c * chunk) as u64;
                    for (i, run) in (start..start + acc.len() as u64).enumerate() {
                        let v = self.run_one(run, &mut scratch, &mut totals);
                        acc[i] = v.acc_band;
                        sum[i] = v.sum_max_cong;
                        pairs[i] = v.pairs;
                        if let Some(d) = delay.get_mut(i) {
                            *d = v.dep_max_delay;
                        }
                    }
                    progress(acc.len() as u64);
                    (scratch, totals)
                },
            )
            .map(|(_, totals)| totals)
            .reduce(new_totals, |mut a, b| {
                add_into(&mut a.weight_hist, &b.weight_hist);
                add_into(&mut a.cable, &b.cable);
                if let (Some(x), Some(y)) = (&mut a.links, &b.links) {
                    x.add(y);
                }
                a
            });
        out.weight_hist = totals.weight_hist;
        out.cable = totals.cable;
        out.links = totals.links;
        out
    }

    fn new_scratch(&self) -> Scratch {
        let n = self.config.pattern_context.commsize as usize;
        Scratch {
            ranks: Vec::with_capacity(n),
            levels: Levels::new(),
            load: vec![0; self.num_edges],
            routes: LevelRoutes::new(self.max_route_len),
            in_flight: InFlight::default(),
            weights: Vec::new(),
            run_hist: Vec::new(),
            prev_finish: vec![0; n],
            cur_finish: vec![0; n],
            sent: vec![false; n],
            received: vec![false; n],
            bottlenecks: Bottlenecks::new(if self.config.links { self.num_edges } else { 0 }),
        }
    }

    /// Rebuilds run `run`'s rank → host list and pattern levels exactly as the
    /// simulation draws them (for `--printptrn`, `--printnamelist` and the benchmarks'
    /// hop-walk limit, which walks the same routes). O(ranks + pairs).
    pub fn materialize(&self, run: u64, ranks: &mut Vec<u32>, levels: &mut Levels) {
        let mut rng = stream_rng(self.config.seed, Stream::Run(run));
        self.layout.fill(&mut rng, ranks);
        match &self.fixed_levels {
            Some(fixed) => levels.clone_from(fixed),
            None => self
                .pattern
                .generate(&self.config.pattern_context, &mut rng, levels),
        }
    }

    /// The levels a run simulates: all of them, or the one chosen with `-l`.
    pub(crate) fn simulated_levels(&self, levels: &Levels) -> std::ops::Range<usize> {
        match self.config.level {
            Some(l) => l.min(levels.num_levels())..(l + 1).min(levels.num_levels()),
            None => 0..levels.num_levels(),
        }
    }

    /// One Monte Carlo run: mapping, every level, the run's metric values. The random
    /// draws must stay in step with [`Simulation::materialize`].
    fn run_one(&self, run: u64, s: &mut Scratch, totals: &mut ChunkTotals) -> RunValues {
        let mut rng = stream_rng(self.config.seed, Stream::Run(run));
        self.layout.fill(&mut rng, &mut s.ranks);
        // Moved out while the levels are read, so the rest of the scratch stays mutable.
        let mut generated = std::mem::take(&mut s.levels);
        let levels = match &self.fixed_levels {
            Some(levels) => levels,
            None => {
                self.pattern
                    .generate(&self.config.pattern_context, &mut rng, &mut generated);
                &generated
            }
        };
        s.run_hist.iter_mut().for_each(|c| *c = 0);
        let want_delay = self.config.metric == MetricKind::DepMaxDelay;
        if want_delay {
            s.prev_finish.iter_mut().for_each(|f| *f = 0);
        }
        let mut sum_max = 0u64;
        let mut delay = 0u64;
        s.bottlenecks.start_run();
        for l in self.simulated_levels(levels) {
            let pairs = levels.level(l);
            if pairs.is_empty() {
                break; // ORCS stops at the first empty level.
            }
            let level_max = self.simulate_level(pairs, s, &mut totals.cable, &mut totals.links);
            sum_max += level_max as u64;
            if want_delay {
                delay = delay.max(self.level_delay(pairs, s));
            }
        }
        s.levels = generated;
        if let Some(links) = &mut totals.links {
            if s.bottlenecks.run_max > 0 {
                links.runs_with_traffic += 1;
                for &e in &s.bottlenecks.edges {
                    links.bottleneck_runs[e as usize] += 1;
                }
            }
        }
        add_into(&mut totals.weight_hist, &s.run_hist);
        RunValues {
            acc_band: acc_band(&s.run_hist).unwrap_or(f64::NAN),
            sum_max_cong: sum_max,
            pairs: s.run_hist.iter().sum(),
            dep_max_delay: delay,
        }
    }

    /// Routes one level's pairs, fills `s.weights` and the run histogram, adds the
    /// level to the cable counts and per-link totals that are collected, and returns the
    /// level's largest weight. O(pairs × hops).
    fn simulate_level(
        &self,
        pairs: &[(u32, u32)],
        s: &mut Scratch,
        cable: &mut [u64],
        links: &mut Option<LinkCongestionTotals>,
    ) -> u32 {
        s.routes.reserve(pairs.len());
        let hops = self.walk_level(pairs, s);
        let level_max = self.weigh_level(pairs.len(), s, cable, links);
        if links.is_some() {
            (s.bottlenecks).note_level(level_max, &s.weights, &s.routes, &s.load);
        }
        // Clearing the whole array writes every edge once, sequentially; clearing the
        // routes' edges writes one scattered counter per hop. The first is cheaper once
        // the hops reach a quarter of the edges.
        if 4 * hops >= s.load.len() {
            s.load.fill(0);
        } else {
            for i in 0..pairs.len() {
                for &e in s.routes.route(i) {
                    s.load[e as usize] = 0;
                }
            }
        }
        level_max
    }

    /// Walks the routes of `pairs` (rank pairs, mapped to hosts by `s.ranks`), all
    /// together, into `s.routes`, counting every edge's routes in `s.load`; returns the
    /// number of hops walked.
    #[inline]
    fn walk_level(&self, pairs: &[(u32, u32)], s: &mut Scratch) -> usize {
        let Scratch {
            ranks,
            load,
            routes,
            in_flight,
            ..
        } = s;
        let hosts = pairs
            .iter()
            .map(|&(src, dst)| (ranks[src as usize], ranks[dst as usize]));
        let mut out = WalkOutput {
            edges: &mut routes.edges,
            stride: routes.stride,
            lens: &mut routes.lens,
            load,
        };
        self.router.walk_all(hosts, in_flight, &mut out)
    }

    /// Weighs the `pairs` routes in `s.routes` by their most loaded edge into
    /// `s.weights` and the run histogram, and adds them to the cable counts (when
    /// collected) and the per-link totals (when asked for). Returns the largest weight.
    #[inline]
    fn weigh_level(
        &self,
        pairs: usize,
        s: &mut Scratch,
        cable: &mut [u64],
        links: &mut Option<LinkCongestionTotals>,
    ) -> u32 {
        let Scratch {
            load,
            routes,
            weights,
            run_hist,
            ..
        } = s;
        weights.clear();
        let mut level_max = 0u32;
        let m = pairs as u64;
        for i in 0..pairs {
            let route = routes.route(i);
            let w = route.iter().map(|&e| load[e as usize]).max().unwrap_or(0);
            weights.push(w);
            level_max = level_max.max(w);
            if run_hist.len() <= w as usize {
                run_hist.resize(w as usize + 1, 0);
            }
            run_hist[w as usize] += 1;
            if !cable.is_empty() {
                // ORCS adds the whole level map after each pair, so the i-th of m pairs
                // counts m − i times (0-based i) in compat mode.
                let inc = if self.config.orcs_compat {
                    m - i as u64
                } else {
                    1
                };
                for &e in route {
                    cable[e as usize] += inc;
                }
            }
            if let Some(links) = links.as_mut() {
                links.add_route(route, load);
            }
        }
        level_max
    }

    /// dep_max_delay for one level, using the weights in `s.weights`; returns the largest
    /// finish time reached in the level (spec §7.4, §11.2).
    fn level_delay(&self, pairs: &[(u32, u32)], s: &mut Scratch) -> u64 {
        let bound = self.dep_rank_bound;
        let mut best = 0;
        s.cur_finish.iter_mut().for_each(|f| *f = 0);
        if self.config.orcs_compat {
            s.sent.iter_mut().for_each(|f| *f = false);
            s.received.iter_mut().for_each(|f| *f = false);
        }
        for (&(src, dst), &w) in pairs.iter().zip(&s.weights) {
            if src >= bound || dst >= bound {
                continue;
            }
            let (src, dst) = (src as usize, dst as usize);
            let finish = if self.config.orcs_compat {
                // ORCS: only a rank's first send links to the first receive of the
                // previous level; only the first receive is remembered.
                let start = if s.sent[src] { 0 } else { s.prev_finish[src] };
                s.sent[src] = true;
                let finish = start + w as u64;
                if !s.received[dst] {
                    s.received[dst] = true;
                    s.cur_finish[dst] = finish;
                }
                finish
            } else {
                // Every send waits for every receive of the previous level.
                let finish = s.prev_finish[src] + w as u64;
                s.cur_finish[dst] = s.cur_finish[dst].max(finish);
                finish
            };
            best = best.max(finish);
        }
        std::mem::swap(&mut s.prev_finish, &mut s.cur_finish);
        best
    }
}

/// Bytes kept per run: its acc_band, sum_max_cong and pair count (and its delay for
/// dep_max_delay), and the copy the summaries make of one of them.
pub fn bytes_per_run(metric: MetricKind) -> u64 {
    if metric == MetricKind::DepMaxDelay {
        40
    } else {
        32
    }
}

/// What a simulation of `pattern` with `config` holds: the per-run results, a
/// deterministic pattern's levels (generated once), and per worker its scratch space (a
/// level's routes of up to `stride` edges and the walk's state of each, a random
/// pattern's levels, per-link and per-rank counters).
fn memory_estimate(
    config: &SimConfig,
    pattern: &Pattern,
    num_edges: usize,
    stride: usize,
    workers: usize,
) -> Estimate {
    let ctx = &config.pattern_context;
    let (level_pairs, run_pairs) = pattern.pair_bounds(ctx);
    let (fixed_pairs, drawn_pairs) = if pattern.is_random() {
        (0, run_pairs)
    } else {
        (run_pairs, 0)
    };
    // load; cable counts; per-link totals and bottleneck marks.
    let per_edge = 4 + 8 + if config.links { 28 } else { 0 };
    let worker = Estimate::new("")
        .add(
            level_pairs as u128,
            "route slots of a level",
            4 * stride as u128 + 8,
        )
        .add(level_pairs as u128, "routes of a level in flight", 24)
        .add(drawn_pairs as u128, "pairs of a run's levels", 8)
        .add(num_edges as u128, "per-link counters", per_edge)
        .add(ctx.commsize as u128, "per-rank slots", 22);
    Estimate::new(format!(
        "a simulation of {} runs on {} ranks",
        config.runs, ctx.commsize
    ))
    .add(
        config.runs as u128,
        "per-run results",
        bytes_per_run(config.metric) as u128,
    )
    .add(fixed_pairs as u128, "pairs of the pattern's levels", 12)
    .add_times(workers as u128, &worker)
}

/// `total += part`, growing `total` as needed.
fn add_into(total: &mut Vec<u64>, part: &[u64]) {
    if total.len() < part.len() {
        total.resize(part.len(), 0);
    }
    for (t, p) in total.iter_mut().zip(part) {
        *t += p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn bottlenecks_list_the_edges_at_the_runs_maximum_once() {
        // Pair 0's route is edges 1 and 2, pair 1's is edge 3.
        let mut routes = LevelRoutes::new(2);
        routes.reserve(2);
        routes.edges[..3].copy_from_slice(&[1, 2, 3]);
        routes.lens[..2].copy_from_slice(&[2, 1]);
        let mut b = Bottlenecks::new(4);
        for _ in 0..2 {
            b.start_run();
            // Level 1: edge 1 carries 2 (pair 0's weight), edge 2 only 1.
            b.note_level(2, &[2, 1], &routes, &[0, 2, 1, 1]);
            assert_eq!(b.edges, [1]);
            // Level 2 at the same maximum, on edge 3 only, adds it to the list.
            b.note_level(2, &[1, 2], &routes, &[0, 1, 1, 2]);
            assert_eq!(b.edges, [1, 3]);
            // Level 3 at it again on both: each edge is listed once.
            b.note_level(2, &[2, 2], &routes, &[0, 2, 0, 2]);
            assert_eq!(b.edges, [1, 3]);
            // A level below the maximum adds nothing.
            b.note_level(1, &[1, 1], &routes, &[0, 1, 1, 1]);
            assert_eq!(b.edges, [1, 3]);
            // A higher maximum restarts the list, and an edge already listed comes back.
            b.note_level(3, &[3, 0], &routes, &[0, 3, 3, 0]);
            assert_eq!(b.edges, [1, 2]);
            assert_eq!(b.run_max, 3);
        }
    }

    #[test]
    fn the_memory_estimate_adds_up_its_terms() {
        let config = |pattern_context, metric, links| SimConfig {
            runs: 100,
            seed: 1,
            level: None,
            metric,
            orcs_compat: false,
            pattern_context,
            links,
            memory: MemoryLimit::unlimited(),
        };
        let ctx = PatternContext::new(16);
        // Bruck on 16 ranks: 4 levels of 16 pairs, generated once (12 bytes a pair).
        // Per run 32 bytes. Per worker: 16 route slots of 4 × 5 + 8 bytes and 16 routes
        // in flight of 24, 28 edges of 12 bytes, 16 ranks of 22 bytes.
        let bruck = Pattern::parse("bruck", None).unwrap();
        let worker = 16 * (4 * 5 + 8) + 16 * 24 + 28 * 12 + 16 * 22;
        let e = memory_estimate(
            &config(ctx, MetricKind::SumMaxCong, false),
            &bruck,
            28,
            5,
            3,
        );
        assert_eq!(e.bytes(), 100 * 32 + 64 * 12 + 3 * worker);
        // The delay metric keeps 8 bytes more per run; --links 28 more per edge.
        let e = memory_estimate(
            &config(ctx, MetricKind::DepMaxDelay, true),
            &bruck,
            28,
            5,
            1,
        );
        assert_eq!(e.bytes(), 100 * 40 + 64 * 12 + worker + 28 * 28);
        // A random pattern's pairs are drawn by each worker: 16 of 8 bytes.
        let rand = Pattern::parse("rand", None).unwrap();
        let e = memory_estimate(&config(ctx, MetricKind::SumMaxCong, false), &rand, 28, 5, 2);
        assert_eq!(e.bytes(), 100 * 32 + 2 * (worker + 16 * 8));
    }

    #[test]
    fn slices_combine_into_the_whole_run_and_survive_bytes() {
        let loaded = crate::fabric::load_routed_fabric(
            concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/ft4-2.ftree.dot"),
            crate::fabric::LoadOptions::default(),
        )
        .unwrap();
        let ctx = PatternContext::new(16);
        let layout = RankLayout::build(
            &loaded.fabric,
            &crate::workload::mapping::LayoutSpec {
                commsize: 16,
                subset: crate::workload::mapping::SubsetMethod::Rand,
                part: None,
                ordering: Vec::new(),
                shuffle: true,
            },
            &mut stream_rng(3, Stream::Subset),
        )
        .unwrap()
        .0;
        for (pattern, metric) in [
            (
                Pattern::parse("rand", None).unwrap(),
                MetricKind::DepMaxDelay,
            ),
            (
                Pattern::parse("bruck", None).unwrap(),
                MetricKind::GetCableCong,
            ),
        ] {
            let config = SimConfig {
                runs: 37,
                seed: 3,
                level: None,
                metric,
                orcs_compat: false,
                pattern_context: ctx,
                links: true,
                memory: MemoryLimit::unlimited(),
            };
            let sim = Simulation::new(
                &loaded.fabric,
                &loaded.table,
                &layout,
                &pattern,
                config,
                None,
            )
            .unwrap();
            let whole = sim.run(&|_| {});
            let parts: Vec<SimOutcome> = [0..10, 10..11, 11..11, 11..37]
                .into_iter()
                .map(|r| SimOutcome::from_bytes(&sim.run_range(r, &|_| {}).to_bytes()).unwrap())
                .collect();
            let joined = SimOutcome::combine(parts);
            assert_eq!(joined.to_bytes(), whole.to_bytes());
            assert_eq!(joined.runs, 37);
        }
        assert!(SimOutcome::from_bytes(&[1, 2, 3]).is_none());
    }

    #[test]
    fn every_route_through_one_switch_of_a_permutation_weighs_one() {
        // Four hosts on one switch: every route is an uplink and a downlink, and each
        // level of bruck on four ranks is a permutation, so whatever the mapping each
        // link carries one route: 2 levels of 4 pairs per run, all of weight 1.
        let generated = crate::gen::topology::generate("kary-ntree:k=4,n=1").unwrap();
        let fabric = &generated.fabric;
        let (table, _) = crate::routing::route_generated(&generated, None, None, 0).unwrap();
        let layout = RankLayout::build(
            fabric,
            &crate::workload::mapping::LayoutSpec {
                commsize: 4,
                subset: crate::workload::mapping::SubsetMethod::Rand,
                part: None,
                ordering: Vec::new(),
                shuffle: true,
            },
            &mut stream_rng(5, Stream::Subset),
        )
        .unwrap()
        .0;
        let pattern = Pattern::parse("bruck", None).unwrap();
        let config = SimConfig {
            runs: 5,
            seed: 5,
            level: None,
            metric: MetricKind::HistMaxCong,
            orcs_compat: false,
            pattern_context: PatternContext::new(4),
            links: false,
            memory: MemoryLimit::unlimited(),
        };
        let sim = Simulation::new(fabric, &table, &layout, &pattern, config, None).unwrap();
        let out = sim.run(&|_| {});
        assert_eq!(out.weight_hist, [0, 40]);
        assert_eq!(out.sum_max_cong, [2; 5]);
        assert_eq!(out.pairs, [8; 5]);
        assert_eq!(out.acc_band, [1.0; 5]);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a = stream_rng(7, Stream::Run(0)).next_u64();
        assert_eq!(a, stream_rng(7, Stream::Run(0)).next_u64());
        assert_ne!(a, stream_rng(7, Stream::Run(1)).next_u64());
        assert_ne!(a, stream_rng(8, Stream::Run(0)).next_u64());
        assert_ne!(a, stream_rng(7, Stream::Subset).next_u64());
    }
}
