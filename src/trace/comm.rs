//! Communicators of a trace: the world ranks behind every communicator a rank names.
//!
//! A trace names communicators and groups by per-rank handles (DUMPI's `MPI_Comm` and
//! `MPI_Group` ids), and point-to-point peers by their rank *in that communicator*. To
//! turn a message into a (world rank, world rank) pair, every communicator must be
//! resolved to its members in world ranks, and that needs the records of several ranks:
//! `MPI_Comm_split` orders the members of a new communicator by the keys *all* of them
//! passed.
//!
//! Ranks are read on their own (in parallel, streaming), so resolution is in two steps:
//!
//! 1. While one rank's records stream by, [`RankComms`] follows the calls that make,
//!    copy and free communicators and groups, and names the communicator each later
//!    record uses by a [`LocalComm`] (an index into that rank's table, never reused, so a
//!    handle freed and given again stays two communicators).
//! 2. Once every rank is read, [`resolve`] joins their tables: the `k`-th
//!    communicator-making call of each member on one parent communicator is the same
//!    collective call (MPI requires members to make them in the same order), which gives
//!    every new communicator one identity across ranks and, from the members' colours,
//!    keys and groups, its members in rank order.
//!
//! Supported: `MPI_COMM_WORLD`, `MPI_COMM_SELF`, `Comm_dup`, `Comm_split` (colour
//! `MPI_UNDEFINED` gives a null handle), `Comm_create` with groups from `Comm_group`,
//! `Group_incl`, `Group_excl`, `Group_range_incl`, `Group_range_excl`, `Group_union`,
//! `Group_intersection`, `Group_difference` and `MPI_GROUP_EMPTY`; `Cart_create` and
//! `Graph_create` (the members keep their order: a reordering the library may make is
//! not in the trace), and `Cart_sub`. Intercommunicators (`Intercomm_create`,
//! `Intercomm_merge`, `Comm_spawn`, `Comm_accept`, `Comm_connect`, `Comm_join`) are
//! recorded as such; naming a peer through one is an error, because the remote group's
//! order is not in the trace.
//!
//! Cost: O(records) handle lookups while streaming (a hash map per rank, small), then
//! O(Σ members · log members) for resolution.

use crate::error::LocatedError;
use rustc_hash::FxHashMap;

/// A communicator or group handle as a trace stores it (DUMPI: a 16-bit id).
pub type Handle = i16;

/// DUMPI's `MPI_COMM_NULL`.
pub const COMM_NULL: Handle = 1;
/// DUMPI's `MPI_COMM_WORLD`.
pub const COMM_WORLD: Handle = 2;
/// DUMPI's `MPI_COMM_SELF`.
pub const COMM_SELF: Handle = 3;
/// DUMPI's `MPI_GROUP_NULL`.
pub const GROUP_NULL: Handle = 1;
/// DUMPI's `MPI_GROUP_EMPTY`.
pub const GROUP_EMPTY: Handle = 2;

/// The set operations that make a group of two groups, in MPI's order of members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    /// `MPI_Group_union`: the first group's members, then the second's not in it.
    Union,
    /// `MPI_Group_intersection`: the first group's members that are in the second.
    Intersection,
    /// `MPI_Group_difference`: the first group's members that are not in the second.
    Difference,
}

/// A communicator of one rank: an index into that rank's [`RankComms`] table.
/// `LocalComm::WORLD` and `LocalComm::SELF` are the same on every rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalComm(pub u32);

impl LocalComm {
    /// `MPI_COMM_WORLD`.
    pub const WORLD: LocalComm = LocalComm(0);
    /// `MPI_COMM_SELF`.
    pub const SELF: LocalComm = LocalComm(1);
}

/// The communicator-making calls, with what each member passes.
#[derive(Debug, Clone, PartialEq)]
enum Making {
    /// `Comm_dup`, `Cart_create`, `Graph_create`: the parent's members, in order.
    Copy(&'static str),
    /// `Comm_split`.
    Split { color: i32, key: i32 },
    /// `Comm_create` with this rank's group (an index into its group table).
    Create { group: u32 },
    /// `Cart_sub` of a Cartesian communicator of dimensions `dims`.
    CartSub { dims: Vec<i32>, remain: Vec<bool> },
}

impl Making {
    fn call(&self) -> &'static str {
        match self {
            Making::Copy(call) => call,
            Making::Split { .. } => "MPI_Comm_split",
            Making::Create { .. } => "MPI_Comm_create",
            Making::CartSub { .. } => "MPI_Cart_sub",
        }
    }
}

/// A group of one rank, as the calls that made it (evaluated once communicators are
/// resolved).
#[derive(Debug, Clone)]
enum Group {
    Empty,
    OfComm(u32),
    Incl(u32, Vec<i32>),
    Excl(u32, Vec<i32>),
    Union(u32, u32),
    Intersection(u32, u32),
    Difference(u32, u32),
}

/// One communicator of a rank's table.
#[derive(Debug, Clone)]
struct CommEntry {
    /// An intercommunicator: its remote group is not in the trace.
    inter: bool,
    /// Cartesian dimensions when made by `Cart_create` (for a later `Cart_sub`).
    cart_dims: Option<Vec<i32>>,
}

/// One communicator-making call as the whole trace sees it: which rank made it, where,
/// and what it passed (also for calls that returned `MPI_COMM_NULL`).
#[derive(Debug, Clone)]
struct Call {
    parent: u32,
    seq: u32,
    how: Making,
    at: u64,
    /// The local communicator it gave, or None for a null handle.
    made: Option<u32>,
}

/// One rank's communicators and groups while its records stream by.
#[derive(Debug, Clone)]
pub struct RankComms {
    path: String,
    rank: u32,
    size: u32,
    comms: Vec<CommEntry>,
    comm_handles: FxHashMap<Handle, u32>,
    /// Per local communicator: how many communicator-making calls were made on it.
    made_on: Vec<u32>,
    groups: Vec<Group>,
    group_handles: FxHashMap<Handle, u32>,
    calls: Vec<Call>,
}

impl RankComms {
    /// The table of world rank `rank` of `size`, reading `path` (for error messages).
    pub fn new(path: impl Into<String>, rank: u32, size: u32) -> Self {
        let predefined = CommEntry {
            inter: false,
            cart_dims: None,
        };
        let mut comm_handles = FxHashMap::default();
        comm_handles.insert(COMM_WORLD, LocalComm::WORLD.0);
        comm_handles.insert(COMM_SELF, LocalComm::SELF.0);
        let mut group_handles = FxHashMap::default();
        group_handles.insert(GROUP_EMPTY, 0);
        RankComms {
            path: path.into(),
            rank,
            size,
            comms: vec![predefined.clone(), predefined],
            comm_handles,
            made_on: vec![0, 0],
            groups: vec![Group::Empty],
            group_handles,
            calls: Vec::new(),
        }
    }

    /// The communicator `comm` names now, for a record at byte `at`.
    pub fn current(&self, comm: Handle, at: u64) -> Result<LocalComm, LocatedError> {
        match self.comm_handles.get(&comm) {
            Some(&local) => Ok(LocalComm(local)),
            None => Err(self.error(at, format!("communicator {comm} is not defined here"))),
        }
    }

    /// Whether `comm` is an intercommunicator.
    pub fn is_inter(&self, comm: LocalComm) -> bool {
        self.comms[comm.0 as usize].inter
    }

    /// `MPI_Comm_dup(old, &new)`.
    pub fn dup(&mut self, old: Handle, new: Handle, at: u64) -> Result<(), LocatedError> {
        self.make(old, new, Making::Copy("MPI_Comm_dup"), at)
    }

    /// `MPI_Comm_split(old, color, key, &new)`; `new` is [`COMM_NULL`] for colour
    /// `MPI_UNDEFINED`.
    pub fn split(
        &mut self,
        old: Handle,
        color: i32,
        key: i32,
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        self.make(old, new, Making::Split { color, key }, at)
    }

    /// `MPI_Comm_create(old, group, &new)`.
    pub fn create(
        &mut self,
        old: Handle,
        group: Handle,
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let group = self.group(group, at)?;
        self.make(old, new, Making::Create { group }, at)
    }

    /// `MPI_Cart_create(old, dims…, &new)`: the members of `old` in order (a reordering
    /// by the library is not in the trace); `new` is [`COMM_NULL`] on ranks beyond the
    /// grid.
    pub fn cart_create(
        &mut self,
        old: Handle,
        dims: &[i32],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        if dims.iter().any(|&d| d <= 0) {
            return Err(self.error(
                at,
                format!("Cartesian dimensions {dims:?} must be positive"),
            ));
        }
        self.make(old, new, Making::Copy("MPI_Cart_create"), at)?;
        if new != COMM_NULL {
            let local = self.comm_handles[&new];
            self.comms[local as usize].cart_dims = Some(dims.to_vec());
        }
        Ok(())
    }

    /// `MPI_Graph_create(old, …, &new)`: the members of `old` in order.
    pub fn graph_create(&mut self, old: Handle, new: Handle, at: u64) -> Result<(), LocatedError> {
        self.make(old, new, Making::Copy("MPI_Graph_create"), at)
    }

    /// `MPI_Cart_sub(old, remain_dims, &new)`.
    pub fn cart_sub(
        &mut self,
        old: Handle,
        remain: &[bool],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let parent = self.current(old, at)?;
        let Some(dims) = self.comms[parent.0 as usize].cart_dims.clone() else {
            return Err(self.error(
                at,
                format!("MPI_Cart_sub on communicator {old}, which is not Cartesian"),
            ));
        };
        if dims.len() != remain.len() {
            return Err(self.error(
                at,
                format!(
                    "MPI_Cart_sub gives {} remain_dims for a {}-dimensional grid",
                    remain.len(),
                    dims.len()
                ),
            ));
        }
        let remain = remain.to_vec();
        self.make(old, new, Making::CartSub { dims, remain }, at)
    }

    /// An intercommunicator `new` (from `Intercomm_create`, `Intercomm_merge`,
    /// `Comm_spawn`, `Comm_accept`, `Comm_connect` or `Comm_join`).
    pub fn intercomm(&mut self, new: Handle) {
        if new == COMM_NULL {
            return;
        }
        let local = self.comms.len() as u32;
        self.comms.push(CommEntry {
            inter: true,
            cart_dims: None,
        });
        self.made_on.push(0);
        self.comm_handles.insert(new, local);
    }

    /// `MPI_Comm_free(&comm)`: the handle names nothing until made again.
    pub fn free(&mut self, comm: Handle, at: u64) -> Result<(), LocatedError> {
        if comm == COMM_WORLD || comm == COMM_SELF {
            return Err(self.error(at, "MPI_Comm_free of a predefined communicator"));
        }
        match self.comm_handles.remove(&comm) {
            Some(_) => Ok(()),
            None => Err(self.error(
                at,
                format!("MPI_Comm_free of communicator {comm}, which is not defined here"),
            )),
        }
    }

    /// `MPI_Comm_group(comm, &group)`.
    pub fn comm_group(&mut self, comm: Handle, group: Handle, at: u64) -> Result<(), LocatedError> {
        let comm = self.current(comm, at)?;
        if self.is_inter(comm) {
            return Err(self.error(
                at,
                "MPI_Comm_group of an intercommunicator: its order is not in the trace",
            ));
        }
        self.new_group(group, Group::OfComm(comm.0))
    }

    /// `MPI_Group_incl(group, ranks, &new)`.
    pub fn group_incl(
        &mut self,
        group: Handle,
        ranks: &[i32],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        self.new_group(new, Group::Incl(g, ranks.to_vec()))
    }

    /// `MPI_Group_excl(group, ranks, &new)`.
    pub fn group_excl(
        &mut self,
        group: Handle,
        ranks: &[i32],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        self.new_group(new, Group::Excl(g, ranks.to_vec()))
    }

    /// `MPI_Group_range_incl(group, ranges, &new)`, each range (first, last, stride).
    pub fn group_range_incl(
        &mut self,
        group: Handle,
        ranges: &[[i32; 3]],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        let ranks = self.expand_ranges(ranges, at)?;
        self.new_group(new, Group::Incl(g, ranks))
    }

    /// `MPI_Group_range_excl(group, ranges, &new)`.
    pub fn group_range_excl(
        &mut self,
        group: Handle,
        ranges: &[[i32; 3]],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        let ranks = self.expand_ranges(ranges, at)?;
        self.new_group(new, Group::Excl(g, ranks))
    }

    /// `MPI_Group_union`, `MPI_Group_intersection` or `MPI_Group_difference` (`op`) of
    /// groups `a` and `b`, giving `new`.
    pub fn group_set(
        &mut self,
        op: SetOp,
        a: Handle,
        b: Handle,
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let (a, b) = (self.group(a, at)?, self.group(b, at)?);
        let group = match op {
            SetOp::Union => Group::Union(a, b),
            SetOp::Intersection => Group::Intersection(a, b),
            SetOp::Difference => Group::Difference(a, b),
        };
        self.new_group(new, group)
    }

    /// `MPI_Group_free(&group)`.
    pub fn group_free(&mut self, group: Handle, at: u64) -> Result<(), LocatedError> {
        if group == GROUP_EMPTY {
            return Ok(());
        }
        match self.group_handles.remove(&group) {
            Some(_) => Ok(()),
            None => Err(self.error(
                at,
                format!("MPI_Group_free of group {group}, which is not defined here"),
            )),
        }
    }

    fn group(&self, group: Handle, at: u64) -> Result<u32, LocatedError> {
        match self.group_handles.get(&group) {
            Some(&g) => Ok(g),
            None => Err(self.error(at, format!("group {group} is not defined here"))),
        }
    }

    fn new_group(&mut self, handle: Handle, group: Group) -> Result<(), LocatedError> {
        if handle == GROUP_NULL {
            return Ok(());
        }
        let index = self.groups.len() as u32;
        self.groups.push(group);
        self.group_handles.insert(handle, index);
        Ok(())
    }

    /// The ranks of (first, last, stride) triples, as `MPI_Group_range_incl` lists them.
    fn expand_ranges(&self, ranges: &[[i32; 3]], at: u64) -> Result<Vec<i32>, LocatedError> {
        let mut ranks = Vec::new();
        for &[first, last, stride] in ranges {
            let wrong = stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last);
            if wrong {
                return Err(self.error(
                    at,
                    format!("group range ({first}, {last}, {stride}) is empty or has stride 0"),
                ));
            }
            let count = (i64::from(last) - i64::from(first)) / i64::from(stride) + 1;
            if ranks.len() as i64 + count > i64::from(self.size) {
                return Err(self.error(
                    at,
                    format!(
                        "group ranges list more than the {} ranks of the trace",
                        self.size
                    ),
                ));
            }
            ranks.extend((0..count).map(|i| (i64::from(first) + i * i64::from(stride)) as i32));
        }
        Ok(ranks)
    }

    /// Records a communicator-making call on `old` that gave `new`.
    fn make(&mut self, old: Handle, new: Handle, how: Making, at: u64) -> Result<(), LocatedError> {
        let parent = self.current(old, at)?.0;
        if self.comms[parent as usize].inter {
            return Err(self.error(
                at,
                format!("{} on an intercommunicator is not supported", how.call()),
            ));
        }
        let seq = self.made_on[parent as usize];
        self.made_on[parent as usize] += 1;
        let made = (new != COMM_NULL).then(|| {
            let local = self.comms.len() as u32;
            self.comms.push(CommEntry {
                inter: false,
                cart_dims: None,
            });
            self.made_on.push(0);
            self.comm_handles.insert(new, local);
            local
        });
        self.calls.push(Call {
            parent,
            seq,
            how,
            at,
            made,
        });
        Ok(())
    }

    fn error(&self, at: u64, message: impl Into<String>) -> LocatedError {
        LocatedError::at_byte(&self.path, at, message)
    }
}

/// Every communicator of a trace resolved to its members.
#[derive(Debug, Clone)]
pub struct Communicators {
    /// Members (world ranks, in communicator rank order) of each global communicator.
    members: Vec<Vec<u32>>,
    /// Per world rank: its local communicators' global ids (None for intercommunicators).
    local_to_global: Vec<Vec<Option<u32>>>,
}

impl Communicators {
    /// The world rank of rank `comm_rank` of communicator `comm` of world rank `rank`;
    /// None when out of range or `comm` is an intercommunicator.
    pub fn world_rank(&self, rank: u32, comm: LocalComm, comm_rank: i32) -> Option<u32> {
        let members = self.members(rank, comm)?;
        usize::try_from(comm_rank)
            .ok()
            .and_then(|r| members.get(r))
            .copied()
    }

    /// The members of `comm` of world rank `rank`, in communicator rank order.
    pub fn members(&self, rank: u32, comm: LocalComm) -> Option<&[u32]> {
        let global = (*self
            .local_to_global
            .get(rank as usize)?
            .get(comm.0 as usize)?)?;
        Some(&self.members[global as usize])
    }

    /// How many distinct communicators the trace has (intercommunicators left out).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there is none (never: a trace has its world).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// What the trace knows of one global communicator while resolving.
#[derive(Debug)]
struct Global {
    members: Option<Vec<u32>>,
}

/// A family's identity: (global id of the parent communicator, how many communicator
/// calls its members made on it before).
type FamilyKey = (u32, u32);

/// A member of a new communicator while its order is decided: split key, rank in the
/// parent, world rank, the member's local communicator.
#[derive(Debug, Clone, Copy)]
struct Member {
    key: i64,
    pos: usize,
    rank: u32,
    local: u32,
}

/// One family: the calls of the members of a communicator making their `seq`-th
/// communicator on it.
#[derive(Debug, Default)]
struct Family {
    /// (world rank, index of the call in that rank's calls).
    calls: Vec<(u32, usize)>,
}

/// Joins every rank's table (`ranks[r]` is world rank `r`) into the trace's
/// communicators. Errors name the file and byte of the call that does not fit: members
/// that disagree on which call made a communicator, a split key list from ranks outside
/// the parent, a group that does not fit its communicator, or a communicator some
/// member never made.
pub fn resolve(ranks: &[RankComms]) -> Result<Communicators, LocatedError> {
    let size = ranks.len() as u32;
    let mut globals = vec![Global {
        members: Some((0..size).collect()),
    }];
    let mut local_to_global: Vec<Vec<Option<u32>>> =
        ranks.iter().map(|r| vec![None; r.comms.len()]).collect();
    for (rank, table) in ranks.iter().enumerate() {
        if table.rank != rank as u32 || table.size != size {
            return Err(LocatedError::new(
                &table.path,
                format!(
                    "rank {} of {} given as world rank {rank} of {size}",
                    table.rank, table.size
                ),
            ));
        }
        local_to_global[rank][0] = Some(0);
        local_to_global[rank][1] = Some(globals.len() as u32);
        globals.push(Global {
            members: Some(vec![rank as u32]),
        });
    }
    // Families by (global parent, seq), resolved parent first: a family's calls can only
    // be grouped once its parent's global id is known for every member, which holds in
    // creation order (each rank's table lists parents before children).
    let mut cursor = vec![0usize; ranks.len()];
    let mut families: FxHashMap<FamilyKey, Family> = FxHashMap::default();
    loop {
        let mut progress = false;
        for (rank, table) in ranks.iter().enumerate() {
            while let Some(call) = table.calls.get(cursor[rank]) {
                let Some(parent) = local_to_global[rank][call.parent as usize] else {
                    break;
                };
                families
                    .entry((parent, call.seq))
                    .or_default()
                    .calls
                    .push((rank as u32, cursor[rank]));
                cursor[rank] += 1;
                progress = true;
            }
        }
        let complete = complete_families(ranks, &globals, &mut families)?;
        for ((parent, _), family) in &complete {
            let made = resolve_family(ranks, &mut globals, &local_to_global, *parent, family)?;
            for (rank, local, global) in made {
                local_to_global[rank as usize][local as usize] = Some(global);
            }
            progress = true;
        }
        if !progress {
            break;
        }
    }
    if let Some((rank, call)) = ranks
        .iter()
        .enumerate()
        .find_map(|(rank, t)| t.calls.get(cursor[rank]).map(|c| (rank, c)))
    {
        return Err(LocatedError::at_byte(
            &ranks[rank].path,
            call.at,
            format!(
                "{} is never matched by the other members of its communicator",
                call.how.call()
            ),
        ));
    }
    if let Some(((_, _), family)) = families.iter().next() {
        let (rank, call) = family.calls[0];
        let call = &ranks[rank as usize].calls[call];
        return Err(LocatedError::at_byte(
            &ranks[rank as usize].path,
            call.at,
            format!(
                "{} is not made by every member of its communicator",
                call.how.call()
            ),
        ));
    }
    let members = globals
        .into_iter()
        .map(|g| g.members.unwrap_or_default())
        .collect();
    // Intercommunicators keep None.
    Ok(Communicators {
        members,
        local_to_global,
    })
}

/// Takes out of `families` those whose parent is resolved and all of whose members
/// have made their call.
fn complete_families(
    ranks: &[RankComms],
    globals: &[Global],
    families: &mut FxHashMap<FamilyKey, Family>,
) -> Result<Vec<(FamilyKey, Family)>, LocatedError> {
    let mut keys: Vec<FamilyKey> = families
        .iter()
        .filter(|((parent, _), family)| {
            let parent = &globals[*parent as usize];
            parent
                .members
                .as_ref()
                .is_some_and(|m| m.len() == family.calls.len())
        })
        .map(|(key, _)| *key)
        .collect();
    keys.sort_unstable();
    let mut complete = Vec::with_capacity(keys.len());
    for key in keys {
        let family = families.remove(&key).expect("key listed above");
        let (first_rank, first_call) = family.calls[0];
        let first = &ranks[first_rank as usize].calls[first_call];
        for &(rank, call) in &family.calls[1..] {
            let call = &ranks[rank as usize].calls[call];
            if std::mem::discriminant(&call.how) != std::mem::discriminant(&first.how)
                || call.how.call() != first.how.call()
            {
                return Err(LocatedError::at_byte(
                    &ranks[rank as usize].path,
                    call.at,
                    format!(
                        "{} here, but rank {first_rank} made {} as the same call on that communicator (byte {} of {})",
                        call.how.call(),
                        first.how.call(),
                        first.at,
                        ranks[first_rank as usize].path
                    ),
                ));
            }
        }
        complete.push((key, family));
    }
    Ok(complete)
}

/// Makes the communicators of one complete family; returns (world rank, its local
/// communicator, global id) for every member that got one.
fn resolve_family(
    ranks: &[RankComms],
    globals: &mut Vec<Global>,
    local_to_global: &[Vec<Option<u32>>],
    parent: u32,
    family: &Family,
) -> Result<Vec<(u32, u32, u32)>, LocatedError> {
    let parent_members = globals[parent as usize]
        .members
        .clone()
        .expect("complete families have resolved parents");
    let position = |world: u32| parent_members.iter().position(|&m| m == world);
    // Colour classes: members with the same colour share a communicator.
    let mut classes: Vec<(Vec<i64>, Vec<Member>)> = Vec::new();
    let mut created: Option<Vec<u32>> = None;
    for &(rank, index) in &family.calls {
        let table = &ranks[rank as usize];
        let call = &table.calls[index];
        let Some(pos) = position(rank) else {
            return Err(LocatedError::at_byte(
                &table.path,
                call.at,
                format!(
                    "{} by rank {rank}, which is not a member of that communicator",
                    call.how.call()
                ),
            ));
        };
        let Some(local) = call.made else { continue };
        let (color, key): (Vec<i64>, i64) = match &call.how {
            Making::Copy(_) => (vec![], 0),
            Making::Split { color, key } => (vec![i64::from(*color)], i64::from(*key)),
            Making::CartSub { dims, remain } => {
                let coords = cart_coords(pos, dims);
                let dropped = coords
                    .iter()
                    .zip(remain)
                    .filter(|(_, &r)| !r)
                    .map(|(&c, _)| c)
                    .collect();
                (dropped, 0)
            }
            Making::Create { group } => {
                let members = evaluate(
                    table,
                    globals,
                    &local_to_global[rank as usize],
                    *group,
                    call.at,
                )?;
                if let Some(stranger) = members.iter().find(|m| position(**m).is_none()) {
                    return Err(LocatedError::at_byte(&table.path, call.at, format!("MPI_Comm_create with a group holding rank {stranger}, which is not in the communicator")));
                }
                if !members.contains(&rank) {
                    return Err(LocatedError::at_byte(&table.path, call.at, format!("MPI_Comm_create gave rank {rank} a communicator, but its group does not hold it")));
                }
                match &created {
                    Some(first) if first != &members => {
                        return Err(LocatedError::at_byte(
                            &table.path,
                            call.at,
                            "MPI_Comm_create with a group other than the other members'",
                        ));
                    }
                    _ => created = Some(members),
                }
                (vec![], 0)
            }
        };
        let entry = Member {
            key,
            pos,
            rank,
            local,
        };
        match classes.iter_mut().find(|(c, _)| *c == color) {
            Some((_, list)) => list.push(entry),
            None => classes.push((color, vec![entry])),
        }
    }
    let mut made = Vec::new();
    for (_, mut list) in classes {
        // Split orders by key, then by rank in the parent; the others keep parent order.
        list.sort_unstable_by_key(|m| (m.key, m.pos));
        let members: Vec<u32> = match &created {
            Some(group) => group.clone(),
            None => list.iter().map(|m| m.rank).collect(),
        };
        let global = globals.len() as u32;
        globals.push(Global {
            members: Some(members),
        });
        made.extend(list.iter().map(|m| (m.rank, m.local, global)));
    }
    Ok(made)
}

/// Row-major coordinates of rank `pos` in a grid of `dims` (the last dimension varies
/// fastest, as MPI numbers Cartesian ranks).
fn cart_coords(pos: usize, dims: &[i32]) -> Vec<i64> {
    let mut rest = pos as i64;
    let mut coords = vec![0; dims.len()];
    for (c, &d) in coords.iter_mut().zip(dims).rev() {
        *c = rest % i64::from(d);
        rest /= i64::from(d);
    }
    coords
}

/// The world ranks of group `group` of `table`, in group order.
fn evaluate(
    table: &RankComms,
    globals: &[Global],
    local_to_global: &[Option<u32>],
    group: u32,
    at: u64,
) -> Result<Vec<u32>, LocatedError> {
    let eval = |g: u32| evaluate(table, globals, local_to_global, g, at);
    let pick = |from: &[u32], ranks: &[i32]| -> Result<Vec<u32>, LocatedError> {
        let mut seen = vec![false; from.len()];
        let mut out = Vec::with_capacity(ranks.len());
        for &r in ranks {
            match usize::try_from(r).ok().filter(|&r| r < from.len()) {
                Some(r) if !seen[r] => {
                    seen[r] = true;
                    out.push(from[r]);
                }
                Some(_) => {
                    return Err(LocatedError::at_byte(
                        &table.path,
                        at,
                        format!("group rank {r} listed twice"),
                    ))
                }
                None => {
                    return Err(LocatedError::at_byte(
                        &table.path,
                        at,
                        format!("group rank {r} outside a group of {}", from.len()),
                    ))
                }
            }
        }
        Ok(out)
    };
    Ok(match &table.groups[group as usize] {
        Group::Empty => Vec::new(),
        // The communicator was made before the group and before the call that uses
        // the group, so it is resolved: its family completed before this one could.
        Group::OfComm(local) => local_to_global[*local as usize]
            .and_then(|g| globals[g as usize].members.clone())
            .ok_or_else(|| {
                LocatedError::at_byte(
                    &table.path,
                    at,
                    "a group of a communicator that is not resolved",
                )
            })?,
        Group::Incl(g, ranks) => pick(&eval(*g)?, ranks)?,
        Group::Excl(g, ranks) => {
            let from = eval(*g)?;
            let excluded = pick(&from, ranks)?;
            from.into_iter().filter(|m| !excluded.contains(m)).collect()
        }
        Group::Union(a, b) => {
            let mut out = eval(*a)?;
            for m in eval(*b)? {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
            out
        }
        Group::Intersection(a, b) => {
            let b = eval(*b)?;
            eval(*a)?.into_iter().filter(|m| b.contains(m)).collect()
        }
        Group::Difference(a, b) => {
            let b = eval(*b)?;
            eval(*a)?.into_iter().filter(|m| !b.contains(m)).collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables of `size` ranks after `calls(rank, table)` on each.
    fn traced(size: u32, calls: impl Fn(u32, &mut RankComms)) -> Vec<RankComms> {
        (0..size)
            .map(|rank| {
                let mut table = RankComms::new(format!("t-{rank:04}.bin"), rank, size);
                calls(rank, &mut table);
                table
            })
            .collect()
    }

    /// The members of the communicator `handle` names on `rank` at the end.
    fn members_of(
        ranks: &[RankComms],
        comms: &Communicators,
        rank: u32,
        handle: Handle,
    ) -> Vec<u32> {
        let local = ranks[rank as usize].current(handle, 0).unwrap();
        comms.members(rank, local).unwrap().to_vec()
    }

    #[test]
    fn world_and_self() {
        let ranks = traced(3, |_, _| {});
        let comms = resolve(&ranks).unwrap();
        assert_eq!(comms.world_rank(1, LocalComm::WORLD, 2), Some(2));
        assert_eq!(comms.world_rank(1, LocalComm::SELF, 0), Some(1));
        assert_eq!(comms.world_rank(2, LocalComm::SELF, 0), Some(2));
        assert_eq!(comms.world_rank(1, LocalComm::WORLD, 3), None);
        assert_eq!(comms.world_rank(1, LocalComm::WORLD, -1), None);
        assert_eq!(comms.len(), 4);
    }

    #[test]
    fn split_orders_by_key_then_parent_rank() {
        // 6 ranks, colour r % 2, key -(r / 2) except rank 4 with key 5: colour 0 holds
        // 0 (key 0), 2 (key -1), 4 (key 5) → order 2, 0, 4; colour 1 holds 1 (0), 3 (-1),
        // 5 (-2) → 5, 3, 1.
        let ranks = traced(6, |r, t| {
            let key = if r == 4 { 5 } else { -(r as i32 / 2) };
            t.split(COMM_WORLD, r as i32 % 2, key, 4, 100).unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        for r in [0, 2, 4] {
            assert_eq!(members_of(&ranks, &comms, r, 4), [2, 0, 4]);
        }
        for r in [1, 3, 5] {
            assert_eq!(members_of(&ranks, &comms, r, 4), [5, 3, 1]);
        }
        let local = ranks[3].current(4, 0).unwrap();
        assert_eq!(comms.world_rank(3, local, 0), Some(5));
        // Equal keys keep the parent's order.
        let ranks = traced(4, |_, t| t.split(COMM_WORLD, 0, 7, 4, 0).unwrap());
        assert_eq!(
            members_of(&ranks, &resolve(&ranks).unwrap(), 2, 4),
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn undefined_colour_gives_no_communicator_but_still_counts() {
        // Rank 0 passes MPI_UNDEFINED (null handle back); then all dup the world: the
        // dup is the second communicator call on the world for everyone.
        let ranks = traced(3, |r, t| {
            let new = if r == 0 { COMM_NULL } else { 4 };
            t.split(COMM_WORLD, 1, 0, new, 10).unwrap();
            t.dup(COMM_WORLD, 5, 20).unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        assert_eq!(members_of(&ranks, &comms, 1, 4), [1, 2]);
        assert_eq!(members_of(&ranks, &comms, 0, 5), [0, 1, 2]);
        assert!(ranks[0].current(4, 0).is_err());
    }

    #[test]
    fn nested_splits_dups_and_reused_handles() {
        // Split the world (8 ranks) into halves (r / 4), reversed (key -r); split each
        // half into pairs by (comm rank / 2); dup a pair; free the halves and reuse the
        // handle for a dup of the world.
        let ranks = traced(8, |r, t| {
            t.split(COMM_WORLD, r as i32 / 4, -(r as i32), 4, 0)
                .unwrap();
            // In the half, comm rank = 3 - (r % 4).
            let half_rank = 3 - (r as i32 % 4);
            t.split(4, half_rank / 2, 0, 5, 0).unwrap();
            t.dup(5, 6, 0).unwrap();
            t.free(4, 0).unwrap();
            t.dup(COMM_WORLD, 4, 0).unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        // Half 0 in order 3, 2, 1, 0; pairs: comm ranks 0–1 → (3, 2), 2–3 → (1, 0).
        assert_eq!(members_of(&ranks, &comms, 2, 5), [3, 2]);
        assert_eq!(members_of(&ranks, &comms, 0, 6), [1, 0]);
        assert_eq!(members_of(&ranks, &comms, 4, 6), [5, 4]);
        assert_eq!(members_of(&ranks, &comms, 6, 6), [7, 6]);
        assert_eq!(members_of(&ranks, &comms, 6, 4), (0..8).collect::<Vec<_>>());
        // world, 8 selves, 2 halves, 4 pairs, 4 dups of pairs, 1 dup of the world.
        assert_eq!(comms.len(), 1 + 8 + 2 + 4 + 4 + 1);
    }

    #[test]
    fn create_from_groups() {
        // 6 ranks. g3 = world group; g4 = incl [5, 1, 3]; g5 = excl of g4 [0] = [1, 3];
        // g6 = range_incl (0, 4, 2) of world = [0, 2, 4]; g7 = union(g5, g6) = [1, 3, 0,
        // 2, 4]; g8 = intersection(g7, g4) = [1, 3]; g9 = difference(g7, g5) = [0, 2, 4];
        // g10 = range_excl (5, 0, -2) of world = exclude 5, 3, 1 = [0, 2, 4].
        let ranks = traced(6, |r, t| {
            t.comm_group(COMM_WORLD, 3, 0).unwrap();
            t.group_incl(3, &[5, 1, 3], 4, 0).unwrap();
            t.group_excl(4, &[0], 5, 0).unwrap();
            t.group_range_incl(3, &[[0, 4, 2]], 6, 0).unwrap();
            t.group_set(SetOp::Union, 5, 6, 7, 0).unwrap();
            t.group_set(SetOp::Intersection, 7, 4, 8, 0).unwrap();
            t.group_set(SetOp::Difference, 7, 5, 9, 0).unwrap();
            t.group_range_excl(3, &[[5, 0, -2]], 10, 0).unwrap();
            let in_g4 = [5, 1, 3].contains(&r);
            t.create(COMM_WORLD, 4, if in_g4 { 11 } else { COMM_NULL }, 0)
                .unwrap();
            t.create(COMM_WORLD, 7, if r == 5 { COMM_NULL } else { 12 }, 0)
                .unwrap();
            t.create(COMM_WORLD, 9, if r % 2 == 0 { 13 } else { COMM_NULL }, 0)
                .unwrap();
            t.create(COMM_WORLD, 10, if r % 2 == 0 { 14 } else { COMM_NULL }, 0)
                .unwrap();
            t.create(
                COMM_WORLD,
                8,
                if r == 1 || r == 3 { 15 } else { COMM_NULL },
                0,
            )
            .unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        assert_eq!(members_of(&ranks, &comms, 1, 11), [5, 1, 3]);
        assert_eq!(members_of(&ranks, &comms, 0, 12), [1, 3, 0, 2, 4]);
        assert_eq!(members_of(&ranks, &comms, 4, 13), [0, 2, 4]);
        assert_eq!(members_of(&ranks, &comms, 2, 14), [0, 2, 4]);
        assert_eq!(members_of(&ranks, &comms, 3, 15), [1, 3]);
    }

    #[test]
    fn create_from_the_group_of_a_split_communicator() {
        // Split 4 ranks reversed, take that communicator's group, keep its ranks 0 and
        // 1 (world 3 and 2), create on the world.
        let ranks = traced(4, |r, t| {
            t.split(COMM_WORLD, 0, -(r as i32), 4, 0).unwrap();
            t.comm_group(4, 3, 0).unwrap();
            t.group_incl(3, &[1, 0], 5, 0).unwrap();
            t.create(COMM_WORLD, 5, if r >= 2 { 6 } else { COMM_NULL }, 0)
                .unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        assert_eq!(members_of(&ranks, &comms, 3, 6), [2, 3]);
    }

    #[test]
    fn cartesian_sub_grids() {
        // A 2 x 3 grid of 6 ranks: rank = 3 row + column. Rows keep dimension 1,
        // columns dimension 0.
        let ranks = traced(6, |_, t| {
            t.cart_create(COMM_WORLD, &[2, 3], 4, 0).unwrap();
            t.cart_sub(4, &[false, true], 5, 0).unwrap();
            t.cart_sub(4, &[true, false], 6, 0).unwrap();
        });
        let comms = resolve(&ranks).unwrap();
        assert_eq!(members_of(&ranks, &comms, 4, 5), [3, 4, 5]);
        assert_eq!(members_of(&ranks, &comms, 1, 5), [0, 1, 2]);
        assert_eq!(members_of(&ranks, &comms, 4, 6), [1, 4]);
        assert_eq!(members_of(&ranks, &comms, 2, 6), [2, 5]);
        assert_eq!(comms.len(), 1 + 6 + 1 + 2 + 3);
        assert_eq!(cart_coords(5, &[2, 3]), [1, 2]);
        assert_eq!(cart_coords(7, &[2, 2, 2]), [1, 1, 1]);
        assert_eq!(cart_coords(2, &[2, 2, 2]), [0, 1, 0]);
    }

    #[test]
    fn intercommunicators_are_not_translated() {
        let mut ranks = traced(2, |_, _| {});
        ranks[0].intercomm(4);
        let local = ranks[0].current(4, 0).unwrap();
        assert!(ranks[0].is_inter(local));
        let err = ranks[0].dup(4, 5, 77).unwrap_err();
        assert_eq!(err.byte, Some(77));
        assert!(err.message.contains("intercommunicator"), "{err}");
        ranks[1].intercomm(4);
        let comms = resolve(&ranks).unwrap();
        assert_eq!(comms.world_rank(0, local, 0), None);
    }

    #[test]
    fn errors_name_the_file_and_byte() {
        // Rank 1 dups where rank 0 splits.
        let ranks = traced(2, |r, t| {
            if r == 0 {
                t.split(COMM_WORLD, 0, 0, 4, 40).unwrap();
            } else {
                t.dup(COMM_WORLD, 4, 48).unwrap();
            }
        });
        let err = resolve(&ranks).unwrap_err();
        assert_eq!((err.path.as_str(), err.byte), ("t-0001.bin", Some(48)));
        assert!(
            err.message
                .contains("MPI_Comm_dup here, but rank 0 made MPI_Comm_split"),
            "{err}"
        );
        // Rank 1 never makes the communicator.
        let ranks = traced(2, |r, t| {
            if r == 0 {
                t.dup(COMM_WORLD, 4, 40).unwrap();
            }
        });
        let err = resolve(&ranks).unwrap_err();
        assert_eq!((err.path.as_str(), err.byte), ("t-0000.bin", Some(40)));
        assert!(err.message.contains("not made by every member"), "{err}");
        // Handles that name nothing.
        let mut t = RankComms::new("t.bin", 0, 2);
        assert_eq!(
            t.dup(9, 4, 12).unwrap_err().to_string(),
            "t.bin: byte 12: communicator 9 is not defined here"
        );
        assert!(t.group_incl(9, &[0], 4, 0).is_err());
        assert!(t.free(COMM_WORLD, 0).is_err());
        assert!(t.free(4, 0).is_err());
        assert!(t
            .cart_sub(COMM_WORLD, &[true], 5, 0)
            .unwrap_err()
            .message
            .contains("not Cartesian"));
        assert!(t.cart_create(COMM_WORLD, &[0, 2], 5, 0).is_err());
        assert!(t.group_range_incl(GROUP_EMPTY, &[[0, 3, 0]], 5, 0).is_err());
        assert!(t
            .group_range_incl(GROUP_EMPTY, &[[0, 1_000_000, 1]], 5, 0)
            .is_err());
        // A group rank out of range, found when the communicator is made.
        let ranks = traced(2, |_, t| {
            t.comm_group(COMM_WORLD, 3, 0).unwrap();
            t.group_incl(3, &[0, 2], 4, 0).unwrap();
            t.create(COMM_WORLD, 4, 5, 64).unwrap();
        });
        let err = resolve(&ranks).unwrap_err();
        assert_eq!(err.byte, Some(64));
        assert!(
            err.message.contains("group rank 2 outside a group of 2"),
            "{err}"
        );
        // A rank given a communicator its group does not hold.
        let ranks = traced(2, |_, t| {
            t.comm_group(COMM_WORLD, 3, 0).unwrap();
            t.group_incl(3, &[1], 4, 0).unwrap();
            t.create(COMM_WORLD, 4, 5, 8).unwrap();
        });
        assert!(resolve(&ranks)
            .unwrap_err()
            .message
            .contains("does not hold it"));
    }
}
