//! Fuzzes the reader of a scan plan (TOML): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::scan::parse_plan;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_plan(text, "fuzz.toml");
    }
});
