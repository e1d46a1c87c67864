//! `orcs trace dump`: byte-identical to sst-dumpi's `dumpi2ascii -H -S -F -X` on the
//! bundled fixtures, on every sample of `../shared/traces/dumpi/`, and on a real trace
//! of a program calling many MPI functions made here with libdumpi; and bad traces
//! refused with the file and byte offset named.

use crate::dumpi::{assert_dump, bins, sst_dumpi, TracedProgram};
use crate::support::{orcs, repo, shared};
use std::path::{Path, PathBuf};

const TESTTRACE: &str = "tests/fixtures/dumpi/testtrace";
const MANY: &str = "tests/fixtures/dumpi/many_calls-0000.bin";

fn golden(bin: &Path) -> String {
    let text = bin.with_extension("dumpi2ascii.txt");
    std::fs::read_to_string(&text).unwrap_or_else(|e| panic!("{}: {e}", text.display()))
}

#[test]
fn fixture_ranks_dump_byte_identical_to_dumpi2ascii() {
    for bin in bins(Path::new(&repo(TESTTRACE))) {
        assert_dump(&["trace", "dump", &bin.to_string_lossy()], &golden(&bin));
    }
    assert_dump(&["trace", "dump", MANY], &golden(Path::new(&repo(MANY))));
    // Annotations made by MPI_Pcontrol, by the library format 13.
    let phases = Path::new(&repo("tests/fixtures/dumpi/phases/phases-0000.bin")).to_path_buf();
    assert_dump(
        &["trace", "dump", &phases.to_string_lossy()],
        &golden(&phases),
    );
    // Written as text and made binary by ascii2dumpi.
    for name in ["ssend", "rendezvous"] {
        let ranks = bins(Path::new(&repo(&format!("tests/fixtures/dumpi/{name}"))));
        assert_eq!(ranks.len(), 2, "{name}");
        for bin in ranks {
            assert_dump(&["trace", "dump", &bin.to_string_lossy()], &golden(&bin));
        }
    }
}

#[test]
fn a_meta_file_dumps_every_rank_in_order_or_the_one_asked_for() {
    let dir = PathBuf::from(repo(TESTTRACE));
    let dir = dir.as_path();
    let all: String = bins(dir).iter().map(|b| golden(b)).collect();
    let meta = format!("{TESTTRACE}/testtrace.meta");
    assert_dump(&["trace", "dump", &meta], &all);
    let third = golden(&dir.join("testtrace-0002.bin"));
    assert_dump(&["trace", "dump", &meta, "--rank", "2"], &third);
    orcs(&["trace", "dump", &meta, "--rank", "4"]).fails_with(1, &["--rank 4", "ranks 0 to 3"]);
    orcs(&["trace", "dump", MANY, "--rank", "1"]).fails_with(1, &["--rank 1", "holds rank 0 only"]);
}

#[test]
fn dump_writes_the_output_file_and_reads_gzip_rank_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = PathBuf::from(repo(TESTTRACE));
    let src = src.as_path();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".bin") {
            let mut gz = flate2::write::GzEncoder::new(
                std::fs::File::create(dir.path().join(format!("{name}.gz"))).unwrap(),
                flate2::Compression::default(),
            );
            std::io::copy(&mut std::fs::File::open(&path).unwrap(), &mut gz).unwrap();
            gz.finish().unwrap();
        } else if name.ends_with(".meta") {
            std::fs::copy(&path, dir.path().join(name)).unwrap();
        }
    }
    let out = dir.path().join("dump.txt");
    let meta = dir.path().join("testtrace.meta");
    orcs(&[
        "trace",
        "dump",
        &meta.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
    ])
    .ok();
    let expected: String = bins(src).iter().map(|b| golden(b)).collect();
    assert!(
        std::fs::read_to_string(&out).unwrap() == expected,
        "gzip dump differs"
    );
}

#[test]
fn every_shared_sample_dumps_byte_identical_to_its_golden() {
    let Some(root) = shared("traces/dumpi") else {
        return;
    };
    let mut checked = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for bin in bins(&dir) {
            assert_dump(&["trace", "dump", &bin.to_string_lossy()], &golden(&bin));
            checked += 1;
        }
    }
    assert!(checked >= 19, "only {checked} sample rank files found");
}

#[test]
fn dump_equals_dumpi2ascii_on_every_rank_of_a_program_calling_many_functions() {
    let Some(prefix) = sst_dumpi() else { return };
    let program = TracedProgram::compile(&prefix, "many_calls");
    let trace = program.trace(4);
    for expected in program.assert_dumps_match(&trace) {
        assert!(
            expected
                .lines()
                .filter(|l| l.contains(" entering at "))
                .count()
                > 100
        );
    }
}

/// A copy of the fixture trace in a temporary folder, for breaking.
fn broken_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(repo(TESTTRACE)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The offset of the call stream, from the 64-byte index at the end of `bytes`.
fn body_offset(bytes: &[u8]) -> usize {
    let at = bytes.len() - 64 + 5 * 8;
    u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap()) as usize
}

fn rewrite(path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    change(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_truncated_rank_file_is_refused_with_its_name_and_offset() {
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0001.bin");
    rewrite(&bin, |b| b.truncate(1500));
    let meta = dir.path().join("testtrace.meta");
    orcs(&["trace", "dump", &meta.to_string_lossy()]).fails_with(
        1,
        &[
            "testtrace-0001.bin: byte 1436: no index at the end of the file",
            "truncated",
        ],
    );
}

#[test]
fn a_wrong_magic_is_refused_at_byte_0() {
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0000.bin");
    rewrite(&bin, |b| b[0] = 0);
    orcs(&["trace", "dump", &bin.to_string_lossy()]).fails_with(
        1,
        &[
            "testtrace-0000.bin: byte 0: wrong magic",
            "not a DUMPI trace",
        ],
    );
}

#[test]
fn an_unknown_or_unrecordable_function_label_is_refused_where_it_is() {
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0000.bin");
    let body = body_offset(&std::fs::read(&bin).unwrap());
    // The first record's label follows the two 4-byte time biases.
    let label = body + 8;
    for (value, needle) in [
        (1000u16, "unknown function label 1000"),
        (128, "MPI_Pcontrol is never recorded"),
    ] {
        rewrite(&bin, |b| {
            b[label..label + 2].copy_from_slice(&value.to_be_bytes())
        });
        orcs(&["trace", "dump", &bin.to_string_lossy()])
            .fails_with(1, &[&format!("testtrace-0000.bin: byte {label}: "), needle]);
    }
}

#[test]
fn an_array_count_past_the_end_of_the_file_is_a_truncation_not_an_allocation() {
    let dir = broken_copy();
    let bin = dir.path().join("testtrace-0000.bin");
    let bytes = std::fs::read(&bin).unwrap();
    let body = body_offset(&bytes);
    // MPI_Init: label, mask 0x4f (thread, CPU and wall times, statuses), thread, 24 bytes
    // of times, then argc.
    assert_eq!(&bytes[body + 8..body + 11], &[0, 124, 0x4f]);
    let argc = body + 8 + 2 + 1 + 2 + 24;
    rewrite(&bin, |b| {
        b[argc..argc + 4].copy_from_slice(&i32::MAX.to_be_bytes())
    });
    orcs(&["trace", "dump", &bin.to_string_lossy()]).fails_with(
        1,
        &[
            "testtrace-0000.bin: byte ",
            "the file ends inside argument 'argv' of MPI_Init",
        ],
    );
}

#[test]
fn a_missing_rank_file_or_a_disagreeing_meta_is_refused() {
    let dir = broken_copy();
    let meta = dir.path().join("testtrace.meta");
    let meta_arg = meta.to_string_lossy().into_owned();
    std::fs::remove_file(dir.path().join("testtrace-0002.bin")).unwrap();
    orcs(&["trace", "dump", &meta_arg]).fails_with(
        1,
        &[
            "testtrace.meta: the file of rank 2",
            "testtrace-0002.bin",
            "is missing (numprocs=4)",
        ],
    );
    let dir = broken_copy();
    let meta = dir.path().join("testtrace.meta");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("numprocs=4", "numprocs=3")).unwrap();
    orcs(&["trace", "dump", &meta.to_string_lossy()]).fails_with(
        1,
        &[
            "numprocs=3, but",
            "testtrace-0003.bin",
            "does not match the rank files",
        ],
    );
    let dir = broken_copy();
    let meta = dir.path().join("testtrace.meta");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("subversion=0", "subversion=7")).unwrap();
    orcs(&["trace", "dump", &meta.to_string_lossy()]).fails_with(
        1,
        &["testtrace-0000.bin: byte ", "version 1.0.0", "subversion=7"],
    );
}

#[test]
fn the_readme_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let at = readme
        .find("```sh\norcs trace dump ")
        .expect("the README's example")
        + 6;
    let command = &readme[at..at + readme[at..].find('\n').unwrap()];
    let args: Vec<&str> = command
        .split(" | ")
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .collect();
    let shown_at = at + readme[at..].find("```\n\n```\n").unwrap() + 9;
    let shown = &readme[shown_at..shown_at + readme[shown_at..].find("```").unwrap()];
    let run = orcs(&args).ok();
    let head: String = run
        .stdout
        .lines()
        .take(10)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(head, shown, "{}", run.describe());
}
