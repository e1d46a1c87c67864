//! Fuzzes the reader of a simulation's JSON result, as `orcs plot` and `orcs map` read it back: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::report::results::parse_result;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_result(text, "fuzz.json");
    }
});
