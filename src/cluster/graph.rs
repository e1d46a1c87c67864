//! The cluster model of PFSim-style studies: hosts with processing elements, directed
//! links with capacities, and the adjacency in input order that PFSim's path enumeration
//! follows; read from PFSim's GraphML schema ([`crate::cluster::graphml`]) or from any
//! fabric orcs reads.

use crate::error::LocatedError;
use crate::workload::matrix::located;
use std::io::Read;

/// A PFSim cluster read from GraphML: hosts carry processing elements, edges capacities.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cluster {
    /// The graph's `name` attribute, if any.
    pub name: Option<String>,
    /// Node names in file order.
    pub names: Vec<String>,
    /// Per node: true for `typ` = host.
    pub is_host: Vec<bool>,
    /// Host index → node id, in file order (the host order of the Linear selector and D-mod-K).
    pub hosts: Vec<u32>,
    /// Per host index: processing elements (`capacity`, default 1).
    pub host_pes: Vec<u32>,
    /// Directed edges in file order: (tail, head, capacity; default 1.0 where absent).
    pub edges: Vec<(u32, u32, f64)>,
    /// Per node: indices into `edges` of its out-edges, in file order (the adjacency
    /// insertion order networkx uses, which decides PFSim's shortest-path enumeration order).
    pub out_edges: Vec<Vec<u32>>,
}

impl Cluster {
    /// The cluster of a fabric, its routing ignored: hosts in the fabric's host order,
    /// edges in its edge order. A host's processing elements come from its `capacity`
    /// attribute (default 1), a link's capacity from the edge's `capacity` attribute
    /// (default 1.0); a value that is not a positive number is an error naming `path`
    /// and the input line. O(nodes + edges).
    pub fn from_fabric(
        fabric: &crate::fabric::Fabric,
        path: &str,
    ) -> Result<Cluster, LocatedError> {
        let n = fabric.num_nodes();
        let mut host_pes = Vec::with_capacity(fabric.num_hosts());
        for &node in &fabric.hosts {
            let v = node as usize;
            let line = Some(fabric.node_lines[v] as usize).filter(|&l| l > 0);
            let pes = match fabric.node_attrs[v].iter().find(|(k, _)| k == "capacity") {
                None => 1,
                Some((_, text)) => match text.trim_matches('"').parse::<u32>() {
                    Ok(p) if p > 0 => p,
                    _ => {
                        return Err(located(
                            path,
                            line,
                            format!("host capacity \"{text}\" is not a positive whole number of processing elements"),
                        ))
                    }
                },
            };
            host_pes.push(pes);
        }
        let capacity = fabric.edge_capacities(path)?;
        let mut edges = Vec::with_capacity(fabric.num_edges());
        let mut out_edges = vec![Vec::new(); n];
        for (e, &cap) in capacity.iter().enumerate() {
            let (u, v) = (fabric.edge_tail[e], fabric.edge_head[e]);
            out_edges[u as usize].push(e as u32);
            edges.push((u, v, cap));
        }
        Ok(Cluster {
            name: fabric.graph_id.clone(),
            names: fabric.node_names.clone(),
            is_host: (0..n)
                .map(|v| fabric.host_of_node[v] != crate::fabric::NONE)
                .collect(),
            hosts: fabric.hosts.clone(),
            host_pes,
            edges,
            out_edges,
        })
    }

    /// The switch a host's first out-edge leads to, its leaf (the host's own node when
    /// it has no link). O(1).
    pub(crate) fn leaf_of(&self, host: u32) -> u32 {
        let node = self.hosts[host as usize];
        self.out_edges[node as usize]
            .first()
            .map_or(node, |&e| self.edges[e as usize].1)
    }
}

/// Reads a cluster: PFSim GraphML (a `.graphml` name or a file that starts with XML), or
/// any fabric `orcs -i` reads (dot, `.orcsfab`), whose routing is then ignored (see
/// [`Cluster::from_fabric`]). O(file size).
pub fn read_cluster(path: &str) -> Result<Cluster, LocatedError> {
    let looks_xml = path.ends_with(".graphml")
        || std::fs::File::open(path)
            .and_then(|mut f| {
                let mut head = [0u8; 64];
                let n = f.read(&mut head)?;
                Ok(String::from_utf8_lossy(&head[..n])
                    .trim_start()
                    .starts_with('<'))
            })
            .unwrap_or(false);
    if looks_xml {
        return crate::cluster::graphml::read_cluster_graphml(path);
    }
    let spec = crate::fabric::input::InputSpec {
        path: path.to_string(),
        topology_only: true,
        ..Default::default()
    };
    let loaded = crate::fabric::input::load_input(&spec)
        .map_err(|e| LocatedError::at(path, e.line, e.message))?;
    Cluster::from_fabric(&loaded.fabric, path)
}
