//! The text `dumpi2ascii -H -S -F -X` prints for one rank file, byte for byte: the
//! header (start time in UTC), every call with its arguments, the footer's call counts
//! and the datatype sizes. Quirks of that text are kept on purpose (a request array
//! of count 0 is `<IGNORED>`, rank triples end without a newline, a string never
//! stored prints as `(null)`), so that the output can be compared with the reference
//! tool's.

use super::file::{Footer, Header, RankFile, FOOTER_COUNTS};
use super::layout::{Arg, Kind, CALLS};
use super::record::{Clock, Record, Status};
use super::DumpiError;
use std::io::{self, Write};

/// Why a dump stopped: the trace is bad, or the output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The trace could not be decoded.
    #[error(transparent)]
    Trace(#[from] DumpiError),
    /// Writing the text failed.
    #[error("cannot write the dump")]
    Write(#[source] io::Error),
}

/// Writes the whole dump of `file` (header, calls, footer, datatype sizes) to `out`.
pub fn dump_rank(file: &RankFile, out: &mut impl Write) -> Result<(), DumpError> {
    write_header(out, &file.header).map_err(DumpError::Write)?;
    let mut stream = file.stream()?;
    let mut rec = Record::default();
    while stream.next_into(&mut rec)? {
        write_record(out, &rec, file).map_err(DumpError::Write)?;
    }
    write_footer(out, file.footer.as_ref()).map_err(DumpError::Write)?;
    write_sizes(out, file.sizes.as_deref().unwrap_or_default()).map_err(DumpError::Write)
}

/// The header lines.
pub fn write_header(out: &mut impl Write, h: &Header) -> io::Result<()> {
    let v = h.version.map(|b| b as i8);
    writeln!(out, "version={}.{}.{}", v[0], v[1], v[2])?;
    out.write_all(b"starttime=")?;
    out.write_all(ctime_utc(h.start_time as i64).as_bytes())?;
    out.write_all(b"hostname=")?;
    out.write_all(c_string(&h.hostname))?;
    out.write_all(b"\nusername=")?;
    out.write_all(c_string(&h.username))?;
    writeln!(out, "\nmeshdim={}", h.meshdim)?;
    let dims = h.meshdim.max(0) as usize;
    write_list(out, "meshsize=[", h.mesh_size.iter().take(dims), "]\n")?;
    write_list(out, "meshcrd=[", h.mesh_coords.iter().take(dims), "]\n")
}

/// The footer lines: one per label up to `MPI_ALL_FUNCTIONS` (zeros without a footer).
pub fn write_footer(out: &mut impl Write, footer: Option<&Footer>) -> io::Result<()> {
    for (label, call) in CALLS.iter().enumerate().take(FOOTER_COUNTS) {
        let (calls, ignored) = footer.map_or((0, 0), |f| (f.calls[label], f.ignored[label]));
        writeln!(
            out,
            "{} called {} times and ignored {} times",
            call.name, calls as i32, ignored as i32
        )?;
    }
    Ok(())
}

/// The datatype-size lines.
pub fn write_sizes(out: &mut impl Write, sizes: &[i32]) -> io::Result<()> {
    for (id, size) in sizes.iter().enumerate() {
        writeln!(
            out,
            "Datatype {id} ({}) has size {size}",
            datatype_name(id as i64)
        )?;
    }
    Ok(())
}

/// One call: the entering line, its arguments, the returning line.
pub fn write_record(out: &mut impl Write, rec: &Record, file: &RankFile) -> io::Result<()> {
    let call = rec.layout();
    write_moment(
        out,
        call.name,
        "entering",
        rec.wall.start,
        rec.cpu.start,
        rec.thread,
    )?;
    write_perf(out, rec, file, |p| p.0)?;
    for i in call.print_order() {
        write_arg(out, rec, i, &call.args[i], file)?;
    }
    write_moment(
        out,
        call.name,
        "returning",
        rec.wall.stop,
        rec.cpu.stop,
        rec.thread,
    )?;
    write_perf(out, rec, file, |p| p.1)
}

fn write_moment(
    out: &mut impl Write,
    name: &str,
    what: &str,
    wall: Clock,
    cpu: Clock,
    thread: u16,
) -> io::Result<()> {
    writeln!(
        out,
        "{name} {what} at walltime {}.{:09}, cputime {}.{:09} seconds in thread {thread}.",
        wall.sec, wall.nsec, cpu.sec, cpu.nsec
    )
}

fn write_perf(
    out: &mut impl Write,
    rec: &Record,
    file: &RankFile,
    pick: impl Fn(&(i64, i64)) -> i64,
) -> io::Result<()> {
    if rec.perf.is_empty() {
        return Ok(());
    }
    out.write_all(b"Perfcounters: [")?;
    for (k, pair) in rec.perf.iter().enumerate() {
        if k > 0 {
            out.write_all(b", ")?;
        }
        out.write_all(c_string(&file.perf_labels[k]))?;
        write!(out, "={}", pick(pair))?;
    }
    out.write_all(b"]\n")
}

/// The C string a byte buffer makes: up to its first NUL.
fn c_string(bytes: &[u8]) -> &[u8] {
    bytes
        .iter()
        .position(|&b| b == 0)
        .map_or(bytes, |n| &bytes[..n])
}

fn write_list<T: std::fmt::Display>(
    out: &mut impl Write,
    open: &str,
    items: impl Iterator<Item = T>,
    close: &str,
) -> io::Result<()> {
    out.write_all(open.as_bytes())?;
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.write_all(b", ")?;
        }
        write!(out, "{item}")?;
    }
    out.write_all(close.as_bytes())
}

/// The length argument `arg` prints with (its own count when it names none).
fn print_len(rec: &Record, i: usize, arg: &Arg) -> i64 {
    arg.len_arg().map_or(rec.int(i), |l| rec.int(l))
}

fn write_arg(
    out: &mut impl Write,
    rec: &Record,
    i: usize,
    arg: &Arg,
    file: &RankFile,
) -> io::Result<()> {
    let name = arg.name;
    let v = rec.int(i);
    match arg.kind {
        Kind::Int | Kind::Argc => writeln!(out, "int {name}={v}"),
        Kind::Dest => annotated_int(out, name, v, &[(-2, "MPI_ROOT")]),
        Kind::Source => annotated_int(out, name, v, &[(-1, "MPI_ANY_SOURCE"), (-2, "MPI_ROOT")]),
        Kind::Tag => annotated_int(out, name, v, &[(-1, "MPI_ANY_TAG")]),
        Kind::Int64 => writeln!(out, "int64_t {name}={v}"),
        Kind::Function => {
            let label = file.addresses.iter().find(|(a, _)| *a as i64 == v);
            write!(out, "int {name}={v} (\"")?;
            out.write_all(label.map_or(&b"(null)"[..], |(_, l)| c_string(l)))?;
            out.write_all(b"\")\n")
        }
        Kind::Comm => writeln!(out, "MPI_Comm {name}={v} ({})", comm_name(v)),
        Kind::Datatype => writeln!(out, "MPI_Datatype {name}={v} ({})", datatype_name(v)),
        Kind::Group => writeln!(out, "MPI_Group {name}={v} ({})", group_name(v)),
        Kind::Info => writeln!(
            out,
            "MPI_Info {name}={v} ({})",
            if v >= 1 { "user-info" } else { "MPI_INFO_NULL" }
        ),
        Kind::File => writeln!(
            out,
            "MPI_File {name}={v} ({})",
            if v != 0 {
                "user-file"
            } else {
                "DUMPI_FILE_NULL"
            }
        ),
        Kind::Op => writeln!(out, "MPI_Op {name}={v} ({})", op_name(v)),
        Kind::Win => named_int(
            out,
            name,
            v,
            if v != 0 {
                "user-defined-win"
            } else {
                "DUMPI_WIN_NULL"
            },
        ),
        Kind::Errhandler => named_int(out, name, v, errhandler_name(v)),
        Kind::Keyval => named_int(out, name, v, keyval_name(v)),
        Kind::Combiner => named_int(out, name, v, combiner_name(v)),
        Kind::Comparison => named_int(out, name, v, comparison_name(v)),
        Kind::Filemode => named_int(out, name, v, filemode_name(v)),
        Kind::Locktype => named_int(
            out,
            name,
            v,
            pick(
                v,
                &[
                    "DUMPI_LOCKTYPE_ERROR",
                    "MPI_LOCK_SHARED",
                    "MPI_LOCK_EXCLUSIVE",
                ],
            ),
        ),
        Kind::Ordering => named_int(
            out,
            name,
            v,
            pick(
                v,
                &["DUMPI_ORDERING_ERROR", "MPI_ORDER_C", "MPI_ORDER_FORTRAN"],
            ),
        ),
        Kind::Threadlevel => named_int(out, name, v, threadlevel_name(v)),
        Kind::Topology => named_int(
            out,
            name,
            v,
            pick(
                v,
                &[
                    "DUMPI_TOPOLOGY_ERROR",
                    "MPI_GRAPH",
                    "MPI_CART",
                    "MPI_UNDEFINED",
                ],
            ),
        ),
        Kind::Typeclass => named_int(out, name, v, typeclass_name(v)),
        Kind::Whence => named_int(
            out,
            name,
            v,
            pick(
                v,
                &[
                    "DUMPI_WHENCE_ERROR",
                    "MPI_SEEK_SET",
                    "MPI_SEEK_CUR",
                    "MPI_SEEK_END",
                ],
            ),
        ),
        Kind::WinAssert => {
            write!(out, "int {name}={v} (")?;
            write_win_assert(out, v)?;
            out.write_all(b")\n")
        }
        Kind::Request => writeln!(out, "MPI_Request {name}=[{v}]"),
        Kind::IoRequest => writeln!(out, "MPIO_Request {name}=[{v}]"),
        Kind::Status => {
            write!(out, "MPI_Status {name}=")?;
            write_statuses(out, rec.statuses(i), 1)
        }
        Kind::Statuses => {
            let len = print_len(rec, i, arg);
            write!(out, "MPI_Status {name}[{len}]=")?;
            write_statuses(out, rec.statuses(i), len)
        }
        Kind::Text => {
            write!(out, "string {name}=\"")?;
            out.write_all(rec.text(i).map_or(&b"(null)"[..], c_string))?;
            out.write_all(b"\"\n")
        }
        Kind::Texts | Kind::Argv => write_texts(out, rec, i, name, print_len(rec, i, arg)),
        Kind::TextsUntilNull => write_texts(out, rec, i, name, -2),
        Kind::TextLists => write_text_lists(out, rec, i, name, print_len(rec, i, arg)),
        Kind::Ints | Kind::IntsSince068 | Kind::IntsSince069 => {
            let len = print_len(rec, i, arg);
            write!(out, "int {name}[{len}]=")?;
            match rec.ints(i) {
                Some(items) if len >= 1 => {
                    write_list(out, "[", items.iter().take(len as usize), "]\n")
                }
                _ => out.write_all(b"<IGNORED>\n"),
            }
        }
        Kind::Requests | Kind::IoRequests => {
            let len = print_len(rec, i, arg);
            let ty = if arg.kind == Kind::Requests {
                "MPI_Request"
            } else {
                "MPIO_Request"
            };
            write!(out, "{ty} {name}[{len}]=")?;
            match rec.ints(i) {
                Some(items) if len >= 0 => {
                    write_list(out, "[", items.iter().take(len as usize), "]\n")
                }
                _ => out.write_all(b"<IGNORED>\n"),
            }
        }
        Kind::Datatypes | Kind::Infos | Kind::Distributions => {
            let len = print_len(rec, i, arg);
            let ty = match arg.kind {
                Kind::Datatypes => "MPI_Datatype",
                Kind::Infos => "MPI_Info",
                _ => "int",
            };
            write!(out, "{ty} {name}[{len}]=")?;
            let items = rec.ints(i).unwrap_or_default();
            write_list(out, "[", items.iter().take(len.max(0) as usize), "]\n")
        }
        Kind::Ranges => write_ranges(out, rec, i, name, print_len(rec, i, arg)),
    }
}

fn annotated_int(
    out: &mut impl Write,
    name: &str,
    v: i64,
    notes: &[(i64, &str)],
) -> io::Result<()> {
    match notes.iter().find(|(value, _)| *value == v) {
        Some((_, note)) => writeln!(out, "int {name}={v} ({note})"),
        None => writeln!(out, "int {name}={v}"),
    }
}

fn named_int(out: &mut impl Write, name: &str, v: i64, label: &str) -> io::Result<()> {
    writeln!(out, "int {name}={v} ({label})")
}

fn write_statuses(out: &mut impl Write, statuses: Option<&[Status]>, count: i64) -> io::Result<()> {
    match statuses {
        Some(all) if count >= 1 => {
            out.write_all(b"[")?;
            for (k, s) in all.iter().take(count as usize).enumerate() {
                if k > 0 {
                    out.write_all(b", ")?;
                }
                write!(
                    out,
                    "{{bytes={}, cancelled={}, source={}, tag={}, error={}}}",
                    s.bytes, s.cancelled, s.source, s.tag, s.error
                )?;
            }
            out.write_all(b"]\n")
        }
        _ => out.write_all(b"<IGNORED>\n"),
    }
}

/// A string array; a negative length (a NULL-terminated list) prints the strings
/// without separators, as the reference tool does.
fn write_texts(
    out: &mut impl Write,
    rec: &Record,
    i: usize,
    name: &str,
    len: i64,
) -> io::Result<()> {
    write!(out, "string {name}[{len}]=")?;
    let Some(strings) = rec.texts(i).filter(|_| len != 0) else {
        return out.write_all(b"<IGNORED>\n");
    };
    out.write_all(b"[")?;
    let take = if len > 0 { len as usize } else { usize::MAX };
    for (k, s) in strings.take(take).enumerate() {
        if k > 0 && len > 0 {
            out.write_all(b", ")?;
        }
        out.write_all(b"\"")?;
        out.write_all(c_string(s))?;
        out.write_all(b"\"")?;
    }
    out.write_all(b"]\n")
}

fn write_text_lists(
    out: &mut impl Write,
    rec: &Record,
    i: usize,
    name: &str,
    len: i64,
) -> io::Result<()> {
    write!(out, "string {name}[{len}][-2]=")?;
    let Some(lists) = rec.lists(i).filter(|_| len != 0) else {
        return out.write_all(b"<IGNORED>\n");
    };
    out.write_all(b"[")?;
    let take = if len > 0 { len as usize } else { usize::MAX };
    for (k, &(start, n)) in lists.iter().take(take).enumerate() {
        if k > 0 && len > 0 {
            out.write_all(b", ")?;
        }
        out.write_all(b"[")?;
        for s in start..start + n {
            let (b, l) = rec.span(s as usize);
            out.write_all(b"\"")?;
            out.write_all(c_string(rec.span_bytes(b, l)))?;
            out.write_all(b"\"")?;
        }
        out.write_all(b"]")?;
    }
    out.write_all(b"]\n")
}

/// Rank triples: one bracketed line each, and no newline after the closing bracket.
fn write_ranges(
    out: &mut impl Write,
    rec: &Record,
    i: usize,
    name: &str,
    len: i64,
) -> io::Result<()> {
    write!(out, "int {name}[{len}][3]=")?;
    let Some(lists) = rec.lists(i).filter(|_| len >= 1) else {
        return out.write_all(b"<IGNORED>\n");
    };
    out.write_all(b"[")?;
    for (k, &(start, n)) in lists.iter().take(len as usize).enumerate() {
        if k > 0 {
            out.write_all(b", ")?;
        }
        write_list(out, "[", rec.span_ints(start, n).iter().take(3), "]\n")?;
    }
    out.write_all(b"]")
}

fn pick(v: i64, names: &[&'static str]) -> &'static str {
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or(names[0], |n| n)
}

/// Names of the predefined datatypes, by DUMPI id.
const DATATYPES: [&str; 28] = [
    "MPI_DATATYPE_ERROR",
    "MPI_DATATYPE_NULL",
    "MPI_CHAR",
    "MPI_SIGNED_CHAR",
    "MPI_UNSIGNED_CHAR",
    "MPI_BYTE",
    "MPI_WCHAR",
    "MPI_SHORT",
    "MPI_UNSIGNED_SHORT",
    "MPI_INT",
    "MPI_UNSIGNED",
    "MPI_LONG",
    "MPI_UNSIGNED_LONG",
    "MPI_FLOAT",
    "MPI_DOUBLE",
    "MPI_LONG_DOUBLE",
    "MPI_LONG_LONG_INT",
    "MPI_UNSIGNED_LONG_LONG",
    "MPI_LONG_LONG",
    "MPI_PACKED",
    "MPI_LB",
    "MPI_UB",
    "MPI_FLOAT_INT",
    "MPI_DOUBLE_INT",
    "MPI_LONG_INT",
    "MPI_SHORT_INT",
    "MPI_2INT",
    "MPI_LONG_DOUBLE_INT",
];

/// The name `dumpi2ascii` gives datatype id `v`.
pub fn datatype_name(v: i64) -> &'static str {
    usize::try_from(v)
        .ok()
        .and_then(|k| DATATYPES.get(k))
        .map_or("user-defined-datatype", |n| n)
}

fn comm_name(v: i64) -> &'static str {
    let names = [
        "MPI_COMM_ERROR",
        "MPI_COMM_NULL",
        "MPI_COMM_WORLD",
        "MPI_COMM_SELF",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("user-defined-comm", |n| n)
}

fn group_name(v: i64) -> &'static str {
    let names = ["MPI_GROUP_ERROR", "MPI_GROUP_NULL", "MPI_GROUP_EMPTY"];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("user-defined-group", |n| n)
}

fn op_name(v: i64) -> &'static str {
    let names = [
        "MPI_OP_ERROR",
        "MPI_MAX",
        "MPI_MIN",
        "MPI_SUM",
        "MPI_PROD",
        "MPI_LAND",
        "MPI_BAND",
        "MPI_LOR",
        "MPI_BOR",
        "MPI_LXOR",
        "MPI_BXOR",
        "MPI_MINLOC",
        "MPI_MAXLOC",
        "MPI_REPLACE",
        "MPI_OP_NULL",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("user-defined-op", |n| n)
}

fn errhandler_name(v: i64) -> &'static str {
    match v {
        2.. => "user-defined-errhandler",
        1 => "MPI_ERRHANDLER_NULL",
        _ => "DUMPI_ERRHANDLER_ERROR",
    }
}

fn keyval_name(v: i64) -> &'static str {
    let names = [
        "MPI_TAG_UB",
        "MPI_HOST",
        "MPI_IO",
        "MPI_WTIME_IS_GLOBAL",
        "MPI_UNIVERSE_SIZE",
        "MPI_LASTUSEDCODE",
        "MPI_APPNUM",
        "MPI_WIN_BASE",
        "MPI_WIN_SIZE",
        "MPI_WIN_DISP_UNIT",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("user-defined-keyval", |n| n)
}

fn combiner_name(v: i64) -> &'static str {
    let names = [
        "MPI_COMBINER_ERROR",
        "MPI_COMBINER_NAMED",
        "MPI_COMBINER_DUP",
        "MPI_COMBINER_CONTIGUOUS",
        "MPI_COMBINER_VECTOR",
        "MPI_COMBINER_HVECTOR_INTEGER",
        "MPI_COMBINER_HVECTOR",
        "MPI_COMBINER_INDEXED",
        "MPI_COMBINER_HINDEXED_INTEGER",
        "MPI_COMBINER_HINDEXED",
        "MPI_COMBINER_INDEXED_BLOCK",
        "MPI_COMBINER_STRUCT_INTEGER",
        "MPI_COMBINER_STRUCT",
        "MPI_COMBINER_SUBARRAY",
        "MPI_COMBINER_DARRAY",
        "MPI_COMBINER_F90_REAL",
        "MPI_COMBINER_F90_COMPLEX",
        "MPI_COMBINER_F90_INTEGER",
        "MPI_COMBINER_RESIZED",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("DUMPI_COMBINER_ERROR", |n| n)
}

fn comparison_name(v: i64) -> &'static str {
    let names = [
        "MPI_COMPARISON_ERROR",
        "MPI_IDENT",
        "MPI_CONGRUENT",
        "MPI_SIMILAR",
        "MPI_UNEQUAL",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|k| names.get(k))
        .map_or("undefined-comparison", |n| n)
}

fn filemode_name(v: i64) -> &'static str {
    pick(
        v,
        &[
            "DUMPI_FILEMODE_ERROR",
            "MPI_MODE_RDONLY",
            "MPI_MODE_RDWR",
            "MPI_MODE_WRONLY",
            "MPI_MODE_CREATE",
            "MPI_MODE_EXCL",
            "MPI_MODE_DELETE_ON_CLOSE",
            "MPI_MODE_UNIQUE_OPEN",
            "MPI_MODE_SEQUENTIAL",
            "MPI_MODE_APPEND",
        ],
    )
}

fn threadlevel_name(v: i64) -> &'static str {
    pick(
        v,
        &[
            "DUMPI_THREADLEVEL_ERROR",
            "MPI_THREAD_SINGLE",
            "MPI_THREAD_FUNNELED",
            "MPI_THREAD_SERIALIZED",
            "MPI_THREAD_MULTIPLE",
        ],
    )
}

fn typeclass_name(v: i64) -> &'static str {
    pick(
        v,
        &[
            "DUMPI_TYPECLASS_ERROR",
            "MPI_TYPECLASS_REAL",
            "MPI_TYPECLASS_INTEGER",
            "MPI_TYPECLASS_COMPLEX",
        ],
    )
}

/// A window assertion: `DUMPI_MODE_NONE`, or its `MPI_MODE_*` bits joined by `|`.
fn write_win_assert(out: &mut impl Write, v: i64) -> io::Result<()> {
    const BITS: [&str; 5] = [
        "MPI_MODE_NOCHECK",
        "MPI_MODE_NOSTORE",
        "MPI_MODE_NOPUT",
        "MPI_MODE_NOPRECEDE",
        "MPI_MODE_NOSUCCEED",
    ];
    match v {
        0 => out.write_all(b"DUMPI_MODE_NONE"),
        1..=31 => {
            let set: Vec<&str> = (BITS.iter().enumerate())
                .filter(|(bit, _)| v & (1 << bit) != 0)
                .map(|(_, n)| *n)
                .collect();
            out.write_all(set.join("|").as_bytes())
        }
        _ => out.write_all(b"DUMPI_MODE_ERROR"),
    }
}

/// `ctime(3)` of `t` in UTC: `Thu Jan  1 00:00:00 1970\n`.
pub fn ctime_utc(t: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    // glibc gives up (and ctime returns NULL, printed as "(null)") when the year
    // does not fit its int.
    if year - 1900 > i64::from(i32::MAX) || year - 1900 < i64::from(i32::MIN) {
        return "(null)".to_string();
    }
    let weekday = (days + 4).rem_euclid(7) as usize;
    format!(
        "{} {}{:3} {:02}:{:02}:{:02} {}\n",
        DAYS[weekday],
        MONTHS[month as usize - 1],
        day,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        year
    )
}

/// The proleptic Gregorian (year, month 1–12, day 1–31) of a day count from 1970-01-01
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_matches_the_c_library_in_utc() {
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970\n");
        assert_eq!(ctime_utc(1_296_777_956), "Fri Feb  4 00:05:56 2011\n");
        assert_eq!(ctime_utc(1_558_551_283), "Wed May 22 18:54:43 2019\n");
        assert_eq!(ctime_utc(-1), "Wed Dec 31 23:59:59 1969\n");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000\n");
    }

    #[test]
    fn window_assertions_join_their_bits() {
        let text = |v| {
            let mut out = Vec::new();
            write_win_assert(&mut out, v).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(text(0), "DUMPI_MODE_NONE");
        assert_eq!(text(5), "MPI_MODE_NOCHECK|MPI_MODE_NOPUT");
        assert_eq!(text(31).matches('|').count(), 4);
        assert_eq!(text(32), "DUMPI_MODE_ERROR");
    }
}
