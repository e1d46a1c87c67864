//! Fuzzes the reader of a queueing model configuration (TOML): any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::queueing::params::parse_config;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_config(text, "fuzz.toml");
    }
});
