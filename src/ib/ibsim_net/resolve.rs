//! The second pass over an ibsim net file: every port line's remote id resolved to a
//! node, both ends of every cable checked the way ibsim checks them, and the topology
//! built.

use super::syntax::show;
use super::{PortLine, State, HEADER_EXAMPLE};
use crate::error::LocatedError;
use crate::ib::links::{pair_half_links, HalfLink, LinkSource};
use crate::ib::text::perr;
use crate::ib::{IbNode, IbPortLid, IbTopology, NodeKind};

impl State {
    /// Resolves the remote ids, checks both ends of every link and builds the topology.
    pub(super) fn finish(self) -> Result<IbTopology, LocatedError> {
        if self.nodes.is_empty() {
            return Err(perr(
                0,
                "no node records found: expected an ibsim net file with `Switch`, `Hca`/`Ca` \
                 or `Rt` records such as "
                    .to_string()
                    + HEADER_EXAMPLE,
            ));
        }
        let halves = self
            .ports
            .iter()
            .map(|p| self.half_link(p))
            .collect::<Result<Vec<_>, _>>()?;
        let links = pair_half_links(
            &self.nodes,
            &self.by_guid,
            &halves,
            LinkSource::Ibnetdiscover,
        )?;
        let mut port_lids: Vec<IbPortLid> = halves
            .iter()
            .filter_map(|h| {
                Some(IbPortLid {
                    node: h.node,
                    port: h.port,
                    guid: Some(h.own_port_guid?),
                    base_lid: 0,
                    lmc: 0,
                    line: h.line,
                })
            })
            .collect();
        port_lids.sort_unstable_by_key(|p| (p.node, p.port));
        Ok(IbTopology {
            nodes: self.nodes,
            port_lids,
            links,
        })
    }

    /// Port line `p` as a half-link, once its far end exists, has the port, and lists
    /// the cable back to `p`.
    fn half_link(&self, p: &PortLine) -> Result<HalfLink, LocatedError> {
        let peer = self.remote_node(p)?;
        let Some(peer_node) = self.nodes.get(peer as usize) else {
            return Err(perr(
                p.line,
                format!("{} is cabled to an unknown node", self.here(p)),
            ));
        };
        if p.remote_port > peer_node.num_ports {
            return Err(perr(
                p.line,
                format!(
                    "{} is cabled to {}, but {} has only {} ports (line {})",
                    self.here(p),
                    there(p),
                    self.id(peer),
                    peer_node.num_ports,
                    peer_node.line
                ),
            ));
        }
        if peer == p.node && p.remote_port == p.port {
            return Err(perr(
                p.line,
                format!("{} is cabled to itself", self.here(p)),
            ));
        }
        self.listed_back(p, peer, peer_node)?;
        // ibsim gives CA and router port `p` the node GUID + `p`; switch ports share the
        // node GUID and are not recorded.
        let port_guid = |n: Option<&IbNode>, port: u32| {
            n.filter(|n| n.kind != NodeKind::Switch)
                .map(|n| n.guid.wrapping_add(u64::from(port)))
        };
        Ok(HalfLink {
            node: p.node,
            port: p.port,
            own_port_guid: port_guid(self.nodes.get(p.node as usize), p.port),
            peer_guid: peer_node.guid,
            peer_kind: peer_node.kind,
            peer_port: p.remote_port,
            peer_port_guid: port_guid(Some(peer_node), p.remote_port),
            line: p.line,
        })
    }

    /// The node `p`'s remote id names (a node whose description is that id is named in
    /// the message, for the common mix-up of ids and descriptions).
    fn remote_node(&self, p: &PortLine) -> Result<u32, LocatedError> {
        if let Some(&peer) = self.by_id.get(&p.remote) {
            return Ok(peer);
        }
        let hint = self
            .nodes
            .iter()
            .position(|n| n.description.as_bytes() == p.remote.as_slice())
            .map_or_else(String::new, |i| {
                format!(
                    " (the record on line {} has that description, but its id is {})",
                    self.nodes.get(i).map_or(0, |n| n.line),
                    self.id(i as u32)
                )
            });
        Err(perr(
            p.line,
            format!(
                "{} is cabled to {}, but the file has no node with id {}{hint}",
                self.here(p),
                there(p),
                show(&p.remote)
            ),
        ))
    }

    /// The far end's record lists the cable back to `p`'s port (ibsim's check).
    fn listed_back(&self, p: &PortLine, peer: u32, peer_node: &IbNode) -> Result<(), LocatedError> {
        match self
            .port_at
            .get(&(peer, p.remote_port))
            .and_then(|&i| self.ports.get(i))
        {
            None => Err(perr(
                p.line,
                format!(
                    "{} is cabled to {}, but the record of {} (line {}) does not list port {} \
                     (ibsim: remote port {} in node {} is not connected to node {} port {})",
                    self.here(p),
                    there(p),
                    self.id(peer),
                    peer_node.line,
                    p.remote_port,
                    p.remote_port,
                    self.id(peer),
                    self.id(p.node),
                    p.port
                ),
            )),
            Some(back)
                if self.by_id.get(&back.remote) != Some(&p.node) || back.remote_port != p.port =>
            {
                let back_target = format!("{}[{}]", show(&back.remote), back.remote_port);
                Err(perr(
                    p.line,
                    format!(
                        "the two ends of a link disagree: {} (line {}) says it is cabled to {}, \
                         but {} (line {}) says it is cabled to {back_target}",
                        self.here(p),
                        p.line,
                        there(p),
                        there(p),
                        back.line
                    ),
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// `p`'s own end for messages: `"id"[port]`.
    fn here(&self, p: &PortLine) -> String {
        format!("{}[{}]", self.id(p.node), p.port)
    }
}

/// `p`'s far end as the line names it, for messages.
fn there(p: &PortLine) -> String {
    format!("{}[{}]", show(&p.remote), p.remote_port)
}
