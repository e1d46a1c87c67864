//! The profiler's cost to an application: `benches/mpi/overhead.c` under `mpirun -n 2`
//! with and without `liborcs_profiler.so` preloaded, alternately, in one run. Prints the
//! mean time of one iteration of each loop (8-byte ping-pong, 8-byte-per-peer
//! alltoall, a send to itself) and the difference per iteration, the profiler's
//! overhead. Needs mpicc and mpirun; builds the profiler with cargo first.
//!
//! `cargo bench --bench profiler` (not a criterion bench: each sample is a whole MPI
//! job, which times itself with MPI_Wtime).

use std::path::Path;
use std::process::Command;

/// Iterations of each loop in one job.
const ITERATIONS: &str = "400000";
/// Jobs with and without the profiler, alternately, per loop.
const ROUNDS: usize = 5;

fn run(exe: &Path, mode: &str, preload: Option<&Path>, dir: &Path) -> f64 {
    let mut job = Command::new("mpirun");
    job.args(["--allow-run-as-root", "--oversubscribe", "-n", "2"]);
    if let Some(lib) = preload {
        let out = dir.join(format!("profile-{mode}"));
        let _ = std::fs::remove_dir_all(&out);
        job.arg("-x")
            .arg(format!("LD_PRELOAD={}", lib.display()))
            .arg("-x")
            .arg(format!("ORCS_PROFILE_DIR={}", out.display()));
    }
    let out = job
        .arg(exe)
        .args([mode, ITERATIONS])
        .output()
        .expect("run mpirun");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("the loop prints its time per iteration")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if Command::new("mpicc").arg("--version").output().is_err() {
        eprintln!("skipped: the profiler bench needs mpicc and mpirun");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "orcs-profiler"])
        .current_dir(root)
        .status()
        .expect("run cargo");
    assert!(built.success());
    let lib = root.join("target/release/liborcs_profiler.so");
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("overhead");
    let compiled = Command::new("mpicc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(root.join("benches/mpi/overhead.c"))
        .status()
        .expect("run mpicc");
    assert!(compiled.success());
    println!(
        "{:<10} {:>14} {:>14} {:>12} {:>9}",
        "loop", "without (ns)", "with (ns)", "overhead", ""
    );
    for mode in ["pingpong", "alltoall", "isend"] {
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            without.push(run(&exe, mode, None, dir.path()));
            with.push(run(&exe, mode, Some(&lib), dir.path()));
        }
        let (a, b) = (median(without), median(with));
        println!(
            "{mode:<10} {a:>14.1} {b:>14.1} {:>9.1} ns {:>7.1} %",
            b - a,
            (b - a) / a * 100.0
        );
    }
}
