//! One decoded call: its label, thread, CPU and wall times, performance counters and
//! arguments, held in flat buffers that the decoder reuses from record to record.

use super::layout::{layout, CallLayout, Kind};

/// A time stamp as the trace stores it: seconds (bias added back) and nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock {
    /// Seconds.
    pub sec: i32,
    /// Nanoseconds.
    pub nsec: i32,
}

impl Clock {
    /// The time in nanoseconds.
    pub fn nanos(self) -> i64 {
        i64::from(self.sec) * 1_000_000_000 + i64::from(self.nsec)
    }
}

/// When a call started and returned on one clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Interval {
    /// Entry.
    pub start: Clock,
    /// Return.
    pub stop: Clock,
}

impl Interval {
    /// Nanoseconds between entry and return.
    pub fn nanos(self) -> i64 {
        self.stop.nanos() - self.start.nanos()
    }
}

/// One `MPI_Status` as recorded (libdumpi may record uninitialised fields: never use
/// `bytes` as a message size).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    /// Bytes received, as recorded.
    pub bytes: i32,
    /// Source rank.
    pub source: i32,
    /// Tag (-1 before format 0.6.3, which did not record it).
    pub tag: i32,
    /// Cancelled flag.
    pub cancelled: i8,
    /// Error code.
    pub error: i8,
}

/// One argument's decoded value: a scalar, or for arrays and strings their stored count
/// and where their elements are in the record's buffers.
///
/// Sixteen bytes with no padding and no invalid bit patterns: the decoder returns one
/// per argument, and a `bool` field made the compiler copy the padding after it in
/// overlapping pieces, which stalled every argument on store forwarding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Value {
    /// The scalar value (sign-extended as libdumpi keeps it), or an array's count.
    pub scalar: i64,
    start: u32,
    /// The elements' count, with [`STORED`] set when the argument was stored.
    len_stored: u32,
}

/// The bit of [`Value::len_stored`] that says the argument was stored.
const STORED: u32 = 1 << 31;

impl Value {
    /// A stored scalar.
    pub(crate) fn of(scalar: i64) -> Self {
        Value {
            scalar,
            start: 0,
            len_stored: STORED,
        }
    }

    /// An array or string: its count, whether it was stored, and its `len` (below
    /// 2³¹: counts are 32-bit signed in the files) elements from `start` in the record's
    /// buffer.
    pub(crate) fn elements(scalar: i64, stored: bool, start: u32, len: u32) -> Self {
        debug_assert!(len < STORED, "{len} elements");
        Value {
            scalar,
            start,
            len_stored: (len & !STORED) | if stored { STORED } else { 0 },
        }
    }

    /// False when the argument was not stored (a root-only argument elsewhere, statuses
    /// not recorded, an empty integer array).
    pub fn present(self) -> bool {
        self.len_stored & STORED != 0
    }

    /// Where its elements start in the record's buffer.
    pub(crate) fn start(self) -> u32 {
        self.start
    }

    /// How many elements it has in the record's buffer.
    pub(crate) fn len(self) -> u32 {
        self.len_stored & !STORED
    }

    pub(crate) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len()) as usize
    }
}

/// One decoded call. The buffers are reused by the decoder: read what you need before
/// asking for the next record.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// The function label (an index into [`super::layout::CALLS`]).
    pub label: u16,
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// Thread index.
    pub thread: u16,
    /// CPU time (zero when not recorded).
    pub cpu: Interval,
    /// Wall-clock time (zero when not recorded).
    pub wall: Interval,
    /// Performance counters at entry and return, one pair per label of the file.
    pub perf: Vec<(i64, i64)>,
    pub(crate) values: Vec<Value>,
    pub(crate) ints: Vec<i64>,
    pub(crate) bytes: Vec<u8>,
    pub(crate) spans: Vec<(u32, u32)>,
    pub(crate) statuses: Vec<Status>,
}

impl Record {
    /// The call's layout.
    pub fn layout(&self) -> &'static CallLayout {
        layout(self.label).expect("the decoder yields known labels only")
    }

    /// The call's name (`MPI_Send`).
    pub fn name(&self) -> &'static str {
        self.layout().name
    }

    /// Argument `i` (stored order, see [`CallLayout::index_of`]).
    pub fn value(&self, i: usize) -> Value {
        self.values[i]
    }

    /// The scalar of argument `i`: its value, or an array's count; 0 when not stored.
    pub fn int(&self, i: usize) -> i64 {
        self.values[i].scalar
    }

    /// The scalar of the argument called `name`, if the call has one.
    pub fn int_named(&self, name: &str) -> Option<i64> {
        self.layout().index_of(name).map(|i| self.int(i))
    }

    /// The elements of an integer-like array argument (ints, requests, datatypes,
    /// infos, distributions), when stored.
    pub fn ints(&self, i: usize) -> Option<&[i64]> {
        let v = self.values[i];
        v.present().then(|| &self.ints[v.range()])
    }

    /// The bytes of a string argument, when stored.
    pub fn text(&self, i: usize) -> Option<&[u8]> {
        let v = self.values[i];
        v.present().then(|| &self.bytes[v.range()])
    }

    /// The strings of a string-array argument, when stored.
    pub fn texts(&self, i: usize) -> Option<impl Iterator<Item = &[u8]> + '_> {
        let v = self.values[i];
        v.present().then(|| {
            self.spans[v.range()]
                .iter()
                .map(|&(s, l)| self.span_bytes(s, l))
        })
    }

    /// The arrays of an array-of-arrays argument ([`Kind::TextLists`],
    /// [`Kind::Ranges`]): for each, the range of its items among [`Record::span`]s.
    pub(crate) fn lists(&self, i: usize) -> Option<&[(u32, u32)]> {
        let v = self.values[i];
        v.present().then(|| &self.spans[v.range()])
    }

    /// Span `k` of the record.
    pub(crate) fn span(&self, k: usize) -> (u32, u32) {
        self.spans[k]
    }

    pub(crate) fn span_bytes(&self, start: u32, len: u32) -> &[u8] {
        &self.bytes[start as usize..(start + len) as usize]
    }

    pub(crate) fn span_ints(&self, start: u32, len: u32) -> &[i64] {
        &self.ints[start as usize..(start + len) as usize]
    }

    /// The statuses of a status argument, when stored.
    pub fn statuses(&self, i: usize) -> Option<&[Status]> {
        let v = self.values[i];
        v.present().then(|| &self.statuses[v.range()])
    }

    /// The inner rank arrays of a [`Kind::Ranges`] argument, when stored.
    pub fn ranges(&self, i: usize) -> Option<impl Iterator<Item = &[i64]> + '_> {
        debug_assert_eq!(self.layout().args[i].kind, Kind::Ranges);
        self.lists(i)
            .map(|lists| lists.iter().map(|&(s, l)| self.span_ints(s, l)))
    }

    pub(crate) fn clear(&mut self) {
        self.perf.clear();
        self.values.clear();
        self.ints.clear();
        self.bytes.clear();
        self.spans.clear();
        self.statuses.clear();
    }
}
