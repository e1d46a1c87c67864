//! Fuzzes the reader of OpenSM's guid2lid file: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::guid2lid::parse_guid2lid;

fuzz_target!(|data: &[u8]| {
    let _ = parse_guid2lid(data);
});
