//! Why a workload cannot be set up: the one error type of the `workload` folder, for
//! pattern names and arguments, communicator sizes and the choice of hosts.

/// Every failure of a pattern, a communicator size or the choice of hosts.
///
/// One type for the whole folder, so that callers wrap one type; each entry point fails
/// with its own variants only: [`Pattern::parse`](super::Pattern::parse) and
/// [`PatternKind::parse_name`](super::PatternKind::parse_name) with the pattern variants
/// (including [`WorkloadError::HelpRequested`], the `-a help` request the command line
/// picks out), the communicator size with [`WorkloadError::TooFewHosts`] and
/// [`WorkloadError::Commsize`], and
/// [`RankLayout::build`](super::mapping::RankLayout::build) with
/// [`WorkloadError::BfsTooFewHosts`]. The readers (traffic matrices, the node ordering
/// file) report a bad input as a [`LocatedError`](crate::error::LocatedError) instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
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

    /// The fabric has fewer than four hosts.
    #[error("the fabric has {0} hosts (nodes whose name starts with `H`); the simulator needs at least four")]
    TooFewHosts(usize),
    /// More ranks than the hosts can take at the given ranks per host.
    #[error("{ranks} ranks at {per_host} per host need {} hosts; the fabric has {hosts} (place more ranks per host)", .ranks.div_ceil(*.per_host))]
    RanksExceedHosts {
        /// Ranks to place.
        ranks: usize,
        /// Ranks per host.
        per_host: usize,
        /// The fabric's hosts.
        hosts: usize,
    },
    /// The requested size is below 4 or above the host count.
    #[error("commsize must be between 4 and {hosts} (the hosts of the fabric), got {requested}")]
    Commsize {
        /// The size asked for.
        requested: u64,
        /// The fabric's hosts.
        hosts: usize,
    },

    /// `linear_bfs` found too few hosts.
    #[error(
        "--subset linear_bfs reached only {found} of {wanted} hosts from the first node of the file"
    )]
    BfsTooFewHosts {
        /// Hosts reached.
        found: usize,
        /// Hosts needed.
        wanted: usize,
    },
}
