//! Fuzzes the DUMPI trace reader: any bytes, read as one rank's `.bin` file (plain or
//! gzip), give a dump or a located error, never a panic, a hang or an unbounded
//! allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::trace::dumpi::ascii::dump_rank;
use orcs::trace::dumpi::RankFile;

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = RankFile::from_bytes(data.to_vec(), "fuzz-0000.bin") {
        let _ = dump_rank(&file, &mut std::io::sink());
    }
});
