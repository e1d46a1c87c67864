//! Build facts for `orcs --version`: the commit checked out when the binary was built
//! (from a git checkout) and the cargo features enabled.

use std::process::Command;

/// The output of `git args…` in this folder, if git ran and succeeded.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    // A new commit moves HEAD or the branch it names.
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        println!("cargo:rerun-if-changed={path}");
    }
    // Whether the files differed from the commit is not told: the script runs again
    // only when HEAD moves, so it could not stay true.
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => format!("commit {hash}"),
        None => "commit unknown".to_string(),
    };
    let features: Vec<&str> = [("CARGO_FEATURE_MPI", "mpi")]
        .iter()
        .filter(|(var, _)| std::env::var_os(var).is_some())
        .map(|&(_, name)| name)
        .collect();
    let features = if features.is_empty() {
        "none".to_string()
    } else {
        features.join(", ")
    };
    println!("cargo:rustc-env=ORCS_BUILD_INFO={commit}, features: {features}");
}
