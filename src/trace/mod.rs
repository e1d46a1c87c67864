//! MPI traces: reading them ([`dumpi`]), summarising them per rank ([`summary`]), the
//! world ranks behind their communicators ([`comm`]) and collective operations as
//! point-to-point messages with their costs ([`collective`]).

pub(crate) mod args;
pub mod collective;
pub mod comm;
pub(crate) mod datatype;
pub mod dumpi;
pub(crate) mod label;
pub mod replay;
pub(crate) mod sizes;
pub mod summary;
pub mod traffic;
