//! Engine benchmarks: loading fabrics and the cost of one Monte Carlo run, on one thread
//! and beside the hop-walk limit ([`limit`]),
//! for the fat trees that ORCS's reference timings use (spec: reference/orcs/README.md).
//! The big fabrics come from `../shared/` beside the repository and are skipped without it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use orcs::engine::metric::MetricKind;
use orcs::engine::stream::{stream_rng, Stream};
use orcs::engine::unit::{SimConfig, Simulation};
use orcs::fabric::dot::parse_dot;
use orcs::fabric::{compile_dot, load_routed_fabric, LoadOptions, LoadedFabric};
use orcs::ib::lft::parse_lfts;
use orcs::limits::MemoryLimit;
use orcs::routing::check_routes;
use orcs::workload::mapping::{LayoutSpec, RankLayout, SubsetMethod};
use orcs::workload::pattern::{Levels, Pattern, PatternContext};
use std::path::Path;
use std::time::Duration;

#[path = "engine/limit.rs"]
mod limit;

/// (name, path) of every fabric to measure that exists here.
fn fabrics() -> Vec<(&'static str, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    [
        ("ft8-3", format!("{root}/topologies/ft8-3.ftree.dot.gz")),
        (
            "ft12-3",
            format!("{root}/../shared/fabrics/orcs/ft12-3/ft12-3.ftree.orcs.dot.gz"),
        ),
        (
            "ft16-3",
            format!("{root}/../shared/fabrics/orcs/ft16-3/ft16-3.ftree.orcs.dot.gz"),
        ),
    ]
    .into_iter()
    .filter(|(_, p)| Path::new(p).exists())
    .collect()
}

fn load(path: &str) -> LoadedFabric {
    load_routed_fabric(path, LoadOptions::default()).expect("fabric loads")
}

/// A layout of all hosts (rounded down to even), randomly mapped per run.
fn layout_of(loaded: &LoadedFabric) -> RankLayout {
    let fabric = &loaded.fabric;
    let spec = LayoutSpec {
        commsize: fabric.num_hosts() - fabric.num_hosts() % 2,
        subset: SubsetMethod::Rand,
        part: None,
        ordering: Vec::new(),
        shuffle: true,
    };
    RankLayout::build(fabric, &spec, &mut stream_rng(1, Stream::Subset))
        .expect("layout")
        .0
}

fn config(n: usize, runs: u64) -> SimConfig {
    SimConfig {
        runs,
        seed: 1,
        level: None,
        metric: MetricKind::HistMaxCong,
        orcs_compat: false,
        pattern_context: PatternContext {
            commsize: n as u32,
            part_commsize: 2,
            orcs_compat: false,
        },
        links: false,
        memory: MemoryLimit::unlimited(),
    }
}

/// Per-run cost: the simulation is prepared (and its routes checked) once; each
/// iteration performs `runs` Monte Carlo runs on one thread.
fn bench_runs(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut group = c.benchmark_group("run");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, path) in fabrics() {
        let loaded = load(&path);
        let layout = layout_of(&loaded);
        for pattern in ["bisect", "bruck"] {
            let p = Pattern::parse(pattern, None).expect("pattern");
            let runs = runs_of(name, pattern);
            let sim = simulation(&loaded, &layout, &p, runs);
            group.throughput(Throughput::Elements(runs));
            group.bench_function(BenchmarkId::new(pattern, name), |b| {
                b.iter(|| pool.install(|| sim.run(&|_| {}).acc_band[0]))
            });
        }
    }
    group.finish();
}

/// The simulation `bench_runs` times: `runs` runs of `pattern` on `loaded` (its routes
/// checked once here).
fn simulation<'a>(
    loaded: &'a LoadedFabric,
    layout: &'a RankLayout,
    pattern: &'a Pattern,
    runs: u64,
) -> Simulation<'a> {
    let cfg = config(layout.hosts().len(), runs);
    Simulation::new(&loaded.fabric, &loaded.table, layout, pattern, cfg, None)
        .unwrap_or_else(|_| panic!("routes are valid"))
}

/// The runs of `sim` as the hop-walk limit walks them: per run, per level up to the
/// first empty one, the host pairs, drawn exactly as the simulation draws them.
fn limit_levels(sim: &Simulation, runs: u64) -> Vec<Vec<Vec<(u32, u32)>>> {
    let (mut ranks, mut levels) = (Vec::new(), Levels::new());
    (0..runs)
        .map(|run| {
            sim.materialize(run, &mut ranks, &mut levels);
            (0..levels.num_levels())
                .map(|l| {
                    let pairs = levels.level(l);
                    pairs
                        .iter()
                        .map(|&(s, d)| (ranks[s as usize], ranks[d as usize]))
                        .collect()
                })
                .take_while(|pairs: &Vec<(u32, u32)>| !pairs.is_empty())
                .collect()
        })
        .collect()
}

/// The hop-walk limit ([`limit`]) beside `run`: the same number of runs of the same
/// patterns on the same fabrics, walking only the routes, with every kernel this
/// processor has. The throughput is in hops, so criterion's rate is hops per second.
fn bench_limit(c: &mut Criterion) {
    let mut group = c.benchmark_group("limit");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, path) in fabrics() {
        let loaded = load(&path);
        let layout = layout_of(&loaded);
        let table = limit::LimitTable::new(&loaded.fabric, &loaded.table);
        let mut load = vec![0u32; table.edges()];
        let mut flight = limit::InFlight::default();
        for pattern in ["bisect", "bruck"] {
            let p = Pattern::parse(pattern, None).expect("pattern");
            let runs = runs_of(name, pattern);
            let levels = limit_levels(&simulation(&loaded, &layout, &p, runs), runs);
            let walk_all = |kernel: limit::Kernel, load: &mut [u32], f: &mut limit::InFlight| {
                // The counts are never read: they only make each hop's increment real.
                let mut hops = 0;
                for run in &levels {
                    for level in run {
                        hops += limit::walk_level(&table, level, f, load, kernel);
                    }
                }
                hops
            };
            // The limit walks the engine's routes: with every kernel, its counts on the
            // first run's first level are the table's own walk's.
            let first = &levels[0][0];
            let mut walked = vec![0u32; load.len()];
            let router = loaded.table.router(&loaded.fabric);
            for &(s, d) in first {
                router.walk(s, d, |e| walked[e as usize] += 1);
            }
            let hops = walk_all(limit::scalar, &mut load, &mut flight);
            let kernels = std::iter::once(("scalar", limit::scalar as limit::Kernel));
            for (kernel_name, kernel) in kernels.chain(limit::simd()) {
                load.iter_mut().for_each(|l| *l = 0);
                limit::walk_level(&table, first, &mut flight, &mut load, kernel);
                assert!(load == walked, "{kernel_name}: the limit's routes differ");
                assert_eq!(
                    walk_all(kernel, &mut load, &mut flight),
                    hops,
                    "{kernel_name}"
                );
                group.throughput(Throughput::Elements(hops));
                group.bench_function(
                    BenchmarkId::new(format!("{pattern}/{kernel_name}"), name),
                    |b| b.iter(|| walk_all(kernel, &mut load, &mut flight)),
                );
            }
        }
    }
    group.finish();
}

/// How many runs one iteration of `run` and `limit` performs.
fn runs_of(fabric: &str, pattern: &str) -> u64 {
    match (fabric, pattern) {
        ("ft8-3", "bisect") => 2000,
        ("ft8-3", _) | ("ft12-3", "bisect") => 100,
        _ => 10,
    }
}

/// Checking every route between all hosts (done once before a simulation).
fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    for (name, path) in fabrics() {
        let loaded = load(&path);
        let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
        group.bench_function(name, |b| {
            b.iter(|| check_routes(&loaded.fabric, &loaded.table, &hosts).pairs_checked)
        });
    }
    group.finish();
}

fn bench_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    for (name, path) in fabrics() {
        group.bench_function(name, |b| b.iter(|| load(&path).fabric.num_edges()));
    }
    group.finish();
}

/// Reading the binary fabric cache of generated D-mod-K fat trees from a file (page
/// cache warm). `ORCS_BENCH_BIG=1` adds the 110 592-host 48-ary 3-tree (about 80 s to
/// generate and check, 0.8 GB file).
fn bench_cache(c: &mut Criterion) {
    let mut group = c.benchmark_group("cache");
    group.sample_size(10);
    let mut trees = vec![(16, 3), (24, 3)];
    if std::env::var_os("ORCS_BENCH_BIG").is_some() {
        trees.push((48, 3));
    }
    let dir = std::env::temp_dir();
    for (k, n) in trees {
        let spec = format!("kary-ntree:k={k},n={n}");
        let generated = orcs::gen::topology::generate(&spec).expect("spec");
        let (table, _) =
            orcs::routing::route_generated(&generated, None, None, 0).expect("routable");
        let mut loaded = LoadedFabric::new(generated.fabric, table);
        let hosts: Vec<u32> = (0..loaded.fabric.num_hosts() as u32).collect();
        let check = check_routes(&loaded.fabric, &loaded.table, &hosts);
        loaded.routes = Some(orcs::routing::RouteSummary::of(&check));
        let path = dir.join(format!("orcs-bench-{k}-{n}.orcsfab"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
        orcs::fabric::cache::write_cache(&mut out, &loaded).expect("written");
        drop(out);
        drop(loaded);
        let bytes = std::fs::metadata(&path).expect("written").len();
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(format!("read/{k}-ary-{n}-tree"), |b| {
            b.iter(|| {
                // The way `-i` reads it: buffered, format detected from the content.
                let name = path.to_str().expect("utf-8");
                let mut input = orcs::fabric::read_input(name).expect("cache");
                orcs::fabric::cache::read_cache(&mut input, name)
                    .expect("valid")
                    .fabric
                    .num_hosts()
            })
        });
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

/// PFSim's single-job model: the CG and FT matrices on the milk cluster, one job placed
/// (Linear selection, block placement) and routed per iteration, as one run of PFSim's
/// scenario does at every job start.
fn bench_traffic(c: &mut Criterion) {
    use orcs::cluster::loads::{network_load_stats, LinkLoads};
    use orcs::cluster::paths::{route_job, PathRouter};
    use orcs::cluster::placement::{host_pairs, map_ranks, Mapper};
    use orcs::cluster::selection::{select_hosts, Selector};
    use rand::SeedableRng;
    let root = env!("CARGO_MANIFEST_DIR");
    let cluster =
        orcs::cluster::graphml::read_cluster_graphml(&format!("{root}/topologies/milk.graphml"))
            .expect("bundled cluster");
    let mut group = c.benchmark_group("traffic");
    group.sample_size(20);
    let shared_ft = format!("{root}/../shared/traces/pfsim/traces/ft-c-128.tar.gz");
    for (trace, path) in [
        ("cg-c-128", format!("{root}/patterns/cg-c-128.tar.gz")),
        ("ft-c-128", shared_ft),
    ] {
        let Ok(matrix) = orcs::workload::matrix::read_traffic(&path) else {
            continue;
        };
        for router in [PathRouter::PfsimDmodk, PathRouter::GreedyMax] {
            group.bench_function(format!("milk/{trace}/{router}"), |b| {
                b.iter(|| {
                    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0);
                    let free = vec![false; cluster.hosts.len()];
                    let hosts = select_hosts(&cluster, &free, 128, Selector::Linear, &mut rng)
                        .expect("fits");
                    let placement =
                        map_ranks(&cluster, &hosts, matrix.ranks, Mapper::Block, &matrix);
                    let pairs = host_pairs(&matrix, &placement);
                    let mut loads = LinkLoads::default();
                    route_job(&cluster, &pairs, router, &mut loads, &mut rng).expect("routes");
                    network_load_stats(&cluster, &loads).max
                })
            });
        }
    }
    group.finish();
}

/// Whole scenarios, every run one after the other on one thread: PFSim's `cg.yml` (12
/// runs on milk; PFSim: 3.75 s of CPU) and a 512-host three-level XGFT with D-mod-K and
/// greedy-max (2 runs to time 50; PFSim: 126 s).
fn bench_jobs(c: &mut Criterion) {
    use orcs::cluster::jobs::{build_topology, parse_scenario, simulate_run, JobsConfig};
    let root = env!("CARGO_MANIFEST_DIR");
    let algorithms = |selectors: &str, mappers: &str, routers: &str| {
        format!(
            "algorithms:\n  scheduler: [pfsim.scheduler.FCFSScheduler]\n  host_selector: [{selectors}]\n  process_mapper: [{mappers}]\n  router: [{routers}]\n"
        )
    };
    let jobs = |submit: f64| {
        format!(
            "jobs:\n  - submit: {{distribution: pfsim.math.ExponentialDistribution, params: {{lambd: {submit}}}}}\n    duration: {{distribution: pfsim.math.ExponentialDistribution, params: {{lambd: 0.2}}}}\n    trace: {root}/patterns/cg-c-128.tar.gz\n"
        )
    };
    let cases = [
        (
            "cg.yml/milk/12-runs",
            format!(
                "duration: 1000.0\ntopology:\n  - kind: pfsim.topology.FileTopology\n    params: {{path: {root}/topologies/milk.graphml}}\n{}{}",
                algorithms(
                    "pfsim.host_selector.LinearHostSelector, pfsim.host_selector.RandomHostSelector",
                    "pfsim.process_mapper.LinearProcessMapper, pfsim.process_mapper.CyclicProcessMapper",
                    "pfsim.router.DmodKRouter, pfsim.router.GreedyRouter, pfsim.router.GreedyRouter2"
                ),
                jobs(0.1)
            ),
        ),
        (
            "xgft-8x8x8/2-runs",
            format!(
                "duration: 50\ntopology:\n  - kind: pfsim.topology.XGFTTopology\n    params: {{h: 3, m: [8, 8, 8], w: [1, 8, 8]}}\n{}{}",
                algorithms(
                    "pfsim.host_selector.LinearHostSelector",
                    "pfsim.process_mapper.LinearProcessMapper",
                    "pfsim.router.DmodKRouter, pfsim.router.GreedyRouter2"
                ),
                jobs(1.0)
            ),
        ),
    ];
    let mut group = c.benchmark_group("jobs");
    group.sample_size(10);
    for (name, text) in cases {
        let scenario = parse_scenario(&text, "bench.yml").expect("scenario");
        let cluster =
            build_topology(&scenario.topologies[0].1, MemoryLimit::unlimited()).expect("topology");
        let matrix = orcs::workload::matrix::read_traffic(&scenario.jobs[0].trace).expect("trace");
        let runs = scenario.runs();
        group.bench_function(name, |b| {
            b.iter(|| {
                runs.iter()
                    .map(|run| {
                        simulate_run(&scenario, run, &cluster, &[&matrix], JobsConfig::default())
                            .expect("runs")
                            .finished
                    })
                    .sum::<u64>()
            })
        });
    }
    group.finish();
}

/// Readers in memory (bytes per second of text): the routed dot files of the fat trees
/// (the dot grammar alone, then compiled into a fabric and forwarding tables), their
/// gzip decompression, and forwarding-table dumps in every layout orcs reads.
fn bench_parse(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    for (name, path) in fabrics() {
        let packed = std::fs::read(&path).expect("fabric file");
        let text = gunzip(&packed, 0);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("gunzip/{name}"), |b| {
            b.iter(|| gunzip(&packed, text.len()).len())
        });
        group.bench_function(format!("dot/{name}"), |b| {
            b.iter(|| parse_dot(text.as_slice()).expect("parses").edges.len())
        });
        group.bench_function(format!("dot-compiled/{name}"), |b| {
            b.iter(|| {
                let graph = parse_dot(text.as_slice()).expect("parses");
                compile_dot(graph, "bench.dot", LoadOptions::default())
                    .expect("compiles")
                    .fabric
                    .num_edges()
            })
        });
    }
    for name in ["opensm-lfts.dump.gz", "opensm.fdbs.gz"] {
        let path = format!("{root}/../shared/fabrics/orcs/ft8-3/{name}");
        let Ok(packed) = std::fs::read(&path) else {
            continue;
        };
        let text = gunzip(&packed, 0);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("lft/ft8-3/{}", name.trim_end_matches(".gz")), |b| {
            b.iter(|| parse_lfts(text.as_slice()).expect("parses").switches.len())
        });
    }
    group.finish();
}

/// The content of the gzip file `packed`, in a buffer reserved for `expected` bytes.
fn gunzip(packed: &[u8], expected: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(expected);
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(packed), &mut text)
        .expect("gzip");
    text
}

criterion_group!(
    benches,
    bench_runs,
    bench_limit,
    bench_check,
    bench_load,
    bench_cache,
    bench_traffic,
    bench_jobs,
    bench_parse
);
criterion_main!(benches);
