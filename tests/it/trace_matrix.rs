//! `orcs trace matrix`: a trace's traffic by hand on the bundled fixtures (a ring with a
//! barrier and an allreduce; phases marked by MPI_Pcontrol), every output format taken
//! back by the simulators as `--traffic`, a trace given directly as `--traffic`, and
//! bad requests and traces refused with what is wrong.

use crate::support::{orcs, repo, shared};

const RING: &str = "tests/fixtures/dumpi/testtrace/testtrace.meta";
const PHASES: &str = "tests/fixtures/dumpi/phases/phases.meta";
const FABRIC: &str = "topologies/ft4-2.ftree.dot";

#[test]
fn the_ring_trace_gives_its_sends_and_expanded_collectives() {
    // Isend of one int to r + 1; barrier (dissemination: r → r+1, r+2, 0 bytes);
    // allreduce of 4 bytes (recursive doubling: r → r^1, r^2).
    let run = orcs(&["trace", "matrix", RING, "--collectives", "exclude"]).ok();
    assert_eq!(
        run.stdout,
        "src,dst,bytes,messages\n0,1,4,1\n1,2,4,1\n2,3,4,1\n3,0,4,1\n"
    );
    let run = orcs(&["trace", "matrix", RING]).ok();
    assert_eq!(
        run.stdout,
        "src,dst,bytes,messages\n\
         0,1,8,3\n0,2,4,2\n1,0,4,1\n1,2,4,2\n1,3,4,2\n\
         2,0,4,2\n2,3,8,3\n3,0,4,2\n3,1,4,2\n3,2,4,1\n"
    );
    // Forcing the barrier's only algorithm changes nothing; a reduction's does.
    let same = orcs(&[
        "trace",
        "matrix",
        RING,
        "--algorithms",
        "barrier=dissemination",
    ])
    .ok();
    assert_eq!(same.stdout, run.stdout);
}

#[test]
fn a_phase_and_a_window_select_calls() {
    let run = orcs(&["trace", "matrix", PHASES, "--phase", "exchange"]).ok();
    assert_eq!(
        run.stdout,
        "src,dst,bytes,messages\n0,1,200,2\n1,2,200,2\n2,3,200,2\n3,0,200,2\n"
    );
    // The whole run of the phases program lasts well under 100 s; nothing starts later.
    let run = orcs(&["trace", "matrix", PHASES, "--window", "100:"]).ok();
    assert_eq!(run.stdout, "src,dst,bytes,messages\n");
    let run = orcs(&[
        "trace",
        "matrix",
        PHASES,
        "--window",
        ":100",
        "--collectives",
        "exclude",
    ])
    .ok();
    assert_eq!(run.stdout.lines().count(), 1 + 4 + 4 + 4);
}

/// The standard output of 50 seeded runs of `-p matrix` with `traffic` on the small fat
/// tree, in `format`, with `extra` flags.
fn simulate(traffic: &str, format: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "-i",
        FABRIC,
        "-p",
        "matrix",
        "--traffic",
        traffic,
        "-n",
        "50",
        "--seed",
        "7",
        "--format",
        format,
    ];
    args.extend_from_slice(extra);
    orcs(&args).ok().stdout
}

#[test]
fn every_format_runs_the_simulation_like_the_trace_itself() {
    let dir = tempfile::tempdir().unwrap();
    let sim = |traffic: &str| {
        let mut doc: serde_json::Value =
            serde_json::from_str(&simulate(traffic, "json", &[])).unwrap();
        // The document names its matrix file; the rest must agree.
        doc.as_object_mut()
            .unwrap()
            .retain(|k, _| k != "matrix" && k != "run");
        doc
    };
    let direct = sim(RING);
    for name in ["m.csv", "m.mtx", "m.json", "m.tar.gz"] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        orcs(&["trace", "matrix", RING, "-o", path]).ok();
        assert_eq!(sim(path), direct, "{name}");
    }
    // The trace flags reach the simulators: the trace without its collectives runs like
    // the matrix written without them.
    let excluded = dir.path().join("p2p.csv");
    let excluded = excluded.to_str().unwrap();
    orcs(&[
        "trace",
        "matrix",
        RING,
        "--collectives",
        "exclude",
        "-o",
        excluded,
    ])
    .ok();
    let sim_with = |traffic: &str, extra: &[&str]| simulate(traffic, "csv", extra);
    let p2p = sim_with(excluded, &[]);
    assert_eq!(sim_with(RING, &["--collectives", "exclude"]), p2p);
    assert_ne!(sim_with(RING, &[]), p2p);
    let traffic = orcs(&[
        "traffic",
        "--cluster",
        "topologies/milk.graphml",
        "--traffic",
        RING,
    ])
    .ok();
    assert!(
        traffic.stdout.contains("testtrace.meta"),
        "{}",
        traffic.describe()
    );
}

#[test]
fn bad_requests_and_traces_are_refused() {
    orcs(&["trace", "matrix", RING, "--window", "5:2"]).fails_with(1, &["--window", "empty"]);
    orcs(&["trace", "matrix", RING, "--window", "x:2"])
        .fails_with(1, &["'x' is not a number of seconds"]);
    orcs(&["trace", "matrix", RING, "--algorithms", "bcast=ring"])
        .fails_with(1, &["bcast", "ring"]);
    orcs(&[
        "trace",
        "matrix",
        RING,
        "--collectives",
        "exclude",
        "--algorithms",
        "bcast=binomial",
    ])
    .fails_with(1, &["cannot go with --collectives exclude"]);
    orcs(&["trace", "matrix", RING, "--phase", "solve"])
        .fails_with(1, &["'solve'", "no annotations"]);
    orcs(&["trace", "matrix", RING, "--format", "xls"])
        .fails_with(1, &["--format", "csv, mtx, json, pfprof"]);
    orcs(&["-i", FABRIC, "-p", "bruck", "--phase", "x"])
        .fails_with(1, &["--phase", "-p matrix with a DUMPI trace"]);
    orcs(&[
        "traffic",
        "--cluster",
        "topologies/milk.graphml",
        "--traffic",
        "patterns/cg-c-128.tar.gz",
        "--window",
        "1:2",
    ])
    .fails_with(1, &["cg-c-128.tar.gz", "is not a trace's .meta file"]);
    let one = "tests/fixtures/dumpi/testtrace/testtrace-0001.bin";
    orcs(&["trace", "matrix", one])
        .fails_with(1, &["testtrace-0001.bin", "one rank's file", ".meta"]);
    orcs(&["-i", FABRIC, "-p", "matrix", "--traffic", one])
        .fails_with(1, &["testtrace-0001.bin", "DUMPI rank file"]);
    // A rank file cut short: the file and the byte where it ends.
    let dir = tempfile::tempdir().unwrap();
    for k in 0..4 {
        let name = format!("testtrace-000{k}.bin");
        let mut bytes =
            std::fs::read(repo(&format!("tests/fixtures/dumpi/testtrace/{name}"))).unwrap();
        if k == 2 {
            bytes.truncate(300);
        }
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    std::fs::copy(repo(RING), dir.path().join("testtrace.meta")).unwrap();
    let meta = dir.path().join("testtrace.meta");
    orcs(&["trace", "matrix", meta.to_str().unwrap()])
        .fails_with(1, &["testtrace-0002.bin", "byte"]);
}

#[test]
fn shared_samples_give_their_known_point_to_point_traffic() {
    // sst-macro's testbgp: 84 Isends of MPI_DOUBLE per rank, 59,808 bytes, 14 to each of
    // the 6 others (spec §3); naive all-to-all: 4 rounds of one int to each of 3 peers.
    for (meta, ranks, bytes, messages) in [
        ("sst-macro_testbgp/testbgp.meta", 7u32, 9_968u64, 14u64),
        (
            "dumpi_to_graph_naive_all_to_all_procs4_run0/dumpi-2019.05.22.11.54.43.meta",
            4,
            16,
            4,
        ),
    ] {
        let Some(path) = shared(&format!("traces/dumpi/{meta}")) else {
            return;
        };
        let run = orcs(&[
            "trace",
            "matrix",
            path.to_str().unwrap(),
            "--collectives",
            "exclude",
        ])
        .ok();
        let mut expected = String::from("src,dst,bytes,messages\n");
        for s in 0..ranks {
            for d in (0..ranks).filter(|&d| d != s) {
                expected.push_str(&format!("{s},{d},{bytes},{messages}\n"));
            }
        }
        assert_eq!(run.stdout, expected, "{meta}");
    }
}
