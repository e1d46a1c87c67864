//! The congestion engine through the command line: hand-computed fabrics, host subsets
//! and rank mapping, byte-weighted traffic matrices, and agreement with the original
//! ORCS's results.

mod hand_computed;
mod mapping;
mod matrix;
mod orcs_reference;
