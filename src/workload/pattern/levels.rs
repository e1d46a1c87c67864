//! The level structure of a run: how many levels each pattern has, how `ptrnvsptrn`
//! merges the levels of its parts, and [`Pattern::generate`] filling a reusable
//! [`Levels`] buffer up to the first empty level.

use super::{Pattern, PatternContext};
use rand::Rng;

/// Flat list of levels: level i is `pairs[offsets[i]..offsets[i+1]]`; pairs are
/// (source rank, destination rank).
///
/// The buffer is meant to be reused: [`Levels::clear`] keeps the capacity of both vectors,
/// so generating a pattern again into the same `Levels` does not allocate once the buffer
/// has grown to the pattern's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    /// All pairs of all levels, level after level.
    pub pairs: Vec<(u32, u32)>,
    /// Level boundaries: starts with 0; `len = levels + 1`; level i is
    /// `pairs[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<usize>,
}

impl Default for Levels {
    /// The empty list of levels (`offsets == [0]`), same as [`Levels::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl Levels {
    /// An empty list of levels (`pairs` empty, `offsets == [0]`).
    pub fn new() -> Self {
        Levels {
            pairs: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Removes all levels and pairs, keeping the allocated capacity.
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    /// Number of (closed) levels.
    pub fn num_levels(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The pairs of level `i`; an empty slice if there is no level `i`.
    pub fn level(&self, i: usize) -> &[(u32, u32)] {
        match (self.offsets.get(i), self.offsets.get(i.wrapping_add(1))) {
            (Some(&a), Some(&b)) if i != usize::MAX => self.pairs.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Total number of pairs over all levels (including pairs of a level not yet closed
    /// with [`Levels::end_level`]).
    pub fn num_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// Iterates over the levels in order.
    pub fn iter(&self) -> impl Iterator<Item = &[(u32, u32)]> + '_ {
        (0..self.num_levels()).map(move |i| self.level(i))
    }

    /// Appends one pair to the level under construction (close it with [`Levels::end_level`]).
    pub fn push_pair(&mut self, src: u32, dst: u32) {
        self.pairs.push((src, dst));
    }

    /// Closes the level under construction: every pair pushed since the previous level
    /// ends becomes one new level (possibly empty).
    pub(crate) fn end_level(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.offsets.push(self.pairs.len());
    }

    /// Appends a complete level made of `pairs`.
    pub fn push_level(&mut self, pairs: &[(u32, u32)]) {
        self.pairs.extend_from_slice(pairs);
        self.end_level();
    }

    /// Index in `pairs` where the level under construction starts.
    fn open_start(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }
}

impl Pattern {
    /// Number of levels for this context (for random patterns the count is also fixed by
    /// n).
    ///
    /// This is the length of the level sequence of one run. A run of a random pattern can
    /// only be shorter when a `recvs_*` level happens to be empty (c2 > 0 and every sender
    /// idle), which ends the run there as in ORCS. For `ptrnvsptrn` with a levels in the
    /// first and b in the second pattern: a + (b − 1 − ((a − 1) mod b)) if a, b ≥ 1, a if
    /// b = 0, b if a = 0.
    pub fn num_levels(&self, ctx: &PatternContext) -> usize {
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                merged_levels(first.simple_levels(z), second.simple_levels(m))
            }
            _ => self.simple_levels(ctx.commsize),
        }
    }

    /// Upper bounds for one run on `ctx`: (pairs of its largest level, pairs of all its
    /// levels), from the table above without generating anything, so that a caller can
    /// size its buffers (and refuse a run that cannot fit) first. O(1).
    pub fn pair_bounds(&self, ctx: &PatternContext) -> (u64, u64) {
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                let levels = self.num_levels(ctx) as u64;
                let per_level = first.level_bound(z) + second.level_bound(m);
                (per_level, per_level.saturating_mul(levels))
            }
            _ => {
                let n = ctx.commsize;
                let per_level = self.level_bound(n);
                let levels = self.simple_levels(n) as u64;
                (per_level, per_level.saturating_mul(levels))
            }
        }
    }

    /// Most pairs in one level of a non-`ptrnvsptrn` pattern on `n` ranks.
    fn level_bound(&self, n: u32) -> u64 {
        if self.simple_levels(n) == 0 {
            return 0;
        }
        let n = u64::from(n);
        match self {
            Pattern::Null | Pattern::PtrnVsPtrn { .. } => 0,
            Pattern::Ring => 1,
            Pattern::Bisect | Pattern::Tree => n / 2,
            Pattern::Neighbor { k } => n.saturating_mul(u64::from(*k).min(n - 1)),
            Pattern::Neighbor2d => 4 * n,
            Pattern::BisectFbSym
            | Pattern::Rand
            | Pattern::Bruck
            | Pattern::Recdbl
            | Pattern::Gather
            | Pattern::Scatter
            | Pattern::RecvsOneSrc(_)
            | Pattern::RecvsAllSrc(_) => n,
        }
    }

    /// Level count of a non-`ptrnvsptrn` pattern on `n` ranks (a nested `ptrnvsptrn`: 0).
    pub(super) fn simple_levels(&self, n: u32) -> usize {
        if n < 2 {
            return 0;
        }
        match self {
            Pattern::Null | Pattern::PtrnVsPtrn { .. } => 0,
            Pattern::Bisect
            | Pattern::BisectFbSym
            | Pattern::Rand
            | Pattern::Gather
            | Pattern::Scatter
            | Pattern::Neighbor2d
            | Pattern::RecvsOneSrc(_)
            | Pattern::RecvsAllSrc(_) => 1,
            Pattern::Neighbor { k } => usize::from(*k >= 1),
            Pattern::Tree | Pattern::Bruck => ceil_log2(n) as usize,
            Pattern::Recdbl => floor_log2(n) as usize + usize::from(!n.is_power_of_two()),
            Pattern::Ring => n as usize,
        }
    }

    /// Generate all levels of one run into `out` (cleared first). Deterministic patterns
    /// ignore rng.
    ///
    /// The levels are those of §5 on `ctx.commsize` ranks, in ORCS's pair order; the
    /// sequence ends at the first empty level, so `out` never holds an empty level.
    /// `ptrnvsptrn` follows ORCS's merge with the second pattern's counter restarted for
    /// every run (§5.7, §11.3); random parts are drawn afresh at every level where ORCS
    /// draws them. `out`'s buffers are reused; only `neighbor`, `neighbor2d`, `recvs_*` (and
    /// `ptrnvsptrn` through them) allocate scratch memory.
    pub fn generate<R: Rng + ?Sized>(&self, ctx: &PatternContext, rng: &mut R, out: &mut Levels) {
        out.clear();
        match self {
            Pattern::PtrnVsPtrn { first, second } => {
                let (z, m) = ctx.split();
                let a = first.simple_levels(z);
                let b = second.simple_levels(m);
                let total = merged_levels(a, b);
                let mut counter = 0usize;
                for level in 0..total {
                    let start = out.pairs.len();
                    first.level_into(z, level, 0, ctx.orcs_compat, rng, &mut out.pairs);
                    let mid = out.pairs.len();
                    second.level_into(m, counter, z, ctx.orcs_compat, rng, &mut out.pairs);
                    if out.pairs.len() == mid && mid > start {
                        counter = 0;
                        second.level_into(m, 0, z, ctx.orcs_compat, rng, &mut out.pairs);
                    }
                    counter += 1;
                    if out.pairs.len() == start {
                        break;
                    }
                    out.end_level();
                }
            }
            _ => {
                let n = ctx.commsize;
                for level in 0..self.simple_levels(n) {
                    let start = out.pairs.len();
                    self.level_into(n, level, 0, ctx.orcs_compat, rng, &mut out.pairs);
                    if out.pairs.len() == start {
                        break;
                    }
                    out.end_level();
                }
            }
        }
        debug_assert_eq!(out.open_start(), out.pairs.len());
    }
}

/// Merged level count of `ptrnvsptrn` (§5.7) from the level counts of its parts.
fn merged_levels(a: usize, b: usize) -> usize {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a + (b - 1 - ((a - 1) % b)),
    }
}

/// floor(log2 n) for n ≥ 1 (0 for n = 0).
pub(super) fn floor_log2(n: u32) -> u32 {
    31u32.saturating_sub(n.leading_zeros())
}

/// ceil(log2 n) for n ≥ 1 (0 for n ≤ 1).
fn ceil_log2(n: u32) -> u32 {
    if n <= 1 {
        0
    } else {
        32 - (n - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    // ----- §5.7 ptrnvsptrn -----

    #[test]
    fn examples_5_7_ptrnvsptrn() {
        assert_eq!(
            show_pvp("bisect::bruck", 10, 4),
            "1>0 3>2 4>5 5>6 6>7 7>8 8>9 9>4 | 4>6 5>7 6>8 7>9 8>4 9>5 | 4>8 5>9 6>4 7>5 8>6 9>7"
        );
        assert_eq!(
            show_pvp("tree::bisect", 12, 8),
            "0>1 9>8 11>10 | 0>2 1>3 9>8 11>10 | 0>4 1>5 2>6 3>7 9>8 11>10"
        );
        let bruck8 = gen(&Pattern::Bruck, &ctx(8));
        let b = |i: usize| render_level(bruck8.level(i));
        assert_eq!(
            show_pvp("bruck::tree", 12, 8),
            format!(
                "{} 8>9 | {} 8>10 9>11 | {} 8>9 | 8>10 9>11",
                b(0),
                b(1),
                b(2)
            )
        );
        assert_eq!(
            show_pvp("neighbor:2::recvs_all_src:2,linear", 12, 6),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4 8>6 9>7 10>6 11>7"
        );
        // null::bruck: the first run (and, in orcs, every run) has bruck's 3 levels.
        let nb = p("ptrnvsptrn", Some("null::bruck"));
        assert_eq!(nb.num_levels(&ctx_z(10, 4)), 3);
        assert_eq!(
            render(&gen(&nb, &ctx_z(10, 4))),
            "4>5 5>6 6>7 7>8 8>9 9>4 | 4>6 5>7 6>8 7>9 8>4 9>5 | 4>8 5>9 6>4 7>5 8>6 9>7"
        );
        // bruck::null: p1 alone.
        assert_eq!(
            show_pvp("bruck::null", 10, 4),
            "0>1 1>2 2>3 3>0 | 0>2 1>3 2>0 3>1"
        );
        // v1 form.
        let v1 = Pattern::ptrnvsptrn(p("bisect", None), p("bruck", None));
        assert_eq!(v1, p("ptrnvsptrn", Some("bisect::bruck")));
    }

    #[test]
    fn ptrnvsptrn_random_parts_drawn_per_level() {
        // rand (1 level) as second pattern next to ring: redrawn at every level.
        let pat = p("ptrnvsptrn", Some("ring::rand"));
        let c = ctx_z(40, 8);
        assert_eq!(pat.num_levels(&c), 8);
        let out = gen(&pat, &c);
        assert_eq!(out.num_levels(), 8);
        let mut distinct = BTreeSet::new();
        for l in out.iter() {
            assert_eq!(l.len(), 1 + 32);
            assert!(l[0].0 < 8 && l[0].1 < 8);
            let second: Vec<(u32, u32)> = l[1..].to_vec();
            let dsts: BTreeSet<u32> = second.iter().map(|x| x.1).collect();
            assert_eq!(dsts, (8..40).collect());
            distinct.insert(second);
        }
        assert!(distinct.len() > 1, "second pattern must be redrawn");
    }

    #[test]
    fn ptrnvsptrn_redraws_the_second_part_only_beside_a_first_part_with_pairs() {
        // The first part (c1 = 0, c2 = 1: its one sender always idles) is empty at every
        // level. The second part's one sender is always diverted, idles with chance 1/2,
        // and otherwise has no other rank to go to, so it sends to its receiver. §5.7
        // regenerates an empty second part only beside a first part with pairs, so a run
        // ends at once exactly when the second sender idles: in half the runs. Redrawing
        // it beside an empty first part as well would end only a quarter of them.
        let pat = p(
            "ptrnvsptrn",
            Some("recvs_all_src:1,0,1::recvs_all_src:1,0,0.5"),
        );
        let c = ctx_z(4, 2);
        let runs = 4000;
        let mut empty = 0;
        let mut out = Levels::new();
        for seed in 0..runs {
            pat.generate(&c, &mut rng(seed), &mut out);
            match out.num_levels() {
                0 => empty += 1,
                1 => assert_eq!(render(&out), "3>2"),
                k => panic!("{k} levels"),
            }
        }
        let share = empty as f64 / runs as f64;
        // Binomial standard deviation √(¼ / 4000) ≈ 0.008.
        assert!(
            (share - 0.5).abs() < 0.04,
            "{share} of the runs had no level"
        );
    }

    #[test]
    fn ptrnvsptrn_level_formula_matches_generation() {
        let parts = all_simple_patterns();
        for n in [5u32, 8, 13] {
            for z in 2..n {
                for first in &parts {
                    for second in &parts {
                        let pat = Pattern::ptrnvsptrn(first.clone(), second.clone());
                        let c = ctx_z(n, z);
                        let out = gen(&pat, &c);
                        assert_eq!(
                            out.num_levels(),
                            pat.num_levels(&c),
                            "{first:?} vs {second:?}, n {n}, z {z}"
                        );
                        let a = first.num_levels(&ctx(z));
                        let b = second.num_levels(&ctx(n - z));
                        let expect = match (a, b) {
                            (0, b) => b,
                            (a, 0) => a,
                            (a, b) => a + (b - 1 - ((a - 1) % b)),
                        };
                        assert_eq!(pat.num_levels(&c), expect);
                        if a >= 1 && b >= 1 && !pat.is_random() {
                            // Levels 0..a-1 pair p1(L) with p2(L mod b).
                            let l1 = gen(first, &ctx(z));
                            let l2 = gen(second, &ctx(n - z));
                            for lv in 0..a {
                                let mut want: Vec<(u32, u32)> = l1.level(lv).to_vec();
                                want.extend(l2.level(lv % b).iter().map(|&(x, y)| (x + z, y + z)));
                                assert_eq!(out.level(lv), &want[..]);
                            }
                        }
                    }
                }
            }
        }
    }

    // ----- §5.2 counts -----

    #[test]
    fn level_and_pair_counts_5_2() {
        for n in 4u32..=40 {
            let c = ctx(n);
            let ceil_log = (n as f64).log2().ceil() as usize;
            let p2 = 1u32 << (31 - n.leading_zeros());
            let log_p = p2.trailing_zeros() as usize;
            let check = |pat: Pattern, levels: usize, pairs: &dyn Fn(usize) -> usize| {
                let out = gen(&pat, &c);
                assert_eq!(out.num_levels(), levels, "{pat:?} n={n}");
                assert_eq!(pat.num_levels(&c), levels, "{pat:?} n={n}");
                for l in 0..levels {
                    assert_eq!(out.level(l).len(), pairs(l), "{pat:?} n={n} level {l}");
                }
            };
            let h = (n / 2) as usize;
            let nn = n as usize;
            check(Pattern::Null, 0, &|_| 0);
            check(Pattern::Bisect, 1, &|_| h);
            check(Pattern::BisectFbSym, 1, &|_| 2 * h);
            check(Pattern::Rand, 1, &|_| nn);
            check(Pattern::Tree, ceil_log, &|l| {
                (1usize << l).min(nn - (1 << l))
            });
            check(Pattern::Bruck, ceil_log, &|_| nn);
            let rl = log_p + usize::from(n != p2);
            check(Pattern::Recdbl, rl, &|l| {
                if l < log_p {
                    p2 as usize
                } else {
                    (n - p2) as usize
                }
            });
            check(Pattern::Ring, nn, &|_| 1);
            check(Pattern::Gather, 1, &|_| nn - 1);
            check(Pattern::Scatter, 1, &|_| nn - 1);
            for k in 1..=8u32 {
                let kk = k.min(n - 1) as usize;
                let full_cliques = nn / (kk + 1);
                let rest = nn % (kk + 1);
                let links = full_cliques * (kk + 1) * kk / 2 + rest * rest.saturating_sub(1) / 2;
                check(Pattern::Neighbor { k }, 1, &|_| 2 * links);
            }
            for r in [1u32, 2, 3, 50] {
                let re = r.min(n / 2) as usize;
                let lin = |linear| RecvsArgs {
                    receivers: r,
                    c1: 1.0,
                    c2: 0.0,
                    linear,
                };
                for linear in [true, false] {
                    check(Pattern::RecvsOneSrc(lin(linear)), 1, &|_| re);
                    check(Pattern::RecvsAllSrc(lin(linear)), 1, &|_| nn - re);
                }
            }
            assert_eq!(gen(&Pattern::Neighbor2d, &c).num_levels(), 1);
        }
    }

    #[test]
    fn reference_run_sizes() {
        let total = |pat: Pattern, n| gen(&pat, &ctx(n)).num_pairs();
        assert_eq!(total(Pattern::Bisect, 512), 256);
        assert_eq!(total(Pattern::Bruck, 512), 4608);
        assert_eq!(total(Pattern::Recdbl, 512), 4608);
        assert_eq!(gen(&Pattern::Bruck, &ctx(512)).num_levels(), 9);
        assert_eq!(gen(&Pattern::Recdbl, &ctx(512)).num_levels(), 9);
        assert_eq!(total(Pattern::Bruck, 1728), 19_008);
        assert_eq!(total(Pattern::Bruck, 4096), 49_152);
        assert_eq!(gen(&Pattern::Bruck, &ctx(4096)).num_levels(), 12);
    }

    #[test]
    fn tiny_communicators_have_no_pairs() {
        for pat in all_simple_patterns() {
            for n in 0..2 {
                let out = gen(&pat, &ctx(n));
                assert_eq!(out.num_levels(), 0);
                assert_eq!(pat.num_levels(&ctx(n)), 0);
            }
            let out = gen(&pat, &ctx(2));
            assert!(out.pairs.iter().all(|&(a, b)| a != b && a < 2 && b < 2));
        }
        // ptrnvsptrn with z = 0, z = n and z > n does not panic.
        let pat = p("ptrnvsptrn", Some("bruck::ring"));
        for z in [0u32, 1, 6, 7, 100] {
            let c = ctx_z(6, z);
            let out = gen(&pat, &c);
            assert_eq!(out.num_levels(), pat.num_levels(&c));
            assert!(out.pairs.iter().all(|&(a, b)| a != b && a < 6 && b < 6));
        }
    }

    #[test]
    fn generate_reuses_buffer() {
        let mut out = Levels::new();
        let c = ctx(64);
        Pattern::Bruck.generate(&c, &mut rng(0), &mut out);
        let cap = out.pairs.capacity();
        let ptr = out.pairs.as_ptr();
        for seed in 0..20 {
            Pattern::Rand.generate(&c, &mut rng(seed), &mut out);
            assert_eq!(out.num_levels(), 1);
            Pattern::Rand.generate(
                &PatternContext {
                    orcs_compat: true,
                    ..c
                },
                &mut rng(seed),
                &mut out,
            );
        }
        assert_eq!(out.pairs.capacity(), cap);
        assert_eq!(out.pairs.as_ptr(), ptr);
    }

    #[test]
    fn levels_api() {
        let mut l = Levels::default();
        assert_eq!(l, Levels::new());
        assert_eq!(l.offsets, vec![0]);
        assert_eq!(l.num_levels(), 0);
        assert_eq!(l.level(0), &[]);
        l.push_level(&[(1, 0), (3, 2)]);
        l.push_pair(0, 1);
        l.end_level();
        l.end_level();
        assert_eq!(l.num_levels(), 3);
        assert_eq!(l.num_pairs(), 3);
        assert_eq!(l.level(0), &[(1, 0), (3, 2)]);
        assert_eq!(l.level(1), &[(0, 1)]);
        assert_eq!(l.level(2), &[]);
        assert_eq!(l.level(3), &[]);
        assert_eq!(l.level(usize::MAX), &[]);
        assert_eq!(l.iter().count(), 3);
        l.clear();
        assert_eq!(l, Levels::new());
        // Robust against inconsistent public fields.
        let broken = Levels {
            pairs: vec![(0, 1)],
            offsets: vec![],
        };
        assert_eq!(broken.num_levels(), 0);
        let broken = Levels {
            pairs: vec![(0, 1)],
            offsets: vec![0, 5],
        };
        assert_eq!(broken.level(0), &[]);
        let mut e = Levels {
            pairs: vec![],
            offsets: vec![],
        };
        e.push_level(&[(0, 1)]);
        assert_eq!(e.level(0), &[(0, 1)]);
    }

    #[test]
    fn pair_bounds_are_reached_by_the_deterministic_patterns() {
        // The bounds size buffers and refuse runs, so they must not be loose where the
        // largest level is known: these patterns reach them exactly (on powers of two;
        // on odd sizes bisect_fb_sym, for one, leaves a rank out).
        for n in [4u32, 8, 16] {
            for pat in [
                Pattern::Bisect,
                Pattern::BisectFbSym,
                Pattern::Tree,
                Pattern::Bruck,
                Pattern::Ring,
                // Clipped to n − 1: every rank sends to every other.
                Pattern::Neighbor { k: 100 },
            ] {
                let c = ctx(n);
                let out = gen(&pat, &c);
                let largest = out.iter().map(|l| l.len() as u64).max().unwrap();
                let (per_level, total) = pat.pair_bounds(&c);
                assert_eq!(per_level, largest, "{pat:?} on {n}");
                assert_eq!(total, per_level * out.num_levels() as u64, "{pat:?} on {n}");
            }
        }
    }

    proptest! {
        #[test]
        fn prop_ptrnvsptrn_partition(a in simple_pattern(), b in simple_pattern(),
                                     n in 4u32..120, zf in 0.0f64..1.0, seed in any::<u64>()) {
            let z = (2 + (zf * f64::from(n - 2)) as u32).min(n - 1);
            let pat = Pattern::ptrnvsptrn(a, b);
            let c = ctx_z(n, z);
            let mut out = Levels::new();
            pat.generate(&c, &mut rng(seed), &mut out);
            prop_assert!(out.num_levels() <= pat.num_levels(&c));
            for l in out.iter() {
                let split = l.iter().position(|&(s, _)| s >= z).unwrap_or(l.len());
                prop_assert!(l[..split].iter().all(|&(s, d)| s < z && d < z && s != d));
                prop_assert!(l[split..]
                    .iter()
                    .all(|&(s, d)| s >= z && d >= z && s < n && d < n && s != d));
            }
        }

        #[test]
        fn prop_pair_bounds_hold(pat in any_pattern(), n in 4u32..150, zf in 0.0f64..1.0,
                                 compat in any::<bool>(), seed in any::<u64>()) {
            let z = (2 + (zf * f64::from(n - 2)) as u32).min(n - 1);
            let c = PatternContext { orcs_compat: compat, ..ctx_z(n, z) };
            let mut out = Levels::new();
            pat.generate(&c, &mut rng(seed), &mut out);
            let (per_level, total) = pat.pair_bounds(&c);
            prop_assert!(out.num_pairs() as u64 <= total, "{} pairs > {total}", out.num_pairs());
            for l in out.iter() {
                prop_assert!(l.len() as u64 <= per_level, "{} pairs > {per_level}", l.len());
            }
        }
    }
}
