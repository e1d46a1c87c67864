//! Spreading work over the processes of `mpirun` (cargo feature `mpi`).
//!
//! One simulation: rank r of K performs runs ⌊n·r/K⌋..⌊n·(r+1)/K⌋ and sends that slice
//! to rank 0 as bytes (`SimOutcome::to_bytes`, the wire format kept here), and rank 0
//! combines the slices in rank order (`SimOutcome::combine`) and alone writes the
//! output, so the bytes are those one process writes with the same seed. A
//! scan ([`crate::scan::run`]) gives each rank every K-th pending cell. Without the
//! feature, or outside `mpirun`, there is one rank and everything runs here.
//!
//! The place of a process is an explicit [`Ranks`] value handed to whoever shares work
//! out: nothing here is global, and a program that never calls [`init`] simply uses
//! [`Ranks::single`].

#[cfg(any(feature = "mpi", test))]
use crate::engine::unit::LinkCongestionTotals;
use crate::engine::unit::{SimOutcome, Simulation};

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
        let mine = sim.run_range(self.slice(runs), progress);
        if self.size == 1 {
            return Some(mine);
        }
        self.gather(mine)
    }

    #[cfg(feature = "mpi")]
    fn gather(&self, mine: SimOutcome) -> Option<SimOutcome> {
        use mpi::traits::{Communicator, Destination, Source};
        let world = mpi::topology::SimpleCommunicator::world();
        if !self.is_root() {
            world.process_at_rank(0).send(&mine.to_bytes()[..]);
            return None;
        }
        let mut parts = vec![mine];
        for r in 1..self.size {
            let (bytes, _) = world.process_at_rank(r as i32).receive_vec::<u8>();
            parts.push(SimOutcome::from_bytes(&bytes).expect("a slice sent by orcs"));
        }
        Some(SimOutcome::combine(parts))
    }

    #[cfg(not(feature = "mpi"))]
    fn gather(&self, mine: SimOutcome) -> Option<SimOutcome> {
        Some(mine)
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

    // Only MPI ranks exchange outcomes as bytes.
    #[cfg(any(feature = "mpi", test))]
    /// Reads `SimOutcome::to_bytes`; None for bytes it did not write.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<SimOutcome> {
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
