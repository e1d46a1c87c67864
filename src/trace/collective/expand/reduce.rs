//! Schedules that combine data on the way: binomial and Rabenseifner reduce, recursive
//! doubling and Rabenseifner allreduce, the reduce-scatters and the scans.

use super::*;

/// Binomial reduce of an `n`-byte vector: every rank but the tree's root sends its
/// partial result, n bytes, once, to its parent (relative rank v − lowest set bit of
/// v). The tree is rooted at the root for a commutative operator; otherwise at rank 0,
/// which then sends the result to the root (MPICH keeps the operand order that way).
/// The root receives ⌈lg p⌉ messages.
pub(super) fn binomial_reduce(
    r: u32,
    p: u32,
    root: u32,
    n: u64,
    commutative: bool,
    emit: &mut impl FnMut(u32, u64),
) {
    let tree = Rooted::new(if commutative { root } else { 0 }, p);
    let v = tree.relative(r);
    if v != 0 {
        emit(tree.real(v - lowbit(v)), n);
    } else if r != root {
        emit(root, n);
    }
}

/// The fold of a communicator onto its largest power of two, pof2 = 2^⌊lg p⌋ (MPICH's
/// non-power-of-two step): the first 2·rem ranks (rem = p − pof2) pair up, one of each
/// pair hands its data to the other and sits out; the others are renumbered 0 … pof2 − 1.
#[derive(Clone, Copy)]
pub(super) struct Fold {
    pof2: u32,
    rem: u32,
    /// Whether the odd rank of each pair stays in (allreduce, reduce-scatter) or the
    /// even one (reduce).
    odd_stays: bool,
}

impl Fold {
    fn new(p: u32, odd_stays: bool) -> Self {
        let pof2 = pof2_floor(p);
        Fold {
            pof2,
            rem: p - pof2,
            odd_stays,
        }
    }

    /// The rank `r` hands its data to, if it sits out.
    fn partner_if_out(self, r: u32) -> Option<u32> {
        if r >= 2 * self.rem || (r % 2 == 1) == self.odd_stays {
            return None;
        }
        Some(if self.odd_stays { r + 1 } else { r - 1 })
    }

    /// The new rank of `r`, if it stays in.
    fn new_rank(self, r: u32) -> Option<u32> {
        if r >= 2 * self.rem {
            Some(r - self.rem)
        } else if (r % 2 == 1) == self.odd_stays {
            Some(r / 2)
        } else {
            None
        }
    }

    /// The rank that plays new rank `nr`.
    fn real(self, nr: u32) -> u32 {
        if nr < self.rem {
            2 * nr + u32::from(self.odd_stays)
        } else {
            nr + self.rem
        }
    }
}

/// Recursive-doubling allreduce of an `n`-byte vector: the fold of [`Fold`] (each even
/// rank below 2·rem sends n to its odd neighbour), then, in step i, new rank nr sends n
/// to nr ^ 2^i (lg pof2 steps), then each odd rank below 2·rem sends the result, n, back
/// to its even neighbour. lg p messages per rank for p a power of two.
pub(super) fn recursive_doubling_allreduce(
    r: u32,
    p: u32,
    n: u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    let mut mask = 1;
    while mask < fold.pof2 {
        emit(fold.real(nr ^ mask), n);
        mask *= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, n);
    }
}

/// A range of Rabenseifner pieces, `lo..hi`, held by one rank.
#[derive(Clone, Copy)]
pub(super) struct Pieces {
    lo: u32,
    hi: u32,
}

/// The reduce-scatter half of Rabenseifner among new ranks (distance 1, 2, 4, … and
/// halves of the pieces): in the step with mask m, new rank nr keeps the lower half of
/// its pieces if nr < nr ^ m, else the upper half, and sends the other half to
/// nr ^ m. Returns the piece it ends with.
pub(super) fn halving_exchange(
    nr: u32,
    fold: Fold,
    pieces: Blocks,
    emit: &mut impl FnMut(u32, u64),
) -> Pieces {
    let mut held = Pieces {
        lo: 0,
        hi: fold.pof2,
    };
    let mut mask = 1;
    while mask < fold.pof2 {
        let partner = nr ^ mask;
        let mid = held.lo + (held.hi - held.lo) / 2;
        let (keep, send) = if nr < partner {
            (
                Pieces {
                    lo: held.lo,
                    hi: mid,
                },
                Pieces {
                    lo: mid,
                    hi: held.hi,
                },
            )
        } else {
            (
                Pieces {
                    lo: mid,
                    hi: held.hi,
                },
                Pieces {
                    lo: held.lo,
                    hi: mid,
                },
            )
        };
        emit(fold.real(partner), pieces.sum(send.lo, send.hi));
        held = keep;
        mask *= 2;
    }
    held
}

/// The pieces held after undoing the halving step with mask `mask` when `nr`'s partner
/// holds the adjacent range of the same size.
pub(super) fn merge(held: Pieces, nr: u32, mask: u32) -> Pieces {
    let size = held.hi - held.lo;
    if nr < nr ^ mask {
        Pieces {
            lo: held.lo,
            hi: held.hi + size,
        }
    } else {
        Pieces {
            lo: held.lo - size,
            hi: held.hi,
        }
    }
}

/// Rabenseifner allreduce of an `n`-byte vector cut into pof2 pieces: the fold of
/// [`Fold`] (even ranks below 2·rem send n to their odd neighbour), a recursive-halving
/// reduce-scatter ([`halving_exchange`]: lg pof2 messages, n − piece bytes), a
/// recursive-doubling allgather of the pieces in the reverse order (partners at
/// distance pof2/2, …, 1; each rank sends all it holds), then odd ranks below 2·rem
/// send n back. 2·lg p messages per rank for p a power of two.
pub(super) fn rabenseifner_allreduce(r: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    let pieces = Blocks::Balanced {
        total: n,
        count: fold.pof2,
    };
    let mut held = halving_exchange(nr, fold, pieces, emit);
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        emit(fold.real(nr ^ mask), pieces.sum(held.lo, held.hi));
        held = merge(held, nr, mask);
        mask /= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, n);
    }
}

/// Rabenseifner reduce of an `n`-byte vector cut into pof2 pieces: the fold of [`Fold`]
/// with the even rank of each pair staying (odd ranks below 2·rem send n to r − 1), the
/// recursive-halving reduce-scatter of [`halving_exchange`], then a binomial gather of
/// the pieces to the root (partners at distance pof2/2, …, 1; a rank whose partner is
/// on the root's side sends it everything it holds and stops). When the root sat out
/// of the fold, new rank 0 first sends it its piece and the root plays new rank 0.
/// 2·lg p messages on the root's path for p a power of two (lg p sent, lg p received).
pub(super) fn rabenseifner_reduce(
    r: u32,
    p: u32,
    root: u32,
    n: u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let fold = Fold::new(p, false);
    let pieces = Blocks::Balanced {
        total: n,
        count: fold.pof2,
    };
    let root_sat_out = fold.new_rank(root).is_none();
    let new_root = fold.new_rank(root).unwrap_or(0);
    let mut nr = fold.new_rank(r);
    let mut held = Pieces { lo: 0, hi: 1 };
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, n);
    }
    if let Some(nr) = nr {
        held = halving_exchange(nr, fold, pieces, emit);
    }
    if root_sat_out {
        if r == root {
            nr = Some(0);
        } else if nr == Some(0) {
            emit(root, pieces.get(0));
            nr = None;
        }
    }
    let Some(nr) = nr else { return };
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        let partner = nr ^ mask;
        let dst = if partner == 0 && root_sat_out {
            root
        } else {
            fold.real(partner)
        };
        if partner / mask == new_root / mask {
            emit(dst, pieces.sum(held.lo, held.hi));
            return;
        }
        held = merge(held, nr, mask);
        mask /= 2;
    }
}

/// Recursive-halving reduce-scatter with the fold of [`Fold`] (even ranks below 2·rem
/// send the whole vector to their odd neighbour, which then also computes its
/// neighbour's block): in the step with mask m = pof2/2, …, 1, new rank nr sends to
/// nr ^ m the blocks of the half of its range that nr ^ m keeps; at the end odd ranks
/// below 2·rem send their even neighbour its block. lg p messages per rank, n(p − 1)/p
/// bytes for equal blocks, when p is a power of two.
pub(super) fn recursive_halving_reduce_scatter(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    let fold = Fold::new(p, true);
    if let Some(partner) = fold.partner_if_out(r) {
        emit(partner, blocks.total());
        return;
    }
    let Some(nr) = fold.new_rank(r) else { return };
    // New rank i computes the blocks of ranks start(i) … start(i + 1) − 1.
    let start = |i: u32| if i < fold.rem { 2 * i } else { i + fold.rem };
    let (mut lo, mut hi) = (0, fold.pof2);
    let mut mask = fold.pof2 / 2;
    while mask > 0 {
        let mid = lo + mask;
        let (keep, send) = if nr < (nr ^ mask) {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        emit(
            fold.real(nr ^ mask),
            blocks.sum(start(send.0), start(send.1)),
        );
        (lo, hi) = keep;
        mask /= 2;
    }
    if r < 2 * fold.rem {
        emit(r - 1, blocks.get(r - 1));
    }
}

/// Pairwise-exchange reduce-scatter: in step i = 1 … p − 1 rank r sends rank
/// (r + i) mod p that rank's block of r's vector. p − 1 messages per rank.
pub(super) fn pairwise_reduce_scatter(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = ((r64 + step) % p64) as u32;
        emit(dst, blocks.get(dst));
    }
}

/// Recursive-doubling reduce-scatter (MPICH's choice for non-commutative operators):
/// in step i rank r sends r ^ 2^i every block except those of its own group of 2^i
/// ranks (see [`recursive_doubling_exchange`]; forwarded messages carry every block
/// except those of the partner group). For p a power of two: lg p messages per rank,
/// n(lg p − (p − 1)/p) bytes for equal blocks.
pub(super) fn recursive_doubling_reduce_scatter(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    let total = blocks.total();
    recursive_doubling_exchange(
        r,
        p,
        |my_root, mask| total - blocks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| {
            let dst_root = my_root.saturating_add(mask);
            total - blocks.sum(dst_root, dst_root.saturating_add(mask))
        },
        emit,
    );
}

/// Recursive-doubling scan and exscan of an `n`-byte vector: in step i rank r sends its
/// partial result, n bytes, to r ^ 2^i when that rank exists. ⌈lg p⌉ messages or fewer
/// per rank (lg p for p a power of two).
pub(super) fn recursive_doubling_scan(r: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let mut mask = 1u64;
    while mask < p64 {
        let dst = r64 ^ mask;
        if dst < p64 {
            emit(dst as u32, n);
        }
        mask *= 2;
    }
}
