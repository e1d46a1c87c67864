//! InfiniBand input: the topology and forwarding-table dump parsers on real and generated
//! OpenSM dumps, their conversion to a routed fabric, and live OpenSM as an oracle.

mod convert;
mod lft;
mod opensm_pipeline;
mod topology;
