//! The Monte Carlo engine for byte-weighted traffic (`-p matrix`): maps a traffic
//! matrix's ranks onto hosts run after run, routes every communicating host pair through
//! the forwarding tables and measures the links in bytes.
//!
//! A traffic matrix is one level whose pairs carry bytes. Every link metric therefore
//! weighs by bytes: the load of a link is the sum of the bytes routed over it, its
//! utilisation that load divided by the link's capacity (the edge's `capacity` attribute,
//! 1 where absent, so utilisation is in bytes unless capacities are given), and its flows
//! the number of rank pairs routed over it. As in the unit-weight engine every directed
//! edge counts, host links included: a host's link carries all of its ranks' traffic, and
//! with several ranks per host it can be the bottleneck.
//!
//! Ranks are placed in blocks of `ranks_per_host` on the run's host order (rank r on slot
//! ⌊r / ranks_per_host⌋), so the matrix is summed per slot pair once, before the runs;
//! traffic between ranks of one host never reaches a link. Run i draws its host order
//! from (seed, i) only and every total is an integer sum, so results do not depend on the
//! thread count.

use crate::engine::stream::{stream_rng, Stream};
use crate::engine::unit::SimulationError;
use crate::fabric::Fabric;
use crate::limits::{Estimate, MemoryLimit};
use crate::routing::{check_routes, AnyRouter, ForwardingTable, RouteSummary};
use crate::workload::mapping::{LayoutSpec, RankLayout};
use crate::workload::matrix::TrafficMatrix;
use crate::workload::WorkloadError;
use rayon::prelude::*;

/// Bytes a weighted simulation keeps per run: its values while the runs go and the
/// per-run lists made of them.
pub const BYTES_PER_RUN: u64 = 80;

/// A traffic matrix summed per ordered pair of host slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotTraffic {
    /// Ranks of the matrix.
    pub ranks: u32,
    /// Ranks placed on each host.
    pub ranks_per_host: u32,
    /// Host slots the ranks fill: ⌈ranks / ranks_per_host⌉.
    pub slots: u32,
    /// (source slot, destination slot, bytes, rank pairs) for every slot pair whose ranks
    /// exchange at least one message, sorted by slot pair; pairs within one slot are left
    /// out.
    pub pairs: Vec<(u32, u32, u64, u32)>,
    /// Bytes between ranks of one slot (they never reach a link).
    pub local_bytes: u64,
    /// Bytes of the whole matrix.
    pub total_bytes: u64,
}

impl SlotTraffic {
    /// Sums `matrix` per slot pair with `ranks_per_host` (≥ 1) consecutive ranks per slot.
    /// Byte sums saturate at `u64::MAX`. O(entries log entries).
    pub fn new(matrix: &TrafficMatrix, ranks_per_host: u32) -> SlotTraffic {
        let ppn = ranks_per_host.max(1);
        let mut keyed: Vec<(u32, u32, u64)> = Vec::with_capacity(matrix.entries.len());
        let mut local_bytes = 0u64;
        let mut total_bytes = 0u64;
        for &(r, q, bytes) in &matrix.entries {
            total_bytes = total_bytes.saturating_add(bytes);
            let (a, b) = (r / ppn, q / ppn);
            if a == b {
                local_bytes = local_bytes.saturating_add(bytes);
            } else {
                keyed.push((a, b, bytes));
            }
        }
        keyed.sort_unstable_by_key(|&(a, b, _)| (a, b));
        let mut pairs: Vec<(u32, u32, u64, u32)> = Vec::new();
        for (a, b, bytes) in keyed {
            match pairs.last_mut() {
                Some(last) if (last.0, last.1) == (a, b) => {
                    last.2 = last.2.saturating_add(bytes);
                    last.3 += 1;
                }
                _ => pairs.push((a, b, bytes, 1)),
            }
        }
        SlotTraffic {
            ranks: matrix.ranks,
            ranks_per_host: ppn,
            slots: matrix.ranks.div_ceil(ppn),
            pairs,
            local_bytes,
            total_bytes,
        }
    }
}

/// The facts of a matrix summed per slot, as the outputs of `-p matrix` and the records
/// of a scan give them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MatrixInfo {
    /// The matrix file as given.
    pub file: String,
    /// Ranks of the matrix.
    pub ranks: u32,
    /// Ranks per host (`--ppn`).
    pub ranks_per_host: u32,
    /// Hosts the ranks occupy.
    pub hosts: u32,
    /// Rank pairs with at least one message.
    pub rank_pairs: u64,
    /// Ordered host pairs with traffic between different hosts.
    pub host_pairs: u64,
    /// Bytes of the whole matrix.
    pub total_bytes: u64,
    /// Bytes between ranks of one host (never on a link).
    pub local_bytes: u64,
}

impl MatrixInfo {
    /// The facts of `traffic` read from `file` with `rank_pairs` entries.
    pub fn new(file: &str, traffic: &SlotTraffic, rank_pairs: u64) -> Self {
        MatrixInfo {
            file: file.to_string(),
            ranks: traffic.ranks,
            ranks_per_host: traffic.ranks_per_host,
            hosts: traffic.slots,
            rank_pairs,
            host_pairs: traffic.pairs.len() as u64,
            total_bytes: traffic.total_bytes,
            local_bytes: traffic.local_bytes,
        }
    }
}

/// Why a traffic matrix's slots cannot be laid out on a fabric.
#[derive(Debug, thiserror::Error)]
pub enum SlotLayoutError {
    /// The matrix needs more hosts than the fabric has.
    #[error(
        "{ranks} ranks at {ranks_per_host} per host need {slots} hosts, but the fabric has {hosts}"
    )]
    TooFewHosts {
        /// Ranks of the matrix.
        ranks: u32,
        /// Ranks placed on each host.
        ranks_per_host: u32,
        /// Hosts the ranks need.
        slots: u32,
        /// Hosts of the fabric.
        hosts: usize,
    },
    /// The hosts cannot be chosen.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}

/// Chooses the hosts of `traffic`'s slots once, as `-p matrix` does: `spec` with its
/// communicator set to the slot count, drawn from the subset stream of `seed`
/// ([`crate::engine::request::lay_out`]). Returns the layout and its warnings.
pub fn lay_out_slots(
    fabric: &Fabric,
    traffic: &SlotTraffic,
    spec: LayoutSpec,
    seed: u64,
) -> Result<(RankLayout, Vec<String>), SlotLayoutError> {
    if traffic.slots as usize > fabric.num_hosts() {
        return Err(SlotLayoutError::TooFewHosts {
            ranks: traffic.ranks,
            ranks_per_host: traffic.ranks_per_host,
            slots: traffic.slots,
            hosts: fabric.num_hosts(),
        });
    }
    let spec = LayoutSpec {
        commsize: traffic.slots as usize,
        ..spec
    };
    Ok(crate::engine::request::lay_out(fabric, &spec, seed)?)
}

/// How a weighted simulation runs; validated by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeightedConfig {
    /// Number of Monte Carlo runs (≥ 1).
    pub runs: u64,
    /// Seed of every random stream.
    pub seed: u64,
    /// Compute the byte-weighted bandwidth fraction of each run (a second route walk).
    pub acc_band: bool,
    /// Collect per-link totals ([`WeightedLinks`]).
    pub links: bool,
    /// The memory the simulation may use; [`WeightedSimulation::new`] refuses one that
    /// needs more.
    pub memory: MemoryLimit,
}

/// Per directed edge totals over all runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WeightedLinks {
    /// Bytes routed over the edge, summed over runs (saturating).
    pub bytes: Vec<u64>,
    /// Largest load of the edge in one run, in bytes.
    pub max_bytes: Vec<u64>,
    /// Rank pairs routed over the edge, summed over runs.
    pub flows: Vec<u64>,
    /// Largest number of rank pairs on the edge in one run.
    pub max_flows: Vec<u64>,
    /// Runs in which the edge had the run's largest utilisation.
    pub bottleneck_runs: Vec<u64>,
}

/// What a weighted simulation produced, run by run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeightedOutcome {
    /// Number of runs.
    pub runs: u64,
    /// Per run: the largest link load in bytes.
    pub max_load: Vec<u64>,
    /// Per run: the largest link utilisation (bytes ÷ capacity).
    pub max_utilisation: Vec<f64>,
    /// Per run: sample standard deviation (n − 1) of the utilisation over every directed
    /// edge of the fabric, idle ones included.
    pub utilisation_sd: Vec<f64>,
    /// Per run: the largest number of rank pairs on one link.
    pub max_flows: Vec<u64>,
    /// Per run, when asked for: the byte-weighted mean over host pairs of the fraction of
    /// its bottleneck link's bandwidth the pair gets when a link's bandwidth is shared in
    /// proportion to bytes (`bytes / load`, minimised over the route); NaN without bytes.
    /// For unit weights this is ORCS's acc_band.
    pub acc_band: Vec<f64>,
    /// Per-link totals, when asked for.
    pub links: Option<WeightedLinks>,
}

impl WeightedOutcome {
    // Only MPI ranks exchange slices of a simulation.
    #[cfg(any(feature = "mpi", test))]
    /// Joins slices of one simulation given in run order (see
    /// [`WeightedSimulation::run_range`]): per-run values concatenated, totals summed
    /// (bytes saturating, as within one process) and maxima taken.
    pub(crate) fn combine(parts: Vec<WeightedOutcome>) -> WeightedOutcome {
        let mut out = WeightedOutcome::default();
        for p in parts {
            out.runs += p.runs;
            out.max_load.extend(p.max_load);
            out.max_utilisation.extend(p.max_utilisation);
            out.utilisation_sd.extend(p.utilisation_sd);
            out.max_flows.extend(p.max_flows);
            out.acc_band.extend(p.acc_band);
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

impl WeightedLinks {
    /// Adds another set of runs' totals to these (same fabric).
    fn add(&mut self, other: &WeightedLinks) {
        for e in 0..self.bytes.len() {
            self.bytes[e] = self.bytes[e].saturating_add(other.bytes[e]);
            self.max_bytes[e] = self.max_bytes[e].max(other.max_bytes[e]);
            self.flows[e] += other.flows[e];
            self.max_flows[e] = self.max_flows[e].max(other.max_flows[e]);
            self.bottleneck_runs[e] += other.bottleneck_runs[e];
        }
    }
}

/// One prepared weighted simulation. Build it once, then [`WeightedSimulation::run`].
pub struct WeightedSimulation<'a> {
    router: AnyRouter<'a>,
    layout: &'a RankLayout,
    traffic: &'a SlotTraffic,
    capacity: &'a [f64],
    config: WeightedConfig,
    num_edges: usize,
}

/// Per-thread scratch space, reused across runs.
struct Scratch {
    hosts: Vec<u32>,
    load: Vec<u64>,
    flows: Vec<u64>,
    /// Edges with traffic in the current run, each once.
    touched: Vec<u32>,
}

/// Values of one run.
#[derive(Debug, Clone, Copy, Default)]
struct RunValues {
    max_load: u64,
    max_utilisation: f64,
    utilisation_sd: f64,
    max_flows: u64,
    acc_band: f64,
}

impl<'a> WeightedSimulation<'a> {
    /// Prepares the simulation. `layout` must hold at least `traffic.slots` hosts and
    /// `capacity` one positive value per edge. Every route between the layout's hosts is
    /// checked first unless `known` proves the whole table routed; a broken one is
    /// returned as the error, as is a simulation that needs more memory than
    /// `config.memory`.
    pub fn new(
        fabric: &'a Fabric,
        table: &'a ForwardingTable,
        layout: &'a RankLayout,
        traffic: &'a SlotTraffic,
        capacity: &'a [f64],
        config: WeightedConfig,
        known: Option<&RouteSummary>,
    ) -> Result<Self, SimulationError> {
        if !known.is_some_and(|k| k.proves_all_routed(fabric)) {
            let check = check_routes(fabric, table, layout.hosts());
            if !check.all_routed() {
                return Err(SimulationError::Unrouted(Box::new(check)));
            }
        }
        let workers = rayon::current_num_threads().min(config.runs.max(1) as usize);
        config
            .memory
            .check(&memory_estimate(&config, fabric.num_edges(), workers))?;
        Ok(WeightedSimulation {
            router: table.router(fabric),
            layout,
            traffic,
            capacity,
            config,
            num_edges: fabric.num_edges(),
        })
    }

    /// Performs every run in parallel, calling `progress` with the number of runs
    /// finished after each chunk. O(runs × slot pairs × hops); memory O(runs) plus
    /// O(edges) per worker.
    pub fn run(&self, progress: &(dyn Fn(u64) + Sync)) -> WeightedOutcome {
        self.run_range(0..self.config.runs, progress)
    }

    /// Performs runs `range` only (a slice of the simulation for one of several
    /// processes): per-run values for those runs, totals over them. Slices combined in
    /// order with [`WeightedOutcome::combine`] equal [`WeightedSimulation::run`] bit for
    /// bit.
    pub(crate) fn run_range(
        &self,
        range: std::ops::Range<u64>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> WeightedOutcome {
        let first = range.start;
        let runs = range.end.saturating_sub(range.start) as usize;
        let chunk = super::runs_per_chunk(runs);
        let mut values = vec![RunValues::default(); runs];
        let new_links = || {
            self.config.links.then(|| WeightedLinks {
                bytes: vec![0; self.num_edges],
                max_bytes: vec![0; self.num_edges],
                flows: vec![0; self.num_edges],
                max_flows: vec![0; self.num_edges],
                bottleneck_runs: vec![0; self.num_edges],
            })
        };
        let links = values
            .par_chunks_mut(chunk)
            .enumerate()
            .fold(
                || (self.new_scratch(), new_links()),
                |(mut scratch, mut links), (c, slots)| {
                    let start = first + (c * chunk) as u64;
                    for (i, slot) in slots.iter_mut().enumerate() {
                        *slot = self.run_one(start + i as u64, &mut scratch, &mut links);
                    }
                    progress(slots.len() as u64);
                    (scratch, links)
                },
            )
            .map(|(_, links)| links)
            .reduce(new_links, |a, b| match (a, b) {
                (Some(mut x), Some(y)) => {
                    x.add(&y);
                    Some(x)
                }
                (a, _) => a,
            });
        WeightedOutcome {
            runs: runs as u64,
            max_load: values.iter().map(|v| v.max_load).collect(),
            max_utilisation: values.iter().map(|v| v.max_utilisation).collect(),
            utilisation_sd: values.iter().map(|v| v.utilisation_sd).collect(),
            max_flows: values.iter().map(|v| v.max_flows).collect(),
            acc_band: if self.config.acc_band {
                values.iter().map(|v| v.acc_band).collect()
            } else {
                Vec::new()
            },
            links,
        }
    }

    fn new_scratch(&self) -> Scratch {
        Scratch {
            hosts: Vec::with_capacity(self.layout.hosts().len()),
            load: vec![0; self.num_edges],
            flows: vec![0; self.num_edges],
            touched: Vec::new(),
        }
    }

    /// Run `run`'s slot → host order, exactly as the simulation draws it.
    pub(crate) fn materialize(&self, run: u64, hosts: &mut Vec<u32>) {
        let mut rng = stream_rng(self.config.seed, Stream::Run(run));
        self.layout.fill(&mut rng, hosts);
    }

    /// One run: place, route, measure, and clear the touched counters again.
    /// O(slot pairs × hops + touched edges).
    fn run_one(&self, run: u64, s: &mut Scratch, links: &mut Option<WeightedLinks>) -> RunValues {
        self.materialize(run, &mut s.hosts);
        let Scratch {
            hosts,
            load,
            flows,
            touched,
        } = s;
        for &(a, b, bytes, pair_flows) in &self.traffic.pairs {
            self.router.walk(hosts[a as usize], hosts[b as usize], |e| {
                let e = e as usize;
                if flows[e] == 0 {
                    touched.push(e as u32);
                }
                load[e] = load[e].saturating_add(bytes);
                flows[e] += pair_flows as u64;
            });
        }
        let mut v = RunValues::default();
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for &e in touched.iter() {
            let e = e as usize;
            let u = load[e] as f64 / self.capacity[e];
            v.max_load = v.max_load.max(load[e]);
            v.max_utilisation = v.max_utilisation.max(u);
            v.max_flows = v.max_flows.max(flows[e]);
            sum += u;
            sum_sq += u * u;
        }
        let n = self.num_edges as f64;
        v.utilisation_sd = if self.num_edges > 1 {
            ((sum_sq - sum * sum / n) / (n - 1.0)).max(0.0).sqrt()
        } else {
            0.0
        };
        v.acc_band = if self.config.acc_band {
            self.byte_weighted_band(hosts, load)
        } else {
            f64::NAN
        };
        if let Some(l) = links {
            for &e in touched.iter() {
                let e = e as usize;
                l.bytes[e] = l.bytes[e].saturating_add(load[e]);
                l.max_bytes[e] = l.max_bytes[e].max(load[e]);
                l.flows[e] += flows[e];
                l.max_flows[e] = l.max_flows[e].max(flows[e]);
                if v.max_utilisation > 0.0 && load[e] as f64 / self.capacity[e] == v.max_utilisation
                {
                    l.bottleneck_runs[e] += 1;
                }
            }
        }
        for &e in touched.iter() {
            load[e as usize] = 0;
            flows[e as usize] = 0;
        }
        touched.clear();
        v
    }

    /// Σ bytes × (bytes / bottleneck load) / Σ bytes over the host pairs with bytes.
    fn byte_weighted_band(&self, hosts: &[u32], load: &[u64]) -> f64 {
        let (mut weighted, mut total) = (0.0f64, 0.0f64);
        for &(a, b, bytes, _) in &self.traffic.pairs {
            if bytes == 0 {
                continue;
            }
            let mut worst = u64::MIN;
            self.router.walk(hosts[a as usize], hosts[b as usize], |e| {
                worst = worst.max(load[e as usize]);
            });
            let share = bytes as f64 / worst as f64;
            weighted += bytes as f64 * share;
            total += bytes as f64;
        }
        if total > 0.0 {
            weighted / total
        } else {
            f64::NAN
        }
    }
}

/// What a weighted simulation holds: every run's values while the runs go and the
/// per-run lists made of them, and per worker its per-link loads and totals.
fn memory_estimate(config: &WeightedConfig, num_edges: usize, workers: usize) -> Estimate {
    // Scratch: a load and a flow count (8 bytes each) and a place in `touched` (4);
    // with --links five more totals of 8 bytes.
    let per_edge = 20 + if config.links { 40 } else { 0 };
    let worker = Estimate::new("").add(num_edges as u128, "per-link counters", per_edge);
    Estimate::new(format!("a simulation of {} runs", config.runs))
        .add(
            config.runs as u128,
            "per-run results",
            BYTES_PER_RUN as u128,
        )
        .add_times(workers as u128, &worker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_counts_runs_and_each_workers_links() {
        let mut config = WeightedConfig {
            runs: 1000,
            seed: 1,
            acc_band: false,
            links: false,
            memory: MemoryLimit::unlimited(),
        };
        // 80 bytes a run; per worker 20 bytes an edge, 60 with --links.
        assert_eq!(
            memory_estimate(&config, 30, 2).bytes(),
            80_000 + 2 * 30 * 20
        );
        config.links = true;
        assert_eq!(
            memory_estimate(&config, 30, 3).bytes(),
            80_000 + 3 * 30 * 60
        );
    }

    #[test]
    fn slot_traffic_sums_per_slot_pair() {
        let m = TrafficMatrix {
            ranks: 5,
            entries: vec![
                (0, 1, 10),
                (0, 2, 5),
                (1, 3, 7),
                (4, 0, 1),
                (2, 3, 0),
                (3, 2, 4),
            ],
        };
        let t = SlotTraffic::new(&m, 2);
        // Slots: {0,1} {2,3} {4}.
        assert_eq!(t.slots, 3);
        assert_eq!(t.pairs, vec![(0, 1, 12, 2), (2, 0, 1, 1)]);
        assert_eq!((t.local_bytes, t.total_bytes), (14, 27));
        let one = SlotTraffic::new(&m, 1);
        assert_eq!(one.slots, 5);
        assert_eq!(one.pairs.len(), 6);
        assert_eq!(one.local_bytes, 0);
    }

    /// A 4-ary 1-tree: four hosts on one switch, routed.
    fn one_switch() -> (crate::gen::Generated, ForwardingTable) {
        let generated = crate::gen::topology::generate("kary-ntree:k=4,n=1").unwrap();
        let (table, _) = crate::routing::route_generated(&generated, None, None, 0).unwrap();
        (generated, table)
    }

    fn any_hosts(commsize: usize) -> LayoutSpec {
        LayoutSpec {
            commsize,
            subset: crate::workload::mapping::SubsetMethod::Rand,
            part: None,
            ordering: Vec::new(),
            shuffle: true,
        }
    }

    #[test]
    fn the_slots_not_the_callers_communicator_size_the_layout() {
        let (generated, _) = one_switch();
        let m = TrafficMatrix {
            ranks: 3,
            entries: vec![(0, 1, 5), (1, 2, 5)],
        };
        let traffic = SlotTraffic::new(&m, 1);
        let (layout, _) = lay_out_slots(&generated.fabric, &traffic, any_hosts(4), 9).unwrap();
        assert_eq!(layout.hosts().len(), 3);
        let five = SlotTraffic::new(
            &TrafficMatrix {
                ranks: 5,
                entries: vec![(0, 4, 1)],
            },
            1,
        );
        let e = lay_out_slots(&generated.fabric, &five, any_hosts(4), 9).unwrap_err();
        assert!(matches!(
            e,
            SlotLayoutError::TooFewHosts {
                slots: 5,
                hosts: 4,
                ..
            }
        ));
    }

    #[test]
    fn messages_without_bytes_load_no_link_and_make_no_bottleneck() {
        // Two rank pairs exchange only empty messages: their links carry flows but no
        // bytes, so no link is the bottleneck of a run.
        let (generated, table) = one_switch();
        let fabric = &generated.fabric;
        let traffic = SlotTraffic {
            ranks: 4,
            ranks_per_host: 1,
            slots: 4,
            pairs: vec![(0, 1, 0, 1), (2, 3, 0, 1)],
            local_bytes: 0,
            total_bytes: 0,
        };
        let (layout, _) = lay_out_slots(fabric, &traffic, any_hosts(4), 2).unwrap();
        let capacity = vec![1.0; fabric.num_edges()];
        let config = WeightedConfig {
            runs: 3,
            seed: 2,
            acc_band: true,
            links: true,
            memory: MemoryLimit::unlimited(),
        };
        let sim =
            WeightedSimulation::new(fabric, &table, &layout, &traffic, &capacity, config, None)
                .unwrap();
        let out = sim.run(&|_| {});
        assert_eq!(out.max_load, [0; 3]);
        assert_eq!(out.max_utilisation, [0.0; 3]);
        assert_eq!(out.max_flows, [1; 3]);
        assert!(out.acc_band.iter().all(|b| b.is_nan()));
        let links = out.links.unwrap();
        // Each pair crosses an up and a down link: 4 links of one flow per run.
        assert_eq!(links.flows.iter().sum::<u64>(), 3 * 4);
        assert_eq!(links.bytes.iter().sum::<u64>(), 0);
        assert_eq!(links.bottleneck_runs.iter().sum::<u64>(), 0);
    }
}
