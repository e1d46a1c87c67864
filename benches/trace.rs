//! Speed of reading DUMPI traces, side by side in one run on one trace of at least
//! 1 GiB: `orcs trace dump` against sst-dumpi's `dumpi2ascii -H -S -F -X`, and
//! `orcs trace matrix` and `orcs trace classify` (the replay on 1 and on 63
//! configurations) against decoding alone (every rank streamed through the orcs
//! library, ranks in parallel). Each is timed as a child process writing to /dev/null,
//! with its processor time (user and system, all threads) and peak resident memory from
//! `wait4`; throughput is the trace's .bin bytes over the wall time. On `c` cores a run
//! takes at least its processor time over `c`, so the processor time says whether a
//! program is slow because it waits or because it works.
//!
//! The trace is made once and kept in `target/bench-trace/`: benches/small_messages.c,
//! compiled with mpicc against libdumpi and run under `mpirun -n 2`, exchanges 8-byte
//! messages for as many iterations as a short calibration run says make the size
//! (`ORCS_BENCH_TRACE_MIB`, default 1024 MiB). It needs Open MPI and sst-dumpi (in
//! `~/.cache/sst-dumpi`, built there by `../shared/tools/sst-dumpi/build.sh` when
//! missing); without them the benchmark says what is missing and does nothing.
//!
//! Run: `cargo bench --bench trace`.

use anyhow::{bail, ensure, Context, Result};
use orcs::trace::dumpi::{Record, Trace};
use rayon::prelude::*;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the environment of the child that decodes only: the trace's .meta file.
const DECODE_ONLY: &str = "ORCS_BENCH_DECODE_ONLY";
/// The trace's minimum size in MiB (default 1024).
const SIZE_VARIABLE: &str = "ORCS_BENCH_TRACE_MIB";
/// The ranks of the traced program: one pair.
const RANKS: u32 = 2;
/// Iterations of the calibration run that measures the trace's bytes per iteration.
const CALIBRATION_ITERATIONS: u64 = 20_000;
/// Written beside a trace once libdumpi has finished it, with its iteration count: a
/// trace without it (an interrupted run) is made again.
const COMPLETE: &str = "complete";

fn main() {
    if let Some(meta) = std::env::var_os(DECODE_ONLY) {
        if let Err(e) = decode_only(Path::new(&meta)) {
            eprintln!("decode only: {e:#}");
            std::process::exit(1);
        }
        return;
    }
    // `cargo test --benches` runs bench targets without `--bench`: nothing to measure.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    if let Err(e) = run() {
        eprintln!("trace bench: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let Some(tools) = Tools::find()? else {
        return Ok(());
    };
    let want = wanted_bytes()?;
    let dir = target_dir().join("bench-trace");
    let trace = cached_trace(&tools, &dir, want)?;
    warm_page_cache(&trace)?;
    let load_before = load_average();
    let orcs = Path::new(env!("CARGO_BIN_EXE_orcs"));
    let meta = trace.meta.as_os_str();
    let rows = [
        measure(
            "dumpi2ascii -H -S -F -X (rank files in turn)",
            trace.bins.iter().map(|bin| {
                let mut c = Command::new(&tools.dumpi2ascii);
                c.args(["-H", "-S", "-F", "-X"]).arg(bin).env("TZ", "UTC");
                c
            }),
        ),
        measure("orcs trace dump", [orcs_command(orcs, "dump", meta)]),
        measure("orcs trace matrix", [orcs_command(orcs, "matrix", meta)]),
        measure(
            "orcs trace classify, 1 configuration",
            [classify(orcs, meta, 1)],
        ),
        measure(
            "orcs trace classify, 63 configurations",
            [classify(orcs, meta, 63)],
        ),
        measure("decode only (orcs library, ranks in parallel)", {
            let mut c = Command::new(std::env::current_exe()?);
            c.env(DECODE_ONLY, meta);
            [c]
        }),
    ];
    print_table(&trace, &rows);
    // Other work on the machine slows every row: say how busy it was.
    if let (Some(before), Some(after)) = (load_before, load_average()) {
        println!("load average (1 min) before: {before}, after: {after}");
    }
    Ok(())
}

/// The 1-minute load average, where /proc has it.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_owned)
}

/// Where the programs the benchmark runs are.
struct Tools {
    mpicc: PathBuf,
    mpirun: PathBuf,
    /// sst-dumpi's install prefix (lib/libdumpi, bin/dumpi2ascii).
    dumpi: PathBuf,
    dumpi2ascii: PathBuf,
}

impl Tools {
    /// The tools, building sst-dumpi when it is missing and its source is at hand;
    /// `None`, after saying why, when the benchmark cannot run here.
    fn find() -> Result<Option<Tools>> {
        let (Some(mpicc), Some(mpirun)) = (on_path("mpicc"), on_path("mpirun")) else {
            println!("trace bench skipped: Open MPI's mpicc and mpirun are not on the PATH");
            return Ok(None);
        };
        let home = std::env::var_os("HOME").context("HOME is not set")?;
        let dumpi = Path::new(&home).join(".cache").join("sst-dumpi");
        let dumpi2ascii = dumpi.join("bin").join("dumpi2ascii");
        let build =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/sst-dumpi/build.sh");
        if !dumpi2ascii.is_file() && build.is_file() {
            let built = Command::new(&build).arg(&dumpi).status()?;
            ensure!(
                built.success(),
                "{} {} failed",
                build.display(),
                dumpi.display()
            );
        }
        if !dumpi2ascii.is_file() || !dumpi.join("lib").is_dir() {
            println!(
                "trace bench skipped: sst-dumpi is not built in {} (build it with \
                 ../shared/tools/sst-dumpi/build.sh {})",
                dumpi.display(),
                dumpi.display()
            );
            return Ok(None);
        }
        Ok(Some(Tools {
            mpicc,
            mpirun,
            dumpi,
            dumpi2ascii,
        }))
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The trace size asked for, in bytes.
fn wanted_bytes() -> Result<u64> {
    let mib = match std::env::var(SIZE_VARIABLE) {
        Ok(text) => text
            .parse::<u64>()
            .ok()
            .filter(|&m| m > 0)
            .with_context(|| format!("{SIZE_VARIABLE}={text}: expected a number of MiB"))?,
        Err(_) => 1024,
    };
    Ok(mib << 20)
}

/// Cargo's target folder: `CARGO_TARGET_DIR` when set, else the one in the repository.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    )
}

/// A finished trace: its .meta, its rank files and their total size.
struct TraceFiles {
    meta: PathBuf,
    bins: Vec<PathBuf>,
    bytes: u64,
    iterations: u64,
}

impl TraceFiles {
    /// The trace libdumpi wrote in `dir`, if it is there and complete.
    fn in_dir(dir: &Path) -> Result<Option<TraceFiles>> {
        let Ok(stamp) = std::fs::read_to_string(dir.join(COMPLETE)) else {
            return Ok(None);
        };
        let iterations = stamp.trim().parse().unwrap_or(0);
        let mut metas = Vec::new();
        let mut bins = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            match path.extension().and_then(OsStr::to_str) {
                Some("meta") => metas.push(path),
                Some("bin") => bins.push(path),
                _ => {}
            }
        }
        bins.sort();
        if metas.len() != 1 || bins.len() != RANKS as usize {
            return Ok(None);
        }
        let mut bytes = 0;
        for bin in &bins {
            bytes += std::fs::metadata(bin)?.len();
        }
        Ok(Some(TraceFiles {
            meta: metas.remove(0),
            bins,
            bytes,
            iterations,
        }))
    }
}

/// The trace in `dir` when it holds `want` bytes, else a new one made there.
fn cached_trace(tools: &Tools, dir: &Path, want: u64) -> Result<TraceFiles> {
    if let Some(trace) = TraceFiles::in_dir(dir)? {
        if trace.bytes >= want {
            println!("trace bench: reusing {}", trace.meta.display());
            return Ok(trace);
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot empty {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir)?;
    let exe = compile(tools, dir)?;
    let calibration = dir.join("calibration");
    std::fs::create_dir_all(&calibration)?;
    trace_program(tools, &exe, &calibration, CALIBRATION_ITERATIONS)?;
    let sample = TraceFiles::in_dir(&calibration)?.context("the calibration run left no trace")?;
    std::fs::remove_dir_all(&calibration)?;
    // Fixed costs (headers, MPI_Init, the footer) make the estimate a little high; 2 %
    // more iterations cover the rest.
    let per_iteration = sample.bytes as f64 / CALIBRATION_ITERATIONS as f64;
    let iterations = (want as f64 / per_iteration * 1.02).ceil() as u64;
    println!(
        "trace bench: writing a trace of {iterations} iterations (~{:.0} MB) into {}",
        iterations as f64 * per_iteration / 1e6,
        dir.display()
    );
    let started = Instant::now();
    trace_program(tools, &exe, dir, iterations)?;
    let trace = TraceFiles::in_dir(dir)?.context("the traced run left no trace")?;
    println!(
        "trace bench: {} bytes traced in {:.0} s",
        trace.bytes,
        started.elapsed().as_secs_f64()
    );
    ensure!(
        trace.bytes >= want,
        "the trace holds {} bytes, fewer than the {want} asked for",
        trace.bytes
    );
    Ok(trace)
}

/// Compiles benches/small_messages.c against libdumpi into `dir`.
fn compile(tools: &Tools, dir: &Path) -> Result<PathBuf> {
    let exe = dir.join("small_messages");
    let lib = tools.dumpi.join("lib");
    let status = Command::new(&tools.mpicc)
        .arg("-O2")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/small_messages.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-ldumpi")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .status()
        .context("cannot run mpicc")?;
    ensure!(status.success(), "mpicc failed on benches/small_messages.c");
    Ok(exe)
}

/// Runs `exe` traced under mpirun in `dir` and marks the trace complete.
fn trace_program(tools: &Tools, exe: &Path, dir: &Path, iterations: u64) -> Result<()> {
    std::fs::write(dir.join("dumpi.conf"), "fileroot small_messages\n")?;
    let status = Command::new(&tools.mpirun)
        .args(["--allow-run-as-root", "--oversubscribe", "-n"])
        .arg(RANKS.to_string())
        .arg(exe)
        .arg(iterations.to_string())
        .current_dir(dir)
        .status()
        .context("cannot run mpirun")?;
    ensure!(status.success(), "mpirun of {} failed", exe.display());
    std::fs::write(dir.join(COMPLETE), format!("{iterations}\n"))?;
    Ok(())
}

/// Reads every rank file once, so that no measurement pays for the disk.
fn warm_page_cache(trace: &TraceFiles) -> Result<()> {
    for bin in &trace.bins {
        let mut file = std::fs::File::open(bin)?;
        std::io::copy(&mut file, &mut std::io::sink())?;
    }
    Ok(())
}

fn orcs_command(orcs: &Path, subcommand: &str, meta: &OsStr) -> Command {
    let mut c = Command::new(orcs);
    c.args(["trace", subcommand]).arg(meta);
    c
}

/// `orcs trace classify` on `configs` configurations: 7 latencies × 9 bandwidths for
/// 63, one for 1.
fn classify(orcs: &Path, meta: &OsStr, configs: usize) -> Command {
    let mut c = orcs_command(orcs, "classify", meta);
    if configs == 1 {
        c.args(["--latency", "1us", "--bandwidth", "10Gb/s"]);
    } else {
        c.args(["--latency", "0.25us,0.5us,1us,2us,4us,8us,16us"]);
        c.args([
            "--bandwidth",
            "1Gb/s,2Gb/s,4Gb/s,8Gb/s,16Gb/s,32Gb/s,64Gb/s,128Gb/s,256Gb/s",
        ]);
    }
    c
}

/// What running one or more children cost.
#[derive(Clone, Copy, Default)]
struct Usage {
    /// Summed wall time.
    wall: Duration,
    /// Summed processor time, user and system, over all their threads: on a machine of
    /// `c` cores no run can take less than `cpu / c` of wall time.
    cpu: Duration,
    /// The largest peak resident memory among them, bytes.
    peak: u64,
}

/// One measurement, or why it failed.
struct Row {
    what: &'static str,
    outcome: Result<Usage>,
}

/// Runs `commands` one after the other, each writing to /dev/null.
fn measure(what: &'static str, commands: impl IntoIterator<Item = Command>) -> Row {
    let outcome = run_in_turn(commands);
    Row { what, outcome }
}

/// What `commands`, run one after the other, cost together.
fn run_in_turn(commands: impl IntoIterator<Item = Command>) -> Result<Usage> {
    let mut total = Usage::default();
    for mut command in commands {
        let one = run_child(&mut command)?;
        total.wall += one.wall;
        total.cpu += one.cpu;
        total.peak = total.peak.max(one.peak);
    }
    Ok(total)
}

/// Runs one child to its end: its wall and processor time and its peak resident memory.
fn run_child(command: &mut Command) -> Result<Usage> {
    let shown = format!("{command:?}");
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create("/dev/null")?);
    let started = Instant::now();
    let child = command
        .spawn()
        .with_context(|| format!("cannot start {shown}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child, which nothing else
    // waits for (the `Child` handle is only dropped, which does not wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    drop(child);
    if waited != pid {
        bail!("waiting for {shown}: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) {
        bail!("{shown} was killed by signal {}", libc::WTERMSIG(status));
    }
    if libc::WEXITSTATUS(status) != 0 {
        bail!(
            "{shown} failed with exit status {}",
            libc::WEXITSTATUS(status)
        );
    }
    let seconds = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Ok(Usage {
        wall,
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        peak: usage.ru_maxrss as u64 * 1024,
    })
}

/// The decode-only child: every record of every rank, ranks in parallel.
fn decode_only(meta: &Path) -> Result<()> {
    let trace = Trace::open(meta)?;
    let records = (0..trace.ranks.len())
        .into_par_iter()
        .map(|k| -> Result<u64> {
            let file = trace.rank_file(k)?;
            let mut stream = file.stream()?;
            let mut record = Record::default();
            let mut count = 0;
            while stream.next_into(&mut record)? {
                count += 1;
            }
            Ok(count)
        })
        .sum::<Result<u64>>()?;
    println!("{records} records");
    Ok(())
}

fn print_table(trace: &TraceFiles, rows: &[Row]) {
    let mb = trace.bytes as f64 / 1e6;
    println!(
        "\ntrace: {} ({RANKS} ranks, {} iterations, {:.1} MB of .bin)\n",
        trace.meta.display(),
        trace.iterations,
        mb
    );
    println!(
        "{:<48} {:>9} {:>9} {:>9} {:>13}",
        "", "wall s", "CPU s", "MB/s", "peak RSS MB"
    );
    for row in rows {
        match &row.outcome {
            Ok(usage) => println!(
                "{:<48} {:>9.2} {:>9.2} {:>9.1} {:>13.1}",
                row.what,
                usage.wall.as_secs_f64(),
                usage.cpu.as_secs_f64(),
                mb / usage.wall.as_secs_f64(),
                usage.peak as f64 / 1e6
            ),
            Err(e) => println!("{:<48} failed: {e:#}", row.what),
        }
    }
    let usage = |what: &str| {
        rows.iter()
            .find(|r| r.what.starts_with(what))
            .and_then(|r| r.outcome.as_ref().ok())
    };
    let wall = |what: &str| usage(what).map(|u| u.wall.as_secs_f64());
    let cpu = |what: &str| usage(what).map(|u| u.cpu.as_secs_f64());
    println!();
    if let (Some(ascii), Some(matrix)) = (wall("dumpi2ascii"), wall("orcs trace matrix")) {
        println!(
            "dumpi2ascii / orcs trace matrix: {:.1}x (goal: at least 20x)",
            ascii / matrix
        );
    }
    if let (Some(ascii), Some(dump)) = (wall("dumpi2ascii"), wall("orcs trace dump")) {
        println!("dumpi2ascii / orcs trace dump: {:.2}x", ascii / dump);
    }
    if let (Some(matrix), Some(decode)) = (wall("orcs trace matrix"), wall("decode only")) {
        println!(
            "orcs trace matrix / decode only: {:.2}x the time",
            matrix / decode
        );
    }
    if let (Some(one), Some(many), Some(decode)) = (
        wall("orcs trace classify, 1 "),
        wall("orcs trace classify, 63"),
        wall("decode only"),
    ) {
        println!(
            "classify: 63 configurations / 1: {:.2}x the time (goal: at most 2x); 63 configurations / decode only: {:.2}x (goal: under 2x)",
            many / one,
            many / decode
        );
    }
    if let (Some(many), Some(decode)) = (cpu("orcs trace classify, 63"), cpu("decode only")) {
        println!(
            "processor time: 63 configurations / decode only: {:.2}x",
            many / decode
        );
    }
    println!("goals: orcs trace matrix at least 500 MB/s on 2 cores, peak memory under 100 MB");
}
