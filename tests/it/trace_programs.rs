//! Real traces of MPI programs whose traffic is known in closed form, made with libdumpi
//! under `mpirun -n 4` and `-n 8` (tests/mpi-programs/: a ring through every kind of
//! send, an alltoallv with rank-dependent counts, a 2-D halo exchange through split
//! communicators, one-sided puts, accumulates and gets on a window over a reordered
//! communicator, collectives of each kind). On each trace, `orcs trace dump` equals
//! sst-dumpi's `dumpi2ascii` on every rank, and `orcs trace matrix` equals the traffic
//! that the closed forms below compute from each program's description and, for the
//! collectives, from MPICH's published algorithms, independently of orcs's code.

use crate::dumpi::{sst_dumpi, Trace, TracedProgram};
use crate::support::{orcs, Run};
use std::collections::BTreeMap;

/// The world sizes every program runs with.
pub(crate) const RANKS: [usize; 2] = [4, 8];

/// Traffic between world ranks: (source, destination) → (bytes, messages).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Traffic(pub(crate) BTreeMap<(usize, usize), (u64, u64)>);

impl Traffic {
    /// One message of `bytes` from `src` to `dst`.
    pub(crate) fn send(&mut self, src: usize, dst: usize, bytes: u64) {
        let pair = self.0.entry((src, dst)).or_default();
        pair.0 += bytes;
        pair.1 += 1;
    }

    /// Reads the CSV of `orcs trace matrix`, checking its header and that the rows are
    /// distinct pairs sorted by source, then destination.
    #[track_caller]
    fn from_csv(run: &Run) -> Traffic {
        Traffic::from_csv_text(&run.stdout, &run.describe())
    }

    /// Reads a `src,dst,bytes,messages` CSV after its `#` comment lines, checking its
    /// header and that the rows are distinct pairs sorted by source, then destination;
    /// `context` tells where it came from on failure.
    #[track_caller]
    pub(crate) fn from_csv_text(text: &str, context: &str) -> Traffic {
        let mut lines = text.lines().skip_while(|l| l.starts_with('#'));
        assert_eq!(lines.next(), Some("src,dst,bytes,messages"), "{context}");
        let mut traffic = Traffic::default();
        let mut previous = None;
        for line in lines {
            let fields: Vec<u64> = line
                .split(',')
                .map(|f| {
                    f.parse()
                        .unwrap_or_else(|_| panic!("row {line:?}\n{context}"))
                })
                .collect();
            let [src, dst, bytes, messages] = fields[..] else {
                panic!("row {line:?} has not 4 fields\n{context}");
            };
            let pair = (src as usize, dst as usize);
            assert!(
                previous < Some(pair),
                "row {line:?} out of order\n{context}"
            );
            previous = Some(pair);
            traffic.0.insert(pair, (bytes, messages));
        }
        traffic
    }

    /// The pairs where `self` and `other` differ, one line each.
    pub(crate) fn differences(&self, other: &Traffic) -> String {
        let mut pairs: Vec<&(usize, usize)> = self.0.keys().chain(other.0.keys()).collect();
        pairs.sort();
        pairs.dedup();
        pairs
            .into_iter()
            .filter(|pair| self.0.get(pair) != other.0.get(pair))
            .map(|pair| {
                format!(
                    "  {pair:?}: expected (bytes, messages) {:?}, got {:?}\n",
                    self.0.get(pair),
                    other.0.get(pair)
                )
            })
            .collect()
    }
}

impl std::ops::Add for Traffic {
    type Output = Traffic;
    fn add(mut self, other: Traffic) -> Traffic {
        for (&(src, dst), &(bytes, messages)) in &other.0 {
            let pair = self.0.entry((src, dst)).or_default();
            pair.0 += bytes;
            pair.1 += messages;
        }
        self
    }
}

/// One way of reading a trace as a matrix: the flags of `orcs trace matrix`, and the
/// closed form of the traffic they must give on p ranks.
type Case = (&'static [&'static str], fn(usize) -> Traffic);

/// Compiles tests/mpi-programs/`program`.c, traces it on each of [`RANKS`], checks the
/// dump of every rank against dumpi2ascii and the matrix of every case against its
/// closed form.
fn check_program(program: &str, cases: &[Case]) {
    let Some(prefix) = sst_dumpi() else { return };
    let compiled = TracedProgram::compile(&prefix, program);
    for p in RANKS {
        let trace = compiled.trace(p);
        compiled.assert_dumps_match(&trace);
        for (flags, traffic) in cases {
            assert_matrix(program, &trace, flags, &traffic(p));
        }
    }
}

#[track_caller]
fn assert_matrix(program: &str, trace: &Trace, flags: &[&str], expected: &Traffic) {
    let meta = trace.meta.to_string_lossy();
    let mut args = vec!["trace", "matrix", &meta];
    args.extend_from_slice(flags);
    let run = orcs(&args).ok();
    let got = Traffic::from_csv(&run);
    assert!(
        got == *expected,
        "{program} on {} ranks: the matrix differs from the closed form:\n{}{}",
        trace.bins.len(),
        expected.differences(&got),
        run.describe()
    );
}

#[test]
fn a_ring_through_every_kind_of_send_is_six_messages_to_the_right() {
    check_program(
        "ring",
        &[(&[], ring), (&["--collectives", "exclude"], ring)],
    );
}

#[test]
fn an_alltoallv_with_rank_dependent_counts_is_one_block_per_ordered_pair() {
    check_program(
        "alltoallv",
        &[
            (&[], alltoallv),
            (&["--algorithms", "alltoallv=pairwise"], alltoallv),
            (&["--collectives", "exclude"], |_| Traffic::default()),
        ],
    );
}

#[test]
fn a_halo_exchange_through_split_communicators_reaches_the_grid_neighbours() {
    check_program(
        "halo2d",
        &[(&[], halo2d), (&["--collectives", "exclude"], halo2d)],
    );
}

#[test]
fn one_sided_traffic_follows_the_data_through_the_window_communicator() {
    check_program(
        "onesided",
        &[(&[], onesided), (&["--collectives", "exclude"], onesided)],
    );
}

/// Forces, for every operation the collectives program calls, an algorithm whose
/// schedule on a power-of-two world is simple.
pub(crate) const FORCED: &str = "barrier=dissemination,bcast=binomial,reduce=binomial,\
allreduce=recursive_doubling,allgather=recursive_doubling,alltoall=linear,gather=linear,\
scatter=linear,reduce_scatter=pairwise,scan=recursive_doubling,exscan=recursive_doubling";

#[test]
fn collectives_expand_by_the_chosen_algorithms_or_drop_out_when_excluded() {
    check_program(
        "collectives",
        &[
            (&["--collectives", "exclude"], collectives_point_to_point),
            (&["--algorithms", FORCED], collectives_forced),
            (
                &["--collectives", "expand", "--algorithms", FORCED],
                collectives_forced,
            ),
            (&[], collectives_mpich),
        ],
    );
}

/// ring.c: six messages of 1000 bytes from every rank to (r + 1) mod p.
pub(crate) fn ring(p: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        for _ in 0..6 {
            t.send(r, (r + 1) % p, 1000);
        }
    }
    t
}

/// alltoallv.c: r sends 4 (r + 1)(j + 1) bytes to every j ≠ r.
pub(crate) fn alltoallv(p: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        for j in (0..p).filter(|&j| j != r) {
            t.send(r, j, 4 * (r as u64 + 1) * (j as u64 + 1));
        }
    }
    t
}

/// halo2d.c: on a grid of px columns (the largest divisor of p not above √p) by
/// py = p / px rows, rank r = px·row + column sends 800 bytes east, 240 west, 1600 to the
/// row below (row − 1) and 400 to the row above (row + 1), periodically.
pub(crate) fn halo2d(p: usize) -> Traffic {
    let px = (1..=p).filter(|d| d * d <= p && p % d == 0).max().unwrap();
    let py = p / px;
    let at = |column: usize, row: usize| row * px + column;
    let mut t = Traffic::default();
    for r in 0..p {
        let (c, w) = (r % px, r / px);
        t.send(r, at((c + 1) % px, w), 800);
        t.send(r, at((c + px - 1) % px, w), 240);
        t.send(r, at(c, (w + py - 1) % py), 1600);
        t.send(r, at(c, (w + 1) % py), 400);
    }
    t
}

/// onesided.c: a put of 64 (r + 1) bytes to r + 1, an accumulate of 24 bytes to r + 3,
/// and a get of 32 bytes whose data moves from r + 2 to r (mod p).
pub(crate) fn onesided(p: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        t.send(r, (r + 1) % p, 64 * (r as u64 + 1));
        t.send(r, (r + 3) % p, 24);
        t.send((r + 2) % p, r, 32);
    }
    t
}

/// The block sizes of collectives.c's reduce-scatter: rank j gets 8 (j + 1) bytes.
fn reduce_scatter_blocks(p: usize) -> Vec<u64> {
    (0..p).map(|j| 8 * (j as u64 + 1)).collect()
}

/// collectives.c's point-to-point exchange: 24 bytes between r and r xor 1.
fn collectives_point_to_point(p: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in (0..p).filter(|r| r ^ 1 < p) {
        t.send(r, r ^ 1, 24);
    }
    t
}

/// The messages of collectives.c every algorithm choice of the tests shares: the
/// point-to-point exchange, the operations with one algorithm (barrier, scan, exscan)
/// or the same one in both choices (bcast, reduce, allreduce, allgather, alltoall), and
/// the broadcast on the halves.
fn collectives_common(p: usize) -> Traffic {
    let world: Vec<usize> = (0..p).collect();
    let mut t = collectives_point_to_point(p)
        + dissemination_barrier(p)
        + binomial_bcast(&world, 0, 4096)
        + binomial_reduce(&world, 1 % p, 2048)
        + recursive_doubling_allreduce(p, 64)
        + recursive_doubling_allgather(p, 256)
        + linear_alltoall(p, 400)
        // Scan, then exscan: recursive doubling, the allreduce's schedule.
        + recursive_doubling_allreduce(p, 16)
        + recursive_doubling_allreduce(p, 16);
    for half in 0..2 {
        // Key −r: communicator rank k is the half's k-th largest world rank.
        let members: Vec<usize> = (0..p).filter(|r| r % 2 == half).rev().collect();
        t = t + binomial_bcast(&members, 0, 512);
    }
    t
}

/// collectives.c expanded with [`FORCED`]: linear gather and scatter, pairwise
/// reduce-scatter.
pub(crate) fn collectives_forced(p: usize) -> Traffic {
    collectives_common(p)
        + linear_gather(p, 2 % p, 64)
        + linear_scatter(p, 3 % p, 128)
        + pairwise_reduce_scatter(&reduce_scatter_blocks(p))
}

/// collectives.c expanded with MPICH's own choice for 4 and 8 ranks: a 4096-byte bcast
/// and a 512-byte one are short (binomial), a 2048-byte sum is not above the reduce and
/// allreduce thresholds (binomial, recursive doubling), an allgather of 256 p bytes on a
/// power of two is recursive doubling, a 400-byte alltoall block is medium (linear),
/// gather and scatter are binomial, a commutative reduce-scatter of 4 p (p + 1) bytes is
/// recursive halving, scan and exscan recursive doubling.
pub(crate) fn collectives_mpich(p: usize) -> Traffic {
    collectives_common(p)
        + binomial_gather(p, 2 % p, 64)
        + binomial_scatter(p, 3 % p, 128)
        + recursive_halving_reduce_scatter(&reduce_scatter_blocks(p))
}

/// The lowest set bit of `v`.
fn lowbit(v: usize) -> usize {
    v & v.wrapping_neg()
}

/// The powers of two below `p`: the distances of the exchange algorithms' steps.
fn distances(p: usize) -> impl Iterator<Item = usize> {
    (0..usize::BITS)
        .map(|k| 1usize << k)
        .take_while(move |&d| d < p)
}

/// MPICH's dissemination barrier: in step k, r sends 0 bytes to (r + 2^k) mod p.
fn dissemination_barrier(p: usize) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        for d in distances(p) {
            t.send(r, (r + d) % p, 0);
        }
    }
    t
}

/// MPICH's binomial bcast of `bytes` on a communicator whose rank k is world rank
/// `members[k]`: relative rank v ≠ 0 receives the message from v − lowbit(v).
pub(crate) fn binomial_bcast(members: &[usize], root: usize, bytes: u64) -> Traffic {
    let n = members.len();
    let world = |v: usize| members[(v + root) % n];
    let mut t = Traffic::default();
    for v in 1..n {
        t.send(world(v - lowbit(v)), world(v), bytes);
    }
    t
}

/// MPICH's binomial reduce of a `bytes` vector (commutative operator) on a communicator
/// as in [`binomial_bcast`]: relative rank v ≠ 0 sends its partial result to
/// v − lowbit(v).
fn binomial_reduce(members: &[usize], root: usize, bytes: u64) -> Traffic {
    let n = members.len();
    let at = |v: usize| members[(v + root) % n];
    let mut t = Traffic::default();
    for v in 1..n {
        t.send(at(v), at(v - lowbit(v)), bytes);
    }
    t
}

/// MPICH's binomial gather of `block` bytes per rank: relative rank v ≠ 0 sends the
/// min(lowbit(v), p − v) blocks of its subtree to v − lowbit(v).
fn binomial_gather(p: usize, root: usize, block: u64) -> Traffic {
    let at = |v: usize| (v + root) % p;
    let mut t = Traffic::default();
    for v in 1..p {
        let m = lowbit(v);
        t.send(at(v), at(v - m), block * m.min(p - v) as u64);
    }
    t
}

/// MPICH's binomial scatter: the mirror of [`binomial_gather`], each relative rank c ≠ 0
/// receiving its subtree's min(lowbit(c), p − c) blocks from c − lowbit(c).
fn binomial_scatter(p: usize, root: usize, block: u64) -> Traffic {
    let at = |v: usize| (v + root) % p;
    let mut t = Traffic::default();
    for c in 1..p {
        let m = lowbit(c);
        t.send(at(c - m), at(c), block * m.min(p - c) as u64);
    }
    t
}

/// MPICH's linear gather: every rank but the root sends it its block.
fn linear_gather(p: usize, root: usize, block: u64) -> Traffic {
    let mut t = Traffic::default();
    for r in (0..p).filter(|&r| r != root) {
        t.send(r, root, block);
    }
    t
}

/// MPICH's linear scatter: the root sends every other rank its block.
fn linear_scatter(p: usize, root: usize, block: u64) -> Traffic {
    let mut t = Traffic::default();
    for r in (0..p).filter(|&r| r != root) {
        t.send(root, r, block);
    }
    t
}

/// MPICH's recursive-doubling allreduce (also its scan and exscan) on a power of two:
/// in step i, r sends the whole vector to r xor 2^i.
fn recursive_doubling_allreduce(p: usize, bytes: u64) -> Traffic {
    assert!(p.is_power_of_two());
    let mut t = Traffic::default();
    for r in 0..p {
        for d in distances(p) {
            t.send(r, r ^ d, bytes);
        }
    }
    t
}

/// MPICH's recursive-doubling allgather on a power of two: in step i, r sends the 2^i
/// blocks its group holds to r xor 2^i.
fn recursive_doubling_allgather(p: usize, block: u64) -> Traffic {
    assert!(p.is_power_of_two());
    let mut t = Traffic::default();
    for r in 0..p {
        for d in distances(p) {
            t.send(r, r ^ d, block * d as u64);
        }
    }
    t
}

/// MPICH's linear alltoall: r sends every other rank its block.
fn linear_alltoall(p: usize, block: u64) -> Traffic {
    let mut t = Traffic::default();
    for r in 0..p {
        for j in (0..p).filter(|&j| j != r) {
            t.send(r, j, block);
        }
    }
    t
}

/// MPICH's pairwise reduce-scatter: in step i, r sends (r + i) mod p that rank's block.
fn pairwise_reduce_scatter(blocks: &[u64]) -> Traffic {
    let p = blocks.len();
    let mut t = Traffic::default();
    for r in 0..p {
        for i in 1..p {
            let dst = (r + i) % p;
            t.send(r, dst, blocks[dst]);
        }
    }
    t
}

/// MPICH's recursive-halving reduce-scatter on a power of two: at distances p/2, …, 1,
/// r sends its partner r xor d the blocks of the d ranks whose half the partner keeps
/// (the aligned group of d ranks holding the partner).
fn recursive_halving_reduce_scatter(blocks: &[u64]) -> Traffic {
    let p = blocks.len();
    assert!(p.is_power_of_two());
    let mut t = Traffic::default();
    for r in 0..p {
        for d in distances(p) {
            let partner = r ^ d;
            let kept = partner & !(d - 1);
            t.send(r, partner, blocks[kept..kept + d].iter().sum());
        }
    }
    t
}
