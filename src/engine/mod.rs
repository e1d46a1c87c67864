//! The Monte Carlo engine: a workload mapped onto a routed fabric run after run, every
//! route walked through the forwarding tables, and the links' loads turned into ORCS's
//! metrics. [`request`] sizes and lays out a simulation for a fabric, [`unit`](mod@unit) walks the
//! unit messages of a pattern, [`weighted`] the bytes of a traffic matrix; [`stream`]
//! derives every run's random generator from (seed, run), so results never depend on the
//! thread count; [`ranks`] shares runs out over the processes of `mpirun` and carries
//! their results back; [`metric`] holds the metrics' arithmetic.
//!
//! May use: [`crate::fabric`], [`crate::routing`], [`crate::workload`] and
//! [`crate::limits`] (a simulation is refused before it allocates more than it may). Never an
//! output format: results are plain data that [`crate::report`] turns into bytes.

pub mod metric;
pub mod ranks;
pub mod request;
pub mod stream;
pub mod unit;
pub mod weighted;

pub use metric::{MetricKind, Summary};
pub use stream::{stream_rng, Stream};

/// How many consecutive runs one parallel task performs: about 16 tasks per worker
/// thread, so that the threads stay balanced and progress moves, and at most 1,024 runs,
/// so that a bar moves often on long simulations. Results never depend on it: every run
/// draws from its own stream and every total is a sum over runs.
pub(crate) fn runs_per_chunk(runs: usize) -> usize {
    (runs / (rayon::current_num_threads() * 16)).clamp(1, 1024)
}
