//! An MPI trace as traffic: the bytes and messages every world rank sends every other
//! rank, with communicators translated to world ranks and collectives expanded into the
//! point-to-point messages of an algorithm (or left out).
//!
//! What counts as a message from `src` to `dst`, each of `count × size(datatype)` bytes:
//!
//! * every point-to-point send (`MPI_Send`, `Bsend`, `Ssend`, `Rsend`, their `I` forms,
//!   the send half of `MPI_Sendrecv` and `MPI_Sendrecv_replace`) from its caller to its
//!   destination; a persistent send (`MPI_*send_init`) at each `MPI_Start`/`Startall`;
//! * `MPI_Put` and `MPI_Accumulate` from the origin to the target, `MPI_Get` from the
//!   target to the origin (the data's direction), through the window's communicator;
//! * with [`Collectives::Expand`], every message a collective's algorithm sends (see
//!   [`crate::trace::collective`]): MPICH's choice by communicator size and message size,
//!   or the algorithm forced per operation.
//!
//! Sizes are the trace's own datatype sizes (its size table, derived datatypes followed
//! through their constructors). Messages to `MPI_PROC_NULL` (negative ranks), messages
//! of unknown size (counted with 0 bytes) and collectives on intercommunicators (left
//! out: the remote group's order is not in the trace) are reported in [`Notes`].
//!
//! A time window keeps the calls that start inside it; a phase keeps the calls after an
//! `MPI_Pcontrol` annotation with that text, up to the next annotation. Both leave the
//! calls that make communicators, datatypes, windows and persistent requests in effect.
//!
//! Each rank file is streamed once, in parallel, into tallies keyed by (communicator,
//! peer) or by distinct collective call, so memory grows with the distinct peers and
//! calls, never with the trace's length. Then the communicators are resolved across
//! ranks ([`crate::trace::comm::resolve`]) and the tallies become world-rank pairs.

mod rank;
mod world;

use crate::error::LocatedError;
use crate::trace::collective::{AlgorithmChoice, CollectiveError};
use crate::trace::dumpi::{DumpiError, RankFile, Trace};
use crate::workload::matrix::TrafficMatrix;
use rayon::prelude::*;

/// What to do with collective operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Collectives {
    /// Leave them out: point-to-point and one-sided traffic only.
    Exclude,
    /// Expand each into the messages of its algorithm.
    Expand(AlgorithmChoice),
}

/// A time window, in ns after the trace's first call (the earliest entry among the
/// ranks' first records: libdumpi's wall clock is not always the epoch's): calls that
/// start in `[start_ns, end_ns)` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First ns counted.
    pub start_ns: i64,
    /// First ns no longer counted.
    pub end_ns: i64,
}

/// Why the text of a window is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    /// No `:` between the two ends.
    #[error("expected START:END in seconds (START: and :END leave a side open)")]
    Form,
    /// An end is not a number of seconds.
    #[error("'{0}' is not a number of seconds (0 or more)")]
    Seconds(String),
    /// END is not after START.
    #[error("the window {0} is empty: END must be after START")]
    Empty(String),
}

impl Window {
    /// Reads `START:END` in seconds after the trace's first call, rounded to ns; either
    /// side may be empty to leave it open (`START:`, `:END`). Each end must be a number
    /// from 0 to 9·10⁹ seconds, and END must be after START.
    pub fn parse(text: &str) -> Result<Window, WindowError> {
        let Some((a, b)) = text.split_once(':') else {
            return Err(WindowError::Form);
        };
        let seconds = |s: &str, open: i64| -> Result<i64, WindowError> {
            if s.trim().is_empty() {
                return Ok(open);
            }
            match s.trim().parse::<f64>() {
                Ok(v) if (0.0..9.0e9).contains(&v) => Ok((v * 1e9).round() as i64),
                _ => Err(WindowError::Seconds(s.to_string())),
            }
        };
        let window = Window {
            start_ns: seconds(a, 0)?,
            end_ns: seconds(b, i64::MAX)?,
        };
        if window.start_ns >= window.end_ns {
            return Err(WindowError::Empty(text.to_string()));
        }
        Ok(window)
    }
}

/// What to count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrafficOptions {
    /// Collectives left out or expanded.
    pub collectives: Collectives,
    /// Only calls starting in this window.
    pub window: Option<Window>,
    /// Only calls after an `MPI_Pcontrol` annotation with this text, up to the next
    /// annotation.
    pub phase: Option<String>,
}

impl Default for TrafficOptions {
    /// Everything, collectives expanded by MPICH's choice.
    fn default() -> Self {
        TrafficOptions {
            collectives: Collectives::Expand(AlgorithmChoice::automatic()),
            window: None,
            phase: None,
        }
    }
}

impl TrafficOptions {
    fn expands_collectives(&self) -> bool {
        matches!(self.collectives, Collectives::Expand(_))
    }
}

/// What was counted with care or left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notes {
    /// Messages (or collective calls) whose datatype size is unknown, counted as 0 bytes.
    pub unsized_messages: u64,
    /// Messages to `MPI_PROC_NULL` (a negative rank), left out.
    pub null_peer_messages: u64,
    /// Collective calls on intercommunicators, left out.
    pub intercomm_collectives: u64,
}

impl Notes {
    fn add(&mut self, other: &Notes) {
        self.unsized_messages += other.unsized_messages;
        self.null_peer_messages += other.null_peer_messages;
        self.intercomm_collectives += other.intercomm_collectives;
    }
}

/// The traffic of one ordered pair of world ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Sending world rank.
    pub src: u32,
    /// Receiving world rank.
    pub dst: u32,
    /// Bytes sent.
    pub bytes: u64,
    /// Messages sent.
    pub messages: u64,
}

/// A trace's traffic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceTraffic {
    /// World ranks.
    pub ranks: u32,
    /// Every pair with at least one message, by source then destination; self pairs
    /// kept.
    pub pairs: Vec<Pair>,
    /// What was counted with care or left out.
    pub notes: Notes,
}

impl TraceTraffic {
    /// The traffic matrix (bytes of every pair with a message).
    pub fn to_matrix(&self) -> TrafficMatrix {
        TrafficMatrix {
            ranks: self.ranks,
            entries: self.pairs.iter().map(|p| (p.src, p.dst, p.bytes)).collect(),
        }
    }

    /// Total bytes.
    pub fn total_bytes(&self) -> u64 {
        self.pairs.iter().fold(0, |s, p| s.saturating_add(p.bytes))
    }

    /// Total messages.
    pub fn total_messages(&self) -> u64 {
        self.pairs.iter().map(|p| p.messages).sum()
    }
}

/// Why a trace's traffic cannot be told.
#[derive(Debug, thiserror::Error)]
pub enum TrafficError {
    /// The trace cannot be read.
    #[error(transparent)]
    Dumpi(#[from] DumpiError),
    /// A record does not fit the rest of the trace: file, byte and what is wrong.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// The trace is a single rank file: the communicators need every rank.
    #[error("'{path}' is one rank's file: traffic needs the whole trace, its .meta file")]
    NotWholeTrace {
        /// The file named.
        path: String,
    },
    /// No rank file has an annotation with the phase's text.
    #[error("no MPI_Pcontrol annotation of the trace reads '{phase}'{}", known_phases(.known))]
    UnknownPhase {
        /// The phase asked for.
        phase: String,
        /// The annotation texts the trace has (first few).
        known: Vec<String>,
    },
    /// A collective call cannot be expanded.
    #[error("{path}: byte {at}: {source}")]
    Collective {
        /// The rank file.
        path: String,
        /// Byte offset of the first such call.
        at: u64,
        /// Why.
        #[source]
        source: CollectiveError,
    },
}

fn known_phases(known: &[String]) -> String {
    if known.is_empty() {
        " (it has no annotations)".to_string()
    } else {
        format!(" (it has: {})", known.join(", "))
    }
}

/// The traffic of `trace` (opened from its `.meta`): every rank file streamed once, in
/// parallel. Time O(records + Σ distinct peers and calls · their expansion); memory
/// O(distinct peers and calls per rank), whatever the trace's length.
pub fn trace_traffic(
    trace: &Trace,
    options: &TrafficOptions,
) -> Result<TraceTraffic, TrafficError> {
    if trace.meta.is_none() {
        return Err(TrafficError::NotWholeTrace {
            path: trace.ranks[0].display().to_string(),
        });
    }
    let size = trace.ranks.len() as u32;
    let files: Vec<RankFile> = (0..trace.ranks.len())
        .into_par_iter()
        .map(|k| trace.rank_file(k))
        .collect::<Result<_, _>>()?;
    if let Some(phase) = &options.phase {
        check_phase(&files, phase)?;
    }
    let start_ns = match options.window {
        Some(_) => first_call(&files)?,
        None => 0,
    };
    let read: Vec<_> = files
        .par_iter()
        .enumerate()
        .map(|(k, file)| rank::read_rank(file, k as u32, size, start_ns, options))
        .collect::<Result<_, _>>()?;
    let (tables, traffic): (Vec<_>, Vec<_>) = read.into_iter().unzip();
    let communicators = crate::trace::comm::resolve(&tables)?;
    let mut notes = Notes::default();
    for t in &traffic {
        notes.add(&t.notes);
    }
    let rows: Vec<Vec<Pair>> = traffic
        .par_iter()
        .enumerate()
        .map(|(k, t)| world::pairs(k as u32, t, &communicators, options, &files[k].name))
        .collect::<Result<_, _>>()?;
    Ok(TraceTraffic {
        ranks: size,
        pairs: world::merge(rows.into_iter().flatten().collect()),
        notes,
    })
}

/// The earliest entry time (ns) among the ranks' first records.
fn first_call(files: &[RankFile]) -> Result<i64, TrafficError> {
    let firsts: Vec<Option<i64>> = files
        .par_iter()
        .map(|file| {
            let mut rec = crate::trace::dumpi::Record::default();
            let found = file.stream()?.next_into(&mut rec)?;
            Ok(found.then(|| rec.wall.start.nanos()))
        })
        .collect::<Result<_, DumpiError>>()?;
    Ok(firsts.into_iter().flatten().min().unwrap_or(0))
}

/// Fails unless some rank file has an annotation reading `phase`.
fn check_phase(files: &[RankFile], phase: &str) -> Result<(), TrafficError> {
    let labels = files
        .iter()
        .flat_map(|f| f.addresses.iter().map(|(_, l)| l));
    if labels.clone().any(|l| rank::annotation_is(l, phase)) {
        return Ok(());
    }
    let mut known: Vec<String> = labels
        .map(|l| {
            let text = l.strip_prefix(b"ANNOTATION: ").unwrap_or(l);
            String::from_utf8_lossy(text).into_owned()
        })
        .collect();
    known.sort();
    known.dedup();
    known.truncate(10);
    Err(TrafficError::UnknownPhase {
        phase: phase.to_string(),
        known,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::collective::Algorithm;
    use std::path::Path;

    #[test]
    fn windows_read_seconds_with_open_ends() {
        let w = |start_ns, end_ns| Window { start_ns, end_ns };
        assert_eq!(Window::parse("1.5:2"), Ok(w(1_500_000_000, 2_000_000_000)));
        assert_eq!(Window::parse(" :0.25"), Ok(w(0, 250_000_000)));
        assert_eq!(Window::parse("3:"), Ok(w(3_000_000_000, i64::MAX)));
        assert_eq!(Window::parse("3"), Err(WindowError::Form));
        assert_eq!(
            Window::parse("x:1"),
            Err(WindowError::Seconds("x".to_string()))
        );
        assert_eq!(
            Window::parse("-1:1"),
            Err(WindowError::Seconds("-1".into()))
        );
        assert_eq!(Window::parse("2:1"), Err(WindowError::Empty("2:1".into())));
    }

    fn testtrace() -> Trace {
        let meta = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/dumpi/testtrace/testtrace.meta"
        );
        Trace::open(Path::new(meta)).unwrap()
    }

    fn pairs(t: &TraceTraffic) -> Vec<(u32, u32, u64, u64)> {
        t.pairs
            .iter()
            .map(|p| (p.src, p.dst, p.bytes, p.messages))
            .collect()
    }

    fn exclude() -> TrafficOptions {
        TrafficOptions {
            collectives: Collectives::Exclude,
            ..TrafficOptions::default()
        }
    }

    #[test]
    fn the_ring_of_one_int_without_collectives() {
        let t = trace_traffic(&testtrace(), &exclude()).unwrap();
        assert_eq!(t.ranks, 4);
        assert_eq!(
            pairs(&t),
            [(0, 1, 4, 1), (1, 2, 4, 1), (2, 3, 4, 1), (3, 0, 4, 1)]
        );
        assert_eq!(t.notes, Notes::default());
    }

    #[test]
    fn barrier_and_allreduce_expand_by_hand() {
        // Barrier (dissemination, p = 4): r → r+1 and r → r+2, 0 bytes. Allreduce of 4
        // bytes (recursive doubling): r → r^1 and r → r^2, 4 bytes each. Ring: r → r+1.
        let t = trace_traffic(&testtrace(), &TrafficOptions::default()).unwrap();
        let mut expected = std::collections::BTreeMap::new();
        let mut add = |s: u32, d: u32, b: u64| {
            let e = expected.entry((s, d)).or_insert((0u64, 0u64));
            e.0 += b;
            e.1 += 1;
        };
        for r in 0..4u32 {
            add(r, (r + 1) % 4, 4);
            add(r, (r + 1) % 4, 0);
            add(r, (r + 2) % 4, 0);
            add(r, r ^ 1, 4);
            add(r, r ^ 2, 4);
        }
        let expected: Vec<_> = expected
            .into_iter()
            .map(|((s, d), (b, m))| (s, d, b, m))
            .collect();
        assert_eq!(pairs(&t), expected);
        assert_eq!(t.total_bytes(), 4 * 12);
        assert_eq!(t.total_messages(), 4 * 5);
    }

    #[test]
    fn a_forced_algorithm_changes_the_messages() {
        // Allreduce by Rabenseifner on 4 bytes over 4 ranks: a reduce-scatter then an
        // allgather, each of lg 4 = 2 steps, so 4 messages per rank instead of 2.
        let choice = AlgorithmChoice::parse("allreduce=rabenseifner").unwrap();
        let options = TrafficOptions {
            collectives: Collectives::Expand(choice),
            ..TrafficOptions::default()
        };
        let forced = trace_traffic(&testtrace(), &options).unwrap();
        let auto = trace_traffic(&testtrace(), &TrafficOptions::default()).unwrap();
        assert_eq!(auto.total_messages(), 20);
        assert_eq!(forced.total_messages(), 28);
        assert_eq!(
            Algorithm::from_name("rabenseifner"),
            Some(Algorithm::Rabenseifner)
        );
    }

    #[test]
    fn a_time_window_keeps_the_calls_that_start_in_it() {
        // The first call starts at 1296777956.737669 s (rank 0's MPI_Init); the Isends
        // 2,005 µs later (ranks 0, 2), 2,075 µs (rank 1) and 2,085 µs (rank 3); the
        // Allreduces 2,139 µs and later.
        let options = TrafficOptions {
            window: Some(Window {
                start_ns: 2_031_000,
                end_ns: 2_131_000,
            }),
            ..TrafficOptions::default()
        };
        let t = trace_traffic(&testtrace(), &options).unwrap();
        assert_eq!(pairs(&t), [(1, 2, 4, 1), (3, 0, 4, 1)]);
        let edge = TrafficOptions {
            window: Some(Window {
                start_ns: 2_005_000,
                end_ns: 2_075_000,
            }),
            ..exclude()
        };
        let t = trace_traffic(&testtrace(), &edge).unwrap();
        assert_eq!(pairs(&t), [(0, 1, 4, 1), (2, 3, 4, 1)]);
    }

    fn phases(phase: &str) -> TrafficOptions {
        TrafficOptions {
            phase: Some(phase.into()),
            ..TrafficOptions::default()
        }
    }

    #[test]
    fn a_phase_keeps_the_calls_after_its_annotations_up_to_the_next() {
        // tests/mpi-programs/phases.c: "exchange" sends 100 B to r+1 twice, "reduce"
        // 50 B to r-1 twice; before them each rank sends 7 B to itself.
        let meta = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/dumpi/phases/phases.meta"
        );
        let trace = Trace::open(Path::new(meta)).unwrap();
        let ring = |step: u32, bytes: u64| -> Vec<(u32, u32, u64, u64)> {
            let mut v: Vec<_> = (0..4).map(|r| (r, (r + step) % 4, bytes, 2)).collect();
            v.sort();
            v
        };
        let t = trace_traffic(&trace, &phases("exchange")).unwrap();
        assert_eq!(pairs(&t), ring(1, 200));
        let t = trace_traffic(&trace, &phases("ANNOTATION: reduce")).unwrap();
        assert_eq!(pairs(&t), ring(3, 100));
        assert!(pairs(&trace_traffic(&trace, &phases("done")).unwrap()).is_empty());
        let all = trace_traffic(&trace, &TrafficOptions::default()).unwrap();
        let mut expected = ring(1, 200);
        expected.extend(ring(3, 100));
        expected.extend((0..4).map(|r| (r, r, 7, 1)));
        expected.sort();
        assert_eq!(pairs(&all), expected);
        let err = trace_traffic(&trace, &phases("solve")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no MPI_Pcontrol annotation of the trace reads 'solve' (it has: done, exchange, reduce)"
        );
    }

    #[test]
    fn an_unknown_phase_lists_the_annotations_there_are() {
        let options = TrafficOptions {
            phase: Some("solve".into()),
            ..TrafficOptions::default()
        };
        let err = trace_traffic(&testtrace(), &options).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no MPI_Pcontrol annotation of the trace reads 'solve' (it has no annotations)"
        );
    }

    #[test]
    fn one_rank_file_is_not_a_whole_trace() {
        let trace = testtrace();
        let one = Trace::open(&trace.ranks[1]).unwrap();
        let err = trace_traffic(&one, &TrafficOptions::default()).unwrap_err();
        assert!(matches!(err, TrafficError::NotWholeTrace { .. }), "{err}");
        assert!(err.to_string().contains("testtrace-0001.bin"), "{err}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn mutated_rank_files_never_panic(
            rank in 0usize..4,
            edits in proptest::collection::vec((0usize..1_600, proptest::prelude::any::<u8>(), 0u8..3), 1..6)
        ) {
            let dir = tempfile::tempdir().unwrap();
            let from = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/dumpi/testtrace"));
            for k in 0..4 {
                let name = format!("testtrace-000{k}.bin");
                let mut bytes = std::fs::read(from.join(&name)).unwrap();
                if k == rank {
                    bytes = crate::test_support::mutate(&bytes, &edits);
                }
                std::fs::write(dir.path().join(name), bytes).unwrap();
            }
            std::fs::copy(from.join("testtrace.meta"), dir.path().join("testtrace.meta")).unwrap();
            if let Ok(trace) = Trace::open(&dir.path().join("testtrace.meta")) {
                let _ = trace_traffic(&trace, &TrafficOptions::default());
            }
        }
    }
}
