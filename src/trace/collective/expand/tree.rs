//! Schedules rooted at one rank or spread from it: the dissemination barrier, binomial
//! trees (bcast, its scatter-then-allgather forms, gather, scatter) and the linear
//! gathers and scatters.

use super::*;

/// Dissemination barrier: in round k = 0, 1, … while 2^k < p, rank r sends 0 bytes to
/// (r + 2^k) mod p. ⌈lg p⌉ messages per rank, each rank alike.
pub(super) fn dissemination(r: u32, p: u32, emit: &mut impl FnMut(u32, u64)) {
    let mut distance = 1u32;
    while distance < p {
        emit(
            ((u64::from(r) + u64::from(distance)) % u64::from(p)) as u32,
            0,
        );
        distance = distance.saturating_mul(2);
    }
}

/// Binomial bcast of `n` bytes, relative ranks (root 0): rank v sends the whole message
/// to each of its children v + m (m = powers of two below v's lowest set bit, largest
/// first; below p for the root). The root sends ⌈lg p⌉ messages, leaves none; p − 1
/// messages of n bytes in all.
pub(super) fn binomial_bcast(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    for_each_child(v, p, |child, _| emit(child, n));
}

/// Binomial scatter of the message in chunks (MPICH's bcast scatter phase), relative
/// ranks: chunk i is bytes [i·c, (i+1)·c) of the message, c = ⌈n/p⌉. Rank v sends each
/// child v + m the chunks of the child's subtree, [v + m, v + 2m), unless they are all
/// empty. Bytes sent in all: Σ over non-root ranks of their subtree's chunks.
pub(super) fn binomial_chunk_scatter(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    let chunks = Blocks::Chunked { total: n, count: p };
    for_each_child(v, p, |child, mask| {
        let bytes = chunks.sum(child, child.saturating_add(mask));
        if bytes > 0 {
            emit(child, bytes);
        }
    });
}

/// Bcast as binomial scatter of ⌈n/p⌉-byte chunks ([`binomial_chunk_scatter`]) then a
/// recursive-doubling allgather of the chunks ([`recursive_doubling_exchange`]; each
/// rank sends the chunks its group holds, ⌈lg p⌉ exchanges plus forwarding when p is
/// not a power of two). Relative ranks. For p a power of two and n a multiple of p the
/// root sends 2·lg p messages.
pub(super) fn scatter_recursive_doubling_bcast(
    v: u32,
    p: u32,
    n: u64,
    emit: &mut impl FnMut(u32, u64),
) {
    binomial_chunk_scatter(v, p, n, emit);
    let chunks = Blocks::Chunked { total: n, count: p };
    recursive_doubling_exchange(
        v,
        p,
        |my_root, mask| chunks.sum(my_root, my_root.saturating_add(mask)),
        |my_root, mask| chunks.sum(my_root.saturating_add(mask), p),
        emit,
    );
}

/// Bcast as binomial scatter of ⌈n/p⌉-byte chunks ([`binomial_chunk_scatter`]) then a
/// ring allgather of the chunks: in step i = 1 … p − 1 rank v sends chunk (v − i + 1)
/// mod p to v + 1. Relative ranks (the ring runs in relative order). The root sends
/// ⌈lg p⌉ + p − 1 messages when all its chunks are non-empty.
pub(super) fn scatter_ring_bcast(v: u32, p: u32, n: u64, emit: &mut impl FnMut(u32, u64)) {
    binomial_chunk_scatter(v, p, n, emit);
    let chunks = Blocks::Chunked { total: n, count: p };
    ring_allgather(v, p, &mut |i| chunks.get(i), emit);
}

/// Binomial gather of blocks of `block` bytes, relative ranks: every non-root rank v
/// sends once, to its parent v − m (m its lowest set bit), the blocks of its subtree,
/// min(m, p − v) blocks. The root receives ⌈lg p⌉ messages; p − 1 messages in all.
pub(super) fn binomial_gather(v: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    if v != 0 {
        let m = lowbit(v);
        emit(v - m, u64::from(m.min(p - v)) * block);
    }
}

/// Binomial scatter of blocks of `block` bytes, relative ranks: rank v sends each child
/// v + m (largest m first) the blocks of the child's subtree, min(m, p − v − m) blocks.
/// The root sends ⌈lg p⌉ messages; p − 1 messages in all.
pub(super) fn binomial_scatter(v: u32, p: u32, block: u64, emit: &mut impl FnMut(u32, u64)) {
    for_each_child(v, p, |child, mask| {
        emit(child, u64::from(mask.min(p - child)) * block)
    });
}

/// Linear gather(v): every non-root rank sends its own block to the root (nothing when
/// the block is empty). The root receives p − 1 messages.
pub(super) fn linear_gather(r: u32, root: u32, own: u64, emit: &mut impl FnMut(u32, u64)) {
    if r != root && own > 0 {
        emit(root, own);
    }
}

/// Linear scatter(v): the root sends rank i its block, i = 0 … p − 1 except itself,
/// skipping empty blocks. p − 1 messages, all from the root.
pub(super) fn linear_scatter(r: u32, root: u32, blocks: Blocks, emit: &mut impl FnMut(u32, u64)) {
    if r != root {
        return;
    }
    for i in (0..blocks.count()).filter(|&i| i != root) {
        let bytes = blocks.get(i);
        if bytes > 0 {
            emit(i, bytes);
        }
    }
}
