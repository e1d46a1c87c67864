//! Contention-aware replays: messages routed on small fabrics, their clocks computed by
//! hand or compared with the plain replay where nothing is shared.

use super::super::engine::replay_routed;
use super::*;
use crate::fabric::{load_routed_fabric, load_routed_fabric_from, LoadOptions, LoadedFabric};
use crate::flow::RankRoutes;
use crate::routing::check_routes;
use crate::trace::collective::{CallData, RankCall};
use crate::trace::replay::event::MemberData;

/// Loads a routed fabric from dot text.
fn fabric(dot: &str) -> LoadedFabric {
    load_routed_fabric_from(dot.as_bytes(), "test.dot", LoadOptions::default()).unwrap()
}

/// `hosts` hosts named H0… on each of `switches` switches S0…, switches in a line,
/// shortest routes: hosts of switch s are H{s*hosts}…
fn line(switches: usize, hosts: usize) -> LoadedFabric {
    let mut dot = String::from("digraph line {\n");
    let host = |s: usize, h: usize| format!("H{}", s * hosts + h);
    for s in 0..switches {
        for h in 0..hosts {
            dot.push_str(&format!("  {} -> S{s} [comment=\"*\"];\n", host(s, h)));
            dot.push_str(&format!(
                "  S{s} -> {} [comment=\"{}\"];\n",
                host(s, h),
                host(s, h)
            ));
        }
        let left: Vec<String> = (0..s)
            .flat_map(|t| (0..hosts).map(move |h| (t, h)))
            .map(|(t, h)| host(t, h))
            .collect();
        let right: Vec<String> = (s + 1..switches)
            .flat_map(|t| (0..hosts).map(move |h| (t, h)))
            .map(|(t, h)| host(t, h))
            .collect();
        if !left.is_empty() {
            dot.push_str(&format!(
                "  S{s} -> S{} [comment=\"{}\"];\n",
                s - 1,
                left.join(",")
            ));
        }
        if !right.is_empty() {
            dot.push_str(&format!(
                "  S{s} -> S{} [comment=\"{}\"];\n",
                s + 1,
                right.join(",")
            ));
        }
    }
    dot.push_str("}\n");
    fabric(&dot)
}

/// Host ids of the hosts named `H{r}` for r in 0..n: rank r runs on H{r}.
fn hosts_by_name(f: &LoadedFabric, n: usize) -> Vec<u32> {
    (0..n)
        .map(|r| {
            let name = format!("H{r}");
            (0..f.fabric.num_hosts() as u32)
                .find(|&h| f.fabric.host_name(h) == name)
                .unwrap_or_else(|| panic!("no host {name}"))
        })
        .collect()
}

/// Replays `ranks` on `network` over `f`, rank r on `hosts[r]`.
fn run_on(f: &LoadedFabric, hosts: &[u32], ranks: Vec<Vec<Event>>, network: &Network) -> Clocks {
    assert_eq!(check_routes(&f.fabric, &f.table, hosts).broken(), 0);
    let routes = RankRoutes::new(&f.fabric, &f.table, hosts);
    let p = ranks.len() as u32;
    let mut sources = sources(ranks);
    replay_routed(&mut sources, &[(0..p).collect()], network, &routes)
        .unwrap()
        .0
}

fn sources(ranks: Vec<Vec<Event>>) -> Vec<Events> {
    ranks
        .into_iter()
        .enumerate()
        .map(|(r, events)| Events {
            path: format!("rank{r}"),
            events: events.into(),
        })
        .collect()
}

fn plain(ranks: Vec<Vec<Event>>, network: &Network) -> Clocks {
    let p = ranks.len() as u32;
    replay(&mut sources(ranks), &[(0..p).collect()], network)
        .unwrap()
        .0
}

/// α = 1 µs and 1 GB/s (a 1000-byte message is 1 µs on the wire), and α = 2 µs and
/// 4 GB/s.
fn fast() -> Network {
    Network {
        alpha: vec![1e-6, 2e-6],
        beta: vec![1e-9, 0.25e-9],
        eager_limit: 1 << 20,
        algorithms: AlgorithmChoice::automatic(),
    }
}

#[track_caller]
fn near(got: &[f64], expected: &[f64]) {
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert!(
            (g - e).abs() <= 1e-12 * e.abs().max(1e-9),
            "got {got:?}, expected {expected:?}"
        );
    }
}

/// Ranks 0..k send `bytes` to ranks k..2k (rank i to k + i) at wall time 0; the
/// receivers post at wall time 1 and wait.
fn k_pairs(k: u32, bytes: u64) -> Vec<Vec<Event>> {
    let mut ranks = Vec::new();
    for i in 0..k {
        ranks.push(vec![
            ev(0, 0.0, send(k + i, bytes, BS)),
            ev(0, 0.0, complete(&[BS])),
        ]);
    }
    for i in 0..k {
        ranks.push(vec![
            ev(1, 0.0, recv(Some(i), BR)),
            ev(2, 0.0, complete(&[BR])),
        ]);
    }
    ranks
}

#[test]
fn k_equal_flows_across_one_link_take_k_times_the_wire_time() {
    for k in 1..=4u32 {
        // Senders on S0, receivers on S1: every message crosses S0 -> S1.
        let f = line(2, k as usize);
        let hosts = hosts_by_name(&f, 2 * k as usize);
        let network = fast();
        let c = run_on(&f, &hosts, k_pairs(k, 1000), &network);
        let kf = f64::from(k);
        for r in k..2 * k {
            let r = r as usize;
            // Wire 1 µs and 0.25 µs; k× that on the shared link; then α.
            near(c.clock(r), &[kf * 1e-6 + 1e-6, kf * 0.25e-6 + 2e-6]);
            near(c.bandwidth(r), &[kf * 1e-6, kf * 0.25e-6]);
            near(c.contention(r), &[(kf - 1.0) * 1e-6, (kf - 1.0) * 0.25e-6]);
            near(c.latency(r), &[1e-6, 2e-6]);
        }
        // The plain replay has no shared link: every message takes its wire time.
        let p = plain(k_pairs(k, 1000), &network);
        near(p.clock(k as usize), &[2e-6, 2.25e-6]);
        near(p.contention(k as usize), &[0.0, 0.0]);
    }
}

#[test]
fn ranks_advance_in_the_order_of_their_clocks_not_of_the_traces_wall_clock() {
    // In the trace, rank 1 sent long after the receivers had their data (wall time
    // 100); on the replayed network both messages start at 0 and share the cable.
    let mut ranks = vec![
        vec![ev(1, 0.0, send(2, 1000, BS)), ev(1, 0.0, complete(&[BS]))],
        vec![
            ev(100, 0.0, send(3, 1000, BS)),
            ev(100, 0.0, complete(&[BS])),
        ],
    ];
    for i in 0..2u32 {
        ranks.push(vec![
            ev(2, 0.0, recv(Some(i), BR)),
            ev(3, 0.0, complete(&[BR])),
        ]);
    }
    let f = line(2, 2);
    let c = run_on(&f, &hosts_by_name(&f, 4), ranks, &fast());
    near(c.clock(2), &[3e-6, 2.5e-6]);
    near(c.clock(3), &[3e-6, 2.5e-6]);
}

#[test]
fn a_completion_waits_until_the_messages_that_start_before_its_arrival_are_known() {
    // Rank 2 sends to rank 0 at 0, rank 3 to rank 1 at 0.5 µs, both across S1 -> S0.
    // Rank 0, woken by its message at 0, must not settle it before rank 3 (clock
    // 0.5 µs) has sent: alone until 0.5, then half the cable, its message ends at
    // 1.5 µs; rank 3's shares until 1.5 and ends alone at 2. At 4 GB/s (second
    // configuration) the first is done at 0.25 µs, before the second starts.
    let ranks = vec![
        vec![ev(0, 0.0, recv(Some(2), BR)), ev(0, 0.0, complete(&[BR]))],
        vec![ev(0, 0.0, recv(Some(3), BR)), ev(0, 0.0, complete(&[BR]))],
        vec![ev(0, 0.0, send(0, 1000, BS)), ev(0, 0.0, complete(&[BS]))],
        vec![
            ev(0, 0.5e-6, send(1, 1000, BS)),
            ev(0, 0.0, complete(&[BS])),
        ],
    ];
    let f = line(2, 2);
    let c = run_on(&f, &hosts_by_name(&f, 4), ranks, &fast());
    near(c.clock(0), &[2.5e-6, 2.25e-6]);
    near(c.clock(1), &[3e-6, 2.75e-6]);
    near(c.contention(0), &[0.5e-6, 0.0]);
    near(c.contention(1), &[0.5e-6, 0.0]);
}

#[test]
fn messages_that_start_while_others_move_slow_them_down() {
    // Ranks 0 and 1 send 1000 bytes across the cable at 0, rank 2 at 1.5 µs, rank 3 at
    // 2.1 µs. At 1 GB/s: two at 1/2 until 1.5 (0.25 µs left each), three at 1/3 until
    // 2.1 (0.05 left; the third has 0.8), four at 1/4: the first two end at 2.3; then
    // two at 1/2: the third ends at 3.8, the fourth (0.2 left) alone at 4. Each start
    // moves the end of the first two later, past the next start: settled at the end
    // they would have without it, they would miss the fourth. At 4 GB/s the first two
    // are done at 0.5 µs, and the others start alone.
    let mut ranks = Vec::new();
    for (i, gap) in [0.0, 0.0, 1.5e-6, 2.1e-6].into_iter().enumerate() {
        ranks.push(vec![
            ev(0, gap, send(4 + i as u32, 1000, BS)),
            ev(0, 0.0, complete(&[BS])),
        ]);
    }
    for i in 0..4u32 {
        ranks.push(vec![
            ev(0, 0.0, recv(Some(i), BR)),
            ev(0, 0.0, complete(&[BR])),
        ]);
    }
    let f = line(2, 4);
    let c = run_on(&f, &hosts_by_name(&f, 8), ranks, &fast());
    near(c.clock(4), &[3.3e-6, 2.5e-6]);
    near(c.clock(5), &[3.3e-6, 2.5e-6]);
    near(c.clock(6), &[4.8e-6, 3.75e-6]);
    near(c.clock(7), &[5e-6, 4.35e-6]);
    near(c.contention(4), &[1.3e-6, 0.25e-6]);
    near(c.contention(6), &[1.3e-6, 0.0]);
    near(c.contention(7), &[0.9e-6, 0.0]);
}

#[test]
fn k_messages_into_one_host_share_its_link() {
    // Ranks 1..=3 send 1000 bytes to rank 0, all on one switch: the link S0 -> H0 is
    // shared three ways; rank 0 receives the three and ends at 3 µs + α.
    let mut ranks = vec![vec![
        ev(1, 0.0, recv(Some(1), 2)),
        ev(1, 0.0, recv(Some(2), 3)),
        ev(1, 0.0, recv(Some(3), 4)),
        ev(2, 0.0, complete(&[2, 3, 4])),
    ]];
    for _ in 1..=3 {
        ranks.push(vec![
            ev(0, 0.0, send(0, 1000, BS)),
            ev(0, 0.0, complete(&[BS])),
        ]);
    }
    let f = line(1, 4);
    let c = run_on(&f, &hosts_by_name(&f, 4), ranks, &fast());
    near(c.clock(0), &[4e-6, 2.75e-6]);
    near(c.contention(0), &[2e-6, 0.5e-6]);
}

/// Every rank sends `bytes` to rank (r + shift) mod n and receives from (r − shift).
fn shift(n: u32, shift: u32, bytes: u64) -> Vec<Vec<Event>> {
    (0..n)
        .map(|r| {
            vec![
                ev(0, 0.0, recv(Some((r + n - shift) % n), 2)),
                ev(1, 0.0, send((r + shift) % n, bytes, 3)),
                ev(2, 0.0, complete(&[2, 3])),
            ]
        })
        .collect()
}

fn kary_ntree() -> LoadedFabric {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/topologies/kary-ntree-4-3.dmodk.dot"
    );
    load_routed_fabric(path, LoadOptions::default()).unwrap()
}

#[test]
fn shift_permutations_on_a_dmodk_fat_tree_see_no_contention() {
    // D-mod-k routing on a k-ary n-tree routes every shift permutation without two
    // routes sharing a link (Zahavi et al., 2010), so the replay on the fabric is the
    // plain replay.
    let f = kary_ntree();
    let hosts: Vec<u32> = (0..64).collect();
    let network = fast();
    for s in [1, 4, 16, 17, 63] {
        let c = run_on(&f, &hosts, shift(64, s, 5000), &network);
        let p = plain(shift(64, s, 5000), &network);
        for r in 0..64 {
            assert_eq!(c.contention(r), &[0.0, 0.0], "shift {s} rank {r}");
            near(c.clock(r), p.clock(r));
            near(c.bandwidth(r), p.bandwidth(r));
        }
    }
}

#[test]
fn a_permutation_that_shares_links_shows_contention_on_the_fat_tree() {
    // Ranks 0..4 (one leaf switch) send to 16, 32, 48 and 0's own leaf neighbour: with
    // d-mod-k the up-links are chosen by destination, and 16, 32, 48 (all ≡ 0 mod 4
    // and mod 16) take the same first up-link.
    let f = kary_ntree();
    let hosts: Vec<u32> = (0..64).collect();
    let targets = [16u32, 32, 48];
    let mut ranks: Vec<Vec<Event>> = (0..64).map(|_| Vec::new()).collect();
    for (i, &t) in targets.iter().enumerate() {
        ranks[i].extend([ev(0, 0.0, send(t, 1000, BS)), ev(0, 0.0, complete(&[BS]))]);
        ranks[t as usize].extend([
            ev(1, 0.0, recv(Some(i as u32), BR)),
            ev(2, 0.0, complete(&[BR])),
        ]);
    }
    let c = run_on(&f, &hosts, ranks, &fast());
    let worst = targets
        .iter()
        .map(|&t| c.contention(t as usize)[0])
        .fold(0.0, f64::max);
    // Three flows on one link: 3 µs instead of 1.
    assert!((worst - 2e-6).abs() < 1e-15, "{worst}");
}

#[test]
fn on_a_single_switch_one_message_per_host_is_the_plain_replay() {
    let f = line(1, 8);
    let hosts = hosts_by_name(&f, 8);
    let network = fast();
    for s in 1..8 {
        let c = run_on(&f, &hosts, shift(8, s, 3000), &network);
        let p = plain(shift(8, s, 3000), &network);
        for r in 0..8 {
            near(c.clock(r), p.clock(r));
            near(c.latency(r), p.latency(r));
            near(c.bandwidth(r), p.bandwidth(r));
            assert_eq!(c.contention(r), &[0.0, 0.0]);
        }
    }
    // Rendezvous messages too (both sides complete at the transfer's end).
    let mut rendezvous = network.clone();
    rendezvous.eager_limit = 100;
    let c = run_on(&f, &hosts, shift(8, 3, 3000), &rendezvous);
    let p = plain(shift(8, 3, 3000), &rendezvous);
    for r in 0..8 {
        near(c.clock(r), p.clock(r));
    }
}

#[test]
fn ranks_on_one_host_do_not_touch_the_fabric() {
    // Ranks 0 and 1 on H0, rank 2 on H1: 0 → 1 stays on the host, 2 → 0 and 0 → 1
    // overlap in time without sharing a link.
    let f = line(1, 2);
    let h = hosts_by_name(&f, 2);
    let hosts = [h[0], h[0], h[1]];
    let ranks = vec![
        vec![
            ev(0, 0.0, send(1, 1000, 2)),
            ev(0, 0.0, recv(Some(2), 3)),
            ev(1, 0.0, complete(&[2, 3])),
        ],
        vec![ev(0, 0.0, recv(Some(0), BR)), ev(1, 0.0, complete(&[BR]))],
        vec![ev(0, 0.0, send(0, 1000, BS)), ev(0, 0.0, complete(&[BS]))],
    ];
    let network = fast();
    let c = run_on(&f, &hosts, ranks, &network);
    near(c.clock(1), &[2e-6, 2.25e-6]);
    near(c.clock(0), &[2e-6, 2.25e-6]);
}

#[test]
fn the_same_routed_replay_gives_the_same_clocks() {
    let f = kary_ntree();
    let hosts: Vec<u32> = (0..64).rev().collect();
    let a = run_on(&f, &hosts, shift(64, 5, 70_000), &fast());
    let b = run_on(&f, &hosts, shift(64, 5, 70_000), &fast());
    assert_eq!(a, b);
}

#[test]
fn every_rank_of_the_trace_needs_a_host() {
    let f = line(1, 8);
    let trace = super::testtrace();
    let files: Vec<_> = (0..trace.ranks.len())
        .map(|k| trace.rank_file(k).unwrap())
        .collect();
    let about = FabricUse {
        fabric: "line".into(),
        placement: "by hand".into(),
        hosts: Vec::new(),
    };
    for placed in [3, 5] {
        let hosts: Vec<u32> = (0..placed).collect();
        let on = OnFabric {
            routes: RankRoutes::new(&f.fabric, &f.table, &hosts),
            about: about.clone(),
        };
        let err =
            replay_files_on(&files, &ReplayOptions::default(), Some(&on), &|_| {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("the trace has 4 ranks but {placed} are placed on the fabric")
        );
    }
    let hosts: Vec<u32> = (0..4).collect();
    let on = OnFabric {
        routes: RankRoutes::new(&f.fabric, &f.table, &hosts),
        about,
    };
    let done = std::sync::atomic::AtomicU64::new(0);
    let options = ReplayOptions {
        configs: ReplayOptions::default().configs[..3].to_vec(),
        ..ReplayOptions::default()
    };
    let replay = replay_files_on(&files, &options, Some(&on), &|n| {
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    // One pass per configuration, each reported.
    assert_eq!(done.into_inner(), 3);
    assert_eq!(replay.outcomes.len(), 3);
    assert_eq!(replay.fabric.unwrap().placement, "by hand");
}

#[test]
fn parts_of_consecutive_ranges_join_into_the_whole_replay() {
    // Each configuration's clocks never depend on another's, so slices of the
    // configurations replayed apart, as the ranks of mpirun replay them, join into the
    // whole replay bit for bit, on a fabric and off it. The rendezvous fixture counts a
    // message to MPI_PROC_NULL in every part, which the join must count once.
    let f = line(2, 2);
    let options = ReplayOptions {
        configs: ReplayOptions::default().configs[..7].to_vec(),
        ..ReplayOptions::default()
    };
    for (trace, hosts) in [
        (super::testtrace(), vec![0, 1, 2, 3]),
        (super::fixture("rendezvous"), vec![0, 2]),
    ] {
        let on = OnFabric {
            routes: RankRoutes::new(&f.fabric, &f.table, &hosts),
            about: FabricUse {
                fabric: "line".into(),
                placement: "by hand".into(),
                hosts: Vec::new(),
            },
        };
        for fabric in [None, Some(&on)] {
            let part = |range: std::ops::Range<usize>| {
                replay_trace_part(&trace, &options, fabric, range, &|_| {}).unwrap()
            };
            let whole = part(0..7);
            let files: Vec<_> = (0..trace.ranks.len())
                .map(|k| trace.rank_file(k).unwrap())
                .collect();
            let replay = replay_files_on(&files, &options, fabric, &|_| {}).unwrap();
            assert_eq!(replay.outcomes, whole.outcomes);
            assert_eq!(replay.notes, whole.notes);
            assert!(whole.outcomes.iter().all(|o| o.time > 0.0));
            for cuts in [&[0, 7][..], &[0, 0, 3, 7], &[0, 1, 2, 6, 7, 7]] {
                let parts = cuts.windows(2).map(|w| part(w[0]..w[1])).collect();
                assert_eq!(ReplayPart::join(parts), whole, "cut at {cuts:?}");
            }
            assert_eq!(part(4..4), ReplayPart::default());
            let wrong = replay_trace_part(&trace, &options, fabric, 5..8, &|_| {}).unwrap_err();
            assert_eq!(wrong.to_string(), "configurations 5..8 asked of 7");
        }
    }
    let rendezvous =
        replay_trace_part(&super::fixture("rendezvous"), &options, None, 0..7, &|_| {});
    assert_eq!(rendezvous.unwrap().notes.null_peer_messages, 1);
}

/// Member `member` of `op` on all `p` ranks (communicator 0, root 0) with one size,
/// `bytes`, as the lowering of a trace gives it for a replay on a fabric.
fn collective(op: CollectiveOp, member: u32, p: u32, bytes: u64) -> Kind {
    let call = RankCall {
        op,
        rank: member,
        size: p,
        root: 0,
        commutative: true,
        data: CallData::Bytes(bytes),
    };
    Kind::Collective {
        op,
        comm: 0,
        member,
        cost_bytes: call.cost_bytes(),
        selection_bytes: call.selection_bytes().unwrap(),
        commutative: true,
        data: Some(Box::new(MemberData {
            root: 0,
            bytes,
            per_rank: None,
        })),
    }
}

/// Every one of `p` ranks calls `op` once at wall time 0.
fn everyone(op: CollectiveOp, p: u32, bytes: u64) -> Vec<Vec<Event>> {
    (0..p)
        .map(|r| vec![ev(0, 0.0, collective(op, r, p, bytes))])
        .collect()
}

#[test]
fn an_alltoall_across_one_cable_lasts_until_its_messages_have_shared_it() {
    // Six ranks, H0–H2 on S0 and H3–H5 on S1; an alltoall of 1000-byte blocks is the
    // linear algorithm (p < 8): 30 messages of 1 µs alone (at 1 GB/s), 9 of them on
    // each direction of the cable, 5 out of and 5 into every host. Max-min: the cable
    // gives each of its 9 flows 1/9; each host link has 2/3 left for its 2 flows inside
    // the switch, 1/3 each: they end at 3 µs; the 9 crossing flows move at 1/9 all
    // along and end at 9 µs. Hockney's bandwidth time is 5000 bytes = 5 µs, so 4 µs
    // are contention; then 5α. At 4 GB/s everything is 4 times shorter.
    let f = line(2, 3);
    let hosts = hosts_by_name(&f, 6);
    let network = fast();
    let c = run_on(
        &f,
        &hosts,
        everyone(CollectiveOp::Alltoall, 6, 1000),
        &network,
    );
    for r in 0..6 {
        near(c.clock(r), &[5e-6 + 9e-6, 10e-6 + 2.25e-6]);
        near(c.latency(r), &[5e-6, 10e-6]);
        near(c.bandwidth(r), &[9e-6, 2.25e-6]);
        near(c.contention(r), &[4e-6, 1e-6]);
    }
    let p = plain(everyone(CollectiveOp::Alltoall, 6, 1000), &network);
    near(p.clock(0), &[10e-6, 11.25e-6]);
    near(p.contention(0), &[0.0, 0.0]);
}

#[test]
fn on_a_single_switch_collectives_are_the_plain_replay() {
    // Every host link carries at most the bytes of Hockney's bandwidth term: the
    // alltoall's 5 blocks out of and into each host (each link's 5 flows at 1/5 end at
    // 5 µs); the binomial bcast's 3 messages out of the root (1/3 each, 3 µs = lg p ·
    // nβ); the dissemination barrier moves no data.
    let f = line(1, 6);
    let hosts = hosts_by_name(&f, 6);
    let network = fast();
    for (op, bytes) in [
        (CollectiveOp::Alltoall, 1000),
        (CollectiveOp::Bcast, 1000),
        (CollectiveOp::Barrier, 0),
        (CollectiveOp::Allreduce, 64),
    ] {
        let c = run_on(&f, &hosts, everyone(op, 6, bytes), &network);
        let p = plain(everyone(op, 6, bytes), &network);
        for r in 0..6 {
            near(c.clock(r), p.clock(r));
            near(c.latency(r), p.latency(r));
            near(c.bandwidth(r), p.bandwidth(r));
            assert_eq!(c.contention(r), &[0.0, 0.0], "{op} rank {r}");
        }
    }
    let c = run_on(&f, &hosts, everyone(CollectiveOp::Bcast, 6, 1000), &network);
    near(c.clock(5), &[3e-6 + 3e-6, 6e-6 + 0.75e-6]);
}

#[test]
fn a_message_on_the_cable_slows_a_collective_that_crosses_it() {
    // Two ranks on H0 (S0) and H1 (S1) and a third pair H2 (S0) → H3 (S1) sending 3000
    // bytes at time 0: the bcast of 1000 bytes from rank 0 to rank 1 (binomial, one
    // message) shares the cable with it from 0: both at 1/2, the bcast's message ends
    // at 2 µs (1 µs of it contention), then α.
    let f = line(2, 2);
    let h = hosts_by_name(&f, 4);
    let hosts = [h[0], h[2], h[1], h[3]];
    let comm_members = vec![vec![0, 1], vec![0, 1, 2, 3]];
    let mut ranks: Vec<Vec<Event>> = (0..2)
        .map(|r| vec![ev(0, 0.0, collective(CollectiveOp::Bcast, r, 2, 1000))])
        .collect();
    ranks.push(vec![
        ev(0, 0.0, send(3, 3000, BS)),
        ev(0, 0.0, complete(&[BS])),
    ]);
    ranks.push(vec![
        ev(0, 0.0, recv(Some(2), BR)),
        ev(1, 0.0, complete(&[BR])),
    ]);
    let routes = RankRoutes::new(&f.fabric, &f.table, &hosts);
    let c = replay_routed(&mut sources(ranks), &comm_members, &fast(), &routes)
        .unwrap()
        .0;
    near(c.clock(1), &[2e-6 + 1e-6, 0.5e-6 + 2e-6]);
    near(c.contention(1), &[1e-6, 0.25e-6]);
    near(c.clock(0), c.clock(1));
    // The message ends at 4 µs: 1 µs at 1/2 beside the bcast, then alone.
    near(c.clock(3), &[4e-6 + 1e-6, 1e-6 + 2e-6]);
}

#[test]
fn one_sided_transfers_move_their_data_on_the_route_between_origin_and_target() {
    let put = |peer| Kind::Transfer {
        bytes: 1000,
        peer: Some(peer),
        get: false,
    };
    let get = |peer| Kind::Transfer {
        bytes: 1000,
        peer: Some(peer),
        get: true,
    };
    let f = line(2, 2);
    let hosts = hosts_by_name(&f, 4);
    let network = fast();
    // Ranks 0 and 1 (on S0) put to 2 and 3 (on S1): both cross the cable, at 1/2, so
    // each origin waits 2 µs, 1 of them contention, then α.
    let ranks = vec![
        vec![ev(0, 0.0, put(2))],
        vec![ev(0, 0.0, put(3))],
        vec![],
        vec![],
    ];
    let c = run_on(&f, &hosts, ranks, &network);
    for r in 0..2 {
        near(c.clock(r), &[3e-6, 2.5e-6]);
        near(c.contention(r), &[1e-6, 0.25e-6]);
        near(c.latency(r), &[1e-6, 2e-6]);
    }
    near(c.clock(2), &[0.0, 0.0]);
    // A get's data comes from the target: rank 1's get from 3 crosses the cable the
    // other way, beside rank 0's put, and neither waits for the other.
    let ranks = vec![
        vec![ev(0, 0.0, put(2))],
        vec![ev(0, 0.0, get(3))],
        vec![],
        vec![],
    ];
    let c = run_on(&f, &hosts, ranks.clone(), &network);
    let p = plain(ranks, &network);
    for r in 0..2 {
        near(c.clock(r), &[2e-6, 2.25e-6]);
        near(c.clock(r), p.clock(r));
        assert_eq!(c.contention(r), &[0.0, 0.0]);
    }
    // A transfer whose window's group is unknown keeps its Hockney time.
    let unknown = Kind::Transfer {
        bytes: 1000,
        peer: None,
        get: false,
    };
    let ranks = vec![
        vec![ev(0, 0.0, put(2))],
        vec![ev(0, 0.0, unknown)],
        vec![],
        vec![],
    ];
    let c = run_on(&f, &hosts, ranks, &network);
    near(c.clock(0), &[2e-6, 2.25e-6]);
    near(c.clock(1), &[2e-6, 2.25e-6]);
}
