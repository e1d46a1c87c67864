//! Ranks decoded ahead of the replay, in parallel: worker threads lower their ranks'
//! records into batches of events and hand them over through bounded channels, while
//! the clocks (one thread: they match messages across ranks) take them in order.
//!
//! A worker serves several ranks and never blocks on one of them: when a rank's channel
//! is full it goes on with the others, so the replay can always get the rank it waits
//! for. The replay hands each emptied batch back to be filled again: a fresh batch
//! every time would be fresh memory, whose page faults, zeroing and unmapping took
//! about 8 % of the processor time of a replay of small messages. Memory: at most five
//! batches per rank (two in the channel, one waiting for room, one being replayed, one
//! handed back), batches shrinking as ranks grow.

use super::engine::Source;
use super::event::Event;
use super::lower::RankEvents;
use super::{ReplayError, ReplayNotes};
use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::time::Duration;

/// Events handed over at once, all ranks together (a rank's batch is this divided by
/// the ranks, within [`MIN_BATCH`, `MAX_BATCH`]).
const EVENTS_IN_FLIGHT: usize = 1 << 17;
const MIN_BATCH: usize = 64;
const MAX_BATCH: usize = 1 << 14;

/// One batch of a rank's events; the last one ends the rank, with its error if any.
struct Batch {
    events: Vec<Event>,
    end: Option<Result<(), ReplayError>>,
}

/// The replay's side of one rank.
pub(super) struct Prefetched {
    path: String,
    rx: Receiver<Batch>,
    /// The batch being replayed: its events taken from the front, its room handed back
    /// through `spent` once it is empty.
    events: VecDeque<Event>,
    spent: SyncSender<Vec<Event>>,
    ended: bool,
    synchronous_sends: bool,
}

impl Source for Prefetched {
    fn next_event(&mut self, into: &mut Option<Event>) -> Result<(), ReplayError> {
        loop {
            if let Some(e) = self.events.pop_front() {
                *into = Some(e);
                return Ok(());
            }
            if self.ended {
                *into = None;
                return Ok(());
            }
            // Empty, so the conversion moves nothing; a full return channel (or a worker
            // gone) only means the room is freed here.
            let room = Vec::from(std::mem::take(&mut self.events));
            if room.capacity() > 0 {
                let _ = self.spent.try_send(room);
            }
            // A worker that stopped without an end has failed elsewhere: say so here too.
            let batch = self.rx.recv().map_err(|_| {
                ReplayError::Config(format!("the decoder of '{}' stopped", self.path))
            })?;
            self.events = VecDeque::from(batch.events);
            if let Some(end) = batch.end {
                self.ended = true;
                end?;
            }
        }
    }

    fn path(&self) -> &str {
        &self.path
    }

    fn may_send_synchronously(&self) -> bool {
        self.synchronous_sends
    }
}

/// A worker's side of one rank.
struct Feed<'f> {
    events: RankEvents<'f>,
    tx: SyncSender<Batch>,
    /// Batches the replay has emptied, to fill again.
    spent: Receiver<Vec<Event>>,
    /// A batch the channel had no room for yet.
    pending: Option<Batch>,
    done: bool,
}

/// Runs `replay` on `sources` decoded by `workers` threads; returns its result and the
/// notes of the decoding.
pub(super) fn with_prefetch<'f, T>(
    sources: Vec<RankEvents<'f>>,
    workers: usize,
    replay: impl FnOnce(&mut [Prefetched]) -> T,
) -> (T, ReplayNotes) {
    let ranks = sources.len().max(1);
    let batch = (EVENTS_IN_FLIGHT / ranks).clamp(MIN_BATCH, MAX_BATCH);
    let workers = workers.clamp(1, ranks);
    let mut shares: Vec<Vec<Feed<'f>>> = (0..workers).map(|_| Vec::new()).collect();
    let mut prefetched = Vec::with_capacity(ranks);
    for (k, events) in sources.into_iter().enumerate() {
        let (tx, rx) = sync_channel(2);
        let (spent_tx, spent) = sync_channel(1);
        prefetched.push(Prefetched {
            path: events.path().to_string(),
            rx,
            events: VecDeque::new(),
            spent: spent_tx,
            ended: false,
            synchronous_sends: events.may_send_synchronously(),
        });
        shares[k % workers].push(Feed {
            events,
            tx,
            spent,
            pending: None,
            done: false,
        });
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .enumerate()
            .map(|(k, feeds)| {
                // Named, so that profilers tell the decoders from the replay.
                std::thread::Builder::new()
                    .name(format!("orcs-decode-{k}"))
                    .spawn_scoped(scope, move || serve(feeds, batch))
            })
            .collect();
        let result = replay(&mut prefetched);
        // Stop the workers still decoding (the replay failed, or ended early).
        drop(prefetched);
        let mut notes = ReplayNotes::default();
        for h in handles.into_iter().flatten() {
            if let Ok(n) = h.join() {
                notes.add(&n);
            }
        }
        (result, notes)
    })
}

/// A worker: fills its ranks' channels in turn until every rank is done or the replay
/// has gone.
fn serve(mut feeds: Vec<Feed<'_>>, batch: usize) -> ReplayNotes {
    loop {
        let mut progress = false;
        let mut open = false;
        for feed in feeds.iter_mut().filter(|f| !f.done) {
            open = true;
            let next = match feed.pending.take() {
                Some(b) => b,
                None => {
                    let room = feed.spent.try_recv().unwrap_or_default();
                    fill(&mut feed.events, batch, room)
                }
            };
            let last = next.end.is_some();
            match feed.tx.try_send(next) {
                Ok(()) => {
                    progress = true;
                    feed.done = last;
                }
                Err(TrySendError::Full(b)) => feed.pending = Some(b),
                Err(TrySendError::Disconnected(_)) => feed.done = true,
            }
        }
        if !open {
            break;
        }
        if !progress {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    let mut notes = ReplayNotes::default();
    for f in &feeds {
        notes.add(&f.events.notes);
    }
    notes
}

/// The next batch of one rank's events, in `room` (an emptied batch, or a new one);
/// the batch ends the rank at its end or error.
fn fill(events: &mut RankEvents<'_>, batch: usize, room: Vec<Event>) -> Batch {
    let (events, end) = events.next_batch(batch, room);
    Batch { events, end }
}
