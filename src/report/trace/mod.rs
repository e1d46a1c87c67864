//! The outputs of `orcs trace`: a trace's summary ([`stats`]) and its traffic matrix in
//! the formats orcs reads ([`matrix`]).

pub mod matrix;
pub mod stats;
