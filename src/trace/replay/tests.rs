//! Replays of tiny hand-written event lists, each clock computed by hand, and the
//! invariants of the method on real traces.

use super::classify::Rules;
use super::config::Config;
use super::engine::{replay, Clocks, Network, Source};
use super::event::{Event, Kind, Slot};
use super::*;
use crate::trace::collective::{AlgorithmChoice, CollectiveOp};
use std::collections::VecDeque;
use std::path::Path;

/// A rank's events from a list.
struct Events {
    path: String,
    events: VecDeque<Event>,
}

impl Source for Events {
    fn next_event(&mut self, into: &mut Option<Event>) -> Result<(), ReplayError> {
        *into = self.events.pop_front();
        Ok(())
    }
    fn path(&self) -> &str {
        &self.path
    }
    fn may_send_synchronously(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e.kind, Kind::Send { sync: true, .. }))
    }
}

/// An event at wall time `wall` after `gap` seconds of computation.
fn ev(wall: i64, gap: f64, kind: Kind) -> Event {
    Event {
        wall,
        gap,
        at: wall as u64,
        kind,
    }
}

fn send(dst: u32, bytes: u64, slot: Slot) -> Kind {
    Kind::Send {
        dst,
        comm: 0,
        tag: 0,
        bytes,
        sync: false,
        slot,
    }
}

fn recv(src: Option<u32>, slot: Slot) -> Kind {
    Kind::Recv {
        src,
        comm: 0,
        tag: None,
        slot,
        capacity: None,
    }
}

fn complete(slots: &[Slot]) -> Kind {
    Kind::Complete(slots.into())
}

fn barrier(member: u32) -> Kind {
    Kind::Collective {
        op: CollectiveOp::Barrier,
        comm: 0,
        member,
        cost_bytes: Some(0),
        selection_bytes: 0,
        commutative: true,
        data: None,
    }
}

const BS: Slot = Event::BLOCKING_SEND;
const BR: Slot = Event::BLOCKING_RECV;

/// Two configurations: (α 0.1 s, β 0.01 s/B) and (α 1 s, β 0).
fn network(eager_limit: u64) -> Network {
    Network {
        alpha: vec![0.1, 1.0],
        beta: vec![0.01, 0.0],
        eager_limit,
        algorithms: AlgorithmChoice::automatic(),
    }
}

fn run(ranks: Vec<Vec<Event>>, eager_limit: u64) -> Result<(Clocks, ReplayNotes), ReplayError> {
    run_on(ranks, &network(eager_limit))
}

/// Replays `ranks`, all members of communicator 0, on `network`.
fn run_on(ranks: Vec<Vec<Event>>, network: &Network) -> Result<(Clocks, ReplayNotes), ReplayError> {
    let p = ranks.len() as u32;
    let mut sources: Vec<Events> = ranks
        .into_iter()
        .enumerate()
        .map(|(r, events)| Events {
            path: format!("rank{r}"),
            events: events.into(),
        })
        .collect();
    replay(&mut sources, &[(0..p).collect()], network)
}

#[track_caller]
fn close(got: &[f64], expected: &[f64]) {
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert!((g - e).abs() < 1e-12, "got {got:?}, expected {expected:?}");
    }
}

/// Rank 0 computes 1 s and sends 100 bytes; rank 1 computes `late` s and receives.
fn ping(late: f64) -> Vec<Vec<Event>> {
    vec![
        vec![ev(10, 1.0, send(1, 100, BS)), ev(11, 0.0, complete(&[BS]))],
        vec![ev(5, late, recv(Some(0), BR)), ev(6, 0.0, complete(&[BR]))],
    ]
}

#[test]
fn an_eager_message_arrives_at_its_send_time_plus_alpha_plus_n_beta() {
    let (c, notes) = run(ping(0.5), 1000).unwrap();
    // Arrival 1 + 0.1 + 100 × 0.01 = 2.1 and 1 + 1 = 2, after the receiver's 0.5: its
    // clock is set by the sender's path (1 s of computation), then α and nβ.
    close(c.clock(1), &[2.1, 2.0]);
    close(c.path_computation(1), &[1.0, 1.0]);
    close(c.latency(1), &[0.1, 1.0]);
    close(c.bandwidth(1), &[1.0, 0.0]);
    // The sender goes on at once.
    close(c.clock(0), &[1.0, 1.0]);
    close(c.latency(0), &[0.0, 0.0]);
    assert_eq!(c.computation, [1.0, 0.5]);
    assert_eq!(notes, ReplayNotes::default());
}

#[test]
fn a_receiver_later_than_the_arrival_does_not_wait() {
    let (c, _) = run(ping(3.0), 1000).unwrap();
    close(c.clock(1), &[3.0, 3.0]);
    close(c.path_computation(1), &[3.0, 3.0]);
    close(c.latency(1), &[0.0, 0.0]);
    // Late by less than the transfer: the transfer still sets the clock, with its path.
    let (c, _) = run(ping(1.05), 1000).unwrap();
    close(c.clock(1), &[2.1, 2.0]);
    close(c.path_computation(1), &[1.0, 1.0]);
    close(c.latency(1), &[0.1, 1.0]);
    close(c.bandwidth(1), &[1.0, 0.0]);
}

#[test]
fn a_rendezvous_transfer_starts_when_both_sides_are_there() {
    // Eager limit 10 bytes: the 100-byte message waits for its receive.
    let (c, _) = run(ping(0.5), 10).unwrap();
    // The receive is posted at 0.5, the send at 1: the transfer runs 1 → 2.1 (2.0),
    // and the sender waits for it too.
    close(c.clock(0), &[2.1, 2.0]);
    close(c.path_computation(0), &[1.0, 1.0]);
    close(c.latency(0), &[0.1, 1.0]);
    close(c.bandwidth(0), &[1.0, 0.0]);
    close(c.clock(1), &[2.1, 2.0]);
    // A late receiver (posted at 3) starts the transfer: both take its path.
    let (c, _) = run(ping(3.0), 10).unwrap();
    for r in 0..2 {
        close(c.clock(r), &[4.1, 4.0]);
        close(c.path_computation(r), &[3.0, 3.0]);
        close(c.latency(r), &[0.1, 1.0]);
    }
}

/// Rank 1 posts a receive of `capacity` bytes after 3 s and waits for it 2 s later;
/// rank 0 computes 1 s and sends 100 bytes (synchronously when `sync`), which it waits
/// for.
fn late_post(capacity: Option<u64>, sync: bool) -> Vec<Vec<Event>> {
    let send = Kind::Send {
        dst: 1,
        comm: 0,
        tag: 0,
        bytes: 100,
        sync,
        slot: 2,
    };
    let recv = Kind::Recv {
        src: Some(0),
        comm: 0,
        tag: None,
        slot: 2,
        capacity,
    };
    vec![
        vec![ev(10, 1.0, send), ev(11, 0.0, complete(&[2]))],
        vec![ev(5, 3.0, recv), ev(6, 2.0, complete(&[2]))],
    ]
}

#[test]
fn a_receive_keeps_its_post_time_where_a_rendezvous_can_read_it() {
    // Eager limit 10: the 100-byte message is rendezvous; it starts at the receive's
    // post (3), so the sender leaves at 3 + 0.1 + 1 = 4.1 and 3 + 1 = 4, with the
    // receiver's path (3 s of computation). The same when the receive holds the
    // message, when its size is unknown, and for a synchronous send into a small one.
    for (capacity, sync) in [(Some(100), false), (None, false), (Some(8), true)] {
        let (c, notes) = run(late_post(capacity, sync), 10).unwrap();
        let case = format!("capacity {capacity:?}, synchronous {sync}");
        close(c.clock(0), &[4.1, 4.0]);
        close(c.path_computation(0), &[3.0, 3.0]);
        close(c.latency(0), &[0.1, 1.0]);
        close(c.bandwidth(0), &[1.0, 0.0]);
        assert_eq!(notes.rendezvous_unposted, 0, "{case}");
        // The receiver waits from 5: the transfer has ended by then.
        close(c.clock(1), &[5.0, 5.0]);
    }
    // Under the eager limit the post is never read: the message arrives at
    // 1 + 0.1 + 1 = 2.1 and 2, before the receiver waits.
    for capacity in [Some(8), Some(100), None] {
        let (c, notes) = run(late_post(capacity, false), 1000).unwrap();
        close(c.clock(0), &[1.0, 1.0]);
        close(c.clock(1), &[5.0, 5.0]);
        assert_eq!(notes, ReplayNotes::default(), "capacity {capacity:?}");
    }
}

#[test]
fn a_rendezvous_message_larger_than_its_receive_starts_at_the_match() {
    // The 8-byte receive cannot hold the 100-byte message (an MPI error the run went
    // past): its post time was not kept, and the transfer starts when the send matches
    // it, at the receiver's clock then (5, its wait's computation done): 5 → 6.1, 6.
    // The same for a receive that holds exactly the eager limit.
    for capacity in [8, 10] {
        let (c, notes) = run(late_post(Some(capacity), false), 10).unwrap();
        assert_eq!(notes.rendezvous_unposted, 1, "capacity {capacity}");
        for r in 0..2 {
            close(c.clock(r), &[6.1, 6.0]);
            close(c.path_computation(r), &[5.0, 5.0]);
            close(c.latency(r), &[0.1, 1.0]);
            close(c.bandwidth(r), &[1.0, 0.0]);
        }
    }
}

#[test]
fn a_collective_leaves_at_the_last_arrival_plus_its_hockney_time() {
    // A barrier of 3 ranks: dissemination, ⌈lg 3⌉ = 2 messages.
    let ranks = (0..3)
        .map(|r| vec![ev(r, 1.0 + r as f64, barrier(r as u32))])
        .collect();
    let (c, _) = run(ranks, 1000).unwrap();
    for r in 0..3 {
        close(c.clock(r), &[3.2, 5.0]);
        close(c.path_computation(r), &[3.0, 3.0]);
        close(c.latency(r), &[0.2, 2.0]);
        close(c.bandwidth(r), &[0.0, 0.0]);
    }
}

#[test]
fn a_wildcard_receive_takes_the_message_the_trace_sent_first() {
    // Rank 2 receives from anyone, computes 5 s, receives again; rank 1 sends 10 bytes
    // at wall 5, rank 0 sends 1000 bytes at wall 20 (both after 0 s). The first receive
    // must take rank 1's.
    let ranks = vec![
        vec![ev(20, 0.0, send(2, 1000, BS)), ev(21, 0.0, complete(&[BS]))],
        vec![ev(5, 0.0, send(2, 10, BS)), ev(6, 0.0, complete(&[BS]))],
        vec![
            ev(1, 0.0, recv(None, BR)),
            ev(2, 0.0, complete(&[BR])),
            ev(30, 5.0, recv(None, BR)),
            ev(31, 0.0, complete(&[BR])),
        ],
    ];
    let (c, _) = run(ranks, 1 << 20).unwrap();
    // First 10 bytes arrive at 0.2 (α 1: 1), 5 s of computation, then 1000 bytes sent
    // at 0 arrive at 10.1 (1, long past). The other order would end at 15.1.
    close(c.clock(2), &[10.1, 6.0]);
    close(c.path_computation(2), &[0.0, 5.0]);
    close(c.latency(2), &[0.1, 1.0]);
    close(c.bandwidth(2), &[10.0, 0.0]);
}

#[test]
fn a_receive_takes_the_waiting_message_of_its_source_and_tag() {
    // Two messages wait for rank 0 before it receives: 10 bytes first, then 1000 (both
    // sent at 0). Rank 0 receives the second by its source or tag after 3 s, computes
    // 5 s, then receives the first. The 1000 bytes arrive at 0.1 + 10 = 10.1 (and 1),
    // so the clock ends at 15.1 (and 8); taking the 10 bytes first would end at 10.1.
    let addressed = |src: u32, tag: i32| Kind::Recv {
        src: Some(src),
        comm: 0,
        tag: Some(tag),
        slot: BR,
        capacity: None,
    };
    let tagged = |tag: i32, bytes: u64| Kind::Send {
        dst: 0,
        comm: 0,
        tag,
        bytes,
        sync: false,
        slot: BS,
    };
    let receiver = |first: Kind, second: Kind| {
        vec![
            ev(10, 3.0, first),
            ev(11, 0.0, complete(&[BR])),
            ev(12, 5.0, second),
            ev(13, 0.0, complete(&[BR])),
        ]
    };
    // By tag: rank 1 sends tag 7 then tag 1.
    let by_tag = vec![
        receiver(addressed(1, 1), addressed(1, 7)),
        vec![
            ev(1, 0.0, tagged(7, 10)),
            ev(2, 0.0, complete(&[BS])),
            ev(3, 0.0, tagged(1, 1000)),
            ev(4, 0.0, complete(&[BS])),
        ],
    ];
    // By source: rank 2 sends first, rank 1 second.
    let by_source = vec![
        receiver(addressed(1, 0), addressed(2, 0)),
        vec![ev(3, 0.0, tagged(0, 1000)), ev(4, 0.0, complete(&[BS]))],
        vec![ev(1, 0.0, tagged(0, 10)), ev(2, 0.0, complete(&[BS]))],
    ];
    for ranks in [by_tag, by_source] {
        let (c, notes) = run(ranks, 1 << 20).unwrap();
        close(c.clock(0), &[15.1, 8.0]);
        close(c.path_computation(0), &[5.0, 8.0]);
        close(c.bandwidth(0), &[10.0, 0.0]);
        assert_eq!(notes, ReplayNotes::default());
    }
}

#[test]
fn a_collective_keeps_its_own_copy_while_messages_are_in_flight() {
    // Rank 0 computes 1 s, sends 100 bytes and enters a barrier; rank 1 computes 5 s,
    // enters the barrier, then receives. The barrier leaves at 5 + α (one message for
    // two ranks): 5.1 and 6. The message, sent at 1, arrived long before: 2.1 and 2.
    let ranks = vec![
        vec![
            ev(10, 1.0, send(1, 100, BS)),
            ev(11, 0.0, complete(&[BS])),
            ev(12, 0.0, barrier(0)),
        ],
        vec![
            ev(20, 5.0, barrier(1)),
            ev(21, 0.0, recv(Some(0), BR)),
            ev(22, 0.0, complete(&[BR])),
        ],
    ];
    let (c, _) = run(ranks, 1000).unwrap();
    for r in 0..2 {
        close(c.clock(r), &[5.1, 6.0]);
        close(c.path_computation(r), &[5.0, 5.0]);
    }
}

#[test]
fn nonblocking_requests_complete_in_the_wait_that_names_them() {
    // Rank 0 posts two receives (slots 2, 3), computes 5 s, waits for both. Rank 1
    // sends 100 bytes to slot 3's receive (tag 7) at 0, then to slot 2's (tag 1) at 4.
    let tagged = |tag: i32, slot: Slot| Kind::Recv {
        src: Some(1),
        comm: 0,
        tag: Some(tag),
        slot,
        capacity: None,
    };
    let send_tag = |tag: i32| Kind::Send {
        dst: 0,
        comm: 0,
        tag,
        bytes: 100,
        sync: false,
        slot: 4,
    };
    let ranks = vec![
        vec![
            ev(1, 0.0, tagged(1, 2)),
            ev(2, 0.0, tagged(7, 3)),
            ev(9, 5.0, complete(&[2, 3])),
        ],
        vec![
            ev(3, 0.0, send_tag(7)),
            ev(4, 4.0, send_tag(1)),
            ev(5, 0.0, complete(&[4])),
        ],
    ];
    let (c, _) = run(ranks, 1000).unwrap();
    // Tag 1's message left at 4 and arrives at 5.1, after rank 0's 5: the path is the
    // sender's 4 s, α and nβ. At α 1 it arrives at 5, not later: rank 0's own path.
    // Tag 7's arrived long before.
    close(c.clock(0), &[5.1, 5.0]);
    close(c.path_computation(0), &[4.0, 5.0]);
    close(c.latency(0), &[0.1, 0.0]);
    close(c.bandwidth(0), &[1.0, 0.0]);
}

/// Three ranks exchanging eager and rendezvous messages, with waits, gaps between
/// calls that touch no clock, and a barrier.
fn exchange() -> Vec<Vec<Event>> {
    vec![
        vec![
            ev(1, 0.3, recv(Some(1), 2)),
            ev(2, 0.2, recv(Some(2), 3)),
            ev(3, 0.1, send(1, 100, 4)),
            ev(7, 0.7, complete(&[2, 3, 4])),
            ev(8, 0.05, barrier(0)),
            ev(9, 0.25, send(2, 10, BS)),
            ev(10, 0.0, complete(&[BS])),
        ],
        vec![
            ev(2, 0.6, send(0, 10, 2)),
            ev(4, 0.1, recv(Some(0), BR)),
            ev(5, 0.2, complete(&[BR])),
            ev(6, 0.15, complete(&[2])),
            ev(8, 0.9, barrier(1)),
        ],
        vec![
            ev(1, 0.05, send(0, 1000, BS)),
            ev(2, 0.0, complete(&[BS])),
            ev(8, 0.4, barrier(2)),
            ev(9, 0.1, recv(Some(0), BR)),
            ev(11, 0.3, complete(&[BR])),
        ],
    ]
}

#[test]
fn each_of_many_configurations_replays_as_it_would_alone() {
    // 13 configurations: the clocks keep whole lanes of 8, so 16, and the three copies
    // of the last are dropped. Each must get the same bits as replayed by itself.
    let alpha: Vec<f64> = (0..13).map(|i| 0.01 * f64::from(i + 1)).collect();
    let beta: Vec<f64> = (0..13).map(|i| 1e-4 * f64::from(13 - i)).collect();
    let replay_of = |alpha: Vec<f64>, beta: Vec<f64>| {
        let network = Network {
            alpha,
            beta,
            eager_limit: 50,
            algorithms: AlgorithmChoice::automatic(),
        };
        run_on(exchange(), &network).unwrap().0
    };
    let all = replay_of(alpha.clone(), beta.clone());
    assert_eq!((all.configs, all.ranks()), (13, 3));
    for k in 0..13 {
        let one = replay_of(vec![alpha[k]], vec![beta[k]]);
        for r in 0..3 {
            let quantities = |c: &Clocks, k: usize| {
                [
                    c.clock(r)[k],
                    c.path_computation(r)[k],
                    c.latency(r)[k],
                    c.bandwidth(r)[k],
                ]
            };
            assert_eq!(
                quantities(&all, k),
                quantities(&one, 0),
                "rank {r}, config {k}"
            );
        }
        assert_eq!(all.computation, one.computation);
    }
    // Rank 0 computed 0.3 + 0.2 + 0.1 + 0.7 + 0.05 + 0.25 s, rank 1 0.6 + 0.1 + 0.2 +
    // 0.15 + 0.9 s, rank 2 0.05 + 0.4 + 0.1 + 0.3 s.
    close(&all.computation, &[1.6, 1.95, 0.85]);
    // A rank's clock only moves forward from its own computation.
    for r in 0..3 {
        assert!(all.clock(r).iter().all(|&t| t >= all.computation[r]));
    }
}

#[test]
fn blocking_rendezvous_sends_both_ways_are_buffered_instead_of_deadlocking() {
    // Both ranks send 100 bytes (rendezvous above 10) before receiving: the traced
    // MPI buffered one of them.
    let exchange = |peer: u32| {
        vec![
            ev(1, 1.0, send(peer, 100, BS)),
            ev(2, 0.0, complete(&[BS])),
            ev(3, 0.0, recv(Some(peer), BR)),
            ev(4, 0.0, complete(&[BR])),
        ]
    };
    let (c, notes) = run(vec![exchange(1), exchange(0)], 10).unwrap();
    assert_eq!(notes.rendezvous_buffered, 1);
    // Rank 0's send went eager: rank 0 receives rank 1's rendezvous message at once (both
    // there at 1): 1 + 0.1 + 1 = 2.1; rank 1 gets rank 0's eager one at 2.1 too.
    close(c.clock(0), &[2.1, 2.0]);
    close(c.clock(1), &[2.1, 2.0]);
}

#[test]
fn a_receive_nobody_sends_is_an_error_naming_the_rank_and_the_call() {
    let ranks = vec![
        vec![ev(1, 0.0, recv(Some(1), BR)), ev(7, 0.0, complete(&[BR]))],
        vec![ev(1, 0.0, Kind::Local)],
    ];
    let e = run(ranks, 10).unwrap_err().to_string();
    assert!(e.contains("rank0") && e.contains("byte 7"), "{e}");
    assert!(e.contains("waits for a message no rank sends"), "{e}");
    // A collective some member skips.
    let ranks = vec![vec![ev(1, 0.0, barrier(0))], vec![ev(1, 0.0, Kind::Local)]];
    let e = run(ranks, 10).unwrap_err().to_string();
    assert!(e.contains("rank 0 waits in barrier for members"), "{e}");
    // Members calling different collectives at the same point.
    let bcast = Kind::Collective {
        op: CollectiveOp::Bcast,
        comm: 0,
        member: 1,
        cost_bytes: Some(8),
        selection_bytes: 8,
        commutative: true,
        data: None,
    };
    let ranks = vec![vec![ev(1, 0.0, barrier(0))], vec![ev(2, 0.0, bcast)]];
    let e = run(ranks, 10).unwrap_err().to_string();
    assert!(
        e.contains("rank1: byte 2: bcast where another member"),
        "{e}"
    );
}

#[test]
fn without_communication_the_time_is_the_longest_computation() {
    let ranks = vec![
        vec![ev(1, 2.0, Kind::Local), ev(2, 1.0, Kind::Local)],
        vec![ev(1, 1.5, Kind::Local)],
    ];
    let (c, _) = run(ranks, 10).unwrap();
    let outcomes = outcomes(&c, &Rules::default());
    for o in &outcomes {
        assert_eq!(o.time, 3.0);
        assert_eq!(o.computation, 2.25);
        // Rank 0's 3 s set T; the ranks compute 2.25 s on average.
        assert_eq!(o.imbalance, 0.75);
        assert_eq!((o.latency, o.bandwidth), (0.0, 0.0));
    }
}

#[test]
fn the_outcome_splits_the_time_into_shares_that_add_up() {
    let (c, _) = run(ping(0.5), 1000).unwrap();
    let o = outcomes(&c, &Rules::default());
    // Configuration 0: T = 2.1, rank 1's clock, whose path is rank 0's 1 s of
    // computation, 0.1 latency and 1.0 bandwidth. The ranks compute 0.75 s on average:
    // 0.25 s of the path's computation is imbalance.
    assert!((o[0].time - 2.1).abs() < 1e-12);
    assert!((o[0].computation - 0.75).abs() < 1e-12);
    assert!((o[0].imbalance - 0.25).abs() < 1e-12);
    assert!((o[0].latency - 0.1).abs() < 1e-12);
    assert!((o[0].bandwidth - 1.0).abs() < 1e-12);
    let s = o[0].shares();
    let sum = s.computation + s.imbalance + s.latency + s.bandwidth;
    assert!((sum - 1.0).abs() < 1e-12);
}

fn shared_trace(name: &str) -> Option<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/dumpi");
    let meta = std::fs::read_dir(dir.join(name))
        .ok()?
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "meta"))?;
    Trace::open(&meta).ok()
}

fn testtrace() -> Trace {
    let meta = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dumpi/testtrace/testtrace.meta"
    );
    Trace::open(Path::new(meta)).unwrap()
}

/// A two-rank fixture written as text and made binary by sst-dumpi's `ascii2dumpi`
/// (`tests/fixtures/dumpi/README.md`), so every call's time is a round number.
fn fixture(name: &str) -> Trace {
    let meta = format!(
        "{}/tests/fixtures/dumpi/{name}/{name}.meta",
        env!("CARGO_MANIFEST_DIR")
    );
    Trace::open(Path::new(&meta)).unwrap()
}

/// Replays `trace` on α = 1 ms and 1 GB/s (β = 1 ns per byte), where every time below
/// is a sum of microseconds, and checks the time and its split against the hand sums.
fn replay_at_1ms_1gbs(trace: &Trace, time: f64, split: [f64; 4]) -> ReplayNotes {
    let replay = replay_on(trace, &[(1e-3, 1e9)]);
    let o = &replay.outcomes[0];
    let got = [o.computation, o.imbalance, o.latency, o.bandwidth];
    assert!((o.time - time).abs() < 1e-12, "T = {}, want {time}", o.time);
    for (g, w) in got.iter().zip(split) {
        assert!((g - w).abs() < 1e-12, "split {got:?}, want {split:?}");
    }
    replay.notes
}

#[test]
fn a_synchronous_send_into_an_early_receive_starts_when_the_sender_comes() {
    // Rank 1 posts an Irecv for tag 2 at 0, takes rank 0's eager message of tag 1 (sent
    // at 1 µs, there at 1 µs + α + 4 ns = 1001.004 µs), computes 1 µs and waits from
    // 1002.004 µs. Rank 0 computes to 50 µs and Ssends 4 bytes to the posted receive:
    // the transfer starts at the later of the send (50 µs) and the post (0), not at the
    // receiver's clock when the send is matched, and ends at 1050.004 µs for both.
    // Rank 0 then computes 10 µs: T = 1060.004 µs. T's path holds rank 0's 60 µs of
    // computation (the ranks' mean is (60 + 4) / 2 = 32 µs), α, and 4 ns.
    let notes = replay_at_1ms_1gbs(&fixture("ssend"), 1060.004e-6, [32e-6, 28e-6, 1e-3, 4e-9]);
    assert_eq!(notes, ReplayNotes::default());
}

#[test]
fn a_large_message_into_an_early_receive_starts_when_the_sender_comes() {
    // No synchronous send. Rank 1 posts an Irecv of 100,000 ints at 0, takes the 4-byte
    // tag 1 (there at 1001.004 µs), receives from MPI_PROC_NULL (nothing, at once),
    // computes 1 µs and waits from 1002.004 µs. Rank 0 computes to 50 µs and sends the
    // 400,000 bytes, over the eager limit: the transfer starts at 50 µs, ends at
    // 50 + 1000 + 400 = 1450 µs for both. Rank 0 computes 10 µs and sends 4 bytes of
    // tag 3 at 1460 µs, which rank 1's wildcard receive (from 1451 µs) takes at
    // 2460.004 µs; 1 µs more: T = 2461.004 µs. T's path: 50 + 10 + 1 µs of computation
    // (mean (70 + 5) / 2 = 37.5 µs), 2 α, 400,004 ns.
    let notes = replay_at_1ms_1gbs(
        &fixture("rendezvous"),
        2461.004e-6,
        [37.5e-6, 23.5e-6, 2e-3, 400.004e-6],
    );
    assert_eq!(
        notes,
        ReplayNotes {
            null_peer_messages: 1,
            ..ReplayNotes::default()
        }
    );
}

#[test]
fn one_int_messages_have_no_bandwidth_share_on_any_network() {
    let replay = replay_trace(&testtrace(), &ReplayOptions::default()).unwrap();
    assert_eq!(replay.outcomes.len(), 105);
    for (c, o) in replay.configs.iter().zip(&replay.outcomes) {
        // 4 bytes take 1 µs at the slowest bandwidth (31.25 Mb/s), against 50 µs of α.
        assert!(o.shares().bandwidth < 1e-2, "{}: {:?}", c.name, o);
        assert!(o.time > 0.0);
    }
}

/// Replays on configurations with these latencies (s) and bandwidths (B/s).
fn replay_on(trace: &Trace, networks: &[(f64, f64)]) -> Replay {
    let configs = networks
        .iter()
        .map(|&(latency, bandwidth)| Config {
            family: "f".into(),
            name: format!("{latency} {bandwidth}"),
            latency,
            bandwidth,
        })
        .collect();
    let options = ReplayOptions {
        configs,
        ..ReplayOptions::default()
    };
    replay_trace(trace, &options).unwrap()
}

#[test]
fn time_grows_with_latency_and_shrinks_with_bandwidth() {
    let mut traces = vec![testtrace()];
    traces.extend(shared_trace("sst-macro_testbgp"));
    traces.extend(shared_trace("dumpi_to_graph_naive_all_to_all_procs4_run0"));
    for trace in &traces {
        let latencies: Vec<(f64, f64)> = (0..8).map(|i| (1e-7 * 4f64.powi(i), 1e9)).collect();
        let t: Vec<f64> = replay_on(trace, &latencies)
            .outcomes
            .iter()
            .map(|o| o.time)
            .collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
        assert!(t[7] > t[0]);
        let bandwidths: Vec<(f64, f64)> = (0..8).map(|i| (1e-6, 1e6 * 4f64.powi(i))).collect();
        let t: Vec<f64> = replay_on(trace, &bandwidths)
            .outcomes
            .iter()
            .map(|o| o.time)
            .collect();
        assert!(t.windows(2).all(|w| w[0] >= w[1]), "{t:?}");
    }
}

#[test]
fn on_an_ideal_network_every_rank_takes_at_least_its_computation() {
    let mut traces = vec![testtrace()];
    traces.extend(shared_trace("sst-macro_testbgp"));
    for trace in &traces {
        let replay = replay_on(trace, &[(0.0, f64::INFINITY)]);
        let o = replay.outcomes[0];
        assert_eq!((o.latency, o.bandwidth), (0.0, 0.0));
        assert!(o.time >= o.computation);
        assert!((o.computation + o.imbalance - o.time).abs() < 1e-12 * o.time.max(1.0));
    }
}

mod routed;
