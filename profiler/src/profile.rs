//! One process's traffic as it runs: what it sent to each world rank, per phase, and
//! the communicators and persistent requests needed to name the peers.
//!
//! Everything here is plain Rust without MPI, so that the bookkeeping can be tested on
//! its own; the MPI wrappers (`interpose.c`) translate handles into the integer keys
//! used here and call in through `ffi`.

use orcs::trace::collective::{AlgorithmChoice, CallData, CollectiveOp, RankCall};
use rustc_hash::FxHashMap;
use std::time::Instant;

/// The highest `MPI_Pcontrol` level that opens a phase of its own: levels above it are
/// counted in the whole run only. The levels used fit one 64-bit mask (bit 0 the whole
/// run), which the ranks combine at the end to agree on the phases to gather.
pub const MAX_PHASE: i32 = 63;

/// What a process sent in one phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phase {
    /// Bytes sent to each world rank, point-to-point and modelled collective traffic.
    pub tx_bytes: Vec<u64>,
    /// Messages sent to each world rank.
    pub tx_messages: Vec<u64>,
    /// The part of `tx_bytes` that models collectives (see [`Profile::collective`]).
    pub modelled_bytes: Vec<u64>,
    /// The part of `tx_messages` that models collectives.
    pub modelled_messages: Vec<u64>,
    /// Bytes this rank fetched from each world rank (`MPI_Get` and the results of
    /// atomic operations): they are that rank's sends, moved into its row at the end.
    pub pulled_bytes: Vec<u64>,
    /// Messages this rank fetched from each world rank.
    pub pulled_messages: Vec<u64>,
    /// Bytes received from each world rank: the senders' counts, filled at the end.
    pub rx_bytes: Vec<u64>,
    /// Messages received from each world rank, filled at the end.
    pub rx_messages: Vec<u64>,
    /// How many messages of each size were sent.
    pub sizes: FxHashMap<u64, u64>,
    /// Collective calls by operation, in [`CollectiveOp::ALL`]'s order: (calls, bytes
    /// of the call's data as `count × size(datatype)`).
    pub collectives: [(u64, u64); CollectiveOp::ALL.len()],
    /// Calls recorded (sends, starts of persistent sends, collectives).
    pub events: u64,
}

impl Phase {
    pub(crate) fn new(ranks: usize) -> Phase {
        Phase {
            tx_bytes: vec![0; ranks],
            tx_messages: vec![0; ranks],
            modelled_bytes: vec![0; ranks],
            modelled_messages: vec![0; ranks],
            pulled_bytes: vec![0; ranks],
            pulled_messages: vec![0; ranks],
            rx_bytes: vec![0; ranks],
            rx_messages: vec![0; ranks],
            ..Phase::default()
        }
    }
}

/// A communicator as the wrappers describe it once: the world rank of each rank its
/// point-to-point peers are numbered in (the remote group of an intercommunicator),
/// and this process's rank in it.
#[derive(Debug, Clone, PartialEq)]
struct Comm {
    peers: Vec<u32>,
    rank: u32,
    inter: bool,
}

/// A persistent request: what each `MPI_Start` of it sends.
#[derive(Debug, Clone, PartialEq)]
enum Persistent {
    /// One send of `bytes` to rank `peer` of `comm` (`MPI_Send_init` and its modes).
    Send { comm: u64, peer: i32, bytes: u64 },
    /// Several sends, (communicator, peer, bytes) each (MPI 4's persistent
    /// neighbourhood collectives).
    Sends(Vec<(u64, i32, u64)>),
    /// A collective call (MPI 4's persistent collectives, `MPI_Bcast_init` and the others).
    Collective {
        comm: u64,
        op: CollectiveOp,
        root: i32,
        commutative: bool,
        data: OwnedData,
    },
}

/// [`CallData`] kept with a persistent collective.
#[derive(Debug, Clone, PartialEq)]
enum OwnedData {
    None,
    Bytes(u64),
    PerRank(Box<[u64]>),
}

impl OwnedData {
    fn of(data: CallData) -> OwnedData {
        match data {
            CallData::None => OwnedData::None,
            CallData::Bytes(b) => OwnedData::Bytes(b),
            CallData::PerRank(v) => OwnedData::PerRank(v.into()),
        }
    }

    fn call_data(&self) -> CallData<'_> {
        match self {
            OwnedData::None => CallData::None,
            OwnedData::Bytes(b) => CallData::Bytes(*b),
            OwnedData::PerRank(v) => CallData::PerRank(v),
        }
    }
}

/// One process's profile.
#[derive(Debug)]
pub struct Profile {
    /// Its world rank.
    pub rank: u32,
    /// The world's size.
    pub ranks: u32,
    /// `MPI_Get_processor_name`.
    pub host: String,
    /// When `MPI_Init` returned.
    pub started: Instant,
    /// Phase 0 (the whole run), then one per `MPI_Pcontrol` level used (None: a level
    /// never used).
    pub phases: Vec<Option<Phase>>,
    /// The level of the last `MPI_Pcontrol` (0: none, or outside phases).
    level: i32,
    /// Whether the program called `MPI_Pcontrol` at all.
    pub pcontrol: bool,
    /// Collective algorithms of the model.
    algorithms: AlgorithmChoice,
    /// Described communicators and windows: their slot in `slots` by handle key.
    comms: FxHashMap<u64, usize>,
    /// The descriptions; a forgotten one leaves None.
    slots: Vec<Option<Comm>>,
    /// The last communicator looked up (key, slot): programs send on one or two
    /// communicators in a row, so most lookups stop here.
    last: Option<(u64, usize)>,
    persistent: FxHashMap<u64, Persistent>,
    /// Scratch for a collective's modelled messages (local peer, bytes).
    messages: Vec<(u32, u64)>,
    /// Sends whose peer or communicator could not be named (counted, not attributed).
    pub unattributed: u64,
}

impl Profile {
    /// The profile of world rank `rank` of `ranks`, on `host`, modelling collectives
    /// with `algorithms`.
    pub fn new(rank: u32, ranks: u32, host: String, algorithms: AlgorithmChoice) -> Profile {
        Profile {
            rank,
            ranks,
            host,
            started: Instant::now(),
            phases: vec![Some(Phase::new(ranks as usize))],
            level: 0,
            pcontrol: false,
            algorithms,
            comms: FxHashMap::default(),
            slots: Vec::new(),
            last: None,
            persistent: FxHashMap::default(),
            messages: Vec::new(),
            unattributed: 0,
        }
    }

    /// Whether communicator `comm` is known.
    pub fn knows(&self, comm: u64) -> bool {
        self.comms.contains_key(&comm)
    }

    /// Describes communicator `comm`: `peers[i]` is the world rank of its rank i (of
    /// the remote group when `inter`), `rank` this process's rank in it. World ranks
    /// out of range are kept as they are and make their sends unattributed.
    pub fn register(&mut self, comm: u64, peers: &[i32], rank: i32, inter: bool) {
        let peers = peers
            .iter()
            .map(|&p| u32::try_from(p).unwrap_or(u32::MAX))
            .collect();
        let rank = u32::try_from(rank).unwrap_or(u32::MAX);
        let described = Some(Comm { peers, rank, inter });
        match self.comms.get(&comm) {
            Some(&slot) => self.slots[slot] = described,
            None => {
                // Reuse a forgotten slot: a program that creates and frees communicators
                // in a loop keeps a bounded table.
                let slot = match self.slots.iter().position(Option::is_none) {
                    Some(free) => {
                        self.slots[free] = described;
                        free
                    }
                    None => {
                        self.slots.push(described);
                        self.slots.len() - 1
                    }
                };
                self.comms.insert(comm, slot);
            }
        }
    }

    /// The slot of `comm`'s description, if known. O(1).
    #[inline]
    fn slot(&mut self, comm: u64) -> Option<usize> {
        match self.last {
            Some((key, slot)) if key == comm => Some(slot),
            _ => {
                let slot = *self.comms.get(&comm)?;
                self.last = Some((comm, slot));
                Some(slot)
            }
        }
    }

    /// The description of `comm`, if known. O(1).
    #[inline]
    fn comm(&mut self, comm: u64) -> Option<&Comm> {
        let slot = self.slot(comm)?;
        self.slots[slot].as_ref()
    }

    /// Forgets communicator `comm` (freed: its handle may come back for another one).
    pub fn forget(&mut self, comm: u64) {
        if let Some(slot) = self.comms.remove(&comm) {
            self.slots[slot] = None;
        }
        if self.last.is_some_and(|(key, _)| key == comm) {
            self.last = None;
        }
    }

    /// `MPI_Pcontrol(level)`: from now on the traffic also counts in phase `level`
    /// (none for 0 and below, or above [`MAX_PHASE`]).
    pub fn pcontrol(&mut self, level: i32) {
        self.pcontrol = true;
        self.level = level;
        if (1..=MAX_PHASE).contains(&level) {
            let slot = level as usize;
            if self.phases.len() <= slot {
                self.phases.resize(slot + 1, None);
            }
            let ranks = self.ranks as usize;
            self.phases[slot].get_or_insert_with(|| Phase::new(ranks));
        }
    }

    /// The phases being counted now: 0 and, inside a phase, its level.
    fn counting(&mut self) -> (&mut Phase, Option<&mut Phase>) {
        counting(&mut self.phases, self.level)
    }

    /// A message of `bytes` to world rank `to`, `modelled` when it models a collective.
    fn message(phase: &mut Phase, to: usize, bytes: u64, modelled: bool) {
        phase.tx_bytes[to] = phase.tx_bytes[to].saturating_add(bytes);
        phase.tx_messages[to] += 1;
        if modelled {
            phase.modelled_bytes[to] = phase.modelled_bytes[to].saturating_add(bytes);
            phase.modelled_messages[to] += 1;
        }
        *phase.sizes.entry(bytes).or_insert(0) += 1;
    }

    /// The world rank of point-to-point peer `peer` of `comm` (Some(None): the peer is
    /// not in it), or None when `comm` is not described.
    #[inline]
    fn world_rank(&mut self, comm: u64, peer: i32) -> Option<Option<usize>> {
        let ranks = self.ranks;
        let c = self.comm(comm)?;
        let world = usize::try_from(peer)
            .ok()
            .and_then(|p| c.peers.get(p).copied());
        Some(world.filter(|&w| w < ranks).map(|w| w as usize))
    }

    /// A send of `bytes` to rank `peer` of `comm` (`MPI_PROC_NULL` is filtered by the
    /// wrappers). Returns false, counting nothing, when `comm` is not described yet:
    /// the wrapper describes it and sends again, so the common case takes one call.
    /// O(1).
    pub fn send(&mut self, comm: u64, peer: i32, bytes: u64) -> bool {
        let Some(to) = self.world_rank(comm, peer) else {
            return false;
        };
        if to.is_none() {
            self.unattributed += 1;
        }
        let (whole, current) = self.counting();
        for phase in std::iter::once(whole).chain(current) {
            phase.events += 1;
            if let Some(to) = to {
                Self::message(phase, to, bytes, false);
            }
        }
        true
    }

    /// A fetch of `bytes` from rank `peer` of `comm` (a window's group): the data moves
    /// from the peer to this rank, so it counts as the peer's send once the ranks have
    /// exchanged what they fetched ([`Profile::add_served`]). O(1).
    pub fn pull(&mut self, comm: u64, peer: i32, bytes: u64) {
        let from = self.world_rank(comm, peer).flatten();
        if from.is_none() {
            self.unattributed += 1;
        }
        let (whole, current) = self.counting();
        for phase in std::iter::once(whole).chain(current) {
            phase.events += 1;
            if let Some(from) = from {
                phase.pulled_bytes[from] = phase.pulled_bytes[from].saturating_add(bytes);
                phase.pulled_messages[from] += 1;
            }
        }
    }

    /// Adds to phase `level`'s sends what each world rank fetched from this one:
    /// `served[j]` = (bytes, messages) rank j fetched. The messages' sizes are the
    /// fetchers' to know, so they are not in this rank's size histogram.
    pub fn add_served(&mut self, level: usize, served: &[(u64, u64)]) {
        if let Some(Some(phase)) = self.phases.get_mut(level) {
            for (j, &(bytes, messages)) in served.iter().enumerate().take(phase.tx_bytes.len()) {
                phase.tx_bytes[j] = phase.tx_bytes[j].saturating_add(bytes);
                phase.tx_messages[j] += messages;
            }
        }
    }

    /// A persistent send request `request` (`MPI_Send_init` and its modes): each start
    /// sends `bytes` to `peer` of `comm`.
    pub fn persistent(&mut self, request: u64, comm: u64, peer: i32, bytes: u64) {
        self.persistent
            .insert(request, Persistent::Send { comm, peer, bytes });
    }

    /// Adds a send of `bytes` to `peer` of `comm` to what each start of `request` sends
    /// (a persistent neighbourhood collective: one send per neighbour). A request that
    /// was something else (the wrappers forget a request before they describe it)
    /// becomes these sends.
    pub fn persistent_add(&mut self, request: u64, comm: u64, peer: i32, bytes: u64) {
        let entry = self
            .persistent
            .entry(request)
            .or_insert_with(|| Persistent::Sends(Vec::new()));
        if !matches!(entry, Persistent::Sends(_)) {
            *entry = Persistent::Sends(Vec::new());
        }
        if let Persistent::Sends(sends) = entry {
            sends.push((comm, peer, bytes));
        }
    }

    /// A persistent collective request `request` (MPI 4's `MPI_X_init`): each start is
    /// the collective call [`Profile::collective`] describes.
    pub fn persistent_collective(
        &mut self,
        request: u64,
        comm: u64,
        op: CollectiveOp,
        root: i32,
        commutative: bool,
        data: CallData,
    ) {
        let data = OwnedData::of(data);
        self.persistent.insert(
            request,
            Persistent::Collective {
                comm,
                op,
                root,
                commutative,
                data,
            },
        );
    }

    /// `MPI_Start` of `request`: what it sends when it is a persistent request made
    /// here (receive requests are not known here and are ignored). A request whose
    /// communicator was freed since it was made counts as unattributed.
    pub fn start(&mut self, request: u64) {
        match self.persistent.get(&request) {
            None => {}
            // The common case: a copy without an allocation.
            Some(p @ Persistent::Send { .. }) => {
                let p = p.clone();
                self.start_persistent(&p);
            }
            Some(_) => {
                if let Some(p) = self.persistent.remove(&request) {
                    self.start_persistent(&p);
                    self.persistent.insert(request, p);
                }
            }
        }
    }

    /// What one start of persistent request `p` sends.
    fn start_persistent(&mut self, p: &Persistent) {
        match p {
            &Persistent::Send { comm, peer, bytes } => {
                if !self.send(comm, peer, bytes) {
                    self.unattributed += 1;
                }
            }
            Persistent::Sends(sends) => {
                for &(comm, peer, bytes) in sends {
                    if !self.send(comm, peer, bytes) {
                        self.unattributed += 1;
                    }
                }
            }
            Persistent::Collective {
                comm,
                op,
                root,
                commutative,
                data,
            } => {
                if !self.collective(*comm, *op, *root, *commutative, data.call_data()) {
                    self.unattributed += 1;
                }
            }
        }
    }

    /// `MPI_Request_free` of `request`.
    pub fn free_request(&mut self, request: u64) {
        self.persistent.remove(&request);
    }

    /// A collective call on `comm`: counted as a call with its data's bytes (`data`
    /// as [`RankCall`] takes it), and expanded into the point-to-point messages this
    /// rank sends under the algorithm model, which count as modelled traffic. A call on
    /// an intercommunicator, or one the model refuses, counts as a call only.
    /// O(messages of the algorithm).
    pub fn collective(
        &mut self,
        comm: u64,
        op: CollectiveOp,
        root: i32,
        commutative: bool,
        data: CallData,
    ) -> bool {
        let Some(slot) = self.slot(comm) else {
            return false;
        };
        let bytes = match data {
            CallData::None => 0,
            CallData::Bytes(b) => b,
            CallData::PerRank(v) => v.iter().fold(0u64, |s, &b| s.saturating_add(b)),
        };
        self.messages.clear();
        let c = self.slots[slot].as_ref().expect("a described communicator");
        let mut expanded = false;
        if !c.inter {
            let call = RankCall {
                op,
                rank: c.rank,
                size: c.peers.len() as u32,
                root: u32::try_from(root).unwrap_or(u32::MAX),
                commutative,
                data,
            };
            let algorithm = call.algorithm(&self.algorithms);
            let messages = &mut self.messages;
            expanded = call
                .expand(algorithm, |to, b| messages.push((to, b)))
                .is_ok();
        }
        let index = op as usize;
        let (whole, mut current) = counting(&mut self.phases, self.level);
        for phase in std::iter::once(&mut *whole).chain(current.as_deref_mut()) {
            phase.events += 1;
            let entry = &mut phase.collectives[index];
            entry.0 += 1;
            entry.1 = entry.1.saturating_add(bytes);
        }
        if expanded {
            for &(to, b) in &self.messages {
                match c.peers.get(to as usize).filter(|&&w| w < self.ranks) {
                    Some(&w) => {
                        Self::message(whole, w as usize, b, true);
                        if let Some(p) = current.as_deref_mut() {
                            Self::message(p, w as usize, b, true);
                        }
                    }
                    None => self.unattributed += 1,
                }
            }
        }
        true
    }

    /// Seconds since `MPI_Init` returned.
    pub fn duration(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The phases this rank has: bit k for phase k (bit 0, the whole run, always).
    pub fn levels(&self) -> u64 {
        (self.phases.iter().enumerate())
            .filter(|(_, p)| p.is_some())
            .fold(0, |mask, (k, _)| mask | 1 << k)
    }

    /// Makes the phases of `levels` (as [`Profile::levels`] gives them, combined over
    /// every rank) exist on this rank: every rank sends every such phase's vectors at
    /// the end, also those it never entered.
    pub fn ensure_phases(&mut self, levels: u64) {
        if levels != 0 {
            let highest = 63 - levels.leading_zeros() as usize;
            if self.phases.len() <= highest {
                self.phases.resize(highest + 1, None);
            }
        }
        let ranks = self.ranks as usize;
        for (k, p) in self.phases.iter_mut().enumerate() {
            if levels & 1 << k != 0 {
                p.get_or_insert_with(|| Phase::new(ranks));
            }
        }
    }
}

/// Phase 0 and, when `level` is a phase's, that phase.
fn counting(phases: &mut [Option<Phase>], level: i32) -> (&mut Phase, Option<&mut Phase>) {
    let (whole, rest) = phases.split_first_mut().expect("phase 0");
    let whole = whole.as_mut().expect("phase 0 exists");
    let current = match usize::try_from(level) {
        Ok(l) if l >= 1 => rest.get_mut(l - 1).and_then(Option::as_mut),
        _ => None,
    };
    (whole, current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(ranks: u32, rank: u32) -> Profile {
        let mut p = Profile::new(rank, ranks, "node".into(), AlgorithmChoice::automatic());
        let all: Vec<i32> = (0..ranks as i32).collect();
        p.register(1, &all, rank as i32, false);
        p
    }

    #[test]
    fn sends_count_in_the_whole_run_and_the_current_phase() {
        let mut p = world(4, 0);
        p.send(1, 2, 100);
        p.pcontrol(2);
        p.send(1, 3, 7);
        p.send(1, 3, 7);
        p.pcontrol(0);
        p.send(1, 1, 1);
        let whole = p.phases[0].as_ref().unwrap();
        assert_eq!(whole.tx_bytes, [0, 1, 100, 14]);
        assert_eq!(whole.tx_messages, [0, 1, 1, 2]);
        assert_eq!(whole.events, 4);
        assert_eq!(p.phases.len(), 3);
        assert!(p.phases[1].is_none());
        let two = p.phases[2].as_ref().unwrap();
        assert_eq!(
            (two.tx_bytes.as_slice(), two.events),
            (&[0, 0, 0, 14][..], 2)
        );
        assert_eq!(whole.sizes[&7], 2);
        assert_eq!(whole.modelled_bytes, [0; 4]);
    }

    #[test]
    fn peers_are_translated_to_world_ranks() {
        let mut p = world(8, 5);
        // A communicator of the odd world ranks, in reverse: its rank 1 is world 5. Its
        // rank 4 is not a world rank (8 of 8).
        p.register(9, &[7, 5, 3, 1, 8], 1, false);
        assert!(p.knows(9) && !p.knows(10));
        p.send(9, 0, 10);
        p.send(9, 3, 20);
        p.send(9, 4, 30);
        p.send(9, 5, 30);
        assert!(
            !p.send(77, 0, 40),
            "an unknown communicator is described first"
        );
        let whole = p.phases[0].as_ref().unwrap();
        assert_eq!(whole.tx_bytes, [0, 20, 0, 0, 0, 0, 0, 10]);
        assert_eq!(whole.events, 4);
        assert_eq!(
            p.unattributed, 2,
            "a rank beyond the world, one beyond the group"
        );
        p.forget(9);
        assert!(!p.knows(9));
    }

    #[test]
    fn a_handle_freed_and_reused_names_its_new_communicator() {
        let mut p = world(4, 0);
        p.register(9, &[3, 2], 0, false);
        p.send(9, 1, 1);
        // MPI frees the communicator and later gives its handle to another one, after a
        // third took the freed slot.
        p.forget(9);
        p.register(10, &[1, 0], 0, false);
        p.register(9, &[0, 3], 0, false);
        p.send(9, 1, 100);
        p.send(10, 0, 1000);
        assert_eq!(p.phases[0].as_ref().unwrap().tx_bytes, [0, 1000, 1, 100]);
    }

    #[test]
    fn persistent_sends_count_at_each_start() {
        let mut p = world(2, 0);
        p.persistent(42, 1, 1, 64);
        p.start(42);
        p.start(42);
        p.start(43);
        p.free_request(42);
        p.start(42);
        assert_eq!(p.phases[0].as_ref().unwrap().tx_bytes, [0, 128]);
    }

    #[test]
    fn persistent_collectives_and_neighbour_sends_count_at_each_start() {
        // A persistent bcast of 1 KiB from world rank 0 over 8 ranks, binomial: rank 0
        // sends to 4, 2 and 1 at each start.
        let mut root = world(8, 0);
        root.persistent_collective(7, 1, CollectiveOp::Bcast, 0, true, CallData::Bytes(1024));
        let untouched = root.phases[0].clone();
        root.start(7);
        root.start(7);
        let w = root.phases[0].as_ref().unwrap();
        assert_eq!(w.tx_bytes, [0, 2048, 2048, 0, 2048, 0, 0, 0]);
        assert_eq!(w.collectives[CollectiveOp::Bcast as usize], (2, 2048));
        root.free_request(7);
        root.start(7);
        assert_eq!(root.phases[0].as_ref().unwrap().tx_bytes[4], 2048);
        assert_ne!(root.phases[0], untouched);
        // Per-rank data is kept too: an alltoallv from rank 1 of 3 sends its blocks.
        let mut one = world(3, 1);
        one.persistent_collective(
            9,
            1,
            CollectiveOp::Alltoallv,
            0,
            true,
            CallData::PerRank(&[5, 6, 7]),
        );
        one.start(9);
        assert_eq!(one.phases[0].as_ref().unwrap().tx_bytes, [5, 0, 7]);
        // A persistent neighbourhood collective: two sends per start; a request that
        // was a single send becomes the list.
        let mut n = world(4, 1);
        n.persistent(3, 1, 0, 999);
        n.persistent_add(3, 1, 0, 16);
        n.persistent_add(3, 1, 2, 32);
        n.start(3);
        n.start(3);
        let w = n.phases[0].as_ref().unwrap();
        assert_eq!(w.tx_bytes, [32, 0, 64, 0]);
        assert_eq!(w.tx_messages, [2, 0, 2, 0]);
        // A collective whose communicator was freed since: unattributed, not lost.
        n.persistent_collective(4, 5, CollectiveOp::Barrier, 0, true, CallData::None);
        n.start(4);
        assert_eq!(n.unattributed, 1);
        // So are the sends of a neighbourhood request on a communicator not described.
        n.persistent_add(6, 77, 0, 8);
        n.persistent_add(6, 77, 2, 8);
        n.start(6);
        assert_eq!(n.unattributed, 3);
        assert_eq!(n.phases[0].as_ref().unwrap().tx_bytes, [32, 0, 64, 0]);
    }

    #[test]
    fn collectives_are_calls_and_modelled_messages() {
        // Bcast of 1 KiB from world rank 0 over 8 ranks, binomial: rank 0 sends to 4,
        // 2 and 1; rank 4 to 6 and 5.
        let mut root = world(8, 0);
        root.collective(1, CollectiveOp::Bcast, 0, true, CallData::Bytes(1024));
        let w = root.phases[0].as_ref().unwrap();
        assert_eq!(w.tx_bytes, [0, 1024, 1024, 0, 1024, 0, 0, 0]);
        assert_eq!(w.modelled_messages, [0, 1, 1, 0, 1, 0, 0, 0]);
        assert_eq!(w.collectives[CollectiveOp::Bcast as usize], (1, 1024));
        let mut four = world(8, 4);
        four.collective(1, CollectiveOp::Bcast, 0, true, CallData::Bytes(1024));
        let w = four.phases[0].as_ref().unwrap();
        assert_eq!(w.tx_bytes, [0, 0, 0, 0, 0, 1024, 1024, 0]);
        // On a sub-communicator the messages go to its members' world ranks.
        let mut p = world(8, 6);
        p.register(3, &[6, 2], 0, false);
        p.collective(
            3,
            CollectiveOp::Alltoallv,
            0,
            true,
            CallData::PerRank(&[5, 9]),
        );
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(w.tx_bytes, [0, 0, 9, 0, 0, 0, 0, 0]);
        assert_eq!(w.collectives[CollectiveOp::Alltoallv as usize], (1, 14));
        // An intercommunicator's collective is a call without messages.
        p.register(4, &[0, 1], 0, true);
        p.collective(4, CollectiveOp::Bcast, 0, true, CallData::Bytes(8));
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(w.collectives[CollectiveOp::Bcast as usize], (1, 8));
        assert_eq!(w.tx_bytes.iter().sum::<u64>(), 9);
    }

    #[test]
    fn fetched_data_becomes_the_peers_sends() {
        let mut p = world(3, 0);
        p.pull(1, 2, 32);
        p.pull(1, 2, 8);
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(
            (w.pulled_bytes.as_slice(), w.pulled_messages.as_slice()),
            (&[0, 0, 40][..], &[0, 0, 2][..])
        );
        assert_eq!(w.tx_bytes, [0, 0, 0]);
        // Rank 1 fetched 16 bytes from this rank in two messages.
        p.add_served(0, &[(0, 0), (16, 2), (0, 0)]);
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(
            (w.tx_bytes.as_slice(), w.tx_messages.as_slice()),
            (&[0, 16, 0][..], &[0, 2, 0][..])
        );
    }

    #[test]
    fn fetches_starts_and_collectives_count_their_events_and_strays() {
        let mut p = world(4, 1);
        // A group whose rank 1 is no world rank (4 of 4).
        p.register(5, &[2, 4], 0, false);
        p.pull(1, 3, 8);
        p.pull(5, 1, 8);
        p.pull(1, 9, 8);
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(
            (w.events, w.pulled_bytes.as_slice()),
            (3, &[0, 0, 0, 8][..])
        );
        assert_eq!(p.unattributed, 2);
        // A persistent send whose communicator was freed since: counted as a stray.
        p.persistent(7, 5, 0, 16);
        p.persistent(8, 1, 0, 16);
        p.forget(5);
        p.start(7);
        assert_eq!(p.unattributed, 3);
        p.start(8);
        assert_eq!(p.unattributed, 3);
        assert_eq!(p.phases[0].as_ref().unwrap().tx_bytes, [16, 0, 0, 0]);
        // A broadcast from this rank over a group with a rank beyond the world: the
        // message to it is a stray, the call an event.
        p.register(6, &[1, 4, 0], 0, false);
        let before = p.phases[0].as_ref().unwrap().events;
        p.collective(6, CollectiveOp::Bcast, 0, true, CallData::Bytes(4));
        let w = p.phases[0].as_ref().unwrap();
        assert_eq!(w.events, before + 1);
        assert_eq!(
            w.modelled_bytes,
            [4, 0, 0, 0],
            "binomial on 3: 0 sends to 2, then to 1"
        );
        assert_eq!(p.unattributed, 4);
    }

    #[test]
    fn duration_runs_from_the_start() {
        let p = world(2, 0);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let d = p.duration();
        assert!((0.005..0.5).contains(&d), "{d}");
    }

    #[test]
    fn phases_agreed_by_the_ranks_are_made_up_to_the_highest() {
        let mut p = world(2, 0);
        p.ensure_phases(0);
        assert_eq!(p.phases.len(), 1);
        p.ensure_phases(0b101);
        assert_eq!(p.phases.len(), 3);
        assert_eq!(p.levels(), 0b101);
        assert!(p.phases[1].is_none() && p.phases[2].is_some());
    }

    #[test]
    fn large_levels_count_in_the_whole_run_only() {
        let mut p = world(2, 0);
        p.pcontrol(MAX_PHASE + 1);
        p.send(1, 1, 3);
        p.pcontrol(-4);
        p.send(1, 1, 3);
        p.pcontrol(MAX_PHASE);
        assert_eq!(p.phases.len(), MAX_PHASE as usize + 1);
        assert_eq!(p.phases[0].as_ref().unwrap().tx_bytes, [0, 6]);
        assert_eq!(p.levels(), 1 | 1 << 63);
        // Another rank used level 2: this one makes it, empty, and keeps the others.
        p.ensure_phases(1 | 1 << 2 | 1 << 63);
        assert_eq!(p.levels(), 1 | 1 << 2 | 1 << 63);
        assert_eq!(p.phases[2].as_ref().unwrap().tx_bytes, [0, 0]);
        assert!(p.phases[1].is_none());
    }
}
