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

use std::fmt;

use rand::Rng;

/// Maximum length of a pattern argument accepted by ORCS (`MAX_ARG_SIZE`, §5.9).
pub const MAX_ARG_LEN: usize = 256;
/// Maximum length of a `ptrnvsptrn` argument accepted by ORCS (§5.9).
pub const MAX_PTRNVSPTRN_ARG_LEN: usize = 1025;

/// Largest integer ORCS's `strtoi` accepts for `neighbor` and the receiver count
/// (it rejects `INT_MAX` and everything above).
const MAX_INT_ARG: u64 = i32::MAX as u64 - 1;

// ---------------------------------------------------------------------------------------
// Levels
// ---------------------------------------------------------------------------------------

/// Flat list of levels: level i is `pairs[offsets[i]..offsets[i+1]]`; pairs are
/// (source rank, destination rank).
///
/// The buffer is meant to be reused: [`Levels::clear`] keeps the capacity of both vectors,
/// so generating a pattern again into the same `Levels` does not allocate once the buffer
/// has grown to the pattern's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    /// All pairs of all levels, level after level.
    pub pairs: Vec<(u32, u32)>,
    /// Level boundaries: starts with 0; `len = levels + 1`; level i is
    /// `pairs[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<usize>,
}

impl Default for Levels {
    /// The empty list of levels (`offsets == [0]`), same as [`Levels::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl Levels {
    /// An empty list of levels (`pairs` empty, `offsets == [0]`).
    pub fn new() -> Self {
        Levels {
            pairs: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Removes all levels and pairs, keeping the allocated capacity.
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    /// Number of (closed) levels.
    pub fn num_levels(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The pairs of level `i`; an empty slice if there is no level `i`.
    pub fn level(&self, i: usize) -> &[(u32, u32)] {
        match (self.offsets.get(i), self.offsets.get(i.wrapping_add(1))) {
            (Some(&a), Some(&b)) if i != usize::MAX => self.pairs.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Total number of pairs over all levels (including pairs of a level not yet closed
    /// with [`Levels::end_level`]).
    pub fn num_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// Iterates over the levels in order.
    pub fn iter(&self) -> impl Iterator<Item = &[(u32, u32)]> + '_ {
        (0..self.num_levels()).map(move |i| self.level(i))
    }

    /// Appends one pair to the level under construction (close it with [`Levels::end_level`]).
    pub fn push_pair(&mut self, src: u32, dst: u32) {
        self.pairs.push((src, dst));
    }

    /// Closes the level under construction: every pair pushed since the previous level
    /// ends becomes one new level (possibly empty).
    pub fn end_level(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.offsets.push(self.pairs.len());
    }

    /// Appends a complete level made of `pairs`.
    pub fn push_level(&mut self, pairs: &[(u32, u32)]) {
        self.pairs.extend_from_slice(pairs);
        self.end_level();
    }

    /// Index in `pairs` where the level under construction starts.
    fn open_start(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }
}

// ---------------------------------------------------------------------------------------
// Context, kinds, arguments, errors
// ---------------------------------------------------------------------------------------

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

/// Why a communicator size does not fit a fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// The fabric has fewer than four hosts.
    #[error("the fabric has {0} hosts (nodes whose name starts with `H`); the simulator needs at least four")]
    TooFewHosts(usize),
    /// The requested size is below 4 or above the host count.
    #[error("commsize must be between 4 and {hosts} (the hosts of the fabric), got {requested}")]
    Commsize {
        /// The size asked for.
        requested: u64,
        /// The fabric's hosts.
        hosts: usize,
    },
}

/// The communicator size for `requested` ranks (0: all hosts, rounded down to even) on a
/// fabric of `hosts` hosts (spec §4.1).
pub fn communicator_size(hosts: usize, requested: u64) -> Result<usize, SizeError> {
    if hosts < 4 {
        return Err(SizeError::TooFewHosts(hosts));
    }
    match requested {
        0 => Ok(hosts - hosts % 2),
        s if (4..=hosts as u64).contains(&s) => Ok(s as usize),
        s => Err(SizeError::Commsize {
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

/// Arguments of `recvs_one_src` and `recvs_all_src` (`-a R[,c1[,c2]][,rand|linear]`, §5.6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecvsArgs {
    /// Number of receivers R as given (≥ 1); generation uses min(R, floor(n/2)).
    pub receivers: u32,
    /// Chance (0..1, default 1.0) that a sender sends to its designated receiver.
    pub c1: f64,
    /// Chance (0..1, default 0.0) that a diverted sender stays idle.
    pub c2: f64,
    /// Sender-choosing mode: `true` = `linear` (ascending ranks), `false` = `rand` (default).
    pub linear: bool,
}

impl RecvsArgs {
    /// The receiver count actually used on a communicator of `n` ranks: min(R, floor(n/2)).
    pub fn effective_receivers(&self, n: u32) -> u32 {
        self.receivers.min(n / 2)
    }

    /// Parses `R[,c1[,c2]][,rand|linear]` (ORCS's regular expression
    /// `^([[:digit:]]+)(,([-+]?[0-9]*\.?[0-9]+))?(,([-+]?[0-9]*\.?[0-9]+))?(,(rand|linear))?$`,
    /// then 1 ≤ R < 2^31 − 1 and 0 ≤ c1, c2 ≤ 1). `pattern` names the pattern in errors.
    fn parse(arg: &str, pattern: &'static str) -> Result<RecvsArgs, PatternError> {
        let bad = || PatternError::InvalidArgument {
            pattern,
            requirement: RECVS_REQUIREMENT,
            arg: arg.to_string(),
        };
        let mut parts = arg.split(',');
        let receivers = parts
            .next()
            .and_then(parse_int_arg)
            .filter(|&r| r >= 1)
            .ok_or_else(bad)?;
        let rest: Vec<&str> = parts.collect();
        let mut chances: Vec<f64> = Vec::with_capacity(2);
        let mut linear = false;
        for (idx, part) in rest.iter().enumerate() {
            if *part == "rand" || *part == "linear" {
                if idx + 1 != rest.len() {
                    return Err(bad());
                }
                linear = *part == "linear";
            } else {
                if chances.len() == 2 || !is_orcs_float(part) {
                    return Err(bad());
                }
                let value: f64 = part.parse().map_err(|_| bad())?;
                if !(0.0..=1.0).contains(&value) {
                    return Err(bad());
                }
                chances.push(value);
            }
        }
        Ok(RecvsArgs {
            receivers,
            c1: chances.first().copied().unwrap_or(1.0),
            c2: chances.get(1).copied().unwrap_or(0.0),
            linear,
        })
    }

    /// Canonical argument text: `R`, then `,c1` when c1 ≠ 1 or c2 ≠ 0, `,c2` when c2 ≠ 0,
    /// and `,linear` in linear mode (the default `rand` is not written).
    fn arg_string(&self) -> String {
        let mut s = self.receivers.to_string();
        if self.c1 != 1.0 || self.c2 != 0.0 {
            s.push_str(&format!(",{}", self.c1));
        }
        if self.c2 != 0.0 {
            s.push_str(&format!(",{}", self.c2));
        }
        if self.linear {
            s.push_str(",linear");
        }
        s
    }
}

/// The pattern kinds, i.e. the values of `-p/--ptrn` (plus the `neighbor2d` extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternKind {
    /// `null`: no pairs.
    Null,
    /// `bisect` (the default): (2i+1 → 2i).
    Bisect,
    /// `bisect_fb_sym`: (2i → 2i+1), (2i+1 → 2i).
    BisectFbSym,
    /// `rand`: a random permutation without fixed points.
    Rand,
    /// `tree`: binomial broadcast from rank 0.
    Tree,
    /// `bruck`: (i → i + 2^L mod n).
    Bruck,
    /// `recdbl`: recursive doubling.
    Recdbl,
    /// `ring`: one pair (L → L+1 mod n) per level.
    Ring,
    /// `gather`: (i → 0).
    Gather,
    /// `scatter`: (0 → i).
    Scatter,
    /// `neighbor`: greedy k-neighbour cliques (needs `-a k`).
    Neighbor,
    /// `neighbor2d`: 2-D torus nearest neighbours (`orcs` extension, not selectable in ORCS).
    Neighbor2d,
    /// `recvs_one_src`: one sender per receiver (needs `-a`).
    RecvsOneSrc,
    /// `recvs_all_src`: all non-receivers send to the receivers (needs `-a`).
    RecvsAllSrc,
    /// `ptrnvsptrn`: two patterns on two disjoint communicators (needs `-a`).
    PtrnVsPtrn,
}

/// The v1 pattern names that stand for `neighbor` with an implied k (§10.3).
const V1_ALIASES: [(&str, u32); 3] = [("2neighbor", 2), ("4neighbor", 4), ("6neighbor", 6)];

impl PatternKind {
    /// All kinds, in the order of ORCS's `-p` value list (`neighbor2d` after `neighbor`).
    pub const ALL: &'static [PatternKind] = &[
        PatternKind::Rand,
        PatternKind::Null,
        PatternKind::Bisect,
        PatternKind::BisectFbSym,
        PatternKind::Tree,
        PatternKind::Bruck,
        PatternKind::Gather,
        PatternKind::Scatter,
        PatternKind::Ring,
        PatternKind::Recdbl,
        PatternKind::Neighbor,
        PatternKind::Neighbor2d,
        PatternKind::RecvsOneSrc,
        PatternKind::RecvsAllSrc,
        PatternKind::PtrnVsPtrn,
    ];

    /// The command-line name (`-p` value).
    pub fn name(self) -> &'static str {
        match self {
            PatternKind::Null => "null",
            PatternKind::Bisect => "bisect",
            PatternKind::BisectFbSym => "bisect_fb_sym",
            PatternKind::Rand => "rand",
            PatternKind::Tree => "tree",
            PatternKind::Bruck => "bruck",
            PatternKind::Recdbl => "recdbl",
            PatternKind::Ring => "ring",
            PatternKind::Gather => "gather",
            PatternKind::Scatter => "scatter",
            PatternKind::Neighbor => "neighbor",
            PatternKind::Neighbor2d => "neighbor2d",
            PatternKind::RecvsOneSrc => "recvs_one_src",
            PatternKind::RecvsAllSrc => "recvs_all_src",
            PatternKind::PtrnVsPtrn => "ptrnvsptrn",
        }
    }

    /// True for the kinds that require an `-a/--ptrnarg` argument (neighbor, recvs_*,
    /// ptrnvsptrn).
    pub fn takes_arg(self) -> bool {
        matches!(
            self,
            PatternKind::Neighbor
                | PatternKind::RecvsOneSrc
                | PatternKind::RecvsAllSrc
                | PatternKind::PtrnVsPtrn
        )
    }

    /// True for kinds that ORCS does not offer on its command line (`neighbor2d`).
    /// They are matched by their exact name only, never as an abbreviation, so every
    /// abbreviation ORCS accepts keeps its ORCS meaning.
    pub fn is_extension(self) -> bool {
        self == PatternKind::Neighbor2d
    }

    /// The usage text printed for `-a help` (after `Usage: `) and after `ERROR: ` for a
    /// missing argument. Empty for the patterns without help text, as in ORCS.
    pub fn usage(self) -> &'static str {
        match self {
            PatternKind::Neighbor => NEIGHBOR_USAGE,
            PatternKind::RecvsOneSrc => RECVS_ONE_SRC_USAGE,
            PatternKind::RecvsAllSrc => RECVS_ALL_SRC_USAGE,
            PatternKind::PtrnVsPtrn => PTRNVSPTRN_USAGE,
            _ => "",
        }
    }

    /// Resolves a `-p` value: an exact name, a v1 alias (`2neighbor`, `4neighbor`,
    /// `6neighbor` → `Neighbor` with the implied k in the second element), or an
    /// unambiguous prefix of an ORCS name (`bisect_` → `bisect_fb_sym`). An exact name wins
    /// over being a prefix of another (`bisect`); an ambiguous prefix (`bis`) is an error
    /// listing the candidates. Extension names (`neighbor2d`) are matched by prefix only
    /// when no ORCS name matches.
    pub fn parse_name(s: &str) -> Result<(PatternKind, Option<u32>), PatternError> {
        if let Some(kind) = Self::ALL.iter().copied().find(|k| k.name() == s) {
            return Ok((kind, None));
        }
        if let Some(&(_, k)) = V1_ALIASES.iter().find(|(name, _)| *name == s) {
            return Ok((PatternKind::Neighbor, Some(k)));
        }
        if !s.is_empty() {
            // Candidates among ORCS's names first, then among the extensions.
            for extensions in [false, true] {
                let mut candidates: Vec<(&'static str, PatternKind, Option<u32>)> = Self::ALL
                    .iter()
                    .filter(|k| k.is_extension() == extensions && k.name().starts_with(s))
                    .map(|&k| (k.name(), k, None))
                    .collect();
                if !extensions {
                    candidates.extend(
                        V1_ALIASES
                            .iter()
                            .filter(|(name, _)| name.starts_with(s))
                            .map(|&(name, k)| (name, PatternKind::Neighbor, Some(k))),
                    );
                }
                match candidates.len() {
                    0 => continue,
                    1 => return Ok((candidates[0].1, candidates[0].2)),
                    _ => {
                        return Err(PatternError::AmbiguousPattern {
                            name: s.to_string(),
                            candidates: candidates.iter().map(|c| c.0).collect(),
                        })
                    }
                }
            }
        }
        Err(PatternError::UnknownPattern {
            name: s.to_string(),
            available: available_names(false),
        })
    }
}

impl fmt::Display for PatternKind {
    /// Writes the command-line name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The pattern names, comma separated (without `ptrnvsptrn` when `for_ptrnvsptrn`).
fn available_names(for_ptrnvsptrn: bool) -> String {
    PatternKind::ALL
        .iter()
        .filter(|k| !(for_ptrnvsptrn && **k == PatternKind::PtrnVsPtrn))
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

const NEIGHBOR_USAGE: &str =
    "Pattern 'neighbor' requires an integer ptrnarg that is greater than 0.";
const RECVS_ONE_SRC_USAGE: &str = "Pattern 'recvs_one_src' requires a ptrnarg of the form \
R[,c1[,c2]][,rand|linear]
       R            number of receivers (ranks 0..R-1), an integer greater than 0;
                    at most commsize/2 receivers are used
       c1           chance (0.0 to 1.0, default 1.0) that a sender sends to its receiver
       c2           chance (0.0 to 1.0, default 0.0) that a sender that does not send to a
                    receiver stays idle (otherwise it sends to a random non-receiver)
       rand|linear  senders are picked at random (default) or in ascending rank order
       Each receiver gets only one sender; the remaining senders stay idle.";
const RECVS_ALL_SRC_USAGE: &str = "Pattern 'recvs_all_src' requires a ptrnarg of the form \
R[,c1[,c2]][,rand|linear]
       R            number of receivers (ranks 0..R-1), an integer greater than 0;
                    at most commsize/2 receivers are used
       c1           chance (0.0 to 1.0, default 1.0) that a sender sends to its receiver
       c2           chance (0.0 to 1.0, default 0.0) that a sender that does not send to a
                    receiver stays idle (otherwise it sends to a random non-receiver)
       rand|linear  senders are picked at random (default) or in ascending rank order
       All non-receivers send; the i-th picked sender sends to receiver i mod R.";
const PTRNVSPTRN_USAGE: &str = "Pattern 'ptrnvsptrn' requires a ptrnarg of the form \
p1[:arg1]::p2[:arg2]
       p1 runs on ranks 0..z-1 (z = -z/--part_commsize), p2 on the ranks z..n-1.
       arg1 and arg2 are given only for patterns that need an argument,
       e.g. neighbor:2::recvs_all_src:2,linear. Any pattern except ptrnvsptrn can be used.";

const NEIGHBOR_REQUIREMENT: &str = "an integer argument greater than 0";
const NEIGHBOR_RANGE_REQUIREMENT: &str = "an integer argument between 1 and 2147483646";
const RECVS_REQUIREMENT: &str = "an argument of the form R[,c1[,c2]][,rand|linear] with an \
integer R between 1 and 2147483646 and chances c1, c2 between 0 and 1";
const PTRNVSPTRN_REQUIREMENT: &str = "an argument of the form p1[:arg1]::p2[:arg2] \
(pattern names and arguments without blanks or colons)";

/// Errors of pattern names and pattern arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The name is neither a pattern, an alias nor a prefix of one.
    #[error("unknown pattern '{name}' (available patterns: {available})")]
    UnknownPattern {
        /// The name as given.
        name: String,
        /// The available pattern names, comma separated.
        available: String,
    },
    /// The name is a prefix of several patterns.
    #[error("ambiguous pattern name '{name}': could be {}", .candidates.join(", "))]
    AmbiguousPattern {
        /// The name as given.
        name: String,
        /// The patterns it abbreviates.
        candidates: Vec<&'static str>,
    },
    /// A pattern that needs an argument got none.
    #[error("pattern '{pattern}' requires an argument (-a/--ptrnarg)\n{usage}")]
    MissingArgument {
        /// The pattern name.
        pattern: &'static str,
        /// The pattern's usage text.
        usage: &'static str,
    },
    /// An argument was given to a pattern that takes none (ORCS ignores it; `orcs` rejects it).
    #[error("pattern '{pattern}' takes no argument (-a/--ptrnarg), got '{arg}'")]
    UnexpectedArgument {
        /// The pattern name as given (e.g. `bisect` or the alias `2neighbor`).
        pattern: String,
        /// The argument.
        arg: String,
    },
    /// The argument does not have the form the pattern requires.
    #[error("pattern '{pattern}' requires {requirement} (-a/--ptrnarg), got '{arg}'")]
    InvalidArgument {
        /// The pattern name.
        pattern: &'static str,
        /// What the pattern requires.
        requirement: &'static str,
        /// The argument as given.
        arg: String,
    },
    /// The argument is longer than ORCS accepts.
    #[error(
        "the argument of pattern '{pattern}' has {len} characters; at most {max} are accepted"
    )]
    ArgumentTooLong {
        /// The pattern name.
        pattern: &'static str,
        /// Length of the argument in bytes.
        len: usize,
        /// The maximum length.
        max: usize,
    },
    /// `ptrnvsptrn` was used as one of the two patterns of `ptrnvsptrn`.
    #[error("ptrnvsptrn cannot contain another ptrnvsptrn (argument '{arg}')")]
    NestedPtrnVsPtrn {
        /// The `ptrnvsptrn` argument.
        arg: String,
    },
    /// One or both pattern names of a `ptrnvsptrn` argument are unknown.
    #[error(
        "unknown pattern{} in the ptrnvsptrn argument '{arg}': {} (available patterns: {available})",
        if .names.len() > 1 { "s" } else { "" },
        .names.join(", ")
    )]
    UnknownSubPattern {
        /// The `ptrnvsptrn` argument.
        arg: String,
        /// The unknown names.
        names: Vec<String>,
        /// The names usable in `ptrnvsptrn`, comma separated.
        available: String,
    },
    /// `-a help`: not a failure; the caller prints `Usage: <usage>` and exits with status 0.
    #[error("Usage: {usage}")]
    HelpRequested {
        /// The pattern whose help was asked for.
        pattern: &'static str,
        /// Its usage text (empty for patterns without help text, as in ORCS).
        usage: &'static str,
    },
}

/// Parses a whole string of ASCII digits as a positive integer accepted by ORCS's `strtoi`.
fn parse_int_arg(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = s.trim_start_matches('0');
    if digits.len() > 10 {
        return None;
    }
    let v: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if v > MAX_INT_ARG {
        return None;
    }
    u32::try_from(v).ok()
}

/// Matches ORCS's chance syntax `[-+]?[0-9]*\.?[0-9]+` (whole string).
fn is_orcs_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => ("", body),
    };
    !frac_part.is_empty()
        && int_part.bytes().all(|b| b.is_ascii_digit())
        && frac_part.bytes().all(|b| b.is_ascii_digit())
}

// ---------------------------------------------------------------------------------------
// Pattern
// ---------------------------------------------------------------------------------------

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
    /// Build from the pattern name and optional -a argument (ptrnvsptrn:
    /// `"p1[:arg1]::p2[:arg2]"` syntax of §5.7; recvs: `"R[,c1[,c2]][,rand|linear]"` of
    /// §5.6; neighbor: integer ≥ 1). Errors: missing argument for a pattern that needs one,
    /// an argument given to a pattern that takes none (orcs rejects it), malformed
    /// arguments, nested ptrnvsptrn, unknown names.
    ///
    /// The name is resolved by [`PatternKind::parse_name`] (prefixes and v1 aliases; an
    /// alias takes no argument). The argument `help` yields
    /// [`PatternError::HelpRequested`]; arguments longer than 256 characters (1025 for
    /// `ptrnvsptrn`) are rejected as in ORCS. The two names inside a `ptrnvsptrn` argument
    /// follow the same rules as `-p` values.
    pub fn parse(name: &str, arg: Option<&str>) -> Result<Pattern, PatternError> {
        Self::parse_inner(name, arg, false)
    }

    fn parse_inner(name: &str, arg: Option<&str>, nested: bool) -> Result<Pattern, PatternError> {
        let (kind, implied_k) = PatternKind::parse_name(name)?;
        if let Some(k) = implied_k {
            return match arg {
                Some(a) => Err(PatternError::UnexpectedArgument {
                    pattern: name.to_string(),
                    arg: a.to_string(),
                }),
                None => Ok(Pattern::Neighbor { k }),
            };
        }
        if nested && kind == PatternKind::PtrnVsPtrn {
            return Err(PatternError::NestedPtrnVsPtrn {
                arg: arg.unwrap_or("").to_string(),
            });
        }
        if let Some(a) = arg {
            let max = if kind == PatternKind::PtrnVsPtrn {
                MAX_PTRNVSPTRN_ARG_LEN
            } else {
                MAX_ARG_LEN
            };
            if a.len() > max {
                return Err(PatternError::ArgumentTooLong {
                    pattern: kind.name(),
                    len: a.len(),
                    max,
                });
            }
            if a == "help" {
                return Err(PatternError::HelpRequested {
                    pattern: kind.name(),
                    usage: kind.usage(),
                });
            }
        }
        let Some(a) = arg else {
            return match kind {
                PatternKind::Null => Ok(Pattern::Null),
                PatternKind::Bisect => Ok(Pattern::Bisect),
                PatternKind::BisectFbSym => Ok(Pattern::BisectFbSym),
                PatternKind::Rand => Ok(Pattern::Rand),
                PatternKind::Tree => Ok(Pattern::Tree),
                PatternKind::Bruck => Ok(Pattern::Bruck),
                PatternKind::Recdbl => Ok(Pattern::Recdbl),
                PatternKind::Ring => Ok(Pattern::Ring),
                PatternKind::Gather => Ok(Pattern::Gather),
                PatternKind::Scatter => Ok(Pattern::Scatter),
                PatternKind::Neighbor2d => Ok(Pattern::Neighbor2d),
                PatternKind::Neighbor
                | PatternKind::RecvsOneSrc
                | PatternKind::RecvsAllSrc
                | PatternKind::PtrnVsPtrn => Err(PatternError::MissingArgument {
                    pattern: kind.name(),
                    usage: kind.usage(),
                }),
            };
        };
        match kind {
            PatternKind::Neighbor => parse_neighbor_arg(a).map(|k| Pattern::Neighbor { k }),
            PatternKind::RecvsOneSrc => RecvsArgs::parse(a, kind.name()).map(Pattern::RecvsOneSrc),
            PatternKind::RecvsAllSrc => RecvsArgs::parse(a, kind.name()).map(Pattern::RecvsAllSrc),
            PatternKind::PtrnVsPtrn => parse_ptrnvsptrn_arg(a),
            _ => Err(PatternError::UnexpectedArgument {
                pattern: kind.name().to_string(),
                arg: a.to_string(),
            }),
        }
    }

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
    pub fn try_ptrnvsptrn(first: Pattern, second: Pattern) -> Result<Pattern, PatternError> {
        if first.kind() == PatternKind::PtrnVsPtrn || second.kind() == PatternKind::PtrnVsPtrn {
            let p = Pattern::ptrnvsptrn(first, second);
            return Err(PatternError::NestedPtrnVsPtrn {
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
    pub fn arg_string(&self) -> Option<String> {
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
    pub fn is_random(&self) -> bool {
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

    /// Number of levels for this context (for random patterns the count is also fixed by
    /// n).
    ///
    /// This is the length of the level sequence of one run. A run of a random pattern can
    /// only be shorter when a `recvs_*` level happens to be empty (c2 > 0 and every sender
    /// idle), which ends the run there as in ORCS. For `ptrnvsptrn` with a levels in the
    /// first and b in the second pattern: a + (b − 1 − ((a − 1) mod b)) if a, b ≥ 1, a if
    /// b = 0, b if a = 0.
    pub fn num_levels(&self, ctx: &PatternContext) -> usize {
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                merged_levels(first.simple_levels(z), second.simple_levels(m))
            }
            _ => self.simple_levels(ctx.commsize),
        }
    }

    /// Level count of a non-`ptrnvsptrn` pattern on `n` ranks (a nested `ptrnvsptrn`: 0).
    fn simple_levels(&self, n: u32) -> usize {
        if n < 2 {
            return 0;
        }
        match self {
            Pattern::Null | Pattern::PtrnVsPtrn { .. } => 0,
            Pattern::Bisect
            | Pattern::BisectFbSym
            | Pattern::Rand
            | Pattern::Gather
            | Pattern::Scatter
            | Pattern::Neighbor2d
            | Pattern::RecvsOneSrc(_)
            | Pattern::RecvsAllSrc(_) => 1,
            Pattern::Neighbor { k } => usize::from(*k >= 1),
            Pattern::Tree | Pattern::Bruck => ceil_log2(n) as usize,
            Pattern::Recdbl => floor_log2(n) as usize + usize::from(!n.is_power_of_two()),
            Pattern::Ring => n as usize,
        }
    }

    /// Generate all levels of one run into `out` (cleared first). Deterministic patterns
    /// ignore rng.
    ///
    /// The levels are those of §5 on `ctx.commsize` ranks, in ORCS's pair order; the
    /// sequence ends at the first empty level, so `out` never holds an empty level.
    /// `ptrnvsptrn` follows ORCS's merge with the second pattern's counter restarted for
    /// every run (§5.7, §11.3); random parts are drawn afresh at every level where ORCS
    /// draws them. `out`'s buffers are reused; only `neighbor`, `neighbor2d`, `recvs_*` (and
    /// `ptrnvsptrn` through them) allocate scratch memory.
    pub fn generate<R: Rng + ?Sized>(&self, ctx: &PatternContext, rng: &mut R, out: &mut Levels) {
        out.clear();
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                let a = first.simple_levels(z);
                let b = second.simple_levels(m);
                let total = merged_levels(a, b);
                let mut counter = 0usize;
                for level in 0..total {
                    let start = out.pairs.len();
                    first.level_into(z, level, 0, ctx.orcs_compat, rng, &mut out.pairs);
                    let mid = out.pairs.len();
                    second.level_into(m, counter, z, ctx.orcs_compat, rng, &mut out.pairs);
                    if out.pairs.len() == mid && mid > start {
                        counter = 0;
                        second.level_into(m, 0, z, ctx.orcs_compat, rng, &mut out.pairs);
                    }
                    counter += 1;
                    if out.pairs.len() == start {
                        break;
                    }
                    out.end_level();
                }
            }
            _ => {
                let n = ctx.commsize;
                for level in 0..self.simple_levels(n) {
                    let start = out.pairs.len();
                    self.level_into(n, level, 0, ctx.orcs_compat, rng, &mut out.pairs);
                    if out.pairs.len() == start {
                        break;
                    }
                    out.end_level();
                }
            }
        }
        debug_assert_eq!(out.open_start(), out.pairs.len());
    }

    /// Appends the pairs of level `level` of this (non-`ptrnvsptrn`) pattern on `n` ranks,
    /// every rank shifted by `shift`. Levels past the last one are empty; random patterns
    /// draw only for their level 0.
    fn level_into<R: Rng + ?Sized>(
        &self,
        n: u32,
        level: usize,
        shift: u32,
        compat: bool,
        rng: &mut R,
        out: &mut Vec<(u32, u32)>,
    ) {
        if level >= self.simple_levels(n) {
            return;
        }
        // From here on n >= 2 and the level exists.
        let s = shift;
        match self {
            Pattern::Null | Pattern::PtrnVsPtrn { .. } => {}
            Pattern::Bisect => out.extend((0..n / 2).map(|i| (2 * i + 1 + s, 2 * i + s))),
            Pattern::BisectFbSym => {
                for i in 0..n / 2 {
                    out.push((2 * i + s, 2 * i + 1 + s));
                    out.push((2 * i + 1 + s, 2 * i + s));
                }
            }
            Pattern::Rand => {
                if compat {
                    rand_orcs_v2(n, s, rng, out);
                } else {
                    rand_derangement(n, s, rng, out);
                }
            }
            Pattern::Tree => {
                let dist = 1u32 << level;
                let count = dist.min(n - dist);
                out.extend((0..count).map(|i| (i + s, i + dist + s)));
            }
            Pattern::Bruck => {
                let dist = 1u64 << level;
                out.extend(
                    (0..n).map(|i| (i + s, ((u64::from(i) + dist) % u64::from(n)) as u32 + s)),
                );
            }
            Pattern::Recdbl => {
                let log2p = floor_log2(n) as usize;
                let p = 1u32 << log2p;
                if level < log2p {
                    let dist = 1u32 << level;
                    for block in (0..p).step_by(2 * dist as usize) {
                        for k in block..block + dist {
                            out.push((k + s, k + dist + s));
                            out.push((k + dist + s, k + s));
                        }
                    }
                } else {
                    out.extend((0..n - p).map(|i| (i + s, i + p + s)));
                }
            }
            Pattern::Ring => {
                let l = level as u32;
                out.push((l + s, (l + 1) % n + s));
            }
            Pattern::Gather => out.extend((1..n).map(|i| (i + s, s))),
            Pattern::Scatter => out.extend((1..n).map(|i| (s, i + s))),
            Pattern::Neighbor { k } => neighbor_into(*k, n, s, out),
            Pattern::Neighbor2d => neighbor2d_into(n, s, out),
            Pattern::RecvsOneSrc(a) => recvs_into(a, true, n, s, rng, out),
            Pattern::RecvsAllSrc(a) => recvs_into(a, false, n, s, rng, out),
        }
    }
}

/// Merged level count of `ptrnvsptrn` (§5.7) from the level counts of its parts.
fn merged_levels(a: usize, b: usize) -> usize {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a + (b - 1 - ((a - 1) % b)),
    }
}

/// floor(log2 n) for n ≥ 1 (0 for n = 0).
fn floor_log2(n: u32) -> u32 {
    31u32.saturating_sub(n.leading_zeros())
}

/// ceil(log2 n) for n ≥ 1 (0 for n ≤ 1).
fn ceil_log2(n: u32) -> u32 {
    if n <= 1 {
        0
    } else {
        32 - (n - 1).leading_zeros()
    }
}

/// Parses the `neighbor` argument: a whole string of decimal digits with value ≥ 1.
fn parse_neighbor_arg(a: &str) -> Result<u32, PatternError> {
    let invalid = |requirement| PatternError::InvalidArgument {
        pattern: "neighbor",
        requirement,
        arg: a.to_string(),
    };
    if a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(NEIGHBOR_REQUIREMENT));
    }
    match parse_int_arg(a) {
        Some(0) => Err(invalid(NEIGHBOR_REQUIREMENT)),
        Some(k) => Ok(k),
        None => Err(invalid(NEIGHBOR_RANGE_REQUIREMENT)),
    }
}

/// Parses the `ptrnvsptrn` argument `p1[:arg1]::p2[:arg2]` (ORCS's regular expression
/// `^([^:[:blank:]]+)(:([^:[:blank:]]+))?::([^:[:blank:]]+)(:([^:[:blank:]]+))?$`).
fn parse_ptrnvsptrn_arg(a: &str) -> Result<Pattern, PatternError> {
    let invalid = || PatternError::InvalidArgument {
        pattern: "ptrnvsptrn",
        requirement: PTRNVSPTRN_REQUIREMENT,
        arg: a.to_string(),
    };
    if a.contains([' ', '\t']) {
        return Err(invalid());
    }
    let pieces: Vec<&str> = a.split(':').collect();
    let (p1, a1, p2, a2) = match pieces.as_slice() {
        [p1, "", p2] => (*p1, None, *p2, None),
        [p1, x, "", p2] if !x.is_empty() => (*p1, Some(*x), *p2, None),
        [p1, "", p2, x] if !p2.is_empty() => (*p1, None, *p2, Some(*x)),
        [p1, x1, "", p2, x2] => (*p1, Some(*x1), *p2, Some(*x2)),
        _ => return Err(invalid()),
    };
    if p1.is_empty() || p2.is_empty() || a1 == Some("") || a2 == Some("") {
        return Err(invalid());
    }
    // Unknown names are reported together, as ORCS does.
    let unknown: Vec<String> = [p1, p2]
        .iter()
        .filter(|name| {
            matches!(
                PatternKind::parse_name(name),
                Err(PatternError::UnknownPattern { .. })
            )
        })
        .map(|name| name.to_string())
        .collect();
    if !unknown.is_empty() {
        return Err(PatternError::UnknownSubPattern {
            arg: a.to_string(),
            names: unknown,
            available: available_names(true),
        });
    }
    for name in [p1, p2] {
        if let Ok((PatternKind::PtrnVsPtrn, _)) = PatternKind::parse_name(name) {
            return Err(PatternError::NestedPtrnVsPtrn { arg: a.to_string() });
        }
    }
    let first = Pattern::parse_inner(p1, a1, true)?;
    let second = Pattern::parse_inner(p2, a2, true)?;
    Ok(Pattern::ptrnvsptrn(first, second))
}

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

/// Swaps the destinations of pairs `i` and `j`.
fn swap_dst(p: &mut [(u32, u32)], i: usize, j: usize) {
    let t = p[i].1;
    p[i].1 = p[j].1;
    p[j].1 = t;
}

/// Appends (i → π(i)) for a uniformly random derangement π of 0..n (ranks shifted by `s`).
///
/// Fisher–Yates shuffle of the destinations in place inside `out`, restarted as soon as a
/// finished position is a fixed point (the rejected shuffles are exactly those whose
/// permutation has a fixed point, so the result is uniform over derangements). Expected
/// e ≈ 2.72 attempts, O(n) expected time, no allocation beyond `out`. Requires n ≥ 2.
fn rand_derangement<R: Rng + ?Sized>(n: u32, s: u32, rng: &mut R, out: &mut Vec<(u32, u32)>) {
    if n < 2 {
        return;
    }
    let start = out.len();
    'attempt: loop {
        out.truncate(start);
        out.extend((0..n).map(|i| (i + s, i + s)));
        let p = &mut out[start..];
        for i in (1..p.len()).rev() {
            let j = uniform_index(rng, i + 1);
            swap_dst(p, i, j);
            if p[i].1 == p[i].0 {
                continue 'attempt;
            }
        }
        if p[0].1 != p[0].0 {
            return;
        }
    }
}

/// Appends ORCS v2's `rand` level (§5.3) for n ranks (shifted by `s`): for src = 0..n−1
/// draw a destination uniformly from the unused ones, redrawing while it equals src; if
/// the last rank is left with itself, it swaps destinations with a uniformly random
/// earlier pair. The unused destinations live in `out[start + src..]` (their order does
/// not change the distribution). O(n) expected time, no allocation beyond `out`.
fn rand_orcs_v2<R: Rng + ?Sized>(n: u32, s: u32, rng: &mut R, out: &mut Vec<(u32, u32)>) {
    if n < 2 {
        return;
    }
    let start = out.len();
    out.extend((0..n).map(|i| (i + s, i + s)));
    let p = &mut out[start..];
    let len = p.len();
    for src in 0..len {
        loop {
            let pos = src + uniform_index(rng, len - src);
            if p[pos].1 != p[src].0 {
                swap_dst(p, src, pos);
                break;
            }
            if src == len - 1 {
                let j = uniform_index(rng, len - 1);
                swap_dst(p, j, src);
                break;
            }
        }
    }
}

/// Appends `neighbor` with k neighbours on n ≥ 2 ranks (shifted by `s`), §5.5.
///
/// Each rank's filled slots are always a prefix of its k slots, so a fill counter per rank
/// replaces ORCS's −1 markers, and the "already a neighbour" test uses a marker array;
/// the search for a rank's next partner resumes after the previous partner (earlier
/// candidates stay ineligible). O(n·k) time and memory.
fn neighbor_into(k: u32, n: u32, s: u32, out: &mut Vec<(u32, u32)>) {
    let n_us = n as usize;
    let k = k.min(n.saturating_sub(1)) as usize;
    if k == 0 {
        return;
    }
    let mut slots = vec![0u32; n_us * k];
    let mut fill = vec![0usize; n_us];
    let mut mark = vec![u32::MAX; n_us];
    for i in 0..n_us {
        if fill[i] >= k {
            continue;
        }
        for &nb in &slots[i * k..i * k + fill[i]] {
            mark[nb as usize] = i as u32;
        }
        let mut cand = i + 1;
        while fill[i] < k && cand < n_us {
            if mark[cand] != i as u32 && fill[cand] < k {
                slots[i * k + fill[i]] = cand as u32;
                fill[i] += 1;
                slots[cand * k + fill[cand]] = i as u32;
                fill[cand] += 1;
            }
            cand += 1;
        }
    }
    out.reserve(fill.iter().sum());
    for i in 0..n_us {
        for &nb in &slots[i * k..i * k + fill[i]] {
            out.push((i as u32 + s, nb + s));
        }
    }
}

/// Appends `neighbor2d` on n ≥ 2 ranks (shifted by `s`), §5.8: X = ceil(√n) columns,
/// Y = ceil(n/X) rows, for each rank the nearest existing rank W, E, N, S with
/// wrap-around; sorted, duplicates and self pairs removed. O(n·√n) worst case for the
/// searches (O(n) typical) plus O(n log n) for the sort.
fn neighbor2d_into(n: u32, s: u32, out: &mut Vec<(u32, u32)>) {
    let n64 = u64::from(n);
    let mut x_max = (n as f64).sqrt().ceil() as u64;
    while x_max * x_max < n64 {
        x_max += 1;
    }
    while x_max > 1 && (x_max - 1) * (x_max - 1) >= n64 {
        x_max -= 1;
    }
    let y_max = n64.div_ceil(x_max);
    let node = |x: i64, y: i64| -> u64 {
        let x = x.rem_euclid(x_max as i64) as u64;
        let y = y.rem_euclid(y_max as i64) as u64;
        y * x_max + x
    };
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(4 * n as usize);
    for r in 0..n64 {
        let (x, y) = ((r % x_max) as i64, (r / x_max) as i64);
        let directions: [(i64, i64, u64); 4] =
            [(-1, 0, x_max), (1, 0, x_max), (0, -1, y_max), (0, 1, y_max)];
        for (dx, dy, steps) in directions {
            // Walking `steps` cells in one direction returns to r itself, which exists.
            let target = (1..=steps as i64)
                .map(|i| node(x + dx * i, y + dy * i))
                .find(|&t| t < n64)
                .unwrap_or(r);
            pairs.push((r as u32, target as u32));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    out.extend(
        pairs
            .into_iter()
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a + s, b + s)),
    );
}

/// Appends `recvs_one_src` (`one_src`) or `recvs_all_src` on n ranks (shifted by `s`)
/// exactly as the pseudo-code of §5.6, with `rng` replacing ORCS's generators (uniform
/// [0,1) draws via `gen::<f64>()`; no draws at all in linear mode with c1 ≥ 1). The
/// order-free bags (senders in rand mode, diversion targets) use O(1) `swap_remove`; the
/// receiver list keeps its order, so `recvs_one_src` costs O(n) plus O(R²) word moves for
/// the receiver removals (R = effective receiver count), `recvs_all_src` O(n); O(n)
/// scratch memory.
fn recvs_into<R: Rng + ?Sized>(
    a: &RecvsArgs,
    one_src: bool,
    n: u32,
    s: u32,
    rng: &mut R,
    out: &mut Vec<(u32, u32)>,
) {
    let r_eff = a.effective_receivers(n);
    let mut receivers: Vec<u32> = (0..r_eff).collect();
    let mut senders: Vec<u32> = (r_eff..n).collect();
    let mut others: Vec<u32> = senders.clone();
    let may_divert = a.c1 < 1.0;
    let mut next_linear = 0usize;
    let mut i = 0usize;
    loop {
        // r = receivers[i mod |receivers|], remembered by its index in the list.
        let mut r_idx = (!receivers.is_empty()).then(|| i % receivers.len());
        let mut dst = r_idx.map(|idx| receivers[idx]);
        let src = if a.linear {
            match senders.get(next_linear) {
                Some(&v) => {
                    next_linear += 1;
                    v
                }
                None => break,
            }
        } else {
            if senders.is_empty() {
                break;
            }
            senders.swap_remove(uniform_index(rng, senders.len()))
        };
        if may_divert && rng.gen::<f64>() > a.c1 {
            if rng.gen::<f64>() < a.c2 {
                i += 1;
                continue;
            }
            if !others.is_empty() {
                let idx = loop {
                    let idx = uniform_index(rng, others.len());
                    if others[idx] != src || others.len() == 1 {
                        break idx;
                    }
                };
                // r now names a non-receiver, so no receiver is removed below.
                r_idx = None;
                if others[idx] != src {
                    dst = Some(others[idx]);
                    others.swap_remove(idx);
                }
            }
        }
        if let Some(d) = dst {
            if one_src {
                if let Some(idx) = r_idx {
                    receivers.remove(idx);
                }
            }
            out.push((src + s, d + s));
        }
        i += 1;
    }
}

/// A uniformly random index in `0..len` (`len` ≥ 1 and ≤ 2^32), drawn as a `u32` so that
/// the random stream is the same on every platform.
fn uniform_index<R: Rng + ?Sized>(rng: &mut R, len: usize) -> usize {
    let max = u32::try_from(len.saturating_sub(1)).unwrap_or(u32::MAX);
    rng.gen_range(0..=max) as usize
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::collections::{BTreeSet, HashMap};

    fn rng(seed: u64) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(seed)
    }

    fn ctx(n: u32) -> PatternContext {
        PatternContext::new(n)
    }

    fn ctx_z(n: u32, z: u32) -> PatternContext {
        PatternContext {
            commsize: n,
            part_commsize: z,
            orcs_compat: false,
        }
    }

    fn gen(p: &Pattern, c: &PatternContext) -> Levels {
        let mut out = Levels::new();
        p.generate(c, &mut rng(1), &mut out);
        out
    }

    /// Renders levels as "1>0 3>2 | 0>2 ...".
    fn render(levels: &Levels) -> String {
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

    fn p(name: &str, arg: Option<&str>) -> Pattern {
        Pattern::parse(name, arg).unwrap()
    }

    fn show(name: &str, arg: Option<&str>, n: u32) -> String {
        render(&gen(&p(name, arg), &ctx(n)))
    }

    fn show_pvp(arg: &str, n: u32, z: u32) -> String {
        render(&gen(&p("ptrnvsptrn", Some(arg)), &ctx_z(n, z)))
    }

    fn all_simple_patterns() -> Vec<Pattern> {
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

    // ----- §5.4 examples -----

    #[test]
    fn examples_5_4() {
        assert_eq!(show("bisect", None, 6), "1>0 3>2 5>4");
        assert_eq!(show("bisect", None, 7), "1>0 3>2 5>4");
        assert_eq!(show("bisect_fb_sym", None, 7), "0>1 1>0 2>3 3>2 4>5 5>4");
        assert_eq!(show("tree", None, 6), "0>1 | 0>2 1>3 | 0>4 1>5");
        assert_eq!(show("tree", None, 7), "0>1 | 0>2 1>3 | 0>4 1>5 2>6");
        assert_eq!(show("tree", None, 8), "0>1 | 0>2 1>3 | 0>4 1>5 2>6 3>7");
        assert_eq!(
            show("bruck", None, 6),
            "0>1 1>2 2>3 3>4 4>5 5>0 | 0>2 1>3 2>4 3>5 4>0 5>1 | 0>4 1>5 2>0 3>1 4>2 5>3"
        );
        let bruck7 = gen(&Pattern::Bruck, &ctx(7));
        assert_eq!(bruck7.num_levels(), 3);
        assert!(bruck7.iter().all(|l| l.len() == 7));
        let l2: Vec<String> = bruck7
            .level(2)
            .iter()
            .map(|(a, b)| format!("{a}>{b}"))
            .collect();
        assert_eq!(l2.join(" "), "0>4 1>5 2>6 3>0 4>1 5>2 6>3");
        assert_eq!(
            show("recdbl", None, 6),
            "0>1 1>0 2>3 3>2 | 0>2 2>0 1>3 3>1 | 0>4 1>5"
        );
        assert_eq!(
            show("recdbl", None, 7),
            "0>1 1>0 2>3 3>2 | 0>2 2>0 1>3 3>1 | 0>4 1>5 2>6"
        );
        assert_eq!(
            show("recdbl", None, 8),
            "0>1 1>0 2>3 3>2 4>5 5>4 6>7 7>6 | 0>2 2>0 1>3 3>1 4>6 6>4 5>7 7>5 | \
             0>4 4>0 1>5 5>1 2>6 6>2 3>7 7>3"
        );
        assert_eq!(show("ring", None, 6), "0>1 | 1>2 | 2>3 | 3>4 | 4>5 | 5>0");
        assert_eq!(show("gather", None, 6), "1>0 2>0 3>0 4>0 5>0");
        assert_eq!(show("scatter", None, 6), "0>1 0>2 0>3 0>4 0>5");
        assert_eq!(show("null", None, 6), "");
        assert_eq!(gen(&Pattern::Null, &ctx(6)).num_levels(), 0);
    }

    // ----- §5.5 neighbor -----

    fn clique(ranks: std::ops::Range<u32>) -> String {
        let mut v = Vec::new();
        for i in ranks.clone() {
            for j in ranks.clone() {
                if i != j {
                    v.push(format!("{i}>{j}"));
                }
            }
        }
        v.join(" ")
    }

    #[test]
    fn examples_5_5_neighbor() {
        assert_eq!(
            show("neighbor", Some("2"), 8),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4 6>7 7>6"
        );
        assert_eq!(
            show("neighbor", Some("2"), 7),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4"
        );
        let k4 = show("neighbor", Some("4"), 8);
        assert_eq!(k4, format!("{} 5>6 5>7 6>5 6>7 7>5 7>6", clique(0..5)));
        assert_eq!(k4.split(' ').count(), 26);
        assert_eq!(show("neighbor", Some("5"), 7), clique(0..6));
        // k = 1 is bisect_fb_sym, k = 3 gives K4 cliques.
        for n in 4..=21 {
            assert_eq!(
                show("neighbor", Some("1"), n),
                show("bisect_fb_sym", None, n)
            );
        }
        assert_eq!(
            show("neighbor", Some("3"), 8),
            format!("{} {}", clique(0..4), clique(4..8))
        );
        // k >= n - 1: the complete graph, with the correction notice.
        assert_eq!(show("neighbor", Some("9"), 6), clique(0..6));
        assert_eq!(
            p("neighbor", Some("9")).notices(&ctx(6)),
            vec!["#*** correcting neighbor number to 5 (commsize: 6)".to_string()]
        );
        assert!(p("neighbor", Some("5")).notices(&ctx(6)).is_empty());
        // v1 aliases.
        assert_eq!(show("2neighbor", None, 8), show("neighbor", Some("2"), 8));
        assert_eq!(show("4neighbor", None, 12), show("neighbor", Some("4"), 12));
        assert_eq!(show("6neighbor", None, 16), show("neighbor", Some("6"), 16));
    }

    // ----- §5.6 recvs -----

    #[test]
    fn examples_5_6_recvs() {
        assert_eq!(show("recvs_one_src", Some("3,linear"), 10), "3>0 4>2 5>1");
        assert_eq!(
            show("recvs_all_src", Some("3,linear"), 10),
            "3>0 4>1 5>2 6>0 7>1 8>2 9>0"
        );
        assert_eq!(
            show("recvs_one_src", Some("6,linear"), 10),
            "5>0 6>2 7>4 8>3 9>1"
        );
        assert_eq!(
            show("recvs_all_src", Some("6,linear"), 10),
            "5>0 6>1 7>2 8>3 9>4"
        );
        // Explicit default chances give the same.
        assert_eq!(
            show("recvs_one_src", Some("3,1.0,0.0,linear"), 10),
            "3>0 4>2 5>1"
        );
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
    }

    #[test]
    fn recvs_random_mode_structure() {
        for seed in 0..50 {
            let mut r = rng(seed);
            let mut out = Levels::new();
            // all_src, rand mode, c1 = 1: every sender once, i-th sender to receiver i mod R.
            p("recvs_all_src", Some("3")).generate(&ctx(11), &mut r, &mut out);
            assert_eq!(out.num_levels(), 1);
            let l = out.level(0);
            assert_eq!(l.len(), 8);
            let srcs: BTreeSet<u32> = l.iter().map(|x| x.0).collect();
            assert_eq!(srcs, (3..11).collect());
            for (i, &(_, d)) in l.iter().enumerate() {
                assert_eq!(d, i as u32 % 3);
            }
            // one_src, rand mode: each receiver exactly once.
            p("recvs_one_src", Some("4")).generate(&ctx(11), &mut r, &mut out);
            let l = out.level(0);
            assert_eq!(l.len(), 4);
            let dsts: BTreeSet<u32> = l.iter().map(|x| x.1).collect();
            assert_eq!(dsts, (0..4).collect());
            assert!(l.iter().all(|x| x.0 >= 4));
        }
    }

    #[test]
    fn recvs_diversion_properties() {
        for seed in 0..200 {
            let mut r = rng(seed);
            let mut out = Levels::new();
            for (name, arg) in [
                ("recvs_all_src", "2,0.5"),
                ("recvs_one_src", "2,0.3,0.2"),
                ("recvs_all_src", "3,0.0,linear"),
                ("recvs_one_src", "5,0.7,0.5,linear"),
            ] {
                let pat = p(name, Some(arg));
                assert!(pat.is_random());
                pat.generate(&ctx(12), &mut r, &mut out);
                assert!(out.num_levels() <= 1);
                let l = out.level(0);
                let mut srcs = BTreeSet::new();
                let mut diverted = BTreeSet::new();
                for &(a, b) in l {
                    assert_ne!(a, b);
                    assert!(a < 12 && b < 12);
                    assert!(srcs.insert(a), "sender used twice");
                    let r_eff = arg[..1].parse::<u32>().unwrap();
                    assert!(a >= r_eff);
                    if b >= r_eff {
                        assert!(diverted.insert(b), "diversion target used twice");
                    }
                }
            }
        }
        // c1 = 0, c2 = 1: every sender idles, so the run has no level.
        let mut out = Levels::new();
        p("recvs_all_src", Some("2,0,1")).generate(&ctx(10), &mut rng(3), &mut out);
        assert_eq!(out.num_levels(), 0);
    }

    // ----- §5.7 ptrnvsptrn -----

    #[test]
    fn examples_5_7_ptrnvsptrn() {
        assert_eq!(
            show_pvp("bisect::bruck", 10, 4),
            "1>0 3>2 4>5 5>6 6>7 7>8 8>9 9>4 | 4>6 5>7 6>8 7>9 8>4 9>5 | 4>8 5>9 6>4 7>5 8>6 9>7"
        );
        assert_eq!(
            show_pvp("tree::bisect", 12, 8),
            "0>1 9>8 11>10 | 0>2 1>3 9>8 11>10 | 0>4 1>5 2>6 3>7 9>8 11>10"
        );
        let bruck8 = gen(&Pattern::Bruck, &ctx(8));
        let b = |i: usize| render_level(bruck8.level(i));
        assert_eq!(
            show_pvp("bruck::tree", 12, 8),
            format!(
                "{} 8>9 | {} 8>10 9>11 | {} 8>9 | 8>10 9>11",
                b(0),
                b(1),
                b(2)
            )
        );
        assert_eq!(
            show_pvp("neighbor:2::recvs_all_src:2,linear", 12, 6),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4 8>6 9>7 10>6 11>7"
        );
        // null::bruck: the first run (and, in orcs, every run) has bruck's 3 levels.
        let nb = p("ptrnvsptrn", Some("null::bruck"));
        assert_eq!(nb.num_levels(&ctx_z(10, 4)), 3);
        assert_eq!(
            render(&gen(&nb, &ctx_z(10, 4))),
            "4>5 5>6 6>7 7>8 8>9 9>4 | 4>6 5>7 6>8 7>9 8>4 9>5 | 4>8 5>9 6>4 7>5 8>6 9>7"
        );
        // bruck::null: p1 alone.
        assert_eq!(
            show_pvp("bruck::null", 10, 4),
            "0>1 1>2 2>3 3>0 | 0>2 1>3 2>0 3>1"
        );
        // v1 form.
        let v1 = Pattern::ptrnvsptrn(p("bisect", None), p("bruck", None));
        assert_eq!(v1, p("ptrnvsptrn", Some("bisect::bruck")));
    }

    fn render_level(l: &[(u32, u32)]) -> String {
        l.iter()
            .map(|(a, b)| format!("{a}>{b}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn ptrnvsptrn_random_parts_drawn_per_level() {
        // rand (1 level) as second pattern next to ring: redrawn at every level.
        let pat = p("ptrnvsptrn", Some("ring::rand"));
        let c = ctx_z(40, 8);
        assert_eq!(pat.num_levels(&c), 8);
        let out = gen(&pat, &c);
        assert_eq!(out.num_levels(), 8);
        let mut distinct = BTreeSet::new();
        for l in out.iter() {
            assert_eq!(l.len(), 1 + 32);
            assert!(l[0].0 < 8 && l[0].1 < 8);
            let second: Vec<(u32, u32)> = l[1..].to_vec();
            let dsts: BTreeSet<u32> = second.iter().map(|x| x.1).collect();
            assert_eq!(dsts, (8..40).collect());
            distinct.insert(second);
        }
        assert!(distinct.len() > 1, "second pattern must be redrawn");
    }

    #[test]
    fn ptrnvsptrn_level_formula_matches_generation() {
        let parts = all_simple_patterns();
        for n in [5u32, 8, 13] {
            for z in 2..n {
                for first in &parts {
                    for second in &parts {
                        let pat = Pattern::ptrnvsptrn(first.clone(), second.clone());
                        let c = ctx_z(n, z);
                        let out = gen(&pat, &c);
                        assert_eq!(
                            out.num_levels(),
                            pat.num_levels(&c),
                            "{first:?} vs {second:?}, n {n}, z {z}"
                        );
                        let a = first.num_levels(&ctx(z));
                        let b = second.num_levels(&ctx(n - z));
                        let expect = match (a, b) {
                            (0, b) => b,
                            (a, 0) => a,
                            (a, b) => a + (b - 1 - ((a - 1) % b)),
                        };
                        assert_eq!(pat.num_levels(&c), expect);
                        if a >= 1 && b >= 1 && !pat.is_random() {
                            // Levels 0..a-1 pair p1(L) with p2(L mod b).
                            let l1 = gen(first, &ctx(z));
                            let l2 = gen(second, &ctx(n - z));
                            for lv in 0..a {
                                let mut want: Vec<(u32, u32)> = l1.level(lv).to_vec();
                                want.extend(l2.level(lv % b).iter().map(|&(x, y)| (x + z, y + z)));
                                assert_eq!(out.level(lv), &want[..]);
                            }
                        }
                    }
                }
            }
        }
    }

    // ----- §5.2 counts -----

    #[test]
    fn level_and_pair_counts_5_2() {
        for n in 4u32..=40 {
            let c = ctx(n);
            let ceil_log = (n as f64).log2().ceil() as usize;
            let p2 = 1u32 << (31 - n.leading_zeros());
            let log_p = p2.trailing_zeros() as usize;
            let check = |pat: Pattern, levels: usize, pairs: &dyn Fn(usize) -> usize| {
                let out = gen(&pat, &c);
                assert_eq!(out.num_levels(), levels, "{pat:?} n={n}");
                assert_eq!(pat.num_levels(&c), levels, "{pat:?} n={n}");
                for l in 0..levels {
                    assert_eq!(out.level(l).len(), pairs(l), "{pat:?} n={n} level {l}");
                }
            };
            let h = (n / 2) as usize;
            let nn = n as usize;
            check(Pattern::Null, 0, &|_| 0);
            check(Pattern::Bisect, 1, &|_| h);
            check(Pattern::BisectFbSym, 1, &|_| 2 * h);
            check(Pattern::Rand, 1, &|_| nn);
            check(Pattern::Tree, ceil_log, &|l| {
                (1usize << l).min(nn - (1 << l))
            });
            check(Pattern::Bruck, ceil_log, &|_| nn);
            let rl = log_p + usize::from(n != p2);
            check(Pattern::Recdbl, rl, &|l| {
                if l < log_p {
                    p2 as usize
                } else {
                    (n - p2) as usize
                }
            });
            check(Pattern::Ring, nn, &|_| 1);
            check(Pattern::Gather, 1, &|_| nn - 1);
            check(Pattern::Scatter, 1, &|_| nn - 1);
            for k in 1..=8u32 {
                let kk = k.min(n - 1) as usize;
                let full_cliques = nn / (kk + 1);
                let rest = nn % (kk + 1);
                let links = full_cliques * (kk + 1) * kk / 2 + rest * rest.saturating_sub(1) / 2;
                check(Pattern::Neighbor { k }, 1, &|_| 2 * links);
            }
            for r in [1u32, 2, 3, 50] {
                let re = r.min(n / 2) as usize;
                let lin = |linear| RecvsArgs {
                    receivers: r,
                    c1: 1.0,
                    c2: 0.0,
                    linear,
                };
                for linear in [true, false] {
                    check(Pattern::RecvsOneSrc(lin(linear)), 1, &|_| re);
                    check(Pattern::RecvsAllSrc(lin(linear)), 1, &|_| nn - re);
                }
            }
            assert_eq!(gen(&Pattern::Neighbor2d, &c).num_levels(), 1);
        }
    }

    #[test]
    fn reference_run_sizes() {
        let total = |pat: Pattern, n| gen(&pat, &ctx(n)).num_pairs();
        assert_eq!(total(Pattern::Bisect, 512), 256);
        assert_eq!(total(Pattern::Bruck, 512), 4608);
        assert_eq!(total(Pattern::Recdbl, 512), 4608);
        assert_eq!(gen(&Pattern::Bruck, &ctx(512)).num_levels(), 9);
        assert_eq!(gen(&Pattern::Recdbl, &ctx(512)).num_levels(), 9);
        assert_eq!(total(Pattern::Bruck, 1728), 19_008);
        assert_eq!(total(Pattern::Bruck, 4096), 49_152);
        assert_eq!(gen(&Pattern::Bruck, &ctx(4096)).num_levels(), 12);
    }

    #[test]
    fn neighbor2d_small() {
        // 3x3 torus on 9 ranks: 4 distinct neighbours each.
        let out = gen(&Pattern::Neighbor2d, &ctx(9));
        assert_eq!(out.level(0).len(), 36);
        assert_eq!(render_level(&out.level(0)[..4]), "0>1 0>2 0>3 0>6");
        // n = 5: 3 columns, 2 rows; rank 4 at (1,1), rank 3 at (0,1); cell (2,1) missing.
        assert_eq!(
            render(&gen(&Pattern::Neighbor2d, &ctx(5))),
            "0>1 0>2 0>3 1>0 1>2 1>4 2>0 2>1 3>0 3>4 4>1 4>3"
        );
        let mut sorted = out.level(0).to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, out.level(0));
    }

    #[test]
    fn tiny_communicators_have_no_pairs() {
        for pat in all_simple_patterns() {
            for n in 0..2 {
                let out = gen(&pat, &ctx(n));
                assert_eq!(out.num_levels(), 0);
                assert_eq!(pat.num_levels(&ctx(n)), 0);
            }
            let out = gen(&pat, &ctx(2));
            assert!(out.pairs.iter().all(|&(a, b)| a != b && a < 2 && b < 2));
        }
        // ptrnvsptrn with z = 0, z = n and z > n does not panic.
        let pat = p("ptrnvsptrn", Some("bruck::ring"));
        for z in [0u32, 1, 6, 7, 100] {
            let c = ctx_z(6, z);
            let out = gen(&pat, &c);
            assert_eq!(out.num_levels(), pat.num_levels(&c));
            assert!(out.pairs.iter().all(|&(a, b)| a != b && a < 6 && b < 6));
        }
    }

    #[test]
    fn deterministic_patterns_ignore_rng() {
        let mut pats = all_simple_patterns();
        pats.retain(|x| !x.is_random());
        pats.push(p("ptrnvsptrn", Some("neighbor:2::recvs_all_src:2,linear")));
        for pat in pats {
            let c = ctx_z(23, 7);
            let mut a = Levels::new();
            let mut b = Levels::new();
            let mut r1 = rng(1);
            let mut r2 = rng(99);
            pat.generate(&c, &mut r1, &mut a);
            pat.generate(&c, &mut r2, &mut b);
            assert_eq!(a, b);
            // The generator was not advanced.
            assert_eq!(r1.gen::<u64>(), rng(1).gen::<u64>());
        }
        assert!(Pattern::Rand.is_random());
        assert!(p("recvs_one_src", Some("2")).is_random());
        assert!(p("recvs_one_src", Some("2,0.5,linear")).is_random());
        assert!(!p("recvs_one_src", Some("2,linear")).is_random());
        assert!(p("ptrnvsptrn", Some("bisect::rand")).is_random());
        assert!(!p("ptrnvsptrn", Some("bisect::tree")).is_random());
    }

    #[test]
    fn generate_reuses_buffer() {
        let mut out = Levels::new();
        let c = ctx(64);
        Pattern::Bruck.generate(&c, &mut rng(0), &mut out);
        let cap = out.pairs.capacity();
        let ptr = out.pairs.as_ptr();
        for seed in 0..20 {
            Pattern::Rand.generate(&c, &mut rng(seed), &mut out);
            assert_eq!(out.num_levels(), 1);
            Pattern::Rand.generate(
                &PatternContext {
                    orcs_compat: true,
                    ..c
                },
                &mut rng(seed),
                &mut out,
            );
        }
        assert_eq!(out.pairs.capacity(), cap);
        assert_eq!(out.pairs.as_ptr(), ptr);
    }

    // ----- rand distribution -----

    fn derangement_counts(compat: bool, n: u32, draws: usize) -> HashMap<Vec<u32>, usize> {
        let c = PatternContext {
            commsize: n,
            part_commsize: 2,
            orcs_compat: compat,
        };
        let mut r = rng(0x5eed);
        let mut out = Levels::new();
        let mut counts = HashMap::new();
        for _ in 0..draws {
            Pattern::Rand.generate(&c, &mut r, &mut out);
            let perm: Vec<u32> = out.level(0).iter().map(|x| x.1).collect();
            *counts.entry(perm).or_insert(0) += 1;
        }
        counts
    }

    fn all_derangements(n: u32) -> Vec<Vec<u32>> {
        fn rec(n: u32, cur: &mut Vec<u32>, used: &mut Vec<bool>, out: &mut Vec<Vec<u32>>) {
            let i = cur.len() as u32;
            if i == n {
                out.push(cur.clone());
                return;
            }
            for d in 0..n {
                if d != i && !used[d as usize] {
                    used[d as usize] = true;
                    cur.push(d);
                    rec(n, cur, used, out);
                    cur.pop();
                    used[d as usize] = false;
                }
            }
        }
        let mut out = Vec::new();
        rec(n, &mut Vec::new(), &mut vec![false; n as usize], &mut out);
        out
    }

    /// Exact output distribution of ORCS v2's sequential algorithm (§5.3).
    fn v2_distribution(n: u32) -> HashMap<Vec<u32>, f64> {
        fn rec(
            n: u32,
            pairs: &mut Vec<u32>,
            avail: &mut Vec<u32>,
            prob: f64,
            out: &mut HashMap<Vec<u32>, f64>,
        ) {
            let src = pairs.len() as u32;
            if src == n {
                *out.entry(pairs.clone()).or_insert(0.0) += prob;
                return;
            }
            if src == n - 1 && avail[0] == src {
                // Swap with a uniformly random earlier pair.
                for j in 0..(n - 1) as usize {
                    let mut p = pairs.clone();
                    let d = p[j];
                    p[j] = src;
                    p.push(d);
                    *out.entry(p).or_insert(0.0) += prob / f64::from(n - 1);
                }
                return;
            }
            let choices: Vec<u32> = avail.iter().copied().filter(|&d| d != src).collect();
            for d in choices.iter().copied() {
                let pos = avail.iter().position(|&x| x == d).unwrap();
                avail.remove(pos);
                pairs.push(d);
                rec(n, pairs, avail, prob / choices.len() as f64, out);
                pairs.pop();
                avail.insert(pos, d);
            }
        }
        let mut out = HashMap::new();
        rec(n, &mut Vec::new(), &mut (0..n).collect(), 1.0, &mut out);
        out
    }

    fn chi_square(
        counts: &HashMap<Vec<u32>, usize>,
        expected: &HashMap<Vec<u32>, f64>,
        draws: usize,
    ) -> f64 {
        assert!(
            counts.keys().all(|k| expected.contains_key(k)),
            "unexpected permutation"
        );
        expected
            .iter()
            .map(|(k, &p)| {
                let e = p * draws as f64;
                let o = counts.get(k).copied().unwrap_or(0) as f64;
                (o - e) * (o - e) / e
            })
            .sum()
    }

    #[test]
    fn rand_default_is_uniform_over_derangements() {
        let draws = 90_000;
        let ders = all_derangements(4);
        assert_eq!(ders.len(), 9);
        let uniform: HashMap<Vec<u32>, f64> = ders.into_iter().map(|d| (d, 1.0 / 9.0)).collect();
        let counts = derangement_counts(false, 4, draws);
        let chi2 = chi_square(&counts, &uniform, draws);
        // 8 degrees of freedom: P(chi2 > 40) ≈ 3e-6.
        assert!(chi2 < 40.0, "chi2 = {chi2}");
        // n = 5: 44 derangements.
        let ders5 = all_derangements(5);
        assert_eq!(ders5.len(), 44);
        let uniform5: HashMap<Vec<u32>, f64> = ders5.into_iter().map(|d| (d, 1.0 / 44.0)).collect();
        let chi2 = chi_square(&derangement_counts(false, 5, 88_000), &uniform5, 88_000);
        assert!(chi2 < 100.0, "chi2 = {chi2}"); // 43 dof, P(chi2 > 100) ≈ 1e-6
    }

    #[test]
    fn rand_compat_follows_orcs_v2_distribution() {
        let draws = 90_000;
        let exact = v2_distribution(4);
        assert!((exact.values().sum::<f64>() - 1.0).abs() < 1e-12);
        let counts = derangement_counts(true, 4, draws);
        let chi2 = chi_square(&counts, &exact, draws);
        assert!(chi2 < 40.0, "chi2 vs v2 = {chi2}");
        // ... and v2 is measurably not uniform (§5.3), so the two modes differ.
        let ders = all_derangements(4);
        let uniform: HashMap<Vec<u32>, f64> = ders.into_iter().map(|d| (d, 1.0 / 9.0)).collect();
        let chi2_uniform = chi_square(&counts, &uniform, draws);
        assert!(chi2_uniform > 200.0, "chi2 vs uniform = {chi2_uniform}");
    }

    // ----- parsing -----

    #[test]
    fn parse_names_prefixes_aliases() {
        for &k in PatternKind::ALL {
            assert_eq!(PatternKind::parse_name(k.name()).unwrap(), (k, None));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(PatternKind::ALL.len(), 15);
        let names: Vec<&str> = PatternKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "rand",
                "null",
                "bisect",
                "bisect_fb_sym",
                "tree",
                "bruck",
                "gather",
                "scatter",
                "ring",
                "recdbl",
                "neighbor",
                "neighbor2d",
                "recvs_one_src",
                "recvs_all_src",
                "ptrnvsptrn"
            ]
        );
        let pn = PatternKind::parse_name;
        assert_eq!(pn("bisect").unwrap(), (PatternKind::Bisect, None));
        assert_eq!(pn("bisect_").unwrap(), (PatternKind::BisectFbSym, None));
        assert_eq!(pn("br").unwrap(), (PatternKind::Bruck, None));
        assert_eq!(pn("ptrn").unwrap(), (PatternKind::PtrnVsPtrn, None));
        assert_eq!(pn("recvs_o").unwrap(), (PatternKind::RecvsOneSrc, None));
        assert_eq!(pn("neigh").unwrap(), (PatternKind::Neighbor, None));
        assert_eq!(pn("neighbor2").unwrap(), (PatternKind::Neighbor2d, None));
        assert_eq!(pn("neighbor2d").unwrap(), (PatternKind::Neighbor2d, None));
        assert_eq!(pn("2neighbor").unwrap(), (PatternKind::Neighbor, Some(2)));
        assert_eq!(pn("4neighbor").unwrap(), (PatternKind::Neighbor, Some(4)));
        assert_eq!(pn("6neighbor").unwrap(), (PatternKind::Neighbor, Some(6)));
        match pn("bis") {
            Err(PatternError::AmbiguousPattern { name, candidates }) => {
                assert_eq!(name, "bis");
                assert_eq!(candidates, vec!["bisect", "bisect_fb_sym"]);
            }
            other => panic!("{other:?}"),
        }
        let e = pn("r").unwrap_err().to_string();
        assert!(
            e.contains("rand") && e.contains("ring") && e.contains("recvs_all_src"),
            "{e}"
        );
        assert!(matches!(
            pn("recvs_"),
            Err(PatternError::AmbiguousPattern { .. })
        ));
        assert!(matches!(pn("xx"), Err(PatternError::UnknownPattern { .. })));
        assert!(matches!(pn(""), Err(PatternError::UnknownPattern { .. })));
        assert!(matches!(
            pn("Bisect"),
            Err(PatternError::UnknownPattern { .. })
        ));
        assert!(matches!(
            pn("bisectx"),
            Err(PatternError::UnknownPattern { .. })
        ));
        assert!(pn("xx")
            .unwrap_err()
            .to_string()
            .contains("available patterns: rand, null"));
        assert!(PatternKind::Neighbor.takes_arg());
        assert!(PatternKind::PtrnVsPtrn.takes_arg());
        assert!(PatternKind::RecvsAllSrc.takes_arg());
        assert!(!PatternKind::Bisect.takes_arg());
        assert!(!PatternKind::Neighbor2d.takes_arg());
    }

    #[test]
    fn parse_arguments() {
        assert_eq!(p("neighbor", Some("2")), Pattern::Neighbor { k: 2 });
        assert_eq!(p("neighbor", Some("007")), Pattern::Neighbor { k: 7 });
        assert_eq!(p("2neighbor", None), Pattern::Neighbor { k: 2 });
        assert_eq!(p("bisect", None).kind(), PatternKind::Bisect);
        let err = Pattern::parse("neighbor", Some("x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pattern 'neighbor' requires an integer argument greater than 0 (-a/--ptrnarg), got 'x'"
        );
        for bad in [
            "0",
            "-1",
            "+2",
            " 2",
            "2 ",
            "1.5",
            "",
            "2147483647",
            "99999999999999999999",
        ] {
            assert!(
                matches!(
                    Pattern::parse("neighbor", Some(bad)),
                    Err(PatternError::InvalidArgument {
                        pattern: "neighbor",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            p("neighbor", Some("2147483646")),
            Pattern::Neighbor { k: 2_147_483_646 }
        );
        // Missing and unexpected arguments.
        for name in ["neighbor", "recvs_one_src", "recvs_all_src", "ptrnvsptrn"] {
            assert!(matches!(
                Pattern::parse(name, None),
                Err(PatternError::MissingArgument { .. })
            ));
        }
        assert!(Pattern::parse("neighbor", None)
            .unwrap_err()
            .to_string()
            .contains("requires an integer ptrnarg that is greater than 0"));
        for name in ["bisect", "rand", "null", "tree", "neighbor2d", "bruck"] {
            assert_eq!(
                Pattern::parse(name, Some("3")).unwrap_err(),
                PatternError::UnexpectedArgument {
                    pattern: name.to_string(),
                    arg: "3".to_string()
                }
            );
        }
        assert!(matches!(
            Pattern::parse("2neighbor", Some("3")),
            Err(PatternError::UnexpectedArgument { .. })
        ));
        // Help.
        assert_eq!(
            Pattern::parse("neighbor", Some("help")).unwrap_err(),
            PatternError::HelpRequested {
                pattern: "neighbor",
                usage: NEIGHBOR_USAGE
            }
        );
        assert_eq!(
            Pattern::parse("bisect", Some("help")).unwrap_err(),
            PatternError::HelpRequested {
                pattern: "bisect",
                usage: ""
            }
        );
        // Length limits.
        let long = "1".repeat(257);
        assert!(matches!(
            Pattern::parse("neighbor", Some(&long)),
            Err(PatternError::ArgumentTooLong { max: 256, .. })
        ));
        assert!(matches!(
            Pattern::parse("ptrnvsptrn", Some(&"x".repeat(1026))),
            Err(PatternError::ArgumentTooLong { max: 1025, .. })
        ));
    }

    #[test]
    fn parse_recvs_arguments() {
        let r = |a: &str| match p("recvs_all_src", Some(a)) {
            Pattern::RecvsAllSrc(x) => x,
            other => panic!("{other:?}"),
        };
        let args = |receivers, c1, c2, linear| RecvsArgs {
            receivers,
            c1,
            c2,
            linear,
        };
        assert_eq!(r("3"), args(3, 1.0, 0.0, false));
        assert_eq!(r("3,linear"), args(3, 1.0, 0.0, true));
        assert_eq!(r("3,rand"), args(3, 1.0, 0.0, false));
        assert_eq!(r("3,0.5"), args(3, 0.5, 0.0, false));
        assert_eq!(r("3,.5,0.25,linear"), args(3, 0.5, 0.25, true));
        assert_eq!(r("3,+1,0"), args(3, 1.0, 0.0, false));
        assert_eq!(r("03,1.0"), args(3, 1.0, 0.0, false));
        for bad in [
            "",
            "0",
            "x",
            "3,",
            ",3",
            "3,1.5",
            "3,-0.5",
            "3,0.5,0.5,0.5",
            "3,linear,0.5",
            "3,rand,linear",
            "3,1.",
            "3,1e-1",
            "3,0.5,,linear",
            "3 ,linear",
            "-3",
            "3,LINEAR",
            "3,nan",
            "3,inf",
        ] {
            assert!(
                matches!(
                    Pattern::parse("recvs_one_src", Some(bad)),
                    Err(PatternError::InvalidArgument {
                        pattern: "recvs_one_src",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn parse_ptrnvsptrn_arguments() {
        let pv = |a| Pattern::parse("ptrnvsptrn", Some(a));
        assert_eq!(
            pv("bisect::bruck").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Bruck)
        );
        assert_eq!(
            pv("neighbor:2::recvs_all_src:2,linear").unwrap(),
            Pattern::ptrnvsptrn(
                Pattern::Neighbor { k: 2 },
                Pattern::RecvsAllSrc(RecvsArgs {
                    receivers: 2,
                    c1: 1.0,
                    c2: 0.0,
                    linear: true
                })
            )
        );
        assert_eq!(
            pv("bisect::neighbor:3").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Neighbor { k: 3 })
        );
        assert_eq!(
            pv("neighbor:3::tree").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Neighbor { k: 3 }, Pattern::Tree)
        );
        assert_eq!(
            pv("4neighbor::bis").unwrap_err(),
            PatternError::AmbiguousPattern {
                name: "bis".into(),
                candidates: vec!["bisect", "bisect_fb_sym"]
            }
        );
        assert_eq!(
            pv("4neighbor::bisect_").unwrap(),
            Pattern::ptrnvsptrn(Pattern::Neighbor { k: 4 }, Pattern::BisectFbSym)
        );
        for bad in [
            "bisect",
            "bisect:bruck",
            "bisect:::bruck",
            "::bruck",
            "bisect::",
            "bisect ::bruck",
            "bisect::br uck",
            "a:b:c::d",
            "bisect::bruck:",
            ":bisect::bruck",
            "bisect:\t::bruck",
            "",
        ] {
            assert!(
                matches!(
                    pv(bad),
                    Err(PatternError::InvalidArgument {
                        pattern: "ptrnvsptrn",
                        ..
                    })
                ),
                "{bad:?}: {:?}",
                pv(bad)
            );
        }
        assert!(matches!(
            pv("ptrnvsptrn::bisect"),
            Err(PatternError::NestedPtrnVsPtrn { .. })
        ));
        assert!(matches!(
            pv("bisect::ptrn:a::b"),
            Err(PatternError::InvalidArgument { .. })
        ));
        assert!(matches!(
            pv("bisect::ptrnvs"),
            Err(PatternError::NestedPtrnVsPtrn { .. })
        ));
        match pv("foo::bar") {
            Err(PatternError::UnknownSubPattern {
                names, available, ..
            }) => {
                assert_eq!(names, vec!["foo", "bar"]);
                assert!(!available.contains("ptrnvsptrn"));
            }
            other => panic!("{other:?}"),
        }
        assert!(pv("foo::bar")
            .unwrap_err()
            .to_string()
            .contains("unknown patterns"));
        assert!(matches!(
            pv("neighbor::bisect"),
            Err(PatternError::MissingArgument { .. })
        ));
        assert!(matches!(
            pv("bisect:3::bruck"),
            Err(PatternError::UnexpectedArgument { .. })
        ));
        assert!(matches!(
            pv("neighbor:x::bruck"),
            Err(PatternError::InvalidArgument {
                pattern: "neighbor",
                ..
            })
        ));
        assert!(matches!(
            pv("bruck::recvs_one_src:0"),
            Err(PatternError::InvalidArgument { .. })
        ));
        assert!(matches!(
            pv("neighbor:help::bruck"),
            Err(PatternError::HelpRequested {
                pattern: "neighbor",
                ..
            })
        ));
        assert!(matches!(
            Pattern::try_ptrnvsptrn(
                Pattern::ptrnvsptrn(Pattern::Bisect, Pattern::Tree),
                Pattern::Tree
            ),
            Err(PatternError::NestedPtrnVsPtrn { .. })
        ));
        assert!(Pattern::try_ptrnvsptrn(Pattern::Bisect, Pattern::Tree).is_ok());
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

    #[test]
    fn levels_api() {
        let mut l = Levels::default();
        assert_eq!(l, Levels::new());
        assert_eq!(l.offsets, vec![0]);
        assert_eq!(l.num_levels(), 0);
        assert_eq!(l.level(0), &[]);
        l.push_level(&[(1, 0), (3, 2)]);
        l.push_pair(0, 1);
        l.end_level();
        l.end_level();
        assert_eq!(l.num_levels(), 3);
        assert_eq!(l.num_pairs(), 3);
        assert_eq!(l.level(0), &[(1, 0), (3, 2)]);
        assert_eq!(l.level(1), &[(0, 1)]);
        assert_eq!(l.level(2), &[]);
        assert_eq!(l.level(3), &[]);
        assert_eq!(l.level(usize::MAX), &[]);
        assert_eq!(l.iter().count(), 3);
        l.clear();
        assert_eq!(l, Levels::new());
        // Robust against inconsistent public fields.
        let broken = Levels {
            pairs: vec![(0, 1)],
            offsets: vec![],
        };
        assert_eq!(broken.num_levels(), 0);
        let broken = Levels {
            pairs: vec![(0, 1)],
            offsets: vec![0, 5],
        };
        assert_eq!(broken.level(0), &[]);
        let mut e = Levels {
            pairs: vec![],
            offsets: vec![],
        };
        e.push_level(&[(0, 1)]);
        assert_eq!(e.level(0), &[(0, 1)]);
    }

    // ----- property tests -----

    fn chance() -> impl Strategy<Value = f64> {
        prop_oneof![Just(1.0), Just(0.0), 0.0f64..=1.0]
    }

    fn recvs_args() -> impl Strategy<Value = RecvsArgs> {
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

    fn simple_pattern() -> impl Strategy<Value = Pattern> {
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

    fn any_pattern() -> impl Strategy<Value = Pattern> {
        prop_oneof![
            3 => simple_pattern(),
            1 => (simple_pattern(), simple_pattern()).prop_map(|(a, b)| Pattern::ptrnvsptrn(a, b)),
        ]
    }

    proptest! {
        #[test]
        fn prop_ranks_valid(pat in any_pattern(), n in 4u32..200, zf in 0.0f64..1.0,
                            compat in any::<bool>(), seed in any::<u64>()) {
            let z = (2 + (zf * f64::from(n - 2)) as u32).min(n - 1);
            let c = PatternContext { commsize: n, part_commsize: z, orcs_compat: compat };
            let mut out = Levels::new();
            pat.generate(&c, &mut rng(seed), &mut out);
            prop_assert!(out.num_levels() <= pat.num_levels(&c));
            let may_end_early = matches!(
                pat,
                Pattern::RecvsOneSrc(_) | Pattern::RecvsAllSrc(_) | Pattern::PtrnVsPtrn { .. }
            );
            if !may_end_early {
                prop_assert_eq!(out.num_levels(), pat.num_levels(&c));
            }
            prop_assert_eq!(*out.offsets.last().unwrap(), out.pairs.len());
            for l in out.iter() {
                prop_assert!(!l.is_empty());
                for &(a, b) in l {
                    prop_assert!(a != b, "self pair {} in {:?}", a, pat);
                    prop_assert!(a < n && b < n);
                }
            }
            if let Pattern::PtrnVsPtrn { first, .. } = &pat {
                for l in out.iter() {
                    // First-pattern pairs (both < z) come first, then second-pattern
                    // pairs (both >= z).
                    let split = l.iter().position(|&(a, _)| a >= z).unwrap_or(l.len());
                    prop_assert!(l[..split].iter().all(|&(a, b)| a < z && b < z));
                    prop_assert!(l[split..].iter().all(|&(a, b)| a >= z && b >= z));
                }
                let _ = first;
            }
        }

        #[test]
        fn prop_rand_is_derangement(n in 2u32..200, compat in any::<bool>(), seed in any::<u64>()) {
            let c = PatternContext { commsize: n, part_commsize: 2, orcs_compat: compat };
            let mut out = Levels::new();
            Pattern::Rand.generate(&c, &mut rng(seed), &mut out);
            prop_assert_eq!(out.num_levels(), 1);
            let l = out.level(0);
            prop_assert_eq!(l.len(), n as usize);
            let mut seen = vec![false; n as usize];
            for (i, &(a, b)) in l.iter().enumerate() {
                prop_assert_eq!(a, i as u32);
                prop_assert!(a != b);
                prop_assert!(!seen[b as usize]);
                seen[b as usize] = true;
            }
        }

        #[test]
        fn prop_neighbor_symmetric(n in 4u32..200, k in 1u32..30) {
            let out = gen(&Pattern::Neighbor { k }, &ctx(n));
            let l = out.level(0);
            let set: BTreeSet<(u32, u32)> = l.iter().copied().collect();
            prop_assert_eq!(set.len(), l.len());
            let mut degree = vec![0u32; n as usize];
            for &(a, b) in l {
                prop_assert!(set.contains(&(b, a)));
                degree[a as usize] += 1;
            }
            prop_assert!(degree.iter().all(|&d| d <= k.min(n - 1)));
            // Each rank's neighbours come out in ascending order; sources are grouped ascending.
            prop_assert!(l.windows(2).all(|w| w[0] < w[1]));
        }

        #[test]
        fn prop_ptrnvsptrn_partition(a in simple_pattern(), b in simple_pattern(),
                                     n in 4u32..120, zf in 0.0f64..1.0, seed in any::<u64>()) {
            let z = (2 + (zf * f64::from(n - 2)) as u32).min(n - 1);
            let pat = Pattern::ptrnvsptrn(a, b);
            let c = ctx_z(n, z);
            let mut out = Levels::new();
            pat.generate(&c, &mut rng(seed), &mut out);
            prop_assert!(out.num_levels() <= pat.num_levels(&c));
            for l in out.iter() {
                let split = l.iter().position(|&(s, _)| s >= z).unwrap_or(l.len());
                prop_assert!(l[..split].iter().all(|&(s, d)| s < z && d < z && s != d));
                prop_assert!(l[split..]
                    .iter()
                    .all(|&(s, d)| s >= z && d >= z && s < n && d < n && s != d));
            }
        }
    }
}
