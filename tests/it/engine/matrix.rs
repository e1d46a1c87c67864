//! `-p matrix`: the Monte Carlo engine on byte-weighted traffic, checked against loads
//! computed by hand on the two-switch fixture, and against invariants of random runs.

use crate::support::*;

const MATRIX: &str = "tests/fixtures/two-switch-matrix.csv";

/// Rank r on host Hr in every run (guid order, no shuffling): 3 runs on the two-switch
/// fixture.
fn fixed(extra: &[&str]) -> Run {
    fixed_on(TWO, "3", extra)
}

/// [`fixed`] on `fabric` with `runs` runs.
fn fixed_on(fabric: &str, runs: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "-i",
        fabric,
        "-p",
        "matrix",
        "--matrix",
        MATRIX,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
        "-n",
        runs,
    ];
    args.extend_from_slice(extra);
    orcs(&args).ok()
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{}", run.describe()))
}

#[test]
fn loads_bytes_flows_and_spread_by_hand() {
    // Routes on the two-switch fixture (edge ids in the fixture's comment):
    //   0→2 100 B: H0→SA→SB→H2 (6, 0, 4)    1→3 50 B: H1→SA→SB→H3 (7, 0, 5)
    //   0→1  10 B: H0→SA→H1    (6, 2)       3→0 30 B: H3→SB→SA→H0 (9, 3, 1)
    // Loads by edge 0..9: 150 30 10 30 100 50 110 50 0 30; largest 150 on SA→SB with
    // 2 flows. Over all 10 edges: Σ = 560, Σ² = 52 400, so the sample std-dev is
    // √((52 400 − 560²/10) / 9) = √(21 040 / 9).
    let run = fixed(&["--format", "json"]);
    let doc = json(&run);
    let per_run = &doc["per_run"];
    for r in 0..3 {
        assert_eq!(per_run["max_load"][r], 150, "{}", run.describe());
        assert_eq!(per_run["max_flows"][r], 2);
        assert_eq!(per_run["max_utilisation"][r], 150.0);
        let sd = per_run["utilisation_sd"][r].as_f64().unwrap();
        assert!((sd - (21_040.0f64 / 9.0).sqrt()).abs() < 1e-9, "{sd}");
    }
    assert_eq!(doc["matrix"]["ranks"], 4);
    assert_eq!(doc["matrix"]["total_bytes"], 190);
    assert_eq!(doc["matrix"]["host_pairs"], 4);
    assert_eq!(doc["parameters"]["pattern"], "matrix");
}

#[test]
fn byte_weighted_bandwidth_by_hand() {
    // Each pair's share of its most loaded link: 100/150, 50/150, 10/110, 30/30, weighted
    // by bytes: (100·⅔ + 50·⅓ + 10·(1/11) + 30·1) / 190.
    let expected = (100.0 * 2.0 / 3.0 + 50.0 / 3.0 + 10.0 / 11.0 + 30.0) / 190.0;
    let run = fixed(&["--metric", "hist_acc_band", "--format", "csv"]);
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("run,max_load,max_utilisation,utilisation_sd,max_flows,acc_band")
    );
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&row[..2], &["0", "150"]);
    let band: f64 = row[5].parse().unwrap();
    assert!((band - expected).abs() < 1e-12, "{band} vs {expected}");
    // The text output bins the per-run value in ORCS's 20 bins: 0.6013 is in [0.60, 0.65).
    let text = fixed(&["--metric", "hist_acc_band"]);
    assert!(
        text.stdout.contains(" 0.60000000   0.65000000     3\n"),
        "{}",
        text.describe()
    );
}

#[test]
fn ranks_per_host_keep_local_traffic_off_the_links() {
    // --ppn 2: ranks 0,1 on H0 and 2,3 on H1. 0→2 and 1→3 become 150 B H0→H1 (edges 6,
    // 2) with 2 flows; 0→1 stays on H0; 3→0 is 30 B H1→H0 (7, 1).
    let run = fixed(&["--ppn", "2", "--format", "json", "--links", "/dev/null"]);
    let doc = json(&run);
    assert_eq!(doc["per_run"]["max_load"][0], 150);
    assert_eq!(doc["matrix"]["local_bytes"], 10);
    assert_eq!(doc["matrix"]["hosts"], 2);
    let links = doc["links"].as_array().expect("links listed with --links");
    let bytes: Vec<u64> = links.iter().map(|l| l["bytes"].as_u64().unwrap()).collect();
    // Three runs, summed.
    assert_eq!(bytes, vec![0, 90, 450, 0, 0, 0, 450, 90, 0, 0]);
    assert_eq!(links[6]["max_flows"], 2);
    assert_eq!(links[6]["flows"], 6);
}

#[test]
fn capacities_divide_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cap.dot");
    let links = dir.path().join("links.csv");
    // The two-switch fixture with `capacity` on SA→SB.
    let with_capacity = |capacity: &str| {
        let text = std::fs::read_to_string(repo(TWO)).unwrap().replace(
            "SA -> SB [comment=\"H2, H3\"]",
            &format!("SA -> SB [comment=\"H2, H3\", capacity={capacity}]"),
        );
        std::fs::write(&path, text).unwrap();
    };
    // `runs` runs of the fixed placement, as JSON, with the links table in `links`.
    let simulate = |runs: &str| {
        let links = links.to_str().unwrap();
        json(&fixed_on(
            path.to_str().unwrap(),
            runs,
            &["--format", "json", "--links", links],
        ))
    };

    // Capacity 3 on SA→SB: its 150 B become 50, so the largest utilisation is H0→SA's
    // 110 while the largest load stays 150.
    with_capacity("3");
    let doc = simulate("1");
    assert_eq!(doc["per_run"]["max_load"][0], 150);
    assert_eq!(doc["per_run"]["max_utilisation"][0], 110.0);
    let table = std::fs::read_to_string(&links).unwrap();
    assert!(table.starts_with("edge_id,tail,head,key,capacity,bytes,mean_bytes,max_bytes,flows,max_flows,bottleneck_runs,bottleneck_share\n"));
    assert!(
        table.contains("\n0,SA,SB,,3,150,150,150,2,2,0,0\n"),
        "{table}"
    );
    assert!(
        table.contains("\n6,H0,SA,,1,110,110,110,2,2,1,1\n"),
        "{table}"
    );

    // Capacity 0.5 on SA→SB makes its 150 B a utilisation of 300: the bottleneck of
    // every run is now the link whose capacity is not 1.
    with_capacity("0.5");
    let doc = simulate("2");
    assert_eq!(doc["per_run"]["max_utilisation"][1], 300.0);
    let table = std::fs::read_to_string(&links).unwrap();
    assert!(
        table.contains("\n0,SA,SB,,0.5,300,150,150,4,2,2,1\n"),
        "{table}"
    );
    assert!(
        table.contains("\n6,H0,SA,,1,220,110,110,4,2,0,0\n"),
        "{table}"
    );

    with_capacity("fast");
    orcs(&[
        "-i",
        path.to_str().unwrap(),
        "-p",
        "matrix",
        "--matrix",
        MATRIX,
    ])
    .fails_with(
        1,
        &["cap.dot:", "capacity \"fast\" is not a positive number"],
    );
}

#[test]
fn random_runs_conserve_bytes_and_do_not_depend_on_threads() {
    // Random placements on a 4-ary 2-tree (16 hosts, 8 ranks): every byte crosses its
    // two host links, so each run's host links carry exactly 2 × the bytes between
    // hosts, whatever the placement. Output is identical for 1 and 3 threads.
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("m.csv");
    let mut text = String::from("src,dst,bytes\n");
    for r in 0..8u64 {
        for q in 0..8u64 {
            if r != q {
                text.push_str(&format!("{r},{q},{}\n", 1 + (r * 7 + q * 3) % 11));
            }
        }
    }
    std::fs::write(&matrix, &text).unwrap();
    let total: u64 = text
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    let links = dir.path().join("links.csv");
    let args = |threads: &str| {
        vec![
            "-i".to_string(),
            FT4.to_string(),
            "-p".into(),
            "matrix".into(),
            "--matrix".into(),
            matrix.to_str().unwrap().into(),
            "-n".into(),
            "50".into(),
            "--seed".into(),
            "7".into(),
            "-j".into(),
            threads.into(),
            "--format".into(),
            "json".into(),
            "--links".into(),
            links.to_str().unwrap().into(),
        ]
    };
    let one = orcs(&args("1").iter().map(String::as_str).collect::<Vec<_>>()).ok();
    let table_one = std::fs::read_to_string(&links).unwrap();
    let three = orcs(&args("3").iter().map(String::as_str).collect::<Vec<_>>()).ok();
    let table_three = std::fs::read_to_string(&links).unwrap();
    assert_eq!(one.stdout, three.stdout);
    assert_eq!(table_one, table_three);
    let doc = json(&one);
    let mut host_link_bytes = 0u64;
    for l in doc["links"].as_array().unwrap() {
        let (t, h) = (l["tail"].as_str().unwrap(), l["head"].as_str().unwrap());
        if t.starts_with('H') || h.starts_with('H') {
            host_link_bytes += l["bytes"].as_u64().unwrap();
        }
    }
    assert_eq!(host_link_bytes, 50 * 2 * total);
    // Different placements give different maxima over 50 runs.
    let maxima: std::collections::BTreeSet<u64> = doc["per_run"]["max_load"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(maxima.len() > 1, "{maxima:?}");
}

#[test]
fn congestion_map_in_bytes() {
    // Scaled by the busiest edge, SA→SB (150 B per run): H0→SA carries 110/150,
    // SB→H2 100/150, SB→SA 30/150, H2→SB nothing.
    let run = fixed(&["--metric", "get_cable_cong"]);
    orcs::fabric::dot::parse_dot(run.stdout.as_bytes()).expect("the map parses");
    for (edge, scaled) in [
        ("SA -> SB", "1.000000"),
        ("H0 -> SA", "0.733333"),
        ("SB -> H2", "0.666667"),
        ("SB -> SA", "0.200000"),
        ("H2 -> SB", "0.000000"),
    ] {
        let line = run
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(edge))
            .unwrap_or_else(|| panic!("no {edge}\n{}", run.describe()));
        assert!(line.contains(&format!("congestion={scaled}")), "{line}");
    }
}

#[test]
fn refuses_what_a_matrix_cannot_mean() {
    orcs(&["-i", TWO, "-p", "matrix"]).fails_with(1, &["-p matrix needs --matrix FILE"]);
    orcs(&["-i", TWO, "-p", "bisect", "--matrix", MATRIX])
        .fails_with(1, &["cannot be combined with -p bisect"]);
    orcs(&["-i", TWO, "--matrix", MATRIX, "--metric", "hist_max_cong"])
        .fails_with(1, &["counts unit-weight messages"]);
    orcs(&["-i", TWO, "--matrix", MATRIX, "-l", "0", "-p", "matrix"])
        .fails_with(1, &["-l/--ptrn_level"]);
    orcs(&["-i", TWO, "-p", "bisect", "--ppn", "2"]).fails_with(1, &["--ppn applies to -p matrix"]);
    // 4 ranks need 4 hosts at one per host; the fixture has 4, so 5 ranks do not fit.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.csv");
    std::fs::write(&big, "src,dst,bytes\n0,4,1\n").unwrap();
    orcs(&["-i", TWO, "--matrix", big.to_str().unwrap()])
        .fails_with(1, &["5 ranks at 1 per host need 5 hosts", "raise --ppn"]);
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "src,dst,bytes\n0,1,lots\n").unwrap();
    orcs(&["-i", TWO, "--matrix", bad.to_str().unwrap()]).fails_with(1, &["bad.csv:2"]);
}

#[test]
fn a_dense_matrix_missing_a_row_is_an_error_not_triples() {
    let missing = "tests/fixtures/dense-row-missing.csv";
    orcs(&["-i", TWO, "--matrix", missing, "-n", "2"]).fails_with(
        1,
        &[
            "dense-row-missing.csv:6: a dense matrix of 3 columns needs 3 rows (one per rank); the matrix ends after 2 rows",
            "needs the header line `src,dst,bytes`",
        ],
    );
    orcs(&["traffic", "--cluster", TWO, "--matrix", missing])
        .fails_with(1, &["dense-row-missing.csv:6:"]);
    // The real triplet file (with its header) still reads: 4 ranks, 4 pairs, 190 bytes.
    let run = orcs(&["-i", TWO, "--matrix", MATRIX, "-n", "2"]).ok();
    for needle in ["Ranks: 4 on 4 hosts", "Rank pairs: 4 ", "Bytes: 190 "] {
        assert!(run.stdout.contains(needle), "{needle}\n{}", run.describe());
    }
}
