//! Fuzzes the reader of an `iblinkinfo`-style ports report: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::ib::ports_report::parse_ports_report;

fuzz_target!(|data: &[u8]| {
    let _ = parse_ports_report(data);
});
