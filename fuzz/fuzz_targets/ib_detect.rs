//! Fuzzes the reader of any InfiniBand topology dump, its format detected from the content: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::detect::parse_topology;

fuzz_target!(|data: &[u8]| {
    let _ = parse_topology(data);
});
