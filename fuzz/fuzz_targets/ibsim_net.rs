//! Fuzzes the reader of an ibsim net file: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::ibsim_net::parse_ibsim_net;

fuzz_target!(|data: &[u8]| {
    let _ = parse_ibsim_net(data);
});
