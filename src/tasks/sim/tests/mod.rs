//! The central scheduler's execution against hand-computed runs, the F_c identity,
//! queueing closed forms, and the crossbar against fabrics; work stealing in
//! [`stealing`].

use super::*;
use crate::fabric::{load_routed_fabric_from, LoadOptions, LoadedFabric};
use crate::routing::check_routes;
use crate::tasks::{Footprint, TreeCounts};
use proptest::prelude::*;

mod stealing;

fn layered(z: &[u32]) -> TaskModel {
    TaskModel {
        tree: TreeModel::Fixed(TaskTree::layered(z).unwrap()),
        costs: TaskCosts::default(),
        times: TaskTimes::Constant,
    }
}

/// One root task alone (the next arrives about a second later) on `nodes` nodes at
/// 10 Gb/s.
fn alone(nodes: u32, latency: f64) -> SimConfig {
    SimConfig {
        scheduler: Scheduler::Central,
        nodes,
        power: 1.0,
        bandwidth: 10e9,
        latency,
        arrival_rate: 1.0,
        roots: 1,
        warmup: 0,
        replications: 1,
        seed: 1,
        confidence: 0.99,
        record_traffic: false,
    }
}

fn quiet(_: u64) {}

fn run(model: &TaskModel, interconnect: &Interconnect, config: &SimConfig) -> TaskResult {
    simulate(model, interconnect, config, &quiet).unwrap()
}

#[track_caller]
fn close(got: f64, expected: f64, relative: f64) {
    assert!(
        (got - expected).abs() <= relative * expected.abs(),
        "got {got}, expected {expected} (relative {relative})"
    );
}

/// z = [2] alone, by hand at 10 Gb/s (ε = 32 ns, s_s = 16 µs, s_r = 32 µs on the
/// wire): ship ε, t_i, request ε, grant ε; then the local child (t_i + t_a = 20 µs)
/// and, longer, the helper's s_s + 20 µs + s_r = 68 µs; t_a; the answer ε.
#[test]
fn one_delegation_by_hand() {
    let model = layered(&[2]);
    let config = alone(8, 0.0);
    let result = run(&model, &Interconnect::Crossbar, &config);
    let expected = 32e-9 + 10e-6 + 64e-9 + 68e-6 + 10e-6 + 32e-9;
    close(result.mean, expected, 1e-9);
    // Six messages on the critical path each add the latency; the node-done does not.
    let slow = run(&model, &Interconnect::Crossbar, &alone(8, 1e-6));
    close(slow.mean, expected + 6e-6, 1e-9);
    // The work: 3 tasks of 20 µs, split between the root's node and its helper.
    let busy: f64 = result.replications[0].node_busy.iter().sum();
    close(busy, 60e-6, 1e-12);
    assert_eq!(result.tasks, 3);
    assert_eq!(result.node_utilisation[0], 0.0);
}

/// At a low load every root task runs alone: each completes in the critical path of
/// its tree plus its messages, the time computed by hand above.
#[test]
fn at_low_load_every_root_task_takes_its_critical_path() {
    let model = layered(&[2]);
    let config = SimConfig {
        roots: 50,
        warmup: 5,
        replications: 2,
        ..alone(8, 0.0)
    };
    let result = run(&model, &Interconnect::Crossbar, &config);
    let expected = 32e-9 + 10e-6 + 64e-9 + 68e-6 + 10e-6 + 32e-9;
    for r in &result.replications {
        assert_eq!(r.completions.len(), 50);
        for &c in &r.completions {
            close(c, expected, 1e-9);
        }
    }
}

/// Without a free node the root task does all three tasks itself: 10 + 20 + 20 + 10 µs
/// of work after a request and an empty grant.
#[test]
fn no_helper_left() {
    let model = layered(&[2]);
    let result = run(&model, &Interconnect::Crossbar, &alone(2, 0.0));
    close(
        result.mean,
        32e-9 + 10e-6 + 64e-9 + 40e-6 + 10e-6 + 32e-9,
        1e-9,
    );
    assert_eq!(result.messages, 4);
}

/// The F_c identity: one compound task with every allocation granted sends exactly its
/// communication footprint, in (L − 1)·3 + 2 + 2d messages.
#[test]
fn bits_sent_are_the_communication_footprint() {
    let model = layered(&[4, 3]);
    let result = run(&model, &Interconnect::Crossbar, &alone(32, 0.0));
    assert_eq!(result.replications[0].bits, 5_287_360.0);
    assert_eq!(result.messages, 11 * 3 + 2 + 2 * 5);
    assert_eq!(result.tasks, 17);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_tree_sends_its_footprint(parents in prop::collection::vec(any::<prop::sample::Index>(), 0..40)) {
        let mut parent = vec![0u32];
        for (i, p) in parents.iter().enumerate() {
            parent.push(p.index(i + 1) as u32);
        }
        let tree = TaskTree::from_parents(&parent);
        let counts = TreeCounts {
            tasks: tree.len() as f64,
            leaves: tree.leaves() as f64,
            delegating: tree.delegating() as f64,
        };
        let footprint = Footprint::of(counts, &TaskCosts::default());
        let model = TaskModel { tree: TreeModel::Fixed(tree.clone()), costs: TaskCosts::default(), times: TaskTimes::Constant };
        let result = run(&model, &Interconnect::Crossbar, &alone(tree.len() as u32 + 1, 0.0));
        prop_assert_eq!(result.replications[0].bits, footprint.communication);
        prop_assert_eq!(result.tasks, tree.len() as u64);
        // The work done is the computation footprint.
        let busy: f64 = result.replications[0].node_busy.iter().sum();
        prop_assert!((busy - footprint.computation).abs() <= 1e-12 * footprint.computation);
    }
}

/// Single-task trees with negligible messages: c = N − 1 servers fed by Poisson
/// arrivals.
fn queue(nodes: u32, rho: f64, times: TaskTimes, service: f64) -> (TaskModel, SimConfig) {
    let model = TaskModel {
        tree: TreeModel::Fixed(TaskTree::single()),
        costs: TaskCosts {
            init: service,
            aggregate: 0.0,
            ..TaskCosts::default()
        },
        times,
    };
    let c = f64::from(nodes - 1);
    let config = SimConfig {
        scheduler: Scheduler::Central,
        nodes,
        power: 1.0,
        bandwidth: 1e18,
        latency: 0.0,
        arrival_rate: rho * c / service,
        roots: 20_000,
        warmup: 2_000,
        replications: 24,
        seed: 5,
        confidence: 0.99,
        record_traffic: false,
    };
    (model, config)
}

/// M/M/c: the mean sojourn is C(c, a)/(cμ − λ) + 1/μ (Erlang C).
#[test]
fn exponential_single_tasks_are_an_mmc_queue() {
    let (nodes, rho, service) = (5, 0.7, 1e-3);
    let (model, config) = queue(nodes, rho, TaskTimes::Exponential, service);
    let result = run(&model, &Interconnect::Crossbar, &config);
    let c = f64::from(nodes - 1);
    let (lambda, mu) = (config.arrival_rate, 1.0 / service);
    let a = lambda / mu;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..(c as u32) {
        term *= a / f64::from(k);
        sum += term;
    }
    let last = term * a / c / (1.0 - rho);
    let erlang_c = last / (sum + last);
    let expected = erlang_c / (c * mu - lambda) + 1.0 / mu;
    let estimate = result.completion.unwrap();
    assert!(
        estimate.contains(expected),
        "{estimate:?} against {expected}"
    );
    // The computing nodes are busy ρ of the time.
    let busy = result.node_utilisation[1..].iter().sum::<f64>() / c;
    close(busy, rho, 0.02);
}

/// M/D/1: Pollaczek–Khinchine, W = ρ/(2μ(1 − ρ)) before a service of 1/μ.
#[test]
fn constant_single_tasks_on_one_node_are_an_md1_queue() {
    let (rho, service) = (0.5, 1e-3);
    let (model, config) = queue(2, rho, TaskTimes::Constant, service);
    let result = run(&model, &Interconnect::Crossbar, &config);
    let expected = service + rho * service / (2.0 * (1.0 - rho));
    let estimate = result.completion.unwrap();
    assert!(
        estimate.contains(expected),
        "{estimate:?} against {expected}"
    );
    // Nobody waits less than the service.
    assert!(result.percentiles[0].1 >= service);
}

fn fabric(path: &str) -> LoadedFabric {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    load_routed_fabric_from(text.as_bytes(), path, LoadOptions::default()).unwrap()
}

/// Host ids of H0…H{n−1}: node i on host Hi.
fn hosts(f: &LoadedFabric, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let name = format!("H{i}");
            (0..f.fabric.num_hosts() as u32)
                .find(|&h| f.fabric.host_name(h) == name)
                .unwrap()
        })
        .collect()
}

fn loaded(nodes: u32) -> SimConfig {
    SimConfig {
        scheduler: Scheduler::Central,
        nodes,
        power: 1.0,
        bandwidth: 10e9,
        latency: 1e-6,
        arrival_rate: 6_000.0,
        roots: 400,
        warmup: 50,
        replications: 4,
        seed: 11,
        confidence: 0.95,
        record_traffic: true,
    }
}

/// A single switch shares exactly what the crossbar shares (each host's two links):
/// the same completion times to the bit.
#[test]
fn one_switch_is_the_crossbar() {
    let f = fabric("tests/fixtures/one-switch-8.dot");
    let placed = hosts(&f, 8);
    assert_eq!(check_routes(&f.fabric, &f.table, &placed).broken(), 0);
    let routes = RankRoutes::new(&f.fabric, &f.table, &placed);
    let model = layered(&[4, 3]);
    let config = loaded(8);
    let crossbar = run(&model, &Interconnect::Crossbar, &config);
    let switch = run(&model, &Interconnect::Fabric(routes), &config);
    assert_eq!(
        crossbar.replications[0].completions,
        switch.replications[0].completions
    );
    assert_eq!(crossbar.mean, switch.mean);
    assert_eq!(crossbar.traffic, switch.traffic);
}

/// Two switches of `half` hosts each (H0… on S0, the rest on S1) joined by one cable of
/// capacity `cable`.
fn two_switches(half: usize, cable: u32) -> LoadedFabric {
    let mut dot = String::from("digraph two {\n");
    let side = |s: usize| {
        (s * half..(s + 1) * half)
            .map(|h| format!("H{h}"))
            .collect::<Vec<_>>()
    };
    for s in 0..2 {
        for h in side(s) {
            dot.push_str(&format!(
                "  {h} -> S{s} [comment=\"*\"];\n  S{s} -> {h} [comment=\"{h}\"];\n"
            ));
        }
        dot.push_str(&format!(
            "  S{s} -> S{} [comment=\"{}\", capacity={cable}];\n",
            1 - s,
            side(1 - s).join(",")
        ));
    }
    dot.push_str("}\n");
    load_routed_fabric_from(dot.as_bytes(), "two.dot", LoadOptions::default()).unwrap()
}

/// z = 4,3 at ρ_x = 0.5 on 16 nodes: on the crossbar, and on two switches of eight
/// hosts joined by a cable of capacity `cable` (the fabric, the configuration and both
/// results).
fn crossbar_and_two_switches(cable: u32) -> (LoadedFabric, SimConfig, TaskResult, TaskResult) {
    let f = two_switches(8, cable);
    let placed = hosts(&f, 16);
    assert_eq!(check_routes(&f.fabric, &f.table, &placed).broken(), 0);
    let capacities = f.fabric.edge_capacities("two.dot").unwrap();
    let routes = RankRoutes::new(&f.fabric, &f.table, &placed).with_capacities(&capacities);
    let model = layered(&[4, 3]);
    let config = SimConfig {
        arrival_rate: 0.5 * 15.0 / 340e-6,
        ..loaded(16)
    };
    let crossbar = run(&model, &Interconnect::Crossbar, &config);
    let on_fabric = run(&model, &Interconnect::Fabric(routes), &config);
    (f, config, crossbar, on_fabric)
}

/// Two switches of eight hosts joined by one cable, at ρ_x = 0.5: the tasks take longer
/// than on the crossbar (8.6 % with this seed: busy nodes grant few helpers, so most
/// subtasks run where they were made), and the busiest links are the cable's two
/// directions (half used, the hosts' links an eighth).
#[test]
fn a_thin_cable_slows_the_tasks_down_and_carries_the_most() {
    let (f, _, crossbar, cable) = crossbar_and_two_switches(1);
    assert!(
        cable.mean > 1.05 * crossbar.mean,
        "{} against {}",
        cable.mean,
        crossbar.mean
    );
    let name = |l: usize| f.fabric.edge_label(l as u32).to_string();
    let mut by_use: Vec<usize> = (0..cable.link_utilisation.len()).collect();
    by_use.sort_by(|&a, &b| cable.link_utilisation[b].total_cmp(&cable.link_utilisation[a]));
    let top: Vec<String> = by_use[..2].iter().map(|&l| name(l)).collect();
    let cable_first = |end: &str| top.iter().any(|t| t.starts_with(end));
    assert!(
        cable_first("S0 -> S1") && cable_first("S1 -> S0"),
        "{top:?}"
    );
}

/// With a cable of eight times the bandwidth, as wide as the eight hosts on a side,
/// the cable never limits a message: the fabric gives the crossbar's completion times.
#[test]
fn a_cable_fast_enough_is_the_crossbar() {
    let (f, config, crossbar, wide) = crossbar_and_two_switches(8);
    // The cable's utilisation is over its eight-fold bandwidth.
    let cable = (0..f.fabric.num_edges() as u32)
        .find(|&e| f.fabric.edge_label(e).to_string().starts_with("S0 -> S1"))
        .unwrap() as usize;
    let expected: f64 = wide
        .replications
        .iter()
        .map(|r| r.link_bits[cable] / (8.0 * config.bandwidth * r.window))
        .sum::<f64>()
        / wide.replications.len() as f64;
    assert!(expected > 0.0);
    close(wide.link_utilisation[cable], expected, 1e-12);
    for (a, b) in crossbar.replications.iter().zip(&wide.replications) {
        assert_eq!(a.completions.len(), b.completions.len());
        for (x, y) in a.completions.iter().zip(&b.completions) {
            assert!((x - y).abs() <= 1e-12 * x, "{x} against {y}");
        }
    }
}

/// Random trees and exponential times: the model of the seeding tests.
fn random_model() -> TaskModel {
    TaskModel {
        tree: TreeModel::Preferential {
            tasks: 30,
            exponent: 0.5,
        },
        costs: TaskCosts::default(),
        times: TaskTimes::Exponential,
    }
}

/// Runs `config` on one thread and on three, checks both give the same result, and
/// returns it.
fn same_on_one_and_three_threads(model: &TaskModel, config: &SimConfig) -> TaskResult {
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(model, &Interconnect::Crossbar, config))
    };
    let a = on(1);
    assert_eq!(a, on(3));
    a
}

/// Same seed, same result, whatever the thread count; another seed differs.
#[test]
fn seeded_and_thread_independent() {
    let model = random_model();
    let config = loaded(16);
    let a = same_on_one_and_three_threads(&model, &config);
    let c = run(
        &model,
        &Interconnect::Crossbar,
        &SimConfig { seed: 12, ..config },
    );
    assert_ne!(a.mean, c.mean);
}

/// The progress heard adds up to every measured root task of every replication, in
/// batches of at least 256 but the last.
#[test]
fn progress_counts_every_measured_root_task() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let heard = AtomicU64::new(0);
    let calls = AtomicU64::new(0);
    let model = layered(&[2]);
    let config = SimConfig {
        roots: 1000,
        arrival_rate: 2e4,
        replications: 3,
        ..loaded(8)
    };
    simulate(&model, &Interconnect::Crossbar, &config, &|done| {
        heard.fetch_add(done, Ordering::Relaxed);
        calls.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(heard.into_inner(), 3000);
    // 1000 = 3 × 256 + 232 per replication: four calls each.
    assert_eq!(calls.into_inner(), 12);
}

/// Bad parameters are errors naming them.
#[test]
fn bad_parameters() {
    let model = layered(&[2]);
    let err = |config: SimConfig| {
        simulate(&model, &Interconnect::Crossbar, &config, &quiet)
            .unwrap_err()
            .to_string()
    };
    assert!(err(alone(1, 0.0)).contains("at least 2 nodes"));
    assert!(err(SimConfig {
        bandwidth: 0.0,
        ..alone(4, 0.0)
    })
    .contains("bandwidth"));
    assert!(err(SimConfig {
        arrival_rate: f64::NAN,
        ..alone(4, 0.0)
    })
    .contains("arrival rate"));
    assert!(err(SimConfig {
        latency: -1.0,
        ..alone(4, 0.0)
    })
    .contains("latency"));
    assert!(err(SimConfig {
        roots: 0,
        ..alone(4, 0.0)
    })
    .contains("root tasks"));
}
