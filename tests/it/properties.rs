//! Properties of the readers of hand-written inputs (scan plans, job scenarios, queue
//! parameter files): any valid file generated from its parts reads back as those parts,
//! and any byte edit of one gives a value or an error that names the file, never a panic.

use orcs::cluster::jobs::{parse_scenario, TimeDist};
use orcs::engine::metric::MetricKind;
use orcs::queueing::params::parse_config;
use orcs::scan::{parse_plan, FabricSource};
use proptest::prelude::*;
use std::collections::HashSet;

/// `base` with byte edits: each `(position, byte, kind)` overwrites (kind 0), inserts (1)
/// or removes (2) the byte at `position` modulo the current length.
fn mutate(base: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut v = base.as_bytes().to_vec();
    for &(pos, byte, kind) in edits {
        let i = pos % (v.len() + 1);
        match kind % 3 {
            0 if i < v.len() => v[i] = byte,
            1 => v.insert(i, byte),
            _ if i < v.len() => {
                v.remove(i);
            }
            _ => v.push(byte),
        }
    }
    String::from_utf8_lossy(&v).into_owned()
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    proptest::collection::vec((0usize..2000, any::<u8>(), 0u8..3), 1..8)
}

// ----- scan plans -----

const GENERATORS: [&str; 3] = [
    "kary-ntree:k=2,n=2",
    "torus:dims=2x3",
    "xgft:h=2,m=2.2,w=1.2",
];
const ROUTINGS: [&str; 3] = ["dmodk", "updn", "minhop"];
const PATTERNS: [&str; 4] = ["bisect", "bruck", "ring", "rand"];
const METRICS: [MetricKind; 3] = [
    MetricKind::SumMaxCong,
    MetricKind::HistMaxCong,
    MetricKind::HistAccBand,
];

/// A plan's parts: runs, seed, generated fabrics (generator, routings), patterns (with
/// `neighbor`'s argument when the index is past the named ones), sizes and metrics.
#[derive(Debug, Clone)]
struct PlanParts {
    runs: u64,
    seed: u64,
    fabrics: Vec<(usize, Vec<usize>)>,
    patterns: Vec<usize>,
    commsizes: Vec<u64>,
    metrics: Vec<usize>,
}

fn plan_parts() -> impl Strategy<Value = PlanParts> {
    (
        1u64..=u32::MAX as u64,
        any::<u64>(),
        proptest::collection::vec(
            (
                0..GENERATORS.len(),
                proptest::collection::vec(0..ROUTINGS.len(), 0..3),
            ),
            1..4,
        ),
        proptest::collection::vec(0..PATTERNS.len() + 2, 1..5),
        proptest::collection::vec(0u64..64, 1..4),
        proptest::collection::vec(0..METRICS.len(), 1..3),
    )
        .prop_map(
            |(runs, seed, fabrics, patterns, commsizes, metrics)| PlanParts {
                runs,
                seed,
                fabrics,
                patterns,
                commsizes,
                metrics,
            },
        )
}

impl PlanParts {
    fn pattern(&self, p: usize) -> (String, Option<String>) {
        match PATTERNS.get(p) {
            Some(name) => (name.to_string(), None),
            None => (
                "neighbor".into(),
                Some((p - PATTERNS.len() + 2).to_string()),
            ),
        }
    }

    fn toml(&self) -> String {
        let list = |v: Vec<String>| v.join(", ");
        let mut t = format!("runs = {}\nseed = {}\n", self.runs, self.seed);
        let patterns = self.patterns.iter().map(|&p| match self.pattern(p) {
            (n, None) => format!("\"{n}\""),
            (n, Some(a)) => format!("{{ name = \"{n}\", arg = \"{a}\" }}"),
        });
        t += &format!("patterns = [{}]\n", list(patterns.collect()));
        let sizes = self.commsizes.iter().map(u64::to_string);
        t += &format!("commsizes = [{}]\n", list(sizes.collect()));
        let metrics = self.metrics.iter().map(|&m| format!("\"{}\"", METRICS[m]));
        t += &format!("metrics = [{}]\n", list(metrics.collect()));
        for (g, routings) in &self.fabrics {
            t += &format!("\n[[fabrics]]\ngen = \"{}\"\n", GENERATORS[*g]);
            if !routings.is_empty() {
                let r = routings.iter().map(|&r| format!("\"{}\"", ROUTINGS[r]));
                t += &format!("routing = [{}]\n", list(r.collect()));
            }
        }
        t
    }

    /// The fabrics the plan names, one per routing, in plan order.
    fn expected_fabrics(&self) -> Vec<FabricSource> {
        let mut out = Vec::new();
        for (g, routings) in &self.fabrics {
            let spec = GENERATORS[*g].to_string();
            if routings.is_empty() {
                out.push(FabricSource::Gen {
                    spec: spec.clone(),
                    routing: None,
                });
            }
            for &r in routings {
                out.push(FabricSource::Gen {
                    spec: spec.clone(),
                    routing: Some(ROUTINGS[r].to_string()),
                });
            }
        }
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A plan reads back as its parts, its cells are the product in the documented
    /// order (fabric, pattern, size, metric), and any shard split covers each cell once.
    #[test]
    fn plan_reads_back_as_its_parts(parts in plan_parts(), shards in 1usize..7) {
        let plan = parse_plan(&parts.toml(), "dir/p.toml").unwrap();
        prop_assert_eq!(plan.runs, parts.runs);
        prop_assert_eq!(plan.seed, parts.seed);
        prop_assert_eq!(&plan.fabrics, &parts.expected_fabrics());
        let mut expected = Vec::new();
        for f in 0..plan.fabrics.len() {
            for &p in &parts.patterns {
                for &s in &parts.commsizes {
                    for &m in &parts.metrics {
                        let (name, arg) = parts.pattern(p);
                        expected.push((f, name, arg, s, METRICS[m]));
                    }
                }
            }
        }
        let cells: Vec<_> = plan
            .cells
            .iter()
            .map(|c| (c.fabric, c.pattern.clone(), c.arg.clone(), c.commsize, c.metric().unwrap()))
            .collect();
        prop_assert_eq!(cells, expected);
        for (i, c) in plan.cells.iter().enumerate() {
            prop_assert_eq!(c.index, i);
            let tail = format!("-n {} --seed {}", parts.runs, parts.seed);
            prop_assert!(plan.command(c).ends_with(&tail), "{}", plan.command(c));
        }
        let mut seen = vec![0u32; plan.cells.len()];
        let mut sizes = Vec::new();
        for k in 1..=shards {
            let shard = plan.shard(k, shards);
            sizes.push(shard.len());
            for c in shard {
                seen[c.index] += 1;
            }
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        prop_assert!(hi - lo <= 1, "{sizes:?}");
    }

    /// Keys tell cells apart exactly when they differ in something that changes the
    /// numbers: distinct (fabric, pattern, argument, size, metric) tuples get distinct keys.
    #[test]
    fn plan_keys_are_distinct_for_distinct_cells(parts in plan_parts()) {
        let plan = parse_plan(&parts.toml(), "p.toml").unwrap();
        let tuples: HashSet<_> = plan
            .cells
            .iter()
            .map(|c| {
                let f = plan.fabrics[c.fabric].label();
                (f, c.pattern.clone(), c.arg.clone(), c.commsize, c.metric().unwrap().to_string())
            })
            .collect();
        let keys: HashSet<_> = plan.cells.iter().map(|c| plan.key(c)).collect();
        prop_assert_eq!(keys.len(), tuples.len());
    }

    /// A damaged plan parses or fails with an error naming the file.
    #[test]
    fn mutated_plan_never_panics(parts in plan_parts(), edits in edits()) {
        let text = mutate(&parts.toml(), &edits);
        if let Err(e) = parse_plan(&text, "dir/p.toml") {
            prop_assert!(e.to_string().starts_with("dir/p.toml"), "{e}");
        }
    }
}

// ----- job scenarios -----

/// A time distribution and its YAML, as a job's `submit` or `duration`.
fn time_dist() -> impl Strategy<Value = (TimeDist, String)> {
    // Values with an exact short decimal form, so the YAML text is the value.
    let value = (1u32..100_000).prop_map(|n| n as f64 / 8.0);
    prop_oneof![
        value
            .clone()
            .prop_map(|v| (TimeDist::Constant(v), format!("{v}"))),
        value.clone().prop_map(|v| (
            TimeDist::Constant(v),
            format!("{{distribution: constant, params: {{value: {v}}}}}")
        )),
        value.clone().prop_map(|r| (
            TimeDist::Exponential { rate: r },
            format!("{{distribution: exponential, params: {{lambd: {r}}}}}")
        )),
        (value.clone(), value.clone()).prop_map(|(a, b)| {
            let (low, high) = (a.min(b), a.max(b) + 1.0);
            (
                TimeDist::Uniform { low, high },
                format!("{{distribution: uniform, params: {{low: {low}, high: {high}}}}}"),
            )
        }),
        proptest::collection::vec(value, 1..5).prop_map(|mut v| {
            v.sort_by(f64::total_cmp);
            let text = v.iter().map(f64::to_string).collect::<Vec<_>>().join(", ");
            (TimeDist::List(v), format!("[{text}]"))
        }),
    ]
}

const SELECTORS: [&str; 2] = ["linear", "random"];
const MAPPERS: [&str; 2] = ["block", "cyclic"];
const ROUTERS: [&str; 2] = ["dmodk", "random"];

/// A scenario's YAML, its jobs' (submit, duration), its number of runs and its seed.
type ScenarioParts = (String, Vec<(TimeDist, TimeDist)>, usize, Option<u64>);

fn scenario_parts() -> impl Strategy<Value = ScenarioParts> {
    (
        1u32..1_000_000,
        proptest::collection::vec((time_dist(), time_dist()), 1..4),
        proptest::collection::vec(0..2usize, 1..3),
        proptest::collection::vec(0..2usize, 1..3),
        proptest::collection::vec(0..2usize, 1..3),
        proptest::option::of(any::<u64>()),
    )
        .prop_map(|(duration, jobs, sel, map, route, seed)| {
            let names = |v: &[usize], from: &[&str]| {
                v.iter().map(|&i| from[i]).collect::<Vec<_>>().join(", ")
            };
            let mut yaml = format!(
                "duration: {duration}\ntopology:\n  - kind: gen\n    params: {{spec: 'kary-ntree:k=2,n=2'}}\n\
                 algorithms:\n  scheduler: [fcfs]\n  host_selector: [{}]\n  process_mapper: [{}]\n  router: [{}]\njobs:\n",
                names(&sel, &SELECTORS),
                names(&map, &MAPPERS),
                names(&route, &ROUTERS)
            );
            let mut expected = Vec::new();
            for ((submit, s_text), (run, r_text)) in jobs {
                yaml += &format!("  - submit: {s_text}\n    duration: {r_text}\n    trace: m.csv\n");
                expected.push((submit, run));
            }
            if let Some(seed) = seed {
                yaml += &format!("seed: {seed}\n");
            }
            (yaml, expected, sel.len() * map.len() * route.len(), seed)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A scenario reads back as its jobs, and its runs are the product of its lists.
    #[test]
    fn scenario_reads_back_as_its_parts((yaml, jobs, runs, seed) in scenario_parts()) {
        let s = parse_scenario(&yaml, "dir/s.yml").map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        let got: Vec<_> = s.jobs.iter().map(|j| (j.submit.clone(), j.duration.clone())).collect();
        prop_assert_eq!(got, jobs);
        prop_assert!(s.jobs.iter().all(|j| j.trace.ends_with("dir/m.csv")), "{:?}", s.jobs);
        prop_assert_eq!(s.seed, seed);
        prop_assert_eq!(s.runs().len(), runs);
        for (i, r) in s.runs().iter().enumerate() {
            prop_assert_eq!(r.id, i);
        }
    }

    /// A damaged scenario parses or fails with an error naming the file.
    #[test]
    fn mutated_scenario_never_panics((yaml, ..) in scenario_parts(), edits in edits()) {
        let text = mutate(&yaml, &edits);
        if let Err(e) = parse_scenario(&text, "dir/s.yml") {
            prop_assert!(e.to_string().starts_with("dir/s.yml"), "{e}");
        }
    }
}

// ----- queue parameter files -----

fn queue_parts() -> impl Strategy<Value = (String, Vec<u32>, u32, Vec<f64>, Vec<f64>)> {
    (
        proptest::collection::vec(1u32..64, 1..5),
        1u32..4096,
        proptest::collection::vec(1u32..10_000, 1..4),
        proptest::collection::vec((1u32..4096, 0usize..3), 1..4),
    )
        .prop_map(|(clusters, total, rates, sizes)| {
            let list = |v: Vec<String>| v.join(", ");
            let rates_f: Vec<f64> = rates.iter().map(|&r| r as f64 / 4.0).collect();
            // Sizes in bytes, KiB or MiB: the reader scales them.
            let (size_text, size_f): (Vec<String>, Vec<f64>) = sizes
                .iter()
                .map(|&(n, unit)| match unit {
                    0 => (n.to_string(), n as f64),
                    1 => (format!("\"{n}KiB\""), n as f64 * 1024.0),
                    _ => (format!("\"{n}MiB\""), n as f64 * 1024.0 * 1024.0),
                })
                .unzip();
            let toml = format!(
                "clusters = [{}]\ntotal_nodes = {total}\nrate = [{}]\nmessage_size = [{}]\n",
                list(clusters.iter().map(u32::to_string).collect()),
                list(rates_f.iter().map(f64::to_string).collect()),
                list(size_text),
            );
            (toml, clusters, total, rates_f, size_f)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A parameter file reads back as its values, units applied.
    #[test]
    fn queue_file_reads_back_as_its_parts((toml, clusters, total, rates, sizes) in queue_parts()) {
        let c = parse_config(&toml, "q.toml").map_err(|e| TestCaseError::fail(format!("{e}\n{toml}")))?;
        prop_assert_eq!(c.clusters, Some(clusters));
        prop_assert_eq!(c.total_nodes, Some(total));
        prop_assert_eq!(c.rate, Some(rates));
        prop_assert_eq!(c.message_size, Some(sizes));
    }

    /// A damaged parameter file parses or fails with an error naming the file.
    #[test]
    fn mutated_queue_file_never_panics((toml, ..) in queue_parts(), edits in edits()) {
        let text = mutate(&toml, &edits);
        if let Err(e) = parse_config(&text, "q.toml") {
            prop_assert!(e.to_string().starts_with("q.toml"), "{e}");
        }
    }
}
