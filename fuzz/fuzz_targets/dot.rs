//! Fuzzes the reader of a routed dot file: parsed, compiled into a fabric and tables, and every route walked: any bytes give a value or an error, never a panic,
//! a hang or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::fabric::{load_routed_fabric_from, LoadOptions};
use orcs::routing::check::check_routes;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = load_routed_fabric_from(data, "fuzz.dot", LoadOptions::default()) else {
        return;
    };
    // The route walk must hold on whatever a file routes, loops and dead ends included.
    if loaded.fabric.num_hosts() <= 64 {
        let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
        let _ = check_routes(&loaded.fabric, &loaded.table, &hosts);
    }
});
