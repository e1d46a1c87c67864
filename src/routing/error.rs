//! Why a fabric cannot be routed or a table does not fit it: the one error type of the
//! `routing` folder, shared by the engine choice, the engines for any fabric, the
//! structured engines and the stored forwarding tables.

/// Every failure of routing: an engine name or root the choice cannot use, a fabric an
/// engine cannot route, and stored table arrays that do not fit a fabric.
///
/// One type for the whole folder, so that [`route_generated`](super::route_generated),
/// [`engines::route`](super::engines::route) and the structured engines fail the same
/// way and callers wrap one type. The variants stay distinct: tests and callers tell,
/// say, a disconnected fabric from a fabric of the wrong kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoutingError {
    /// The name is no routing engine.
    #[error("unknown --routing '{0}': expected dmodk, smodk, dor, dor-dateline, minhop, updn, dnup, sssp or random")]
    Unknown(String),
    /// The name is no routing engine for a fabric without a generated structure.
    #[error("unknown --routing '{0}': expected minhop, updn, dnup, sssp (dfsssp) or random")]
    UnknownForCabling(String),
    /// A structured engine asked for a fabric without a generated structure.
    #[error("--routing {0} needs the structure of a generated fabric (orcs gen); a cabled fabric takes minhop, updn, dnup, sssp or random")]
    NeedsStructure(String),
    /// Roots given for an engine that takes none.
    #[error("--roots applies to --routing updn")]
    RootsWithoutUpdn,
    /// A root name that names no node.
    #[error("--roots: no node named '{0}'")]
    NoSuchRoot(String),

    /// Two hosts are not connected through switches at all.
    #[error("the fabric is disconnected: no path from host {src} to host {dst} ({reason})")]
    Disconnected {
        /// Source host name.
        src: String,
        /// Destination host name.
        dst: String,
        /// What is missing.
        reason: String,
    },
    /// The engine's rules leave a pair of connected hosts without a route.
    #[error("{engine}: no legal route from host {src} to host {dst} (switch {at} has no {engine} path to it)")]
    Unroutable {
        /// The engine's name.
        engine: &'static str,
        /// Source host name.
        src: String,
        /// Destination host name.
        dst: String,
        /// The switch without a next hop.
        at: String,
    },
    /// updn was given no roots, or detected none.
    #[error("updn: no root switches {0}; OpenSM would fall back to minhop here (use minhop, or give the roots)")]
    NoRoots(&'static str),
    /// A root given to updn is not a switch of the fabric.
    #[error("updn: root {node} is not a switch of the fabric{name}")]
    BadRoot {
        /// The node id given.
        node: u32,
        /// `" (name)"` when the id exists, else empty.
        name: String,
    },
    /// dnup needs switches with hosts to rank from.
    #[error("dnup: no switch has a host attached, so there are no leaf switches to rank from")]
    NoLeafSwitches,
    /// A node has more out-edges than a forwarding-table row can address.
    #[error("node {name} has {edges} out-edges; forwarding tables address at most 65534")]
    TooManyEdges {
        /// The node's name.
        name: String,
        /// Its out-degree.
        edges: usize,
    },

    /// The engine does not apply to this kind of fabric (e.g. "dmodk needs a fat tree").
    #[error("{engine} needs {needs}; this fabric is {found}")]
    WrongStructure {
        /// The engine (`dmodk`, `smodk`, `dor`).
        engine: &'static str,
        /// What it needs.
        needs: &'static str,
        /// What the fabric is.
        found: &'static str,
    },
    /// The routing cannot be written as destination-based forwarding tables.
    #[error("{engine} cannot be expressed as destination-based forwarding tables: {reason}")]
    NotDestinationBased {
        /// The engine.
        engine: &'static str,
        /// Why, and what to use instead.
        reason: String,
    },
    /// The fabric's links do not match the structure recorded with it.
    #[error("{engine}: the fabric does not match its structure: {message}")]
    Inconsistent {
        /// The engine.
        engine: &'static str,
        /// The first mismatch found.
        message: String,
    },
    /// The table would be larger than [`MAX_TABLE_ENTRIES`](super::structured::MAX_TABLE_ENTRIES).
    #[error(
        "{engine}: the forwarding tables would have {entries} entries (switches × hosts), \
         more than the limit of {limit}"
    )]
    TooLarge {
        /// The engine.
        engine: &'static str,
        /// Switches × hosts.
        entries: u128,
        /// [`MAX_TABLE_ENTRIES`](super::structured::MAX_TABLE_ENTRIES).
        limit: u64,
    },
}
