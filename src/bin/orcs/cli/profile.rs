//! `orcs profile`: run an MPI command with the profiling library preloaded into its
//! ranks, then summarise the traffic matrices it wrote.

use anyhow::{bail, Context, Result};
use clap::Args;
use orcs::trace::collective::AlgorithmChoice;
use std::path::{Path, PathBuf};

/// The file name of the profiling library.
pub const LIBRARY: &str = "liborcs_profiler.so";

/// Flags of `orcs profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Folder for the profile: one PFProf JSON file per rank (rank-R.json) and the
    /// matrices (matrix.csv for the whole run, matrix.phase-K.csv for each MPI_Pcontrol
    /// level K). It must not exist yet, or be empty.
    #[arg(
        verbatim_doc_comment,
        short = 'o',
        long = "output",
        value_name = "DIR",
        default_value = "orcs-profile"
    )]
    pub output: String,
    /// The profiling library (default: $ORCS_PROFILER_LIB, else liborcs_profiler.so
    /// beside the orcs executable or in ../lib from it; build it with
    /// `cargo build --release -p orcs-profiler`).
    #[arg(verbatim_doc_comment, long = "library", value_name = "FILE")]
    pub library: Option<String>,
    /// Algorithms that model the collectives, as `orcs trace matrix --algorithms` takes
    /// them (OP=ALGORITHM,...; default: the ones MPICH chooses).
    #[arg(verbatim_doc_comment, long = "algorithms", value_name = "LIST")]
    pub algorithms: Option<String>,
    /// The command that runs the MPI application, after `--`, for example
    /// `-- mpirun -n 8 ./app input`.
    #[arg(
        verbatim_doc_comment,
        required = true,
        last = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
}

/// A validated profiling request.
#[derive(Debug)]
pub struct ProfilePlan {
    /// The output folder, absolute (the ranks may run elsewhere).
    pub output: String,
    /// The profiling library, absolute.
    pub library: String,
    /// The collective algorithms, as given.
    pub algorithms: Option<String>,
    /// The command and its arguments.
    pub command: Vec<String>,
}

/// `path` made absolute, as text.
fn absolute(flag: &str, path: &Path) -> Result<String> {
    let full = std::path::absolute(path).with_context(|| format!("{flag}: {}", path.display()))?;
    full.into_os_string()
        .into_string()
        .map_err(|p| anyhow::anyhow!("{flag}: {} is not UTF-8", p.to_string_lossy()))
}

/// The profiling library: `given`, else `$ORCS_PROFILER_LIB`, else beside the running
/// executable or in `../lib` from it.
fn find_library(given: Option<String>) -> Result<String> {
    let candidates: Vec<PathBuf> = match given.or_else(|| std::env::var("ORCS_PROFILER_LIB").ok()) {
        Some(path) => vec![PathBuf::from(path)],
        None => {
            let exe = std::env::current_exe().context("cannot find the orcs executable")?;
            let dir = exe.parent().unwrap_or(Path::new("."));
            vec![dir.join(LIBRARY), dir.join("../lib").join(LIBRARY)]
        }
    };
    for c in &candidates {
        if c.is_file() {
            return absolute("--library", c);
        }
    }
    bail!(
        "--library: no profiling library at {} (build it with `cargo build --release -p \
         orcs-profiler`, which needs an MPI library and its mpicc)",
        candidates
            .iter()
            .map(|c| c.display().to_string())
            .collect::<Vec<_>>()
            .join(" or ")
    )
}

impl ProfileArgs {
    /// The validated request: the library found, the algorithms readable, the output
    /// folder new or empty.
    pub fn into_plan(self) -> Result<ProfilePlan> {
        if let Some(spec) = &self.algorithms {
            AlgorithmChoice::parse(spec).context("--algorithms")?;
        }
        let output = Path::new(&self.output);
        if let Ok(mut entries) = std::fs::read_dir(output) {
            if entries.next().is_some() {
                bail!(
                    "-o/--output: {} is not empty: a profile written into it would mix with \
                     the files there (choose another folder, or empty it)",
                    self.output
                );
            }
        } else if output.exists() {
            bail!("-o/--output: {} exists and is not a folder", self.output);
        }
        Ok(ProfilePlan {
            output: absolute("-o/--output", output)?,
            library: find_library(self.library)?,
            algorithms: self.algorithms,
            command: self.command,
        })
    }
}
