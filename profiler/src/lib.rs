//! orcs-profiler: an `LD_PRELOAD` library that records what a running MPI application
//! sends to whom, and writes it at `MPI_Finalize` as matrices `orcs` reads.
pub mod export;
pub mod ffi;
pub mod interpose;
pub mod profile;
