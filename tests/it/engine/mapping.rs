//! Host subsets and rank mapping through the command line (spec §4).

use crate::support::*;

/// The rank lists printed by --printnamelist, one Vec per run.
fn namelists(run: &Run) -> Vec<Vec<String>> {
    run.stdout
        .split("Namelist in node with rank 0: \n=================\n")
        .skip(1)
        .map(|block| {
            block
                .lines()
                .take_while(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[test]
fn node_ordering_file_fixes_the_first_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let order = dir.path().join("order.txt");
    // H00005 (GUID 5), H00003, and 0xa, which is no host: H00010's GUID is 0x10.
    std::fs::write(&order, "# first ranks\n0x5\n  3 # H00003\n\n0X000a\n").unwrap();
    let run = orcs(&[
        "-i",
        FT4,
        "-n",
        "20",
        "--seed",
        "6",
        "--printnamelist",
        "--node_ordering_file",
        order.to_str().unwrap(),
    ])
    .ok();
    let lists = namelists(&run);
    assert_eq!(lists.len(), 20, "{}", run.describe());
    for list in &lists {
        assert_eq!(&list[..2], ["H00005", "H00003"], "{}", run.describe());
        let mut sorted = list.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 16);
    }
    // The rest is reshuffled per run.
    assert!(lists.iter().any(|l| l[2..] != lists[0][2..]));
    assert!(
        run.stderr
            .contains("1 node ordering entries are not hosts of the subset and were dropped: 0xa"),
        "{}",
        run.describe()
    );

    std::fs::write(&order, "5\nnot-a-guid\n").unwrap();
    orcs(&["-i", FT4, "--node_ordering_file", order.to_str().unwrap()])
        .fails_with(1, &["order.txt:2: `not-a-guid` is not a valid GUID"]);
}

#[test]
fn subset_is_fixed_and_order_reshuffled() {
    let run = orcs(&[
        "-i",
        FT4,
        "-s",
        "6",
        "-n",
        "30",
        "--seed",
        "2",
        "--printnamelist",
    ])
    .ok();
    let lists = namelists(&run);
    let mut first = lists[0].clone();
    first.sort();
    for list in &lists {
        let mut s = list.clone();
        s.sort();
        assert_eq!(s, first, "the same 6 hosts in every run");
    }
    assert!(
        lists.iter().any(|l| l != &lists[0]),
        "orders differ between runs"
    );
    // -d keeps the draw order in every run.
    let fixed = orcs(&[
        "-i",
        FT4,
        "-s",
        "6",
        "-n",
        "5",
        "--seed",
        "2",
        "--printnamelist",
        "-d",
    ])
    .ok();
    let lists = namelists(&fixed);
    assert!(lists.iter().all(|l| l == &lists[0]));
    // guid_order_desc takes the largest GUIDs, largest first.
    let desc = orcs(&[
        "-i",
        FT4,
        "-s",
        "4",
        "--subset",
        "guid_order_desc",
        "-d",
        "--printnamelist",
        "--seed",
        "1",
    ])
    .ok();
    assert_eq!(
        namelists(&desc)[0],
        ["H00015", "H00014", "H00013", "H00012"]
    );
    // linear_bfs from the first node of the file (H00000): its switch's hosts first.
    let bfs = orcs(&[
        "-i",
        FT4,
        "-s",
        "4",
        "--subset",
        "linear_bfs",
        "-d",
        "--printnamelist",
        "--seed",
        "1",
    ])
    .ok();
    assert_eq!(
        namelists(&bfs)[0],
        ["H00000", "H00001", "H00002", "H00003"],
        "{}",
        bfs.describe()
    );
}

#[test]
fn part_subset_fills_the_first_communicator() {
    let run = orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "bisect::bruck",
        "-z",
        "4",
        "--part_subset",
        "guid_order_desc",
        "-n",
        "25",
        "--seed",
        "4",
        "--printnamelist",
    ])
    .ok();
    let lists = namelists(&run);
    let part = ["H00012", "H00013", "H00014", "H00015"];
    for list in &lists {
        let mut head: Vec<&str> = list[..4].iter().map(String::as_str).collect();
        head.sort();
        assert_eq!(head, part, "{}", run.describe());
    }
    assert!(
        lists.iter().any(|l| l[..4] != lists[0][..4]),
        "shuffled among themselves"
    );
    assert!(run.stdout.contains("Part_subset: guid_order_desc\n"));
    assert!(
        run.stdout.contains("Pattern: ptrnvsptrn\n"),
        "{}",
        run.describe()
    );
    orcs(&[
        "-i",
        FT4,
        "-p",
        "ptrnvsptrn",
        "-a",
        "bisect::bruck",
        "--part_subset",
        "linear_bfs",
    ])
    .fails_with(
        1,
        &["--part_subset linear_bfs requires --subset linear_bfs"],
    );
}
