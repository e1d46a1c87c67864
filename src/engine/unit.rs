//! The Monte Carlo engine: maps the pattern onto hosts run after run, walks every route
//! through the forwarding tables and counts per-link congestion per level (spec §1, §6).
//!
//! Runs are independent: run i draws its randomness only from (seed, i), and every
//! result is either an integer sum or stored per run, so the output does not depend on
//! how rayon splits the runs over threads.

use crate::engine::metric::{acc_band, MetricKind};
use crate::engine::stream::{stream_rng, Stream};
use crate::fabric::Fabric;
use crate::routing::{check_routes, AnyRouter, ForwardingTable, RouteCheck, RouteSummary, LANES};
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
    /// Collect per-link statistics ([`LinkStats`]) whatever the metric.
    pub links: bool,
}

/// Per directed edge statistics over all runs (`--links`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Routes simulated over the edge, summed over levels and runs (each route once).
    pub messages: Vec<u64>,
    /// Largest number of routes sharing the edge in one level of one run.
    pub max_congestion: Vec<u32>,
    /// Runs in which the edge carried the run's largest congestion (in some level).
    pub bottleneck_runs: Vec<u64>,
    /// Runs that had traffic (the denominator of the bottleneck share).
    pub runs_with_traffic: u64,
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
    pub links: Option<LinkStats>,
}

impl SimOutcome {
    /// Total pairs over all runs.
    pub fn total_pairs(&self) -> u64 {
        self.weight_hist.iter().sum()
    }

    /// Joins slices of one simulation given in run order (see
    /// [`Simulation::run_range`]): per-run values concatenated, totals summed.
    pub fn combine(parts: Vec<SimOutcome>) -> SimOutcome {
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
                    add_into(&mut x.messages, &y.messages);
                    add_into(&mut x.bottleneck_runs, &y.bottleneck_runs);
                    for (m, &n) in x.max_congestion.iter_mut().zip(&y.max_congestion) {
                        *m = (*m).max(n);
                    }
                    x.runs_with_traffic += y.runs_with_traffic;
                    Some(x)
                }
            };
        }
        out
    }

    /// The outcome as bytes (little-endian, lengths first) for sending to another
    /// process; [`SimOutcome::from_bytes`] reads it back exactly (NaNs included).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        let u64s = |b: &mut Vec<u8>, v: &[u64]| {
            b.extend_from_slice(&(v.len() as u64).to_le_bytes());
            v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
        };
        b.extend_from_slice(&self.runs.to_le_bytes());
        u64s(&mut b, &self.weight_hist);
        u64s(
            &mut b,
            &self
                .acc_band
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
        );
        u64s(&mut b, &self.sum_max_cong);
        u64s(&mut b, &self.pairs);
        u64s(&mut b, &self.dep_max_delay);
        u64s(&mut b, &self.cable);
        match &self.links {
            None => b.push(0),
            Some(l) => {
                b.push(1);
                u64s(&mut b, &l.messages);
                u64s(
                    &mut b,
                    &l.max_congestion
                        .iter()
                        .map(|&x| x as u64)
                        .collect::<Vec<_>>(),
                );
                u64s(&mut b, &l.bottleneck_runs);
                b.extend_from_slice(&l.runs_with_traffic.to_le_bytes());
            }
        }
        b
    }

    /// Reads [`SimOutcome::to_bytes`]; None for bytes it did not write.
    pub fn from_bytes(bytes: &[u8]) -> Option<SimOutcome> {
        let mut at = 0usize;
        let runs = word_at(bytes, &mut at)?;
        let weight_hist = list_at(bytes, &mut at)?;
        let acc_band = list_at(bytes, &mut at)?
            .into_iter()
            .map(f64::from_bits)
            .collect();
        let sum_max_cong = list_at(bytes, &mut at)?;
        let pairs = list_at(bytes, &mut at)?;
        let dep_max_delay = list_at(bytes, &mut at)?;
        let cable = list_at(bytes, &mut at)?;
        let links = match bytes.get(at) {
            Some(0) => None,
            Some(1) => {
                at += 1;
                let messages = list_at(bytes, &mut at)?;
                let max_congestion = list_at(bytes, &mut at)?
                    .into_iter()
                    .map(|x| u32::try_from(x).ok())
                    .collect::<Option<Vec<u32>>>()?;
                let bottleneck_runs = list_at(bytes, &mut at)?;
                let runs_with_traffic = word_at(bytes, &mut at)?;
                Some(LinkStats {
                    messages,
                    max_congestion,
                    bottleneck_runs,
                    runs_with_traffic,
                })
            }
            _ => return None,
        };
        Some(SimOutcome {
            runs,
            weight_hist,
            acc_band,
            sum_max_cong,
            pairs,
            dep_max_delay,
            cable,
            links,
        })
    }
}

/// A little-endian u64 at `*at`.
fn word_at(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let w = bytes.get(*at..*at + 8)?;
    *at += 8;
    Some(u64::from_le_bytes(w.try_into().ok()?))
}

/// A length-prefixed list of little-endian u64 at `*at`.
fn list_at(bytes: &[u8], at: &mut usize) -> Option<Vec<u64>> {
    let n = word_at(bytes, at)? as usize;
    if n > bytes.len() / 8 {
        return None;
    }
    (0..n).map(|_| word_at(bytes, at)).collect()
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
    /// Edges of the current level's routes, pair i in `i * max_route_len..`.
    route_edges: Vec<u32>,
    /// Length of each pair's route.
    route_lens: Vec<u32>,
    /// Host pairs of the lanes being walked.
    lane_pairs: Vec<(u32, u32)>,
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
    /// --links: the current run's bottleneck edges (carrying `run_max`), deduplicated by
    /// `mark[e] == generation`; the generation changes whenever the list restarts.
    bottlenecks: Vec<u32>,
    run_max: u32,
    mark: Vec<u64>,
    generation: u64,
}

/// Totals of one chunk of runs.
struct ChunkTotals {
    weight_hist: Vec<u64>,
    cable: Vec<u64>,
    links: Option<LinkStats>,
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
    ) -> Result<Self, Box<RouteCheck>> {
        let longest = match known.filter(|k| k.proves_all_routed(fabric)) {
            Some(summary) => summary.max_route_len(),
            None => {
                let check = check_routes(fabric, table, layout.hosts());
                if !check.all_routed() {
                    return Err(Box::new(check));
                }
                check.path_lengths.len().saturating_sub(1)
            }
        };
        let max_route_len = longest.max(1);
        let fixed_levels = (!pattern.is_random()).then(|| {
            let mut levels = Levels::new();
            // Deterministic patterns ignore the generator.
            let mut rng = stream_rng(config.seed, Stream::Subset);
            pattern.generate(&config.pattern_context, &mut rng, &mut levels);
            levels
        });
        let ctx = &config.pattern_context;
        let dep_rank_bound = if config.orcs_compat
            || matches!(
                pattern,
                crate::workload::pattern::Pattern::PtrnVsPtrn { .. }
            ) {
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
    pub fn run_range(
        &self,
        range: std::ops::Range<u64>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> SimOutcome {
        let first = range.start;
        let runs = range.end.saturating_sub(range.start) as usize;
        let threads = rayon::current_num_threads();
        let chunk = (runs / (threads * 16)).clamp(1, 1024);
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
            links: self.config.links.then(|| LinkStats {
                messages: vec![0; self.num_edges],
                max_congestion: vec![0; self.num_edges],
                bottleneck_runs: vec![0; self.num_edges],
                runs_with_traffic: 0,
            }),
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
                    add_into(&mut x.messages, &y.messages);
                    add_into(&mut x.bottleneck_runs, &y.bottleneck_runs);
                    for (m, &n) in x.max_congestion.iter_mut().zip(&y.max_congestion) {
                        *m = (*m).max(n);
                    }
                    x.runs_with_traffic += y.runs_with_traffic;
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
            route_edges: Vec::new(),
            route_lens: Vec::new(),
            lane_pairs: Vec::with_capacity(LANES),
            weights: Vec::new(),
            run_hist: Vec::new(),
            prev_finish: vec![0; n],
            cur_finish: vec![0; n],
            sent: vec![false; n],
            received: vec![false; n],
            bottlenecks: Vec::new(),
            run_max: 0,
            mark: vec![0; if self.config.links { self.num_edges } else { 0 }],
            generation: 0,
        }
    }

    /// Rebuilds run `run`'s rank → host list and pattern levels exactly as the
    /// simulation draws them (for `--printptrn` and `--printnamelist`).
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
    pub fn simulated_levels(&self, levels: &Levels) -> std::ops::Range<usize> {
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
        s.run_max = 0;
        s.bottlenecks.clear();
        s.generation += 1;
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
            if s.run_max > 0 {
                links.runs_with_traffic += 1;
                for &e in &s.bottlenecks {
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

    /// Routes one level's pairs, fills `s.weights` and the run histogram, and returns the
    /// level's largest weight. O(pairs × hops).
    fn simulate_level(
        &self,
        pairs: &[(u32, u32)],
        s: &mut Scratch,
        cable: &mut [u64],
        links: &mut Option<LinkStats>,
    ) -> u32 {
        let Scratch {
            ranks,
            load,
            route_edges,
            route_lens,
            lane_pairs,
            weights,
            run_hist,
            bottlenecks,
            run_max,
            mark,
            generation,
            ..
        } = s;
        let stride = self.max_route_len;
        if route_edges.len() < pairs.len() * stride {
            route_edges.resize(pairs.len() * stride, 0);
        }
        if route_lens.len() < pairs.len() {
            route_lens.resize(pairs.len(), 0);
        }
        for (c, chunk) in pairs.chunks(LANES).enumerate() {
            lane_pairs.clear();
            lane_pairs.extend(
                chunk
                    .iter()
                    .map(|&(src, dst)| (ranks[src as usize], ranks[dst as usize])),
            );
            let first = c * LANES;
            self.router.walk_interleaved(
                lane_pairs,
                &mut route_edges[first * stride..],
                stride,
                &mut route_lens[first..],
                |e| load[e as usize] += 1,
            );
        }
        let route_of = |i: usize| &route_edges[i * stride..i * stride + route_lens[i] as usize];
        weights.clear();
        let mut level_max = 0u32;
        let m = pairs.len() as u64;
        for i in 0..pairs.len() {
            let route = route_of(i);
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
                for &e in route {
                    let e = e as usize;
                    links.messages[e] += 1;
                    links.max_congestion[e] = links.max_congestion[e].max(load[e]);
                }
            }
        }
        if links.is_some() && level_max > 0 && level_max >= *run_max {
            if level_max > *run_max {
                *run_max = level_max;
                bottlenecks.clear();
                *generation += 1;
            }
            // The edges at the maximum lie on the routes of maximal weight.
            for (i, &w) in weights.iter().enumerate() {
                if w != level_max {
                    continue;
                }
                for &e in route_of(i) {
                    if load[e as usize] == level_max && mark[e as usize] != *generation {
                        mark[e as usize] = *generation;
                        bottlenecks.push(e);
                    }
                }
            }
        }
        for i in 0..pairs.len() {
            for &e in route_of(i) {
                load[e as usize] = 0;
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
    use rand::RngCore;

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
    fn streams_differ_and_repeat() {
        let a = stream_rng(7, Stream::Run(0)).next_u64();
        assert_eq!(a, stream_rng(7, Stream::Run(0)).next_u64());
        assert_ne!(a, stream_rng(7, Stream::Run(1)).next_u64());
        assert_ne!(a, stream_rng(8, Stream::Run(0)).next_u64());
        assert_ne!(a, stream_rng(7, Stream::Subset).next_u64());
    }
}
