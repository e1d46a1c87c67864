//! Destination-based forwarding tables: the compact table, the walkers that follow it, and
//! the routing comments of a dot file that express it.
//!
//! A [`ForwardingTable`] answers "node v, destination host d → outgoing edge" in O(1)
//! from flat arrays. Nodes that send every destination through one edge (hosts with a
//! single `*` uplink) store just that edge; the others own a dense row of local port
//! indices, one byte per entry once [`ForwardingTable::compact`] finds every node with
//! fewer than 255 out-edges (half the memory: a 100k-host fat tree's rows hold a billion
//! entries), two bytes otherwise. Routes are never stored: walking the table is cheaper
//! than reading them back.

use crate::fabric::dot::{self, SymbolTable};
use crate::fabric::{EdgeComments, Fabric, NONE};
use rayon::prelude::*;

/// Marks "no route" in a dense row.
pub const NO_PORT: u16 = u16::MAX;

/// A dense-row entry type: a local out-edge index, or [`PortIndex::NONE`] for no route.
pub trait PortIndex: Copy + Send + Sync + 'static {
    /// The "no route" value.
    const NONE: Self;
    /// The local out-edge index (meaningless for [`PortIndex::NONE`]).
    fn index(self) -> u32;
    /// Bytes per entry.
    const WIDTH: usize = std::mem::size_of::<Self>();
}

impl PortIndex for u8 {
    const NONE: u8 = u8::MAX;
    #[inline(always)]
    fn index(self) -> u32 {
        self as u32
    }
}

impl PortIndex for u16 {
    const NONE: u16 = NO_PORT;
    #[inline(always)]
    fn index(self) -> u32 {
        self as u32
    }
}

/// The dense rows of a table, `num_hosts` entries each.
#[derive(Debug, Clone)]
pub enum PortRows {
    /// One byte per entry ([`u8::MAX`] = no route): every node has fewer than 255 ports.
    Narrow(Vec<u8>),
    /// Two bytes per entry ([`NO_PORT`] = no route).
    Wide(Vec<u16>),
}

impl Default for PortRows {
    fn default() -> Self {
        PortRows::Wide(Vec::new())
    }
}

impl PortRows {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            PortRows::Narrow(v) => v.len(),
            PortRows::Wide(v) => v.len(),
        }
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i` widened to u16 ([`NO_PORT`] = no route).
    #[inline]
    pub fn get(&self, i: usize) -> u16 {
        match self {
            PortRows::Narrow(v) => match v[i] {
                u8::MAX => NO_PORT,
                p => p as u16,
            },
            PortRows::Wide(v) => v[i],
        }
    }

    /// True if entries `range` hold a port ≥ `degree` (other than "no route").
    ///
    /// Adding one (wrapping) maps "no route" to 0 and port p to p + 1, so the test is one
    /// maximum over the row, which vectorises (a short-circuiting `any` does not).
    fn exceeds(&self, range: std::ops::Range<usize>, degree: usize) -> bool {
        let largest = match self {
            PortRows::Narrow(v) => {
                v[range].iter().fold(0u8, |m, &p| m.max(p.wrapping_add(1))) as usize
            }
            PortRows::Wide(v) => {
                v[range].iter().fold(0u16, |m, &p| m.max(p.wrapping_add(1))) as usize
            }
        };
        largest > degree
    }

    /// Entries `range` that hold a route.
    fn routed(&self, range: std::ops::Range<usize>) -> usize {
        match self {
            PortRows::Narrow(v) => v[range].iter().filter(|&&p| p != u8::MAX).count(),
            PortRows::Wide(v) => v[range].iter().filter(|&&p| p != NO_PORT).count(),
        }
    }
}

/// node × destination host → out-edge, see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct ForwardingTable {
    num_hosts: usize,
    /// Per node: index of its dense row, or [`NONE`] when the node is uniform.
    row_of_node: Vec<u32>,
    /// Per node: the edge used for every destination when the node is uniform
    /// ([`NONE`] = no route at all).
    uniform_edge: Vec<u32>,
    /// Dense rows: local out-edge index or "no route" per destination host.
    ports: PortRows,
}

/// Where the arrays given to [`ForwardingTable::check_raw_parts`] break the table's rules
/// (a reader turns it into a position in its file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawTableFault {
    /// Not one row index and one uniform edge per node, not one entry per host in every
    /// row, or not whole rows.
    Sizes,
    /// Node `node` names a row past the stored rows.
    NoRow {
        /// The node.
        node: usize,
    },
    /// Node `node` has no row and its edge for every destination does not leave it.
    UniformEdge {
        /// The node.
        node: usize,
    },
    /// Entry `entry` (an index into all rows) of node `node`'s row is neither "no route"
    /// nor one of the node's ports.
    Port {
        /// The node.
        node: usize,
        /// The entry.
        entry: usize,
    },
}

impl ForwardingTable {
    /// An empty table for `fabric`: no node routes anything yet.
    pub fn new(fabric: &Fabric) -> Self {
        ForwardingTable {
            num_hosts: fabric.num_hosts(),
            row_of_node: vec![NONE; fabric.num_nodes()],
            uniform_edge: vec![NONE; fabric.num_nodes()],
            ports: PortRows::default(),
        }
    }

    /// Makes `node` send every destination through `edge` (which must leave `node`).
    pub(crate) fn set_uniform(&mut self, node: u32, edge: u32) {
        self.row_of_node[node as usize] = NONE;
        self.uniform_edge[node as usize] = edge;
    }

    /// The dense row of `node` (local out-edge index per destination host, [`NO_PORT`]
    /// for none), created on first use from the node's uniform edge, if any. A compacted
    /// table goes back to two-byte rows (call [`ForwardingTable::compact`] when done).
    pub fn row_mut(&mut self, fabric: &Fabric, node: u32) -> &mut [u16] {
        let n = node as usize;
        self.wide_rows();
        let PortRows::Wide(ports) = &mut self.ports else {
            unreachable!("rows were just widened")
        };
        if self.row_of_node[n] == NONE {
            let fill = match self.uniform_edge[n] {
                NONE => NO_PORT,
                e => (e - fabric.out_start[n]) as u16,
            };
            self.row_of_node[n] = (ports.len() / self.num_hosts.max(1)) as u32;
            ports.resize(ports.len() + self.num_hosts, fill);
            self.uniform_edge[n] = NONE;
        }
        let row = self.row_of_node[n] as usize;
        &mut ports[row * self.num_hosts..(row + 1) * self.num_hosts]
    }

    /// New dense rows for `nodes`, none of which has one yet, in that order (the rows
    /// [`ForwardingTable::row_mut`] would give them one by one), filled with
    /// [`NO_PORT`]: one slice per node, to be filled in parallel. O(nodes · hosts).
    pub(crate) fn new_rows_mut(&mut self, nodes: &[u32]) -> Vec<&mut [u16]> {
        self.wide_rows();
        let PortRows::Wide(ports) = &mut self.ports else {
            unreachable!("rows were just widened")
        };
        let width = self.num_hosts;
        let first = ports.len() / width.max(1);
        for (k, &v) in nodes.iter().enumerate() {
            debug_assert_eq!(self.row_of_node[v as usize], NONE, "node {v} has a row");
            self.row_of_node[v as usize] = (first + k) as u32;
            self.uniform_edge[v as usize] = NONE;
        }
        let start = ports.len();
        ports.resize(start + nodes.len() * width, NO_PORT);
        if width == 0 {
            return nodes.iter().map(|_| <&mut [u16]>::default()).collect();
        }
        ports[start..].chunks_exact_mut(width).collect()
    }

    /// Makes the rows two-byte entries, widening them if they were compacted.
    fn wide_rows(&mut self) {
        if let PortRows::Narrow(narrow) = &self.ports {
            let wide = narrow
                .par_iter()
                .map(|&p| if p == u8::MAX { NO_PORT } else { p as u16 })
                .collect();
            self.ports = PortRows::Wide(wide);
        }
    }

    /// Stores the rows with one byte per entry when every entry fits (all ports below
    /// 255), halving the table's memory. O(entries), in parallel.
    pub(crate) fn compact(&mut self) {
        let PortRows::Wide(wide) = &self.ports else {
            return;
        };
        if wide.par_iter().all(|&p| p == NO_PORT || p < u8::MAX as u16) {
            let narrow = wide
                .par_iter()
                .map(|&p| if p == NO_PORT { u8::MAX } else { p as u8 })
                .collect();
            self.ports = PortRows::Narrow(narrow);
        }
    }

    /// The one edge `node` uses towards every host, when its routing does not depend on
    /// the destination (a host's uplink); None when it does or has no route at all.
    #[inline]
    pub fn uniform_edge(&self, node: u32) -> Option<u32> {
        let n = node as usize;
        (self.row_of_node[n] == NONE && self.uniform_edge[n] != NONE).then(|| self.uniform_edge[n])
    }

    /// The edge `node` uses towards host `dst`, if it has one.
    #[inline]
    pub fn next_edge(&self, fabric: &Fabric, node: u32, dst: u32) -> Option<u32> {
        let n = node as usize;
        match self.row_of_node[n] {
            NONE => Some(self.uniform_edge[n]).filter(|&e| e != NONE),
            row => {
                let port = self.ports.get(row as usize * self.num_hosts + dst as usize);
                (port != NO_PORT).then(|| fabric.out_start[n] + port as u32)
            }
        }
    }

    /// The table's arrays, for serialisation: hosts per row, per-node row index (or
    /// [`NONE`]), per-node uniform edge (or [`NONE`]), and the dense rows.
    pub(crate) fn raw_parts(&self) -> (usize, &[u32], &[u32], &PortRows) {
        (
            self.num_hosts,
            &self.row_of_node,
            &self.uniform_edge,
            &self.ports,
        )
    }

    /// Checks arrays for [`ForwardingTable::from_checked_parts`] (as
    /// [`ForwardingTable::raw_parts`] gives them) against `fabric`, whose CSR index must be
    /// valid: one row index and one uniform edge per node, whole rows of `num_hosts`
    /// entries, every row index present, every uniform edge leaving its node, every entry
    /// of a node's row "no route" or one of its ports. The first fault in node order is
    /// returned. O(entries), in parallel.
    pub(crate) fn check_raw_parts(
        fabric: &Fabric,
        num_hosts: usize,
        row_of_node: &[u32],
        uniform_edge: &[u32],
        ports: &PortRows,
    ) -> Result<(), RawTableFault> {
        let nodes = fabric.num_nodes();
        let whole_rows = match num_hosts {
            0 => ports.is_empty(),
            h => ports.len() % h == 0,
        };
        if num_hosts != fabric.num_hosts()
            || row_of_node.len() != nodes
            || uniform_edge.len() != nodes
            || !whole_rows
        {
            return Err(RawTableFault::Sizes);
        }
        let rows = ports.len().checked_div(num_hosts).unwrap_or(0);
        let fault_of = |v: usize| {
            let degree = (fabric.out_start[v + 1] - fabric.out_start[v]) as usize;
            match row_of_node[v] {
                NONE => {
                    let e = uniform_edge[v];
                    let leaves = e == NONE || fabric.edge_tail.get(e as usize) == Some(&(v as u32));
                    (!leaves).then_some(RawTableFault::UniformEdge { node: v })
                }
                r if (r as usize) < rows => {
                    let row = r as usize * num_hosts..(r as usize + 1) * num_hosts;
                    // The vectorised test first; the scan for the entry only on a fault.
                    ports.exceeds(row.clone(), degree).then(|| {
                        let entry = row
                            .clone()
                            .find(|&i| ports.exceeds(i..i + 1, degree))
                            .unwrap_or(row.start);
                        RawTableFault::Port { node: v, entry }
                    })
                }
                _ => Some(RawTableFault::NoRow { node: v }),
            }
        };
        // Rows are checked in parallel: on a 100k-host fabric they hold a billion entries.
        match (0..nodes).into_par_iter().find_map_first(fault_of) {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }

    /// A table from arrays that [`ForwardingTable::check_raw_parts`] accepted for the
    /// fabric it will be used with.
    pub(crate) fn from_checked_parts(
        num_hosts: usize,
        row_of_node: Vec<u32>,
        uniform_edge: Vec<u32>,
        ports: PortRows,
    ) -> Self {
        ForwardingTable {
            num_hosts,
            row_of_node,
            uniform_edge,
            ports,
        }
    }

    /// Number of nodes that own a dense row.
    pub fn num_rows(&self) -> usize {
        self.ports.len() / self.num_hosts.max(1)
    }

    /// A view for walking routes that [`check_routes`](super::check_routes) has validated.
    pub fn router<'a>(&'a self, fabric: &'a Fabric) -> AnyRouter<'a> {
        fn make<'a, P: PortIndex>(
            t: &'a ForwardingTable,
            f: &'a Fabric,
            ports: &'a [P],
        ) -> Router<'a, P> {
            Router {
                num_hosts: t.num_hosts,
                out_start: &f.out_start,
                edge_head: &f.edge_head,
                host_node: &f.hosts,
                row_of_node: &t.row_of_node,
                uniform_edge: &t.uniform_edge,
                ports,
            }
        }
        match &self.ports {
            PortRows::Narrow(p) => AnyRouter::Narrow(make(self, fabric, p)),
            PortRows::Wide(p) => AnyRouter::Wide(make(self, fabric, p)),
        }
    }
}

/// A few destinations' columns of a table, stored destination by destination.
///
/// A row holds one node's ports towards every host, so a walk towards one destination
/// reads one entry per row: on a large fabric, one cache line and often one page per
/// node it passes. Copying the columns of a block of destinations first reads each row's
/// entries for the whole block together, and the walks then read a short contiguous
/// column each. O(rows × block) time and memory per load.
#[derive(Debug, Default)]
pub(crate) struct ColumnBlock {
    /// Rows of the table loaded.
    rows: usize,
    /// Entry (destination j of the block, row r) at `j * rows + r`, [`NO_PORT`] for none.
    ports: Vec<u16>,
}

impl ColumnBlock {
    /// Rows transposed at a time: a tile of 16 rows of a 64-destination block is 1 KiB
    /// (2 KiB with 2-byte entries), and its columns are 16 entries long.
    const TILE: usize = 16;

    /// Loads the columns of destinations `dsts` (host ids) from `table`.
    pub(crate) fn load(&mut self, table: &ForwardingTable, dsts: &[u32]) {
        self.rows = table.num_rows();
        self.ports.clear();
        self.ports.resize(self.rows * dsts.len(), NO_PORT);
        match &table.ports {
            PortRows::Narrow(p) => self.transpose(p, table.num_hosts, dsts),
            PortRows::Wide(p) => self.transpose(p, table.num_hosts, dsts),
        }
    }

    /// Copies the columns `dsts` of `rows` (`num_hosts` entries each) into `ports`, a
    /// tile of [`ColumnBlock::TILE`] rows at a time: the tile's entries are first read
    /// row by row into a small buffer, then written column by column, so that neither
    /// the reads nor the writes jump a cache line per entry.
    fn transpose<P: PortIndex>(&mut self, rows: &[P], num_hosts: usize, dsts: &[u32]) {
        let width = dsts.len();
        if width == 0 {
            return;
        }
        let contiguous = dsts
            .first()
            .is_some_and(|&d| dsts.iter().zip(d..).all(|(&x, y)| x == y));
        let mut stage = vec![P::NONE; Self::TILE * width];
        for first in (0..self.rows).step_by(Self::TILE) {
            let tile = Self::TILE.min(self.rows - first);
            for (i, staged) in stage.chunks_exact_mut(width).take(tile).enumerate() {
                let row = &rows[(first + i) * num_hosts..(first + i + 1) * num_hosts];
                if contiguous {
                    let d = dsts[0] as usize;
                    staged.copy_from_slice(&row[d..d + width]);
                } else {
                    for (s, &d) in staged.iter_mut().zip(dsts) {
                        *s = row[d as usize];
                    }
                }
            }
            for j in 0..width {
                let column = &mut self.ports[j * self.rows + first..][..tile];
                for (i, out) in column.iter_mut().enumerate() {
                    let p = stage[i * width + j];
                    *out = if p.index() == P::NONE.index() {
                        NO_PORT
                    } else {
                        p.index() as u16
                    };
                }
            }
        }
    }

    /// The edge `node` uses towards destination `j` of the block, if it has one: what
    /// [`ForwardingTable::next_edge`] says for that destination.
    #[inline]
    pub(crate) fn next_edge(
        &self,
        table: &ForwardingTable,
        fabric: &Fabric,
        node: u32,
        j: usize,
    ) -> Option<u32> {
        let n = node as usize;
        match table.row_of_node[n] {
            NONE => Some(table.uniform_edge[n]).filter(|&e| e != NONE),
            row => {
                let port = self.ports[j * self.rows + row as usize];
                (port != NO_PORT).then(|| fabric.out_start[n] + port as u32)
            }
        }
    }
}

/// Borrowed flat arrays for the hot loop: everything a route walk touches, nothing else.
#[derive(Clone, Copy)]
pub struct Router<'a, P: PortIndex> {
    pub(super) num_hosts: usize,
    pub(super) out_start: &'a [u32],
    pub(super) edge_head: &'a [u32],
    pub(super) host_node: &'a [u32],
    pub(super) row_of_node: &'a [u32],
    pub(super) uniform_edge: &'a [u32],
    pub(super) ports: &'a [P],
}

/// A [`Router`] over one-byte or two-byte rows; each call dispatches once and then
/// runs the walk specialised for the entry type.
#[derive(Clone, Copy)]
pub enum AnyRouter<'a> {
    /// One-byte rows.
    Narrow(Router<'a, u8>),
    /// Two-byte rows.
    Wide(Router<'a, u16>),
}

impl AnyRouter<'_> {
    /// See [`Router::walk`].
    #[inline]
    pub fn walk(&self, src: u32, dst: u32, visit: impl FnMut(u32)) {
        match self {
            AnyRouter::Narrow(r) => r.walk(src, dst, visit),
            AnyRouter::Wide(r) => r.walk(src, dst, visit),
        }
    }

    /// See [`Router::walk_all`].
    #[inline]
    pub(crate) fn walk_all(
        &self,
        pairs: impl Iterator<Item = (u32, u32)>,
        f: &mut super::walk::InFlight,
        out: &mut super::walk::WalkOutput<'_>,
    ) -> usize {
        match self {
            AnyRouter::Narrow(r) => r.walk_all(pairs, f, out),
            AnyRouter::Wide(r) => r.walk_all(pairs, f, out),
        }
    }
}

impl<P: PortIndex> Router<'_, P> {
    /// Calls `visit` with every edge of the route from host `src` to host `dst`
    /// (injection and ejection edges included; nothing for `src == dst`).
    ///
    /// The route must have been validated (no dead end, no loop): this walk does no
    /// checks beyond slice bounds. O(hops).
    #[inline]
    pub fn walk(&self, src: u32, dst: u32, mut visit: impl FnMut(u32)) {
        let target = self.host_node[dst as usize];
        let mut cur = self.host_node[src as usize];
        let dst = dst as usize;
        while cur != target {
            let edge = self.next_edge_of(cur as usize, dst);
            visit(edge);
            cur = self.edge_head[edge as usize];
        }
    }

    /// The edge a route at node `n` towards host `dst` takes next (meaningless where
    /// the route is broken).
    #[inline(always)]
    pub(super) fn next_edge_of(&self, n: usize, dst: usize) -> u32 {
        match self.row_of_node[n] {
            NONE => self.uniform_edge[n],
            row => self.out_start[n] + self.ports[row as usize * self.num_hosts + dst].index(),
        }
    }
}

/// The routing comments that express `table` on `fabric`'s edges: `*` on the edge a
/// uniform node (a host) sends everything through, and on every other edge the hosts
/// routed over it, in host order. O(nodes × hosts).
pub fn comments_from_table(fabric: &Fabric, table: &ForwardingTable) -> EdgeComments {
    let mut symbols = SymbolTable::new();
    let host_symbol: Vec<u32> = (0..fabric.num_hosts() as u32)
        .map(|h| symbols.intern(fabric.host_name(h)))
        .collect();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); fabric.num_edges()];
    let mut all = vec![false; fabric.num_edges()];
    for v in 0..fabric.num_nodes() as u32 {
        if table.row_of_node[v as usize] == NONE {
            if let Some(e) = table.next_edge(fabric, v, 0) {
                all[e as usize] = true;
            }
            continue;
        }
        for h in 0..fabric.num_hosts() as u32 {
            if let Some(e) = table.next_edge(fabric, v, h) {
                lists[e as usize].push(host_symbol[h as usize]);
            }
        }
    }
    EdgeComments::from_lists(symbols, lists, &all)
}

/// True if `fabric`'s edge comments are exactly [`comments_from_table`]`(fabric, table)`,
/// so that they need not be stored beside the table. O(nodes × hosts), in parallel.
pub fn comments_match_table(fabric: &Fabric, table: &ForwardingTable) -> bool {
    let comments = &fabric.edge_comments;
    if comments.kinds.len() != fabric.num_edges() {
        return false;
    }
    // Symbol id → host index, or NONE for a name that is not a host.
    let host_by_name: rustc_hash::FxHashMap<&str, u32> = (0..fabric.num_hosts() as u32)
        .map(|h| (fabric.host_name(h), h))
        .collect();
    let host_of_symbol: Vec<u32> = (0..comments.symbols.len() as u32)
        .map(|t| {
            host_by_name
                .get(comments.symbols.name(t))
                .copied()
                .unwrap_or(NONE)
        })
        .collect();
    (0..fabric.num_nodes()).into_par_iter().all(|v| {
        let edges = fabric.out_start[v]..fabric.out_start[v + 1];
        if table.row_of_node[v] == NONE {
            let uniform = table.uniform_edge[v];
            return edges.clone().all(|e| {
                let expected = if e == uniform {
                    dot::Comment::All
                } else {
                    dot::Comment::Tokens { start: 0, end: 0 }
                };
                match (comments.kinds[e as usize], expected) {
                    (dot::Comment::All, dot::Comment::All) => true,
                    (dot::Comment::Tokens { start, end }, dot::Comment::Tokens { .. }) => {
                        start == end
                    }
                    _ => false,
                }
            });
        }
        let mut listed = 0usize;
        for e in edges {
            let dot::Comment::Tokens { start, end } = comments.kinds[e as usize] else {
                return false;
            };
            let mut previous = None;
            for &t in &comments.tokens[start as usize..end as usize] {
                let h = host_of_symbol[t as usize];
                if h == NONE
                    || previous.is_some_and(|p| p >= h)
                    || table.next_edge(fabric, v as u32, h) != Some(e)
                {
                    return false;
                }
                previous = Some(h);
            }
            listed += (end - start) as usize;
        }
        let row = table.row_of_node[v] as usize * table.num_hosts;
        listed == table.ports.routed(row..row + table.num_hosts)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{load_routed_fabric_from, LoadOptions, LoadedFabric};

    #[test]
    fn port_rows_count_widen_and_route_their_entries() {
        let narrow = PortRows::Narrow(vec![3, u8::MAX, 0]);
        let wide = PortRows::Wide(vec![300, NO_PORT, 7, NO_PORT]);
        assert_eq!((narrow.len(), narrow.is_empty()), (3, false));
        assert_eq!((wide.len(), wide.is_empty()), (4, false));
        assert!(PortRows::Narrow(Vec::new()).is_empty());
        assert!(PortRows::default().is_empty());
        assert_eq!(
            [narrow.get(0), narrow.get(1), narrow.get(2)],
            [3, NO_PORT, 0]
        );
        assert_eq!([wide.get(0), wide.get(1)], [300, NO_PORT]);
        assert_eq!((narrow.routed(0..3), narrow.routed(1..2)), (2, 0));
        assert_eq!((wide.routed(0..4), wide.routed(1..2)), (2, 0));
    }

    /// Port 255 does not fit a byte (255 is the byte rows' "no route"), so a table using it
    /// stays wide; port 254 fits. Widening a compacted table gives back its entries.
    #[test]
    fn compacting_keeps_every_port_and_widening_gives_them_back() {
        let table = |ports: Vec<u16>| ForwardingTable {
            num_hosts: 2,
            row_of_node: vec![0],
            uniform_edge: vec![NONE],
            ports: PortRows::Wide(ports),
        };
        let mut wide = table(vec![255, NO_PORT]);
        wide.compact();
        assert!(matches!(wide.ports, PortRows::Wide(_)));
        assert_eq!([wide.ports.get(0), wide.ports.get(1)], [255, NO_PORT]);
        let mut narrow = table(vec![254, NO_PORT]);
        narrow.compact();
        assert!(matches!(narrow.ports, PortRows::Narrow(_)));
        assert_eq!([narrow.ports.get(0), narrow.ports.get(1)], [254, NO_PORT]);
        narrow.wide_rows();
        let PortRows::Wide(ports) = &narrow.ports else {
            panic!("not widened")
        };
        assert_eq!(ports, &[254, NO_PORT]);
    }

    /// Three switches in a line, S0 – S1 – S2, with H0 and H3 on S0, H1 on S1, H2 on
    /// S2; `inner` holds the comments of S0 → S1 and S2 → S1.
    fn line(inner: [&str; 2]) -> LoadedFabric {
        let [s0_s1, s2_s1] = inner;
        let text = format!(
            "digraph line {{ S0; S1; S2; H0; H1; H2; H3;
            H0 -> S0 [comment=\"*\"]; H3 -> S0 [comment=\"*\"];
            H1 -> S1 [comment=\"*\"]; H2 -> S2 [comment=\"*\"];
            S0 -> H0 [comment=H0]; S0 -> H3 [comment=H3];
            S1 -> H1 [comment=H1]; S2 -> H2 [comment=H2];
            S0 -> S1 [comment=\"{s0_s1}\"]; S1 -> S2 [comment=H2];
            S2 -> S1 [comment=\"{s2_s1}\"]; S1 -> S0 [comment=\"H0,H3\"]; }}"
        );
        load_routed_fabric_from(text.as_bytes(), "line.dot", LoadOptions::default()).unwrap()
    }

    /// Rows made together are the rows [`ForwardingTable::row_mut`] makes one by one:
    /// in the order given, after the rows already there (also from a compacted table),
    /// without a route until filled, and the nodes' uniform edges gone.
    #[test]
    fn new_rows_are_the_rows_made_one_by_one() {
        let fabric = crate::gen::topology::generate("kary-ntree:k=2,n=3")
            .unwrap()
            .fabric;
        let switches: Vec<u32> = (0..fabric.num_nodes() as u32)
            .filter(|&v| fabric.host_of_node[v as usize] == NONE)
            .collect();
        let (first, rest) = (switches[5], [switches[2], switches[7], switches[0]]);
        let fill = |row: &mut [u16], v: u32| {
            for (d, entry) in row.iter_mut().enumerate() {
                *entry = if d == 3 {
                    NO_PORT
                } else {
                    ((v as usize + d) % 3) as u16
                };
            }
        };
        for compacted in [false, true] {
            let mut one_by_one = ForwardingTable::new(&fabric);
            let mut together = ForwardingTable::new(&fabric);
            for table in [&mut one_by_one, &mut together] {
                table.set_uniform(rest[1], fabric.out_start[rest[1] as usize]);
                fill(table.row_mut(&fabric, first), first);
                if compacted {
                    table.compact();
                }
            }
            for &v in &rest {
                fill(one_by_one.row_mut(&fabric, v), v);
            }
            let rows = together.new_rows_mut(&rest);
            assert_eq!(rows.len(), 3);
            for row in &rows {
                assert_eq!(row.len(), fabric.num_hosts());
                assert!(row.iter().all(|&p| p == NO_PORT));
            }
            for (row, &v) in rows.into_iter().zip(&rest) {
                fill(row, v);
            }
            assert_eq!(together.num_rows(), 4);
            assert_eq!(together.uniform_edge(rest[1]), None);
            // PortRows has no equality of its own: its Debug form shows every entry.
            assert_eq!(
                format!("{:?}", together.raw_parts()),
                format!("{:?}", one_by_one.raw_parts())
            );
        }
        let mut empty = ForwardingTable::new(&fabric);
        assert!(empty.new_rows_mut(&[]).is_empty());
    }

    /// A column block answers as the table does, for every node and destination of the
    /// block: rows of one and two bytes, blocks of consecutive hosts and of any hosts
    /// (repeated, out of order), a row count that is no multiple of the tile, entries
    /// without a route, and nodes without a row (a uniform edge or nothing).
    #[test]
    fn a_column_block_answers_as_the_table() {
        let fabric = crate::gen::topology::generate("kary-ntree:k=4,n=3")
            .unwrap()
            .fabric;
        let mut table = ForwardingTable::new(&fabric);
        let switches: Vec<u32> = (0..fabric.num_nodes() as u32)
            .filter(|&v| fabric.host_of_node[v as usize] == NONE)
            .collect();
        // 37 rows: two whole tiles of 16 and one of 5.
        for &v in &switches[..37] {
            let degree = fabric.out_edges(v).len() as u32;
            let row = table.row_mut(&fabric, v);
            for (d, entry) in row.iter_mut().enumerate() {
                let d = d as u32;
                *entry = if (v * 7 + d * 3) % 5 == 0 {
                    NO_PORT
                } else {
                    ((v + d) % degree) as u16
                };
            }
        }
        for &h in &fabric.hosts[..50] {
            table.set_uniform(h, fabric.out_start[h as usize]);
        }
        assert_eq!(table.num_rows(), 37);
        let every_host: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
        let blocks: [&[u32]; 4] = [&every_host, &every_host[3..40], &[63, 0, 17, 17, 5], &[]];
        let mut block = ColumnBlock::default();
        for compacted in [false, true] {
            if compacted {
                table.compact();
                assert!(matches!(table.ports, PortRows::Narrow(_)));
            }
            for dsts in blocks {
                block.load(&table, dsts);
                for v in 0..fabric.num_nodes() as u32 {
                    for (j, &d) in dsts.iter().enumerate() {
                        assert_eq!(
                            block.next_edge(&table, &fabric, v, j),
                            table.next_edge(&fabric, v, d),
                            "node {v}, destination {d} (column {j}), compacted {compacted}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn comments_match_the_table_only_as_the_table_would_write_them() {
        let canonical = line(["H1,H2", "H0,H1,H3"]);
        assert!(comments_match_table(&canonical.fabric, &canonical.table));
        // The same routes, a list out of host order: kept as written.
        let reordered = line(["H2,H1", "H0,H1,H3"]);
        assert!(!comments_match_table(&reordered.fabric, &reordered.table));
        // A name that is no host.
        let stray = line(["H1,H2,X", "H0,H1,H3"]);
        assert!(!comments_match_table(&stray.fabric, &stray.table));
        // S2 routes H0 alone: fewer routes, still exactly what the table holds.
        let partial = line(["H1,H2", "H0"]);
        assert!(comments_match_table(&partial.fabric, &partial.table));
        // The comments of another table do not match this one.
        assert!(!comments_match_table(&partial.fabric, &canonical.table));
    }
}
