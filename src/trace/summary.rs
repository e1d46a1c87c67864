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
const COLLECTIVES: [u16; 16] = [
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 65, 66, 67, 155, 156,
];
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
    let count = rec
        .int_named("count")
        .or_else(|| rec.int_named("sendcount"));
    let datatype = rec
        .int_named("datatype")
        .or_else(|| rec.int_named("sendtype"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::shared;
    use std::path::Path;

    fn trace(meta: &str) -> Trace {
        Trace::open(Path::new(meta)).unwrap()
    }

    #[test]
    fn testtrace_counts_match_the_spec() {
        let meta = format!(
            "{}/tests/fixtures/dumpi/testtrace/testtrace.meta",
            env!("CARGO_MANIFEST_DIR")
        );
        let ranks = summarise(&trace(&meta)).unwrap();
        assert_eq!(ranks.len(), 4);
        for r in &ranks {
            assert_eq!(
                (r.calls, r.sends, r.send_bytes, r.collectives),
                (9, 1, 4, 2)
            );
        }
        assert_eq!((ranks[0].span_ns, ranks[0].mpi_ns), (2_646_000, 2_554_000));
    }

    #[test]
    fn testbgp_counts_match_the_spec() {
        let Some(meta) = shared("traces/dumpi/sst-macro_testbgp/testbgp.meta") else {
            return;
        };
        let t = trace(&meta);
        let ranks = summarise(&t).unwrap();
        assert_eq!(ranks.len(), 7);
        for r in &ranks {
            assert_eq!((r.calls, r.sends, r.send_bytes), (227, 84, 59_808));
        }
        let r0 = &ranks[0];
        assert_eq!(
            (r0.span_ns, r0.mpi_ns, r0.outside_mpi_ns()),
            (12_004_783, 3_790_115, 8_214_668)
        );
        // Alltoall: sendcount × the trace's own size of its datatype (MPI_LONG is 4 bytes
        // on Blue Gene/P) = 712 bytes per peer.
        let file = t.rank_file(0).unwrap();
        let mut stream = file.stream().unwrap();
        let mut rec = Record::default();
        let mut alltoalls = 0;
        while stream.next_into(&mut rec).unwrap() {
            if rec.name() == "MPI_Alltoall" {
                let size = datatype_size(file.sizes.as_deref(), rec.int_named("sendtype").unwrap());
                assert_eq!(
                    rec.int_named("sendcount").unwrap() as u64 * size.unwrap(),
                    712
                );
                alltoalls += 1;
            }
        }
        assert_eq!(alltoalls, 7);
        assert_eq!(datatype_size(file.sizes.as_deref(), 11), Some(4));
    }

    #[test]
    fn naive_all_to_all_counts_match_the_spec() {
        let Some(meta) = shared("traces/dumpi/dumpi_to_graph_naive_all_to_all_procs4_run0/dumpi-2019.05.22.11.54.43.meta") else {
            return;
        };
        let ranks = summarise(&trace(&meta)).unwrap();
        for r in &ranks {
            assert_eq!((r.calls, r.sends, r.send_bytes), (41, 12, 48));
        }
        assert_eq!(
            (ranks[0].mpi_ns, ranks[0].outside_mpi_ns()),
            (1_002_572_324, 3_356_529)
        );
    }

    #[test]
    fn sizes_fall_back_to_the_usual_ones_when_the_table_says_0() {
        let table = [0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 0];
        assert_eq!(datatype_size(Some(&table), 16), Some(8));
        assert_eq!(datatype_size(Some(&table), 9), Some(4));
        assert_eq!(datatype_size(None, 14), Some(8));
        assert_eq!(datatype_size(Some(&table), 40), None);
    }
}
