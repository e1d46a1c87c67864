//! Integration tests of the InfiniBand topology parsers (`orcs::ib::detect` with its
//! four formats, `orcs::ib::node_name_map`, `orcs::ib::guid2lid`) against the sample
//! dumps in `../shared/fabrics/ib/` and `../shared/fabrics/orcs/`, plus property tests:
//! arbitrary bytes, token soups, truncated and mutated real files never panic, and a file
//! cut in the middle of a record line is an error at that line.
//!
//! The expected counts were taken independently of the parsers: `grep -c '^Switch'`,
//! `grep -c '^Ca'`, `grep -c '^\['` (links = port lines / 2) on the ibnetdiscover files, line
//! counts of the `.lst` files (links = lines / 2), OpenSM's `guid2lid` files (port GUID →
//! LID range), the `guids.txt` files written by the generator of the ibsim net files, and
//! the numbers stated in `../shared/fabrics/ib/PROVENANCE.md` and
//! `../shared/fabrics/orcs/PROVENANCE.md`. The sample tests are skipped, with a note, when
//! `../shared` is missing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use std::io::Read;

use orcs::error::LocatedError;
use orcs::ib::detect::{detect_topology_format, parse_topology, TopologyFormat};
use orcs::ib::guid2lid::parse_guid2lid;
use orcs::ib::ibnetdiscover::parse_ibnetdiscover;
use orcs::ib::ibsim_net::parse_ibsim_net;
use orcs::ib::lst::parse_lst;
use orcs::ib::node_name_map::{parse_node_name_map, NodeNameMap};
use orcs::ib::ports_report::parse_ports_report;
use orcs::ib::{IbTopology, NodeKind};
use proptest::prelude::*;

use crate::support::shared;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A sample file's bytes, gunzipped when it ends in `.gz`.
fn read(dir: &Path, rel: &str) -> Vec<u8> {
    let path = dir.join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if rel.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out
    } else {
        bytes
    }
}

fn parse_bytes(bytes: &[u8]) -> Result<(IbTopology, TopologyFormat), LocatedError> {
    parse_topology(bytes)
}

fn load(dir: &Path, rel: &str) -> (IbTopology, TopologyFormat) {
    let bytes = read(dir, rel);
    let (t, f) = parse_bytes(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
    check_invariants(&t);
    (t, f)
}

/// (switches, CAs, routers, links, CA/router port LIDs)
fn counts(t: &IbTopology) -> (usize, usize, usize, usize, usize) {
    let kind = |k| t.nodes.iter().filter(|n| n.kind == k).count();
    (
        kind(NodeKind::Switch),
        kind(NodeKind::Ca),
        kind(NodeKind::Router),
        t.links.len(),
        t.port_lids.len(),
    )
}

fn guid(t: &IbTopology, node: u32) -> u64 {
    t.nodes[node as usize].guid
}

/// Links as GUID-level pairs, independent of node order and lines.
fn guid_links(t: &IbTopology) -> BTreeSet<((u64, u32), (u64, u32))> {
    t.links
        .iter()
        .map(|l| {
            let a = (guid(t, l.a.0), l.a.1);
            let b = (guid(t, l.b.0), l.b.1);
            (a.min(b), a.max(b))
        })
        .collect()
}

/// (node GUID, port) → (port GUID, base LID, LMC).
fn port_lids(t: &IbTopology) -> BTreeMap<(u64, u32), (Option<u64>, u32, u8)> {
    t.port_lids
        .iter()
        .map(|p| ((guid(t, p.node), p.port), (p.guid, p.base_lid, p.lmc)))
        .collect()
}

/// Nodes without their lines, sorted by GUID.
fn nodes(t: &IbTopology) -> Vec<(u64, NodeKind, String, u32, Option<u32>)> {
    let mut v: Vec<_> = t
        .nodes
        .iter()
        .map(|n| (n.guid, n.kind, n.description.clone(), n.num_ports, n.lid))
        .collect();
    v.sort();
    v
}

/// The topology with every line number zeroed (to compare files of different layouts).
fn without_lines(t: &IbTopology) -> IbTopology {
    let mut t = t.clone();
    t.nodes.iter_mut().for_each(|n| n.line = 0);
    t.port_lids.iter_mut().for_each(|p| p.line = 0);
    t.links.iter_mut().for_each(|l| l.line = 0);
    t
}

/// Structural invariants every successful parse must satisfy.
fn check_invariants(t: &IbTopology) {
    let n = t.nodes.len() as u32;
    assert!(n > 0);
    let guids: BTreeSet<u64> = t.nodes.iter().map(|x| x.guid).collect();
    assert_eq!(guids.len(), t.nodes.len(), "duplicate GUIDs");
    for w in t.links.windows(2) {
        assert!(
            (w[0].a, w[0].b) < (w[1].a, w[1].b),
            "links not sorted/unique"
        );
    }
    let mut used = BTreeSet::new();
    for l in &t.links {
        assert!(l.a < l.b && l.a.0 < n && l.b.0 < n && l.a.1 >= 1 && l.b.1 >= 1);
        assert!(used.insert(l.a) && used.insert(l.b), "port in two links");
    }
    for p in &t.port_lids {
        assert!(p.node < n);
        assert_ne!(t.nodes[p.node as usize].kind, NodeKind::Switch);
        assert!(p.lmc <= 7 && p.base_lid <= 0xffff);
    }
    for x in &t.nodes {
        // Switches have a LID unless the format has none (ibsim net files).
        assert!(
            x.lid.is_none() || x.kind == NodeKind::Switch,
            "switch LIDs only"
        );
    }
}

/// OpenSM's `guid2lid`: port GUID → (min LID, max LID).
fn guid2lid(text: &str) -> BTreeMap<u64, (u32, u32)> {
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (hex(f[0]), (hex(f[1]) as u32, hex(f[2]) as u32))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Sample files
// ---------------------------------------------------------------------------------------

#[test]
fn x5_topofile_real_cluster() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let (t, f) = load(&dir, "public/hpc-toolset-x5/X5.topofile");
    assert_eq!(f, TopologyFormat::Ibnetdiscover);
    // grep: 11 `^Switch`, 89 `^Ca`, 318 port lines (89 CA port lines) → 159 links.
    assert_eq!(counts(&t), (11, 89, 0, 159, 89));
    let v = &t.nodes[t.node_by_guid(0x0008f10500108c5c).unwrap() as usize];
    assert_eq!(v.description, "Voltaire 4036 # 4036-8C5C");
    assert_eq!(v.kind, NodeKind::Switch);
    assert_eq!(v.num_ports, 36);
    let first = &t.nodes[0];
    assert_eq!(
        (first.guid, first.lid, first.line),
        (0x0008f10500200b50, Some(9), 10)
    );
    // `[4]\t"H-003048c749cd0000"[1](3048c749cd0001) … lid 72 4xDDR` on the first switch.
    let lids = port_lids(&t);
    assert_eq!(
        lids[&(0x003048c749cd0000, 1)],
        (Some(0x3048c749cd0001), 72, 0)
    );
    assert!(guid_links(&t).contains(&((0x0008f10500200b50, 4), (0x003048c749cd0000, 1))));
}

#[test]
fn man_page_example_2007() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let (t, _) = load(
        &dir,
        "public/infiniband-diags-man/ibnetdiscover-example-2007.txt",
    );
    assert_eq!(counts(&t), (2, 4, 0, 7, 5));
    // The 2-port HCA with both ports cabled and LMC 1 has two LID ranges.
    let lids = port_lids(&t);
    assert_eq!(
        lids[&(0x0008f10403960558, 1)],
        (Some(0x8f10403960559), 10, 1)
    );
    assert_eq!(
        lids[&(0x0008f10403960558, 2)],
        (Some(0x8f1040396055a), 14, 1)
    );
    assert!(t.port_lids.iter().all(|p| p.lmc == 1));
    let sw = &t.nodes[t.node_by_guid(0x005442ba00003080).unwrap() as usize];
    assert_eq!(
        (sw.lid, sw.num_ports, sw.description.as_str()),
        (Some(6), 24, "ISR9024 Voltaire")
    );
    // Parallel cables between the two switches (ports 10↔1 and 6↔3).
    let links = guid_links(&t);
    assert!(links.contains(&((0x0008f10400410015, 1), (0x005442ba00003080, 10))));
    assert!(links.contains(&((0x0008f10400410015, 3), (0x005442ba00003080, 6))));
}

#[test]
fn router_and_two_port_hca_in_both_formats() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let (t, _) = load(&dir, "generated/misc/router-2porthca/ibnetdiscover.txt");
    assert_eq!(counts(&t), (1, 2, 1, 4, 4));
    let lids = port_lids(&t);
    assert_eq!(lids[&(0x100000, 1)], (Some(0x100001), 3, 0));
    assert_eq!(lids[&(0x100000, 2)], (Some(0x100002), 5, 0));
    assert_eq!(lids[&(0x100003, 1)], (Some(0x100004), 1, 0));
    assert_eq!(lids[&(0x300000, 1)], (Some(0x300001), 4, 0));
    let (u, f) = load(&dir, "generated/misc/router-2porthca/opensm-subnet.lst");
    assert_eq!(f, TopologyFormat::Lst);
    assert_eq!(counts(&u), (1, 2, 1, 4, 4));
    assert_eq!(guid_links(&u), guid_links(&t));
    assert_eq!(port_lids(&u), lids);
    assert_eq!(nodes(&u), nodes(&t));
}

/// The generated runs: (topology, switches, CAs, links).
const RUNS: [(&str, usize, usize, usize); 4] = [
    ("ft-4ary2", 8, 16, 32),
    ("ft-2ary3", 12, 8, 24),
    ("ft-4ary3", 48, 64, 192),
    ("torus5x5", 25, 25, 75),
];

fn run_dirs(dir: &Path, topo: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("generated").join(topo))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("ibnetdiscover.txt").is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn generated_runs_ibnetdiscover_lst_and_guid2lid_agree() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let mut checked = 0;
    for (topo, switches, cas, links) in RUNS {
        let runs = run_dirs(&dir, topo);
        assert!(!runs.is_empty(), "{topo}");
        for run in runs {
            let name = run.display().to_string();
            let rel = |f: &str| {
                run.join(f)
                    .strip_prefix(&dir)
                    .unwrap()
                    .display()
                    .to_string()
            };
            let (t, f) = load(&dir, &rel("ibnetdiscover.txt"));
            assert_eq!(f, TopologyFormat::Ibnetdiscover);
            assert_eq!(counts(&t), (switches, cas, 0, links, cas), "{name}");
            let (u, f) = load(&dir, &rel("opensm-subnet.lst"));
            assert_eq!(f, TopologyFormat::Lst);
            assert_eq!(counts(&u), (switches, cas, 0, links, cas), "{name}");
            assert_eq!(guid_links(&u), guid_links(&t), "{name}");
            assert_eq!(nodes(&u), nodes(&t), "{name}");
            // Same CA port GUIDs and base LIDs; the .lst has no LMC.
            let strip = |m: BTreeMap<(u64, u32), (Option<u64>, u32, u8)>| {
                m.into_iter()
                    .map(|(k, (g, b, _))| (k, (g, b)))
                    .collect::<BTreeMap<_, _>>()
            };
            assert_eq!(strip(port_lids(&u)), strip(port_lids(&t)), "{name}");
            assert!(u.port_lids.iter().all(|p| p.lmc == 0));
            // OpenSM's guid2lid (independent): CA port ranges and switch LIDs.
            let g2l = guid2lid(&String::from_utf8(read(&dir, &rel("guid2lid"))).unwrap());
            let want_lmc = if name.ends_with("lmc2") { 2 } else { 0 };
            for p in &t.port_lids {
                let range = g2l[&p.guid.unwrap()];
                assert_eq!(range, (p.base_lid, p.base_lid + (1 << p.lmc) - 1), "{name}");
                assert_eq!(p.lmc, want_lmc, "{name}");
            }
            for n in t.nodes.iter().filter(|n| n.kind == NodeKind::Switch) {
                let lid = n.lid.unwrap();
                assert_eq!(g2l[&n.guid], (lid, lid), "{name}");
            }
            assert_eq!(g2l.len(), switches + cas, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9 + 3 + 4 + 6);
}

#[test]
fn show_progress_lines_give_the_same_topology() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let (plain, _) = load(&dir, "generated/ft-4ary2/minhop/ibnetdiscover.txt");
    let (noisy, f) = load(&dir, "generated/ft-4ary2/minhop/ibnetdiscover-s.txt");
    assert_eq!(f, TopologyFormat::Ibnetdiscover);
    assert_eq!(without_lines(&noisy), without_lines(&plain));
    // 42 progress lines come first, so every line moves by 42.
    assert_eq!(noisy.nodes[0].line, plain.nodes[0].line + 42);
    assert_ne!(noisy, plain);
}

#[test]
fn option_variants_and_node_name_map() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let base = "generated/misc/nnm-and-list-options";
    let (m, _) = load(&dir, &format!("{base}/ibnetdiscover-m.txt"));
    assert_eq!(counts(&m), (8, 16, 0, 32, 16));
    for variant in ["f", "g"] {
        let (v, _) = load(&dir, &format!("{base}/ibnetdiscover-{variant}.txt"));
        assert_eq!(without_lines(&v), without_lines(&m), "-{variant}");
    }
    let map_bytes = read(&dir, &format!("{base}/node-name-map"));
    let map: NodeNameMap = parse_node_name_map(&map_bytes[..]).unwrap();
    assert_eq!(map.len(), 3);
    assert_eq!(map.get(0x100000), Some("compute-001 HCA-1"));
    assert_eq!(map.get(0x200004), Some("spine-A"));
    assert_eq!(map.get(0x200000), Some("leaf-A"));

    let (nnm, _) = load(&dir, &format!("{base}/ibnetdiscover-nnm.txt"));
    let mut mapped = without_lines(&m);
    assert_eq!(map.apply(&mut mapped), 3);
    // ibnetdiscover maps switch headers but prints CA headers with their NodeDescription.
    let ca = mapped.node_by_guid(0x100000).unwrap() as usize;
    assert_eq!(mapped.nodes[ca].description, "compute-001 HCA-1");
    mapped.nodes[ca].description = "node001".to_string();
    assert_eq!(without_lines(&nnm), mapped);
    let spine = nnm.node_by_guid(0x200004).unwrap() as usize;
    assert_eq!(nnm.nodes[spine].description, "spine-A");

    // `-l` node lists are not topologies: a clear error.
    let e = parse_bytes(&read(&dir, &format!("{base}/ibnetdiscover-l.txt"))).unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("ibnetdiscover -l"), "{e}");
    for list in ["ibswitches.txt", "ibhosts.txt"] {
        let e = parse_bytes(&read(&dir, &format!("{base}/{list}"))).unwrap_err();
        assert_eq!(e.line, Some(1), "{list}");
        assert!(e.message.contains("node list"), "{list}: {e}");
    }
}

#[test]
fn real_subnet_lst() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let (t, f) = load(&dir, "public/ibutils-ibdm-clusters/subnet.lst");
    assert_eq!(f, TopologyFormat::Lst);
    // PROVENANCE.md: 344 lines, 172 links, 62 switches, 3 CAs (one `CA-SM`).
    assert_eq!(counts(&t), (62, 3, 0, 172, 3));
    // All 65 routed LIDs (0x1..=0x41) are present, each once.
    let mut lids: Vec<u32> = t.nodes.iter().filter_map(|n| n.lid).collect();
    lids.extend(t.port_lids.iter().map(|p| p.base_lid));
    lids.sort_unstable();
    assert_eq!(lids, (1..=0x41).collect::<Vec<u32>>());
    let sm = &t.nodes[t.node_by_guid(0x0002c90109769a00).unwrap() as usize];
    assert_eq!(sm.kind, NodeKind::Ca);
    assert_eq!(sm.description, "MT23108 InfiniHost Mellanox Technologies");
    let sw = &t.nodes[t.node_by_guid(0x0002c90109fb0018).unwrap() as usize];
    assert_eq!((sw.lid, sw.num_ports), (Some(0xc), 8));
}

/// Every topology dump in the shared folder: the parse succeeds (or, for the node lists,
/// fails cleanly) and detection from the first 4 KiB agrees with the parser's choice.
#[test]
fn every_topology_sample() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut by_format: BTreeMap<String, usize> = BTreeMap::new();
    let mut rejected = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let is_topology = name.starts_with("ibnetdiscover")
            || name.ends_with(".lst")
            || name.ends_with(".topofile")
            || name == "net"
            || name.starts_with("net.");
        if !is_topology {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let result = parse_bytes(&bytes);
        let expect_ok = !name.ends_with("-l.txt");
        match result {
            Ok((t, f)) => {
                assert!(expect_ok, "{} should be rejected", path.display());
                check_invariants(&t);
                let head = &bytes[..bytes.len().min(4096)];
                assert_eq!(detect_topology_format(head), Some(f), "{}", path.display());
                *by_format.entry(f.to_string()).or_default() += 1;
            }
            Err(e) => {
                assert!(!expect_ok, "{}: {e}", path.display());
                assert!(e.line.is_some(), "{}: {e}", path.display());
                rejected += 1;
            }
        }
    }
    // ibnetdiscover: the 22 runs' ibnetdiscover.txt, ibnetdiscover-s.txt, router-2porthca's,
    // the -f/-g/-m/nnm variants, X5 and the man page; .lst: the 22 runs', router-2porthca's
    // and subnet.lst; ibsim nets: the 5 examples, the 4 generated topologies and
    // router-2porthca's; ports reports: the three -p files. Rejected: the -l node list.
    let want: BTreeMap<String, usize> = [
        ("ibnetdiscover output", 22 + 1 + 1 + 4 + 1 + 1),
        (".lst link list", 22 + 1 + 1),
        ("ibsim net file", 5 + 4 + 1),
        ("ibnetdiscover -p ports report", 3),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(by_format, want);
    assert_eq!(rejected, 1);
}

/// (guid, kind, description, port count) per node, sorted by GUID: what every format
/// agrees on (LIDs aside).
fn node_ids(t: &IbTopology) -> Vec<(u64, NodeKind, String, u32)> {
    let mut v: Vec<_> = t
        .nodes
        .iter()
        .map(|n| (n.guid, n.kind, n.description.clone(), n.num_ports))
        .collect();
    v.sort();
    v
}

/// (node GUID, port) → port GUID of every CA/router port entry.
fn port_guids(t: &IbTopology) -> BTreeMap<(u64, u32), Option<u64>> {
    port_lids(t).into_iter().map(|(k, v)| (k, v.0)).collect()
}

/// ibsim's own examples: counts and GUIDs as ibsim 0.10 assigns them (the spec's §3 quotes
/// `H-0000000000100003` for Hca2 and `H-0000000000100009` for Hca4 of `net.2sw2path4hca`).
#[test]
fn ibsim_net_examples() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    // (file, switches, CAs, routers, links, cabled CA ports), counted by hand.
    let cases = [
        ("net", 2, 2, 0, 4, 2),
        ("net.1", 1, 2, 0, 2, 2),
        ("net.2sw2path", 2, 2, 0, 4, 2),
        ("net.2sw2path4hca", 2, 4, 0, 6, 4),
        ("net.2sw2path4hca2port", 2, 2, 0, 6, 4),
    ];
    for (file, sw, ca, rt, links, ports) in cases {
        let (t, f) = load(&dir, &format!("public/ibsim-net-examples/{file}"));
        assert_eq!(f, TopologyFormat::IbsimNet, "{file}");
        assert_eq!(counts(&t), (sw, ca, rt, links, ports), "{file}");
        assert!(t.port_lids.iter().all(|p| p.base_lid == 0), "{file}");
        assert!(t.nodes.iter().all(|n| n.lid.is_none()), "{file}");
        // Every example declares 8-port switches and 2-port HCAs.
        for n in &t.nodes {
            let want = if n.kind == NodeKind::Switch { 8 } else { 2 };
            assert_eq!(n.num_ports, want, "{file}: {}", n.description);
        }
    }
    let (t, _) = load(&dir, "public/ibsim-net-examples/net.2sw2path4hca");
    let by_desc: BTreeMap<&str, u64> = t
        .nodes
        .iter()
        .map(|n| (n.description.as_str(), n.guid))
        .collect();
    let want: BTreeMap<&str, u64> = [
        ("Switch1", 0x200000),
        ("Switch2", 0x200001),
        ("Hca1", 0x100000),
        ("Hca2", 0x100003),
        ("Hca3", 0x100006),
        ("Hca4", 0x100009),
    ]
    .into_iter()
    .collect();
    assert_eq!(by_desc, want);
    let links = guid_links(&t);
    assert!(links.contains(&((0x100009, 1), (0x200001, 2))));
    // The parallel switch cables of the spec's example (ports 3 and 5).
    assert!(links.contains(&((0x200000, 3), (0x200001, 3))));
    assert!(links.contains(&((0x200000, 5), (0x200001, 5))));
    // Both ports of the 2-port HCAs.
    let (t, _) = load(&dir, "public/ibsim-net-examples/net.2sw2path4hca2port");
    let pg = port_guids(&t);
    assert_eq!(pg[&(0x100000, 1)], Some(0x100001));
    assert_eq!(pg[&(0x100000, 2)], Some(0x100002));
    assert_eq!(pg[&(0x100003, 2)], Some(0x100005));
}

/// The generator's `guids.txt` (name → node GUID → port GUID), as a map.
fn guids_txt(text: &str) -> BTreeMap<String, (u64, u64)> {
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "{l}");
            (f[0].to_string(), (hex(f[1]), hex(f[2])))
        })
        .collect()
}

/// The GUIDs assigned to each generated net file are those of ibsim, as listed in the
/// run's `guids.txt` (node and port GUID per name).
#[test]
fn generated_nets_get_ibsims_guids() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    for (topo, switches, cas, links) in RUNS {
        let (t, f) = load(&dir, &format!("generated/{topo}/net"));
        assert_eq!(f, TopologyFormat::IbsimNet, "{topo}");
        assert_eq!(counts(&t), (switches, cas, 0, links, cas), "{topo}");
        let want = guids_txt(
            &String::from_utf8(read(&dir, &format!("generated/{topo}/guids.txt"))).unwrap(),
        );
        assert_eq!(want.len(), switches + cas, "{topo}");
        let mut got = BTreeMap::new();
        for (i, n) in t.nodes.iter().enumerate() {
            let port_guid = if n.kind == NodeKind::Switch {
                n.guid
            } else {
                // Every generated CA has one port, cabled.
                let p: Vec<_> = t.port_lids.iter().filter(|p| p.node == i as u32).collect();
                assert_eq!(p.len(), 1, "{topo}: {}", n.description);
                assert_eq!(p[0].port, 1);
                p[0].guid.unwrap()
            };
            got.insert(n.description.clone(), (n.guid, port_guid));
        }
        assert_eq!(got, want, "{topo}");
    }
}

/// For every generated run: the net file, read with ibsim's GUIDs, is the fabric
/// `ibnetdiscover` found in the simulation (same nodes, descriptions, port GUIDs and
/// links), and the run's `guid2lid` supplies exactly the LIDs `ibnetdiscover` shows.
#[test]
fn generated_runs_net_file_equals_ibnetdiscover() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let mut checked = 0;
    let mut compare = |net_rel: &str, run: &Path| {
        let rel = |f: &str| {
            run.join(f)
                .strip_prefix(&dir)
                .unwrap()
                .display()
                .to_string()
        };
        let name = run.display().to_string();
        let (net, _) = load(&dir, net_rel);
        let (ibn, _) = load(&dir, &rel("ibnetdiscover.txt"));
        assert_eq!(guid_links(&net), guid_links(&ibn), "{name}");
        assert_eq!(node_ids(&net), node_ids(&ibn), "{name}");
        assert_eq!(port_guids(&net), port_guids(&ibn), "{name}");
        // The LIDs come from guid2lid, joined on port GUIDs and switch node GUIDs.
        let g2l: BTreeMap<u64, (u32, u32)> = parse_guid2lid(&read(&dir, &rel("guid2lid"))[..])
            .unwrap()
            .into_iter()
            .map(|(g, lo, hi)| (g, (lo, hi)))
            .collect();
        let ibn_lids = port_lids(&ibn);
        for p in &net.port_lids {
            let node = net.nodes[p.node as usize].guid;
            let (lo, hi) = g2l[&p.guid.unwrap()];
            let (_, base, lmc) = ibn_lids[&(node, p.port)];
            assert_eq!((lo, hi), (base, base + (1 << lmc) - 1), "{name}");
        }
        for n in net.nodes.iter().filter(|n| n.kind == NodeKind::Switch) {
            let i = ibn.node_by_guid(n.guid).unwrap() as usize;
            let lid = ibn.nodes[i].lid.unwrap();
            assert_eq!(g2l[&n.guid], (lid, lid), "{name}");
        }
        checked += 1;
    };
    for (topo, _, _, _) in RUNS {
        for run in run_dirs(&dir, topo) {
            compare(&format!("generated/{topo}/net"), &run);
        }
    }
    compare(
        "generated/misc/router-2porthca/net",
        &dir.join("generated/misc/router-2porthca"),
    );
    assert_eq!(checked, 9 + 3 + 4 + 6 + 1);
}

/// The ORCS-format samples: each `.net` (ibsim input of that pipeline) gives ibsim's
/// GUIDs, checked against the `ibnetdiscover` output of the same simulation where it was
/// kept; the big ones are checked by size (PROVENANCE.md: hosts, switches, directed edges
/// = 2 × links).
#[test]
fn orcs_net_files() {
    let Some(orcs) = shared("fabrics/orcs") else {
        return;
    };
    for (net, ibn) in [
        ("ft4-2/ft4-2.net", "ft4-2/ibnetdiscover.txt"),
        ("ft8-3/ft8-3.net", "ft8-3/ibnetdiscover.txt.gz"),
    ] {
        let (t, f) = parse_topology(&read(&orcs, net)[..]).unwrap();
        assert_eq!(f, TopologyFormat::IbsimNet, "{net}");
        check_invariants(&t);
        let (u, f) = parse_topology(&read(&orcs, ibn)[..]).unwrap();
        assert_eq!(f, TopologyFormat::Ibnetdiscover, "{ibn}");
        assert_eq!(guid_links(&t), guid_links(&u), "{net}");
        assert_eq!(node_ids(&t), node_ids(&u), "{net}");
        assert_eq!(port_guids(&t), port_guids(&u), "{net}");
    }
    // (file, hosts, switches, directed edges)
    for (net, hosts, switches, edges) in [
        ("ft4-2/ft4-2.net", 16, 8, 64),
        ("ft8-3/ft8-3.net", 512, 192, 3072),
        ("ft12-3/ft12-3.net.gz", 1728, 432, 10368),
        ("ft16-3/ft16-3.net.gz", 4096, 768, 24576),
    ] {
        let (t, f) = parse_topology(&read(&orcs, net)[..]).unwrap();
        assert_eq!(f, TopologyFormat::IbsimNet, "{net}");
        check_invariants(&t);
        assert_eq!(counts(&t), (switches, hosts, 0, edges / 2, hosts), "{net}");
        // Hosts `H%05d` get CA GUIDs 0x100000 + 2·h in file order (one port each).
        let h = t.node_by_guid(0x100000 + 2 * (hosts as u64 - 1)).unwrap() as usize;
        assert_eq!(
            t.nodes[h].description,
            format!("H{:05}", hosts - 1),
            "{net}"
        );
    }
}

/// What `orcs convert -i fabric.dot -o x.net` writes (`write_ibsim_net`) parses back to
/// the same cabling as the ibsim input the dot file was routed on.
#[test]
fn written_net_file_round_trip() {
    let Some(orcs) = shared("fabrics/orcs") else {
        return;
    };
    let path = orcs.join("ft4-2/ft4-2.ftree.orcs.dot");
    let loaded =
        orcs::fabric::load_routed_fabric(path.to_str().unwrap(), Default::default()).unwrap();
    let mut bytes = Vec::new();
    orcs::fabric::write::write_ibsim_net(&mut bytes, &loaded.fabric).unwrap();
    let (written, f) = parse_topology(&bytes[..]).unwrap();
    assert_eq!(f, TopologyFormat::IbsimNet);
    check_invariants(&written);
    let (original, _) = parse_topology(&read(&orcs, "ft4-2/ft4-2.net")[..]).unwrap();
    assert_eq!(counts(&written), counts(&original));
    // Node order (and so GUIDs) may differ; descriptions (the names) and ports may not.
    let named = |t: &IbTopology| -> BTreeSet<((String, u32), (String, u32))> {
        t.links
            .iter()
            .map(|l| {
                let d = |i: u32| t.nodes[i as usize].description.clone();
                let (a, b) = ((d(l.a.0), l.a.1), (d(l.b.0), l.b.1));
                if a < b {
                    (a, b)
                } else {
                    (b, a)
                }
            })
            .collect()
    };
    assert_eq!(named(&written), named(&original));
}

/// ibnetdiscover output is a valid ibsim net file: read as one (ibsim's way, with the
/// `switchguid=`/`caguid=`/`rtguid=` lines setting the GUIDs), it gives the nodes and links
/// the ibnetdiscover parser reads, LIDs aside.
#[test]
fn ibnetdiscover_output_read_as_a_net_file() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    for rel in [
        "public/hpc-toolset-x5/X5.topofile",
        "public/infiniband-diags-man/ibnetdiscover-example-2007.txt",
        "generated/misc/router-2porthca/ibnetdiscover.txt",
        "generated/misc/nnm-and-list-options/ibnetdiscover-g.txt",
        "generated/misc/nnm-and-list-options/ibnetdiscover-f.txt",
        "generated/ft-4ary3/dfsssp/ibnetdiscover.txt",
    ] {
        let bytes = read(&dir, rel);
        let ibn = parse_ibnetdiscover(&bytes[..]).unwrap();
        let net = parse_ibsim_net(&bytes[..]).unwrap_or_else(|e| panic!("{rel}: {e}"));
        check_invariants(&net);
        assert_eq!(guid_links(&net), guid_links(&ibn), "{rel}");
        assert_eq!(node_ids(&net), node_ids(&ibn), "{rel}");
        assert_eq!(port_guids(&net), port_guids(&ibn), "{rel}");
    }
}

/// The ports reports give the fabric of the default output of the same run: nodes (CA
/// node GUIDs derived from port GUIDs), links, switch LIDs and CA port base LIDs.
#[test]
fn ports_reports_equal_ibnetdiscover() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    // (report, ibnetdiscover output, switches, CAs, routers, links, cabled CA ports)
    let cases = [
        ("generated/ft-4ary2/minhop", 8, 16, 0, 32, 16),
        ("generated/ft-4ary2/minhop-lmc2", 8, 16, 0, 32, 16),
        ("generated/misc/router-2porthca", 1, 2, 1, 4, 4),
    ];
    for (run, sw, ca, rt, links, ports) in cases {
        let (p, f) = load(&dir, &format!("{run}/ibnetdiscover-p.txt"));
        assert_eq!(f, TopologyFormat::PortsReport, "{run}");
        assert_eq!(counts(&p), (sw, ca, rt, links, ports), "{run}");
        let (t, _) = load(&dir, &format!("{run}/ibnetdiscover.txt"));
        assert_eq!(guid_links(&p), guid_links(&t), "{run}");
        // Same nodes; the report has no CA port counts (0) and the LIDs of its own lines.
        let strip = |v: Vec<(u64, NodeKind, String, u32, Option<u32>)>| {
            v.into_iter()
                .map(|(g, k, d, n, l)| (g, k, d, if k == NodeKind::Switch { n } else { 0 }, l))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(&p), strip(nodes(&t)), "{run}");
        // CA port GUIDs and base LIDs agree; the report shows no LMC.
        let no_lmc = |m: BTreeMap<(u64, u32), (Option<u64>, u32, u8)>| {
            m.into_iter()
                .map(|(k, (g, b, _))| (k, (g, b)))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(no_lmc(port_lids(&p)), no_lmc(port_lids(&t)), "{run}");
        assert!(p.port_lids.iter().all(|x| x.lmc == 0));
    }
}

/// Every OpenSM `guid2lid` in the generated runs parses into the entries a plain split
/// reads (one per switch and CA port), in file order.
#[test]
fn guid2lid_files() {
    let Some(dir) = shared("fabrics/ib") else {
        return;
    };
    let mut files = 0;
    let mut runs: Vec<(PathBuf, usize)> = Vec::new();
    for (topo, switches, cas, _) in RUNS {
        runs.extend(
            run_dirs(&dir, topo)
                .into_iter()
                .map(|r| (r, switches + cas)),
        );
    }
    runs.push((dir.join("generated/misc/router-2porthca"), 1 + 3 + 1));
    for (run, entries) in runs {
        let text = std::fs::read_to_string(run.join("guid2lid")).unwrap();
        let parsed = parse_guid2lid(text.as_bytes()).unwrap();
        assert_eq!(parsed.len(), entries, "{}", run.display());
        let plain = guid2lid(&text);
        let as_map: BTreeMap<u64, (u32, u32)> =
            parsed.iter().map(|&(g, lo, hi)| (g, (lo, hi))).collect();
        assert_eq!(as_map, plain, "{}", run.display());
        // File order is kept: the first entry is the first line's.
        let first = text.split_whitespace().next().unwrap();
        assert_eq!(format!("0x{:016x}", parsed[0].0), first);
        files += 1;
    }
    assert_eq!(files, 22 + 1);
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

/// A small ibnetdiscover file (router + 2-port HCA), always available.
const IBN: &str = "#
# Topology file: generated on Sun Nov 22 10:30:09 2026
#
# Initiated from node 0000000000100003 port 0000000000100004

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0
[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 3 4xSDR
[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 5 4xSDR
[3]\t\"R-0000000000300000\"[1](300001) \t\t# \"Router1\" lid 4 4xSDR
[4]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 1 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100000
caguid=0x100000
Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"
[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 3 lmc 0 \"Switch1\" lid 2 4xSDR
[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 2 4xSDR

caguid=0x100003
Ca\t1 \"H-0000000000100003\"\t\t# \"Hca2 # x\"
[1](100004) \t\"S-0000000000200000\"[4]\t\t# lid 1 lmc 0 \"Switch1\" lid 2 4xSDR

rtguid=0x300000
Rt\t2 \"R-0000000000300000\"\t\t# \"Router1\"
[1](300001) \t\"S-0000000000200000\"[3]\t\t# lid 4 lmc 0 \"Switch1\" lid 2 4xSDR
";

/// The same fabric as a `.lst`, always available.
const LST: &str = "\
{ CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0003 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100002 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0005 PN:02 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:01 } { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:02 } { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100002 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0005 PN:02 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:03 } { Rt Ports:02 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:00000000 DevID:0000 Rev:000000A1 {Router1} LID:0004 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:04 } { CA-SM Ports:01 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:00000000 DevID:0000 Rev:000000A1 {Hca2 # x} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ Rt Ports:02 SystemGUID:0000000000300000 NodeGUID:0000000000300000 PortGUID:0000000000300001 VenID:000000 DevID:0000 Rev:000000A1 {Router1} LID:0004 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:03 } PHY=4x LOG=ACT SPD=2.5
{ CA-SM Ports:01 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:000000 DevID:0000 Rev:000000A1 {Hca2 # x} LID:0001 PN:01 } { SW Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0002 PN:04 } PHY=4x LOG=ACT SPD=2.5
";

/// A small ports report (router + 2-port HCA), always available.
const PORTS: &str = "\
RT     4  1 0x0000000000300001 4x SDR - SW     2  3 0x0000000000200000 ( 'Router1' - 'Switch1' )
CA     5  2 0x0000000000100002 4x SDR - SW     2  2 0x0000000000200000 ( 'Hca1' - 'Switch1' )
CA     3  1 0x0000000000100001 4x SDR - SW     2  1 0x0000000000200000 ( 'Hca1' - 'Switch1' )
SW     2  8 0x0000000000200000 4x SDR                                    'Switch1'
SW     2  4 0x0000000000200000 4x SDR - CA     1  1 0x0000000000100004 ( 'Switch1' - 'Hca2 # x' )
SW     2  3 0x0000000000200000 4x SDR - RT     4  1 0x0000000000300001 ( 'Switch1' - 'Router1' )
SW     2  2 0x0000000000200000 4x SDR - CA     5  2 0x0000000000100002 ( 'Switch1' - 'Hca1' )
SW     2  1 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 'Switch1' - 'Hca1' )
CA     1  1 0x0000000000100004 4x SDR - SW     2  4 0x0000000000200000 ( 'Hca2 # x' - 'Switch1' )
";

/// The same fabric as an ibsim net file, always available.
const NET: &str = "# router + 2-port HCA
Switch\t8 \"Switch1\"
[1]\t\"Hca1\"[1]
[2]\t\"Hca1\"[2]
[3]\t\"Router1\"[1]
[4]\t\"Hca2\"[1]

Hca\t2 \"Hca1\"
[1]\t\"Switch1\"[1]
[2]\t\"Switch1\"[2]

caguid=0x100003
Hca\t1 \"Hca2\" # \"Hca2 # x\"
[1]\t\"Switch1\"[4]

rtguid=0x300000
Rt\t2 \"Router1\"
[1]\t\"Switch1\"[3]
";

/// The texts of the strict formats (ibnetdiscover, `.lst`, ports report), on which a cut
/// inside a record line is always an error at that line: the built-in ones, plus real
/// samples when the shared folder is present.
fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut v = vec![
            IBN.as_bytes().to_vec(),
            LST.as_bytes().to_vec(),
            PORTS.as_bytes().to_vec(),
        ];
        if let Some(dir) = shared("fabrics/ib") {
            for rel in [
                "public/hpc-toolset-x5/X5.topofile",
                "public/infiniband-diags-man/ibnetdiscover-example-2007.txt",
                "public/ibutils-ibdm-clusters/subnet.lst",
                "generated/ft-4ary2/minhop/ibnetdiscover-s.txt",
                "generated/ft-4ary2/minhop-lmc2/opensm-subnet.lst",
                "generated/misc/nnm-and-list-options/ibnetdiscover-f.txt",
                "generated/misc/nnm-and-list-options/ibnetdiscover-g.txt",
                "generated/misc/router-2porthca/ibnetdiscover.txt",
                "generated/ft-4ary2/minhop-lmc2/ibnetdiscover-p.txt",
                "generated/misc/router-2porthca/ibnetdiscover-p.txt",
            ] {
                v.push(read(&dir, rel));
            }
        }
        v
    })
}

/// Every text the never-panic properties run on: [`corpus`], ibsim net files (lenient by
/// ibsim's design: a port line cut after the remote id means remote port 1) and `guid2lid`
/// files.
fn all_texts() -> &'static [Vec<u8>] {
    static ALL: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = corpus().to_vec();
        v.push(NET.as_bytes().to_vec());
        v.push(b"0x0000000000100004 0x0001 0x0001\n\n0x0000000000200000 0x0002 0x0002\n".to_vec());
        if let Some(dir) = shared("fabrics/ib") {
            for rel in [
                "public/ibsim-net-examples/net.2sw2path4hca2port",
                "generated/ft-2ary3/net",
                "generated/misc/router-2porthca/net",
                "generated/ft-4ary2/minhop-lmc2/guid2lid",
            ] {
                v.push(read(&dir, rel));
            }
        }
        v
    })
}

/// Record lines of a text where any inner cut must be detected:
/// (1-based line, byte offset of the line, the range of cut lengths).
fn record_lines(text: &[u8]) -> Vec<(u32, usize, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let s = String::from_utf8_lossy(line);
        let trimmed = s.trim_end();
        let header = ["Switch", "Ca", "Hca", "Rt"]
            .iter()
            .any(|kw| trimmed.starts_with(kw) && trimmed[kw.len()..].starts_with([' ', '\t']));
        let ports_report = ["SW ", "CA ", "RT "].iter().any(|w| trimmed.starts_with(w));
        if trimmed.starts_with('[') || header || ports_report {
            // Any cut strictly inside the line (the full line parses).
            out.push((i as u32 + 1, start, 1..trimmed.len()));
        } else if trimmed.starts_with('{') {
            // Cuts up to the `}` closing the second end (the link properties after it
            // are free text such as `SPD=2.5`, where a cut can leave a valid value).
            out.push((i as u32 + 1, start, 1..trimmed.rfind('}').unwrap() + 1));
        }
        start += line.len() + 1;
    }
    out
}

/// Every entry point on the same bytes: none may panic; successes must be well-formed.
/// Each parser also gets the bytes directly, whatever they are detected as.
fn parse_everything(bytes: &[u8]) {
    let _ = detect_topology_format(bytes);
    if let Ok((t, _)) = parse_topology(bytes) {
        check_invariants(&t);
    }
    type Parser = fn(&[u8]) -> Result<IbTopology, LocatedError>;
    let parsers: [Parser; 4] = [
        |b| parse_ibnetdiscover(b),
        |b| parse_lst(b),
        |b| parse_ibsim_net(b),
        |b| parse_ports_report(b),
    ];
    for parse in parsers {
        if let Ok(t) = parse(bytes) {
            check_invariants(&t);
        }
    }
    if let Ok(entries) = parse_guid2lid(bytes) {
        assert!(entries
            .iter()
            .all(|&(_, lo, hi)| 1 <= lo && lo <= hi && hi < 0xc000));
    }
    let _ = parse_node_name_map(bytes);
}

/// Fragments for the token-soup property: pieces of every construct, so random
/// sequences reach deep into the parsers.
const FRAGMENTS: [&str; 60] = [
    "\n",
    "\n",
    "\n",
    "\t",
    " ",
    "#",
    "# ",
    "\"",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "Switch\t8 ",
    "Ca\t2 ",
    "Hca\t1 ",
    "Rt\t2 ",
    "\"S-0000000000200000\"",
    "\"H-0000000000100000\"",
    "\"R-0000000000300000\"",
    "[1]",
    "[2]",
    "[ext 3]",
    "(100001) ",
    "\t\t# ",
    "\"Switch1\"",
    " base port 0 lid 2 lmc 0",
    " lid 3 lmc 0 ",
    " lid 2 4xSDR",
    " s=1 w=2 v=4",
    " (scp)",
    "vendid=0x0\n",
    "switchguid=0x200000(200000)\n",
    "caguid=0x100000\n",
    "rtguid=0x300000\n",
    "DR path slid 0; dlid 0; 0,1 -> new Switch",
    "{ SW Ports:08 ",
    "{ CA-SM Ports:01 ",
    "NodeGUID:0000000000200000 ",
    "NodeGUID:0000000000100000 ",
    "PortGUID:0000000000100001 ",
    "{Switch1} ",
    "LID:0002 ",
    "PN:01 ",
    "} ",
    "PHY=4x LOG=ACT",
    "0x0000000000200000 \"leaf\"",
    "SW     2  8 0x0000000000200000 4x SDR",
    "CA     1  1 0x0000000000100004 4x SDR",
    " - CA     1  1 0x0000000000100004 ( 'a' - 'b' )",
    " - SW     2  8 0x0000000000200000 ( 'b' - 'a' )",
    "                                    'Switch1'",
    "\"sw1\"",
    "\"node001\"",
    "switchguid+1\n",
    "module=\"m\"\n",
    "include \"x\"\n",
    "0x0000000000100004 0x0001 0x0001\n",
    "@[1] \"a\"",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Arbitrary bytes never panic any parser.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        parse_everything(&bytes);
    }

    /// Random sequences of format fragments never panic any parser.
    #[test]
    fn token_soup_never_panics(
        parts in proptest::collection::vec(proptest::sample::select(&FRAGMENTS[..]), 0..120)
    ) {
        parse_everything(parts.concat().as_bytes());
    }

    /// A one-byte edit of a record line of a consistent file never changes the cabling
    /// silently: either the parse fails, or it gives the same node GUIDs and GUID-level
    /// links (an edit to a description, a LID or a link rate cannot be cross-checked and
    /// is accepted).
    #[test]
    fn one_byte_edit_never_changes_the_cabling_silently(
        which in 0usize..3,
        line_pick in any::<proptest::sample::Index>(),
        pos_pick in any::<proptest::sample::Index>(),
        byte in proptest::sample::select(&b"0123456789abcdefx[]{}()\"#: \tSHRC-"[..]),
    ) {
        let text = [IBN, LST, PORTS][which].as_bytes();
        let original = parse_topology(text).unwrap().0;
        let lines = record_lines(text);
        let (line, start, cuts) = lines[line_pick.index(lines.len())].clone();
        let i = start + pos_pick.index(cuts.end + 1);
        let mut bytes = text.to_vec();
        prop_assume!(bytes[i] != byte);
        bytes[i] = byte;
        if let Ok((t, _)) = parse_topology(&bytes[..]) {
            check_invariants(&t);
            let guids = |t: &IbTopology| t.nodes.iter().map(|n| n.guid).collect::<Vec<_>>();
            prop_assert_eq!(guids(&t), guids(&original), "line {}", line);
            prop_assert_eq!(guid_links(&t), guid_links(&original), "line {}", line);
        }
    }

    /// Changing one character of a port number, a node id or a port GUID on a record
    /// line (to another character of the same kind) is always an error: every such field
    /// is cross-checked against the other end of the link or the node's record.
    #[test]
    fn one_byte_edit_of_a_port_or_guid_is_an_error(
        which in 0usize..3,
        field_pick in any::<proptest::sample::Index>(),
        repl_pick in any::<proptest::sample::Index>(),
    ) {
        let text = [IBN, LST, PORTS][which].as_bytes();
        let fields = structural_bytes(text);
        let (i, class) = fields[field_pick.index(fields.len())];
        let choices: Vec<u8> = class.iter().copied().filter(|&b| b != text[i]).collect();
        let mut bytes = text.to_vec();
        bytes[i] = choices[repl_pick.index(choices.len())];
        let result = parse_topology(&bytes[..]);
        prop_assert!(
            result.is_err(),
            "byte {} ({:?} → {:?}) was accepted",
            i,
            char::from(text[i]),
            char::from(bytes[i])
        );
    }
}

/// 1024 cases of a property over [`corpus`] or [`all_texts`], whose real samples come
/// from `../shared/fabrics/ib`: asks [`shared`] as the property starts, so that running on
/// the built-in texts alone is a visible note (or a failure under `ORCS_REQUIRE_SHARED=1`).
#[track_caller]
fn with_samples() -> ProptestConfig {
    let _ = shared("fabrics/ib");
    ProptestConfig::with_cases(1024)
}

proptest! {
    #![proptest_config(with_samples())]

    /// Real files cut at any byte never panic (and successes are well-formed).
    #[test]
    fn truncation_anywhere_never_panics(
        which in any::<proptest::sample::Index>(),
        at in any::<proptest::sample::Index>(),
    ) {
        let corpus = all_texts();
        let text = &corpus[which.index(corpus.len())];
        let cut = at.index(text.len() + 1);
        parse_everything(&text[..cut]);
    }

    /// A file cut in the middle of a record line (header, port line or link line) is an
    /// error at exactly that line.
    #[test]
    fn truncation_inside_a_record_line_is_an_error_at_that_line(
        which in any::<proptest::sample::Index>(),
        line_pick in any::<proptest::sample::Index>(),
        cut_pick in any::<proptest::sample::Index>(),
    ) {
        let corpus = corpus();
        let text = &corpus[which.index(corpus.len())];
        let lines = record_lines(text);
        let (line, start, cuts) = lines[line_pick.index(lines.len())].clone();
        let cut = start + cuts.start + cut_pick.index(cuts.len());
        let result = parse_topology(&text[..cut]);
        match result {
            Ok(_) => prop_assert!(false, "cut at byte {cut} (line {line}) parsed"),
            Err(e) => prop_assert_eq!(
                e.line, Some(line), "cut {:?}: {}",
                String::from_utf8_lossy(&text[start..cut]), e.message
            ),
        }
    }

    /// Real files with random byte replacements, insertions and deletions never panic.
    #[test]
    fn mutations_never_panic(
        which in any::<proptest::sample::Index>(),
        edits in proptest::collection::vec(
            (any::<proptest::sample::Index>(), 0u8..3, any::<u8>()), 1..12),
    ) {
        let corpus = all_texts();
        let mut bytes = corpus[which.index(corpus.len())].clone();
        for (at, op, byte) in edits {
            let i = at.index(bytes.len() + 1);
            match op {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => { bytes.remove(i); }
                _ => bytes.push(byte),
            }
        }
        parse_everything(&bytes);
    }
}

const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const LETTERS: &[u8] = b"SHR";

/// Byte offsets (and replacement classes) of the cross-checked fields of the record
/// lines of a built-in sample: in ibnetdiscover text, port numbers in `[…]`, GUIDs in
/// `(…)` and node ids `"X-<16 hex>"` before the `#` comment; in `.lst` text, `NodeGUID`,
/// `PN` and, for CA/router ends, `PortGUID` values; in a ports report, the LID, port and
/// GUID digits of both ends of the lines of connected ports.
fn structural_bytes(text: &[u8]) -> Vec<(usize, &'static [u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split(|&b| b == b'\n') {
        let digits_from = |mut i: usize, class: &'static [u8], out: &mut Vec<_>| {
            while i < line.len() && class.contains(&line[i].to_ascii_lowercase()) {
                out.push((start + i, class));
                i += 1;
            }
        };
        let connected_port_line = [&b"SW "[..], b"CA ", b"RT "]
            .iter()
            .any(|w| line.starts_with(w))
            && line.windows(3).any(|w| w == b" - ");
        if connected_port_line {
            // Both ends: `<type> <lid> <port> 0x<guid> <width> <speed> - <type> <lid> <port>
            // 0x<guid>`, before the `(` of the descriptions; the LID, port and GUID words
            // (1, 2, 3, 8, 9, 10) are cross-checked, the width and speed are not.
            let end = line.iter().position(|&b| b == b'(').unwrap();
            let mut words = Vec::new();
            let mut i = 0;
            while i < end {
                if line[i] == b' ' {
                    i += 1;
                    continue;
                }
                words.push(i);
                while i < end && line[i] != b' ' {
                    i += 1;
                }
            }
            for w in [1, 2, 8, 9] {
                digits_from(words[w], DIGITS, &mut out);
            }
            for w in [3, 10] {
                digits_from(words[w] + 2, HEX, &mut out);
            }
        } else if line.first() == Some(&b'{') {
            let s = std::str::from_utf8(line).unwrap();
            let mut switch_end = false;
            for (i, _) in s.char_indices() {
                let rest = &s[i..];
                if rest.starts_with("{ ") {
                    switch_end = rest.starts_with("{ SW");
                } else if rest.starts_with("NodeGUID:") {
                    digits_from(i + 9, HEX, &mut out);
                } else if rest.starts_with("PN:") {
                    digits_from(i + 3, HEX, &mut out);
                } else if rest.starts_with("PortGUID:") && !switch_end {
                    digits_from(i + 9, HEX, &mut out);
                }
            }
        } else if !line.starts_with(b"#") && line.contains(&b'"') {
            let end = line.iter().position(|&b| b == b'#').unwrap_or(line.len());
            let mut i = 0;
            while i < end {
                match line[i] {
                    b'[' if line.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                        digits_from(i + 1, DIGITS, &mut out)
                    }
                    b'(' => digits_from(i + 1, HEX, &mut out),
                    b'"' if line.get(i + 2) == Some(&b'-') => {
                        out.push((start + i + 1, LETTERS));
                        digits_from(i + 3, HEX, &mut out);
                        i += 19;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        start += line.len() + 1;
    }
    out
}
