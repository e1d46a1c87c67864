//! The `orcs` command: parse flags → one validated request → run → exit code.
//!
//! Exit status:
//!
//! * 0: success (help and version included). A closed standard output
//!   (`orcs … | head`) is not an error.
//! * 1: bad flags, an unreadable or invalid input, an output that cannot be written (or
//!   that is one of the inputs), or any other error.
//! * 2: broken routes (or a routing that can deadlock) found by `orcs check`,
//!   `orcs convert` or `orcs gen`, whose output is still written. With `--orcs-compat`,
//!   `-g` exits with the level count, as ORCS did.
//! * `orcs profile` passes on the status of the command it ran when that fails (128 +
//!   the signal when a signal ended it).
//! * 101: an internal error, a bug: a panic anywhere, on any thread, prints
//!   `orcs: internal error: <message> at <file:line:column>; this is a bug, please
//!   report it` (with the backtrace too when `RUST_BACKTRACE` is set) and exits.
//!
//! Setting the environment variable `ORCS_TEST_PANIC` makes orcs panic on purpose before
//! anything else, on the main thread (value `main`) or on a worker thread (any other
//! value), so that the tests can check the internal-error path; nothing else reads it.
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

/// The exit status of an internal error (a panic): Rust's own, so that it means the
/// same whether or not the handler ran.
const INTERNAL_ERROR: i32 = 101;

fn main() -> ExitCode {
    report_panics_as_bugs();
    if let Some(place) = std::env::var_os("ORCS_TEST_PANIC") {
        deliberate_panic(&place);
    }
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
    // Under mpirun only simulations (patterns and matrices) and scans are shared out;
    // other commands run once.
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

/// Makes every panic, on any thread, print one line saying it is a bug and exit with
/// status 101 at once: a panic on a worker thread must not leave the others running,
/// and a user should see where to report it rather than Rust's message. The default
/// message and its backtrace come first when `RUST_BACKTRACE` asks for them.
fn report_panics_as_bugs() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            default_hook(info);
        }
        let payload = info.payload();
        let message = (payload.downcast_ref::<&str>().copied())
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        let location = info.location().map_or_else(
            || "an unknown place".to_string(),
            |l| format!("{}:{}:{}", l.file(), l.line(), l.column()),
        );
        eprintln!("orcs: internal error: {message} at {location}; this is a bug, please report it");
        std::process::exit(INTERNAL_ERROR);
    }));
}

/// `ORCS_TEST_PANIC`: panics on the main thread (`main`) or on a worker thread.
fn deliberate_panic(place: &std::ffi::OsStr) {
    let message = "ORCS_TEST_PANIC is set: a deliberate panic";
    if place == "main" {
        panic!("{message}");
    }
    rayon::scope(|s| s.spawn(|_| panic!("{message}")));
}

/// A closed pipe on standard output (`orcs ... | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
