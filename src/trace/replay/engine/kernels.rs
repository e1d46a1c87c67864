//! The loops over the configurations that every event runs: compiled for AVX-512, AVX2
//! and SSE4.1 beside the portable baseline, the widest the processor has chosen at run
//! time.
//!
//! From [`LANES`] configurations on, the loops run on whole lanes of fixed length, so
//! the compiler drops the bounds checks and keeps a lane in one vector register, and
//! branch-free: a later arrival selects by mask, it does not jump. Fewer configurations
//! take a plain scalar loop. Only additions, comparisons and selections, no fused
//! multiply-add, so every version gives the same bits.

use super::clocks::{parts, split, CLOCK};
#[cfg(test)]
use super::clocks::{QUANTITIES, UNROUTED_QUANTITIES};
use multiversion::multiversion;

/// Configurations computed together: one AVX-512 register of doubles, two AVX2 ones.
const LANES: usize = 8;

/// The values of up to [`LANES`] configurations.
type Lane = [f64; LANES];

/// Where the lanes of `k` ≥ [`LANES`] configurations start: whole lanes, the last one
/// moved back to end at `k` (overlapping the one before it), so no configuration falls
/// to a scalar remainder loop.
///
/// A kernel run on overlapping lanes must give the same result when it sees a
/// configuration twice: [`arrive`] and [`latest_of`] do (the second time the clock is
/// already at least the arrival).
fn lane_starts(k: usize) -> impl Iterator<Item = usize> {
    let last = k.saturating_sub(LANES);
    (0..k).step_by(LANES).map(move |lo| lo.min(last))
}

/// Adds the computation `gap` before a call to the clock and the path's computation.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn add_gap(clock: &mut [f64], computation: &mut [f64], gap: f64) {
    let computation = &mut computation[..clock.len()];
    for (c, p) in clock.iter_mut().zip(computation.iter_mut()) {
        *c += gap;
        *p += gap;
    }
}

/// A message of `n` bytes that started at the path `from` (a block: clock,
/// computation, latency, bandwidth and, if kept, contention per configuration) arrives
/// at the rank whose block is `to`: where it ends after the clock (start + α + nβ), the
/// clock moves there and the path becomes the sender's plus α of latency and nβ of
/// bandwidth.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn arrive(to: &mut [f64], from: &[f64], alpha: &[f64], beta: &[f64], n: f64) {
    let (k, len) = (alpha.len(), to.len());
    let [clock, computation, latency, bandwidth, contention] = split(to, k);
    let [s_clock, s_computation, s_latency, s_bandwidth, s_contention] = parts(&from[..len], k);
    let (beta, contention_kept) = (&beta[..k], !contention.is_empty());
    if k < LANES {
        for i in 0..k {
            let bw = n * beta[i];
            let arrival = s_clock[i] + alpha[i] + bw;
            if arrival > clock[i] {
                clock[i] = arrival;
                computation[i] = s_computation[i];
                latency[i] = s_latency[i] + alpha[i];
                bandwidth[i] = s_bandwidth[i] + bw;
                if contention_kept {
                    contention[i] = s_contention[i];
                }
            }
        }
        return;
    }
    for lo in lane_starts(k) {
        let (a, b, s) = (lane(alpha, lo), lane(beta, lo), lane(s_clock, lo));
        let mut bytes_time = [0.0; LANES];
        let mut arrival = [0.0; LANES];
        let mut later = [0; LANES];
        {
            let c = lane_mut(clock, lo);
            for i in 0..LANES {
                bytes_time[i] = n * b[i];
                arrival[i] = s[i] + a[i] + bytes_time[i];
                later[i] = mask(arrival[i] > c[i]);
            }
        }
        let (sl, sb) = (lane(s_latency, lo), lane(s_bandwidth, lo));
        blend(lane_mut(latency, lo), &later, |i| sl[i] + a[i]);
        blend(lane_mut(bandwidth, lo), &later, |i| sb[i] + bytes_time[i]);
        let sp = lane(s_computation, lo);
        blend(lane_mut(computation, lo), &later, |i| sp[i]);
        if contention_kept {
            let sc = lane(s_contention, lo);
            blend(lane_mut(contention, lo), &later, |i| sc[i]);
        }
        blend(lane_mut(clock, lo), &later, |i| arrival[i]);
    }
}

/// Makes the block `latest` of `k` configurations the later of itself and `other`,
/// configuration by configuration (the whole path of the later one; the earlier one on
/// a tie).
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn latest_of(latest: &mut [f64], other: &[f64], k: usize) {
    let kept = latest.len() / k.max(1);
    let quantities = split(latest, k);
    let others = parts(&other[..kept * k], k);
    if k < LANES {
        for i in 0..k {
            if others[CLOCK][i] > quantities[CLOCK][i] {
                for q in 0..kept {
                    quantities[q][i] = others[q][i];
                }
            }
        }
        return;
    }
    for lo in lane_starts(k) {
        let mut later = [0; LANES];
        {
            let (c, o) = (lane_mut(quantities[CLOCK], lo), lane(others[CLOCK], lo));
            for i in 0..LANES {
                later[i] = mask(o[i] > c[i]);
            }
        }
        // The masks are taken: the clock may change like the other quantities.
        for q in 0..kept {
            let o = lane(others[q], lo);
            blend(lane_mut(quantities[q], lo), &later, |i| o[i]);
        }
    }
}

/// The whole lane of `values` that starts at `lo`.
#[inline(always)]
fn lane(values: &[f64], lo: usize) -> &Lane {
    values[lo..lo + LANES].try_into().expect("a whole lane")
}

/// The whole lane of `values` that starts at `lo`, to change.
#[inline(always)]
fn lane_mut(values: &mut [f64], lo: usize) -> &mut Lane {
    (&mut values[lo..lo + LANES])
        .try_into()
        .expect("a whole lane")
}

/// All ones when `yes`, else all zeros.
#[inline(always)]
fn mask(yes: bool) -> u64 {
    0u64.wrapping_sub(u64::from(yes))
}

/// Replaces `to[i]` by `new(i)` where `masks[i]` is all ones: bit by bit, so that the
/// compiler sees data, not a jump, and the whole lane is stored.
///
/// The old values pass through `black_box` because LLVM otherwise turns "store the
/// selection of new and old back where old was loaded" into a masked store
/// (`vpmaskmovq`), which AMD processors run as microcode: on an AMD EPYC with AVX2 the
/// replay of 63 configurations took 8.3 s with it and 5.3 s without (`cargo bench
/// --bench trace`). The copy it costs stays in L1.
#[inline(always)]
fn blend(to: &mut Lane, masks: &[u64; LANES], new: impl Fn(usize) -> f64) {
    let old = std::hint::black_box(*to);
    for i in 0..LANES {
        let m = masks[i];
        to[i] = f64::from_bits((new(i).to_bits() & m) | (old[i].to_bits() & !m));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clocks of 3 configurations with distinct values per quantity.
    fn block(base: f64) -> Vec<f64> {
        (0..QUANTITIES * 3).map(|i| base + i as f64).collect()
    }

    #[test]
    fn the_later_clock_brings_its_whole_path() {
        // Configuration 0: other later; 1: equal (keep); 2: other earlier.
        let mut latest = block(0.0);
        let mut other = block(100.0);
        other[1] = latest[1];
        other[2] = -5.0;
        let before = latest.clone();
        latest_of(&mut latest, &other, 3);
        for q in 0..QUANTITIES {
            assert_eq!(latest[q * 3], other[q * 3], "quantity {q}, later");
            assert_eq!(latest[q * 3 + 1], before[q * 3 + 1], "quantity {q}, tie");
            assert_eq!(
                latest[q * 3 + 2],
                before[q * 3 + 2],
                "quantity {q}, earlier"
            );
        }
    }

    #[test]
    fn a_message_moves_the_clock_only_when_it_ends_later() {
        // Sender's path at the start: clock 1, computation 0.5, latency 0.25,
        // bandwidth 0.25, contention 0; 2 configurations; 8 bytes.
        let from = [
            [1.0, 1.0],
            [0.5, 0.5],
            [0.25, 0.25],
            [0.25, 0.25],
            [0.0, 0.0],
        ];
        let (alpha, beta) = ([1.0, 1.0], [0.125, 0.125]);
        // The receiver's clock: 1.5 (the message ends at 1 + 1 + 1 = 3: later) and 10
        // (earlier: unchanged).
        let mut to = [[1.5, 10.0], [1.5, 10.0], [0.0; 2], [0.0; 2], [0.0; 2]].concat();
        arrive(&mut to, &from.concat(), &alpha, &beta, 8.0);
        let to: Vec<&[f64]> = to.chunks(2).collect();
        assert_eq!(to[0], [3.0, 10.0]);
        assert_eq!(to[1], [0.5, 10.0]);
        assert_eq!(to[2], [1.25, 0.0]);
        assert_eq!(to[3], [1.25, 0.0]);
        assert_eq!(to[4], [0.0, 0.0]);
    }

    /// Configuration counts that take every path: the scalar one (fewer than a lane),
    /// whole lanes, and a last lane that overlaps the one before it.
    const COUNTS: [usize; 8] = [1, 7, 8, 9, 13, 16, 63, 70];

    #[test]
    fn every_configuration_of_many_lanes_gets_its_own_arrival() {
        // With the contention kept (on a fabric) and without.
        for (k, kept) in COUNTS
            .into_iter()
            .flat_map(|k| [(k, QUANTITIES), (k, UNROUTED_QUANTITIES)])
        {
            // Sender's path: clock 1, computation 0.5, latency 0.25, bandwidth 0.125,
            // contention 0.0625 in every configuration. α_i = i/2, β = 1/8, n = 8:
            // the message ends at 1 + i/2 + 1, later than the receiver's clock 5 when
            // i > 6.
            let from: Vec<f64> = [1.0, 0.5, 0.25, 0.125, 0.0625][..kept]
                .iter()
                .flat_map(|&v| vec![v; k])
                .collect();
            let alpha: Vec<f64> = (0..k).map(|i| i as f64 / 2.0).collect();
            let beta = vec![0.125; k];
            let before: Vec<f64> = [5.0, 4.0, 3.0, 2.0, 1.0][..kept]
                .iter()
                .flat_map(|&v| vec![v; k])
                .collect();
            let mut to = before.clone();
            arrive(&mut to, &from, &alpha, &beta, 8.0);
            for i in 0..k {
                let got: Vec<f64> = (0..kept).map(|q| to[q * k + i]).collect();
                let a = i as f64 / 2.0;
                let want = if i > 6 {
                    [2.0 + a, 0.5, 0.25 + a, 1.125, 0.0625]
                } else {
                    [5.0, 4.0, 3.0, 2.0, 1.0]
                };
                assert_eq!(got, want[..kept], "{k} configurations, configuration {i}");
            }
        }
    }

    #[test]
    fn every_configuration_of_many_lanes_keeps_its_later_path() {
        for (k, kept) in COUNTS
            .into_iter()
            .flat_map(|k| [(k, QUANTITIES), (k, UNROUTED_QUANTITIES)])
        {
            // The other block's clock is i in configuration i: later than 6 when i ≥ 7,
            // a tie (the block keeps its own path) at 6; its other quantities are
            // 100 + q.
            let mut other = vec![0.0; kept * k];
            let mut latest = vec![0.0; kept * k];
            for i in 0..k {
                other[i] = i as f64;
                latest[i] = 6.0;
                for q in 1..kept {
                    other[q * k + i] = 100.0 + q as f64;
                    latest[q * k + i] = q as f64;
                }
            }
            latest_of(&mut latest, &other, k);
            for i in 0..k {
                let got: Vec<f64> = (0..kept).map(|q| latest[q * k + i]).collect();
                let want = if i >= 7 {
                    [i as f64, 101.0, 102.0, 103.0, 104.0]
                } else {
                    [6.0, 1.0, 2.0, 3.0, 4.0]
                };
                assert_eq!(got, want[..kept], "{k} configurations, configuration {i}");
            }
        }
    }

    #[test]
    fn a_gap_adds_to_every_configuration() {
        for k in COUNTS {
            let mut clock: Vec<f64> = (0..k).map(|i| i as f64).collect();
            let mut computation = vec![0.5; k];
            add_gap(&mut clock, &mut computation, 0.25);
            let want: Vec<f64> = (0..k).map(|i| i as f64 + 0.25).collect();
            assert_eq!(clock, want, "{k} configurations");
            assert_eq!(computation, vec![0.75; k], "{k} configurations");
        }
    }

    #[test]
    fn a_gap_adds_to_the_clock_and_the_computation() {
        let (mut clock, mut computation) = (vec![1.0, 2.0, 3.0], vec![0.0, 0.5, 1.0]);
        add_gap(&mut clock, &mut computation, 0.25);
        assert_eq!(clock, [1.25, 2.25, 3.25]);
        assert_eq!(computation, [0.25, 0.75, 1.25]);
    }
}
