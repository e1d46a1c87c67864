//! Writing outputs without losing data: every file orcs writes goes through [`Output`],
//! and every command's outputs are checked against its inputs by [`refuse_overlaps`].
//!
//! * An output that is one of the command's inputs, or another of its outputs, is
//!   refused before any work: the same file by device and inode (through symbolic and
//!   hard links), or, for a file that does not exist yet, the same place (`./f.dot` and
//!   `f.dot`).
//! * A regular file is written to a temporary file in its folder, synced, given the old
//!   file's permission bits, renamed over the old file, and the folder is synced: a
//!   failure at any point leaves the old file as it was and removes the temporary file.
//! * A symbolic link is written through: its target receives the new content and the
//!   link stays a link.
//! * Standard output (`-`), devices, FIFOs and sockets are written in place: renaming a
//!   file over `/dev/null` (as root) would replace the device.
//! * Every error names the file.
//! * An output named `*.gz` is gzip-compressed, unless what is written is gzip already
//!   (a PFProf archive), which is written as it is; standard output never is.
//!
//! The temporary file is created by [`Output::create`], before the work that produces
//! the content, so that a missing folder or an unwritable file fails at once rather than
//! after a long run.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Symbolic links followed before giving up, as Linux does (ELOOP after 40).
const MAX_LINKS: usize = 40;

/// The buffer between the writers and the file: large, so that big outputs (fabrics of
/// millions of routes) take few system calls.
const BUFFER: usize = 1 << 20;

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// An output is one of the command's inputs: writing it would destroy the input.
    #[error("{output_flag} '{output}' is the same file as the input {input_flag} '{input}'; orcs never overwrites an input: choose another name")]
    OverwritesInput {
        /// The flag naming the output.
        output_flag: String,
        /// The output as given.
        output: String,
        /// The flag (or argument) naming the input.
        input_flag: String,
        /// The input as given.
        input: String,
    },
    /// Two outputs are the same file: the second would replace the first.
    #[error("{first_flag} '{first}' and {second_flag} '{second}' are the same file; give each output its own name")]
    SameOutput {
        /// The flag naming the first output.
        first_flag: String,
        /// The first output as given.
        first: String,
        /// The flag naming the second output.
        second_flag: String,
        /// The second output as given.
        second: String,
    },
    /// The output is a folder.
    #[error("{}cannot write '{path}': it is a folder", flag_prefix(.flag))]
    Folder {
        /// The flag naming the output, when known.
        flag: Option<String>,
        /// The output as given.
        path: String,
    },
    /// Creating, writing, syncing or renaming the file failed.
    #[error("{}cannot {action} '{path}'", flag_prefix(.flag))]
    Io {
        /// The flag naming the output, when known.
        flag: Option<String>,
        /// What failed, e.g. "write" or "create output file".
        action: &'static str,
        /// The output as given.
        path: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// `flag: ` before a message about the output the flag names; nothing without a flag.
fn flag_prefix(flag: &Option<String>) -> String {
    flag.as_ref().map_or_else(String::new, |f| format!("{f}: "))
}

/// An output as messages name it: the path as given and the flag that names it, when
/// known.
#[derive(Debug, Clone)]
struct Label {
    flag: Option<String>,
    path: String,
}

impl Label {
    /// An [`OutputError::Io`] for this output.
    fn io(&self, action: &'static str, source: io::Error) -> OutputError {
        OutputError::Io {
            flag: self.flag.clone(),
            action,
            path: self.path.clone(),
            source,
        }
    }
}

/// An [`OutputError`] as an I/O error of the same kind, for writers that report
/// `io::Error`: its message still names the file, and its source is the system's reason.
impl From<OutputError> for io::Error {
    fn from(e: OutputError) -> io::Error {
        let kind = match &e {
            OutputError::Io { source, .. } => source.kind(),
            OutputError::Folder { .. }
            | OutputError::OverwritesInput { .. }
            | OutputError::SameOutput { .. } => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}

/// A file named on the command line, with the flag (or argument) that names it.
#[derive(Debug, Clone, Copy)]
pub struct NamedFile<'a> {
    /// The flag, e.g. `-o/--output` or `RESULT`.
    pub flag: &'a str,
    /// The path as given (`-`: standard input or output).
    pub path: &'a str,
}

/// Refuses outputs that are one of the `inputs` or another output: the same file by
/// device and inode, or the same place for files that do not exist yet. Standard
/// input and output (`-`) and special files (devices, FIFOs, sockets) are not compared:
/// writing them destroys nothing. A path whose status cannot be read is left for the
/// read or the write to report.
pub fn refuse_overlaps(inputs: &[NamedFile], outputs: &[NamedFile]) -> Result<(), OutputError> {
    let inputs: Vec<(&NamedFile, FileId)> = inputs
        .iter()
        .filter_map(|f| Some((f, FileId::of(f.path)?)))
        .collect();
    let outputs: Vec<(&NamedFile, FileId)> = outputs
        .iter()
        .filter_map(|f| Some((f, FileId::of(f.path)?)))
        .collect();
    for (i, (output, id)) in outputs.iter().enumerate() {
        if let Some((input, _)) = inputs.iter().find(|(_, other)| other == id) {
            return Err(OutputError::OverwritesInput {
                output_flag: output.flag.to_string(),
                output: output.path.to_string(),
                input_flag: input.flag.to_string(),
                input: input.path.to_string(),
            });
        }
        if let Some((first, _)) = outputs[..i].iter().find(|(_, other)| other == id) {
            return Err(OutputError::SameOutput {
                first_flag: first.flag.to_string(),
                first: first.path.to_string(),
                second_flag: output.flag.to_string(),
                second: output.path.to_string(),
            });
        }
    }
    Ok(())
}

/// Which file a path names, for [`refuse_overlaps`].
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    /// An existing file or folder.
    Inode {
        /// The device holding it.
        device: u64,
        /// Its inode on that device.
        inode: u64,
    },
    /// Where a file that does not exist (or, off Unix, any file) is.
    Place(PathBuf),
}

impl FileId {
    /// The identity of `path` after following its links; None for `-`, special files
    /// and paths whose status cannot be read.
    fn of(path: &str) -> Option<FileId> {
        if path == "-" {
            return None;
        }
        match fs::metadata(path) {
            Ok(meta) if meta.is_file() || meta.is_dir() => {
                Some(existing_id(Path::new(path), &meta))
            }
            Ok(_) => None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let target = resolve_links(Path::new(path)).ok()?;
                Some(FileId::Place(place(&target)))
            }
            Err(_) => None,
        }
    }
}

/// The identity of the existing file `path`: its device and inode.
#[cfg(unix)]
fn existing_id(_path: &Path, meta: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId::Inode {
        device: meta.dev(),
        inode: meta.ino(),
    }
}

/// The identity of the existing file `path`: its canonical path (inodes are Unix's).
#[cfg(not(unix))]
fn existing_id(path: &Path, _meta: &Metadata) -> FileId {
    FileId::Place(place(path))
}

/// Where `path` is: its folder's canonical path joined with its name, so that
/// `./f.dot`, `f.dot` and `dir/../f.dot` agree even when the file does not exist.
fn place(path: &Path) -> PathBuf {
    let folder = folder_of(path);
    match (fs::canonicalize(folder), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// The folder holding `path` (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `path` with its symbolic links followed to the file they name, which may not exist
/// yet. Stops at the kernel's links to open files (`/dev/stdout`, `/proc/self/fd/1`):
/// their targets are descriptions, not paths, and they are written in place.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if is_kernel_link(&current) {
            return Ok(current);
        }
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                // A relative target is relative to the link's folder.
                current = folder_of(&current).join(target);
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links to follow"
    )))
}

/// Whether `path` is one of the kernel's links to open files (under `/proc` or
/// `/dev/fd`).
fn is_kernel_link(path: &Path) -> bool {
    path.starts_with("/proc") || path.starts_with("/dev/fd")
}

/// An output being written: standard output, a special file written in place, or a
/// temporary file beside a regular file, renamed over it by [`Output::commit`].
/// Dropped without [`Output::commit`] (an error on the way), it leaves the old file as
/// it was and removes the temporary file. Writes are buffered; their errors name the
/// file (and the flag, when created with [`Output::create_named`]).
pub struct Output {
    label: Label,
    out: BufWriter<Layer>,
}

/// The gzip magic bytes, which every gzip stream starts with.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// What stands between the buffer and the sink: nothing, or for an output named
/// `*.gz` a gzip encoder, unless the content is gzip already (a PFProf archive).
enum Layer {
    /// Bytes go to the sink as they are.
    Plain(Sink),
    /// A `.gz` output before its first two bytes are known.
    Deciding(Option<Sink>, Vec<u8>),
    /// Bytes are compressed (boxed: the encoder's state is large, and rare).
    Gzip(Box<flate2::write::GzEncoder<Sink>>),
}

impl Layer {
    /// The layer for an output named `path`.
    fn for_path(path: &str, sink: Sink) -> Layer {
        let gz = path != "-"
            && Path::new(path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        if gz {
            Layer::Deciding(Some(sink), Vec::with_capacity(2))
        } else {
            Layer::Plain(sink)
        }
    }

    /// Chooses plain or gzip from the first bytes `head` (gzip magic: already
    /// compressed) and passes them on.
    fn decide(&mut self) -> io::Result<()> {
        let Layer::Deciding(sink, head) = self else {
            return Ok(());
        };
        let (sink, head) = (sink.take().expect("decided once"), std::mem::take(head));
        *self = if head == GZIP_MAGIC {
            Layer::Plain(sink)
        } else {
            Layer::Gzip(Box::new(flate2::write::GzEncoder::new(
                sink,
                flate2::Compression::default(),
            )))
        };
        match self {
            Layer::Plain(s) => s.write_all(&head),
            Layer::Gzip(g) => g.write_all(&head),
            Layer::Deciding(..) => unreachable!("just decided"),
        }
    }

    /// Ends the gzip stream if any (a `.gz` output of fewer than two bytes is
    /// compressed) and gives back the sink.
    fn finish(mut self) -> io::Result<Sink> {
        self.decide()?;
        match self {
            Layer::Plain(s) => Ok(s),
            Layer::Gzip(g) => g.finish(),
            Layer::Deciding(..) => unreachable!("decided above"),
        }
    }
}

impl Write for Layer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Layer::Deciding(_, head) = self {
            let take = (GZIP_MAGIC.len() - head.len()).min(buf.len());
            head.extend_from_slice(&buf[..take]);
            if head.len() == GZIP_MAGIC.len() {
                self.decide()?;
            }
            return Ok(take);
        }
        match self {
            Layer::Plain(s) => s.write(buf),
            Layer::Gzip(g) => g.write(buf),
            Layer::Deciding(..) => unreachable!("handled above"),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Layer::Plain(s) => s.flush(),
            Layer::Gzip(g) => g.flush(),
            // Nothing can be passed on before the first bytes are known.
            Layer::Deciding(..) => Ok(()),
        }
    }
}

/// Where an [`Output`]'s bytes go.
enum Sink {
    /// Standard output (`-`).
    Stdout(io::Stdout),
    /// A device, FIFO or socket, or a kernel link to an open file, written in place.
    InPlace(File),
    /// A regular file (existing or not), written beside `target` and renamed over it.
    Replace {
        /// The temporary file in `target`'s folder.
        temp: NamedTempFile,
        /// The file replaced: the output with its symbolic links followed.
        target: PathBuf,
    },
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::InPlace(f) => f.write(buf),
            Sink::Replace { temp, .. } => temp.as_file_mut().write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::InPlace(f) => f.flush(),
            Sink::Replace { temp, .. } => temp.as_file_mut().flush(),
        }
    }
}

impl Output {
    /// Opens the output `path` (`-`: standard output) for writing: a special file in
    /// place, a regular file (existing or not, through its symbolic links) as a
    /// temporary file in its folder. Fails at once when the folder is missing or not
    /// writable, when the existing file may not be written, or when the path is a
    /// folder.
    pub fn create(path: &str) -> Result<Output, OutputError> {
        Output::open(Label {
            flag: None,
            path: path.to_string(),
        })
    }

    /// [`Output::create`] for an output named by a flag, which every error names too.
    pub fn create_named(file: NamedFile) -> Result<Output, OutputError> {
        Output::open(Label {
            flag: Some(file.flag.to_string()),
            path: file.path.to_string(),
        })
    }

    /// Opens the output `label` names.
    fn open(label: Label) -> Result<Output, OutputError> {
        let sink = match label.path.as_str() {
            "-" => Sink::Stdout(io::stdout()),
            _ => open_sink(&label)?,
        };
        let layer = Layer::for_path(&label.path, sink);
        Ok(Output {
            label,
            out: BufWriter::with_capacity(BUFFER, layer),
        })
    }

    /// The output as given.
    pub fn path(&self) -> &str {
        &self.label.path
    }

    /// Finishes the output: flushes it, and for a regular file syncs the temporary
    /// file, gives it the old file's permission bits (and owner, where allowed), renames
    /// it over the old file and syncs the folder. On failure the old file is intact
    /// and the temporary file is removed.
    pub fn commit(self) -> Result<(), OutputError> {
        let Output { label, out } = self;
        let sink = out
            .into_inner()
            .map_err(|e| label.io("write", e.into_error()))?
            .finish()
            .map_err(|e| label.io("write", e))?;
        match sink {
            Sink::Stdout(mut s) => s.flush().map_err(|e| label.io("write", e)),
            Sink::InPlace(mut f) => f.flush().map_err(|e| label.io("write", e)),
            Sink::Replace { temp, target } => replace(temp, &target, &label),
        }
    }

    /// `e` with the file named, of the same kind (a closed pipe stays a closed pipe).
    fn annotate(&self, e: io::Error) -> io::Error {
        self.label.io("write", e).into()
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf).map_err(|e| self.annotate(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf).map_err(|e| self.annotate(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().map_err(|e| self.annotate(e))
    }
}

/// Writes `bytes` to the output `path` (`-`: standard output) as [`Output`] does: an
/// existing file is replaced whole or not at all.
pub fn write_whole(path: &str, bytes: &[u8]) -> Result<(), OutputError> {
    write_to(Output::create(path)?, bytes)
}

/// [`write_whole`] for an output named by a flag, which every error names too.
pub fn write_whole_named(file: NamedFile, bytes: &[u8]) -> Result<(), OutputError> {
    write_to(Output::create_named(file)?, bytes)
}

/// Writes `bytes` to `out` and commits it.
fn write_to(mut out: Output, bytes: &[u8]) -> Result<(), OutputError> {
    match out.out.write_all(bytes) {
        Ok(()) => out.commit(),
        Err(e) => Err(out.label.io("write", e)),
    }
}

/// Opens the sink of the output `label` names (not `-`).
fn open_sink(label: &Label) -> Result<Sink, OutputError> {
    let target = resolve_links(Path::new(&label.path))
        .map_err(|e| label.io("follow the symbolic link", e))?;
    if is_kernel_link(&target) {
        return in_place(label, &target);
    }
    match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => Err(OutputError::Folder {
            flag: label.flag.clone(),
            path: label.path.clone(),
        }),
        Ok(meta) if meta.is_file() => {
            // A file the user may not write (read-only, say) is refused now, as opening
            // it would be, rather than silently replaced by the rename.
            OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| label.io("write", e))?;
            beside(label, target)
        }
        Ok(_) => in_place(label, &target),
        Err(e) if e.kind() == io::ErrorKind::NotFound => beside(label, target),
        Err(e) => Err(label.io("create output file", e)),
    }
}

/// A special file (or kernel link) opened for writing in place. Appending keeps what a
/// reopened descriptor (`/dev/stdout` redirected with `>>`) already holds; devices and
/// pipes ignore it.
fn in_place(label: &Label, target: &Path) -> Result<Sink, OutputError> {
    OpenOptions::new()
        .append(true)
        .open(target)
        .map(Sink::InPlace)
        .map_err(|e| label.io("open output file", e))
}

/// A temporary file in `target`'s folder, hidden and named after it, with the
/// permissions a new file gets (`0666` less the umask) until [`replace`] copies the old
/// file's.
fn beside(label: &Label, target: PathBuf) -> Result<Sink, OutputError> {
    let file_name = target.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{file_name}.");
    // Opened here rather than by tempfile, whose errors name its random file: the
    // user named the output.
    let open = |path: &Path| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o666);
        }
        options.open(path)
    };
    let temp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".partial")
        .make_in(folder_of(&target), open)
        .map_err(|e| label.io("create output file", e))?;
    Ok(Sink::Replace { temp, target })
}

/// Syncs `temp`, gives it the old file's permissions, renames it over `target` and
/// syncs the folder. A failed rename drops (removes) the temporary file.
fn replace(temp: NamedTempFile, target: &Path, label: &Label) -> Result<(), OutputError> {
    keep_permissions(temp.as_file(), target).map_err(|e| label.io("keep the permissions of", e))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| label.io("write", e))?;
    temp.persist(target)
        .map_err(|e| label.io("replace", e.error))?;
    sync_folder(folder_of(target)).map_err(|e| label.io("sync the folder of", e))
}

/// Gives `file` the permission bits of `target`, and its owner and group where allowed
/// (root replacing another user's file); nothing when `target` does not exist.
fn keep_permissions(file: &File, target: &Path) -> io::Result<()> {
    let old = match fs::metadata(target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Best effort: an ordinary user may not give a file away, and needs not.
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    // After the owner: changing it may clear the set-id bits.
    file.set_permissions(old.permissions())
}

/// Syncs `folder`, so that the rename survives a crash. File systems that cannot sync
/// a folder say so with these kinds; the rename is then as durable as they allow.
fn sync_folder(folder: &Path) -> io::Result<()> {
    match File::open(folder).and_then(|f| f.sync_all()) {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
            ) =>
        {
            Ok(())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    fn s(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    fn named<'a>(flag: &'a str, path: &'a str) -> NamedFile<'a> {
        NamedFile { flag, path }
    }

    #[test]
    fn outputs_named_gz_are_compressed_once() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let gunzip = |path: &Path| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(fs::File::open(path).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            text
        };
        let path = dir.path().join("out.csv.gz");
        write_whole(path.to_str().unwrap(), b"a,b\n1,2\n").unwrap();
        assert_eq!(fs::read(&path).unwrap()[..2], GZIP_MAGIC);
        assert_eq!(gunzip(&path), "a,b\n1,2\n");
        // Gzip already (an archive): not compressed a second time.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"inside").unwrap();
        let archive = gz.finish().unwrap();
        let path = dir.path().join("a.tar.GZ");
        let mut out = Output::create(path.to_str().unwrap()).unwrap();
        // Written a byte at a time, the magic still decides.
        for b in &archive {
            out.write_all(std::slice::from_ref(b)).unwrap();
        }
        out.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), archive);
        // Nothing, or one byte, is still a gzip stream.
        for content in [&b""[..], b"x"] {
            let path = dir.path().join("short.gz");
            write_whole(path.to_str().unwrap(), content).unwrap();
            assert_eq!(gunzip(&path).as_bytes(), content);
        }
        // Other names are written as they are.
        let path = dir.path().join("plain.gzip");
        write_whole(path.to_str().unwrap(), b"text").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"text");
    }

    #[test]
    fn replaces_a_file_and_keeps_its_permission_bits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_whole(s(&path), b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    #[test]
    fn a_new_file_gets_the_permissions_of_any_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let path = dir.path().join("new.txt");
        write_whole(s(&path), b"x").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&path), mode(&plain));
    }

    #[test]
    fn an_output_dropped_before_commit_leaves_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.txt");
        fs::write(&path, "precious").unwrap();
        let mut out = Output::create(s(&path)).unwrap();
        // The temporary file exists from the start, beside the output.
        assert_eq!(names(dir.path()).len(), 2, "{:?}", names(dir.path()));
        out.write_all(&[b'x'; 3 * BUFFER]).unwrap();
        drop(out);
        assert_eq!(fs::read_to_string(&path).unwrap(), "precious");
        assert_eq!(names(dir.path()), ["keep.txt"]);
    }

    #[test]
    fn a_failed_rename_keeps_what_is_there_and_removes_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        fs::write(&path, "old").unwrap();
        let mut out = Output::create(s(&path)).unwrap();
        out.write_all(b"new").unwrap();
        // Someone puts a folder where the file was: the rename cannot replace it.
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), "kept").unwrap();
        let e = out.commit().unwrap_err();
        assert!(
            e.to_string().starts_with("cannot replace '") && e.to_string().contains("/out'"),
            "{e}"
        );
        assert_eq!(fs::read_to_string(path.join("inside")).unwrap(), "kept");
        assert_eq!(names(dir.path()), ["out"]);
    }

    /// A character device in `dir` that is the device `of` (`/dev/full`, say), so
    /// that a regression running as root replaces it rather than the system's; the
    /// system's device itself for other users, who cannot replace it; None for root
    /// where device files cannot be made.
    fn device(dir: &Path, of: &str) -> Option<PathBuf> {
        use std::os::unix::fs::MetadataExt;
        let path = dir.join("device");
        let c_path = std::ffi::CString::new(s(&path)).unwrap();
        let rdev = fs::metadata(of).unwrap().rdev();
        // SAFETY: a valid C string and plain integers; geteuid has no preconditions.
        let made = unsafe { libc::mknod(c_path.as_ptr(), libc::S_IFCHR | 0o666, rdev) };
        match made {
            0 => Some(path),
            _ if unsafe { libc::geteuid() } != 0 => Some(PathBuf::from(of)),
            _ => None,
        }
    }

    fn is_char_device(path: &Path) -> bool {
        fs::metadata(path).unwrap().file_type().is_char_device()
    }

    #[test]
    fn write_errors_name_the_file_and_keep_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        let Some(full) = device(dir.path(), "/dev/full") else {
            return;
        };
        let mut out = Output::create(s(&full)).unwrap();
        let e = out
            .write_all(&[0; 2 * BUFFER])
            .and_then(|()| out.flush())
            .unwrap_err();
        let device = OpenOptions::new().write(true).open(&full).unwrap();
        let expected = (&device).write_all(b"x").unwrap_err().kind();
        assert_eq!(e.kind(), expected);
        assert_eq!(e.to_string(), format!("cannot write '{}'", full.display()));
        let e = write_whole(s(&full), b"x").unwrap_err();
        assert_eq!(e.to_string(), format!("cannot write '{}'", full.display()));
        assert!(std::error::Error::source(&e).is_some());
        assert!(is_char_device(&full));
    }

    #[test]
    fn special_files_are_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let Some(null) = device(dir.path(), "/dev/null") else {
            return;
        };
        write_whole(s(&null), b"anything").unwrap();
        assert!(is_char_device(&null));
        // A FIFO, held open for reading and writing so that neither side waits.
        let fifo = dir.path().join("fifo");
        let c_fifo = std::ffi::CString::new(s(&fifo)).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o600) }, 0);
        let mut pipe = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        write_whole(s(&fifo), b"through the pipe").unwrap();
        let mut got = [0u8; 16];
        std::io::Read::read_exact(&mut pipe, &mut got).unwrap();
        assert_eq!(&got, b"through the pipe");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_symbolic_link_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_whole(s(&link), b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link: its target is created.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("sub/made.txt", &dangling).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        write_whole(s(&dangling), b"made").unwrap();
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read_to_string(dir.path().join("sub/made.txt")).unwrap(),
            "made"
        );
        assert_eq!(
            names(dir.path()),
            ["dangling", "link.txt", "real.txt", "sub"]
        );
    }

    #[test]
    fn bad_places_fail_when_created() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing/out.txt");
        let e = Output::create(s(&missing)).err().unwrap();
        assert_eq!(
            e.to_string(),
            format!("cannot create output file '{}'", missing.display())
        );
        // The reason is the system's, without the temporary file's name.
        let reason = std::error::Error::source(&e).unwrap().to_string();
        assert_eq!(reason, io::Error::from_raw_os_error(2).to_string());
        let e = Output::create(s(dir.path())).err().unwrap();
        assert!(matches!(e, OutputError::Folder { .. }), "{e}");
        let mut looped = dir.path().join("a");
        std::os::unix::fs::symlink("b", &looped).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let e = Output::create(s(&looped)).err().unwrap();
        assert!(
            e.to_string().starts_with("cannot follow the symbolic link"),
            "{e}"
        );
        looped.pop();
        assert_eq!(names(&looped), ["a", "b"]);
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("f.dot");
        fs::write(&input, "graph").unwrap();
        let i = s(&input);
        let refused = |output: &str| {
            refuse_overlaps(&[named("-i", i)], &[named("-o", output)])
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            refused(i).unwrap(),
            format!("-o '{i}' is the same file as the input -i '{i}'; orcs never overwrites an input: choose another name")
        );
        let dotted = format!("{}/./f.dot", dir.path().display());
        assert!(refused(&dotted).is_some());
        let link = dir.path().join("link.dot");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        assert!(refused(s(&link)).is_some());
        let hard = dir.path().join("hard.dot");
        fs::hard_link(&input, &hard).unwrap();
        assert!(refused(s(&hard)).is_some());
        assert!(refused(s(&dir.path().join("other.dot"))).is_none());
        assert!(refused("-").is_none());
        assert!(refused("/dev/null").is_none());
    }

    #[test]
    fn outputs_that_are_the_same_file_are_refused_even_before_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = format!("{}/sub/../a.csv", dir.path().display());
        fs::create_dir(dir.path().join("sub")).unwrap();
        let e = refuse_overlaps(&[], &[named("-o", s(&a)), named("--links", &b)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "-o '{}' and --links '{b}' are the same file; give each output its own name",
                a.display()
            )
        );
        // A missing input is where it would be, too.
        let e = refuse_overlaps(&[named("PLAN", s(&a))], &[named("--csv", &b)]).unwrap_err();
        assert!(matches!(e, OutputError::OverwritesInput { .. }), "{e}");
        // Special files and standard output may be named more than once.
        let ok = [named("-o", "/dev/null"), named("--links", "/dev/null")];
        refuse_overlaps(&[named("-i", "-")], &ok).unwrap();
        refuse_overlaps(&[named("-i", "-")], &[named("-o", "-")]).unwrap();
    }

    #[test]
    fn a_bare_name_and_its_dotted_form_are_one_place() {
        assert_eq!(
            place(Path::new("no-such-file")),
            place(Path::new("./no-such-file"))
        );
        assert_ne!(
            place(Path::new("no-such-file")),
            place(Path::new("no-such-fil"))
        );
    }
}
