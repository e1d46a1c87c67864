//! Fuzzes the reader of a jobs scenario (YAML): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::cluster::jobs::scenario::parse_scenario;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_scenario(text, "fuzz.yml");
    }
});
