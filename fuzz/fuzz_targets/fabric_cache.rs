//! Fuzzes the reader of a binary fabric cache: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::fabric::cache::read_cache;

fuzz_target!(|data: &[u8]| {
    let mut reader = data;
    let _ = read_cache(&mut reader, "fuzz.orcsfab");
});
