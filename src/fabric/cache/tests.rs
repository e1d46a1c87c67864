//! Round trips, and edited caches (checksum recomputed) that must give a located error
//! or lose their route summary, never a panic or a walk that does not end.

use super::read::sections_of;
use super::*;
use crate::fabric::{load_routed_fabric_from, LoadOptions, LoadedFabric};
use crate::routing::{check_routes, RouteSummary};
use proptest::prelude::*;

const FABRIC: &str = "digraph t { SA; SB; H0; H1; H2; H3;
    H0 -> SA [comment=\"*\", key=1]; H1 -> SA [comment=\"*\"]; H2 -> SB [comment=\"*\"];
    H3 -> SB [comment=\"*\"]; SA -> H0 [comment=H0]; SA -> H1 [comment=H1, color=red];
    SA -> SB [comment=\"H2, H3\"]; SB -> H2 [comment=H2]; SB -> H3 [comment=H3];
    SB -> SA [comment=\"H0,H1\"]; }";

fn cache_of(text: &str, summary: bool) -> (LoadedFabric, Vec<u8>) {
    let mut loaded = load_routed_fabric_from(text.as_bytes(), "t", LoadOptions::default()).unwrap();
    if summary {
        let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
        loaded.routes = Some(RouteSummary::of(&check_routes(
            &loaded.fabric,
            &loaded.table,
            &hosts,
        )));
    }
    let mut bytes = Vec::new();
    write_cache(&mut bytes, &loaded).unwrap();
    (loaded, bytes)
}

fn cache_bytes() -> (LoadedFabric, Vec<u8>) {
    cache_of(FABRIC, true)
}

/// Reads a cache from memory, named `t.orcsfab`.
fn read(bytes: &[u8]) -> Result<LoadedFabric, crate::error::LocatedError> {
    read_cache(&mut &bytes[..], "t.orcsfab")
}

/// Recomputes the trailing checksum, so that damage reaches the structural checks.
fn reseal(bytes: &mut Vec<u8>) {
    if bytes.len() >= 4 {
        bytes.truncate(bytes.len() - 4);
    }
    let crc = crc32fast::hash(bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
}

/// Asserts that `a` and `b` describe the same fabric, comments and table.
fn assert_same(a: &LoadedFabric, b: &LoadedFabric) {
    let (fa, fb) = (&a.fabric, &b.fabric);
    assert_eq!(fa.node_names, fb.node_names);
    assert_eq!(fa.edge_head, fb.edge_head);
    assert_eq!(fa.edge_keys, fb.edge_keys);
    assert_eq!(fa.edge_attrs, fb.edge_attrs);
    for e in 0..fa.num_edges() as u32 {
        assert_eq!(
            fa.edge_comments.text(e),
            fb.edge_comments.text(e),
            "edge {e}"
        );
    }
    for v in 0..fa.num_nodes() as u32 {
        for h in 0..fa.num_hosts() as u32 {
            assert_eq!(a.table.next_edge(fa, v, h), b.table.next_edge(fb, v, h));
        }
    }
}

#[test]
fn comments_of_the_table_are_derived_not_stored() {
    let (loaded, bytes) = cache_bytes();
    let mut back = read(&bytes).unwrap();
    assert!(back.fabric.edge_comments.kinds.is_empty());
    back.fill_comments();
    assert_same(&loaded, &back);
    assert_eq!(back.routes, loaded.routes);
    assert_eq!(back.routes.as_ref().unwrap().pairs_checked, 12);
}

#[test]
fn other_comments_are_stored_verbatim() {
    // Hosts out of host order, and a name that is not a host: kept as written.
    let text = FABRIC
        .replace("comment=\"H2, H3\"", "comment=\"H3, H2\"")
        .replace("comment=H0]", "comment=\"H0, X9\"]");
    let (loaded, bytes) = cache_of(&text, false);
    let back = read(&bytes).unwrap();
    assert_eq!(
        back.fabric.edge_comments.kinds.len(),
        back.fabric.num_edges()
    );
    assert_same(&loaded, &back);
    assert_eq!(back.routes, None);
}

#[test]
fn wide_ports_round_trip() {
    // 300 hosts on one switch: local port numbers above 255 need two bytes.
    let mut text = String::from("digraph w { S0; ");
    for h in 0..300 {
        text.push_str(&format!(
            "H{h} -> S0 [comment=\"*\"]; S0 -> H{h} [comment=H{h}]; "
        ));
    }
    text.push('}');
    let (loaded, bytes) = cache_of(&text, true);
    let mut back = read(&bytes).unwrap();
    back.fill_comments();
    assert_same(&loaded, &back);
    // The narrow layout of the two-switch fabric is one byte per entry.
    let (small, small_bytes) = cache_bytes();
    assert!(small_bytes.len() < bytes.len());
    assert!(read(&small_bytes).is_ok(), "{small:?}");
}

#[test]
fn damage_is_caught_by_the_checksum() {
    let (_, mut bytes) = cache_bytes();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    let err = read(&bytes).err().unwrap();
    assert!(err.message.contains("checksum mismatch"), "{err}");
    let (_, mut bytes) = cache_bytes();
    bytes.push(0);
    let err = read(&bytes).err().unwrap();
    assert!(err.message.contains("after the checksum"), "{err}");
    let (_, mut bytes) = cache_bytes();
    bytes.truncate(bytes.len() - 2);
    let err = read(&bytes).err().unwrap();
    assert!(err.message.contains("truncated"), "{err}");
}

#[test]
fn round_trip_keeps_everything() {
    let (loaded, bytes) = cache_bytes();
    let mut back = read(&bytes).unwrap();
    back.fill_comments();
    assert_same(&loaded, &back);
    assert_eq!(back.fabric.graph_id, loaded.fabric.graph_id);
    assert_eq!(back.fabric.node_attrs, loaded.fabric.node_attrs);
    assert_eq!(back.fabric.edge_lines, loaded.fabric.edge_lines);
}

#[test]
fn wrong_version_and_magic_are_named() {
    let (_, mut bytes) = cache_bytes();
    bytes[8] = 9;
    let err = read(&bytes).err().unwrap();
    assert!(err.message.contains("version 9 is a newer format"), "{err}");
    assert_eq!(err.byte, Some(8));
    // A cache of the previous format: refused with the command that makes it again.
    bytes[8] = 2;
    let err = read(&bytes).err().unwrap();
    assert_eq!(err.byte, Some(8));
    assert!(
        err.to_string().contains(
            "version 2 is an older format than this orcs reads (version 3); make the cache again from its source with `orcs convert -i SOURCE -o t.orcsfab`"
        ),
        "{err}"
    );
    let err = read(b"digraph {}").err().unwrap();
    assert!(err.message.contains("not an orcs fabric cache"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Damaged caches load as located errors, or as fabrics the route checker handles
    /// with a route summary only when it is true.
    #[test]
    fn damaged_caches_never_panic(
        cut in 0usize..2000,
        flips in proptest::collection::vec((0usize..2000, any::<u8>()), 0..4),
        resealed in any::<bool>(),
    ) {
        let (_, mut bytes) = cache_bytes();
        for (at, value) in flips {
            let at = at % bytes.len();
            bytes[at] = value;
        }
        bytes.truncate(cut.min(bytes.len()));
        if resealed {
            reseal(&mut bytes);
        }
        match read(&bytes) {
            Ok(mut loaded) => {
                // Whatever loads is walkable, and a route summary that survives is the
                // truth about this table.
                let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
                let check = check_routes(&loaded.fabric, &loaded.table, &hosts);
                if let Some(kept) = &loaded.routes {
                    prop_assert_eq!(kept, &RouteSummary::of(&check));
                }
                loaded.fill_comments();
            }
            Err(e) => {
                prop_assert_eq!(e.path.as_str(), "t.orcsfab");
                prop_assert!(e.byte.is_some() || e.message.starts_with("cannot read"), "{}", e);
            }
        }
    }
}

// The fabric above, as stored: nodes SA 0, SB 1, H0 2, H1 3, H2 4, H3 5; edges by tail,
// then head: 0 SA->SB, 1 SA->H0, 2 SA->H1, 3 SB->SA, 4 SB->H2, 5 SB->H3, 6..9 the
// hosts' uplinks. SA and SB own table rows (local ports per host H0..H3: SA [1, 2, 0, 0],
// SB [0, 0, 1, 2]); the hosts send everything over their uplink.

/// Overwrites the little-endian u32 at `at`.
fn put_u32(bytes: &mut [u8], at: u64, value: u32) {
    let at = at as usize;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Recomputes the seal and the checksum, as someone who knows the key could.
fn forge(bytes: &mut Vec<u8>) {
    bytes.truncate(bytes.len() - 4 - SEAL_LEN);
    let mut digest = Digest::new();
    digest.update(bytes);
    let seal = digest.seal();
    bytes.extend_from_slice(&seal);
    let crc = crc32fast::hash(bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
}

/// The error of `bytes` after `edit` and a recomputed checksum; asserts its position.
#[track_caller]
fn edited_error(edit: impl FnOnce(&read::Stored, &mut Vec<u8>) -> u64) -> String {
    let (_, mut bytes) = cache_bytes();
    let layout = sections_of(&bytes);
    let at = edit(&layout, &mut bytes);
    reseal(&mut bytes);
    let err = read(&bytes).expect_err("an edited cache is refused");
    assert_eq!(
        (err.path.as_str(), err.byte),
        ("t.orcsfab", Some(at)),
        "{err}"
    );
    err.to_string()
}

/// The table entry of `node` towards `host`: its offset.
fn entry_at(layout: &read::Stored, node: usize, host: usize) -> u64 {
    let row = layout.table.row_of_node.items[node] as usize;
    layout.table.entry_at(row * layout.table.num_hosts + host)
}

#[test]
fn a_table_port_beyond_the_switch_is_located() {
    let err = edited_error(|l, b| {
        let at = entry_at(l, 0, 1);
        b[at as usize] = 7;
        at
    });
    assert!(
        err.contains("the table entry of node 0 ('SA') towards host 1 ('H1') is port 7; expected a port below its 3 out-edges, or 255 for no route"),
        "{err}"
    );
}

#[test]
fn table_rows_and_uniform_edges_are_located() {
    let err = edited_error(|l, b| {
        let at = l.table.row_of_node.item_at(1);
        put_u32(b, at, 9);
        at
    });
    assert!(
        err.contains("node 1 ('SB') names table row 9; expected a row below 2"),
        "{err}"
    );
    // H0 sending everything over SB's edge to H2.
    let err = edited_error(|l, b| {
        let at = l.table.uniform_edge.item_at(2);
        put_u32(b, at, 4);
        at
    });
    assert!(
        err.contains("node 2 ('H0') sends everything over edge 4; expected one of its edges 6..7"),
        "{err}"
    );
}

#[test]
fn csr_offsets_are_located() {
    let err = edited_error(|l, b| {
        let at = l.out_start.item_at(2);
        put_u32(b, at, 1);
        at
    });
    assert!(
        err.contains("edge offset 2 is 1, below offset 1 (3)"),
        "{err}"
    );
    let err = edited_error(|l, b| {
        let at = l.out_start.item_at(6);
        put_u32(b, at, 11);
        at
    });
    assert!(
        err.contains("the last edge offset is 11; expected the edge count 10"),
        "{err}"
    );
    let err = edited_error(|l, b| {
        let at = l.edge_head.item_at(4);
        put_u32(b, at, 50);
        at
    });
    assert!(
        err.contains("edge 4 has head node 50; expected a node id below 6"),
        "{err}"
    );
    let err = edited_error(|l, b| {
        let at = l.edge_tail.item_at(3);
        put_u32(b, at, 0);
        at
    });
    assert!(
        err.contains("edge 3 has tail node 0; expected node 1 (SB)"),
        "{err}"
    );
}

#[test]
fn host_ids_are_located() {
    let err = edited_error(|l, b| {
        let at = l.hosts.item_at(1);
        put_u32(b, at, 99);
        at
    });
    assert!(
        err.contains("host 1 names node 99; expected a node id below 6"),
        "{err}"
    );
    let err = edited_error(|l, b| {
        let at = l.hosts.item_at(2);
        put_u32(b, at, 2);
        at
    });
    assert!(
        err.contains("host 2 names node 2; expected a node after host 1's node 3"),
        "{err}"
    );
    // A switch in the host list: host 0 names SB.
    let err = edited_error(|l, b| {
        let at = l.hosts.item_at(0);
        put_u32(b, at, 1);
        at
    });
    assert!(
        err.contains("host 0 names node 1; 'SB' is not a host"),
        "{err}"
    );
}

#[test]
fn section_counts_are_located() {
    // The node lines section loses its last entry (and says so in its length).
    let err = edited_error(|l, b| {
        let at = l.node_lines.at;
        put_u32(b, at, 5);
        let last = l.node_lines.item_at(5) as usize;
        b.drain(last..last + 4);
        at
    });
    assert!(
        err.contains("the node lines section has 5 entries; expected 6 (one per node)"),
        "{err}"
    );
}

#[test]
fn an_edited_table_loses_its_route_summary() {
    // SB sends H3's traffic back to SA (port 0), which sends it to SB: a loop, in a table
    // whose stored check says every pair is routed. A walk that trusted it would not end.
    let (_, mut bytes) = cache_bytes();
    let layout = sections_of(&bytes);
    bytes[entry_at(&layout, 1, 3) as usize] = 0;
    reseal(&mut bytes);
    let loaded = read(&bytes).unwrap();
    assert_eq!(loaded.routes, None);
    assert_eq!(
        loaded.warnings,
        ["t.orcsfab: the stored route check does not match the file's content (it was changed after orcs wrote it); the routes are checked again"]
    );
    let hosts: Vec<u32> = (0..4).collect();
    let check = check_routes(&loaded.fabric, &loaded.table, &hosts);
    assert_eq!(
        (check.loops, check.dead_ends),
        (3, 0),
        "H0, H1 and H2 to H3"
    );
}

#[test]
fn an_edited_route_summary_is_not_believed() {
    // A check of a broken table claimed clean: the summary of the looping fabric, edited
    // to say nothing is broken.
    let looping = FABRIC
        .replace("SB -> H3 [comment=H3]", "SB -> H3")
        .replace("comment=\"H0,H1\"", "comment=\"H0,H1,H3\"");
    let (_, mut bytes) = cache_of(&looping, true);
    let layout = sections_of(&bytes);
    let r = layout.routes.as_ref().unwrap();
    assert_eq!(r.summary.broken, 3);
    let at = r.at as usize + 16;
    bytes[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    reseal(&mut bytes);
    let loaded = read(&bytes).unwrap();
    assert_eq!(loaded.routes, None);
    assert_eq!(loaded.warnings.len(), 1);
    // With the seal forged too, the summary must still add up.
    forge(&mut bytes);
    let err = read(&bytes).err().unwrap();
    assert_eq!(err.byte, Some(at as u64));
    assert!(err.message.contains("the stored route check does not fit the fabric: 0 broken and 9 routed pairs; expected them to add up to the 12 pairs checked"), "{err}");
}

#[test]
fn an_untouched_cache_keeps_its_summary_and_no_warning() {
    let (loaded, bytes) = cache_bytes();
    let back = read(&bytes).unwrap();
    assert_eq!(back.routes, loaded.routes);
    assert!(back.warnings.is_empty());
    // The seal covers the fabric too: renaming a host drops the summary.
    let mut renamed = bytes.clone();
    let at = renamed.windows(2).position(|w| w == b"H3").unwrap();
    renamed[at + 1] = b'7';
    reseal(&mut renamed);
    assert_eq!(read(&renamed).unwrap().routes, None);
}
