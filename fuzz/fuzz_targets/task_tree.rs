//! Fuzzes the reader of a task-tree model (`--tree z=4,3` or `--tree n=100,s=0.5`): any
//! text gives a model or an error, never a panic; a model that reads builds its trees
//! and counts them (up to 100,000 tasks, to keep each input quick).
#![no_main]

use libfuzzer_sys::fuzz_target;
use orcs::tasks::model::{ModelCounts, TreeSpec};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = TreeSpec::parse(text) else {
        return;
    };
    let tasks = match &spec {
        TreeSpec::Layered(z) => orcs::tasks::tree::layered_size(z).unwrap_or(u64::MAX),
        TreeSpec::Preferential { tasks, .. } => u64::from(*tasks),
    };
    if tasks > 100_000 {
        return;
    }
    let counts = ModelCounts::of(&spec, 2, 1).expect("a model that reads builds");
    assert_eq!(counts.generator.tasks, tasks as f64);
    assert!(counts.generator.leaves >= 1.0 && counts.generator.leaves <= tasks as f64);
    assert_eq!(TreeSpec::parse(&spec.to_string()).as_ref(), Ok(&spec));
});
