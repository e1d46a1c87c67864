//! Forwarding-table dump parsers (`orcs::ib::lft`) on the real and generated dumps in
//! `../shared/fabrics/` (skipped with a note when that folder is missing), plus
//! property tests: no panics on arbitrary or mutated input, and exact truncation
//! behaviour.
//!
//! Parse throughput is measured by `cargo bench` (group `parse`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use orcs::ib::lft::{detect_lft_layout, parse_lfts};
use orcs::ib::{LftLayout, Lfts, SwitchLft, NO_ROUTE};
use proptest::prelude::*;

use crate::support::shared;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// The bytes of a file, gunzipped when it ends in `.gz`.
fn read_bytes(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    if path.extension().is_some_and(|x| x == "gz") {
        flate2::read::MultiGzDecoder::new(file)
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    } else {
        BufReader::new(file)
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    out
}

/// Parses a file (streaming; gunzips `.gz`), panicking with the file name on error.
fn load(path: &Path) -> Lfts {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|x| x == "gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    parse_lfts(reader).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The routed entries of one switch: LID → port.
fn routed(s: &SwitchLft) -> BTreeMap<u32, u8> {
    s.ports
        .iter()
        .enumerate()
        .filter(|&(_, &p)| p != NO_ROUTE)
        .map(|(lid, &p)| (lid as u32, p))
        .collect()
}

type Tables = BTreeMap<u64, (Option<u32>, BTreeMap<u32, u8>)>;

/// Switch GUID → (switch LID, routed entries).
fn tables(l: &Lfts) -> Tables {
    let t: Tables = l
        .switches
        .iter()
        .map(|s| (s.guid, (s.lid, routed(s))))
        .collect();
    assert_eq!(t.len(), l.switches.len(), "duplicate GUIDs slipped through");
    t
}

/// Asserts that two dumps hold the same tables (GUIDs, switch LIDs, routed entries).
fn assert_same(a: &Lfts, b: &Lfts, what: &str) {
    let (ta, tb) = (tables(a), tables(b));
    assert_eq!(
        ta.keys().collect::<Vec<_>>(),
        tb.keys().collect::<Vec<_>>(),
        "{what}: switch GUIDs differ"
    );
    for (guid, (lid_a, ra)) in &ta {
        let (lid_b, rb) = &tb[guid];
        assert_eq!(lid_a, lid_b, "{what}: LID of switch {guid:#018x}");
        assert_eq!(ra, rb, "{what}: table of switch {guid:#018x}");
    }
}

/// The layout detected from the first header-like line of a text.
fn first_header_layout(bytes: &[u8]) -> Option<LftLayout> {
    String::from_utf8_lossy(bytes)
        .lines()
        .find_map(detect_lft_layout)
}

// ---------------------------------------------------------------------------------------
// Real and generated dumps
// ---------------------------------------------------------------------------------------

/// Every generated run directory with all three layouts.
fn generated_runs(fabrics: &Path) -> Vec<PathBuf> {
    let mut runs = Vec::new();
    let root = fabrics.join("ib/generated");
    for topo in std::fs::read_dir(&root).expect("generated/") {
        let topo = topo.expect("dir entry").path();
        if !topo.is_dir() {
            continue;
        }
        for run in std::fs::read_dir(&topo).expect("topology dir") {
            let run = run.expect("dir entry").path();
            if ["ibroute.txt", "opensm-lfts.dump", "opensm.fdbs"]
                .iter()
                .all(|f| run.join(f).is_file())
            {
                runs.push(run);
            }
        }
    }
    runs.sort();
    runs
}

#[test]
fn generated_runs_agree_across_the_three_layouts() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let runs = generated_runs(&fabrics);
    assert!(runs.len() >= 23, "only {} runs found", runs.len());
    let mut entries = 0usize;
    for run in &runs {
        let name = run.display();
        let ibroute = load(&run.join("ibroute.txt"));
        let lfts = load(&run.join("opensm-lfts.dump"));
        let fdbs = load(&run.join("opensm.fdbs"));
        assert_eq!(ibroute.layout, LftLayout::Ibroute, "{name}");
        assert_eq!(lfts.layout, LftLayout::OpensmLftsDump, "{name}");
        assert_eq!(fdbs.layout, LftLayout::Fdbs, "{name}");
        assert!(!ibroute.switches.is_empty(), "{name}");
        // Every switch LID is known: `Lid N` headers, and the port-0 row of `.fdbs`.
        for s in ibroute.switches.iter().chain(&fdbs.switches) {
            assert!(
                s.lid.is_some(),
                "{name}: switch {:#018x} has no LID",
                s.guid
            );
        }
        assert_same(
            &ibroute,
            &lfts,
            &format!("{name}: ibroute vs opensm-lfts.dump"),
        );
        assert_same(&ibroute, &fdbs, &format!("{name}: ibroute vs opensm.fdbs"));
        // The only extra rows are the no-route ones: `.fdbs` lists every LID up to the
        // highest, with UNREACHABLE where there is no route.
        for (s, f) in ibroute.switches.iter().zip(&fdbs.switches) {
            assert_eq!(s.guid, f.guid, "{name}: same switch order");
            assert_eq!(
                f.ports.first(),
                Some(&NO_ROUTE),
                "{name}: .fdbs starts at LID 1"
            );
            assert_eq!(s.ports.len(), f.ports.len(), "{name}: LID range");
        }
        entries += ibroute
            .switches
            .iter()
            .map(|s| routed(s).len())
            .sum::<usize>();
    }
    println!(
        "{} runs, {entries} routed entries compared three ways",
        runs.len()
    );
}

#[test]
fn dump_fts_with_dr_path_headers_equals_ibroute() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let dir = fabrics.join("ib/generated/ft-4ary2/minhop");
    let dump_fts = load(&dir.join("dump_fts.txt"));
    let ibroute = load(&dir.join("ibroute.txt"));
    assert_eq!(dump_fts.layout, LftLayout::Ibroute);
    assert_eq!(dump_fts.switches.len(), 8);
    // The DR-path headers carry no LID: the port-0 row supplies it, and it must match
    // the `Lid N` headers of ibroute.
    assert_same(&dump_fts, &ibroute, "dump_fts vs ibroute");
    let order: Vec<u64> = dump_fts.switches.iter().map(|s| s.guid).collect();
    assert_ne!(
        order,
        ibroute.switches.iter().map(|s| s.guid).collect::<Vec<_>>(),
        "dump_fts lists switches in discovery order"
    );
}

/// Switch node GUID → LID from an OpenSM/ibdiagnet `.lst` link list (each line holds
/// two `{ <type> … NodeGUID:<hex> … LID:<hex> PN:<hex> }` records).
fn lst_switch_lids(text: &str) -> BTreeMap<u64, u32> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut kind = "";
        let mut guid = None;
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if w == "{" {
                kind = words.peek().copied().unwrap_or("");
            } else if let Some(g) = w.strip_prefix("NodeGUID:") {
                guid = Some(u64::from_str_radix(g, 16).expect("NodeGUID"));
            } else if let Some(l) = w.strip_prefix("LID:") {
                if kind.starts_with("SW") {
                    let lid = u32::from_str_radix(l, 16).expect("LID");
                    out.insert(guid.expect("NodeGUID before LID"), lid);
                }
            }
        }
    }
    out
}

#[test]
fn real_osm_fdbs_2009() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let dir = fabrics.join("ib/public/ibutils-ibdm-clusters");
    let l = load(&dir.join("osm.fdbs"));
    assert_eq!(l.layout, LftLayout::Fdbs);
    assert_eq!(l.switches.len(), 62);
    let guids: BTreeSet<u64> = l.switches.iter().map(|s| s.guid).collect();
    assert_eq!(guids.len(), 62);
    // LIDs 1..=0x41 with a route from every switch (this file has no UNREACHABLE row,
    // contrary to its provenance note), ports 0-23.
    for s in &l.switches {
        assert_eq!(s.ports.len(), 0x42, "switch {:#018x}", s.guid);
        assert_eq!(s.ports[0], NO_ROUTE);
        assert!((1..=0x41).all(|lid| s.port(lid).is_some()));
        assert!(s.ports[1..].iter().all(|&p| p <= 23));
    }
    let header_lines: Vec<u32> = l.switches.iter().map(|s| s.line).collect();
    assert_eq!(
        header_lines[..3],
        [1, 69, 137],
        "67 lines + a blank line per switch"
    );
    // The switch LIDs inferred from the port-0 rows agree with the matched `.lst`.
    let lst = String::from_utf8(read_bytes(&dir.join("subnet.lst"))).expect("UTF-8");
    let lids = lst_switch_lids(&lst);
    for s in &l.switches {
        assert_eq!(s.lid, lids.get(&s.guid).copied(), "switch {:#018x}", s.guid);
    }
}

#[test]
fn ibroute_all_and_no_dests_variants() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let dir = fabrics.join("ib/generated/misc/nnm-and-list-options");
    let all = load(&dir.join("ibroute-a.txt"));
    let brief = load(&dir.join("ibroute-n.txt"));
    for l in [&all, &brief] {
        assert_eq!(l.layout, LftLayout::Ibroute);
        assert_eq!(l.switches.len(), 1);
        assert_eq!(l.switches[0].guid, 0x200000);
        assert_eq!(l.switches[0].lid, Some(2));
    }
    // `-a` lists LID 0 with port 255 (no route); otherwise both equal the first switch
    // of the same fabric's plain ibroute dump.
    assert_eq!(all.switches[0].ports[0], NO_ROUTE);
    assert_eq!(all.switches[0].ports, brief.switches[0].ports);
    let plain = load(&fabrics.join("ib/generated/ft-4ary2/ftree/ibroute.txt"));
    assert_eq!(all.switches[0].ports, plain.switches[0].ports);
    assert_eq!(routed(&all.switches[0]).len(), 24);
}

#[test]
fn lmc2_rows_with_path_numbers() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let dir = fabrics.join("ib/generated/ft-4ary2/minhop-lmc2");
    let l = load(&dir.join("ibroute.txt"));
    let s = &l.switches[0];
    assert_eq!(s.lid, Some(8));
    // node001 owns LIDs 4-7 (`path #2..4 out of 4` rows), all via port 1.
    assert_eq!(
        (4..8).map(|lid| s.port(lid)).collect::<Vec<_>>(),
        [Some(1); 4]
    );
    assert_eq!(s.ports.len(), 0x54);
}

#[test]
fn orcs_ft4_2_and_ft8_3_layouts_agree() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let ft4 = fabrics.join("orcs/ft4-2");
    let lfts = load(&ft4.join("opensm-lfts.dump"));
    let fdbs = load(&ft4.join("opensm.fdbs"));
    let dump_fts = load(&ft4.join("dump_fts.txt"));
    assert_eq!(lfts.switches.len(), 8);
    assert_same(&lfts, &fdbs, "ft4-2 opensm-lfts.dump vs opensm.fdbs");
    assert_same(&lfts, &dump_fts, "ft4-2 opensm-lfts.dump vs dump_fts.txt");

    let ft8 = fabrics.join("orcs/ft8-3");
    let lfts = load(&ft8.join("opensm-lfts.dump.gz"));
    let fdbs = load(&ft8.join("opensm.fdbs.gz"));
    assert_eq!(lfts.layout, LftLayout::OpensmLftsDump);
    assert_eq!(fdbs.layout, LftLayout::Fdbs);
    assert_eq!(lfts.switches.len(), 192);
    assert_same(&lfts, &fdbs, "ft8-3 opensm-lfts.dump vs opensm.fdbs");
    // 512 hosts + 192 switches = LIDs 1-704; the .fdbs UNREACHABLE rows are the LIDs
    // missing from opensm-lfts.dump.
    for (a, b) in lfts.switches.iter().zip(&fdbs.switches) {
        assert_eq!((a.ports.len(), b.ports.len()), (705, 705));
        assert_eq!(a.ports, b.ports);
    }
    // ftree leaves route every LID; the other 128 switches have 112 or 119 holes.
    let holes: usize = fdbs
        .switches
        .iter()
        .map(|s| s.ports[1..].iter().filter(|&&p| p == NO_ROUTE).count())
        .sum();
    assert_eq!(holes, 64 * 112 + 64 * 119);
}

#[test]
fn layout_detection_on_every_sample() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let mut cases: Vec<(PathBuf, LftLayout)> = vec![
        (
            fabrics.join("ib/generated/ft-4ary2/minhop/dump_fts.txt"),
            LftLayout::Ibroute,
        ),
        (
            fabrics.join("ib/generated/misc/nnm-and-list-options/ibroute-a.txt"),
            LftLayout::Ibroute,
        ),
        (
            fabrics.join("ib/generated/misc/nnm-and-list-options/ibroute-n.txt"),
            LftLayout::Ibroute,
        ),
        (
            fabrics.join("ib/public/ibutils-ibdm-clusters/osm.fdbs"),
            LftLayout::Fdbs,
        ),
        (fabrics.join("orcs/ft4-2/dump_fts.txt"), LftLayout::Ibroute),
        (
            fabrics.join("orcs/ft4-2/opensm-lfts.dump"),
            LftLayout::OpensmLftsDump,
        ),
        (fabrics.join("orcs/ft4-2/opensm.fdbs"), LftLayout::Fdbs),
        (
            fabrics.join("orcs/ft8-3/opensm-lfts.dump.gz"),
            LftLayout::OpensmLftsDump,
        ),
        (fabrics.join("orcs/ft8-3/opensm.fdbs.gz"), LftLayout::Fdbs),
    ];
    for run in generated_runs(&fabrics) {
        cases.push((run.join("ibroute.txt"), LftLayout::Ibroute));
        cases.push((run.join("opensm-lfts.dump"), LftLayout::OpensmLftsDump));
        cases.push((run.join("opensm.fdbs"), LftLayout::Fdbs));
    }
    for (path, want) in &cases {
        let bytes = read_bytes(path);
        assert_eq!(
            first_header_layout(&bytes),
            Some(*want),
            "{}",
            path.display()
        );
        assert_eq!(load(path).layout, *want, "{}", path.display());
    }
    // Nothing else in the sample folders looks like a forwarding-table header.
    let topo = read_bytes(&fabrics.join("ib/generated/ft-4ary2/minhop/ibnetdiscover.txt"));
    assert_eq!(first_header_layout(&topo), None);
    assert!(parse_lfts(topo.as_slice()).is_err());
    println!("{} files detected", cases.len());
}

#[test]
fn deleting_any_ibroute_row_is_caught_by_the_footer_count() {
    let Some(fabrics) = shared("fabrics") else {
        return;
    };
    let text = read_bytes(&fabrics.join("ib/generated/ft-4ary2/minhop/ibroute.txt"));
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let mut rows = 0;
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with(b"0x") {
            continue;
        }
        rows += 1;
        let cut: Vec<u8> = lines
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .flat_map(|(_, l)| l.iter().copied())
            .collect();
        let e = parse_lfts(cut.as_slice()).expect_err("a deleted row must be detected");
        assert!(e.message.contains("rows lost or added"), "{e}");
    }
    assert_eq!(rows, 8 * 24);
}

// ---------------------------------------------------------------------------------------
// Truncation: exact expectations
// ---------------------------------------------------------------------------------------

/// Where the tables of a `Unicast lids` dump start (header) and end (just after the
/// footer's `dumped`), found from the text alone.
fn unicast_table_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"Unicast lids") {
            start = Some(offset);
        }
        if let Some(at) = line.windows(11).position(|w| w == b"lids dumped") {
            let s = start.take().expect("footer after a header");
            spans.push((s, offset + at + 11));
        }
        offset += line.len();
    }
    spans
}

/// Checks a truncation of a `Unicast lids` dump at byte `cut`: it must fail unless the
/// cut leaves only complete tables (it falls between the end of a footer's `dumped`
/// and the next header), in which case the result is exactly those tables.
fn check_unicast_cut(text: &[u8], spans: &[(usize, usize)], full: &Lfts, cut: usize) {
    let complete = spans.iter().take_while(|&&(_, end)| end <= cut).count();
    let inside_next = spans.get(complete).is_some_and(|&(start, _)| cut > start);
    let result = parse_lfts(&text[..cut]);
    if complete == 0 || inside_next {
        assert!(
            result.is_err(),
            "cut at byte {cut} (inside table {}) parsed: {:?}",
            complete + 1,
            result.map(|l| l.switches.len())
        );
    } else {
        let l = result.unwrap_or_else(|e| panic!("cut at byte {cut} after {complete} tables: {e}"));
        assert_eq!(l.layout, full.layout);
        assert_eq!(l.switches, full.switches[..complete], "cut at byte {cut}");
    }
}

/// Checks a truncation of a `.fdbs` dump at byte `cut`: it must fail when it leaves a
/// partial line (unless only trailing white space was cut) and otherwise yield the
/// full tables up to the last complete line.
fn check_fdbs_cut(text: &[u8], full: &Lfts, cut: usize) {
    let line_start = text[..cut]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = text[cut..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| cut + i);
    let trim = |s: &[u8]| {
        let n = s
            .iter()
            .rposition(|b| !b" \t\r".contains(b))
            .map_or(0, |i| i + 1);
        s[..n].to_vec()
    };
    let partial_ok =
        cut == line_start || trim(&text[line_start..cut]) == trim(&text[line_start..line_end]);
    let first_header_end = text
        .windows(9)
        .position(|w| w == b"Switch 0x")
        .map(|i| i + 9 + 16)
        .expect("a header");
    let result = parse_lfts(&text[..cut]);
    if !partial_ok || cut < first_header_end {
        assert!(result.is_err(), "cut at byte {cut} parsed");
        return;
    }
    let l = result.unwrap_or_else(|e| panic!("cut at byte {cut}: {e}"));
    let n = l.switches.len();
    assert!(n >= 1);
    assert_eq!(
        l.switches[..n - 1],
        full.switches[..n - 1],
        "cut at byte {cut}"
    );
    let (got, want) = (&l.switches[n - 1], &full.switches[n - 1]);
    assert_eq!((got.guid, got.line), (want.guid, want.line));
    assert!(got.lid.is_none() || got.lid == want.lid);
    assert_eq!(
        got.ports[..],
        want.ports[..got.ports.len()],
        "cut at byte {cut}"
    );
}

/// Small real dumps, for exhaustive and property tests: (name, bytes, parsed).
fn small_dumps() -> &'static [(String, Vec<u8>, Lfts)] {
    static DUMPS: OnceLock<Vec<(String, Vec<u8>, Lfts)>> = OnceLock::new();
    DUMPS.get_or_init(|| {
        let Some(fabrics) = shared("fabrics") else {
            return Vec::new();
        };
        [
            "ib/generated/ft-4ary2/minhop/ibroute.txt",
            "ib/generated/ft-4ary2/minhop/dump_fts.txt",
            "ib/generated/ft-4ary2/minhop/opensm-lfts.dump",
            "ib/generated/ft-4ary2/minhop/opensm.fdbs",
            "ib/generated/ft-4ary2/minhop-lmc2/opensm.fdbs",
            "ib/generated/misc/router-2porthca/ibroute.txt",
            "ib/generated/misc/router-2porthca/opensm-lfts.dump",
            "ib/generated/misc/router-2porthca/opensm.fdbs",
            "ib/generated/misc/nnm-and-list-options/ibroute-a.txt",
            "ib/generated/misc/nnm-and-list-options/ibroute-n.txt",
            "ib/generated/torus5x5/torus-2QoS/opensm.fdbs", // has `No … possible …!` rows
            "ib/public/ibutils-ibdm-clusters/osm.fdbs",
            "orcs/ft4-2/dump_fts.txt",
            "orcs/ft4-2/opensm-lfts.dump",
            "orcs/ft4-2/opensm.fdbs",
        ]
        .iter()
        .map(|name| {
            let bytes = read_bytes(&fabrics.join(name));
            let parsed = parse_lfts(bytes.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name.to_string(), bytes, parsed)
        })
        .collect()
    })
}

/// The byte offset of the last table's header.
fn last_table_start(text: &[u8], full: &Lfts) -> usize {
    let line = full.switches.last().expect("tables").line as usize;
    text.split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(<[u8]>::len)
        .sum()
}

/// Truncations of real dumps: at every byte of the small ones, at every byte of the
/// last table of the others (the whole prefix is parsed each time, so this is
/// quadratic; the 113 kB `osm.fdbs` is left to the random truncations).
#[test]
fn every_truncation_of_small_dumps_is_exact() {
    let Some(_) = shared("fabrics") else { return };
    let dumps = small_dumps();
    const EVERY_BYTE: &[&str] = &[
        "ib/generated/ft-4ary2/minhop/ibroute.txt",
        "ib/generated/ft-4ary2/minhop/opensm-lfts.dump",
        "ib/generated/ft-4ary2/minhop/opensm.fdbs",
        "ib/generated/misc/router-2porthca/ibroute.txt",
        "ib/generated/misc/router-2porthca/opensm-lfts.dump",
        "ib/generated/misc/router-2porthca/opensm.fdbs",
        "ib/generated/misc/nnm-and-list-options/ibroute-a.txt",
        "ib/generated/misc/nnm-and-list-options/ibroute-n.txt",
        "orcs/ft4-2/opensm.fdbs",
    ];
    let mut cuts = 0usize;
    let mut inside_last = 0usize;
    let mut files = 0usize;
    for (name, text, full) in dumps {
        let last_start = last_table_start(text, full);
        let from = if EVERY_BYTE.contains(&name.as_str()) {
            0
        } else if name.ends_with("osm.fdbs") {
            continue; // 113 kB: left to the random truncations
        } else {
            last_start
        };
        if full.layout == LftLayout::Fdbs {
            for cut in from..=text.len() {
                check_fdbs_cut(text, full, cut);
            }
        } else {
            let spans = unicast_table_spans(text);
            assert_eq!(spans.len(), full.switches.len(), "{name}");
            let (start, end) = spans[spans.len() - 1];
            assert_eq!(start, last_start);
            for cut in from..=text.len() {
                check_unicast_cut(text, &spans, full, cut);
            }
            // `check_unicast_cut` demanded an error for each of these.
            inside_last += end - start - 1;
        }
        cuts += text.len() + 1 - from;
        files += 1;
    }
    println!(
        "{cuts} truncations of {files} files checked ({inside_last} strictly inside the \
         last table of an ibroute/opensm-lfts.dump file)"
    );
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

/// Invariants of any successful parse.
fn check_invariants(l: &Lfts) {
    let mut guids = BTreeSet::new();
    for s in &l.switches {
        assert!(guids.insert(s.guid), "duplicate switch {:#x}", s.guid);
        assert!(s.ports.len() <= 0xC000);
        assert!(s.ports.iter().all(|&p| p <= 254 || p == NO_ROUTE));
        assert!(s.lid.is_none_or(|lid| (1..=0xBFFF).contains(&lid)));
        assert!(s.line >= 1);
    }
    assert!(!l.switches.is_empty());
}

/// Fragments that steer random inputs into the parser's paths.
const FRAGMENTS: &[&str] = &[
    "Unicast lids [0x0-0x18] of switch Lid 2 guid 0x0000000000200000 (sw-l0-000):\n",
    "Unicast lids [0-24] of switch Lid 2 guid 0x0000000000200001 ('sw'):\n",
    "Unicast lids [0x0-0x5] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200002 (x):\n",
    "dump_ucast_routes: Switch 0x0000000000200003\n",
    "osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000200004\n",
    "  Lid  Out   Destination\n",
    "       Port     Info \n",
    "LID    : Port : Hops : Optimal\n",
    "0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'node001')\n",
    "0x0002 000 : (Switch portguid 0x0000000000200000: 'sw-l0-000')\n",
    "0x0000 255 : (path #0 - illegal port)\n",
    "0x0003 004 # Channel Adapter portguid 0x0000000000100001: 'n'\n",
    "0x0002 005 \n",
    "0x0001 : 001  : 01   : yes\n",
    "0x0002 : 000  : 00   : yes\n",
    "0x000A : 005  : 02   : No 1 hop path possible via port 3!\n",
    "0x0004 : 002  : HOPS UNKNOWN\n",
    "0x0005 : UNREACHABLE\n",
    "1 valid lids dumped \n",
    "2 lids dumped\n",
    "24 lids dumped\n",
    "PLFT_NUM: 0\n",
    "# comment\n",
    "\n",
    "\r\n",
    "0x",
    "0xBFFF 254\n",
    "0xC000 001\n",
    " : ",
    "\n",
];

/// One random edit of a text.
#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
}

fn apply(text: &mut Vec<u8>, edit: &Edit) {
    if text.is_empty() {
        return;
    }
    let n = text.len();
    match *edit {
        Edit::Flip(i, b) => text[i % n] ^= b | 1,
        Edit::Insert(i, b) => text.insert(i % (n + 1), b),
        Edit::Delete(i, len) => {
            let i = i % n;
            let end = (i + len % 64).min(n);
            text.drain(i..end);
        }
        Edit::DuplicateLine(i) | Edit::SwapLines(i, _) => {
            let mut lines: Vec<Vec<u8>> = text
                .split_inclusive(|&b| b == b'\n')
                .map(<[u8]>::to_vec)
                .collect();
            let m = lines.len();
            match *edit {
                Edit::DuplicateLine(_) => {
                    let l = lines[i % m].clone();
                    lines.insert(i % m, l);
                }
                Edit::SwapLines(_, j) => lines.swap(i % m, j % m),
                _ => unreachable!(),
            }
            *text = lines.concat();
        }
    }
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, l)| Edit::Delete(i, l)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::SwapLines(i, j)),
    ]
}

/// Cases per property (`PROPTEST_CASES` overrides).
fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

/// [`cases`] for a property over dumps in `../shared/fabrics`: asks [`shared`] once, as
/// the property starts, so that a missing folder gives one visible note (or fails under
/// `ORCS_REQUIRE_SHARED=1`) instead of every case quietly checking nothing.
#[track_caller]
fn shared_cases(default: u32) -> ProptestConfig {
    let _ = shared("fabrics");
    cases(default)
}

proptest! {
    #![proptest_config(cases(2000))]

    /// Arbitrary bytes never panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        if let Ok(l) = parse_lfts(bytes.as_slice()) {
            check_invariants(&l);
        }
    }

    /// Random sequences of dump fragments never panic; what parses is consistent.
    #[test]
    fn fragment_soup_never_panics(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..40),
        cut in any::<usize>(),
    ) {
        let text: String = picks.iter().map(|&i| FRAGMENTS[i]).collect();
        let cut = if text.is_empty() { 0 } else { cut % (text.len() + 1) };
        for input in [text.as_bytes(), &text.as_bytes()[..cut]] {
            if let Ok(l) = parse_lfts(input) {
                check_invariants(&l);
            }
        }
    }
}

proptest! {
    #![proptest_config(shared_cases(2000))]

    /// Randomly edited real dumps never panic; what parses is consistent.
    #[test]
    fn mutated_real_dumps_never_panic(
        which in any::<usize>(),
        edits in proptest::collection::vec(edit_strategy(), 1..6),
    ) {
        let dumps = small_dumps();
        if !dumps.is_empty() {
            let (_, text, _) = &dumps[which % dumps.len()];
            let mut text = text.clone();
            for e in &edits {
                apply(&mut text, e);
            }
            if let Ok(l) = parse_lfts(text.as_slice()) {
                check_invariants(&l);
            }
        }
    }
}

/// A dump's bytes, its tables, and its `Unicast lids` table spans.
type Truncatable = (Vec<u8>, Lfts, Vec<(usize, usize)>);

proptest! {
    #![proptest_config(shared_cases(1000))]

    /// Random truncations of every generated dump (the big ones too), the real
    /// `osm.fdbs` and the ORCS ft4-2 dumps behave exactly as
    /// [`check_unicast_cut`] / [`check_fdbs_cut`] demand.
    #[test]
    fn random_truncations_of_generated_dumps(which in any::<usize>(), at in any::<usize>()) {
        static ALL: OnceLock<Vec<Truncatable>> = OnceLock::new();
        let all = ALL.get_or_init(|| {
            let Some(fabrics) = shared("fabrics") else { return Vec::new() };
            let mut out = Vec::new();
            let mut files: Vec<PathBuf> = generated_runs(&fabrics)
                .iter()
                .flat_map(|run| {
                    ["ibroute.txt", "opensm-lfts.dump", "opensm.fdbs"].map(|f| run.join(f))
                })
                .collect();
            files.push(fabrics.join("ib/public/ibutils-ibdm-clusters/osm.fdbs"));
            files.push(fabrics.join("ib/generated/ft-4ary2/minhop/dump_fts.txt"));
            for f in ["dump_fts.txt", "opensm-lfts.dump", "opensm.fdbs"] {
                files.push(fabrics.join("orcs/ft4-2").join(f));
            }
            for f in files {
                let text = read_bytes(&f);
                let full = parse_lfts(text.as_slice()).expect("valid dump");
                let spans = unicast_table_spans(&text);
                out.push((text, full, spans));
            }
            out
        });
        if !all.is_empty() {
            let (text, full, spans) = &all[which % all.len()];
            // Half the cuts land in the last table.
            let cut = if at % 2 == 0 {
                let start = last_table_start(text, full);
                start + (at / 2) % (text.len() - start + 1)
            } else {
                (at / 2) % (text.len() + 1)
            };
            if full.layout == LftLayout::Fdbs {
                check_fdbs_cut(text, full, cut);
            } else {
                check_unicast_cut(text, spans, full, cut);
            }
        }
    }
}
