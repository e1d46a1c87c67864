//! Per-rank counts of a trace: calls, time inside and outside MPI, point-to-point sends
//! and their bytes (count × the trace's own datatype size), collective calls. The
//! ranks are summarised in parallel, each file streamed once.

use super::dumpi::{DumpiError, RankFile, Record, Trace};
use rayon::prelude::*;

/// Labels of the calls that send one point-to-point message each (the send half of
/// `MPI_Sendrecv` and `MPI_Sendrecv_replace` included).
const SENDS: [u16; 10] = [0, 3, 4, 5, 8, 9, 10, 11, 33, 34];
/// Labels of the collective operations (blocking ones of MPI-2, `MPI_Alltoallw`,
/// `MPI_Exscan`).
const COLLECTIVES: [u16; 16] = [52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 65, 66, 67, 155, 156];
/// `Function_enter` and `Function_exit`: annotations, not MPI calls.
const ANNOTATIONS: [u16; 2] = [291, 292];
/// Datatype sizes of the predefined types on a 64-bit host, for traces without a size
/// table or whose table records 0 (sst-dumpi records `MPI_LONG_LONG_INT` as 0).
const DEFAULT_SIZES: [u64; 28] = [
    0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20,
];

/// What one rank did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankSummary {
    /// MPI calls recorded (annotations excluded).
    pub calls: u64,
    /// Point-to-point messages sent.
    pub sends: u64,
    /// Bytes of those messages.
    pub send_bytes: u64,
    /// Sends whose datatype size is unknown (counted with 0 bytes).
    pub sends_of_unknown_size: u64,
    /// Collective calls.
    pub collectives: u64,
    /// Wall time from the first call's entry to the last call's return, in ns.
    pub span_ns: i64,
    /// Wall time inside MPI calls, in ns.
    pub mpi_ns: i64,
}

impl RankSummary {
    /// Wall time outside MPI calls, in ns.
    pub fn outside_mpi_ns(&self) -> i64 {
        self.span_ns - self.mpi_ns
    }
}

/// The bytes of one element of datatype `id` per the trace's size table (falling back
/// to the usual sizes of predefined types when the table lacks it or records 0).
pub fn datatype_size(sizes: Option<&[i32]>, id: i64) -> Option<u64> {
    let recorded = usize::try_from(id)
        .ok()
        .and_then(|k| sizes.and_then(|s| s.get(k)))
        .filter(|&&s| s > 0)
        .map(|&s| s as u64);
    recorded.or_else(|| {
        usize::try_from(id)
            .ok()
            .and_then(|k| DEFAULT_SIZES.get(k))
            .copied()
            .filter(|&s| s > 0)
    })
}

/// Summarises one rank file.
pub fn summarise_rank(file: &RankFile) -> Result<RankSummary, DumpiError> {
    let mut s = RankSummary::default();
    let mut stream = file.stream()?;
    let mut rec = Record::default();
    let (mut first, mut last) = (None, 0i64);
    while stream.next_into(&mut rec)? {
        if ANNOTATIONS.contains(&rec.label) {
            continue;
        }
        s.calls += 1;
        s.mpi_ns += rec.wall.nanos();
        first.get_or_insert(rec.wall.start.nanos());
        last = rec.wall.stop.nanos();
        if SENDS.contains(&rec.label) {
            count_send(&mut s, &rec, file.sizes.as_deref());
        } else if COLLECTIVES.contains(&rec.label) {
            s.collectives += 1;
        }
    }
    s.span_ns = first.map_or(0, |f| last - f);
    Ok(s)
}

/// A send: `count` (or `sendcount`) elements of `datatype` (or `sendtype`).
fn count_send(s: &mut RankSummary, rec: &Record, sizes: Option<&[i32]>) {
    let count = rec.int_named("count").or_else(|| rec.int_named("sendcount"));
    let datatype = rec.int_named("datatype").or_else(|| rec.int_named("sendtype"));
    s.sends += 1;
    let (Some(count), Some(datatype)) = (count, datatype) else {
        return;
    };
    match datatype_size(sizes, datatype) {
        Some(size) => s.send_bytes += count.max(0) as u64 * size,
        None => s.sends_of_unknown_size += 1,
    }
}

/// Summarises every rank of `trace`, in parallel; index = rank.
pub fn summarise(trace: &Trace) -> Result<Vec<RankSummary>, DumpiError> {
    (0..trace.ranks.len())
        .into_par_iter()
        .map(|k| summarise_rank(&trace.rank_file(k)?))
        .collect()
}
