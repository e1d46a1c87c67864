//! The pairs of one level of every pattern (spec §5.2–5.8): the closed forms of the
//! collectives, and the generators with scratch memory or randomness (`rand` in both
//! flavours, `neighbor`, `neighbor2d`, `recvs_*`). These run once per level of every run,
//! so they append straight into the caller's buffer.

use super::levels::floor_log2;
use super::{Pattern, RecvsArgs};
use rand::{Rng, RngExt};

impl Pattern {
    /// Appends the pairs of level `level` of this (non-`ptrnvsptrn`) pattern on `n` ranks,
    /// every rank shifted by `shift`. Levels past the last one are empty; random patterns
    /// draw only for their level 0.
    pub(super) fn level_into<R: Rng + ?Sized>(
        &self,
        n: u32,
        level: usize,
        shift: u32,
        compat: bool,
        rng: &mut R,
        out: &mut Vec<(u32, u32)>,
    ) {
        if level >= self.simple_levels(n) {
            return;
        }
        // From here on n >= 2 and the level exists.
        let s = shift;
        match self {
            Pattern::Null | Pattern::PtrnVsPtrn { .. } => {}
            Pattern::Bisect => out.extend((0..n / 2).map(|i| (2 * i + 1 + s, 2 * i + s))),
            Pattern::BisectFbSym => {
                for i in 0..n / 2 {
                    out.push((2 * i + s, 2 * i + 1 + s));
                    out.push((2 * i + 1 + s, 2 * i + s));
                }
            }
            Pattern::Rand => {
                if compat {
                    rand_orcs_v2(n, s, rng, out);
                } else {
                    rand_derangement(n, s, rng, out);
                }
            }
            Pattern::Tree => {
                let dist = 1u32 << level;
                let count = dist.min(n - dist);
                out.extend((0..count).map(|i| (i + s, i + dist + s)));
            }
            Pattern::Bruck => {
                let dist = 1u64 << level;
                out.extend(
                    (0..n).map(|i| (i + s, ((u64::from(i) + dist) % u64::from(n)) as u32 + s)),
                );
            }
            Pattern::Recdbl => {
                let log2p = floor_log2(n) as usize;
                let p = 1u32 << log2p;
                if level < log2p {
                    let dist = 1u32 << level;
                    for block in (0..p).step_by(2 * dist as usize) {
                        for k in block..block + dist {
                            out.push((k + s, k + dist + s));
                            out.push((k + dist + s, k + s));
                        }
                    }
                } else {
                    out.extend((0..n - p).map(|i| (i + s, i + p + s)));
                }
            }
            Pattern::Ring => {
                let l = level as u32;
                out.push((l + s, (l + 1) % n + s));
            }
            Pattern::Gather => out.extend((1..n).map(|i| (i + s, s))),
            Pattern::Scatter => out.extend((1..n).map(|i| (s, i + s))),
            Pattern::Neighbor { k } => neighbor_into(*k, n, s, out),
            Pattern::Neighbor2d => neighbor2d_into(n, s, out),
            Pattern::RecvsOneSrc(a) => recvs_into(a, true, n, s, rng, out),
            Pattern::RecvsAllSrc(a) => recvs_into(a, false, n, s, rng, out),
        }
    }
}

/// Swaps the destinations of pairs `i` and `j`.
fn swap_dst(p: &mut [(u32, u32)], i: usize, j: usize) {
    let t = p[i].1;
    p[i].1 = p[j].1;
    p[j].1 = t;
}

/// Appends (i → π(i)) for a uniformly random derangement π of 0..n (ranks shifted by `s`).
///
/// Fisher–Yates shuffle of the destinations in place inside `out`, restarted as soon as a
/// finished position is a fixed point (the rejected shuffles are exactly those whose
/// permutation has a fixed point, so the result is uniform over derangements). Expected
/// e ≈ 2.72 attempts, O(n) expected time, no allocation beyond `out`. Requires n ≥ 2.
fn rand_derangement<R: Rng + ?Sized>(n: u32, s: u32, rng: &mut R, out: &mut Vec<(u32, u32)>) {
    if n < 2 {
        return;
    }
    let start = out.len();
    'attempt: loop {
        out.truncate(start);
        out.extend((0..n).map(|i| (i + s, i + s)));
        let p = &mut out[start..];
        for i in (1..p.len()).rev() {
            let j = uniform_index(rng, i + 1);
            swap_dst(p, i, j);
            if p[i].1 == p[i].0 {
                continue 'attempt;
            }
        }
        if p[0].1 != p[0].0 {
            return;
        }
    }
}

/// Appends ORCS v2's `rand` level (§5.3) for n ranks (shifted by `s`): for src = 0..n−1
/// draw a destination uniformly from the unused ones, redrawing while it equals src; if
/// the last rank is left with itself, it swaps destinations with a uniformly random
/// earlier pair. The unused destinations live in `out[start + src..]` (their order does
/// not change the distribution). O(n) expected time, no allocation beyond `out`.
fn rand_orcs_v2<R: Rng + ?Sized>(n: u32, s: u32, rng: &mut R, out: &mut Vec<(u32, u32)>) {
    if n < 2 {
        return;
    }
    let start = out.len();
    out.extend((0..n).map(|i| (i + s, i + s)));
    let p = &mut out[start..];
    let len = p.len();
    for src in 0..len {
        loop {
            let pos = src + uniform_index(rng, len - src);
            if p[pos].1 != p[src].0 {
                swap_dst(p, src, pos);
                break;
            }
            if src == len - 1 {
                let j = uniform_index(rng, len - 1);
                swap_dst(p, j, src);
                break;
            }
        }
    }
}

/// Appends `neighbor` with k neighbours on n ≥ 2 ranks (shifted by `s`), §5.5.
///
/// Each rank's filled slots are always a prefix of its k slots, so a fill counter per rank
/// replaces ORCS's −1 markers, and the "already a neighbour" test uses a marker array;
/// the search for a rank's next partner resumes after the previous partner (earlier
/// candidates stay ineligible). O(n·k) time and memory.
fn neighbor_into(k: u32, n: u32, s: u32, out: &mut Vec<(u32, u32)>) {
    let n_us = n as usize;
    let k = k.min(n.saturating_sub(1)) as usize;
    if k == 0 {
        return;
    }
    let mut slots = vec![0u32; n_us * k];
    let mut fill = vec![0usize; n_us];
    let mut mark = vec![u32::MAX; n_us];
    for i in 0..n_us {
        if fill[i] >= k {
            continue;
        }
        for &nb in &slots[i * k..i * k + fill[i]] {
            mark[nb as usize] = i as u32;
        }
        let mut cand = i + 1;
        while fill[i] < k && cand < n_us {
            if mark[cand] != i as u32 && fill[cand] < k {
                slots[i * k + fill[i]] = cand as u32;
                fill[i] += 1;
                slots[cand * k + fill[cand]] = i as u32;
                fill[cand] += 1;
            }
            cand += 1;
        }
    }
    out.reserve(fill.iter().sum());
    for i in 0..n_us {
        for &nb in &slots[i * k..i * k + fill[i]] {
            out.push((i as u32 + s, nb + s));
        }
    }
}

/// Appends `neighbor2d` on n ≥ 2 ranks (shifted by `s`), §5.8: X = ceil(√n) columns,
/// Y = ceil(n/X) rows, for each rank the nearest existing rank W, E, N, S with
/// wrap-around; sorted, duplicates and self pairs removed. O(n·√n) worst case for the
/// searches (O(n) typical) plus O(n log n) for the sort.
fn neighbor2d_into(n: u32, s: u32, out: &mut Vec<(u32, u32)>) {
    let n64 = u64::from(n);
    // ceil(√n), exactly: the square root is correctly rounded, and for a 32-bit n that is
    // not a square, √n lies farther than 7·10⁻⁶ from any integer, far beyond rounding.
    let x_max = (n as f64).sqrt().ceil() as u64;
    let y_max = n64.div_ceil(x_max);
    let node = |x: i64, y: i64| -> u64 {
        let x = x.rem_euclid(x_max as i64) as u64;
        let y = y.rem_euclid(y_max as i64) as u64;
        y * x_max + x
    };
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(4 * n as usize);
    for r in 0..n64 {
        let (x, y) = ((r % x_max) as i64, (r / x_max) as i64);
        let directions: [(i64, i64, u64); 4] =
            [(-1, 0, x_max), (1, 0, x_max), (0, -1, y_max), (0, 1, y_max)];
        for (dx, dy, steps) in directions {
            // Walking `steps` cells in one direction returns to r itself, which exists.
            let target = (1..=steps as i64)
                .map(|i| node(x + dx * i, y + dy * i))
                .find(|&t| t < n64)
                .unwrap_or(r);
            pairs.push((r as u32, target as u32));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    out.extend(
        pairs
            .into_iter()
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a + s, b + s)),
    );
}

/// Appends `recvs_one_src` (`one_src`) or `recvs_all_src` on n ranks (shifted by `s`)
/// exactly as the pseudo-code of §5.6, with `rng` replacing ORCS's generators (uniform
/// [0,1) draws via `gen::<f64>()`; no draws at all in linear mode with c1 ≥ 1). The
/// order-free bags (senders in rand mode, diversion targets) use O(1) `swap_remove`; the
/// receiver list keeps its order, so `recvs_one_src` costs O(n) plus O(R²) word moves for
/// the receiver removals (R = effective receiver count), `recvs_all_src` O(n); O(n)
/// scratch memory.
fn recvs_into<R: Rng + ?Sized>(
    a: &RecvsArgs,
    one_src: bool,
    n: u32,
    s: u32,
    rng: &mut R,
    out: &mut Vec<(u32, u32)>,
) {
    let r_eff = a.effective_receivers(n);
    let mut receivers: Vec<u32> = (0..r_eff).collect();
    let mut senders: Vec<u32> = (r_eff..n).collect();
    let mut others: Vec<u32> = senders.clone();
    let may_divert = a.c1 < 1.0;
    let mut next_linear = 0usize;
    let mut i = 0usize;
    loop {
        // r = receivers[i mod |receivers|], remembered by its index in the list.
        let mut r_idx = (!receivers.is_empty()).then(|| i % receivers.len());
        let mut dst = r_idx.map(|idx| receivers[idx]);
        let src = if a.linear {
            match senders.get(next_linear) {
                Some(&v) => {
                    next_linear += 1;
                    v
                }
                None => break,
            }
        } else {
            if senders.is_empty() {
                break;
            }
            senders.swap_remove(uniform_index(rng, senders.len()))
        };
        if may_divert && rng.random::<f64>() > a.c1 {
            if rng.random::<f64>() < a.c2 {
                i += 1;
                continue;
            }
            if !others.is_empty() {
                let idx = loop {
                    let idx = uniform_index(rng, others.len());
                    if others[idx] != src || others.len() == 1 {
                        break idx;
                    }
                };
                // r now names a non-receiver, so no receiver is removed below.
                r_idx = None;
                if others[idx] != src {
                    dst = Some(others[idx]);
                    others.swap_remove(idx);
                }
            }
        }
        if let Some(d) = dst {
            if one_src {
                if let Some(idx) = r_idx {
                    receivers.remove(idx);
                }
            }
            out.push((src + s, d + s));
        }
        i += 1;
    }
}

/// A uniformly random index in `0..len` (`len` ≥ 1 and ≤ 2^32), drawn as a `u32` so that
/// the random stream is the same on every platform.
fn uniform_index<R: Rng + ?Sized>(rng: &mut R, len: usize) -> usize {
    let max = u32::try_from(len.saturating_sub(1)).unwrap_or(u32::MAX);
    rng.random_range(0..=max) as usize
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;
    use super::super::*;
    use proptest::prelude::*;
    use rand::RngExt;
    use std::collections::{BTreeSet, HashMap};

    // ----- §5.4 examples -----

    #[test]
    fn examples_5_4() {
        assert_eq!(show("bisect", None, 6), "1>0 3>2 5>4");
        assert_eq!(show("bisect", None, 7), "1>0 3>2 5>4");
        assert_eq!(show("bisect_fb_sym", None, 7), "0>1 1>0 2>3 3>2 4>5 5>4");
        assert_eq!(show("tree", None, 6), "0>1 | 0>2 1>3 | 0>4 1>5");
        assert_eq!(show("tree", None, 7), "0>1 | 0>2 1>3 | 0>4 1>5 2>6");
        assert_eq!(show("tree", None, 8), "0>1 | 0>2 1>3 | 0>4 1>5 2>6 3>7");
        assert_eq!(
            show("bruck", None, 6),
            "0>1 1>2 2>3 3>4 4>5 5>0 | 0>2 1>3 2>4 3>5 4>0 5>1 | 0>4 1>5 2>0 3>1 4>2 5>3"
        );
        let bruck7 = gen(&Pattern::Bruck, &ctx(7));
        assert_eq!(bruck7.num_levels(), 3);
        assert!(bruck7.iter().all(|l| l.len() == 7));
        let l2: Vec<String> = bruck7
            .level(2)
            .iter()
            .map(|(a, b)| format!("{a}>{b}"))
            .collect();
        assert_eq!(l2.join(" "), "0>4 1>5 2>6 3>0 4>1 5>2 6>3");
        assert_eq!(
            show("recdbl", None, 6),
            "0>1 1>0 2>3 3>2 | 0>2 2>0 1>3 3>1 | 0>4 1>5"
        );
        assert_eq!(
            show("recdbl", None, 7),
            "0>1 1>0 2>3 3>2 | 0>2 2>0 1>3 3>1 | 0>4 1>5 2>6"
        );
        assert_eq!(
            show("recdbl", None, 8),
            "0>1 1>0 2>3 3>2 4>5 5>4 6>7 7>6 | 0>2 2>0 1>3 3>1 4>6 6>4 5>7 7>5 | \
             0>4 4>0 1>5 5>1 2>6 6>2 3>7 7>3"
        );
        assert_eq!(show("ring", None, 6), "0>1 | 1>2 | 2>3 | 3>4 | 4>5 | 5>0");
        assert_eq!(show("gather", None, 6), "1>0 2>0 3>0 4>0 5>0");
        assert_eq!(show("scatter", None, 6), "0>1 0>2 0>3 0>4 0>5");
        assert_eq!(show("null", None, 6), "");
        assert_eq!(gen(&Pattern::Null, &ctx(6)).num_levels(), 0);
    }

    // ----- §5.5 neighbor -----

    fn clique(ranks: std::ops::Range<u32>) -> String {
        let mut v = Vec::new();
        for i in ranks.clone() {
            for j in ranks.clone() {
                if i != j {
                    v.push(format!("{i}>{j}"));
                }
            }
        }
        v.join(" ")
    }

    #[test]
    fn examples_5_5_neighbor() {
        assert_eq!(
            show("neighbor", Some("2"), 8),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4 6>7 7>6"
        );
        assert_eq!(
            show("neighbor", Some("2"), 7),
            "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4"
        );
        let k4 = show("neighbor", Some("4"), 8);
        assert_eq!(k4, format!("{} 5>6 5>7 6>5 6>7 7>5 7>6", clique(0..5)));
        assert_eq!(k4.split(' ').count(), 26);
        assert_eq!(show("neighbor", Some("5"), 7), clique(0..6));
        // k = 1 is bisect_fb_sym, k = 3 gives K4 cliques.
        for n in 4..=21 {
            assert_eq!(
                show("neighbor", Some("1"), n),
                show("bisect_fb_sym", None, n)
            );
        }
        assert_eq!(
            show("neighbor", Some("3"), 8),
            format!("{} {}", clique(0..4), clique(4..8))
        );
        // k >= n - 1: the complete graph, with the correction notice.
        assert_eq!(show("neighbor", Some("9"), 6), clique(0..6));
        assert_eq!(
            p("neighbor", Some("9")).notices(&ctx(6)),
            vec!["#*** correcting neighbor number to 5 (commsize: 6)".to_string()]
        );
        assert!(p("neighbor", Some("5")).notices(&ctx(6)).is_empty());
        // v1 aliases.
        assert_eq!(show("2neighbor", None, 8), show("neighbor", Some("2"), 8));
        assert_eq!(show("4neighbor", None, 12), show("neighbor", Some("4"), 12));
        assert_eq!(show("6neighbor", None, 16), show("neighbor", Some("6"), 16));
    }

    // ----- §5.6 recvs -----

    #[test]
    fn examples_5_6_recvs() {
        assert_eq!(show("recvs_one_src", Some("3,linear"), 10), "3>0 4>2 5>1");
        assert_eq!(
            show("recvs_all_src", Some("3,linear"), 10),
            "3>0 4>1 5>2 6>0 7>1 8>2 9>0"
        );
        assert_eq!(
            show("recvs_one_src", Some("6,linear"), 10),
            "5>0 6>2 7>4 8>3 9>1"
        );
        assert_eq!(
            show("recvs_all_src", Some("6,linear"), 10),
            "5>0 6>1 7>2 8>3 9>4"
        );
        // Explicit default chances give the same.
        assert_eq!(
            show("recvs_one_src", Some("3,1.0,0.0,linear"), 10),
            "3>0 4>2 5>1"
        );
    }

    #[test]
    fn recvs_random_mode_structure() {
        for seed in 0..50 {
            let mut r = rng(seed);
            let mut out = Levels::new();
            // all_src, rand mode, c1 = 1: every sender once, i-th sender to receiver i mod R.
            p("recvs_all_src", Some("3")).generate(&ctx(11), &mut r, &mut out);
            assert_eq!(out.num_levels(), 1);
            let l = out.level(0);
            assert_eq!(l.len(), 8);
            let srcs: BTreeSet<u32> = l.iter().map(|x| x.0).collect();
            assert_eq!(srcs, (3..11).collect());
            for (i, &(_, d)) in l.iter().enumerate() {
                assert_eq!(d, i as u32 % 3);
            }
            // one_src, rand mode: each receiver exactly once.
            p("recvs_one_src", Some("4")).generate(&ctx(11), &mut r, &mut out);
            let l = out.level(0);
            assert_eq!(l.len(), 4);
            let dsts: BTreeSet<u32> = l.iter().map(|x| x.1).collect();
            assert_eq!(dsts, (0..4).collect());
            assert!(l.iter().all(|x| x.0 >= 4));
        }
    }

    #[test]
    fn recvs_diversion_properties() {
        for seed in 0..200 {
            let mut r = rng(seed);
            let mut out = Levels::new();
            for (name, arg) in [
                ("recvs_all_src", "2,0.5"),
                ("recvs_one_src", "2,0.3,0.2"),
                ("recvs_all_src", "3,0.0,linear"),
                ("recvs_one_src", "5,0.7,0.5,linear"),
            ] {
                let pat = p(name, Some(arg));
                assert!(pat.is_random());
                pat.generate(&ctx(12), &mut r, &mut out);
                assert!(out.num_levels() <= 1);
                let l = out.level(0);
                let mut srcs = BTreeSet::new();
                let mut diverted = BTreeSet::new();
                for &(a, b) in l {
                    assert_ne!(a, b);
                    assert!(a < 12 && b < 12);
                    assert!(srcs.insert(a), "sender used twice");
                    let r_eff = arg[..1].parse::<u32>().unwrap();
                    assert!(a >= r_eff);
                    if b >= r_eff {
                        assert!(diverted.insert(b), "diversion target used twice");
                    }
                }
            }
        }
        // Linear mode takes the senders in order, one a step, and an idle sender uses up
        // its step too: sender R + j, when it sends to a receiver, sends to j mod R.
        for seed in 0..50 {
            let mut out = Levels::new();
            p("recvs_all_src", Some("3,0.6,0.5,linear")).generate(
                &ctx(30),
                &mut rng(seed),
                &mut out,
            );
            for &(a, b) in out.level(0) {
                if b < 3 {
                    assert_eq!(b, (a - 3) % 3, "seed {seed}: {a}>{b}");
                }
            }
        }
        // c1 = 0, c2 = 1: every sender idles, so the run has no level.
        let mut out = Levels::new();
        p("recvs_all_src", Some("2,0,1")).generate(&ctx(10), &mut rng(3), &mut out);
        assert_eq!(out.num_levels(), 0);
    }

    #[test]
    fn neighbor2d_small() {
        // 3x3 torus on 9 ranks: 4 distinct neighbours each.
        let out = gen(&Pattern::Neighbor2d, &ctx(9));
        assert_eq!(out.level(0).len(), 36);
        assert_eq!(render_level(&out.level(0)[..4]), "0>1 0>2 0>3 0>6");
        // n = 5: 3 columns, 2 rows; rank 4 at (1,1), rank 3 at (0,1); cell (2,1) missing.
        assert_eq!(
            render(&gen(&Pattern::Neighbor2d, &ctx(5))),
            "0>1 0>2 0>3 1>0 1>2 1>4 2>0 2>1 3>0 3>4 4>1 4>3"
        );
        let mut sorted = out.level(0).to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, out.level(0));
    }

    /// n = 15: 4 columns, 4 rows, cell (3,3) missing. Rank 14's east and rank 11's south
    /// step onto it and go on, wrapping around, to ranks 12 and 3, which neither rank
    /// reaches the other way round; a 3×3 or 3×2 grid never steps past a missing cell
    /// to a rank that is not also its neighbour the other way.
    #[test]
    fn neighbor2d_steps_over_a_missing_cell_to_the_next_rank() {
        let grid: [[u32; 4]; 15] = [
            [1, 3, 4, 12],
            [0, 2, 5, 13],
            [1, 3, 6, 14],
            [0, 2, 7, 11],
            [0, 5, 7, 8],
            [1, 4, 6, 9],
            [2, 5, 7, 10],
            [3, 4, 6, 11],
            [4, 9, 11, 12],
            [5, 8, 10, 13],
            [6, 9, 11, 14],
            [3, 7, 8, 10],
            [0, 8, 13, 14],
            [1, 9, 12, 14],
            [2, 10, 12, 13],
        ];
        let expected: Vec<(u32, u32)> = (0u32..)
            .zip(grid)
            .flat_map(|(r, nbs)| nbs.map(|b| (r, b)))
            .collect();
        assert_eq!(gen(&Pattern::Neighbor2d, &ctx(15)).level(0), expected);
    }

    #[test]
    fn deterministic_patterns_ignore_rng() {
        let mut pats = all_simple_patterns();
        pats.retain(|x| !x.is_random());
        pats.push(p("ptrnvsptrn", Some("neighbor:2::recvs_all_src:2,linear")));
        for pat in pats {
            let c = ctx_z(23, 7);
            let mut a = Levels::new();
            let mut b = Levels::new();
            let mut r1 = rng(1);
            let mut r2 = rng(99);
            pat.generate(&c, &mut r1, &mut a);
            pat.generate(&c, &mut r2, &mut b);
            assert_eq!(a, b);
            // The generator was not advanced.
            assert_eq!(r1.random::<u64>(), rng(1).random::<u64>());
        }
        assert!(Pattern::Rand.is_random());
        assert!(p("recvs_one_src", Some("2")).is_random());
        assert!(p("recvs_one_src", Some("2,0.5,linear")).is_random());
        assert!(!p("recvs_one_src", Some("2,linear")).is_random());
        assert!(p("ptrnvsptrn", Some("bisect::rand")).is_random());
        assert!(!p("ptrnvsptrn", Some("bisect::tree")).is_random());
    }

    // ----- rand distribution -----

    fn derangement_counts(compat: bool, n: u32, draws: usize) -> HashMap<Vec<u32>, usize> {
        let c = PatternContext {
            commsize: n,
            part_commsize: 2,
            orcs_compat: compat,
        };
        let mut r = rng(0x5eed);
        let mut out = Levels::new();
        let mut counts = HashMap::new();
        for _ in 0..draws {
            Pattern::Rand.generate(&c, &mut r, &mut out);
            let perm: Vec<u32> = out.level(0).iter().map(|x| x.1).collect();
            *counts.entry(perm).or_insert(0) += 1;
        }
        counts
    }

    fn all_derangements(n: u32) -> Vec<Vec<u32>> {
        fn rec(n: u32, cur: &mut Vec<u32>, used: &mut Vec<bool>, out: &mut Vec<Vec<u32>>) {
            let i = cur.len() as u32;
            if i == n {
                out.push(cur.clone());
                return;
            }
            for d in 0..n {
                if d != i && !used[d as usize] {
                    used[d as usize] = true;
                    cur.push(d);
                    rec(n, cur, used, out);
                    cur.pop();
                    used[d as usize] = false;
                }
            }
        }
        let mut out = Vec::new();
        rec(n, &mut Vec::new(), &mut vec![false; n as usize], &mut out);
        out
    }

    /// Exact output distribution of ORCS v2's sequential algorithm (§5.3).
    fn v2_distribution(n: u32) -> HashMap<Vec<u32>, f64> {
        fn rec(
            n: u32,
            pairs: &mut Vec<u32>,
            avail: &mut Vec<u32>,
            prob: f64,
            out: &mut HashMap<Vec<u32>, f64>,
        ) {
            let src = pairs.len() as u32;
            if src == n {
                *out.entry(pairs.clone()).or_insert(0.0) += prob;
                return;
            }
            if src == n - 1 && avail[0] == src {
                // Swap with a uniformly random earlier pair.
                for j in 0..(n - 1) as usize {
                    let mut p = pairs.clone();
                    let d = p[j];
                    p[j] = src;
                    p.push(d);
                    *out.entry(p).or_insert(0.0) += prob / f64::from(n - 1);
                }
                return;
            }
            let choices: Vec<u32> = avail.iter().copied().filter(|&d| d != src).collect();
            for d in choices.iter().copied() {
                let pos = avail.iter().position(|&x| x == d).unwrap();
                avail.remove(pos);
                pairs.push(d);
                rec(n, pairs, avail, prob / choices.len() as f64, out);
                pairs.pop();
                avail.insert(pos, d);
            }
        }
        let mut out = HashMap::new();
        rec(n, &mut Vec::new(), &mut (0..n).collect(), 1.0, &mut out);
        out
    }

    fn chi_square(
        counts: &HashMap<Vec<u32>, usize>,
        expected: &HashMap<Vec<u32>, f64>,
        draws: usize,
    ) -> f64 {
        assert!(
            counts.keys().all(|k| expected.contains_key(k)),
            "unexpected permutation"
        );
        expected
            .iter()
            .map(|(k, &p)| {
                let e = p * draws as f64;
                let o = counts.get(k).copied().unwrap_or(0) as f64;
                (o - e) * (o - e) / e
            })
            .sum()
    }

    #[test]
    fn rand_default_is_uniform_over_derangements() {
        let draws = 90_000;
        let ders = all_derangements(4);
        assert_eq!(ders.len(), 9);
        let uniform: HashMap<Vec<u32>, f64> = ders.into_iter().map(|d| (d, 1.0 / 9.0)).collect();
        let counts = derangement_counts(false, 4, draws);
        let chi2 = chi_square(&counts, &uniform, draws);
        // 8 degrees of freedom: P(chi2 > 40) ≈ 3e-6.
        assert!(chi2 < 40.0, "chi2 = {chi2}");
        // n = 5: 44 derangements.
        let ders5 = all_derangements(5);
        assert_eq!(ders5.len(), 44);
        let uniform5: HashMap<Vec<u32>, f64> = ders5.into_iter().map(|d| (d, 1.0 / 44.0)).collect();
        let chi2 = chi_square(&derangement_counts(false, 5, 88_000), &uniform5, 88_000);
        assert!(chi2 < 100.0, "chi2 = {chi2}"); // 43 dof, P(chi2 > 100) ≈ 1e-6
    }

    #[test]
    fn rand_compat_follows_orcs_v2_distribution() {
        let draws = 90_000;
        let exact = v2_distribution(4);
        assert!((exact.values().sum::<f64>() - 1.0).abs() < 1e-12);
        let counts = derangement_counts(true, 4, draws);
        let chi2 = chi_square(&counts, &exact, draws);
        assert!(chi2 < 40.0, "chi2 vs v2 = {chi2}");
        // ... and v2 is measurably not uniform (§5.3), so the two modes differ.
        let ders = all_derangements(4);
        let uniform: HashMap<Vec<u32>, f64> = ders.into_iter().map(|d| (d, 1.0 / 9.0)).collect();
        let chi2_uniform = chi_square(&counts, &uniform, draws);
        assert!(chi2_uniform > 200.0, "chi2 vs uniform = {chi2_uniform}");
    }

    /// The fewest ranks `rand` draws for: on two the only derangement is the swap, on
    /// three the two 3-cycles, in both modes.
    #[test]
    fn rand_on_two_and_three_ranks_draws_every_derangement_and_nothing_else() {
        for compat in [false, true] {
            let counts = derangement_counts(compat, 2, 100);
            assert_eq!(
                counts,
                HashMap::from([(vec![1, 0], 100)]),
                "compat {compat}"
            );
            let counts = derangement_counts(compat, 3, 1000);
            let mut drawn: Vec<&Vec<u32>> = counts.keys().collect();
            drawn.sort();
            assert_eq!(drawn, [&vec![1, 2, 0], &vec![2, 0, 1]], "compat {compat}");
        }
    }

    proptest! {
        #[test]
        fn prop_ranks_valid(pat in any_pattern(), n in 4u32..200, zf in 0.0f64..1.0,
                            compat in any::<bool>(), seed in any::<u64>()) {
            let z = (2 + (zf * f64::from(n - 2)) as u32).min(n - 1);
            let c = PatternContext { commsize: n, part_commsize: z, orcs_compat: compat };
            let mut out = Levels::new();
            pat.generate(&c, &mut rng(seed), &mut out);
            prop_assert!(out.num_levels() <= pat.num_levels(&c));
            let may_end_early = matches!(
                pat,
                Pattern::RecvsOneSrc(_) | Pattern::RecvsAllSrc(_) | Pattern::PtrnVsPtrn { .. }
            );
            if !may_end_early {
                prop_assert_eq!(out.num_levels(), pat.num_levels(&c));
            }
            prop_assert_eq!(*out.offsets.last().unwrap(), out.pairs.len());
            for l in out.iter() {
                prop_assert!(!l.is_empty());
                for &(a, b) in l {
                    prop_assert!(a != b, "self pair {} in {:?}", a, pat);
                    prop_assert!(a < n && b < n);
                }
            }
            if let Pattern::PtrnVsPtrn { first, .. } = &pat {
                for l in out.iter() {
                    // First-pattern pairs (both < z) come first, then second-pattern
                    // pairs (both >= z).
                    let split = l.iter().position(|&(a, _)| a >= z).unwrap_or(l.len());
                    prop_assert!(l[..split].iter().all(|&(a, b)| a < z && b < z));
                    prop_assert!(l[split..].iter().all(|&(a, b)| a >= z && b >= z));
                }
                let _ = first;
            }
        }

        #[test]
        fn prop_rand_is_derangement(n in 2u32..200, compat in any::<bool>(), seed in any::<u64>()) {
            let c = PatternContext { commsize: n, part_commsize: 2, orcs_compat: compat };
            let mut out = Levels::new();
            Pattern::Rand.generate(&c, &mut rng(seed), &mut out);
            prop_assert_eq!(out.num_levels(), 1);
            let l = out.level(0);
            prop_assert_eq!(l.len(), n as usize);
            let mut seen = vec![false; n as usize];
            for (i, &(a, b)) in l.iter().enumerate() {
                prop_assert_eq!(a, i as u32);
                prop_assert!(a != b);
                prop_assert!(!seen[b as usize]);
                seen[b as usize] = true;
            }
        }

        #[test]
        fn prop_neighbor_symmetric(n in 4u32..200, k in 1u32..30) {
            let out = gen(&Pattern::Neighbor { k }, &ctx(n));
            let l = out.level(0);
            let set: BTreeSet<(u32, u32)> = l.iter().copied().collect();
            prop_assert_eq!(set.len(), l.len());
            let mut degree = vec![0u32; n as usize];
            for &(a, b) in l {
                prop_assert!(set.contains(&(b, a)));
                degree[a as usize] += 1;
            }
            prop_assert!(degree.iter().all(|&d| d <= k.min(n - 1)));
            // Each rank's neighbours come out in ascending order; sources are grouped ascending.
            prop_assert!(l.windows(2).all(|w| w[0] < w[1]));
        }

    }
}
