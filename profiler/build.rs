//! Compiles the MPI wrappers (`src/interpose.c`, `src/counted.h`) with the MPI compiler
//! wrapper found at build time (`$MPICC`, else `mpicc`), so that MPI's own `mpi.h` gives
//! the handle types and the functions there are (MPI 4 adds the large-count and
//! persistent collective ones), links the library against that MPI, and writes the list
//! of wrappers that `src/interpose.rs` exports.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/interpose.c");
    println!("cargo:rerun-if-changed=src/counted.h");
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
    let mut build = cc::Build::new();
    build
        .compiler(&mpicc)
        .file("src/interpose.c")
        .warnings(true)
        .extra_warnings(true);
    // The wrappers this MPI has, read from the preprocessed source: every definition of
    // `orcs_wrap_MPI_X` is exported as MPI_X and PMPI_X.
    let expanded = build.expand();
    let text = String::from_utf8_lossy(&expanded);
    let mut wrapped: Vec<&str> = text
        .split("orcs_wrap_MPI_")
        .skip(1)
        .filter_map(|rest| {
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            // A definition: the name followed by its parameter list.
            rest[name_end..]
                .trim_start()
                .starts_with('(')
                .then(|| &rest[..name_end])
        })
        .collect();
    wrapped.sort_unstable();
    wrapped.dedup();
    let mut exports = String::from("exports! {\n");
    for name in &wrapped {
        let _ = writeln!(
            exports,
            "    MPI_{name}, PMPI_{name} => orcs_wrap_MPI_{name},"
        );
    }
    exports.push_str("}\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("exports.rs"), exports).expect("write the list of exports");
    build.compile("orcs_profiler_mpi");
}
