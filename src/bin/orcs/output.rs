//! Every file and stream the commands write goes through here: standard output (`-`),
//! files written beside their final name and renamed when complete, the simulation's
//! `-o` file opened before the run, side files such as `--links` and `--plot`, and
//! folders of files.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `output` (`-`: standard output) beside the final name, then renames.
pub fn write_whole(output: &str, bytes: &[u8]) -> Result<()> {
    if output == "-" {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    let partial = partial_name(output);
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, output))
        .with_context(|| format!("cannot write output file '{output}'"))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&partial);
        })
}

/// The name a file is written under before it is complete: hidden, beside `output`.
fn partial_name(output: &str) -> PathBuf {
    let path = Path::new(output);
    let file = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{file}.partial"))
}

/// Replaces a scan's file `path` by `text`: written to `path.partial`, then renamed.
pub fn replace(path: &str, text: &str) -> Result<()> {
    let partial = format!("{path}.partial");
    std::fs::write(&partial, text).with_context(|| format!("cannot write '{partial}'"))?;
    std::fs::rename(&partial, path).with_context(|| format!("cannot write '{path}'"))?;
    Ok(())
}

/// A file that appears complete or not at all (or standard output), created before a
/// long step so that a bad path fails at once, and written afterwards.
pub struct WholeFile {
    output: String,
    /// The partial file and its name; None for standard output.
    partial: Option<(PathBuf, File)>,
}

impl WholeFile {
    /// Creates the partial file of `output` (`-`: standard output).
    pub fn create(output: &str) -> Result<WholeFile> {
        let partial = match output {
            "-" => None,
            _ => {
                let p = partial_name(output);
                let file = File::create(&p)
                    .with_context(|| format!("cannot create output file '{output}'"))?;
                Some((p, file))
            }
        };
        Ok(WholeFile {
            output: output.to_string(),
            partial,
        })
    }

    /// Writes the contents with `write` through a large buffer, then gives the file its
    /// name (or removes the partial file when writing failed).
    pub fn write_with(self, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        let (partial, file) = match self.partial {
            Some((p, f)) => (Some(p), Box::new(f) as Box<dyn Write>),
            None => (None, Box::new(io::stdout().lock()) as Box<dyn Write>),
        };
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let written = write(&mut out).and_then(|()| Ok(out.flush()?));
        drop(out);
        let Some(p) = partial else {
            return written;
        };
        let output = &self.output;
        match written {
            Ok(()) => std::fs::rename(&p, output)
                .with_context(|| format!("cannot write output file '{output}'")),
            Err(e) => {
                let _ = std::fs::remove_file(&p);
                Err(e.context(format!("cannot write output file '{output}'")))
            }
        }
    }
}

/// Where a simulation's metric goes: standard output or a file opened before the run.
pub enum Target {
    /// Standard output.
    Stdout,
    /// The `-o` file.
    File(BufWriter<File>),
}

impl Target {
    /// Opens `-o` (after every check, so a failed run leaves an existing file alone, but
    /// before the simulation, so a bad path fails before a long run). Refuses the input
    /// file.
    pub fn open(output_file: &str, input_file: &str) -> Result<Target> {
        let path = output_file;
        if path == "-" {
            return Ok(Target::Stdout);
        }
        let same = |a: &str, b: &str| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        };
        if input_file != "-" && same(path, input_file) {
            bail!("-o/--output_file '{path}' is the input file; choose another name");
        }
        let file =
            File::create(path).with_context(|| format!("cannot create output file '{path}'"))?;
        Ok(Target::File(BufWriter::new(file)))
    }

    /// Flushes the `-o` file, naming it in the error.
    pub fn finish(self, output_file: &str) -> Result<()> {
        if let Target::File(mut f) = self {
            f.flush()
                .with_context(|| format!("cannot write output file '{output_file}'"))?;
        }
        Ok(())
    }
}

/// Creates a side file named by `flag` (`--links`, `--plot`), before a long run so a bad
/// path fails early.
pub fn create_file(path: &str, flag: &str) -> Result<BufWriter<File>> {
    let file = File::create(path).with_context(|| format!("{flag}: cannot create '{path}'"))?;
    Ok(BufWriter::new(file))
}

/// Creates the folder `dir` named by `flag`, with its parents.
pub fn create_dir(dir: &str, flag: &str) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{flag}: cannot create '{dir}'"))
}

/// Writes `files` (name, contents) into the folder `folder`, created first.
pub fn write_files(folder: &Path, files: impl IntoIterator<Item = (String, String)>) -> Result<()> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create '{}'", folder.display()))?;
    for (name, text) in files {
        let path = folder.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(())
}
