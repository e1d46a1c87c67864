//! What orcs promises about the user's files: an output that is one of the inputs (or
//! another output) is refused before any work and the input stays byte for byte; a
//! symbolic link is written through; devices are written in place and stay devices; a
//! write that fails (a full disk, here a file size limit) keeps the old file and leaves
//! no temporary file; a panic is reported as a bug with exit status 101.

use crate::support::*;
use std::os::unix::fs::{symlink, FileTypeExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// `fixture` copied into `dir` as `name`; its path.
fn copy_in(dir: &Path, fixture: &str, name: &str) -> String {
    let path = dir.join(name);
    std::fs::copy(repo(fixture), &path).unwrap();
    path.to_str().unwrap().to_string()
}

/// `text` written into `dir` as `name`; its path.
fn write_in(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Runs `args`, expects the refusal of `output` (named by `output_flag`) as the input
/// `input` (named by `input_flag`), and checks that `input` kept its bytes.
#[track_caller]
fn refused(args: &[&str], output_flag: &str, output: &str, input_flag: &str, input: &str) {
    let before = std::fs::read(input).unwrap();
    orcs(args).fails_with(
        1,
        &[&format!(
            "orcs: error: {output_flag} '{output}' is the same file as the input {input_flag} '{input}'; orcs never overwrites an input"
        )],
    );
    assert_eq!(std::fs::read(input).unwrap(), before, "{input} changed");
}

#[test]
fn a_simulation_refuses_to_write_its_fabric() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_in(dir.path(), TWO, "f.dot");
    let sim = |flag: &str, out: &str| -> Vec<String> {
        ["-i", &f, "-n", "5", "--seed", "1", flag, out]
            .map(String::from)
            .to_vec()
    };
    for flag in ["--links", "-o"] {
        let args = sim(flag, &f);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let shown = if flag == "-o" {
            "-o/--output_file"
        } else {
            flag
        };
        refused(&args, shown, &f, "-i/--input_file", &f);
    }
    // The same file under another name: a dotted path, a symbolic link, a hard link.
    let dotted = format!("{}/./f.dot", dir.path().display());
    let link = dir.path().join("link.dot");
    symlink(&f, &link).unwrap();
    let hard = dir.path().join("hard.dot");
    std::fs::hard_link(&f, &hard).unwrap();
    for other in [
        dotted.as_str(),
        link.to_str().unwrap(),
        hard.to_str().unwrap(),
    ] {
        let args = sim("--links", other);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, "--links", other, "-i/--input_file", &f);
    }
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // -p matrix: the matrix is an input too.
    let m = copy_in(dir.path(), "tests/fixtures/two-switch-matrix.csv", "m.csv");
    refused(
        &["-i", &f, "--matrix", &m, "-n", "5", "--seed", "1", "-o", &m],
        "-o/--output_file",
        &m,
        "--matrix",
        &m,
    );
}

#[test]
fn convert_refuses_to_write_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let f = copy_in(dir.path(), TWO, "f.dot");
    refused(
        &["convert", "-i", &f, "-o", &f],
        "-o/--output",
        &f,
        "-i/--input_file",
        &f,
    );
    let dotted = format!("{}/../{}/f.dot", dir.path().display(), {
        dir.path().file_name().unwrap().to_str().unwrap()
    });
    refused(
        &["convert", "-i", &f, "-o", &dotted],
        "-o/--output",
        &dotted,
        "-i/--input_file",
        &f,
    );
    assert_eq!(names(dir.path()), ["f.dot"]);
}

#[test]
fn report_and_plot_refuse_to_write_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("r.svg");
    let r = result.to_str().unwrap();
    orcs(&[
        "-i", TWO, "-n", "20", "--seed", "3", "--format", "json", "-o", r,
    ])
    .ok();
    refused(&["report", r, "-o", r], "-o/--output", r, "RESULT", r);
    refused(&["plot", r, "-o", r], "-o/--output", r, "RESULT", r);
    // Among several results, the second one.
    let first = write_in(dir.path(), "a.json", &std::fs::read_to_string(r).unwrap());
    refused(
        &["report", &first, r, "-o", r],
        "-o/--output",
        r,
        "RESULT",
        r,
    );
}

#[test]
fn queue_refuses_to_write_its_parameter_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_in(
        dir.path(),
        "q.toml",
        "clusters = [2, 4]\ntotal_nodes = 64\nrate = 20\nmessage_size = [\"512\"]\n",
    );
    refused(
        &["queue", "--config", &config, "-o", &config],
        "-o/--output",
        &config,
        "--config",
        &config,
    );
}

#[test]
fn traffic_refuses_to_write_its_matrix_or_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = copy_in(dir.path(), TWO, "c.dot");
    let m = copy_in(dir.path(), "tests/fixtures/two-switch-matrix.csv", "m.csv");
    for (input_flag, input) in [("--cluster", &cluster), ("--matrix", &m)] {
        refused(
            &[
                "traffic",
                "--cluster",
                &cluster,
                "--matrix",
                &m,
                "--links",
                input,
            ],
            "--links",
            input,
            input_flag,
            input,
        );
    }
}

#[test]
fn scan_refuses_to_write_its_plan_or_the_files_it_merges() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_in(
        dir.path(),
        "plan.toml",
        &format!(
            "runs = 5\nseed = 1\nmetrics = [\"sum_max_cong\"]\ncommsizes = [0]\npatterns = [\"bisect\"]\n\n[[fabrics]]\npath = \"{}\"\n",
            repo(TWO)
        ),
    );
    refused(
        &["scan", &plan, "--csv", &plan],
        "--csv",
        &plan,
        "PLAN",
        &plan,
    );
    refused(
        &["scan", &plan, "-o", &plan],
        "-o/--output",
        &plan,
        "PLAN",
        &plan,
    );
    assert_eq!(names(dir.path()), ["plan.toml"]);
    orcs(&["scan", &plan, "-q"]).ok();
    let results = dir.path().join("plan.jsonl");
    let results = results.to_str().unwrap();
    refused(
        &["scan", "--merge", results, "-o", results],
        "-o/--output",
        results,
        "--merge",
        results,
    );
}

#[test]
fn two_outputs_naming_one_file_are_refused_before_either_exists() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let o = out.to_str().unwrap();
    let dotted = format!("{}/./out.csv", dir.path().display());
    orcs(&["-i", TWO, "-n", "5", "-o", o, "--links", &dotted]).fails_with(
        1,
        &[&format!(
            "-o/--output_file '{o}' and --links '{dotted}' are the same file; give each output its own name"
        )],
    );
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

#[test]
fn a_symbolic_link_output_is_written_through_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = write_in(dir.path(), "real.dot", "old");
    let link = dir.path().join("link.dot");
    symlink("real.dot", &link).unwrap();
    let l = link.to_str().unwrap();
    orcs(&["convert", "-i", TWO, "-o", l]).ok();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let expected = orcs(&["convert", "-i", TWO, "-o", "-"]).ok().stdout;
    assert_eq!(std::fs::read_to_string(&real).unwrap(), expected);
    // A simulation's side file, through a link to a file that does not exist yet.
    let links = dir.path().join("links.csv");
    symlink("table.csv", &links).unwrap();
    orcs(&[
        "-i",
        TWO,
        "-n",
        "5",
        "--seed",
        "1",
        "--links",
        links.to_str().unwrap(),
    ])
    .ok();
    assert!(std::fs::symlink_metadata(&links)
        .unwrap()
        .file_type()
        .is_symlink());
    let table = std::fs::read_to_string(dir.path().join("table.csv")).unwrap();
    assert!(table.lines().count() > 1, "{table}");
    assert_eq!(
        names(dir.path()),
        ["link.dot", "links.csv", "real.dot", "table.csv"]
    );
}

/// Whether `path` is a character device.
fn is_char_device(path: &str) -> bool {
    std::fs::metadata(path)
        .unwrap()
        .file_type()
        .is_char_device()
}

/// A C string of `path`, for libc.
fn c_path(path: &Path) -> std::ffi::CString {
    std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap()
}

/// A character device in `dir` named `name` that is the device `of` (`/dev/null`, say),
/// or None when this user may not make one.
fn device_copy(dir: &Path, name: &str, of: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let path = dir.join(name);
    let device = std::fs::metadata(of).unwrap().rdev();
    // SAFETY: a valid C string and plain integers.
    let made = unsafe { libc::mknod(c_path(&path).as_ptr(), libc::S_IFCHR | 0o666, device) };
    (made == 0).then(|| path.to_str().unwrap().to_string())
}

/// The commands that write `null` (a device that takes everything) and `full` (one
/// that fails every write), and check that both stay devices.
#[track_caller]
fn write_to_devices(null: &str, full: &str) {
    orcs(&["-i", TWO, "-n", "5", "--seed", "1", "-o", null]).ok();
    orcs(&["convert", "-i", TWO, "--to", "dot", "-o", null]).ok();
    orcs(&["-i", TWO, "-n", "5", "--links", null, "-o", null]).ok();
    assert!(is_char_device(null), "{null} was replaced");
    // The error names the device, and it stays a device.
    orcs(&["-i", TWO, "-n", "5", "--seed", "1", "-o", full]).fails_with(
        1,
        &[&format!(
            "orcs: error: -o/--output_file: cannot write '{full}': No space left on device"
        )],
    );
    orcs(&["convert", "-i", TWO, "--to", "dot", "-o", full])
        .fails_with(1, &[&format!("-o/--output: cannot write '{full}'")]);
    assert!(is_char_device(full), "{full} was replaced");
}

#[test]
fn devices_and_pipes_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO, held open for reading (and writing, so that neither side waits).
    let fifo = dir.path().join("fifo");
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c_path(&fifo).as_ptr(), 0o600) }, 0);
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    orcs(&[
        "convert",
        "-i",
        TWO,
        "--to",
        "dot",
        "-o",
        fifo.to_str().unwrap(),
    ])
    .ok();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match std::io::Read::read(&mut reader, &mut buf) {
            Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    let expected = orcs(&["convert", "-i", TWO, "--to", "dot", "-o", "-"])
        .ok()
        .stdout;
    assert_eq!(String::from_utf8(got).unwrap(), expected);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // Copies of /dev/null and /dev/full first: a regression running as root replaces
    // them, not the system's devices.
    let copies = (
        device_copy(dir.path(), "null", "/dev/null"),
        device_copy(dir.path(), "full", "/dev/full"),
    );
    match copies {
        (Some(null), Some(full)) => write_to_devices(&null, &full),
        // SAFETY: geteuid has no preconditions.
        _ if unsafe { libc::geteuid() } == 0 => {
            return note_skip(
                "/dev/null and /dev/full",
                "root may not make device files here to try first, and a regression would replace the system's",
            );
        }
        _ => {}
    }
    write_to_devices("/dev/null", "/dev/full");
}

/// Runs `command` and collects what it did, as [`orcs`] does.
fn collect(mut command: Command, what: &str) -> Run {
    let out = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("failed to run orcs");
    Run {
        command: what.to_string(),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `orcs args` unable to write more than `max_bytes` into any file: writes beyond
/// fail with EFBIG ("File too large") as they would with ENOSPC on a full disk.
fn orcs_with_file_limit(args: &[&str], max_bytes: u64) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orcs"));
    command.args(args);
    // SAFETY: setrlimit and signal are async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: max_bytes,
                rlim_max: max_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Without this the write would kill the process instead of failing.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    collect(
        command,
        &format!(
            "orcs {} (files limited to {max_bytes} bytes)",
            args.join(" ")
        ),
    )
}

#[test]
fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let old = "precious";
    let keep = |name: &str| write_in(dir.path(), name, old);
    let (out, links, plot, fabric) = (keep("out.txt"), keep("l.csv"), keep("p.svg"), keep("f.dot"));
    let sim = ["-i", TWO, "-n", "20", "--seed", "1"];
    for (flag, shown, path) in [
        ("-o", "-o/--output_file", &out),
        ("--links", "--links", &links),
        ("--plot", "--plot", &plot),
    ] {
        let mut args = sim.to_vec();
        args.extend([flag, path.as_str()]);
        orcs_with_file_limit(&args, 64).fails_with(
            1,
            &[&format!(
                "orcs: error: {shown}: cannot write '{path}': File too large (os error 27)\n"
            )],
        );
    }
    orcs_with_file_limit(&["convert", "-i", TWO, "-o", &fabric], 64).fails_with(
        1,
        &[&format!(
            "-o/--output: cannot write '{fabric}': File too large (os error 27)\n"
        )],
    );
    for path in [&out, &links, &plot, &fabric] {
        assert_eq!(std::fs::read_to_string(path).unwrap(), old, "{path}");
    }
    assert_eq!(names(dir.path()), ["f.dot", "l.csv", "out.txt", "p.svg"]);
    // The same commands write when they may.
    let mut args = sim.to_vec();
    args.extend(["-o", &out]);
    orcs(&args).ok();
    assert_ne!(std::fs::read_to_string(&out).unwrap(), old);
}

/// `orcs --help` with `ORCS_TEST_PANIC=place` and `RUST_BACKTRACE` as given.
fn deliberate_panic(place: &str, backtrace: Option<&str>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orcs"));
    command.arg("--help").env("ORCS_TEST_PANIC", place);
    match backtrace {
        Some(value) => command.env("RUST_BACKTRACE", value),
        None => command.env_remove("RUST_BACKTRACE"),
    };
    collect(command, &format!("ORCS_TEST_PANIC={place} orcs --help"))
}

#[test]
fn a_panic_is_reported_as_a_bug_with_status_101() {
    let line = regex::Regex::new(
        r"^orcs: internal error: ORCS_TEST_PANIC is set: a deliberate panic at src/bin/orcs/main\.rs:\d+:\d+; this is a bug, please report it\n$",
    )
    .unwrap();
    for place in ["main", "worker"] {
        let run = deliberate_panic(place, None);
        assert_eq!(run.status, Some(101), "{}", run.describe());
        assert!(run.stdout.is_empty(), "{}", run.describe());
        assert!(line.is_match(&run.stderr), "{}", run.describe());
    }
    // RUST_BACKTRACE=1 adds Rust's message and the backtrace before the line.
    let run = deliberate_panic("main", Some("1"));
    assert_eq!(run.status, Some(101), "{}", run.describe());
    assert!(
        run.stderr.contains("panicked at") && run.stderr.contains("stack backtrace:"),
        "{}",
        run.describe()
    );
    assert!(
        run.stderr
            .contains("orcs: internal error: ORCS_TEST_PANIC is set"),
        "{}",
        run.describe()
    );
}

#[test]
fn outputs_named_gz_are_gzip_and_every_reader_takes_them() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let gunzip = |path: &str| {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(bytes[..2], [0x1f, 0x8b], "{path} is not gzip");
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let run = ["-i", TWO, "-n", "20", "--seed", "3", "--format", "json"];
    let (json, json_gz) = (at("r.json"), at("r.json.gz"));
    orcs(&[&run[..], &["-o", &json]].concat()).ok();
    orcs(&[&run[..], &["-o", &json_gz]].concat()).ok();
    assert_eq!(
        gunzip(&json_gz).replace("r.json.gz", "r.json"),
        std::fs::read_to_string(&json).unwrap()
    );
    let (cable, cable_gz) = (at("c.json"), at("c.json.gz"));
    let cable_run = [&run[..], &["--metric", "get_cable_cong"]].concat();
    orcs(&[&cable_run[..], &["-o", &cable]].concat()).ok();
    orcs(&[&cable_run[..], &["-o", &cable_gz]].concat()).ok();
    // Plot, report and map read the compressed result as the plain one.
    for (command, json, json_gz) in [
        ("plot", &json, &json_gz),
        ("report", &json, &json_gz),
        ("map", &cable, &cable_gz),
    ] {
        let from = |result: &str, out: &str| {
            let mut args = vec![command];
            args.push(result);
            args.extend_from_slice(&["-o", out]);
            orcs(&args).ok();
            std::fs::read_to_string(out).unwrap()
        };
        let ext = if command == "report" { "html" } else { "svg" };
        let a = from(json, &at(&format!("a.{ext}")));
        let b = from(json_gz, &at(&format!("b.{ext}")));
        let b = b
            .replace("r.json.gz", "r.json")
            .replace("c.json.gz", "c.json");
        assert_eq!(a, b, "{command}");
    }
    // A converted fabric written compressed loads as the same fabric.
    let dot_gz = at("f.dot.gz");
    orcs(&["convert", "-i", TWO, "-o", &dot_gz]).ok();
    let text = gunzip(&dot_gz);
    assert!(text.starts_with("digraph"), "{text}");
    let via_gz = orcs(&["-i", &dot_gz, "-n", "20", "--seed", "3", "--format", "json"]).ok();
    let direct = orcs(&["-i", TWO, "-n", "20", "--seed", "3", "--format", "json"]).ok();
    let numbers = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        (v["summary"].clone(), v["per_run"].clone())
    };
    assert_eq!(numbers(&via_gz.stdout), numbers(&direct.stdout));
}
