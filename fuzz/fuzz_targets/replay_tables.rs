//! Fuzzes the readers of `orcs trace classify`'s TOML files, a configuration grid and a
//! rules table: any bytes give a value or a located error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::trace::replay::classify::{Rules, Shares};
use orcs::trace::replay::config::parse_grid;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_grid("fuzz.toml", text);
        if let Ok(rules) = Rules::parse("fuzz.toml", text) {
            let _ = rules.classify(&Shares::default());
        }
    }
});
