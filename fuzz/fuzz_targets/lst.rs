//! Fuzzes the reader of OpenSM's subnet.lst: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::lst::parse_lst;

fuzz_target!(|data: &[u8]| {
    let _ = parse_lst(data);
});
