//! Batch scans (`orcs scan`): a TOML plan expanded into cells (fabric × pattern ×
//! communicator size × metric), their results as checksummed JSON lines that survive a
//! crash, resumption, deterministic shards and merging.
//!
//! Every cell is exactly the simulation `orcs -i FABRIC -p PATTERN [-a ARG] -s SIZE
//! --metric METRIC -n RUNS --seed SEED` performs, or for a traffic file of the plan
//! `orcs -i FABRIC -p matrix --traffic FILE [trace flags] -s SIZE …`, so any record can be
//! reproduced by the command it carries. A record is one line: a JSON object whose last member is
//! `"crc":"xxxxxxxx"`, the CRC-32 of the line's text before that member (with `}` in its
//! place). A line that is cut short or altered fails the check; only the file's last line
//! can be cut short by a crash (records are appended whole and synced), so a resumed scan
//! drops such a tail and runs its cell again.
//!
//! Every record names its plan (`plan`, a hash of the cells' keys, and `plan_cells`), so
//! records of different plans never mix: not when resuming, not when merging shards, not
//! when folding the parts of `mpirun` ranks. Merging keeps each record's line exactly as
//! it was written (numbers are never re-printed), so merged results are byte for byte
//! those of one process.
//!
//! This file owns the folder's errors. [`plan`] reads plans into cells, [`cell`] runs one
//! cell into its record ([`traffic`] reads a plan's traffic files and runs their cells as
//! `-p matrix` does), [`record`] seals, reads and merges records, [`run`] runs a
//! plan's pending cells (resumed, sharded, shared out over MPI ranks) and [`cache`] keeps
//! each fabric of a plan as a binary cache beside the results. The summary CSV and the
//! `--dry-run` table are formats: [`crate::report::scan`] writes them.
//!
//! May use: [`crate::engine`] (every cell is a
//! [`SimRequest`](crate::engine::request::SimRequest), its statistics come from
//! [`crate::engine::metric`]; a traffic cell is a
//! [`WeightedSimulation`](crate::engine::weighted::WeightedSimulation)), [`crate::fabric`],
//! [`crate::gen`] and [`crate::routing`] (fabrics of a plan), [`crate::workload`]
//! (patterns, traffic matrices), [`crate::trace`] (what of a DUMPI trace counts) and
//! [`crate::limits`] (the memory the cells running at the same time may use).

pub mod cache;
mod cell;
mod plan;
mod record;
pub mod run;
mod tasks;
mod traffic;

pub use cell::run_cell;
pub use plan::{
    parse_plan, read_plan, split_label, Cell, CellWorkload, FabricSource, Plan, TraceFlag,
    TrafficSource,
};
pub use record::{is_gzip, merge, read_results, record_key, seal, unseal, Merged, PlanRef, Record};
pub use tasks::TaskPoint;
pub use traffic::{load_traffic, LoadedTraffic};

use crate::engine::request::PrepareError;
use crate::error::LocatedError;

/// Why a scan cannot go on: a bad plan or results file, a file that cannot be read or
/// written, or a fabric of the plan that cannot be loaded, generated or routed. (A cell
/// that cannot run is not an error of the scan: its record carries a [`CellError`].)
///
/// The two are kept apart on purpose: a [`CellError`] is written into the results as
/// final (a resumed scan never runs that cell again), so only failures that are a
/// property of the cell may ever become one; a [`ScanError`] stops the scan and leaves
/// the cell pending.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A plan, results or fabric file is not what a scan reads: the file, the line when
    /// known, what was expected.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// A results file, part file, fabric or cache folder cannot be read or written.
    #[error("{what} '{path}'")]
    File {
        /// What failed, e.g. "cannot open results file".
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing a fabric cache failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A generated fabric of the plan cannot be generated.
    #[error(transparent)]
    Gen(#[from] crate::gen::topology::GenError),
    /// A generated fabric of the plan cannot be routed.
    #[error(transparent)]
    Routing(#[from] crate::routing::RoutingError),
    /// The plan's cells need more memory than the scan may use (boxed: the limit's
    /// explanation is large, and every scan result carries this enum).
    #[error(transparent)]
    Memory(Box<crate::limits::LimitError>),
    /// Merged results lack cells of their plan.
    #[error("{missing} of the plan's {cells} cells have no record: cells {list}")]
    MissingCells {
        /// Number of cells without a record.
        missing: u64,
        /// The plan's number of cells.
        cells: u64,
        /// The missing cells' indices, as ranges.
        list: String,
    },
    /// The files to merge hold no record.
    #[error("no records to merge: the files are empty or missing")]
    NothingToMerge,
}

impl From<crate::limits::LimitError> for ScanError {
    fn from(e: crate::limits::LimitError) -> Self {
        ScanError::Memory(Box::new(e))
    }
}

impl ScanError {
    /// A [`ScanError::File`] for `path`.
    pub(crate) fn file(what: &'static str, path: &str, source: std::io::Error) -> Self {
        ScanError::File {
            what,
            path: path.to_string(),
            source,
        }
    }
}

/// A plan or results error at the 1-based `line` of `path`, when known.
fn located(path: &str, line: Option<usize>, message: impl Into<String>) -> ScanError {
    let line = line.map(|l| u32::try_from(l).unwrap_or(u32::MAX));
    ScanError::Input(LocatedError::at(path, line, message))
}

/// Why one cell cannot run; its record carries the text as `error`. Such a failure is as
/// final as a result: the same cell fails the same way again.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CellError {
    /// The pattern has no traffic at this size and the metric needs some.
    #[error("pattern {pattern} with commsize {commsize} has no traffic to measure")]
    NoTraffic {
        /// The pattern as the plan names it.
        pattern: String,
        /// The communicator size.
        commsize: u32,
    },
    /// The cell does not fit its fabric (too few hosts, a size out of range).
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    /// Some host pairs of the communicator are not routed.
    #[error("{broken} of {pairs} host pairs are not routed")]
    Unrouted {
        /// Pairs without a route.
        broken: u64,
        /// Pairs checked.
        pairs: u64,
    },
    /// A traffic matrix at a communicator size other than 0, which `-p matrix` refuses.
    #[error("commsize {commsize} does not apply to a traffic matrix: its ranks decide the hosts (commsize 0 runs it)")]
    MatrixCommsize {
        /// The communicator size.
        commsize: u64,
    },
    /// A traffic matrix with a metric of unit-weight messages, which `-p matrix` refuses.
    #[error("metric {metric} counts unit-weight messages; a traffic matrix runs sum_max_cong (largest link load in bytes), hist_acc_band (byte-weighted bandwidth fraction) or get_cable_cong (bytes per link)")]
    MatrixMetric {
        /// The metric.
        metric: crate::engine::metric::MetricKind,
    },
    /// An edge of the fabric has a capacity that is not a positive number.
    #[error(transparent)]
    Capacity(#[from] LocatedError),
    /// The traffic matrix needs more hosts than the fabric has, or its hosts cannot be
    /// chosen.
    #[error(transparent)]
    Slots(#[from] crate::engine::weighted::SlotLayoutError),
    /// A task-model cell cannot run: its nodes cannot be placed, its model or its
    /// simulation's parameters are out of range.
    #[error("{0}")]
    Tasks(String),
    /// The cell needs more memory than the scan may use. Never written into a record:
    /// it is a property of the machine, so [`run_cell`] returns it as an error.
    #[error(transparent)]
    Memory(crate::limits::LimitError),
}

impl From<crate::engine::unit::SimulationError> for CellError {
    fn from(e: crate::engine::unit::SimulationError) -> Self {
        use crate::engine::unit::SimulationError;
        match e {
            SimulationError::Unrouted(check) => CellError::Unrouted {
                broken: check.broken(),
                pairs: check.pairs_checked,
            },
            SimulationError::Memory(e) => CellError::Memory(e),
        }
    }
}
