//! One rank's pass over its records: what it sends, to whom in which communicator,
//! tallied as it streams by (bounded by the distinct peers and calls, never by the
//! trace's length).

use super::{Notes, TrafficError, TrafficOptions};
use crate::error::LocatedError;
use crate::trace::args::{Arg, ArgsOf};
use crate::trace::collective::CollectiveOp;
use crate::trace::comm::{Handle, LocalComm, RankComms};
use crate::trace::datatype::Datatypes;
use crate::trace::dumpi::layout::FUNCTION_ENTER;
use crate::trace::dumpi::{RankFile, Record};
use crate::trace::label;
use crate::trace::sizes::Sizes;
use rustc_hash::{FxHashMap, FxHashSet};

/// Bytes and messages of one peer or call, and where the first of them is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    pub bytes: u64,
    pub messages: u64,
    /// Byte offset of the first record counted.
    pub at: u64,
}

/// What identifies a collective call for tallying: calls with the same key expand to
/// the same messages.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct CollectiveKey {
    pub op: CollectiveOp,
    pub comm: LocalComm,
    /// The root as recorded (a rank of the communicator).
    pub root: i64,
    pub commutative: bool,
    pub sizes: Sizes,
}

/// A persistent send made by `MPI_*send_init`, counted at each `MPI_Start`.
#[derive(Debug, Clone, Copy)]
struct Persistent {
    comm: LocalComm,
    dest: i64,
    bytes: Option<u64>,
}

/// What one rank sends, by communicator and peer, once its file is read.
#[derive(Debug, Default)]
pub(super) struct RankTraffic {
    /// Point-to-point sends, puts and accumulates: (communicator, destination rank in
    /// it) → tally.
    pub sends: FxHashMap<(LocalComm, i64), Tally>,
    /// Gets: (window's communicator, target rank in it) → data the target sends here.
    pub gets: FxHashMap<(LocalComm, i64), Tally>,
    /// Collective calls → how many times they were made.
    pub collectives: FxHashMap<CollectiveKey, Tally>,
    /// What was counted with care or left out.
    pub notes: Notes,
}

/// The state of one rank's pass.
struct Pass<'a> {
    path: &'a str,
    options: &'a TrafficOptions,
    comms: RankComms,
    types: Datatypes,
    /// User reduction operators → commutative.
    ops: FxHashMap<i64, bool>,
    windows: FxHashMap<i64, LocalComm>,
    persistent: FxHashMap<i64, Persistent>,
    /// Function addresses whose annotation opens the selected phase.
    phase_marks: FxHashSet<u64>,
    /// Whether the calls read now are in the selected phase.
    in_phase: bool,
    /// Absolute wall-clock window in ns, [start, end).
    window: Option<(i64, i64)>,
    out: RankTraffic,
}

/// Reads world rank `rank` of `size` from `file`; `trace_start` is the trace's start in
/// ns since the epoch (the time window is relative to it).
pub(super) fn read_rank(
    file: &RankFile,
    rank: u32,
    size: u32,
    trace_start: i64,
    options: &TrafficOptions,
) -> Result<(RankComms, RankTraffic), TrafficError> {
    let phase_marks: FxHashSet<u64> = match &options.phase {
        Some(name) => file
            .addresses
            .iter()
            .filter(|(_, label)| annotation_is(label, name))
            .map(|&(address, _)| address)
            .collect(),
        None => FxHashSet::default(),
    };
    let mut pass = Pass {
        path: &file.name,
        options,
        comms: RankComms::new(file.name.clone(), rank, size),
        types: Datatypes::new(file.sizes.clone()),
        ops: FxHashMap::default(),
        windows: FxHashMap::default(),
        persistent: FxHashMap::default(),
        phase_marks,
        in_phase: options.phase.is_none(),
        window: options.window.map(|w| {
            (
                trace_start.saturating_add(w.start_ns),
                trace_start.saturating_add(w.end_ns),
            )
        }),
        out: RankTraffic::default(),
    };
    let mut stream = file.stream()?;
    let mut rec = Record::default();
    while stream.next_into(&mut rec)? {
        pass.record(&rec)?;
    }
    Ok((pass.comms, pass.out))
}

/// Whether an annotation's label (`ANNOTATION: text` as libdumpi stores the text of
/// `MPI_Pcontrol(2, …)` and `MPI_Pcontrol(3, …)`) names phase `name`.
pub(super) fn annotation_is(label: &[u8], name: &str) -> bool {
    let text = label.strip_prefix(b"ANNOTATION: ").unwrap_or(label);
    text == name.as_bytes() || label == name.as_bytes()
}

impl Pass<'_> {
    fn record(&mut self, rec: &Record) -> Result<(), TrafficError> {
        match rec.label {
            label::SEND
            | label::BSEND
            | label::SSEND
            | label::RSEND
            | label::ISEND
            | label::IBSEND
            | label::ISSEND
            | label::IRSEND
            | label::SENDRECV_REPLACE => {
                if self.counts(rec) {
                    self.send(rec, Arg::Count, Arg::Datatype)?;
                }
            }
            label::SENDRECV => {
                if self.counts(rec) {
                    self.send(rec, Arg::SendCount, Arg::SendType)?;
                }
            }
            label::SEND_INIT | label::BSEND_INIT | label::SSEND_INIT | label::RSEND_INIT => {
                self.send_init(rec)?
            }
            label::START => {
                if self.counts(rec) {
                    if let Some(r) = rec.get(Arg::Request) {
                        self.start(r, rec.offset);
                    }
                }
            }
            label::STARTALL => {
                if self.counts(rec) {
                    for &r in rec.list(Arg::Requests).unwrap_or(&[]) {
                        self.start(r, rec.offset);
                    }
                }
            }
            label::REQUEST_FREE => {
                if let Some(r) = rec.get(Arg::Request) {
                    self.persistent.remove(&r);
                }
            }
            label::PUT | label::ACCUMULATE | label::GET => {
                if self.counts(rec) {
                    self.one_sided(rec)?;
                }
            }
            label::WIN_CREATE => {
                let comm = self.comm(rec, Arg::Comm)?;
                if let Some(win) = rec.get(Arg::Win) {
                    self.windows.insert(win, comm);
                }
            }
            label::WIN_FREE => {
                if let Some(win) = rec.get(Arg::Win) {
                    self.windows.remove(&win);
                }
            }
            label::OP_CREATE => {
                if let (Some(op), Some(commute)) = (rec.get(Arg::Op), rec.get(Arg::Commute)) {
                    self.ops.insert(op, commute != 0);
                }
            }
            label::OP_FREE => {
                if let Some(op) = rec.get(Arg::Op) {
                    self.ops.remove(&op);
                }
            }
            FUNCTION_ENTER if self.options.phase.is_some() => {
                let address = rec.get(Arg::Function).unwrap_or(-1) as u64;
                self.in_phase = self.phase_marks.contains(&address);
            }
            _ => {
                if self.types.follow(rec)
                    || crate::trace::comm::follow(&mut self.comms, rec, self.path)?
                {
                    return Ok(());
                }
                if self.options.expands_collectives() {
                    if let Some(op) = label::collective_op(rec.label) {
                        if self.counts(rec) {
                            self.collective(op, rec)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether a data-moving call is inside the selected phase and time window.
    fn counts(&self, rec: &Record) -> bool {
        self.in_phase
            && self.window.is_none_or(|(start, end)| {
                let t = rec.wall.start.nanos();
                start <= t && t < end
            })
    }

    /// The communicator argument `arg`, as this rank's table names it now.
    fn comm(&self, rec: &Record, arg: Arg) -> Result<LocalComm, TrafficError> {
        let handle = rec
            .get(arg)
            .and_then(|h| Handle::try_from(h).ok())
            .ok_or_else(|| self.error(rec, format!("`{}` is not recorded", arg.name())))?;
        Ok(self.comms.current(handle, rec.offset)?)
    }

    /// `count` elements of `datatype`; None (and a note) when the size is unknown.
    fn bytes(&mut self, rec: &Record, count: Arg, datatype: Arg) -> Option<u64> {
        let size = crate::trace::sizes::message_bytes(&self.types, rec, count, datatype);
        if size.is_none() {
            self.out.notes.unsized_messages += 1;
        }
        size
    }

    fn send(&mut self, rec: &Record, count: Arg, datatype: Arg) -> Result<(), TrafficError> {
        let comm = self.comm(rec, Arg::Comm)?;
        let dest = rec.get(Arg::Dest).unwrap_or(-1);
        if dest < 0 {
            self.out.notes.null_peer_messages += 1;
            return Ok(());
        }
        let bytes = self.bytes(rec, count, datatype).unwrap_or(0);
        Tally::add_to(&mut self.out.sends, (comm, dest), bytes, rec.offset);
        Ok(())
    }

    fn send_init(&mut self, rec: &Record) -> Result<(), TrafficError> {
        let comm = self.comm(rec, Arg::Comm)?;
        let count = rec.get(Arg::Count).unwrap_or(0);
        let bytes = rec
            .get(Arg::Datatype)
            .and_then(|t| self.types.bytes(count, t));
        if let Some(request) = rec.get(Arg::Request) {
            let dest = rec.get(Arg::Dest).unwrap_or(-1);
            self.persistent
                .insert(request, Persistent { comm, dest, bytes });
        }
        Ok(())
    }

    /// `MPI_Start` of `request`: one message when it is a persistent send.
    fn start(&mut self, request: i64, at: u64) {
        let Some(p) = self.persistent.get(&request).copied() else {
            return;
        };
        if p.dest < 0 {
            self.out.notes.null_peer_messages += 1;
            return;
        }
        if p.bytes.is_none() {
            self.out.notes.unsized_messages += 1;
        }
        Tally::add_to(
            &mut self.out.sends,
            (p.comm, p.dest),
            p.bytes.unwrap_or(0),
            at,
        );
    }

    fn one_sided(&mut self, rec: &Record) -> Result<(), TrafficError> {
        let win = rec.get(Arg::Win).unwrap_or(-1);
        let Some(&comm) = self.windows.get(&win) else {
            return Err(self.error(rec, format!("window {win} is not defined here")));
        };
        let target = rec.get(Arg::TargetRank).unwrap_or(-1);
        if target < 0 {
            self.out.notes.null_peer_messages += 1;
            return Ok(());
        }
        let bytes = self
            .bytes(rec, Arg::OriginCount, Arg::OriginType)
            .unwrap_or(0);
        let tallies = if rec.label == label::GET {
            &mut self.out.gets
        } else {
            &mut self.out.sends
        };
        Tally::add_to(tallies, (comm, target), bytes, rec.offset);
        Ok(())
    }

    fn collective(&mut self, op: CollectiveOp, rec: &Record) -> Result<(), TrafficError> {
        let comm = self.comm(rec, Arg::Comm)?;
        if self.comms.is_inter(comm) {
            self.out.notes.intercomm_collectives += 1;
            return Ok(());
        }
        let commutative = rec
            .get(Arg::Op)
            .and_then(|op| self.ops.get(&op).copied())
            .unwrap_or(true);
        let sizes = self.collective_sizes(op, rec);
        let key = CollectiveKey {
            op,
            comm,
            root: rec.get(Arg::Root).unwrap_or(0),
            commutative,
            sizes,
        };
        let slot = self.out.collectives.entry(key).or_insert(Tally {
            bytes: 0,
            messages: 0,
            at: rec.offset,
        });
        // For collectives the tally counts calls; their bytes come from the expansion.
        slot.messages += 1;
        Ok(())
    }

    /// The data sizes of a collective call; unknown datatype sizes count as 0 bytes
    /// (and a note).
    fn collective_sizes(&mut self, op: CollectiveOp, rec: &Record) -> Sizes {
        let (sizes, unknown) = crate::trace::sizes::collective_sizes(&self.types, op, rec);
        if unknown {
            self.out.notes.unsized_messages += 1;
        }
        sizes
    }

    fn error(&self, rec: &Record, message: String) -> TrafficError {
        TrafficError::Input(LocatedError::at_byte(
            self.path,
            rec.offset,
            format!("{}: {message}", rec.name()),
        ))
    }
}

impl Tally {
    /// Adds one message of `bytes`, recorded at byte `at`, to the tally of `key`.
    fn add_to<K: std::hash::Hash + Eq>(
        tallies: &mut FxHashMap<K, Tally>,
        key: K,
        bytes: u64,
        at: u64,
    ) {
        let t = tallies.entry(key).or_insert(Tally {
            bytes: 0,
            messages: 0,
            at,
        });
        t.bytes = t.bytes.saturating_add(bytes);
        t.messages += 1;
    }
}
