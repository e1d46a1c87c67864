//! D-mod-K on fat trees ([`dmodk`]), and why S-mod-K is no forwarding table ([`smodk`]):
//! a [`Structure::Tree`] checked link by link, then the digit-wise port arithmetic.

use super::{check_table_size, edges_by_port, route_hosts, structure_name, Check};
use crate::gen::{Generated, Structure};
use crate::routing::{ForwardingTable, RoutingError};
use rayon::prelude::*;

/// A validated fat tree: per switch level `l` (0 = leaves), the arithmetic of
/// [`crate::gen::topology::xgft`]'s layout, checked link by link against the fabric.
struct Tree {
    /// Hosts below one switch of level l: `m[0]⋯m[l]`.
    below: Vec<u64>,
    /// Children per switch of level l (`m[l]`).
    children: Vec<u64>,
    /// Up-links per switch of level l (0 at the top).
    up: Vec<u64>,
    /// Place value of level l's up-port digit: `up[0]⋯up[l-1]`.
    place: Vec<u64>,
    /// Switches of level l that share one subtree (copies).
    copies: Vec<u64>,
    /// Parallel cables from a switch of level l to each child.
    parallel: Vec<u64>,
    /// Switch nodes with (level, index).
    switches: Vec<(u32, usize, u64)>,
    /// Per node: down-edges (local indices) in port order.
    down_edges: Vec<Vec<u16>>,
    /// Per node: up-edges (local indices) in port order.
    up_edges: Vec<Vec<u16>>,
}

impl Tree {
    /// Reads and checks a [`Structure::Tree`]. O(nodes + edges log degree).
    fn new(engine: &'static str, generated: &Generated) -> Result<Tree, RoutingError> {
        let fabric = &generated.fabric;
        let Structure::Tree {
            levels,
            level,
            index,
            m,
            w: _,
        } = &generated.structure
        else {
            return Err(RoutingError::WrongStructure {
                engine,
                needs: "a fat tree (k-ary n-tree, XGFT or slimmed two-level tree)",
                found: structure_name(&generated.structure),
            });
        };
        let check = Check { engine, fabric };
        let h = *levels as usize;
        let nodes = fabric.num_nodes();
        if h == 0 || m.len() != h || level.len() != nodes || index.len() != nodes {
            return Err(check.fail(format!(
                "{levels} levels, {} values of m, {} level and {} index entries for {nodes} nodes",
                m.len(),
                level.len(),
                index.len()
            )));
        }
        if m.contains(&0) {
            return Err(check.fail(format!("m = {m:?} has a zero")));
        }
        check_table_size(engine, fabric)?;
        let hosts = fabric.num_hosts() as u64;
        let mut below = Vec::with_capacity(h);
        let mut prod: u128 = 1;
        for &x in m {
            prod = prod.saturating_mul(x as u128);
            below.push(prod.min(u64::MAX as u128) as u64);
        }
        if prod != hosts as u128 {
            return Err(check.fail(format!(
                "m multiplies to {prod} hosts, the fabric has {hosts}"
            )));
        }
        let mut tree = Tree {
            below,
            children: m.iter().map(|&x| x as u64).collect(),
            up: vec![u64::MAX; h],
            place: vec![1; h],
            copies: vec![0; h],
            parallel: vec![1; h],
            switches: Vec::new(),
            down_edges: vec![Vec::new(); nodes],
            up_edges: vec![Vec::new(); nodes],
        };
        let (count, down_count) = tree.read_switches(&check, level, index)?;
        tree.check_levels(&check, &count, &down_count)?;
        tree.check_links(&check, level, index, &count)?;
        Ok(tree)
    }

    /// Sorts every switch's links into up- and down-links and checks that all switches
    /// of a level have as many of each. Returns the switches and the down-links per
    /// level.
    fn read_switches(
        &mut self,
        check: &Check<'_>,
        level: &[u32],
        index: &[u32],
    ) -> Result<(Vec<u64>, Vec<u64>), RoutingError> {
        let fabric = check.fabric;
        let h = self.up.len();
        let mut count = vec![0u64; h];
        let mut down_count = vec![u64::MAX; h];
        for v in 0..fabric.num_nodes() as u32 {
            let lv = level[v as usize];
            let is_host = fabric.host_of_node[v as usize] != crate::fabric::NONE;
            if is_host != (lv == 0) || lv as usize > h {
                return Err(check.fail(format!("{} has level {lv}", check.name(v))));
            }
            if is_host {
                continue;
            }
            let l = lv as usize - 1;
            for e in fabric.out_edges(v) {
                if level[fabric.edge_head[e as usize] as usize] == lv {
                    return Err(check.fail(format!(
                        "{} links to a switch of its own level",
                        check.name(v)
                    )));
                }
            }
            let heads = |e: u32| level[fabric.edge_head[e as usize] as usize];
            let down = edges_by_port(fabric, v, |e| heads(e) < lv);
            let up = edges_by_port(fabric, v, |e| heads(e) > lv);
            for (have, want, what) in [
                (&mut self.up[l], up.len() as u64, "up-links"),
                (&mut down_count[l], down.len() as u64, "down-links"),
            ] {
                if *have == u64::MAX {
                    *have = want;
                } else if *have != want {
                    return Err(check.fail(format!(
                        "{} has {want} {what}, other switches of level {l} have {}",
                        check.name(v),
                        *have
                    )));
                }
            }
            count[l] += 1;
            self.switches.push((v, l, index[v as usize] as u64));
            self.down_edges[v as usize] = down;
            self.up_edges[v as usize] = up;
        }
        Ok((count, down_count))
    }

    /// Derives each level's copies, place values and parallel cables from the switch
    /// and link counts, checking that they fit one fat tree.
    fn check_levels(
        &mut self,
        check: &Check<'_>,
        count: &[u64],
        down_count: &[u64],
    ) -> Result<(), RoutingError> {
        let hosts = check.fabric.num_hosts() as u64;
        let h = self.up.len();
        for l in 0..h {
            let subtrees = hosts / self.below[l].max(1);
            if count[l] == 0 || subtrees == 0 || count[l] % subtrees != 0 {
                return Err(check.fail(format!(
                    "level {l} has {} switches for {subtrees} subtrees",
                    count[l]
                )));
            }
            self.copies[l] = count[l] / subtrees;
            if l > 0 {
                self.place[l] = self.place[l - 1].saturating_mul(self.up[l - 1]);
            }
            let top = l + 1 == h;
            if top != (self.up[l] == 0) {
                return Err(check.fail(format!(
                    "switches of level {l} have {} up-links{}",
                    self.up[l],
                    if top { " at the top" } else { "" }
                )));
            }
            if !top && self.copies[l] != self.place[l] {
                return Err(check.fail(format!(
                    "level {l} has {} copies of each subtree, its up-links make {}",
                    self.copies[l], self.place[l]
                )));
            }
            let d = down_count[l];
            if d == 0 || d % self.children[l] != 0 || (l == 0 && d != self.children[0]) {
                return Err(check.fail(format!(
                    "switches of level {l} have {d} down-links for {} children",
                    self.children[l]
                )));
            }
            self.parallel[l] = d / self.children[l];
        }
        Ok(())
    }

    /// Checks that every link, and every host's uplink, leads where the arithmetic says.
    fn check_links(
        &self,
        check: &Check<'_>,
        level: &[u32],
        index: &[u32],
        count: &[u64],
    ) -> Result<(), RoutingError> {
        let fabric = check.fabric;
        let name = |v: u32| check.name(v);
        let subtree = |v: u32| -> u64 {
            let lv = level[v as usize] as usize;
            if lv == 0 {
                index[v as usize] as u64
            } else {
                index[v as usize] as u64 / self.copies[lv - 1]
            }
        };
        for &(v, l, j) in &self.switches {
            if j >= count[l] {
                return Err(check.fail(format!(
                    "{} has index {j}, level {l} has {} switches",
                    name(v),
                    count[l]
                )));
            }
            let a = j / self.copies[l];
            let start = fabric.out_start[v as usize];
            for (q, &local) in self.down_edges[v as usize].iter().enumerate() {
                let head = fabric.edge_head[(start + local as u32) as usize];
                let want = a * self.children[l] + q as u64 / self.parallel[l];
                if level[head as usize] as usize != l || subtree(head) != want {
                    return Err(check.fail(format!(
                        "down-link {} of {} leads to {}, expected a node of subtree {want} one level down",
                        q + 1,
                        name(v),
                        name(head)
                    )));
                }
            }
            for &local in &self.up_edges[v as usize] {
                let head = fabric.edge_head[(start + local as u32) as usize];
                let want = a / self.children[l + 1];
                if level[head as usize] as usize != l + 2 || subtree(head) != want {
                    return Err(check.fail(format!(
                        "{} has an up-link to {}, expected a switch of subtree {want} one level up",
                        name(v),
                        name(head)
                    )));
                }
            }
        }
        for (x, &v) in fabric.hosts.iter().enumerate() {
            let up = edges_by_port(fabric, v, |_| true);
            let Some(&first) = up.first() else {
                return Err(check.fail(format!("host {} has no link", name(v))));
            };
            let head = fabric.edge_head[(fabric.out_start[v as usize] + first as u32) as usize];
            if index[v as usize] as usize != x
                || level[head as usize] != 1
                || subtree(head) != x as u64 / self.children[0]
            {
                return Err(check.fail(format!(
                    "host {} (index {x}) is attached to {}",
                    name(v),
                    name(head)
                )));
            }
        }
        Ok(())
    }

    /// The D-mod-K table (see [`dmodk`]): one row per switch, the rows filled in
    /// parallel. O(switches · hosts) entries written, O(switches · (hosts / W + m))
    /// divisions.
    fn route(
        &self,
        engine: &'static str,
        generated: &Generated,
    ) -> Result<ForwardingTable, RoutingError> {
        let fabric = &generated.fabric;
        let mut table = ForwardingTable::new(fabric);
        route_hosts(engine, fabric, &mut table)?;
        let nodes: Vec<u32> = self.switches.iter().map(|&(v, _, _)| v).collect();
        table
            .new_rows_mut(&nodes)
            .into_par_iter()
            .zip(&self.switches)
            .for_each(|(row, &(v, l, j))| self.fill_row(v, l, j, row));
        Ok(table)
    }

    /// Fills the row of switch `v`, index `j` of level `l`, whose entry `d` is the
    /// port towards destination host `d`.
    ///
    /// Every entry is the arithmetic of [`dmodk`], but runs of equal entries take one
    /// division each instead of several per entry: up-port `⌊(d + W − 1 − copy) / W⌋
    /// mod U` is the same for `W` consecutive destinations (the first run `copy + 1`
    /// long, since `copy < W`), and below the switch a child holds `below[l − 1]`
    /// consecutive destinations.
    fn fill_row(&self, v: u32, l: usize, j: u64, row: &mut [u16]) {
        let hosts = row.len() as u64;
        let a = j / self.copies[l];
        let copy = j % self.copies[l];
        let down = &self.down_edges[v as usize];
        let up = &self.up_edges[v as usize];
        let u = self.up[l];
        if u > 0 {
            let w = self.place[l];
            let (mut start, mut end, mut q) = (0, (copy + 1).min(hosts), 0);
            while start < hosts {
                row[start as usize..end as usize].fill(up[q as usize]);
                q = if q + 1 == u { 0 } else { q + 1 };
                start = end;
                end = end.saturating_add(w).min(hosts);
            }
        }
        // The destinations below: subtree a of level l (every host at the top).
        let lo = (a * self.below[l]).min(hosts);
        let hi = ((a + 1) * self.below[l]).min(hosts);
        if l == 0 {
            // The leaf's own hosts, d mod m[0] = d − lo.
            for d in lo..hi {
                row[d as usize] = down[(d - lo) as usize];
            }
            return;
        }
        let c = self.parallel[l];
        let child = self.below[l - 1];
        for group in 0..self.children[l] {
            let start = lo + group * child;
            let end = (start + child).min(hi);
            if start >= end {
                break;
            }
            if c == 1 {
                row[start as usize..end as usize].fill(down[group as usize]);
                continue;
            }
            for d in start..end {
                row[d as usize] = down[(group * c + self.parallel_cable(l, copy, d)) as usize];
            }
        }
    }

    /// Which of the `parallel[l]` cables (from 0) a level-`l` switch of copy `copy` takes
    /// down towards destination `d`. The cables i = 0..c end at the child's up-ports
    /// copy + spread·i; the one taken is the first whose up-port is at or after d's own
    /// D-mod-K up-port t (wrapping to the first): on d's routes that is t itself, so
    /// routes come down the way they would go up; elsewhere it is OpenSM's choice.
    fn parallel_cable(&self, l: usize, copy: u64, d: u64) -> u64 {
        let c = self.parallel[l];
        let t = (d / self.place[l - 1]) % self.up[l - 1];
        let spread = (self.up[l - 1] / c).max(1);
        let first = copy % spread;
        let i = if t <= first {
            0
        } else {
            (t - first).div_ceil(spread)
        };
        if i < c {
            i
        } else {
            0
        }
    }
}

/// D-mod-K routing on a fat tree ([`Structure::Tree`]: k-ary n-trees, XGFTs, slimmed
/// two-level trees), in the classical digit-wise form (Zahavi et al.; Rodriguez et al.).
///
/// With switch levels `l` (0 = leaves), `W_l` = the product of the up-link counts of
/// levels `0..l` (`k^l` in a k-ary n-tree) and `U_l` the up-links of a level-`l` switch:
///
/// * a switch that has destination host `d` below it sends `d` down: the leaf through
///   `d`'s port, a higher switch to the child whose subtree holds `d` (with parallel
///   cables, as in slimmed trees whose uplinks exceed the spines, the cable whose lower
///   end is the up-port that D-mod-K uses towards `d` there, so routes come down the way
///   they would go up);
/// * any other switch sends `d` up through up-port `⌊d / W_l⌋ mod U_l` (in a k-ary
///   n-tree: `⌊d / k^l⌋ mod k`, base-k digit `l` of `d`) — on every switch that a route
///   towards `d` can reach.
///
/// Up-port choices for switches that no route towards `d` reaches are free (they never
/// carry traffic to `d`). They are filled as OpenSM's `ftree` fills them, so that the
/// tables of a full k-ary n-tree are identical to OpenSM's entry for entry: a switch of
/// level `l` whose up-port digits so far are `p` (its index mod `W_l`) uses the up-port
/// that D-mod-K gives the next destination at or after `d` whose routes do reach it,
/// `⌊(d + W_l − 1 − p) / W_l⌋ mod U_l`. For `p = d mod W_l` (the switches on `d`'s
/// routes) this is the classical `⌊d / W_l⌋ mod U_l`. Likewise a spine that is not on
/// `d`'s routes picks, among its parallel cables to `d`'s leaf, the one whose leaf-side
/// up-port comes first at or after `d`'s own, cyclically. (OpenSM fills these entries
/// from its per-port route counters; on these trees the least-loaded port is exactly
/// that one.) Checked against OpenSM 3.3 `ftree` entry for entry on the k-ary n-trees
/// (4,2), (8,3), (12,3), (16,3), (3,4), (4,4), (2,5), (2,6), on XGFT(3; 2,3,4; 1,2,3)
/// and XGFT(3; 4,4,4; 1,2,2), and on a slimmed tree with two cables per leaf and spine.
///
/// Hosts are numbered by index, which for the generators is GUID order. O(switches ×
/// hosts) time and table memory, O(nodes + edges) to check the structure.
pub fn dmodk(generated: &Generated) -> Result<ForwardingTable, RoutingError> {
    Tree::new("dmodk", generated)?.route("dmodk", generated)
}

/// S-mod-K (up-port at level `l` = `⌊s / W_l⌋ mod U_l` from the *source* `s`) cannot be
/// written as a forwarding table, and this function says so unless the tree offers no
/// choice of up-port at all.
///
/// A forwarding table holds one port per switch and destination, whatever the source.
/// Under S-mod-K, two hosts on the same leaf switch that send to the same destination
/// must leave the leaf through different up-ports (their own digits), so no
/// destination-based table (InfiniBand LFT, ORCS dot) expresses it. Spreading by the
/// switch's own position instead would send all of a leaf's traffic to a destination
/// through one up-port, which is not S-mod-K either. On a full k-ary n-tree the S-mod-K
/// route from `s` to `d` is the D-mod-K route from `d` to `s` reversed, so its congestion
/// on a pattern equals [`dmodk`]'s on the reversed pattern.
///
/// Returns [`RoutingError::WrongStructure`] for a fabric that is not a fat tree,
/// [`RoutingError::NotDestinationBased`] for a tree in which some switch has two or more
/// up-links, and otherwise (every switch has at most one up-link, so S-mod-K and D-mod-K
/// coincide) the [`dmodk`] table.
pub fn smodk(generated: &Generated) -> Result<ForwardingTable, RoutingError> {
    let tree = Tree::new("smodk", generated)?;
    if tree.up.iter().all(|&u| u <= 1) {
        return tree.route("smodk", generated);
    }
    Err(RoutingError::NotDestinationBased {
        engine: "smodk",
        reason: "S-mod-K picks the up-port from the source's digits, so two hosts on one leaf \
                 switch that send to the same destination need different up-ports, and a \
                 forwarding table has one port per switch and destination; use dmodk (on a \
                 full k-ary n-tree, S-mod-K's route from s to d is D-mod-K's route from d to \
                 s reversed)"
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::topology::{kary_ntree, slimmed_two_level, xgft};

    /// Entry `d` of switch (`v`, `l`, `j`)'s row by [`dmodk`]'s arithmetic, one
    /// destination at a time: the oracle of the row filling by runs. The choice among
    /// parallel cables is made per destination in both, so both call
    /// [`Tree::parallel_cable`].
    fn entry(tree: &Tree, v: u32, l: usize, j: u64, d: u64) -> u16 {
        let a = j / tree.copies[l];
        let copy = j % tree.copies[l];
        let down = &tree.down_edges[v as usize];
        let up = &tree.up_edges[v as usize];
        if d / tree.below[l] != a {
            let w = tree.place[l];
            return up[(((d + w - 1 - copy) / w) % tree.up[l]) as usize];
        }
        if l == 0 {
            return down[(d % tree.children[0]) as usize];
        }
        let group = (d / tree.below[l - 1]) % tree.children[l];
        down[(group * tree.parallel[l] + tree.parallel_cable(l, copy, d)) as usize]
    }

    #[test]
    fn rows_filled_by_runs_are_the_arithmetic_entry_by_entry() {
        let trees = [
            kary_ntree(2, 1).unwrap(),
            kary_ntree(4, 3).unwrap(),
            kary_ntree(3, 4).unwrap(),
            xgft(&[2, 3, 4], &[1, 2, 3]).unwrap(),
            xgft(&[3, 2, 2], &[1, 3, 1]).unwrap(),
            xgft(&[2, 2, 2, 2], &[1, 2, 1, 2]).unwrap(),
            xgft(&[5, 3], &[1, 4]).unwrap(),
            slimmed_two_level(4, 4, 4, 2).unwrap(),
            slimmed_two_level(3, 5, 6, 3).unwrap(),
            slimmed_two_level(8, 6, 8, 1).unwrap(),
        ];
        for g in &trees {
            let tree = Tree::new("dmodk", g).unwrap();
            let table = tree.route("dmodk", g).unwrap();
            let f = &g.fabric;
            for &(v, l, j) in &tree.switches {
                for d in 0..f.num_hosts() as u32 {
                    let want = f.out_start[v as usize] + u32::from(entry(&tree, v, l, j, d.into()));
                    assert_eq!(
                        table.next_edge(f, v, d),
                        Some(want),
                        "{}: {} (level {l}, index {j}) towards host {d}",
                        g.description,
                        f.node_names[v as usize]
                    );
                }
            }
        }
    }
}
