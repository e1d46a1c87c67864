//! Helpers of every test module: run the `orcs` binary and show the command and its
//! output whenever an expectation fails; find `../shared`, and optional tools, with a
//! visible note when they are absent.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Output of one `orcs` invocation.
pub struct Run {
    pub command: String,
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Everything about the run, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "command: {}\nexit status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.command, self.status, self.stdout, self.stderr
        )
    }

    /// Asserts success and returns self.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(
            self.status,
            Some(0),
            "expected success\n{}",
            self.describe()
        );
        self
    }

    /// Asserts the exit status and that stderr mentions every needle.
    #[track_caller]
    pub fn fails_with(self, status: i32, needles: &[&str]) -> Self {
        assert_eq!(
            self.status,
            Some(status),
            "wrong exit status\n{}",
            self.describe()
        );
        for n in needles {
            assert!(
                self.stderr.contains(n),
                "stderr lacks {n:?}\n{}",
                self.describe()
            );
        }
        assert!(
            !self.stderr.contains("panicked"),
            "the program panicked\n{}",
            self.describe()
        );
        self
    }

    /// The metric block: stdout after the header's blank line following the count lines.
    #[track_caller]
    pub fn metric_block(&self) -> &str {
        let marker = "   Number of edges in the inputfile: ";
        let at = self
            .stdout
            .find(marker)
            .unwrap_or_else(|| panic!("no header in stdout\n{}", self.describe()));
        let rest = &self.stdout[at..];
        let start = rest.find("\n\n").expect("blank line after header") + 2;
        &rest[start..]
    }
}

/// Runs `orcs` with `args` from the repository root.
pub fn orcs(args: &[&str]) -> Run {
    orcs_in(args, None)
}

/// Runs `orcs` with `args` from the repository root, with `stdin` as standard input
/// (none: an empty one).
pub fn orcs_in<S: AsRef<str>>(args: &[S], stdin: Option<&[u8]>) -> Run {
    orcs_with(args, stdin, &[])
}

/// Runs `orcs` with `args` and extra environment variables (a `PATH` without a tool, say).
pub fn orcs_with<S: AsRef<str>>(args: &[S], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let mut command = Command::new(env!("CARGO_BIN_EXE_orcs"));
    command
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("failed to start orcs");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.unwrap_or_default().to_vec();
    let writer = std::thread::spawn(move || {
        // orcs may exit without reading its input: a closed pipe is fine.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("failed to wait for orcs");
    writer.join().expect("stdin writer");
    Run {
        command: format!("orcs {}", args.join(" ")),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Address space an [`orcs_within`] run may map: room for any run of the test suite,
/// far below a runaway allocation.
pub const MEMORY_CAP: u64 = 2 << 30;

/// Runs `orcs` with `args` from the repository root like [`orcs`], but bounded so that a
/// regression fails the test instead of taking the machine down: the child's address
/// space is capped at [`MEMORY_CAP`] (`RLIMIT_AS`, so a huge allocation fails inside
/// it), and a child still running after `secs` seconds is killed and the test fails.
#[track_caller]
pub fn orcs_within(secs: u64, args: &[&str]) -> Run {
    use std::os::unix::process::CommandExt as _;
    use std::time::{Duration, Instant};
    let mut command = Command::new(env!("CARGO_BIN_EXE_orcs"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe, and nothing else runs between fork and
    // exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_CAP as libc::rlim_t,
                rlim_max: MEMORY_CAP as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("failed to start orcs");
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().expect("failed to wait for orcs") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "orcs {} was still running after {secs} s and was killed",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        command: format!("orcs {}", args.join(" ")),
        status: status.code(),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// A path inside the repository.
pub fn repo(path: &str) -> String {
    format!("{}/{}", env!("CARGO_MANIFEST_DIR"), path)
}

/// Says on the terminal, past the test harness's capture, that a test skipped a part:
/// the test's name (the harness names each test's thread after it), `what` (where) and
/// `why`. Writing to the stderr handle itself, not through `eprintln!`, is what gets
/// past the capture, so a skip is seen in the default `cargo test` output.
pub fn note_skip(what: &str, why: &str) {
    let thread = std::thread::current();
    let test = thread.name().filter(|name| *name != "main");
    let _ = match test {
        Some(test) => writeln!(std::io::stderr(), "skipped: {test} ({what}): {why}"),
        None => writeln!(std::io::stderr(), "skipped: {what}: {why}"),
    };
}

/// `path` inside `../shared/` beside the repository, which holds the specifications,
/// peer tools' reference results and real fabrics and traces. When it is missing the
/// caller skips with a visible note; with `ORCS_REQUIRE_SHARED=1` (CI) it fails instead.
#[track_caller]
pub fn shared(path: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(path);
    if p.exists() {
        return Some(p);
    }
    let caller = std::panic::Location::caller();
    assert!(
        std::env::var("ORCS_REQUIRE_SHARED").as_deref() != Ok("1"),
        "ORCS_REQUIRE_SHARED=1 but {} is missing (needed at {caller})",
        p.display()
    );
    note_skip(
        &format!("{}:{}", caller.file(), caller.line()),
        &format!("{} is missing", p.display()),
    );
    None
}

/// [`shared`] as a string path.
#[track_caller]
pub fn shared_str(path: &str) -> Option<String> {
    shared(path).map(|p| p.to_string_lossy().into_owned())
}

/// True when every program in `programs` is on the PATH (or in /usr/sbin, /sbin). When
/// one is missing the caller skips with a visible note, unless the environment variable
/// `require` is set (CI sets it), then it fails.
#[track_caller]
pub fn tools_present(programs: &[&str], require: &str) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|tool| find_program(tool).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let caller = std::panic::Location::caller();
    assert!(
        std::env::var_os(require).is_none(),
        "{require} is set but {} not installed (needed at {caller})",
        missing.join(", ")
    );
    note_skip(
        &format!("{}:{}", caller.file(), caller.line()),
        &format!("{} not installed", missing.join(", ")),
    );
    false
}

/// The first of `alternatives` (names of one program, such as `chromium` and
/// `google-chrome`) found by [`find_program`]. When none is, the caller skips with a
/// visible note, unless the environment variable `require` is set, then it fails.
#[track_caller]
pub fn any_program(alternatives: &[&str], require: &str) -> Option<PathBuf> {
    if let Some(found) = alternatives.iter().find_map(|name| find_program(name)) {
        return Some(found);
    }
    let caller = std::panic::Location::caller();
    assert!(
        std::env::var_os(require).is_none(),
        "{require} is set but none of {} is installed (needed at {caller})",
        alternatives.join(", ")
    );
    note_skip(
        &format!("{}:{}", caller.file(), caller.line()),
        &format!("none of {} is installed", alternatives.join(", ")),
    );
    None
}

/// True when ibsim, OpenSM and infiniband-diags are installed (the live OpenSM oracles,
/// through tools/opensm-route); see [`tools_present`] for the skip, and
/// `ORCS_REQUIRE_OPENSM` (CI sets it) to fail instead.
#[track_caller]
pub fn opensm_tools_present() -> bool {
    tools_present(
        &["ibsim", "opensm", "ibnetdiscover", "ibroute"],
        "ORCS_REQUIRE_OPENSM",
    )
}

/// True when Graphviz's `dot` and `neato` are installed (`orcs map` runs one of them,
/// by the map's layout); see [`tools_present`] for the skip, and
/// `ORCS_REQUIRE_GRAPHVIZ` (CI sets it) to fail instead.
#[track_caller]
pub fn graphviz_present() -> bool {
    tools_present(&["dot", "neato"], "ORCS_REQUIRE_GRAPHVIZ")
}

/// The full path of `program` on the PATH, or in /usr/sbin and /sbin.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

pub const FT4: &str = "topologies/ft4-2.ftree.dot";
pub const FT8: &str = "topologies/ft8-3.ftree.dot.gz";
pub const TWO: &str = "tests/fixtures/two-switch.dot";

/// Parses the "weight w: c of the t connections" lines into (w, c).
pub fn weight_counts(block: &str) -> Vec<(u64, u64)> {
    block
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("weight ")?;
            let (w, rest) = rest.split_once(": ")?;
            let c = rest.split_whitespace().next()?;
            Some((w.parse().ok()?, c.parse().ok()?))
        })
        .collect()
}

/// The records of a scan results file as text, in cell order, each line byte for byte as
/// written except its wall-clock time and the checksum that covers it (the only bytes
/// two scans of one plan may differ in).
pub fn timeless_records(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let seconds = regex::Regex::new(r#""seconds":[-0-9.e+]+"#).expect("rule");
    let crc = regex::Regex::new(r#""crc":"[0-9a-f]{8}""#).expect("rule");
    let mut lines: Vec<(u64, String)> = text
        .lines()
        .map(|line| {
            let record = orcs::scan::unseal(line).unwrap_or_else(|| panic!("bad record {line}"));
            let masked = seconds.replace(line, "\"seconds\":<time>");
            let masked = crc.replace(&masked, "\"crc\":<crc>").into_owned();
            (record["cell"].as_u64().expect("a cell index"), masked)
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l).collect()
}

/// A scan's summary CSV without its last column, the seconds each cell took.
pub fn timeless_csv(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| format!("{}\n", line.rsplit_once(',').map_or(line, |(rest, _)| rest)))
        .collect()
}
