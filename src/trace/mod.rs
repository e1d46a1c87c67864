//! MPI traces: reading them ([`dumpi`]) and summarising them per rank ([`summary`]).

pub mod dumpi;
pub mod summary;
