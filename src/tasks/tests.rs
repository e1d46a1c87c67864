//! The task model's numbers against the published rows, closed forms, exact
//! expectations and Monte Carlo tables of the spec (§10, §11, §13).

use super::fits;
use super::footprint::costs_for;
use super::tree::{layered_delegating, layered_delegating_lwsim, layered_leaves, layered_size};
use super::*;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn counts(tree: &TaskTree) -> TreeCounts {
    TreeCounts {
        tasks: tree.len() as f64,
        leaves: tree.leaves() as f64,
        delegating: tree.delegating() as f64,
    }
}

#[track_caller]
fn close(got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance,
        "got {got}, expected {expected} ± {tolerance}"
    );
}

/// The published validation rows: z = [4,3] has n = 17, L = 12, d = 5; F_x = 340 µs;
/// F_c = 660.92 kB; F = 15.55 Gb/s; β = 29,117 /s at N = 100 and ρ_x = 0.1.
#[test]
fn published_rows() {
    let tree = TaskTree::layered(&[4, 3]).unwrap();
    assert_eq!((tree.len(), tree.leaves(), tree.delegating()), (17, 12, 5));
    assert_eq!(layered_delegating_lwsim(&[4, 3]), 5);
    let footprint = Footprint::of(counts(&tree), &TaskCosts::default());
    close(footprint.computation, 340e-6, 1e-18);
    assert_eq!(footprint.communication, 5_287_360.0);
    assert_eq!(footprint.communication / 8.0 / 1000.0, 660.92);
    close(footprint.intensity() / 1e9, 15.551, 0.0005);
    let machine = Machine {
        nodes: 100,
        power: 1.0,
        bandwidth: 10e9,
        scheduler: SchedulerKind::Central,
    };
    let loads = Loads::new(&footprint, &machine, LoadTarget::Computation(0.1));
    close(loads.arrival_rate, 0.1 * 99.0 / 340e-6, 1e-9);
    assert_eq!(loads.arrival_rate.floor(), 29_117.0);
    // With N instead of N − 1 computing nodes it would be 29,411.8: work stealing.
    let stealing = Machine {
        scheduler: SchedulerKind::Stealing,
        ..machine
    };
    let loads = Loads::new(&footprint, &stealing, LoadTarget::Computation(0.1));
    assert_eq!(loads.arrival_rate.floor(), 29_411.0);
}

/// The closed forms of §10.1 on the spec's examples, and LWSim's d where it differs.
#[test]
fn layered_closed_forms() {
    let tree = TaskTree::layered(&[2, 2, 2]).unwrap();
    assert_eq!((tree.len(), tree.leaves(), tree.delegating()), (15, 8, 7));
    assert_eq!(layered_delegating_lwsim(&[2, 2, 2]), 5);
    let tree = TaskTree::layered(&[3, 1]).unwrap();
    assert_eq!((tree.len(), tree.leaves(), tree.delegating()), (7, 3, 1));
    assert_eq!(tree.single_child(), 3);
    assert_eq!(layered_delegating_lwsim(&[3, 1]), 4);
    let single = TaskTree::layered(&[]).unwrap();
    assert_eq!(
        (single.len(), single.leaves(), single.delegating()),
        (1, 1, 0)
    );
    assert_eq!(TaskTree::layered(&[2, 3, 4]).unwrap().depth(), 3);
    assert!(TaskTree::layered(&[65536, 65536]).is_err());
}

proptest! {
    #[test]
    fn layered_matches_its_closed_forms(z in prop::collection::vec(1u32..5, 0..5)) {
        let tree = TaskTree::layered(&z).unwrap();
        prop_assert_eq!(tree.len() as u64, layered_size(&z).unwrap());
        prop_assert_eq!(tree.leaves() as u64, layered_leaves(&z));
        prop_assert_eq!(tree.delegating() as u64, layered_delegating(&z));
        prop_assert_eq!(tree.depth(), z.len());
        check_shape(&tree)?;
    }

    #[test]
    fn preferential_trees_are_trees(n in 1u32..300, s in -3.0f64..3.0, seed in any::<u64>()) {
        let tree = TaskTree::preferential(n, s, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
        prop_assert_eq!(tree.len(), n as usize);
        if n >= 2 {
            prop_assert!(tree.child_count(0) >= 1);
        }
        check_shape(&tree)?;
        let again = TaskTree::preferential(n, s, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
        prop_assert_eq!(tree, again);
    }

    #[test]
    fn from_parents_keeps_the_shape(parents in prop::collection::vec(any::<prop::sample::Index>(), 0..60)) {
        // Task i + 1 hangs under a uniformly chosen earlier task.
        let mut parent = vec![0u32];
        for (i, p) in parents.iter().enumerate() {
            parent.push(p.index(i + 1) as u32);
        }
        let tree = TaskTree::from_parents(&parent);
        check_shape(&tree)?;
        let mut degree = vec![0usize; parent.len()];
        for &p in &parent[1..] {
            degree[p as usize] += 1;
        }
        let mut theirs: Vec<usize> = degree.clone();
        let mut ours: Vec<usize> = (0..tree.len() as u32).map(|v| tree.child_count(v) as usize).collect();
        theirs.sort_unstable();
        ours.sort_unstable();
        prop_assert_eq!(ours, theirs);
        prop_assert_eq!(tree.child_count(0) as usize, degree[0]);
    }
}

/// Breadth-first numbering: every task but the root has exactly one parent, children
/// come after their parent, and ranges tile 1..n in order (n − 1 links, connected).
fn check_shape(tree: &TaskTree) -> Result<(), TestCaseError> {
    let mut next = 1;
    for v in 0..tree.len() as u32 {
        let children = tree.children(v);
        prop_assert_eq!(children.start, next);
        prop_assert!(children.start > v || children.is_empty());
        next = children.end;
    }
    prop_assert_eq!(next as usize, tree.len());
    Ok(())
}

/// Mean and standard error of the leaves and delegating tasks of `trees` random trees.
fn monte_carlo(n: u32, s: f64, trees: u32, seed: u64) -> [(f64, f64); 2] {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut sums = [[0.0f64; 2]; 2];
    for _ in 0..trees {
        let tree = TaskTree::preferential(n, s, &mut rng);
        for (k, x) in [tree.leaves() as f64, tree.delegating() as f64]
            .into_iter()
            .enumerate()
        {
            sums[k][0] += x;
            sums[k][1] += x * x;
        }
    }
    let t = f64::from(trees);
    sums.map(|[sum, squares]| {
        let mean = sum / t;
        let variance = (squares / t - mean * mean) * t / (t - 1.0);
        (mean, (variance / t).sqrt())
    })
}

/// E[#tasks with one child] for s = 0 (spec §10.2).
fn expected_single_child(n: u32) -> f64 {
    let m = f64::from(n - 1);
    let mut total = 1.0 / m;
    for j in 1..n {
        let inner: f64 = (j + 1..n).map(|k| 1.0 / f64::from(k - 1)).sum();
        total += f64::from(j) / m * inner;
    }
    total
}

/// s = 0 is the uniform random recursive tree: E[L] = n/2 and E[d] = n − L − N1 exactly;
/// the generator's means lie within three standard errors.
#[test]
fn uniform_attachment_matches_exact_expectations() {
    close(expected_single_child(17), 4.28125, 1e-12);
    close(expected_single_child(100), 25.00505, 5e-6);
    for (n, trees) in [(17u32, 20_000u32), (100, 4_000)] {
        let [(leaves, leaves_se), (delegating, delegating_se)] = monte_carlo(n, 0.0, trees, 7);
        let expected_leaves = f64::from(n) / 2.0;
        let expected_delegating = f64::from(n) - expected_leaves - expected_single_child(n);
        close(leaves, expected_leaves, 3.0 * leaves_se);
        close(delegating, expected_delegating, 3.0 * delegating_se);
    }
}

/// The spec's Monte Carlo table (§10.4: n = 17 from 3,000 trees, n = 100 from 600): the
/// generator's means within 2 % or three standard errors of the two estimates.
#[test]
fn preferential_attachment_matches_the_monte_carlo_table() {
    let table = [
        (17, -1.0, 6.91, 4.21, 3000.0),
        (17, 0.0, 8.50, 4.21, 3000.0),
        (17, 1.0, 10.69, 3.42, 3000.0),
        (17, 2.0, 13.69, 1.87, 3000.0),
        (100, -2.0, 30.96, 24.33, 600.0),
        (100, -1.0, 39.33, 26.45, 600.0),
        (100, 0.0, 49.77, 25.00, 600.0),
        (100, 0.5, 56.80, 22.40, 600.0),
        (100, 1.0, 66.02, 17.44, 600.0),
        (100, 2.0, 94.53, 2.36, 600.0),
        (100, 3.0, 97.92, 1.25, 600.0),
    ];
    let trees = 3000u32;
    for (i, (n, s, leaves, delegating, their_trees)) in table.into_iter().enumerate() {
        let measured = monte_carlo(n, s, trees, 100 + i as u64);
        for ((mean, se), published) in measured.into_iter().zip([leaves, delegating]) {
            let published: f64 = published;
            // Their standard error scales from ours by the square root of the counts.
            let theirs = se * (f64::from(trees) / their_trees).sqrt();
            let tolerance = (0.02_f64 * published).max(3.0 * (se * se + theirs * theirs).sqrt());
            assert!(
                (mean - published).abs() <= tolerance,
                "n = {n}, s = {s}: mean {mean} against {published} ± {tolerance}"
            );
        }
    }
}

/// LWSim's fitted L and d, the columns of the spec's table §10.4 to its two decimals.
#[test]
fn lwsim_fits_match_the_table() {
    let table = [
        (17.0, -1.0, 6.73, 4.28),
        (17.0, 0.0, 8.35, 4.06),
        (17.0, 1.0, 10.64, 2.89),
        (17.0, 2.0, 12.94, 2.96),
        (100.0, -2.0, 30.94, 24.46),
        (100.0, -1.0, 38.90, 25.97),
        (100.0, 0.0, 48.42, 24.91),
        (100.0, 0.5, 56.93, 20.09),
        (100.0, 1.0, 70.78, 9.47),
        (100.0, 2.0, 89.28, 7.33),
        (100.0, 3.0, 98.10, 2.51),
    ];
    for (n, s, leaves, delegating) in table {
        close(fits::leaves(n, s), leaves, 0.0051);
        close(fits::delegating(n, s), delegating, 0.0051);
    }
    // Bucket edges are the midpoints: n = 6.5 takes the second row.
    close(fits::leaf_fraction(6.4, 0.0), 0.5097, 1e-12);
    close(fits::leaf_fraction(6.5, 0.0), 0.4627, 1e-12);
    close(fits::leaf_fraction(1000.0, 0.0), 0.4951, 1e-12);
}

/// The inverse gives back LWSim's default sizes from the published footprints, and the
/// footprints of what it returns are the imposed ones.
#[test]
fn inverse_footprint() {
    let tree = TaskTree::layered(&[4, 3]).unwrap();
    let c = counts(&tree);
    let costs = costs_for(c, 340e-6, 5_287_360.0, &TaskCosts::default()).unwrap();
    assert_eq!(costs.schedule_bits, 160_000.0);
    assert_eq!(costs.result_bits, 320_000.0);
    close(costs.init, 10e-6, 1e-18);
    close(costs.aggregate, 10e-6, 1e-18);
    let imposed = costs_for(c, 1e-3, 2e7, &TaskCosts::default()).unwrap();
    let footprint = Footprint::of(c, &imposed);
    close(footprint.computation, 1e-3, 1e-15);
    close(footprint.communication, 2e7, 1e-6);
    close(imposed.result_bits, 2.0 * imposed.schedule_bits, 1e-6);
    // Below the control traffic, or without delegations, nothing fits.
    assert!(costs_for(c, 1e-3, 1000.0, &TaskCosts::default()).is_none());
    // A negative F_x, or base costs without a ratio to keep, neither.
    assert!(costs_for(c, -1e-3, 2e7, &TaskCosts::default()).is_none());
    let timeless = TaskCosts {
        init: 0.0,
        aggregate: 0.0,
        ..TaskCosts::default()
    };
    assert!(costs_for(c, 1e-3, 2e7, &timeless).is_none());
    let empty = TaskCosts {
        schedule_bits: 0.0,
        result_bits: 0.0,
        ..TaskCosts::default()
    };
    assert!(costs_for(c, 1e-3, 2e7, &empty).is_none());
    let single = counts(&TaskTree::single());
    assert!(costs_for(single, 1e-3, 2e7, &TaskCosts::default()).is_none());
}

/// Each load gives back the arrival rate that produced it, and ζ, F, ξ follow.
#[test]
fn load_identities() {
    let footprint = Footprint::of(
        counts(&TaskTree::layered(&[4, 3]).unwrap()),
        &TaskCosts::default(),
    );
    let machine = Machine {
        nodes: 64,
        power: 2.0,
        bandwidth: 40e9,
        scheduler: SchedulerKind::Central,
    };
    let by_rate = Loads::new(&footprint, &machine, LoadTarget::ArrivalRate(5e4));
    close(by_rate.computation, 340e-6 * 5e4 / (63.0 * 2.0), 1e-15);
    close(
        by_rate.communication,
        5_287_360.0 * 5e4 / (40e9 * 64.0),
        1e-15,
    );
    let by_x = Loads::new(
        &footprint,
        &machine,
        LoadTarget::Computation(by_rate.computation),
    );
    let by_c = Loads::new(
        &footprint,
        &machine,
        LoadTarget::Communication(by_rate.communication),
    );
    close(by_x.arrival_rate, 5e4, 1e-7);
    close(by_c.arrival_rate, 5e4, 1e-7);
    close(
        by_rate.zeta,
        by_rate.computation / by_rate.communication,
        1e-12,
    );
    close(by_rate.f, footprint.intensity() * 63.0 / 64.0 * 2.0, 1e-3);
    close(by_rate.xi, by_rate.zeta / 2.0, 1e-12);
}

/// Every bucket of LWSim's fits, at the sizes they were made for, against the spec's
/// coefficient tables (§10.3), evaluated on each side of the switch in s (p0 at 0 and
/// 1.5, p1 at 0.5 and 2) and away from 0, where every coefficient counts.
#[test]
fn every_bucket_of_the_fits() {
    let sizes = [5.0, 8.0, 15.0, 25.0, 50.0, 100.0, 500.0, 1000.0];
    let p0_low: [&[f64]; 8] = [
        &[0.5097, 0.0479, 0.0062, 0.0003],
        &[0.4627, 0.0776, 0.0113, 0.0006],
        &[0.4911, 0.1071, 0.0122, 0.0005],
        &[0.4775, 0.1065, 0.0108, 0.0004],
        &[0.4786, 0.0934, 0.0066, 0.0002],
        &[0.4842, 0.1034, 0.0084, 0.0002],
        &[0.4989, 0.1149, 0.0109, 0.0004],
        &[0.4951, 0.1156, 0.0111, 0.0004],
    ];
    let p0_high: [&[f64]; 8] = [
        &[0.5205, 0.0290, 0.0038, -0.0006],
        &[0.4455, 0.1550, -0.0215, 0.001],
        &[0.4263, 0.2363, -0.0387, 0.0021],
        &[0.4132, 0.2955, -0.0539, 0.0032],
        &[0.4063, 0.3493, -0.0689, 0.0044],
        &[0.3948, 0.3874, -0.0796, 0.0052],
        &[0.3433, 0.5433, -0.158, 0.0193, -0.0008],
        &[0.3263, 0.5763, -0.1727, 0.0218, -0.001],
    ];
    let p1_low: [&[f64]; 8] = [
        &[0.2954, -0.0277, 0.0022, 0.0005],
        &[0.3541, -0.0465, 0.0032, 0.0007],
        &[0.2991, -0.0686, 0.0092, 0.0013],
        &[0.2928, -0.076, 0.0085, 0.0012],
        &[0.2686, -0.0737, 0.0081, 0.001],
        &[0.2715, -0.0764, 0.0084, 0.0011],
        &[0.2569, -0.0808, 0.0075, 0.001],
        &[0.2618, -0.0805, 0.0078, 0.001],
    ];
    let p1_high: [&[f64]; 8] = [
        &[0.3063, -0.0616, 0.0046],
        &[0.2291, -0.0628, 0.0069, -0.0002],
        &[0.3503, -0.1775, 0.0324, -0.0019],
        &[0.405, -0.2854, 0.0787, -0.0095, 0.0004],
        &[0.454, -0.3715, 0.1136, -0.015, 0.0007],
        &[0.5086, -0.4521, 0.1456, -0.02, 0.001],
        &[1.3931, -2.0795, 1.2417, -0.3798, 0.0629, -0.0054, 0.0002],
        &[1.5915, -2.457, 1.5063, -0.4705, 0.0793, -0.0069, 0.0002],
    ];
    let at = |c: &[f64], s: f64| {
        c.iter()
            .enumerate()
            .map(|(k, a)| a * s.powi(k as i32))
            .sum::<f64>()
    };
    for (b, &n) in sizes.iter().enumerate() {
        for s in [-1.5, 0.0] {
            close(fits::leaf_fraction(n, s), at(p0_low[b], s), 1e-12);
            close(fits::single_child_fraction(n, s), at(p1_low[b], s), 1e-12);
        }
        close(fits::leaf_fraction(n, 1.5), at(p0_high[b], 1.5), 1e-12);
        close(
            fits::single_child_fraction(n, 0.5),
            at(p1_low[b], 0.5),
            1e-12,
        );
        close(
            fits::single_child_fraction(n, 2.0),
            at(p1_high[b], 2.0),
            1e-12,
        );
    }
}
