//! `orcs tasks`: the published rows of the task model through the command, a root task
//! alone whose traffic is its communication footprint, the crossbar against a single
//! switch, seeds and threads, sweeps with their plot, and bad flags.

use crate::support::orcs;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let run = orcs(args).ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.describe()))
}

#[track_caller]
fn close(v: &Value, expected: f64, relative: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!(
        (got - expected).abs() <= relative * expected.abs(),
        "got {got:e}, expected {expected:e}"
    );
}

/// z = [4,3] on N = 100 at ρ_x = 0.1: n = 17, L = 12, d = 5, F_x = 340 µs,
/// F_c = 660.92 kB, F = 15.55 Gb/s, β = 29,117 /s.
#[test]
fn describe_gives_the_published_rows() {
    let d = json(&[
        "tasks", "describe", "--nodes", "100", "--load", "0.1", "--format", "json",
    ]);
    let g = &d["counts"]["generator"];
    assert_eq!(
        (
            g["tasks"].as_f64(),
            g["leaves"].as_f64(),
            g["delegating"].as_f64()
        ),
        (Some(17.0), Some(12.0), Some(5.0))
    );
    close(&d["footprint"]["computation_s"], 340e-6, 1e-12);
    assert_eq!(d["footprint"]["communication_bits"], 5_287_360.0);
    close(&d["footprint"]["intensity_bits_per_s"], 15.551e9, 1e-4);
    close(&d["loads"]["arrival_rate_per_s"], 29_117.647, 1e-6);
    let text = orcs(&["tasks", "describe", "--nodes", "100", "--load", "0.1"])
        .ok()
        .stdout;
    for needle in ["660.9 kB", "5287360 bits", "340 µs", "15.55 Gb/s", "29118"] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
}

/// LWSim's d for z = [2,2,2] is 5 where the tree has 7: F_c differs by 2 × 2ε.
#[test]
fn lwsim_counts_are_a_compatibility_choice() {
    let fc = |counts: &str| {
        json(&[
            "tasks", "describe", "--tree", "z=2,2,2", "--counts", counts, "--format", "json",
        ])["footprint"]["communication_bits"]
            .as_f64()
            .unwrap()
    };
    // (L − 1)(s_s + s_r + ε) + ε(2 + 2d) with L = 8.
    assert_eq!(fc("generator"), 7.0 * 480_320.0 + 320.0 * 16.0);
    assert_eq!(fc("lwsim"), 7.0 * 480_320.0 + 320.0 * 12.0);
}

/// Imposed footprints give back LWSim's default sizes.
#[test]
fn imposed_footprints_give_the_sizes() {
    let d = json(&[
        "tasks",
        "describe",
        "--computation-footprint",
        "340us",
        "--communication-footprint",
        "660920B",
        "--format",
        "json",
    ]);
    assert_eq!(d["costs"]["schedule_bits"], 160_000.0);
    assert_eq!(d["costs"]["result_bits"], 320_000.0);
    close(&d["costs"]["init_s"], 10e-6, 1e-12);
}

/// One root task alone on 32 nodes, every allocation granted: its traffic is F_c to
/// the byte, in (L − 1)·3 + 2 + 2d = 45 messages, and the matrix file says so.
#[test]
fn a_root_task_alone_sends_its_footprint() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("tasks.csv");
    let doc = json(&[
        "tasks",
        "run",
        "--nodes",
        "32",
        "--rate",
        "1",
        "--roots",
        "1",
        "--warmup",
        "0",
        "--replications",
        "1",
        "--seed",
        "4",
        "--format",
        "json",
        "--matrix-out",
        matrix.to_str().unwrap(),
    ]);
    assert_eq!(doc["messages"], 45);
    assert_eq!(doc["tasks"], 17);
    let text = std::fs::read_to_string(&matrix).unwrap();
    let mut bytes = 0u64;
    let mut messages = 0u64;
    for line in text.lines().skip(1) {
        let f: Vec<u64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        bytes += f[2];
        messages += f[3];
    }
    assert_eq!((bytes, messages), (660_920, 45));
    // z = [2] alone, by hand (10 Gb/s, no latency): ship ε (32 ns), t_i, request and
    // grant (64 ns); the helper's s_s (16 µs), t_i + t_a and s_r (32 µs) outlast the
    // local leaf; t_a; the answer (32 ns).
    let alone = json(&[
        "tasks",
        "run",
        "--tree",
        "z=2",
        "--nodes",
        "4",
        "--rate",
        "1",
        "--roots",
        "1",
        "--warmup",
        "0",
        "--replications",
        "1",
        "--seed",
        "4",
        "--format",
        "json",
    ]);
    close(
        &alone["completion_s"]["mean"],
        128e-9 + 10e-6 + 68e-6 + 10e-6,
        1e-9,
    );
    // -p matrix reads it.
    orcs(&[
        "-i",
        "topologies/kary-ntree-4-3.dmodk.dot",
        "-p",
        "matrix",
        "--traffic",
        matrix.to_str().unwrap(),
        "-n",
        "5",
        "--seed",
        "1",
    ])
    .ok();
}

/// A single switch is the crossbar, through the command too; the same seed gives the
/// same bytes on one thread and on three.
#[test]
fn one_switch_equals_the_crossbar_and_seeds_fix_the_output() {
    let args = |network: &str, threads: &str| {
        vec![
            "tasks".to_string(),
            "run".into(),
            "--network".into(),
            network.into(),
            "--nodes".into(),
            "8".into(),
            "--load".into(),
            "0.4".into(),
            "--roots".into(),
            "300".into(),
            "--replications".into(),
            "3".into(),
            "--seed".into(),
            "9".into(),
            "--format".into(),
            "json".into(),
            "-j".into(),
            threads.into(),
        ]
    };
    let run = |network: &str, threads: &str| {
        let a = args(network, threads);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        orcs(&a).ok().stdout
    };
    let crossbar: Value = serde_json::from_str(&run("crossbar", "1")).unwrap();
    let switch: Value = serde_json::from_str(&run("tests/fixtures/one-switch-8.dot", "1")).unwrap();
    assert_eq!(crossbar["completion_s"], switch["completion_s"]);
    assert_eq!(run("crossbar", "1"), run("crossbar", "3"));
}

/// A sweep over two networks and three loads: six rows, and a plot.
#[test]
fn a_sweep_writes_its_points_and_its_plot() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("tasks.svg");
    let run = orcs(&[
        "tasks",
        "sweep",
        "--network",
        "crossbar,tests/fixtures/two-switch-3x2.dot",
        "--nodes",
        "6",
        "--load",
        "0.2:0.6:0.2",
        "--roots",
        "200",
        "--replications",
        "2",
        "--seed",
        "2",
        "--format",
        "csv",
        "--plot",
        plot.to_str().unwrap(),
    ])
    .ok();
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 7, "{}", run.describe());
    assert!(
        rows[1].starts_with("crossbar,")
            && rows[4].starts_with("tests/fixtures/two-switch-3x2.dot,")
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("two-switch-3x2") && svg.contains("crossbar"));
}

/// Work stealing through the command: N_c = N in the loads (β = 0.1 × 100 / 340 µs,
/// the spec's 29,411.8), one node runs z = 2 alone in 3 × 20 µs without a message, and
/// a sweep over both schedulers has a row and a line for each.
#[test]
fn work_stealing_through_the_command() {
    let d = json(&[
        "tasks",
        "describe",
        "--scheduler",
        "stealing",
        "--load",
        "0.1",
        "--format",
        "json",
    ]);
    close(&d["loads"]["arrival_rate_per_s"], 29_411.765, 1e-6);
    let alone = json(&[
        "tasks",
        "run",
        "--scheduler",
        "stealing",
        "--tree",
        "z=2",
        "--nodes",
        "1",
        "--rate",
        "1",
        "--roots",
        "1",
        "--warmup",
        "0",
        "--replications",
        "1",
        "--seed",
        "4",
        "--format",
        "json",
    ]);
    close(&alone["completion_s"]["mean"], 60e-6, 1e-9);
    assert_eq!(alone["messages"], 0);
    assert_eq!(alone["scheduler"], "stealing");
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("schedulers.svg");
    let run = orcs(&[
        "tasks",
        "sweep",
        "--scheduler",
        "central,stealing",
        "--steal-retry",
        "5us",
        "--nodes",
        "4",
        "--load",
        "0.3",
        "--roots",
        "100",
        "--replications",
        "2",
        "--seed",
        "2",
        "--format",
        "csv",
        "--plot",
        plot.to_str().unwrap(),
    ])
    .ok();
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 3, "{}", run.describe());
    assert!(rows[0].starts_with("network,tree,scheduler,"));
    assert!(
        rows[1].starts_with("crossbar,\"z=4,3\",central,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].starts_with("crossbar,\"z=4,3\",stealing,"),
        "{}",
        rows[2]
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("crossbar, central") && svg.contains("crossbar, stealing"));
}

/// Cost flags take lists in a sweep: every combination, the last flag varying fastest,
/// each with its footprint F_c = 11 (s_s + s_r + ε) + 12 ε for z = 4,3.
#[test]
fn a_sweep_over_costs_gives_each_footprint() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("costs.svg");
    let doc = json(&[
        "tasks",
        "sweep",
        "--schedule-size",
        "10kB,20kB",
        "--result-size",
        "40kB:80kB:40kB",
        "--nodes",
        "8",
        "--roots",
        "50",
        "--replications",
        "1",
        "--seed",
        "3",
        "--format",
        "json",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let footprints: Vec<f64> = doc["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["footprint"]["communication_bits"].as_f64().unwrap() / 8.0)
        .collect();
    let fc = |s_s: f64, s_r: f64| 11.0 * (s_s + s_r + 40.0) + 12.0 * 40.0;
    assert_eq!(
        footprints,
        [
            fc(10e3, 40e3),
            fc(10e3, 80e3),
            fc(20e3, 40e3),
            fc(20e3, 80e3)
        ]
    );
    // One line per footprint, named by it.
    let svg = std::fs::read_to_string(&plot).unwrap();
    for label in [
        "F_c 550.9 kB",
        "F_c 990.9 kB",
        "F_c 660.9 kB",
        "F_c 1101 kB",
    ] {
        assert!(svg.contains(label), "{label} missing");
    }
    orcs(&["tasks", "run", "--init", "1us,2us"]).fails_with(1, &["--init", "one value"]);
}

#[test]
fn bad_flags_are_errors_naming_them() {
    orcs(&["tasks", "describe", "--tree", "z=4,0"]).fails_with(1, &["--tree", "z_i"]);
    orcs(&["tasks", "describe", "--tree", "q=3"]).fails_with(1, &["--tree", "expected z="]);
    orcs(&["tasks", "describe", "--tree", "n=10,s=x"]).fails_with(1, &["--tree", "s must be"]);
    orcs(&["tasks", "describe", "--load", "0"]).fails_with(1, &["--load", "positive"]);
    orcs(&["tasks", "describe", "--format", "csv"]).fails_with(1, &["--format"]);
    orcs(&["tasks", "run", "--nodes", "1"]).fails_with(1, &["--nodes", "at least 2"]);
    orcs(&["tasks", "run", "--scheduler", "stealing", "--nodes", "0"])
        .fails_with(1, &["--nodes", "at least 1"]);
    orcs(&["tasks", "run", "--scheduler", "fifo"]).fails_with(1, &["--scheduler", "fifo"]);
    orcs(&["tasks", "run", "--scheduler", "central,stealing"])
        .fails_with(1, &["--scheduler", "one scheduler"]);
    orcs(&[
        "tasks",
        "run",
        "--scheduler",
        "stealing",
        "--steal-retry",
        "soon",
    ])
    .fails_with(1, &["--steal-retry"]);
    orcs(&["tasks", "run", "--load", "0.1,0.2"]).fails_with(1, &["--load", "one value"]);
    orcs(&["tasks", "run", "--network", "no-such.dot", "--seed", "1"])
        .fails_with(1, &["no-such.dot"]);
    orcs(&[
        "tasks",
        "run",
        "--network",
        "tests/fixtures/one-switch-8.dot",
        "--nodes",
        "9",
        "--seed",
        "1",
    ])
    .fails_with(1, &["one-switch-8.dot"]);
    orcs(&["tasks", "run", "--bandwidth", "fast"]).fails_with(1, &["--bandwidth"]);
    orcs(&["tasks", "run", "--communication-footprint", "1kB"])
        .fails_with(1, &["--computation-footprint"]);
    orcs(&[
        "tasks",
        "describe",
        "--computation-footprint",
        "1ms",
        "--communication-footprint",
        "10B",
    ])
    .fails_with(1, &["F_c"]);
}
