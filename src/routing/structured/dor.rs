//! Dimension-order routing ([`dor`]) on meshes, tori, hypercubes and HyperX: a
//! [`Structure::Grid`] checked link by link, then the lowest differing dimension first.

use super::{check_table_size, edges_by_port, route_hosts, structure_name, Check};
use crate::gen::{Generated, Structure};
use crate::routing::{ForwardingTable, RoutingError};

/// Dimension-order routing on a [`Structure::Grid`] (mesh, torus, hypercube, HyperX).
///
/// A switch sends a destination host on another switch along the lowest dimension in
/// which their coordinates differ: in a HyperX straight to the destination's coordinate;
/// in a mesh (and a hypercube) one step towards it; in a torus dimension one step in the
/// shorter direction around the ring, the `+` direction on a tie. The destination's
/// switch delivers it through its own link to the host. Parallel links to one neighbour:
/// the lowest port.
///
/// `datelines`: a forwarding table has no virtual lanes, so a dateline cannot switch
/// lanes; with `datelines = true` every ring of a torus is cut at its dateline, the
/// wraparound link between coordinates `d - 1` and `0`, and routes never cross it (they
/// go the other way round, as in the mesh). The channel dependency graph is then acyclic
/// (deadlock-free on one virtual lane) at the price of non-minimal routes and idle
/// wraparound links. With `datelines = false` routes are minimal, and a torus with a ring
/// of 3 or more switches has dependency cycles. Meshes, hypercubes and HyperX are
/// unaffected.
///
/// O(switches × hosts × dimensions) time, O(switches × hosts) table memory.
pub fn dor(generated: &Generated, datelines: bool) -> Result<ForwardingTable, RoutingError> {
    let grid = Grid::new(generated, datelines)?;
    let fabric = grid.check.fabric;
    let mut table = ForwardingTable::new(fabric);
    route_hosts(DOR, fabric, &mut table)?;
    let switches: Vec<u32> = (0..fabric.num_nodes() as u32)
        .filter(|&v| !grid.is_host(v))
        .collect();
    let host_switch = grid.host_switches(&switches)?;
    // Flat switch coordinates.
    let flat: Vec<u32> = switches
        .iter()
        .flat_map(|&v| grid.coords[v as usize].iter().copied())
        .collect();
    let n = grid.dims.len();
    for (own, &v) in switches.iter().enumerate() {
        let links = grid.links_of(v)?;
        let row = table.row_mut(fabric, v);
        for (d, &s) in host_switch.iter().enumerate() {
            row[d] = if s as usize == own {
                grid.delivery(v, d as u32, &links)?
            } else {
                grid.next_link(v, &flat[s as usize * n..(s as usize + 1) * n], &links)?
            };
        }
    }
    Ok(table)
}

/// The engine name of [`dor`] in errors.
const DOR: &str = "dor";

/// The links of one switch of a grid.
struct GridLinks {
    /// To other switches: (dimension, coordinate there, local edge), sorted by
    /// (dimension, coordinate), the lowest port first among parallel links.
    switches: Vec<(usize, u32, u16)>,
    /// To its hosts: (host, local edge), sorted by host.
    hosts: Vec<(u32, u16)>,
}

/// A validated [`Structure::Grid`] for [`dor`].
struct Grid<'a> {
    check: Check<'a>,
    dims: &'a [u32],
    wrap: &'a [bool],
    coords: &'a [Vec<u32>],
    all_to_all: bool,
    datelines: bool,
}

impl<'a> Grid<'a> {
    /// Reads `generated`'s structure and checks its dimensions and coordinates.
    fn new(generated: &'a Generated, datelines: bool) -> Result<Self, RoutingError> {
        let fabric = &generated.fabric;
        let Structure::Grid {
            dims,
            wrap,
            coords,
            all_to_all,
        } = &generated.structure
        else {
            return Err(RoutingError::WrongStructure {
                engine: DOR,
                needs: "a mesh, torus, hypercube or HyperX",
                found: structure_name(&generated.structure),
            });
        };
        let check = Check {
            engine: DOR,
            fabric,
        };
        let n = dims.len();
        let nodes = fabric.num_nodes();
        if n == 0 || wrap.len() != n || coords.len() != nodes || dims.contains(&0) {
            return Err(check.fail(format!(
                "{n} dimensions, {} wrap flags, coordinates for {} of {nodes} nodes",
                wrap.len(),
                coords.len()
            )));
        }
        check_table_size(DOR, fabric)?;
        for (v, c) in coords.iter().enumerate() {
            if c.len() != n || c.iter().zip(dims).any(|(&x, &d)| x >= d) {
                return Err(check.fail(format!(
                    "{} has coordinates {c:?} outside {dims:?}",
                    check.name(v as u32)
                )));
            }
        }
        Ok(Grid {
            check,
            dims,
            wrap,
            coords,
            all_to_all: *all_to_all,
            datelines,
        })
    }

    /// True when node `v` is a host.
    fn is_host(&self, v: u32) -> bool {
        self.check.fabric.host_of_node[v as usize] != crate::fabric::NONE
    }

    /// Each host's switch, as a position in `switches`; checks that it is the switch of
    /// the host's coordinates.
    fn host_switches(&self, switches: &[u32]) -> Result<Vec<u32>, RoutingError> {
        let fabric = self.check.fabric;
        let mut position = vec![u32::MAX; fabric.num_nodes()];
        for (i, &v) in switches.iter().enumerate() {
            position[v as usize] = i as u32;
        }
        let mut host_switch = Vec::with_capacity(fabric.num_hosts());
        for &x in &fabric.hosts {
            let first = edges_by_port(fabric, x, |_| true)[0];
            let head = fabric.edge_head[(fabric.out_start[x as usize] + first as u32) as usize];
            if self.is_host(head) || self.coords[head as usize] != self.coords[x as usize] {
                return Err(self.check.fail(format!(
                    "host {} is attached to {}",
                    self.check.name(x),
                    self.check.name(head)
                )));
            }
            host_switch.push(position[head as usize]);
        }
        Ok(host_switch)
    }

    /// Switch `v`'s links, each checked to change exactly one coordinate.
    fn links_of(&self, v: u32) -> Result<GridLinks, RoutingError> {
        let fabric = self.check.fabric;
        let c = &self.coords[v as usize];
        let start = fabric.out_start[v as usize];
        let mut links: Vec<(usize, u32, u16)> = Vec::new();
        let mut deliver = Vec::new();
        for local in edges_by_port(fabric, v, |_| true) {
            let head = fabric.edge_head[(start + local as u32) as usize];
            if self.is_host(head) {
                deliver.push((fabric.host_of_node[head as usize], local));
                continue;
            }
            let hc = &self.coords[head as usize];
            let differ: Vec<usize> = (0..c.len()).filter(|&i| hc[i] != c[i]).collect();
            match differ.as_slice() {
                [i] => links.push((*i, hc[*i], local)),
                _ => {
                    return Err(self.check.fail(format!(
                        "the link from {} to {} does not change exactly one coordinate",
                        self.check.name(v),
                        self.check.name(head)
                    )))
                }
            }
        }
        // Stable sort: the lowest port of parallel links comes first.
        links.sort_by_key(|&(i, x, _)| (i, x));
        deliver.sort_by_key(|&(host, _)| host);
        Ok(GridLinks {
            switches: links,
            hosts: deliver,
        })
    }

    /// The local edge through which switch `v` delivers its own host `d`.
    fn delivery(&self, v: u32, d: u32, links: &GridLinks) -> Result<u16, RoutingError> {
        match links.hosts.binary_search_by_key(&d, |&(host, _)| host) {
            Ok(i) => Ok(links.hosts[i].1),
            Err(_) => Err(self.check.fail(format!(
                "{} has no link to its host {}",
                self.check.name(v),
                self.check.fabric.host_name(d)
            ))),
        }
    }

    /// The local edge through which switch `v` sends towards the switch at coordinates
    /// `t`: along the lowest dimension that differs (see [`dor`]).
    fn next_link(&self, v: u32, t: &[u32], links: &GridLinks) -> Result<u16, RoutingError> {
        let links = &links.switches;
        let c = &self.coords[v as usize];
        let Some(i) = (0..c.len()).find(|&i| t[i] != c[i]) else {
            return Err(self.check.fail(format!(
                "two switches share the coordinates of {}",
                self.check.name(v)
            )));
        };
        let (x, k) = (c[i], self.dims[i]);
        let next = if self.all_to_all {
            t[i]
        } else if self.wrap[i] && !self.datelines {
            let plus = (t[i] + k - x) % k;
            let minus = (x + k - t[i]) % k;
            if plus <= minus {
                (x + 1) % k
            } else {
                (x + k - 1) % k
            }
        } else if t[i] > x {
            x + 1
        } else {
            x - 1
        };
        match links.binary_search_by_key(&(i, next), |&(j, y, _)| (j, y)) {
            Ok(mut p) => {
                while p > 0 && links[p - 1].0 == i && links[p - 1].1 == next {
                    p -= 1;
                }
                Ok(links[p].2)
            }
            Err(_) => Err(self.check.fail(format!(
                "{} has no link to coordinate {next} in dimension {i}",
                self.check.name(v)
            ))),
        }
    }
}
