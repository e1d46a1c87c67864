//! One rank's `.bin` file: the lead-in magic, the index at its end (every layout the
//! format has had), and the small sections it points to (header, footer counts,
//! keyvals, performance-counter labels, function addresses, datatype sizes). Plain and
//! gzip-compressed files read the same; the call stream itself is decoded by
//! [`super::stream`] without ever holding it whole.

use super::bytes::{Bytes, Short};
use super::layout::ALL_FUNCTIONS;
use super::DumpiError;
use crate::error::LocatedError;
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A seekable byte source that can move to a worker thread.
trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}

/// The 8 bytes at the start of every `.bin` file, and at the start of its index.
pub const HEAD_MAGIC: u64 = 0xffaa_dd44_554d_5049;
/// The first 8 bytes of the footer.
pub const FOOT_MAGIC: u64 = 0xf007_fee7;
/// The largest span of the small sections read into memory: far above any trace's,
/// far below what would hurt.
const MAX_METADATA: u64 = 64 << 20;
/// The footer's number of counts of each kind: labels 0 to `MPI_ALL_FUNCTIONS`.
pub const FOOTER_COUNTS: usize = ALL_FUNCTIONS as usize + 1;

/// The offsets of a file's sections (0: absent), as its index gives them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Index {
    /// The index's size in bytes: 64 (since format 0.6.6), 56 (no datatype sizes), 48
    /// (no function addresses either), 40 (the original: header, body, footer, keyval).
    pub size: u64,
    /// The datatype-size table.
    pub sizes: u64,
    /// The function-address labels.
    pub addresses: u64,
    /// The performance-counter labels.
    pub perf_labels: u64,
    /// The header.
    pub header: u64,
    /// The call stream.
    pub body: u64,
    /// The footer (call counts).
    pub footer: u64,
    /// The keyval record.
    pub keyvals: u64,
}

/// The header section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Format version (major, minor, sub) of the library that wrote the file.
    pub version: [u8; 3],
    /// Start of the run, in seconds since the Unix epoch.
    pub start_time: u64,
    /// Host name (raw bytes, as stored).
    pub hostname: Vec<u8>,
    /// User name (raw bytes, as stored).
    pub username: Vec<u8>,
    /// Number of mesh dimensions (machines with a mesh network, e.g. Blue Gene).
    pub meshdim: i32,
    /// This rank's mesh coordinates.
    pub mesh_coords: Vec<i32>,
    /// The mesh's size per dimension (since format 0.5).
    pub mesh_size: Vec<i32>,
}

impl Header {
    /// Whether the file's format is `major.minor.sub` or newer (the version bytes are
    /// compared as libdumpi does, as signed chars).
    pub fn has_version(&self, major: i8, minor: i8, sub: i8) -> bool {
        let v = self.version.map(|b| b as i8);
        (v[0], v[1], v[2]) >= (major, minor, sub)
    }
}

/// The footer: per function label, how often it was called and how often ignored
/// (profiling disabled for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footer {
    /// Calls per label 0 ..= `MPI_ALL_FUNCTIONS` (the last: the total).
    pub calls: Vec<u32>,
    /// Ignored calls per label.
    pub ignored: Vec<u32>,
}

/// One rank's file, its index and small sections read; [`RankFile::stream`] decodes its
/// calls.
#[derive(Debug)]
pub struct RankFile {
    /// The file as the user named it (messages use it).
    pub name: String,
    origin: Origin,
    gzip: bool,
    /// Size of the (uncompressed) content.
    pub len: u64,
    /// The section offsets.
    pub index: Index,
    /// The header (all zero when the file has none).
    pub header: Header,
    /// The footer, when the file has one.
    pub footer: Option<Footer>,
    /// The keyval record: (key, value) pairs.
    pub keyvals: Vec<(Vec<u8>, Vec<u8>)>,
    /// The names of the performance counters each record may carry.
    pub perf_labels: Vec<Vec<u8>>,
    /// Function addresses and their labels (`Function_enter`/`exit`, `MPI_Pcontrol`
    /// annotations).
    pub addresses: Vec<(u64, Vec<u8>)>,
    /// The size in bytes of every datatype id, when the file has the table.
    pub sizes: Option<Vec<i32>>,
}

/// Where a rank file's bytes are.
#[derive(Debug)]
enum Origin {
    /// A file on disk.
    Path(PathBuf),
    /// Bytes in memory.
    Memory(Arc<[u8]>),
}

/// Maps a short read to the error naming the file, the offset and what was expected.
pub(crate) fn short<'a>(name: &'a str, what: &str) -> impl Fn(Short) -> DumpiError + 'a {
    let what = what.to_string();
    short_lazy(name, move || what.clone())
}

/// [`short`] with the description made only when a read fails: the stream decoder calls
/// it for every record, where formatting a message each time would cost more than the
/// decoding.
pub(crate) fn short_lazy<'a>(
    name: &'a str,
    what: impl Fn() -> String + 'a,
) -> impl Fn(Short) -> DumpiError + 'a {
    move |e| match e {
        Short::End { offset } => LocatedError::at_byte(
            name,
            offset,
            format!("the file ends inside {} (truncated file?)", what()),
        )
        .into(),
        Short::Io(source) => DumpiError::Io {
            path: name.to_string(),
            source,
        },
    }
}

impl RankFile {
    /// Opens `path` (named `name` in messages) and reads its index and small sections.
    pub fn open(path: &Path, name: &str) -> Result<RankFile, DumpiError> {
        RankFile::read(Origin::Path(path.to_path_buf()), name)
    }

    /// Reads a rank file held in memory (plain or gzip), named `name` in messages.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>, name: &str) -> Result<RankFile, DumpiError> {
        RankFile::read(Origin::Memory(bytes.into()), name)
    }

    fn read(origin: Origin, name: &str) -> Result<RankFile, DumpiError> {
        let mut rank = RankFile {
            name: name.to_string(),
            origin,
            gzip: false,
            len: 0,
            index: Index::default(),
            header: Header::default(),
            footer: None,
            keyvals: Vec::new(),
            perf_labels: Vec::new(),
            addresses: Vec::new(),
            sizes: None,
        };
        let mut sniff = [0u8; 2];
        let got = read_up_to(&mut rank.raw()?, &mut sniff).map_err(|e| rank.io_err(e))?;
        rank.gzip = got == 2 && sniff == [0x1f, 0x8b];
        let (len, tail) = rank.length_and_tail()?;
        rank.len = len;
        rank.check_magic()?;
        rank.index = parse_index(name, len, &tail)?;
        rank.read_sections()?;
        Ok(rank)
    }

    fn io_err(&self, source: io::Error) -> DumpiError {
        DumpiError::Io {
            path: self.name.clone(),
            source,
        }
    }

    /// The stored bytes from the start (compressed, for a gzip file).
    fn raw(&self) -> Result<Box<dyn ReadSeek>, DumpiError> {
        Ok(match &self.origin {
            Origin::Path(path) => Box::new(File::open(path).map_err(|e| self.io_err(e))?),
            Origin::Memory(bytes) => Box::new(Cursor::new(Arc::clone(bytes))),
        })
    }

    /// A reader of the content from absolute offset `offset` on.
    pub(crate) fn reader_at(&self, offset: u64) -> Result<Bytes<Box<dyn Read + Send>>, DumpiError> {
        let mut raw = self.raw()?;
        if !self.gzip {
            raw.seek(SeekFrom::Start(offset))
                .map_err(|e| self.io_err(e))?;
            return Ok(Bytes::new(Box::new(raw), offset));
        }
        let source: Box<dyn Read + Send> = Box::new(MultiGzDecoder::new(BufReader::new(raw)));
        let mut bytes = Bytes::new(source, 0);
        bytes
            .skip(offset)
            .map_err(short(&self.name, "the compressed content"))?;
        Ok(bytes)
    }

    /// The content's length and its last (up to) 64 bytes, where the index is.
    fn length_and_tail(&self) -> Result<(u64, Vec<u8>), DumpiError> {
        let mut raw = self.raw()?;
        if !self.gzip {
            let len = raw.seek(SeekFrom::End(0)).map_err(|e| self.io_err(e))?;
            let keep = len.min(64);
            raw.seek(SeekFrom::Start(len - keep))
                .map_err(|e| self.io_err(e))?;
            let mut tail = vec![0; keep as usize];
            raw.read_exact(&mut tail).map_err(|e| self.io_err(e))?;
            return Ok((len, tail));
        }
        let mut decoder = MultiGzDecoder::new(BufReader::new(raw));
        let mut chunk = vec![0u8; 1 << 16];
        let mut tail = Vec::with_capacity(128);
        let mut len = 0u64;
        loop {
            let got = match decoder.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_err(e)),
            };
            len += got as u64;
            tail.extend_from_slice(&chunk[got.saturating_sub(64)..got]);
            let excess = tail.len().saturating_sub(64);
            tail.drain(..excess);
        }
        Ok((len, tail))
    }

    fn check_magic(&self) -> Result<(), DumpiError> {
        let mut r = self.reader_at(0)?;
        let magic = r.u64().map_err(|_| {
            LocatedError::at_byte(
                &self.name,
                0,
                format!("{} bytes are too few for a DUMPI file (expected at least the 8-byte magic FF AA DD 44 55 4D 50 49)", self.len),
            )
        })?;
        if magic != HEAD_MAGIC {
            return Err(LocatedError::at_byte(
                &self.name,
                0,
                format!(
                    "wrong magic {magic:016x}: not a DUMPI trace file (expected ffaadd44554d5049)"
                ),
            )
            .into());
        }
        Ok(())
    }

    /// Reads the small sections, all lying between the stream and the index, in one
    /// read.
    fn read_sections(&mut self) -> Result<(), DumpiError> {
        let ix = self.index;
        let sections = [
            ix.header,
            ix.footer,
            ix.keyvals,
            ix.perf_labels,
            ix.addresses,
            ix.sizes,
        ];
        let Some(first) = sections.iter().copied().filter(|&o| o > 0).min() else {
            return Ok(());
        };
        let end = self.len - ix.size;
        if end - first > MAX_METADATA {
            return Err(LocatedError::at_byte(
                &self.name,
                first,
                format!(
                    "the index puts {} bytes of sections before it (expected at most {MAX_METADATA})",
                    end - first
                ),
            )
            .into());
        }
        let mut tail = Vec::new();
        let mut r = self.reader_at(first)?;
        r.bytes_into((end - first) as usize, &mut tail)
            .map_err(short(&self.name, "the sections before the index"))?;
        let at = |offset: u64| Bytes::new(&tail[(offset - first) as usize..], offset);
        let name = self.name.clone();
        if ix.header > 0 {
            self.header = read_header(&mut at(ix.header), &name)?;
        }
        if ix.footer > 0 {
            self.footer = Some(read_footer(&mut at(ix.footer), &name)?);
        }
        if ix.keyvals > 0 {
            let mut r = at(ix.keyvals);
            self.keyvals = read_list(&mut r, &name, "keyval record", |r| {
                Ok((
                    read_string(r, &name, "a key")?,
                    read_string(r, &name, "a value")?,
                ))
            })?;
        }
        if ix.perf_labels > 0 {
            let mut r = at(ix.perf_labels);
            self.perf_labels = read_list(&mut r, &name, "performance-counter labels", |r| {
                read_string(r, &name, "a counter label")
            })?;
        }
        if ix.addresses > 0 {
            let mut r = at(ix.addresses);
            self.addresses = read_list(&mut r, &name, "function addresses", |r| {
                let address = r.u64().map_err(short(&name, "a function address"))?;
                Ok((address, read_string(r, &name, "a function label")?))
            })?;
        }
        if ix.sizes > 0 {
            let mut r = at(ix.sizes);
            self.sizes = Some(read_list(&mut r, &name, "datatype sizes", |r| {
                Ok(r.u32().map_err(short(&name, "a datatype size"))? as i32)
            })?);
        }
        Ok(())
    }
}

/// Reads into `buf` until it is full or the source ends; the count read.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Finds the index at the end of a content of `len` bytes whose last bytes are `tail`:
/// the newest layout first, as libdumpi's reader does.
fn parse_index(name: &str, len: u64, tail: &[u8]) -> Result<Index, DumpiError> {
    let word = |size: usize, i: usize| {
        let at = tail.len() - size + 8 * i;
        u64::from_be_bytes(tail[at..at + 8].try_into().expect("8 bytes"))
    };
    for size in [64usize, 56, 48, 40] {
        if tail.len() < size || word(size, 0) != HEAD_MAGIC {
            continue;
        }
        // The fields before the original four (header, body, footer, keyval) were added
        // at the front: a shorter index lacks the oldest-missing ones.
        let extra = (size - 40) / 8;
        let field = |k: usize| word(size, 1 + k);
        let (sizes, addresses, perf_labels) = match extra {
            3 => (field(0), field(1), field(2)),
            2 => (0, field(0), field(1)),
            1 => (0, 0, field(0)),
            _ => (0, 0, 0),
        };
        let index = Index {
            size: size as u64,
            sizes,
            addresses,
            perf_labels,
            header: field(extra),
            body: field(extra + 1),
            footer: field(extra + 2),
            keyvals: field(extra + 3),
        };
        check_index(name, len, &index)?;
        return Ok(index);
    }
    Err(LocatedError::at_byte(
        name,
        len.saturating_sub(64),
        "no index at the end of the file (expected the magic ffaadd44554d5049 64, 56, 48 or 40 bytes before the end): truncated file?",
    )
    .into())
}

/// Every section must lie between the lead-in and the index; the stream must exist.
fn check_index(name: &str, len: u64, index: &Index) -> Result<(), DumpiError> {
    let start = len - index.size;
    let sections = [
        ("datatype sizes", index.sizes),
        ("function addresses", index.addresses),
        ("performance-counter labels", index.perf_labels),
        ("header", index.header),
        ("call stream", index.body),
        ("footer", index.footer),
        ("keyval record", index.keyvals),
    ];
    for (what, offset) in sections {
        if offset != 0 && !(8..start).contains(&offset) {
            return Err(LocatedError::at_byte(
                name,
                start,
                format!("the index puts the {what} at byte {offset}, outside the file's sections (expected 8 to {start})"),
            )
            .into());
        }
    }
    if index.body == 0 {
        return Err(LocatedError::at_byte(
            name,
            start,
            "the index has no call stream (body offset 0)",
        )
        .into());
    }
    Ok(())
}

/// A string of the small sections: u16 length and the bytes.
fn read_string<R: Read>(r: &mut Bytes<R>, name: &str, what: &str) -> Result<Vec<u8>, DumpiError> {
    let len = r.u16().map_err(short(name, what))?;
    let mut out = Vec::with_capacity(len as usize);
    r.bytes_into(len as usize, &mut out)
        .map_err(short(name, what))?;
    Ok(out)
}

/// A section made of an i32 count and that many items.
fn read_list<R: Read, T>(
    r: &mut Bytes<R>,
    name: &str,
    what: &str,
    mut item: impl FnMut(&mut Bytes<R>) -> Result<T, DumpiError>,
) -> Result<Vec<T>, DumpiError> {
    let at = r.offset();
    let count = r
        .u32()
        .map_err(short(name, &format!("the count of the {what}")))? as i32;
    if count < 0 {
        return Err(LocatedError::at_byte(
            name,
            at,
            format!("negative count {count} of the {what}"),
        )
        .into());
    }
    // No reservation from the count: a wrong count fails at the end of the file.
    let mut items = Vec::new();
    for _ in 0..count {
        items.push(item(r)?);
    }
    Ok(items)
}

fn read_i32s<R: Read>(
    r: &mut Bytes<R>,
    name: &str,
    what: &str,
) -> Result<(i32, Vec<i32>), DumpiError> {
    let count = r.u32().map_err(short(name, what))? as i32;
    let mut items = Vec::new();
    for _ in 0..count.max(0) {
        items.push(r.u32().map_err(short(name, what))? as i32);
    }
    Ok((count, items))
}

fn read_header<R: Read>(r: &mut Bytes<R>, name: &str) -> Result<Header, DumpiError> {
    let what = "the header";
    let mut h = Header::default();
    for v in &mut h.version {
        *v = r.u8().map_err(short(name, what))?;
    }
    h.start_time = r.u64().map_err(short(name, what))?;
    h.hostname = read_string(r, name, "the header's host name")?;
    h.username = read_string(r, name, "the header's user name")?;
    let (meshdim, coords) = read_i32s(r, name, "the header's mesh coordinates")?;
    h.meshdim = meshdim;
    h.mesh_coords = coords;
    // The mesh size was added in format 0.5; its count then replaces the dimension.
    let v = h.version.map(|b| b as i8);
    if meshdim != 0 && (v[0] > 0 || v[1] > 4) {
        let (count, size) = read_i32s(r, name, "the header's mesh size")?;
        h.meshdim = count;
        h.mesh_size = size;
    }
    Ok(h)
}

fn read_footer<R: Read>(r: &mut Bytes<R>, name: &str) -> Result<Footer, DumpiError> {
    let at = r.offset();
    let magic = r.u64().map_err(short(name, "the footer"))?;
    if magic != FOOT_MAGIC {
        return Err(LocatedError::at_byte(
            name,
            at,
            format!("wrong footer magic {magic:x} (expected f007fee7)"),
        )
        .into());
    }
    let mut counts = |what| -> Result<Vec<u32>, DumpiError> {
        (0..FOOTER_COUNTS)
            .map(|_| r.u32().map_err(short(name, what)))
            .collect()
    };
    let calls = counts("the footer's call counts")?;
    let ignored = counts("the footer's ignored counts")?;
    Ok(Footer { calls, ignored })
}
