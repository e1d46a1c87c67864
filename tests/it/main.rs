//! The integration tests of orcs, one binary with a module per capability. Each module
//! runs the `orcs` command (through [`support::orcs`]) or the library, and checks the
//! result against an independent expectation: a hand-computed case, a closed form, a
//! peer tool's output, or the golden outputs recorded before a change.
//!
//! Data and tools that a fresh clone may lack are reached only through [`support`]:
//! `../shared` (reference fabrics, peer results, traces) by [`support::shared`], optional
//! programs (OpenSM, Graphviz, Chromium) by [`support::tools_present`]. A test missing
//! one prints a `skipped:` line past the output capture; CI sets `ORCS_REQUIRE_SHARED=1`
//! and the `ORCS_REQUIRE_*` variables of the tools so that nothing is skipped there.
//!
//! `cargo test --test it <module>` runs one module (`cargo test --test it ib::lft`, say).
//! The `mpi` module exists with the `mpi` feature only and needs Open MPI's `mpirun`:
//! `cargo test --release --features mpi --test it mpi::`.

mod cli;
mod cluster;
mod dumpi;
mod engine;
mod fabric;
mod gen;
mod golden;
mod ib;
mod limits;
#[cfg(feature = "mpi")]
mod mpi;
mod outputs;
mod profile;
mod properties;
mod queueing;
mod report;
mod routing;
mod scan;
mod support;
mod tasks;
mod trace;
mod trace_classify;
mod trace_matrix;
mod trace_programs;
mod trace_stats;
