//! Fuzzes the trace replay: any bytes, read as the `.bin` files of a two-rank DUMPI
//! trace (a big-endian u32 length of rank 0's file, rank 0's file, rank 1's file),
//! replay on two networks to outcomes or a located error, never a panic, a hang or an
//! unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::trace::dumpi::RankFile;
use orcs::trace::replay::config::product;
use orcs::trace::replay::{replay_files, ReplayOptions};

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let cut = (u32::from_be_bytes(*head) as usize).min(rest.len());
    let files = [
        RankFile::from_bytes(rest[..cut].to_vec(), "fuzz-0000.bin"),
        RankFile::from_bytes(rest[cut..].to_vec(), "fuzz-0001.bin"),
    ];
    let [Ok(a), Ok(b)] = files else { return };
    let options = ReplayOptions {
        configs: product(&["1us".into(), "50us".into()], &["10Gb/s".into()])
            .expect("valid configurations"),
        ..ReplayOptions::default()
    };
    let _ = replay_files(&[a, b], &options);
});
