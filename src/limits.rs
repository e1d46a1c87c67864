//! What a run can hold: the memory budget (`--max-memory`, by default the memory the
//! machine has available), estimates of the memory that big requests need, the size of
//! the worker pool and the nesting depth that recursive readers accept. A request beyond
//! one of them is a [`LimitError`] that names the limit and why, raised before anything
//! is allocated for it.
//!
//! Estimates are rough on purpose (within a small factor of what a run uses): they count
//! the arrays that grow with the request (per-run results, a level's routes, forwarding
//! table entries, jobs) and leave out what stays small. They exist so that a request
//! that cannot fit, tens of gigabytes and up, is refused with a message instead of
//! aborting on a failed allocation or driving the machine into swap; the runs that fit
//! in memory are never near the limit. Counts are `u128` and saturate, so no request is
//! too large to estimate.
//!
//! May use nothing else of orcs: every module that turns a request into allocations
//! builds its [`Estimate`] and checks it against the [`MemoryLimit`] it was given.

/// Deepest nesting of elements (XML) or collections that a reader accepts. Readers that
/// recurse per level stop here with an error at the offending line instead of running
/// out of stack; real inputs nest a handful of levels.
pub const MAX_NESTING: usize = 256;

/// Most worker threads per core: more only adds stacks and scheduling to work that is
/// bound by the cores.
pub const THREADS_PER_CORE: usize = 64;

/// Most worker threads on any machine.
pub const MAX_THREADS: usize = 4096;

/// The suffixes of [`parse_size`], powers of 1024.
const UNITS: [(&str, u32); 6] = [("", 0), ("K", 1), ("M", 2), ("G", 3), ("T", 4), ("P", 5)];

/// Where a [`MemoryLimit`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSource {
    /// Given by the user (`--max-memory`).
    Given,
    /// The memory available when orcs started: free and reclaimable memory, within the
    /// control group's limit and the address space limit (`ulimit -v`) when they are set.
    Available,
    /// No budget: only what one process can address at all is refused.
    Unlimited,
}

/// The memory a run may use, and where that figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit {
    bytes: u64,
    source: LimitSource,
}

impl MemoryLimit {
    /// A limit of `bytes` given by the user.
    pub fn given(bytes: u64) -> Self {
        MemoryLimit {
            bytes,
            source: LimitSource::Given,
        }
    }

    /// The memory available now (see [`LimitSource::Available`]); unlimited where the
    /// platform does not say.
    pub fn available() -> Self {
        match available_bytes() {
            Some(bytes) => MemoryLimit {
                bytes,
                source: LimitSource::Available,
            },
            None => MemoryLimit::unlimited(),
        }
    }

    /// No budget: only requests beyond what a process can address are refused.
    pub fn unlimited() -> Self {
        MemoryLimit {
            bytes: u64::MAX,
            source: LimitSource::Unlimited,
        }
    }

    /// The limit in bytes (`u64::MAX` when unlimited).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Where the limit comes from.
    pub fn source(&self) -> LimitSource {
        self.source
    }

    /// The share of one of `parts` requests that run at the same time.
    pub fn share(&self, parts: usize) -> MemoryLimit {
        MemoryLimit {
            bytes: self.bytes / parts.max(1) as u64,
            source: self.source,
        }
    }

    /// Refuses `estimate` when it needs more than the limit, or more than a process can
    /// allocate at all.
    pub fn check(&self, estimate: &Estimate) -> Result<(), LimitError> {
        let needed = estimate.bytes();
        let cap = (self.bytes as u128).min(isize::MAX as u128);
        if needed <= cap {
            return Ok(());
        }
        Err(LimitError::Memory {
            subject: estimate.subject.clone(),
            needed,
            largest: estimate.largest().cloned().map(Box::new),
            limit: *self,
        })
    }
}

/// The memory available to this process, or None where it cannot be told.
fn available_bytes() -> Option<u64> {
    use sysinfo::{MemoryRefreshKind, RefreshKind, System};
    let sys = System::new_with_specifics(
        RefreshKind::nothing().with_memory(MemoryRefreshKind::nothing().with_ram()),
    );
    if sys.total_memory() == 0 {
        return None;
    }
    let mut available = sys.available_memory();
    // A control group's limit binds when it is below the machine's memory; its page
    // cache can be reclaimed, its anonymous memory cannot.
    if let Some(group) = sys.cgroup_limits() {
        if group.total_memory < sys.total_memory() {
            available = available.min(group.total_memory.saturating_sub(group.rss));
        }
    }
    if let Some(room) = address_space_left() {
        available = available.min(room);
    }
    Some(available)
}

/// Room left under this process's address space limit (`ulimit -v`), when one is set:
/// the limit less what is mapped already (Linux's /proc/self files; None elsewhere).
fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped_kib: u64 = (status.lines())
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    Some(soft.saturating_sub(mapped_kib.saturating_mul(1024)))
}

/// One term of an [`Estimate`]: `count` things of `bytes_each` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// How many.
    pub count: u128,
    /// What they are, plural (`per-run results`, `forwarding table entries`).
    pub what: &'static str,
    /// Bytes each.
    pub bytes_each: u128,
}

impl Item {
    /// The bytes of the term, saturating.
    pub fn bytes(&self) -> u128 {
        self.count.saturating_mul(self.bytes_each)
    }
}

/// The memory a request needs: what it is, and the terms that grow with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    subject: String,
    items: Vec<Item>,
}

impl Estimate {
    /// An empty estimate for `subject` (how errors name the request, e.g. "a simulation
    /// of 100 runs").
    pub fn new(subject: impl Into<String>) -> Self {
        Estimate {
            subject: subject.into(),
            items: Vec::new(),
        }
    }

    /// Adds `count` `what` of `bytes_each` bytes.
    pub fn add(mut self, count: u128, what: &'static str, bytes_each: u128) -> Self {
        self.items.push(Item {
            count,
            what,
            bytes_each,
        });
        self
    }

    /// Adds every term of `other`, `times` over (what each of several workers holds).
    pub fn add_times(mut self, times: u128, other: &Estimate) -> Self {
        for item in &other.items {
            self.items.push(Item {
                count: item.count.saturating_mul(times),
                ..item.clone()
            });
        }
        self
    }

    /// Total bytes, saturating.
    pub fn bytes(&self) -> u128 {
        (self.items.iter()).fold(0u128, |sum, item| sum.saturating_add(item.bytes()))
    }

    /// The largest term.
    pub fn largest(&self) -> Option<&Item> {
        self.items.iter().max_by_key(|item| item.bytes())
    }

    /// How errors name the request.
    pub fn subject(&self) -> &str {
        &self.subject
    }
}

/// A request beyond what the run can hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The request needs more memory than the limit allows.
    #[error("{}", memory_message(subject, *needed, largest.as_deref(), limit))]
    Memory {
        /// The request, as the [`Estimate`] names it.
        subject: String,
        /// Bytes it needs (saturated).
        needed: u128,
        /// Its largest term.
        largest: Option<Box<Item>>,
        /// The limit it exceeds.
        limit: MemoryLimit,
    },
    /// More worker threads than the machine can use.
    #[error(
        "{asked} worker threads is more than this machine can use: at most {max} \
         ({THREADS_PER_CORE} per core on {cores} cores, and never more than {MAX_THREADS})"
    )]
    Threads {
        /// The count asked for.
        asked: usize,
        /// The most allowed here.
        max: usize,
        /// The machine's cores.
        cores: usize,
    },
}

/// A count as people read it: exact up to 10^15, in scientific notation beyond.
pub fn count_text(count: u128) -> String {
    if count < 1_000_000_000_000_000 {
        count.to_string()
    } else {
        format!("{:.1e}", count as f64)
    }
}

/// The text of [`LimitError::Memory`].
fn memory_message(
    subject: &str,
    needed: u128,
    largest: Option<&Item>,
    limit: &MemoryLimit,
) -> String {
    let mut s = format!("{subject} needs about {}", human_bytes(needed));
    if let Some(item) = largest {
        s.push_str(&format!(
            " ({} {} of {} bytes)",
            count_text(item.count),
            item.what,
            item.bytes_each
        ));
    }
    let limit_text = human_bytes(limit.bytes as u128);
    match limit.source {
        LimitSource::Given => s.push_str(&format!(", but --max-memory is {limit_text}")),
        LimitSource::Available => s.push_str(&format!(
            ", but --max-memory is {limit_text} (the memory available on this machine; \
             give --max-memory SIZE to allow more)"
        )),
        LimitSource::Unlimited => {}
    }
    if needed > isize::MAX as u128 {
        s.push_str(&format!(
            "; no process can allocate more than {}",
            human_bytes(isize::MAX as u128)
        ));
    }
    s
}

/// The worker pool size for `asked` threads on this machine: at most
/// [`THREADS_PER_CORE`] per core and [`MAX_THREADS`] in all.
pub fn worker_threads(asked: usize) -> Result<usize, LimitError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    threads_within(asked, cores)
}

/// [`worker_threads`] on a machine of `cores` cores.
fn threads_within(asked: usize, cores: usize) -> Result<usize, LimitError> {
    let max = cores.saturating_mul(THREADS_PER_CORE).min(MAX_THREADS);
    if asked > max {
        return Err(LimitError::Threads { asked, max, cores });
    }
    Ok(asked)
}

/// `bytes` in binary units with one decimal (`34.0 GiB`); exact below 1 KiB.
pub fn human_bytes(bytes: u128) -> String {
    const NAMES: [&str; 7] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < NAMES.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", NAMES[unit])
}

/// Parses a memory size: a byte count, or a number (fractions allowed) with one of the
/// suffixes K, M, G, T, P, each a power of 1024 (`512M`, `8G`, `1.5T`; `8GiB` and
/// `8GB` mean the same as `8G`, as in `sort -S` and Slurm). Errors say what is accepted.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let bad =
        || format!("expected a size such as 512M, 8G, 1.5T or a number of bytes, got '{text}'");
    let trimmed = text.trim();
    let upper = trimmed.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (number, power) = UNITS
        .iter()
        .rev()
        .find_map(|&(suffix, power)| {
            (!suffix.is_empty())
                .then(|| body.strip_suffix(suffix))
                .flatten()
                .map(|n| (n, power))
        })
        .unwrap_or((body, 0));
    let number = number.trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(bad());
    }
    if power == 0 {
        return number.parse::<u64>().map_err(|_| bad());
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let bytes = value * 1024f64.powi(power as i32);
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("'{text}' is more than any machine has"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("8gib"), Ok(8 << 30));
        assert_eq!(parse_size("8GB"), Ok(8 << 30));
        assert_eq!(parse_size("1.5T"), Ok(3 << 39));
        assert_eq!(parse_size("2k"), Ok(2048));
        assert_eq!(parse_size("100B"), Ok(100));
        for bad in ["", "G", "-1G", "1.5", "abc", "1e9", "8X", "1..5G"] {
            assert!(parse_size(bad).is_err(), "{bad} parsed");
        }
        assert!(parse_size("100000000P").unwrap_err().contains("more than"));
    }

    #[test]
    fn bytes_read_as_people_write_them() {
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(34_359_738_368), "32.0 GiB");
        assert!(human_bytes(u128::MAX).ends_with(" ZiB"));
    }

    #[test]
    fn an_estimate_beyond_the_limit_names_both() {
        let estimate = Estimate::new("a simulation of 4294967296 runs")
            .add(4_294_967_296, "per-run results", 24)
            .add(100, "links", 8);
        assert_eq!(estimate.bytes(), 4_294_967_296 * 24 + 800);
        let limit = MemoryLimit::given(8 << 30);
        let err = limit.check(&estimate).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a simulation of 4294967296 runs needs about 96.0 GiB (4294967296 per-run results \
             of 24 bytes), but --max-memory is 8.0 GiB"
        );
        assert!(MemoryLimit::given(100 << 30).check(&estimate).is_ok());
        let available = MemoryLimit {
            bytes: 1 << 30,
            source: LimitSource::Available,
        };
        assert!(available
            .check(&estimate)
            .unwrap_err()
            .to_string()
            .contains("(the memory available on this machine; give --max-memory SIZE"));
    }

    #[test]
    fn nothing_beyond_the_address_space_passes() {
        let huge = Estimate::new("x").add(u128::MAX, "things", 2);
        assert_eq!(huge.bytes(), u128::MAX);
        let text = MemoryLimit::unlimited()
            .check(&huge)
            .unwrap_err()
            .to_string();
        assert!(text.starts_with("x needs about "), "{text}");
        assert!(
            text.contains("no process can allocate more than 8.0 EiB"),
            "{text}"
        );
        let times = Estimate::new("y").add_times(3, &Estimate::new("z").add(5, "bits", 2));
        assert_eq!(times.bytes(), 30);
        assert_eq!(MemoryLimit::given(100).share(4).bytes(), 25);
    }

    #[test]
    fn threads_are_capped_per_core_and_in_all() {
        assert_eq!(threads_within(128, 2), Ok(128));
        assert_eq!(
            threads_within(129, 2),
            Err(LimitError::Threads {
                asked: 129,
                max: 128,
                cores: 2
            })
        );
        assert_eq!(threads_within(4096, 1000), Ok(4096));
        assert!(threads_within(4097, 1000).is_err());
        assert!(worker_threads(1).is_ok());
        assert!(worker_threads(usize::MAX).is_err());
    }

    #[test]
    fn the_available_memory_is_a_positive_budget() {
        let limit = MemoryLimit::available();
        assert!(limit.bytes() > 0);
        assert_ne!(limit.source(), LimitSource::Given);
    }
}
