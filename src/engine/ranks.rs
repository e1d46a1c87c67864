//! Spreading work over the processes of `mpirun` (cargo feature `mpi`).
//!
//! One simulation: rank r of K performs runs ⌊n·r/K⌋..⌊n·(r+1)/K⌋ and sends that slice
//! to rank 0 as bytes (`SimOutcome::to_bytes`, the wire format kept here), and rank 0
//! combines the slices in rank order (`SimOutcome::combine`) and alone writes the
//! output, so the bytes are those one process writes with the same seed. A weighted
//! simulation (`-p matrix`) is shared the same way ([`Ranks::run_weighted`]), and so are
//! the task model's replications ([`Ranks::run_replications`]), and a trace's replay
//! on many configurations ([`Ranks::run_replay`]: each rank replays a slice of them). A
//! scan ([`crate::scan::run`]) gives each rank every K-th pending cell. Without the
//! feature, or outside `mpirun`, there is one rank and everything runs here.
//!
//! The place of a process is an explicit [`Ranks`] value handed to whoever shares work
//! out: nothing here is global, and a program that never calls [`init`] simply uses
//! [`Ranks::single`].

#[cfg(any(feature = "mpi", test))]
use crate::engine::unit::LinkCongestionTotals;
use crate::engine::unit::{SimOutcome, Simulation};
#[cfg(any(feature = "mpi", test))]
use crate::engine::weighted::WeightedLinks;
use crate::engine::weighted::{WeightedOutcome, WeightedSimulation};
use crate::tasks::sim::Replication;
use crate::trace::replay::ReplayPart;
#[cfg(any(feature = "mpi", test))]
use crate::trace::replay::{Outcome, ReplayNotes};

/// This process's place among the ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranks {
    rank: usize,
    size: usize,
}

/// Keeps MPI initialised while alive and finalises it when dropped, so it must outlive
/// every use of the [`Ranks`] that [`init`] returned.
#[must_use = "MPI is finalised when the guard is dropped"]
pub struct MpiGuard {
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
}

/// Initialises MPI when built with it and started by `mpirun`; one rank otherwise.
pub fn init() -> (Ranks, MpiGuard) {
    #[cfg(feature = "mpi")]
    {
        use mpi::traits::Communicator;
        if let Some(universe) = mpi::initialize() {
            let world = universe.world();
            let ranks = Ranks {
                rank: world.rank() as usize,
                size: world.size() as usize,
            };
            return (
                ranks,
                MpiGuard {
                    _universe: Some(universe),
                },
            );
        }
        (Ranks::single(), MpiGuard { _universe: None })
    }
    #[cfg(not(feature = "mpi"))]
    {
        (Ranks::single(), MpiGuard {})
    }
}

impl Ranks {
    /// The one rank of a process that shares nothing.
    pub fn single() -> Self {
        Ranks { rank: 0, size: 1 }
    }

    /// Rank `rank` of `size`: what each rank does with its share, tested without MPI
    /// (where [`Ranks::barrier`] returns at once).
    #[cfg(test)]
    pub(crate) fn of(rank: usize, size: usize) -> Self {
        Ranks { rank, size }
    }

    /// Whether this is rank 0, the one that reads and writes files and prints.
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Rank 0's `value` on every rank (`choose` runs on rank 0 only), so that a choice
    /// such as a random seed is the same everywhere.
    pub fn chosen_by_root(&self, choose: impl FnOnce() -> u64) -> u64 {
        if self.size == 1 {
            return choose();
        }
        #[cfg(feature = "mpi")]
        {
            use mpi::traits::{Communicator, Root};
            let world = mpi::topology::SimpleCommunicator::world();
            let mut value = if self.is_root() { choose() } else { 0 };
            world.process_at_rank(0).broadcast_into(&mut value);
            value
        }
        #[cfg(not(feature = "mpi"))]
        {
            choose()
        }
    }

    /// Waits until every rank got here.
    pub(crate) fn barrier(&self) {
        #[cfg(feature = "mpi")]
        if self.size > 1 {
            use mpi::traits::CommunicatorCollectives;
            mpi::topology::SimpleCommunicator::world().barrier();
        }
    }

    /// The runs of `0..runs` that this rank performs: ⌊n·r/K⌋..⌊n·(r+1)/K⌋, so the
    /// slices of all ranks are disjoint, ordered and cover every run.
    pub(crate) fn slice(&self, runs: u64) -> std::ops::Range<u64> {
        let (k, r) = (self.size as u128, self.rank as u128);
        let bound = |r: u128| (runs as u128 * r / k) as u64;
        bound(r)..bound(r + 1)
    }

    /// Runs this rank's slice of `runs`; rank 0 returns the whole outcome, the others
    /// None after sending their slice.
    pub fn run(
        &self,
        sim: &Simulation<'_>,
        runs: u64,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Option<SimOutcome> {
        self.gather(sim.run_range(self.slice(runs), progress))
    }

    /// Runs this rank's slice of a weighted simulation's `runs` (`-p matrix`); rank 0
    /// returns the whole outcome, the others None after sending their slice.
    pub fn run_weighted(
        &self,
        sim: &WeightedSimulation<'_>,
        runs: u64,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Option<WeightedOutcome> {
        self.gather(sim.run_range(self.slice(runs), progress))
    }

    /// Shares `jobs` replications of the task model out: this rank makes
    /// `make(its slice of 0..jobs)`, the replications of its jobs in order; rank 0
    /// returns every job's replication in job order, the others None after sending
    /// theirs.
    pub fn run_replications(
        &self,
        jobs: u64,
        make: impl FnOnce(std::ops::Range<u64>) -> Vec<Replication>,
    ) -> Option<Vec<Replication>> {
        self.gather(make(self.slice(jobs)))
    }

    /// Shares the replay of `configs` configurations out: this rank replays
    /// `replay(its slice of 0..configs)`; rank 0 returns the part of every
    /// configuration, in order, the others None after sending theirs. An error stops
    /// this rank before it sends anything.
    pub fn run_replay<E>(
        &self,
        configs: usize,
        replay: impl FnOnce(std::ops::Range<usize>) -> Result<ReplayPart, E>,
    ) -> Result<Option<ReplayPart>, E> {
        let slice = self.slice(configs as u64);
        let part = replay(slice.start as usize..slice.end as usize)?;
        Ok(self.gather(part))
    }

    /// Rank 0: its own slice joined with every other rank's, in rank order; the other
    /// ranks: None, after sending theirs.
    #[cfg(feature = "mpi")]
    fn gather<T: Slice>(&self, mine: T) -> Option<T> {
        use mpi::traits::{Communicator, Destination, Source};
        if self.size == 1 {
            return Some(mine);
        }
        let world = mpi::topology::SimpleCommunicator::world();
        if !self.is_root() {
            world.process_at_rank(0).send(&mine.to_bytes()[..]);
            return None;
        }
        let mut parts = vec![mine];
        for r in 1..self.size {
            let (bytes, _) = world.process_at_rank(r as i32).receive_vec::<u8>();
            parts.push(T::from_bytes(&bytes).expect("a slice sent by orcs"));
        }
        Some(T::combine(parts))
    }

    /// One rank: its own slice is the whole.
    #[cfg(not(feature = "mpi"))]
    fn gather<T>(&self, mine: T) -> Option<T> {
        Some(mine)
    }
}

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// The outcome of a slice of runs, as one rank sends it to rank 0 and rank 0 joins the
/// slices of all ranks.
trait Slice: Sized {
    /// The slice as bytes (little-endian, lengths first); [`Slice::from_bytes`] reads it
    /// back exactly (NaNs included).
    fn to_bytes(&self) -> Vec<u8>;
    /// Reads [`Slice::to_bytes`]; None for bytes it did not write.
    fn from_bytes(bytes: &[u8]) -> Option<Self>;
    /// Joins the slices of all ranks, given in rank order.
    fn combine(parts: Vec<Self>) -> Self;
}

#[cfg(any(feature = "mpi", test))]
impl Slice for SimOutcome {
    fn to_bytes(&self) -> Vec<u8> {
        SimOutcome::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        SimOutcome::from_bytes(bytes)
    }
    fn combine(parts: Vec<Self>) -> Self {
        SimOutcome::combine(parts)
    }
}

#[cfg(any(feature = "mpi", test))]
impl Slice for WeightedOutcome {
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&self.runs.to_le_bytes());
        put_list(&mut b, &self.max_load);
        put_floats(&mut b, &self.max_utilisation);
        put_floats(&mut b, &self.utilisation_sd);
        put_list(&mut b, &self.max_flows);
        put_floats(&mut b, &self.acc_band);
        match &self.links {
            None => b.push(0),
            Some(l) => {
                b.push(1);
                for list in [
                    &l.bytes,
                    &l.max_bytes,
                    &l.flows,
                    &l.max_flows,
                    &l.bottleneck_runs,
                ] {
                    put_list(&mut b, list);
                }
            }
        }
        b
    }

    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let mut at = 0usize;
        let runs = word_at(bytes, &mut at)?;
        let max_load = list_at(bytes, &mut at)?;
        let max_utilisation = floats_at(bytes, &mut at)?;
        let utilisation_sd = floats_at(bytes, &mut at)?;
        let max_flows = list_at(bytes, &mut at)?;
        let acc_band = floats_at(bytes, &mut at)?;
        let links = match bytes.get(at) {
            Some(0) => {
                at += 1;
                None
            }
            Some(1) => {
                at += 1;
                Some(WeightedLinks {
                    bytes: list_at(bytes, &mut at)?,
                    max_bytes: list_at(bytes, &mut at)?,
                    flows: list_at(bytes, &mut at)?,
                    max_flows: list_at(bytes, &mut at)?,
                    bottleneck_runs: list_at(bytes, &mut at)?,
                })
            }
            _ => return None,
        };
        (at == bytes.len()).then_some(WeightedOutcome {
            runs,
            max_load,
            max_utilisation,
            utilisation_sd,
            max_flows,
            acc_band,
            links,
        })
    }

    fn combine(parts: Vec<Self>) -> Self {
        WeightedOutcome::combine(parts)
    }
}

/// The wire format of a slice: rank 0 gets every other rank's [`SimOutcome`] as bytes.
impl SimOutcome {
    // Only MPI ranks exchange outcomes as bytes.
    #[cfg(any(feature = "mpi", test))]
    /// The outcome as bytes (little-endian, lengths first) for sending to another
    /// process; [`SimOutcome::from_bytes`] reads it back exactly (NaNs included).
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&self.runs.to_le_bytes());
        put_list(&mut b, &self.weight_hist);
        put_floats(&mut b, &self.acc_band);
        put_list(&mut b, &self.sum_max_cong);
        put_list(&mut b, &self.pairs);
        put_list(&mut b, &self.dep_max_delay);
        put_list(&mut b, &self.cable);
        match &self.links {
            None => b.push(0),
            Some(l) => {
                b.push(1);
                put_list(&mut b, &l.messages);
                let max_congestion: Vec<u64> = l.max_congestion.iter().map(|&x| x as u64).collect();
                put_list(&mut b, &max_congestion);
                put_list(&mut b, &l.bottleneck_runs);
                b.extend_from_slice(&l.runs_with_traffic.to_le_bytes());
            }
        }
        b
    }

    // Only MPI ranks exchange outcomes as bytes.
    #[cfg(any(feature = "mpi", test))]
    /// Reads `SimOutcome::to_bytes`; None for bytes it did not write.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<SimOutcome> {
        let mut at = 0usize;
        let runs = word_at(bytes, &mut at)?;
        let weight_hist = list_at(bytes, &mut at)?;
        let acc_band = floats_at(bytes, &mut at)?;
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
                Some(LinkCongestionTotals {
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

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// A little-endian u64 at `*at`.
fn word_at(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let w = bytes.get(*at..*at + 8)?;
    *at += 8;
    Some(u64::from_le_bytes(w.try_into().ok()?))
}

#[cfg(any(feature = "mpi", test))]
impl Slice for Vec<Replication> {
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(self.len() as u64).to_le_bytes());
        for r in self {
            put_floats(&mut b, &r.completions);
            put_floats(&mut b, &[r.window_start, r.window, r.bits]);
            put_floats(&mut b, &r.node_busy);
            put_floats(&mut b, &r.link_bits);
            put_floats(&mut b, &r.traffic_bits);
            put_list(&mut b, &r.traffic_messages);
            put_list(&mut b, &[r.messages, r.tasks]);
        }
        b
    }

    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let mut at = 0usize;
        let n = word_at(bytes, &mut at)?;
        let mut out = Vec::new();
        for _ in 0..n {
            let completions = floats_at(bytes, &mut at)?;
            let [window_start, window, bits] = floats_at(bytes, &mut at)?.try_into().ok()?;
            let node_busy = floats_at(bytes, &mut at)?;
            let link_bits = floats_at(bytes, &mut at)?;
            let traffic_bits = floats_at(bytes, &mut at)?;
            let traffic_messages = list_at(bytes, &mut at)?;
            let [messages, tasks] = list_at(bytes, &mut at)?.try_into().ok()?;
            out.push(Replication {
                completions,
                window_start,
                window,
                node_busy,
                link_bits,
                traffic_bits,
                traffic_messages,
                bits,
                messages,
                tasks,
            });
        }
        (at == bytes.len()).then_some(out)
    }

    fn combine(parts: Vec<Self>) -> Self {
        parts.concat()
    }
}

#[cfg(any(feature = "mpi", test))]
impl Slice for ReplayPart {
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(self.outcomes.len() as u64).to_le_bytes());
        for o in &self.outcomes {
            put_floats(
                &mut b,
                &[
                    o.time,
                    o.computation,
                    o.imbalance,
                    o.latency,
                    o.bandwidth,
                    o.contention,
                ],
            );
            // No rule: u64::MAX, which no index of a rule list reaches.
            b.extend_from_slice(&o.rule.map_or(u64::MAX, |r| r as u64).to_le_bytes());
        }
        let n = &self.notes;
        put_list(
            &mut b,
            &[
                n.unsized_messages,
                n.null_peer_messages,
                n.intercomm_collectives,
                n.rendezvous_buffered,
                n.unreceived_messages,
                n.rendezvous_unposted,
            ],
        );
        b
    }

    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let mut at = 0usize;
        let n = word_at(bytes, &mut at)?;
        let mut outcomes = Vec::new();
        for _ in 0..n {
            let [time, computation, imbalance, latency, bandwidth, contention] =
                floats_at(bytes, &mut at)?.try_into().ok()?;
            let rule = match word_at(bytes, &mut at)? {
                u64::MAX => None,
                r => Some(usize::try_from(r).ok()?),
            };
            outcomes.push(Outcome {
                time,
                computation,
                imbalance,
                latency,
                bandwidth,
                contention,
                rule,
            });
        }
        let [unsized_messages, null_peer_messages, intercomm_collectives, rendezvous_buffered, unreceived_messages, rendezvous_unposted] =
            list_at(bytes, &mut at)?.try_into().ok()?;
        let notes = ReplayNotes {
            unsized_messages,
            null_peer_messages,
            intercomm_collectives,
            rendezvous_buffered,
            unreceived_messages,
            rendezvous_unposted,
        };
        (at == bytes.len()).then_some(ReplayPart { outcomes, notes })
    }

    fn combine(parts: Vec<Self>) -> Self {
        ReplayPart::join(parts)
    }
}

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// Appends `list` length-prefixed, as little-endian u64.
fn put_list(b: &mut Vec<u8>, list: &[u64]) {
    b.extend_from_slice(&(list.len() as u64).to_le_bytes());
    list.iter()
        .for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
}

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// Appends `list` length-prefixed, each float as the little-endian u64 of its bits.
fn put_floats(b: &mut Vec<u8>, list: &[f64]) {
    b.extend_from_slice(&(list.len() as u64).to_le_bytes());
    list.iter()
        .for_each(|x| b.extend_from_slice(&x.to_bits().to_le_bytes()));
}

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// A list written by [`put_floats`] at `*at`.
fn floats_at(bytes: &[u8], at: &mut usize) -> Option<Vec<f64>> {
    Some(
        list_at(bytes, at)?
            .into_iter()
            .map(f64::from_bits)
            .collect(),
    )
}

// Only MPI ranks exchange outcomes as bytes.
#[cfg(any(feature = "mpi", test))]
/// A length-prefixed list of little-endian u64 at `*at`.
fn list_at(bytes: &[u8], at: &mut usize) -> Option<Vec<u64>> {
    let n = word_at(bytes, at)? as usize;
    if n > bytes.len() / 8 {
        return None;
    }
    (0..n).map(|_| word_at(bytes, at)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::weighted::{lay_out_slots, SlotTraffic, WeightedConfig};
    use crate::limits::MemoryLimit;
    use crate::workload::mapping::{LayoutSpec, SubsetMethod};
    use crate::workload::matrix::TrafficMatrix;

    #[test]
    fn replications_survive_bytes_field_by_field_and_join_in_order() {
        let rep = |k: u64| Replication {
            completions: vec![1.5 * k as f64, f64::NAN],
            window_start: 0.25 + k as f64,
            window: 10.0 * k as f64,
            node_busy: vec![0.5; k as usize],
            link_bits: vec![-0.0, 3.0 + k as f64],
            traffic_bits: vec![7.0; 4 * k as usize],
            traffic_messages: vec![k + 9; 4 * k as usize],
            bits: 1e300 * k as f64,
            messages: 11 + k,
            tasks: 13 + k,
        };
        let first: Vec<Replication> = (0..2).map(rep).collect();
        let second: Vec<Replication> = vec![rep(5)];
        let bytes = Slice::to_bytes(&first);
        let back = <Vec<Replication> as Slice>::from_bytes(&bytes).unwrap();
        assert_eq!(Slice::to_bytes(&back), bytes);
        assert_eq!(back[1].traffic_messages, [10; 4]);
        assert_eq!((back[1].messages, back[1].tasks), (12, 14));
        assert_eq!((back[1].window_start, back[1].window), (1.25, 10.0));
        assert!(back[0].completions[1].is_nan());
        let joined = <Vec<Replication> as Slice>::combine(vec![back, Vec::new(), second]);
        let tasks: Vec<u64> = joined.iter().map(|r| r.tasks).collect();
        assert_eq!(tasks, [13, 14, 18]);
        for cut in [1, 8, bytes.len() - 1] {
            assert!(<Vec<Replication> as Slice>::from_bytes(&bytes[..cut]).is_none());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(<Vec<Replication> as Slice>::from_bytes(&longer).is_none());
    }

    #[test]
    fn replay_parts_survive_bytes_field_by_field_and_join_in_order() {
        let outcome = |k: usize| Outcome {
            time: 1.0 + k as f64,
            computation: 0.25,
            imbalance: -0.0,
            latency: 1e-300,
            bandwidth: f64::NAN,
            contention: 3.5 * k as f64,
            rule: (k % 2 == 0).then_some(k),
        };
        let notes = |k: u64| ReplayNotes {
            unsized_messages: k,
            null_peer_messages: 2 * k,
            intercomm_collectives: 3,
            rendezvous_buffered: 4 + k,
            unreceived_messages: 5,
            rendezvous_unposted: 6 * k,
        };
        let first = ReplayPart {
            outcomes: (0..3).map(outcome).collect(),
            notes: notes(1),
        };
        let bytes = first.to_bytes();
        let back = ReplayPart::from_bytes(&bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        assert_eq!(back.notes, notes(1));
        assert_eq!(back.outcomes[1].rule, None);
        assert_eq!(back.outcomes[2].rule, Some(2));
        assert_eq!(back.outcomes[2].contention, 7.0);
        assert_eq!(back.outcomes[0].latency, 1e-300);
        assert!(back.outcomes[0].bandwidth.is_nan());
        let second = ReplayPart {
            outcomes: vec![outcome(3)],
            notes: notes(0),
        };
        let joined = ReplayPart::combine(vec![back, ReplayPart::default(), second]);
        let times: Vec<f64> = joined.outcomes.iter().map(|o| o.time).collect();
        assert_eq!(times, [1.0, 2.0, 3.0, 4.0]);
        // Every rank replays the same trace: a note is counted once, not once a rank.
        assert_eq!(joined.notes, notes(1));
        for cut in [1, 8, bytes.len() - 1] {
            assert!(ReplayPart::from_bytes(&bytes[..cut]).is_none());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ReplayPart::from_bytes(&longer).is_none());
    }

    #[test]
    fn weighted_slices_combine_into_the_whole_run_and_survive_bytes() {
        // 12 ranks, 2 a host, on the 16 hosts of a 4-ary 2-tree: uneven bytes, a rank
        // pair within one host and a zero-byte pair, links of two capacities.
        let generated = crate::gen::topology::generate("kary-ntree:k=4,n=2").unwrap();
        let fabric = &generated.fabric;
        let (table, _) = crate::routing::route_generated(&generated, None, None, 0).unwrap();
        let entries = (0..12u32)
            .flat_map(|r| [(r, (r + 1) % 12, 100 + 7 * r as u64), (r, (r + 5) % 12, 3)])
            .chain([(2, 9, 0)])
            .collect();
        let traffic = SlotTraffic::new(&TrafficMatrix { ranks: 12, entries }, 2);
        let spec = LayoutSpec {
            commsize: 16,
            subset: SubsetMethod::Rand,
            part: None,
            ordering: Vec::new(),
            shuffle: true,
        };
        let (layout, _) = lay_out_slots(fabric, &traffic, spec, 4).unwrap();
        let capacity: Vec<f64> = (0..fabric.num_edges())
            .map(|e| if e % 3 == 0 { 2.0 } else { 1.0 })
            .collect();
        for (acc_band, links) in [(true, true), (false, false)] {
            let config = WeightedConfig {
                runs: 29,
                seed: 4,
                acc_band,
                links,
                memory: MemoryLimit::unlimited(),
            };
            let sim =
                WeightedSimulation::new(fabric, &table, &layout, &traffic, &capacity, config, None)
                    .unwrap();
            let whole = sim.run(&|_| {});
            let parts: Vec<WeightedOutcome> = [0..10, 10..11, 11..11, 11..29]
                .into_iter()
                .map(|r| {
                    let bytes = Slice::to_bytes(&sim.run_range(r, &|_| {}));
                    <WeightedOutcome as Slice>::from_bytes(&bytes).unwrap()
                })
                .collect();
            let joined = <WeightedOutcome as Slice>::combine(parts);
            assert_eq!(Slice::to_bytes(&joined), Slice::to_bytes(&whole));
            assert_eq!(joined.runs, 29);
            assert_eq!(joined.max_load.len(), 29);
            assert_eq!(joined.acc_band.len(), if acc_band { 29 } else { 0 });
            assert_eq!(joined.links.is_some(), links);
            if let Some(l) = &joined.links {
                // Every run's largest load is some link's load, so the largest over the
                // runs is the largest of the per-link maxima.
                assert_eq!(l.max_bytes.iter().max(), joined.max_load.iter().max());
                assert!(l.bottleneck_runs.iter().sum::<u64>() >= 29);
            }
        }
        let bytes = Slice::to_bytes(&WeightedOutcome::default());
        assert!(<WeightedOutcome as Slice>::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(<WeightedOutcome as Slice>::from_bytes(&longer).is_none());
    }

    #[test]
    fn slices_are_ordered_disjoint_and_cover_every_run() {
        for size in 1..6 {
            for runs in [0, 1, 2, 7, 997] {
                let mut next = 0;
                for rank in 0..size {
                    let slice = Ranks { rank, size }.slice(runs);
                    assert_eq!(slice.start, next);
                    next = slice.end;
                }
                assert_eq!(next, runs);
            }
        }
    }
}
