//! Hand-computed max-min sharing, and properties every history must have.

use super::*;
use proptest::prelude::*;

/// Flow i takes `routes[i]`.
fn routes_of(routes: &[&[u32]]) -> Routes {
    let mut r = Routes::default();
    for (i, route) in routes.iter().enumerate() {
        r.set(i as FlowId, route.iter().copied());
    }
    r
}

/// A network over `links` unit links with the given routes (flow i takes `routes[i]`).
fn setup(links: usize, routes: &[&[u32]]) -> (FlowNetwork, Routes) {
    (FlowNetwork::new(links), routes_of(routes))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn a_flow_alone_takes_its_work() {
    let (mut net, routes) = setup(2, &[&[0, 1]]);
    net.add(0, 1.0, 2.0, &routes);
    assert_eq!(net.finish(0, &routes), 3.0);
    assert_eq!(net.now(), 3.0);
    assert_eq!(net.in_flight(), 0);
}

#[test]
fn k_flows_on_one_link_take_k_times_as_long() {
    for k in 1..=5u32 {
        let route: &[u32] = &[0];
        let all = vec![route; k as usize];
        let (mut net, routes) = setup(1, &all);
        for f in 0..k {
            net.add(f, 0.5, 1.0, &routes);
        }
        for f in 0..k {
            let finish = net.finish(f, &routes);
            assert!(
                close(finish, 0.5 + f64::from(k)),
                "k={k} flow {f}: {finish}"
            );
        }
    }
}

#[test]
fn the_tightest_link_sets_the_share_and_the_others_take_what_is_left() {
    // Link 0 carries flows 0 and 3; link 1 carries flows 0, 1 and 2. Link 1 is the
    // bottleneck: 1/3 each for flows 0..3; flow 3 takes the 2/3 link 0 has left and
    // finishes at 1.5; flows 0..3 keep 1/3 (link 1) and finish at 3.
    let (mut net, routes) = setup(2, &[&[0, 1], &[1], &[1], &[0]]);
    for f in 0..4 {
        net.add(f, 0.0, 1.0, &routes);
    }
    assert!(close(net.finish(3, &routes), 1.5));
    for f in 0..3 {
        assert!(close(net.finish(f, &routes), 3.0));
    }
}

#[test]
fn a_later_flow_shares_from_its_start() {
    // Flow 0 alone from 0 to 1 (1 of its 2 done), then both at 1/2: 1 each left,
    // both finish at 3.
    let (mut net, routes) = setup(1, &[&[0], &[0]]);
    net.add(0, 0.0, 2.0, &routes);
    net.add(1, 1.0, 1.0, &routes);
    assert!(close(net.finish(0, &routes), 3.0));
    assert!(close(net.finish(1, &routes), 3.0));
}

#[test]
fn a_finished_flow_gives_its_share_back() {
    // Both at 1/2 until flow 1 finishes at 2 (work 1); flow 0 has 2 left and goes
    // alone: 4.
    let (mut net, routes) = setup(1, &[&[0], &[0]]);
    net.add(0, 0.0, 3.0, &routes);
    net.add(1, 0.0, 1.0, &routes);
    assert!(close(net.finish(0, &routes), 4.0));
    assert!(close(net.finish(1, &routes), 2.0));
}

#[test]
fn flows_on_disjoint_links_do_not_slow_each_other() {
    let (mut net, routes) = setup(4, &[&[0, 1], &[2, 3], &[1, 3]]);
    net.add(0, 0.0, 1.0, &routes);
    net.add(1, 0.0, 1.0, &routes);
    assert_eq!(net.finish(0, &routes), 1.0);
    assert_eq!(net.finish(1, &routes), 1.0);
    net.add(2, 1.0, 1.0, &routes);
    assert_eq!(net.finish(2, &routes), 2.0);
}

#[test]
fn a_flow_added_in_the_settled_past_moves_at_full_rate_until_the_present() {
    let (mut net, routes) = setup(1, &[&[0], &[0], &[0]]);
    net.add(0, 0.0, 2.0, &routes);
    assert_eq!(net.finish(0, &routes), 2.0);
    // Starts at 1: full rate to 2 (1 of 3 done), then alone: 4.
    net.add(1, 1.0, 3.0, &routes);
    // Starts at 0 and needs 1: done before the present, untouched.
    net.add(2, 0.0, 1.0, &routes);
    assert_eq!(net.finish(2, &routes), 1.0);
    assert_eq!(net.finish(1, &routes), 4.0);
}

#[test]
fn no_links_or_no_work_means_no_sharing() {
    let (mut net, routes) = setup(1, &[&[], &[0], &[0]]);
    net.add(1, 0.0, 5.0, &routes);
    net.add(0, 0.0, 2.0, &routes);
    net.add(2, 1.0, 0.0, &routes);
    assert_eq!(net.finish(0, &routes), 2.0);
    assert_eq!(net.finish(2, &routes), 1.0);
    assert_eq!(net.finish(1, &routes), 5.0);
}

#[test]
fn the_expected_finish_leaves_the_network_as_it_was() {
    let (mut net, routes) = setup(1, &[&[0], &[0], &[0]]);
    net.add(0, 0.0, 1.0, &routes);
    net.add(1, 0.0, 1.0, &routes);
    assert!(close(net.expected_finish(0, &routes), 2.0));
    assert_eq!(net.now(), 0.0);
    assert_eq!(net.in_flight(), 2);
    // A third flow, added before the first is settled, still shares from its start.
    net.add(2, 1.0, 1.0, &routes);
    // 0..1: two at 1/2 (1/2 left each); then three at 1/3: the first two end at 2.5,
    // when the third has 1/2 left; alone, it ends at 3.
    assert!(close(net.expected_finish(0, &routes), 2.5));
    assert!(close(net.finish(0, &routes), 2.5));
    assert!(close(net.expected_finish(2, &routes), 3.0));
    assert_eq!(net.now(), 2.5);
    assert!(close(net.finish(2, &routes), 3.0));
    assert!(net.expected_finish(9, &routes).is_nan());
}

#[test]
fn a_late_flows_remainder_shares_the_links_from_the_present() {
    let (mut net, routes) = setup(1, &[&[0], &[0], &[0]]);
    net.add(0, 0.0, 2.0, &routes);
    assert_eq!(net.finish(0, &routes), 2.0);
    net.add(2, 2.0, 10.0, &routes);
    // Starts at 1, needs 3: 1 done alone by the present (2), the other 2 at half the
    // link beside flow 2: ends at 6.
    net.add(1, 1.0, 3.0, &routes);
    assert!(close(net.finish(1, &routes), 6.0));
    // Flow 2: 2 done by 6, 8 left alone: 14.
    assert!(close(net.finish(2, &routes), 14.0));
}

#[test]
fn adding_an_id_still_in_flight_replaces_that_flow() {
    let (mut net, routes) = setup(1, &[&[0], &[0]]);
    net.add(0, 0.0, 10.0, &routes);
    net.add(1, 0.0, 1.0, &routes);
    net.add(0, 0.0, 1.0, &routes);
    assert_eq!(net.in_flight(), 2);
    assert!(close(net.finish(0, &routes), 2.0));
    assert!(close(net.finish(1, &routes), 2.0));
    // A pending one too.
    net.add(0, 5.0, 10.0, &routes);
    net.add(0, 5.0, 1.0, &routes);
    assert_eq!(net.in_flight(), 1);
    assert!(close(net.finish(0, &routes), 6.0));
}

#[test]
fn in_flight_counts_the_moving_and_the_waiting() {
    let (mut net, routes) = setup(1, &[&[0], &[0]]);
    net.add(0, 0.0, 1.0, &routes);
    net.add(1, 5.0, 1.0, &routes);
    assert_eq!(net.in_flight(), 2);
    assert_eq!(net.finish(0, &routes), 1.0);
    assert_eq!(net.in_flight(), 1);
    assert_eq!(net.finish(1, &routes), 6.0);
    assert_eq!(net.in_flight(), 0);
}

#[test]
fn a_reused_id_is_a_new_flow() {
    let (mut net, mut routes) = setup(2, &[&[0]]);
    net.add(0, 0.0, 1.0, &routes);
    assert_eq!(net.finish(0, &routes), 1.0);
    routes.set(0, [1]);
    net.add(0, 2.0, 3.0, &routes);
    assert_eq!(net.finish(0, &routes), 5.0);
    assert!(net.finish(7, &routes).is_nan());
}

proptest! {
    /// On one link that every flow crosses, starting together: the link never idles,
    /// so the last finish is the total work; no flow beats its own work; flows finish
    /// in the order of their work (equal shares throughout).
    #[test]
    fn one_shared_link_is_work_conserving(works in prop::collection::vec(0.01f64..10.0, 1..12)) {
        let route: &[u32] = &[0];
        let all = vec![route; works.len()];
        let (mut net, routes) = setup(1, &all);
        for (f, &w) in works.iter().enumerate() {
            net.add(f as FlowId, 0.0, w, &routes);
        }
        let finishes: Vec<f64> =
            (0..works.len()).map(|f| net.finish(f as FlowId, &routes)).collect();
        let total: f64 = works.iter().sum();
        let last = finishes.iter().cloned().fold(0.0, f64::max);
        prop_assert!((last - total).abs() <= 1e-9 * total, "{last} vs {total}");
        for (f, &w) in works.iter().enumerate() {
            prop_assert!(finishes[f] >= w * (1.0 - 1e-12));
            for (g, &v) in works.iter().enumerate() {
                if w < v {
                    prop_assert!(finishes[f] <= finishes[g] * (1.0 + 1e-12), "{f} {g}");
                }
            }
        }
    }

    /// On any routes and starts, no flow finishes before start + work, and no link
    /// carries more than its bandwidth: the work of the flows crossing a link that run
    /// entirely inside [0, T] is at most T.
    #[test]
    fn no_flow_beats_its_work_and_no_link_is_overfull(
        flows in prop::collection::vec(
            (prop::collection::vec(0u32..4, 1..4), 0.0f64..5.0, 0.01f64..5.0),
            1..10,
        )
    ) {
        let mut routes = Routes::default();
        for (f, (route, _, _)) in flows.iter().enumerate() {
            let mut route = route.clone();
            route.sort_unstable();
            route.dedup();
            routes.set(f as FlowId, route);
        }
        let mut net = FlowNetwork::new(4);
        let mut order: Vec<usize> = (0..flows.len()).collect();
        order.sort_by(|&a, &b| flows[a].1.total_cmp(&flows[b].1));
        for &f in &order {
            net.add(f as FlowId, flows[f].1, flows[f].2, &routes);
        }
        let finishes: Vec<f64> =
            (0..flows.len()).map(|f| net.finish(f as FlowId, &routes)).collect();
        for (f, (_, start, work)) in flows.iter().enumerate() {
            prop_assert!(finishes[f] >= (start + work) * (1.0 - 1e-12));
        }
        let end = finishes.iter().cloned().fold(0.0, f64::max);
        for link in 0..4u32 {
            let work: f64 = flows
                .iter()
                .enumerate()
                .filter(|(f, _)| routes.get(*f as FlowId).contains(&link))
                .map(|(_, (_, _, w))| *w)
                .sum();
            prop_assert!(work <= end * (1.0 + 1e-9));
        }
    }
}

/// Links of capacity 2: one flow alone still takes its work when a unit link is on
/// its route, two flows share a double link at full rate, three at 2/3 each.
#[test]
fn wide_links_carry_several_flows_at_full_rate() {
    let r = routes_of(&[&[0, 1], &[1], &[1]]);
    let mut net = FlowNetwork::with_capacities(vec![1.0, 2.0]);
    net.add(0, 0.0, 1.0, &r);
    net.add(1, 0.0, 1.0, &r);
    assert!(close(net.finish(0, &r), 1.0));
    assert!(close(net.finish(1, &r), 1.0));
    let mut net = FlowNetwork::with_capacities(vec![1.0, 2.0]);
    for f in 0..3 {
        net.add(f, 0.0, 1.0, &r);
    }
    for f in 0..3 {
        assert!(close(net.finish(f, &r), 1.5), "flow {f}");
    }
    // Alone on a double link, a flow moves twice as fast.
    let mut net = FlowNetwork::with_capacities(vec![1.0, 2.0]);
    net.add(1, 0.0, 1.0, &r);
    assert!(close(net.finish(1, &r), 0.5));
}

#[test]
fn a_slow_link_one_flow_alone_crosses_caps_it_and_the_others_share_the_rest() {
    // Link 0 (capacity 2) carries flows 0, 1 and 2; flow 0 also crosses link 1
    // (capacity 1/4) alone. Flow 0 gets 1/4, flows 1 and 2 share the 7/4 left: 7/8
    // each, so they finish at 8/7 and flow 0, still held to 1/4, at 4.
    let routes = routes_of(&[&[0, 1], &[0], &[0]]);
    let mut net = FlowNetwork::with_capacities(vec![2.0, 0.25]);
    for f in 0..3 {
        net.add(f, 0.0, 1.0, &routes);
    }
    let mut finished = Vec::new();
    assert!(net.advance(&routes, &mut finished));
    assert_eq!(finished, [1, 2]);
    assert!(close(net.now(), 8.0 / 7.0), "{}", net.now());
    assert!(close(net.finish(0, &routes), 4.0));
}

/// Driven from outside: the next event is the earliest finish, and advancing reports
/// the flows that finish there, in order.
#[test]
fn an_outside_loop_sees_every_finish_in_time_order() {
    let (mut net, routes) = setup(2, &[&[0], &[0], &[1]]);
    let mut finished = Vec::new();
    assert_eq!(net.next_event(&routes), f64::INFINITY);
    assert!(!net.advance(&routes, &mut finished));
    net.add(0, 0.0, 1.0, &routes);
    net.add(1, 0.0, 1.0, &routes);
    net.add(2, 0.5, 1.0, &routes);
    // Flow 2 starts at 0.5: a start is an event and finishes nothing.
    assert_eq!(net.next_event(&routes), 0.5);
    assert!(net.advance(&routes, &mut finished));
    assert!(finished.is_empty());
    assert!(close(net.next_event(&routes), 1.5));
    assert!(net.advance(&routes, &mut finished));
    assert_eq!(finished, [2]);
    assert!(close(net.now(), 1.5));
    assert!(net.advance(&routes, &mut finished));
    assert_eq!(finished, [2, 0, 1]);
    assert!(close(net.now(), 2.0));
    assert_eq!(net.next_event(&routes), f64::INFINITY);
}

/// The textbook fluid simulation, written plainly: at every event the max-min fair
/// rates of all moving flows from scratch (water filling: the link with the least
/// capacity per flow left fixes its flows, and so on), and every flow advanced.
/// Returns each flow's finish. O(events · flows² · links).
fn reference_finishes(capacities: &[f64], flows: &[(Vec<u32>, f64, f64)]) -> Vec<f64> {
    let n = flows.len();
    let mut remaining: Vec<f64> = flows.iter().map(|f| f.2).collect();
    let mut finish = vec![f64::NAN; n];
    let mut now = 0.0f64;
    loop {
        let moving: Vec<usize> = (0..n)
            .filter(|&f| flows[f].1 <= now && finish[f].is_nan())
            .collect();
        let next_start = (0..n)
            .filter(|&f| flows[f].1 > now)
            .map(|f| flows[f].1)
            .fold(f64::INFINITY, f64::min);
        if moving.is_empty() && !next_start.is_finite() {
            return finish;
        }
        // Water filling.
        let mut rate = vec![f64::NAN; n];
        let mut left: Vec<f64> = capacities.to_vec();
        loop {
            let unfixed: Vec<usize> = moving
                .iter()
                .copied()
                .filter(|&f| rate[f].is_nan())
                .collect();
            if unfixed.is_empty() {
                break;
            }
            let mut best = (f64::INFINITY, 0usize);
            for (l, &cap) in left.iter().enumerate() {
                let count = unfixed
                    .iter()
                    .filter(|&&f| flows[f].0.contains(&(l as u32)))
                    .count();
                if count > 0 && cap / (count as f64) < best.0 {
                    best = (cap / count as f64, l);
                }
            }
            let (share, link) = best;
            for &f in &unfixed {
                if flows[f].0.contains(&(link as u32)) {
                    rate[f] = share;
                    for &l in &flows[f].0 {
                        left[l as usize] -= share;
                    }
                }
            }
        }
        let next_finish = moving
            .iter()
            .map(|&f| now + remaining[f] / rate[f])
            .fold(f64::INFINITY, f64::min);
        let next = next_finish.min(next_start);
        for &f in &moving {
            remaining[f] -= rate[f] * (next - now);
            if remaining[f] <= flows[f].2 * 1e-9 {
                finish[f] = next;
            }
        }
        now = next;
    }
}

proptest! {
    /// The incremental network (rates refilled only in the component an event
    /// touches, finishes from a heap) finishes every flow when the plain simulation
    /// does, on any routes, starts, works and link capacities.
    #[test]
    fn the_incremental_network_agrees_with_the_plain_simulation(
        flows in prop::collection::vec(
            (prop::collection::vec(0u32..6, 1..4), 0.0f64..4.0, 0.05f64..3.0),
            1..14,
        ),
        // Half-speed links make a link one flow crosses alone its bottleneck below
        // the share of the links it shares.
        capacities in prop::collection::vec(prop::sample::select(vec![0.5, 1.0, 2.0]), 6),
    ) {
        let flows: Vec<(Vec<u32>, f64, f64)> = flows
            .into_iter()
            .map(|(mut route, start, work)| {
                route.sort_unstable();
                route.dedup();
                (route, start, work)
            })
            .collect();
        let expected = reference_finishes(&capacities, &flows);
        let mut routes = Routes::default();
        for (f, flow) in flows.iter().enumerate() {
            routes.set(f as FlowId, flow.0.iter().copied());
        }
        // Driven from outside, every flow added up front.
        let mut net = FlowNetwork::with_capacities(capacities.clone());
        for (f, flow) in flows.iter().enumerate() {
            net.add(f as FlowId, flow.1, flow.2, &routes);
        }
        let mut got = vec![f64::NAN; flows.len()];
        let mut finished = Vec::new();
        while net.advance(&routes, &mut finished) {
            for f in finished.drain(..) {
                got[f as usize] = net.now();
            }
        }
        for f in 0..flows.len() {
            prop_assert!(
                (got[f] - expected[f]).abs() <= 1e-9 * expected[f].max(1.0),
                "flow {f}: {} against {} ({flows:?})", got[f], expected[f]
            );
        }
        // Asked flow by flow, looking ahead first: the same finishes.
        let mut net = FlowNetwork::with_capacities(capacities);
        for (f, flow) in flows.iter().enumerate() {
            net.add(f as FlowId, flow.1, flow.2, &routes);
        }
        for (f, &want) in expected.iter().enumerate() {
            let ahead = net.expected_finish(f as FlowId, &routes);
            let finish = net.finish(f as FlowId, &routes);
            prop_assert_eq!(ahead, finish);
            prop_assert!((finish - want).abs() <= 1e-9 * want.max(1.0));
        }
    }
}
