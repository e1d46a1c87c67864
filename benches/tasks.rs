//! The task model's simulation: simulated tasks per second on one thread, for the
//! published tree z = 4,3 at ρ_x = 0.5 and 10 Gb/s, on the ideal crossbar (LWSim's
//! network) and side by side on the bundled 512-host fat tree, whose messages share
//! its links; and work stealing on the crossbar, whose idle nodes keep asking for work.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use orcs::fabric::{load_routed_fabric, LoadOptions};
use orcs::flow::RankRoutes;
use orcs::tasks::sim::{
    simulate, Interconnect, Scheduler, SimConfig, TaskModel, TaskTimes, TreeModel,
};
use orcs::tasks::{TaskCosts, TaskTree};
use std::time::Duration;

fn config(nodes: u32) -> SimConfig {
    SimConfig {
        scheduler: Scheduler::Central,
        nodes,
        power: 1.0,
        bandwidth: 10e9,
        latency: 0.0,
        // ρ_x = 0.5: β = 0.5 (N − 1) / F_x with F_x = 340 µs.
        arrival_rate: 0.5 * f64::from(nodes - 1) / 340e-6,
        roots: 5_000,
        warmup: 500,
        replications: 1,
        seed: 1,
        confidence: 0.95,
        record_traffic: false,
    }
}

fn tasks(c: &mut Criterion) {
    let model = TaskModel {
        tree: TreeModel::Fixed(TaskTree::layered(&[4, 3]).unwrap()),
        costs: TaskCosts::default(),
        times: TaskTimes::Constant,
    };
    let path = format!(
        "{}/topologies/kary-ntree-8-3.dmodk.dot.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let loaded = load_routed_fabric(&path, LoadOptions::default()).expect("fabric loads");
    let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
    let routes = RankRoutes::new(&loaded.fabric, &loaded.table, &hosts);
    let nodes = hosts.len() as u32;
    let mut group = c.benchmark_group("tasks z=4,3 rho_x=0.5 10Gb/s");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let stealing = |nodes: u32| SimConfig {
        scheduler: Scheduler::Stealing { retry: 10e-6 },
        // ρ_x = 0.5 with every node computing.
        arrival_rate: 0.5 * f64::from(nodes) / 340e-6,
        ..config(nodes)
    };
    for (name, interconnect, cfg) in [
        ("crossbar-512", Interconnect::Crossbar, config(nodes)),
        (
            "kary-ntree-8-3",
            Interconnect::Fabric(routes),
            config(nodes),
        ),
        (
            "crossbar-512 stealing",
            Interconnect::Crossbar,
            stealing(nodes),
        ),
    ] {
        let executed = simulate(&model, &interconnect, &cfg, &|_| {})
            .unwrap()
            .tasks;
        group.throughput(Throughput::Elements(executed));
        group.bench_function(name, |b| {
            b.iter(|| {
                simulate(&model, &interconnect, &cfg, &|_| {})
                    .unwrap()
                    .tasks
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tasks);
criterion_main!(benches);
