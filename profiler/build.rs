//! Compiles the MPI wrappers (`src/interpose.c`) with the MPI compiler wrapper found at
//! build time (`$MPICC`, else `mpicc`), so that MPI's own `mpi.h` gives the handle
//! types, and links the library against that MPI.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/interpose.c");
    println!("cargo:rerun-if-env-changed=MPICC");
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    // Open MPI answers --showme:link, MPICH -link-info; both list -L and -l flags.
    let link = ["--showme:link", "-link-info"].iter().find_map(|flag| {
        let out = Command::new(&mpicc).arg(flag).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    });
    let Some(link) = link else {
        panic!(
            "orcs-profiler needs an MPI library and its compiler wrapper: `{mpicc}` was not \
             found or did not answer --showme:link or -link-info. Install Open MPI or MPICH \
             (Debian: libopenmpi-dev), or set MPICC to the wrapper."
        );
    };
    for word in link.split_whitespace() {
        if let Some(dir) = word.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = word.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        } else if let Some(path) = word.strip_prefix("-Wl,-rpath,") {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{path}");
        }
    }
    cc::Build::new()
        .compiler(&mpicc)
        .file("src/interpose.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("orcs_profiler_mpi");
}
