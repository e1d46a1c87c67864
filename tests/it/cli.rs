//! The command line: help texts, errors and exit codes, determinism, input handling.

use crate::support::*;
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn every_flag_has_sentence_help_and_value_names() {
    for sub in [
        &[][..],
        &["check"][..],
        &["convert"][..],
        &["gen"][..],
        &["map"][..],
        &["plot"][..],
        &["report"][..],
        &["traffic"][..],
        &["jobs"][..],
        &["scan"][..],
        &["queue"][..],
        &["trace", "stats"][..],
        &["trace", "matrix"][..],
        &["profile"][..],
    ] {
        let mut args: Vec<&str> = sub.to_vec();
        args.push("--help");
        let run = orcs(&args).ok();
        let text = &run.stdout;
        let options = text.split("Options:").nth(1).expect("an Options section");
        // Each option starts a line with "-x, --long" or "--long"; its help follows.
        let mut current: Option<(String, String)> = None;
        let mut entries = Vec::new();
        for line in options.lines() {
            let t = line.trim_start();
            if t.starts_with('-') && line.starts_with("  ") && !line.starts_with("          ") {
                if let Some(e) = current.take() {
                    entries.push(e);
                }
                // Compact layout: "-x, --long <V>  Help text" on one line.
                current = Some(match t.split_once("  ") {
                    Some((head, help)) => (head.to_string(), format!("{} ", help.trim())),
                    None => (t.to_string(), String::new()),
                });
            } else if let Some((_, help)) = current.as_mut() {
                help.push_str(t);
                help.push(' ');
            }
            if t.starts_with("Exit status") {
                break;
            }
        }
        entries.extend(current);
        assert!(entries.len() >= 2, "too few options parsed\n{text}");
        for (head, help) in entries {
            let help = help.split("Exit status").next().unwrap().trim();
            // Drop clap's trailing "[default: ..]" / "[alias: ..]" annotations.
            let mut help = help;
            while let Some(stripped) = help
                .strip_suffix(']')
                .and_then(|h| h.rsplit_once(" ["))
                .map(|(h, _)| h.trim_end())
            {
                help = stripped;
            }
            assert!(
                help.ends_with('.') || help.ends_with(')'),
                "{head}: help must be a sentence: {help:?}\n{text}"
            );
            assert!(
                help.chars().next().is_some_and(|c| c.is_uppercase()),
                "{head}: help must start with a capital: {help:?}"
            );
            let takes_value = ![
                "--help",
                "--version",
                "--do_not_shuffle",
                "--printptrn",
                "--printnamelist",
                "--verbose",
                "--getnumlevels",
                "--checkinputfile",
                "--routequal",
                "--orcs-compat",
                "--quiet",
                "--lmc-paths",
                "--deadlock",
                "--switches-only",
                "--per-level",
                "--hosts",
                "--no-legend",
                "--pfsim-compat",
                "--dry-run",
                "--open",
                "--simulate",
                "--allow-partial",
            ]
            .iter()
            .any(|f| head.contains(f));
            if takes_value {
                assert!(head.contains('<'), "{head}: needs a value name");
            }
        }
    }
}

#[test]
fn orcs_flag_spellings_still_work() {
    // Long ORCS names, abbreviations, unambiguous value prefixes, v1 aliases.
    let a = orcs(&[
        "--input_file",
        FT4,
        "--ptrn",
        "bisect",
        "--num_runs",
        "3",
        "--metr",
        "hist_a",
        "--seed",
        "2",
    ])
    .ok();
    let b = orcs(&[
        "-i",
        FT4,
        "-p",
        "bisect",
        "-n",
        "3",
        "--metric",
        "hist_acc_band",
        "--seed",
        "2",
    ])
    .ok();
    assert_eq!(a.stdout, b.stdout);
    assert!(a.stdout.contains("Metric: hist_acc_band\n"));
    let v1 = orcs(&[
        "-i",
        FT4,
        "-p",
        "4neighbor",
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
    ])
    .ok();
    let v2 = orcs(&[
        "-i",
        FT4,
        "-p",
        "neighbor",
        "-a",
        "4",
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
    ])
    .ok();
    assert_eq!(v1.metric_block(), v2.metric_block());
    let f = orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-f",
        "bruck",
        "-c",
        "bisect",
        "-z",
        "8",
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
    ])
    .ok();
    let a = orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "bruck::bisect",
        "-z",
        "8",
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
    ])
    .ok();
    assert_eq!(f.metric_block(), a.metric_block());
}

#[test]
fn header_follows_orcs() {
    let run = orcs(&[
        "-i",
        FT8,
        "-p",
        "bisect",
        "-n",
        "2",
        "--metric",
        "hist_acc_band",
        "--seed",
        "77",
    ])
    .ok();
    let expected_start = "Input File: topologies/ft8-3.ftree.dot.gz\nOutput File: -\nPattern: bisect\nCommsize: 512\nPart_commsize: 2\nSubset: rand\nPart_subset: none\nLevel: -1\nRuns: 2\nMetric: hist_acc_band\nShuffling namelists: Yes\nSeed: 77\n\n      Number of hosts in the subset: 512\n   Number of hosts in the inputfile: 512\nNumber of switches in the inputfile: 192\n   Number of edges in the inputfile: 3072\n\nHistogramm bin width: 0.050000\n";
    assert!(run.stdout.starts_with(expected_start), "{}", run.describe());
}

#[test]
fn same_seed_same_bytes_for_any_thread_count() {
    for extra in [
        &["-p", "bisect", "--metric", "hist_acc_band"][..],
        &["-p", "rand", "--format", "json"][..],
        &["-p", "bruck", "--metric", "get_cable_cong"][..],
    ] {
        let mut outputs = Vec::new();
        for threads in ["1", "2", "3"] {
            let mut args = vec!["-i", FT8, "-n", "37", "--seed", "123", "-j", threads];
            args.extend_from_slice(extra);
            outputs.push(orcs(&args).ok().stdout);
        }
        assert_eq!(outputs[0], outputs[1], "{extra:?}");
        assert_eq!(outputs[0], outputs[2], "{extra:?}");
    }
    // A different seed gives different results.
    let a = orcs(&["-i", FT8, "-n", "20", "--seed", "1", "--format", "json"]).ok();
    let b = orcs(&["-i", FT8, "-n", "20", "--seed", "2", "--format", "json"]).ok();
    assert_ne!(a.stdout, b.stdout);
}

#[test]
fn without_seed_one_is_chosen_and_printed() {
    let run = orcs(&["-i", FT4, "-n", "5"]).ok();
    let seed_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Seed: "))
        .expect("seed in header");
    let seed = seed_line.trim_start_matches("Seed: ");
    assert!(
        run.stderr.contains(&format!("--seed {seed}")),
        "{}",
        run.describe()
    );
    let again = orcs(&["-i", FT4, "-n", "5", "--seed", seed]).ok();
    assert_eq!(run.stdout, again.stdout);
}

#[test]
fn bad_input_names_file_and_line() {
    orcs(&["-i", "tests/fixtures/syntax-error.dot"])
        .fails_with(1, &["tests/fixtures/syntax-error.dot:4:"]);
    orcs(&["-i", "tests/fixtures/no-uplink.dot"])
        .fails_with(1, &["no-uplink.dot:", "host H3 has no uplink"]);
    orcs(&["-i", "tests/fixtures/no-routing.dot"])
        .fails_with(1, &["no-routing.dot", "no edge has a `comment` attribute"]);
    orcs(&["-i", "tests/fixtures/ambiguous.dot"]).fails_with(
        1,
        &[
            "ambiguous.dot:",
            "node SA has two out-edges for destination H2",
            "SA -> SB",
            "SA -> H1",
        ],
    );
    orcs(&[
        "-i",
        "tests/fixtures/dead-end.dot",
        "-n",
        "3",
        "--seed",
        "1",
    ])
    .fails_with(
        1,
        &[
            "not routed",
            "no route from",
            "to H3: node SA has no out-edge",
        ],
    );
    orcs(&["-i", "tests/fixtures/loop.dot", "-n", "3", "--seed", "1"])
        .fails_with(1, &["routing loop from", "SA -> SB -> SA"]);
    orcs(&["-i", "tests/fixtures/does-not-exist.dot"])
        .fails_with(1, &["does-not-exist.dot: cannot read"]);
}

#[test]
fn ambiguous_routes_take_the_first_edge_in_compat_mode() {
    // SA lists H2 on SA->SB (id 0) and on SA->H1 (id 2): ORCS takes the first, SA->SB.
    let run = orcs(&[
        "-i",
        "tests/fixtures/ambiguous.dot",
        "--orcs-compat",
        "-d",
        "--subset",
        "guid_order_asc",
        "-p",
        "bruck",
        "--seed",
        "1",
    ])
    .ok();
    let two = orcs(&[
        "-i",
        TWO,
        "-d",
        "--subset",
        "guid_order_asc",
        "-p",
        "bruck",
        "--seed",
        "1",
    ])
    .ok();
    assert_eq!(run.metric_block(), two.metric_block());
    assert!(
        run.stderr.contains("several matching out-edges"),
        "{}",
        run.describe()
    );
}

#[test]
fn bad_flags_exit_1_with_the_flag_named() {
    orcs(&["-i", FT4, "-s", "3"]).fails_with(1, &["-s/--commsize must be between 4 and 16"]);
    orcs(&["-i", FT4, "-s", "17"]).fails_with(1, &["-s/--commsize"]);
    orcs(&["-i", FT4, "-z", "16"]).fails_with(1, &["-z/--part_commsize must be between 2 and 15"]);
    orcs(&["-i", FT4, "-n", "0"]).fails_with(1, &["--num_runs must be at least 1"]);
    orcs(&["-i", FT4, "-p", "bis"]).fails_with(1, &["bis"]);
    orcs(&["-i", FT4, "-p", "bruck", "-l", "4"]).fails_with(
        1,
        &["-l/--ptrn_level 4 does not exist", "has 4 levels (0..3)"],
    );
    orcs(&["-i", FT4, "-l", "0"]).fails_with(1, &["--ptrn"]);
    orcs(&["-i", FT4, "-p", "bisect", "-a", "3"]).fails_with(1, &["bisect"]);
    orcs(&["-i", FT4, "-p", "neighbor"]).fails_with(1, &["neighbor"]);
    orcs(&["-i", FT4, "-p", "null"]).fails_with(1, &["no traffic"]);
    orcs(&["-i", FT4, "--part_subset", "rand"]).fails_with(
        1,
        &["--part_subset can only be used with the ptrnvsptrn pattern"],
    );
    orcs(&[
        "-i",
        FT4,
        "--metric",
        "dep_max_delay",
        "-p",
        "bruck",
        "-l",
        "1",
    ])
    .fails_with(1, &["--ptrn_level cannot be combined"]);
    orcs(&["-i", FT4, "-n", "2", "-n", "3"]).fails_with(1, &["--num_runs"]);
    orcs(&["-i", FT4, "--metric", "hist"]).fails_with(1, &["ambiguous value 'hist' for --metric"]);
    orcs(&["-i", FT4, "-o", "/nonexistent-dir/out.txt"])
        .fails_with(1, &["cannot create output file '/nonexistent-dir/out.txt'"]);
    orcs(&["--no-such-flag"]).fails_with(1, &["--no-such-flag"]);
}

#[test]
fn output_file_gets_echo_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    let p = path.to_str().unwrap();
    let run = orcs(&[
        "-i", FT4, "-p", "bisect", "-n", "10", "--seed", "3", "-o", p,
    ])
    .ok();
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(file.starts_with("Input File: topologies/ft4-2.ftree.dot\n"));
    assert!(file.contains("Seed: 3\n\nweight 1:"), "{file}");
    assert!(!run.stdout.contains("weight 1:"));
    assert!(run
        .stdout
        .contains("   Number of edges in the inputfile: 64\n"));
}

#[test]
fn gzip_and_stdin_inputs() {
    let plain = orcs(&["-i", FT4, "-p", "bruck", "-n", "5", "--seed", "8", "-q"]).ok();
    let mut child = Command::new(env!("CARGO_BIN_EXE_orcs"))
        .args(["-p", "bruck", "-n", "5", "--seed", "8", "-q"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(repo(FT4)).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdin_out = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdin_out.replace("Input File: -", "Input File: topologies/ft4-2.ftree.dot"),
        plain.stdout
    );
    // The same fabric compressed, with a name that does not say so.
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("fabric.dot");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&text).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let zipped = orcs(&[
        "-i",
        gz.to_str().unwrap(),
        "-p",
        "bruck",
        "-n",
        "5",
        "--seed",
        "8",
        "-q",
    ])
    .ok();
    assert_eq!(zipped.metric_block(), plain.metric_block());
}

#[test]
fn broken_pipe_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orcs"))
        .args([
            "-i",
            FT8,
            "-p",
            "bruck",
            "-n",
            "3",
            "--printptrn",
            "--seed",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_reports_routes() {
    let run = orcs(&["check", "-i", TWO]).ok();
    assert!(
        run.stdout.contains("All 12 ordered host pairs are routed"),
        "{}",
        run.describe()
    );
    // 4 pairs on one switch (2 edges), 8 across the cable (3 edges).
    assert!(
        run.stdout.contains("    2 edges: 4 pairs (33.33%)\n"),
        "{}",
        run.describe()
    );
    assert!(run.stdout.contains("    3 edges: 8 pairs (66.67%)\n"));
    // The cable carries 4 pairs each way; each host link 3.
    assert!(
        run.stdout
            .contains("min 3, mean 3.20, max 4 over 10 links; 0 links carry no route"),
        "{}",
        run.describe()
    );
    let alias = orcs(&["-i", TWO, "--checkinputfile"]).ok();
    assert_eq!(alias.stdout, run.stdout);
    let broken = orcs(&["check", "-i", "tests/fixtures/dead-end.dot"]);
    assert_eq!(broken.status, Some(2), "{}", broken.describe());
    assert!(
        broken.stdout.contains(
            "Broken routes: 2 of 12 ordered host pairs (2 unreachable, 0 in routing loops)"
        ),
        "{}",
        broken.describe()
    );
    let looping = orcs(&["check", "-i", "tests/fixtures/loop.dot"]);
    assert_eq!(looping.status, Some(2));
    assert!(
        looping.stdout.contains("in routing loops"),
        "{}",
        looping.describe()
    );
}

#[test]
fn negative_values_reach_the_parser_that_says_what_it_expects() {
    // A value that starts with '-' is read as the flag's value, not as an unknown flag,
    // so the error names the value and the unit or range that was expected.
    for (args, needles) in [
        (
            &[
                "trace",
                "classify",
                "--latency",
                "-1us",
                "--bandwidth",
                "10Gb/s",
                "x.meta",
            ][..],
            &["--latency", "'-1us'", "expected a number with a unit"][..],
        ),
        (
            &[
                "trace",
                "classify",
                "--latency",
                "1us",
                "--bandwidth",
                "-10Gb/s",
                "x.meta",
            ],
            &["'-10Gb/s'", "expected bytes per second"],
        ),
        (
            &["trace", "classify", "--eager-limit", "-5", "x.meta"],
            &["--eager-limit", "'-5'", "expected a number of bytes"],
        ),
        (
            &["tasks", "run", "--load", "-1"],
            &["--load", "positive", "-1"],
        ),
        (
            &["tasks", "run", "--init", "-1us"],
            &["--init", "'-1us'", "expected a number with a unit"],
        ),
        (
            &["queue", "--latency", "-1us"],
            &["--latency", "'-1us'", "expected a number with a unit"],
        ),
        (
            &["-i", TWO, "-n", "-5"],
            &["--num_runs", "at least 1", "-5"],
        ),
    ] {
        let run = orcs(args);
        assert!(
            !run.stderr.contains("unexpected argument"),
            "{}",
            run.describe()
        );
        run.fails_with(1, needles);
    }
}

#[test]
fn check_reports_as_json_and_csv() {
    // The two-switch fabric: 4 pairs on one switch (2 edges), 8 across the cable
    // (3 edges): mean 32/12; host links carry 3 routes each, the cable 4 each way.
    let json = orcs(&["check", "-i", TWO, "--format", "json", "--deadlock"]).ok();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(doc["hosts"], 4, "{}", json.describe());
    assert_eq!(doc["edges"], 10);
    assert_eq!(doc["pairs_checked"], 12);
    assert_eq!(doc["routed"], 12);
    assert_eq!(doc["all_routed"], true);
    assert_eq!(
        doc["path_lengths"],
        serde_json::json!([{"edges": 2, "pairs": 4}, {"edges": 3, "pairs": 8}])
    );
    assert!((doc["mean_path_length"].as_f64().unwrap() - 32.0 / 12.0).abs() < 1e-12);
    assert_eq!(
        doc["link_routes"],
        serde_json::json!({"links": 10, "min": 3, "mean": 3.2, "max": 4, "unused": 0})
    );
    assert_eq!(doc["deadlock"]["deadlock_free"], true);
    assert!(doc.get("routequal").is_none(), "not asked for");
    // A dead end at SA for H3: H0 and H1 cannot reach it. Of the 10 routed pairs, 4 use
    // 2 edges and 6 use 3; SB -> H3 carries only H2's route, SB -> SA four.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("check.csv");
    let out = out.to_str().unwrap();
    let csv = orcs(&[
        "check",
        "-i",
        "tests/fixtures/dead-end.dot",
        "--format",
        "csv",
        "-o",
        out,
    ]);
    assert_eq!(csv.status, Some(2), "{}", csv.describe());
    assert_eq!(
        std::fs::read_to_string(out).unwrap(),
        "section,item,value\n\
         fabric,hosts,4\nfabric,switches,2\nfabric,edges,10\n\
         routes,pairs_checked,12\nroutes,routed,10\nroutes,dead_ends,2\nroutes,loops,0\n\
         path_length,2,4\npath_length,3,6\npath_length,mean,2.6\n\
         link_routes,links,10\nlink_routes,min,1\nlink_routes,mean,2.6\nlink_routes,max,4\n\
         link_routes,unused,0\n\
         broken,H0->H3,dead_end\nbroken,H1->H3,dead_end\n"
    );
    let broken = orcs(&[
        "check",
        "-i",
        "tests/fixtures/dead-end.dot",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&broken.stdout).expect("JSON");
    assert_eq!(
        doc["broken_examples"][1]["source"],
        "H1",
        "{}",
        broken.describe()
    );
    assert_eq!(doc["broken_examples"][1]["destination"], "H3");
    assert_eq!(doc["broken_examples"][1]["fault"], "dead_end");
    // ORCS's alias takes the same formats. Every cross-switch pair's route crosses the
    // cable, which carries 4 routes each way: gmin = gmax = mean = 4.
    let alias = orcs(&[
        "-i",
        TWO,
        "--checkinputfile",
        "--routequal",
        "--format",
        "csv",
    ])
    .ok();
    assert!(
        alias
            .stdout
            .ends_with("routequal,gmin,4\nroutequal,gmax,4\nroutequal,mean,4\nroutequal,sigma,0\n"),
        "{}",
        alias.describe()
    );
}

#[test]
fn printptrn_lists_pairs_with_hosts() {
    let run = orcs(&[
        "-i",
        TWO,
        "-p",
        "bisect",
        "-d",
        "--subset",
        "guid_order_asc",
        "--printptrn",
        "--seed",
        "1",
    ])
    .ok();
    assert!(run.stdout.contains("\nUsed Pattern:\n=================\n    1 -> 0       |   H1 -> H0\n    3 -> 2       |   H3 -> H2\n=================\n"), "{}", run.describe());
}

#[test]
fn getnumlevels() {
    let run = orcs(&["-i", FT8, "-p", "bruck", "-g"]).ok();
    assert_eq!(
        run.stdout,
        "The given input configuration would result in a 9-level simulation.\n"
    );
}

#[test]
fn failed_runs_leave_the_output_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keep.txt");
    std::fs::write(&out, "precious").unwrap();
    let o = out.to_str().unwrap();
    orcs(&["-i", FT4, "-s", "100", "-o", o]).fails_with(1, &["-s/--commsize"]);
    orcs(&["-i", "tests/fixtures/syntax-error.dot", "-o", o])
        .fails_with(1, &["syntax-error.dot:4:"]);
    orcs(&["-i", "tests/fixtures/loop.dot", "-o", o]).fails_with(1, &["routing loop"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    // The input file itself is never overwritten.
    let copy = dir.path().join("fabric.dot");
    std::fs::copy(repo(FT4), &copy).unwrap();
    let c = copy.to_str().unwrap();
    orcs(&["-i", c, "-o", c]).fails_with(
        1,
        &[&format!(
            "-o/--output_file '{c}' is the same file as the input -i/--input_file '{c}'"
        )],
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(repo(FT4)).unwrap()
    );
}

#[test]
fn cable_congestion_map_in_output_file() {
    // -o receives the dot map; the 8 bisect pairs use 16 edges once each (scaled 1.0),
    // every other edge is idle. With --orcs-compat -o gets ORCS's table instead.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cable.dot");
    let o = out.to_str().unwrap();
    let args = [
        "-i",
        FT4,
        "-d",
        "--subset",
        "guid_order_asc",
        "-p",
        "bisect",
        "--metric",
        "get_cable_cong",
        "-o",
        o,
        "--seed",
        "1",
    ];
    orcs(&args).ok();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("digraph"), "{text}");
    let hot: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("congestion=1.000000"))
        .map(|l| l.split("edge_id=").nth(1).unwrap().trim_end_matches("];"))
        .collect();
    let expected = [
        "1", "3", "9", "11", "33", "35", "37", "39", "45", "47", "49", "51", "57", "59", "61", "63",
    ];
    assert_eq!(hot, expected);
    assert_eq!(text.matches("congestion=0.000000").count(), 64 - 16);
    let mut compat = args.to_vec();
    compat.push("--orcs-compat");
    orcs(&compat).ok();
    let text = std::fs::read_to_string(&out).unwrap();
    let table = text.split(" Edge-ID\tacc. cong\n").nth(1).unwrap();
    let ids: Vec<&str> = table
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(ids, expected);
}

#[test]
fn patterns_without_traffic_are_refused() {
    orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "null::null",
        "--metric",
        "hist_acc_band",
    ])
    .fails_with(1, &["has no traffic"]);
    orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "null::null",
        "-l",
        "0",
        "--metric",
        "sum_max_cong",
    ])
    .fails_with(1, &["has no levels"]);
    orcs(&[
        "-i",
        FT4,
        "-p",
        "recvs_all_src",
        "-a",
        "2,0,1",
        "--seed",
        "1",
    ])
    .fails_with(1, &["no run produced any traffic"]);
    let run = orcs(&[
        "-i",
        FT4,
        "-p",
        "null",
        "--metric",
        "sum_max_cong",
        "-n",
        "3",
        "--seed",
        "1",
    ])
    .ok();
    assert!(run
        .metric_block()
        .ends_with("Congestion sum of 0 occured 3 times.\n"));
    let run = orcs(&["-i", FT4, "-p", "null", "-g"]).ok();
    assert_eq!(
        run.stdout,
        "The given input configuration would result in a 0-level simulation.\n"
    );
    // Some random runs without traffic: said even with -q.
    let run = orcs(&[
        "-i",
        FT4,
        "-s",
        "4",
        "-p",
        "recvs_all_src",
        "-a",
        "2,0,0.9",
        "-n",
        "100",
        "--seed",
        "3",
        "-q",
        "--metric",
        "hist_acc_band",
    ])
    .ok();
    assert!(
        run.stderr.contains("runs had no traffic"),
        "{}",
        run.describe()
    );
}

#[test]
fn orcs_compat_header_and_raw_pattern_arguments() {
    let run = orcs(&[
        "-i",
        FT4,
        "-p",
        "recvs_all_src",
        "-a",
        "3,1.0,0.0,linear",
        "--orcs-compat",
        "--seed",
        "1",
    ])
    .ok();
    assert!(run.stdout.starts_with("Total MPI threads participating in the simulation: '1'\nUnique hosts participating:\n    "), "{}", run.describe());
    assert!(run
        .stdout
        .contains("\n\nInput File: topologies/ft4-2.ftree.dot\n"));
    assert!(run
        .stdout
        .contains("Pattern: recvs_all_src,3,1.0,0.0,linear\n"));
    assert!(!run.stdout.contains("Seed:"));
    let run = orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "neighbor:03::recvs_all_src:2,linear",
        "-z",
        "6",
        "--seed",
        "1",
    ])
    .ok();
    assert!(run.stdout.contains("Pattern: ptrnvsptrn\n    First Pattern: neighbor,03\n   Second Pattern: recvs_all_src,2,linear\nCommsize: 16\n"), "{}", run.describe());
}

#[test]
fn small_flag_fixes() {
    assert!(orcs(&["--full-help"])
        .ok()
        .stdout
        .contains("--ptrn <PATTERN>"));
    orcs(&["-i", FT4, "--node_ordering_file", "-", "--seed", "1"]).ok();
    orcs(&["-i", FT4, "-n", "010"]).fails_with(1, &["leading zero"]);
    orcs(&["-i", FT4, "--printptrn", "--format", "json"]).fails_with(1, &["--printptrn"]);
    orcs(&["-i", FT4, "--printptrn", "--metric", "get_cable_cong"]).fails_with(1, &["--printptrn"]);
    let run = orcs(&["-i", FT4, "-q", "--format", "csv"]).ok();
    assert!(
        run.stderr.contains("orcs: using --seed "),
        "{}",
        run.describe()
    );
    let run = orcs(&[
        "-i",
        FT4,
        "-p",
        "bruck",
        "-z",
        "8",
        "--metric",
        "dep_max_delay",
        "--seed",
        "1",
    ])
    .ok();
    assert!(
        run.stderr.contains("-z does not restrict dep_max_delay"),
        "{}",
        run.describe()
    );
    let help = orcs(&["-i", FT4, "-p", "neighbor", "-a", "help"]).ok();
    assert!(help.stdout.starts_with("Usage: "), "{}", help.describe());
}

#[test]
fn cable_map_keeps_the_input_comments() {
    // get_network_graph names: switch GUIDs listed in comments survive the round trip.
    let Some(gng) = shared_str("fabrics/orcs/ft4-2/ft4-2.ftree.gng.dot") else {
        return;
    };
    let run = orcs(&[
        "-i",
        &gng,
        "-p",
        "bruck",
        "--metric",
        "get_cable_cong",
        "-q",
        "--seed",
        "2",
    ])
    .ok();
    let map = orcs::fabric::dot::parse_dot_str(&run.stdout).expect("map parses");
    let input = std::fs::read_to_string(&gng).unwrap();
    let orig = orcs::fabric::dot::parse_dot_str(&input).unwrap();
    assert_eq!(map.edges.len(), orig.edges.len());
    let tokens = |g: &orcs::fabric::dot::DotGraph| -> std::collections::BTreeMap<(String, String, Option<String>), Vec<String>> {
        g.edges.iter().map(|e| {
            let names = g.comment_tokens(e).iter().map(|&t| g.symbols.name(t).to_string()).collect();
            ((g.node_name(e.tail).to_string(), g.node_name(e.head).to_string(), e.key.clone()), names)
        }).collect()
    };
    assert_eq!(tokens(&map), tokens(&orig));
}

#[test]
fn deadlock_check_finds_torus_cycles_and_clears_trees() {
    let run = orcs(&["check", "-i", FT8, "--deadlock"]).ok();
    assert!(
        run.stdout
            .contains("no cycle: the routing is deadlock-free with one virtual lane"),
        "{}",
        run.describe()
    );
    let Some(dir) = shared_str("fabrics/ib/generated/torus5x5/minhop") else {
        return;
    };
    let run = orcs(&[
        "check",
        "-i",
        &format!("{dir}/ibnetdiscover.txt"),
        "--lft",
        &format!("{dir}/opensm.fdbs"),
        "--deadlock",
    ]);
    assert_eq!(run.status, Some(2), "{}", run.describe());
    // Minimal routing on a 5-ring wraps around: the cycle is one ring of the torus.
    assert!(
        run.stdout.contains("cycle of 5 channels"),
        "{}",
        run.describe()
    );
}

#[test]
fn generated_fat_tree_simulates_like_opensm_ftree() {
    // The generated 8-ary 3-tree with D-mod-K routes like OpenSM's ftree on the bundled
    // tree, host for host, so seeded random runs give the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let gen = dir.path().join("ft8-3.orcsfab");
    orcs(&["gen", "kary-ntree:k=8,n=3", "-o", gen.to_str().unwrap()]).ok();
    for extra in [
        &["-p", "bruck", "-n", "20"][..],
        &["-p", "bisect", "-n", "300", "--metric", "hist_acc_band"][..],
    ] {
        let mut a = vec!["-i", FT8, "--seed", "99", "-q"];
        a.extend_from_slice(extra);
        let mut b = vec!["-i", gen.to_str().unwrap(), "--seed", "99", "-q"];
        b.extend_from_slice(extra);
        assert_eq!(
            orcs(&a).ok().metric_block(),
            orcs(&b).ok().metric_block(),
            "{extra:?}"
        );
    }
}

#[test]
fn gen_routings_and_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let torus = dir.path().join("t.dot");
    let t = torus.to_str().unwrap();
    orcs(&["gen", "torus:dims=4x4", "--routing", "dor", "-o", t]).ok();
    let run = orcs(&["check", "-i", t, "--deadlock"]);
    assert_eq!(run.status, Some(2), "{}", run.describe());
    assert!(
        run.stdout.contains("cycle of 4 channels"),
        "{}",
        run.describe()
    );
    orcs(&[
        "gen",
        "torus:dims=4x4",
        "--routing",
        "dor-dateline",
        "-o",
        t,
    ])
    .ok();
    let run = orcs(&["check", "-i", t, "--deadlock"]).ok();
    assert!(run.stdout.contains("no cycle"), "{}", run.describe());
    for routing in ["minhop", "sssp", "random"] {
        let run = orcs(&[
            "gen",
            "dragonfly:a=4,p=2,h=2",
            "--routing",
            routing,
            "-o",
            "-",
        ])
        .ok();
        assert!(
            run.stderr
                .contains("all 5112 ordered host pairs are routed"),
            "{}",
            run.describe()
        );
    }
    orcs(&["gen", "kary-ntree:k=4,n=2", "--routing", "smodk", "-o", "-"]).fails_with(1, &["smodk"]);
    orcs(&["gen", "kary-ntree:k=4,n=2", "--routing", "dor", "-o", "-"]).fails_with(1, &["dor"]);
    orcs(&["gen", "kary-ntree:k=4,n=2", "--routing", "nope", "-o", "-"])
        .fails_with(1, &["unknown --routing 'nope'"]);
    orcs(&["gen", "moebius:k=4", "-o", "-"]).fails_with(1, &["moebius"]);
    orcs(&["gen", "kary-ntree:k=4,n=2", "--roots", "S1_0", "-o", "-"])
        .fails_with(1, &["--roots applies to --routing updn"]);
    let run = orcs(&[
        "gen",
        "kary-ntree:k=4,n=2",
        "--routing",
        "updn",
        "--roots",
        "S1_0,S1_1,S1_2,S1_3",
        "-o",
        "-",
    ])
    .ok();
    assert!(
        run.stderr.contains("all 240 ordered host pairs are routed"),
        "{}",
        run.describe()
    );
}

#[test]
fn bundled_generated_fabrics_match_their_commands() {
    // topologies/README.md lists the command behind each generated file.
    let cases: [(&str, &[&str]); 5] = [
        (
            "topologies/kary-ntree-8-3.dmodk.dot.gz",
            &["kary-ntree:k=8,n=3"],
        ),
        (
            "topologies/kary-ntree-4-3.dmodk.dot",
            &["kary-ntree:k=4,n=3"],
        ),
        (
            "topologies/torus-4x4x4.dor-dateline.dot",
            &["torus:dims=4x4x4", "--routing", "dor-dateline"],
        ),
        (
            "topologies/dragonfly-a4-p2-h2.minhop.dot",
            &[
                "dragonfly:a=4,p=2,h=2,arrangement=relative",
                "--routing",
                "minhop",
            ],
        ),
        ("topologies/hypercube-6.dor.dot", &["hypercube:d=6"]),
    ];
    for (file, args) in cases {
        let mut all = vec!["gen"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", "-"]);
        let fresh = orcs(&all).ok().stdout;
        let bytes = std::fs::read(repo(file)).unwrap();
        let bundled = if file.ends_with(".gz") {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut s)
                .unwrap();
            s
        } else {
            String::from_utf8(bytes).unwrap()
        };
        assert!(
            fresh == bundled,
            "{file} is stale: regenerate it with orcs gen {}",
            args.join(" ")
        );
    }
}

/// The cache of `good` with the forwarding-table byte where it differs from the cache of
/// `other` (the same fabric routed otherwise) taken from `other`, or set to `value`, and
/// the checksum recomputed, as an editor that knows the format would leave it.
fn edited_cache(good: &[u8], other: &[u8], value: Option<u8>) -> Vec<u8> {
    assert_eq!(good.len(), other.len(), "one table entry apart");
    // The table precedes the route summary, its seal and the checksum.
    let at = (0..good.len()).find(|&i| good[i] != other[i]).unwrap();
    let mut bytes = good.to_vec();
    bytes[at] = value.unwrap_or(other[at]);
    let n = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

#[test]
fn edited_caches_are_checked_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // The two-switch fabric, and as loop.dot and dead-end.dot route it (same names).
    let text = std::fs::read_to_string(repo(TWO)).unwrap();
    let cache_of = |dot: String, name: &str| {
        let (input, out) = (
            path(&format!("{name}.dot")),
            path(&format!("{name}.orcsfab")),
        );
        std::fs::write(&input, dot).unwrap();
        let _ = orcs(&["convert", "-i", &input, "-o", &out]);
        std::fs::read(&out).unwrap()
    };
    let good = cache_of(text.clone(), "good");
    let looping = cache_of(
        text.replace("SB -> H3 [comment=\"H3\"]", "SB -> H3 [comment=\"\"]")
            .replace(
                "SB -> SA [comment=\"H0,H1\"]",
                "SB -> SA [comment=\"H0,H1,H3\"]",
            ),
        "loop",
    );
    let dead = cache_of(text.replace("comment=\"H2, H3\"", "comment=\"H2\""), "dead");
    let sim = |file: &str| orcs(&["-i", file, "-p", "bisect", "-n", "20", "--seed", "1"]);
    // The good cache's route check ("all 12 pairs routed") over a table with a loop, and
    // over one with a dead end: the check is not believed, the routes are checked again.
    let edited = path("edited.orcsfab");
    std::fs::write(&edited, edited_cache(&good, &looping, None)).unwrap();
    sim(&edited).fails_with(
        1,
        &[
            "edited.orcsfab: the stored route check does not match the file's content",
            "routing loop from H0 to H3: SA -> SB -> SA",
        ],
    );
    std::fs::write(&edited, edited_cache(&good, &dead, None)).unwrap();
    sim(&edited).fails_with(1, &["not routed", "to H3: node SA has no out-edge"]);
    // A port the switch does not have: refused where it is, before anything walks.
    std::fs::write(&edited, edited_cache(&good, &dead, Some(9))).unwrap();
    sim(&edited).fails_with(
        1,
        &["edited.orcsfab: byte ", "the table entry of node 0 ('SA') towards host 3 ('H3') is port 9; expected a port below its 3 out-edges"],
    );
    // The untouched cache still simulates without a word.
    let run = sim(&path("good.orcsfab")).ok();
    assert!(!run.stderr.contains("warning"), "{}", run.describe());
}

#[test]
fn caches_keep_the_route_check_and_write_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // A fabric with broken routes converts (exit 2); the cache remembers that the check
    // failed, so a simulation checks again and names the broken pair.
    let cache = path("dead-end.orcsfab");
    orcs(&["convert", "-i", "tests/fixtures/dead-end.dot", "-o", &cache])
        .fails_with(2, &["host pairs are not routed"]);
    orcs(&["-i", &cache, "-n", "3", "--seed", "1"])
        .fails_with(1, &["not routed", "to H3: node SA has no out-edge"]);
    // A good fabric's cache simulates exactly like its dot, with or without the check.
    let cache = path("two.orcsfab");
    orcs(&["convert", "-i", TWO, "-o", &cache]).ok();
    let args = [
        "-p",
        "bruck",
        "-n",
        "40",
        "--seed",
        "5",
        "--metric",
        "hist_acc_band",
    ];
    let mut a = vec!["-i", TWO];
    a.extend_from_slice(&args);
    let mut b = vec!["-i", cache.as_str()];
    b.extend_from_slice(&args);
    assert_eq!(orcs(&a).ok().metric_block(), orcs(&b).ok().metric_block());
    // Output files appear whole or not at all; a bad directory fails before any work.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".partial")), "{names:?}");
    orcs(&["convert", "-i", TWO, "-o", &path("missing/x.dot")])
        .fails_with(1, &["cannot create output file", "missing/x.dot"]);
}

#[test]
fn version_names_the_commit_and_the_features() {
    let run = orcs(&["--version"]).ok();
    let re = regex::Regex::new(
        r"^orcs (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}|unknown), features: (none|mpi)\)\n$",
    )
    .unwrap();
    let caps = re
        .captures(&run.stdout)
        .unwrap_or_else(|| panic!("{}", run.describe()));
    assert_eq!(&caps[1], env!("CARGO_PKG_VERSION"));
    // Built from this checkout: its commit is the one git names (unless git is absent).
    if let Ok(out) = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo("."))
        .output()
    {
        if out.status.success() {
            let head = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert_eq!(&caps[2], head, "{}", run.describe());
        }
    }
}

#[test]
fn bash_completion_completes_commands_and_flags() {
    let script = orcs(&["completions", "bash"]).ok().stdout;
    // Loaded into bash, the completion function offers the commands that start with
    // what was typed, and the flags of a command.
    let complete = |words: &str| -> String {
        let program = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _orcs orcs \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(&program)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let offered = complete("orcs pro");
    assert_eq!(offered.trim(), "profile", "{offered}");
    let offered = complete("orcs scan --dr");
    assert_eq!(offered.trim(), "--dry-run", "{offered}");
    let offered = complete("orcs tasks run --sched");
    assert_eq!(offered.trim(), "--schedule-size\n--scheduler", "{offered}");
    // The other shells' scripts name the program as each shell expects.
    assert!(orcs(&["completions", "zsh"])
        .ok()
        .stdout
        .starts_with("#compdef orcs"));
    assert!(orcs(&["completions", "fish"])
        .ok()
        .stdout
        .contains("complete -c orcs"));
    orcs(&["completions", "tcsh"]).fails_with(1, &["tcsh", "bash"]);
}

#[test]
fn man_pages_render_for_orcs_and_each_command() {
    let page = orcs(&["man"]).ok().stdout;
    assert!(
        page.starts_with(".ie") || page.contains(".TH orcs 1"),
        "{page}"
    );
    assert!(page.contains(".TH orcs 1"), "{page}");
    let scan = orcs(&["man", "scan"]).ok().stdout;
    assert!(scan.contains(".TH orcs-scan 1"), "{scan}");
    assert!(scan.contains("dry\\-run"), "{scan}");
    orcs(&["man", "bogus"]).fails_with(1, &["no command 'bogus'", "scan", "profile"]);
    // man itself renders the page: the name section and a flag of the command.
    if tools_present(&["man"], "ORCS_REQUIRE_MAN") {
        let mut child = Command::new("man")
            .args(["-l", "-"])
            .env("MANWIDTH", "100")
            .env("MAN_KEEP_FORMATTING", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(scan.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        // Without a terminal man still overstrikes bold and underlined letters
        // ("N\bN"): keep the letters.
        let raw = String::from_utf8_lossy(&out.stdout);
        let text = regex::Regex::new(".\x08").unwrap().replace_all(&raw, "");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("NAME") && text.contains("orcs-scan"),
            "{text}"
        );
        assert!(text.contains("--dry-run"), "{text}");
    }
}

#[test]
fn long_steps_show_progress_on_a_terminal_and_nothing_on_a_pipe() {
    // `script` (util-linux) runs the command on a pseudo-terminal and keeps what it
    // drew; every Debian system has it.
    if !tools_present(&["script"], "ORCS_REQUIRE_SCRIPT") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fabric = dir.path().join("ft.orcsfab");
    let fabric = fabric.to_str().unwrap();
    let orcs_exe = env!("CARGO_BIN_EXE_orcs");
    let on_terminal = |command: &str| -> String {
        let out = std::process::Command::new("script")
            .args(["-qec", command, "/dev/null"])
            .output()
            .expect("run script");
        assert!(out.status.success(), "{command}: {out:?}");
        String::from_utf8_lossy(&out.stdout).replace('\r', "\n")
    };
    // A bar is a line with its step, the count over the total and the percentage.
    let drew_bar = |text: &str, step: &str, total: &str| {
        text.lines()
            .any(|l| l.contains(step) && l.contains(total) && l.contains(" % (ETA"))
    };
    let gen = on_terminal(&format!("{orcs_exe} gen kary-ntree:k=8,n=3 -o {fabric}"));
    assert!(
        gen.contains("generating kary-ntree:k=8,n=3"),
        "no spinner in what gen drew:\n{gen}"
    );
    for step in ["routing [", "checking routes ["] {
        assert!(
            drew_bar(&gen, step, "/512 destinations"),
            "no '{step}' bar in what gen drew:\n{gen}"
        );
    }
    let check = on_terminal(&format!("{orcs_exe} check -i {fabric}"));
    assert!(
        drew_bar(&check, "checking routes [", "/512 destinations"),
        "{check}"
    );
    // The random trees that `tasks describe` draws to count a model.
    let describe = on_terminal(&format!(
        "{orcs_exe} tasks describe --tree n=2000,s=0 --samples 300"
    ));
    assert!(
        drew_bar(&describe, "counting random trees", "/300 trees"),
        "{describe}"
    );
    // On a pipe (as the tests run it) nothing is drawn: standard error holds only the
    // summary.
    let piped = orcs(&["gen", "kary-ntree:k=8,n=3", "-o", fabric]).ok();
    assert!(
        !piped.stderr.contains("destinations"),
        "{}",
        piped.describe()
    );
    assert!(!piped.stderr.contains('\u{1b}'), "{}", piped.describe());
}
