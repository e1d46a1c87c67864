//! `orcs profile` and its library (profiler/): programs of tests/mpi-programs/ whose
//! traffic is known in closed form (the same closed forms as trace_programs.rs) run under
//! `mpirun -n 4` and `-n 8` with the library preloaded, also a Fortran one through both
//! Fortran bindings. Their matrices equal the closed forms, phase by phase; they equal `orcs trace matrix` of the same programs traced
//! with libdumpi; the PFProf files give the same results as the matrix in `-p matrix`
//! and `orcs traffic`; and a profiled application keeps its behaviour and exit status.

use crate::support::*;
use crate::trace_programs::{
    alltoallv, binomial_bcast, collectives_forced, collectives_mpich, halo2d, onesided, ring,
    Traffic, FORCED, RANKS,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The profiling library beside the orcs executable, built (or found up to date) with
/// cargo; None, with a visible skip note, without mpicc and mpirun unless
/// `ORCS_REQUIRE_MPI` is set (CI sets it).
#[track_caller]
fn library() -> Option<PathBuf> {
    // Tests run in parallel: the first builds, the others wait and find it built.
    static BUILD: Mutex<()> = Mutex::new(());
    if !tools_present(&["mpicc", "mpirun"], "ORCS_REQUIRE_MPI") {
        return None;
    }
    let exe = Path::new(env!("CARGO_BIN_EXE_orcs"));
    let _guard = BUILD.lock().unwrap_or_else(|p| p.into_inner());
    let release = exe.parent().and_then(Path::file_name) == Some("release".as_ref());
    build_profiler(release, None, None);
    let lib = exe.with_file_name("liborcs_profiler.so");
    assert!(lib.is_file(), "{} was not built", lib.display());
    Some(lib)
}

/// Runs `cargo build -p orcs-profiler` (`--release` if `release`), against the MPI of
/// `mpicc` into `target_dir` when given, failing the test with cargo's message if it
/// fails.
fn build_profiler(release: bool, mpicc: Option<&str>, target_dir: Option<&str>) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "-p", "orcs-profiler"])
        .current_dir(repo("."));
    if release {
        build.arg("--release");
    }
    if let Some(dir) = target_dir {
        build.args(["--target-dir", dir]);
    }
    if let Some(wrapper) = mpicc {
        build.env("MPICC", wrapper);
    }
    let built = build.output().expect("run cargo build -p orcs-profiler");
    assert!(
        built.status.success(),
        "cargo build -p orcs-profiler (MPICC {mpicc:?}) failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
}

/// tests/mpi-programs/`name`.c compiled with mpicc into `dir`.
fn compile(name: &str, dir: &Path) -> PathBuf {
    compile_with("mpicc", name, dir)
}

/// tests/mpi-programs/`name`.c compiled with the MPI compiler wrapper `mpicc` into
/// `dir`.
fn compile_with(mpicc: &str, name: &str, dir: &Path) -> PathBuf {
    let source = repo(&format!("tests/mpi-programs/{name}.c"));
    compile_source(mpicc, Path::new(&source), &dir.join(name))
}

/// tests/mpi-programs/fortran.f90 compiled with the MPI Fortran wrapper `mpifort` into
/// `dir`.
fn compile_fortran(mpifort: &str, dir: &Path) -> PathBuf {
    let source = repo("tests/mpi-programs/fortran.f90");
    compile_source(
        mpifort,
        Path::new(&source),
        &dir.join(format!("fortran-{mpifort}")),
    )
}

/// fortran.f90: ring.c's traffic, then alltoallv.c's.
fn fortran(p: usize) -> Traffic {
    ring(p) + alltoallv(p)
}

/// mpi4.c (MPI 4's large-count functions and persistent collectives, p ≥ 3): 3 × 1000
/// bytes to r + 1; 16 bytes to each neighbour of the ring; the alltoallv of
/// alltoallv.c; MPICH's binomial bcast of 4096 bytes from 0, twice, and of 512 bytes
/// from 1.
fn mpi4(p: usize) -> Traffic {
    let world: Vec<usize> = (0..p).collect();
    let mut t = alltoallv(p)
        + binomial_bcast(&world, 0, 4096)
        + binomial_bcast(&world, 0, 4096)
        + binomial_bcast(&world, 1, 512);
    for r in 0..p {
        for _ in 0..3 {
            t.send(r, (r + 1) % p, 1000);
        }
        t.send(r, (r + p - 1) % p, 16);
        t.send(r, (r + 1) % p, 16);
    }
    t
}

/// `source` compiled with the MPI compiler wrapper `mpicc` into `exe`.
fn compile_source(mpicc: &str, source: &Path, exe: &Path) -> PathBuf {
    let out = Command::new(mpicc)
        .arg(source)
        .arg("-o")
        .arg(exe)
        .output()
        .expect("run the MPI compiler wrapper");
    assert!(
        out.status.success(),
        "{mpicc} {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe.to_path_buf()
}

/// `orcs profile -o DIR [flags] -- mpirun -n ranks program`; returns the run and DIR.
fn profile(program: &Path, ranks: usize, flags: &[&str], dir: &Path) -> (Run, PathBuf) {
    let out = dir.join(format!(
        "{}-{ranks}{}",
        program.file_name().unwrap().to_string_lossy(),
        flags.len()
    ));
    let out_s = out.to_str().unwrap().to_string();
    let ranks = ranks.to_string();
    let prog = program.to_str().unwrap().to_string();
    let mut args = vec!["profile", "-o", &out_s];
    args.extend_from_slice(flags);
    args.extend([
        "--",
        "mpirun",
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &ranks,
        &prog,
    ]);
    (orcs(&args), out)
}

/// The traffic of a profile's matrix file `name`.
#[track_caller]
fn matrix(dir: &Path, name: &str) -> Traffic {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Traffic::from_csv_text(&text, &path.display().to_string())
}

#[track_caller]
fn assert_traffic(what: &str, expected: &Traffic, got: &Traffic) {
    assert!(
        got == expected,
        "{what}: the profile differs from the closed form:\n{}",
        expected.differences(got)
    );
}

#[test]
fn profiled_programs_send_their_closed_form_traffic() {
    let Some(_) = library() else { return };
    let dir = tempfile::tempdir().unwrap();
    type Case = (&'static str, &'static [&'static str], fn(usize) -> Traffic);
    let cases: [Case; 7] = [
        ("ring", &[], ring),
        ("alltoallv", &[], alltoallv),
        ("halo2d", &[], halo2d),
        ("onesided", &[], onesided),
        ("neighbors", &[], neighbors),
        ("collectives", &[], collectives_mpich),
        ("collectives", &["--algorithms", FORCED], collectives_forced),
    ];
    for (name, flags, closed_form) in cases {
        let program = compile(name, dir.path());
        for p in RANKS {
            let (run, out) = profile(&program, p, flags, dir.path());
            let run = run.ok();
            assert!(
                run.stdout.contains(&format!("Profile of {p} ranks")),
                "{}",
                run.describe()
            );
            let what = format!("{name} {flags:?} on {p} ranks");
            assert_traffic(&what, &closed_form(p), &matrix(&out, "matrix.csv"));
            // Without MPI_Pcontrol: one file per rank in PFProf's single-phase layout.
            for r in 0..p {
                let doc: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join(format!("rank-{r}.json"))).unwrap(),
                )
                .unwrap();
                assert_eq!(
                    (doc["rank"].as_u64(), doc["n_procs"].as_u64()),
                    (Some(r as u64), Some(p as u64))
                );
                assert!(
                    doc.get("phases").is_none() && doc["tx_bytes"].is_array(),
                    "{doc}"
                );
            }
        }
    }
}

#[test]
fn fortran_programs_are_profiled_through_both_bindings() {
    // Open MPI's Fortran bindings call PMPI_X, not MPI_X: the library exports both.
    let Some(_) = library() else { return };
    if !tools_present(&["mpifort"], "ORCS_REQUIRE_MPI") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let program = compile_fortran("mpifort", dir.path());
    for p in RANKS {
        let (run, out) = profile(&program, p, &[], dir.path());
        run.ok();
        assert_traffic(
            &format!("fortran.f90 on {p} ranks"),
            &fortran(p),
            &matrix(&out, "matrix.csv"),
        );
    }
}

/// tests/mpi-programs/neighbors.c: on the d0 × d1 grid of MPI_Dims_create (4: 2 × 2,
/// 8: 4 × 2; rank = d1·c0 + c1), 8 (i + 1) bytes to the i-th neighbour (c0 − 1, c0 + 1,
/// c1 − 1, c1 + 1, periodically); 100 bytes to r + 1 and r + 3; 50 to r + 1 and r − 1.
fn neighbors(p: usize) -> Traffic {
    let (d0, d1) = match p {
        4 => (2, 2),
        8 => (4, 2),
        _ => panic!("no grid written down for {p} ranks"),
    };
    let mut t = Traffic::default();
    for r in 0..p {
        let (c0, c1) = (r / d1, r % d1);
        let grid = [
            ((c0 + d0 - 1) % d0, c1),
            ((c0 + 1) % d0, c1),
            (c0, (c1 + d1 - 1) % d1),
            (c0, (c1 + 1) % d1),
        ];
        for (i, (a, b)) in grid.into_iter().enumerate() {
            t.send(r, a * d1 + b, 8 * (i as u64 + 1));
        }
        t.send(r, (r + 1) % p, 100);
        t.send(r, (r + 3) % p, 100);
        t.send(r, (r + 1) % p, 50);
        t.send(r, (r + p - 1) % p, 50);
    }
    t
}

/// tests/mpi-programs/pcontrol_phases.c: the traffic of each MPI_Pcontrol level.
fn phase_traffic(p: usize, level: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        let (next, prev) = ((r + 1) % p, (r + p - 1) % p);
        match level {
            1 => (0..3).for_each(|_| t.send(r, next, 1000 * (r as u64 + 1))),
            2 => (0..p)
                .filter(|&j| j != r)
                .for_each(|j| t.send(r, j, 4 * (r as u64 + 1) * (j as u64 + 1))),
            3 => {
                // Rank r is rank p - 1 - r of the reversed communicator: its right
                // neighbour there is world rank r - 1, its left one r + 1.
                t.send(r, prev, 64);
                t.send(r, next, 8);
            }
            4 => (0..5).for_each(|_| t.send(r, (r + 2) % p, 256)),
            _ => {}
        }
    }
    if level == 5 {
        // 100 bytes: MPICH broadcasts them along a binomial tree.
        let world: Vec<usize> = (0..p).collect();
        return binomial_bcast(&world, 0, 100);
    }
    t
}

#[test]
fn each_pcontrol_level_is_a_matrix_of_its_own() {
    let Some(_) = library() else { return };
    let dir = tempfile::tempdir().unwrap();
    let program = compile("pcontrol_phases", dir.path());
    for p in RANKS {
        let (run, out) = profile(&program, p, &[], dir.path());
        run.ok();
        let mut whole = Traffic::default();
        for level in 1..=5 {
            let expected = phase_traffic(p, level);
            let got = matrix(&out, &format!("matrix.phase-{level}.csv"));
            assert_traffic(&format!("phase {level} on {p} ranks"), &expected, &got);
            whole = whole + expected;
        }
        assert_traffic(
            &format!("the whole run on {p} ranks"),
            &whole,
            &matrix(&out, "matrix.csv"),
        );
        // The PFProf files: the multi-phase layout, each rank's received traffic the
        // column of the matrix.
        for r in 0..p {
            let doc: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(out.join(format!("rank-{r}.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(doc["n_phases"], 6);
            let phase = &doc["phases"][2];
            let rx: Vec<u64> = (0..p)
                .map(|j| phase_traffic(p, 2).0.get(&(j, r)).map_or(0, |t| t.0))
                .collect();
            assert_eq!(phase["rx_bytes"], serde_json::json!(rx), "rank {r}");
            assert_eq!(phase["collectives"][0]["op"], "alltoallv");
        }
        // The PFProf files and the matrix give the same simulation.
        let sim = |traffic: &Path| -> serde_json::Value {
            let run = orcs(&[
                "-i",
                &repo(FT4),
                "-p",
                "matrix",
                "--traffic",
                traffic.to_str().unwrap(),
                "-n",
                "20",
                "--seed",
                "4",
                "--format",
                "json",
                "-q",
            ])
            .ok();
            serde_json::from_str(&run.stdout).unwrap()
        };
        let (from_json, from_csv) = (sim(&out), sim(&out.join("matrix.csv")));
        assert_eq!(from_json["summary"], from_csv["summary"]);
        assert_eq!(
            from_json["matrix"]["total_bytes"],
            from_csv["matrix"]["total_bytes"]
        );
        // And the same placement study in `orcs traffic`: every link's bytes and flows.
        let placed = |traffic: &Path, links: &str| -> (String, String) {
            let links = dir.path().join(links);
            let run = orcs(&[
                "traffic",
                "--cluster",
                &repo(FT4),
                "--matrix",
                traffic.to_str().unwrap(),
                "--links",
                links.to_str().unwrap(),
            ])
            .ok();
            let table = run.stdout.lines().skip(1).collect::<Vec<_>>().join("\n");
            (table, std::fs::read_to_string(links).unwrap())
        };
        let from_json = placed(&out, &format!("links-json-{p}.csv"));
        let from_csv = placed(&out.join("matrix.csv"), &format!("links-csv-{p}.csv"));
        assert!(from_json.1.lines().count() > 1, "{}", from_json.1);
        assert_eq!(from_json, from_csv);
    }
}

#[test]
fn the_profile_equals_the_dumpi_trace_of_the_same_program() {
    let Some(_) = library() else { return };
    let Some(prefix) = crate::dumpi::sst_dumpi() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["ring", "halo2d", "collectives"] {
        let traced = crate::dumpi::TracedProgram::compile(&prefix, name);
        let program = compile(name, dir.path());
        for p in RANKS {
            let trace = traced.trace(p);
            let meta = trace.meta.to_string_lossy().into_owned();
            let run = orcs(&["trace", "matrix", meta.as_str()]).ok();
            let from_trace = Traffic::from_csv_text(&run.stdout, &run.describe());
            let (profiled, out) = profile(&program, p, &[], dir.path());
            profiled.ok();
            assert_traffic(
                &format!("{name} on {p} ranks, against its DUMPI trace"),
                &from_trace,
                &matrix(&out, "matrix.csv"),
            );
        }
    }
}

/// Writes a C program into `dir` and compiles it.
fn compile_text(name: &str, text: &str, dir: &Path) -> PathBuf {
    let source = dir.join(format!("{name}.c"));
    std::fs::write(&source, text).unwrap();
    compile_source("mpicc", &source, &dir.join(name))
}

#[test]
fn a_profiled_application_keeps_its_output_and_exit_status() {
    let Some(lib) = library() else { return };
    let dir = tempfile::tempdir().unwrap();
    let program = compile_text(
        "status",
        "#include <mpi.h>\n#include <stdio.h>\nint main(int c, char **v) {\n\
         MPI_Init(&c, &v); int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);\n\
         if (r == 0) printf(\"result 42\\n\");\nMPI_Finalize(); return 3; }\n",
        dir.path(),
    );
    // orcs profile returns the application's status, after its summary.
    let (run, out) = profile(&program, 2, &[], dir.path());
    assert_eq!(run.status, Some(3), "{}", run.describe());
    assert!(
        run.stdout.contains("result 42") && run.stdout.contains("Profile of 2 ranks"),
        "{}",
        run.describe()
    );
    assert!(
        run.stderr.contains("exited with status 3"),
        "{}",
        run.describe()
    );
    assert!(out.join("matrix.csv").is_file());
    // A profile that cannot be written: the library says so and the application runs
    // to its end with its own status.
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "not a folder").unwrap();
    let ran = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            "2",
            "-x",
            "LD_PRELOAD",
            "-x",
            "ORCS_PROFILE_DIR",
        ])
        .arg(&program)
        .env("LD_PRELOAD", &lib)
        .env("ORCS_PROFILE_DIR", blocked.join("profile"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(3), "{stderr}");
    assert!(String::from_utf8_lossy(&ran.stdout).contains("result 42"));
    assert!(
        stderr.contains("orcs-profiler: rank 0: cannot create"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&blocked).unwrap(), "not a folder");
}

#[test]
fn profile_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("old.json"), "{}").unwrap();
    let full = d.to_str().unwrap();
    let lib = d.join("old.json");
    let lib = lib.to_str().unwrap();
    orcs(&["profile", "-o", full, "--library", lib, "--", "true"])
        .fails_with(1, &["-o/--output", "is not empty"]);
    let fresh = d.join("new");
    let fresh = fresh.to_str().unwrap();
    orcs(&[
        "profile",
        "-o",
        fresh,
        "--library",
        "/nonexistent/lib.so",
        "--",
        "true",
    ])
    .fails_with(
        1,
        &[
            "--library",
            "/nonexistent/lib.so",
            "cargo build --release -p orcs-profiler",
        ],
    );
    orcs(&[
        "profile",
        "-o",
        fresh,
        "--library",
        lib,
        "--algorithms",
        "bcast=ring",
        "--",
        "true",
    ])
    .fails_with(1, &["--algorithms", "bcast"]);
    orcs(&["profile", "-o", fresh, "--library", lib]).fails_with(1, &["COMMAND"]);
    // A command that is not an MPI program writes no profile: said, and an error.
    orcs(&["profile", "-o", fresh, "--library", lib, "--", "true"])
        .fails_with(1, &["wrote no profile", "MPI_Finalize"]);
    orcs(&[
        "profile",
        "-o",
        fresh,
        "--library",
        lib,
        "--",
        "/nonexistent/app",
    ])
    .fails_with(1, &["cannot run /nonexistent/app"]);
}

/// The profiling library built against MPICH (its `mpicc.mpich`), in a target folder of
/// its own; None, with a visible skip note, without MPICH unless `ORCS_REQUIRE_MPICH`
/// is set (CI sets it).
#[track_caller]
fn mpich_library() -> Option<PathBuf> {
    if !tools_present(&["mpicc.mpich", "mpirun.mpich"], "ORCS_REQUIRE_MPICH") {
        return None;
    }
    let target = repo("target/mpich");
    build_profiler(true, Some("mpicc.mpich"), Some(&target));
    Some(Path::new(&target).join("release/liborcs_profiler.so"))
}

#[test]
fn under_mpich_the_same_programs_give_the_same_traffic() {
    // MPICH's handles are integers where Open MPI's are pointers: the same wrappers,
    // built against its mpi.h, must count the same.
    let Some(lib) = mpich_library() else { return };
    let lib = lib.to_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    type Case = (&'static str, fn(usize) -> Traffic);
    let cases: [Case; 6] = [
        // MPICH has MPI 4's functions, which Open MPI 4.1 lacks.
        ("mpi4", mpi4),
        ("ring", ring),
        ("halo2d", halo2d),
        ("onesided", onesided),
        ("collectives", collectives_mpich),
        ("neighbors", neighbors),
    ];
    let programs = cases.into_iter().map(|(name, closed_form)| {
        (
            name,
            compile_with("mpicc.mpich", name, dir.path()),
            closed_form,
        )
    });
    let fortran_program = tools_present(&["mpifort.mpich"], "ORCS_REQUIRE_MPICH").then(|| {
        (
            "fortran",
            compile_fortran("mpifort.mpich", dir.path()),
            fortran as fn(usize) -> Traffic,
        )
    });
    for (name, program, closed_form) in programs.chain(fortran_program) {
        let out = dir.path().join(format!("{name}-mpich"));
        let out_s = out.to_str().unwrap();
        orcs(&[
            "profile",
            "-o",
            out_s,
            "--library",
            &lib,
            "--",
            "mpirun.mpich",
            "-n",
            "4",
            program.to_str().unwrap(),
        ])
        .ok();
        assert_traffic(
            &format!("{name} under MPICH"),
            &closed_form(4),
            &matrix(&out, "matrix.csv"),
        );
    }
}
