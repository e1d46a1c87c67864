//! `orcs profile`: the command run with the profiling library preloaded into its
//! ranks, then a summary of the matrices it wrote.

use crate::cli::profile::ProfilePlan;
use crate::output::write_whole;
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode, ExitStatus};

/// The variables the library reads, which `mpirun` must pass on to the ranks.
const FORWARDED: [&str; 3] = ["LD_PRELOAD", "ORCS_PROFILE_DIR", "ORCS_PROFILE_ALGORITHMS"];

/// Runs the command, then prints what the profile holds. The exit status is the
/// command's when it fails (128 + the signal when a signal ended it).
pub fn run(plan: &ProfilePlan) -> Result<ExitCode> {
    let mut preload = OsString::from(&plan.library);
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    // Open MPI's mpirun passes on to the ranks the variables this list names (MPICH's
    // passes every variable); without it, ranks started on other nodes would run
    // unprofiled.
    let mut forwarded: Vec<&str> = FORWARDED.to_vec();
    if plan.algorithms.is_none() {
        forwarded.pop();
    }
    let mut env_list = forwarded.join(";");
    if let Ok(old) = std::env::var("OMPI_MCA_mca_base_env_list") {
        if !old.is_empty() {
            env_list = format!("{old};{env_list}");
        }
    }
    let mut command = Command::new(&plan.command[0]);
    command
        .args(&plan.command[1..])
        .env("LD_PRELOAD", preload)
        .env("ORCS_PROFILE_DIR", &plan.output)
        .env("OMPI_MCA_mca_base_env_list", env_list);
    if let Some(spec) = &plan.algorithms {
        command.env("ORCS_PROFILE_ALGORITHMS", spec);
    }
    let status = command
        .status()
        .with_context(|| format!("cannot run {}", plan.command[0]))?;
    let summary = summary(Path::new(&plan.output));
    match (status.success(), summary) {
        (true, Ok(text)) => {
            write_whole("standard output", "-", text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        (true, Err(e)) => Err(e),
        (false, summary) => {
            if let Ok(text) = summary {
                write_whole("standard output", "-", text.as_bytes())?;
            }
            eprintln!("orcs: {} {}", plan.command[0], describe(status));
            Ok(ExitCode::from(exit_code(status)))
        }
    }
}

/// How the command ended, for a message.
fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was ended by signal {signal}"),
        (None, None) => "failed".to_string(),
    }
}

/// The command's exit status as orcs's own: its code, or 128 + the signal.
fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1).max(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// The pairs and bytes of a matrix file the library wrote (`src,dst,bytes,messages`
/// rows under `#` comments and a header). Read here rather than with the matrix
/// readers, which refuse a matrix without traffic: a program that sent nothing still
/// has a profile.
fn totals(path: &Path) -> Result<(u64, u64)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = text.lines().filter(|l| !l.starts_with('#')).skip(1);
    rows.try_fold((0u64, 0u64), |(pairs, bytes), row| {
        let b: u64 = row
            .split(',')
            .nth(2)
            .and_then(|f| f.parse().ok())
            .with_context(|| format!("{}: unexpected row {row:?}", path.display()))?;
        Ok((pairs + 1, bytes.saturating_add(b)))
    })
}

/// What the profile in `dir` holds: ranks, pairs and bytes of the whole run and of each
/// phase, the files, and the next command.
fn summary(dir: &Path) -> Result<String> {
    let whole = dir.join("matrix.csv");
    if !whole.is_file() {
        bail!(
            "the command wrote no profile into {}: it did not reach MPI_Finalize, it is not \
             an MPI program, or its launcher did not preload the library into the ranks (with \
             Open MPI's mpirun, `-x LD_PRELOAD -x ORCS_PROFILE_DIR` does)",
            dir.display()
        );
    }
    let mut phases: Vec<(u32, std::path::PathBuf)> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let k = name
                .strip_prefix("matrix.phase-")?
                .strip_suffix(".csv")?
                .parse()
                .ok()?;
            Some((k, path))
        })
        .collect();
    phases.sort();
    let mut text = String::new();
    for (label, path) in std::iter::once(("whole run".to_string(), &whole))
        .chain(phases.iter().map(|(k, path)| (format!("phase {k}"), path)))
    {
        let (pairs, bytes) = totals(path)?;
        text.push_str(&format!(
            "  {label:<10} {pairs:>6} pairs {bytes:>16} bytes   {}\n",
            path.display()
        ));
    }
    let first = dir.join("rank-0.json");
    let doc: serde_json::Value = std::fs::read_to_string(&first)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .with_context(|| format!("cannot read the profile's {}", first.display()))?;
    let ranks = doc["n_procs"].as_u64().unwrap_or(0);
    Ok(format!(
        "Profile of {ranks} ranks in {} (one PFProf file per rank: rank-R.json)\n{text}\
         Next: orcs -i FABRIC -p matrix --traffic {}\n",
        dir.display(),
        whole.display()
    ))
}
