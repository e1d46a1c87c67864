//! Communication patterns: the rank-pair generators of ORCS (spec §5) with their exact level
//! structure and pair order, the `-p`/`-a` parsing rules (§5.9, §10.2, §10.3), the pattern
//! part of the header (§9.1) and the pattern notices (§5.5, §5.6, §11.9).
//!
//! A pattern maps a communicator size `n` and a level `L` to an ordered list of
//! (source rank, destination rank) pairs. One run of the simulation evaluates the levels
//! 0, 1, 2, ... and stops at the first empty level (§5.1); [`Pattern::generate`] produces
//! exactly that sequence into a reusable [`Levels`] buffer, so it never contains an empty
//! level.
//!
//! Guarantees for every pattern, argument and context:
//!
//! * no rank is `>= ctx.commsize` and no pair is a self pair;
//! * nothing panics (communicators with fewer than two ranks simply have no pairs);
//! * deterministic patterns ([`Pattern::is_random`] is false) never touch the random
//!   number generator.
//!
//! Deliberate differences from ORCS (spec §11) implemented here: `rand` is a uniformly
//! random derangement unless [`PatternContext::orcs_compat`] asks for the v2 sequential
//! algorithm (§11.4); the `ptrnvsptrn` level counter of the second pattern restarts in every
//! run (§11.3); an `-a` argument for a pattern that takes none is an error (§11.9).
//!
//! This module holds the [`Pattern`] itself, its context and what it tells the user
//! (header, notices); `parse` holds the names and arguments, `levels` the level
//! structure of a run and the reusable [`Levels`] buffer, `generators` the pairs of every
//! pattern's levels. Failures are the folder's [`WorkloadError`]s. May use: nothing else
//! of orcs (patterns are ranks only; hosts come in through
//! [`crate::workload::mapping`]).

mod generators;
mod levels;
mod parse;

pub use levels::Levels;
pub use parse::{PatternKind, RecvsArgs, MAX_ARG_LEN, MAX_PTRNVSPTRN_ARG_LEN};

use crate::workload::WorkloadError;

/// Options that change how patterns are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternContext {
    /// Communicator size n (`-s`); patterns use ranks `0..commsize`.
    pub commsize: u32,
    /// Size z of the first communicator of `ptrnvsptrn` (`-z`, default 2); the first
    /// pattern runs on ranks `0..z`, the second on `z..n`. Values above `commsize` are
    /// treated as `commsize`.
    pub part_commsize: u32,
    /// `--orcs-compat`: use ORCS v2's sequential `rand` algorithm (§5.3) instead of a
    /// uniformly random derangement.
    pub orcs_compat: bool,
}

/// The communicator size for `requested` ranks (0: all hosts, rounded down to even) on a
/// fabric of `hosts` hosts (spec §4.1).
pub(crate) fn communicator_size(hosts: usize, requested: u64) -> Result<usize, WorkloadError> {
    if hosts < 4 {
        return Err(WorkloadError::TooFewHosts(hosts));
    }
    match requested {
        0 => Ok(hosts - hosts % 2),
        s if (4..=hosts as u64).contains(&s) => Ok(s as usize),
        s => Err(WorkloadError::Commsize {
            requested: s,
            hosts,
        }),
    }
}

impl PatternContext {
    /// A context for communicator size `commsize` with the ORCS defaults
    /// (`part_commsize` 2, no compat mode).
    pub fn new(commsize: u32) -> Self {
        PatternContext {
            commsize,
            part_commsize: 2,
            orcs_compat: false,
        }
    }

    /// Sizes of the two communicators of `ptrnvsptrn`: (z, n − z), with z clamped to n.
    fn split(&self) -> (u32, u32) {
        let z = self.part_commsize.min(self.commsize);
        (z, self.commsize - z)
    }
}

/// A communication pattern with its arguments (§5).
///
/// Level structure on a communicator of n ranks (p = 2^floor(log2 n)); all patterns have
/// no pairs (and no levels) when n < 2:
///
/// | pattern | levels | pairs per level |
/// |---|---|---|
/// | `Null` | 0 | – |
/// | `Bisect`, `BisectFbSym` | 1 | floor(n/2), 2·floor(n/2) |
/// | `Rand` | 1 | n |
/// | `Tree` | ceil(log2 n) | level L: min(2^L, n − 2^L) |
/// | `Bruck` | ceil(log2 n) | n |
/// | `Recdbl` | log2 p (+1 if n ≠ p) | p; the extra level n − p |
/// | `Ring` | n | 1 |
/// | `Gather`, `Scatter` | 1 | n − 1 |
/// | `Neighbor`, `Neighbor2d` | 1 | 2 × links |
/// | `RecvsOneSrc`, `RecvsAllSrc` | 1 | see §5.6 |
/// | `PtrnVsPtrn` | §5.7 | first + second |
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// `null`: no pairs at any level.
    Null,
    /// `bisect`: level 0 = (2i+1 → 2i), i = 0..floor(n/2)−1. O(n).
    Bisect,
    /// `bisect_fb_sym`: level 0 = (2i → 2i+1), (2i+1 → 2i). O(n).
    BisectFbSym,
    /// `rand`: level 0 = (i → π(i)) for a random permutation π without fixed points.
    /// Default: uniform over derangements (rejection sampling, expected e ≈ 2.7 shuffles,
    /// O(n) expected); compat: ORCS v2's sequential draw (§5.3), O(n) expected.
    Rand,
    /// `tree`: level L = (i → i + 2^L) for i < 2^L, i + 2^L < n. O(pairs).
    Tree,
    /// `bruck`: level L = (i → (i + 2^L) mod n) for all i, while 2^L < n. O(n) per level.
    Bruck,
    /// `recdbl`: pairwise exchanges at distance 2^L among ranks < p, then (i → i + p).
    /// O(p) per level.
    Recdbl,
    /// `ring`: level L = (L → (L+1) mod n), L < n. O(1) per level.
    Ring,
    /// `gather`: (i → 0), i = 1..n−1. O(n).
    Gather,
    /// `scatter`: (0 → i), i = 1..n−1. O(n).
    Scatter,
    /// `neighbor -a k`: ORCS's greedy symmetric construction (§5.5) with k := min(k, n−1),
    /// giving cliques of k+1 ranks. O(n·k) time and memory.
    Neighbor {
        /// Requested number of neighbours per rank (≥ 1).
        k: u32,
    },
    /// `neighbor2d` (extension, §5.8): nearest existing rank W/E/N/S on a ceil(√n)-column
    /// torus, sorted, without duplicates and self pairs. O(n log n).
    Neighbor2d,
    /// `recvs_one_src -a R,...`: each receiver gets one sender (§5.6). O(n) (c1 = 1).
    RecvsOneSrc(RecvsArgs),
    /// `recvs_all_src -a R,...`: every non-receiver sends to a receiver (§5.6). O(n) (c1 = 1).
    RecvsAllSrc(RecvsArgs),
    /// `ptrnvsptrn -a p1::p2`: `first` on ranks 0..z−1, `second` on ranks z..n−1 (§5.7).
    /// A nested `PtrnVsPtrn` part (not constructible by [`Pattern::parse`]) has no pairs.
    PtrnVsPtrn {
        /// Pattern on the first communicator (size z = `part_commsize`).
        first: Box<Pattern>,
        /// Pattern on the second communicator (size n − z), ranks shifted by +z.
        second: Box<Pattern>,
    },
}

impl Default for Pattern {
    /// `bisect`, ORCS's default pattern.
    fn default() -> Self {
        Pattern::Bisect
    }
}

impl Pattern {
    /// Build from the v1 -f/-c form (ptrnvsptrn first/second pattern names without arguments).
    ///
    /// The parts are normally built with [`Pattern::parse`] from the `-f`/`-c` names. A part
    /// that is itself a `PtrnVsPtrn` generates no pairs; use
    /// [`Pattern::try_ptrnvsptrn`] to reject that case.
    pub fn ptrnvsptrn(first: Pattern, second: Pattern) -> Pattern {
        Pattern::PtrnVsPtrn {
            first: Box::new(first),
            second: Box::new(second),
        }
    }

    /// Like [`Pattern::ptrnvsptrn`], but rejects a `PtrnVsPtrn` part.
    pub fn try_ptrnvsptrn(first: Pattern, second: Pattern) -> Result<Pattern, WorkloadError> {
        if first.kind() == PatternKind::PtrnVsPtrn || second.kind() == PatternKind::PtrnVsPtrn {
            let p = Pattern::ptrnvsptrn(first, second);
            return Err(WorkloadError::NestedPtrnVsPtrn {
                arg: p.arg_string().unwrap_or_default(),
            });
        }
        Ok(Pattern::ptrnvsptrn(first, second))
    }

    /// The pattern's kind.
    pub fn kind(&self) -> PatternKind {
        match self {
            Pattern::Null => PatternKind::Null,
            Pattern::Bisect => PatternKind::Bisect,
            Pattern::BisectFbSym => PatternKind::BisectFbSym,
            Pattern::Rand => PatternKind::Rand,
            Pattern::Tree => PatternKind::Tree,
            Pattern::Bruck => PatternKind::Bruck,
            Pattern::Recdbl => PatternKind::Recdbl,
            Pattern::Ring => PatternKind::Ring,
            Pattern::Gather => PatternKind::Gather,
            Pattern::Scatter => PatternKind::Scatter,
            Pattern::Neighbor { .. } => PatternKind::Neighbor,
            Pattern::Neighbor2d => PatternKind::Neighbor2d,
            Pattern::RecvsOneSrc(_) => PatternKind::RecvsOneSrc,
            Pattern::RecvsAllSrc(_) => PatternKind::RecvsAllSrc,
            Pattern::PtrnVsPtrn { .. } => PatternKind::PtrnVsPtrn,
        }
    }

    /// The command-line name of the pattern's kind.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The `-a` argument in canonical form: `neighbor` → `k`; `recvs_*` → `R`, then `,c1`
    /// if c1 ≠ 1 or c2 ≠ 0, `,c2` if c2 ≠ 0, `,linear` in linear mode (numbers in Rust's
    /// shortest form, e.g. `0.5`); `ptrnvsptrn` → `p1[:arg1]::p2[:arg2]`. `None` for
    /// patterns without argument.
    pub(crate) fn arg_string(&self) -> Option<String> {
        match self {
            Pattern::Neighbor { k } => Some(k.to_string()),
            Pattern::RecvsOneSrc(a) | Pattern::RecvsAllSrc(a) => Some(a.arg_string()),
            Pattern::PtrnVsPtrn { first, second } => {
                let part = |p: &Pattern| match p.arg_string() {
                    Some(a) => format!("{}:{}", p.name(), a),
                    None => p.name().to_string(),
                };
                Some(format!("{}::{}", part(first), part(second)))
            }
            _ => None,
        }
    }

    /// Header text as ORCS prints it after `Pattern: ` (e.g. `bisect`, `neighbor,2`); the
    /// `ptrnvsptrn` lines of §9.1 come from [`Pattern::header_lines`].
    ///
    /// This is `name[,arg]` with the canonical argument of [`Pattern::arg_string`]; for
    /// `ptrnvsptrn` just `ptrnvsptrn` (the parts are on the lines of
    /// [`Pattern::header_lines`]).
    pub fn header(&self) -> String {
        match self {
            Pattern::PtrnVsPtrn { .. } => self.name().to_string(),
            _ => match self.arg_string() {
                Some(a) => format!("{},{}", self.name(), a),
                None => self.name().to_string(),
            },
        }
    }

    /// All header lines about the pattern (§9.1): `Pattern: <header>`, and for
    /// `ptrnvsptrn` also `    First Pattern: <p1>[,<arg1>]` and
    /// `   Second Pattern: <p2>[,<arg2>]`.
    pub fn header_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("Pattern: {}", self.header())];
        if let Pattern::PtrnVsPtrn { first, second } = self {
            lines.push(format!("    First Pattern: {}", first.header()));
            lines.push(format!("   Second Pattern: {}", second.header()));
        }
        lines
    }

    /// True if generation consumes randomness (rand; recvs_* in rand mode or c1 < 1;
    /// ptrnvsptrn if either part is random).
    pub(crate) fn is_random(&self) -> bool {
        match self {
            Pattern::Rand => true,
            Pattern::RecvsOneSrc(a) | Pattern::RecvsAllSrc(a) => !a.linear || a.c1 < 1.0,
            Pattern::PtrnVsPtrn { first, second } => first.is_random() || second.is_random(),
            _ => false,
        }
    }

    /// Warnings/notices to show the user once on stderr for this context (neighbor k
    /// correction, recvs receiver clipping with the effective R, etc.). Pure; no printing.
    ///
    /// One line per element, in ORCS's wording: `neighbor`'s
    /// `#*** correcting neighbor number to <k> (commsize: <n>)`; for `recvs_*` the INFO
    /// block of §5.6 and, when R > floor(n/2), the clipping warning with the effective R
    /// (which ORCS never shows). For `ptrnvsptrn` the notices of both parts on their own
    /// communicator sizes.
    pub fn notices(&self, ctx: &PatternContext) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                first.notices_on(z, &mut out);
                second.notices_on(m, &mut out);
            }
            _ => self.notices_on(ctx.commsize, &mut out),
        }
        out
    }

    fn notices_on(&self, n: u32, out: &mut Vec<String>) {
        match self {
            Pattern::Neighbor { k } => {
                let max = n.saturating_sub(1);
                if *k > max {
                    out.push(format!(
                        "#*** correcting neighbor number to {max} (commsize: {n})"
                    ));
                }
            }
            Pattern::RecvsOneSrc(a) | Pattern::RecvsAllSrc(a) => {
                out.push(format!(
                    "#*** INFO:                     Chance to send to a receiver: {:.2}%",
                    a.c1 * 100.0
                ));
                out.push(format!(
                    "#***       Chance to stay idle if not sending to a receiver: {:.2}%",
                    a.c2 * 100.0
                ));
                out.push(format!(
                    "#***                                    Number of receivers: {}     ",
                    a.receivers
                ));
                out.push(format!(
                    "#***                                   Sender-choosing mode: {}     ",
                    if a.linear { "linear" } else { "rand" }
                ));
                if a.receivers > n / 2 {
                    out.push("#*** WARN: cannot have more than commsize/2 receivers.".to_string());
                    out.push(format!(
                        "     Correcting number of receivers to {} (commsize: {n})",
                        a.effective_receivers(n)
                    ));
                }
                if a.c1 <= 0.0 && a.c2 >= 1.0 {
                    out.push(
                        "#*** WARN: with c1 = 0 and c2 = 1 every sender stays idle; the pattern has no traffic."
                            .to_string(),
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    pub(super) fn rng(seed: u64) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(seed)
    }

    pub(super) fn ctx(n: u32) -> PatternContext {
        PatternContext::new(n)
    }

    #[test]
    fn all_hosts_round_down_to_even_and_sizes_stay_within_the_fabric() {
        // Size 0 takes every host, one fewer when their number is odd (spec §4.1).
        assert_eq!(communicator_size(8, 0).unwrap(), 8);
        assert_eq!(communicator_size(7, 0).unwrap(), 6);
        assert_eq!(communicator_size(5, 0).unwrap(), 4);
        assert_eq!(communicator_size(7, 4).unwrap(), 4);
        assert_eq!(communicator_size(7, 7).unwrap(), 7);
        assert!(matches!(
            communicator_size(7, 8),
            Err(WorkloadError::Commsize {
                requested: 8,
                hosts: 7
            })
        ));
        assert!(matches!(
            communicator_size(7, 3),
            Err(WorkloadError::Commsize { requested: 3, .. })
        ));
        assert!(matches!(
            communicator_size(3, 0),
            Err(WorkloadError::TooFewHosts(3))
        ));
    }

    pub(super) fn ctx_z(n: u32, z: u32) -> PatternContext {
        PatternContext {
            commsize: n,
            part_commsize: z,
            orcs_compat: false,
        }
    }

    pub(super) fn gen(p: &Pattern, c: &PatternContext) -> Levels {
        let mut out = Levels::new();
        p.generate(c, &mut rng(1), &mut out);
        out
    }

    /// Renders levels as "1>0 3>2 | 0>2 ...".
    pub(super) fn render(levels: &Levels) -> String {
        levels
            .iter()
            .map(|l| {
                l.iter()
                    .map(|(a, b)| format!("{a}>{b}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    pub(super) fn p(name: &str, arg: Option<&str>) -> Pattern {
        Pattern::parse(name, arg).unwrap()
    }

    pub(super) fn show(name: &str, arg: Option<&str>, n: u32) -> String {
        render(&gen(&p(name, arg), &ctx(n)))
    }

    pub(super) fn show_pvp(arg: &str, n: u32, z: u32) -> String {
        render(&gen(&p("ptrnvsptrn", Some(arg)), &ctx_z(n, z)))
    }

    pub(super) fn all_simple_patterns() -> Vec<Pattern> {
        let recvs = |linear, c1, c2| RecvsArgs {
            receivers: 3,
            c1,
            c2,
            linear,
        };
        vec![
            Pattern::Null,
            Pattern::Bisect,
            Pattern::BisectFbSym,
            Pattern::Rand,
            Pattern::Tree,
            Pattern::Bruck,
            Pattern::Recdbl,
            Pattern::Ring,
            Pattern::Gather,
            Pattern::Scatter,
            Pattern::Neighbor { k: 1 },
            Pattern::Neighbor { k: 3 },
            Pattern::Neighbor { k: 100 },
            Pattern::Neighbor2d,
            Pattern::RecvsOneSrc(recvs(true, 1.0, 0.0)),
            Pattern::RecvsAllSrc(recvs(true, 1.0, 0.0)),
            Pattern::RecvsOneSrc(recvs(false, 0.5, 0.0)),
            Pattern::RecvsAllSrc(recvs(false, 0.3, 0.0)),
        ]
    }

    pub(super) fn render_level(l: &[(u32, u32)]) -> String {
        l.iter()
            .map(|(a, b)| format!("{a}>{b}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub(super) fn chance() -> impl Strategy<Value = f64> {
        prop_oneof![Just(1.0), Just(0.0), 0.0f64..=1.0]
    }

    pub(super) fn recvs_args() -> impl Strategy<Value = RecvsArgs> {
        (
            1u32..150,
            chance(),
            prop_oneof![Just(0.0), 0.0f64..=1.0],
            any::<bool>(),
        )
            .prop_map(|(receivers, c1, c2, linear)| RecvsArgs {
                receivers,
                c1,
                c2,
                linear,
            })
    }

    pub(super) fn simple_pattern() -> impl Strategy<Value = Pattern> {
        prop_oneof![
            Just(Pattern::Null),
            Just(Pattern::Bisect),
            Just(Pattern::BisectFbSym),
            Just(Pattern::Rand),
            Just(Pattern::Tree),
            Just(Pattern::Bruck),
            Just(Pattern::Recdbl),
            Just(Pattern::Ring),
            Just(Pattern::Gather),
            Just(Pattern::Scatter),
            (1u32..20).prop_map(|k| Pattern::Neighbor { k }),
            Just(Pattern::Neighbor2d),
            recvs_args().prop_map(Pattern::RecvsOneSrc),
            recvs_args().prop_map(Pattern::RecvsAllSrc),
        ]
    }

    pub(super) fn any_pattern() -> impl Strategy<Value = Pattern> {
        prop_oneof![
            3 => simple_pattern(),
            1 => (simple_pattern(), simple_pattern()).prop_map(|(a, b)| Pattern::ptrnvsptrn(a, b)),
        ]
    }

    #[test]
    fn recvs_notices() {
        let pat = p("recvs_one_src", Some("6,linear"));
        let notes = pat.notices(&ctx(10));
        assert_eq!(
            notes,
            vec![
                "#*** INFO:                     Chance to send to a receiver: 100.00%",
                "#***       Chance to stay idle if not sending to a receiver: 0.00%",
                "#***                                    Number of receivers: 6     ",
                "#***                                   Sender-choosing mode: linear     ",
                "#*** WARN: cannot have more than commsize/2 receivers.",
                "     Correcting number of receivers to 5 (commsize: 10)",
            ]
        );
        let notes = p("recvs_all_src", Some("3,0.25,0.5")).notices(&ctx(10));
        assert_eq!(notes.len(), 4);
        assert!(notes[0].ends_with(": 25.00%"));
        assert!(notes[1].ends_with(": 50.00%"));
        assert!(notes[3].ends_with(": rand     "));
        assert!(p("recvs_all_src", Some("3,0,1")).notices(&ctx(10))[4].contains("no traffic"));
        // Exactly commsize/2 receivers is allowed: the INFO block alone.
        assert_eq!(
            p("recvs_one_src", Some("5,linear")).notices(&ctx(10)).len(),
            4
        );
        // Only c1 = 0 together with c2 = 1 silences every sender.
        assert_eq!(
            p("recvs_all_src", Some("3,0,0.5")).notices(&ctx(10)).len(),
            4
        );
        assert_eq!(
            p("recvs_all_src", Some("3,0.5,1")).notices(&ctx(10)).len(),
            4
        );
    }

    #[test]
    fn header_lines_9_1() {
        assert_eq!(p("bisect", None).header_lines(), vec!["Pattern: bisect"]);
        assert_eq!(p("neighbor", Some("2")).header(), "neighbor,2");
        assert_eq!(
            p("4neighbor", None).header_lines(),
            vec!["Pattern: neighbor,4"]
        );
        assert_eq!(
            p("recvs_all_src", Some("4,linear")).header(),
            "recvs_all_src,4,linear"
        );
        assert_eq!(p("recvs_all_src", Some("4")).header(), "recvs_all_src,4");
        assert_eq!(
            p("recvs_one_src", Some("4,0.5,linear")).header(),
            "recvs_one_src,4,0.5,linear"
        );
        assert_eq!(
            p("recvs_one_src", Some("4,1,0.25")).header(),
            "recvs_one_src,4,1,0.25"
        );
        assert_eq!(
            p("ptrnvsptrn", Some("neighbor:2::recvs_all_src:2,linear")).header_lines(),
            vec![
                "Pattern: ptrnvsptrn",
                "    First Pattern: neighbor,2",
                "   Second Pattern: recvs_all_src,2,linear",
            ]
        );
        assert_eq!(
            Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Bruck).header_lines(),
            vec![
                "Pattern: ptrnvsptrn",
                "    First Pattern: bisect",
                "   Second Pattern: bruck"
            ]
        );
        assert_eq!(
            p("ptrnvsptrn", Some("neighbor:2::recvs_all_src:2,linear"))
                .arg_string()
                .unwrap(),
            "neighbor:2::recvs_all_src:2,linear"
        );
        assert_eq!(Pattern::default(), Pattern::Bisect);
    }

    #[test]
    fn ptrnvsptrn_notices_use_part_sizes() {
        let pat = p("ptrnvsptrn", Some("neighbor:9::neighbor:9"));
        assert_eq!(
            pat.notices(&ctx_z(12, 4)),
            vec![
                "#*** correcting neighbor number to 3 (commsize: 4)",
                "#*** correcting neighbor number to 7 (commsize: 8)",
            ]
        );
        assert!(p("bisect", None).notices(&ctx(10)).is_empty());
    }
}
