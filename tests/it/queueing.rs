//! `orcs queue`: the multi-cluster queueing model against the spec's regression table and
//! identities, against its own discrete-event simulation (Jackson/Kelly networks and the
//! Pollaczek–Khinchine formula within 99 % confidence intervals), switch counts measured
//! on bundled fabrics, and the command line around it.

use crate::support::*;

use orcs::queueing::des::{self, DesConfig};
use orcs::queueing::hops::{fat_tree_switches, linear_array_switches};
use orcs::queueing::{
    remote_probability, solve, Architecture, Centre, Ecn1Mode, Network, QueueError, Service,
    Solution, Sources, System,
};
use serde_json::Value;

/// Gigabit Ethernet everywhere, k = 24, t_sw = 2 µs (the spec's regression setting).
fn gige(arch: Architecture) -> Network {
    Network {
        bandwidth: 125e6,
        latency: 50e-6,
        switch_latency: 2e-6,
        ports: 24,
        architecture: arch,
    }
}

fn system(clusters: u32, per_cluster: u32, rate: f64, size: f64, arch: Architecture) -> System {
    System {
        clusters,
        nodes_per_cluster: per_cluster,
        rate,
        message_size: size,
        networks: [gige(arch); 3],
        service: Service::Exponential,
        ecn1: Ecn1Mode::Shared,
        sources: Sources::Blocking,
        measured_hops: None,
    }
}

/// Runs `orcs queue ARGS --format json` and parses the document.
fn queue_json(args: &[&str]) -> Value {
    let mut all = vec!["queue"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let run = orcs(&all).ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.describe()))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn regression_table_of_the_spec() {
    // Spec §8: C, P, S_I1 nb/b, S_I2 nb/b (µs), λ_eff (nb), T_C nb, T_C b (µs).
    let table = [
        (
            2, 0.50196, 63.8455, 80.0098, 60.192, 60.192, 19.94139, 146.964, 181.098,
        ),
        (
            4, 0.75294, 63.4936, 69.2516, 60.192, 60.192, 19.92673, 183.849, 196.713,
        ),
        (
            8, 0.87843, 62.7726, 65.2880, 60.192, 60.192, 19.92084, 198.687, 204.120,
        ),
        (
            16, 0.94118, 60.192, 60.192, 60.192, 60.192, 19.92002, 200.759, 200.759,
        ),
        (
            32, 0.97255, 60.192, 60.192, 62.7726, 65.2880, 19.91651, 209.598, 214.845,
        ),
    ];
    let doc = queue_json(&[
        "--clusters",
        "2,4,8,16,32",
        "--arch",
        "non-blocking,blocking",
    ]);
    assert_eq!(
        doc["series"],
        serde_json::json!(["non-blocking", "blocking"])
    );
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 10);
    let us = |v: &Value| num(v) * 1e6;
    for (i, row) in table.iter().enumerate() {
        let (c, p, s1_nb, s1_b, s2_nb, s2_b, lambda_eff, tc_nb, tc_b) = *row;
        let (nb, b) = (&points[i], &points[i + 5]);
        for pt in [nb, b] {
            assert_eq!(pt["clusters"], c);
            assert_eq!(pt["total_nodes"], 256);
            assert!((num(&pt["remote_probability"]) - p).abs() < 5e-6, "C = {c}");
        }
        let close = |got: f64, want: f64, digits: f64, what: &str| {
            assert!(
                (got - want).abs() <= 0.5 * 10f64.powf(-digits) * 1.0001,
                "C = {c} {what}: {got} vs {want}"
            );
        };
        close(us(&nb["centres"][0]["service_s"]), s1_nb, 4.0, "S_I1 nb");
        close(us(&b["centres"][0]["service_s"]), s1_b, 4.0, "S_I1 b");
        close(us(&nb["centres"][1]["service_s"]), s1_nb, 4.0, "S_E1 nb");
        close(us(&b["centres"][1]["service_s"]), s1_b, 4.0, "S_E1 b");
        close(us(&nb["centres"][2]["service_s"]), s2_nb, 4.0, "S_I2 nb");
        close(us(&b["centres"][2]["service_s"]), s2_b, 4.0, "S_I2 b");
        close(num(&nb["lambda_eff"]), lambda_eff, 5.0, "λ_eff");
        close(us(&nb["latency_s"]), tc_nb, 3.0, "T_C nb");
        close(us(&b["latency_s"]), tc_b, 3.0, "T_C b");
    }
    // C = 4 detail: utilisations and population.
    let c4 = &points[1];
    for (i, rho) in [0.020005, 0.121937, 0.231194].iter().enumerate() {
        assert!((num(&c4["centres"][i]["utilisation"]) - rho).abs() < 5e-7);
    }
    assert!((num(&c4["population"]) - 0.937856).abs() < 5e-7);
    // M = 512 B, non-blocking.
    let doc = queue_json(&["--clusters", "2:32:x2", "--size", "512"]);
    let got: Vec<f64> = doc["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| us(&p["latency_s"]))
        .collect();
    for (g, want) in got
        .iter()
        .zip([135.922, 169.762, 183.328, 184.831, 193.078])
    {
        assert!((g - want).abs() <= 0.0005, "{got:?}");
    }
}

#[test]
fn remote_probability_identities() {
    assert_eq!(remote_probability(1, 256), 0.0);
    assert_eq!(remote_probability(1, 7), 0.0);
    assert!((remote_probability(4, 64) - 0.75294).abs() < 5e-6);
    // Every other processor in another cluster when clusters have one processor.
    assert_eq!(remote_probability(256, 1), 1.0);
    // One cluster: no message uses ECN1 or ICN2.
    let s = solve(&system(1, 256, 20.0, 1024.0, Architecture::NonBlocking)).unwrap();
    assert_eq!(s.remote_probability, 0.0);
    assert_eq!(s.centres[1].arrival_rate, 0.0);
    assert_eq!(s.centres[2].utilisation, 0.0);
    assert_eq!(s.latency, s.centres[0].sojourn);
}

#[test]
fn latency_is_population_over_throughput() {
    // T_C = L/(N·λ_eff) holds for any λ_eff (the λ_eff fixed point included), so it
    // checks that the per-centre populations and the path weights agree.
    let mut checked = 0;
    for ecn1 in [Ecn1Mode::Shared, Ecn1Mode::Split] {
        for service in [Service::Exponential, Service::Deterministic] {
            for arch in [Architecture::NonBlocking, Architecture::Blocking] {
                for (c, n0) in [(2, 3), (4, 64), (8, 32), (16, 16), (32, 8), (5, 100)] {
                    for size in [64.0, 1024.0, 65536.0] {
                        let mut sys = system(c, n0, 1.0, size, arch);
                        sys.ecn1 = ecn1;
                        sys.service = service;
                        let limit = solve(&sys).unwrap().saturation_rate;
                        for share in [0.01, 0.5, 0.95] {
                            sys.rate = share * limit;
                            let s = solve(&sys).unwrap();
                            let n = sys.total_nodes() as f64;
                            let little = s.population / (n * s.lambda_eff);
                            assert!(
                                (s.latency - little).abs() <= 1e-12 * s.latency,
                                "{sys:?}: {} vs {little}",
                                s.latency
                            );
                            // And λ_eff is the fixed point λ(N − L)/N.
                            let again = sys.rate * (n - s.population) / n;
                            assert!((s.lambda_eff - again).abs() <= 1e-11 * again);
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 2 * 6 * 3 * 3);
}

#[test]
fn vanishing_rate_gives_the_no_load_latency() {
    // Independently from the closed forms: S = t_o + M/B + h·t_sw (non-blocking),
    // t_o + h(M/B + t_sw) (blocking), with the spec's switch counts for N0 = 64, C = 4.
    for (arch, h_cluster) in [
        (Architecture::NonBlocking, 167.0 / 63.0),
        (Architecture::Blocking, 17.0 / 9.0),
    ] {
        let sys = system(4, 64, 1e-9, 1024.0, arch);
        let m_over_b = 1024.0 / 125e6;
        let service = |h: f64| match arch {
            Architecture::NonBlocking => 50e-6 + m_over_b + h * 2e-6,
            Architecture::Blocking => 50e-6 + h * (m_over_b + 2e-6),
        };
        let p = 192.0 / 255.0;
        let no_load =
            (1.0 - p) * service(h_cluster) + p * (2.0 * service(h_cluster) + service(1.0));
        // The waiting part vanishes linearly with λ (ρ ∝ λ), λ_eff tends to λ.
        for rate in [1e-3, 1e-6, 1e-9, 1e-12] {
            let s = solve(&System {
                rate,
                ..sys.clone()
            })
            .unwrap();
            assert!(
                (s.latency - no_load).abs() < 0.01 * rate * no_load,
                "{arch} λ = {rate}"
            );
            assert!((s.transfer - no_load).abs() < 1e-13 * no_load);
            // λ − λ_eff = λL/N ≈ λ²·T_C.
            assert!((s.lambda_eff - rate).abs() <= 1e-3 * rate * rate + 4.0 * f64::EPSILON * rate);
        }
        // Exactly zero traffic: the no-load latency itself.
        let zero = solve(&System { rate: 0.0, ..sys }).unwrap();
        assert_eq!(zero.waiting, 0.0);
        assert_eq!((zero.lambda_eff, zero.population), (0.0, 0.0));
        assert!((zero.latency - no_load).abs() < 1e-13 * no_load);
    }
}

#[test]
fn latency_grows_with_rate_and_size_and_saturates_at_unit_utilisation() {
    for arch in [Architecture::NonBlocking, Architecture::Blocking] {
        for service in [Service::Exponential, Service::Deterministic] {
            let mut sys = system(8, 32, 1.0, 1024.0, arch);
            sys.service = service;
            let limit = solve(&sys).unwrap().saturation_rate;
            let mut last: Option<Solution> = None;
            for i in 0..200 {
                sys.rate = limit * i as f64 / 200.0;
                let s = solve(&sys).unwrap();
                if let Some(prev) = &last {
                    assert!(s.latency > prev.latency, "{arch} {service} at {i}");
                    assert!(s.lambda_eff > prev.lambda_eff);
                }
                last = Some(s);
            }
            let mut last = 0.0;
            for size in [0.0, 1.0, 64.0, 512.0, 1024.0, 4096.0, 9000.0] {
                sys.message_size = size;
                sys.rate = 20.0;
                let t = solve(&sys).unwrap().latency;
                assert!(t > last, "{arch} {service} M = {size}");
                last = t;
            }
            // Saturation exactly when the largest offered utilisation reaches 1.
            sys.message_size = 1024.0;
            let setup = sys.setup();
            for rate in [limit * (1.0 - 1e-9), limit, limit * (1.0 + 1e-9)] {
                sys.rate = rate;
                let rho_max = setup
                    .iter()
                    .map(|c| c.rate_factor * rate * c.service)
                    .fold(0.0, f64::max);
                match solve(&sys) {
                    Ok(_) => assert!(rho_max < 1.0),
                    Err(QueueError::Saturated {
                        centre,
                        utilisation,
                        ..
                    }) => {
                        assert!(rho_max >= 1.0);
                        assert_eq!(utilisation, rho_max);
                        assert_eq!(centre, Centre::Icn2);
                    }
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }
}

/// The open network at a share `load` of the saturation rate: the busiest centre runs at
/// utilisation `load`.
fn open_at(load: f64, ecn1: Ecn1Mode, arch: Architecture, service: Service) -> (System, Solution) {
    let mut sys = system(4, 64, 1.0, 1024.0, arch);
    sys.ecn1 = ecn1;
    sys.service = service;
    sys.sources = Sources::Open;
    sys.rate = load * solve(&sys).unwrap().saturation_rate;
    let s = solve(&sys).unwrap();
    assert!((s.busiest().1 - load).abs() < 1e-12);
    (sys, s)
}

fn des_config(seed: u64) -> DesConfig {
    DesConfig {
        sources: Sources::Open,
        messages: 100_000,
        warmup: 0.1,
        replications: 20,
        seed,
        confidence: 0.99,
    }
}

#[test]
fn jackson_network_simulation_agrees_within_99_percent_intervals() {
    // Exponential service: the open network is a Kelly (multi-class Jackson) network, so
    // S/(1−ρ) per centre and the path sum for T_C are exact. Every centre's mean sojourn
    // time and the mean latency must lie in their simulated 99 % intervals at every load;
    // the seeds are fixed, so the test is deterministic (with 40 such comparisons an
    // arbitrary seed misses one about a third of the time, as 99 % intervals should).
    // Over all 120 intervals (waiting times, utilisations and throughputs too) the share
    // that misses must stay near 1 %: a wrong formula makes most of them miss.
    let loads = [0.1, 0.3, 0.5, 0.7, 0.9];
    let (mut intervals, mut misses) = (0, 0);
    for (k, (ecn1, arch)) in [
        (Ecn1Mode::Shared, Architecture::NonBlocking),
        (Ecn1Mode::Split, Architecture::Blocking),
    ]
    .into_iter()
    .enumerate()
    {
        for (i, &load) in loads.iter().enumerate() {
            let (sys, s) = open_at(load, ecn1, arch, Service::Exponential);
            let seed = JACKSON_SEED + 10 * k as u64 + i as u64;
            let sim = des::simulate(&sys, &s, &des_config(seed)).unwrap();
            let what = format!("{ecn1} {arch} at ρ = {load} (seed {seed})");
            let mut check = |e: &des::Estimate, value: f64| {
                intervals += 1;
                if !e.contains(value) {
                    misses += 1;
                }
            };
            for r in &s.centres {
                let e = &sim.centres[r.centre.index()];
                let (t, w, u) = (
                    e.sojourn.unwrap(),
                    e.waiting.unwrap(),
                    e.utilisation.unwrap(),
                );
                assert!(
                    t.contains(r.sojourn),
                    "{what}: {} T {t:?} vs {}",
                    r.centre,
                    r.sojourn
                );
                // The intervals are narrow enough to tell models apart: within 5 % of
                // the mean, or else (a busy centre, whose interval is wider) still
                // excluding the sojourn time of deterministic service (P–K's waiting,
                // half of M/M/1's), which differs most there.
                let deterministic = r.service + r.waiting / 2.0;
                assert!(
                    t.half_width < 0.05 * t.mean || !t.contains(deterministic),
                    "{what}: {} {t:?}",
                    r.centre
                );
                check(&t, r.sojourn);
                check(&w, r.waiting);
                check(&u, r.utilisation);
            }
            assert!(
                sim.latency.contains(s.latency),
                "{what}: T_C {:?} vs {}",
                sim.latency,
                s.latency
            );
            check(&sim.latency, s.latency);
            check(&sim.waiting, s.waiting);
            check(&sim.throughput, sys.rate);
            if load == 0.9 {
                // Pollaczek–Khinchine's waiting time, half of M/M/1's, is rejected.
                let icn2 = &s.centres[2];
                let wrong = icn2.service + icn2.waiting / 2.0;
                assert!(!sim.centres[2].sojourn.unwrap().contains(wrong), "{what}");
            }
        }
    }
    assert_eq!(intervals, 120);
    assert!(
        misses <= 5,
        "{misses} of {intervals} 99 % intervals miss the analytic value"
    );
}

/// Base seed of the Jackson-network comparison.
const JACKSON_SEED: u64 = 100;

#[test]
fn deterministic_service_agrees_with_pollaczek_khinchine() {
    // One cluster: only the ICN1s, fed by Poisson streams, so the M/D/1 waiting time
    // ρS/(2(1−ρ)) is exact at every load.
    for (i, load) in [0.1, 0.3, 0.5, 0.7, 0.9].into_iter().enumerate() {
        let mut sys = system(1, 256, 1.0, 1024.0, Architecture::NonBlocking);
        sys.service = Service::Deterministic;
        sys.sources = Sources::Open;
        sys.rate = load * solve(&sys).unwrap().saturation_rate;
        let s = solve(&sys).unwrap();
        let r = &s.centres[0];
        assert!((r.utilisation - load).abs() < 1e-12);
        assert_eq!(r.waiting, load * r.service / (2.0 * (1.0 - load)));
        let sim = des::simulate(&sys, &s, &des_config(200 + i as u64)).unwrap();
        let t = sim.centres[0].sojourn.unwrap();
        assert!(t.contains(r.sojourn), "ρ = {load}: {t:?} vs {}", r.sojourn);
        assert!(sim.latency.contains(s.latency));
        // The simulated transfer time is exactly S: deterministic service.
        assert!((sim.transfer.mean - r.service).abs() < 1e-12 * r.service);
        assert!(sim.centres[1].sojourn.is_none() && sim.centres[2].sojourn.is_none());
        if load >= 0.5 {
            // M/M/1's waiting time (twice as long) is rejected.
            assert!(!t.contains(r.service + 2.0 * r.waiting), "ρ = {load}");
        }
    }
    // In the multi-cluster network the ICN1 is still exact; the centres fed by other
    // centres see smoother than Poisson arrivals and wait less than P–K says.
    let (sys, s) = open_at(
        0.8,
        Ecn1Mode::Shared,
        Architecture::NonBlocking,
        Service::Deterministic,
    );
    let sim = des::simulate(&sys, &s, &des_config(300)).unwrap();
    let icn1 = sim.centres[0].sojourn.unwrap();
    assert!(icn1.contains(s.centres[0].sojourn), "{icn1:?}");
    for c in [Centre::Ecn1, Centre::Icn2] {
        let w = sim.centres[c.index()].waiting.unwrap();
        let pk = s.centres[c.index()].waiting;
        assert!(w.mean + w.half_width < pk, "{c}: {w:?} vs P–K {pk}");
        assert!(w.mean > 0.0);
    }
}

#[test]
fn blocking_processors_approach_the_effective_rate_model() {
    // Processors that wait for their messages: the λ_eff fixed point is an
    // approximation of that closed system; at light load it is within a few tenths of
    // a percent, and the throughput never exceeds λ.
    let mut sys = system(4, 64, 20.0, 1024.0, Architecture::NonBlocking);
    sys.sources = Sources::Blocking;
    let s = solve(&sys).unwrap();
    let config = DesConfig {
        sources: Sources::Blocking,
        ..des_config(400)
    };
    let sim = des::simulate(&sys, &s, &config).unwrap();
    assert!(sim.throughput.mean < sys.rate);
    assert!(
        (sim.throughput.mean - s.lambda_eff).abs() < 0.002 * s.lambda_eff,
        "{:?}",
        sim.throughput
    );
    assert!(
        (sim.latency.mean - s.latency).abs() < 0.01 * s.latency,
        "{:?}",
        sim.latency
    );
    // Open sources are refused for the blocking check of an open model.
    let open = System {
        sources: Sources::Open,
        ..sys.clone()
    };
    let e = des::simulate(&open, &solve(&open).unwrap(), &config).unwrap_err();
    assert!(e.to_string().contains("open sources"), "{e}");
}

#[test]
fn simulation_output_is_the_same_for_any_thread_count() {
    let args = |threads: &'static str, seed: &'static str| {
        vec![
            "queue",
            "--rate",
            "20,60",
            "--simulate",
            "--messages",
            "20000",
            "--replications",
            "8",
            "--seed",
            seed,
            "-j",
            threads,
        ]
    };
    let one = orcs(&args("1", "7")).ok().stdout;
    let three = orcs(&args("3", "7")).ok().stdout;
    assert_eq!(one, three);
    let other = orcs(&args("2", "8")).ok().stdout;
    assert_ne!(one, other, "the seed changes the simulation");
    assert!(one.contains("sim T_C (µs)"), "{one}");
    // Without --seed one is chosen and printed.
    let run = orcs(&[
        "queue",
        "--simulate",
        "--messages",
        "2000",
        "--replications",
        "2",
    ])
    .ok();
    assert!(
        run.stderr.contains("orcs: using --seed "),
        "{}",
        run.describe()
    );
}

#[test]
fn fabric_switch_counts_are_counted_on_the_routes() {
    // ft4-2: 16 hosts, 4 per leaf switch (S0_x), 4 spines; OpenSM ftree routing.
    // One cluster: 3 destinations on the own leaf (1 switch), 12 over a spine (3).
    let doc = queue_json(&["--fabric", FT4, "--clusters", "1,2,4,8,16"]);
    let points = doc["points"].as_array().unwrap();
    let hops = |i: usize| -> Vec<f64> {
        let f = &points[i]["fabric_switches"];
        ["intra", "inter", "ecn1", "icn2"]
            .iter()
            .map(|k| num(&f[k]))
            .collect()
    };
    assert_eq!(
        points[0]["total_nodes"], 16,
        "N defaults to the fabric's hosts"
    );
    assert_eq!(hops(0), [2.6, 0.0, 0.0, 0.0]);
    // It is the closed form of the 8-port 2-tree.
    assert_eq!(fat_tree_switches(16, 8), 2.6);
    // Two clusters of two leaves: 3 of 7 destinations on the own leaf, 4 over a spine.
    // The spines carry both clusters' local routes, so they are global: a route to the
    // other cluster is leaf (ECN1) – spine (ICN2) – leaf (ECN1).
    assert_eq!(hops(1), [15.0 / 7.0, 3.0, 1.0, 1.0]);
    // One leaf per cluster.
    assert_eq!(hops(2), [1.0, 3.0, 1.0, 1.0]);
    // Two clusters per leaf: the leaves are shared, so the whole route is ICN2; of the
    // 14 remote destinations 2 share the leaf (1 switch) and 12 do not (3).
    assert_eq!(hops(3), [1.0, 38.0 / 14.0, 0.0, 38.0 / 14.0]);
    assert_eq!(hops(4), [0.0, 2.6, 0.0, 2.6]);
    // The counts replace the closed forms in the model.
    assert_eq!(points[2]["switches"], serde_json::json!([1.0, 1.0, 1.0]));
    // A 4-ary 3-tree routed by D-mod-K: the closed form of the 8-port 3-tree.
    let doc = queue_json(&[
        "--fabric",
        "topologies/kary-ntree-4-3.dmodk.dot",
        "--clusters",
        "1",
    ]);
    let intra = num(&doc["points"][0]["fabric_switches"]["intra"]);
    assert!((intra - 279.0 / 63.0).abs() < 1e-12);
    assert!((fat_tree_switches(64, 8) - 279.0 / 63.0).abs() < 1e-12);
    // Text output says where the counts come from.
    let run = orcs(&["queue", "--fabric", FT4, "--clusters", "2"]).ok();
    assert!(run.stdout.contains("(fabric)"), "{}", run.describe());
    assert!(
        run.stdout.contains("2.142857 within a cluster"),
        "{}",
        run.describe()
    );
}

#[test]
fn fabric_problems_are_reported() {
    orcs(&[
        "queue",
        "--fabric",
        FT4,
        "--nodes-per-cluster",
        "8",
        "--clusters",
        "4",
    ])
    .fails_with(1, &["--fabric", "need 32 hosts, but the fabric has 16"]);
    orcs(&[
        "queue",
        "--fabric",
        "tests/fixtures/dead-end.dot",
        "--clusters",
        "2",
    ])
    .fails_with(1, &["--fabric", "not routed"]);
    orcs(&["queue", "--fabric", "/nonexistent.dot"]).fails_with(1, &["/nonexistent.dot"]);
}

#[test]
fn closed_forms_of_the_switch_counts() {
    assert_eq!(fat_tree_switches(64, 24), 167.0 / 63.0);
    assert_eq!(linear_array_switches(64, 24), 17.0 / 9.0);
    assert!((fat_tree_switches(128, 24) - 2.82677).abs() < 5e-6);
    assert!((linear_array_switches(128, 24) - 2.94444).abs() < 5e-6);
    assert!((fat_tree_switches(32, 24) - 2.29032).abs() < 5e-6);
    assert_eq!(linear_array_switches(32, 24), 1.5);
    assert_eq!(fat_tree_switches(24, 24), 1.0);
    assert_eq!(linear_array_switches(24, 24), 1.0);
}

#[test]
fn saturation_is_an_error_naming_the_centre() {
    let limit = num(&queue_json(&[])["points"][0]["saturation_rate"]);
    let over = format!("{}", limit * 1.0001);
    orcs(&["queue", "--rate", &over])
        .fails_with(1, &["ICN2 is saturated", "utilisation is 1.0001"]);
    let under = format!("{}", limit * 0.9999);
    orcs(&["queue", "--rate", &under]).ok();
    // In a sweep, saturated points are rows of the table, with a warning.
    let run = orcs(&["queue", "--rate", &format!("20,{over}")]).ok();
    assert!(
        run.stdout.contains("saturated: ICN2 at ρ = 1.0001"),
        "{}",
        run.describe()
    );
    assert!(
        run.stderr.contains("1 of 2 points are saturated"),
        "{}",
        run.describe()
    );
    let doc = queue_json(&["--rate", &format!("20,{over}")]);
    assert_eq!(doc["points"][1]["saturated"]["centre"], "ICN2");
    assert!(doc["points"][1]["latency_s"].is_null());
    // Every point saturated: an error.
    orcs(&["queue", "--rate", &format!("{over},1000")]).fails_with(1, &["saturated"]);
    // With the ECN1 split into directions its utilisation halves: ICN2 still first.
    let shared = queue_json(&["--clusters", "2"]);
    let split = queue_json(&["--clusters", "2", "--ecn1", "split"]);
    let rho = |d: &Value| num(&d["points"][0]["centres"][1]["utilisation"]);
    assert!((rho(&shared) / rho(&split) - 2.0).abs() < 1e-3);
}

#[test]
fn parameter_file_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fig2.toml");
    std::fs::write(
        &file,
        r#"# Fig. 2 of the paper: N = 256, C swept, M = 512 and 1024 bytes.
clusters = [2, 4, 8, 16, 32]
total_nodes = 256
rate = 20
message_size = ["512", "1KiB"]

[network]
preset = "gigabit-ethernet"
ports = 24
switch_latency = "2us"
"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let from_file = queue_json(&["--config", path]);
    let from_flags = queue_json(&["--clusters", "2:32:x2", "--size", "512,1024"]);
    assert_eq!(from_file["points"], from_flags["points"]);
    assert_eq!(
        from_file["series"],
        serde_json::json!(["non-blocking, M = 512 B", "non-blocking, M = 1024 B"])
    );
    // Flags override the file.
    let over = queue_json(&[
        "--config",
        path,
        "--clusters",
        "4",
        "--size",
        "1024",
        "--network",
        "fast-ethernet",
    ]);
    assert_eq!(over["points"].as_array().unwrap().len(), 1);
    assert_eq!(
        over["parameters"]["networks"][0]["bandwidth_bytes_per_s"],
        12.5e6
    );
    // Errors name the file, the line and what was expected.
    for (text, needles) in [
        (
            "clusters = 4\nbandwith = 5\n",
            vec![":2:", "unknown field `bandwith`", "expected one of"],
        ),
        (
            "[network]\nlatency = 50\n",
            vec![":2:", "has no unit", "us"],
        ),
        (
            "[network.icn2]\npreset = \"myrinet\"\n",
            vec![":2:", "unknown network preset 'myrinet'", "infiniband-qdr"],
        ),
        ("rate = -3\n", vec![":1:", "rate"]),
    ] {
        std::fs::write(&file, text).unwrap();
        let mut all = vec![path];
        all.extend(needles);
        orcs(&["queue", "--config", path]).fails_with(1, &all);
    }
    orcs(&["queue", "--config", "/nonexistent.toml"])
        .fails_with(1, &["cannot read parameter file '/nonexistent.toml'"]);
}

#[test]
fn bad_flags_are_named() {
    orcs(&["queue", "--clusters", "3"])
        .fails_with(1, &["256 processors cannot be split into 3 clusters"]);
    orcs(&["queue", "--clusters", "0"]).fails_with(1, &["--clusters", "whole number"]);
    orcs(&["queue", "--rate", "fast"]).fails_with(1, &["--rate", "'fast'"]);
    orcs(&["queue", "--size", "1 parsec"]).fails_with(1, &["--size", "'1 parsec'"]);
    orcs(&["queue", "--latency", "50"]).fails_with(1, &["--latency", "us"]);
    orcs(&["queue", "--bandwidth", "icn3=1GB/s"]).fails_with(1, &["--bandwidth", "icn3", "icn2"]);
    orcs(&["queue", "--ports", "7"]).fails_with(1, &["--ports", "'7'"]);
    orcs(&["queue", "--arch", "torus"]).fails_with(1, &["--arch", "non-blocking, blocking"]);
    orcs(&["queue", "--network", "myrinet"]).fails_with(1, &["--network", "gigabit-ethernet"]);
    orcs(&["queue", "--service", "poisson"]).fails_with(1, &["--service", "deterministic"]);
    orcs(&["queue", "--ecn1", "both"]).fails_with(1, &["--ecn1", "split"]);
    orcs(&["queue", "--nodes", "8", "--nodes-per-cluster", "2"]).fails_with(1, &["--nodes"]);
    orcs(&["queue", "--nodes", "1", "--clusters", "1"]).fails_with(1, &["at least 2"]);
    orcs(&["queue", "--seed", "1"]).fails_with(1, &["--simulate"]);
    orcs(&["queue", "--simulate", "--replications", "1"])
        .fails_with(1, &["--replications", "at least 2"]);
    orcs(&["queue", "--simulate", "--confidence", "100"]).fails_with(1, &["--confidence"]);
    orcs(&["queue", "--open", "--simulate", "--sim-sources", "blocking"])
        .fails_with(1, &["--sim-sources blocking", "--open"]);
    orcs(&["queue", "--plot", "x.eps", "--rate", "1,2"])
        .fails_with(1, &["--plot 'x.eps'", ".svg, .png or .pdf"]);
    orcs(&["queue", "--plot", "x.svg"]).fails_with(1, &["--plot", "swept parameter"]);
    orcs(&["queue", "--sweep", "speed"]).fails_with(1, &["--sweep", "clusters, rate, size"]);
}

#[test]
fn outputs_of_a_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("fig2.svg");
    let csv = dir.path().join("fig2.csv");
    let args = [
        "queue",
        "--clusters",
        "1:64:x2",
        "--size",
        "512,1024",
        "--arch",
        "non-blocking,blocking",
    ];
    let mut a = args.to_vec();
    a.extend(["--plot", svg.to_str().unwrap()]);
    let text = orcs(&a).ok().stdout;
    // One row per point under a header, grouped by series.
    assert_eq!(text.lines().count(), 2 + 4 * 7, "{text}");
    assert!(text.lines().nth(1).unwrap().starts_with("series"), "{text}");
    let image = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "non-blocking, M = 512 B",
        "non-blocking, M = 1024 B",
        "blocking, M = 512 B",
        "blocking, M = 1024 B",
        "number of clusters C",
        "mean message latency T_C (µs)",
    ] {
        assert!(image.contains(label), "{label} missing from the plot");
    }
    // CSV: a header and one row per point, values equal to JSON's.
    let mut c = args.to_vec();
    c.extend(["--format", "csv", "-o", csv.to_str().unwrap()]);
    orcs(&c).ok();
    let table = std::fs::read_to_string(&csv).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| {
            // Labels are quoted when they hold a comma.
            let mut fields = Vec::new();
            let mut rest = l;
            while !rest.is_empty() {
                if let Some(r) = rest.strip_prefix('"') {
                    let end = r.find('"').unwrap();
                    fields.push(r[..end].to_string());
                    rest = r[end + 1..].strip_prefix(',').unwrap_or("");
                } else {
                    let end = rest.find(',').unwrap_or(rest.len());
                    fields.push(rest[..end].to_string());
                    rest = rest.get(end + 1..).unwrap_or("");
                }
            }
            fields
        })
        .collect();
    assert_eq!(rows.len(), 28);
    let doc = queue_json(&args[1..]);
    for (row, point) in rows.iter().zip(doc["points"].as_array().unwrap()) {
        assert_eq!(row[col("label")], point["label"].as_str().unwrap());
        // (serde_json reads decimals to within an ulp, CSV holds the shortest exact form.)
        let same = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs();
        let latency: f64 = row[col("latency_s")].parse().unwrap();
        assert!(same(latency, num(&point["latency_s"])));
        let rho: f64 = row[col("icn2_utilisation")].parse().unwrap();
        assert!(same(rho, num(&point["centres"][2]["utilisation"])));
    }
}

#[test]
fn single_point_report_shows_every_centre() {
    let run = orcs(&[
        "queue",
        "--clusters",
        "4",
        "--simulate",
        "--seed",
        "3",
        "--messages",
        "50000",
    ])
    .ok();
    let out = &run.stdout;
    for needle in [
        "C = 4 clusters × N0 = 64 processors (N = 256)",
        "λ_eff = 19.926730",
        "ICN1         4    315.0768    63.494  0.020005",
        "mean message latency T_C = 183.849 µs",
        "messages in flight L = 0.937856; L/(N·λ_eff) = 183.849 µs",
        "the offered load saturates the ICN2",
        "T_C (µs)           183.849",
    ] {
        assert!(
            out.contains(needle),
            "{needle:?} missing\n{}",
            run.describe()
        );
    }
    assert_eq!(out.matches("exact").count(), 11, "{out}");
}
