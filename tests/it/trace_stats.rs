//! `orcs trace stats`: the text, JSON and CSV summaries of the bundled testtrace fixture
//! (numbers read by hand off its `dumpi2ascii` text) and of the shared testbgp sample
//! (the aggregates of spec §3), `--rank` and `-o`, the README's example, and bad traces
//! refused with the file and byte offset.

use crate::support::{orcs, repo, shared_str};
use serde_json::Value;
use std::path::Path;

const META: &str = "tests/fixtures/dumpi/testtrace/testtrace.meta";

fn json(args: &[&str]) -> Value {
    let run = orcs(args).ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.describe()))
}

/// The CSV's rows as maps from column name to field.
fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            assert_eq!(fields.len(), header.len(), "{l}");
            header
                .iter()
                .zip(fields)
                .map(|(h, f)| (h.to_string(), f.to_string()))
                .collect()
        })
        .collect()
}

fn int(row: &std::collections::HashMap<String, String>, column: &str) -> i64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column}: {:?}", row[column]))
}

/// The line of `text` starting with `first` (after spaces), split into words.
fn words<'a>(text: &'a str, first: &str) -> Vec<&'a str> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|w| w.first() == Some(&first))
        .unwrap_or_else(|| panic!("no line starting with {first}:\n{text}"))
}

#[test]
fn text_shows_totals_then_ranks_then_functions_by_time() {
    let out = orcs(&["trace", "stats", META]).ok().stdout;
    let totals = out.find("totals over 4 ranks").unwrap();
    let ranks = out.find("\nPer rank\n").unwrap();
    let functions = out.find("\nFunctions over these ranks").unwrap();
    assert!(totals < ranks && ranks < functions, "{out}");
    assert!(
        out.contains("  MPI calls") && words(&out, "MPI").contains(&"36"),
        "{out}"
    );
    // Rank 0: span .737669000 to .740315000, 2,554,000 ns inside MPI.
    assert_eq!(
        words(&out, "0"),
        ["0", "9", "2.646", "2.554", "0.092", "96.5", "1", "4", "2", "4"]
    );
    // Isend: 15, 11, 15 and 11 µs on the four ranks (their dumpi2ascii texts).
    assert_eq!(
        words(&out, "MPI_Isend"),
        ["MPI_Isend", "4", "0.052", "0.4", "13.000", "4", "16"]
    );
    let table = &out[functions..];
    let order: Vec<&str> = table
        .lines()
        .skip(3)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        &order[..3],
        ["MPI_Finalize", "MPI_Barrier", "MPI_Allreduce"]
    );
}

#[test]
fn json_has_every_rank_the_total_and_per_function_times() {
    let doc = json(&["trace", "stats", META, "--format", "json"]);
    let ranks = doc["per_rank"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    let r0 = &ranks[0];
    assert_eq!(r0["rank"], 0);
    assert_eq!(
        (
            &r0["calls"],
            &r0["span_ns"],
            &r0["mpi_ns"],
            &r0["outside_mpi_ns"]
        ),
        (
            &9.into(),
            &2_646_000.into(),
            &2_554_000.into(),
            &92_000.into()
        )
    );
    // testtrace-0000: MPI_Isend entering at .739674000, returning at .739689000.
    let isend = &r0["functions"]["MPI_Isend"];
    assert_eq!(
        (
            &isend["calls"],
            &isend["wall_ns"],
            &isend["sends"],
            &isend["bytes"]
        ),
        (&1.into(), &15_000.into(), &1.into(), &4.into())
    );
    assert_eq!(r0["functions"]["MPI_Allreduce"]["bytes"], 4);
    assert_eq!(r0["functions"]["MPI_Barrier"]["wall_ns"], 1_947_000);
    let total = &doc["total"];
    assert_eq!(total["ranks"], 4);
    assert_eq!(
        (&total["calls"], &total["sends"], &total["send_bytes"]),
        (&36.into(), &4.into(), &16.into())
    );
    assert_eq!(
        (&total["collectives"], &total["collective_bytes"]),
        (&8.into(), &16.into())
    );
    for key in ["span_ns", "mpi_ns", "outside_mpi_ns"] {
        let sum: i64 = ranks.iter().map(|r| r[key].as_i64().unwrap()).sum();
        assert_eq!(total[key].as_i64(), Some(sum), "{key}");
    }
    assert_eq!(
        total["functions"]["MPI_Isend"]["wall_ns"],
        15_000 + 11_000 + 15_000 + 11_000
    );
}

#[test]
fn csv_rows_per_function_add_up_to_each_rank_total() {
    let out = orcs(&["trace", "stats", META, "--format", "csv"])
        .ok()
        .stdout;
    assert!(out.starts_with(
        "rank,function,calls,time_ns,sends,send_bytes,collectives,collective_bytes,unknown_size,span_ns,outside_mpi_ns,annotations\n"
    ));
    let rows = csv_rows(&out);
    // 9 functions and a total per rank.
    assert_eq!(rows.len(), 4 * 10);
    let all: Vec<_> = rows.iter().filter(|r| r["function"] == "ALL").collect();
    assert_eq!(all.len(), 4);
    let r0 = all[0];
    assert_eq!(
        [
            "rank",
            "calls",
            "time_ns",
            "sends",
            "send_bytes",
            "collectives",
            "collective_bytes",
            "span_ns",
            "outside_mpi_ns"
        ]
        .map(|c| int(r0, c)),
        [0, 9, 2_554_000, 1, 4, 2, 4, 2_646_000, 92_000]
    );
    for total in &all {
        let functions: Vec<_> = rows
            .iter()
            .filter(|r| r["rank"] == total["rank"] && r["function"] != "ALL")
            .collect();
        for column in [
            "calls",
            "time_ns",
            "sends",
            "send_bytes",
            "collectives",
            "collective_bytes",
        ] {
            let sum: i64 = functions.iter().map(|r| int(r, column)).sum();
            assert_eq!(sum, int(total, column), "rank {} {column}", total["rank"]);
        }
        assert!(functions.iter().all(|r| r["span_ns"].is_empty()));
    }
    let isend = rows
        .iter()
        .find(|r| r["rank"] == "3" && r["function"] == "MPI_Isend")
        .unwrap();
    assert_eq!(
        ["calls", "time_ns", "send_bytes"].map(|c| int(isend, c)),
        [1, 11_000, 4]
    );
}

#[test]
fn one_rank_goes_to_the_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stats.csv");
    let path = file.to_string_lossy();
    let run = orcs(&[
        "trace", "stats", META, "--rank", "2", "--format", "csv", "-o", &path,
    ])
    .ok();
    assert_eq!(run.stdout, "");
    let rows = csv_rows(&std::fs::read_to_string(&file).unwrap());
    assert!(rows.iter().all(|r| r["rank"] == "2"));
    let total = rows.iter().find(|r| r["function"] == "ALL").unwrap();
    // testtrace-0002: MPI_Init entering at .738101000, MPI_Finalize returning at .741227000.
    let doc = json(&["trace", "stats", META, "--rank", "2", "--format", "json"]);
    assert_eq!(doc["per_rank"].as_array().unwrap().len(), 1);
    assert_eq!(
        doc["total"]["span_ns"].as_i64(),
        Some(int(total, "span_ns"))
    );
    assert_eq!(int(total, "span_ns"), 3_126_000);
    orcs(&["trace", "stats", META, "--rank", "4"]).fails_with(1, &["--rank 4", "ranks 0 to 3"]);
    orcs(&["trace", "stats", META, "--format", "xml"]).fails_with(1, &["--format", "xml"]);
}

#[test]
fn testbgp_matches_the_spec_aggregates_in_every_format() {
    let Some(meta) = shared_str("traces/dumpi/sst-macro_testbgp/testbgp.meta") else {
        return;
    };
    let doc = json(&["trace", "stats", &meta, "--format", "json"]);
    let ranks = doc["per_rank"].as_array().unwrap();
    assert_eq!(ranks.len(), 7);
    for r in ranks {
        assert_eq!(
            (&r["calls"], &r["sends"], &r["send_bytes"]),
            (&227.into(), &84.into(), &59_808.into())
        );
        assert_eq!(r["functions"]["MPI_Alltoall"]["bytes"], 7 * 712);
    }
    assert_eq!(
        (
            &ranks[0]["span_ns"],
            &ranks[0]["mpi_ns"],
            &ranks[0]["outside_mpi_ns"]
        ),
        (&12_004_783.into(), &3_790_115.into(), &8_214_668.into())
    );
    assert_eq!(doc["total"]["send_bytes"], 7 * 59_808);
    let csv = orcs(&["trace", "stats", &meta, "--format", "csv", "--rank", "0"])
        .ok()
        .stdout;
    let rows = csv_rows(&csv);
    let total = rows.iter().find(|r| r["function"] == "ALL").unwrap();
    assert_eq!(
        [
            "calls",
            "sends",
            "send_bytes",
            "time_ns",
            "span_ns",
            "outside_mpi_ns"
        ]
        .map(|c| int(total, c)),
        [227, 84, 59_808, 3_790_115, 12_004_783, 8_214_668]
    );
    let text = orcs(&["trace", "stats", &meta]).ok().stdout;
    assert_eq!(
        &words(&text, "0")[..6],
        ["0", "227", "12.005", "3.790", "8.215", "31.6"]
    );
    assert_eq!(&words(&text, "MPI_Isend")[..2], ["MPI_Isend", "588"]);
}

#[test]
fn the_readme_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let at = readme
        .find("```sh\norcs trace stats ")
        .expect("the README's example")
        + 6;
    let command = &readme[at..at + readme[at..].find('\n').unwrap()];
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let shown_at = at + readme[at..].find("```\n\n```\n").unwrap() + 9;
    let shown = &readme[shown_at..shown_at + readme[shown_at..].find("```").unwrap()];
    let run = orcs(&args).ok();
    assert_eq!(run.stdout, shown, "{}", run.describe());
}

/// A copy of the fixture trace in a temporary folder, for breaking.
fn broken_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(repo("tests/fixtures/dumpi/testtrace")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn a_bad_rank_file_is_refused_with_its_name_and_offset_and_no_output_is_left() {
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0003.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    // The call stream's offset is in the 64-byte index at the end; the first record's
    // label follows the two 4-byte time biases.
    let at = bytes.len() - 64 + 5 * 8;
    let body = u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let label = body + 8;
    bytes[label..label + 2].copy_from_slice(&1000u16.to_be_bytes());
    std::fs::write(&bin, bytes).unwrap();
    let meta = dir.path().join("testtrace.meta");
    let out = dir.path().join("stats.json");
    orcs(&[
        "trace",
        "stats",
        &meta.to_string_lossy(),
        "--format",
        "json",
        "-o",
        &out.to_string_lossy(),
    ])
    .fails_with(
        1,
        &[
            &format!("testtrace-0003.bin: byte {label}: "),
            "unknown function label 1000",
        ],
    );
    assert!(!out.exists(), "a partial output was left");
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0001.bin");
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..1500]).unwrap();
    orcs(&[
        "trace",
        "stats",
        &Path::new(&dir.path().join("testtrace.meta")).to_string_lossy(),
    ])
    .fails_with(
        1,
        &["testtrace-0001.bin: byte 1436: no index at the end of the file"],
    );
}
