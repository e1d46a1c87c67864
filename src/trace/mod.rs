//! MPI traces: reading them, summarising them and turning them into traffic.

pub mod comm;
