//! InfiniBand fabric dumps: the topology and forwarding-table model, their parsers, and
//! the conversion into a routed [`crate::fabric::Fabric`].
//!
//! Topologies come from `ibnetdiscover` output (any version, with or without `-s`
//! progress lines, or its `-p` ports report), OpenSM/ibdiagnet `.lst` link lists or ibsim
//! net files; forwarding tables from `ibroute`/`dump_lfts.sh`/`dump_fts`, OpenSM's
//! `opensm-lfts.dump`, or `.fdbs` files; LIDs of ibsim fabrics from OpenSM's `guid2lid`;
//! readable names from node name maps. Every layout is detected from the content.
//!
//! Every parser reads a `BufRead` and reports a bad input as a
//! [`LocatedError`] at its line, without a file name (the
//! caller, [`crate::fabric::input`], names the file). [`IbError`] is what makes dumps
//! that parse unusable together.
//!
//! This folder may use [`crate::error`], the fabric model and loaded fabric of
//! [`crate::fabric`] and the forwarding table of [`crate::routing`] (for the conversion
//! only); it does not read files itself.

use std::fmt;

use crate::error::LocatedError;

/// What kind of device a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    /// A switch (routes with a linear forwarding table).
    Switch,
    /// A channel adapter (a host).
    Ca,
    /// A router.
    Router,
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeKind::Switch => "switch",
            NodeKind::Ca => "CA",
            NodeKind::Router => "router",
        })
    }
}

/// One device of the fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbNode {
    /// Switch, CA or router.
    pub kind: NodeKind,
    /// Node GUID.
    pub guid: u64,
    /// Node description (`NodeDescription`, or the mapped name with a node name map).
    pub description: String,
    /// Number of ports as the dump states it (0 when unknown).
    pub num_ports: u32,
    /// Switches: the LID of management port 0, if known.
    pub lid: Option<u32>,
    /// 1-based line of the node's record (or first mention) in its file.
    pub line: u32,
}

/// LID assignment of one CA or router port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbPortLid {
    /// Index into [`IbTopology::nodes`].
    pub node: u32,
    /// Port number.
    pub port: u32,
    /// Port GUID, if known.
    pub guid: Option<u64>,
    /// Base LID (0 = unassigned).
    pub base_lid: u32,
    /// LID mask control: the port owns `base_lid .. base_lid + 2^lmc`.
    pub lmc: u8,
    /// 1-based line where the assignment was read.
    pub line: u32,
}

/// One cable between two ports, stored once (a < b in (node, port) order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IbLink {
    /// One end: (node index, port number).
    pub a: (u32, u32),
    /// The other end.
    pub b: (u32, u32),
    /// 1-based line where the link was first seen.
    pub line: u32,
}

/// A discovered fabric: devices, their cabling and their LIDs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IbTopology {
    /// Devices, in order of appearance.
    pub nodes: Vec<IbNode>,
    /// LIDs of CA and router ports.
    pub port_lids: Vec<IbPortLid>,
    /// Cables, each once, sorted.
    pub links: Vec<IbLink>,
}

impl IbTopology {
    /// The index of the node with this GUID.
    pub fn node_by_guid(&self, guid: u64) -> Option<u32> {
        self.nodes
            .iter()
            .position(|n| n.guid == guid)
            .map(|i| i as u32)
    }
}

/// Marks "no route" in a [`SwitchLft`].
pub const NO_ROUTE: u8 = u8::MAX;

/// One switch's linear forwarding table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchLft {
    /// The switch's node GUID.
    pub guid: u64,
    /// The switch's LID when the dump states it.
    pub lid: Option<u32>,
    /// 1-based line of the switch's header.
    pub line: u32,
    /// Output port per destination LID (index = LID); [`NO_ROUTE`] where there is none.
    /// Port 0 is the switch itself.
    pub ports: Vec<u8>,
}

impl SwitchLft {
    /// The output port for `lid`, if the table has one.
    pub fn port(&self, lid: u32) -> Option<u8> {
        self.ports
            .get(lid as usize)
            .copied()
            .filter(|&p| p != NO_ROUTE)
    }
}

/// Which tool wrote a forwarding-table dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LftLayout {
    /// `ibroute`, `dump_lfts.sh`, `dump_fts` (infiniband-diags).
    Ibroute,
    /// OpenSM's `opensm-lfts.dump`.
    OpensmLftsDump,
    /// `.fdbs`: OpenSM `opensm.fdbs`, ibdiagnet v1/v2.
    Fdbs,
}

/// The forwarding tables of every switch in a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lfts {
    /// The layout the dump was detected as.
    pub layout: LftLayout,
    /// Switches in file order.
    pub switches: Vec<SwitchLft>,
}

/// A problem that makes InfiniBand dumps unusable together: a topology and a
/// forwarding-table dump that each parse but do not describe one routed fabric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IbError {
    /// The LFT dump names a switch the topology does not have.
    #[error("{lft_file}:{line}: the forwarding table of switch {guid:#018x} names no switch of the topology ({topo_file})")]
    UnknownSwitch {
        /// The LFT file.
        lft_file: String,
        /// Line of the table's header.
        line: u32,
        /// The switch GUID.
        guid: u64,
        /// The topology file.
        topo_file: String,
    },
    /// A switch of the topology has no forwarding table.
    #[error("{lft_file}: no forwarding table for switch {guid:#018x} ({description}, {topo_file}:{line}); is the dump truncated or from another fabric?")]
    MissingTable {
        /// The LFT file.
        lft_file: String,
        /// The switch GUID.
        guid: u64,
        /// Its description.
        description: String,
        /// The topology file.
        topo_file: String,
        /// Line of the switch's record in the topology.
        line: u32,
    },
    /// An LFT row sends a host's LID through a port the switch does not have.
    #[error("{lft_file}:{line}: switch {guid:#018x} sends LID {lid} through port {port}, but the switch has {num_ports} ports")]
    NoSuchPort {
        /// The LFT file.
        lft_file: String,
        /// Line of the table's header.
        line: u32,
        /// The switch GUID.
        guid: u64,
        /// The LID.
        lid: u32,
        /// The port.
        port: u8,
        /// The switch's port count.
        num_ports: u32,
    },
    /// With `lmc_paths`, switches use several ports for one host.
    #[error("{lft_file}: with --lmc-paths, {count} (switch, host) pairs use several ports; a destination-based fabric keeps one, so simulate it with --orcs-compat (the first edge in ORCS order wins) or drop --lmc-paths")]
    SeveralNextHops {
        /// The LFT file.
        lft_file: String,
        /// Pairs with several ports.
        count: u64,
    },
    /// The topology has no CA (host).
    #[error("{topo_file}: the topology has no channel adapters (hosts)")]
    NoHosts {
        /// The topology file.
        topo_file: String,
    },
}

impl From<IbError> for LocatedError {
    /// The same problem as a problem of one input: the file (and line) the message starts
    /// with, and the rest of the message; it displays exactly as the [`IbError`] does.
    fn from(e: IbError) -> Self {
        let (path, line) = match &e {
            IbError::UnknownSwitch { lft_file, line, .. }
            | IbError::NoSuchPort { lft_file, line, .. } => (lft_file.clone(), Some(*line)),
            IbError::MissingTable { lft_file, .. } | IbError::SeveralNextHops { lft_file, .. } => {
                (lft_file.clone(), None)
            }
            IbError::NoHosts { topo_file } => (topo_file.clone(), None),
        };
        let text = e.to_string();
        let prefix = match line {
            Some(line) => format!("{path}:{line}: "),
            None => format!("{path}: "),
        };
        let message = text.strip_prefix(&prefix).unwrap_or(&text).to_string();
        LocatedError {
            line,
            ..LocatedError::new(path, message)
        }
    }
}

pub mod convert;
pub mod detect;
pub mod guid2lid;
pub mod ibnetdiscover;
pub mod ibsim_net;
pub mod lft;
mod links;
pub mod lst;
pub mod node_name_map;
pub mod ports_report;
mod text;
