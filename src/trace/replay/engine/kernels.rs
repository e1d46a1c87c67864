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
/// configuration twice: [`latest_of`] does (the second time the clock is already at
/// least the other). The kernels that add gaps, which do not, run on whole lanes of
/// [`padded`] configurations instead.
fn lane_starts(k: usize) -> impl Iterator<Item = usize> {
    let last = k.saturating_sub(LANES);
    (0..k).step_by(LANES).map(move |lo| lo.min(last))
}

/// Adds the computations `gaps` before calls, each in turn, to the clock and the path's
/// computation: one pass over them, the same sums as one pass per gap.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn add_gaps(clock: &mut [f64], computation: &mut [f64], gaps: &[f64]) {
    let computation = &mut computation[..clock.len()];
    match *gaps {
        [] => {}
        [a] => add_in_turn(clock, computation, [a]),
        [a, b] => add_in_turn(clock, computation, [a, b]),
        [a, b, c] => add_in_turn(clock, computation, [a, b, c]),
        [a, b, c, d] => add_in_turn(clock, computation, [a, b, c, d]),
        _ => {
            for &gap in gaps {
                add_in_turn(clock, computation, [gap]);
            }
        }
    }
}

/// [`add_gaps`] for a count known when compiling: the gaps are added to each value in
/// registers, and the loop over the values is vectorised.
#[inline(always)]
fn add_in_turn<const N: usize>(clock: &mut [f64], computation: &mut [f64], gaps: [f64; N]) {
    for (c, p) in clock.iter_mut().zip(computation.iter_mut()) {
        for gap in gaps {
            *c += gap;
            *p += gap;
        }
    }
}

/// The configurations the clocks keep for `k`: `k` rounded up to whole lanes from
/// [`LANES`] on, so that [`arrive`] and [`settle_copy`] run on whole lanes only.
pub(super) fn padded(k: usize) -> usize {
    if k < LANES {
        k
    } else {
        k.div_ceil(LANES) * LANES
    }
}

/// A message of `n` bytes that started at the path `from` (a block: clock,
/// computation, latency, bandwidth and, if kept, contention per configuration) arrives
/// at the rank whose block is `to`, once the computations `gaps` have gone on its clock
/// and computation, each in turn (as [`add_gaps`], in the same pass): where the message
/// ends after the clock (start + α + nβ), the clock moves there and the path becomes
/// the sender's plus α of latency and nβ of bandwidth.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn arrive(
    to: &mut [f64],
    gaps: &[f64],
    from: &[f64],
    alpha: &[f64],
    beta: &[f64],
    n: f64,
) {
    let (k, len) = (alpha.len(), to.len());
    let [clock, computation, latency, bandwidth, contention] = split(to, k);
    let [s_clock, s_computation, s_latency, s_bandwidth, s_contention] = parts(&from[..len], k);
    let (beta, contention_kept) = (&beta[..k], !contention.is_empty());
    // Whole lanes, then the configurations left one by one (none when `k` is padded).
    let whole = if k < LANES { 0 } else { k - k % LANES };
    for lo in (0..whole).step_by(LANES) {
        let (a, b, s) = (lane(alpha, lo), lane(beta, lo), lane(s_clock, lo));
        let (mut c, mut p) = (*lane(clock, lo), *lane(computation, lo));
        for &gap in gaps {
            for i in 0..LANES {
                c[i] += gap;
                p[i] += gap;
            }
        }
        let mut bytes_time = [0.0; LANES];
        let mut arrival = [0.0; LANES];
        let mut later = [0; LANES];
        for i in 0..LANES {
            bytes_time[i] = n * b[i];
            arrival[i] = s[i] + a[i] + bytes_time[i];
            later[i] = mask(arrival[i] > c[i]);
        }
        let (sl, sb) = (lane(s_latency, lo), lane(s_bandwidth, lo));
        let sp = lane(s_computation, lo);
        // Selections, not jumps: jumping over lanes wholly earlier or later was
        // tried, and on the benchmark trace the jumps, often mispredicted, cost what
        // they saved.
        blend(lane_mut(latency, lo), &later, |i| sl[i] + a[i]);
        blend(lane_mut(bandwidth, lo), &later, |i| sb[i] + bytes_time[i]);
        *lane_mut(computation, lo) = select(&later, sp, &p);
        if contention_kept {
            let sc = lane(s_contention, lo);
            blend(lane_mut(contention, lo), &later, |i| sc[i]);
        }
        *lane_mut(clock, lo) = select(&later, &arrival, &c);
    }
    for i in whole..k {
        let (mut c, mut p) = (clock[i], computation[i]);
        for &gap in gaps {
            c += gap;
            p += gap;
        }
        let bw = n * beta[i];
        let arrival = s_clock[i] + alpha[i] + bw;
        if arrival > c {
            clock[i] = arrival;
            computation[i] = s_computation[i];
            latency[i] = s_latency[i] + alpha[i];
            bandwidth[i] = s_bandwidth[i] + bw;
            if contention_kept {
                contention[i] = s_contention[i];
            }
        } else {
            clock[i] = c;
            computation[i] = p;
        }
    }
}

/// Puts the computations `gaps` on the clock and computation of `block` (of `k`
/// configurations), each in turn as [`add_gaps`], and copies the block into `copy`, in
/// one pass.
#[multiversion(targets("x86_64+avx512f", "x86_64+avx2", "x86_64+sse4.1"))]
pub(super) fn settle_copy(block: &mut [f64], gaps: &[f64], copy: &mut [f64], k: usize) {
    let copy = &mut copy[..block.len()];
    // The clock and the computation come first in a block.
    let (with_gaps, rest) = block.split_at_mut(2 * k);
    let (copy_with_gaps, copy_rest) = copy.split_at_mut(with_gaps.len());
    let mut values = with_gaps.chunks_exact_mut(LANES);
    let mut copies = copy_with_gaps.chunks_exact_mut(LANES);
    for (value, copied) in (&mut values).zip(&mut copies) {
        let mut v: Lane = value.try_into().expect("a whole lane");
        for &gap in gaps {
            for x in &mut v {
                *x += gap;
            }
        }
        value.copy_from_slice(&v);
        copied.copy_from_slice(&v);
    }
    let values = values.into_remainder().iter_mut();
    for (value, copied) in values.zip(copies.into_remainder()) {
        for &gap in gaps {
            *value += gap;
        }
        *copied = *value;
    }
    copy_rest.copy_from_slice(rest);
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

/// `new[i]` where `masks[i]` is all ones, else `old[i]`, bit by bit: a new lane to
/// store whole (neither input is where the result goes, so no masked store is made).
#[inline(always)]
fn select(masks: &[u64; LANES], new: &Lane, old: &Lane) -> Lane {
    std::array::from_fn(|i| {
        let m = masks[i];
        f64::from_bits((new[i].to_bits() & m) | (old[i].to_bits() & !m))
    })
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
        arrive(&mut to, &[], &from.concat(), &alpha, &beta, 8.0);
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

    /// A sender's block at a message's start, `k` configurations of `kept` quantities:
    /// clock 1, computation 0.5, latency 0.25, bandwidth 0.125, contention 0.0625 in
    /// every configuration; and the network, α_i = i/2 and β = 1/8.
    fn sender(k: usize, kept: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let from = same_in_every_configuration(&[1.0, 0.5, 0.25, 0.125, 0.0625][..kept], k);
        let alpha = (0..k).map(|i| i as f64 / 2.0).collect();
        (from, alpha, vec![0.125; k])
    }

    /// A block of `k` configurations with `values[q]` in every one of quantity `q`.
    fn same_in_every_configuration(values: &[f64], k: usize) -> Vec<f64> {
        values.iter().flat_map(|&v| vec![v; k]).collect()
    }

    #[test]
    fn every_configuration_of_many_lanes_gets_its_own_arrival() {
        // With the contention kept (on a fabric) and without. 8 bytes from the
        // sender's clock 1 end at 2 + i/2: after a receiver's clock of 5 from
        // configuration 7 on, after 12 from 21 on (of 40 configurations, lanes 0–7 and
        // 8–15 are then wholly earlier, 16–23 mixed, 24–39 wholly later).
        for (clock, first_later) in [(5.0, 7), (12.0, 21)] {
            for (k, kept) in COUNTS
                .into_iter()
                .chain([40])
                .flat_map(|k| [(k, QUANTITIES), (k, UNROUTED_QUANTITIES)])
            {
                let (from, alpha, beta) = sender(k, kept);
                let before = [clock, 4.0, 3.0, 2.0, 1.0];
                let mut to = same_in_every_configuration(&before[..kept], k);
                arrive(&mut to, &[], &from, &alpha, &beta, 8.0);
                for i in 0..k {
                    let got: Vec<f64> = (0..kept).map(|q| to[q * k + i]).collect();
                    let a = i as f64 / 2.0;
                    let want = if i >= first_later {
                        [2.0 + a, 0.5, 0.25 + a, 1.125, 0.0625]
                    } else {
                        before
                    };
                    assert_eq!(got, want[..kept], "{k} configurations, configuration {i}");
                }
            }
        }
    }

    #[test]
    fn gaps_go_on_before_the_arrival_as_they_would_in_a_pass_of_their_own() {
        // Receiver's clock 4.6 + i/8 in configuration i, then gaps 0.1 and 0.2; the
        // message from clock 1 ends at 2 + i/2 with α_i = i/2, β = 1/8, 8 bytes: later
        // from about i = 8 on, so lanes are wholly earlier, mixed and wholly later.
        for k in COUNTS.into_iter().chain([40, 64]) {
            for kept in [QUANTITIES, UNROUTED_QUANTITIES] {
                let (from, alpha, beta) = sender(k, kept);
                let mut to: Vec<f64> = (0..kept * k)
                    .map(|j| 4.6 - (j / k) as f64 + (j % k) as f64 / 8.0)
                    .collect();
                let mut want = to.clone();
                let (clock, rest) = want.split_at_mut(k);
                add_gaps(clock, &mut rest[..k], &[0.1, 0.2]);
                arrive(&mut want, &[], &from, &alpha, &beta, 8.0);
                arrive(&mut to, &[0.1, 0.2], &from, &alpha, &beta, 8.0);
                assert_eq!(to, want, "{k} configurations, {kept} quantities");
            }
        }
    }

    #[test]
    fn a_copy_with_gaps_puts_them_on_the_block_and_its_copy() {
        for k in COUNTS {
            for kept in [QUANTITIES, UNROUTED_QUANTITIES] {
                let mut block: Vec<f64> = (0..kept * k).map(|j| j as f64 * 0.3).collect();
                let mut want = block.clone();
                let (clock, rest) = want.split_at_mut(k);
                add_gaps(clock, &mut rest[..k], &[0.1, 0.2]);
                let mut copy = vec![-1.0; kept * k];
                settle_copy(&mut block, &[0.1, 0.2], &mut copy, k);
                assert_eq!(block, want, "{k} configurations, {kept} quantities");
                assert_eq!(copy, want, "{k} configurations, {kept} quantities");
            }
        }
    }

    #[test]
    fn whole_lanes_pad_the_configurations() {
        assert_eq!(padded(1), 1);
        assert_eq!(padded(7), 7);
        assert_eq!(padded(8), 8);
        assert_eq!(padded(9), 16);
        assert_eq!(padded(63), 64);
        assert_eq!(padded(64), 64);
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
    fn gaps_add_to_every_configuration_in_turn() {
        // 0.1 + 0.2 rounds differently added at once than in turn: the gaps go on one
        // after the other, as they would one pass each.
        let gaps = [0.1, 0.2, 0.25];
        for k in COUNTS {
            for n in 1..=gaps.len() {
                let mut clock: Vec<f64> = (0..k).map(|i| i as f64 + 0.7).collect();
                let mut computation = vec![0.5; k];
                let (mut want_clock, mut want_computation) = (clock.clone(), computation.clone());
                for &g in &gaps[..n] {
                    want_clock.iter_mut().for_each(|c| *c += g);
                    want_computation.iter_mut().for_each(|c| *c += g);
                }
                add_gaps(&mut clock, &mut computation, &gaps[..n]);
                assert_eq!(clock, want_clock, "{k} configurations, {n} gaps");
                assert_eq!(
                    computation, want_computation,
                    "{k} configurations, {n} gaps"
                );
            }
        }
    }

    #[test]
    fn a_gap_adds_to_the_clock_and_the_computation() {
        let (mut clock, mut computation) = (vec![1.0, 2.0, 3.0], vec![0.0, 0.5, 1.0]);
        add_gaps(&mut clock, &mut computation, &[0.25]);
        assert_eq!(clock, [1.25, 2.25, 3.25]);
        assert_eq!(computation, [0.25, 0.75, 1.25]);
        add_gaps(&mut clock, &mut computation, &[]);
        assert_eq!(clock, [1.25, 2.25, 3.25]);
    }
}
