//! InfiniBand dumps → routed fabric: every generated OpenSM run converts, the three
//! forwarding-table layouts agree, and the result simulates exactly like the ORCS dot
//! that ORCS's own converter made from the same dumps.

use crate::support::*;
use std::path::{Path, PathBuf};

/// Every run directory under ../shared/fabrics/ib/generated/*/*/ with the three dumps.
fn generated_runs() -> Vec<PathBuf> {
    let Some(root) = shared_str("fabrics/ib/generated") else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    for topo in std::fs::read_dir(root).unwrap().flatten() {
        for run in std::fs::read_dir(topo.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = run.path();
            if p.join("ibnetdiscover.txt").exists() && p.join("opensm.fdbs").exists() {
                runs.push(p);
            }
        }
    }
    runs.sort();
    runs
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn every_generated_run_converts_the_same_from_each_lft_layout() {
    let runs = generated_runs();
    if runs.is_empty() {
        return;
    }
    assert!(runs.len() >= 20, "found only {} runs", runs.len());
    for run in runs {
        let topo = run.join("ibnetdiscover.txt");
        let mut dots = Vec::new();
        for lft in ["ibroute.txt", "opensm-lfts.dump", "opensm.fdbs"] {
            let out = orcs(&[
                "convert",
                "--topology",
                s(&topo),
                "--lft",
                s(&run.join(lft)),
                "-o",
                "-",
            ]);
            let routed = out.status == Some(0);
            // torus minhop/updn and similar may legitimately leave nothing broken; a
            // broken route exits 2 with the report, which we also accept here but record.
            assert!(routed || out.status == Some(2), "{}", out.describe());
            assert!(!out.stderr.contains("panicked"));
            dots.push((lft, out.stdout, routed));
        }
        assert_eq!(
            dots[0].1,
            dots[1].1,
            "{}: ibroute vs opensm-lfts.dump",
            run.display()
        );
        assert_eq!(
            dots[0].1,
            dots[2].1,
            "{}: ibroute vs opensm.fdbs",
            run.display()
        );
        assert!(
            dots[0].2,
            "{}: OpenSM's tables route every pair",
            run.display()
        );
        // The .lst topology gives the same fabric as ibnetdiscover.
        let lst = run.join("opensm-subnet.lst");
        if lst.exists() {
            let out = orcs(&[
                "convert",
                "--topology",
                s(&lst),
                "--lft",
                s(&run.join("opensm.fdbs")),
                "-o",
                "-",
            ])
            .ok();
            assert_eq!(
                out.stdout,
                dots[0].1,
                "{}: .lst vs ibnetdiscover",
                run.display()
            );
        }
    }
}

#[test]
fn converted_dumps_simulate_like_the_orcs_dot() {
    // ../shared/fabrics/orcs/ft4-2: the ORCS dot was made by lftsdump2dot from the same
    // OpenSM run. Hosts are numbered in GUID order in both, so even random runs agree.
    let Some(dir) = shared_str("fabrics/orcs/ft4-2") else {
        return;
    };
    let dir = Path::new(&dir);
    let orcs_dot = dir.join("ft4-2.ftree.orcs.dot");
    let topo = dir.join("ibnetdiscover.txt");
    for lft in ["opensm-lfts.dump", "opensm.fdbs"] {
        for extra in [
            &["-p", "bruck", "-n", "50", "--metric", "hist_max_cong"][..],
            &["-p", "bisect", "-n", "200", "--metric", "hist_acc_band"][..],
            &["-p", "rand", "-n", "100", "--metric", "sum_max_cong"][..],
            &[
                "-p",
                "tree",
                "-d",
                "--subset",
                "guid_order_asc",
                "--metric",
                "dep_max_delay",
            ][..],
        ] {
            let mut a = vec!["-i", s(&orcs_dot), "--seed", "17"];
            a.extend_from_slice(extra);
            let lft_path = dir.join(lft);
            let mut b = vec!["-i", s(&topo), "--lft", s(&lft_path)];
            b.extend_from_slice(&a[2..]);
            let (ra, rb) = (orcs(&a).ok(), orcs(&b).ok());
            assert_eq!(
                ra.metric_block(),
                rb.metric_block(),
                "{lft} {extra:?}\n{}\n{}",
                ra.describe(),
                rb.describe()
            );
        }
    }
    // ft8-3 (gzip dumps), a bigger tree.
    let Some(dir8) = shared_str("fabrics/orcs/ft8-3") else {
        return;
    };
    let dir8 = Path::new(&dir8);
    let a = orcs(&[
        "-i",
        s(&dir8.join("ft8-3.ftree.orcs.dot")),
        "-p",
        "bruck",
        "-n",
        "20",
        "--seed",
        "5",
    ])
    .ok();
    let b = orcs(&[
        "-i",
        s(&dir8.join("ibnetdiscover.txt.gz")),
        "--lft",
        s(&dir8.join("opensm-lfts.dump.gz")),
        "-p",
        "bruck",
        "-n",
        "20",
        "--seed",
        "5",
    ])
    .ok();
    assert_eq!(a.metric_block(), b.metric_block());
    let routequal = orcs(&[
        "check",
        "--routequal",
        "-i",
        s(&dir8.join("ibnetdiscover.txt.gz")),
        "--lft",
        s(&dir8.join("opensm.fdbs.gz")),
    ])
    .ok();
    assert!(
        routequal
            .stdout
            .contains("gmin: 504, gmax: 504\nE: 504.00, sigma: 0.00\n"),
        "{}",
        routequal.describe()
    );
}

#[test]
fn get_network_graph_wrapper_matches_convert() {
    let Some(dir) = shared_str("fabrics/orcs/ft4-2") else {
        return;
    };
    let dir = Path::new(&dir);
    let fdbs = dir.join("opensm.fdbs");
    let topo = dir.join("ibnetdiscover.txt");
    let script = std::process::Command::new(repo("tools/get_network_graph"))
        .args([s(&fdbs), s(&topo)])
        .env("ORCS", env!("CARGO_BIN_EXE_orcs"))
        .output()
        .unwrap();
    assert!(
        script.status.success(),
        "{}",
        String::from_utf8_lossy(&script.stderr)
    );
    let direct = orcs(&[
        "convert",
        "--topology",
        s(&topo),
        "--lft",
        s(&fdbs),
        "-o",
        "-",
    ])
    .ok();
    assert_eq!(String::from_utf8(script.stdout).unwrap(), direct.stdout);
    // Hosts are H + 16 hex digits, switches S + 16 hex digits, keys are ports.
    assert!(
        direct.stdout.contains("\tH0000000000100000 -> S"),
        "{}",
        direct.describe()
    );
    assert!(direct.stdout.contains("[key=1, comment=\"*\"]"));
}

#[test]
fn cache_round_trip_gives_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    for (name, input) in [("ft4", FT4), ("ft8", FT8)] {
        let cache = dir.path().join(format!("{name}.orcsfab"));
        orcs(&["convert", "-i", input, "-o", s(&cache)]).ok();
        let a = orcs(&[
            "-i",
            input,
            "-p",
            "bruck",
            "-n",
            "30",
            "--seed",
            "3",
            "--metric",
            "get_cable_cong",
        ])
        .ok();
        let b = orcs(&[
            "-i",
            s(&cache),
            "-p",
            "bruck",
            "-n",
            "30",
            "--seed",
            "3",
            "--metric",
            "get_cable_cong",
        ])
        .ok();
        assert_eq!(a.stdout, b.stdout, "{name}");
        // Writing the cache back as dot reproduces the dot conversion of the input.
        let d1 = orcs(&["convert", "-i", input, "-o", "-"]).ok();
        let d2 = orcs(&["convert", "-i", s(&cache), "-o", "-"]).ok();
        assert_eq!(d1.stdout, d2.stdout);
    }
    // A damaged cache is an error, not a wrong fabric.
    let cache = dir.path().join("ft4.orcsfab");
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes.truncate(bytes.len() - 7);
    let cut = dir.path().join("cut.orcsfab");
    std::fs::write(&cut, &bytes).unwrap();
    orcs(&["-i", s(&cut)]).fails_with(1, &["cut.orcsfab: byte ", ": truncated"]);
}

#[test]
fn dot_written_by_convert_reads_back_identically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.dot");
    orcs(&["convert", "-i", FT8, "-o", s(&out)]).ok();
    for extra in [
        &["-p", "bruck", "-n", "10"][..],
        &["-p", "bisect", "--metric", "get_cable_cong", "-n", "5"][..],
    ] {
        let mut a = vec!["-i", FT8, "--seed", "8"];
        a.extend_from_slice(extra);
        let mut b = vec!["-i", s(&out), "--seed", "8"];
        b.extend_from_slice(extra);
        let (ra, rb) = (orcs(&a).ok(), orcs(&b).ok());
        let strip = |t: &str| {
            t.lines()
                .filter(|l| !l.starts_with("Input File"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&ra.stdout), strip(&rb.stdout));
    }
}

#[test]
fn broken_dumps_give_file_and_line() {
    let Some(dir) = shared_str("fabrics/ib/generated/ft-4ary2/minhop") else {
        return;
    };
    let dir = Path::new(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let topo = dir.join("ibnetdiscover.txt");
    let lfts = std::fs::read_to_string(dir.join("opensm-lfts.dump")).unwrap();
    // Cut in the middle of a row.
    let cut_at = lfts.find("0x0005 ").unwrap() + 4;
    let cut = tmp.path().join("cut.dump");
    std::fs::write(&cut, &lfts[..cut_at]).unwrap();
    let line = lfts[..cut_at].lines().count();
    orcs(&["check", "-i", s(&topo), "--lft", s(&cut)])
        .fails_with(1, &[&format!("cut.dump:{line}:")]);
    // A switch's table missing entirely.
    let second = lfts.match_indices("Unicast lids").nth(1).unwrap().0;
    let third = lfts.match_indices("Unicast lids").nth(2).unwrap().0;
    let missing = tmp.path().join("missing.dump");
    std::fs::write(&missing, format!("{}{}", &lfts[..second], &lfts[third..])).unwrap();
    orcs(&["check", "-i", s(&topo), "--lft", s(&missing)])
        .fails_with(1, &["missing.dump: no forwarding table for switch"]);
    // Tables of another fabric.
    if let Some(other) = shared_str("fabrics/ib/generated/ft-2ary3/minhop/opensm-lfts.dump") {
        orcs(&["check", "-i", s(&topo), "--lft", &other])
            .fails_with(1, &["names no switch of the topology"]);
    }
    // --lft with a dot input, and a name map without --lft.
    orcs(&["-i", FT4, "--lft", s(&dir.join("opensm.fdbs"))]).fails_with(1, &[]);
    orcs(&["-i", FT4, "--node-name-map", "x"]).fails_with(1, &["--lft"]);
}

#[test]
fn lmc_paths_and_node_name_maps() {
    let Some(run) = shared_str("fabrics/ib/generated/ft-4ary2/minhop-lmc2") else {
        return;
    };
    let run = Path::new(&run);
    let topo = run.join("ibnetdiscover.txt");
    let lft = run.join("opensm.fdbs");
    // Base LIDs: an ordinary fabric.
    orcs(&["check", "-i", s(&topo), "--lft", s(&lft)]).ok();
    // All four paths per host: several next hops, simulated only in compat mode.
    let all = orcs(&[
        "convert",
        "-i",
        s(&topo),
        "--lft",
        s(&lft),
        "--lmc-paths",
        "-o",
        "-",
    ]);
    assert!(
        all.stderr.contains("use several ports"),
        "{}",
        all.describe()
    );
    orcs(&["-i", s(&topo), "--lft", s(&lft), "--lmc-paths", "-n", "2"])
        .fails_with(1, &["use several ports", "--orcs-compat"]);
    orcs(&[
        "-i",
        s(&topo),
        "--lft",
        s(&lft),
        "--lmc-paths",
        "--orcs-compat",
        "-n",
        "2",
        "--seed",
        "1",
    ])
    .ok();
    // Readable names from a node name map.
    let Some(nnm) = shared_str("fabrics/ib/generated/misc/nnm-and-list-options/node-name-map")
    else {
        return;
    };
    let Some(ft) = shared_str("fabrics/ib/generated/ft-4ary2/ftree") else {
        return;
    };
    let ft = Path::new(&ft);
    let named = orcs(&[
        "convert",
        "-i",
        s(&ft.join("ibnetdiscover.txt")),
        "--lft",
        s(&ft.join("opensm.fdbs")),
        "--node-name-map",
        &nnm,
        "-o",
        "-",
    ])
    .ok();
    assert!(
        named.stdout.contains("\"Hcompute-001 HCA-1\""),
        "{}",
        named.describe()
    );
    assert!(named.stdout.contains("\"leaf-A\""), "{}", named.describe());
}

#[test]
fn graphml_follows_the_pfsim_schema() {
    let run = orcs(&["convert", "-i", FT4, "-o", "-", "--to", "graphml"]).ok();
    let doc = roxmltree::Document::parse(&run.stdout).expect("well-formed XML");
    let key_of = |name: &str, target: &str| {
        doc.descendants()
            .find(|n| {
                n.has_tag_name("key")
                    && n.attribute("attr.name") == Some(name)
                    && n.attribute("for") == Some(target)
            })
            .and_then(|n| n.attribute("id"))
            .unwrap_or_else(|| panic!("no key {name} for {target}"))
            .to_string()
    };
    let (typ, port) = (key_of("typ", "node"), key_of("port", "edge"));
    let graph = doc.descendants().find(|n| n.has_tag_name("graph")).unwrap();
    assert_eq!(graph.attribute("edgedefault"), Some("directed"));
    let data = |n: roxmltree::Node, key: &str| {
        n.children()
            .find(|c| c.has_tag_name("data") && c.attribute("key") == Some(key))
            .and_then(|c| c.text())
            .map(str::to_string)
    };
    let nodes: Vec<_> = graph
        .children()
        .filter(|n| n.has_tag_name("node"))
        .collect();
    assert_eq!(nodes.len(), 24);
    let hosts = nodes
        .iter()
        .filter(|n| data(**n, &typ).as_deref() == Some("host"))
        .count();
    assert_eq!(hosts, 16);
    let edges: Vec<_> = graph
        .children()
        .filter(|n| n.has_tag_name("edge"))
        .collect();
    assert_eq!(edges.len(), 64);
    // lftsdump2dot keys are ports: H00000's uplink is port 1 of the host.
    let uplink = edges
        .iter()
        .find(|e| e.attribute("source") == Some("H00000"))
        .unwrap();
    assert_eq!(uplink.attribute("target"), Some("S0_0"));
    assert_eq!(data(*uplink, &port).as_deref(), Some("1"));
}

#[test]
fn ibsim_net_with_guid2lid_equals_ibnetdiscover() {
    // The ibsim net file the simulation started from, with OpenSM's guid2lid for the LIDs,
    // converts to the same fabric as the ibnetdiscover output of the same run.
    let mut compared = 0;
    for run in generated_runs() {
        let net = run.parent().unwrap().join("net");
        let guid2lid = run.join("guid2lid");
        if !net.exists() || !guid2lid.exists() {
            continue;
        }
        let lft = run.join("opensm.fdbs");
        let from_net = orcs(&[
            "convert",
            "-i",
            s(&net),
            "--lft",
            s(&lft),
            "--guid2lid",
            s(&guid2lid),
            "-o",
            "-",
        ])
        .ok();
        let from_disc = orcs(&[
            "convert",
            "-i",
            s(&run.join("ibnetdiscover.txt")),
            "--lft",
            s(&lft),
            "-o",
            "-",
        ])
        .ok();
        assert_eq!(from_net.stdout, from_disc.stdout, "{}", run.display());
        compared += 1;
    }
    if compared > 0 {
        assert!(compared >= 20, "only {compared} runs compared");
        let run = &generated_runs()[0];
        let net = run.parent().unwrap().join("net");
        orcs(&["check", "-i", s(&net), "--lft", s(&run.join("opensm.fdbs"))])
            .fails_with(1, &["has no LIDs", "--guid2lid"]);
    }
}

/// The dot that `orcs convert` writes to standard output without its `comment=` line
/// (which names the command that made it).
fn dot_body(run: &Run) -> String {
    run.stdout
        .lines()
        .filter(|l| !l.trim_start().starts_with("comment="))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn convert_routes_a_dump_with_an_engine_exactly_as_opensm_did() {
    // The fixture's dumps were taken with OpenSM routing it with minhop: routing its
    // cables with orcs's minhop gives OpenSM's forwarding tables, from ibnetdiscover or
    // from the ibsim net file, which has no LIDs.
    let from_tables = orcs(&[
        "convert",
        "-i",
        "tests/fixtures/ib/ibnetdiscover.txt",
        "--lft",
        "tests/fixtures/ib/opensm-lfts.dump",
        "-o",
        "-",
    ])
    .ok();
    for cabling in [
        "tests/fixtures/ib/ibnetdiscover.txt",
        "tests/fixtures/ib/net",
    ] {
        let routed = orcs(&["convert", "-i", cabling, "--routing", "minhop", "-o", "-"]).ok();
        assert!(
            routed.stdout.contains(&format!(
                "comment=\"orcs convert -i {cabling} --routing minhop\""
            )),
            "{}",
            routed.describe()
        );
        assert_eq!(dot_body(&routed), dot_body(&from_tables), "{cabling}");
    }
    // A node name map names the nodes once routed; the routes stay OpenSM's.
    let named = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            "-i",
            "tests/fixtures/ib/ibnetdiscover.txt",
            "--node-name-map",
            "tests/fixtures/ib/node-name-map",
            "-o",
            "-",
        ];
        args.extend_from_slice(extra);
        dot_body(&orcs(&args).ok())
    };
    let with_map = named(&["--routing", "minhop"]);
    assert!(with_map.contains("\"Hcompute-001 HCA-1\""), "{with_map}");
    assert_eq!(
        with_map,
        named(&["--lft", "tests/fixtures/ib/opensm-lfts.dump"])
    );
    // Every engine of OpenSM that orcs has, on every generated run of it: the same
    // tables as OpenSM's own dump (updn with the run's root switches, or detecting them).
    let mut compared = 0;
    for run in generated_runs() {
        let engine = run.file_name().unwrap().to_str().unwrap().to_string();
        if !["minhop", "updn", "dnup", "sssp", "dfsssp"].contains(&engine.as_str()) {
            continue;
        }
        let topo = run.join("ibnetdiscover.txt");
        let mut args = vec![
            "convert".to_string(),
            "-i".to_string(),
            s(&topo).to_string(),
            "--routing".to_string(),
            engine.clone(),
            "-o".to_string(),
            "-".to_string(),
        ];
        // The run's roots when OpenSM was given them (-a), else detected by both.
        let given_roots = std::fs::read_to_string(run.join("cmd.txt"))
            .unwrap()
            .contains(" -a ");
        if engine == "updn" && given_roots {
            let roots = std::fs::read_to_string(run.parent().unwrap().join("root_guids.txt"))
                .unwrap()
                .lines()
                .filter_map(|l| l.trim().strip_prefix("0x"))
                .map(|g| format!("S{g:0>16}"))
                .collect::<Vec<_>>()
                .join(",");
            args.extend(["--roots".to_string(), roots]);
        }
        let mut routed = orcs_in(&args, None);
        if routed.status == Some(1) && routed.stderr.contains("fall back to minhop") {
            // Where updn finds no roots (the torus), orcs says so; OpenSM used minhop.
            args[4] = "minhop".to_string();
            routed = orcs_in(&args, None);
        }
        let routed = routed.ok();
        let lft = run.join("opensm-lfts.dump");
        let read = orcs(&["convert", "-i", s(&topo), "--lft", s(&lft), "-o", "-"]).ok();
        assert_eq!(dot_body(&routed), dot_body(&read), "{}", run.display());
        compared += 1;
    }
    if shared("fabrics/ib/generated").is_some() {
        assert!(compared >= 8, "only {compared} runs compared");
    }
}

#[test]
fn convert_reroutes_a_dot_fabric_and_refuses_what_does_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // A generated fat tree routed by D-mod-K, re-routed by minhop, is the tree generated
    // with minhop.
    let spec = "kary-ntree:k=2,n=3";
    orcs(&["gen", spec, "-o", &p("dmodk.dot")]).ok();
    orcs(&["gen", spec, "--routing", "minhop", "-o", &p("minhop.dot")]).ok();
    let rerouted = orcs(&[
        "convert",
        "-i",
        &p("dmodk.dot"),
        "--routing",
        "minhop",
        "-o",
        "-",
    ])
    .ok();
    let generated = std::fs::read_to_string(p("minhop.dot")).unwrap();
    let body = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.trim_start().starts_with("comment="))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    assert_eq!(body(&rerouted.stdout), body(&generated));
    assert_ne!(
        body(&rerouted.stdout),
        body(&std::fs::read_to_string(p("dmodk.dot")).unwrap()),
        "minhop and D-mod-K route this tree alike: the test shows nothing"
    );
    // The random engine follows --seed.
    let random = |seed: &str| {
        orcs(&[
            "convert",
            "-i",
            &p("dmodk.dot"),
            "--routing",
            "random",
            "--seed",
            seed,
            "-o",
            "-",
        ])
        .ok()
        .stdout
    };
    assert_eq!(random("3"), random("3"));
    // What does not apply is refused, naming what was expected.
    let dump = "tests/fixtures/ib/ibnetdiscover.txt";
    let out = p("x.dot");
    orcs(&[
        "convert",
        "-i",
        dump,
        "--lft",
        "tests/fixtures/ib/opensm-lfts.dump",
        "--routing",
        "minhop",
        "-o",
        &out,
    ])
    .fails_with(1, &["--lft", "give one or the other"]);
    orcs(&["convert", "-i", dump, "--routing", "dmodk", "-o", &out]).fails_with(
        1,
        &["dmodk needs the structure of a generated fabric", "minhop"],
    );
    orcs(&["convert", "-i", dump, "--routing", "lash", "-o", &out])
        .fails_with(1, &["unknown --routing 'lash'", "minhop, updn, dnup, sssp"]);
    orcs(&[
        "convert",
        "-i",
        dump,
        "--roots",
        "S0000000000200020",
        "-o",
        &out,
    ])
    .fails_with(1, &["--roots applies to --routing updn"]);
    orcs(&[
        "convert",
        "-i",
        dump,
        "--routing",
        "minhop",
        "--roots",
        "S1",
        "-o",
        &out,
    ])
    .fails_with(1, &["--roots applies to --routing updn"]);
    orcs(&[
        "convert",
        "-i",
        dump,
        "--routing",
        "updn",
        "--roots",
        "nosuch",
        "-o",
        &out,
    ])
    .fails_with(1, &["--roots: no node named 'nosuch'"]);
    orcs(&[
        "convert",
        "-i",
        &p("dmodk.dot"),
        "--node-name-map",
        "tests/fixtures/ib/node-name-map",
        "--routing",
        "minhop",
        "-o",
        &out,
    ])
    .fails_with(1, &["--node-name-map names the nodes of InfiniBand dumps"]);
    assert!(
        !Path::new(&out).exists(),
        "a refused conversion wrote {out}"
    );
}
