//! Pairing half-links into cables: every parser of a link-listing format (ibnetdiscover
//! records, `.lst` lists, ports reports, ibsim net files) collects one [`HalfLink`] per
//! listed port end, and [`pair_half_links`] checks that both ends list each cable, the
//! same way, before storing it once.

use std::collections::HashMap;

use super::text::{node_id, perr};
use crate::error::LocatedError;
use crate::ib::{IbLink, IbNode, NodeKind};

/// One cabled port as one side lists it: `(node, port)` is cabled to `(peer, peer_port)`.
#[derive(Debug, Clone)]
pub(super) struct HalfLink {
    /// Index of the listing node.
    pub(super) node: u32,
    /// The listing node's port.
    pub(super) port: u32,
    /// The listing port's own port GUID, when the line states it (CA/router ports).
    pub(super) own_port_guid: Option<u64>,
    /// Node GUID of the far end.
    pub(super) peer_guid: u64,
    /// Kind of the far end as this line states it.
    pub(super) peer_kind: NodeKind,
    /// Port of the far end.
    pub(super) peer_port: u32,
    /// Port GUID of the far end, when the line states it.
    pub(super) peer_port_guid: Option<u64>,
    /// 1-based line of the listing.
    pub(super) line: u32,
}

/// Which file a set of half-links came from (only changes the error wording).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LinkSource {
    /// ibnetdiscover records: each record lists its own cabled ports.
    Ibnetdiscover,
    /// `.lst` link lists: each link is listed once from each end.
    Lst,
}

/// Pairs half-links into links, stored once (`a < b`) and sorted.
///
/// Checks, in file order of the half-links (the first problem is reported at the line of
/// the offending half-link): a port listed twice; a peer GUID without a node; a peer whose
/// kind differs from the one stated; a port cabled to itself; a peer port not listed back;
/// a peer port listed as cabled elsewhere; a peer port GUID differing from the one the
/// peer states. `O(P log P)`.
pub(super) fn pair_half_links(
    nodes: &[IbNode],
    by_guid: &HashMap<u64, u32>,
    halves: &[HalfLink],
    source: LinkSource,
) -> Result<Vec<IbLink>, LocatedError> {
    let pairing = Pairing::new(nodes, by_guid, halves, source);
    let mut links = Vec::with_capacity(halves.len() / 2);
    for h in halves {
        pairing.unique(h)?;
        let peer = pairing.peer(h)?;
        let back = pairing.listed_back(h, peer)?;
        pairing.agree(h, back)?;
        if (h.node, h.port) < (peer, h.peer_port) {
            links.push(IbLink {
                a: (h.node, h.port),
                b: (peer, h.peer_port),
                line: h.line.min(back.line),
            });
        }
    }
    links.sort_unstable();
    Ok(links)
}

/// The half-links of one file with what the checks look them up by.
struct Pairing<'a> {
    nodes: &'a [IbNode],
    by_guid: &'a HashMap<u64, u32>,
    halves: &'a [HalfLink],
    source: LinkSource,
    /// (node, port, index) sorted: the first entry of an equal (node, port) run is the
    /// earliest listing because half-links are pushed in file order.
    order: Vec<(u32, u32, u32)>,
}

impl<'a> Pairing<'a> {
    fn new(
        nodes: &'a [IbNode],
        by_guid: &'a HashMap<u64, u32>,
        halves: &'a [HalfLink],
        source: LinkSource,
    ) -> Self {
        let mut order: Vec<(u32, u32, u32)> = halves
            .iter()
            .enumerate()
            .map(|(i, h)| (h.node, h.port, i as u32))
            .collect();
        order.sort_unstable();
        Pairing {
            nodes,
            by_guid,
            halves,
            source,
            order,
        }
    }

    /// The first listing of `(node, port)`, if any.
    fn find(&self, node: u32, port: u32) -> Option<&'a HalfLink> {
        let i = self
            .order
            .partition_point(|&(n, p, _)| (n, p) < (node, port));
        match self.order.get(i) {
            Some(&(n, p, idx)) if (n, p) == (node, port) => self.halves.get(idx as usize),
            _ => None,
        }
    }

    /// A node's id for messages (labels are only formatted on the error paths).
    fn label(&self, node: u32) -> String {
        self.nodes
            .get(node as usize)
            .map_or_else(|| format!("node #{node}"), |n| node_id(n.kind, n.guid))
    }

    /// `h`'s own end for messages: `"S-…"[port]`.
    fn here(&self, h: &HalfLink) -> String {
        format!("{}[{}]", self.label(h.node), h.port)
    }

    /// The far end as `h` states it, for messages.
    fn there(h: &HalfLink) -> String {
        format!("{}[{}]", node_id(h.peer_kind, h.peer_guid), h.peer_port)
    }

    /// `h` is the only listing of its port.
    fn unique(&self, h: &HalfLink) -> Result<(), LocatedError> {
        let Some(first) = self.find(h.node, h.port).filter(|f| f.line != h.line) else {
            return Ok(());
        };
        Err(perr(
            h.line,
            match self.source {
                LinkSource::Ibnetdiscover => format!(
                    "port {} of {} is listed twice in its record (lines {} and {})",
                    h.port,
                    self.label(h.node),
                    first.line,
                    h.line
                ),
                LinkSource::Lst => format!(
                    "{} is listed as the first end of two links (lines {} and {})",
                    self.here(h),
                    first.line,
                    h.line
                ),
            },
        ))
    }

    /// The node `h` is cabled to: it must exist, be of the stated kind, and not be `h`'s
    /// own port.
    fn peer(&self, h: &HalfLink) -> Result<u32, LocatedError> {
        let Some(&peer) = self.by_guid.get(&h.peer_guid) else {
            return Err(perr(
                h.line,
                format!(
                    "{} is cabled to {}, but the file has no record for node 0x{:016x}",
                    self.here(h),
                    Self::there(h),
                    h.peer_guid
                ),
            ));
        };
        if let Some(pn) = self.nodes.get(peer as usize) {
            if pn.kind != h.peer_kind {
                return Err(perr(
                    h.line,
                    format!(
                        "{} names its peer {} as a {}, but node 0x{:016x} is a {} (line {})",
                        self.here(h),
                        Self::there(h),
                        h.peer_kind,
                        h.peer_guid,
                        pn.kind,
                        pn.line
                    ),
                ));
            }
        }
        if peer == h.node && h.peer_port == h.port {
            return Err(perr(
                h.line,
                format!("{} is cabled to itself", self.here(h)),
            ));
        }
        Ok(peer)
    }

    /// The far end's own listing of the cable.
    fn listed_back(&self, h: &HalfLink, peer: u32) -> Result<&'a HalfLink, LocatedError> {
        self.find(peer, h.peer_port).ok_or_else(|| {
            perr(
                h.line,
                match self.source {
                    LinkSource::Ibnetdiscover => format!(
                        "{} is cabled to {}, but the record of {} (line {}) does not list port {}",
                        self.here(h),
                        Self::there(h),
                        self.label(peer),
                        self.nodes.get(peer as usize).map_or(0, |n| n.line),
                        h.peer_port
                    ),
                    LinkSource::Lst => format!(
                        "{} is cabled to {}, but no line lists that link from {}'s side (each \
                         link must appear twice)",
                        self.here(h),
                        Self::there(h),
                        Self::there(h)
                    ),
                },
            )
        })
    }

    /// Both ends name each other, with the same port GUIDs.
    fn agree(&self, h: &HalfLink, back: &HalfLink) -> Result<(), LocatedError> {
        let home_guid = self.nodes.get(h.node as usize).map_or(0, |n| n.guid);
        if back.peer_guid != home_guid || back.peer_port != h.port {
            return Err(perr(
                h.line,
                format!(
                    "the two ends of a link disagree: {} (line {}) says it is cabled to {}, but \
                     {} (line {}) says it is cabled to {}[{}]",
                    self.here(h),
                    h.line,
                    Self::there(h),
                    Self::there(h),
                    back.line,
                    node_id(back.peer_kind, back.peer_guid),
                    back.peer_port
                ),
            ));
        }
        match (h.peer_port_guid, back.own_port_guid) {
            (Some(stated), Some(own)) if stated != own => Err(perr(
                h.line,
                format!(
                    "{} gives {} the port GUID {stated:x}, but line {} gives it {own:x}",
                    self.here(h),
                    Self::there(h),
                    back.line
                ),
            )),
            _ => Ok(()),
        }
    }
}
