//! What a run can hold: requests too large for memory, too many threads, inputs nested
//! too deep and flags with negative numbers end in a clear error, not a panic, an abort
//! on a failed allocation, a stack overflow or a hang. Every run here is bounded
//! ([`orcs_within`]: a time limit and an address space cap), so a regression fails the
//! test instead of taking the machine down.

use crate::support::*;

/// Seconds any of these runs may take: each must be refused at once.
const QUICK: u64 = 60;

const FABRIC: &str = "tests/fixtures/two-switch.dot";

/// Writes `files` (name, content) into a fresh folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_string_lossy().into_owned()
}

#[test]
fn runs_beyond_memory_are_refused_before_allocating() {
    // i64::MAX runs once overflowed the capacity of the per-run arrays (a panic); 2^32
    // runs asked for 34 GB at once (an abort).
    for runs in ["9223372036854775807", "4294967296"] {
        let run = orcs_within(QUICK, &["-i", FABRIC, "-n", runs, "--seed", "1"]).fails_with(
            1,
            &[
                &format!("a simulation of {runs} runs"),
                "needs about",
                "per-run results of 32 bytes",
                "but --max-memory is",
                "(the memory available on this machine; give --max-memory SIZE",
            ],
        );
        assert!(run.stdout.is_empty(), "{}", run.describe());
    }
    // 2^32 runs × 32 bytes is 128 GiB.
    orcs_within(
        QUICK,
        &[
            "-i",
            FABRIC,
            "-n",
            "4294967296",
            "--max-memory",
            "8G",
            "--seed",
            "1",
        ],
    )
    .fails_with(1, &["needs about 128.0 GiB", "but --max-memory is 8.0 GiB"]);
    // The matrix engine keeps 80 bytes per run.
    orcs_within(
        QUICK,
        &[
            "-i",
            FABRIC,
            "--matrix",
            "tests/fixtures/two-switch-matrix.csv",
            "-n",
            "9223372036854775807",
            "--seed",
            "1",
        ],
    )
    .fails_with(
        1,
        &[
            "a simulation of 9223372036854775807 runs",
            "per-run results of 80 bytes",
        ],
    );
    // The limit is what it says: 100 000 runs (3.1 MiB of results) fit in 64 MiB, not
    // in 1 MiB.
    let fits = ["-i", FABRIC, "-n", "100000", "--seed", "1", "-q"];
    orcs_within(QUICK, &[&fits[..], &["--max-memory", "64M"]].concat()).ok();
    orcs_within(QUICK, &[&fits[..], &["--max-memory", "1M"]].concat())
        .fails_with(1, &["needs about 3.", "but --max-memory is 1.0 MiB"]);
    orcs_within(QUICK, &["-i", FABRIC, "--max-memory", "lots"]).fails_with(
        1,
        &[
            "--max-memory",
            "expected a size such as 512M, 8G, 1.5T or a number of bytes, got 'lots'",
        ],
    );
}

#[test]
fn a_scan_plan_with_too_many_runs_is_refused() {
    let plan = |runs: &str| {
        format!(
            "runs = {runs}\nseed = 1\nmetrics = [\"hist_max_cong\"]\npatterns = [\"bisect\"]\n\
             [[fabrics]]\npath = \"{}\"\n",
            repo(FABRIC)
        )
    };
    let dir = folder(&[
        ("big.toml", &plan("9223372036854775807")),
        ("over.toml", &plan("9223372036854775808")),
    ]);
    // 2^63 − 1 runs once overflowed a capacity (a panic in a worker thread); 2^63 is
    // read as well (TOML integers stop at 2^63 − 1, but runs is unsigned).
    for (name, runs) in [
        ("big", "9223372036854775807"),
        ("over", "9223372036854775808"),
    ] {
        let out = path(&dir, &format!("{name}.jsonl"));
        orcs_within(
            QUICK,
            &["scan", &path(&dir, &format!("{name}.toml")), "-o", &out],
        )
        .fails_with(
            1,
            &[
                &format!("{name}.toml: runs = {runs} with one cell at a time needs about"),
                "per-run results of 32 bytes",
            ],
        );
        // Nothing was recorded: the cell is still to run.
        let written = std::fs::read_to_string(&out).unwrap_or_default();
        assert!(written.is_empty(), "{written}");
    }
}

#[test]
fn thread_counts_are_capped_per_core() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let max = (64 * cores).min(4096);
    // 100 000 threads once hung while starting.
    orcs_within(QUICK, &["-i", FABRIC, "-j", "100000"]).fails_with(
        1,
        &[
            "-j/--threads 100000: 100000 worker threads is more than this machine can use",
            &format!("at most {max} (64 per core on {cores} cores, and never more than 4096)"),
        ],
    );
    orcs_within(QUICK, &["scan", "plan.toml", "-j", "1000000"]).fails_with(1, &["at most"]);
    // The most allowed start (outside the address space cap: every thread maps a stack).
    orcs(&["-i", FABRIC, "-j", &max.to_string(), "--seed", "1", "-q"]).ok();
}

#[test]
fn negative_numbers_are_values_with_a_clear_error() {
    // clap once took them for flags: "unexpected argument '-1' found".
    for (args, needle) in [
        (
            &["-i", FABRIC, "-j", "-1"][..],
            "'--threads <N>': expected a positive whole number, got -1",
        ),
        (
            &["-i", FABRIC, "--seed", "-1"][..],
            "'--seed <SEED>': expected a whole number of 0 or more, got -1",
        ),
        (
            &["gen", "kary-ntree:k=2,n=2", "-o", "-", "--seed", "-3"][..],
            "expected a whole number of 0 or more, got -3",
        ),
        (
            &["-i", FABRIC, "-p", "matrix", "--ppn", "-2"][..],
            "'--ppn <N>': expected a whole number of 0 or more, got -2",
        ),
        (&["-i", FABRIC, "--max-memory", "-1G"][..], "got '-1G'"),
        (
            &["-i", FABRIC, "-n", "-5"][..],
            "--num_runs must be at least 1, got -5",
        ),
    ] {
        let run = orcs_within(QUICK, args).fails_with(1, &[needle]);
        assert!(
            !run.stderr.contains("unexpected argument"),
            "{}",
            run.describe()
        );
    }
}

/// GraphML with `depth` elements nested inside its graph.
fn deep_graphml(depth: usize) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n\
         <graph id=\"G\" edgedefault=\"undirected\">\n{}{}\n</graph>\n</graphml>\n",
        "<node>".repeat(depth),
        "</node>".repeat(depth)
    )
}

#[test]
fn graphml_nested_too_deep_is_an_error_not_a_stack_overflow() {
    let dir = folder(&[
        ("deep.graphml", &deep_graphml(20_000)),
        ("m.csv", "src,dst,bytes\n0,1,100\n"),
        (
            "s.yml",
            "duration: 10\ntopology: deep.graphml\nalgorithms:\n  scheduler: fcfs\n  \
             host_selector: linear\n  process_mapper: block\n  router: dmodk\njobs:\n  \
             - submit: [0]\n    duration: 1\n    trace: m.csv\n",
        ),
    ]);
    let cluster = path(&dir, "deep.graphml");
    let expected =
        ["deep.graphml:4: elements nested more than 256 deep; orcs reads at most 256 levels"];
    let run = orcs_within(
        QUICK,
        &[
            "traffic",
            "--cluster",
            &cluster,
            "--matrix",
            &path(&dir, "m.csv"),
        ],
    )
    .fails_with(1, &expected);
    assert!(
        !run.stderr.contains("overflowed its stack"),
        "{}",
        run.describe()
    );
    orcs_within(QUICK, &["jobs", &path(&dir, "s.yml")]).fails_with(1, &expected);
}

#[test]
fn yaml_nested_too_deep_is_an_error_at_its_line() {
    let depth = 20_000;
    let dir = folder(&[(
        "s.yml",
        &format!(
            "duration: 10\ntopology:\n  kind: xgft\n  params:\n    m: {}{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
    )]);
    orcs_within(QUICK, &["jobs", &path(&dir, "s.yml")])
        .fails_with(1, &["s.yml:5: recursion limit exceeded"]);
}

/// A scenario of one job stream with `submit` and `duration` on `topology`.
fn scenario(topology: &str, horizon: &str, submit: &str) -> String {
    format!(
        "duration: {horizon}\ntopology:\n{topology}\nalgorithms:\n  scheduler: fcfs\n  \
         host_selector: linear\n  process_mapper: block\n  router: dmodk\njobs:\n  \
         - submit: {submit}\n    duration: 1\n    trace: m.csv\n"
    )
}

#[test]
fn job_counts_beyond_memory_are_refused_before_generating() {
    let tree = "  - kind: gen\n    params: {spec: 'kary-ntree:k=2,n=2'}";
    let exponential =
        |rate: &str| format!("{{distribution: exponential, params: {{lambd: {rate}}}}}");
    let dir = folder(&[
        ("rate.yml", &scenario(tree, "10", &exponential("1e300"))),
        ("long.yml", &scenario(tree, "1e12", &exponential("1"))),
        ("ok.yml", &scenario(tree, "10", &exponential("1"))),
        ("m.csv", "src,dst,bytes\n0,1,100\n"),
    ]);
    orcs_within(QUICK, &["jobs", &path(&dir, "rate.yml")]).fails_with(
        1,
        &[
            "rate.yml: 1 run of about 3.4e38 jobs each (the submit rates × duration 10)",
            "needs about",
        ],
    );
    orcs_within(QUICK, &["jobs", &path(&dir, "long.yml")]).fails_with(
        1,
        &[
            "long.yml: 1 run of about 1000000000000 jobs each",
            "jobs' recorded samples of 256 bytes",
        ],
    );
    // About 10 jobs need 3.8 KiB.
    orcs_within(
        QUICK,
        &["jobs", &path(&dir, "ok.yml"), "--max-memory", "1M", "-q"],
    )
    .ok();
    orcs_within(
        QUICK,
        &["jobs", &path(&dir, "ok.yml"), "--max-memory", "1K", "-q"],
    )
    .fails_with(1, &["but --max-memory is 1.0 KiB"]);
}

#[test]
fn scenario_topologies_beyond_the_limits_are_refused_before_building() {
    let dir = folder(&[
        (
            "xgft.yml",
            &scenario(
                "  kind: xgft\n  params: {h: 3, m: [1000, 1000, 1000], w: [1, 1, 1]}",
                "10",
                "[0]",
            ),
        ),
        (
            "torus.yml",
            &scenario(
                "  kind: torus\n  params: {dims: [100000, 100000]}",
                "10",
                "[0]",
            ),
        ),
        (
            "big-torus.yml",
            &scenario("  kind: torus\n  params: {dims: [4000, 4000]}", "10", "[0]"),
        ),
        (
            "tall.yml",
            &scenario(
                &format!(
                    "  kind: xgft\n  params: {{h: 100000, m: [{}], w: [{}]}}",
                    vec!["1"; 100_000].join(", "),
                    vec!["1"; 100_000].join(", ")
                ),
                "10",
                "[0]",
            ),
        ),
        ("m.csv", "src,dst,bytes\n0,1,100\n"),
    ]);
    orcs_within(QUICK, &["jobs", &path(&dir, "xgft.yml")]).fails_with(
        1,
        &[
            "topology xgft",
            "xgft: the fabric would have 1001001001 nodes, more than the limit of 16777216",
        ],
    );
    orcs_within(QUICK, &["jobs", &path(&dir, "torus.yml")])
        .fails_with(1, &["torus: the fabric would have 10000000000 nodes"]);
    orcs_within(
        QUICK,
        &["jobs", &path(&dir, "big-torus.yml"), "--max-memory", "1G"],
    )
    .fails_with(
        1,
        &[
            "the torus cluster (16000000 hosts, 0 switches, 32000000 links) needs about",
            "but --max-memory is 1.0 GiB",
        ],
    );
    orcs_within(QUICK, &["jobs", &path(&dir, "tall.yml")])
        .fails_with(1, &["h = 100000 is invalid: h must be at most 32"]);
}

#[test]
fn generated_fabrics_beyond_memory_are_refused_before_building() {
    // 8.4 million hosts and switches: within the node limit, but the forwarding tables
    // alone would hold 7·10^13 entries.
    orcs_within(QUICK, &["gen", "torus:dims=2896x2896", "-o", "-"]).fails_with(
        1,
        &[
            "torus:dims=2896x2896 (8386816 hosts, 8386816 switches, 25160448 cables) needs about",
            "forwarding table entries of 8 bytes",
            "(the memory available on this machine",
        ],
    );
    for spec in ["xgft:m=1000x1000,w=1x1", "torus:dims=40000"] {
        orcs_within(QUICK, &["gen", spec, "-o", "-", "--max-memory", "1G"])
            .fails_with(1, &[spec, "needs about", "but --max-memory is 1.0 GiB"]);
    }
    let run = orcs_within(
        QUICK,
        &["gen", "kary-ntree:k=4,n=2", "-o", "-", "--max-memory", "1M"],
    )
    .ok();
    assert!(run.stdout.contains("digraph"), "{}", run.describe());
}
