//! Spreading work over the ranks of `mpirun` (cargo feature `mpi`).
//!
//! One simulation: rank r of K performs runs ⌊n·r/K⌋..⌊n·(r+1)/K⌋ and sends that slice
//! to rank 0, which combines the slices in rank order ([`orcs::engine::unit::SimOutcome::combine`])
//! and alone writes the output, so the bytes are those one process writes with the same
//! seed. A scan: each rank runs every K-th pending cell into its own part file and rank 0
//! merges the parts. Without the feature, or with one rank, everything runs here.

use orcs::engine::unit::{SimOutcome, Simulation};

/// This process's place among the ranks.
#[derive(Debug, Clone, Copy)]
pub struct Ranks {
    rank: usize,
    size: usize,
}

/// Keeps MPI initialised while alive (finalises it when dropped).
pub struct Guard {
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
}

/// Initialises MPI when built with it; a single rank otherwise.
pub fn init() -> (Ranks, Guard) {
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
                Guard {
                    _universe: Some(universe),
                },
            );
        }
        (Ranks { rank: 0, size: 1 }, Guard { _universe: None })
    }
    #[cfg(not(feature = "mpi"))]
    {
        (Ranks { rank: 0, size: 1 }, Guard {})
    }
}

impl Ranks {
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

    /// Rank 0's `value` on every rank (`choose` runs on rank 0 only).
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
    pub fn barrier(&self) {
        #[cfg(feature = "mpi")]
        if self.size > 1 {
            use mpi::traits::CommunicatorCollectives;
            mpi::topology::SimpleCommunicator::world().barrier();
        }
    }

    /// Runs this rank's slice of `runs`; rank 0 returns the whole outcome, the others
    /// None after sending their slice.
    pub fn run(
        &self,
        sim: &Simulation<'_>,
        runs: u64,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Option<SimOutcome> {
        let (k, r) = (self.size as u128, self.rank as u128);
        let slice = |r: u128| (runs as u128 * r / k) as u64;
        let mine = sim.run_range(slice(r)..slice(r + 1), progress);
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
