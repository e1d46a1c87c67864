//! Fuzzes the trace replay: any bytes, read as the `.bin` files of a two-rank DUMPI
//! trace (a big-endian u32 length of rank 0's file, rank 0's file, rank 1's file),
//! replay on two networks to outcomes or a located error, never a panic, a hang or an
//! unbounded allocation; then the same on a fabric of two switches (the ranks on
//! either side of the cable), where the messages share links.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::fabric::{load_routed_fabric_from, LoadOptions, LoadedFabric};
use orcs::flow::RankRoutes;
use orcs::trace::dumpi::RankFile;
use orcs::trace::replay::config::product;
use orcs::trace::replay::{replay_files, replay_files_on, FabricUse, OnFabric, ReplayOptions};
use std::sync::OnceLock;

fn fabric() -> &'static LoadedFabric {
    static FABRIC: OnceLock<LoadedFabric> = OnceLock::new();
    FABRIC.get_or_init(|| {
        let dot = include_str!("../../tests/fixtures/two-switch.dot");
        load_routed_fabric_from(dot.as_bytes(), "two-switch.dot", LoadOptions::default())
            .expect("the fixture loads")
    })
}

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
    let files = [a, b];
    if replay_files(&files, &options).is_err() {
        return;
    }
    // H0 and H2: every message crosses the cable between the switches.
    let loaded = fabric();
    let hosts = [0, 2];
    let on = OnFabric {
        routes: RankRoutes::new(&loaded.fabric, &loaded.table, &hosts),
        about: FabricUse {
            fabric: "two-switch.dot".into(),
            placement: "fuzz".into(),
            hosts: vec!["H0".into(), "H2".into()],
        },
    };
    let _ = replay_files_on(&files, &options, Some(&on), &|_| {});
});
