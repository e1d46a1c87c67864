//! `orcs trace classify`: a replay of the bundled testtrace computed by hand from its
//! `dumpi2ascii` times, the three output formats, grids and rules from files, bad
//! input, and MPI programs whose class is known by construction (a compute loop, a
//! ping-pong of 8-byte messages, large transfers, one rank with twice the work), traced
//! with libdumpi under `mpirun`.

use crate::dumpi::{sst_dumpi, TracedProgram};
use crate::support::orcs;
use serde_json::Value;

const META: &str = "tests/fixtures/dumpi/testtrace/testtrace.meta";

fn json(args: &[&str]) -> Value {
    let run = orcs(args).ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.describe()))
}

#[track_caller]
fn close(v: &Value, expected: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!(
        (got - expected).abs() <= 1e-12,
        "got {got:e}, expected {expected:e}"
    );
}

/// testtrace on α = 1 ms, infinite bandwidth, by hand from the wall times of its four
/// rank files (µs). Computation before the barrier, with the time inside
/// `MPI_Comm_rank` and `MPI_Comm_size` (local calls): 42, 31, 31, 28. The barrier (two
/// messages on 4 ranks) releases all at 42 + 2000 = 2042 with rank 0's path; each rank
/// sends one int to the next (rank 0 at 2057) and receives from the previous, 1000
/// later; rank 1, whose message came from rank 0 at 3057, reaches the allreduce last,
/// at 3085 (path: 42 + 15 + 9 + 19 = 85 of computation, 3000 of latency); the allreduce
/// (recursive doubling, 2 messages) ends at 5085, and Finalize's gaps end ranks 0, 1, 3
/// at 5092: T = 5092, its path 92 of computation and 5000 of latency. The ranks compute
/// 97, 83, 82, 75 (mean 84.25): 7.75 of the path's computation is imbalance.
#[test]
fn the_testtrace_replay_equals_the_clocks_computed_by_hand() {
    let doc = json(&[
        "trace",
        "classify",
        META,
        "--latency",
        "1ms",
        "--bandwidth",
        "inf",
        "--format",
        "json",
    ]);
    assert_eq!(doc["ranks"], 4);
    let configs = doc["configurations"].as_array().unwrap();
    assert_eq!(configs.len(), 1);
    let c = &configs[0];
    assert_eq!(c["latency_s"], 1e-3);
    assert_eq!(c["bandwidth_bytes_per_s"], "inf");
    close(&c["time_s"], 5092e-6);
    close(&c["seconds"]["computation"], 84.25e-6);
    close(&c["seconds"]["latency"], 5000e-6);
    close(&c["seconds"]["imbalance"], 7.75e-6);
    close(&c["seconds"]["bandwidth"], 0.0);
    assert_eq!(c["class"], "latency-bound");
    assert_eq!(
        c["rule"],
        "latency-bound if latency >= 0.1 and latency >= 2 * bandwidth"
    );
}

#[test]
fn text_json_and_csv_give_the_same_105_configurations_of_the_default_grid() {
    let doc = json(&["trace", "classify", META, "--format", "json"]);
    let configs = doc["configurations"].as_array().unwrap();
    assert_eq!(configs.len(), 105);
    for c in configs {
        let s = &c["shares"];
        let sum: f64 = ["computation", "imbalance", "latency", "bandwidth"]
            .iter()
            .map(|k| s[k].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-9, "{c}");
    }
    assert_eq!(configs[0]["name"], "1GbE");
    assert_eq!(configs[42]["name"], "QDR");
    let text = orcs(&["trace", "classify", META]).ok().stdout;
    let csv = orcs(&["trace", "classify", META, "--format", "csv"])
        .ok()
        .stdout;
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 105);
    for (c, row) in configs.iter().zip(&rows) {
        let name = c["name"].as_str().unwrap();
        let class = c["class"].as_str().unwrap();
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!((fields[1], fields[11]), (name, class), "{row}");
        // Without a fabric, the bandwidth time is all wire.
        assert_eq!((fields[8], fields[10]), (fields[9], "0e0"), "{row}");
        let time: f64 = fields[4].parse().unwrap();
        assert_eq!(time, c["time_s"].as_f64().unwrap());
        let line = text
            .lines()
            .find(|l| l.split("  ").next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name} in\n{text}"));
        assert!(line.contains(class), "{line}");
    }
    assert!(text.contains("4 ranks replayed on 105 configurations"));
}

#[test]
fn grids_and_rules_come_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("grid.toml");
    std::fs::write(
        &grid,
        "[[family]]\nname = \"NDR\"\nlatency = \"0.6us\"\nbandwidth = \"400Gb/s\"\n\n[[config]]\nfamily = \"slow\"\nname = \"dial-up\"\nlatency = \"100ms\"\nbandwidth = \"56kb/s\"\n",
    )
    .unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nclass = \"hopeless\"\nwhen = [\"latency > 0.99\"]\n",
    )
    .unwrap();
    let (grid, rules) = (grid.to_str().unwrap(), rules.to_str().unwrap());
    let doc = json(&[
        "trace", "classify", META, "--grid", grid, "--rules", rules, "--format", "json",
    ]);
    let configs = doc["configurations"].as_array().unwrap();
    assert_eq!(configs.len(), 22);
    assert_eq!(configs[21]["name"], "dial-up");
    assert_eq!(configs[21]["class"], "hopeless");
    assert_eq!(configs[0]["class"], "unclassified");
    assert_eq!(doc["rules"][0], "hopeless if latency > 0.99");
    // The default rules, printed, read back as the same table.
    let printed = orcs(&["trace", "rules"]).ok().stdout;
    let default = dir.path().join("default.toml");
    std::fs::write(&default, &printed).unwrap();
    let a = orcs(&["trace", "classify", META]).ok().stdout;
    let b = orcs(&[
        "trace",
        "classify",
        META,
        "--rules",
        default.to_str().unwrap(),
    ])
    .ok()
    .stdout;
    assert_eq!(a, b);
}

#[test]
fn the_picture_has_a_panel_per_family_and_refuses_unknown_formats() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("classes.svg");
    let svg = svg.to_str().unwrap();
    let out = dir.path().join("table.txt");
    orcs(&[
        "trace",
        "classify",
        META,
        "--plot",
        svg,
        "-o",
        out.to_str().unwrap(),
    ])
    .ok();
    let picture = std::fs::read_to_string(svg).unwrap();
    assert!(picture.starts_with("<svg"), "{picture:.100}");
    for family in [
        "1GbE",
        "10GbE",
        "QDR",
        "EDR",
        "HDR",
        "lat×1/32",
        "bw×32",
        "load imbalance",
    ] {
        assert!(picture.contains(family), "{family}");
    }
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("105 configurations"));
    orcs(&["trace", "classify", META, "--plot", "classes.eps"])
        .fails_with(1, &["--plot", ".svg, .png or .pdf"]);
}

#[test]
fn bad_input_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("grid.toml");
    std::fs::write(
        &grid,
        "[[config]]\nfamily = \"x\"\nlatency = \"1us\"\nbandwith = \"1GB/s\"\n",
    )
    .unwrap();
    let grid = grid.to_str().unwrap();
    orcs(&["trace", "classify", META, "--grid", grid]).fails_with(1, &["grid.toml:4", "bandwith"]);
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nclass = \"x\"\nwhen = [\"latency >= fast\"]\n",
    )
    .unwrap();
    orcs(&[
        "trace",
        "classify",
        META,
        "--rules",
        rules.to_str().unwrap(),
    ])
    .fails_with(1, &["rules.toml", "'fast'"]);
    orcs(&[
        "trace",
        "classify",
        META,
        "--latency",
        "5",
        "--bandwidth",
        "1GB/s",
    ])
    .fails_with(1, &["'5'", "unit"]);
    orcs(&["trace", "classify", META, "--latency", "5us"]).fails_with(1, &["--bandwidth"]);
    orcs(&["trace", "classify", META, "--eager-limit", "lots"])
        .fails_with(1, &["--eager-limit", "lots"]);
    let bin = "tests/fixtures/dumpi/testtrace/testtrace-0000.bin";
    orcs(&["trace", "classify", bin]).fails_with(1, &["one rank's file", ".meta"]);
    orcs(&["trace", "classify", "no-such.meta"]).fails_with(1, &["no-such.meta"]);
}

/// Traces tests/mpi-programs/`program`.c on `ranks` ranks and returns the JSON of
/// `orcs trace classify` with `flags`.
fn classify_program(program: &str, ranks: usize, flags: &[&str]) -> Option<Value> {
    let prefix = sst_dumpi()?;
    let trace = TracedProgram::compile(&prefix, program).trace(ranks);
    let meta = trace.meta.to_string_lossy().into_owned();
    let mut args = vec!["trace", "classify", &meta, "--format", "json"];
    args.extend_from_slice(flags);
    Some(json(&args))
}

/// The class of every configuration, by name.
fn classes(doc: &Value) -> Vec<(String, String)> {
    doc["configurations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["class"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_compute_loop_is_computation_bound_on_every_network() {
    let Some(doc) = classify_program("compute_loop", 2, &[]) else {
        return;
    };
    for (name, class) in classes(&doc) {
        assert_eq!(class, "computation-bound", "{name}");
    }
}

#[test]
fn a_ping_pong_of_8_bytes_is_latency_bound_on_gigabit_ethernet() {
    let Some(doc) = classify_program("pingpong", 2, &[]) else {
        return;
    };
    let classes = classes(&doc);
    for (name, class) in &classes {
        if name.starts_with("1GbE") && !name.contains("lat×1/") {
            assert_eq!(class, "latency-bound", "{name}");
        }
    }
    let c = &doc["configurations"][0];
    assert!(c["shares"]["latency"].as_f64().unwrap() > 0.75, "{c}");
    // 4000 messages of 50 µs on the critical path, and the little computation between
    // the calls.
    let t = c["time_s"].as_f64().unwrap();
    assert!((0.2..0.3).contains(&t), "{c}");
}

#[test]
fn large_transfers_are_bandwidth_bound() {
    let Some(doc) = classify_program("big_transfers", 2, &[]) else {
        return;
    };
    // Where a swap takes at least 13 ms (10 Gb/s or less), far above the noise of a
    // loaded machine in the trace's gaps.
    for c in doc["configurations"].as_array().unwrap() {
        if c["bandwidth_bytes_per_s"].as_f64().unwrap() <= 1.25e9 {
            assert_eq!(c["class"], "bandwidth-bound", "{c}");
        }
    }
    // Ten swaps of 16 MiB at 8 ns/B: 10 × 134.2 ms on Gigabit Ethernet.
    let t = doc["configurations"][0]["time_s"].as_f64().unwrap();
    assert!((1.342..1.40).contains(&t), "{t}");
}

#[test]
fn one_rank_with_twice_the_work_is_imbalance_bound() {
    let Some(doc) = classify_program("imbalance", 4, &[]) else {
        return;
    };
    for c in doc["configurations"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        // Where the network is fast enough not to matter: all but the slowest latencies.
        let latency = c["latency_s"].as_f64().unwrap();
        if latency <= 1e-4 {
            assert_eq!(c["class"], "load-imbalance-bound", "{name}: {c}");
            let imbalance = c["shares"]["imbalance"].as_f64().unwrap();
            assert!((0.33..0.42).contains(&imbalance), "{name}: {c}");
        }
    }
}

/// The configurations of a JSON document, by position.
fn configurations(doc: &Value) -> &Vec<Value> {
    doc["configurations"].as_array().unwrap()
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn on_one_switch_where_no_two_messages_share_a_link_the_replay_is_the_plain_one() {
    // testtrace's ranks each send one message to the next and receive one: every host
    // link carries one message at a time.
    let plain = json(&["trace", "classify", META, "--format", "json"]);
    let fabric = "tests/fixtures/one-switch-8.dot";
    let routed = json(&[
        "trace", "classify", META, "--format", "json", "--fabric", fabric,
    ]);
    assert_eq!(plain["fabric"], Value::Null);
    assert_eq!(routed["fabric"]["file"], fabric);
    assert_eq!(routed["fabric"]["placement"], "linear_bfs");
    assert_eq!(
        routed["fabric"]["hosts"],
        serde_json::json!(["H0", "H1", "H2", "H3"])
    );
    let (p, r) = (configurations(&plain), configurations(&routed));
    assert_eq!(p.len(), 105);
    for (p, r) in p.iter().zip(r) {
        let (tp, tr) = (number(&p["time_s"]), number(&r["time_s"]));
        assert!((tp - tr).abs() <= 1e-12 * tp, "{p}\n{r}");
        assert_eq!(number(&r["seconds"]["contention"]), 0.0, "{r}");
        assert_eq!(p["class"], r["class"]);
    }
}

#[test]
fn a_random_placement_is_the_same_for_the_same_seed() {
    let fabric = "topologies/kary-ntree-4-3.dmodk.dot";
    let run = |seed: &str| {
        orcs(&[
            "trace",
            "classify",
            META,
            "--fabric",
            fabric,
            "--placement",
            "rand",
            "--seed",
            seed,
        ])
        .ok()
        .stdout
    };
    let a = run("11");
    assert!(a.contains("ranks placed by rand, seed 11"), "{a}");
    assert_eq!(a, run("11"));
    assert_ne!(a, run("12"));
    // Without a seed, the one drawn is printed so that the run can be repeated.
    let drawn = orcs(&[
        "trace",
        "classify",
        META,
        "--fabric",
        fabric,
        "--placement",
        "rand",
    ])
    .ok();
    assert!(
        drawn.stderr.contains("using --seed"),
        "{}",
        drawn.describe()
    );
}

#[test]
fn a_fabric_that_cannot_take_the_ranks_is_refused() {
    let dead_end = "tests/fixtures/dead-end.dot";
    orcs(&["trace", "classify", META, "--fabric", dead_end])
        .fails_with(1, &[dead_end, "not routed", "no route from H0 to H3"]);
    // 4 ranks, 3 per host: 2 hosts of the 4 of two-switch.dot.
    orcs(&[
        "trace",
        "classify",
        META,
        "--fabric",
        "tests/fixtures/two-switch.dot",
        "--ppn",
        "3",
    ])
    .ok();
    orcs(&[
        "trace",
        "classify",
        META,
        "--fabric",
        "tests/fixtures/two-switch.dot",
        "--ppn",
        "0",
    ])
    .fails_with(1, &["--ppn", "at least one rank"]);
    orcs(&["trace", "classify", META, "--ppn", "2"]).fails_with(1, &["--fabric"]);
    orcs(&["trace", "classify", META, "--fabric", "no-such.dot"]).fails_with(1, &["no-such.dot"]);
    orcs(&[
        "trace",
        "classify",
        META,
        "--fabric",
        "tests/fixtures/two-switch.dot",
        "--placement",
        "near",
    ])
    .fails_with(1, &["--placement", "linear_bfs"]);
}

/// `orcs trace classify META` in JSON at `latency` and 10 and 1 Gb/s: plain, on
/// `two-switch-3x2.dot` (hosts H0–H2 and H3–H5 on two switches, one cable between them)
/// and on `one-switch-8.dot`.
fn plain_cable_and_switch(meta: &str, latency: &[&str]) -> [Value; 3] {
    let classify = |fabric: Option<&str>| {
        let mut args = vec!["trace", "classify", meta, "--format", "json"];
        args.extend_from_slice(latency);
        args.extend_from_slice(&["--bandwidth", "10Gb/s,1Gb/s"]);
        if let Some(f) = fabric {
            args.extend_from_slice(&["--fabric", f]);
        }
        json(&args)
    };
    [
        classify(None),
        classify(Some("tests/fixtures/two-switch-3x2.dot")),
        classify(Some("tests/fixtures/one-switch-8.dot")),
    ]
}

#[test]
fn messages_crossing_one_cable_together_share_it_and_the_class_says_so() {
    let Some(prefix) = sst_dumpi() else {
        return;
    };
    let traced = TracedProgram::compile(&prefix, "crossing").trace(6);
    let meta = traced.meta.to_string_lossy().into_owned();
    let [plain, cable, switch] = plain_cable_and_switch(&meta, &["--latency", "5us"]);
    let hosts: Vec<String> = (0..6).map(|h| format!("H{h}")).collect();
    assert_eq!(cable["fabric"]["hosts"], serde_json::json!(hosts));
    for k in 0..2 {
        let (p, c, s) = (
            &configurations(&plain)[k],
            &configurations(&cable)[k],
            &configurations(&switch)[k],
        );
        let bw = |v: &Value| number(&v["seconds"]["bandwidth"]);
        let contention = |v: &Value| number(&v["seconds"]["contention"]);
        // Five rounds of 16 MiB each on the critical path.
        let wire = 5.0 * 16.0 * 1048576.0 / number(&p["bandwidth_bytes_per_s"]);
        assert!((bw(p) - wire).abs() < 1e-3 * wire, "{p}");
        assert_eq!(p["class"], "bandwidth-bound", "{p}");
        // One switch: every host link carries one message; nothing is shared.
        assert_eq!(contention(s), 0.0, "{s}");
        let (tp, ts) = (number(&p["time_s"]), number(&s["time_s"]));
        assert!((tp - ts).abs() <= 1e-9 * tp, "{p}\n{s}");
        // Three messages on the cable at once: three times the wire time, two thirds
        // of it contention.
        assert!((bw(c) - 3.0 * wire).abs() < 0.02 * wire, "{c}");
        assert!((contention(c) - 2.0 * wire).abs() < 0.02 * wire, "{c}");
        let parts = number(&c["seconds"]["wire"]) + contention(c);
        assert!((parts - bw(c)).abs() <= 1e-12 * bw(c), "{c}");
        assert_eq!(c["class"], "contention-bound", "{c}");
    }
}

#[test]
fn a_collective_on_a_fabric_shares_the_links_its_messages_cross() {
    let Some(prefix) = sst_dumpi() else {
        return;
    };
    let traced = TracedProgram::compile(&prefix, "alltoall_crossing").trace(6);
    let meta = traced.meta.to_string_lossy().into_owned();
    let [plain, cable, switch] = plain_cable_and_switch(&meta, &["--latency", "1us"]);
    for k in 0..2 {
        let (p, c, s) = (
            &configurations(&plain)[k],
            &configurations(&cable)[k],
            &configurations(&switch)[k],
        );
        let bw = |v: &Value| number(&v["seconds"]["bandwidth"]);
        let contention = |v: &Value| number(&v["seconds"]["contention"]);
        // Hockney's pairwise alltoall: nβ with n = 5 blocks sent to others, per round.
        let wire = 5.0 * 5.0 * 1048576.0 / number(&p["bandwidth_bytes_per_s"]);
        assert!((bw(p) - wire).abs() < 1e-6 * wire, "{p}");
        // One switch: each host link carries its rank's 5 blocks, no more.
        assert_eq!(contention(s), 0.0, "{s}");
        let (tp, ts) = (number(&p["time_s"]), number(&s["time_s"]));
        assert!((tp - ts).abs() <= 1e-9 * tp, "{p}\n{s}");
        // The cable carries 9 blocks each way: max-min gives its flows 1/9 all along
        // (the ones inside a switch, 1/3, end first), so a round takes 9 blocks' time.
        assert!((bw(c) - 9.0 / 5.0 * wire).abs() < 1e-6 * wire, "{c}");
        assert!(
            (contention(c) - 4.0 / 5.0 * wire).abs() < 1e-6 * wire,
            "{c}"
        );
        assert!(
            (number(&c["seconds"]["wire"]) - wire).abs() < 1e-6 * wire,
            "{c}"
        );
    }
}

#[test]
fn trace_commands_give_the_same_bytes_whatever_the_thread_count() {
    let fabric = "topologies/kary-ntree-4-3.dmodk.dot";
    let runs: [&[&str]; 4] = [
        &["trace", "stats", META, "--format", "json"],
        &["trace", "matrix", META],
        &["trace", "classify", META, "--format", "csv"],
        &[
            "trace",
            "classify",
            META,
            "--fabric",
            fabric,
            "--placement",
            "rand",
            "--seed",
            "4",
        ],
    ];
    for args in runs {
        let one = orcs(&[args, &["-j", "1"]].concat()).ok().stdout;
        let three = orcs(&[args, &["-j", "3"]].concat()).ok().stdout;
        assert!(!one.is_empty());
        assert_eq!(one, three, "{args:?}");
    }
    orcs(&["trace", "stats", META, "-j", "0"]).fails_with(1, &["--threads", "positive"]);
}
