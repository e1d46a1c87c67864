//! A whole trace: its `.meta` file (`key=value` lines: `numprocs`, `fileprefix`,
//! `version` …) and the rank files `<fileprefix>-%04d.bin` beside it (or
//! `….bin.gz`), checked against each other.

use super::file::RankFile;
use super::DumpiError;
use crate::error::LocatedError;
use std::path::{Path, PathBuf};

/// The `.meta` file's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// Every `key=value` entry, in file order.
    pub entries: Vec<(String, String)>,
}

impl Meta {
    /// Parses the text of a `.meta` file named `name`.
    pub fn parse(text: &str, name: &str) -> Result<Meta, LocatedError> {
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(LocatedError::at(
                    name,
                    Some(n as u32 + 1),
                    format!("expected key=value, found '{line}'"),
                ));
            };
            entries.push((key.trim().to_string(), value.trim().to_string()));
        }
        Ok(Meta { entries })
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A trace: its ranks' files in rank order.
#[derive(Debug)]
pub struct Trace {
    /// The `.meta` file, when the trace was opened through one.
    pub meta: Option<Meta>,
    /// The rank files' paths, index = rank.
    pub ranks: Vec<PathBuf>,
    /// The first rank number (a single `.bin` keeps its own).
    pub first_rank: u32,
}

impl Trace {
    /// Opens `path`: a `.meta` file (all ranks) or one rank's `.bin` file.
    pub fn open(path: &Path) -> Result<Trace, DumpiError> {
        let name = path.display().to_string();
        let is_meta = path.extension().is_some_and(|e| e == "meta");
        if !is_meta {
            // A rank file: its own rank from its name, or 0.
            let rank = rank_of(path).unwrap_or(0);
            std::fs::metadata(path).map_err(|source| DumpiError::Io { path: name, source })?;
            return Ok(Trace {
                meta: None,
                ranks: vec![path.to_path_buf()],
                first_rank: rank,
            });
        }
        let bytes = std::fs::read(path).map_err(|source| DumpiError::Io {
            path: name.clone(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            LocatedError::at_byte(
                &name,
                e.utf8_error().valid_up_to() as u64,
                "a .meta file is text (expected UTF-8)",
            )
        })?;
        let meta = Meta::parse(&text, &name)?;
        let ranks = rank_paths(&meta, path, &name)?;
        Ok(Trace {
            meta: Some(meta),
            ranks,
            first_rank: 0,
        })
    }

    /// Opens rank `k` of the trace (0 = the first file).
    pub fn rank_file(&self, k: usize) -> Result<RankFile, DumpiError> {
        let path = &self.ranks[k];
        let file = RankFile::open(path, &path.display().to_string())?;
        if let Some(meta) = &self.meta {
            check_version(meta, &file)?;
        }
        Ok(file)
    }
}

/// The rank number in a name ending `-NNNN.bin` (or `.bin.gz`).
fn rank_of(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(name)
        .strip_suffix(".bin")?;
    stem.rsplit_once('-')?.1.parse().ok()
}

/// The files of ranks 0 … numprocs−1, each required, and no file for rank numprocs.
fn rank_paths(meta: &Meta, path: &Path, name: &str) -> Result<Vec<PathBuf>, DumpiError> {
    let numprocs = meta.get("numprocs").ok_or_else(|| {
        LocatedError::new(name, "no numprocs= entry (expected the number of ranks)")
    })?;
    let numprocs: u32 = numprocs.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
        LocatedError::new(
            name,
            format!("numprocs={numprocs} is not a positive number of ranks"),
        )
    })?;
    let prefix = meta.get("fileprefix").ok_or_else(|| {
        LocatedError::new(
            name,
            "no fileprefix= entry (expected the rank files' name prefix)",
        )
    })?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let base = Path::new(prefix)
        .file_name()
        .map_or_else(|| prefix.into(), |b| b.to_owned());
    let file_of = |rank: u32| {
        let plain = dir.join(format!("{}-{rank:04}.bin", base.to_string_lossy()));
        let gz = dir.join(format!("{}-{rank:04}.bin.gz", base.to_string_lossy()));
        if !plain.exists() && gz.exists() {
            gz
        } else {
            plain
        }
    };
    let mut ranks = Vec::with_capacity(numprocs.min(1 << 16) as usize);
    for rank in 0..numprocs {
        let file = file_of(rank);
        if !file.exists() {
            return Err(LocatedError::new(
                name,
                format!(
                    "the file of rank {rank} ('{}') is missing (numprocs={numprocs})",
                    file.display()
                ),
            )
            .into());
        }
        ranks.push(file);
    }
    let extra = file_of(numprocs);
    if extra.exists() {
        return Err(LocatedError::new(
            name,
            format!("numprocs={numprocs}, but '{}' (rank {numprocs}) exists too: the .meta does not match the rank files", extra.display()),
        )
        .into());
    }
    Ok(ranks)
}

/// The `.meta`'s version entries must match the file's header.
fn check_version(meta: &Meta, file: &RankFile) -> Result<(), DumpiError> {
    let keys = ["version", "subversion", "subsubversion"];
    for (k, key) in keys.iter().enumerate() {
        let Some(value) = meta.get(key) else { continue };
        let stored = file.header.version[k];
        if value.parse::<u8>().ok() != Some(stored) {
            let v = file.header.version;
            return Err(LocatedError::at_byte(
                &file.name,
                file.index.header,
                format!(
                    "the header says version {}.{}.{}, but the .meta says {key}={value}",
                    v[0], v[1], v[2]
                ),
            )
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_numbers_come_from_the_file_name() {
        assert_eq!(rank_of(Path::new("a/dumpi-2019.05.22-0003.bin")), Some(3));
        assert_eq!(rank_of(Path::new("t-0012.bin.gz")), Some(12));
        assert_eq!(rank_of(Path::new("t.bin")), None);
    }

    #[test]
    fn meta_lines_are_key_value() {
        let m = Meta::parse("numprocs=4\nfileprefix=t\n", "t.meta").unwrap();
        assert_eq!(m.get("numprocs"), Some("4"));
        let e = Meta::parse("numprocs=4\noops\n", "t.meta").unwrap_err();
        assert_eq!(e.to_string(), "t.meta:2: expected key=value, found 'oops'");
    }
}
