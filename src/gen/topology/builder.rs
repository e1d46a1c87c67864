//! The fabric under construction: nodes and cables collected in creation order, then laid
//! out as a [`Fabric`] with the edge numbering and port keys every generator promises
//! (see the [parent module](super)), plus the node names the generators share.

use crate::fabric::dot::Comment;
use crate::fabric::{EdgeComments, Fabric, NONE};

/// Collects nodes and cables, then lays them out as a [`Fabric`].
pub(super) struct Builder {
    names: Vec<String>,
    is_host: Vec<bool>,
    /// Directed edges: (tail, head, port at the tail), in creation order.
    edges: Vec<(u32, u32, u32)>,
}

impl Builder {
    /// An empty builder with room for `nodes` nodes and `cables` cables.
    pub(super) fn new(nodes: usize, cables: usize) -> Self {
        Builder {
            names: Vec::with_capacity(nodes),
            is_host: Vec::with_capacity(nodes),
            edges: Vec::with_capacity(2 * cables),
        }
    }

    /// Adds `count` hosts named `H` + zero-padded decimal index (nodes `0..count` when
    /// called first).
    pub(super) fn hosts(&mut self, count: u32) {
        let width = host_name_width(count);
        for i in 0..count {
            self.names.push(format!("H{i:0width$}"));
            self.is_host.push(true);
        }
    }

    /// The id the next node added will get (the number of nodes so far).
    pub(super) fn next_node(&self) -> u32 {
        self.names.len() as u32
    }

    /// Adds a switch and returns its node id.
    pub(super) fn switch(&mut self, name: String) -> u32 {
        self.names.push(name);
        self.is_host.push(false);
        (self.names.len() - 1) as u32
    }

    /// Adds a cable between port `port_a` of `a` and port `port_b` of `b`.
    pub(super) fn cable(&mut self, a: u32, port_a: u32, b: u32, port_b: u32) {
        self.edges.push((a, b, port_a));
        self.edges.push((b, a, port_b));
    }

    /// The fabric: edges sorted by (tail, head) with creation order kept among parallel
    /// edges (a stable sort), keys = ports, no routing comments.
    pub(super) fn finish(mut self) -> Fabric {
        let n = self.names.len();
        self.edges.sort_by_key(|&(tail, head, _)| (tail, head));
        let mut out_start = vec![0u32; n + 1];
        for &(tail, _, _) in &self.edges {
            out_start[tail as usize + 1] += 1;
        }
        for v in 0..n {
            out_start[v + 1] += out_start[v];
        }
        let mut hosts = Vec::new();
        let mut host_of_node = vec![NONE; n];
        for (v, &h) in self.is_host.iter().enumerate() {
            if h {
                host_of_node[v] = hosts.len() as u32;
                hosts.push(v as u32);
            }
        }
        let m = self.edges.len();
        Fabric {
            graph_id: None,
            graph_attrs: Vec::new(),
            node_lines: vec![0; n],
            node_attrs: vec![Vec::new(); n],
            node_names: self.names,
            hosts,
            host_of_node,
            out_start,
            edge_tail: self.edges.iter().map(|e| e.0).collect(),
            edge_head: self.edges.iter().map(|e| e.1).collect(),
            edge_lines: vec![0; m],
            edge_keys: self.edges.iter().map(|e| Some(e.2.to_string())).collect(),
            edge_attrs: vec![Vec::new(); m],
            edge_comments: EdgeComments {
                kinds: vec![Comment::Absent; m],
                ..EdgeComments::default()
            },
        }
    }
}

/// Digits in a host name: 5, or more when the largest index needs them.
fn host_name_width(hosts: u32) -> usize {
    let last = hosts.saturating_sub(1);
    (last.checked_ilog10().unwrap_or(0) as usize + 1).max(5)
}

/// `S<c0>_<c1>_...`
pub(super) fn coord_name(coords: &[u32]) -> String {
    let parts: Vec<String> = coords.iter().map(u32::to_string).collect();
    format!("S{}", parts.join("_"))
}

pub(super) fn join_x(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_fixed_width_decimal() {
        assert_eq!(host_name_width(1), 5);
        assert_eq!(host_name_width(100_000), 5);
        assert_eq!(host_name_width(100_001), 6);
        let g = super::super::kary_ntree(2, 2).unwrap();
        assert_eq!(g.fabric.host_name(3), "H00003");
    }
}
