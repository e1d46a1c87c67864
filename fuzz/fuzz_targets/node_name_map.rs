//! Fuzzes the reader of a node name map: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::node_name_map::parse_node_name_map;

fuzz_target!(|data: &[u8]| {
    let _ = parse_node_name_map(data);
});
