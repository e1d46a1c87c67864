//! Small fabrics whose congestion and metrics are computed by hand (see the comments).

use crate::support::*;

/// `-d --subset guid_order_asc` maps rank r to host Hr on the two-switch fixture.
fn fixed(pattern: &[&str], metric: &str) -> Run {
    let mut args = vec!["-i", TWO, "-d", "--subset", "guid_order_asc", "--seed", "1"];
    args.extend_from_slice(pattern);
    args.extend_from_slice(&["--metric", metric]);
    orcs(&args).ok()
}

#[test]
fn bisect_pairs_stay_on_their_switch() {
    // Pairs 1>0 and 3>2 each use a host link pair of their own switch: weight 1.
    let run = fixed(&["-p", "bisect"], "hist_max_cong");
    assert_eq!(
        run.metric_block(),
        "weight 1: 2 of the 2 connections (100.00%)\n\nBW: 1.000000\n"
    );
}

#[test]
fn bruck_on_two_switches() {
    // Level 0 (0>1 1>2 2>3 3>0): the cable carries H1>H2 one way and H3>H0 the other,
    // every load is 1. Level 1 (0>2 1>3 2>0 3>1): both directions of the cable carry 2
    // routes, so all four pairs have weight 2. BW = (4·1 + 4·½) / 8 = 0.75.
    let run = fixed(&["-p", "bruck"], "hist_max_cong");
    assert_eq!(
        run.metric_block(),
        "weight 1: 4 of the 8 connections (50.00%)\n\
         weight 2: 4 of the 8 connections (50.00%)\n\nBW: 0.750000\n"
    );
    // Sum over levels of the largest weight: 1 + 2.
    let run = fixed(&["-p", "bruck"], "sum_max_cong");
    assert!(run
        .metric_block()
        .contains("Average Maximal Congestion: 3.000000\n"));
    assert!(run
        .metric_block()
        .ends_with("Congestion sum of 3 occured 1 times.\n"));
    // The run value 0.75 lands in the lower bin [0.70, 0.75) as in ORCS.
    let run = fixed(&["-p", "bruck"], "hist_acc_band");
    assert!(run
        .metric_block()
        .contains("  0.70000000   0.75000000     1\n"));
    assert!(run
        .metric_block()
        .contains("  0.75000000   0.80000000     0\n"));
}

#[test]
fn bruck_dependency_delay() {
    // Every rank receives at level 0 with finish time 1, then sends at level 1 with
    // weight 2: longest path 1 + 2 = 3.
    let run = fixed(&["-p", "bruck"], "dep_max_delay");
    assert!(run.metric_block().contains("Maximal Delay: 3.000000\n"));
    // ORCS's model only looks at ranks 0 and 1 (-z 2): just 0>1 with weight 1.
    let run = orcs(&[
        "-i",
        TWO,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
        "-p",
        "bruck",
        "--metric",
        "dep_max_delay",
        "--orcs-compat",
    ])
    .ok();
    assert!(run.metric_block().contains("Maximal Delay: 1.000000\n"));
}

#[test]
fn scatter_serialises_on_the_injection_link() {
    // One level, 0>1 0>2 0>3: all three routes start on H0->SA (edge 6), load 3, so every
    // pair has weight 3 and BW 1/3. Leaving out the injection link would give weights
    // 1, 2, 2 (only the cable is shared by 0>2 and 0>3) and BW 2/3.
    let run = fixed(&["-p", "scatter"], "hist_max_cong");
    assert_eq!(
        run.metric_block(),
        "weight 3: 3 of the 3 connections (100.00%)\n\nBW: 0.333333\n"
    );
    // One level: sum of the largest weight is 3.
    let run = fixed(&["-p", "scatter"], "sum_max_cong");
    assert!(run
        .metric_block()
        .ends_with("Congestion sum of 3 occured 1 times.\n"));
}

#[test]
fn tree_delay_follows_the_sender() {
    // Level 0: 0>1 alone, weight 1. Level 1: 0>2 and 1>3 share the cable SA->SB, weight
    // 2 each. Rank 1 sends 1>3 after receiving at level 0, so its chain is 1 + 2 = 3; no
    // chain runs through a destination's earlier receive (ranks 2 and 3 receive nothing
    // before), which would give max(2, 2) = 2.
    let run = fixed(&["-p", "tree"], "dep_max_delay");
    assert!(
        run.metric_block().contains("Maximal Delay: 3.000000\n"),
        "{}",
        run.describe()
    );
    assert!(run
        .metric_block()
        .ends_with("Delay of 3 occured 1 times.\n"));
}

#[test]
fn gather_serialises_on_the_ejection_link() {
    // 1>0 2>0 3>0 all end on SA->H0: load 3, BW 1/3.
    let run = fixed(&["-p", "gather"], "hist_max_cong");
    assert_eq!(
        run.metric_block(),
        "weight 3: 3 of the 3 connections (100.00%)\n\nBW: 0.333333\n"
    );
}

#[test]
fn cable_congestion_plain_counts() {
    // Routes of bruck (edge ids in the fixture's header comment):
    // L0: H0>H1 6,2  H1>H2 7,0,4  H2>H3 8,5  H3>H0 9,3,1
    // L1: H0>H2 6,0,4  H1>H3 7,0,5  H2>H0 8,3,1  H3>H1 9,3,2
    // Counts: e0 3, e3 3, every other edge 2; scaled by 3.
    let run = orcs(&[
        "-i",
        TWO,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
        "-p",
        "bruck",
        "--metric",
        "get_cable_cong",
        "--format",
        "csv",
    ])
    .ok();
    let counts: Vec<(u64, String)> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[4].parse().unwrap(), f[5].to_string())
        })
        .collect();
    let expected = [3, 2, 2, 3, 2, 2, 2, 2, 2, 2];
    assert_eq!(counts.len(), 10, "{}", run.describe());
    for (e, (c, scaled)) in counts.iter().enumerate() {
        assert_eq!(*c, expected[e], "edge {e}\n{}", run.describe());
        let want = if expected[e] == 3 {
            "1.000000"
        } else {
            "0.666667"
        };
        assert_eq!(scaled, want, "edge {e}");
    }
}

#[test]
fn cable_congestion_orcs_inflation() {
    // ORCS adds the level map after each pair: the i-th of 4 pairs counts 5 - i.
    // e0: L0 pair 2 (3) + L1 pairs 1, 2 (4 + 3) = 10; e1: 1 + 2 = 3; e2: 4 + 1 = 5;
    // e3: 1 + 2 + 1 = 4; e4: 3 + 4 = 7; e5: 2 + 3 = 5; e6: 8; e7: 6; e8: 4; e9: 2.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cable.txt");
    let out_s = out.to_str().unwrap();
    orcs(&[
        "-i",
        TWO,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
        "-p",
        "bruck",
        "--metric",
        "get_cable_cong",
        "--orcs-compat",
        "-o",
        out_s,
    ])
    .ok();
    let text = std::fs::read_to_string(&out).unwrap();
    let table = text
        .split("Cable Congestions:\n\n Edge-ID\tacc. cong\n")
        .nth(1)
        .unwrap();
    assert_eq!(
        table,
        "0\t10\n1\t3\n2\t5\n3\t4\n4\t7\n5\t5\n6\t8\n7\t6\n8\t4\n9\t2\n"
    );
}

#[test]
fn cable_congestion_dot_map() {
    let run = orcs(&[
        "-i",
        TWO,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "1",
        "-p",
        "bruck",
        "--metric",
        "get_cable_cong",
    ])
    .ok();
    // Pure dot on stdout, parseable by our own reader.
    assert!(run.stdout.starts_with("digraph"), "{}", run.describe());
    let g = orcs::fabric::dot::parse_dot_str(&run.stdout).expect("map parses");
    assert_eq!(g.edges.len(), 10);
    assert!(run.stdout.contains(
        "SA -> SB [color=\"0.000000 0.900000 0.900000\", comment=\"H2, H3\", congestion=1.000000, edge_id=0]"
    ), "{}", run.describe());
    assert!(run.stdout.contains("edge_id=9]"));
    assert!(run.stdout.contains("congestion=0.666667,"));
    // Graphviz's grammar accepts it too.
    graphviz_rust::parse(&run.stdout).expect("graphviz-rust parses the map");
    // Colors are monotone in the value: hue = 0.4 · (1 − congestion), so sorting the
    // edges by congestion sorts their hues the other way.
    let mut pairs: Vec<(f64, f64)> = run
        .stdout
        .lines()
        .filter(|l| l.contains("congestion="))
        .map(|l| {
            let value = |key: &str| -> f64 {
                let rest = l.split(key).nth(1).unwrap().trim_start_matches('"');
                rest.split([' ', ',', '"', ']'])
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            (value("congestion="), value("color="))
        })
        .collect();
    assert_eq!(pairs.len(), 10);
    pairs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for w in pairs.windows(2) {
        assert!(w[1].1 <= w[0].1, "hue must fall as congestion rises: {w:?}");
    }
    for (c, h) in &pairs {
        assert!((h - 0.4 * (1.0 - c)).abs() < 1e-6, "{c} {h}");
    }
}

#[test]
fn shift_patterns_on_ft4_2_are_congestion_free() {
    // OpenSM ftree on a full k-ary n-tree routes shifts without conflict under the
    // identity mapping (reference README section 4).
    for (p, pairs) in [
        ("bisect", 8),
        ("bisect_fb_sym", 16),
        ("tree", 15),
        ("bruck", 64),
        ("recdbl", 64),
    ] {
        let run = orcs(&[
            "-i",
            FT4,
            "-d",
            "--subset",
            "guid_order_asc",
            "-p",
            p,
            "--seed",
            "3",
        ])
        .ok();
        assert_eq!(
            run.metric_block(),
            format!("weight 1: {pairs} of the {pairs} connections (100.00%)\n\nBW: 1.000000\n"),
            "{p}"
        );
    }
}

#[test]
fn ft4_2_gather_neighbor_recvs() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["-p", "gather"],
            "weight 15: 15 of the 15 connections (100.00%)\n\nBW: 0.066667\n",
        ),
        (
            &["-p", "neighbor", "-a", "3"],
            "weight 3: 48 of the 48 connections (100.00%)\n\nBW: 0.333333\n",
        ),
        (
            &["-p", "recvs_all_src", "-a", "4,linear"],
            "weight 3: 12 of the 12 connections (100.00%)\n\nBW: 0.333333\n",
        ),
    ];
    for (pattern, expected) in cases {
        let mut args = vec!["-i", FT4, "-d", "--subset", "guid_order_asc", "--seed", "3"];
        args.extend_from_slice(pattern);
        let run = orcs(&args).ok();
        assert_eq!(run.metric_block(), expected, "{}", run.describe());
    }
}

/// One pattern on the two-switch fixture, ranks on hosts in order, with its values by
/// hand: the weight histogram, the sum of the levels' largest weights and the longest
/// dependency chain.
struct Case {
    pattern: &'static [&'static str],
    /// (weight, pairs) of the one run.
    weights: &'static [(u64, u64)],
    sum_max_cong: u64,
    dep_max_delay: u64,
}

/// Hand-computed values for every pattern on the two-switch fixture (SA holds H0, H1;
/// SB holds H2, H3; one cable each way). A pair's weight is the largest number of the
/// level's routes on any link of its route, injection and ejection links included.
const EVERY_PATTERN: &[Case] = &[
    // 1>0 and 3>2 stay on their switches.
    Case {
        pattern: &["-p", "bisect"],
        weights: &[(1, 2)],
        sum_max_cong: 1,
        dep_max_delay: 1,
    },
    // 0>1 1>0 2>3 3>2: every link carries one route.
    Case {
        pattern: &["-p", "bisect_fb_sym"],
        weights: &[(1, 4)],
        sum_max_cong: 1,
        dep_max_delay: 1,
    },
    // Four levels of one pair; each rank sends after it received: 1, 2, 3, 4.
    Case {
        pattern: &["-p", "ring"],
        weights: &[(1, 4)],
        sum_max_cong: 4,
        dep_max_delay: 4,
    },
    // Level 0 pairs within a switch (1); level 1 crosses, two routes per cable way (2).
    Case {
        pattern: &["-p", "recdbl"],
        weights: &[(1, 4), (2, 4)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // 0>1 (1), then 0>2 and 1>3 share SA->SB (2); rank 1 sends at 1: 1 + 2.
    Case {
        pattern: &["-p", "tree"],
        weights: &[(1, 1), (2, 2)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // Level 0 (1 each), level 1 two routes per cable way (2); 1 + 2.
    Case {
        pattern: &["-p", "bruck"],
        weights: &[(1, 4), (2, 4)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // Three routes leave H0 on one link.
    Case {
        pattern: &["-p", "scatter"],
        weights: &[(3, 3)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // Three routes reach H0 on one link.
    Case {
        pattern: &["-p", "gather"],
        weights: &[(3, 3)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // 0>1 0>2 1>0 1>2 2>0 2>1: ranks 0, 1, 2 each send two messages (injection 2), and
    // SA->SB carries 0>2 and 1>2.
    Case {
        pattern: &["-p", "neighbor", "-a", "2"],
        weights: &[(2, 6)],
        sum_max_cong: 2,
        dep_max_delay: 2,
    },
    // The 2×2 grid: every rank sends two messages.
    Case {
        pattern: &["-p", "neighbor2d"],
        weights: &[(2, 8)],
        sum_max_cong: 2,
        dep_max_delay: 2,
    },
    // One receiver, one sender (the first non-receiver): 1>0.
    Case {
        pattern: &["-p", "recvs_one_src", "-a", "1,1.0,0.0,linear"],
        weights: &[(1, 1)],
        sum_max_cong: 1,
        dep_max_delay: 1,
    },
    // Every non-receiver sends to rank 0: three routes end on SA->H0.
    Case {
        pattern: &["-p", "recvs_all_src", "-a", "1,1.0,0.0,linear"],
        weights: &[(3, 3)],
        sum_max_cong: 3,
        dep_max_delay: 3,
    },
    // 2>0 and 3>1 share SB->SA.
    Case {
        pattern: &["-p", "recvs_all_src", "-a", "2,1.0,0.0,linear"],
        weights: &[(2, 2)],
        sum_max_cong: 2,
        dep_max_delay: 2,
    },
];

#[test]
fn every_pattern_every_metric_by_hand() {
    for case in EVERY_PATTERN {
        let name = case.pattern.join(" ");
        let pairs: u64 = case.weights.iter().map(|w| w.1).sum();
        let mut expected = String::new();
        for &(w, n) in case.weights {
            let share = 100.0 * n as f64 / pairs as f64;
            expected += &format!("weight {w}: {n} of the {pairs} connections ({share:.2}%)\n");
        }
        let bw = case
            .weights
            .iter()
            .map(|&(w, n)| n as f64 / w as f64)
            .sum::<f64>()
            / pairs as f64;
        expected += &format!("\nBW: {bw:.6}\n");
        let run = fixed(case.pattern, "hist_max_cong");
        assert_eq!(run.metric_block(), expected, "{name}\n{}", run.describe());
        // The run's value lands in bin ceil(20·BW) − 1, as in ORCS.
        let bin = (bw * 20.0 - 1e-9).ceil() as usize - 1;
        let line = format!(
            "  {:.8}   {:.8}     1\n",
            bin as f64 * 0.05,
            (bin + 1) as f64 * 0.05
        );
        let run = fixed(case.pattern, "hist_acc_band");
        assert!(
            run.metric_block().contains(&line),
            "{name}: {line:?}\n{}",
            run.describe()
        );
        let run = fixed(case.pattern, "sum_max_cong");
        let line = format!("Congestion sum of {} occured 1 times.\n", case.sum_max_cong);
        assert!(
            run.metric_block().ends_with(&line),
            "{name}: {line:?}\n{}",
            run.describe()
        );
        let run = fixed(case.pattern, "dep_max_delay");
        let line = format!("Maximal Delay: {}.000000\n", case.dep_max_delay);
        assert!(
            run.metric_block().contains(&line),
            "{name}: {line:?}\n{}",
            run.describe()
        );
    }
}
