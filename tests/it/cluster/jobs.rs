//! `orcs jobs`: scenario timelines computed by hand, the M/M/1 queue in closed form,
//! PFSim's deterministic scenario maxima, and the scenario file's checks.

use crate::support::*;
use std::path::Path;

/// Writes `files` (name, content) into a fresh folder and returns it.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{}", run.describe()))
}

/// Statistic `what` of metric `name` in run `id` of a JSON summary.
fn stat(doc: &serde_json::Value, id: usize, name: &str, what: &str) -> f64 {
    doc["runs"][id]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name}"))[what]
        .as_f64()
        .unwrap_or_else(|| panic!("{name} has no {what}"))
}

fn run_json(dir: &Path, extra: &[&str]) -> (Run, serde_json::Value) {
    let scenario = dir.join("s.yml");
    let mut args = vec!["jobs", scenario.to_str().unwrap(), "--format", "json", "-q"];
    args.extend_from_slice(extra);
    let run = orcs(&args).ok();
    let doc = json(&run);
    (run, doc)
}

/// A 2-ary 2-tree (hosts H0, H1 on one leaf, H2, H3 on the other, one core each).
/// Job A (4 ranks, rank 0 sends 100 B to rank 2) fills it from t = 0 for 10; jobs B
/// (2 ranks, 7 B between them) arrive at 1 and 2 and run 5.
const TIMELINE: &str = "\
duration: 30
topology:
  - kind: gen
    params: {spec: 'kary-ntree:k=2,n=2'}
algorithms:
  scheduler: [fcfs]
  node_selector: [pfsim.host_selector.LinearHostSelector]
  process_mapper: [block]
  router: [dmodk]
jobs:
  - submit: [0]
    duration: 10
    trace: a.csv
  - submit: [1, 2]
    duration: {distribution: constant, params: {value: 5}}
    trace: b.csv
";

fn timeline() -> tempfile::TempDir {
    folder(&[
        ("s.yml", TIMELINE),
        ("a.csv", "src,dst,bytes\n0,2,100\n3,3,1\n"),
        ("b.csv", "src,dst,bytes\n0,1,7\n"),
    ])
}

#[test]
fn fcfs_timeline_by_hand() {
    // A runs 0–10. B1 and B2 queue; when A ends both fit (two hosts each), so both
    // start at 10 and end at 15. Waits 0, 9, 8; responses 10, 14, 13.
    // Jobs in system: 1 on [0,1), 2 on [1,2), 3 on [2,10), 2 on [10,15), 0 to 30:
    // mean 37/30 (and Σ responses = 37, Little's law). Running: 1 then 2: 20/30.
    // A's 100 B cross the spine (two network links), B's stay on a leaf: the largest
    // link load is 100 on [0,10) and 0 after, mean 1000/30.
    let dir = timeline();
    let (run, doc) = run_json(dir.path(), &[]);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let r = &doc["runs"][0];
    assert_eq!(
        (r["submitted"].as_u64(), r["finished"].as_u64()),
        (Some(3), Some(3)),
        "{}",
        run.describe()
    );
    assert!(close(stat(&doc, 0, "Job Wait Time", "mean"), 17.0 / 3.0));
    assert!(close(stat(&doc, 0, "Job Wait Time", "max"), 9.0));
    assert!(close(
        stat(&doc, 0, "Job Response Time", "mean"),
        37.0 / 3.0
    ));
    assert!(close(
        stat(&doc, 0, "Number of Jobs in System", "mean"),
        37.0 / 30.0
    ));
    assert!(close(
        stat(&doc, 0, "Number of Running Jobs", "mean"),
        20.0 / 30.0
    ));
    assert!(close(stat(&doc, 0, "Number of Waiting Jobs", "max"), 2.0));
    assert!(close(stat(&doc, 0, "Maximum Congestion", "max"), 100.0));
    assert!(close(
        stat(&doc, 0, "Maximum Congestion", "mean"),
        1000.0 / 30.0
    ));
    assert!(close(stat(&doc, 0, "Maximum Number of Flows", "max"), 1.0));
}

#[test]
fn pfsim_compat_starts_one_queued_job_per_end() {
    // PFSim starts only B1 at 10; B2 starts when B1 ends at 15 and ends at 20: waits
    // 0, 9, 13. The last sample of each series (t = 20) is dropped.
    let dir = timeline();
    let (_, doc) = run_json(dir.path(), &["--pfsim-compat"]);
    assert_eq!(stat(&doc, 0, "Job Wait Time", "max"), 13.0);
    assert!((stat(&doc, 0, "Job Wait Time", "mean") - 22.0 / 3.0).abs() < 1e-9);
    assert_eq!(stat(&doc, 0, "Job Response Time", "max"), 18.0);
    // Jobs in system sampled at 0, 1, 2, 10, 15 (and 20, dropped): 5 values.
    assert_eq!(stat(&doc, 0, "Number of Jobs in System", "count"), 5.0);
}

#[test]
fn single_server_queue_matches_m_m_1() {
    // Three-rank jobs on four hosts: one runs at a time, so with Poisson arrivals
    // (λ = 0.5) and exponential run times (μ = 1) the cluster is an M/M/1 queue:
    // ρ = 0.5 running on average, L = ρ / (1 − ρ) = 1 in the system, mean response
    // 1 / (μ − λ) = 2 and mean wait ρ / (μ − λ) = 1. About 20 000 jobs.
    let dir = folder(&[
        (
            "s.yml",
            "duration: 40000
topology:
  - kind: gen
    params: {spec: 'kary-ntree:k=2,n=2'}
algorithms:
  scheduler: [pfsim.scheduler.FCFSScheduler]
  host_selector: [linear]
  process_mapper: [block]
  router: [greedy-max]
jobs:
  - submit: {distribution: pfsim.math.ExponentialDistribution, params: {lambd: 0.5}}
    duration: {distribution: exponential, params: {mean: 1}}
    trace: m.csv
",
        ),
        ("m.csv", "src,dst,bytes\n0,2,5\n1,2,3\n"),
    ]);
    let (run, doc) = run_json(dir.path(), &["--seed", "11"]);
    let within = |name: &str, what: &str, expected: f64, tolerance: f64| {
        let got = stat(&doc, 0, name, what);
        assert!(
            (got - expected).abs() <= tolerance * expected,
            "{name} {what}: {got}, expected {expected} ± {}%\n{}",
            tolerance * 100.0,
            run.describe()
        );
    };
    within("Number of Running Jobs", "mean", 0.5, 0.03);
    within("Number of Jobs in System", "mean", 1.0, 0.08);
    within("Job Response Time", "mean", 2.0, 0.08);
    within("Job Wait Time", "mean", 1.0, 0.12);
    let submitted = doc["runs"][0]["submitted"].as_f64().unwrap();
    assert!((submitted - 20_000.0).abs() < 600.0, "{submitted}");
}

#[test]
fn pfsim_scenario_maxima_and_flows() {
    // With the linear selector only one 128-rank job fits on milk's 160 cores and it
    // always gets milk01–16, so each run's largest link load is PFSim's single-job
    // value (spec pfsim.md §8.2, §8.4), whatever the arrivals.
    let Some(scenario) = shared_str("traces/pfsim/cg.yml") else {
        return;
    };
    let expected: [(f64, f64); 6] = [
        (5_928_262_656.0, 88.0),
        (3_260_400_000.0, 100.0),
        (2_964_262_664.0, 114.0),
        (11_708_587_972.0, 79.0),
        (10_522_987_972.0, 71.0),
        (10_374_525_380.0, 70.0),
    ];
    for compat in [false, true] {
        let mut args = vec!["jobs", &scenario, "--format", "json", "-q"];
        if compat {
            args.push("--pfsim-compat");
        }
        let run = orcs(&args).ok();
        let doc = json(&run);
        assert_eq!(doc["runs"].as_array().unwrap().len(), 12);
        for (id, &(max, flows)) in expected.iter().enumerate() {
            assert_eq!(doc["runs"][id]["host_selector"], "linear");
            assert_eq!(stat(&doc, id, "Maximum Congestion", "max"), max, "run {id}");
            assert_eq!(
                stat(&doc, id, "Maximum Number of Flows", "max"),
                flows,
                "run {id}"
            );
        }
        // Routers 0, 1, 2 = PFSim's DmodK, Greedy, Greedy2, numbered as PFSim does.
        assert_eq!(doc["runs"][4]["router"], "greedy");
        assert_eq!(doc["runs"][5]["process_mapper"], "cyclic");
    }
}

#[test]
fn output_is_independent_of_threads_and_writes_run_folders() {
    let dir = timeline();
    let scenario = dir.path().join("s.yml");
    let out = dir.path().join("out");
    let one = orcs(&["jobs", scenario.to_str().unwrap(), "-j", "1", "-q"]).ok();
    let two = orcs(&[
        "jobs",
        scenario.to_str().unwrap(),
        "-j",
        "2",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ])
    .ok();
    assert_eq!(one.stdout, two.stdout);
    let series =
        std::fs::read_to_string(out.join("0").join("Number of Jobs in System.csv")).unwrap();
    assert_eq!(series, "Time,Value\n0,1\n1,2\n2,3\n10,2\n15,0\n");
    let waits = std::fs::read_to_string(out.join("0").join("Job Wait Time.csv")).unwrap();
    assert_eq!(waits, "Value\n0\n9\n8\n");
    assert!(std::fs::read_to_string(out.join("0").join("result.txt"))
        .unwrap()
        .contains("Routing Algorithm: dmodk"));
    let csv = orcs(&["jobs", scenario.to_str().unwrap(), "--format", "csv", "-q"]).ok();
    assert!(csv.stdout.starts_with("id,topology,scheduler,host_selector,process_mapper,router,submitted,started,finished,maximum_congestion_max,"));
}

#[test]
fn direct_networks_run() {
    // PFSim's NDTorusTopology crashes at the first job; here every node is a host and
    // the host-to-host links carry the traffic: rank 0 → rank 2 on a ring of 4 takes
    // two links, 50 B each.
    let dir = folder(&[
        (
            "s.yml",
            "duration: 10
topology:
  - kind: pfsim.topology.NDTorusTopology
    params: {n: 1, dims: [4], bw: 1, npe: 1}
algorithms:
  scheduler: [fcfs]
  host_selector: [linear]
  process_mapper: [block]
  router: [dmodk, greedy-max]
jobs:
  - submit: [0]
    duration: 100
    trace: m.csv
",
        ),
        ("m.csv", "src,dst,bytes\n0,2,50\n"),
    ]);
    let (_, doc) = run_json(dir.path(), &[]);
    for id in 0..2 {
        assert_eq!(stat(&doc, id, "Maximum Congestion", "max"), 50.0);
        assert_eq!(stat(&doc, id, "Maximum Number of Flows", "max"), 1.0);
    }
}

#[test]
fn scenario_errors_name_the_file_and_line() {
    let bad_router = TIMELINE.replace("router: [dmodk]", "router: [pfsim.router.Teleport]");
    let dir = folder(&[
        ("s.yml", &bad_router),
        ("a.csv", "src,dst,bytes\n0,1,1\n"),
        ("b.csv", "src,dst,bytes\n0,1,1\n"),
    ]);
    let s = dir.path().join("s.yml");
    orcs(&["jobs", s.to_str().unwrap()]).fails_with(
        1,
        &[
            "s.yml:9:",
            "unknown router 'pfsim.router.Teleport'",
            "greedy-max",
        ],
    );
    std::fs::write(
        &s,
        TIMELINE.replace("duration: 30", "duration: 30\nhorizon: 5"),
    )
    .unwrap();
    orcs(&["jobs", s.to_str().unwrap()]).fails_with(1, &["s.yml:", "unknown field `horizon`"]);
    // A job that can never fit is an error, not an endless queue.
    std::fs::write(&s, TIMELINE).unwrap();
    std::fs::write(dir.path().join("a.csv"), "src,dst,bytes\n0,9,1\n").unwrap();
    orcs(&["jobs", s.to_str().unwrap()]).fails_with(
        1,
        &["run 0", "needs 10 processing elements but only 4 are free"],
    );
    std::fs::remove_file(dir.path().join("a.csv")).unwrap();
    orcs(&["jobs", s.to_str().unwrap()]).fails_with(1, &["a.csv"]);
}

#[test]
fn readme_scenario_example_runs() {
    // The annotated scenario in the README, with its cluster and traces beside it.
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let start = readme
        .find("```yaml\nduration:")
        .expect("the README's scenario")
        + 8;
    let text = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = folder(&[("s.yml", &text.replace("cluster.graphml", "milk.graphml"))]);
    for (from, to) in [
        ("topologies/milk.graphml", "milk.graphml"),
        ("patterns/cg-c-128.tar.gz", "cg-c-128.tar.gz"),
        ("patterns/milc-128.tar.gz", "milc-128.tar.gz"),
    ] {
        std::fs::copy(repo(from), dir.path().join(to)).unwrap();
    }
    let (_, doc) = run_json(dir.path(), &[]);
    // 1 topology × 1 scheduler × 2 selectors × 2 mappers × 2 routers.
    assert_eq!(doc["runs"].as_array().unwrap().len(), 8);
    assert_eq!(doc["seed"], 1);
}

/// Job A (0–10) on the 2-ary 2-tree of [`TIMELINE`]: H3 → H1 50 B, then H2 → H0 40 B;
/// job B (20–25, the network empty again): H0 → H2 50 B, then H1 → H3 40 B. Greedy
/// routing (smallest sum of link bytes, ties to the first spine S).
const RETURN_ROUTES: &str = "\
duration: 30
topology:
  - kind: gen
    params: {spec: 'kary-ntree:k=2,n=2'}
algorithms:
  scheduler: [fcfs]
  node_selector: [pfsim.host_selector.LinearHostSelector]
  process_mapper: [block]
  router: [pfsim.router.GreedyRouter]
jobs:
  - submit: [0]
    duration: 10
    trace: a.csv
  - submit: [20]
    duration: 5
    trace: b.csv
";

#[test]
fn pfsim_compat_reuses_the_stale_return_routes_of_the_greedy_router() {
    // A: H3 → H1 takes S (empty network); H2 → H0 avoids S's loaded links and takes the
    // other spine T. Largest load 50.
    // PFSim then routes the reverse of each pair, on A's loads, and caches it for ever:
    // H1 → H3 and H0 → H2 meet no load in their direction, so both take S.
    // B, alone on the network: orcs routes H0 → H2 by S and then H1 → H3 by T (S's links
    // carry 50): largest load 50. With PFSim's cache both pairs take the stale S
    // routes and share S's links: 90.
    let dir = folder(&[
        ("s.yml", RETURN_ROUTES),
        ("a.csv", "src,dst,bytes\n3,1,50\n2,0,40\n"),
        ("b.csv", "src,dst,bytes\n0,2,50\n1,3,40\n"),
    ]);
    let (run, doc) = run_json(dir.path(), &[]);
    assert_eq!(doc["runs"][0]["router"], "greedy", "{}", run.describe());
    assert_eq!(stat(&doc, 0, "Maximum Congestion", "max"), 50.0);
    let (run, doc) = run_json(dir.path(), &["--pfsim-compat"]);
    assert_eq!(
        stat(&doc, 0, "Maximum Congestion", "max"),
        90.0,
        "{}",
        run.describe()
    );
    // Over time: A's 50 on [0, 10), B's 90 on [20, 25); PFSim drops the last sample.
    let series = orcs(&[
        "jobs",
        dir.path().join("s.yml").to_str().unwrap(),
        "--pfsim-compat",
        "-q",
        "-o",
        dir.path().join("out").to_str().unwrap(),
    ])
    .ok();
    let csv = std::fs::read_to_string(dir.path().join("out/0/Maximum Congestion.csv"))
        .unwrap_or_else(|e| panic!("{e}\n{}", series.describe()));
    assert!(csv.contains("\n20,90\n"), "{csv}");
}
