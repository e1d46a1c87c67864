//! Fuzzes the reader of every linear forwarding table dump layout (opensm-lfts.dump, ibroute, .fdbs): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::lft::parse_lfts;

fuzz_target!(|data: &[u8]| {
    let _ = parse_lfts(data);
});
