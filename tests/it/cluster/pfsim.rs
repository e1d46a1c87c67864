//! Application traffic against PFSim: single jobs on the milk and pepsi clusters with
//! the profiled CG, MILC and FT matrices must give PFSim's maxima and per-link tables
//! exactly, and the paper's greedy-max / D-mod-K ratios to 9 digits; small matrices on a
//! hand-drawn two-level tree give hand-computed loads.

use crate::support::*;
use std::path::Path;

use orcs::cluster::graphml::{parse_cluster_graphml, read_cluster_graphml};
use orcs::cluster::loads::{network_load_stats, LinkLoads};
use orcs::cluster::paths::{route_job, PathRouter};
use orcs::cluster::placement::{host_pairs, map_ranks, HostPairs, Mapper};
use orcs::cluster::selection::{select_hosts, Selector};
use orcs::cluster::Cluster;
use orcs::workload::matrix::{read_traffic, TrafficMatrix};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// One job on an empty cluster: Linear selection, then `mapper` and `router`.
fn single_job(
    cluster: &Cluster,
    matrix: &TrafficMatrix,
    mapper: Mapper,
    router: PathRouter,
) -> LinkLoads {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    let free = vec![false; cluster.hosts.len()];
    let hosts = select_hosts(
        cluster,
        &free,
        matrix.ranks as u64,
        Selector::Linear,
        &mut rng,
    )
    .expect("the job fits");
    let placement = map_ranks(cluster, &hosts, matrix.ranks, mapper, matrix);
    let pairs = host_pairs(matrix, &placement);
    let mut loads = LinkLoads::default();
    route_job(cluster, &pairs, router, &mut loads, &mut rng).expect("routable");
    loads
}

/// A two-level tree: hosts a0, a1 on leaf L1, b0, b1 on leaf L2, spines S1 and S2, every
/// capacity 1, edges listed leaf by leaf.
const TREE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="typ" attr.type="string" for="node" id="t"/>
  <key attr.name="capacity" attr.type="long" for="node" id="c"/>
  <key attr.name="capacity" attr.type="long" for="edge" id="e"/>
  <graph edgedefault="directed">
    <node id="a0"><data key="t">host</data><data key="c">2</data></node>
    <node id="a1"><data key="t">host</data><data key="c">2</data></node>
    <node id="b0"><data key="t">host</data><data key="c">2</data></node>
    <node id="b1"><data key="t">host</data><data key="c">2</data></node>
    <node id="L1"><data key="t">switch</data></node>
    <node id="L2"><data key="t">switch</data></node>
    <node id="S1"><data key="t">switch</data></node>
    <node id="S2"><data key="t">switch</data></node>
    <edge source="a0" target="L1"/><edge source="L1" target="a0"/>
    <edge source="a1" target="L1"/><edge source="L1" target="a1"/>
    <edge source="b0" target="L2"/><edge source="L2" target="b0"/>
    <edge source="b1" target="L2"/><edge source="L2" target="b1"/>
    <edge source="L1" target="S1"><data key="e">1</data></edge>
    <edge source="S1" target="L1"><data key="e">1</data></edge>
    <edge source="L1" target="S2"><data key="e">1</data></edge>
    <edge source="S2" target="L1"><data key="e">1</data></edge>
    <edge source="L2" target="S1"><data key="e">1</data></edge>
    <edge source="S1" target="L2"><data key="e">1</data></edge>
    <edge source="L2" target="S2"><data key="e">1</data></edge>
    <edge source="S2" target="L2"><data key="e">1</data></edge>
  </graph>
</graphml>"#;

/// The index of the link named `from`→`to`.
fn edge_index(cluster: &Cluster, from: &str, to: &str) -> usize {
    cluster
        .edges
        .iter()
        .position(|&(u, v, _)| cluster.names[u as usize] == from && cluster.names[v as usize] == to)
        .expect("link exists")
}

/// Bytes on the link named `from`→`to`.
fn on(cluster: &Cluster, loads: &LinkLoads, from: &str, to: &str) -> u64 {
    loads.bytes[edge_index(cluster, from, to)]
}

#[test]
fn hand_computed_matrices_on_a_two_level_tree() {
    let cluster = parse_cluster_graphml(TREE, "tree.graphml").unwrap();
    // 8 ranks, block placement: ranks 0,1 on a0, 2,3 on a1, 4,5 on b0, 6,7 on b1.
    // Rank 0 sends 100 to rank 4 (a0→b0), rank 2 sends 60 to rank 6 (a1→b1), rank 1
    // sends 10 to rank 3 (a0→a1, stays on L1), rank 5 sends 7 to rank 1 (b0→a0).
    let matrix = TrafficMatrix {
        ranks: 8,
        entries: vec![(0, 4, 100), (2, 6, 60), (1, 3, 10), (5, 1, 7)],
    };
    // PFSim D-mod-K: the spine is S1 for even destination host index, S2 for odd:
    // a0→b0 (d = 2) and b0→a0 (d = 0) via S1, a1→b1 (d = 3) via S2.
    let loads = single_job(&cluster, &matrix, Mapper::Block, PathRouter::PfsimDmodk);
    assert_eq!(on(&cluster, &loads, "L1", "S1"), 100);
    assert_eq!(on(&cluster, &loads, "S1", "L2"), 100);
    assert_eq!(on(&cluster, &loads, "L1", "S2"), 60);
    assert_eq!(on(&cluster, &loads, "S2", "L2"), 60);
    assert_eq!(on(&cluster, &loads, "L2", "S1"), 7);
    assert_eq!(on(&cluster, &loads, "S1", "L1"), 7);
    // Host links are never loaded.
    assert_eq!(on(&cluster, &loads, "a0", "L1"), 0);
    let stats = network_load_stats(&cluster, &loads);
    assert_eq!((stats.links, stats.max, stats.max_flows), (8, 100.0, 1));

    // Two pairs towards b0 (d = 2): D-mod-K sends both over S1. Greedy-max routes the
    // heavier first over the first minimal path (S1, found first by the search) and the
    // lighter over the empty S2.
    let matrix = TrafficMatrix {
        ranks: 8,
        entries: vec![(0, 4, 100), (2, 5, 60)],
    };
    let dmodk = single_job(&cluster, &matrix, Mapper::Block, PathRouter::PfsimDmodk);
    assert_eq!(on(&cluster, &dmodk, "S1", "L2"), 160);
    let greedy = single_job(&cluster, &matrix, Mapper::Block, PathRouter::GreedyMax);
    assert_eq!(on(&cluster, &greedy, "S1", "L2"), 100);
    assert_eq!(on(&cluster, &greedy, "S2", "L2"), 60);
    assert_eq!(network_load_stats(&cluster, &greedy).max, 100.0);

    // Cyclic placement: rank i on host i mod 4, so rank 0 → a0, rank 4 → a0: no traffic
    // leaves the host.
    let matrix = TrafficMatrix {
        ranks: 8,
        entries: vec![(0, 4, 100)],
    };
    let cyclic = single_job(&cluster, &matrix, Mapper::Cyclic, PathRouter::GreedyMax);
    assert!(cyclic.bytes.iter().all(|&b| b == 0));
}

/// A path inside the shared PFSim data (`../shared/traces/pfsim`), with a visible note
/// when it is missing.
#[track_caller]
fn pfsim_data(path: &str) -> Option<String> {
    shared_str(&format!("traces/pfsim/{path}"))
}

/// Rows of single-job-summary.csv: (topology, trace, mapper, router) → (max, max_flows).
fn summary(data: &Path) -> Vec<(String, String, String, String, f64, u64)> {
    std::fs::read_to_string(data.join("reference-results/single-job-summary.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[3].to_string(),
                f[4].to_string(),
                f[7].parse().unwrap(),
                f[11].parse().unwrap(),
            )
        })
        .collect()
}

fn mapper_of(name: &str) -> Mapper {
    match name {
        "Linear" => Mapper::Block,
        _ => Mapper::Cyclic,
    }
}

fn router_of(name: &str) -> PathRouter {
    match name {
        "DmodKRouter" => PathRouter::PfsimDmodk,
        "GreedyRouter" => PathRouter::Greedy,
        _ => PathRouter::GreedyMax,
    }
}

#[test]
fn single_jobs_match_pfsim_exactly() {
    let Some(data) = shared("traces/pfsim") else {
        return;
    };
    let rows = summary(&data);
    let mut checked = 0;
    for (topology, trace, mapper, router, max, max_flows) in &rows {
        let trace_path = data.join(format!("traces/{trace}.tar.gz"));
        if !trace_path.exists() {
            continue; // some copies of the shared data lack the OpenFOAM traces
        }
        let cluster = read_cluster_graphml(
            data.join(format!("topologies/{topology}.graphml"))
                .to_str()
                .unwrap(),
        )
        .unwrap();
        let matrix = read_traffic(trace_path.to_str().unwrap()).unwrap();
        let loads = single_job(&cluster, &matrix, mapper_of(mapper), router_of(router));
        let stats = network_load_stats(&cluster, &loads);
        let case = format!("{topology} {trace} {mapper} {router}");
        assert_eq!(stats.max, *max, "{case}: maximum traffic / capacity");
        assert_eq!(stats.max_flows, *max_flows, "{case}: maximum flows");
        // The per-link table, link by link (bytes and flows).
        let links = data.join(format!(
            "reference-results/single-job-links/{topology}.{trace}.Linear.{mapper}.{router}.csv"
        ));
        let text =
            std::fs::read_to_string(&links).unwrap_or_else(|e| panic!("{}: {e}", links.display()));
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let e = edge_index(&cluster, f[0], f[1]);
            assert_eq!(
                loads.bytes[e] as f64,
                f[2].parse::<f64>().unwrap(),
                "{case}: {line}"
            );
            assert_eq!(
                loads.flows[e],
                f[3].parse::<u64>().unwrap(),
                "{case}: {line}"
            );
        }
        checked += 1;
    }
    if !rows.is_empty() {
        assert!(checked >= 30, "only {checked} reference cases found");
    }
}

#[test]
fn greedy_max_halves_cg_as_in_the_paper() {
    let (Some(milk), Some(cg), Some(milc)) = (
        pfsim_data("topologies/milk.graphml"),
        pfsim_data("traces/cg-c-128.tar.gz"),
        pfsim_data("traces/milc-128.tar.gz"),
    ) else {
        return;
    };
    let cluster = read_cluster_graphml(&milk).unwrap();
    for (trace, expected) in [(cg, 0.500022154), (milc, 0.824892101)] {
        let matrix = read_traffic(&trace).unwrap();
        let max = |router| {
            network_load_stats(
                &cluster,
                &single_job(&cluster, &matrix, Mapper::Block, router),
            )
            .max
        };
        let ratio = max(PathRouter::GreedyMax) / max(PathRouter::PfsimDmodk);
        assert_eq!(format!("{ratio:.9}"), format!("{expected:.9}"), "{trace}");
    }
}

#[test]
fn traffic_command_compares_routings() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join("tree.graphml");
    std::fs::write(&cluster, TREE).unwrap();
    let matrix = dir.path().join("m.csv");
    std::fs::write(&matrix, "src,dst,bytes\n0,4,100\n2,5,60\n").unwrap();
    let links = dir.path().join("links.csv");
    // The matrix on the tree with `routers`, and more flags.
    let traffic = |routers: &str, more: &[&str]| {
        let mut args = vec![
            "traffic",
            "--cluster",
            cluster.to_str().unwrap(),
            "--matrix",
            matrix.to_str().unwrap(),
            "--router",
            routers,
        ];
        args.extend(more);
        orcs(&args)
    };
    let both = "pfsim-dmodk,greedy-max";
    let run = traffic(both, &["--links", links.to_str().unwrap()]).ok();
    // D-mod-K stacks both pairs on S1→L2 (160); greedy-max splits them (100).
    assert!(
        run.stdout.contains("pfsim-dmodk") && run.stdout.contains("160.0"),
        "{}",
        run.describe()
    );
    assert!(run.stdout.contains("0.625000000"), "{}", run.describe());
    let table = std::fs::read_to_string(&links).unwrap();
    assert!(
        table.contains("linear,block,pfsim-dmodk,S1,L2,160,2,1"),
        "{table}"
    );
    assert!(
        table.contains("linear,block,greedy-max,S2,L2,60,1,1"),
        "{table}"
    );
    // The same table as CSV (to a file) and JSON: max 160 with 2 flows on a link, then
    // 100 with 1, relative 100/160.
    let csv_out = dir.path().join("traffic.csv");
    let run = traffic(both, &["--format", "csv", "-o", csv_out.to_str().unwrap()]).ok();
    assert!(run.stdout.is_empty(), "{}", run.describe());
    let csv = std::fs::read_to_string(&csv_out).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0][..6],
        [
            "selector",
            "mapper",
            "router",
            "links",
            "max_bytes_per_capacity",
            "relative"
        ]
    );
    assert_eq!(rows[1][..3], ["linear", "block", "pfsim-dmodk"], "{csv}");
    assert_eq!(
        (rows[1][4], rows[1][5], rows[1][9]),
        ("160", "1", "2"),
        "{csv}"
    );
    assert_eq!(
        (rows[2][4], rows[2][5], rows[2][9]),
        ("100", "0.625", "1"),
        "{csv}"
    );
    assert_eq!(rows.len(), 3, "{csv}");
    let json = traffic(both, &["--format", "json"]).ok();
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(doc["matrix"]["bytes"], 160, "{}", json.describe());
    assert_eq!(doc["matrix"]["pairs"], 2);
    let combinations = doc["combinations"].as_array().unwrap();
    assert_eq!(combinations.len(), 2);
    assert_eq!(combinations[1]["router"], "greedy-max");
    assert_eq!(combinations[1]["max_bytes_per_capacity"], 100.0);
    assert_eq!(combinations[1]["relative"], 0.625);
    assert_eq!(combinations[0]["max_flows"], 2);
    // Each CSV row's figures are the JSON's.
    for (row, c) in rows[1..].iter().zip(combinations) {
        assert_eq!(row[3], c["links"].to_string(), "{csv}");
        for (i, key) in [
            (6, "min_bytes_per_capacity"),
            (7, "mean_bytes_per_capacity"),
            (8, "variance"),
        ] {
            let value: f64 = row[i].parse().unwrap();
            assert_eq!(value, c[key].as_f64().unwrap(), "{key}: {csv}");
        }
        let hosts: Vec<&str> = c["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        assert_eq!(row[10], hosts.join(" "), "{csv}");
    }
    traffic("bogus", &[]).fails_with(1, &["--router", "bogus"]);
    if let (Some(milk), Some(cg)) = (
        pfsim_data("topologies/milk.graphml"),
        pfsim_data("traces/cg-c-128.tar.gz"),
    ) {
        let run = orcs(&[
            "traffic",
            "--cluster",
            &milk,
            "--matrix",
            &cg,
            "--router",
            "pfsim-dmodk,greedy-max",
        ])
        .ok();
        assert!(run.stdout.contains("0.500022154"), "{}", run.describe());
    }
}

#[test]
fn greedy_placement_keeps_talking_ranks_together() {
    let cluster = parse_cluster_graphml(TREE, "tree.graphml").unwrap();
    // Heavy pairs (0,7), (1,6), (2,5), (3,4) and a light (0,1). Hand computation, hosts
    // of 2 cores in order a0, a1, b0, b1: a0 starts with the busiest rank 0 (101 bytes)
    // and adds its partner 7; a1 starts with 1 (91) and adds 6; b0 gets 2 (80, lowest of
    // the tie with 5) and 5; b1 gets 3 and 4.
    let matrix = TrafficMatrix {
        ranks: 8,
        entries: vec![(0, 7, 100), (6, 1, 90), (2, 5, 80), (4, 3, 70), (0, 1, 1)],
    };
    let hosts = [0, 1, 2, 3];
    let placement = map_ranks(&cluster, &hosts, 8, Mapper::Greedy, &matrix);
    assert_eq!(placement, vec![0, 1, 2, 3, 3, 2, 1, 0]);
    // Only the light pair leaves its host, and it stays on leaf L1: no switch traffic.
    let greedy = single_job(&cluster, &matrix, Mapper::Greedy, PathRouter::PfsimDmodk);
    assert!(greedy.bytes.iter().all(|&b| b == 0));
    let block = single_job(&cluster, &matrix, Mapper::Block, PathRouter::PfsimDmodk);
    assert!(network_load_stats(&cluster, &block).max >= 100.0);
}

/// The node path of the table route from host `s` to host `d`.
fn table_path(
    fabric: &orcs::fabric::Fabric,
    table: &orcs::routing::ForwardingTable,
    s: u32,
    d: u32,
) -> Vec<u32> {
    let mut path = vec![fabric.hosts[s as usize]];
    table
        .router(fabric)
        .walk(s, d, |e| path.push(fabric.edge_head[e as usize]));
    path
}

/// The node path `router` gives one byte from host `s` to host `d` on an empty cluster.
fn path_router_path(cluster: &Cluster, router: PathRouter, s: u32, d: u32) -> Vec<u32> {
    let pairs = HostPairs {
        pairs: vec![(s, d, 1, 1)],
    };
    let mut loads = LinkLoads::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    let routes = route_job(cluster, &pairs, router, &mut loads, &mut rng).expect("routable");
    let mut path = vec![cluster.hosts[s as usize]];
    path.extend(routes.path(0).iter().map(|&e| cluster.edges[e as usize].1));
    path
}

#[test]
fn classical_dmodk_and_smodk_follow_the_fat_tree_formula() {
    // The path routers work on minimal paths only; the structured table engine computes
    // the textbook ⌊d / W_l⌋ mod w_(l+1) port by port (and was checked against OpenSM's
    // ftree). Every host pair must take the same path. S-mod-K's route from s to d is
    // D-mod-K's route from d to s reversed on these full trees.
    use orcs::gen::topology;
    use orcs::routing::structured;
    for generated in [
        topology::kary_ntree(2, 3).unwrap(),
        topology::kary_ntree(4, 3).unwrap(),
        topology::xgft(&[2, 3, 4], &[1, 2, 3]).unwrap(),
    ] {
        let fabric = &generated.fabric;
        let table = structured::dmodk(&generated).unwrap();
        let cluster = Cluster::from_fabric(fabric, "generated").unwrap();
        let n = fabric.num_hosts() as u32;
        for s in 0..n {
            for d in (0..n).filter(|&d| d != s) {
                let expected = table_path(fabric, &table, s, d);
                assert_eq!(
                    path_router_path(&cluster, PathRouter::Dmodk, s, d),
                    expected,
                    "dmodk {} {s}→{d}",
                    generated.description
                );
                let mut reversed = table_path(fabric, &table, d, s);
                reversed.reverse();
                assert_eq!(
                    path_router_path(&cluster, PathRouter::Smodk, s, d),
                    reversed,
                    "smodk {} {s}→{d}",
                    generated.description
                );
            }
        }
    }
}

#[test]
fn pfsim_dmodk_leaves_top_switches_idle_where_classical_dmodk_spreads() {
    // 2-ary 3-tree, host 0 sends one byte to each host of the other pod (4..7). Classical
    // D-mod-K takes up-ports (d mod 2, ⌊d/2⌋ mod 2): four different top switches, one
    // byte each. PFSim's variant takes d mod 2 at both levels: two top switches, two each.
    let generated = orcs::gen::topology::kary_ntree(2, 3).unwrap();
    let cluster = Cluster::from_fabric(&generated.fabric, "generated").unwrap();
    let matrix = TrafficMatrix {
        ranks: 8,
        entries: (4..8).map(|d| (0, d, 1)).collect(),
    };
    let top_load = |router| {
        let loads = single_job(&cluster, &matrix, Mapper::Block, router);
        let top: Vec<u64> = cluster
            .edges
            .iter()
            .enumerate()
            .filter(|(_, &(_, v, _))| cluster.names[v as usize].starts_with("S2_"))
            .map(|(e, _)| loads.bytes[e])
            .filter(|&b| b > 0)
            .collect();
        top
    };
    assert_eq!(top_load(PathRouter::Dmodk), vec![1, 1, 1, 1]);
    assert_eq!(top_load(PathRouter::PfsimDmodk), vec![2, 2]);
}

#[test]
fn direct_networks_load_host_to_host_links() {
    // A 4-host ring Ha→Hb→Hc→Hd→Ha (both directions), no switches, no routing comments:
    // PFSim loads nothing there.
    let dot = "digraph ring { Ha; Hb; Hc; Hd; Ha -> Hb; Hb -> Ha; Hb -> Hc; Hc -> Hb; Hc -> Hd; Hd -> Hc; Hd -> Ha; Ha -> Hd; }";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ring.dot");
    std::fs::write(&path, dot).unwrap();
    let cluster = orcs::cluster::read_cluster(path.to_str().unwrap()).unwrap();
    assert_eq!(cluster.hosts.len(), 4);
    let matrix = TrafficMatrix {
        ranks: 4,
        entries: vec![(0, 2, 50), (0, 1, 5)],
    };
    let loads = single_job(&cluster, &matrix, Mapper::Block, PathRouter::Dmodk);
    // Ha→Hc has two minimal paths (via Hb, via Hd); d = 2, first branch over {Hb, Hd}
    // in node order: C[2 mod 2] = Hb. Ha→Hb is direct.
    assert_eq!(on(&cluster, &loads, "Ha", "Hb"), 55);
    assert_eq!(on(&cluster, &loads, "Hb", "Hc"), 50);
    assert_eq!(on(&cluster, &loads, "Ha", "Hd"), 0);
    let stats = network_load_stats(&cluster, &loads);
    assert_eq!((stats.links, stats.max, stats.max_flows), (8, 55.0, 2));
}
