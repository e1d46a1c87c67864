//! The `orcs` command: parse flags → one validated request → run → exit code.
//!
//! Exit status: 0 success (help and version included); 1 bad flags, an unreadable or
//! invalid input, or any other error; 2 broken routes (or a routing that can deadlock)
//! found by `orcs check`, `orcs convert` or `orcs gen`, whose output is still written.
//! A closed standard output (`orcs … | head`) is not an error. With `--orcs-compat`,
//! `-g` exits with the level count, as ORCS did.
//!
//! [`cli`] turns the flags into a validated [`cli::Invocation`] and lists the files each
//! request reads and writes ([`cli::files`]), which are checked before any work; [`cmd`]
//! runs it with the library, and every byte written goes through [`output`];
//! [`progress`] shows spinners and progress bars on a terminal.

mod cli;
mod cmd;
mod output;
mod progress;

use anyhow::{Context, Result};
use clap::Parser;
use orcs::engine::ranks::{self, Ranks};
use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Finalises MPI (when in use) after the command, at the end of main.
    let (ranks, _mpi) = ranks::init();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // Help and version are successes; every usage error exits 1 as in ORCS.
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    match cli.into_invocation().and_then(|i| run(i, ranks)) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("orcs: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// Runs the command on this rank with the worker pool asked for.
fn run(invocation: cli::Invocation, ranks: Ranks) -> Result<ExitCode> {
    // Under mpirun only simulations and scans are shared out; other commands run once.
    if !ranks.is_root() && !invocation.request.is_shared() {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(n) = invocation.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    cli::files::check(&invocation.request)?;
    cmd::run(invocation.request, ranks)
}

/// A closed pipe on standard output (`orcs ... | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
