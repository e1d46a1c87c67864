//! Agreement with the original ORCS (reference results in ../shared/reference/orcs/).
//! Deterministic set-ups must match the text exactly; random ones statistically.

use crate::support::*;

fn det(fabric: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "-i",
        fabric,
        "-d",
        "--subset",
        "guid_order_asc",
        "--seed",
        "5",
    ];
    args.extend_from_slice(extra);
    orcs(&args).ok()
}

const DELAY8: &str = "Statistical Results\n===================\n\nMinimal Delay: 8.000000\nMaximal Delay: 8.000000\nAverage Delay: 8.000000\nDelay Variance: 0.000000\n===================\n\nDelay of 8 occured 1 times.\n";

#[test]
fn ft8_3_deterministic_outputs() {
    for (p, pairs) in [
        ("bisect", 256),
        ("bisect_fb_sym", 512),
        ("tree", 511),
        ("bruck", 4608),
        ("recdbl", 4608),
    ] {
        let run = det(FT8, &["-p", p]);
        assert_eq!(
            run.metric_block(),
            format!("weight 1: {pairs} of the {pairs} connections (100.00%)\n\nBW: 1.000000\n"),
            "{}",
            run.describe()
        );
    }
    let run = det(FT8, &["-p", "recvs_one_src", "-a", "4,linear"]);
    assert_eq!(
        run.metric_block(),
        "weight 1: 4 of the 4 connections (100.00%)\n\nBW: 1.000000\n"
    );
    for p in ["bisect", "bruck"] {
        let run = orcs(&[
            "-i",
            FT8,
            "-d",
            "--subset",
            "linear_bfs",
            "-p",
            p,
            "--seed",
            "1",
        ])
        .ok();
        assert!(
            run.metric_block()
                .ends_with("connections (100.00%)\n\nBW: 1.000000\n"),
            "{}",
            run.describe()
        );
    }
    let run = det(FT8, &["-p", "gather"]);
    assert_eq!(
        run.metric_block(),
        "weight 511: 511 of the 511 connections (100.00%)\n\nBW: 0.001957\n"
    );
    let run = det(FT8, &["-p", "recvs_all_src", "-a", "4,linear"]);
    assert_eq!(
        run.metric_block(),
        "weight 127: 508 of the 508 connections (100.00%)\n\nBW: 0.007874\n"
    );
    let run = det(
        FT8,
        &[
            "-p",
            "bruck",
            "-z",
            "256",
            "--metric",
            "dep_max_delay",
            "--orcs-compat",
        ],
    );
    assert_eq!(run.metric_block(), DELAY8);
}

#[test]
fn ft8_3_minhop_and_dfsssp_deterministic_outputs() {
    let Some(minhop) = shared_str("fabrics/orcs/ft8-3/ft8-3.minhop.orcs.dot.gz") else {
        return;
    };
    let Some(dfsssp) = shared_str("fabrics/orcs/ft8-3/ft8-3.dfsssp.orcs.dot.gz") else {
        return;
    };
    let expect = [
        (&minhop, vec!["-p", "bruck"], "weight 1: 2688 of the 4608 connections (58.33%)\nweight 2: 128 of the 4608 connections (2.78%)\nweight 4: 256 of the 4608 connections (5.56%)\nweight 8: 1536 of the 4608 connections (33.33%)\n\nBW: 0.652778\n"),
        (&minhop, vec!["-p", "recdbl"], "weight 1: 3072 of the 4608 connections (66.67%)\nweight 8: 1536 of the 4608 connections (33.33%)\n\nBW: 0.708333\n"),
        (&minhop, vec!["-p", "tree"], "weight 1: 63 of the 511 connections (12.33%)\nweight 8: 448 of the 511 connections (87.67%)\n\nBW: 0.232877\n"),
        (&minhop, vec!["-p", "ptrnvsptrn", "-a", "bruck::bisect", "-z", "256"], "weight 1: 2368 of the 3072 connections (77.08%)\nweight 2: 64 of the 3072 connections (2.08%)\nweight 4: 128 of the 3072 connections (4.17%)\nweight 8: 512 of the 3072 connections (16.67%)\n\nBW: 0.812500\n"),
        (&dfsssp, vec!["-p", "bruck"], "weight 1: 3274 of the 4608 connections (71.05%)\nweight 2: 1204 of the 4608 connections (26.13%)\nweight 3: 102 of the 4608 connections (2.21%)\nweight 4: 28 of the 4608 connections (0.61%)\n\nBW: 0.850043\n"),
    ];
    for (fabric, args, text) in expect {
        let run = det(fabric, &args);
        assert_eq!(run.metric_block(), text, "{}", run.describe());
    }
    let sum = |v: u32| {
        format!("Statistical Results\n===================\n\nMinimal Maximal Congestion: {v}.000000\nMaximal Maximal Congestion: {v}.000000\nAverage Maximal Congestion: {v}.000000\nMaximal Congestion Variance: 0.000000\n===================\n\nCongestion sum of {v} occured 1 times.\n")
    };
    assert_eq!(
        det(&minhop, &["-p", "bruck", "--metric", "sum_max_cong"]).metric_block(),
        sum(34)
    );
    assert_eq!(
        det(&dfsssp, &["-p", "bruck", "--metric", "sum_max_cong"]).metric_block(),
        sum(25)
    );
    let delay22 = DELAY8.replace('8', "22");
    for p in ["bruck", "tree"] {
        let run = det(
            &minhop,
            &[
                "-p",
                p,
                "-z",
                "256",
                "--metric",
                "dep_max_delay",
                "--orcs-compat",
            ],
        );
        assert_eq!(run.metric_block(), delay22, "{}", run.describe());
    }
    let run = det(&minhop, &["-p", "bruck", "--metric", "hist_acc_band"]);
    assert!(
        run.metric_block()
            .contains("  0.65000000   0.70000000     1\n"),
        "{}",
        run.describe()
    );
    assert_eq!(
        run.metric_block()
            .lines()
            .filter(|l| l.ends_with("     0"))
            .count(),
        19
    );
}

#[test]
fn ft4_2_cable_tables_match_orcs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cable.txt");
    let out_s = out.to_str().unwrap();
    det(
        FT4,
        &[
            "-p",
            "bisect",
            "--metric",
            "get_cable_cong",
            "--orcs-compat",
            "-o",
            out_s,
        ],
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("Input File: topologies/ft4-2.ftree.dot\n"),
        "{text}"
    );
    assert!(text.ends_with("\n\nCable Congestions:\n\n Edge-ID\tacc. cong\n1\t8\n3\t7\n9\t8\n11\t7\n33\t6\n35\t5\n37\t6\n39\t5\n45\t4\n47\t3\n49\t4\n51\t3\n57\t2\n59\t1\n61\t2\n63\t1\n"), "{text}");

    let inflated = "0:64 1:15 2:27 3:39 4:35 5:59 6:43 7:28 8:26 9:60 10:56 11:52 12:15 13:47 14:47 15:31 \
        16:11 17:31 18:35 19:23 20:8 21:16 22:24 23:16 24:6 25:14 26:22 27:14 28:48 29:43 30:31 31:20 \
        32:18 33:47 34:43 35:39 36:35 37:44 38:40 39:36 40:32 41:27 42:19 43:12 44:10 45:47 46:43 47:39 \
        48:35 49:28 50:24 51:20 52:16 53:11 54:7 55:4 56:2 57:31 58:27 59:23 60:19 61:12 62:8 63:4";
    let plain = "0:4 1:4 2:4 3:4 4:4 5:4 6:3 7:2 8:2 9:4 10:4 11:4 12:4 13:4 14:4 15:4 \
        16:3 17:3 18:3 19:3 20:2 21:2 22:2 23:2 24:2 25:2 26:2 27:2 28:4 29:4 30:3 31:2 \
        32:2 33:4 34:4 35:4 36:4 37:4 38:4 39:4 40:4 41:4 42:3 43:2 44:2 45:4 46:4 47:4 \
        48:4 49:4 50:4 51:4 52:4 53:4 54:3 55:2 56:2 57:4 58:4 59:4 60:4 61:4 62:4 63:4";
    for (compat, expected) in [(true, inflated), (false, plain)] {
        let mut args = vec![
            "-p",
            "bruck",
            "--metric",
            "get_cable_cong",
            "--format",
            "csv",
        ];
        if compat {
            args.push("--orcs-compat");
        }
        let run = det(FT4, &args);
        let got: Vec<String> = run
            .stdout
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{}:{}", f[0], f[4])
            })
            .collect();
        assert_eq!(
            got.join(" "),
            expected,
            "compat={compat}\n{}",
            run.describe()
        );
    }
}

/// Parses the per-run summary from the JSON output: (n, mean, population sd).
fn acc_band_stats(run: &Run) -> (f64, f64, f64) {
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let s = &v["summary"]["acc_band"];
    let n = s["n"].as_f64().unwrap();
    let var = s["population_variance"].as_f64().unwrap();
    (n, s["mean"].as_f64().unwrap(), var.sqrt())
}

/// Accept when |m2 - m1| < 3·sqrt(s1²/n1 + s2²/n2) (reference README section 6).
#[track_caller]
fn assert_mean_agrees(run: &Run, ref_mean: f64, ref_sd: f64, ref_n: f64) {
    let (n, mean, sd) = acc_band_stats(run);
    let bound = 3.0 * (ref_sd * ref_sd / ref_n + sd * sd / n).sqrt();
    assert!(
        (mean - ref_mean).abs() < bound,
        "mean {mean} vs ORCS {ref_mean} (bound {bound})\n{}",
        run.describe()
    );
}

#[test]
fn random_mappings_agree_with_orcs_statistically() {
    let json = [
        "--format",
        "json",
        "--metric",
        "hist_acc_band",
        "--seed",
        "20261122",
    ];
    let cases: [(&str, &[&str], f64, f64, f64); 6] = [
        (FT4, &["-p", "bisect", "-n", "1000"], 0.9098, 0.0921, 1000.0),
        (FT4, &["-p", "bruck", "-n", "100"], 0.8328, 0.0378, 100.0),
        (FT8, &["-p", "bisect", "-n", "1000"], 0.7248, 0.0220, 1000.0),
        (FT8, &["-p", "bruck", "-n", "100"], 0.5586, 0.0045, 100.0),
        (FT8, &["-p", "rand", "-n", "1000"], 0.5575, 0.0131, 1000.0),
        (
            FT8,
            &["-p", "bisect", "-s", "256", "-n", "1000"],
            0.8464,
            0.0275,
            1000.0,
        ),
    ];
    for (fabric, args, mean, sd, n) in cases {
        let mut all = vec!["-i", fabric];
        all.extend_from_slice(args);
        all.extend_from_slice(&json);
        let run = orcs(&all).ok();
        assert_mean_agrees(&run, mean, sd, n);
    }
    let Some(minhop) = shared_str("fabrics/orcs/ft8-3/ft8-3.minhop.orcs.dot.gz") else {
        return;
    };
    let Some(dfsssp) = shared_str("fabrics/orcs/ft8-3/ft8-3.dfsssp.orcs.dot.gz") else {
        return;
    };
    for (fabric, mean, sd) in [(&minhop, 0.2917, 0.0177), (&dfsssp, 0.6416, 0.0193)] {
        let mut all = vec!["-i", fabric.as_str(), "-p", "bisect", "-n", "1000"];
        all.extend_from_slice(&json);
        assert_mean_agrees(&orcs(&all).ok(), mean, sd, 1000.0);
    }
}

#[test]
fn hist_max_cong_weights_agree_with_orcs_chi_square() {
    // ORCS ft8-3 bruck -n 100: weight counts over 460 800 pairs.
    let orcs_counts = [
        (1, 106348u64),
        (2, 212483),
        (3, 112139),
        (4, 26191),
        (5, 3358),
        (6, 246),
        (7, 35),
    ];
    let run = orcs(&["-i", FT8, "-p", "bruck", "-n", "100", "--seed", "11"]).ok();
    let ours = weight_counts(run.metric_block());
    let total: u64 = ours.iter().map(|c| c.1).sum();
    assert_eq!(total, 460_800);
    // Two-sample chi-square on the pooled table (weights ≥ 6 pooled).
    let bucket = |w: u64| w.min(6) as usize;
    let mut a = [0f64; 7];
    let mut b = [0f64; 7];
    for (w, c) in orcs_counts {
        a[bucket(w)] += c as f64;
    }
    for (w, c) in ours {
        b[bucket(w)] += c as f64;
    }
    let (na, nb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    let mut chi2 = 0.0;
    let mut dof = 0;
    for i in 1..7 {
        let tot = a[i] + b[i];
        if tot == 0.0 {
            continue;
        }
        let ea = tot * na / (na + nb);
        let eb = tot * nb / (na + nb);
        chi2 += (a[i] - ea).powi(2) / ea + (b[i] - eb).powi(2) / eb;
        dof += 1;
    }
    // Pairs within one run are correlated, so the plain chi-square is inflated; the
    // bound is the 99.9 % quantile for dof - 1 = 5 (20.5) times a design effect of 4.
    assert!(
        chi2 < 4.0 * 20.5,
        "chi2 {chi2} over {dof} cells\n{}",
        run.describe()
    );
}

#[test]
fn sum_max_cong_distribution_agrees_with_orcs() {
    // ORCS ft8-3 bruck -n 100: mean 40.93, population variance 2.8051.
    let run = orcs(&[
        "-i",
        FT8,
        "-p",
        "bruck",
        "-n",
        "200",
        "--metric",
        "sum_max_cong",
        "--format",
        "json",
        "--seed",
        "9",
    ])
    .ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let s = &v["summary"]["sum_max_cong"];
    let mean = s["mean"].as_f64().unwrap();
    let var = s["population_variance"].as_f64().unwrap();
    let bound = 3.0 * (2.8051 / 100.0 + var / 200.0).sqrt();
    assert!(
        (mean - 40.93).abs() < bound,
        "mean {mean}, bound {bound}\n{}",
        run.describe()
    );
    assert!(var > 0.5 && var < 8.0, "variance {var}");
}

#[test]
fn routequal_matches_orcs() {
    // The check report comes first; ORCS's lines end the output unchanged.
    let run = orcs(&["-i", FT4, "--routequal"]).ok();
    assert!(
        run.stdout
            .ends_with("\n\ngmin: 12, gmax: 12\nE: 12.00, sigma: 0.00\nCompleted\n"),
        "{}",
        run.describe()
    );
    assert!(run.stdout.contains("All 240 ordered host pairs are routed"));
    let run = orcs(&["check", "-i", FT8, "--routequal"]).ok();
    assert!(
        run.stdout
            .ends_with("\n\ngmin: 504, gmax: 504\nE: 504.00, sigma: 0.00\nCompleted\n"),
        "{}",
        run.describe()
    );
}

#[test]
fn gng_fabric_routes_like_the_orcs_dot() {
    // Same OpenSM tables with GUID names: identical deterministic results and the
    // switch ids inside comments are ignored with one warning.
    let Some(gng) = shared_str("fabrics/orcs/ft4-2/ft4-2.ftree.gng.dot") else {
        return;
    };
    let run = orcs(&["-i", &gng, "--routequal"]).ok();
    assert!(
        run.stdout
            .ends_with("\n\ngmin: 12, gmax: 12\nE: 12.00, sigma: 0.00\nCompleted\n"),
        "{}",
        run.describe()
    );
    let run = orcs(&["-i", &gng, "-p", "bruck", "-n", "50", "--seed", "4"]).ok();
    assert!(
        run.stderr
            .contains("name no host of the fabric and were ignored"),
        "{}",
        run.describe()
    );
}

#[test]
fn larger_fat_trees_agree_with_orcs() {
    let json = [
        "--format",
        "json",
        "--metric",
        "hist_acc_band",
        "--seed",
        "31",
    ];
    let Some(ft12) = shared_str("fabrics/orcs/ft12-3/ft12-3.ftree.orcs.dot.gz") else {
        return;
    };
    let Some(ft16) = shared_str("fabrics/orcs/ft16-3/ft16-3.ftree.orcs.dot.gz") else {
        return;
    };
    let cases: [(&str, &str, &str, f64, f64, f64); 4] = [
        (&ft12, "bisect", "1000", 0.7006, 0.0115, 1000.0),
        (&ft12, "bruck", "30", 0.5293, 0.0021, 30.0),
        (&ft16, "bisect", "1000", 0.6887, 0.0071, 1000.0),
        (&ft16, "bruck", "10", 0.5160, 0.0009, 10.0),
    ];
    for (fabric, pattern, runs, mean, sd, n) in cases {
        let mut all = vec!["-i", fabric, "-p", pattern, "-n", runs];
        all.extend_from_slice(&json);
        assert_mean_agrees(&orcs(&all).ok(), mean, sd, n);
    }
    // Deterministic: ftree routes shifts without conflict under the identity mapping.
    let run = det(&ft16, &["-p", "bruck"]);
    assert_eq!(
        run.metric_block(),
        "weight 1: 49152 of the 49152 connections (100.00%)\n\nBW: 1.000000\n"
    );
}
