//! The JSON document of `orcs trace stats`: the trace, one object per rank (written as
//! it comes, one line each) and the total, with every time in nanoseconds and each
//! summary's functions as an object keyed by function name, in label order.

use super::{name, StatsWriter};
use crate::report::SCHEMA_VERSION;
use crate::trace::summary::{FunctionStats, RankSummary};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::io::{self, Write};

/// The JSON report.
pub struct JsonStats {
    trace: String,
    ranks: usize,
}

impl JsonStats {
    /// The report of the trace named `trace`.
    pub fn new(trace: &str) -> Self {
        JsonStats {
            trace: trace.to_string(),
            ranks: 0,
        }
    }
}

/// One function's numbers.
#[derive(Serialize)]
struct Function {
    calls: u64,
    wall_ns: i64,
    sends: u64,
    bytes: u64,
    unknown_size: u64,
}

impl From<&FunctionStats> for Function {
    fn from(f: &FunctionStats) -> Self {
        Function {
            calls: f.calls,
            wall_ns: f.wall_ns,
            sends: f.sends,
            bytes: f.bytes,
            unknown_size: f.unknown_size,
        }
    }
}

/// The functions called, keyed by name, in label order.
struct Functions<'a>(&'a RankSummary);

impl Serialize for Functions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (label, f) in self.0.called() {
            map.serialize_entry(name(label), &Function::from(f))?;
        }
        map.end()
    }
}

/// One rank's (or the total's) numbers.
#[derive(Serialize)]
struct Summary<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ranks: Option<u32>,
    calls: u64,
    span_ns: i64,
    mpi_ns: i64,
    outside_mpi_ns: i64,
    sends: u64,
    send_bytes: u64,
    sends_of_unknown_size: u64,
    collectives: u64,
    collective_bytes: u64,
    collectives_of_unknown_size: u64,
    annotations: u64,
    functions: Functions<'a>,
}

impl<'a> Summary<'a> {
    fn of(s: &'a RankSummary, rank: Option<u32>) -> Self {
        Summary {
            rank,
            ranks: rank.is_none().then_some(s.ranks),
            calls: s.calls(),
            span_ns: s.span_ns,
            mpi_ns: s.mpi_ns(),
            outside_mpi_ns: s.outside_mpi_ns(),
            sends: s.sends(),
            send_bytes: s.send_bytes(),
            sends_of_unknown_size: s.sends_of_unknown_size(),
            collectives: s.collectives(),
            collective_bytes: s.collective_bytes(),
            collectives_of_unknown_size: s.collectives_of_unknown_size(),
            annotations: s.annotations(),
            functions: Functions(s),
        }
    }
}

impl StatsWriter for JsonStats {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{{")?;
        writeln!(out, "  \"schema_version\": {SCHEMA_VERSION},")?;
        writeln!(
            out,
            "  \"orcs_version\": \"{}\",",
            env!("CARGO_PKG_VERSION")
        )?;
        writeln!(out, "  \"trace\": {},", serde_json::to_string(&self.trace)?)?;
        write!(out, "  \"per_rank\": [")
    }

    fn rank(&mut self, out: &mut dyn Write, rank: u32, summary: &RankSummary) -> io::Result<()> {
        let sep = if self.ranks == 0 { "" } else { "," };
        self.ranks += 1;
        write!(out, "{sep}\n    ")?;
        serde_json::to_writer(&mut *out, &Summary::of(summary, Some(rank)))?;
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, total: &RankSummary) -> io::Result<()> {
        writeln!(out, "\n  ],")?;
        write!(out, "  \"total\": ")?;
        serde_json::to_writer(&mut *out, &Summary::of(total, None))?;
        writeln!(out, "\n}}")
    }
}
