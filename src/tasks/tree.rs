//! Task trees: the deterministic layered tree of a vector z and the stochastic
//! preferential-attachment tree of (n, s), stored as flat arrays, with the counts the
//! footprints need (tasks n, leaves L, delegating tasks d).

use rand::{Rng, RngExt};

/// A rooted task tree, tasks numbered breadth-first from the root (task 0), so the
/// children of a task are consecutive ids: task v's children are
/// `first[v]..first[v + 1]`, in the order the generator made them. One array of n + 1
/// entries holds the whole shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTree {
    first: Vec<u32>,
}

impl TaskTree {
    /// The single-task tree.
    pub fn single() -> Self {
        TaskTree { first: vec![1, 1] }
    }

    /// The layered tree of z = (z_1 … z_l): every task on layer i − 1 has z_i children.
    /// z = [] is the single task; a zero entry ends the tree at that layer.
    /// O(n). Errors when the tree would exceed `u32::MAX - 1` tasks.
    pub fn layered(z: &[u32]) -> Result<Self, TreeError> {
        let n = layered_size(z).ok_or(TreeError::TooLarge)?;
        let mut first = Vec::with_capacity(n as usize + 1);
        let mut next = 1u64; // id of the next child to hand out
        let mut layer = 1u64; // tasks on the current layer
        for &zi in z {
            for _ in 0..layer {
                first.push(next as u32);
                next += u64::from(zi);
            }
            layer *= u64::from(zi);
        }
        // The last layer: leaves.
        for _ in 0..layer {
            first.push(next as u32);
        }
        first.push(next as u32);
        debug_assert_eq!(first.len() as u64, n + 1);
        Ok(TaskTree { first })
    }

    /// The stochastic preferential-attachment tree with n ≥ 2 tasks and exponent s:
    /// tasks 0 and 1 linked; task i = 2 … n − 1 links to an existing task v drawn with
    /// probability ∝ deg(v)^s (degrees counting both ends of every link so far); rooted
    /// at task 0. O(n log n), with a Fenwick tree of the weights. n = 1 gives the single
    /// task.
    pub fn preferential(n: u32, s: f64, rng: &mut impl Rng) -> Self {
        if n <= 1 {
            return TaskTree::single();
        }
        let size = n as usize;
        // deg^s for every degree a task can reach: pow once per degree, not per draw.
        let power: Vec<f64> = (0..size)
            .map(|k| if k == 0 { 0.0 } else { (k as f64).powf(s) })
            .collect();
        let mut degree = vec![0u32; size];
        let mut weights = Fenwick::new(size);
        let mut parent = vec![0u32; size];
        degree[0] = 1;
        degree[1] = 1;
        weights.add(0, power[1]);
        weights.add(1, power[1]);
        for i in 2..size {
            let v = weights.sample(rng.random::<f64>() * weights.total(), i - 1);
            parent[i] = v as u32;
            let d = degree[v] as usize;
            weights.add(v, power[d + 1] - power[d]);
            degree[v] += 1;
            degree[i] = 1;
            weights.add(i, power[1]);
        }
        TaskTree::from_parents(&parent)
    }

    /// The tree whose task i ≥ 1 has parent `parent[i]` < i (`parent[0]` is ignored),
    /// renumbered breadth-first; children keep the order of their old ids. O(n).
    pub fn from_parents(parent: &[u32]) -> Self {
        let n = parent.len();
        if n <= 1 {
            return TaskTree::single();
        }
        // Children lists in CSR form by old id.
        let mut start = vec![0u32; n + 1];
        for &p in &parent[1..] {
            start[p as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut kids = vec![0u32; n - 1];
        for (i, &p) in parent.iter().enumerate().skip(1) {
            kids[fill[p as usize] as usize] = i as u32;
            fill[p as usize] += 1;
        }
        // Breadth-first order: the queue itself is the new numbering.
        let mut order = Vec::with_capacity(n);
        order.push(0u32);
        let mut first = Vec::with_capacity(n + 1);
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            first.push(order.len() as u32);
            order.extend_from_slice(&kids[start[v] as usize..start[v + 1] as usize]);
        }
        first.push(n as u32);
        TaskTree { first }
    }

    /// Tasks n.
    pub fn len(&self) -> usize {
        self.first.len() - 1
    }

    /// Never empty: a tree has its root. (For the `len`/`is_empty` pair.)
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Task v's children, as an id range.
    pub fn children(&self, v: u32) -> std::ops::Range<u32> {
        self.first[v as usize]..self.first[v as usize + 1]
    }

    /// Task v's number of children.
    pub fn child_count(&self, v: u32) -> u32 {
        self.first[v as usize + 1] - self.first[v as usize]
    }

    /// Leaves L (tasks without children; the single task is a leaf).
    pub fn leaves(&self) -> usize {
        (0..self.len() as u32)
            .filter(|&v| self.child_count(v) == 0)
            .count()
    }

    /// Delegating tasks d: tasks with at least two children (the ones that ask the
    /// scheduler for nodes).
    pub fn delegating(&self) -> usize {
        (0..self.len() as u32)
            .filter(|&v| self.child_count(v) >= 2)
            .count()
    }

    /// Tasks with exactly one child.
    pub fn single_child(&self) -> usize {
        (0..self.len() as u32)
            .filter(|&v| self.child_count(v) == 1)
            .count()
    }

    /// Depth: layers below the root on the longest root-to-leaf path.
    pub fn depth(&self) -> usize {
        let mut depth = vec![0u32; self.len()];
        let mut deepest = 0;
        for v in 0..self.len() as u32 {
            for c in self.children(v) {
                depth[c as usize] = depth[v as usize] + 1;
                deepest = deepest.max(depth[c as usize]);
            }
        }
        deepest as usize
    }
}

/// A task tree that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// More tasks than ids.
    #[error("the tree has more than {} tasks", u32::MAX - 1)]
    TooLarge,
}

/// Tasks of the layered tree of z, `1 + Σ_i Π_{j≤i} z_j`; None beyond `u32::MAX - 1`.
pub fn layered_size(z: &[u32]) -> Option<u64> {
    let mut n = 1u64;
    let mut layer = 1u64;
    for &zi in z {
        layer = layer.checked_mul(u64::from(zi))?;
        n = n.checked_add(layer)?;
        if n >= u64::from(u32::MAX) {
            return None;
        }
    }
    Some(n)
}

/// Leaves of the layered tree of z, `Π z_i` (0-entries end the tree: its last
/// non-empty layer is the leaves).
pub fn layered_leaves(z: &[u32]) -> u64 {
    let mut layer = 1u64;
    for &zi in z {
        if zi == 0 {
            break;
        }
        layer *= u64::from(zi);
    }
    layer
}

/// Delegating tasks of the layered tree of z, `Σ_i [z_i ≥ 2] · Π_{j<i} z_j` (d_true).
pub fn layered_delegating(z: &[u32]) -> u64 {
    let mut layer = 1u64;
    let mut d = 0;
    for &zi in z {
        if zi >= 2 {
            d += layer;
        }
        layer *= u64::from(zi);
    }
    d
}

/// LWSim's count of delegating tasks for the layered tree, `1 + Σ_{i<l, z_i>1} z_i`
/// (its `getAverageHubNumber`): equal to [`layered_delegating`] for trees of at most
/// two layers with z_1 ≥ 2, different for deeper ones (z = (2, 2, 2): 5 against 7). Kept
/// for compatibility with LWSim's footprints only.
pub fn layered_delegating_lwsim(z: &[u32]) -> u64 {
    let inner = z.len().saturating_sub(1);
    1 + z[..inner]
        .iter()
        .filter(|&&zi| zi > 1)
        .map(|&zi| u64::from(zi))
        .sum::<u64>()
}

/// A Fenwick (binary indexed) tree of non-negative weights: prefix sums and weighted
/// draws in O(log n).
struct Fenwick {
    tree: Vec<f64>,
    total: f64,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick {
            tree: vec![0.0; n + 1],
            total: 0.0,
        }
    }

    fn total(&self) -> f64 {
        self.total
    }

    fn add(&mut self, i: usize, delta: f64) {
        self.total += delta;
        let mut k = i + 1;
        while k < self.tree.len() {
            self.tree[k] += delta;
            k += k & k.wrapping_neg();
        }
    }

    /// The index i whose weight interval holds `target` (the first i with prefix sum
    /// through i above it), capped at `last` against rounding.
    fn sample(&self, mut target: f64, last: usize) -> usize {
        let n = self.tree.len() - 1;
        let mut pos = 0;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] <= target {
                pos = next;
                target -= self.tree[next];
            }
            step >>= 1;
        }
        pos.min(last)
    }
}
