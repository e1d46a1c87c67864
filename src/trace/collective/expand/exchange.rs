//! Schedules where every rank exchanges with partners: recursive doubling, Bruck and
//! ring allgathers, and the Bruck, linear and pairwise alltoalls.

use super::*;

/// Recursive doubling among ranks 0 … p − 1 with MPICH's non-power-of-two forwarding.
///
/// In step i (mask = 2^i, while mask < p) rank v belongs to the group of `mask` ranks
/// starting at `my_root` = v with its low i bits cleared, and exchanges with v ^ mask
/// when that rank exists, sending `main(my_root, mask)` bytes. When v ^ mask's group
/// reaches past p, the ranks of v's group that had a partner pass what they received
/// on to those that had none, along a binomial tree inside the group (partners
/// v ^ mask/2, v ^ mask/4, …): each such message carries `forward(my_root, mask)`
/// bytes. For p a power of two: lg p messages per rank, no forwarding.
pub(super) fn recursive_doubling_exchange(
    v: u32,
    p: u32,
    main: impl Fn(u32, u32) -> u64,
    forward: impl Fn(u32, u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (v64, p64) = (u64::from(v), u64::from(p));
    let mut mask = 1u64;
    while mask < p64 {
        let dst = v64 ^ mask;
        let my_root = v64 & !(mask - 1);
        let dst_root = dst & !(mask - 1);
        if dst < p64 {
            emit(dst as u32, main(my_root as u32, mask as u32));
        }
        if dst_root + mask > p64 {
            // The ranks of v's group (from its start) that exchanged in this step.
            let done = p64 as i64 - (my_root + mask) as i64;
            let mut sub = mask / 2;
            while sub > 0 {
                let peer = v64 ^ sub;
                let tree_root = (v64 & !(2 * sub - 1)) as i64;
                let (v_has, peer_has) = (
                    (v64 as i64) < tree_root + done,
                    (peer as i64) < tree_root + done,
                );
                if peer > v64 && v_has && !peer_has {
                    emit(peer as u32, forward(my_root as u32, mask as u32));
                }
                sub /= 2;
            }
        }
        mask *= 2;
    }
}

/// Recursive-doubling allgather(v): in step i rank r sends the blocks of its group of
/// 2^i ranks to r ^ 2^i (see [`recursive_doubling_exchange`]; forwarded messages carry
/// the blocks of the partner group, from its start to p − 1). For p a power of two:
/// lg p messages per rank, n(p − 1)/p bytes for equal blocks.
pub(super) fn recursive_doubling_allgather(
    r: u32,
    p: u32,
    blocks: Blocks,
    emit: &mut impl FnMut(u32, u64),
) {
    recursive_doubling_exchange(
        r,
        p,
        |my_root, mask| blocks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| blocks.sum(my_root.saturating_add(mask), p),
        emit,
    );
}

/// Bruck allgather(v): while 2^k ≤ p/2, rank r sends the 2^k blocks it holds, those of
/// ranks r … r + 2^k − 1 (mod p), to r − 2^k; then, if p is not a power of two, the
/// first p − 2^⌊lg p⌋ of them to r − 2^⌊lg p⌋. ⌈lg p⌉ messages per rank, p − 1 blocks.
pub(super) fn bruck_allgather(r: u32, p: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    let left =
        |distance: u32| ((u64::from(r) + u64::from(p) - u64::from(distance)) % u64::from(p)) as u32;
    let mut held = 1u32;
    while held <= p / 2 {
        emit(left(held), blocks.wrapping_sum(r, held));
        held *= 2;
    }
    let rest = p - held;
    if rest > 0 {
        emit(left(held), blocks.wrapping_sum(r, rest));
    }
}

/// Ring allgather(v): in step i = 1 … p − 1 rank r sends block (r − i + 1) mod p, the one
/// it received last (its own first), to r + 1. p − 1 messages per rank.
pub(super) fn ring_allgather(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let right = ((r64 + 1) % p64) as u32;
    for step in 1..p64 {
        let owner = ((r64 + p64 + 1 - step) % p64) as u32;
        emit(right, block(owner));
    }
}

/// Bruck alltoall with blocks of `block` bytes: in step k (2^k < p) rank r sends to
/// r + 2^k the blocks whose index (distance to their destination) has bit k set.
/// ⌈lg p⌉ messages per rank; p/2 blocks each when p is a power of two.
pub(super) fn bruck_alltoall(r: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    let mut bit = 1u64;
    while bit < p64 {
        // Indices 1 … p − 1 with this bit set: whole periods of 2·bit, then the tail.
        let period = 2 * bit;
        let count = (p64 / period) * bit + (p64 % period).saturating_sub(bit);
        emit(((r64 + bit) % p64) as u32, count * block);
        bit *= 2;
    }
}

/// Linear alltoall(v/w) (MPICH's "scattered"): rank r sends each other rank its block,
/// in the order r + 1, r + 2, … (mod p); with `skip_empty`, empty blocks are not sent.
/// p − 1 messages per rank for non-empty blocks.
pub(super) fn linear_alltoall(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    skip_empty: bool,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = ((r64 + step) % p64) as u32;
        let bytes = block(dst);
        if bytes > 0 || !skip_empty {
            emit(dst, bytes);
        }
    }
}

/// Pairwise-exchange alltoall(v/w): in step i = 1 … p − 1 rank r sends its block for
/// r ^ i when p is a power of two, else for (r + i) mod p. Exactly one message to every
/// other rank, p − 1 per rank.
pub(super) fn pairwise_alltoall(
    r: u32,
    p: u32,
    block: &mut impl FnMut(u32) -> u64,
    emit: &mut impl FnMut(u32, u64),
) {
    let (r64, p64) = (u64::from(r), u64::from(p));
    for step in 1..p64 {
        let dst = if p.is_power_of_two() {
            (r64 ^ step) as u32
        } else {
            ((r64 + step) % p64) as u32
        };
        emit(dst, block(dst));
    }
}
