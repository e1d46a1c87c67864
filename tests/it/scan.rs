//! `orcs scan`: cells equal single runs, a scan killed at random points and resumed
//! equals an uninterrupted one, shards merge into the whole, damaged files are caught.

use crate::support::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Records of a results file by key, without their timing (the only field that may
/// differ between two scans of the same plan).
fn records(path: &Path) -> BTreeMap<String, serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut v = orcs::scan::unseal(line).unwrap_or_else(|| panic!("bad record {line}"));
        let key = v["key"].as_str().unwrap().to_string();
        v.as_object_mut().unwrap().remove("seconds");
        assert!(
            out.insert(key.clone(), v).is_none(),
            "duplicate record {key}"
        );
    }
    out
}

fn write_plan(dir: &Path, runs: u64) -> String {
    let plan = format!(
        "runs = {runs}\nseed = 5\nmetrics = [\"sum_max_cong\", \"hist_max_cong\"]\ncommsizes = [0, 32]\n\
         patterns = [\"bisect\", \"bruck\", {{ name = \"neighbor\", arg = \"4\" }}]\n\n\
         [[fabrics]]\npath = \"{}\"\n\n[[fabrics]]\ngen = \"kary-ntree:k=4,n=3\"\nrouting = [\"dmodk\", \"updn\"]\n",
        repo("topologies/torus-4x4x4.dor-dateline.dot")
    );
    let path = dir.join("plan.toml");
    std::fs::write(&path, plan).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn cells_record_their_time_in_whole_milliseconds() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), 300);
    let started = std::time::Instant::now();
    orcs(&["scan", &plan, "-q", "-j", "1"]).ok();
    let wall = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(dir.path().join("plan.jsonl")).unwrap();
    let mut total = 0.0;
    for line in text.lines() {
        let record = orcs::scan::unseal(line).unwrap();
        let seconds = record["seconds"].as_f64().unwrap();
        // One cell's time lies within the whole command's, in milliseconds.
        assert!((0.0..=wall).contains(&seconds), "{seconds} s of {wall} s");
        let ms = seconds * 1e3;
        assert!((ms - ms.round()).abs() < 1e-6, "{seconds} s");
        total += seconds;
    }
    // 36 cells of 300 runs each take some milliseconds in all.
    assert!(total > 0.0, "no cell took any time");
}

#[test]
fn a_cell_is_the_single_run_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), 100);
    orcs(&["scan", &plan, "-q"]).ok();
    let recs = records(&dir.path().join("plan.jsonl"));
    assert_eq!(
        recs.len(),
        36,
        "3 fabrics × 3 patterns × 2 sizes × 2 metrics"
    );
    let torus = repo("topologies/torus-4x4x4.dor-dateline.dot");
    let key = format!("{torus}|bruck||32|sum_max_cong|100|5");
    let rec = &recs[&key];
    let single = orcs(&[
        "-i",
        &torus,
        "-p",
        "bruck",
        "-s",
        "32",
        "--metric",
        "sum_max_cong",
        "-n",
        "100",
        "--seed",
        "5",
        "--format",
        "json",
        "-q",
    ])
    .ok();
    let doc: serde_json::Value = serde_json::from_str(&single.stdout).unwrap();
    assert_eq!(rec["result"]["stats"], doc["summary"]["sum_max_cong"]);
    assert_eq!(rec["hosts"], 32);
    let csv = std::fs::read_to_string(dir.path().join("plan.csv")).unwrap();
    assert_eq!(csv.lines().count(), 37);
    assert!(
        csv.starts_with("cell,fabric,routing,pattern,arg,traffic,commsize,metric,runs,seed,mean,")
    );
    // The routing has a column of its own: the file's is empty, each generated
    // fabric's names its engine (the generator's label is quoted: it has a comma).
    let torus = repo("topologies/torus-4x4x4.dor-dateline.dot");
    for (fabric, routing) in [
        (torus.as_str(), ""),
        ("\"gen:kary-ntree:k=4,n=3\"", "dmodk"),
        ("\"gen:kary-ntree:k=4,n=3\"", "updn"),
    ] {
        let rows = csv
            .lines()
            .filter(|l| l.contains(&format!(",{fabric},{routing},bisect,")))
            .count();
        assert_eq!(rows, 4, "{fabric} {routing}:\n{csv}");
    }
    assert!(!csv.contains("--routing"), "{csv}");
    // Every fabric (the dot file and both generated ones) is kept as a binary cache for
    // a resumed scan.
    let cached = std::fs::read_dir(dir.path().join("plan.cache"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".orcsfab")
        })
        .count();
    assert_eq!(cached, 3);
}

#[test]
fn killed_scans_resume_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), 3000);
    let whole = dir.path().join("whole.jsonl");
    orcs(&[
        "scan",
        &plan,
        "-o",
        whole.to_str().unwrap(),
        "-q",
        "-j",
        "2",
    ])
    .ok();
    let expected = records(&whole);

    let resumed = dir.path().join("resumed.jsonl");
    // Kill -9 at pseudo-random moments (fixed for reproducibility), several times.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut kills = 0;
    for _ in 0..6 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut child = Command::new(env!("CARGO_BIN_EXE_orcs"))
            .args([
                "scan",
                &plan,
                "-o",
                resumed.to_str().unwrap(),
                "-q",
                "-j",
                "2",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + x % 150));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    // A record torn in half, as a power cut could leave it: dropped and run again.
    let text = std::fs::read_to_string(&resumed).unwrap_or_default();
    let torn = orcs::scan::seal(&serde_json::json!({"cell": 0, "key": "torn"}));
    std::fs::write(&resumed, format!("{text}{}", &torn[..torn.len() / 2])).unwrap();
    orcs(&["scan", &plan, "-o", resumed.to_str().unwrap(), "-q"]).ok();
    assert_eq!(records(&resumed), expected, "after {kills} kills");
    // Nothing left to do: a further run changes nothing.
    orcs(&["scan", &plan, "-o", resumed.to_str().unwrap(), "-q"]).ok();
    assert_eq!(records(&resumed), expected);
}

#[test]
fn shards_merge_into_the_whole_scan() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), 50);
    let whole = dir.path().join("whole.jsonl");
    orcs(&[
        "scan",
        &plan,
        "-o",
        whole.to_str().unwrap(),
        "-q",
        "-j",
        "1",
    ])
    .ok();
    let mut parts = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        orcs(&["scan", &plan, "--shard", &shard, "-q"]).ok();
        let part = dir.path().join(format!("plan.{i}of3.jsonl"));
        assert!(records(&part).len() >= 12, "shard {i}");
        parts.push(part.to_str().unwrap().to_string());
    }
    let merged = dir.path().join("merged.jsonl");
    let mut args = vec!["scan", "--merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap(), "-q"]);
    orcs(&args).ok();
    assert_eq!(records(&merged), records(&whole));
    // Merged records are in cell order, and the CSV has one row per cell.
    let cells: Vec<u64> = std::fs::read_to_string(&merged)
        .unwrap()
        .lines()
        .map(|l| orcs::scan::unseal(l).unwrap()["cell"].as_u64().unwrap())
        .collect();
    assert_eq!(cells, (0..36).collect::<Vec<_>>());
    let csv = std::fs::read_to_string(dir.path().join("merged.csv")).unwrap();
    assert_eq!(csv.lines().count(), 37);
}

/// A plan of 120 cells whose records are full of floats that are not short decimals
/// (standard deviations, confidence intervals, bandwidths, histogram bins).
fn write_float_plan(dir: &Path, name: &str, runs: u64) -> String {
    let plan = format!(
        "runs = {runs}\nseed = 11\nmetrics = [\"sum_max_cong\", \"hist_max_cong\", \"hist_acc_band\", \"dep_max_delay\"]\n\
         commsizes = [0, 6, 12]\npatterns = [\"bisect\", \"bruck\", \"rand\", \"tree\", {{ name = \"neighbor\", arg = \"2\" }}]\n\n\
         [[fabrics]]\npath = \"{}\"\n\n[[fabrics]]\ngen = \"kary-ntree:k=4,n=2\"\n",
        repo(FT4)
    );
    let path = dir.join(name);
    std::fs::write(&path, plan).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs `orcs scan` with `args` after the plan, quietly, into `out` in `dir`.
fn scan(plan: &str, dir: &Path, out: &str, args: &[&str]) -> std::path::PathBuf {
    let path = dir.join(out);
    let mut all = vec!["scan", plan, "-o", path.to_str().unwrap(), "-q"];
    all.extend_from_slice(args);
    orcs(&all).ok();
    path
}

/// `orcs scan --merge files… -o out` with `extra` flags.
fn merge(dir: &Path, files: &[&Path], out: &str, extra: &[&str]) -> Run {
    let out = dir.join(out);
    let mut args = vec!["scan", "--merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(["-o", out.to_str().unwrap(), "-q"]);
    args.extend_from_slice(extra);
    orcs(&args)
}

#[test]
fn merged_shards_are_the_one_process_scan_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_float_plan(d, "plan.toml", 24);
    let whole = scan(&plan, d, "whole.jsonl", &["-j", "2"]);
    let s1 = scan(&plan, d, "s1.jsonl", &["--shard", "1/2"]);
    let s2 = scan(&plan, d, "s2.jsonl", &["--shard", "2/2"]);
    merge(d, &[&s1, &s2], "merged.jsonl", &[]).ok();
    let merged = d.join("merged.jsonl");
    let ours = timeless_records(&merged);
    assert_eq!(ours.len(), 120);
    assert_eq!(ours, timeless_records(&whole));
    // Every merged line is a shard's line, unchanged (time and checksum included).
    let shard_lines: std::collections::BTreeSet<String> = [&s1, &s2]
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let text = std::fs::read_to_string(&merged).unwrap();
    assert!(text.lines().all(|l| shard_lines.contains(l)));
    assert_eq!(
        timeless_csv(&d.join("merged.csv")),
        timeless_csv(&d.join("whole.csv"))
    );
    // The same shard given twice: its identical records count once.
    merge(d, &[&s1, &s2, &s1], "twice.jsonl", &[]).ok();
    assert_eq!(
        std::fs::read_to_string(d.join("twice.jsonl")).unwrap(),
        text
    );
    // A merge may be compressed, and read again as it was.
    merge(d, &[&s1, &s2], "merged.jsonl.gz", &[]).ok();
    let gz = std::fs::read(d.join("merged.jsonl.gz")).unwrap();
    let mut unpacked = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut unpacked)
        .unwrap();
    assert_eq!(unpacked, text);
    merge(d, &[&d.join("merged.jsonl.gz")], "again.jsonl", &[]).ok();
    assert_eq!(
        std::fs::read_to_string(d.join("again.jsonl")).unwrap(),
        text
    );
    // A scan appends to its results file, which gzip cannot take: refused by name, and
    // by content.
    let gz_out = d.join("r.jsonl.gz");
    orcs(&["scan", &plan, "-o", gz_out.to_str().unwrap(), "-q"])
        .fails_with(1, &["r.jsonl.gz", "without .gz"]);
    assert!(!gz_out.exists());
    let disguised = d.join("disguised.jsonl");
    std::fs::write(&disguised, &gz).unwrap();
    orcs(&["scan", &plan, "-o", disguised.to_str().unwrap(), "-q"])
        .fails_with(1, &["disguised.jsonl", "gzip"]);
    assert_eq!(std::fs::read(&disguised).unwrap(), gz);
}

#[test]
fn merge_refuses_foreign_and_conflicting_records() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_float_plan(d, "plan.toml", 4);
    let s1 = scan(&plan, d, "s1.jsonl", &["--shard", "1/2"]);
    let s2 = scan(&plan, d, "s2.jsonl", &["--shard", "2/2"]);
    // Records of another plan (one more run per cell): refused where they are.
    let other = write_float_plan(d, "other.toml", 5);
    let foreign = scan(&other, d, "other.jsonl", &["--shard", "2/2"]);
    merge(d, &[&s1, &foreign], "m.jsonl", &[]).fails_with(
        1,
        &[
            "other.jsonl:1: a record of plan",
            "s1.jsonl:1",
            "results of different plans do not mix",
        ],
    );
    // Resuming into a results file of another plan stops before running anything.
    orcs(&["scan", &plan, "-o", foreign.to_str().unwrap(), "-q"])
        .fails_with(1, &["other.jsonl:1:", "as the plan being run"]);
    // A second record of a cell with another result (sealed, so not damage): refused.
    let first = std::fs::read_to_string(&s1).unwrap();
    let line = first.lines().next().unwrap();
    let mut record = orcs::scan::unseal(line).unwrap();
    let mean = record["result"]["stats"]["mean"].as_f64().unwrap();
    record["result"]["stats"]["mean"] = serde_json::json!(mean + 1.0);
    // Records are written as cells finish, so the first line may be any cell of shard 1.
    let cell = record["cell"].as_u64().unwrap();
    let lines = std::fs::read_to_string(&s2).unwrap();
    let n = lines.lines().count() + 1;
    std::fs::write(&s2, format!("{lines}{}", orcs::scan::seal(&record))).unwrap();
    merge(d, &[&s1, &s2], "m.jsonl", &[]).fails_with(
        1,
        &[
            &format!("s2.jsonl:{n}: cell {cell} ("),
            "has another result in",
            "s1.jsonl:1",
        ],
    );
    assert!(!d.join("m.jsonl").exists(), "nothing written");
}

#[test]
fn missing_cells_fail_the_merge_unless_partial_results_are_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_float_plan(d, "plan.toml", 4);
    let s1 = scan(&plan, d, "s1.jsonl", &["--shard", "1/3"]);
    let s3 = scan(&plan, d, "s3.jsonl", &["--shard", "3/3"]);
    // Shard 2 was never run: its file is missing, and so are its cells 1, 4, 7, ...
    let s2 = d.join("s2.jsonl");
    let run = merge(d, &[&s1, &s2, &s3], "m.jsonl", &[]).fails_with(
        1,
        &[
            "s2.jsonl: no such file",
            "40 of the plan's 120 cells have no record: cells 1, 4, 7, 10,",
            "--allow-partial",
        ],
    );
    assert!(!d.join("m.jsonl").exists(), "{}", run.describe());
    let run = merge(d, &[&s1, &s2, &s3], "m.jsonl", &["--allow-partial"]).ok();
    assert!(
        run.stderr
            .contains("40 of the plan's 120 cells have no record"),
        "{}",
        run.describe()
    );
    let kept = timeless_records(&d.join("m.jsonl"));
    assert_eq!(kept.len(), 80);
    // A shard cut short loses cells too.
    let text = std::fs::read_to_string(&s3).unwrap();
    let cut = text.len() - text.lines().last().unwrap().len() / 2 - 1;
    std::fs::write(&s3, &text[..cut]).unwrap();
    orcs(&[
        "scan",
        "--merge",
        s1.to_str().unwrap(),
        s3.to_str().unwrap(),
        "-o",
        d.join("m2.jsonl").to_str().unwrap(),
    ])
    .fails_with(
        1,
        &[
            "s3.jsonl: its last line is cut short",
            "41 of the plan's 120 cells have no record",
        ],
    );
    orcs(&["scan", &plan, "--allow-partial"])
        .fails_with(1, &["--allow-partial applies to --merge"]);
}

#[test]
fn dry_run_lists_cells_and_what_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), 20);
    orcs(&[
        "scan",
        &plan,
        "--shard",
        "1/2",
        "-q",
        "-o",
        dir.path().join("plan.jsonl").to_str().unwrap(),
    ])
    .ok();
    let before = folder_contents(dir.path());
    let run = orcs(&["scan", &plan, "--dry-run"]).ok();
    assert!(
        run.stdout
            .contains("36 cells, 18 done, 18 to run; estimated"),
        "{}",
        run.describe()
    );
    // A dry run only reads: every file keeps its bytes and none appears.
    assert_eq!(folder_contents(dir.path()), before, "{}", run.describe());
}

/// Every file under `dir` with its bytes, by path; folders are entered.
fn folder_contents(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            files.extend(folder_contents(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            files.push((path.to_string_lossy().into_owned(), bytes));
        }
    }
    files.sort();
    files
}

#[test]
fn cells_that_cannot_run_are_recorded_and_damage_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("p.toml");
    std::fs::write(
        &plan,
        format!(
            "runs = 10\nmetrics = [\"sum_max_cong\"]\ncommsizes = [8, 1000]\npatterns = [\"bisect\"]\n[[fabrics]]\npath = \"{}\"\n",
            repo(TWO)
        ),
    )
    .unwrap();
    let run = orcs(&["scan", plan.to_str().unwrap()]).ok();
    assert!(
        run.stderr.contains("2 cells could not run"),
        "{}",
        run.describe()
    );
    let recs = records(&dir.path().join("p.jsonl"));
    assert!(recs.values().all(|r| r["error"].as_str().is_some()));
    // Before running, a dry run says which cells cannot run and why.
    std::fs::remove_file(dir.path().join("p.jsonl")).unwrap();
    let dry = orcs(&["scan", plan.to_str().unwrap(), "--dry-run"]).ok();
    assert!(
        dry.stdout.contains(
            "2 cells, 0 done, 2 to run (2 cannot run and will be recorded with their error)"
        ),
        "{}",
        dry.describe()
    );
    let error = recs.values().find(|r| r["commsize"] == 1000).unwrap()["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        dry.stdout.contains(&format!("       cannot run: {error}")),
        "{error}\n{}",
        dry.describe()
    );
    orcs(&["scan", plan.to_str().unwrap(), "-q"]).ok();

    // A damaged record that is not the last line is an error naming the line.
    let results = dir.path().join("p.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, text.replacen("bisect", "bisekt", 1)).unwrap();
    orcs(&["scan", plan.to_str().unwrap()]).fails_with(1, &["p.jsonl:1:", "checksum"]);

    std::fs::write(&plan, "runs = 10\nmetrics = [\"sum_max_cong\"]\npatterns = [\"bisect\"]\n[[fabrics]]\npath = \"nothing-*.dot\"\n").unwrap();
    orcs(&["scan", plan.to_str().unwrap()]).fails_with(1, &["p.toml:5:", "matches no file"]);
    orcs(&["scan", plan.to_str().unwrap(), "--shard", "4/3"]).fails_with(1, &["--shard '4/3'"]);
}

#[test]
fn readme_plan_expands() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let start = readme
        .find("```toml\n# plan.toml")
        .expect("the README's plan")
        + 8;
    let text = &readme[start..start + readme[start..].find("```").unwrap()];
    let plan = orcs::scan::parse_plan(text, &repo("plan.toml")).unwrap();
    let files = std::fs::read_dir(repo("topologies"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name().into_string().unwrap();
            name.contains(".dot")
        })
        .count();
    assert_eq!(plan.fabrics.len(), files + 3);
    assert_eq!(plan.cells.len(), (files + 3) * 3 * 2 * 2);
    assert_eq!((plan.runs, plan.seed), (10_000, 1));
    // The plan of application traffic: bisect, two PFProf traces and two DUMPI traces.
    let start = readme
        .find("```toml\n# traffic.toml")
        .expect("the README's traffic plan")
        + 8;
    let text = &readme[start..start + readme[start..].find("```").unwrap()];
    let plan = orcs::scan::parse_plan(text, &repo("traffic.toml")).unwrap();
    assert_eq!(plan.traffic.len(), 4);
    assert_eq!(plan.cells.len(), 3 * 5 * 2);
    let flags: Vec<String> = plan.traffic.iter().map(|t| t.flags_text()).collect();
    assert_eq!(flags, ["", "", "--phase exchange", "--collectives exclude"]);
    // The plan of task-model points: 2 trees × 2 schedulers × 3 loads on 2 routings.
    let start = readme
        .find("```toml\n# tasks.toml")
        .expect("the README's task plan")
        + 8;
    let text = &readme[start..start + readme[start..].find("```").unwrap()];
    let plan = orcs::scan::parse_plan(text, &repo("tasks.toml")).unwrap();
    assert_eq!(plan.tasks.len(), 12);
    assert_eq!(plan.cells.len(), 2 * 12);
    let last = &plan.tasks[11];
    assert_eq!(
        (last.load, last.scheduler.name(), last.roots, last.bandwidth),
        (0.8, "stealing", 2000, 100e9)
    );
    assert_eq!(
        last.flags,
        "--tree n=100,s=0.5 --scheduler stealing --load 0.8 --bandwidth 100Gb/s --roots 2000 \
         --warmup 200 --replications 10"
    );
}

const PHASES: &str = "tests/fixtures/dumpi/phases/phases.meta";
const RING_TRACE: &str = "tests/fixtures/dumpi/testtrace/testtrace.meta";

/// A plan of application traffic: a CSV matrix written here (six ranks: a ring and one
/// heavy pair), one phase of a trace and a trace without its collectives, beside bisect,
/// on a fat tree file and a generated one; every metric a matrix runs, at the sizes 0
/// (the matrix's ranks) and 8 (refused for a matrix).
fn write_traffic_plan(dir: &Path, runs: u64) -> String {
    std::fs::create_dir_all(dir.join("matrices")).unwrap();
    std::fs::write(
        dir.join("matrices/ring.csv"),
        "src,dst,bytes\n0,1,1000\n1,2,1000\n2,3,1000\n3,4,1000\n4,5,1000\n5,0,1000\n0,3,5000\n",
    )
    .unwrap();
    let plan = format!(
        "runs = {runs}\nseed = 9\nmetrics = [\"sum_max_cong\", \"hist_acc_band\", \"get_cable_cong\"]\n\
         commsizes = [0, 8]\npatterns = [\"bisect\",\n\
         \x20 {{ name = \"matrix\", traffic = \"matrices/*.csv\" }},\n\
         \x20 {{ name = \"matrix\", traffic = \"{}\", phase = \"exchange\" }},\n\
         \x20 {{ name = \"matrix\", traffic = \"{}\", collectives = \"exclude\" }}]\n\n\
         [[fabrics]]\npath = \"{}\"\n\n[[fabrics]]\ngen = \"kary-ntree:k=4,n=2\"\nrouting = \"dmodk\"\n",
        repo(PHASES),
        repo(RING_TRACE),
        repo(FT4)
    );
    let path = dir.join("plan.toml");
    std::fs::write(&path, plan).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs a record's `command` in a POSIX shell in `dir` (where a generated fabric is
/// written), with `extra` words after it and this build's `orcs` first on the path.
fn run_recorded(command: &str, dir: &Path, extra: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_orcs")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", &format!("{command} {extra}")])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// The links of a `-p matrix --format json` document with the most bytes, as a
/// get_cable_cong record lists them: [tail, head, bytes], at most 10, none idle.
fn hottest_links(doc: &serde_json::Value) -> serde_json::Value {
    let mut links: Vec<&serde_json::Value> = doc["links"].as_array().unwrap().iter().collect();
    links.sort_by_key(|l| {
        (
            std::cmp::Reverse(l["bytes"].as_u64()),
            l["edge_id"].as_u64(),
        )
    });
    let hot: Vec<serde_json::Value> = links
        .iter()
        .take(10)
        .filter(|l| l["bytes"].as_u64() > Some(0))
        .map(|l| serde_json::json!([l["tail"], l["head"], l["bytes"]]))
        .collect();
    hot.into()
}

#[test]
fn traffic_cells_are_the_single_matrix_runs_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_traffic_plan(d, 40);
    orcs(&["scan", &plan, "-q"]).ok();
    let recs = records(&d.join("plan.jsonl"));
    assert_eq!(
        recs.len(),
        2 * 4 * 2 * 3,
        "fabrics × patterns × sizes × metrics"
    );
    let csv = std::fs::read_to_string(d.join("plan.csv")).unwrap();
    let ring = d.join("matrices/ring.csv").to_string_lossy().into_owned();
    let mut compared = 0;
    for rec in recs.values().filter(|r| r["pattern"] == "matrix") {
        let command = rec["command"].as_str().unwrap();
        let traffic = rec["traffic"].as_str().unwrap();
        assert!(
            [ring.as_str(), &repo(PHASES), &repo(RING_TRACE)].contains(&traffic),
            "{rec}"
        );
        let label = match rec["trace_options"].as_str().unwrap() {
            "" => traffic.to_string(),
            flags => format!("{traffic} {flags}"),
        };
        let row = format!(
            ",matrix,,{label},{},{},40,9,",
            rec["commsize"],
            rec["metric"].as_str().unwrap()
        );
        assert!(csv.contains(&row), "{row} not in\n{csv}");
        if rec["commsize"] != 0 {
            assert_eq!(
                rec["error"],
                "commsize 8 does not apply to a traffic matrix: its ranks decide the hosts (commsize 0 runs it)"
            );
            let out = run_recorded(command, d, "-q");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && stderr.contains("-s/--commsize"),
                "{stderr}"
            );
            continue;
        }
        let out = run_recorded(command, d, "--format json -q");
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let result = &rec["result"];
        let text = |v: &serde_json::Value| serde_json::to_string(v).unwrap();
        assert_eq!(text(&result["summary"]), text(&doc["summary"]), "{command}");
        assert_eq!(text(&result["matrix"]), text(&doc["matrix"]), "{command}");
        assert_eq!(rec["hosts"], doc["parameters"]["commsize"]);
        match rec["metric"].as_str().unwrap() {
            "hist_acc_band" => {
                assert_eq!(result["stats"], doc["summary"]["acc_band"]);
                let counts: Vec<&serde_json::Value> = doc["hist_acc_band"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| &b["count"])
                    .collect();
                assert_eq!(text(&result["bins"]), text(&serde_json::json!(counts)));
            }
            "get_cable_cong" => {
                assert_eq!(result["stats"], doc["summary"]["max_load"]);
                assert_eq!(result["hot_links"], hottest_links(&doc), "{command}");
            }
            _ => assert_eq!(result["stats"], doc["summary"]["max_load"]),
        }
        compared += 1;
    }
    assert_eq!(compared, 2 * 3 * 3, "every matrix cell at size 0 ran");
    // The phase and the trace without collectives carry less than the whole traces.
    let key = |traffic: &str| format!("{}|matrix|{traffic}|0|sum_max_cong|40|9", repo(FT4));
    let exchange = &recs[&key(&format!("{} --phase exchange", repo(PHASES)))];
    assert_eq!(exchange["result"]["matrix"]["total_bytes"], 800);
    let ring_trace = &recs[&key(&format!("{} --collectives exclude", repo(RING_TRACE)))];
    assert_eq!(ring_trace["result"]["matrix"]["total_bytes"], 16);
}

#[test]
fn traffic_scans_resume_shard_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_traffic_plan(d, 30);
    let whole = scan(&plan, d, "whole.jsonl", &["-j", "2"]);
    let s1 = scan(&plan, d, "s1.jsonl", &["--shard", "1/2"]);
    let s2 = scan(&plan, d, "s2.jsonl", &["--shard", "2/2"]);
    merge(d, &[&s1, &s2], "merged.jsonl", &[]).ok();
    assert_eq!(
        timeless_records(&d.join("merged.jsonl")),
        timeless_records(&whole)
    );
    assert_eq!(
        timeless_csv(&d.join("merged.csv")),
        timeless_csv(&d.join("whole.csv"))
    );
    // Half the records lost: the resumed scan runs them again, to the same results.
    let text = std::fs::read_to_string(&whole).unwrap();
    let half: String = text.lines().step_by(2).map(|l| format!("{l}\n")).collect();
    let resumed = d.join("resumed.jsonl");
    std::fs::write(&resumed, half).unwrap();
    let run = orcs(&["scan", &plan, "--dry-run", "-o", resumed.to_str().unwrap()]).ok();
    assert!(
        run.stdout.contains("48 cells, 24 done, 24 to run"),
        "{}",
        run.describe()
    );
    let listed = format!("  {} --phase exchange\n", repo(PHASES));
    assert!(run.stdout.contains(&listed), "{}", run.describe());
    scan(&plan, d, "resumed.jsonl", &[]);
    assert_eq!(timeless_records(&resumed), timeless_records(&whole));
    // Another phase is another plan: its scan does not resume these results.
    let other = std::fs::read_to_string(&plan)
        .unwrap()
        .replace("exchange", "setup");
    std::fs::write(&plan, other).unwrap();
    orcs(&["scan", &plan, "-q", "-o", whole.to_str().unwrap()])
        .fails_with(1, &["whole.jsonl:1:", "as the plan being run"]);
}

#[test]
fn bad_traffic_is_refused_with_the_plan_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("bad.csv"), "src,dst,bytes\n0,1,100\n1,x,5\n").unwrap();
    std::fs::write(d.join("m.csv"), "src,dst,bytes\n0,1,100\n").unwrap();
    let plan = d.join("p.toml");
    let write = |entry: &str| {
        let text = format!(
            "runs = 5\nmetrics = [\"sum_max_cong\"]\npatterns = [\n  \"bisect\",\n  {entry}]\n\
             [[fabrics]]\npath = \"{}\"\n",
            repo(FT4)
        );
        std::fs::write(&plan, text).unwrap();
        plan.to_str().unwrap().to_string()
    };
    let p = write("{ name = \"matrix\", traffic = \"traces/*.meta\" }");
    orcs(&["scan", &p]).fails_with(1, &["p.toml:5:", "traffic 'traces/*.meta' matches no file"]);
    let p = write("{ name = \"matrix\", traffic = \"*.csv\" }");
    let run = orcs(&["scan", &p]).fails_with(1, &["p.toml:5:", "bad.csv:3:"]);
    assert!(!d.join("p.jsonl").exists(), "{}", run.describe());
    orcs(&["scan", &p, "--dry-run"]).fails_with(1, &["p.toml:5:", "bad.csv:3:"]);
    let p = write("{ name = \"matrix\", traffic = \"m.csv\", collectives = \"exclude\" }");
    orcs(&["scan", &p]).fails_with(1, &["p.toml:5:", "m.csv' is not a trace's .meta file"]);
    let p = write("{ name = \"matrix\", traffic = \"m.csv\", ppn = \"2\" }");
    orcs(&["scan", &p]).fails_with(1, &["p.toml:5:", "unknown key 'ppn'"]);
    let p = write(&format!(
        "{{ name = \"matrix\", traffic = \"{}\", phase = \"solve\" }}",
        repo(RING_TRACE)
    ));
    orcs(&["scan", &p]).fails_with(
        1,
        &["p.toml:5:", "testtrace.meta", "'solve'", "no annotations"],
    );
}

/// A plan of task-model points on two fabrics: 2 trees × 2 schedulers × 2 loads each.
fn write_task_plan(dir: &Path) -> String {
    let plan = format!(
        "seed = 3\n\n[[fabrics]]\npath = \"{}\"\n\n[[fabrics]]\ngen = \"kary-ntree:k=4,n=2\"\nrouting = \"dmodk\"\n\n\
         [[tasks]]\ntree = [\"z=4,3\", \"n=20,s=0.5\"]\nscheduler = [\"central\", \"stealing\"]\n\
         load = [0.3, 0.6]\nroots = 300\nwarmup = 30\nreplications = 3\nbandwidth = \"10Gb/s\"\n\
         result_size = \"64kB\"\nsteal_retry = \"20us\"\n",
        repo(FT4)
    );
    let path = dir.join("tasks.toml");
    std::fs::write(&path, plan).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn task_cells_are_the_task_runs_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = write_task_plan(d);
    orcs(&["scan", &plan, "-q"]).ok();
    let recs = records(&d.join("tasks.jsonl"));
    assert_eq!(
        recs.len(),
        2 * 2 * 2 * 2,
        "fabrics × trees × schedulers × loads"
    );
    let csv = std::fs::read_to_string(d.join("tasks.csv")).unwrap();
    for rec in recs.values() {
        assert_eq!(rec["pattern"], "tasks");
        assert_eq!(rec["metric"], serde_json::Value::Null, "{rec}");
        assert_eq!(rec["runs"], serde_json::Value::Null, "{rec}");
        let command = rec["command"].as_str().unwrap();
        assert!(
            command.contains(" --roots 300 --warmup 30 --replications 3"),
            "{command}"
        );
        assert_eq!(
            command.contains("--steal-retry 20us"),
            command.contains("--scheduler stealing"),
            "{command}"
        );
        let out = run_recorded(command, d, "");
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let obj = doc.as_object_mut().unwrap();
        for per_item in ["schema", "node_utilisation", "link_utilisation"] {
            obj.remove(per_item);
        }
        // The command names a generated fabric by the file it writes; the record by the
        // plan's label.
        if rec["fabric"].as_str().unwrap().starts_with("gen:") {
            assert_eq!(obj["network"], "fabric.orcsfab");
            obj.insert("network".into(), rec["fabric"].clone());
        }
        assert_eq!(rec["result"]["network"], rec["fabric"]);
        let text = |v: &serde_json::Value| serde_json::to_string(v).unwrap();
        assert_eq!(text(&rec["result"]), text(&doc), "{command}");
        assert_eq!(rec["hosts"], 16, "every host of either fabric computes");
        // The CSV row: the mean, the slowest and the interval of the replications' means.
        let c = &doc["completion_s"];
        let (m, h) = (
            c["mean_of_replications"].as_f64().unwrap(),
            c["half_width"].as_f64().unwrap(),
        );
        let slowest = c["percentiles"].as_array().unwrap().last().unwrap();
        assert_eq!(slowest["q"], 1.0);
        let label = rec["fabric"].as_str().unwrap();
        let (fabric, routing) = match label.split_once(" --routing ") {
            Some((f, r)) if label.starts_with("gen:") => (f, r),
            _ => (label, ""),
        };
        let row = format!(
            "{},{},{},tasks,{},,0,completion_s,,3,{},,,{},{},{},",
            rec["cell"],
            csv_quoted(fabric),
            csv_quoted(routing),
            csv_quoted(rec["arg"].as_str().unwrap()),
            c["mean"],
            slowest["s"],
            m - h,
            m + h
        );
        assert!(csv.contains(&row), "{row} not in\n{csv}");
    }
    // The second fabric is the same fat tree, generated and routed by the scan: the same
    // points give the same numbers on it.
    let on = |fabric: usize| -> Vec<String> {
        let mut v: Vec<String> = (recs.values())
            .filter(|r| r["cell"].as_u64().unwrap() / 8 == fabric as u64)
            .map(|r| serde_json::to_string(&r["result"]["completion_s"]).unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(on(0), on(1));
    // A second scan of the same plan finds every cell done.
    let before = std::fs::read(d.join("tasks.jsonl")).unwrap();
    orcs(&["scan", &plan, "-q"]).ok();
    assert_eq!(std::fs::read(d.join("tasks.jsonl")).unwrap(), before);
}

/// `field` as the CSV writer quotes it.
fn csv_quoted(field: &str) -> String {
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[test]
fn bad_task_entries_are_refused_with_the_plan_line() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("p.toml");
    let write = |entry: &str| {
        let text = format!(
            "seed = 1\n[[fabrics]]\npath = \"{}\"\n\n[[tasks]]\ntree = \"z=4\"\n{entry}\n",
            repo(FT4)
        );
        std::fs::write(&plan, text).unwrap();
        plan.to_str().unwrap().to_string()
    };
    for (entry, expected) in [
        ("load = -0.5", "load must be a positive number, got -0.5"),
        (
            "roots = 0",
            "tasks key 'roots' takes a whole number of at least 1, not 0",
        ),
        (
            "scheduler = \"fifo\"",
            "scheduler 'fifo': expected central or stealing",
        ),
        (
            "bandwidth = 10",
            "tasks key 'bandwidth' takes a string, not integer",
        ),
        (
            "bandwidht = \"1GB/s\"",
            "unknown key 'bandwidht' in [[tasks]]",
        ),
        ("nodes = 1", "the central scheduler needs at least 2 nodes"),
        (
            "times = \"gamma\"",
            "tasks key 'times' is constant or exponential, not 'gamma'",
        ),
        ("latency = \"5 parsecs\"", "tasks key 'latency'"),
    ] {
        let p = write(entry);
        orcs(&["scan", &p]).fails_with(1, &["p.toml:5:", expected]);
    }
    std::fs::write(&plan, format!("[[fabrics]]\npath = \"{}\"\n", repo(FT4))).unwrap();
    orcs(&["scan", plan.to_str().unwrap()]).fails_with(
        1,
        &["the plan simulates nothing: list patterns (with metrics) or [[tasks]]"],
    );
    // Tasks alone need no runs; patterns do.
    std::fs::write(
        &plan,
        format!(
            "patterns = [\"bruck\"]\nmetrics = [\"sum_max_cong\"]\n[[fabrics]]\npath = \"{}\"\n",
            repo(FT4)
        ),
    )
    .unwrap();
    orcs(&["scan", plan.to_str().unwrap()]).fails_with(1, &["p.toml", "runs is missing"]);
}
