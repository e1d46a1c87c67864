//! Helpers of the trace modules: compare `orcs trace dump` with sst-dumpi's
//! `dumpi2ascii`, build sst-dumpi, and make real DUMPI traces of the C programs in
//! tests/mpi-programs/ by compiling them against libdumpi and running them under mpirun.

use crate::support::{orcs, repo, shared, tools_present};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Asserts that orcs's dump of `args` is `expected`, showing the first differing line.
#[track_caller]
pub fn assert_dump(args: &[&str], expected: &str) {
    let run = orcs(args).ok();
    if run.stdout != expected {
        let line = (run.stdout.lines().zip(expected.lines()))
            .position(|(a, b)| a != b)
            .unwrap_or(run.stdout.lines().count().min(expected.lines().count()));
        panic!(
            "orcs {} differs from dumpi2ascii at line {}:\n  orcs:       {:?}\n  dumpi2ascii: {:?}",
            args.join(" "),
            line + 1,
            run.stdout.lines().nth(line),
            expected.lines().nth(line)
        );
    }
}

/// The `.bin` rank files in `dir`, sorted (so in rank order).
pub fn bins(dir: &Path) -> Vec<PathBuf> {
    let mut bins: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    bins.sort();
    bins
}

/// Builds libdumpi and dumpi2ascii (once per machine) and returns their prefix; `None`
/// (with a visible skip note) without `../shared` or an MPI compiler.
#[track_caller]
pub fn sst_dumpi() -> Option<PathBuf> {
    // Tests run in parallel: the first builds, the others wait and find it built.
    static BUILD: Mutex<()> = Mutex::new(());
    let build = shared("tools/sst-dumpi/build.sh")?;
    if !tools_present(
        &["mpicc", "mpirun", "autoreconf", "libtoolize"],
        "ORCS_REQUIRE_SHARED",
    ) {
        return None;
    }
    let home =
        std::env::var_os("HOME").map_or_else(|| PathBuf::from(repo("target")), PathBuf::from);
    let prefix = home.join(".cache").join("sst-dumpi");
    let _guard = BUILD
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Captured, so that a passing run stays quiet ("already built" on every call).
    let built = Command::new(&build)
        .arg(&prefix)
        .output()
        .expect("run build.sh");
    assert!(
        built.status.success(),
        "{} failed:\n{}{}",
        build.display(),
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    Some(prefix)
}

/// `dumpi2ascii -H -S -F -X` of one rank file, with times in UTC as orcs prints them.
pub fn dumpi2ascii(prefix: &Path, bin: &Path) -> String {
    let reference = Command::new(prefix.join("bin").join("dumpi2ascii"))
        .args(["-H", "-S", "-F", "-X"])
        .arg(bin)
        .env("TZ", "UTC")
        .output()
        .expect("run dumpi2ascii");
    assert!(
        reference.status.success(),
        "dumpi2ascii failed on {}",
        bin.display()
    );
    String::from_utf8(reference.stdout).unwrap()
}

/// A program of tests/mpi-programs/ compiled against libdumpi, in a temporary folder.
pub struct TracedProgram {
    name: String,
    prefix: PathBuf,
    dir: tempfile::TempDir,
}

/// One run of a [`TracedProgram`]: its trace, in a folder of its own.
pub struct Trace {
    /// The `.meta` file libdumpi wrote.
    pub meta: PathBuf,
    /// The rank files, in rank order.
    pub bins: Vec<PathBuf>,
    _dir: tempfile::TempDir,
}

impl TracedProgram {
    /// Compiles tests/mpi-programs/`name`.c with mpicc, linked to libdumpi in `prefix`
    /// (from [`sst_dumpi`]).
    pub fn compile(prefix: &Path, name: &str) -> TracedProgram {
        let dir = tempfile::tempdir().unwrap();
        let lib = prefix.join("lib");
        let compiled = Command::new("mpicc")
            .arg(repo(&format!("tests/mpi-programs/{name}.c")))
            .arg("-o")
            .arg(dir.path().join(name))
            .arg(format!("-L{}", lib.display()))
            .arg("-ldumpi")
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .output()
            .expect("run mpicc");
        assert!(
            compiled.status.success(),
            "mpicc {name}.c failed: {}",
            String::from_utf8_lossy(&compiled.stderr)
        );
        TracedProgram {
            name: name.to_owned(),
            prefix: prefix.to_owned(),
            dir,
        }
    }

    /// Runs the program under `mpirun -n ranks` and returns its trace.
    pub fn trace(&self, ranks: usize) -> Trace {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dumpi.conf"),
            format!("fileroot {}\n", self.name),
        )
        .unwrap();
        let ran = Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-n"])
            .arg(ranks.to_string())
            .arg(self.dir.path().join(&self.name))
            .current_dir(dir.path())
            .output()
            .expect("run mpirun");
        assert!(
            ran.status.success(),
            "mpirun -n {ranks} {} failed: {}",
            self.name,
            String::from_utf8_lossy(&ran.stderr)
        );
        let meta = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "meta"))
            .expect("libdumpi wrote a .meta");
        let bins = bins(dir.path());
        assert_eq!(bins.len(), ranks, "{bins:?}");
        Trace {
            meta,
            bins,
            _dir: dir,
        }
    }

    /// Asserts that `orcs trace dump` of every rank of `trace`, and of the whole trace,
    /// equals `dumpi2ascii` of its files; returns dumpi2ascii's text of each rank.
    #[track_caller]
    pub fn assert_dumps_match(&self, trace: &Trace) -> Vec<String> {
        let meta = trace.meta.to_string_lossy();
        let mut ranks = Vec::with_capacity(trace.bins.len());
        for (rank, bin) in trace.bins.iter().enumerate() {
            let expected = dumpi2ascii(&self.prefix, bin);
            assert_dump(
                &["trace", "dump", &meta, "--rank", &rank.to_string()],
                &expected,
            );
            ranks.push(expected);
        }
        assert_dump(&["trace", "dump", &meta], &ranks.concat());
        ranks
    }
}
