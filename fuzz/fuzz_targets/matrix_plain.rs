//! Fuzzes the reader of a traffic matrix file named .csv: CSV, Matrix Market or JSON by content, gzip or not: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::workload::matrix::traffic_from_bytes;

fuzz_target!(|data: &[u8]| {
    let _ = traffic_from_bytes(data, "fuzz.csv");
});
