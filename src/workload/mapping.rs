//! Which hosts take part and which rank runs where: subsets, part subsets, the node
//! ordering file, and the per-run shuffle (spec §4).
//!
//! Choosing the hosts fails with a [`WorkloadError`]; a node ordering file that cannot
//! be read is a [`LocatedError`] of [`parse_node_ordering`].

use crate::error::LocatedError;
use crate::fabric::{parse_strtoul_hex, Fabric};
use crate::workload::WorkloadError;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use std::collections::VecDeque;
use std::fmt;

/// How the communicator's hosts are chosen from the fabric (`--subset`, `--part_subset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubsetMethod {
    /// Uniform random sample without replacement; initial order = draw order.
    Rand,
    /// Breadth-first search from the first node of the file; hosts in dequeue order.
    LinearBfs,
    /// Smallest GUIDs first.
    GuidOrderAsc,
    /// Largest GUIDs first.
    GuidOrderDesc,
}

impl SubsetMethod {
    /// Every method, in ORCS's option order.
    pub const ALL: [SubsetMethod; 4] = [
        SubsetMethod::Rand,
        SubsetMethod::LinearBfs,
        SubsetMethod::GuidOrderAsc,
        SubsetMethod::GuidOrderDesc,
    ];

    /// The option value ORCS uses for this method.
    pub fn name(self) -> &'static str {
        match self {
            SubsetMethod::Rand => "rand",
            SubsetMethod::LinearBfs => "linear_bfs",
            SubsetMethod::GuidOrderAsc => "guid_order_asc",
            SubsetMethod::GuidOrderDesc => "guid_order_desc",
        }
    }
}

impl fmt::Display for SubsetMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that decides the rank → host mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutSpec {
    /// Communicator size n (validated by the caller: 4 ≤ n ≤ hosts).
    pub commsize: usize,
    /// How the n hosts are chosen.
    pub subset: SubsetMethod,
    /// `--part_subset` and its size z: hosts of the first ptrnvsptrn communicator.
    pub part: Option<(SubsetMethod, usize)>,
    /// GUIDs of the node ordering file, in file order.
    pub ordering: Vec<u64>,
    /// Reshuffle the non-fixed ranks in every run (false with `-d`).
    pub shuffle: bool,
}

/// The initial rank list and which parts of it are reshuffled per run (spec §4.7):
/// `[ordered hosts | part-subset hosts | other hosts]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankLayout {
    initial: Vec<u32>,
    /// Ranks `0..fixed` come from the node ordering file and never move.
    fixed: usize,
    /// Ranks `fixed..part_end` are the part subset, shuffled among themselves.
    part_end: usize,
    shuffle: bool,
}

impl RankLayout {
    /// Chooses the hosts once (spec §4.2–4.7). `rng` is used only by the random methods.
    /// Returns the layout and warnings (dropped ordering entries).
    ///
    /// O(hosts log hosts + edges) for the BFS and GUID sorts.
    pub fn build<R: Rng + ?Sized>(
        fabric: &Fabric,
        spec: &LayoutSpec,
        rng: &mut R,
    ) -> Result<(RankLayout, Vec<String>), WorkloadError> {
        let n = spec.commsize;
        let subset = choose_hosts(fabric, spec.subset, n, None, rng)?;
        let mut warnings = Vec::new();
        let part = match spec.part {
            Some((method, z)) => choose_hosts(fabric, method, z, Some(&subset), rng)?,
            None => Vec::new(),
        };
        // The ordering file applies to the part subset when there is one (§4.6).
        let eligible: &[u32] = if spec.part.is_some() { &part } else { &subset };
        // GUID → eligible hosts with it, in order; each host is placed at most once.
        let mut by_guid: std::collections::HashMap<u64, VecDeque<u32>> =
            std::collections::HashMap::new();
        for &h in eligible {
            by_guid.entry(fabric.host_guid(h)).or_default().push_back(h);
        }
        let mut ordered: Vec<u32> = Vec::new();
        let mut dropped = Vec::new();
        for &guid in &spec.ordering {
            match by_guid.get_mut(&guid).and_then(VecDeque::pop_front) {
                Some(h) => ordered.push(h),
                None => dropped.push(guid),
            }
        }
        if !dropped.is_empty() {
            let shown: Vec<String> = dropped.iter().take(5).map(|g| format!("{g:#x}")).collect();
            warnings.push(format!(
                "{} node ordering entries are not hosts of the {} and were dropped: {}{}",
                dropped.len(),
                if spec.part.is_some() {
                    "part subset"
                } else {
                    "subset"
                },
                shown.join(", "),
                if dropped.len() > 5 { ", ..." } else { "" }
            ));
        }
        let mut placed = vec![false; fabric.num_hosts()];
        for &h in &ordered {
            placed[h as usize] = true;
        }
        let mut initial = ordered.clone();
        for &h in &part {
            if !placed[h as usize] {
                placed[h as usize] = true;
                initial.push(h);
            }
        }
        let part_end = initial.len();
        initial.extend(subset.iter().filter(|&&h| !placed[h as usize]));
        Ok((
            RankLayout {
                initial,
                fixed: ordered.len(),
                part_end,
                shuffle: spec.shuffle,
            },
            warnings,
        ))
    }

    /// The hosts in their initial rank order (rank r → `hosts()[r]`).
    pub fn hosts(&self) -> &[u32] {
        &self.initial
    }

    /// Number of ranks fixed by the node ordering file.
    pub fn num_fixed(&self) -> usize {
        self.fixed
    }

    /// Writes one run's rank → host list into `out`: the initial order with the part
    /// subset and the remaining hosts each uniformly shuffled (unless `-d`). O(n).
    pub(crate) fn fill<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.initial);
        if self.shuffle {
            out[self.fixed..self.part_end].shuffle(rng);
            out[self.part_end..].shuffle(rng);
        }
    }
}

/// Places `ranks` ranks of one application on `fabric`, `per_host` consecutive ranks
/// per host (≥ 1), on the first ⌈ranks / per_host⌉ hosts that `method` chooses, as the
/// simulator chooses its subset (`rand` drawn from `rng`). Returns each rank's host.
/// O(hosts log hosts + ranks).
pub fn place_ranks<R: Rng + ?Sized>(
    fabric: &Fabric,
    ranks: usize,
    per_host: usize,
    method: SubsetMethod,
    rng: &mut R,
) -> Result<Vec<u32>, WorkloadError> {
    let per_host = per_host.max(1);
    let needed = ranks.div_ceil(per_host);
    if needed > fabric.num_hosts() {
        return Err(WorkloadError::RanksExceedHosts {
            ranks,
            per_host,
            hosts: fabric.num_hosts(),
        });
    }
    let hosts = choose_hosts(fabric, method, needed, None, rng)?;
    Ok((0..ranks).map(|r| hosts[r / per_host]).collect())
}

/// Picks `count` hosts by `method`, from `within` (a host list, for part subsets) or from
/// every host of the fabric.
fn choose_hosts<R: Rng + ?Sized>(
    fabric: &Fabric,
    method: SubsetMethod,
    count: usize,
    within: Option<&[u32]>,
    rng: &mut R,
) -> Result<Vec<u32>, WorkloadError> {
    let all: Vec<u32>;
    let pool: &[u32] = match within {
        Some(p) => p,
        None => {
            all = (0..fabric.num_hosts() as u32).collect();
            &all
        }
    };
    let count = count.min(pool.len());
    Ok(match method {
        SubsetMethod::Rand => {
            // Partial Fisher–Yates: draw order is the initial order.
            let mut pool = pool.to_vec();
            for k in 0..count {
                let r = rng.random_range(k..pool.len());
                pool.swap(k, r);
            }
            pool.truncate(count);
            pool
        }
        SubsetMethod::LinearBfs => {
            // The BFS covers the whole graph; within a part subset it yields the first
            // hosts of the (linear_bfs) subset, which is the same list.
            let found = bfs_hosts(fabric);
            let found: Vec<u32> = match within {
                Some(p) => found.into_iter().filter(|h| p.contains(h)).collect(),
                None => found,
            };
            if found.len() < count {
                return Err(WorkloadError::BfsTooFewHosts {
                    found: found.len(),
                    wanted: count,
                });
            }
            found[..count].to_vec()
        }
        SubsetMethod::GuidOrderAsc | SubsetMethod::GuidOrderDesc => {
            let mut sorted = pool.to_vec();
            // Stable sort: equal GUIDs keep node order (§4.2).
            if method == SubsetMethod::GuidOrderAsc {
                sorted.sort_by_key(|&h| fabric.host_guid(h));
            } else {
                sorted.sort_by_key(|&h| std::cmp::Reverse(fabric.host_guid(h)));
            }
            sorted.truncate(count);
            sorted
        }
    })
}

/// Hosts in breadth-first dequeue order from node 0, following out-edges in ORCS order.
fn bfs_hosts(fabric: &Fabric) -> Vec<u32> {
    let mut hosts = Vec::new();
    if fabric.num_nodes() == 0 {
        return hosts;
    }
    let mut seen = vec![false; fabric.num_nodes()];
    let mut queue = VecDeque::from([0u32]);
    seen[0] = true;
    while let Some(v) = queue.pop_front() {
        let h = fabric.host_of_node[v as usize];
        if h != crate::fabric::NONE {
            hosts.push(h);
        }
        for e in fabric.out_edges(v) {
            let w = fabric.edge_head[e as usize];
            if !seen[w as usize] {
                seen[w as usize] = true;
                queue.push_back(w);
            }
        }
    }
    hosts
}

/// Parses a node ordering file (spec §4.5): one hexadecimal GUID per line (optional
/// `0x`, leading white space), blank lines and `#` lines ignored, a `#` comment or white
/// space may follow the number.
pub(crate) fn parse_node_ordering(text: &str, path: &str) -> Result<Vec<u64>, LocatedError> {
    let mut guids = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let end = trimmed
            .find(|c: char| c.is_whitespace() || c == '#')
            .unwrap_or(trimmed.len());
        let (token, rest) = trimmed.split_at(end);
        let rest = rest.trim_start();
        let digits = token
            .strip_prefix("0x")
            .or_else(|| token.strip_prefix("0X"))
            .unwrap_or(token);
        // strtoull: any number of hex digits (saturating); only white space or a `#`
        // comment may follow.
        let valid = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_hexdigit())
            && (rest.is_empty() || rest.starts_with('#'));
        if !valid {
            return Err(LocatedError::at_line(
                path,
                u32::try_from(i + 1).unwrap_or(u32::MAX),
                format!(
                    "`{}` is not a valid GUID (expected one hexadecimal number per line, \
                     optionally followed by a `#` comment)",
                    line.trim()
                ),
            ));
        }
        guids.push(parse_strtoul_hex(digits));
    }
    Ok(guids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ordering_accepts_comments_and_prefixes() {
        let text = "# header\n\n 0x10 # a\n1f\n  0X2\t\n";
        assert_eq!(parse_node_ordering(text, "f").unwrap(), vec![16, 31, 2]);
    }

    #[test]
    fn node_ordering_rejects_garbage_with_line() {
        let err = parse_node_ordering("10\nxyz\n", "order.txt").unwrap_err();
        assert_eq!(
            err.to_string(),
            "order.txt:2: `xyz` is not a valid GUID (expected one hexadecimal number per line, optionally followed by a `#` comment)"
        );
        assert!(parse_node_ordering("10abc-\n", "f").is_err());
        assert!(parse_node_ordering("5 abc\n", "f").is_err());
        assert_eq!(
            parse_node_ordering("00000000000000000005\n5 # x\n", "f").unwrap(),
            vec![5, 5]
        );
    }

    fn ft4_2() -> Fabric {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/ft4-2.ftree.dot");
        crate::fabric::load_routed_fabric(path, crate::fabric::LoadOptions::default())
            .unwrap()
            .fabric
    }

    #[test]
    fn ranks_fill_hosts_in_the_methods_order_per_host_at_a_time() {
        let fabric = ft4_2();
        let mut rng = crate::engine::stream::stream_rng(1, crate::engine::stream::Stream::Subset);
        let bfs = bfs_hosts(&fabric);
        let placed = place_ranks(&fabric, 5, 2, SubsetMethod::LinearBfs, &mut rng).unwrap();
        assert_eq!(placed, [bfs[0], bfs[0], bfs[1], bfs[1], bfs[2]]);
        let mut by_guid: Vec<u32> = (0..fabric.num_hosts() as u32).collect();
        by_guid.sort_by_key(|&h| std::cmp::Reverse(fabric.host_guid(h)));
        let placed = place_ranks(&fabric, 3, 1, SubsetMethod::GuidOrderDesc, &mut rng).unwrap();
        assert_eq!(placed, by_guid[..3]);
        // Random: distinct hosts, the same for the same seed.
        let draw = |seed| {
            let mut rng =
                crate::engine::stream::stream_rng(seed, crate::engine::stream::Stream::Subset);
            place_ranks(&fabric, 8, 1, SubsetMethod::Rand, &mut rng).unwrap()
        };
        let a = draw(7);
        let mut distinct = a.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 8);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
    }

    #[test]
    fn more_ranks_than_places_is_an_error_that_counts_them() {
        let fabric = ft4_2();
        let hosts = fabric.num_hosts();
        let mut rng = crate::engine::stream::stream_rng(1, crate::engine::stream::Stream::Subset);
        assert!(place_ranks(&fabric, 2 * hosts, 2, SubsetMethod::Rand, &mut rng).is_ok());
        let err = place_ranks(&fabric, 2 * hosts + 1, 2, SubsetMethod::Rand, &mut rng).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} ranks at 2 per host need {} hosts; the fabric has {hosts} (place more ranks per host)",
                2 * hosts + 1,
                hosts + 1
            )
        );
    }
}
