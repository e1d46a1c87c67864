//! Machine-readable outputs and pictures: JSON and CSV read back equal the in-memory
//! results, the per-link table matches a hand computation, plots render without fonts,
//! and `orcs map` draws with Graphviz when the program its layout needs is installed
//! and without it otherwise (tested both ways whatever the machine has, through PATH),
//! in the size, colours and title asked for, as SVG, PNG or PDF (read back by poppler).

use crate::support::*;

use orcs::engine::metric::MetricKind;
use orcs::engine::stream::{stream_rng, Stream};
use orcs::engine::unit::{SimConfig, SimOutcome, Simulation};
use orcs::fabric::{load_routed_fabric, LoadOptions};
use orcs::report::results::parse_result;
use orcs::report::{csv_report, json_report, RunInfo};
use orcs::workload::mapping::{LayoutSpec, RankLayout, SubsetMethod};
use orcs::workload::pattern::{Pattern, PatternContext};

/// Simulates `pattern` on `path` with all hosts, in memory.
fn simulate(path: &str, pattern: &str, metric: MetricKind, runs: u64) -> (RunInfo, SimOutcome) {
    let loaded = load_routed_fabric(path, LoadOptions::default()).expect("fabric");
    let fabric = &loaded.fabric;
    let n = fabric.num_hosts() - fabric.num_hosts() % 2;
    let spec = LayoutSpec {
        commsize: n,
        subset: SubsetMethod::Rand,
        part: None,
        ordering: Vec::new(),
        shuffle: true,
    };
    let layout = RankLayout::build(fabric, &spec, &mut stream_rng(7, Stream::Subset))
        .expect("layout")
        .0;
    let pattern = Pattern::parse(pattern, None).expect("pattern");
    let ctx = PatternContext {
        commsize: n as u32,
        part_commsize: 2,
        orcs_compat: false,
    };
    let config = SimConfig {
        runs,
        seed: 7,
        level: None,
        metric,
        orcs_compat: false,
        pattern_context: ctx,
        links: false,
        memory: orcs::limits::MemoryLimit::unlimited(),
    };
    let sim = Simulation::new(fabric, &loaded.table, &layout, &pattern, config, None)
        .unwrap_or_else(|_| panic!("routes are valid"));
    let outcome = sim.run(&|_| {});
    let info = RunInfo {
        input_file: path.to_string(),
        output_file: "-".into(),
        pattern_lines: vec![pattern.kind().name().to_string()],
        pattern: pattern.kind().name().to_string(),
        commsize: n,
        part_commsize: 2,
        subset: "rand".into(),
        part_subset: "none".into(),
        level: -1,
        runs,
        metric,
        shuffle: true,
        seed: 7,
        subset_hosts: n,
        fabric_hosts: fabric.num_hosts(),
        fabric_switches: fabric.num_switches(),
        fabric_edges: fabric.num_edges(),
        orcs_compat: false,
    };
    (info, outcome)
}

#[test]
fn json_reads_back_as_the_results_in_memory() {
    for metric in [MetricKind::DepMaxDelay, MetricKind::GetCableCong] {
        let (info, outcome) = simulate(FT4, "bruck", metric, 60);
        let loaded = load_routed_fabric(FT4, LoadOptions::default()).unwrap();
        let doc = parse_result(&json_report(&info, &loaded.fabric, &outcome), "mem").unwrap();
        // Per-run values are exact: JSON numbers round-trip f64 and u64.
        let acc: Vec<Option<f64>> = outcome
            .acc_band
            .iter()
            .map(|&v| (!v.is_nan()).then_some(v))
            .collect();
        assert_eq!(doc.per_run.acc_band, acc);
        assert_eq!(doc.per_run.sum_max_cong, outcome.sum_max_cong);
        assert_eq!(doc.per_run.pairs, outcome.pairs);
        assert_eq!(doc.per_run.dep_max_delay, outcome.dep_max_delay);
        let weights: Vec<(u64, u64)> = doc
            .hist_max_cong
            .weights
            .iter()
            .map(|w| (w.weight, w.count))
            .collect();
        let expected: Vec<(u64, u64)> = outcome
            .weight_hist
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(w, &c)| (w as u64, c))
            .collect();
        assert_eq!(weights, expected);
        assert_eq!(doc.hist_max_cong.total_pairs, outcome.total_pairs());
        assert_eq!(doc.parameter("metric"), metric.name());
        assert_eq!(doc.parameter("seed"), "7");
        match metric {
            MetricKind::GetCableCong => {
                let cables = doc.cable_congestion.as_ref().expect("cable data");
                let counts: Vec<u64> = cables.iter().map(|c| c.count).collect();
                assert_eq!(counts, outcome.cable);
                let max = *outcome.cable.iter().max().unwrap() as f32;
                for c in cables {
                    assert_eq!(c.congestion, c.count as f32 / max);
                }
            }
            _ => assert!(doc.cable_congestion.is_none()),
        }
        let s = doc.summary.sum_max_cong.unwrap();
        let mean = outcome.sum_max_cong.iter().sum::<u64>() as f64 / 60.0;
        assert!((s.mean - mean).abs() < 1e-12, "{} vs {mean}", s.mean);
    }
}

#[test]
fn csv_reads_back_as_the_results_in_memory() {
    let loaded = load_routed_fabric(FT4, LoadOptions::default()).unwrap();
    let (_, outcome) = simulate(FT4, "bruck", MetricKind::DepMaxDelay, 40);
    let text = csv_report(MetricKind::DepMaxDelay, &loaded.fabric, &outcome);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("run,pairs,acc_band,sum_max_cong,dep_max_delay")
    );
    for (r, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[0].parse::<usize>().unwrap(), r);
        assert_eq!(f[1].parse::<u64>().unwrap(), outcome.pairs[r]);
        assert_eq!(f[2].parse::<f64>().unwrap(), outcome.acc_band[r]);
        assert_eq!(f[3].parse::<u64>().unwrap(), outcome.sum_max_cong[r]);
        assert_eq!(f[4].parse::<u64>().unwrap(), outcome.dep_max_delay[r]);
    }
    let (_, outcome) = simulate(FT4, "bisect", MetricKind::HistMaxCong, 40);
    let text = csv_report(MetricKind::HistMaxCong, &loaded.fabric, &outcome);
    let total = outcome.total_pairs() as f64;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (w, c) = (f[0].parse::<usize>().unwrap(), f[1].parse::<u64>().unwrap());
        assert_eq!(c, outcome.weight_hist[w]);
        assert_eq!(f[2].parse::<f64>().unwrap(), c as f64 / total);
    }
}

#[test]
fn links_table_matches_a_hand_computation() {
    // The binomial tree on the two-switch fabric, ranks in host order (linear_bfs, -d):
    // level 0 is 0→1 (H0→SA→H1); level 1 is 0→2 and 1→3, which share SA→SB (congestion
    // 2, the run's maximum, so SA→SB is the bottleneck of every run). 10 runs.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("links.csv");
    orcs(&[
        "-i",
        TWO,
        "-p",
        "tree",
        "-n",
        "10",
        "--seed",
        "1",
        "--subset",
        "linear_bfs",
        "-d",
        "--links",
        csv.to_str().unwrap(),
    ])
    .ok();
    let text = std::fs::read_to_string(&csv).unwrap();
    let expected = "\
edge_id,tail,head,key,routes,messages,max_congestion,bottleneck_runs,bottleneck_share
0,SA,SB,,4,20,2,10,1.000000
1,SA,H0,,3,0,0,0,0.000000
2,SA,H1,,3,10,1,0,0.000000
3,SB,SA,,4,0,0,0,0.000000
4,SB,H2,,3,10,1,0,0.000000
5,SB,H3,,3,10,1,0,0.000000
6,H0,SA,,3,20,1,0,0.000000
7,H1,SA,,3,10,1,0,0.000000
8,H2,SB,,3,0,0,0,0.000000
9,H3,SB,,3,0,0,0,0.000000
";
    assert_eq!(text, expected);
    // The ring uses every link once per run at congestion 1: all are bottlenecks.
    orcs(&[
        "-i",
        TWO,
        "-p",
        "ring",
        "-n",
        "10",
        "--seed",
        "1",
        "--subset",
        "linear_bfs",
        "-d",
        "--links",
        csv.to_str().unwrap(),
    ])
    .ok();
    let text = std::fs::read_to_string(&csv).unwrap();
    for line in text.lines().skip(1) {
        assert!(line.ends_with(",10,1,10,1.000000"), "{line}");
    }
}

#[test]
fn links_table_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut tables = Vec::new();
    for threads in ["1", "3"] {
        let csv = dir.path().join(format!("links{threads}.csv"));
        orcs(&[
            "-i",
            FT4,
            "-p",
            "bisect",
            "-n",
            "500",
            "--seed",
            "9",
            "-j",
            threads,
            "--links",
            csv.to_str().unwrap(),
        ])
        .ok();
        tables.push(std::fs::read_to_string(&csv).unwrap());
    }
    assert_eq!(tables[0], tables[1]);
    // Messages add up to the routed hops: 500 runs × 8 bisection pairs, each route 2
    // links (same leaf) or 4 (over a spine) on the 4-ary 2-tree.
    let messages: u64 = tables[0]
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).unwrap().parse::<u64>().unwrap())
        .sum();
    assert!((2 * 4000..=4 * 4000).contains(&messages), "{messages}");
}

#[test]
fn plots_render_without_any_font_installed() {
    // orcs draws with its embedded font and links no font library; point fontconfig at
    // nothing to be sure no system font is looked up.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    orcs(&[
        "-i",
        FT4,
        "-p",
        "bisect",
        "-n",
        "300",
        "--seed",
        "3",
        "--metric",
        "hist_acc_band",
        "--format",
        "json",
        "-o",
        json.to_str().unwrap(),
    ])
    .ok();
    for ext in ["svg", "png"] {
        let plot = dir.path().join(format!("p.{ext}"));
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_orcs"))
            .args([
                "-i",
                FT4,
                "-p",
                "bruck",
                "-n",
                "300",
                "--seed",
                "3",
                "--metric",
                "hist_acc_band",
                "-q",
                "--plot",
                plot.to_str().unwrap(),
                "--compare",
                json.to_str().unwrap(),
            ])
            .env("FONTCONFIG_FILE", "/nonexistent")
            .env("FONTCONFIG_PATH", dir.path())
            .env("XDG_DATA_DIRS", dir.path())
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert!(run.status.success(), "{run:?}");
        let bytes = std::fs::read(&plot).unwrap();
        if ext == "png" {
            assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        } else {
            let svg = String::from_utf8(bytes).unwrap();
            // Both series with their means: the comparison's mean is the JSON's.
            let doc = parse_result(&std::fs::read_to_string(&json).unwrap(), "a").unwrap();
            let mean = doc.summary.acc_band.unwrap().mean;
            assert!(svg.contains(&format!("mean {mean:.4}")), "{svg}");
            assert!(svg.contains("bruck (s=16)") && svg.contains("bisect (s=16)"));
        }
    }
    if let Ok(out) = std::process::Command::new("ldd")
        .arg(env!("CARGO_BIN_EXE_orcs"))
        .output()
    {
        let libs = String::from_utf8_lossy(&out.stdout);
        assert!(
            !libs.contains("fontconfig") && !libs.contains("freetype"),
            "{libs}"
        );
    }
}

#[test]
fn plot_flags_are_checked_before_the_run() {
    orcs(&["-i", TWO, "--plot", "x.eps"]).fails_with(1, &["--plot 'x.eps'", ".svg, .png or .pdf"]);
    orcs(&["-i", TWO, "--compare", "a.json"]).fails_with(1, &["--plot"]);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema_version\": 99}").unwrap();
    let plot = dir.path().join("p.svg");
    orcs(&[
        "-i",
        TWO,
        "--plot",
        plot.to_str().unwrap(),
        "--compare",
        bad.to_str().unwrap(),
    ])
    .fails_with(1, &["bad.json: schema_version 99"]);
    orcs(&["-i", TWO, "--links", "/nonexistent/dir/l.csv"]).fails_with(
        1,
        &["--links: cannot create output file '/nonexistent/dir/l.csv'"],
    );
}

#[test]
fn readme_pictures_come_from_the_readme_commands() {
    // The README's commands, run in a scratch directory, give the committed images.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("dragonfly-bisect.json");
    let json = json.to_str().unwrap();
    let fabric = repo("topologies/dragonfly-a4-p2-h2.minhop.dot");
    cable_congestion_json(&fabric, "bisect", "1000", json);
    let map = dir.path().join("map.png");
    orcs(&[
        "map",
        json,
        "-o",
        map.to_str().unwrap(),
        "--width",
        "1000",
        "--height",
        "600",
        "--renderer",
        "builtin",
    ])
    .ok();
    assert!(
        std::fs::read(&map).unwrap()
            == std::fs::read(repo("docs/dragonfly-bisect-map.png")).unwrap(),
        "docs/dragonfly-bisect-map.png is not what the README's commands draw"
    );
    let plot = dir.path().join("weights.png");
    orcs(&[
        "-i",
        &fabric,
        "-p",
        "bisect",
        "-n",
        "1000",
        "--seed",
        "1",
        "--plot",
        plot.to_str().unwrap(),
    ])
    .ok();
    assert!(
        std::fs::read(&plot).unwrap()
            == std::fs::read(repo("docs/dragonfly-bisect-weights.png")).unwrap(),
        "docs/dragonfly-bisect-weights.png is not what the README's command draws"
    );
}

#[test]
fn readme_queue_plot_comes_from_the_readme_command() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("queue-clusters.png");
    orcs(&[
        "queue",
        "--clusters",
        "1:128:x2",
        "--size",
        "512,1024",
        "--arch",
        "non-blocking,blocking",
        "--plot",
        plot.to_str().unwrap(),
    ])
    .ok();
    assert!(
        std::fs::read(&plot).unwrap() == std::fs::read(repo("docs/queue-clusters.png")).unwrap(),
        "docs/queue-clusters.png is not what the README's command draws"
    );
}

#[test]
fn maps_from_json_and_from_the_dot_map_agree() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("two.json");
    let args = [
        "-i",
        TWO,
        "-p",
        "tree",
        "-n",
        "10",
        "--seed",
        "1",
        "--subset",
        "linear_bfs",
        "-d",
    ];
    let mut a = args.to_vec();
    a.extend([
        "--metric",
        "get_cable_cong",
        "--format",
        "json",
        "-o",
        json.to_str().unwrap(),
    ]);
    orcs(&a).ok();
    let mut b = args.to_vec();
    b.extend(["--metric", "get_cable_cong", "-q"]);
    let dot = dir.path().join("two.dot");
    std::fs::write(&dot, orcs(&b).ok().stdout).unwrap();
    let mut svgs = Vec::new();
    for (input, out) in [(&json, "a.svg"), (&dot, "b.svg")] {
        let out = dir.path().join(out);
        orcs(&[
            "map",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--renderer",
            "builtin",
            "--top",
            "1",
        ])
        .ok();
        svgs.push(std::fs::read_to_string(&out).unwrap());
    }
    // SA→SB carries all 20 messages of the hot level: scaled 1.000, drawn in the top
    // colour of the scale, labelled.
    let red = orcs::viz::draw::ColorScale::Viridis.rgb(1.0);
    let red = format!("#{:02X}{:02X}{:02X}", red.0, red.1, red.2);
    for svg in &svgs {
        assert!(svg.contains("1.000"), "top label missing");
        assert!(svg.to_uppercase().contains(&red), "no cable drawn in {red}");
    }
    // Bad inputs are named.
    let text = dir.path().join("table.txt");
    let mut c = args.to_vec();
    c.extend([
        "--metric",
        "get_cable_cong",
        "--orcs-compat",
        "-o",
        text.to_str().unwrap(),
    ]);
    orcs(&c).ok();
    orcs(&["map", text.to_str().unwrap(), "-o", "x.svg"])
        .fails_with(1, &["table.txt:1: this is ORCS's edge table"]);
    // Without --orcs-compat, -o receives the dot map itself.
    let mut d = args.to_vec();
    d.extend(["--metric", "get_cable_cong", "-o", text.to_str().unwrap()]);
    orcs(&d).ok();
    let written = std::fs::read_to_string(&text).unwrap();
    assert_eq!(written, std::fs::read_to_string(&dot).unwrap());
    let other = dir.path().join("band.json");
    orcs(&[
        "-i",
        TWO,
        "-n",
        "5",
        "--seed",
        "1",
        "--format",
        "json",
        "-o",
        other.to_str().unwrap(),
    ])
    .ok();
    orcs(&["map", other.to_str().unwrap(), "-o", "x.svg"])
        .fails_with(1, &["no per-link congestion", "--metric get_cable_cong"]);
    orcs(&["map", json.to_str().unwrap(), "-o", "x.jpg"]).fails_with(1, &[".svg, .png or .pdf"]);
}

#[test]
fn the_per_level_map_shows_each_level_pairs_hottest_link() {
    let dir = tempfile::tempdir().unwrap();
    let (_, tree) = map_inputs(dir.path());
    // The expected counts, from the result's own edge list and the fat tree's names
    // (hosts H…, leaves S0_…, spines S1_…): per pair of levels, the hottest link.
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tree).unwrap()).unwrap();
    let level = |name: &str| match name {
        n if n.starts_with('H') => 0,
        n if n.starts_with("S0_") => 1,
        n if n.starts_with("S1_") => 2,
        n => panic!("unexpected node {n}"),
    };
    let mut hottest = [[0u64; 3]; 3];
    for cable in result["cable_congestion"].as_array().unwrap() {
        let (t, h) = (
            level(cable["tail"].as_str().unwrap()),
            level(cable["head"].as_str().unwrap()),
        );
        hottest[t][h] = hottest[t][h].max(cable["count"].as_u64().unwrap());
    }
    // The per-level map of the fat tree drawn by `renderer`, as SVG text.
    let draw = |renderer: &str| {
        let out = dir.path().join(format!("levels-{renderer}.svg"));
        let out = out.to_str().unwrap();
        let args = [
            "map",
            &tree,
            "-o",
            out,
            "--per-level",
            "--renderer",
            renderer,
        ];
        orcs(&[&args[..], &["--top", "1"]].concat()).ok();
        std::fs::read_to_string(out).unwrap()
    };
    let svg = draw("builtin");
    let names = ["16 hosts", "level 1: 4 switches", "level 2: 4 switches"];
    for (a, b) in [(0, 1), (1, 2)] {
        let (na, nb) = (names[a], names[b]);
        let tip = format!(
            "count {na} \u{2192} {nb}: {}, {nb} \u{2192} {na}: {}",
            hottest[a][b], hottest[b][a]
        );
        assert!(svg.contains(&tip), "no tooltip '{tip}' in\n{svg}");
    }
    // Two cables only, the hottest labelled with the full map's top value; the hosts
    // are one node like the others.
    assert_eq!(svg.matches("</title></line>").count(), 2, "{svg}");
    assert!(
        svg.contains("<title>16 hosts (level): 1 cables drawn"),
        "{svg}"
    );
    assert!(svg.contains("1.000"), "{svg}");
    if graphviz_present() {
        let svg = draw("graphviz");
        assert!(svg.contains("level 2: 4 switches"), "{svg}");
        assert!(svg.contains("16 links, total count"), "{svg}");
        // The hosts' node is a box with its name, not a point.
        assert!(svg.contains(">16 hosts</text>"), "{svg}");
    }
}

/// Congestion results for `orcs map`, written into `dir`: the two-switch fixture (both
/// switches carry hosts: a direct network, drawn with the force layout, by Graphviz's
/// `neato`) and the 4-ary 2-tree (hosts on the leaves, spines a level above, no link
/// within a level: layered, by Graphviz's `dot`). Returns (two-switch, fat tree).
fn map_inputs(dir: &std::path::Path) -> (String, String) {
    let two = dir.join("two.json").to_str().unwrap().to_string();
    let tree = dir.join("ft4.json").to_str().unwrap().to_string();
    for (fabric, pattern, out) in [(TWO, "tree", &two), (FT4, "bisect", &tree)] {
        cable_congestion_json(fabric, pattern, "10", out);
    }
    (two, tree)
}

/// `orcs -i fabric -p pattern -n runs --seed 1 --metric get_cable_cong --format json -o
/// out`: the per-link congestion `orcs map` draws.
fn cable_congestion_json(fabric: &str, pattern: &str, runs: &str, out: &str) {
    orcs(&[
        "-i",
        fabric,
        "-p",
        pattern,
        "-n",
        runs,
        "--seed",
        "1",
        "--metric",
        "get_cable_cong",
        "--format",
        "json",
        "-o",
        out,
    ])
    .ok();
}

/// `orcs map input -o out --renderer renderer` with `PATH` set to `path`; the bytes
/// written, or the failed run.
fn map_with_path(input: &str, out: &str, renderer: &str, path: &str) -> Result<Vec<u8>, Run> {
    let mut args = vec!["map", input, "-o", out, "--top", "1"];
    if !renderer.is_empty() {
        args.extend(["--renderer", renderer]);
    }
    let run = orcs_with(&args, None, &[("PATH", path)]);
    if run.status == Some(0) {
        Ok(std::fs::read(out).unwrap_or_else(|e| panic!("{out}: {e}\n{}", run.describe())))
    } else {
        Err(run)
    }
}

#[test]
fn map_without_graphviz_names_the_program_the_layout_needs() {
    // A PATH with no program at all: Graphviz is absent whatever the machine has.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    let (two, tree) = map_inputs(dir.path());
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (input, program) in [(&two, "neato"), (&tree, "dot")] {
        let run = map_with_path(input, &out("gv.svg"), "graphviz", empty)
            .expect_err("--renderer graphviz ran without Graphviz");
        run.fails_with(
            1,
            &[&format!(
                "--renderer graphviz: Graphviz's `{program}` is not installed (Debian package graphviz)"
            )],
        );
        // auto (also the default) falls back to the built-in renderer: the same bytes.
        let builtin = map_with_path(input, &out("builtin.svg"), "builtin", empty)
            .unwrap_or_else(|run| panic!("{}", run.describe()));
        for renderer in ["auto", ""] {
            let auto = map_with_path(input, &out("auto.svg"), renderer, empty)
                .unwrap_or_else(|run| panic!("{}", run.describe()));
            assert!(
                auto == builtin,
                "{input}: --renderer {renderer:?} without Graphviz is not the built-in map"
            );
        }
        let svg = String::from_utf8(builtin).unwrap();
        assert!(svg.contains("<svg") && !svg.contains("Generated by graphviz"));
    }
}

#[test]
fn map_with_graphviz_draws_through_the_program_the_layout_needs() {
    if !graphviz_present() {
        return;
    }
    // Folders holding one Graphviz program each: a map may use only the one it needs.
    // (Graphviz picks the layout by the name it is run as, which a link keeps.)
    let dir = tempfile::tempdir().unwrap();
    let only = |program: &str| {
        let bin = dir.path().join(format!("only-{program}"));
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(find_program(program).unwrap(), bin.join(program)).unwrap();
        bin.to_str().unwrap().to_string()
    };
    let (only_dot, only_neato) = (only("dot"), only("neato"));
    let (two, tree) = map_inputs(dir.path());
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // The hottest cable's colour, the top of the default scale (viridis); Graphviz may
    // round each channel the other way.
    let red = orcs::viz::draw::ColorScale::Viridis.rgb(1.0);
    let near_red = |svg: &str| {
        svg.match_indices("stroke=\"#").any(|(at, _)| {
            let Some(hex) = svg.get(at + 9..at + 15) else {
                return false;
            };
            let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
            let rgb = [channel(0), channel(2), channel(4)];
            rgb.iter()
                .zip([red.0, red.1, red.2])
                .all(|(got, want)| got.is_some_and(|got| got.abs_diff(want) <= 1))
        })
    };
    for (input, program, needed, other) in [
        (&two, "neato", &only_neato, &only_dot),
        (&tree, "dot", &only_dot, &only_neato),
    ] {
        let drawn = map_with_path(input, &out("gv.svg"), "graphviz", needed)
            .unwrap_or_else(|run| panic!("{}", run.describe()));
        let svg = String::from_utf8(drawn.clone()).unwrap();
        assert!(svg.contains("<!-- Generated by graphviz"), "{input}: {svg}");
        // The title, the label of the hottest cable and its color survive.
        assert!(svg.contains("congestion map of "), "{input}: {svg}");
        assert!(svg.contains("1.000"), "{input}: top label missing\n{svg}");
        assert!(near_red(&svg), "{input}: no cable in {red:?}\n{svg}");
        // auto picks Graphviz when the program is there: the same bytes.
        let auto = map_with_path(input, &out("auto.svg"), "auto", needed)
            .unwrap_or_else(|run| panic!("{}", run.describe()));
        assert!(
            auto == drawn,
            "{input}: --renderer auto is not Graphviz's map"
        );
        // The other program alone does not do.
        map_with_path(input, &out("other.svg"), "graphviz", other)
            .expect_err("drawn without the program the layout needs")
            .fails_with(1, &[&format!("Graphviz's `{program}` is not installed")]);
        // PNG too.
        let png = map_with_path(input, &out("gv.png"), "graphviz", needed)
            .unwrap_or_else(|run| panic!("{}", run.describe()));
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{input}: not a PNG");
    }
}

/// A PNG's width and height, from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

/// What `program` (poppler's `pdfinfo` or `pdftotext`) prints about the PDF file `path`.
fn poppler(program: &str, path: &str) -> String {
    let mut command = std::process::Command::new(program);
    command.arg(path);
    if program == "pdftotext" {
        command.arg("-");
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{program} {path}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn maps_fit_the_size_asked_for_in_every_format_and_renderer() {
    // A 512-host fat tree: its lowest level is 64 times wider than the tree is high, which
    // Graphviz, left to itself, drew 17,095 × 586 pixels whatever --width and --height said.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("k8.json");
    let json = json.to_str().unwrap();
    cable_congestion_json(
        "topologies/kary-ntree-8-3.dmodk.dot.gz",
        "bisect",
        "5",
        json,
    );
    let poppler_here = tools_present(&["pdfinfo", "pdftotext"], "ORCS_REQUIRE_POPPLER");
    let mut renderers = vec!["builtin"];
    if graphviz_present() {
        renderers.push("graphviz");
    }
    for renderer in renderers {
        for hosts in ["--hosts", "--switches-only"] {
            let out = |ext: &str| {
                dir.path()
                    .join(format!("m.{ext}"))
                    .to_str()
                    .unwrap()
                    .to_string()
            };
            let map = |ext: &str| {
                let path = out(ext);
                orcs(&[
                    "map",
                    json,
                    "-o",
                    &path,
                    "--renderer",
                    renderer,
                    hosts,
                    "--width",
                    "600",
                    "--height",
                    "400",
                ])
                .ok();
                std::fs::read(&path).unwrap()
            };
            let what = format!("--renderer {renderer} {hosts}");
            // The picture fits in 600 × 400 and fills it: exactly for the built-in
            // renderer, to within 1 % on one side for Graphviz, which rounds the scale.
            let fits = |(w, h): (u32, u32)| {
                let exact = renderer == "builtin";
                w <= 600
                    && h <= 400
                    && if exact {
                        (w, h) == (600, 400)
                    } else {
                        w >= 594 || h >= 396
                    }
            };
            let png = png_size(&map("png"));
            assert!(fits(png), "{what}: PNG {png:?}");
            let svg_size = svg_size(&String::from_utf8(map("svg")).unwrap());
            assert!(fits(svg_size), "{what}: SVG {svg_size:?}");
            let pdf = map("pdf");
            assert!(pdf.starts_with(b"%PDF-"), "{what}");
            if poppler_here {
                let info = poppler("pdfinfo", &out("pdf"));
                // One page of the SVG's size in points.
                let page = format!("{} x {} pts", svg_size.0, svg_size.1);
                assert!(
                    info.lines()
                        .any(|l| l.starts_with("Page size:") && l.contains(&page)),
                    "{what}: {info}"
                );
                assert!(
                    info.lines().any(|l| l == "Pages:           1"),
                    "{what}: {info}"
                );
                // The text is text: the title and the scale's caption read back.
                let text = poppler("pdftotext", &out("pdf"));
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(text.contains("congestion map of k8.json"), "{what}: {text}");
                assert!(text.contains("scaled congestion"), "{what}: {text}");
            }
        }
    }
}

#[test]
fn map_colours_and_title_follow_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let (two, _) = map_inputs(dir.path());
    let svg = |extra: &[&str]| {
        let path = dir.path().join("c.svg");
        let path = path.to_str().unwrap();
        let mut args = vec!["map", two.as_str(), "-o", path, "--renderer", "builtin"];
        args.extend(extra);
        orcs(&args).ok();
        std::fs::read_to_string(path).unwrap()
    };
    let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
    use orcs::viz::draw::ColorScale;
    use plotters::style::RGBColor;
    // The legend's bar runs through the chosen scale, from 0 to 1.
    for (flag, scale) in [
        (None, ColorScale::Viridis),
        (Some("cividis"), ColorScale::Cividis),
        (Some("orcs"), ColorScale::Orcs),
    ] {
        let drawn = match flag {
            Some(name) => svg(&["--colors", name]),
            None => svg(&[]),
        };
        for c in [0.0, 1.0] {
            assert!(drawn.contains(&fill(scale.rgb(c))), "{flag:?} at {c}");
        }
        let other = if scale == ColorScale::Orcs {
            ColorScale::Viridis
        } else {
            ColorScale::Orcs
        };
        assert!(!drawn.contains(&fill(other.rgb(1.0))), "{flag:?}");
    }
    assert!(svg(&["--title", "Fig. 3: tree"]).contains("Fig. 3: tree"));
    assert!(!svg(&["--title", ""]).contains("congestion map of"));
    assert!(svg(&[]).contains("congestion map of two.json"));
    // A compressed SVG is the same picture, gzipped.
    let gz = dir.path().join("c.svg.gz");
    orcs(&[
        "map",
        two.as_str(),
        "-o",
        gz.to_str().unwrap(),
        "--renderer",
        "builtin",
    ])
    .ok();
    let mut plain = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
        &mut plain,
    )
    .unwrap();
    assert!(plain == svg(&[]), "the .svg.gz map is not the .svg one");
    orcs(&["map", &two, "-o", "x.png.gz"]).fails_with(1, &["(or .svg.gz)"]);
    orcs(&["map", &two, "-o", "x.svg", "--colors", "jet"])
        .fails_with(1, &["--colors", "viridis, cividis, orcs"]);
}

/// The width and height of the root element of an SVG document.
fn svg_size(svg: &str) -> (u32, u32) {
    let root = &svg[svg.find("<svg").unwrap()..];
    let root = &root[..root.find('>').unwrap()];
    let attribute = |name: &str| -> u32 {
        let at = root.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        root[at..at + root[at..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    (attribute("width"), attribute("height"))
}

#[test]
fn plots_take_their_title_and_size_from_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let json = path("a.json");
    let sim = |extra: &[&str]| {
        let mut args = vec!["-i", FT4, "-p", "bisect", "-n", "50", "--seed", "1", "-q"];
        args.extend(extra);
        orcs(&args)
    };
    sim(&["--format", "json", "-o", &json]).ok();
    // Sizes by default: 900 × 540 for a histogram, 900 × 560 for the queueing curves.
    sim(&["--plot", &path("d.svg")]).ok();
    assert_eq!(
        svg_size(&std::fs::read_to_string(path("d.svg")).unwrap()),
        (900, 540)
    );
    sim(&[
        "--plot",
        &path("s.png"),
        "--plot-size",
        "640x360",
        "--plot-title",
        "Fig. 2",
    ])
    .ok();
    assert_eq!(png_size(&std::fs::read(path("s.png")).unwrap()), (640, 360));
    sim(&[
        "--plot",
        &path("s.svg"),
        "--plot-size",
        "640x360",
        "--plot-title",
        "Fig. 2",
    ])
    .ok();
    let svg = std::fs::read_to_string(path("s.svg")).unwrap();
    assert_eq!(svg_size(&svg), (640, 360));
    assert!(
        svg.contains("Fig. 2") && !svg.contains("hist_max_cong: "),
        "{svg}"
    );
    // orcs plot names them --title and --size.
    orcs(&[
        "plot",
        &json,
        "-o",
        &path("p.svg"),
        "--title",
        "Weights",
        "--size",
        "500X300",
    ])
    .ok();
    let svg = std::fs::read_to_string(path("p.svg")).unwrap();
    assert_eq!(svg_size(&svg), (500, 300));
    assert!(svg.contains("Weights"), "{svg}");
    // The queueing model's --size is the message size; its plot's is --plot-size.
    orcs(&[
        "queue",
        "--clusters",
        "1:8:x2",
        "--size",
        "512",
        "--plot",
        &path("q.svg"),
        "--plot-size",
        "700x400",
    ])
    .ok();
    assert_eq!(
        svg_size(&std::fs::read_to_string(path("q.svg")).unwrap()),
        (700, 400)
    );
    if tools_present(&["pdfinfo", "pdftotext"], "ORCS_REQUIRE_POPPLER") {
        orcs(&[
            "plot",
            &json,
            "-o",
            &path("p.pdf"),
            "--title",
            "Weights",
            "--size",
            "500x300",
        ])
        .ok();
        let info = poppler("pdfinfo", &path("p.pdf"));
        assert!(info.contains("500 x 300 pts"), "{info}");
        let text = poppler("pdftotext", &path("p.pdf"));
        assert!(
            text.contains("Weights") && text.contains("share of pairs"),
            "{text}"
        );
    }
    // What cannot be drawn is said before the run.
    sim(&["--plot-title", "x"]).fails_with(
        1,
        &["--plot-title and --plot-size change the picture of --plot FILE"],
    );
    sim(&["--plot", "x.svg", "--plot-size", "10x10"])
        .fails_with(1, &["--plot-size '10x10'", "from 16 to 20000"]);
    orcs(&["plot", &json, "-o", "x.svg", "--size", "800"])
        .fails_with(1, &["--size '800'", "WIDTHxHEIGHT"]);
}
