//! The outputs of `orcs trace`: a trace's summary ([`stats`]), its traffic matrix in
//! the formats orcs reads ([`matrix`]) and what limits it ([`classify`]).

pub mod classify;
pub mod matrix;
pub mod stats;
