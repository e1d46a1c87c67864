//! Fuzzes the reader of a PFSim cluster in GraphML: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::cluster::graphml::parse_cluster_graphml;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_cluster_graphml(text, "fuzz.graphml");
    }
});
