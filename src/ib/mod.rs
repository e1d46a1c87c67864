//! InfiniBand fabric dumps: the topology and forwarding-table model, their parsers, and
//! the conversion into a routed [`crate::fabric::Fabric`].
//!
//! Topologies come from `ibnetdiscover` output (any version, with or without `-s`
//! progress lines) or OpenSM/ibdiagnet `.lst` link lists; forwarding tables from
//! `ibroute`/`dump_lfts.sh`/`dump_fts`, OpenSM's `opensm-lfts.dump`, or `.fdbs` files.
//! Every layout is detected from the content.

use std::fmt;

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

/// A parse failure at a line of the input (the caller adds the file name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line (0 when the problem is the file as a whole).
    pub line: u32,
    /// What is wrong and what was expected.
    pub message: String,
}

pub mod convert;
pub mod guid2lid;
pub mod ibnetdiscover;
pub mod ibsim_net;
pub mod lft;
pub mod lst;
pub mod node_name_map;
pub mod ports_report;
pub mod topology;
