//! Helpers for integration tests: run the `orcs` binary, and show the command and its
//! output whenever an expectation fails.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

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
    let out = Command::new(env!("CARGO_BIN_EXE_orcs"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("failed to start orcs");
    Run {
        command: format!("orcs {}", args.join(" ")),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A path inside the repository.
pub fn repo(path: &str) -> String {
    format!("{}/{}", env!("CARGO_MANIFEST_DIR"), path)
}

/// A path inside `../shared/` beside the repository, if that folder exists (it holds the
/// big reference fabrics; a fresh clone without it skips those tests with a note).
pub fn shared(path: &str) -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(path);
    if p.exists() {
        Some(p.to_string_lossy().into_owned())
    } else {
        eprintln!("note: {} not present, skipping", p.display());
        None
    }
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

/// True when ibsim, OpenSM and infiniband-diags are installed; without them the live
/// oracle is skipped, unless ORCS_REQUIRE_OPENSM is set (as in CI), then it fails.
pub fn opensm_tools_present() -> bool {
    let have = |tool: &str| {
        std::process::Command::new("sh")
            .args([
                "-c",
                &format!("PATH=\"$PATH:/usr/sbin:/sbin\" command -v {tool}"),
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let present = ["ibsim", "opensm", "ibnetdiscover", "ibroute"]
        .iter()
        .all(|t| have(t));
    if !present {
        assert!(
            std::env::var_os("ORCS_REQUIRE_OPENSM").is_none(),
            "ORCS_REQUIRE_OPENSM is set but ibsim/opensm/infiniband-diags are not installed"
        );
        eprintln!("note: ibsim/opensm/infiniband-diags not installed, skipping the live oracle");
    }
    present
}
