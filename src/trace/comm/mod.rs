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

mod follow;
mod resolve;

pub(crate) use follow::{follow, may_follow};
pub use resolve::{resolve, Communicators};

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

/// Whether a group is made of the listed ranks or of the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// `MPI_Group_incl`, `MPI_Group_range_incl`: the listed ranks, in list order.
    Incl,
    /// `MPI_Group_excl`, `MPI_Group_range_excl`: the other ranks, in group order.
    Excl,
}

impl Pick {
    fn group(self, of: u32, ranks: Vec<i32>) -> Group {
        match self {
            Pick::Incl => Group::Incl(of, ranks),
            Pick::Excl => Group::Excl(of, ranks),
        }
    }
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

    /// `MPI_Group_incl` or `MPI_Group_excl` (`pick`) of `ranks` of `group`, giving
    /// `new`.
    pub fn group_pick(
        &mut self,
        pick: Pick,
        group: Handle,
        ranks: &[i32],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        self.new_group(new, pick.group(g, ranks.to_vec()))
    }

    /// `MPI_Group_range_incl` or `MPI_Group_range_excl` (`pick`) of `ranges` of
    /// `group`, each range (first, last, stride), giving `new`.
    pub fn group_range(
        &mut self,
        pick: Pick,
        group: Handle,
        ranges: &[[i32; 3]],
        new: Handle,
        at: u64,
    ) -> Result<(), LocatedError> {
        let g = self.group(group, at)?;
        let ranks = self.expand_ranges(ranges, at)?;
        self.new_group(new, pick.group(g, ranks))
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

#[cfg(test)]
mod tests;
