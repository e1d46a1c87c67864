//! The CSV table of `orcs trace stats`, one tidy table for pandas & co:
//!
//! `rank,function,calls,time_ns,sends,send_bytes,collectives,collective_bytes,unknown_size,span_ns,outside_mpi_ns,annotations`
//!
//! * one row per (rank, MPI function called): its calls, wall time inside it (ns),
//!   point-to-point messages sent and their bytes, collective calls and their bytes
//!   (see [`crate::trace::summary`]), calls whose datatype size is unknown; the last
//!   three columns are empty;
//! * then one row per rank with `function` = `ALL`: the rank's totals (each column the
//!   sum of its function rows; `time_ns` is the time in MPI) and its span, time outside
//!   MPI and annotation records (`MPI_Pcontrol` markers).
//!
//! `pd.read_csv(f).query("function != 'ALL'")` gives the function rows.

use super::{name, StatsWriter};
use crate::trace::summary::{FunctionKind, RankSummary};
use std::io::{self, Write};

/// The CSV table.
#[derive(Debug, Default)]
pub struct CsvStats;

impl CsvStats {
    /// The table.
    pub fn new() -> Self {
        CsvStats
    }
}

/// The header line.
const HEADER: &str = "rank,function,calls,time_ns,sends,send_bytes,collectives,collective_bytes,unknown_size,span_ns,outside_mpi_ns,annotations";

impl StatsWriter for CsvStats {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{HEADER}")
    }

    fn rank(&mut self, out: &mut dyn Write, rank: u32, r: &RankSummary) -> io::Result<()> {
        for (label, f) in r.called() {
            let collective = FunctionKind::of(label) == FunctionKind::Collective;
            let (send_bytes, collectives, collective_bytes) = if collective {
                (0, f.calls, f.bytes)
            } else {
                (f.bytes, 0, 0)
            };
            writeln!(
                out,
                "{rank},{},{},{},{},{send_bytes},{collectives},{collective_bytes},{},,,",
                name(label),
                f.calls,
                f.wall_ns,
                f.sends,
                f.unknown_size
            )?;
        }
        writeln!(
            out,
            "{rank},ALL,{},{},{},{},{},{},{},{},{},{}",
            r.calls(),
            r.mpi_ns(),
            r.sends(),
            r.send_bytes(),
            r.collectives(),
            r.collective_bytes(),
            r.sends_of_unknown_size() + r.collectives_of_unknown_size(),
            r.span_ns,
            r.outside_mpi_ns(),
            r.annotations()
        )
    }

    fn finish(&mut self, _out: &mut dyn Write, _total: &RankSummary) -> io::Result<()> {
        Ok(())
    }
}
