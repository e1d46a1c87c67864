//! Work stealing against a queueing closed form, hand-computed bounds of a steal, the
//! accounting of its messages, work conservation under load, and the crossbar against
//! a single switch.

use super::*;

/// The retry period of these tests.
const RETRY: f64 = 10e-6;

fn stealing(config: SimConfig) -> SimConfig {
    SimConfig {
        scheduler: Scheduler::Stealing { retry: RETRY },
        ..config
    }
}

/// One node steals from nobody: it runs every task of z = 2 itself and sends nothing.
#[test]
fn one_node_runs_everything_and_sends_nothing() {
    let result = run(
        &layered(&[2]),
        &Interconnect::Crossbar,
        &stealing(alone(1, 0.0)),
    );
    close(result.mean, 60e-6, 1e-9);
    assert_eq!(result.messages, 0);
    assert_eq!(result.replications[0].bits, 0.0);
    assert_eq!(result.tasks, 3);
}

/// Single tasks (t_i then t_a, never interrupted: a node aggregates before it takes new
/// work) on one node: an M/D/1 queue served last come first served, whose mean sojourn
/// is first come first served's (Pollaczek–Khinchine) and whose tail is longer.
#[test]
fn single_tasks_on_one_node_are_an_md1_queue_served_last_first() {
    let (rho, service) = (0.5, 1e-3);
    let model = TaskModel {
        tree: TreeModel::Fixed(TaskTree::single()),
        costs: TaskCosts {
            init: service / 2.0,
            aggregate: service / 2.0,
            ..TaskCosts::default()
        },
        times: TaskTimes::Constant,
    };
    // queue(2, …) is one computing node beside the central scheduler.
    let (_, fifo_config) = queue(2, rho, TaskTimes::Constant, service);
    let config = SimConfig {
        nodes: 1,
        ..stealing(fifo_config)
    };
    let lifo = run(&model, &Interconnect::Crossbar, &config);
    let expected = service + rho * service / (2.0 * (1.0 - rho));
    let estimate = lifo.completion.unwrap();
    assert!(
        estimate.contains(expected),
        "{estimate:?} against {expected}"
    );
    close(lifo.node_utilisation[0], rho, 0.02);
    let fifo = run(&model, &Interconnect::Crossbar, &fifo_config);
    let p99 = |r: &TaskResult| r.percentiles[3].1;
    assert!(
        p99(&lifo) > 1.2 * p99(&fifo),
        "{} against {}",
        p99(&lifo),
        p99(&fifo)
    );
}

/// z = 2 on two nodes, root tasks 20 ms apart: the root's node initialises (10 µs) and
/// runs its first child (20 µs); the other node, asking every 10 µs, steals the second
/// child within 10 µs of its appearing, so the task takes 10 µs + at most 10 µs, then
/// s_s (16 µs) + 20 µs + s_r (32 µs) + t_a (10 µs): between 88 µs and 98 µs and the few
/// ε that share the links. Every root task has exactly one steal and one result; every
/// other message is a control message.
#[test]
fn a_stolen_child_by_hand() {
    let roots = 20;
    let config = SimConfig {
        arrival_rate: 50.0,
        roots,
        warmup: 2,
        replications: 2,
        ..stealing(alone(2, 0.0))
    };
    let result = run(&layered(&[2]), &Interconnect::Crossbar, &config);
    let costs = TaskCosts::default();
    for r in &result.replications {
        assert_eq!(r.completions.len(), roots as usize);
        for &c in &r.completions {
            assert!((88e-6 - 1e-12..88e-6 + RETRY + 0.5e-6).contains(&c), "{c}");
        }
        let stolen = roots as f64 * (costs.schedule_bits + costs.result_bits);
        let control = (r.bits - stolen) / costs.control_bits;
        assert!((control - control.round()).abs() < 1e-6, "{control}");
        assert_eq!(control.round() as u64, r.messages - 2 * roots);
        // Idle, each node asks once a period (plus the 64 ns of a request and its
        // refusal), and is refused: two control messages per ask.
        let asks = 2.0 * r.window / (RETRY + 64e-9);
        close(control, 2.0 * asks, 0.02);
    }
}

/// Under load every node computes: its utilisation is ρ_x with N_c = N (no node is
/// the scheduler), and each root task's work is its computation footprint.
#[test]
fn every_node_computes_the_load() {
    let rho = 0.5;
    let config = SimConfig {
        arrival_rate: rho * 16.0 / 340e-6,
        roots: 1000,
        ..stealing(loaded(16))
    };
    let result = run(&layered(&[4, 3]), &Interconnect::Crossbar, &config);
    let mean = result.node_utilisation.iter().sum::<f64>() / 16.0;
    close(mean, rho, 0.03);
    for &u in &result.node_utilisation {
        assert!(u > 0.3, "{:?}", result.node_utilisation);
    }
    // Root tasks complete in a few critical paths (6 tasks, two of them stolen).
    let estimate = result.completion.unwrap();
    assert!(
        estimate.mean > 100e-6 && estimate.mean < 1e-3,
        "{estimate:?}"
    );
}

/// A single switch shares what the crossbar shares, under work stealing too.
#[test]
fn one_switch_is_the_crossbar() {
    let f = fabric("tests/fixtures/one-switch-8.dot");
    let placed = hosts(&f, 8);
    let routes = RankRoutes::new(&f.fabric, &f.table, &placed);
    let model = layered(&[4, 3]);
    let config = stealing(loaded(8));
    let crossbar = run(&model, &Interconnect::Crossbar, &config);
    let switch = run(&model, &Interconnect::Fabric(routes), &config);
    for (a, b) in crossbar.replications.iter().zip(&switch.replications) {
        assert_eq!(a.completions, b.completions);
        assert_eq!(a.traffic_bits, b.traffic_bits);
    }
}

/// Same seed, same result, whatever the thread count.
#[test]
fn seeded_and_thread_independent() {
    same_on_one_and_three_threads(&random_model(), &stealing(loaded(16)));
}

/// No node, or a retry period that is not a time, is an error.
#[test]
fn bad_parameters() {
    let err = |config: SimConfig| {
        simulate(&layered(&[2]), &Interconnect::Crossbar, &config, &quiet)
            .unwrap_err()
            .to_string()
    };
    assert!(err(stealing(alone(0, 0.0))).contains("at least 1 node"));
    assert!(err(SimConfig {
        scheduler: Scheduler::Stealing { retry: -1.0 },
        ..alone(2, 0.0)
    })
    .contains("retry"));
}
