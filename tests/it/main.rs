//! The integration tests of orcs, one binary with a module per capability. Each module
//! runs the `orcs` command (through [`support::orcs`]) or the library, and checks the
//! result against an independent expectation: a hand-computed case, a closed form, a
//! peer tool's output, or the golden outputs recorded before a change.

mod golden;
mod support;
