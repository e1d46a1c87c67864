//! Under `mpirun` (cargo feature `mpi`), a simulation (patterns, `-p matrix`, the task
//! model) and a trace's replay split over 2 and 3 ranks print exactly the bytes of one
//! process with the same seed, and a scan's records equal the one-process scan's. The
//! module exists with the `mpi` feature only; CI builds the feature and runs these with
//! Open MPI: `cargo test --release --features mpi --test it mpi::`.

use crate::support::*;
use std::process::Command;

/// `mpirun -n ranks orcs args…`, from the repository root.
fn mpirun(ranks: usize, args: &[&str]) -> Run {
    let out = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            &ranks.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_orcs"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mpirun (Open MPI) must be installed to test the mpi feature");
    Run {
        command: format!("mpirun -n {ranks} orcs {}", args.join(" ")),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `args` in one process and under 2 and 3 ranks, asserts that every split run
/// prints the one process's standard output, and returns the one-process run and the
/// split runs.
fn split_runs_print_the_one_process_bytes(args: &[&str]) -> (Run, Vec<Run>) {
    let single = orcs(args).ok();
    let splits: Vec<Run> = [2, 3].map(|ranks| mpirun(ranks, args).ok()).into();
    for split in &splits {
        assert_same_output(split, &single);
    }
    (single, splits)
}

/// The seed that `run` (under `mpirun`) drew and printed, on rank 0 alone.
fn drawn_seed(run: &Run) -> &str {
    assert_eq!(
        run.stderr.matches("using --seed").count(),
        1,
        "only rank 0 prints\n{}",
        run.describe()
    );
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("orcs: using --seed "))
        .unwrap_or_else(|| panic!("no seed printed\n{}", run.describe()))
}

/// The standard output of a run under `mpirun` is that of one process, byte for byte.
fn assert_same_output(split: &Run, single: &Run) {
    assert_eq!(
        split.stdout,
        single.stdout,
        "{}\nvs\n{}",
        split.describe(),
        single.describe()
    );
}

#[test]
fn ranks_print_the_one_process_bytes() {
    let cases: [&[&str]; 5] = [
        &["-i", FT8, "-p", "bruck", "-n", "997", "--seed", "5"],
        &[
            "-i",
            FT8,
            "-p",
            "rand",
            "-n",
            "301",
            "--seed",
            "9",
            "--metric",
            "dep_max_delay",
        ],
        &[
            "-i",
            FT4,
            "-p",
            "tree",
            "-n",
            "64",
            "--seed",
            "2",
            "--metric",
            "get_cable_cong",
        ],
        &[
            "-i",
            FT4,
            "-p",
            "bisect",
            "-n",
            "50",
            "--seed",
            "3",
            "--metric",
            "hist_acc_band",
            "--format",
            "json",
        ],
        // Fewer runs than ranks: some ranks have nothing to do.
        &[
            "-i",
            FT4,
            "-p",
            "ring",
            "-n",
            "2",
            "--seed",
            "4",
            "--metric",
            "sum_max_cong",
            "--format",
            "csv",
        ],
    ];
    for args in cases {
        split_runs_print_the_one_process_bytes(args);
    }
}

#[test]
fn a_matrix_split_over_ranks_prints_the_one_process_bytes() {
    // 12 ranks of uneven traffic, 2 a host, placed at random on FT4's 16 hosts: every
    // metric and the per-link table of 2 and 3 ranks equal one process's bytes.
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("m.csv");
    let mut text = String::from("src,dst,bytes\n");
    for r in 0..12u64 {
        text.push_str(&format!("{r},{},{}\n", (r + 1) % 12, 100 + 7 * r));
        text.push_str(&format!("{r},{},3\n", (r + 5) % 12));
    }
    std::fs::write(&matrix, text).unwrap();
    let matrix = matrix.to_str().unwrap();
    let base = ["-i", FT4, "-p", "matrix", "--matrix", matrix, "--ppn", "2"];
    let cases: [&[&str]; 4] = [
        &["-n", "97", "--seed", "5"],
        &[
            "-n",
            "61",
            "--seed",
            "6",
            "--metric",
            "hist_acc_band",
            "--format",
            "json",
        ],
        &["-n", "40", "--seed", "7", "--metric", "get_cable_cong"],
        // Fewer runs than ranks: some ranks have nothing to do.
        &[
            "-n",
            "2",
            "--seed",
            "8",
            "--metric",
            "sum_max_cong",
            "--format",
            "csv",
        ],
    ];
    for case in cases {
        let args: Vec<&str> = base.iter().chain(case).copied().collect();
        let one_links = dir.path().join("one-links.csv");
        let mut with_links = args.clone();
        with_links.extend(["--links", one_links.to_str().unwrap()]);
        let single = orcs(&with_links).ok();
        for ranks in [2, 3] {
            let split_links = dir.path().join(format!("links-{ranks}.csv"));
            let mut with_links = args.clone();
            with_links.extend(["--links", split_links.to_str().unwrap()]);
            let split = mpirun(ranks, &with_links).ok();
            assert_same_output(&split, &single);
            assert_eq!(
                std::fs::read(&split_links).unwrap(),
                std::fs::read(&one_links).unwrap(),
                "{}",
                split.describe()
            );
        }
    }
}

#[test]
fn task_model_replications_split_over_ranks_print_the_one_process_bytes() {
    // A sweep of 2 networks × 2 schedulers × 2 loads, 3 replications each (24 jobs),
    // and one point with its link table and traffic matrix: 2 and 3 ranks print the
    // bytes of one process.
    let dir = tempfile::tempdir().unwrap();
    let sweep = [
        "tasks",
        "sweep",
        "--network",
        "crossbar,tests/fixtures/two-switch-3x2.dot",
        "--scheduler",
        "central,stealing",
        "--nodes",
        "6",
        "--load",
        "0.3,0.6",
        "--roots",
        "60",
        "--replications",
        "3",
        "--seed",
        "2",
        "--format",
        "json",
    ];
    split_runs_print_the_one_process_bytes(&sweep);
    let files = |tag: &str| {
        let links = dir.path().join(format!("links-{tag}.csv"));
        let matrix = dir.path().join(format!("matrix-{tag}.csv"));
        (links, matrix)
    };
    let point = |tag: &str| -> Vec<String> {
        let (links, matrix) = files(tag);
        [
            "tasks",
            "run",
            "--network",
            "tests/fixtures/two-switch-3x2.dot",
            "--load",
            "0.5",
            "--roots",
            "80",
            "--replications",
            "5",
            "--seed",
            "3",
            "--links",
            links.to_str().unwrap(),
            "--matrix-out",
            matrix.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let args = point("one");
    let single = orcs(&args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    for ranks in [2, 3] {
        let tag = ranks.to_string();
        let args = point(&tag);
        let split = mpirun(ranks, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
        assert_same_output(&split, &single);
        let (one_links, one_matrix) = files("one");
        let (links, matrix) = files(&tag);
        for (a, b) in [(links, one_links), (matrix, one_matrix)] {
            assert_eq!(
                std::fs::read(&a).unwrap(),
                std::fs::read(&b).unwrap(),
                "{a:?}"
            );
        }
    }
}

#[test]
fn a_trace_replay_split_over_ranks_prints_the_one_process_bytes() {
    // The default grid's 105 configurations off a fabric, 7 of them on a fabric with a
    // random placement, and 2 configurations over 3 ranks (one rank replays none). The
    // rendezvous fixture's note on standard error comes once, from rank 0.
    let meta = "tests/fixtures/dumpi/testtrace/testtrace.meta";
    let rendezvous = "tests/fixtures/dumpi/rendezvous/rendezvous.meta";
    let fabric = "topologies/kary-ntree-4-3.dmodk.dot";
    let cases: [&[&str]; 4] = [
        &["trace", "classify", meta, "--format", "json"],
        &[
            "trace",
            "classify",
            meta,
            "--fabric",
            fabric,
            "--placement",
            "rand",
            "--seed",
            "11",
            "--latency",
            "1us,10us,100us",
            "--bandwidth",
            "1Gb/s,100Gb/s",
            "--format",
            "csv",
        ],
        &[
            "trace",
            "classify",
            rendezvous,
            "--latency",
            "2us",
            "--bandwidth",
            "1Gb/s,10Gb/s",
        ],
        &[
            "trace",
            "classify",
            rendezvous,
            "--fabric",
            TWO,
            "--latency",
            "2us",
            "--bandwidth",
            "1Gb/s,10Gb/s",
        ],
    ];
    for args in cases {
        let (single, splits) = split_runs_print_the_one_process_bytes(args);
        for split in splits {
            assert_eq!(split.stderr, single.stderr, "{}", split.describe());
        }
    }
    // A seed drawn by rank 0 places the ranks of every rank's replay.
    let drawn = mpirun(
        3,
        &[
            "trace",
            "classify",
            meta,
            "--fabric",
            fabric,
            "--placement",
            "rand",
        ],
    )
    .ok();
    let seed = drawn_seed(&drawn);
    let again = orcs(&[
        "trace",
        "classify",
        meta,
        "--fabric",
        fabric,
        "--placement",
        "rand",
        "--seed",
        seed,
    ])
    .ok();
    assert_same_output(&drawn, &again);
}

#[test]
fn a_seed_chosen_by_rank_0_is_used_by_every_rank() {
    let run = mpirun(
        3,
        &[
            "-i",
            FT4,
            "-p",
            "rand",
            "-n",
            "40",
            "--metric",
            "sum_max_cong",
        ],
    )
    .ok();
    let seed = drawn_seed(&run);
    let again = orcs(&[
        "-i",
        FT4,
        "-p",
        "rand",
        "-n",
        "40",
        "--metric",
        "sum_max_cong",
        "--seed",
        seed,
    ])
    .ok();
    assert_eq!(run.stdout, again.stdout);
}

#[test]
fn a_scan_under_mpirun_equals_the_one_process_scan() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "runs = 40\nseed = 3\nmetrics = [\"sum_max_cong\", \"hist_max_cong\", \"hist_acc_band\"]\n\
             patterns = [\"bisect\", \"bruck\", \"tree\", \"rand\"]\ncommsizes = [0, 6]\n\
             [[fabrics]]\npath = \"{}\"\n[[fabrics]]\ngen = \"kary-ntree:k=4,n=2\"\n",
            repo(FT4)
        ),
    )
    .unwrap();
    let one = dir.path().join("one.jsonl");
    let three = dir.path().join("three.jsonl");
    orcs(&[
        "scan",
        plan.to_str().unwrap(),
        "-o",
        one.to_str().unwrap(),
        "-q",
    ])
    .ok();
    mpirun(
        3,
        &[
            "scan",
            plan.to_str().unwrap(),
            "-o",
            three.to_str().unwrap(),
            "-q",
        ],
    )
    .ok();
    // Byte for byte: the fold passes each rank's lines on unchanged, in cell order.
    let folded = std::fs::read_to_string(&three).unwrap();
    let cells: Vec<u64> = folded
        .lines()
        .map(|l| orcs::scan::unseal(l).unwrap()["cell"].as_u64().unwrap())
        .collect();
    assert_eq!(cells, (0..48).collect::<Vec<_>>());
    assert_eq!(timeless_records(&three), timeless_records(&one));
    assert_eq!(
        timeless_csv(&dir.path().join("three.csv")),
        timeless_csv(&dir.path().join("one.csv"))
    );
    // The part files are folded in and removed.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".rank"))
        .collect();
    assert!(leftovers.is_empty());
}
