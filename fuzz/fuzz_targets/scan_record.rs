//! Fuzzes the reader of a line of a scan results file: a checksummed JSON record: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::scan::{record_key, unseal};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.lines() {
            if let Some(record) = unseal(line) {
                let _ = record_key(&record);
            }
        }
    }
});
