//! LWSim's analytic fits of the leaf and delegating-task counts of the stochastic
//! preferential-attachment tree: piecewise polynomials in s, by bucket of n. They are
//! what LWSim used, not the truth: for s ≥ 1 at n = 100 its d is off by −46 % to +210 %
//! (spec table §10.4), which is why orcs reports them beside the generator's own
//! counts.

/// Fraction of leaves p0(s, n) as LWSim fits it.
pub fn leaf_fraction(n: f64, s: f64) -> f64 {
    let coefficients: &[f64] = if s <= 0.0 {
        match bucket(n) {
            0 => &[0.5097, 0.0479, 0.0062, 0.0003],
            1 => &[0.4627, 0.0776, 0.0113, 0.0006],
            2 => &[0.4911, 0.1071, 0.0122, 0.0005],
            3 => &[0.4775, 0.1065, 0.0108, 0.0004],
            4 => &[0.4786, 0.0934, 0.0066, 0.0002],
            5 => &[0.4842, 0.1034, 0.0084, 0.0002],
            6 => &[0.4989, 0.1149, 0.0109, 0.0004],
            _ => &[0.4951, 0.1156, 0.0111, 0.0004],
        }
    } else {
        match bucket(n) {
            0 => &[0.5205, 0.0290, 0.0038, -0.0006],
            1 => &[0.4455, 0.1550, -0.0215, 0.001],
            2 => &[0.4263, 0.2363, -0.0387, 0.0021],
            3 => &[0.4132, 0.2955, -0.0539, 0.0032],
            4 => &[0.4063, 0.3493, -0.0689, 0.0044],
            5 => &[0.3948, 0.3874, -0.0796, 0.0052],
            6 => &[0.3433, 0.5433, -0.158, 0.0193, -0.0008],
            _ => &[0.3263, 0.5763, -0.1727, 0.0218, -0.001],
        }
    };
    polynomial(coefficients, s)
}

/// Fraction of tasks with exactly one child p1(s, n) as LWSim fits it.
pub fn single_child_fraction(n: f64, s: f64) -> f64 {
    let coefficients: &[f64] = if s <= 1.0 {
        match bucket(n) {
            0 => &[0.2954, -0.0277, 0.0022, 0.0005],
            1 => &[0.3541, -0.0465, 0.0032, 0.0007],
            2 => &[0.2991, -0.0686, 0.0092, 0.0013],
            3 => &[0.2928, -0.076, 0.0085, 0.0012],
            4 => &[0.2686, -0.0737, 0.0081, 0.001],
            5 => &[0.2715, -0.0764, 0.0084, 0.0011],
            6 => &[0.2569, -0.0808, 0.0075, 0.001],
            _ => &[0.2618, -0.0805, 0.0078, 0.001],
        }
    } else {
        match bucket(n) {
            0 => &[0.3063, -0.0616, 0.0046],
            1 => &[0.2291, -0.0628, 0.0069, -0.0002],
            2 => &[0.3503, -0.1775, 0.0324, -0.0019],
            3 => &[0.405, -0.2854, 0.0787, -0.0095, 0.0004],
            4 => &[0.454, -0.3715, 0.1136, -0.015, 0.0007],
            5 => &[0.5086, -0.4521, 0.1456, -0.02, 0.001],
            6 => &[1.3931, -2.0795, 1.2417, -0.3798, 0.0629, -0.0054, 0.0002],
            _ => &[1.5915, -2.457, 1.5063, -0.4705, 0.0793, -0.0069, 0.0002],
        }
    };
    polynomial(coefficients, s)
}

/// Leaves by LWSim's fit, `L_sto = p0(s, n) · n`.
pub fn leaves(n: f64, s: f64) -> f64 {
    leaf_fraction(n, s) * n
}

/// Delegating tasks by LWSim's fit, `d_sto = 1 − p1 + (n − 1)(1 − p0 − p1)`.
pub fn delegating(n: f64, s: f64) -> f64 {
    let (p0, p1) = (leaf_fraction(n, s), single_child_fraction(n, s));
    1.0 - p1 + (n - 1.0) * (1.0 - p0 - p1)
}

/// The bucket of n: the fits were made for 5, 8, 15, 25, 50, 100, 500 and 1000 tasks,
/// and the bucket edges are the midpoints.
fn bucket(n: f64) -> usize {
    const EDGES: [f64; 7] = [6.5, 11.5, 20.0, 37.0, 75.0, 300.0, 750.0];
    EDGES.iter().take_while(|&&edge| n >= edge).count()
}

/// a0 + a1·s + a2·s² + …, by Horner's rule.
fn polynomial(coefficients: &[f64], s: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &a| acc * s + a)
}
