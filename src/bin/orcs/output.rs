//! Every file and stream the commands write goes through here, onto the library's
//! [`orcs::output`] (inputs never overwritten, an old file kept whole until the new one
//! is complete, links written through, devices and `-` written in place), with each
//! output named by its flag in every error. Outputs of long commands are created before
//! the work, so that a bad path fails at once.

use anyhow::{Context, Result};
use orcs::output::{NamedFile, Output};
use std::path::Path;

/// Opens the output `path` named by `flag` (`-`: standard output), before the work
/// that fills it; [`Output::commit`] puts it in place.
pub fn create(flag: &str, path: &str) -> Result<Output> {
    Ok(Output::create_named(NamedFile { flag, path })?)
}

/// Writes `bytes` to the output `path` named by `flag` (`-`: standard output).
pub fn write_whole(flag: &str, path: &str, bytes: &[u8]) -> Result<()> {
    Ok(orcs::output::write_whole_named(
        NamedFile { flag, path },
        bytes,
    )?)
}

/// Where a simulation's metric goes: standard output, where the header also goes, or
/// the `-o` file, opened before the run.
pub enum Target {
    /// Standard output.
    Stdout,
    /// The `-o` file.
    File(Output),
}

impl Target {
    /// Opens the metric's output `path` named by `flag` (`-`: standard output).
    pub fn open(flag: &str, path: &str) -> Result<Target> {
        Ok(match path {
            "-" => Target::Stdout,
            _ => Target::File(create(flag, path)?),
        })
    }

    /// Puts the `-o` file in place.
    pub fn finish(self) -> Result<()> {
        if let Target::File(f) = self {
            f.commit()?;
        }
        Ok(())
    }
}

/// Creates the folder `dir` named by `flag`, with its parents.
pub fn create_dir(dir: &str, flag: &str) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{flag}: cannot create '{dir}'"))
}

/// Writes `files` (name, contents) into the folder `folder` (inside the folder `flag`
/// names), created first.
pub fn write_files(
    flag: &str,
    folder: &Path,
    files: impl IntoIterator<Item = (String, String)>,
) -> Result<()> {
    create_dir(&folder.to_string_lossy(), flag)?;
    for (name, text) in files {
        write_whole(flag, &folder.join(name).to_string_lossy(), text.as_bytes())?;
    }
    Ok(())
}
