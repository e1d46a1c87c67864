//! The call stream of one rank: records decoded one at a time from a buffered reader,
//! each by interpreting its call's entry of the layout table ([`super::layout`]), into
//! a [`Record`] whose buffers are reused, so that memory stays bounded whatever the
//! trace's size.

use super::bytes::{Bytes, Short};
use super::file::{short, short_lazy, RankFile};
use super::layout::{layout, Arg, CallLayout, Kind, ALL_FUNCTIONS, END_OF_STREAM};
use super::record::{Clock, Interval, Record, Status, Value};
use super::DumpiError;
use crate::error::LocatedError;
use std::io::Read;

/// Record mask bits.
const STATUSES: u8 = 0x03;
const CPU_TIME: u8 = 0x04;
const WALL_TIME: u8 = 0x08;
const THREAD: u8 = 0x40;
const PERF: u8 = 0x80;

/// The label of `MPI_Send`, which after `MPI_Finalize` ended the stream of old files.
const SEND: u16 = 0;
/// The label of `MPI_Finalize`.
const FINALIZE: u16 = 125;
/// The label of `MPI_Pcontrol`, never written as a record.
const PCONTROL: u16 = 128;
/// Legacy arrays of a single element are padded to their length up to this many.
const LEGACY_PAD: i64 = 1 << 12;

/// The decoder of one rank's call stream.
pub struct Stream<'f> {
    file: &'f RankFile,
    bytes: Bytes<Box<dyn Read + Send>>,
    cpu_bias: i32,
    wall_bias: i32,
    /// The stream ends at the first section after it.
    limit: u64,
    finalized: bool,
    done: bool,
    has_tags: bool,
}

impl RankFile {
    /// The decoder of this file's call stream.
    pub fn stream(&self) -> Result<Stream<'_>, DumpiError> {
        let mut bytes = self.reader_at(self.index.body)?;
        let biases = short(
            &self.name,
            "the time biases at the start of the call stream",
        );
        let cpu_bias = bytes.u32().map_err(&biases)? as i32;
        let wall_bias = bytes.u32().map_err(&biases)? as i32;
        let ix = self.index;
        let limit = [
            ix.header,
            ix.footer,
            ix.keyvals,
            ix.perf_labels,
            ix.addresses,
            ix.sizes,
        ]
        .into_iter()
        .filter(|&o| o > ix.body)
        .min()
        .unwrap_or(self.len - ix.size);
        Ok(Stream {
            file: self,
            bytes,
            cpu_bias,
            wall_bias,
            limit,
            finalized: false,
            done: false,
            has_tags: self.header.has_version(0, 6, 3),
        })
    }
}

impl Stream<'_> {
    /// Decodes the next call into `rec`; false at the end of the stream.
    pub fn next_into(&mut self, rec: &mut Record) -> Result<bool, DumpiError> {
        if self.done {
            return Ok(false);
        }
        let at = self.bytes.offset();
        if at >= self.limit {
            self.done = true;
            return Ok(false);
        }
        let label = self.bytes.u16().map_err(self.short("a function label"))?;
        if label == END_OF_STREAM {
            self.done = true;
            return Ok(false);
        }
        let call = self.call(label, at)?;
        rec.clear();
        rec.label = label;
        rec.offset = at;
        let mask = self.prefix(rec, call)?;
        self.arguments(rec, call, mask)?;
        // Files from before function profiling ended the stream with an MPI_Send
        // record after MPI_Finalize.
        if self.finalized && label == SEND {
            self.done = true;
        }
        self.finalized |= label == FINALIZE;
        Ok(true)
    }

    fn short<'a>(&'a self, what: &'a str) -> impl Fn(Short) -> DumpiError + 'a {
        short_lazy(&self.file.name, move || what.to_string())
    }

    /// The layout of `label`, or the error for a label no record can have.
    fn call(&self, label: u16, at: u64) -> Result<&'static CallLayout, DumpiError> {
        let why = match layout(label) {
            Some(call) if call.recorded => return Ok(call),
            Some(_) if label == PCONTROL => "MPI_Pcontrol is never recorded as a call".to_string(),
            Some(_) if label == ALL_FUNCTIONS => {
                "MPI_ALL_FUNCTIONS is a footer total, not a call".to_string()
            }
            _ => format!("unknown function label {label}"),
        };
        Err(LocatedError::at_byte(
            &self.file.name,
            at,
            format!(
                "{why} (expected a call label 0 to {} or the end-of-stream mark {END_OF_STREAM})",
                END_OF_STREAM - 1
            ),
        )
        .into())
    }

    /// The mask, thread, times and performance counters; returns the mask.
    fn prefix(&mut self, rec: &mut Record, call: &CallLayout) -> Result<u8, DumpiError> {
        let err = short_lazy(&self.file.name, || {
            format!("the {} record's header", call.name)
        });
        let b = &mut self.bytes;
        let mask = b.u8().map_err(&err)?;
        if mask & THREAD != 0 {
            rec.thread = b.u16().map_err(&err)?;
        } else {
            rec.thread = 0;
        }
        rec.cpu = Interval::default();
        rec.wall = Interval::default();
        if mask & CPU_TIME != 0 {
            rec.cpu = interval(b, self.cpu_bias).map_err(&err)?;
        }
        if mask & WALL_TIME != 0 {
            rec.wall = interval(b, self.wall_bias).map_err(&err)?;
        }
        if mask & PERF != 0 {
            // The stored count is not what libdumpi's reader uses: it reads one pair per
            // label of the file's counter-label section.
            b.u8().map_err(&err)?;
            for _ in 0..self.file.perf_labels.len() {
                let pair = (b.u64().map_err(&err)? as i64, b.u64().map_err(&err)? as i64);
                rec.perf.push(pair);
            }
        }
        Ok(mask)
    }

    fn arguments(
        &mut self,
        rec: &mut Record,
        call: &CallLayout,
        mask: u8,
    ) -> Result<(), DumpiError> {
        for (i, arg) in call.args.iter().enumerate() {
            if let Some((rank, root)) = arg.root_condition() {
                if rec.values[rank].scalar != rec.values[root].scalar {
                    rec.values.push(Value::default());
                    continue;
                }
            }
            let value = self.argument(rec, call, arg, mask)?;
            rec.values.push(value);
            // As in libdumpi's reader, an array's stored count replaces the argument
            // that holds its length (statuses excepted, whose count is their own).
            if let Some(len) = arg.len_arg() {
                let sets = arg.kind.is_array() && !matches!(arg.kind, Kind::Statuses | Kind::Argv);
                if sets && len < i {
                    rec.values[len].scalar = value.scalar;
                }
            }
        }
        Ok(())
    }

    fn argument(
        &mut self,
        rec: &mut Record,
        call: &CallLayout,
        arg: &Arg,
        mask: u8,
    ) -> Result<Value, DumpiError> {
        let err = short_lazy(&self.file.name, || {
            format!("argument '{}' of {}", arg.name, call.name)
        });
        let b = &mut self.bytes;
        let scalar = Value::of;
        Ok(match arg.kind {
            Kind::Int | Kind::Dest | Kind::Source | Kind::Tag | Kind::Request | Kind::IoRequest => {
                scalar(i64::from(b.u32().map_err(&err)? as i32))
            }
            Kind::Argc => {
                let argc = b.u32().map_err(&err)? as i32;
                // Before 0.6.2 the count was written twice.
                if !self.file.header.has_version(0, 6, 2) {
                    b.u32().map_err(&err)?;
                }
                scalar(i64::from(argc))
            }
            Kind::Int64 | Kind::Function => scalar(b.u64().map_err(&err)? as i64),
            Kind::Comm
            | Kind::Datatype
            | Kind::Group
            | Kind::Info
            | Kind::File
            | Kind::Win
            | Kind::Errhandler
            | Kind::Keyval => scalar(i64::from(b.u16().map_err(&err)? as i16)),
            Kind::Comparison | Kind::Ordering => scalar(i64::from(b.u8().map_err(&err)? as i8)),
            Kind::Op
            | Kind::Combiner
            | Kind::Filemode
            | Kind::Locktype
            | Kind::Threadlevel
            | Kind::Topology
            | Kind::Typeclass
            | Kind::Whence
            | Kind::WinAssert => scalar(i64::from(b.u8().map_err(&err)?)),
            Kind::Status | Kind::Statuses => {
                if mask & STATUSES == 0 {
                    Value::default()
                } else {
                    statuses(b, rec, self.has_tags).map_err(&err)?
                }
            }
            Kind::Text => text(b, rec).map_err(&err)?,
            Kind::Texts | Kind::TextsUntilNull => {
                let count = b.u32().map_err(&err)? as i32;
                texts(b, rec, count).map_err(&err)?
            }
            Kind::Argv => {
                let len = arg.len_arg().expect("argv has its argc");
                let argc = rec.values[len].scalar;
                if argc <= 0 {
                    rec.values[len].scalar = 0;
                    Value::default()
                } else {
                    texts(b, rec, argc as i32).map_err(&err)?
                }
            }
            Kind::TextLists => text_lists(b, rec).map_err(&err)?,
            Kind::Ints | Kind::Requests | Kind::IoRequests => {
                let count = b.u32().map_err(&err)? as i32;
                let v = elements(rec, count, || Ok(i64::from(b.u32()? as i32))).map_err(&err)?;
                // An empty array is not stored.
                Value::elements(v.scalar, count > 0, v.start(), v.len())
            }
            Kind::IntsSince068 | Kind::IntsSince069 => {
                let since = if arg.kind == Kind::IntsSince068 { 8 } else { 9 };
                if self.file.header.has_version(0, 6, since) {
                    let count = b.u32().map_err(&err)? as i32;
                    let v =
                        elements(rec, count, || Ok(i64::from(b.u32()? as i32))).map_err(&err)?;
                    Value::elements(v.scalar, count > 0, v.start(), v.len())
                } else {
                    // Older files stored the first element only; the others read as 0.
                    let first = i64::from(b.u32().map_err(&err)? as i32);
                    let len = arg.len_arg().map_or(1, |l| rec.values[l].scalar);
                    let n = len.clamp(1, LEGACY_PAD);
                    let start = rec.ints.len() as u32;
                    rec.ints.push(first);
                    rec.ints.extend((1..n).map(|_| 0));
                    Value::elements(len, true, start, n as u32)
                }
            }
            Kind::Datatypes | Kind::Infos => {
                let count = b.u32().map_err(&err)? as i32;
                elements(rec, count, || Ok(i64::from(b.u16()? as i16))).map_err(&err)?
            }
            Kind::Distributions => {
                let count = b.u32().map_err(&err)? as i32;
                elements(rec, count, || Ok(i64::from(b.u8()?))).map_err(&err)?
            }
            Kind::Ranges => ranges(b, rec).map_err(&err)?,
        })
    }
}

fn clock(b: &mut Bytes<impl Read>, bias: i32) -> Result<Clock, Short> {
    let sec = i32::from(b.u16()?).wrapping_add(bias);
    let nsec = b.u32()? as i32;
    Ok(Clock { sec, nsec })
}

fn interval(b: &mut Bytes<impl Read>, bias: i32) -> Result<Interval, Short> {
    Ok(Interval {
        start: clock(b, bias)?,
        stop: clock(b, bias)?,
    })
}

/// `count` elements read by `next` into the record's integer buffer (none for a
/// negative count).
fn elements(
    rec: &mut Record,
    count: i32,
    mut next: impl FnMut() -> Result<i64, Short>,
) -> Result<Value, Short> {
    let start = rec.ints.len() as u32;
    for _ in 0..count.max(0) {
        let v = next()?;
        rec.ints.push(v);
    }
    Ok(Value::elements(
        i64::from(count),
        count >= 0,
        start,
        count.max(0) as u32,
    ))
}

/// A string: u32 length and bytes (empty for a length ≤ 0).
fn text(b: &mut Bytes<impl Read>, rec: &mut Record) -> Result<Value, Short> {
    let count = b.u32()? as i32;
    let start = rec.bytes.len() as u32;
    b.bytes_into(count.max(0) as usize, &mut rec.bytes)?;
    Ok(Value::elements(
        i64::from(count),
        true,
        start,
        count.max(0) as u32,
    ))
}

/// `count` strings, their spans pushed in order.
fn texts(b: &mut Bytes<impl Read>, rec: &mut Record, count: i32) -> Result<Value, Short> {
    // `text` touches the byte buffer only, so the spans stay contiguous.
    let start = rec.spans.len() as u32;
    for _ in 0..count.max(0) {
        let v = text(b, rec)?;
        rec.spans.push((v.start(), v.len()));
    }
    Ok(Value::elements(
        i64::from(count),
        count >= 0,
        start,
        rec.spans.len() as u32 - start,
    ))
}

/// A count, then per list a count and that many strings.
fn text_lists(b: &mut Bytes<impl Read>, rec: &mut Record) -> Result<Value, Short> {
    let count = b.u32()? as i32;
    let mut lists = Vec::new();
    for _ in 0..count.max(0) {
        let inner = b.u32()? as i32;
        let v = texts(b, rec, inner)?;
        lists.push((v.start(), v.len()));
    }
    let start = rec.spans.len() as u32;
    rec.spans.extend_from_slice(&lists);
    Ok(Value::elements(
        i64::from(count),
        count >= 0,
        start,
        lists.len() as u32,
    ))
}

/// A count, then that many integer arrays.
fn ranges(b: &mut Bytes<impl Read>, rec: &mut Record) -> Result<Value, Short> {
    let count = b.u32()? as i32;
    // `elements` touches the integer buffer only, so the spans stay contiguous.
    let start = rec.spans.len() as u32;
    for _ in 0..count.max(0) {
        let inner = b.u32()? as i32;
        let v = elements(rec, inner, || Ok(i64::from(b.u32()? as i32)))?;
        rec.spans.push((v.start(), v.len()));
    }
    Ok(Value::elements(
        i64::from(count),
        count >= 0,
        start,
        rec.spans.len() as u32 - start,
    ))
}

/// A status array: a count, then per status bytes, source, cancelled, error and (since
/// format 0.6.3) tag. A count ≤ 0 means the statuses were ignored.
fn statuses(b: &mut Bytes<impl Read>, rec: &mut Record, has_tags: bool) -> Result<Value, Short> {
    let count = b.u32()? as i32;
    let start = rec.statuses.len() as u32;
    for _ in 0..count.max(0) {
        let bytes = b.u32()? as i32;
        let source = b.u32()? as i32;
        let cancelled = b.u8()? as i8;
        let error = b.u8()? as i8;
        let tag = if has_tags { b.u32()? as i32 } else { -1 };
        rec.statuses.push(Status {
            bytes,
            source,
            tag,
            cancelled,
            error,
        });
    }
    Ok(Value::elements(
        i64::from(count),
        count > 0,
        start,
        count.max(0) as u32,
    ))
}
