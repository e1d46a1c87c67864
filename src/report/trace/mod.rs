//! The outputs of `orcs trace`: a trace's traffic matrix in the formats orcs reads
//! ([`matrix`]).

pub mod matrix;
