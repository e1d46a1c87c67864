//! orcs: an oblivious routing congestion simulator for HPC interconnects.
//!
//! The library behind the `orcs` command, one folder per capability. Data flows
//! input → fabric → routing → workload → engine → report/viz:
//!
//! * [`fabric`]: the fabric model (hosts, switches, directed links with dense ids), the
//!   dot reader and writers, the binary cache, and loading any input format;
//! * [`ib`]: InfiniBand dumps (ibnetdiscover, .lst, ibsim net, forwarding tables) and
//!   their conversion into a routed fabric;
//! * [`gen`]: topology generators;
//! * [`routing`]: forwarding tables, the route check, every routing engine, deadlock
//!   analysis;
//! * [`workload`]: patterns, the rank-to-host mapping, traffic matrices;
//! * [`engine`]: the Monte Carlo engine, its seeded streams and metrics;
//! * [`flow`]: messages in flight sharing the links of their routes, max-min fair (the
//!   contention model of the trace replay);
//! * [`cluster`]: PFSim-style clusters: selection, placement, path routing, jobs over time;
//! * [`queueing`]: the analytical queueing model of multi-cluster systems and its
//!   simulation;
//! * [`scan`]: batch scans: plans, cells, checksummed records, shards and merging;
//! * [`tasks`]: the synthetic task model (task trees, footprints, loads) executed by a
//!   scheduler on a crossbar or a routed fabric;
//! * [`trace`]: MPI traces (DUMPI): reading, dumping and summarising them, their
//!   communicators in world ranks, and collective operations as point-to-point messages
//!   with their Hockney costs;
//! * [`error`]: the located error every parser reports;
//! * [`limits`]: what a run can hold: the memory budget, estimates of big requests, the
//!   worker pool's size and the nesting depth of readers;
//! * [`output`]: writing every output without losing data (inputs refused, old files
//!   kept on failure, links written through, devices written in place);
//! * [`report`]: exporters that turn results into bytes (text, JSON, CSV, dot);
//! * [`viz`]: congestion maps, plots and the HTML report.
//!
//! The semantics follow the original ORCS simulator; where orcs deliberately differs, the
//! item says so.

#![deny(missing_docs)]
// Module docs name the private files and constants they are made of, for whoever reads
// the source; `cargo doc --document-private-items` resolves those links.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cluster;
pub mod engine;
pub mod error;
pub mod escape;
pub mod fabric;
pub mod flow;
pub mod gen;
pub mod ib;
pub mod limits;
pub mod output;
pub mod queueing;
pub mod report;
pub mod routing;
pub mod scan;
pub mod tasks;
#[cfg(test)]
mod test_support;
pub mod trace;
pub mod viz;
pub mod workload;
