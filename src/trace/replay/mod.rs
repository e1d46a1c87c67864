//! What limits an application: its trace replayed with logical clocks on many networks
//! at once, the run time of each split into computation, load imbalance, latency and
//! bandwidth, and a class named by a table of rules.
//!
//! The method is Tong, Pakin, Lang and Yuan's (IPDPS 2016): one pass over the trace
//! advances, for every configuration k = (α_k, B_k), a clock per rank.
//!
//! * **Computation** between calls is the trace's: the time from one call's return to
//!   the next call's entry, the same on every network ([`lower`]).
//! * **Point-to-point** messages take α + n/B (Hockney). A message up to the eager
//!   limit leaves at once: the sender goes on, the data arrives at its send time + α +
//!   n/B. A larger one, and every synchronous send, uses rendezvous: the transfer
//!   starts when both the send and its receive are posted, and both sides complete at
//!   its end. Receives match per (communicator, source, tag) in send order, with
//!   `MPI_ANY_SOURCE` and `MPI_ANY_TAG`. A wait on an eager send is free.
//! * Every clock carries the make-up of the path of calls and messages that set it (its
//!   critical path so far): the computation, latency and bandwidth along it. A message
//!   that arrives after the receiver's clock gives the receiver the path where the
//!   transfer started (the sender's, or the receiver's own post for a late rendezvous)
//!   plus α of latency and nβ of bandwidth.
//! * A **collective** synchronises its members at the latest arrival and takes the
//!   Hockney time of its algorithm ([`crate::trace::collective::cost`], MPICH's choice
//!   by size or the one forced): every member leaves with the latest member's path plus
//!   the operation's α part (latency) and β part (bandwidth), with n the largest any
//!   member records. `MPI_Win_fence` is a barrier; a put, get or accumulate costs its
//!   origin one message.
//! * At the end, per configuration, T is the latest rank's clock and its path splits
//!   it: latency, bandwidth, and the path's computation, of which the part beyond the
//!   ranks' mean computation is **load imbalance** (ranks waiting for a more loaded
//!   one, or for each other in turn) and the rest **computation**. The four add up to T.
//!
//! The rules of [`classify`] then name the class per configuration.
//!
//! **On a fabric** ([`replay_trace_on`]), every point-to-point message is routed from
//! its sender's host to its receiver's through the forwarding tables, and the messages
//! in flight at the same time share the links they cross, max-min fair ([`crate::flow`];
//! every link has the configuration's bandwidth). A message then takes α plus the time
//! its flow needs, at least nβ; the time beyond nβ is **contention**, a part of the
//! bandwidth time, and the rest is the **wire** time. Messages between ranks on one host
//! do not touch the fabric. A collective's messages, those of its algorithm as `orcs
//! trace matrix` lists them, all start when its latest member arrives and are routed
//! the same way; its members leave after its Hockney latency and, for its bandwidth
//! time, the Hockney nβ or, when later, the time its last message arrives, the excess
//! being contention. A one-sided transfer's data moves on the route between origin and
//! target (from the target for a get) while the origin waits. Each configuration is then its own discrete-event simulation:
//! the ranks advance in the order of their clocks (not of the trace's wall clock, which
//! on the traced machine says little about what overlaps on the replayed network), and
//! a completion is put off until every other rank has reached the time its messages
//! would end if nothing else started, and again while messages that start before then
//! move that end, so that every message that starts before the end shares the links
//! with them ([`engine::replay_routed`]). A wildcard receive then takes the message sent first in
//! the replayed time.

pub mod classify;
pub mod config;
pub mod engine;
pub mod event;
mod lower;
mod prefetch;

use crate::error::LocatedError;
use crate::flow::RankRoutes;
use crate::trace::collective::AlgorithmChoice;
use crate::trace::dumpi::{DumpiError, RankFile, Trace};
use classify::{Rules, Shares};
use config::Config;
use engine::{Clocks, Network};
use rayon::prelude::*;

/// What to replay on.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The networks.
    pub configs: Vec<Config>,
    /// Messages larger than this many bytes use rendezvous.
    pub eager_limit: u64,
    /// The collective algorithms.
    pub algorithms: AlgorithmChoice,
    /// The classification rules.
    pub rules: Rules,
}

impl Default for ReplayOptions {
    /// The default grid, a 64 KiB eager limit, MPICH's algorithms, the default rules.
    fn default() -> Self {
        ReplayOptions {
            configs: config::default_grid(),
            eager_limit: DEFAULT_EAGER_LIMIT,
            algorithms: AlgorithmChoice::automatic(),
            rules: Rules::default(),
        }
    }
}

/// The default eager limit, bytes: MPICH's and Open MPI's TCP default.
pub const DEFAULT_EAGER_LIMIT: u64 = 65536;

/// The replayed run on one configuration, in seconds; the four parts add up to `time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Predicted run time, T: the latest rank's clock.
    pub time: f64,
    /// The computation on T's path, up to the ranks' mean computation.
    pub computation: f64,
    /// The computation on T's path beyond the ranks' mean computation.
    pub imbalance: f64,
    /// The message latency on T's path.
    pub latency: f64,
    /// The time moving bytes on T's path (wire time and contention).
    pub bandwidth: f64,
    /// The part of `bandwidth` spent sharing links with other messages (0 unless
    /// replayed on a fabric).
    pub contention: f64,
    /// The index of the rule that named the class (None when none applies).
    pub rule: Option<usize>,
}

impl Outcome {
    /// The split as fractions of T (all 0 when T is 0).
    pub fn shares(&self) -> Shares {
        let t = self.time;
        let share = |x: f64| if t > 0.0 { x / t } else { 0.0 };
        Shares {
            computation: share(self.computation),
            imbalance: share(self.imbalance),
            latency: share(self.latency),
            bandwidth: share(self.bandwidth),
            contention: share(self.contention),
        }
    }

    /// The time moving bytes at full bandwidth on T's path: `bandwidth − contention`.
    pub fn wire(&self) -> f64 {
        self.bandwidth - self.contention
    }
}

/// What was replayed with care or left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayNotes {
    /// Messages (or collective calls) whose datatype size is unknown, counted as 0 bytes.
    pub unsized_messages: u64,
    /// Messages to or from `MPI_PROC_NULL`, which cost nothing.
    pub null_peer_messages: u64,
    /// Collective calls on intercommunicators, left out.
    pub intercomm_collectives: u64,
    /// Rendezvous sends completed as if buffered, because every rank was waiting (the
    /// original run did not deadlock, so its MPI buffered them).
    pub rendezvous_buffered: u64,
    /// Messages sent and never received.
    pub unreceived_messages: u64,
    /// Rendezvous messages taken by a receive whose post time was not kept: one smaller
    /// than the message (an MPI error the run went past), or a synchronous send where
    /// the footers count none. Their transfer starts at the match, not at the post.
    pub rendezvous_unposted: u64,
}

impl ReplayNotes {
    /// Each count the larger of the two (passes over the same trace).
    fn most(&mut self, o: &ReplayNotes) {
        self.unsized_messages = self.unsized_messages.max(o.unsized_messages);
        self.null_peer_messages = self.null_peer_messages.max(o.null_peer_messages);
        self.intercomm_collectives = self.intercomm_collectives.max(o.intercomm_collectives);
        self.rendezvous_buffered = self.rendezvous_buffered.max(o.rendezvous_buffered);
        self.unreceived_messages = self.unreceived_messages.max(o.unreceived_messages);
        self.rendezvous_unposted = self.rendezvous_unposted.max(o.rendezvous_unposted);
    }

    fn add(&mut self, o: &ReplayNotes) {
        self.unsized_messages += o.unsized_messages;
        self.null_peer_messages += o.null_peer_messages;
        self.intercomm_collectives += o.intercomm_collectives;
        self.rendezvous_buffered += o.rendezvous_buffered;
        self.unreceived_messages += o.unreceived_messages;
        self.rendezvous_unposted += o.rendezvous_unposted;
    }
}

/// A replay's results.
#[derive(Debug, Clone)]
pub struct Replay {
    /// World ranks.
    pub ranks: u32,
    /// The configurations, in the order of `outcomes`.
    pub configs: Vec<Config>,
    /// One per configuration.
    pub outcomes: Vec<Outcome>,
    /// The rules that named the classes.
    pub rules: Rules,
    /// The eager limit used, bytes.
    pub eager_limit: u64,
    /// What was replayed with care or left out.
    pub notes: ReplayNotes,
    /// The fabric the messages were routed on, None for the plain replay.
    pub fabric: Option<FabricUse>,
}

/// The fabric of a contention-aware replay and where the ranks ran, as the output
/// states them.
#[derive(Debug, Clone, PartialEq)]
pub struct FabricUse {
    /// The fabric's file.
    pub fabric: String,
    /// How the ranks were placed (`linear_bfs`, `rand, seed 7`, …).
    pub placement: String,
    /// Per rank, its host's name.
    pub hosts: Vec<String>,
}

/// A fabric to replay on: the routes between the ranks' hosts, and what the output says
/// of them.
pub struct OnFabric<'a> {
    /// Routes between the ranks' hosts (one host per rank).
    pub routes: RankRoutes<'a>,
    /// How it is described.
    pub about: FabricUse,
}

/// The outcomes of a range of a replay's configurations, and its notes: what a rank of
/// `mpirun` replays and sends to rank 0 ([`replay_trace_part`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayPart {
    /// One per configuration of the range, in order.
    pub outcomes: Vec<Outcome>,
    /// What was replayed with care or left out.
    pub notes: ReplayNotes,
}

impl ReplayPart {
    /// Joins the parts of consecutive ranges, given in order: the outcomes one after
    /// the other, and each note the largest any part counted, as the passes of one
    /// replay on a fabric join theirs (every part replays the same trace).
    pub fn join(parts: Vec<ReplayPart>) -> ReplayPart {
        let mut all = ReplayPart::default();
        for part in parts {
            all.outcomes.extend(part.outcomes);
            all.notes.most(&part.notes);
        }
        all
    }
}

impl Replay {
    /// The replay of a trace of `ranks` ranks on `options`, on `fabric` when given,
    /// from the part of all its configurations (`part.outcomes` has one outcome per
    /// configuration of `options`, in order).
    pub fn new(
        ranks: u32,
        options: &ReplayOptions,
        fabric: Option<&OnFabric>,
        part: ReplayPart,
    ) -> Replay {
        debug_assert_eq!(part.outcomes.len(), options.configs.len());
        Replay {
            ranks,
            configs: options.configs.clone(),
            outcomes: part.outcomes,
            rules: options.rules.clone(),
            eager_limit: options.eager_limit,
            notes: part.notes,
            fabric: fabric.map(|f| f.about.clone()),
        }
    }

    /// The class of configuration `k` (`unclassified` when no rule applies).
    pub fn class(&self, k: usize) -> &str {
        self.outcomes[k]
            .rule
            .map_or("unclassified", |r| self.rules.rules[r].class.as_str())
    }
}

/// Why a trace cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The trace cannot be read.
    #[error(transparent)]
    Dumpi(#[from] DumpiError),
    /// An input does not fit: file, line or byte, and what is wrong.
    #[error(transparent)]
    Input(#[from] LocatedError),
    /// The trace is a single rank file.
    #[error("'{path}' is one rank's file: a replay needs the whole trace, its .meta file")]
    NotWholeTrace {
        /// The file named.
        path: String,
    },
    /// A configuration given on the command line is wrong.
    #[error("{0}")]
    Config(String),
}

impl ReplayError {
    /// An error at byte `at` of `path`.
    pub fn at(path: &str, at: u64, message: impl Into<String>) -> Self {
        ReplayError::Input(LocatedError::at_byte(path, at, message))
    }
}

/// The network of `configs` with the rest of `options`, as the clocks take it.
fn network(configs: &[Config], options: &ReplayOptions) -> Network {
    Network {
        alpha: configs.iter().map(|c| c.latency).collect(),
        beta: configs.iter().map(Config::seconds_per_byte).collect(),
        eager_limit: options.eager_limit,
        algorithms: options.algorithms.clone(),
    }
}

/// Replays `trace` (opened from its `.meta`) on every configuration of `options`.
///
/// Two passes over the rank files: the communicators first (ranks in parallel), then
/// the replay, every rank file streamed once and decoded ahead in parallel
/// ([`prefetch`]) while the clocks advance on one thread. Memory O(ranks · configurations +
/// messages in flight · configurations).
pub fn replay_trace(trace: &Trace, options: &ReplayOptions) -> Result<Replay, ReplayError> {
    if options.configs.is_empty() {
        return Err(ReplayError::Config("no configuration to replay on".into()));
    }
    replay_files_on(&rank_files(trace)?, options, None, &|_| {})
}

/// Every rank file of `trace`, opened in parallel; an error for a single rank's file.
fn rank_files(trace: &Trace) -> Result<Vec<RankFile>, ReplayError> {
    if trace.meta.is_none() {
        return Err(ReplayError::NotWholeTrace {
            path: trace.ranks[0].display().to_string(),
        });
    }
    Ok((0..trace.ranks.len())
        .into_par_iter()
        .map(|k| trace.rank_file(k))
        .collect::<Result<_, _>>()?)
}

/// Replays `trace` as [`replay_trace`], with the messages routed on `fabric` and
/// sharing its links (see the module's documentation): one pass over the trace per
/// configuration, each a discrete-event simulation in the order of its clocks, after
/// which `progress` is called with 1. Time per message grows with the messages in
/// flight at once.
pub fn replay_trace_on(
    trace: &Trace,
    options: &ReplayOptions,
    fabric: &OnFabric,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Replay, ReplayError> {
    replay_files_on(&rank_files(trace)?, options, Some(fabric), progress)
}

/// Replays the rank files `files` (world rank = index) on every configuration of
/// `options`; see [`replay_trace`].
pub fn replay_files(files: &[RankFile], options: &ReplayOptions) -> Result<Replay, ReplayError> {
    replay_files_on(files, options, None, &|_| {})
}

/// Replays the rank files `files` (world rank = index) on every configuration of
/// `options`, on `fabric` when given; see [`replay_trace`] and [`replay_trace_on`].
/// `progress` is called with the configurations done as they are.
pub fn replay_files_on(
    files: &[RankFile],
    options: &ReplayOptions,
    fabric: Option<&OnFabric>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Replay, ReplayError> {
    let part = replay_files_part(files, options, fabric, 0..options.configs.len(), progress)?;
    Ok(Replay::new(files.len() as u32, options, fabric, part))
}

/// Replays `trace` on configurations `configs` of `options` alone, on `fabric` when
/// given, as the ranks of `mpirun` share a replay out: the parts of consecutive ranges
/// joined ([`ReplayPart::join`]) equal the part of their union, bit for bit, because
/// each configuration's clocks never depend on the others'. An empty range replays
/// nothing and reads no file. See [`replay_trace`] and [`replay_trace_on`].
pub fn replay_trace_part(
    trace: &Trace,
    options: &ReplayOptions,
    fabric: Option<&OnFabric>,
    configs: std::ops::Range<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ReplayPart, ReplayError> {
    if configs.is_empty() && !options.configs.is_empty() {
        return Ok(ReplayPart::default());
    }
    replay_files_part(&rank_files(trace)?, options, fabric, configs, progress)
}

/// [`replay_trace_part`] on the rank files `files` (world rank = index).
fn replay_files_part(
    files: &[RankFile],
    options: &ReplayOptions,
    fabric: Option<&OnFabric>,
    configs: std::ops::Range<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ReplayPart, ReplayError> {
    if options.configs.is_empty() {
        return Err(ReplayError::Config("no configuration to replay on".into()));
    }
    let Some(slice) = options.configs.get(configs.clone()) else {
        return Err(ReplayError::Config(format!(
            "configurations {}..{} asked of {}",
            configs.start,
            configs.end,
            options.configs.len()
        )));
    };
    if slice.is_empty() {
        return Ok(ReplayPart::default());
    }
    if let Some(f) = fabric {
        if f.routes.ranks() != files.len() {
            return Err(ReplayError::Config(format!(
                "the trace has {} ranks but {} are placed on the fabric",
                files.len(),
                f.routes.ranks()
            )));
        }
    }
    let size = files.len() as u32;
    let tables: Vec<_> = files
        .par_iter()
        .enumerate()
        .map(|(k, f)| lower::read_comms(f, k as u32, size))
        .collect::<Result<_, _>>()?;
    let communicators = crate::trace::comm::resolve(&tables)?;
    let members: Vec<Vec<u32>> = (0..communicators.len() as u32)
        .map(|g| communicators.members_of(g).to_vec())
        .collect();
    let network = network(slice, options);
    let pass = |network: &Network| -> Result<(Clocks, ReplayNotes), ReplayError> {
        let sources: Vec<lower::RankEvents> = files
            .iter()
            .enumerate()
            .map(|(k, f)| {
                lower::RankEvents::new(f, k as u32, size, &communicators)
                    .map(|events| events.keeping_collective_data(fabric.is_some()))
            })
            .collect::<Result<_, _>>()?;
        let (replayed, decoded) = prefetch::with_prefetch(
            sources,
            rayon::current_num_threads(),
            |sources| match fabric {
                Some(f) => engine::replay_routed(sources, &members, network, &f.routes),
                None => engine::replay(sources, &members, network),
            },
        );
        let (clocks, mut notes) = replayed?;
        notes.add(&decoded);
        Ok((clocks, notes))
    };
    let (clocks, notes) = match fabric {
        None => {
            let done = pass(&network)?;
            progress(network.alpha.len() as u64);
            done
        }
        // On a fabric the ranks advance in the order of one configuration's clocks, so
        // every configuration gets its own pass: exact sharing on each.
        Some(_) => {
            let mut parts = Vec::with_capacity(network.alpha.len());
            let mut notes = ReplayNotes::default();
            for k in 0..network.alpha.len() {
                let one = Network {
                    alpha: vec![network.alpha[k]],
                    beta: vec![network.beta[k]],
                    ..network.clone()
                };
                let (clocks, n) = pass(&one)?;
                notes.most(&n);
                parts.push(clocks);
                progress(1);
            }
            (Clocks::concat(&parts), notes)
        }
    };
    Ok(ReplayPart {
        outcomes: outcomes(&clocks, &options.rules),
        notes,
    })
}

/// The outcome of every configuration from the ranks' clocks: T is the latest clock
/// (the lowest such rank on ties), split as the path that set it.
pub fn outcomes(clocks: &Clocks, rules: &Rules) -> Vec<Outcome> {
    let ranks = clocks.ranks();
    let mean = clocks.computation.iter().sum::<f64>() / ranks.max(1) as f64;
    (0..clocks.configs)
        .map(|k| {
            let last = (0..ranks).fold(0, |best, r| {
                if clocks.clock(r)[k] > clocks.clock(best)[k] {
                    r
                } else {
                    best
                }
            });
            let (time, path_computation, latency, bandwidth, contention) = match ranks {
                0 => (0.0, 0.0, 0.0, 0.0, 0.0),
                _ => (
                    clocks.clock(last)[k],
                    clocks.path_computation(last)[k],
                    clocks.latency(last)[k],
                    clocks.bandwidth(last)[k],
                    clocks.contention(last)[k],
                ),
            };
            let imbalance = (path_computation - mean).max(0.0);
            let mut outcome = Outcome {
                time,
                computation: path_computation - imbalance,
                imbalance,
                latency,
                bandwidth,
                contention,
                rule: None,
            };
            outcome.rule = rules.classify(&outcome.shares());
            outcome
        })
        .collect()
}

#[cfg(test)]
mod tests;
