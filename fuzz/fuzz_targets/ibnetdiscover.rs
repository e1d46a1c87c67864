//! Fuzzes the reader of ibnetdiscover output (with or without -p): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::ibnetdiscover::parse_ibnetdiscover;

fuzz_target!(|data: &[u8]| {
    let _ = parse_ibnetdiscover(data);
});
