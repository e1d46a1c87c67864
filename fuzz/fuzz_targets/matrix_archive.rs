//! Fuzzes the reader of a PFProf trace archive named .tar.gz (tar, gzip or not, of JSON profiles): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::workload::matrix::traffic_from_bytes;

fuzz_target!(|data: &[u8]| {
    let _ = traffic_from_bytes(data, "fuzz.tar.gz");
});
