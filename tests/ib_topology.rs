//! Integration tests of the InfiniBand topology parsers (`orcs::ib::topology`,
//! `orcs::ib::node_name_map`) against the sample dumps in `shared/fabrics/ib/`, plus
//! property tests: arbitrary bytes, token soups, truncated and mutated real files never
//! panic, and a file cut in the middle of a record line is an error at that line.
//!
//! The expected counts were taken independently of the parsers: `grep -c '^Switch'`,
//! `grep -c '^Ca'`, `grep -c '^\['` (links = port lines / 2) on the ibnetdiscover files, line
//! counts of the `.lst` files (links = lines / 2), OpenSM's `guid2lid` files (port GUID →
//! LID range) and the numbers stated in `shared/fabrics/ib/PROVENANCE.md`. The sample
//! tests are skipped, with a note, when the shared folder is missing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use orcs::ib::node_name_map::{parse_node_name_map, NodeNameMap};
use orcs::ib::topology::{detect_topology_format, parse_topology, TopologyFormat};
use orcs::ib::{IbTopology, NodeKind, ParseError};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// The shared InfiniBand samples folder, if present.
fn samples() -> Option<PathBuf> {
    let candidates = [
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fabrics/ib")),
        PathBuf::from("/work/shared/fabrics/ib"),
    ];
    let found = candidates.into_iter().find(|p| p.is_dir());
    if found.is_none() {
        println!("note: shared/fabrics/ib not found; skipping the sample-file test");
    }
    found
}

fn read(dir: &Path, rel: &str) -> Vec<u8> {
    let path = dir.join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse_bytes(bytes: &[u8]) -> Result<(IbTopology, TopologyFormat), ParseError> {
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
        assert_eq!(
            x.lid.is_some(),
            x.kind == NodeKind::Switch,
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
    let Some(dir) = samples() else { return };
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
    let Some(dir) = samples() else { return };
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
    let Some(dir) = samples() else { return };
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
    let Some(dir) = samples() else { return };
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
    let Some(dir) = samples() else { return };
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
    let Some(dir) = samples() else { return };
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

    // `-l` node lists and `-p` ports reports are not topologies: clear errors.
    let e = parse_bytes(&read(&dir, &format!("{base}/ibnetdiscover-l.txt"))).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("ibnetdiscover -l"), "{e}");
    for p in [
        "generated/ft-4ary2/minhop/ibnetdiscover-p.txt",
        "generated/misc/router-2porthca/ibnetdiscover-p.txt",
    ] {
        let e = parse_bytes(&read(&dir, p)).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("ibnetdiscover -p"), "{p}: {e}");
    }
}

#[test]
fn real_subnet_lst() {
    let Some(dir) = samples() else { return };
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
/// ports reports and ibsim inputs, fails cleanly) and detection from the first 256 bytes
/// agrees with the parser's choice.
#[test]
fn every_topology_sample() {
    let Some(dir) = samples() else { return };
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
    let (mut ok, mut rejected) = (0, 0);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let parent = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        let is_topology = name.starts_with("ibnetdiscover")
            || name.ends_with(".lst")
            || name.ends_with(".topofile");
        let is_ibsim_net = parent == "ibsim-net-examples" && name.starts_with("net");
        if !is_topology && !is_ibsim_net {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let result = parse_bytes(&bytes);
        let expect_ok = is_topology && !name.ends_with("-l.txt") && !name.ends_with("-p.txt");
        match result {
            Ok((t, f)) => {
                assert!(expect_ok, "{} should be rejected", path.display());
                check_invariants(&t);
                let head = &bytes[..bytes.len().min(256)];
                assert_eq!(detect_topology_format(head), Some(f), "{}", path.display());
                ok += 1;
            }
            Err(e) => {
                assert!(!expect_ok, "{}: {e}", path.display());
                assert!(e.line >= 1, "{}: {e}", path.display());
                rejected += 1;
            }
        }
    }
    // Accepted: the 22 runs' ibnetdiscover.txt + opensm-subnet.lst, ibnetdiscover-s.txt,
    // router-2porthca's two, the -f/-g/-m/nnm variants, X5, the man page, subnet.lst.
    // Rejected: the -l node list, three -p ports reports, the five ibsim net files (ibsim
    // inputs name nodes freely instead of by GUID).
    assert_eq!((ok, rejected), (2 * 22 + 1 + 2 + 4 + 1 + 1 + 1, 1 + 3 + 5));
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

/// The texts the file-based properties run on: the two built-in ones, plus real samples
/// when the shared folder is present.
fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut v = vec![IBN.as_bytes().to_vec(), LST.as_bytes().to_vec()];
        if let Some(dir) = samples() {
            for rel in [
                "public/hpc-toolset-x5/X5.topofile",
                "public/infiniband-diags-man/ibnetdiscover-example-2007.txt",
                "public/ibutils-ibdm-clusters/subnet.lst",
                "generated/ft-4ary2/minhop/ibnetdiscover-s.txt",
                "generated/ft-4ary2/minhop-lmc2/opensm-subnet.lst",
                "generated/misc/nnm-and-list-options/ibnetdiscover-f.txt",
                "generated/misc/nnm-and-list-options/ibnetdiscover-g.txt",
                "generated/misc/router-2porthca/ibnetdiscover.txt",
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
        if trimmed.starts_with('[') || header {
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
/// The `.lst` parser also gets the bytes behind a `{ ` prefix, and the ibnetdiscover
/// parser behind a `#` line, so both parsers see every input whatever it is detected as.
fn parse_everything(bytes: &[u8]) {
    let _ = detect_topology_format(bytes);
    for prefix in [&b""[..], b"#\n", b"{ "] {
        let mut input = prefix.to_vec();
        input.extend_from_slice(bytes);
        if let Ok((t, _)) = parse_topology(&input[..]) {
            check_invariants(&t);
        }
    }
    let _ = parse_node_name_map(bytes);
}

/// Fragments for the token-soup property: pieces of every construct, so random
/// sequences reach deep into the parsers.
const FRAGMENTS: [&str; 48] = [
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

    /// Real files cut at any byte never panic (and successes are well-formed).
    #[test]
    fn truncation_anywhere_never_panics(
        which in any::<proptest::sample::Index>(),
        at in any::<proptest::sample::Index>(),
    ) {
        let corpus = corpus();
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
                e.line, line, "cut {:?}: {}",
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
        let corpus = corpus();
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

    /// A one-byte edit of a record line of a consistent file never changes the cabling
    /// silently: either the parse fails, or it gives the same node GUIDs and GUID-level
    /// links (an edit to a description, a LID or a link rate cannot be cross-checked and
    /// is accepted).
    #[test]
    fn one_byte_edit_never_changes_the_cabling_silently(
        which in 0usize..2,
        line_pick in any::<proptest::sample::Index>(),
        pos_pick in any::<proptest::sample::Index>(),
        byte in proptest::sample::select(&b"0123456789abcdefx[]{}()\"#: \tSHRC-"[..]),
    ) {
        let text = [IBN, LST][which].as_bytes();
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
        which in 0usize..2,
        field_pick in any::<proptest::sample::Index>(),
        repl_pick in any::<proptest::sample::Index>(),
    ) {
        let text = [IBN, LST][which].as_bytes();
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

const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const LETTERS: &[u8] = b"SHR";

/// Byte offsets (and replacement classes) of the cross-checked fields of the record
/// lines of a built-in sample: in ibnetdiscover text, port numbers in `[…]`, GUIDs in
/// `(…)` and node ids `"X-<16 hex>"` before the `#` comment; in `.lst` text, `NodeGUID`,
/// `PN` and, for CA/router ends, `PortGUID` values.
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
        if line.first() == Some(&b'{') {
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
