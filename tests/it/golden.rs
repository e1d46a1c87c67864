//! Golden outputs: the commands of `tests/golden/cases.txt` must print and write exactly
//! the bytes recorded in `tests/golden/out/`. They pin every subcommand, pattern, metric,
//! input and output format, so that a change of layout or speed changes no result.
//!
//! `ORCS_BLESS=1` rewrites the expected files from the current binary; review the diff.

use crate::support::{orcs_in, repo};
use regex::Regex;
use std::fmt::Write as _;
use std::path::Path;

/// One golden case: a name and its steps, each the arguments of one `orcs` command.
struct Case {
    name: String,
    steps: Vec<Vec<String>>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(repo("tests/golden/cases.txt")).expect("cases.txt");
    let mut cases = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, args) = line
            .split_once(" | ")
            .unwrap_or_else(|| panic!("cases.txt: no ` | ` in {line:?}"));
        let steps = args
            .split(";;")
            .map(|step| step.split_whitespace().map(str::to_owned).collect())
            .collect();
        cases.push(Case {
            name: name.trim().to_owned(),
            steps,
        });
    }
    cases
}

/// Masks what legitimately differs between two runs of the same command: wall-clock
/// times, the CRC of records that contain them, and the scratch folder's path.
fn normalise(text: &str, scratch: &str) -> String {
    let text = text.replace(scratch, "{out}");
    let rules = [
        (r"in \d+\.\d+ s\b", "in <time> s"),
        (r#""seconds":\s*[-0-9.e+]+"#, "\"seconds\":<time>"),
        (r#""crc":"[0-9a-f]{8}""#, "\"crc\":\"<crc>\""),
    ];
    let mut text = text;
    // ORCS's compatible header names the machine.
    let host = Regex::new(r"(Unique hosts participating:\n    )\S+").expect("rule");
    text = host.replace_all(&text, "${1}<host>").into_owned();
    for (pattern, replacement) in rules {
        text = Regex::new(pattern)
            .expect("rule")
            .replace_all(&text, replacement)
            .into_owned();
    }
    text
}

/// The CSV summary of a scan ends every row with the seconds the cell took.
fn mask_seconds_column(text: &str) -> String {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return String::new();
    };
    if !header.ends_with(",seconds") {
        return text.to_owned();
    }
    let mut out = format!("{header}\n");
    for line in lines {
        let cut = line.rfind(',').map_or(line, |at| &line[..at]);
        let _ = writeln!(out, "{cut},<time>");
    }
    out
}

/// Every file under `dir` (sorted), as text or, for binary files, size and CRC-32.
/// Scan caches are skipped: their names follow file times.
fn files(dir: &Path, scratch: &str, out: &mut String) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("scratch folder")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let shown = path.display().to_string();
        if path.is_dir() {
            if !shown.ends_with(".cache") {
                files(&path, scratch, out);
            }
            continue;
        }
        let bytes = std::fs::read(&path).expect("output file");
        let shown = shown.replace(scratch, "{out}");
        match String::from_utf8(bytes.clone()) {
            Ok(text) if !text.contains('\0') => {
                let text = normalise(&text, scratch);
                let text = if shown.ends_with(".csv") {
                    mask_seconds_column(&text)
                } else if shown.ends_with(".jsonl") {
                    // Scan records are appended as their cells finish.
                    let mut lines: Vec<&str> = text.lines().collect();
                    lines.sort_unstable();
                    lines.iter().map(|l| format!("{l}\n")).collect()
                } else {
                    text
                };
                let _ = write!(out, "=== file {shown}\n{text}");
                if !text.ends_with('\n') {
                    out.push_str("\n(no newline at end)\n");
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "=== file {shown} (binary, {} bytes, crc32 {:08x})",
                    bytes.len(),
                    crc32fast::hash(&bytes)
                );
            }
        }
    }
}

fn record(case: &Case) -> String {
    let scratch = tempfile::tempdir().expect("scratch");
    let scratch_path = scratch.path().to_string_lossy().into_owned();
    let mut out = String::new();
    for step in &case.steps {
        let args: Vec<String> = step
            .iter()
            .map(|a| a.replace("{out}", &scratch_path))
            .collect();
        let run = orcs_in(&args, None);
        let _ = writeln!(out, "=== orcs {}", step.join(" "));
        let _ = writeln!(out, "=== exit {:?}", run.status);
        let _ = write!(out, "=== stdout\n{}", normalise(&run.stdout, &scratch_path));
        let _ = write!(out, "=== stderr\n{}", normalise(&run.stderr, &scratch_path));
    }
    files(scratch.path(), &scratch_path, &mut out);
    out
}

#[test]
fn commands_print_and_write_the_recorded_bytes() {
    let bless = std::env::var_os("ORCS_BLESS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/out");
    let cases = cases();
    assert!(cases.len() >= 60, "only {} golden cases", cases.len());
    let mut failures = Vec::new();
    if !bless {
        for entry in std::fs::read_dir(&dir).expect("tests/golden/out") {
            let name = entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            let stem = name.strip_suffix(".txt").unwrap_or(&name);
            if !cases.iter().any(|c| c.name == stem) {
                failures.push(format!("{name}: no case of cases.txt writes it"));
            }
        }
    }
    for case in &cases {
        let actual = record(case);
        let path = dir.join(format!("{}.txt", case.name));
        if bless {
            std::fs::create_dir_all(&dir).expect("golden folder");
            std::fs::write(&path, &actual).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if actual != expected {
            let first = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e)
                .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
            failures.push(format!(
                "{}: differs from {} at line {}:\n  got:      {:?}\n  expected: {:?}",
                case.name,
                path.display(),
                first + 1,
                actual.lines().nth(first).unwrap_or("<end>"),
                expected.lines().nth(first).unwrap_or("<end>"),
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden cases differ (ORCS_BLESS=1 rewrites them):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
