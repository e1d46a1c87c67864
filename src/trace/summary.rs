//! Per-rank counts of a trace, the numbers of `orcs trace stats`: for every function,
//! its calls, the wall time inside it, the point-to-point messages it sent and the
//! bytes it named; over the rank, the time inside and outside MPI. The ranks are
//! summarised in parallel, each file streamed once; [`RankSummary::merge`] adds ranks
//! into a trace total.
//!
//! Definitions (what `dumpistats` users expect, made exact where it is silent):
//!
//! * **calls** and **time in MPI**: every recorded MPI call and the wall time from its
//!   entry to its return. `Function_enter`/`Function_exit` records (how libdumpi stores
//!   `MPI_Pcontrol` markers) are *annotations*: counted apart, never in the MPI time.
//! * **span**: from the first call's entry to the last call's return (annotations
//!   excluded); **outside MPI** = span − time in MPI.
//! * **sends**: point-to-point messages, one per `MPI_Send`, `Bsend`, `Ssend`, `Rsend`,
//!   `Isend`, `Ibsend`, `Issend`, `Irsend`, `Sendrecv`, `Sendrecv_replace`, and one per
//!   persistent send request started by `MPI_Start`/`MPI_Startall` (the request is
//!   followed from its `MPI_Send_init`, `Bsend_init`, `Ssend_init` or `Rsend_init`
//!   until `MPI_Request_free`; the init call itself sends nothing). Their **bytes**:
//!   count × the trace's own size of the datatype.
//! * **collectives**: calls of the blocking collectives (`Barrier`, `Bcast`, `Gather(v)`,
//!   `Scatter(v)`, `Allgather(v)`, `Alltoall(v,w)`, `Reduce`, `Allreduce`,
//!   `Reduce_scatter`, `Scan`, `Exscan`). Their **bytes** are those the call's
//!   send-side count arguments name as recorded on this rank (a trace does not record
//!   a communicator's size, so nothing is multiplied by it):
//!   `count` × size for `Bcast`, `Reduce`, `Allreduce`, `Scan`, `Exscan`; `sendcount` ×
//!   size for `Gather`, `Gatherv`, `Allgather`, `Allgatherv`, `Alltoall` (one peer's
//!   block) and `Scatter` (one peer's block, at the root only: elsewhere the send side
//!   is not recorded and is 0); the sum of `sendcounts` × size for `Scatterv` (root
//!   only), `Alltoallv` and `Alltoallw` (each with its own type); the sum of
//!   `recvcounts` × size for `Reduce_scatter` (the elements of its send buffer); 0 for
//!   `Barrier`. The messages a collective makes on the wire are `orcs trace matrix`'s
//!   business.
//! * Derived datatypes take the size their constructor calls give them
//!   ([`crate::trace::datatype`]); a datatype whose size cannot be told (one the trace
//!   does not define, `MPI_Type_create_darray`) counts 0 bytes and is counted in
//!   `unknown_size`, so that a byte total is never silently short.

use super::args::{Arg, ArgsOf};
use super::datatype::Datatypes;
use super::dumpi::layout::{CALLS, FUNCTION_ENTER, FUNCTION_EXIT};
use super::dumpi::{DumpiError, RankFile, Record, Trace};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Labels of the calls that send one point-to-point message each (the send half of
/// `MPI_Sendrecv` and `MPI_Sendrecv_replace` included).
const SENDS: [u16; 10] = [0, 3, 4, 5, 8, 9, 10, 11, 33, 34];
/// `MPI_Send_init`, `MPI_Bsend_init`, `MPI_Ssend_init`, `MPI_Rsend_init`.
const SEND_INITS: [u16; 4] = [26, 27, 28, 29];
const START: u16 = 31;
const STARTALL: u16 = 32;
const REQUEST_FREE: u16 = 15;
/// Labels of the collective operations (blocking ones of MPI-2, `MPI_Alltoallw`,
/// `MPI_Exscan`).
const COLLECTIVES: [u16; 16] = [
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 65, 66, 67, 155, 156,
];
/// Datatype sizes of the predefined types on a 64-bit host, for traces without a size
/// table or whose table records 0 (sst-dumpi records `MPI_LONG_LONG_INT` as 0).
const DEFAULT_SIZES: [u64; 28] = [
    0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20,
];

/// The number of function labels: the length of [`RankSummary::functions`].
pub const LABELS: usize = CALLS.len();

/// What a function does, for the totals it feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// Sends point-to-point messages (including `MPI_Start` and `MPI_Startall`, which
    /// start persistent sends): its bytes are send bytes.
    Send,
    /// A collective operation: its bytes are collective bytes.
    Collective,
    /// `Function_enter`/`Function_exit`: an annotation, not an MPI call.
    Annotation,
    /// Any other MPI call.
    Other,
}

impl FunctionKind {
    /// The kind of the function with label `label`.
    pub fn of(label: u16) -> FunctionKind {
        if SENDS.contains(&label) || label == START || label == STARTALL {
            FunctionKind::Send
        } else if COLLECTIVES.contains(&label) {
            FunctionKind::Collective
        } else if label == FUNCTION_ENTER || label == FUNCTION_EXIT {
            FunctionKind::Annotation
        } else {
            FunctionKind::Other
        }
    }
}

/// What one rank (or a sum of ranks) did in one function.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FunctionStats {
    /// Calls (records).
    pub calls: u64,
    /// Wall time inside the calls, in ns.
    pub wall_ns: i64,
    /// Point-to-point messages the calls sent.
    pub sends: u64,
    /// Bytes the calls named: send bytes of a [`FunctionKind::Send`], collective
    /// bytes of a [`FunctionKind::Collective`] (see the module's definitions).
    pub bytes: u64,
    /// Messages or collective calls whose datatype size is unknown (counted with 0
    /// bytes).
    pub unknown_size: u64,
}

impl FunctionStats {
    fn add(&mut self, other: &FunctionStats) {
        self.calls += other.calls;
        self.wall_ns += other.wall_ns;
        self.sends += other.sends;
        self.bytes += other.bytes;
        self.unknown_size += other.unknown_size;
    }
}

/// What one rank did, or the sum of several ranks ([`RankSummary::merge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankSummary {
    /// Per function label (an index into [`CALLS`]), [`LABELS`] entries.
    pub functions: Vec<FunctionStats>,
    /// Wall time from the first call's entry to the last call's return, in ns (for a
    /// sum of ranks, the sum of their spans).
    pub span_ns: i64,
    /// Ranks summed (1 for one rank).
    pub ranks: u32,
}

impl Default for RankSummary {
    fn default() -> Self {
        RankSummary {
            functions: vec![FunctionStats::default(); LABELS],
            span_ns: 0,
            ranks: 0,
        }
    }
}

impl RankSummary {
    /// Adds `other`'s counts and span to this one's.
    pub fn merge(&mut self, other: &RankSummary) {
        for (mine, theirs) in self.functions.iter_mut().zip(&other.functions) {
            mine.add(theirs);
        }
        self.span_ns += other.span_ns;
        self.ranks += other.ranks;
    }

    /// The sum of `ranks`.
    pub fn total<'a>(ranks: impl IntoIterator<Item = &'a RankSummary>) -> RankSummary {
        let mut total = RankSummary::default();
        for r in ranks {
            total.merge(r);
        }
        total
    }

    /// The MPI functions called, by label, with their counts (annotations excluded).
    pub fn called(&self) -> impl Iterator<Item = (u16, &FunctionStats)> + '_ {
        self.functions
            .iter()
            .enumerate()
            .map(|(label, f)| (label as u16, f))
            .filter(|(label, f)| {
                f.calls > 0 && FunctionKind::of(*label) != FunctionKind::Annotation
            })
    }

    /// The sum of `field` over the MPI functions of kind `kind` (any kind but
    /// annotations when None).
    fn sum(&self, kind: Option<FunctionKind>, field: impl Fn(&FunctionStats) -> u64) -> u64 {
        self.called()
            .filter(|(label, _)| kind.is_none_or(|k| FunctionKind::of(*label) == k))
            .map(|(_, f)| field(f))
            .sum()
    }

    /// MPI calls recorded (annotations excluded).
    pub fn calls(&self) -> u64 {
        self.sum(None, |f| f.calls)
    }

    /// Wall time inside MPI calls, in ns.
    pub fn mpi_ns(&self) -> i64 {
        self.called().map(|(_, f)| f.wall_ns).sum()
    }

    /// Wall time outside MPI calls, in ns.
    pub fn outside_mpi_ns(&self) -> i64 {
        self.span_ns - self.mpi_ns()
    }

    /// Point-to-point messages sent.
    pub fn sends(&self) -> u64 {
        self.sum(Some(FunctionKind::Send), |f| f.sends)
    }

    /// Bytes of those messages.
    pub fn send_bytes(&self) -> u64 {
        self.sum(Some(FunctionKind::Send), |f| f.bytes)
    }

    /// Sends whose datatype size is unknown (counted with 0 bytes).
    pub fn sends_of_unknown_size(&self) -> u64 {
        self.sum(Some(FunctionKind::Send), |f| f.unknown_size)
    }

    /// Collective calls.
    pub fn collectives(&self) -> u64 {
        self.sum(Some(FunctionKind::Collective), |f| f.calls)
    }

    /// Bytes of the collective calls (see the module's definition).
    pub fn collective_bytes(&self) -> u64 {
        self.sum(Some(FunctionKind::Collective), |f| f.bytes)
    }

    /// Collective calls whose datatype size is unknown (counted with 0 bytes).
    pub fn collectives_of_unknown_size(&self) -> u64 {
        self.sum(Some(FunctionKind::Collective), |f| f.unknown_size)
    }

    /// Annotation records (`Function_enter` and `Function_exit`, the `MPI_Pcontrol`
    /// markers).
    pub fn annotations(&self) -> u64 {
        [FUNCTION_ENTER, FUNCTION_EXIT]
            .iter()
            .map(|&l| self.functions[l as usize].calls)
            .sum()
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

/// `count` elements of datatype `datatype`, in bytes: None when the size is unknown
/// (and the count is not 0).
fn elements_bytes(types: &Datatypes, count: i64, datatype: i64) -> Option<u64> {
    if count <= 0 {
        return Some(0);
    }
    types.bytes(count, datatype)
}

/// Adds one message's or collective's `bytes` (None: of unknown size) to `f`.
fn add_bytes(f: &mut FunctionStats, bytes: Option<u64>) {
    match bytes {
        Some(b) => f.bytes += b,
        None => f.unknown_size += 1,
    }
}

/// Summarises one rank file.
pub fn summarise_rank(file: &RankFile) -> Result<RankSummary, DumpiError> {
    let mut s = RankSummary {
        ranks: 1,
        ..RankSummary::default()
    };
    let mut types = Datatypes::new(file.sizes.clone());
    // Persistent send requests alive now: handle → bytes of the message each start sends.
    let mut persistent: FxHashMap<i64, Option<u64>> = FxHashMap::default();
    let mut stream = file.stream()?;
    let mut rec = Record::default();
    let (mut first, mut last) = (None, 0i64);
    while stream.next_into(&mut rec)? {
        // The decoder yields labels of the layout table only.
        let f = &mut s.functions[rec.label as usize];
        f.calls += 1;
        let kind = FunctionKind::of(rec.label);
        if kind == FunctionKind::Annotation {
            continue;
        }
        f.wall_ns += rec.wall.nanos();
        first.get_or_insert(rec.wall.start.nanos());
        last = rec.wall.stop.nanos();
        match kind {
            FunctionKind::Send => count_send(f, &rec, &types, &persistent),
            FunctionKind::Collective => add_bytes(f, collective_bytes(&rec, &types)),
            _ => {
                if !types.follow(&rec) {
                    follow_persistent(&mut persistent, &rec, &types);
                }
            }
        }
    }
    s.span_ns = first.map_or(0, |f| last - f);
    Ok(s)
}

/// A send: `count` (or `sendcount`) elements of `datatype` (or `sendtype`); for
/// `MPI_Start` and `MPI_Startall`, one message per persistent send request started.
fn count_send(
    f: &mut FunctionStats,
    rec: &Record,
    types: &Datatypes,
    persistent: &FxHashMap<i64, Option<u64>>,
) {
    let mut start = |request: &i64| {
        if let Some(&bytes) = persistent.get(request) {
            f.sends += 1;
            add_bytes(f, bytes);
        }
    };
    match rec.label {
        START => {
            if let Some(request) = rec.get(Arg::Request) {
                start(&request);
            }
        }
        STARTALL => {
            rec.list(Arg::Requests)
                .into_iter()
                .flatten()
                .for_each(start);
        }
        _ => {
            let count = rec.get(Arg::Count).or_else(|| rec.get(Arg::SendCount));
            let datatype = rec.get(Arg::Datatype).or_else(|| rec.get(Arg::SendType));
            f.sends += 1;
            let (Some(count), Some(datatype)) = (count, datatype) else {
                return;
            };
            add_bytes(f, elements_bytes(types, count, datatype));
        }
    }
}

/// Follows the persistent send requests: made by the `*_init` calls, gone at
/// `MPI_Request_free`.
fn follow_persistent(
    persistent: &mut FxHashMap<i64, Option<u64>>,
    rec: &Record,
    types: &Datatypes,
) {
    if SEND_INITS.contains(&rec.label) {
        let (Some(count), Some(datatype), Some(request)) = (
            rec.get(Arg::Count),
            rec.get(Arg::Datatype),
            rec.get(Arg::Request),
        ) else {
            return;
        };
        persistent.insert(request, elements_bytes(types, count, datatype));
    } else if rec.label == REQUEST_FREE {
        if let Some(request) = rec.get(Arg::Request) {
            persistent.remove(&request);
        }
    }
}

/// The elements of array argument `arg`, empty when not stored.
fn stored_ints(rec: &Record, arg: Arg) -> &[i64] {
    rec.list(arg).unwrap_or(&[])
}

/// `count` elements of `datatype`, both arguments of `rec`; 0 bytes when the count was
/// not stored on this rank (root-only arguments are not stored elsewhere).
fn named_bytes(rec: &Record, types: &Datatypes, count: Arg, datatype: Arg) -> Option<u64> {
    match (rec.get(count), rec.get(datatype)) {
        (Some(c), Some(t)) => elements_bytes(types, c, t),
        (Some(c), None) if c > 0 => None,
        _ => Some(0),
    }
}

/// The sum of the elements of array `counts`, each of `datatype`.
fn summed_bytes(rec: &Record, types: &Datatypes, counts: Arg, datatype: Arg) -> Option<u64> {
    let total: i64 = stored_ints(rec, counts).iter().map(|&c| c.max(0)).sum();
    elements_bytes(types, total, rec.get(datatype).unwrap_or(-1))
}

/// The bytes a collective call's send-side arguments name on this rank (see the
/// module's definition); None when a datatype's size is unknown.
fn collective_bytes(rec: &Record, types: &Datatypes) -> Option<u64> {
    match rec.label {
        // Bcast, Reduce, Allreduce, Scan, Exscan.
        53 | 62 | 65 | 67 | 156 => named_bytes(rec, types, Arg::Count, Arg::Datatype),
        // Gather, Gatherv, Scatter, Allgather, Allgatherv, Alltoall.
        54 | 55 | 56 | 58 | 59 | 60 => named_bytes(rec, types, Arg::SendCount, Arg::SendType),
        // Scatterv, Alltoallv.
        57 | 61 => summed_bytes(rec, types, Arg::SendCounts, Arg::SendType),
        66 => summed_bytes(rec, types, Arg::RecvCounts, Arg::Datatype),
        155 => {
            let send_types = stored_ints(rec, Arg::SendTypes);
            let counts = stored_ints(rec, Arg::SendCounts);
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| elements_bytes(types, c, send_types.get(i).copied().unwrap_or(-1)))
                .sum()
        }
        // Barrier.
        _ => Some(0),
    }
}

/// Summarises the rank files `files` (indices into [`Trace::ranks`]) in parallel, a
/// batch of a few per thread at a time, and hands each summary to `visit` in file order
/// with its index. Memory holds one batch of summaries whatever the number of ranks.
pub fn for_each_rank<E: From<DumpiError>>(
    trace: &Trace,
    files: std::ops::Range<usize>,
    mut visit: impl FnMut(usize, RankSummary) -> Result<(), E>,
) -> Result<(), E> {
    let batch = 4 * rayon::current_num_threads().max(1);
    let mut at = files.start;
    while at < files.end {
        let end = files.end.min(at + batch);
        for (k, summary) in (at..end).zip(summarise_files(trace, at..end)?) {
            visit(k, summary)?;
        }
        at = end;
    }
    Ok(())
}

/// Summarises every rank of `trace`, in parallel; index = rank file.
pub fn summarise(trace: &Trace) -> Result<Vec<RankSummary>, DumpiError> {
    summarise_files(trace, 0..trace.ranks.len())
}

/// Summarises the rank files `files` (indices into [`Trace::ranks`]) of `trace`, in
/// parallel, in the order given.
pub fn summarise_files(
    trace: &Trace,
    files: std::ops::Range<usize>,
) -> Result<Vec<RankSummary>, DumpiError> {
    files
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

    fn fixture(name: &str) -> String {
        format!("{}/tests/fixtures/dumpi/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    fn label(name: &str) -> usize {
        CALLS.iter().position(|c| c.name == name).unwrap()
    }

    fn function<'a>(s: &'a RankSummary, name: &str) -> &'a FunctionStats {
        &s.functions[label(name)]
    }

    #[test]
    fn testtrace_counts_match_the_spec() {
        let ranks = summarise(&trace(&fixture("testtrace/testtrace.meta"))).unwrap();
        assert_eq!(ranks.len(), 4);
        for r in &ranks {
            assert_eq!(
                (r.calls(), r.sends(), r.send_bytes(), r.collectives()),
                (9, 1, 4, 2)
            );
            // Allreduce of one MPI_INT; the barrier names no bytes.
            assert_eq!(r.collective_bytes(), 4);
            assert_eq!(r.annotations(), 0);
        }
        assert_eq!(
            (ranks[0].span_ns, ranks[0].mpi_ns()),
            (2_646_000, 2_554_000)
        );
        assert_eq!(ranks[0].outside_mpi_ns(), 92_000);
    }

    #[test]
    fn testtrace_per_function_counts_and_times_match_dumpi2ascii() {
        // testtrace-0000.dumpi2ascii.txt: MPI_Isend entering at .739674000, returning at
        // .739689000; MPI_Barrier .737712000 to .739659000; MPI_Allreduce .739909000 to
        // .739932000; MPI_Init .737669000 to .737670000.
        let r = summarise(&trace(&fixture("testtrace/testtrace.meta"))).unwrap();
        let r0 = &r[0];
        let isend = function(r0, "MPI_Isend");
        assert_eq!(
            (isend.calls, isend.wall_ns, isend.sends, isend.bytes),
            (1, 15_000, 1, 4)
        );
        assert_eq!(function(r0, "MPI_Barrier").wall_ns, 1_947_000);
        let allreduce = function(r0, "MPI_Allreduce");
        assert_eq!(
            (allreduce.calls, allreduce.wall_ns, allreduce.bytes),
            (1, 23_000, 4)
        );
        assert_eq!(function(r0, "MPI_Init").wall_ns, 1_000);
        let names: Vec<&str> = r0.called().map(|(l, _)| CALLS[l as usize].name).collect();
        assert_eq!(
            names,
            [
                "MPI_Recv",
                "MPI_Isend",
                "MPI_Wait",
                "MPI_Barrier",
                "MPI_Allreduce",
                "MPI_Comm_size",
                "MPI_Comm_rank",
                "MPI_Init",
                "MPI_Finalize"
            ]
        );
    }

    #[test]
    fn ranks_are_visited_in_order_in_batches() {
        let t = trace(&fixture("testtrace/testtrace.meta"));
        let all = summarise(&t).unwrap();
        let mut seen = Vec::new();
        for_each_rank::<DumpiError>(&t, 1..4, |k, s| {
            seen.push((k, s));
            Ok(())
        })
        .unwrap();
        let expected: Vec<(usize, RankSummary)> = (1..4).map(|k| (k, all[k].clone())).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_total_adds_every_rank() {
        let ranks = summarise(&trace(&fixture("testtrace/testtrace.meta"))).unwrap();
        let total = RankSummary::total(&ranks);
        assert_eq!(total.ranks, 4);
        assert_eq!(
            (
                total.calls(),
                total.sends(),
                total.send_bytes(),
                total.collectives()
            ),
            (36, 4, 16, 8)
        );
        assert_eq!(total.collective_bytes(), 16);
        let spans: i64 = ranks.iter().map(|r| r.span_ns).sum();
        let mpi: i64 = ranks.iter().map(RankSummary::mpi_ns).sum();
        assert_eq!((total.span_ns, total.mpi_ns()), (spans, mpi));
        assert_eq!(function(&total, "MPI_Isend").calls, 4);
        assert_ne!(ranks[0].span_ns, ranks[1].span_ns);
    }

    #[test]
    fn many_calls_counts_persistent_sends_collective_bytes_and_annotations() {
        let file = RankFile::from_bytes(
            std::fs::read(fixture("many_calls-0000.bin")).unwrap(),
            "m.bin",
        )
        .unwrap();
        let r = summarise_rank(&file).unwrap();
        // The footer's MPI_ALL_FUNCTIONS: 132 calls; the 4 Function_enter/exit records
        // are annotations.
        assert_eq!((r.calls(), r.annotations()), (132, 4));
        assert_eq!(function(&r, "Function_enter").calls, 2);
        // Send 2+1 ints, Bsend 1, Ssend 3 doubles, Rsend 0, Isend 1, Ibsend 0, Issend 1,
        // Sendrecv 4 ints and 1 of type 28 (16 B), Sendrecv_replace 1; Startall and
        // Start each start persistent request 5 (Send_init of 2 ints; request 2 is a
        // Recv_init).
        assert_eq!((r.sends(), r.send_bytes()), (13, 100));
        let start = function(&r, "MPI_Start");
        assert_eq!((start.calls, start.sends, start.bytes), (2, 1, 8));
        let startall = function(&r, "MPI_Startall");
        assert_eq!((startall.calls, startall.sends, startall.bytes), (1, 1, 8));
        assert_eq!(function(&r, "MPI_Send_init").sends, 0);
        assert_eq!(r.sends_of_unknown_size(), 0);
        // Collectives of MPI_INTs: Bcast 3+1, Gather 2, Gatherv 1, Scatter 2 at the root,
        // Scatterv 0 (not the root), Allgather 1, Allgatherv 1, Alltoall 2, Alltoallv
        // 1+2+3+4, Reduce 4, Allreduce 4+1, Reduce_scatter 1+2+3+4, Scan 1, Exscan 1.
        assert_eq!(r.collectives(), 18);
        assert_eq!(r.collective_bytes(), 176);
        assert_eq!(function(&r, "MPI_Scatter").bytes, 8);
        assert_eq!(function(&r, "MPI_Scatterv").bytes, 0);
        assert_eq!(function(&r, "MPI_Alltoallv").bytes, 40);
        assert_eq!(function(&r, "MPI_Reduce_scatter").bytes, 40);
        assert_eq!(r.collectives_of_unknown_size(), 0);
        // Annotations are outside MPI: the MPI time is that of the calls alone.
        let mpi: i64 = r.called().map(|(_, f)| f.wall_ns).sum();
        assert_eq!(r.mpi_ns(), mpi);
        assert!(function(&r, "Function_enter").wall_ns == 0);
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
            assert_eq!((r.calls(), r.sends(), r.send_bytes()), (227, 84, 59_808));
            // 7 Alltoalls of 89 doubles per peer, 3 barriers.
            assert_eq!((r.collectives(), r.collective_bytes()), (10, 7 * 712));
        }
        let r0 = &ranks[0];
        assert_eq!(
            (r0.span_ns, r0.mpi_ns(), r0.outside_mpi_ns()),
            (12_004_783, 3_790_115, 8_214_668)
        );
        // Alltoall: sendcount × the trace's own size of its datatype = 712 bytes per peer.
        assert_eq!(function(r0, "MPI_Alltoall").bytes, 7 * 712);
        let file = t.rank_file(0).unwrap();
        assert_eq!(datatype_size(file.sizes.as_deref(), 11), Some(4));
    }

    #[test]
    fn naive_all_to_all_counts_match_the_spec() {
        let Some(meta) = shared("traces/dumpi/dumpi_to_graph_naive_all_to_all_procs4_run0/dumpi-2019.05.22.11.54.43.meta") else {
            return;
        };
        let ranks = summarise(&trace(&meta)).unwrap();
        for r in &ranks {
            assert_eq!((r.calls(), r.sends(), r.send_bytes()), (41, 12, 48));
        }
        assert_eq!(
            (ranks[0].mpi_ns(), ranks[0].outside_mpi_ns()),
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
        let types = Datatypes::new(Some(table.to_vec()));
        assert_eq!(elements_bytes(&types, 3, 40), None);
        assert_eq!(elements_bytes(&types, 0, 40), Some(0));
        assert_eq!(elements_bytes(&types, 3, 16), Some(24));
    }

    #[test]
    fn function_kinds_feed_the_right_totals() {
        assert_eq!(FunctionKind::of(0), FunctionKind::Send);
        assert_eq!(FunctionKind::of(START), FunctionKind::Send);
        assert_eq!(FunctionKind::of(26), FunctionKind::Other);
        assert_eq!(FunctionKind::of(65), FunctionKind::Collective);
        assert_eq!(FunctionKind::of(FUNCTION_EXIT), FunctionKind::Annotation);
        assert_eq!(LABELS, 293);
    }
}
